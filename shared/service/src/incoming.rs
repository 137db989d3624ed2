//! The records game servers send through the match queue, told apart by `game` and
//! `kind`: a Seega match (no `kind`), a Mahjong Rivals Quick Match
//! (`"kind": "quick-match"`), level completion (`"kind": "level-completion"`), Arena
//! (`"kind": "arena"`), tournament registration (`"kind": "tournament-registration"`)
//! or table result (`"kind": "tournament-table"`). One entry point parses and settles
//! any of them, for the score-match function and `podium replay`.

use chrono::{DateTime, Utc};
use podium_rules::error::RuleError;
use podium_rules::mahjong::arena::{self, Arena};
use podium_rules::mahjong::completion::{self, LevelCompletion};
use podium_rules::mahjong::quick_match::{self, QuickMatch};
use podium_rules::mahjong::tournament_play::{self as tournament, Registration, Table};
use podium_rules::record::{MatchRecord, RecordPolicy};
use podium_rules::seega::result::MatchStatus;
use serde::Deserialize;

use crate::error::ServiceError;
use crate::score::{score_delivery, Scored};
use crate::settle::Settled;

/// One record from the queue.
#[derive(Debug, Clone)]
pub enum Incoming {
    Seega(MatchRecord),
    QuickMatch(QuickMatch),
    LevelCompletion(LevelCompletion),
    Arena(Arena),
    Registration(Registration),
    Table(Table),
}

/// How settling a record ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This call applied it (points moved, or nobody won).
    Applied,
    /// This call recorded a void Seega match (no points).
    Void,
    /// It was applied before with the same content.
    Duplicate,
}

/// The fields that route a record.
#[derive(Deserialize)]
struct Route<'a> {
    #[serde(borrow, default)]
    game: Option<&'a str>,
    #[serde(borrow, default)]
    kind: Option<&'a str>,
}

impl Incoming {
    /// Parses one record (GM-5); `now` and `policy` bound a Quick Match's instant.
    /// A line without a top-level `kind` is a Seega match, parsed in one pass.
    pub fn from_json(bytes: &[u8], now: DateTime<Utc>, policy: &RecordPolicy) -> Result<Incoming, RuleError> {
        // Only a line that mentions "kind" pays for routing.
        if bytes.windows(6).any(|w| w == b"\"kind\"") {
            if let Ok(text) = std::str::from_utf8(bytes) {
                if let Ok(Route {
                    game,
                    kind: Some(kind),
                }) = serde_json::from_str::<Route>(text)
                {
                    return match (game, kind) {
                        (Some("mahjong-rivals"), quick_match::KIND) => {
                            QuickMatch::from_json(bytes, now, policy.max_clock_skew_ms)
                                .map(Incoming::QuickMatch)
                        }
                        (Some("mahjong-rivals"), completion::KIND) => {
                            LevelCompletion::from_json(bytes, now, policy.max_clock_skew_ms)
                                .map(Incoming::LevelCompletion)
                        }
                        (Some("mahjong-rivals"), tournament::KIND_REGISTRATION) => {
                            Registration::from_json(bytes, now, policy.max_clock_skew_ms)
                                .map(Incoming::Registration)
                        }
                        (Some("mahjong-rivals"), tournament::KIND_TABLE) => {
                            Table::from_json(bytes, now, policy.max_clock_skew_ms).map(Incoming::Table)
                        }
                        (Some("mahjong-rivals"), arena::KIND) => {
                            Arena::from_json(bytes, now, policy.max_clock_skew_ms).map(Incoming::Arena)
                        }
                        _ => Err(RuleError::new(
                            "kind",
                            "GM-5",
                            "not a record kind this service scores",
                        )),
                    };
                }
            }
        }
        MatchRecord::from_json(bytes).map(Incoming::Seega)
    }

    /// The match id.
    pub fn match_id(&self) -> &str {
        match self {
            Incoming::Seega(r) => &r.match_id,
            Incoming::QuickMatch(m) => &m.match_id,
            Incoming::LevelCompletion(c) => &c.completion_id,
            Incoming::Arena(a) => &a.arena_id,
            Incoming::Registration(r) => &r.tournament_id,
            Incoming::Table(t) => &t.table_id,
        }
    }

    /// The keys that order its settlement against others' in
    /// [`run_keyed`](crate::keyed::run_keyed): its match id and each player.
    pub fn ordering_keys(&self) -> Vec<String> {
        match self {
            Incoming::Seega(r) => crate::score::ordering_keys(r),
            Incoming::QuickMatch(m) => {
                crate::keyed::record_keys(&m.match_id, m.players.iter().map(|p| p.player_id.as_str()))
            }
            // Completions of one level order against each other: each one's place
            // depends on the others' best times (MJ-3).
            Incoming::LevelCompletion(c) => {
                let mut keys = crate::keyed::record_keys(&c.completion_id, [c.player_id.as_str()]);
                keys.push(format!("level\u{0}{}", c.level));
                keys
            }
            Incoming::Arena(a) => {
                crate::keyed::record_keys(&a.arena_id, a.players.iter().map(String::as_str))
            }
            Incoming::Registration(r) => crate::keyed::record_keys(&r.id(), [r.player_id.as_str()]),
            Incoming::Table(t) => {
                crate::keyed::record_keys(&t.table_id, t.players.iter().map(|p| p.player_id.as_str()))
            }
        }
    }
}

/// Validates and settles one record exactly once as delivery `delivery` at server
/// clock `now`. Errors as [`score_delivery`]'s.
pub async fn settle_incoming<S: podium_store::SettleStore + ?Sized>(
    store: &S,
    record: &Incoming,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
    delivery: &str,
) -> Result<Outcome, ServiceError> {
    match record {
        Incoming::Seega(r) => Ok(match score_delivery(store, r, now, policy, delivery).await? {
            Scored::Applied(r) if r.status == MatchStatus::Void => Outcome::Void,
            Scored::Applied(_) => Outcome::Applied,
            Scored::Duplicate(_) => Outcome::Duplicate,
        }),
        Incoming::QuickMatch(m) => Ok(outcome(
            crate::mahjong::settle_quick_match(store, m, now, delivery).await?,
        )),
        Incoming::LevelCompletion(c) => Ok(outcome(
            crate::mahjong::settle_completion(store, c, now, delivery).await?,
        )),
        Incoming::Arena(a) => Ok(outcome(
            crate::mahjong::settle_arena(store, a, now, delivery).await?,
        )),
        Incoming::Registration(r) => Ok(outcome(
            crate::tournaments::settle_registration(store, r, delivery).await?,
        )),
        Incoming::Table(t) => Ok(outcome(
            crate::tournaments::settle_table(store, t, delivery).await?,
        )),
    }
}

/// A settlement's outcome as the queue counts it.
fn outcome<R>(s: Settled<R>) -> Outcome {
    match s {
        Settled::Applied(_) | Settled::Nothing(_) => Outcome::Applied,
        Settled::Duplicate(_) => Outcome::Duplicate,
    }
}
