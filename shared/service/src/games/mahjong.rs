//! Mahjong Rivals sources of points settled exactly once through the one commit path
//! ([`crate::engine::settle`]): a Quick Match (MJ-7, MJ-8), a Single Player level completion
//! (MJ-2 … MJ-6) and an Arena (MJ-11), their points credited to the AMR, weekly and
//! daily boards in the same settlement (MJ-20, MJ-21).

use chrono::{DateTime, Utc};
use podium_rules::mahjong::arena::{self, Arena, ArenaAccounts, ArenaResult};
use podium_rules::mahjong::completion::{self, CompletionResult, CompletionState, LevelCompletion};
use podium_rules::mahjong::jokers::{Jokers, JOKERS_STATE};
use podium_rules::mahjong::levels::LevelState;
use podium_rules::mahjong::quick_match::{self, QuickMatch, QuickMatchResult};
use podium_rules::settlement::Planned;
use podium_store::{SettleStore, SourceKey};

use crate::engine::names::hex_sha256;
use crate::engine::settle::settle_as;
use crate::engine::source::{ReadState, Reads, Settled, Source};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// A Quick Match as a source of points, planned at the server clock `now`.
struct QuickMatchSource<'a> {
    m: &'a QuickMatch,
    now: DateTime<Utc>,
}

impl Source for QuickMatchSource<'_> {
    type Result = QuickMatchResult;

    fn facts(&self, result: &QuickMatchResult) -> Vec<podium_rules::board::feed::Fact> {
        result.facts(self.m.ended_at)
    }

    fn key(&self) -> SourceKey {
        SourceKey::new(quick_match::KIND, self.m.match_id.clone())
    }

    /// SHA-256 of the record's canonical JSON (its fields in declaration order).
    fn content_hash(&self) -> String {
        hex_sha256(&serde_json::to_string(self.m).unwrap_or_default())
    }

    fn record(&self) -> Option<String> {
        serde_json::to_string(self.m).ok()
    }

    fn reads(&self) -> Reads {
        Reads {
            balances: self
                .m
                .players
                .iter()
                .map(|p| (quick_match::GAME, p.player_id.clone(), false))
                .collect(),
            ..Reads::default()
        }
    }

    fn named_players(&self) -> Vec<String> {
        self.m.players.iter().map(|p| p.player_id.clone()).collect()
    }

    fn player_field(&self, player_id: &str) -> String {
        let i = self.m.players.iter().position(|p| p.player_id == player_id);
        format!("players[{}].player_id", i.unwrap_or(0))
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<QuickMatchResult>, ServiceError> {
        let balances: Vec<i64> = self
            .m
            .players
            .iter()
            .map(|p| read.balance(quick_match::GAME, &p.player_id).points)
            .collect();
        Ok(quick_match::plan(self.m, &balances, self.now)?)
    }

    fn id_field(&self) -> &'static str {
        "match_id"
    }
}

/// Settles a parsed Quick Match exactly once as delivery `delivery` (an SQS message
/// id, a replayed line) at server clock `now`. Errors: [`ServiceError::Invalid`]
/// (MJ-7), [`ServiceError::Conflict`] (same match id, other content), and the
/// transient [`ServiceError::Store`] / [`ServiceError::Contended`].
pub async fn settle_quick_match<S: SettleStore + ?Sized>(
    store: &S,
    m: &QuickMatch,
    now: DateTime<Utc>,
    delivery: &str,
) -> Result<Settled<QuickMatchResult>, ServiceError> {
    settle_as(store, &QuickMatchSource { m, now }, delivery, now).await
}

/// A level completion as a source of points, planned at the server clock `now`.
struct CompletionSource<'a> {
    c: &'a LevelCompletion,
    now: DateTime<Utc>,
}

impl Source for CompletionSource<'_> {
    type Result = CompletionResult;

    fn facts(&self, result: &CompletionResult) -> Vec<podium_rules::board::feed::Fact> {
        result.facts(self.c.at)
    }

    fn key(&self) -> SourceKey {
        SourceKey::new(completion::KIND, self.c.completion_id.clone())
    }

    /// SHA-256 of the record's canonical JSON (its fields in declaration order).
    fn content_hash(&self) -> String {
        hex_sha256(&serde_json::to_string(self.c).unwrap_or_default())
    }

    /// The completion as sent: its instant is `completed_at` on the wire (`at` in
    /// the checked completion, a flat object whose only `"at":` key it is).
    fn record(&self) -> Option<String> {
        serde_json::to_string(self.c)
            .ok()
            .map(|r| r.replacen("\"at\":", "\"completed_at\":", 1))
    }

    fn reads(&self) -> Reads {
        let player = self.c.player_id.clone();
        Reads {
            balances: vec![(completion::GAME, player.clone(), false)],
            states: vec![
                (player.clone(), completion::level_state_name(self.c.level)),
                (player, JOKERS_STATE.to_string()),
                // The level's fastest 11: the place, whatever the ranking's size (MJ-3).
                (
                    completion::fastest_owner(self.c.level),
                    completion::FASTEST_STATE.to_string(),
                ),
            ],
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<CompletionResult>, ServiceError> {
        let player = &self.c.player_id;
        let state = CompletionState {
            level: state_body::<LevelState>(read, player, &completion::level_state_name(self.c.level))?,
            jokers: state_body::<Jokers>(read, player, JOKERS_STATE)?,
            balance: read.balance(completion::GAME, player).points,
            fastest: state_body(
                read,
                &completion::fastest_owner(self.c.level),
                completion::FASTEST_STATE,
            )?,
        };
        Ok(completion::plan(self.c, &state, self.now)?)
    }

    fn id_field(&self) -> &'static str {
        "completion_id"
    }
}

/// Settles a parsed level completion exactly once as delivery `delivery` at server
/// clock `now`. Errors: [`ServiceError::Invalid`] (MJ-6: Jokers not held),
/// [`ServiceError::Conflict`] (same completion id, other content), and the transient
/// [`ServiceError::Store`] / [`ServiceError::Contended`].
pub async fn settle_completion<S: SettleStore + ?Sized>(
    store: &S,
    c: &LevelCompletion,
    now: DateTime<Utc>,
    delivery: &str,
) -> Result<Settled<CompletionResult>, ServiceError> {
    settle_as(store, &CompletionSource { c, now }, delivery, now).await
}

/// An Arena as a source of points, planned at the server clock `now`.
struct ArenaSource<'a> {
    a: &'a Arena,
    now: DateTime<Utc>,
}

impl Source for ArenaSource<'_> {
    type Result = ArenaResult;

    fn facts(&self, result: &ArenaResult) -> Vec<podium_rules::board::feed::Fact> {
        result.facts(self.a.ended_at)
    }

    fn key(&self) -> SourceKey {
        SourceKey::new(arena::KIND, self.a.arena_id.clone())
    }

    /// SHA-256 of the record's canonical JSON (its fields in declaration order).
    fn content_hash(&self) -> String {
        hex_sha256(&serde_json::to_string(self.a).unwrap_or_default())
    }

    fn record(&self) -> Option<String> {
        serde_json::to_string(self.a).ok()
    }

    fn named_players(&self) -> Vec<String> {
        self.a.players.clone()
    }

    fn player_field(&self, player_id: &str) -> String {
        let i = self.a.players.iter().position(|p| p == player_id);
        format!("players[{}]", i.unwrap_or(0))
    }

    fn reads(&self) -> Reads {
        Reads {
            balances: self
                .a
                .players
                .iter()
                .map(|p| (arena::GAME, p.clone(), false))
                .collect(),
            states: self
                .a
                .players
                .iter()
                .filter(|p| {
                    self.a
                        .rounds
                        .iter()
                        .flat_map(|r| r.logs.iter())
                        .any(|l| &l.player_id == *p && l.jokers_used > 0)
                })
                .map(|p| (p.clone(), JOKERS_STATE.to_string()))
                .collect(),
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<ArenaResult>, ServiceError> {
        let mut accounts = ArenaAccounts::default();
        for p in &self.a.players {
            accounts.balances.push(read.balance(arena::GAME, p).points);
            accounts.jokers.push(state_body::<Jokers>(read, p, JOKERS_STATE)?);
        }
        Ok(arena::plan(self.a, &accounts, self.now)?)
    }

    fn id_field(&self) -> &'static str {
        "arena_id"
    }
}

/// Settles a parsed Arena exactly once as delivery `delivery` at server clock `now`:
/// its prizes paid (MJ-11) and Jokers spent (MJ-6) in one commit. Errors:
/// [`ServiceError::Invalid`] (MJ-6: Jokers not held), [`ServiceError::Conflict`]
/// (same Arena id, other content), and the transient [`ServiceError::Store`] /
/// [`ServiceError::Contended`].
pub async fn settle_arena<S: SettleStore + ?Sized>(
    store: &S,
    a: &Arena,
    now: DateTime<Utc>,
    delivery: &str,
) -> Result<Settled<ArenaResult>, ServiceError> {
    settle_as(store, &ArenaSource { a, now }, delivery, now).await
}
