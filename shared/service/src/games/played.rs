//! Past play read back (BD-2): the [`Fact`]s a stored result holds, the same ones its
//! settlement fed defined boards with, so a preview of a definition over a past window
//! meets the results as a board in force then would have (BD-13).
//!
//! Each result is stored with the instant it counts at (a Seega match's and a Quick
//! Match's `ended_at`, a completion's `completed_at`, and since they kept it a Dots and
//! Boxes match's, a duel's and an Arena's `ended_at`); a result stored before its game
//! kept that instant has no facts here ([`Played::Undated`]).

use chrono::{DateTime, Utc};
use podium_rules::board::feed::Fact;
use podium_rules::dots_and_boxes::record::DotsResult;
use podium_rules::game::Game;
use podium_rules::mahjong::arena::{self, ArenaResult};
use podium_rules::mahjong::completion::{self, CompletionResult};
use podium_rules::mahjong::quick_match::{self, QuickMatchResult};
use podium_rules::minesweeper::record::DuelResult;
use podium_rules::seega::result::MatchResult;
use podium_store::SourceKey;
use serde::de::DeserializeOwned;

use crate::games::seega;

/// What one stored result says for defined boards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Played {
    /// Its facts (none for a void match).
    Facts(Vec<Fact>),
    /// Stored before its game kept the instant it ended: nothing to place it in time.
    Undated,
}

/// The source kinds (the first part of an idempotency key) whose results feed `game`'s
/// defined boards.
pub fn kinds(game: Game) -> &'static [&'static str] {
    match game {
        Game::Seega => &[seega::MATCH],
        Game::DotsAndBoxes => &["dots-and-boxes"],
        Game::Minesweeper => &["minesweeper"],
        Game::MahjongRivals => &[completion::KIND, quick_match::KIND, arena::KIND],
    }
}

/// What the stored result `result` (JSON) of `key` says for defined boards; `None`
/// when its kind feeds none or it does not decode as its kind's result (a record
/// corrupted or of a later build: left out, not guessed at).
pub fn facts_of(key: &SourceKey, result: &str) -> Option<Played> {
    fn decode<R: DeserializeOwned>(result: &str) -> Option<R> {
        serde_json::from_str(result).ok()
    }
    fn dated(at: Option<DateTime<Utc>>, facts: impl FnOnce(DateTime<Utc>) -> Vec<Fact>) -> Played {
        at.map_or(Played::Undated, |at| Played::Facts(facts(at)))
    }
    Some(match key.kind.as_str() {
        seega::MATCH => Played::Facts(decode::<MatchResult>(result)?.facts()),
        "dots-and-boxes" => {
            let r: DotsResult = decode(result)?;
            dated(r.ended_at, |at| r.facts(at))
        }
        "minesweeper" => {
            let r: DuelResult = decode(result)?;
            dated(r.ended_at, |at| r.facts(at))
        }
        completion::KIND => {
            let r: CompletionResult = decode(result)?;
            dated(r.completed_at, |at| r.facts(at))
        }
        quick_match::KIND => {
            let r: QuickMatchResult = decode(result)?;
            dated(r.ended_at, |at| r.facts(at))
        }
        arena::KIND => {
            let r: ArenaResult = decode(result)?;
            dated(r.ended_at, |at| r.facts(at))
        }
        _ => return None,
    })
}
