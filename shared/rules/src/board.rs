//! The boards of LB-1 and how they are addressed: a board in one period.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::game::Game;
use crate::period::{Period, PeriodClock, PeriodKind};

pub mod built_in;
pub mod definition;
pub mod feed;

/// A board in one period: `seega` in `all`, `mahjong-weekly` in `2026-W49`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BoardRef {
    pub board: String,
    pub period: String,
}

impl BoardRef {
    pub fn new(board: impl Into<String>, period: impl Into<String>) -> Self {
        BoardRef {
            board: board.into(),
            period: period.into(),
        }
    }

    /// A board's single all-time period.
    pub fn all_time(board: impl Into<String>) -> Self {
        BoardRef::new(board, "all")
    }

    /// The storage name: `seega@all`, `mahjong-weekly@2026-W49` (no `#`).
    pub fn key(&self) -> String {
        [self.board.as_str(), "@", self.period.as_str()].concat()
    }
}

/// Which way a board lists its values (LB-2).
///
/// Every board is stored, paged and ranked one way, higher stored values first; a
/// board of lower-is-better values (times, MJ-3) stores `ceiling − value`, so the
/// same machinery lists it fastest first, equal values sharing a rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Higher values first (points).
    HigherFirst,
    /// Lower values first; values are 0 … `ceiling`.
    LowerFirst { ceiling: i64 },
}

impl Order {
    /// The stored value of `value` (what the board's entries hold and sort by).
    pub fn stored(self, value: i64) -> i64 {
        match self {
            Order::HigherFirst => value,
            Order::LowerFirst { ceiling } => ceiling.saturating_sub(value.clamp(0, ceiling)),
        }
    }

    /// The value a stored value stands for (the inverse of [`Order::stored`]).
    pub fn value_of(self, stored: i64) -> i64 {
        self.stored(stored)
    }
}

/// What a board's values count, and so how they are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Points, shown as DISP-1 … DISP-3 say (`1.2K`).
    Points,
    /// A duration in milliseconds, shown `m:ss.mmm` (MJ-3's best times).
    Milliseconds,
    /// An Elo rating, shown whole (`1516`; DB-6, MS-8).
    Rating,
}

impl Unit {
    /// `value` as the app shows it.
    pub fn show(self, value: i64) -> String {
        match self {
            Unit::Points => crate::display::format_points(value),
            Unit::Milliseconds => crate::display::format_time_ms(u64::try_from(value).unwrap_or(0)),
            Unit::Rating => value.to_string(),
        }
    }
}

/// When the refresh job snapshots a board (LB-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// On every tick: a board that changes all the time (the few boards of [`BOARDS`]).
    EveryTick,
    /// Only after its entries changed: every commit that writes one of its entries
    /// marks it, and the tick refreshes the marked boards only (11,000 level rankings,
    /// most of them quiet).
    WhenChanged,
}

/// One board of LB-1: which game feeds it, how it is cut in time, in which zone
/// (GM-2), which way it lists values and when its snapshots are refreshed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardDef {
    pub id: &'static str,
    pub game: Game,
    pub period: PeriodKind,
    pub zone: Tz,
    /// For a rolling board (MJ-20's AMR): the local days it sums, today included.
    pub window_days: Option<u32>,
    pub order: Order,
    pub unit: Unit,
    pub refresh: Refresh,
}

/// The boards podium serves.
pub const BOARDS: [BoardDef; 6] = [
    BoardDef {
        id: "seega",
        game: Game::Seega,
        period: PeriodKind::AllTime,
        zone: Tz::UTC,
        window_days: None,
        order: Order::HigherFirst,
        unit: Unit::Points,
        refresh: Refresh::EveryTick,
    },
    BoardDef {
        id: "dots-and-boxes",
        game: Game::DotsAndBoxes,
        period: PeriodKind::AllTime,
        zone: Tz::UTC,
        window_days: None,
        order: Order::HigherFirst,
        unit: Unit::Rating,
        refresh: Refresh::EveryTick,
    },
    BoardDef {
        id: "minesweeper",
        game: Game::Minesweeper,
        period: PeriodKind::AllTime,
        zone: Tz::UTC,
        window_days: None,
        order: Order::HigherFirst,
        unit: Unit::Rating,
        refresh: Refresh::EveryTick,
    },
    BoardDef {
        id: "mahjong-amr",
        game: Game::MahjongRivals,
        period: PeriodKind::AllTime,
        zone: Tz::Europe__Bucharest,
        window_days: Some(AMR_WINDOW_DAYS),
        order: Order::HigherFirst,
        unit: Unit::Points,
        refresh: Refresh::EveryTick,
    },
    BoardDef {
        id: "mahjong-weekly",
        game: Game::MahjongRivals,
        period: PeriodKind::Weekly,
        zone: Tz::Europe__Bucharest,
        window_days: None,
        order: Order::HigherFirst,
        unit: Unit::Points,
        refresh: Refresh::EveryTick,
    },
    BoardDef {
        id: "mahjong-daily",
        game: Game::MahjongRivals,
        period: PeriodKind::Daily,
        zone: Tz::Europe__Bucharest,
        window_days: None,
        order: Order::HigherFirst,
        unit: Unit::Points,
        refresh: Refresh::EveryTick,
    },
];

/// MJ-20: AMR sums the last 365 local days, today included.
pub const AMR_WINDOW_DAYS: u32 = 365;

/// The levels of Mahjong Rivals (MJ-1), each with its time ranking: 1 …
/// `MAHJONG_LEVELS` (`mahjong::levels::LEVELS`, held equal by a test there).
pub const MAHJONG_LEVELS: u32 = 11_000;

/// The family of Mahjong Rivals level time rankings (MJ-3): one all-time board per
/// level, `mahjong-level-1` … `mahjong-level-11000`, of best times in milliseconds
/// under 24 hours, fastest first. Not in [`BOARDS`]: their snapshots are refreshed
/// only when their entries changed ([`Refresh::WhenChanged`]).
pub const MAHJONG_LEVEL: BoardDef = BoardDef {
    id: "mahjong-level",
    game: Game::MahjongRivals,
    period: PeriodKind::AllTime,
    zone: Tz::Europe__Bucharest,
    window_days: None,
    order: Order::LowerFirst {
        // MJ-3's ceiling, 24 hours (`mahjong::completion::TIME_CEILING_MS`, held equal
        // by a test there): the registry knows no game's module.
        ceiling: 86_400_000,
    },
    unit: Unit::Milliseconds,
    refresh: Refresh::WhenChanged,
};

/// The family of Mahjong Rivals tournament standings (MJ-16): one all-time board per
/// tournament, `mahjong-tournament-{tournament id}`, of total TP, highest first; an
/// entry's instant is its registration, so LB-2's order is MJ-16's final order.
/// Refreshed when changed, like the level rankings.
pub const MAHJONG_TOURNAMENT: BoardDef = BoardDef {
    id: "mahjong-tournament",
    game: Game::MahjongRivals,
    period: PeriodKind::AllTime,
    zone: Tz::Europe__Bucharest,
    window_days: None,
    order: Order::HigherFirst,
    unit: Unit::Points,
    refresh: Refresh::WhenChanged,
};

/// The board named `id`, if podium serves it: one of [`BOARDS`], a level's time
/// ranking (`mahjong-level-420`: [`MAHJONG_LEVEL`]), or a tournament's standings
/// (`mahjong-tournament-spring-cup`: [`MAHJONG_TOURNAMENT`]).
pub fn board_def(id: &str) -> Option<&'static BoardDef> {
    BOARDS.iter().find(|b| b.id == id).or_else(|| {
        if let Some(t) = id.strip_prefix("mahjong-tournament-") {
            return crate::record::ids::is_valid_id(t).then_some(&MAHJONG_TOURNAMENT);
        }
        let n = id.strip_prefix("mahjong-level-")?;
        let level: u32 = n.parse().ok()?;
        (n == level.to_string() && (1..=MAHJONG_LEVELS).contains(&level)).then_some(&MAHJONG_LEVEL)
    })
}

impl BoardDef {
    /// The period an event at `instant` counts in (MJ-20: the local date of the event).
    pub fn period_at(&self, instant: DateTime<Utc>) -> Period {
        Period::containing(self.period, self.zone, instant)
    }

    /// For a rolling board: whether an event at `event` still counts at `now`: its
    /// local date has not left the window (it is today − (window − 1) or later; MJ-20).
    /// An event dated ahead of `now` (a game server's clock skew past local midnight)
    /// counts too: it is in the window from its day on, and leaves it with that day.
    /// Always true for other boards.
    pub fn counts_at(&self, event: DateTime<Utc>, now: DateTime<Utc>) -> bool {
        match self.window_days {
            None => true,
            Some(days) => {
                let today = crate::period::local_date(self.zone, now);
                let day = crate::period::local_date(self.zone, event);
                today - chrono::Days::new(u64::from(days.saturating_sub(1))) <= day
            }
        }
    }

    /// For a rolling board: the local date that leaves the window when `now`'s local
    /// day begins (today − window), whose points must be taken off (MJ-20).
    pub fn expiring_day(&self, now: DateTime<Utc>) -> Option<chrono::NaiveDate> {
        let days = self.window_days?;
        Some(crate::period::local_date(self.zone, now) - chrono::Days::new(u64::from(days)))
    }

    /// The LB-6 clock of `period` at `now`. A rolling board's window runs from the
    /// local midnight that starts today − (window − 1) to the next local midnight,
    /// when it moves (MJ-20).
    pub fn clock(&self, period: &Period, now: DateTime<Utc>) -> PeriodClock {
        let mut clock = period.clock();
        // The board's next reset, also when `period` is a past one.
        clock.next_reset = self.period_at(now).end;
        if let Some(days) = self.window_days {
            let today = crate::period::local_date(self.zone, now);
            let first = today - chrono::Days::new(u64::from(days.saturating_sub(1)));
            let end = crate::period::day_start(self.zone, today + chrono::Days::new(1));
            clock.start = Some(crate::period::day_start(self.zone, first));
            clock.end = Some(end);
            clock.next_reset = Some(end);
            clock.window_days = Some(days);
            clock.kind = crate::period::ClockKind::Rolling;
        }
        clock
    }

    /// This board in `period`.
    pub fn in_period(&self, period: &Period) -> BoardRef {
        BoardRef::new(self.id, period.id.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MJ-20: the AMR window is the local dates today − 364 … today (Bucharest).
    #[test]
    fn amr_window() {
        let amr = board_def("mahjong-amr").unwrap();
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        let now = t("2027-11-30T10:00:00Z");
        assert!(amr.counts_at(t("2027-11-30T09:00:00Z"), now));
        assert!(amr.counts_at(t("2026-12-01T00:30:00+02:00"), now), "today − 364");
        assert!(!amr.counts_at(t("2026-11-30T23:30:00+02:00"), now), "today − 365");
        // 2026-11-30T22:30Z is already 2026-12-01 in Bucharest.
        assert!(amr.counts_at(t("2026-11-30T22:30:00Z"), now));
        // Dated just past local midnight by a clock running ahead: it counts (tomorrow).
        assert!(amr.counts_at(t("2027-11-30T22:01:00Z"), t("2027-11-30T21:58:00Z")));
        assert_eq!(
            amr.expiring_day(now).map(|d| d.to_string()),
            Some("2026-11-30".into())
        );
        assert!(board_def("seega")
            .unwrap()
            .counts_at(t("2000-01-01T00:00:00Z"), now));
        // LB-6: the window's bounds and its next move (Bucharest midnight, UTC+2 in winter).
        let clock = amr.clock(&amr.period_at(now), now);
        assert_eq!(clock.start, Some(t("2026-11-30T22:00:00Z")));
        assert_eq!(clock.next_reset, Some(t("2027-11-30T22:00:00Z")));
        assert_eq!(clock.kind, crate::period::ClockKind::Rolling);
    }

    /// GM-2: every board counts in its game's zone.
    #[test]
    fn boards_count_in_their_games_zone() {
        for b in &BOARDS {
            assert_eq!(b.zone, b.game.zone(), "{}", b.id);
        }
    }

    #[test]
    fn registry() {
        assert_eq!(board_def("seega").map(|b| b.period), Some(PeriodKind::AllTime));
        assert_eq!(
            board_def("mahjong-weekly").map(|b| b.zone.name()),
            Some("Europe/Bucharest")
        );
        assert!(board_def("chess").is_none());
        assert_eq!(BoardRef::all_time("seega").key(), "seega@all");
    }

    /// MJ-1, MJ-3: every level has its time ranking; nothing else answers to the prefix.
    #[test]
    fn level_rankings_are_boards() {
        for id in ["mahjong-level-1", "mahjong-level-420", "mahjong-level-11000"] {
            assert_eq!(board_def(id).map(|d| d.id), Some("mahjong-level"), "{id}");
        }
        for id in [
            "mahjong-level-0",
            "mahjong-level-11001",
            "mahjong-level-042",
            "mahjong-level-",
            "mahjong-level-x",
        ] {
            assert!(board_def(id).is_none(), "{id}");
        }
    }

    /// LB-2, MJ-3: a level's time ranking lists lower times first through the one
    /// higher-first machinery: faster stores higher, equal times store equal, and the
    /// stored value gives the time back.
    #[test]
    fn lower_first_boards_store_values_reversed() {
        let order = MAHJONG_LEVEL.order;
        assert!(order.stored(61_000) > order.stored(61_001));
        assert_eq!(order.stored(61_000), order.stored(61_000));
        for ms in [0, 1, 61_000, 86_399_999, 86_400_000] {
            assert_eq!(order.value_of(order.stored(ms)), ms);
        }
        assert_eq!(MAHJONG_LEVEL.unit.show(61_000), "1:01.000");
        assert_eq!(Order::HigherFirst.stored(1234), 1234);
        assert_eq!(Unit::Points.show(1234), "1.2K");
    }

    /// LB-5: the level rankings are refreshed when they change; the few live boards
    /// every tick.
    #[test]
    fn refresh_policy() {
        assert!(BOARDS.iter().all(|b| b.refresh == Refresh::EveryTick));
        assert_eq!(MAHJONG_LEVEL.refresh, Refresh::WhenChanged);
    }
}
