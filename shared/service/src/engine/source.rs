//! What a source of points is to the engine: the reads it asks for, what was read,
//! and how a settlement ended (applied, a duplicate, nothing to do).

use std::collections::HashMap;

use podium_rules::game::Game;
use podium_rules::settlement::Planned;
use podium_store::{Balance, Claim, SourceKey, State, StoredSource};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::ServiceError;

/// What a settlement reads before the rules plan it.
#[derive(Debug, Clone, Default)]
pub struct Reads {
    /// Balances: (game, player, must the player have one already).
    pub balances: Vec<(Game, String, bool)>,
    /// State items: (player, name).
    pub states: Vec<(String, String)>,
    /// Claims: (player, game, kind, day `YYYY-MM-DD`).
    pub claims: Vec<(String, Game, String, String)>,
    /// Other sources' records (the day's bonus a doubling doubles).
    pub sources: Vec<SourceKey>,
}

/// What was read.
#[derive(Debug, Clone, Default)]
pub struct ReadState {
    pub(crate) balances: HashMap<(Game, String), Balance>,
    pub(crate) states: HashMap<(String, String), Option<State>>,
    pub(crate) claims: HashMap<(String, Game, String, String), Option<Claim>>,
    pub(crate) sources: HashMap<SourceKey, Option<StoredSource>>,
}

impl ReadState {
    /// The balance read for `player` on `game` ([`Balance::absent`] if none).
    pub fn balance(&self, game: Game, player: &str) -> Balance {
        self.balances
            .get(&(game, player.to_string()))
            .cloned()
            .unwrap_or_else(|| Balance::absent(game, player))
    }

    /// The state item read, if it exists.
    pub fn state(&self, player: &str, name: &str) -> Option<&State> {
        self.states
            .get(&(player.to_string(), name.to_string()))
            .and_then(Option::as_ref)
    }

    /// The claim read, if it exists.
    pub fn claim(&self, player: &str, game: Game, kind: &str, day: &str) -> Option<&Claim> {
        self.claims
            .get(&(player.to_string(), game, kind.to_string(), day.to_string()))
            .and_then(Option::as_ref)
    }

    /// Another source's stored record, if it exists.
    pub fn source(&self, key: &SourceKey) -> Option<&StoredSource> {
        self.sources.get(key).and_then(Option::as_ref)
    }
}

/// A source of points the engine settles.
pub trait Source {
    /// The result its callers see, stored with its first settlement (GM-3).
    type Result: Serialize + DeserializeOwned;

    /// The idempotency key.
    fn key(&self) -> SourceKey;

    /// SHA-256 (hex) of its canonical content.
    fn content_hash(&self) -> String;

    /// What to read before planning.
    fn reads(&self) -> Reads;

    /// Plans the settlement from what was read (the rules), or refuses (GM-5).
    fn plan(&self, read: &ReadState) -> Result<Planned<Self::Result>, ServiceError>;

    /// What `result` says about each player for defined boards (BD-12): a result of a
    /// game (a match, a completion) has facts; by default none (an ad reward, a bonus).
    fn facts(&self, result: &Self::Result) -> Vec<podium_rules::board::feed::Fact> {
        let _ = result;
        Vec::new()
    }

    /// The record (JSON) as sent, in its canonical field order, when the source is a record
    /// of a game server: a conflict names its first field that differs from the
    /// settled one ([`crate::engine::fingerprint`], GM-3). By default none.
    fn record(&self) -> Option<String> {
        None
    }

    /// The field that names the source's id in a conflict (`match_id`, `transaction_id`).
    fn id_field(&self) -> &'static str;

    /// Whether repeats are common enough that the stored record is read before
    /// planning (a player tapping "claim" twice, an ad network redelivering): a repeat
    /// then costs one read instead of the plan's reads and a failed commit. By default
    /// (a match, whose repeats are rare retries) the commit's condition alone catches
    /// a repeat, and a first delivery pays no read for it.
    fn repeats_are_common(&self) -> bool {
        false
    }

    /// The one player this source is about, when it is about one (a period's result to
    /// a player): named in its record for review if a job cannot apply it
    /// ([`crate::engine::unapplied`]), so the player's deletion erases that record
    /// (GM-6). By default none.
    fn concerns(&self) -> Option<&str> {
        None
    }

    /// Players the source names whatever it writes (a void match names both players
    /// and writes neither's balance): the commit checks none of them is deleted (GM-6).
    /// By default none beyond those whose items it writes.
    fn named_players(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether the commit references (GM-6) the players the items it writes name
    /// ([`podium_store::Reference`]). By default yes; a source whose items name more
    /// players than one transaction can reference (a tournament's winners) says no,
    /// and each of those players' own later settlements references them
    /// ([`Source::references`]).
    fn references_named(&self) -> bool {
        true
    }

    /// References this source's commit writes besides those of what it writes itself
    /// (a prize's settlement: the tournament's state and final step that name its
    /// winner). By default none.
    fn references(&self) -> Vec<podium_store::Reference> {
        Vec::new()
    }

    /// The field of the source that names `player_id` (`players[1].player_id`), for
    /// the GM-6 refusal of a source naming a deleted player. By default `player_id`.
    fn player_field(&self, player_id: &str) -> String {
        let _ = player_id;
        "player_id".to_string()
    }
}

/// The refusal of a source that names a deleted player (GM-6): permanent, nothing
/// written. The message does not quote the id.
pub fn deleted_player_refusal(field: String) -> ServiceError {
    ServiceError::Invalid(podium_rules::RuleError::new(
        field,
        "GM-6",
        "names a deleted player (account removed); nothing was recorded",
    ))
}

/// How settling ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled<R> {
    /// This call committed it.
    Applied(R),
    /// It was committed before with the same content; this is its first result.
    Duplicate(R),
    /// The rules planned nothing to write (a reward already paid that day).
    Nothing(R),
}

impl<R> Settled<R> {
    /// The result, however it came.
    pub fn result(&self) -> &R {
        match self {
            Settled::Applied(r) | Settled::Duplicate(r) | Settled::Nothing(r) => r,
        }
    }

    /// The result, however it came.
    pub fn into_result(self) -> R {
        match self {
            Settled::Applied(r) | Settled::Duplicate(r) | Settled::Nothing(r) => r,
        }
    }
}
