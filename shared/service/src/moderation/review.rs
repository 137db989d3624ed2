//! Held records and their review (OP-2, OP-3): a record from the match queue that
//! breaks a plausibility check is stored as *held* with the check it broke, counted on
//! no balance or board, listed in the review queue, until an operator approves it
//! (settled exactly once, through the one commit path, credited to the periods of its
//! own instant) or rejects it (never applied).
//!
//! Items (all through [`ItemStore`]):
//! - the held record: `HELD#{kind}#{id}` / `HELD`, written only if absent, so a
//!   duplicate delivery stays one held record; its state moves `held` → `approving` →
//!   `approved`, or `held` → `rejected`, each a conditional write on its version, so
//!   concurrent decisions take one;
//! - the review queue: `HELDQ` / `{held_at_ms:013}#{kind}#{id}`, a copy read in one
//!   Query, deleted once decided;
//! - the player's list: `HELDP#{player}` / the same sort key, for the player's export.
//!
//! Index items are written after the record, and again by any later delivery or
//! decision that finds them missing, so a call that stops midway loses nothing.

use chrono::{DateTime, Utc};
use podium_rules::plausibility::Breach;
use podium_rules::record::policy::RecordPolicy;
use podium_store::{ItemKey, ItemStore, SettleStore, SortKeyRange};
use serde::{Deserialize, Serialize};

use super::audit::{self, action, AuditEntry};
use crate::engine::names::hex_sha256;
use crate::error::ServiceError;
use crate::games::incoming::{settle_incoming, Incoming, Outcome};

/// Why a record is held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct HoldCause {
    /// `plausibility`: it broke a plausibility check (OP-2).
    pub cause: String,
    /// The check's name, e.g. `min_duration_ms`.
    pub check: String,
    /// The check's finding, in words.
    pub message: String,
}

/// The cause of records held by a plausibility check (OP-2).
pub const PLAUSIBILITY: &str = "plausibility";

/// The cause of records held because a player they name is suspended (OP-4): released
/// when the player is restored, not listed in the review queue.
pub const SUSPENDED: &str = "suspended";

/// Where a held record stands (OP-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum HeldState {
    /// Waiting for an operator.
    Held,
    /// An approval is settling it.
    Approving,
    /// Settled (or found settled before).
    Approved,
    /// Refused for good by an operator, or by the rules when approved.
    Rejected,
}

/// An operator's decision on a held record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Decision {
    pub operator: String,
    pub at: DateTime<Utc>,
    pub reason: String,
    /// What the approval's settlement did (`applied`, `void`: applied as a void match, `duplicate`), or why the rules
    /// refused it; absent on a rejection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

/// A held record (OP-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct HeldRecord {
    /// The record's kind (`seega`, `level-completion`, …) and id (its match id).
    pub kind: String,
    pub id: String,
    /// The players it names.
    pub players: Vec<String>,
    /// When it was held (server clock, UTC): the record is validated as of then when
    /// approved.
    pub held_at: DateTime<Utc>,
    pub cause: HoldCause,
    pub state: HeldState,
    /// SHA-256 (hex) of the record as sent.
    pub content_hash: String,
    /// The record as the game server sent it (JSON text).
    pub record: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
}

/// What became of a record offered to the intake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intake {
    /// Settled (or found settled): the settlement's outcome.
    Settled(Outcome),
    /// Held for review (OP-2); `duplicate`: it was held before (this delivery wrote
    /// nothing).
    Held { check: String, duplicate: bool },
}

fn record_key(kind: &str, id: &str) -> ItemKey {
    ItemKey::new(format!("HELD#{kind}#{id}"), "HELD")
}

const QUEUE: &str = "HELDQ";

fn index_sk(h: &HeldRecord) -> String {
    format!("{:013}#{}#{}", h.held_at.timestamp_millis().max(0), h.kind, h.id)
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(podium_store::StoreError::corrupt(what, e))
}

fn encode(h: &HeldRecord) -> Result<Vec<u8>, ServiceError> {
    serde_json::to_vec(h).map_err(|e| corrupt("held record", e))
}

/// The queue's and the players' index items of `h` (the queue's holds the whole record).
fn index_items(h: &HeldRecord) -> Result<Vec<(ItemKey, Vec<u8>)>, ServiceError> {
    let sk = index_sk(h);
    let mut items = Vec::new();
    if h.cause.cause == PLAUSIBILITY {
        items.push((ItemKey::new(QUEUE, sk.clone()), encode(h)?));
    }
    let pointer = serde_json::to_vec(&(&h.kind, &h.id)).map_err(|e| corrupt("held record", e))?;
    for p in &h.players {
        items.push((ItemKey::new(format!("HELDP#{p}"), sk.clone()), pointer.clone()));
    }
    Ok(items)
}

/// Offers one record from the match queue (delivery `delivery`, arrived at `now`):
/// held when it breaks a plausibility check of `policy` (OP-2), else settled
/// ([`settle_incoming`]). `raw` is the record as sent. Errors: those of
/// [`settle_incoming`], and [`ServiceError::Conflict`] when a held record with the same
/// kind and id but other content exists.
pub async fn accept<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    raw: &[u8],
    record: &Incoming,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
    delivery: &str,
) -> Result<Intake, ServiceError> {
    if !policy.plausibility.is_empty() {
        if let Some(breach) = policy.plausibility.check(&record.facts(now, policy)) {
            // GM-3: a record settled before (a check configured since, a queue retry)
            // is answered as settled, a duplicate or a conflict, never held.
            if store.get_source(&record.source_key()).await?.is_none() {
                return hold(store, raw, record, (PLAUSIBILITY, breach), now).await;
            }
        }
    }
    match settle_incoming(store, record, now, policy, delivery).await {
        // OP-4: a record naming a suspended player waits for their restore.
        Err(ServiceError::Suspended { .. }) => {
            let breach = Breach {
                check: SUSPENDED.into(),
                message: "a player it names is suspended; it is settled when they are restored".into(),
            };
            hold(store, raw, record, (SUSPENDED, breach), now).await
        }
        // BD-7: a value outside a defined board's score range waits for review.
        Err(ServiceError::OutOfRange { board, value, range }) => {
            hold(
                store,
                raw,
                record,
                (PLAUSIBILITY, range_breach(&board, value, range)),
                now,
            )
            .await
        }
        settled => Ok(Intake::Settled(settled?)),
    }
}

/// The check a result outside a defined board's score range breaks (BD-7).
fn range_breach(board: &str, value: i64, [min, max]: [i64; 2]) -> Breach {
    Breach {
        check: SCORE_RANGE.into(),
        message: format!("{value} on the board {board} is outside its score range [{min}, {max}] (BD-7)"),
    }
}

/// The check named for a result outside a defined board's score range (BD-7).
pub const SCORE_RANGE: &str = "score_range";

async fn hold<S: ItemStore + ?Sized>(
    store: &S,
    raw: &[u8],
    record: &Incoming,
    (cause, breach): (&str, Breach),
    now: DateTime<Utc>,
) -> Result<Intake, ServiceError> {
    let held = HeldRecord {
        kind: record.kind().to_string(),
        id: record.match_id().to_string(),
        players: record.players().into_iter().map(str::to_string).collect(),
        held_at: now,
        cause: HoldCause {
            cause: cause.into(),
            check: breach.check.clone(),
            message: breach.message,
        },
        state: HeldState::Held,
        content_hash: hex_sha256(&String::from_utf8_lossy(raw)),
        record: String::from_utf8_lossy(raw).into_owned(),
        decision: None,
    };
    let key = record_key(&held.kind, &held.id);
    if store.put_item_if(&key, &encode(&held)?, 0).await? {
        store.put_items(&index_items(&held)?, None).await?;
        crate::telemetry::record(record.kind(), "held");
        return Ok(Intake::Held {
            check: breach.check,
            duplicate: false,
        });
    }
    // Held before: the same record stays one held record; other content is a conflict.
    let (stored, _) = read(store, &held.kind, &held.id)
        .await?
        .ok_or(ServiceError::Contended { attempts: 1 })?;
    if stored.content_hash != held.content_hash {
        return Err(ServiceError::Conflict {
            field: "match_id",
            id: held.id,
            settled_at: None,
            differs: None,
        });
    }
    match stored.state {
        HeldState::Held => {
            // A first delivery that stopped before its index items: write them now.
            store.put_items(&index_items(&stored)?, None).await?;
            Ok(Intake::Held {
                check: stored.cause.check,
                duplicate: true,
            })
        }
        HeldState::Approving | HeldState::Approved | HeldState::Rejected => {
            Ok(Intake::Settled(Outcome::Duplicate))
        }
    }
}

async fn read<S: ItemStore + ?Sized>(
    store: &S,
    kind: &str,
    id: &str,
) -> Result<Option<(HeldRecord, u64)>, ServiceError> {
    let key = record_key(kind, id);
    match store.get_item(&key, true).await? {
        Some(item) => Ok(Some((
            serde_json::from_slice(&item.body).map_err(|e| corrupt(&key.pk, e))?,
            item.version,
        ))),
        None => Ok(None),
    }
}

/// One held record, if any (strongly consistent).
pub async fn get<S: ItemStore + ?Sized>(
    store: &S,
    kind: &str,
    id: &str,
) -> Result<Option<HeldRecord>, ServiceError> {
    Ok(read(store, kind, id).await?.map(|(h, _)| h))
}

/// Up to `limit` records waiting in the review queue, oldest first, after the sort
/// key `after`; with the sort key to continue from when more may follow. One Query.
pub async fn queue<S: ItemStore + ?Sized>(
    store: &S,
    after: Option<&str>,
    limit: usize,
) -> Result<(Vec<HeldRecord>, Option<String>), ServiceError> {
    let range = after.map_or(SortKeyRange::All, |a| SortKeyRange::After(a.to_string()));
    let items = store.query_items(QUEUE, &range, true, limit + 1, false).await?;
    let more = items.len() > limit;
    let mut out = Vec::new();
    let mut last = None;
    for (sk, item) in items.into_iter().take(limit) {
        out.push(serde_json::from_slice(&item.body).map_err(|e| corrupt(QUEUE, e))?);
        last = Some(sk);
    }
    Ok((out, if more { last } else { None }))
}

/// The held records that name `player_id` (their export), oldest first.
pub async fn of_player<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<Vec<HeldRecord>, ServiceError> {
    let pk = format!("HELDP#{player_id}");
    let mut out = Vec::new();
    for (_, item) in store
        .query_items(&pk, &SortKeyRange::All, true, 10_000, true)
        .await?
    {
        let (kind, id): (String, String) = serde_json::from_slice(&item.body).map_err(|e| corrupt(&pk, e))?;
        if let Some(h) = get(store, &kind, &id).await? {
            out.push(h);
        }
    }
    Ok(out)
}

/// An operator's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approve,
    Reject,
}

/// Decides the held record `kind`/`id` (OP-3) by `operator` with `reason` at `now`:
/// an approval settles it exactly once (validated as of when it was held, credited to
/// the periods of its own instant); a rejection refuses it for good. Either is
/// recorded in the audit trail (OP-5). Repeating a decision answers the record as it
/// stands; the other decision on a decided record is [`ServiceError::Conflict`].
/// Errors: [`ServiceError::NotFound`] (no such held record), `Invalid` (the reason,
/// OP-5), and the settlement's transient errors (the approval can be sent again).
pub async fn decide<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    (kind, id): (&str, &str),
    verdict: Verdict,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Result<HeldRecord, ServiceError> {
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let conflict = || ServiceError::Conflict {
        field: "verdict",
        id: format!("{kind}/{id}"),
        settled_at: None,
        differs: None,
    };
    for _ in 0..10 {
        let (mut held, version) = read(store, kind, id)
            .await?
            .ok_or_else(|| ServiceError::NotFound("no such held record".into()))?;
        match (held.state, verdict) {
            (HeldState::Held, _) => {
                held.state = match verdict {
                    Verdict::Approve => HeldState::Approving,
                    Verdict::Reject => HeldState::Rejected,
                };
                held.decision = Some(Decision {
                    operator: operator.to_string(),
                    at: now,
                    reason: reason.clone(),
                    outcome: None,
                });
                if !store
                    .put_item_if(&record_key(kind, id), &encode(&held)?, version)
                    .await?
                {
                    continue;
                }
                if verdict == Verdict::Reject {
                    return finish(store, held).await;
                }
            }
            (HeldState::Approving, Verdict::Approve) => {
                // Settle and finish below (an approval that stopped midway, or a
                // concurrent one: the settlement applies once either way).
            }
            (HeldState::Approved, Verdict::Approve) | (HeldState::Rejected, Verdict::Reject) => {
                return finish(store, held).await;
            }
            _ => return Err(conflict()),
        }
        return approve(store, held, policy, now).await;
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// Settles a held record as the one delivery `held:{kind}:{id}` (exactly once, GM-3),
/// validated as of when it was held: the state it ends in and what its settlement did
/// (or why the rules refused it). Transient errors, and [`ServiceError::Suspended`],
/// are returned.
async fn settle_held<S: SettleStore + ?Sized>(
    store: &S,
    held: &HeldRecord,
    policy: &RecordPolicy,
    now: DateTime<Utc>,
) -> Result<(HeldState, String), ServiceError> {
    let outcome = match Incoming::from_json(held.record.as_bytes(), held.held_at, policy) {
        Err(e) => Err(ServiceError::Invalid(e)),
        Ok(record) => {
            let delivery = format!("held:{}:{}", held.kind, held.id);
            settle_incoming(store, &record, now, policy, &delivery).await
        }
    };
    match outcome {
        Ok(Outcome::Applied) => Ok((HeldState::Approved, "applied".to_string())),
        Ok(Outcome::Void) => Ok((HeldState::Approved, "void".to_string())),
        Ok(Outcome::Duplicate) => Ok((HeldState::Approved, "duplicate".to_string())),
        Err(e) if e.is_permanent() => Ok((HeldState::Rejected, format!("refused by the rules: {e}"))),
        Err(e) => Err(e),
    }
}

/// Settles an approved record and records the outcome.
async fn approve<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    mut held: HeldRecord,
    policy: &RecordPolicy,
    now: DateTime<Utc>,
) -> Result<HeldRecord, ServiceError> {
    // OP-3, BD-7: the operator's approval counts the values a score range held.
    let (state, said) = match crate::engine::defined::approved(settle_held(store, &held, policy, now)).await {
        Err(e @ ServiceError::Suspended { .. }) => {
            // OP-4: a player it names is suspended: the record stays held (a record
            // held for the suspension is settled by the restore), undecided.
            reopen(store, &held).await?;
            return Err(e);
        }
        decided => decided?,
    };
    loop {
        let (current, version) = read(store, &held.kind, &held.id)
            .await?
            .ok_or_else(|| ServiceError::NotFound("no such held record".into()))?;
        if current.state != HeldState::Approving {
            return finish(store, current).await;
        }
        held = current;
        held.state = state;
        if let Some(d) = held.decision.as_mut() {
            d.outcome = Some(said.clone());
        }
        if store
            .put_item_if(&record_key(&held.kind, &held.id), &encode(&held)?, version)
            .await?
        {
            return finish(store, held).await;
        }
    }
}

/// A record held for a suspension that, released, breaks a check (BD-7's score range):
/// held again for that check, in the review queue (safe to repeat).
async fn to_review<S: ItemStore + ?Sized>(
    store: &S,
    kind: &str,
    id: &str,
    breach: Breach,
) -> Result<(), ServiceError> {
    while let Some((mut current, version)) = read(store, kind, id).await? {
        if current.state != HeldState::Held {
            return Ok(());
        }
        current.cause = HoldCause {
            cause: PLAUSIBILITY.into(),
            check: breach.check.clone(),
            message: breach.message.clone(),
        };
        if store
            .put_item_if(&record_key(kind, id), &encode(&current)?, version)
            .await?
        {
            store.put_items(&index_items(&current)?, None).await?;
            return Ok(());
        }
    }
    Ok(())
}

/// Puts an approval that could not settle back to `held`, undecided (safe to repeat;
/// a record another call decided meanwhile is left as it stands).
async fn reopen<S: ItemStore + ?Sized>(store: &S, held: &HeldRecord) -> Result<(), ServiceError> {
    while let Some((mut current, version)) = read(store, &held.kind, &held.id).await? {
        if current.state != HeldState::Approving {
            return Ok(());
        }
        current.state = HeldState::Held;
        current.decision = None;
        if store
            .put_item_if(&record_key(&held.kind, &held.id), &encode(&current)?, version)
            .await?
        {
            // Back in the queue if it was listed there (the index items are safe to rewrite).
            store.put_items(&index_items(&current)?, None).await?;
            return Ok(());
        }
    }
    Ok(())
}

/// A decided record leaves the queue and enters the audit trail (both safe to repeat),
/// in the trail of every player it names (OP-5): a match's two players both find the
/// approval or rejection of their match.
async fn finish<S: ItemStore + ?Sized>(store: &S, held: HeldRecord) -> Result<HeldRecord, ServiceError> {
    store
        .delete_items(&[ItemKey::new(QUEUE, index_sk(&held))])
        .await?;
    if let Some(d) = &held.decision {
        let act = if held.state == HeldState::Approved {
            action::APPROVE
        } else {
            action::REJECT
        };
        let target = format!("{}/{}", held.kind, held.id);
        audit::append(
            store,
            &AuditEntry {
                id: target.clone(),
                at: d.at,
                operator: d.operator.clone(),
                action: act.into(),
                target,
                player_id: held.players.first().cloned(),
                players: if held.players.len() > 1 {
                    held.players.clone()
                } else {
                    Vec::new()
                },
                reason: d.reason.clone(),
                changes: serde_json::json!({"state": held.state, "outcome": d.outcome}),
            },
        )
        .await?;
    }
    Ok(held)
}

/// Settles the records held because `player_id` was suspended (OP-4), oldest first,
/// each exactly once, now that they are restored; a record naming another player who
/// is still suspended stays held. Answers how many were settled. Safe to repeat.
pub async fn release<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Result<usize, ServiceError> {
    let pk = format!("HELDP#{player_id}");
    let mut released = 0;
    for (_, item) in store
        .query_items(&pk, &SortKeyRange::All, true, 10_000, true)
        .await?
    {
        let (kind, id): (String, String) = serde_json::from_slice(&item.body).map_err(|e| corrupt(&pk, e))?;
        let Some((held, _)) = read(store, &kind, &id).await? else {
            continue;
        };
        if held.state != HeldState::Held || held.cause.cause != SUSPENDED {
            continue;
        }
        let (state, said) = match settle_held(store, &held, policy, now).await {
            Err(ServiceError::Suspended { .. }) => continue,
            // BD-7: released, it still breaks a score range: it waits for review.
            Err(ServiceError::OutOfRange { board, value, range }) => {
                to_review(store, &kind, &id, range_breach(&board, value, range)).await?;
                continue;
            }
            decided => decided?,
        };
        released += usize::from(state == HeldState::Approved);
        while let Some((mut current, version)) = read(store, &kind, &id).await? {
            if current.state != HeldState::Held {
                break;
            }
            current.state = state;
            current.decision = Some(Decision {
                operator: operator.to_string(),
                at: now,
                reason: reason.to_string(),
                outcome: Some(said.clone()),
            });
            if store
                .put_item_if(&record_key(&kind, &id), &encode(&current)?, version)
                .await?
            {
                break;
            }
        }
    }
    Ok(released)
}

/// GM-6: the held records naming `player_id`, deleted, are decided for good (rejected:
/// a record naming a deleted player is refused) and anonymised: the id replaced by
/// `pseudonym` in their players and record; they leave the review queue and the
/// player's list. Safe to repeat.
pub async fn forget_player<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    pseudonym: &str,
) -> Result<usize, ServiceError> {
    let pk = format!("HELDP#{player_id}");
    let listed = store
        .query_items(&pk, &SortKeyRange::All, true, 10_000, true)
        .await?;
    let mut gone = Vec::new();
    for (sk, item) in &listed {
        let (kind, id): (String, String) = serde_json::from_slice(&item.body).map_err(|e| corrupt(&pk, e))?;
        while let Some((mut held, version)) = read(store, &kind, &id).await? {
            let queued = ItemKey::new(QUEUE, index_sk(&held));
            for p in &mut held.players {
                if p == player_id {
                    *p = pseudonym.to_string();
                }
            }
            held.record = held.record.replace(player_id, pseudonym);
            if matches!(held.state, HeldState::Held | HeldState::Approving) {
                held.state = HeldState::Rejected;
                held.decision = Some(Decision {
                    operator: "gm-6".into(),
                    at: held.held_at,
                    reason: "a player it names was deleted (GM-6)".into(),
                    outcome: None,
                });
            }
            if store
                .put_item_if(&record_key(&kind, &id), &encode(&held)?, version)
                .await?
            {
                gone.push(queued);
                break;
            }
        }
        gone.push(ItemKey::new(pk.clone(), sk.clone()));
    }
    store.delete_items(&gone).await?;
    Ok(listed.len())
}
