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

use std::time::Duration;

use chrono::{DateTime, Utc};
use podium_rules::game::Game;
use podium_rules::settlement::Planned;
use podium_store::{Commit, CommitOutcome, SettleStore, SourceKey, StoredSource};
use rand::Rng;

use super::commit::to_commit;
use super::source::{deleted_player_refusal, ReadState, Reads, Settled, Source};
use crate::error::ServiceError;

/// How often a settlement is planned again while others move what it read.
pub const MAX_ATTEMPTS: u32 = 25;

/// How often one commit is sent while its outcome is unknown (store unavailable): a
/// resend is what recognises a lost reply, and each send is bounded by the store's
/// operation timeout.
pub const MAX_SENDS: u32 = 2;

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
    let mut contended = 0;
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
        // The result's facts, and every balance and period-board credit it changes
        // (BD-2's `balance` and `credits` sources).
        let mut facts = source.facts(&settlement.result);
        facts.extend(settlement.facts());
        let mut commit = to_commit(
            store,
            &key,
            &hash,
            attempt,
            plan_no,
            contended,
            &read,
            &source.reads(),
            settlement,
            now_ms,
        )
        .await?;
        match super::defined::feed(store, &facts, &mut commit.0, now_ms).await {
            Ok(()) => {}
            // BD-7: a value outside a board's range; but a repeat of a source settled
            // before (a range defined since) is answered by its stored record.
            Err(e @ ServiceError::OutOfRange { .. }) => {
                return match store.get_source(&key).await? {
                    Some(stored) => stored_result(source, &hash, attempt, stored),
                    None => Err(e),
                };
            }
            Err(e) => return Err(e),
        }
        commit.0.named = source.named_players();
        commit.0.fields = source.record().map(|r| super::fingerprint::of(&r, now_ms));
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
                        settled_at: None,
                        differs: None,
                    });
                }
            }
            CommitOutcome::ClaimTaken(_) => {}
            CommitOutcome::Contended => {
                contended += 1;
                backoff(plan_no).await
            }
            // GM-6, OP-4: the commit checked the player's guard; nothing was written.
            CommitOutcome::PlayerDeleted(player) => match store.account(&player).await? {
                podium_store::Account::Suspended => return Err(ServiceError::Suspended { player }),
                podium_store::Account::Deleted => {
                    return Err(deleted_player_refusal(source.player_field(&player)))
                }
                // Restored since the commit saw the guard: plan again.
                podium_store::Account::Active => backoff(plan_no).await,
            },
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

/// The conflict (GM-3) of `record` (its JSON, when known), sent under `key`'s id as
/// `field`, with the stored source `stored`: when that was settled and the first field
/// that differs ([`super::fingerprint`]).
pub(crate) fn conflict(
    field: &'static str,
    key: &SourceKey,
    record: Option<&str>,
    stored: &StoredSource,
) -> ServiceError {
    let (settled_at, differs) = super::fingerprint::difference(record, stored.fields.as_deref());
    ServiceError::Conflict {
        field,
        id: key.id.clone(),
        settled_at,
        differs,
    }
}

/// The stored result of `key`, decoded; a result that does not decode is a corrupt
/// store ([`ServiceError::Store`]).
pub(crate) fn decoded<R: serde::de::DeserializeOwned>(
    key: &SourceKey,
    stored: &StoredSource,
) -> Result<R, ServiceError> {
    serde_json::from_str(&stored.result).map_err(|e| {
        ServiceError::Store(podium_store::StoreError::Corrupt {
            key: format!("{}/{}", key.kind, key.id),
            message: e.to_string(),
        })
    })
}

fn stored_result<X: Source>(
    source: &X,
    hash: &str,
    attempt: &str,
    stored: StoredSource,
) -> Result<Settled<X::Result>, ServiceError> {
    if stored.content_hash != hash {
        return Err(conflict(
            source.id_field(),
            &source.key(),
            source.record().as_deref(),
            &stored,
        ));
    }
    let result = decoded(&source.key(), &stored)?;
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
    // One BatchGetItem for the states of several owners (a team change's team and
    // memberships), not one GetItem each.
    let keys: Vec<(&str, &str)> = reads
        .states
        .iter()
        .map(|(p, n)| (p.as_str(), n.as_str()))
        .collect();
    for ((player, name), s) in reads.states.iter().zip(store.get_states(&keys).await?) {
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

/// What [`settle_all`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Sources this call committed.
    pub applied: usize,
    /// Sources refused because a player they name was deleted (GM-6) or is suspended
    /// (OP-4), or skipped
    /// because a stored item they read is corrupt.
    pub skipped: usize,
    /// Sources that failed for a reason of their own that no rerun mends (the store
    /// refused the commit, a rule refused the plan): left out so the others go on,
    /// for the job to record for review ([`crate::engine::unapplied`]).
    pub unapplied: Vec<super::unapplied::Unapplied>,
}

/// Whether `e`, met settling one source among many, belongs to that source alone and
/// stays on a rerun: the store refused its commit (an item over DynamoDB's size
/// limit, say) or a rule refused its plan. Transient errors (throttling, contention)
/// and the store's own failures are not: they stop the job, whose rerun goes on.
fn unappliable(e: &ServiceError) -> bool {
    use podium_store::StoreError;
    matches!(
        e,
        ServiceError::Invalid(_)
            | ServiceError::TooLarge { .. }
            | ServiceError::StateConflict { .. }
            | ServiceError::NotFound(_)
            | ServiceError::Store(StoreError::Rejected { .. } | StoreError::OutOfLimits(_))
    )
}

/// Settles each of `sources`, `in_flight` at a time, each exactly once (GM-3): for
/// the results a job sends to many players (a period's, a league week's, `overtaken`
/// messages). A source naming a deleted player is skipped (GM-6), and so is one whose
/// player's stored state cannot be read (corrupt: logged; no rerun could send it); one
/// settled before, with the same or other content, keeps its first result; ones that
/// contended with each other are settled again one at a time; one that fails for a
/// reason of its own ([`Tally::unapplied`]) is left out, so one player never stops a
/// job. Stops at the first other error (the job's rerun settles the rest).
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
            // OP-4: a suspended player's share is left out (they are off every board).
            Err(ServiceError::Suspended { .. }) => Ok(None),
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
    // `in_flight` at a time (a plain loop over a FuturesUnordered rather than stream
    // combinators: the futures stay provably Send for callers that hold borrowed sources).
    let mut outcomes: Vec<(X, Result<Option<bool>, ServiceError>)> = Vec::new();
    let mut running = stream::FuturesUnordered::new();
    let mut sources = sources.into_iter();
    loop {
        while running.len() < in_flight.max(1) {
            let Some(source) = sources.next() else {
                break;
            };
            running.push(async move {
                let outcome = one(store, &source, now).await;
                (source, outcome)
            });
        }
        match running.next().await {
            Some(done) => outcomes.push(done),
            None => break,
        }
    }
    let mut tally = Tally::default();
    let mut count = |source: &X, o: Result<Option<bool>, ServiceError>| -> Result<(), ServiceError> {
        match o {
            Ok(Some(true)) => tally.applied += 1,
            Ok(Some(false)) => {}
            Ok(None) => tally.skipped += 1,
            Err(e) if unappliable(&e) => {
                let key = source.key();
                tracing::error!(kind = %key.kind, error = %e, "a source cannot be applied; left out for review, the others go on");
                tally.unapplied.push(super::unapplied::Unapplied {
                    kind: key.kind.to_string(),
                    id: key.id.clone(),
                    player: source.concerns().map(str::to_string),
                    error: e.to_string(),
                });
            }
            Err(e) => return Err(e),
        }
        Ok(())
    };
    // Sources that contended with each other (several placed in one league cohort)
    // are settled again one at a time, so a batch never fails for its own contention.
    let mut contended = Vec::new();
    for (source, outcome) in outcomes {
        match outcome {
            Err(ServiceError::Contended { .. }) => contended.push(source),
            other => count(&source, other)?,
        }
    }
    for source in contended {
        let outcome = one(store, &source, now).await;
        count(&source, outcome)?;
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
