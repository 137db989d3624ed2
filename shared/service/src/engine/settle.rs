//! Settling a source of points exactly once (GM-3, GM-4): the one commit path every
//! source takes (a match, an ad reward, a daily bonus, a period-board credit).
//!
//! 1. Read what the rules plan from (balances, one read per game; states, claims;
//!    strongly consistent), let the rules plan the settlement (or an answer that
//!    writes nothing), read the period-board entries it credits, and commit it whole.
//!    The source's record is looked up first only for sources whose repeats are
//!    common ([`Source::repeats_are_common`]: ad callbacks, bonus claims); for others
//!    the commit's condition that it must not exist catches a repeat.
//! 2. If the commit finds the source's record stored (or the plan wrote nothing, or
//!    refused), the stored record decides: the same content hash returns its first
//!    result (a retry or duplicate delivery; this call's own write whose reply was lost
//!    counts as applied by it); another hash is a conflict. Nothing is written.
//! 3. A commit whose outcome is unknown (the store did not answer) is sent again
//!    unchanged: DynamoDB recognises the repeat by its ClientRequestToken. If a claim
//!    was taken meanwhile, go to 1 (the next plan sees the claim); if something read
//!    moved, wait a little and go to 1.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::settlement::{Planned, Settlement};
use podium_store::{
    Balance, BalanceWrite, Claim, ClaimWrite, Commit, CommitOutcome, EntryWrite, SettleStore, SourceKey,
    State, StateWrite, StoredSource,
};
use rand::Rng;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::ServiceError;

/// How often a settlement is planned again while others move what it read.
pub const MAX_ATTEMPTS: u32 = 25;

/// How often one commit is sent while its outcome is unknown (store unavailable): a
/// resend is what recognises a lost reply, and each send is bounded by the store's
/// operation timeout.
pub const MAX_SENDS: u32 = 2;

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
    balances: HashMap<(Game, String), Balance>,
    states: HashMap<(String, String), Option<State>>,
    claims: HashMap<(String, Game, String, String), Option<Claim>>,
    sources: HashMap<SourceKey, Option<StoredSource>>,
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

/// Settles `source` exactly once. Errors: [`ServiceError::Invalid`] (a refusal;
/// nothing written; rule GM-6 when the source names a deleted player), [`ServiceError::Conflict`] (same key, other content), and the
/// transient [`ServiceError::Store`] / [`ServiceError::Contended`].
pub async fn settle<S: SettleStore + ?Sized, X: Source>(
    store: &S,
    source: &X,
    now: DateTime<Utc>,
) -> Result<Settled<X::Result>, ServiceError> {
    settle_as(store, source, &format!("{:016x}", rand::random::<u64>()), now).await
}

/// [`settle`], writing as `attempt`: the id of this delivery of the source (an SQS
/// message id, a replayed line), the same on every retry of that delivery, so a retry
/// that finds the delivery's own write, whose reply was lost, counts it as applied.
/// Different deliveries must have different ids. `now` is the server clock of the
/// write (UTC), stamped on the entries' key history and change marks.
pub async fn settle_as<S: SettleStore + ?Sized, X: Source>(
    store: &S,
    source: &X,
    attempt: &str,
    now: DateTime<Utc>,
) -> Result<Settled<X::Result>, ServiceError> {
    let settled = settle_once(store, source, attempt, now.timestamp_millis()).await;
    let (outcome, refused_rule) = match &settled {
        Ok(Settled::Applied(_)) => ("applied", None),
        Ok(Settled::Duplicate(_)) => ("duplicate", None),
        Ok(Settled::Nothing(_)) => ("nothing", None),
        Err(ServiceError::Conflict { .. }) => ("conflict", None),
        Err(ServiceError::Invalid(e)) => ("refused", Some(e.rule)),
        Err(ServiceError::Contended { .. }) => ("contended", None),
        Err(_) => ("failed", None),
    };
    crate::telemetry::settlement(&source.key().kind, outcome, refused_rule);
    settled
}

async fn settle_once<S: SettleStore + ?Sized, X: Source>(
    store: &S,
    source: &X,
    attempt: &str,
    now_ms: i64,
) -> Result<Settled<X::Result>, ServiceError> {
    let key = source.key();
    let hash = source.content_hash();
    let mut orphaned = 0;
    for plan_no in 0..MAX_ATTEMPTS {
        // Unless repeats are common, no look-up of the source before planning: the
        // commit's own condition (the source record must not exist) catches a repeat,
        // and only then is the stored record read.
        if source.repeats_are_common() || plan_no > 0 {
            if let Some(stored) = store.get_source(&key).await? {
                return stored_result(source, &hash, attempt, stored);
            }
        }
        let read = read(store, &source.reads()).await?;
        let settlement = match source.plan(&read) {
            Ok(Planned::Write(s)) => s,
            // What the plan saw (a claim taken, a state moved) may be this very source,
            // settled by an earlier or concurrent delivery: its stored result wins.
            Ok(Planned::Nothing(r)) => {
                return match store.get_source(&key).await? {
                    Some(stored) => stored_result(source, &hash, attempt, stored),
                    // An answer that writes nothing has no commit to check the players'
                    // tombstones (GM-6): a deleted player is refused all the same.
                    None => match deleted_among(store, source).await? {
                        Some(player) => Err(deleted_player_refusal(source.player_field(&player))),
                        None => Ok(Settled::Nothing(r)),
                    },
                };
            }
            Err(refusal) => {
                return match store.get_source(&key).await? {
                    Some(stored) => stored_result(source, &hash, attempt, stored),
                    // A refusal because a player is gone (no balance) names GM-6 when
                    // they were deleted.
                    None => match deleted_among(store, source).await? {
                        Some(player) => Err(deleted_player_refusal(source.player_field(&player))),
                        None => Err(refusal),
                    },
                };
            }
        };
        let mut commit = to_commit(
            store,
            &key,
            &hash,
            attempt,
            plan_no,
            &read,
            &source.reads(),
            settlement,
            now_ms,
        )
        .await?;
        commit.0.named = source.named_players();
        if !source.references_named() {
            commit.0.refs.clear();
        }
        for r in source.references() {
            if !commit.0.refs.contains(&r) {
                commit.0.refs.push(r);
            }
        }
        match send(store, &commit.0).await? {
            CommitOutcome::Committed => return Ok(Settled::Applied(commit.1)),
            CommitOutcome::SourceExists => {
                if let Some(stored) = store.get_source(&key).await? {
                    return stored_result(source, &hash, attempt, stored);
                }
                // A ledger entry of this source exists without its record (a deleted
                // player's ledger, moved to the pseudonym): plan once more, and if it
                // stands, the source can never be settled: refused, not retried.
                orphaned += 1;
                if orphaned > 1 {
                    return Err(ServiceError::Conflict {
                        field: source.id_field(),
                        id: key.id.clone(),
                    });
                }
            }
            CommitOutcome::ClaimTaken(_) => {}
            CommitOutcome::Contended => backoff(plan_no).await,
            // GM-6: the commit checked the player's tombstone; nothing was written.
            CommitOutcome::PlayerDeleted(player) => {
                return Err(deleted_player_refusal(source.player_field(&player)))
            }
        }
    }
    Err(ServiceError::Contended {
        attempts: MAX_ATTEMPTS,
    })
}

/// The first player `source` names or reads who was deleted (GM-6), if any: read only
/// when the rules refused, so that the refusal names GM-6 rather than a missing account.
async fn deleted_among<S: SettleStore + ?Sized, X: Source>(
    store: &S,
    source: &X,
) -> Result<Option<String>, ServiceError> {
    let reads = source.reads();
    let mut players: Vec<String> = source.named_players();
    let read = reads
        .balances
        .iter()
        .map(|(_, p, _)| p)
        .chain(reads.states.iter().map(|(p, _)| p))
        .chain(reads.claims.iter().map(|(p, _, _, _)| p));
    for p in read {
        if !players.contains(p) {
            players.push(p.clone());
        }
    }
    for p in players {
        if store.is_deleted(&p).await? {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

fn stored_result<X: Source>(
    source: &X,
    hash: &str,
    attempt: &str,
    stored: StoredSource,
) -> Result<Settled<X::Result>, ServiceError> {
    if stored.content_hash != hash {
        return Err(ServiceError::Conflict {
            field: source.id_field(),
            id: source.key().id,
        });
    }
    let result = serde_json::from_str(&stored.result).map_err(|e| {
        ServiceError::Store(podium_store::StoreError::Corrupt {
            key: format!("{}/{}", source.key().kind, source.key().id),
            message: e.to_string(),
        })
    })?;
    if stored.attempt.as_deref() == Some(attempt) {
        // This call's own write, whose reply was lost.
        Ok(Settled::Applied(result))
    } else {
        Ok(Settled::Duplicate(result))
    }
}

async fn read<S: SettleStore + ?Sized>(store: &S, reads: &Reads) -> Result<ReadState, ServiceError> {
    let mut out = ReadState::default();
    // One read per game for all its players (one BatchGetItem on DynamoDB).
    let mut games: Vec<Game> = Vec::new();
    for (game, _, _) in &reads.balances {
        if !games.contains(game) {
            games.push(*game);
        }
    }
    for game in games {
        let players: Vec<&str> = reads
            .balances
            .iter()
            .filter(|(g, _, _)| *g == game)
            .map(|(_, p, _)| p.as_str())
            .collect();
        for b in store.get_balances(game, &players).await? {
            out.balances.insert((game, b.player_id.clone()), b);
        }
    }
    for (player, name) in &reads.states {
        let s = store.get_state(player, name).await?;
        out.states.insert((player.clone(), name.clone()), s);
    }
    for (player, game, kind, day) in &reads.claims {
        let c = store.get_claim(player, *game, kind, day).await?;
        out.claims
            .insert((player.clone(), *game, kind.clone(), day.clone()), c);
    }
    for key in &reads.sources {
        let s = store.get_source(key).await?;
        out.sources.insert(key.clone(), s);
    }
    Ok(out)
}

/// The store's commit for a planned settlement: every write at the version read,
/// stamped with the server clock `clock_ms` (milliseconds, UTC).
#[allow(clippy::too_many_arguments)]
async fn to_commit<S: SettleStore + ?Sized, R: Serialize>(
    store: &S,
    key: &SourceKey,
    hash: &str,
    attempt: &str,
    plan_no: u32,
    read: &ReadState,
    reads: &Reads,
    s: Settlement<R>,
    clock_ms: i64,
) -> Result<(Commit, R), ServiceError> {
    let balances: Vec<BalanceWrite> = s
        .balances
        .iter()
        .map(|change| {
            let cur = read.balance(change.game, &change.player_id);
            // LB-2: the value was reached when it changed; an unchanged value keeps its instant.
            let reached_at_ms = if cur.version > 0 && change.after == cur.points {
                cur.reached_at_ms
            } else {
                change.at.timestamp_millis()
            };
            let must_exist = reads
                .balances
                .iter()
                .any(|(g, p, must)| *must && *g == change.game && *p == change.player_id);
            BalanceWrite {
                player_id: change.player_id.clone(),
                game: change.game,
                expected_version: cur.version,
                points: change.after,
                reached_at_ms,
                history: cur.history_after(change.after, reached_at_ms, clock_ms),
                must_exist,
            }
        })
        .collect();
    let mut entries = Vec::with_capacity(s.credits.len());
    // Players whose first points of a league's week these are, by board (leagues).
    let mut first_of_week: Vec<(BoardRef, Vec<String>)> = Vec::new();
    for c in &s.credits {
        let board = BoardRef::new(c.board.clone(), c.period.clone());
        let cur = store
            .get_entry(&board, &c.player_id)
            .await?
            .unwrap_or_else(|| Balance::absent(podium_store::board_game(&board), &c.player_id));
        if cur.version == 0 && podium_rules::league::league_of_board(&board.board).is_some() {
            match first_of_week.iter_mut().find(|(b, _)| *b == board) {
                Some((_, players)) => players.push(c.player_id.clone()),
                None => first_of_week.push((board.clone(), vec![c.player_id.clone()])),
            }
        }
        let value = cur.points.saturating_add(c.points).max(0);
        let reached_at_ms = if cur.version > 0 && value == cur.points {
            cur.reached_at_ms
        } else {
            c.at.timestamp_millis()
        };
        let history = cur.history_after(value, reached_at_ms, clock_ms);
        entries.push(EntryWrite {
            board,
            player_id: c.player_id.clone(),
            expected_version: cur.version,
            value,
            reached_at_ms,
            history,
        });
    }
    // LB-5: a board refreshed only when changed learns of it in the same transaction.
    let mut marks: Vec<podium_store::MarkWrite> = Vec::new();
    for e in &entries {
        if let Some(m) = crate::engine::changes::mark_for(&e.board, &e.player_id, clock_ms) {
            if !marks.iter().any(|x| x.key == m.key) {
                marks.push(m);
            }
        }
    }
    let claims = s
        .claims
        .iter()
        .map(|c| ClaimWrite {
            player_id: c.player_id.clone(),
            game: c.game,
            kind: c.kind.to_string(),
            day: c.day.to_string(),
            body: c.body.to_string(),
        })
        .collect();
    // GM-6: whom the items this commit writes name outside their own partitions.
    let mut refs = References::default();
    let mut states: Vec<StateWrite> = Vec::with_capacity(s.states.len());
    for st in &s.states {
        let before = read.state(&st.player_id, &st.name);
        refs.state_named(&st.player_id, &st.name, before.map(|b| b.body.as_str()), &st.body);
        states.push(StateWrite {
            player_id: st.player_id.clone(),
            name: st.name.clone(),
            expected_version: before.map_or(0, |x| x.version),
            body: st.body.to_string(),
        });
    }
    // Messages (a new SG-12 rank) join each addressee's inbox in this commit, at the
    // inbox's version read now: read only when the rules send one (rare).
    let mut addressees: Vec<&str> = Vec::new();
    for (player, _) in &s.messages {
        if !addressees.contains(&player.as_str()) {
            addressees.push(player);
        }
    }
    for player in addressees {
        let stored = store.get_state(player, podium_rules::inbox::STATE).await?;
        let mut inbox: podium_rules::inbox::Inbox = match &stored {
            Some(st) => serde_json::from_str(&st.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("inbox", e)))?,
            None => Default::default(),
        };
        let before = inbox.clone();
        for (_, m) in s.messages.iter().filter(|(p, _)| p == player) {
            inbox = inbox.with(m.clone());
        }
        if inbox == before {
            // Sent already, or over a cap (`Inbox::with`): nothing to write.
            continue;
        }
        let body = serde_json::to_value(&inbox)
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("inbox", e)))?;
        refs.state_named(
            player,
            podium_rules::inbox::STATE,
            stored.as_ref().map(|st| st.body.as_str()),
            &body,
        );
        states.push(StateWrite {
            player_id: player.to_string(),
            name: podium_rules::inbox::STATE.to_string(),
            expected_version: stored.map_or(0, |st| st.version),
            body: body.to_string(),
        });
    }
    // A player's first points of a league's week place them in a cohort, in this
    // commit; a week's close places the members it decided in their next week.
    let mut placing: Vec<(BoardRef, Vec<crate::engine::placement::Placing>)> = first_of_week
        .into_iter()
        .map(|(board, players)| {
            let players = players
                .into_iter()
                .map(crate::engine::placement::Placing::FirstPoints)
                .collect();
            (board, players)
        })
        .collect();
    for p in &s.placements {
        let board = BoardRef::new(p.board.clone(), p.week.clone());
        let name = podium_rules::league::league_of_board(&p.board).map(podium_rules::league::state_name);
        let version = name
            .and_then(|n| read.state(&p.player_id, &n).map(|x| x.version))
            .unwrap_or(0);
        let decided = crate::engine::placement::Placing::Decided {
            placement: p.clone(),
            version,
        };
        match placing.iter_mut().find(|(b, _)| *b == board) {
            Some((_, list)) => list.push(decided),
            None => placing.push((board, vec![decided])),
        }
    }
    for (board, list) in &placing {
        let placed = crate::engine::placement::placements(store, board, list, clock_ms).await?;
        for (player, owner, name) in &placed.named {
            refs.add(
                player,
                podium_store::Named::State {
                    owner: owner.clone(),
                    name: name.clone(),
                },
            );
        }
        states.extend(placed.writes);
    }
    // GM-6: the players the result names without a ledger entry here (a place paid
    // nothing, a table's TP, a void match) are found through a reference.
    let result_doc = serde_json::to_value(&s.result)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("result", e)))?;
    // So are the players whose id the source's key holds (a registration, a period's
    // result message, a credit of theirs).
    let keyed = balances
        .iter()
        .map(|b| b.player_id.as_str())
        .chain(entries.iter().map(|e| e.player_id.as_str()))
        .chain(states.iter().map(|st| st.player_id.as_str()))
        .filter(|p| crate::engine::names::key_names(&key.id, p))
        .map(str::to_string);
    let named: Vec<String> = crate::engine::names::named_ids(&result_doc, false)
        .into_iter()
        .chain(keyed)
        .collect();
    for id in named {
        if !s.ledger.iter().any(|e| e.player_id == id) {
            refs.add(
                &id,
                podium_store::Named::Source {
                    kind: key.kind.clone(),
                    id: key.id.clone(),
                },
            );
        }
    }
    // GM-4: each entry's place in its balance's settlement order (the version this
    // commit writes) and the server clock it is settled at.
    let settled_at = DateTime::from_timestamp_millis(clock_ms);
    let mut ledger = s.ledger;
    for e in &mut ledger {
        e.seq = balances
            .iter()
            .find(|b| b.player_id == e.player_id && b.game == e.game)
            .map_or(0, |b| b.expected_version + 1);
        e.settled_at = settled_at;
    }
    let result = serde_json::to_string(&s.result)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("result", e)))?;
    Ok((
        Commit {
            source: key.clone(),
            content_hash: hash.to_string(),
            attempt: attempt.to_string(),
            plan: plan_no,
            result,
            claims,
            balances,
            entries,
            states,
            ledger,
            marks,
            refs: refs.0,
            named: Vec::new(),
        },
        s.result,
    ))
}

/// The references (GM-6) a commit writes: each (player, item) once.
#[derive(Debug, Default)]
struct References(Vec<podium_store::Reference>);

impl References {
    fn add(&mut self, player: &str, named: podium_store::Named) {
        if !self.0.iter().any(|r| r.player_id == player && r.named == named) {
            self.0.push(podium_store::Reference {
                player_id: player.to_string(),
                named,
            });
        }
    }

    /// The players `owner`'s state item `name` names (as a deletion rewrites them)
    /// that it did not name `before` (its stored body): an item written again over
    /// and over (an inbox, a member list) references each player once.
    fn state_named(&mut self, owner: &str, name: &str, before: Option<&str>, body: &serde_json::Value) {
        let known: Vec<String> = before
            .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok())
            .map(|b| crate::engine::names::named_ids(&b, b.is_array()))
            .unwrap_or_default();
        for id in crate::engine::names::named_ids(body, body.is_array()) {
            if id != owner && !known.contains(&id) {
                self.add(
                    &id,
                    podium_store::Named::State {
                        owner: owner.to_string(),
                        name: name.to_string(),
                    },
                );
            }
        }
    }
}

/// What [`settle_all`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Sources this call committed.
    pub applied: usize,
    /// Sources refused because a player they name was deleted (GM-6), or skipped
    /// because a stored item they read is corrupt.
    pub skipped: usize,
}

/// Settles each of `sources`, `in_flight` at a time, each exactly once (GM-3): for
/// the results a job sends to many players (a period's, a league week's, `overtaken`
/// messages). A source naming a deleted player is skipped (GM-6), and so is one whose
/// player's stored state cannot be read (corrupt: logged; no rerun could send it); one
/// settled before, with the same or other content, keeps its first result; ones that
/// contended with each other are settled again one at a time. Stops at the first other
/// error (the job's rerun settles the rest).
pub async fn settle_all<S: SettleStore + ?Sized, X: Source>(
    store: &S,
    sources: impl IntoIterator<Item = X>,
    in_flight: usize,
    now: DateTime<Utc>,
) -> Result<Tally, ServiceError> {
    use futures::stream::{self, StreamExt};
    async fn one<S: SettleStore + ?Sized, X: Source>(
        store: &S,
        source: &X,
        now: DateTime<Utc>,
    ) -> Result<Option<bool>, ServiceError> {
        match settle(store, source, now).await {
            Ok(Settled::Applied(_)) => Ok(Some(true)),
            Ok(_) => Ok(Some(false)),
            Err(ServiceError::Invalid(e)) if e.rule == "GM-6" => Ok(None),
            Err(ServiceError::Store(e @ podium_store::StoreError::Corrupt { .. })) => {
                tracing::error!(error = %e, "a stored item cannot be read; this one is skipped");
                Ok(None)
            }
            // Settled before with other content (its standings moved since): the
            // first result stands.
            Err(ServiceError::Conflict { .. }) => Ok(Some(false)),
            Err(e) => Err(e),
        }
    }
    let outcomes: Vec<(X, Result<Option<bool>, ServiceError>)> = stream::iter(sources)
        .map(|source| async move {
            let outcome = one(store, &source, now).await;
            (source, outcome)
        })
        .buffer_unordered(in_flight.max(1))
        .collect()
        .await;
    let mut tally = Tally::default();
    let mut count = |o: Option<bool>| match o {
        Some(true) => tally.applied += 1,
        Some(false) => {}
        None => tally.skipped += 1,
    };
    // Sources that contended with each other (several placed in one league cohort)
    // are settled again one at a time, so a batch never fails for its own contention.
    let mut contended = Vec::new();
    for (source, outcome) in outcomes {
        match outcome {
            Err(ServiceError::Contended { .. }) => contended.push(source),
            other => count(other?),
        }
    }
    for source in contended {
        count(one(store, &source, now).await?);
    }
    Ok(tally)
}

/// Sends `commit`, and sends it again unchanged while its outcome is unknown.
async fn send<S: SettleStore + ?Sized>(store: &S, commit: &Commit) -> Result<CommitOutcome, ServiceError> {
    let mut sent = 0;
    loop {
        sent += 1;
        match store.commit(commit).await {
            Ok(outcome) => return Ok(outcome),
            Err(e) if e.is_transient() && sent < MAX_SENDS => {
                tracing::warn!(error = %e, "commit outcome unknown; sending it again");
                backoff(sent).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Full jitter, growing with the attempt: 0 … min(5 ms × 2^attempt, 200 ms).
pub(crate) async fn backoff(attempt: u32) {
    let cap_ms = (5u64 << attempt.min(6)).min(200);
    let ms = rand::rng().random_range(0..=cap_ms);
    tokio::time::sleep(Duration::from_millis(ms)).await;
}
