//! Board definitions as data (BD-1 … BD-9, `docs/rules/boards.md`): what a live-ops
//! team writes to define a board or a time-limited event, checked whole before
//! anything is stored, and the pure parts of what it means: how a player's values
//! combine ([`Operator::combine`]) and which period an instant falls in
//! ([`Schedule::period_at`]).
//!
//! A [`Definition`] arrives as JSON (`serde`, unknown fields refused) and is checked by
//! [`Definition::check`]: every refusal names the field (a JSON path) and the rule.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{LazyLock, RwLock};

use chrono::{DateTime, Datelike, Duration, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::error::{quoted, RuleError};
use crate::game::Game;

/// Tie-breaks a definition may name (BD-5).
pub const MAX_TIE_BREAKS: usize = 2;
/// The longest one-off window, in days (BD-6).
pub const MAX_WINDOW_DAYS: i64 = 366;
/// The shortest one-off window, in minutes (BD-6).
pub const MIN_WINDOW_MINUTES: i64 = 1;
/// Ended periods a definition may keep readable (BD-6).
pub const MAX_KEEP_PERIODS: u32 = 104;
/// The lowest rank a prize band may reach (BD-9).
pub const MAX_PRIZE_RANK: u32 = 10_000;
/// The most points or Jokers one prize band pays (BD-9).
pub const MAX_PRIZE: u64 = 1_000_000;
/// The most entrants a definition may cap at (BD-8).
pub const MAX_ENTRANTS: u32 = 1_000_000;

/// A board or event as a live-ops team defines it (BD-1 … BD-9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    /// BD-1: `weekend-seega-wins`.
    pub id: String,
    /// BD-1: 1 to 80 characters.
    pub title: String,
    /// BD-1: the game whose results feed it (`seega`, `mahjong-rivals`, …).
    pub game: String,
    /// BD-2.
    pub source: Source,
    /// BD-3.
    pub operator: Operator,
    /// BD-4.
    pub order: Direction,
    /// BD-5: at most [`MAX_TIE_BREAKS`].
    #[serde(default)]
    pub tie_breaks: Vec<TieBreak>,
    /// BD-6.
    pub schedule: Schedule,
    /// BD-6: ended periods kept readable, 1 to [`MAX_KEEP_PERIODS`] (default 4).
    #[serde(default = "default_keep")]
    pub keep_periods: u32,
    /// BD-7: `[min, max]` of a result's value; outside it a result is held for review.
    #[serde(default)]
    pub score_range: Option<[i64; 2]>,
    /// BD-8.
    #[serde(default)]
    pub entry: Entry,
    /// BD-9: bands of ranks, in order, not overlapping.
    #[serde(default)]
    pub prizes: Vec<Prize>,
    /// TM-7: a team board: its entries are teams, each the sum of what its members'
    /// results bring while they are members (TM-4); its prizes are split among each
    /// ranked team's members (TM-6). `None`: a board of players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<crate::team::TeamBoard>,
}

fn default_keep() -> u32 {
    4
}

/// What feeds a board (BD-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    /// The points a result earns in its game.
    Points {},
    /// 1 for each match won.
    Wins {
        #[serde(default)]
        rated_only: bool,
    },
    /// 1 for each match played.
    Matches {
        #[serde(default)]
        rated_only: bool,
    },
    /// 1 for each Mahjong Rivals level completion, of one level when named (MJ-2).
    LevelCompletions {
        #[serde(default)]
        level: Option<u32>,
    },
    /// The time of a completion of one Mahjong Rivals level, milliseconds (MJ-3).
    BestTime { level: u32 },
    /// The points of Mahjong Rivals Arena rounds (MJ-11).
    ArenaPoints {},
    /// The points of Mahjong Rivals Quick Matches (MJ-7).
    QuickMatchPoints {},
    /// The moves a player made in the match: a tie-break source only (BD-5).
    Moves {},
    /// The player's rating after a rated match (DB-6, MS-8): with `latest`, their
    /// rating now; with `max`, the highest they reached in the period.
    Rating {},
    /// The player's balance in the game after each change of it, whatever made it
    /// (GM-4: results, rewarded ads, daily bonuses, corrections, claimed rewards):
    /// with `latest`, the balance now (a Seega board as the built-in `seega`; a Dots
    /// and Boxes or Minesweeper balance is the rating).
    Balance {},
    /// The points credited to Mahjong Rivals' period boards (MJ-20, MJ-21): level
    /// completions, Quick Matches, Arenas, tournament prizes, the daily bonus,
    /// rewarded ads and corrections, not a claimed period reward; with `sum`, as the
    /// built-in `mahjong-weekly` and `mahjong-daily`.
    Credits {},
}

impl Source {
    /// Whether the source takes its values from results (a match, a completion, …),
    /// not from every change of points ([`Source::Balance`], [`Source::Credits`]).
    pub fn of_results(&self) -> bool {
        !matches!(self, Source::Balance {} | Source::Credits {})
    }
}

impl Definition {
    /// How the board's values are shown: times in milliseconds (MJ-3), ratings whole
    /// (DB-6, MS-8; a Dots and Boxes or Minesweeper balance is one), anything else as
    /// points.
    pub fn unit(&self) -> super::Unit {
        let rated = Game::from_id(&self.game).is_some_and(Game::keeps_rating);
        match self.source {
            Source::BestTime { .. } => super::Unit::Milliseconds,
            Source::Rating {} => super::Unit::Rating,
            Source::Balance {} if rated => super::Unit::Rating,
            _ => super::Unit::Points,
        }
    }
}

/// How a player's values in one period combine (BD-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    Sum,
    /// The highest on a higher-first board, the lowest on a lower-first one.
    Best,
    Latest,
    Min,
    Max,
    /// How many results, whatever their value.
    Count,
}

impl Operator {
    /// A player's value after one more result of value `value` (BD-3), given their
    /// value so far (`None`: no result yet this period) and the board's `order`.
    /// Sums and counts saturate rather than overflow.
    pub fn combine(self, order: Direction, current: Option<i64>, value: i64) -> i64 {
        match (self, current) {
            (Operator::Count, None) => 1,
            (Operator::Count, Some(n)) => n.saturating_add(1),
            (_, None) | (Operator::Latest, _) => value,
            (Operator::Sum, Some(c)) => c.saturating_add(value),
            (Operator::Min, Some(c)) => c.min(value),
            (Operator::Max, Some(c)) => c.max(value),
            (Operator::Best, Some(c)) => match order {
                Direction::HigherFirst => c.max(value),
                Direction::LowerFirst => c.min(value),
            },
        }
    }
}

/// Which way values list (BD-4, BD-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    HigherFirst,
    LowerFirst,
}

/// A tie-break column: a second source, its operator and its own direction (BD-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TieBreak {
    pub source: Source,
    pub operator: Operator,
    pub order: Direction,
}

/// When a board's periods begin and end (BD-6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Schedule {
    /// One period, forever.
    AllTime,
    /// A period begins at each firing of `cron` (5 fields) read in `zone`.
    Cron { cron: String, zone: String },
    /// A period is a local day of `zone`, named by its date (`2026-12-06`), as the
    /// built-in daily boards' (LB-1).
    Daily { zone: String },
    /// A period is an ISO week (Monday 00:00 to Monday 00:00) of `zone`, named
    /// `2026-W49`, as the built-in weekly boards' (LB-1).
    Weekly { zone: String },
    /// One period `[start, end)`: RFC 3339 instants with their offset, kept in UTC.
    Window {
        #[serde(with = "crate::record::instant")]
        start: DateTime<Utc>,
        #[serde(with = "crate::record::instant")]
        end: DateTime<Utc>,
    },
}

/// One period of a definition's schedule: its id and `[start, end)` (UTC; `None`
/// where it has no bound).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinedPeriod {
    /// `all`, `window`, or a cron period's local start, `2026-12-05T00:00`.
    pub id: String,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
}

/// The cron period found last per (expression, zone): a pure function's memo (the
/// period holding an instant depends on nothing else), so a process meets a firing's
/// search once per period, not once per fact.
static LAST_CRON_PERIOD: LazyLock<RwLock<HashMap<(String, String), DefinedPeriod>>> =
    LazyLock::new(Default::default);

/// How many (expression, zone) pairs the memo holds before it starts afresh.
const MAX_REMEMBERED_CRONS: usize = 4_096;

impl Schedule {
    /// The period that holds `at` (BD-6), or `None` when none does (before or after a
    /// window). Errors only for a schedule [`Definition::check`] would refuse.
    pub fn period_at(&self, at: DateTime<Utc>) -> Result<Option<DefinedPeriod>, RuleError> {
        match self {
            Schedule::AllTime => Ok(Some(DefinedPeriod {
                id: "all".into(),
                start: None,
                end: None,
            })),
            Schedule::Window { start, end } => Ok((*start <= at && at < *end).then(|| DefinedPeriod {
                id: "window".into(),
                start: Some(*start),
                end: Some(*end),
            })),
            Schedule::Daily { zone } | Schedule::Weekly { zone } => {
                let (kind, zone) = self.calendar(zone)?;
                Ok(Some(DefinedPeriod::of(crate::period::Period::containing(
                    kind, zone, at,
                ))))
            }
            Schedule::Cron {
                cron: raw,
                zone: raw_zone,
            } => {
                // The period found last for this expression and zone holds `at` when
                // `at` is in it: every fact of a period meets the same one (a firing's
                // search costs some 15 µs; BENCHMARKS.md, "Defined boards").
                let key = (raw.clone(), raw_zone.clone());
                if let Some(p) = LAST_CRON_PERIOD.read().ok().and_then(|m| m.get(&key).cloned()) {
                    if p.start.is_some_and(|s| s <= at) && p.end.is_some_and(|e| at < e) {
                        return Ok(Some(p));
                    }
                }
                let (cron, zone) = (parse_cron(raw)?, parse_zone(raw_zone)?);
                let local = at.with_timezone(&zone);
                let never = |_| RuleError::new("schedule.cron", "BD-6", "the expression never fires");
                let start = cron.find_previous_occurrence(&local, true).map_err(never)?;
                let end = cron.find_next_occurrence(&local, false).map_err(never)?;
                // In a local hour that happens twice (a clock set back), a firing may
                // come back as the later of its two instants: the period holding `at`
                // starts at the earlier one then (and ends at the later).
                let start = settled(zone, start, |s| s <= at, |r| r.earliest());
                let end = settled(zone, end, |e| e > at, |r| r.latest());
                let period = DefinedPeriod {
                    id: cron_period_id(zone, &start),
                    start: Some(start.with_timezone(&Utc)),
                    end: Some(end.with_timezone(&Utc)),
                };
                if let Ok(mut m) = LAST_CRON_PERIOD.write() {
                    if m.len() >= MAX_REMEMBERED_CRONS {
                        m.clear();
                    }
                    m.insert(key, period.clone());
                }
                Ok(Some(period))
            }
        }
    }
}

impl DefinedPeriod {
    fn of(p: crate::period::Period) -> DefinedPeriod {
        DefinedPeriod {
            id: p.id,
            start: p.start,
            end: p.end,
        }
    }
}

impl Schedule {
    /// Whether periods follow one another for ever (a cron, a day, a week), not one
    /// period for ever or one window.
    pub fn repeats(&self) -> bool {
        matches!(
            self,
            Schedule::Cron { .. } | Schedule::Daily { .. } | Schedule::Weekly { .. }
        )
    }

    /// A daily or weekly schedule's period kind and zone.
    fn calendar(&self, zone: &str) -> Result<(crate::period::PeriodKind, Tz), RuleError> {
        let kind = match self {
            Schedule::Weekly { .. } => crate::period::PeriodKind::Weekly,
            _ => crate::period::PeriodKind::Daily,
        };
        Ok((kind, parse_zone(zone)?))
    }
}

impl Schedule {
    /// The period named `id` (BD-6): `all`, `window`, or a cron period's local start
    /// (`2026-12-05T00:00`, which must be a firing). Errors name `period` and BD-6.
    pub fn period_named(&self, id: &str) -> Result<DefinedPeriod, RuleError> {
        let bad = |what: String| RuleError::new("period", "BD-6", what);
        match self {
            Schedule::AllTime if id == "all" => Ok(DefinedPeriod {
                id: "all".into(),
                start: None,
                end: None,
            }),
            Schedule::AllTime => Err(bad("this board has the single period `all`".into())),
            Schedule::Window { start, end } if id == "window" => Ok(DefinedPeriod {
                id: "window".into(),
                start: Some(*start),
                end: Some(*end),
            }),
            Schedule::Window { .. } => Err(bad("this board has the single period `window`".into())),
            Schedule::Daily { zone } | Schedule::Weekly { zone } => {
                let (kind, zone) = self.calendar(zone)?;
                crate::period::Period::parse(kind, zone, id)
                    .map(DefinedPeriod::of)
                    .map_err(|e| bad(e.message))
            }
            Schedule::Cron { zone, .. } => {
                let zone = parse_zone(zone)?;
                let at = if id.len() == 22 {
                    // A local time that happens twice, named with its offset.
                    DateTime::parse_from_str(id, "%Y-%m-%dT%H:%M%:z")
                        .map_err(|_| bad(format!("{} is no period start with an offset", quoted(id))))?
                        .with_timezone(&Utc)
                } else {
                    let local = chrono::NaiveDateTime::parse_from_str(id, "%Y-%m-%dT%H:%M")
                        .ok()
                        .filter(|_| id.len() == 16)
                        .ok_or_else(|| {
                            bad("a period is named by its local start, like 2026-12-05T00:00".into())
                        })?;
                    local
                        .and_local_timezone(zone)
                        .earliest()
                        .ok_or_else(|| bad(format!("{} is no local time in {}", quoted(id), zone.name())))?
                        .with_timezone(&Utc)
                };
                match self.period_at(at)? {
                    Some(p) if p.id == id => Ok(p),
                    _ => Err(bad(format!("no period of this board starts at {}", quoted(id)))),
                }
            }
        }
    }

    /// The LB-6 clock of `period` at `now`: its bounds, and the board's next reset
    /// (the end of the period holding `now`; a window's end; none all-time).
    pub fn clock(&self, period: &DefinedPeriod, now: DateTime<Utc>) -> crate::period::PeriodClock {
        use crate::period::{ClockKind, PeriodClock};
        let (kind, zone) = match self {
            Schedule::AllTime => (ClockKind::AllTime, "UTC".to_string()),
            Schedule::Window { .. } => (ClockKind::Window, "UTC".to_string()),
            Schedule::Cron { zone, .. } => (ClockKind::Cron, zone.clone()),
            Schedule::Daily { zone } => (ClockKind::Daily, zone.clone()),
            Schedule::Weekly { zone } => (ClockKind::Weekly, zone.clone()),
        };
        let next_reset = match self {
            Schedule::AllTime => None,
            Schedule::Window { end, .. } => Some(*end),
            Schedule::Cron { .. } | Schedule::Daily { .. } | Schedule::Weekly { .. } => {
                self.period_at(now).ok().flatten().and_then(|p| p.end)
            }
        };
        PeriodClock {
            period: period.id.clone(),
            kind,
            zone,
            start: period.start,
            end: period.end,
            next_reset,
            window_days: None,
        }
    }
}

/// The longest cron expression a definition may hold, in bytes (BD-6).
pub const MAX_CRON_BYTES: usize = 100;

/// `instant` if `fits` it, else the other instant of its local time when that time
/// happens twice and `pick` (earliest or latest) of them fits (BD-6 around a clock set
/// back).
fn settled(
    zone: Tz,
    instant: DateTime<Tz>,
    fits: impl Fn(DateTime<Utc>) -> bool,
    pick: impl Fn(chrono::offset::LocalResult<DateTime<Tz>>) -> Option<DateTime<Tz>>,
) -> DateTime<Tz> {
    use chrono::TimeZone;
    if fits(instant.with_timezone(&Utc)) {
        return instant;
    }
    pick(zone.from_local_datetime(&instant.naive_local()))
        .filter(|other| fits(other.with_timezone(&Utc)))
        .unwrap_or(instant)
}

/// A cron period's id: its local start, `2026-12-05T00:00`; with the offset,
/// `2026-10-25T03:00+03:00`, when that local time happens twice (a clock set back).
fn cron_period_id(zone: Tz, start: &DateTime<Tz>) -> String {
    use chrono::offset::LocalResult;
    use chrono::TimeZone;
    let local = start.naive_local();
    match zone.from_local_datetime(&local) {
        LocalResult::Ambiguous(..) => start.format("%Y-%m-%dT%H:%M%:z").to_string(),
        _ => start.format("%Y-%m-%dT%H:%M").to_string(),
    }
}

fn parse_cron(raw: &str) -> Result<croner::Cron, RuleError> {
    if raw.len() > MAX_CRON_BYTES {
        return Err(RuleError::new(
            "schedule.cron",
            "BD-6",
            format!("a cron expression is at most {MAX_CRON_BYTES} characters"),
        ));
    }
    if raw.split_whitespace().count() != 5 {
        return Err(RuleError::new(
            "schedule.cron",
            "BD-6",
            format!(
                "{} is not 5 fields (minute hour day-of-month month day-of-week)",
                quoted(raw)
            ),
        ));
    }
    croner::Cron::from_str(raw).map_err(|e| {
        RuleError::new(
            "schedule.cron",
            "BD-6",
            format!("{} is no cron expression: {e}", quoted(raw)),
        )
    })
}

fn parse_zone(raw: &str) -> Result<Tz, RuleError> {
    raw.parse::<Tz>().map_err(|_| {
        RuleError::new(
            "schedule.zone",
            "BD-6",
            format!("{} is no IANA zone", quoted(raw)),
        )
    })
}

/// Who may enter (BD-8).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Results count only for players who joined.
    #[serde(default)]
    pub join_required: bool,
    /// The first this many players to get a value; `None`: everyone.
    #[serde(default)]
    pub max_entrants: Option<u32>,
    /// ISO 3166-1 alpha-2 codes (PF-3); empty: every country.
    #[serde(default)]
    pub countries: Vec<String>,
}

impl Entry {
    /// Whether a player enters only by joining (BD-8): asked for, or implied by a list
    /// of countries (the country is checked when the player joins).
    pub fn requires_join(&self) -> bool {
        self.join_required || !self.countries.is_empty()
    }

    /// Whether a player whose profile names `country` may join (BD-8): every country
    /// when none is listed; none without a country when some are.
    pub fn admits(&self, country: Option<&str>) -> bool {
        self.countries.is_empty()
            || country.is_some_and(|c| self.countries.iter().any(|l| l.eq_ignore_ascii_case(c)))
    }
}

/// The player state that records their joining of defined board `board` (BD-8):
/// `{"joined_at": RFC 3339}`.
pub fn join_state(board: &str) -> String {
    format!("board-join/{board}")
}

/// The internal owner (`@…`, no player) of a defined board's entrants counters, and
/// the state that counts a period's entrants (BD-8, `max_entrants`): `{"count": N}`.
pub fn entrants_counter(board: &str, period: &str) -> (String, String) {
    (format!("@{board}"), format!("entrants/{period}"))
}

/// A player's joining of a defined board (BD-8), as [`join_state`] holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    /// From when the player's results count (UTC): results of matches that ended
    /// before do not.
    pub joined_at: DateTime<Utc>,
}

/// A period's entrants so far (BD-8), as [`entrants_counter`] holds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrants {
    pub count: u32,
}

/// One band of the prize table (BD-9): ranks `from` … `to` each get `points` and
/// `jokers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prize {
    pub from: u32,
    pub to: u32,
    #[serde(default)]
    pub points: u64,
    #[serde(default)]
    pub jokers: u64,
}

/// Ids a defined board may not take: the built-in boards' and the level rankings'
/// (BD-1).
fn reserved(id: &str) -> bool {
    super::BOARDS.iter().any(|b| b.id == id)
        || [super::MAHJONG_LEVEL.id, super::MAHJONG_TOURNAMENT.id].contains(&id)
        // The families' boards: every level's time ranking, every tournament's standings.
        || id.starts_with("mahjong-level-")
        || id.starts_with("mahjong-tournament-")
}

/// Whether `id` has the shape of a defined board's id (BD-1): 3 to 48 lowercase
/// letters, digits and single dashes, starting with a letter, not ending with a dash.
/// A store is never asked for an id of another shape.
pub fn well_formed_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    (3..=48).contains(&bytes.len())
        && bytes[0].is_ascii_lowercase()
        && bytes[bytes.len() - 1] != b'-'
        && !id.contains("--")
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

fn check_id(id: &str) -> Result<(), RuleError> {
    if !well_formed_id(id) {
        return Err(RuleError::new(
            "id",
            "BD-1",
            format!(
                "{} is not 3 to 48 lowercase letters, digits and single dashes, starting with a letter",
                quoted(id)
            ),
        ));
    }
    if reserved(id) {
        return Err(RuleError::new(
            "id",
            "BD-1",
            format!("{} is a built-in board's id", quoted(id)),
        ));
    }
    Ok(())
}

/// Whether `game`'s results produce `source` (BD-2), `field` naming it in an error.
fn check_source(game: Game, source: &Source, field: &str, tie_break: bool) -> Result<(), RuleError> {
    let refuse = |why: &str| Err(RuleError::new(field, "BD-2", why.to_string()));
    let mahjong = game == Game::MahjongRivals;
    match source {
        Source::Points {} => Ok(()),
        Source::Wins { rated_only } | Source::Matches { rated_only } => {
            if *rated_only && !matches!(game, Game::DotsAndBoxes | Game::Minesweeper) {
                return refuse("rated_only applies to Dots and Boxes and Minesweeper matches only");
            }
            Ok(())
        }
        Source::LevelCompletions { level } => {
            if !mahjong {
                return refuse("level completions are Mahjong Rivals results only");
            }
            check_level(*level, field)
        }
        Source::BestTime { level } => {
            if !mahjong {
                return refuse("best times are Mahjong Rivals results only");
            }
            check_level(Some(*level), field)
        }
        Source::ArenaPoints {} | Source::QuickMatchPoints {} => {
            if !mahjong {
                return refuse("Arena and Quick Match points are Mahjong Rivals results only");
            }
            Ok(())
        }
        Source::Balance {} | Source::Credits {} if tie_break => Err(RuleError::new(
            field,
            "BD-5",
            "a tie-break takes its value from the same result as the source; a balance or a credit is no result's",
        )),
        Source::Balance {} => Ok(()),
        Source::Credits {} => {
            if !mahjong {
                return refuse("only Mahjong Rivals credits period boards (MJ-20, MJ-21)");
            }
            Ok(())
        }
        Source::Rating {} => {
            if !game.keeps_rating() {
                return refuse("ratings are kept for Dots and Boxes and Minesweeper only (DB-6, MS-8)");
            }
            Ok(())
        }
        Source::Moves {} => {
            if !tie_break {
                return Err(RuleError::new(field, "BD-5", "moves may only break ties"));
            }
            if !matches!(game, Game::Seega | Game::DotsAndBoxes) {
                return Err(RuleError::new(
                    field,
                    "BD-5",
                    "moves are counted for Seega and Dots and Boxes only",
                ));
            }
            Ok(())
        }
    }
}

fn check_level(level: Option<u32>, field: &str) -> Result<(), RuleError> {
    match level {
        Some(n) if n == 0 || n > super::MAHJONG_LEVELS => Err(RuleError::new(
            format!("{field}.level"),
            "MJ-1",
            format!("there is no level {n} (1 to {})", super::MAHJONG_LEVELS),
        )),
        _ => Ok(()),
    }
}

impl Definition {
    /// Whether `other` means the same history as this one (BD-10): the same source,
    /// operator, order, tie-breaks, schedule and score range; it may differ in title,
    /// entry rules and prizes.
    pub fn same_history(&self, other: &Definition) -> bool {
        self.source == other.source
            && self.operator == other.operator
            && self.order == other.order
            && self.tie_breaks == other.tie_breaks
            && self.schedule == other.schedule
            && self.score_range == other.score_range
    }

    /// This definition as it is stored and applied (BD-8): its countries' codes in
    /// upper case, and joining required when it lists countries.
    pub fn normalized(mut self) -> Self {
        for c in &mut self.entry.countries {
            c.make_ascii_uppercase();
        }
        self.entry.join_required = self.entry.requires_join();
        self
    }

    /// Checks the whole definition (BD-1 … BD-9) and answers its game; the first
    /// broken rule is the error, naming its field.
    pub fn check(&self) -> Result<Game, RuleError> {
        check_id(&self.id)?;
        let title_chars = self.title.trim().chars().count();
        if title_chars == 0 || self.title.chars().count() > 80 {
            return Err(RuleError::new("title", "BD-1", "a title is 1 to 80 characters"));
        }
        // Control, format (zero-width, bidirectional overrides), private-use and
        // unassigned characters, and line or paragraph separators, hide or reorder
        // what every app list shows: refused (the joiner inside an emoji aside).
        use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};
        let hidden = |c: char| {
            c != '\u{200D}'
                && (c.general_category_group() == GeneralCategoryGroup::Other
                    || matches!(
                        c.general_category(),
                        GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
                    ))
        };
        if self.title.chars().any(hidden) {
            return Err(RuleError::new(
                "title",
                "BD-1",
                "a title holds no control, format (zero-width, bidirectional), private-use or unassigned character and no line break",
            ));
        }
        if !self.title.chars().any(|c| !c.is_whitespace() && c != '\u{200D}') {
            return Err(RuleError::new("title", "BD-1", "a title shows something"));
        }
        let game = Game::from_id(&self.game)
            .ok_or_else(|| RuleError::new("game", "BD-1", format!("unknown game {}", quoted(&self.game))))?;
        check_source(game, &self.source, "source", false)?;
        if !self.source.of_results() && !self.tie_breaks.is_empty() {
            return Err(RuleError::new(
                "tie_breaks",
                "BD-5",
                "a tie-break takes its value from the same result as the source; a balance or credits board counts changes that are no result, so it has none",
            ));
        }
        if self.tie_breaks.len() > MAX_TIE_BREAKS {
            return Err(RuleError::new(
                "tie_breaks",
                "BD-5",
                format!("at most {MAX_TIE_BREAKS} tie-breaks"),
            ));
        }
        for (i, t) in self.tie_breaks.iter().enumerate() {
            check_source(game, &t.source, &format!("tie_breaks[{i}].source"), true)?;
        }
        self.check_schedule()?;
        if !(1..=MAX_KEEP_PERIODS).contains(&self.keep_periods) {
            return Err(RuleError::new(
                "keep_periods",
                "BD-6",
                format!("keep 1 to {MAX_KEEP_PERIODS} ended periods"),
            ));
        }
        if let Some([min, max]) = self.score_range {
            if min > max {
                return Err(RuleError::new("score_range", "BD-7", "min is above max"));
            }
            if !self.source.of_results() {
                return Err(RuleError::new(
                    "score_range",
                    "BD-7",
                    "a score range holds a result's record for review; a balance or credits board counts changes that are no record",
                ));
            }
        }
        self.check_entry()?;
        self.check_prizes(game)?;
        if let Some(teams) = &self.teams {
            self.check_teams(teams)?;
        }
        Ok(game)
    }

    fn check_schedule(&self) -> Result<(), RuleError> {
        match &self.schedule {
            Schedule::AllTime => Ok(()),
            Schedule::Cron { cron, zone } => {
                parse_cron(cron)?;
                parse_zone(zone)?;
                // A pattern that never fires (`0 0 30 2 *`) has no periods. Any instant
                // shows it (5 fields fire within a few years if at all); a fixed one keeps
                // the check pure.
                let reference = DateTime::<Utc>::UNIX_EPOCH + Duration::days(10_957); // 2000-01-01
                self.schedule.period_at(reference).map(|_| ())
            }
            Schedule::Daily { zone } | Schedule::Weekly { zone } => parse_zone(zone).map(|_| ()),
            Schedule::Window { start, end } => {
                if start >= end {
                    return Err(RuleError::new(
                        "schedule.end",
                        "BD-6",
                        "the window ends before it starts",
                    ));
                }
                let years = crate::period::PERIOD_YEARS;
                for (field, at) in [("schedule.start", start), ("schedule.end", end)] {
                    if !years.contains(&at.year()) {
                        return Err(RuleError::new(
                            field,
                            "BD-6",
                            format!("a window lies in the years {} to {}", years.start(), years.end()),
                        ));
                    }
                }
                if *end - *start < Duration::minutes(MIN_WINDOW_MINUTES) {
                    return Err(RuleError::new(
                        "schedule.end",
                        "BD-6",
                        format!("a window is at least {MIN_WINDOW_MINUTES} minutes"),
                    ));
                }
                if *end - *start > Duration::days(MAX_WINDOW_DAYS) {
                    return Err(RuleError::new(
                        "schedule.end",
                        "BD-6",
                        format!("a window is at most {MAX_WINDOW_DAYS} days"),
                    ));
                }
                Ok(())
            }
        }
    }

    fn check_entry(&self) -> Result<(), RuleError> {
        if let Some(n) = self.entry.max_entrants {
            if !(1..=MAX_ENTRANTS).contains(&n) {
                return Err(RuleError::new(
                    "entry.max_entrants",
                    "BD-8",
                    format!("1 to {MAX_ENTRANTS} entrants"),
                ));
            }
        }
        for (i, c) in self.entry.countries.iter().enumerate() {
            crate::profile::check_country(c)
                .map_err(|e| RuleError::new(format!("entry.countries[{i}]"), e.rule, e.message))?;
            if self.entry.countries[..i]
                .iter()
                .any(|o| o.eq_ignore_ascii_case(c))
            {
                return Err(RuleError::new(
                    format!("entry.countries[{i}]"),
                    "BD-8",
                    format!("{} is listed twice", quoted(c)),
                ));
            }
        }
        Ok(())
    }

    fn check_prizes(&self, game: Game) -> Result<(), RuleError> {
        if !self.prizes.is_empty() && self.schedule == Schedule::AllTime {
            return Err(RuleError::new(
                "prizes",
                "BD-9",
                "prizes are paid when a period ends, and an all-time board never ends: give it a cron, daily or weekly schedule or a window",
            ));
        }
        if let Schedule::Cron { cron, .. } = &self.schedule {
            let minute = cron.split_whitespace().next().unwrap_or_default();
            if !self.prizes.is_empty() && minute.parse::<u8>().is_err() {
                return Err(RuleError::new(
                    "prizes",
                    "BD-9",
                    format!(
                        "a board with prizes resets at most once an hour (each period is frozen and closed): give the cron one minute, `0`, not {}",
                        quoted(minute)
                    ),
                ));
            }
        }
        let mut last = 0u32;
        for (i, p) in self.prizes.iter().enumerate() {
            let field = |name: &str| format!("prizes[{i}].{name}");
            if p.from == 0 || p.from > p.to || p.to > MAX_PRIZE_RANK {
                return Err(RuleError::new(
                    field(if p.from == 0 { "from" } else { "to" }),
                    "BD-9",
                    format!("a band is ranks from 1 to {MAX_PRIZE_RANK}, from at most to"),
                ));
            }
            if p.from <= last {
                return Err(RuleError::new(
                    field("from"),
                    "BD-9",
                    "bands are in rank order and do not overlap",
                ));
            }
            if p.points > MAX_PRIZE || p.jokers > MAX_PRIZE || p.points + p.jokers == 0 {
                return Err(RuleError::new(
                    field(if p.jokers > MAX_PRIZE { "jokers" } else { "points" }),
                    "BD-9",
                    format!("a band pays points or Jokers, each at most {MAX_PRIZE}"),
                ));
            }
            if p.points > 0 && game.keeps_rating() {
                return Err(RuleError::new(
                    field("points"),
                    "BD-9",
                    format!(
                        "a {} balance is the player's rating (DB-6, MS-8), which only matches move: its prizes pay Jokers only",
                        game.id()
                    ),
                ));
            }
            last = p.to;
        }
        Ok(())
    }
}

impl Definition {
    /// TM-7: a team board sums (`operator: sum`, `order: higher_first`) and has no
    /// entry rules (BD-8 is about players; a team's members are its entrants); a
    /// `by_contribution` floor is 0 … 100 %. Errors name the field.
    fn check_teams(&self, teams: &crate::team::TeamBoard) -> Result<(), RuleError> {
        use crate::team::Split;
        // The source first: a balance or rating board's operator is never a sum.
        if matches!(self.source, Source::Balance {} | Source::Rating {}) {
            return Err(RuleError::new(
                "source",
                "TM-7",
                "a team board sums what its members' results earn: a balance or a rating is a level reached, not points earned",
            ));
        }
        if self.operator != Operator::Sum {
            return Err(RuleError::new(
                "operator",
                "TM-7",
                "a team board sums its members' values: `operator` is `sum`",
            ));
        }
        if self.order != Direction::HigherFirst {
            return Err(RuleError::new(
                "order",
                "TM-7",
                "a team board lists the highest sum first: `order` is `higher_first`",
            ));
        }
        if self.entry != Entry::default() {
            return Err(RuleError::new(
                "entry",
                "TM-7",
                "a team board's entrants are teams: it has no entry rules (joining, places, countries)",
            ));
        }
        if let Split::ByContribution { floor_percent } = teams.split {
            if floor_percent > 100 {
                return Err(RuleError::new(
                    "teams.split.floor_percent",
                    "TM-6",
                    "a floor is 0 to 100 % of an equal share",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// TM-7: a team board sums results' values; a balance or rating source, another
    /// operator or order, entry rules, a floor over 100 % and an unknown field of the
    /// split are refused, naming the field.
    #[test]
    fn tm_7_what_a_team_board_may_be() {
        use super::Definition;
        let def = |patch: serde_json::Value| -> Result<Definition, String> {
            let mut v = serde_json::json!({
                "id": "team-week", "title": "Team week", "game": "seega",
                "source": {"kind": "points"}, "operator": "sum", "order": "higher_first",
                "schedule": {"kind": "weekly", "zone": "UTC"},
                "teams": {"split": {"kind": "equal"}},
            });
            for (k, x) in patch.as_object().unwrap() {
                v[k] = x.clone();
            }
            serde_json::from_value(v).map_err(|e| e.to_string())
        };
        let field = |d: Definition| d.check().map(|_| ()).map_err(|e| (e.field, e.rule));
        assert_eq!(field(def(serde_json::json!({})).unwrap()), Ok(()));
        for (patch, want) in [
            (
                serde_json::json!({"source": {"kind": "balance"}, "operator": "sum"}),
                "source",
            ),
            (serde_json::json!({"source": {"kind": "rating"}}), "source"),
            (
                serde_json::json!({"source": {"kind": "balance"}, "operator": "latest"}),
                "source",
            ),
            (serde_json::json!({"operator": "best"}), "operator"),
            (serde_json::json!({"order": "lower_first"}), "order"),
            (serde_json::json!({"entry": {"join_required": true}}), "entry"),
            (
                serde_json::json!({"teams": {"split": {"kind": "by_contribution", "floor_percent": 150}}}),
                "teams.split.floor_percent",
            ),
        ] {
            let got = field(def(patch.clone()).unwrap()).expect_err("refused");
            assert_eq!(got.0, want, "{patch}");
        }
        assert!(def(serde_json::json!({"teams": {"split": {"kind": "equal", "floor_percent": 5}}})).is_err());
    }

    use chrono::TimeZone;
    use serde_json::json;

    use super::*;

    /// docs/rules/boards.md: every JSON example of a definition there is one, as written.
    #[test]
    fn the_documented_examples_check() {
        let doc = include_str!("../../../../docs/rules/boards.md");
        let mut examples = 0;
        for block in doc.split("```json").skip(1) {
            let json = block.split("```").next().unwrap_or_default();
            let d: Definition = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
            assert!(d.check().is_ok(), "{:?}: {json}", d.check());
            examples += 1;
        }
        assert!(examples >= 2, "the examples are found");
    }

    /// BD-6: an hourly cron over the night a clock is set back (Bucharest, 25 October
    /// 2026, 04:00 back to 03:00): the two 03:00 periods are told apart by their offset,
    /// and each is named back.
    #[test]
    fn a_local_time_that_happens_twice_names_two_periods() {
        let hourly = Schedule::Cron {
            cron: "0 * * * *".into(),
            zone: "Europe/Bucharest".into(),
        };
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        let first = hourly.period_at(t("2026-10-25T00:30:00Z")).unwrap().unwrap();
        let second = hourly.period_at(t("2026-10-25T01:30:00Z")).unwrap().unwrap();
        assert_eq!(first.id, "2026-10-25T03:00+03:00");
        assert_eq!(second.id, "2026-10-25T03:00+02:00");
        for p in [&first, &second] {
            assert_eq!(&hourly.period_named(&p.id).unwrap(), p);
        }
        let plain = hourly.period_at(t("2026-10-25T03:30:00Z")).unwrap().unwrap();
        assert_eq!(plain.id, "2026-10-25T05:00");
    }

    /// BD-6: a period is named back from its id; a time that is no firing is refused.
    #[test]
    fn periods_are_named_back() {
        let cron = Schedule::Cron {
            cron: "0 0 * * SAT".into(),
            zone: "Europe/Bucharest".into(),
        };
        let p = cron.period_named("2026-12-05T00:00").unwrap();
        assert_eq!(
            p.start.map(|t| t.to_rfc3339()),
            Some("2026-12-04T22:00:00+00:00".into())
        );
        assert_eq!(
            p.end.map(|t| t.to_rfc3339()),
            Some("2026-12-11T22:00:00+00:00".into())
        );
        let e = cron.period_named("2026-12-06T00:00").unwrap_err();
        assert_eq!(
            e.to_string(),
            "period (BD-6): no period of this board starts at `2026-12-06T00:00`"
        );
        assert!(cron.period_named("2026-12-05").is_err());
        assert!(Schedule::AllTime.period_named("all").is_ok());
        assert!(Schedule::AllTime.period_named("window").is_err());
        let now = DateTime::parse_from_rfc3339("2026-12-06T10:00:00Z")
            .unwrap()
            .to_utc();
        let clock = cron.clock(&p, now);
        assert_eq!(clock.next_reset, p.end);
        assert_eq!(clock.kind, crate::period::ClockKind::Cron);
    }

    /// The issue's "Weekend Seega wins": Saturday 00:00 to Monday 00:00 Bucharest,
    /// wins, then fewer moves, then earliest (LB-2), top 3 paid.
    fn weekend_wins() -> serde_json::Value {
        json!({
            "id": "weekend-seega-wins",
            "title": "Weekend Seega wins",
            "game": "seega",
            "source": {"kind": "wins"},
            "operator": "count",
            "order": "higher_first",
            "tie_breaks": [{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}],
            "schedule": {"kind": "window", "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z"},
            "prizes": [{"from": 1, "to": 1, "points": 500}, {"from": 2, "to": 3, "points": 200, "jokers": 1}]
        })
    }

    fn def(v: serde_json::Value) -> Definition {
        serde_json::from_value(v).expect("a definition")
    }

    fn refused(v: serde_json::Value) -> String {
        def(v).check().expect_err("refused").to_string()
    }

    /// BD-2, BD-5, BD-7: `balance` and `credits` are no results: no tie-break, no score
    /// range; `credits` is Mahjong Rivals' only; every game has a balance.
    #[test]
    fn bd_2_balance_and_credits_are_no_results() {
        let mut v = weekend_wins();
        v["source"] = json!({"kind": "balance"});
        v["operator"] = json!("latest");
        assert!(
            refused(v.clone()).starts_with("tie_breaks (BD-5)"),
            "{}",
            refused(v)
        );
        v["tie_breaks"] = json!([]);
        assert_eq!(def(v.clone()).check(), Ok(Game::Seega));
        let mut credits = v.clone();
        credits["source"] = json!({"kind": "credits"});
        assert!(
            refused(credits.clone()).starts_with("source (BD-2)"),
            "{}",
            refused(credits)
        );
        let mut ranged = v.clone();
        ranged["score_range"] = json!([0, 100]);
        assert!(
            refused(ranged.clone()).starts_with("score_range (BD-7)"),
            "{}",
            refused(ranged)
        );
        let mut tie = weekend_wins();
        tie["tie_breaks"] =
            json!([{"source": {"kind": "balance"}, "operator": "latest", "order": "higher_first"}]);
        assert!(
            refused(tie.clone()).starts_with("tie_breaks[0].source (BD-5)"),
            "{}",
            refused(tie)
        );
        let mut mahjong = v;
        mahjong["game"] = json!("mahjong-rivals");
        mahjong["source"] = json!({"kind": "credits"});
        mahjong["tie_breaks"] = json!([]);
        assert_eq!(def(mahjong.clone()).check(), Ok(Game::MahjongRivals));
        mahjong["tie_breaks"] =
            json!([{"source": {"kind": "wins"}, "operator": "count", "order": "higher_first"}]);
        assert!(
            refused(mahjong.clone()).starts_with("tie_breaks (BD-5)"),
            "{}",
            refused(mahjong)
        );
    }

    /// BD-1 … BD-9: a whole event definition reads and checks.
    #[test]
    fn bd_a_weekend_event_checks() {
        let d = def(weekend_wins());
        assert_eq!(d.check(), Ok(Game::Seega));
        assert_eq!(d.keep_periods, 4);
        // It survives its own JSON.
        assert_eq!(def(serde_json::to_value(&d).unwrap()), d);
        // BD-6: a window's instants carry their offset; one without is named.
        let mut v = weekend_wins();
        v["schedule"]["start"] = json!("2026-12-05T00:00:00");
        let e = serde_json::from_value::<Definition>(v)
            .expect_err("no offset")
            .to_string();
        assert!(
            e.contains("`2026-12-05T00:00:00` is not an RFC 3339 timestamp with its offset"),
            "{e}"
        );
        let mut v = weekend_wins();
        v["schedule"]["start"] = json!("2026-12-05T00:00:00+02:00");
        let d = def(v);
        assert!(
            matches!(d.schedule, Schedule::Window { start, .. } if start.to_rfc3339() == "2026-12-04T22:00:00+00:00")
        );
    }

    /// BD-1: ids are shaped, and never a built-in board's.
    #[test]
    fn bd_1_ids_are_shaped_and_not_built_in() {
        for bad in [
            "ab",
            "Weekend",
            "1st-cup",
            "cup-",
            "a--b",
            "cup_1",
            "seega",
            "mahjong-weekly",
            "mahjong-level-7",
            "mahjong-level-0007",
            "mahjong-tournament-spring-cup",
            "mahjong-tournament",
        ] {
            let mut v = weekend_wins();
            v["id"] = json!(bad);
            assert!(refused(v).starts_with("id (BD-1)"), "{bad}");
        }
        for bad in ["   ", "\u{202e}abc", "\u{200b}", "a\u{2028}b", "a\tb", "\u{200d}"] {
            let mut v = weekend_wins();
            v["title"] = json!(bad);
            assert!(refused(v).starts_with("title (BD-1)"), "{bad:?}");
        }
        let mut v = weekend_wins();
        v["title"] = json!("Cupa de weekend \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} ăîșț");
        assert_eq!(
            def(v).check(),
            Ok(Game::Seega),
            "an emoji's joiner, letters with marks"
        );
        let mut v = weekend_wins();
        v["game"] = json!("chess");
        assert_eq!(refused(v), "game (BD-1): unknown game `chess`");
    }

    /// BD-2, BD-5: a source the game does not produce is refused, naming where.
    #[test]
    fn bd_2_sources_belong_to_their_game() {
        let mut v = weekend_wins();
        v["source"] = json!({"kind": "best_time", "level": 7});
        assert!(refused(v).starts_with("source (BD-2)"));
        let mut v = weekend_wins();
        v["source"] = json!({"kind": "wins", "rated_only": true});
        assert!(refused(v).starts_with("source (BD-2)"));
        let mut v = weekend_wins();
        v["source"] = json!({"kind": "moves"});
        assert_eq!(refused(v), "source (BD-5): moves may only break ties");
        let mut v = weekend_wins();
        v["game"] = json!("mahjong-rivals");
        assert!(refused(v).starts_with("tie_breaks[0].source (BD-5)"));
        let mut v = weekend_wins();
        v["game"] = json!("mahjong-rivals");
        v["tie_breaks"] = json!([]);
        v["source"] = json!({"kind": "best_time", "level": 11_001});
        assert!(refused(v).starts_with("source.level (MJ-1)"));
        let mut v = weekend_wins();
        let t = v["tie_breaks"][0].clone();
        v["tie_breaks"] = json!([t.clone(), t.clone(), t]);
        assert!(refused(v).starts_with("tie_breaks (BD-5)"));
    }

    /// BD-3: each operator, both directions for `best`.
    #[test]
    fn bd_3_operators_combine() {
        use Direction::*;
        let run = |op: Operator, order: Direction| {
            [5, 3, 8]
                .iter()
                .fold(None, |c, &v| Some(op.combine(order, c, v)))
                .unwrap()
        };
        assert_eq!(run(Operator::Sum, HigherFirst), 16);
        assert_eq!(run(Operator::Best, HigherFirst), 8);
        assert_eq!(run(Operator::Best, LowerFirst), 3);
        assert_eq!(run(Operator::Latest, HigherFirst), 8);
        assert_eq!(run(Operator::Min, HigherFirst), 3);
        assert_eq!(run(Operator::Max, LowerFirst), 8);
        assert_eq!(run(Operator::Count, HigherFirst), 3);
        assert_eq!(Operator::Sum.combine(HigherFirst, Some(i64::MAX), 1), i64::MAX);
    }

    /// BD-6: a cron period runs from one firing to the next in its zone, across a
    /// daylight-saving change; a window holds only its own instants.
    #[test]
    fn bd_6_periods_follow_the_schedule() {
        let saturdays = Schedule::Cron {
            cron: "0 0 * * SAT".into(),
            zone: "Europe/Bucharest".into(),
        };
        let at = Utc.with_ymd_and_hms(2026, 12, 6, 12, 0, 0).unwrap(); // a Sunday
        let p = saturdays.period_at(at).unwrap().unwrap();
        assert_eq!(p.id, "2026-12-05T00:00");
        assert_eq!(
            p.start,
            Some(Utc.with_ymd_and_hms(2026, 12, 4, 22, 0, 0).unwrap())
        );
        assert_eq!(p.end, Some(Utc.with_ymd_and_hms(2026, 12, 11, 22, 0, 0).unwrap()));
        // The week of the change to summer time (Sunday 29 March 2026) is an hour short.
        let p = saturdays
            .period_at(Utc.with_ymd_and_hms(2026, 3, 30, 0, 0, 0).unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(p.id, "2026-03-28T00:00");
        assert_eq!(p.end.unwrap() - p.start.unwrap(), Duration::hours(167));
        // A firing instant begins its own period.
        let p = saturdays
            .period_at(Utc.with_ymd_and_hms(2026, 12, 11, 22, 0, 0).unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(p.id, "2026-12-12T00:00");
        let Schedule::Window { start, end } = def(weekend_wins()).schedule else {
            panic!("a window")
        };
        let w = def(weekend_wins()).schedule;
        assert!(w.period_at(start - Duration::milliseconds(1)).unwrap().is_none());
        assert_eq!(w.period_at(start).unwrap().unwrap().id, "window");
        assert!(w.period_at(end).unwrap().is_none());
    }

    /// BD-6: around a clock set back (Bucharest, 31 October 2027, 04:00 EEST → 03:00
    /// EET), hourly periods hold every instant and chain end to start, the repeated
    /// hour's two periods named by their offsets; each is found again by its name.
    #[test]
    fn bd_6_hourly_periods_chain_across_a_clock_set_back() {
        let hourly = Schedule::Cron {
            cron: "0 * * * *".into(),
            zone: "Europe/Bucharest".into(),
        };
        let mut at = Utc.with_ymd_and_hms(2027, 10, 30, 22, 0, 0).unwrap();
        let mut last: Option<DefinedPeriod> = None;
        let mut ids = Vec::new();
        while at < Utc.with_ymd_and_hms(2027, 10, 31, 4, 0, 0).unwrap() {
            let p = hourly.period_at(at).unwrap().unwrap();
            assert!(p.start.unwrap() <= at && at < p.end.unwrap(), "{at}: {p:?}");
            if last.as_ref() != Some(&p) {
                if let Some(l) = &last {
                    assert_eq!(l.end, p.start, "{l:?} then {p:?}");
                }
                assert_eq!(hourly.period_named(&p.id).unwrap(), p);
                // The hour before, one millisecond before it starts.
                let just_before = p.start.unwrap() - Duration::milliseconds(1);
                let before = hourly.period_at(just_before).unwrap().unwrap();
                assert!(before.start.unwrap() <= just_before, "{before:?} before {p:?}");
                assert_eq!(before.end, p.start, "{before:?} before {p:?}");
                ids.push(p.id.clone());
                last = Some(p);
            }
            at += Duration::minutes(10);
        }
        assert!(ids.contains(&"2027-10-31T03:00+03:00".to_string()), "{ids:?}");
        assert!(ids.contains(&"2027-10-31T03:00+02:00".to_string()), "{ids:?}");
        assert_eq!(ids.len(), 6, "{ids:?}");
    }

    /// BD-6: the period found last is remembered per expression and zone, and answers
    /// only the instants inside it: instants of other periods, back and forth, and of
    /// another zone with the same expression, get their own.
    #[test]
    fn bd_6_a_remembered_period_answers_only_its_own_instants() {
        let cron = |zone: &str| Schedule::Cron {
            cron: "30 6 * * *".into(),
            zone: zone.into(),
        };
        let utc = |d: u32, h: u32, m: u32| Utc.with_ymd_and_hms(2026, 12, d, h, m, 0).unwrap();
        let at = |s: &Schedule, t| s.period_at(t).unwrap().unwrap().id;
        let (tokyo, lima) = (cron("Asia/Tokyo"), cron("America/Lima"));
        for _ in 0..2 {
            assert_eq!(at(&tokyo, utc(7, 0, 0)), "2026-12-07T06:30"); // 09:00 in Tokyo
            assert_eq!(at(&tokyo, utc(6, 21, 29)), "2026-12-06T06:30"); // 06:29 the next day
            assert_eq!(at(&tokyo, utc(6, 21, 30)), "2026-12-07T06:30"); // the firing
            assert_eq!(at(&lima, utc(7, 0, 0)), "2026-12-06T06:30"); // 19:00 in Lima
        }
    }

    /// BD-6: bad schedules are refused naming the field.
    #[test]
    fn bd_6_bad_schedules_are_refused() {
        let cases = [
            (
                json!({"kind": "cron", "cron": "0 0 * *", "zone": "UTC"}),
                "schedule.cron (BD-6)",
            ),
            (
                json!({"kind": "cron", "cron": "0 25 * * *", "zone": "UTC"}),
                "schedule.cron (BD-6)",
            ),
            (
                json!({"kind": "cron", "cron": "0 0 30 2 *", "zone": "UTC"}),
                "schedule.cron (BD-6)",
            ),
            (
                json!({"kind": "cron", "cron": "0 0 * * SAT", "zone": "Mars/Olympus"}),
                "schedule.zone (BD-6)",
            ),
            (
                json!({"kind": "window", "start": "2026-12-06T00:00:00Z", "end": "2026-12-06T00:00:00Z"}),
                "schedule.end (BD-6)",
            ),
            (
                json!({"kind": "window", "start": "2026-01-01T00:00:00Z", "end": "2027-01-03T00:00:00Z"}),
                "schedule.end (BD-6)",
            ),
            (
                json!({"kind": "window", "start": "2026-12-06T00:00:00Z", "end": "2026-12-06T00:00:59.999Z"}),
                "schedule.end (BD-6)",
            ),
            (
                json!({"kind": "window", "start": "9999-12-01T00:00:00Z", "end": "9999-12-31T00:00:00Z"}),
                "schedule.start (BD-6)",
            ),
            (
                json!({"kind": "window", "start": "2099-12-31T00:00:00Z", "end": "2100-01-01T00:00:00Z"}),
                "schedule.end (BD-6)",
            ),
            (
                json!({"kind": "daily", "zone": "Mars/Olympus"}),
                "schedule.zone (BD-6)",
            ),
        ];
        for (schedule, start) in cases {
            let mut v = weekend_wins();
            v["schedule"] = schedule.clone();
            let e = refused(v);
            assert!(e.starts_with(start), "{schedule}: {e}");
        }
        // A pattern that fires only in leap years still has periods.
        let mut v = weekend_wins();
        v["schedule"] = json!({"kind": "cron", "cron": "0 0 29 2 *", "zone": "UTC"});
        assert_eq!(def(v).check(), Ok(Game::Seega));
        let mut v = weekend_wins();
        v["keep_periods"] = json!(0);
        assert!(refused(v).starts_with("keep_periods (BD-6)"));
    }

    /// BD-7, BD-8, BD-9: ranges, entry rules and prize bands.
    #[test]
    fn bd_7_to_9_ranges_entries_and_prizes() {
        let mut v = weekend_wins();
        v["score_range"] = json!([10, 1]);
        assert!(refused(v).starts_with("score_range (BD-7)"));
        let mut v = weekend_wins();
        v["entry"] = json!({"max_entrants": 0});
        assert!(refused(v).starts_with("entry.max_entrants (BD-8)"));
        let mut v = weekend_wins();
        v["entry"] = json!({"countries": ["RO", "XX"]});
        assert!(refused(v).starts_with("entry.countries[1] (PF-3)"));
        let mut v = weekend_wins();
        v["entry"] = json!({"join_required": true, "max_entrants": 1000, "countries": ["ro", "MD"]});
        assert_eq!(def(v.clone()).check(), Ok(Game::Seega));
        // Stored and applied in upper case; a list of countries makes joining required.
        v["entry"] = json!({"countries": ["ro", "MD"]});
        let n = def(v).normalized();
        assert_eq!(
            (n.entry.countries.join(","), n.entry.join_required),
            ("RO,MD".into(), true)
        );
        let mut v = weekend_wins();
        v["entry"] = json!({"countries": ["RO", "ro"]});
        assert!(refused(v).starts_with("entry.countries[1] (BD-8)"));
        let mut v = weekend_wins();
        v["title"] = json!("a\u{0}b");
        assert!(refused(v).starts_with("title (BD-1)"));
        let mut v = weekend_wins();
        v["schedule"] = json!({"kind": "all_time"});
        v["prizes"] = json!([{"from": 1, "to": 1, "points": 5}]);
        assert!(refused(v).starts_with("prizes (BD-9)"));
        // At most one close an hour: a prized cron fires at one minute of the hour.
        for cron in ["* * * * *", "*/30 * * * *", "0,30 * * * *"] {
            let mut v = weekend_wins();
            v["schedule"] = json!({"kind": "cron", "cron": cron, "zone": "UTC"});
            assert!(refused(v).starts_with("prizes (BD-9)"), "{cron}");
        }
        let mut v = weekend_wins();
        v["schedule"] = json!({"kind": "cron", "cron": "15 * * * *", "zone": "UTC"});
        assert_eq!(def(v.clone()).check(), Ok(Game::Seega));
        v["prizes"] = json!([]);
        v["schedule"] = json!({"kind": "cron", "cron": "*/5 * * * *", "zone": "UTC"});
        assert_eq!(def(v).check(), Ok(Game::Seega), "no prizes: no close");
        for (prizes, field) in [
            (json!([{"from": 0, "to": 1, "points": 1}]), "prizes[0].from"),
            (json!([{"from": 3, "to": 2, "points": 1}]), "prizes[0].to"),
            (
                json!([{"from": 1, "to": 3, "points": 1}, {"from": 3, "to": 4, "points": 1}]),
                "prizes[1].from",
            ),
            (json!([{"from": 1, "to": 1}]), "prizes[0].points"),
            (
                json!([{"from": 1, "to": 1, "jokers": 1_000_001}]),
                "prizes[0].jokers",
            ),
        ] {
            let mut v = weekend_wins();
            v["prizes"] = prizes.clone();
            let e = refused(v);
            assert!(e.starts_with(&format!("{field} (BD-9)")), "{prizes}: {e}");
        }
        // DB-6, MS-8: a rating is no balance of points: a rating game's prizes pay Jokers.
        for game in ["dots-and-boxes", "minesweeper"] {
            let mut v = weekend_wins();
            v["game"] = json!(game);
            v["tie_breaks"] = json!([]);
            v["prizes"] = json!([{"from": 1, "to": 1, "points": 100, "jokers": 1}]);
            let e = refused(v.clone());
            assert!(e.starts_with("prizes[0].points (BD-9)"), "{game}: {e}");
            v["prizes"] = json!([{"from": 1, "to": 1, "jokers": 1}]);
            assert!(def(v).check().is_ok(), "{game}");
        }
    }

    /// Unknown fields are refused rather than ignored (a misspelt `prizes` would pay
    /// nothing).
    #[test]
    fn bd_unknown_fields_are_refused() {
        let mut v = weekend_wins();
        v["prize"] = json!([]);
        assert!(serde_json::from_value::<Definition>(v).is_err());
        // A source with no parameters takes none either.
        for source in [
            json!({"kind": "points", "bogus": true}),
            json!({"kind": "rating", "rated_only": true}),
            json!({"kind": "arena_points", "level": 3}),
        ] {
            let mut v = weekend_wins();
            v["source"] = source.clone();
            assert!(serde_json::from_value::<Definition>(v).is_err(), "{source}");
        }
        let mut v = weekend_wins();
        v["source"] = json!({"kind": "points"});
        assert!(serde_json::from_value::<Definition>(v).is_ok());
    }
}
