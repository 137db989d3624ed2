//! A finished Minesweeper duel as the game server reports it, checked by replay
//! (MS-8), and its settlement: both players' Elo ratings when both are human (MS-8's
//! Decision, as DB-6), else only the match's record.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::grid::{Grid, Tile};
use super::replay::{self, Action, Decided, EndKind, Ending, PlayerReplay, WinKind};
use crate::error::RuleError;
use crate::game::Game;
use crate::rating::{self, Score};
use crate::settlement::{Planned, Settlement};

/// The game.
pub const GAME: Game = Game::Minesweeper;

/// The ledger source of rating changes.
pub const SOURCE: &str = "minesweeper";

/// One player and their actions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Duelist {
    pub player_id: String,
    /// A person (rated), not the CPU.
    pub human: bool,
    /// In the order they were made.
    pub actions: Vec<Action>,
}

/// The result the game server claims (MS-6, MS-7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claimed {
    /// The winner's id; `null` for a draw.
    pub winner: Option<String>,
    /// The kind of win; `null` for a draw.
    pub kind: Option<WinKind>,
}

/// A Minesweeper duel record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Duel {
    pub match_id: String,
    pub game: String,
    #[serde(with = "crate::record::instant")]
    pub started_at: DateTime<Utc>,
    #[serde(with = "crate::record::instant")]
    pub ended_at: DateTime<Utc>,
    /// The 40 mines (MS-1).
    pub mines: Vec<Tile>,
    /// The starting area, revealed for both and scoring nothing (MS-1, MS-3).
    pub start: Vec<Tile>,
    /// Exactly two.
    pub players: Vec<Duelist>,
    pub result: Claimed,
}

/// One player's end of a duel.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuelPlayer {
    pub player_id: String,
    /// The player's name, avatar and country (PF-5): filled when the app reads it,
    /// empty (so absent) in what is stored.
    #[serde(default, flatten)]
    pub card: crate::profile::Card,
    /// Points (MS-2, MS-3; may be negative).
    pub score: i64,
    /// Lives left (MS-2).
    pub lives: u32,
    /// Safe tiles the player opened, the starting area not counted (MS-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles_opened: Option<u32>,
    /// Mines the player hit (MS-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mines_hit: Option<u32>,
    /// When the player reached their final score (UTC; MS-6 breaks a tie of scores by
    /// it); absent when their score never changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached_at: Option<DateTime<Utc>>,
    /// When the player stopped (UTC), if they did before the end (MS-5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<DateTime<Utc>>,
    /// Why they stopped: `no_lives` or `cleared` (every safe tile open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    pub rating_before: Option<i64>,
    pub rating_after: Option<i64>,
}

/// Why a player stopped before the end of a duel (MS-5).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// No lives left (MS-2).
    NoLives,
    /// Every safe tile open.
    Cleared,
}

/// How and when a duel ended (MS-5).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuelEnd {
    /// `time_up`, `both_stopped` or `overtaken` (a stopped player passed by the other).
    pub how: EndKind,
    /// The instant it ended (UTC).
    pub at: DateTime<Utc>,
}

/// A duel as its replay found it (MS-2 … MS-8): both players, the decision, the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub players: [PlayerReplay; 2],
    pub decided: Decided,
    pub ending: Ending,
}

impl Checked {
    /// When the duel `d` ended (MS-5), to the millisecond: its actions' end, which its
    /// `ended_at` agrees with to within a second. The one instant every answer about
    /// the duel names (its result, its ledger entries, the boards it feeds).
    pub fn ended_at(&self, d: &Duel) -> DateTime<Utc> {
        d.instant(self.ending.at_ms)
    }
}

/// The answer to a duel, stored with it (GM-3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuelResult {
    pub match_id: String,
    /// `minesweeper`.
    pub game: Game,
    /// When the duel ended, as its record states (UTC): the instant it counts at on
    /// defined boards (BD-6). Absent on results stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
    pub players: Vec<DuelPlayer>,
    /// `"draw"`, or `{"win": {"player": 0 or 1, "kind": …}}` (MS-5 … MS-7).
    #[cfg_attr(feature = "openapi", schema(value_type = serde_json::Value))]
    pub decided: Decided,
    /// How and when the match ended; absent on results stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<DuelEnd>,
    pub rated: bool,
}

impl Duel {
    /// Parses a record line (GM-5), naming the field of a shape error.
    pub fn from_json(bytes: &[u8]) -> Result<Duel, RuleError> {
        crate::record::lines::parse_line(bytes)
    }

    /// Checks the record (GM-5, MS-1, MS-8) and replays it; the claimed winner and
    /// kind must be the replay's. Returns both players' replays, the decision and the
    /// end. Errors name the first offending field or action.
    pub fn check(&self, now: DateTime<Utc>, max_skew_ms: i64) -> Result<Checked, RuleError> {
        let players: Vec<&str> = self.players.iter().map(|p| p.player_id.as_str()).collect();
        crate::record::lines::check_match_envelope(
            &self.match_id,
            &self.game,
            GAME,
            &players,
            "MS-1",
            self.started_at,
            self.ended_at,
            now,
            max_skew_ms,
        )?;
        let grid = Grid::new(&self.mines, "mines")?;
        let mut start = Vec::with_capacity(self.start.len());
        for (k, t) in self.start.iter().enumerate() {
            match t.index() {
                Some(i) if !grid.is_mine(i) && !start.contains(&i) => start.push(i),
                _ => {
                    return Err(RuleError::new(
                        format!("start[{k}]"),
                        "MS-1",
                        "a safe tile of the grid, once",
                    ))
                }
            }
        }
        let (players, decided, ending) = replay::decide_and_end(
            &grid,
            &start,
            [&self.players[0].actions, &self.players[1].actions],
        )?;
        // MS-5: the record's end and its actions' agree, to within the second the
        // record may round to: the duel ends when its actions end it (the 5 minutes,
        // both players stopped, or a stopped player overtaken), and that one instant
        // is the result's, the ledger's and the boards' ([`Checked::ended_at`]).
        let by_actions = self.instant(ending.at_ms);
        let slack = chrono::Duration::seconds(1);
        if self.ended_at + slack <= by_actions || self.ended_at >= by_actions + slack {
            return Err(RuleError::new(
                "ended_at",
                "MS-5",
                format!(
                    "{} is not when the duel ended: its actions end it at {} ({} after started_at {}: {}); send that instant",
                    crate::record::policy::shown(self.ended_at),
                    crate::record::policy::shown(by_actions),
                    crate::display::format_time_ms(ending.at_ms),
                    crate::record::policy::shown(self.started_at),
                    match ending.how {
                        replay::EndKind::TimeUp => "its 5 minutes were up",
                        replay::EndKind::BothStopped => "both players had stopped",
                        replay::EndKind::Overtaken => "a stopped player was overtaken",
                    },
                ),
            ));
        }
        let claimed = match (&self.result.winner, self.result.kind) {
            (None, None) => Some(Decided::Draw),
            (Some(w), Some(kind)) => {
                self.players
                    .iter()
                    .position(|d| &d.player_id == w)
                    .map(|p| Decided::Win {
                        player: p as u8,
                        kind,
                    })
            }
            _ => None,
        };
        if claimed != Some(decided) {
            return Err(RuleError::new(
                "result",
                "MS-8",
                format!(
                    "the actions give {} (scores {} and {})",
                    match decided {
                        Decided::Win { player, kind } => format!(
                            "a {} win for {}",
                            serde_json::to_value(kind)
                                .ok()
                                .and_then(|v| v.as_str().map(String::from))
                                .unwrap_or_default(),
                            self.players[player as usize].player_id
                        ),
                        Decided::Draw => "a draw".to_string(),
                    },
                    players[0].score,
                    players[1].score
                ),
            ));
        }
        Ok(Checked {
            players,
            decided,
            ending,
        })
    }

    /// The instant `ms` after the match started.
    fn instant(&self, ms: u64) -> DateTime<Utc> {
        self.started_at + chrono::Duration::milliseconds(i64::try_from(ms).unwrap_or(i64::MAX))
    }
}

/// Plans a checked duel: with two humans, both ratings (MS-8; `ratings` as stored,
/// `None` for an account not rated yet) and their ledger entries; otherwise the record.
pub fn plan(d: &Duel, checked: &Checked, ratings: [Option<i64>; 2]) -> Planned<DuelResult> {
    let rated = d.players.iter().all(|p| p.human);
    let decided = checked.decided;
    let result = DuelResult {
        match_id: d.match_id.clone(),
        game: GAME,
        ended_at: Some(checked.ended_at(d)),
        players: d
            .players
            .iter()
            .zip(&checked.players)
            .map(|(p, r)| DuelPlayer {
                card: Default::default(),
                player_id: p.player_id.clone(),
                score: r.score,
                lives: r.lives,
                tiles_opened: Some(r.tiles_opened),
                mines_hit: Some(r.mines_opened),
                reached_at: (!r.timeline.is_empty()).then(|| d.instant(r.last_change_ms)),
                stopped_at: r.stopped_ms.map(|ms| d.instant(ms)),
                stopped: r.stopped_ms.map(|_| {
                    if r.lives == 0 {
                        Stopped::NoLives
                    } else {
                        Stopped::Cleared
                    }
                }),
                rating_before: None,
                rating_after: None,
            })
            .collect(),
        decided,
        end: Some(DuelEnd {
            how: checked.ending.how,
            at: d.instant(checked.ending.at_ms),
        }),
        rated,
    };
    if !rated {
        return Planned::Write(Settlement::result_only(result));
    }
    let score = match decided {
        Decided::Win { player: 0, .. } => Score::Win,
        Decided::Win { .. } => Score::Loss,
        Decided::Draw => Score::Draw,
    };
    let ids = [d.players[0].player_id.as_str(), d.players[1].player_id.as_str()];
    Planned::Write(rating::settlement(
        GAME,
        SOURCE,
        &d.match_id,
        checked.ended_at(d),
        ids,
        ratings,
        score,
        result,
        |r, i, before, after| {
            r.players[i].rating_before = Some(before);
            r.players[i].rating_after = Some(after);
        },
    ))
}

impl DuelResult {
    /// What this result, of a duel ended at `at`, says about each player for defined
    /// boards (BD-2, BD-12): the rating points applied (MS-8; 0 unrated), the win,
    /// whether it was rated.
    pub fn facts(&self, at: DateTime<Utc>) -> Vec<crate::board::feed::Fact> {
        self.players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                crate::board::feed::Fact::of_rated_match(
                    &p.player_id,
                    self.game,
                    at,
                    (p.rating_before, p.rating_after),
                    matches!(self.decided, Decided::Win { player, .. } if usize::from(player) == i),
                    self.rated,
                    None,
                )
            })
            .collect()
    }
}
