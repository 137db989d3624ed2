//! The boards of LB-1 and how they are addressed: a board in one period.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::game::Game;
use crate::period::{Period, PeriodKind};

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
        format!("{}@{}", self.board, self.period)
    }
}

/// One board of LB-1: which game feeds it, how it is cut in time, and in which zone (GM-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardDef {
    pub id: &'static str,
    pub game: Game,
    pub period: PeriodKind,
    pub zone: Tz,
}

/// The boards podium serves.
pub const BOARDS: [BoardDef; 3] = [
    BoardDef {
        id: "seega",
        game: Game::Seega,
        period: PeriodKind::AllTime,
        zone: Tz::UTC,
    },
    BoardDef {
        id: "mahjong-weekly",
        game: Game::MahjongRivals,
        period: PeriodKind::Weekly,
        zone: Tz::Europe__Bucharest,
    },
    BoardDef {
        id: "mahjong-daily",
        game: Game::MahjongRivals,
        period: PeriodKind::Daily,
        zone: Tz::Europe__Bucharest,
    },
];

/// The board named `id`, if podium serves it.
pub fn board_def(id: &str) -> Option<&'static BoardDef> {
    BOARDS.iter().find(|b| b.id == id)
}

impl BoardDef {
    /// The period an event at `instant` counts in (MJ-20: the local date of the event).
    pub fn period_at(&self, instant: DateTime<Utc>) -> Period {
        Period::containing(self.period, self.zone, instant)
    }

    /// This board in `period`.
    pub fn in_period(&self, period: &Period) -> BoardRef {
        BoardRef::new(self.id, period.id.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
