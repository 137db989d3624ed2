//! Suspending a player and restoring them (OP-4).
//!
//! **Suspend.** The player's guard item ([`podium_store::tombstone_key`]) is written
//! with state `suspended` (only if absent): from then on every commit that writes or
//! names them fails in the same transaction, so their new records are held, not scored
//! and not lost ([`crate::moderation::review`]), and their own calls are refused (403).
//! They join the list of suspended players, which snapshot runs leave out; the
//! snapshots taken before (each board's current one, frozen finals, their country's
//! view) hide them through their pointers, the ranks below closed up
//! ([`crate::boards::hidden`]). Nothing of theirs is changed or removed.
//!
//! **Restore** (within the configured window, 30 days by default). The guard goes,
//! the pointers show them again exactly as they were, the boards they stand on are
//! marked changed (the next refresh lists them), and their held records are settled in
//! the order they arrived, each exactly once.
//!
//! After the window, or on request, a suspension becomes a deletion (GM-6): the
//! deletion takes over the guard.

use chrono::{DateTime, Duration, Utc};
use podium_rules::board::BoardRef;
use podium_rules::record::policy::RecordPolicy;
use podium_store::{balance_board, tombstone_key, Account, ErasureStore, SettleStore, Store};
use serde::{Deserialize, Serialize};

use super::audit::{self, action, AuditEntry};
use crate::error::ServiceError;

/// How long a suspension can be restored by default (days).
pub const DEFAULT_RESTORE_DAYS: i64 = 30;

/// A suspension, as the guard item holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Suspension {
    pub player_id: String,
    /// When it began (UTC).
    pub since: DateTime<Utc>,
    /// The last instant it can be restored (UTC); after it, only a deletion ends it.
    pub restorable_until: DateTime<Utc>,
    pub operator: String,
    pub reason: String,
    /// The boards (`{board}@{period}`) whose snapshots hid the player when suspended.
    pub hidden_from: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Guard {
    state: String,
    suspension: Suspension,
}

/// What a suspend or restore call answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SuspensionAnswer {
    /// `suspended` or `active`.
    pub state: String,
    /// The suspension (absent when a restore only finished an earlier one's records).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspension: Option<Suspension>,
    /// Held records settled by this restore.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub released: Option<usize>,
    /// True when the call found the state it asks for already (nothing done now).
    pub unchanged: bool,
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(podium_store::StoreError::corrupt(what, e))
}

async fn guard<S: podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<Option<(Guard, u64)>, ServiceError> {
    let key = tombstone_key(player_id);
    match store.get_item(&key, true).await? {
        Some(item) if Account::of_guard(Some(&item.body)) == Account::Suspended => Ok(Some((
            serde_json::from_slice(&item.body).map_err(|e| corrupt(&key.pk, e))?,
            item.version,
        ))),
        Some(_) => Err(ServiceError::NotFound("the player was deleted (GM-6)".into())),
        None => Ok(None),
    }
}

/// The boards `player_id` stands on (their balances' all-time boards and their period
/// entries, past periods included).
async fn boards_of<S: ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<Vec<BoardRef>, ServiceError> {
    let h = store.holdings(player_id).await?;
    let mut boards: Vec<BoardRef> = h.balances.iter().filter_map(|g| balance_board(*g)).collect();
    boards.extend(h.entries);
    Ok(boards)
}

/// Suspends `player_id` (OP-4) by `operator` with `reason` at `now`, restorable for
/// `restore_days`; see the module notes. Safe to repeat and to resume: a suspended
/// player's suspension is answered as it stands (`unchanged`), its hiding finished. Errors: `Invalid` (the id,
/// GM-5/GM-6; the reason, OP-5), [`ServiceError::NotFound`] (nothing stored about the
/// player, or deleted), the transient store errors (call again: it resumes).
pub async fn suspend<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    (operator, reason): (&str, &str),
    restore_days: i64,
    now: DateTime<Utc>,
) -> Result<SuspensionAnswer, ServiceError> {
    // GM-5, GM-6: a player id, not a deleted player's pseudonym (400 naming the rule).
    podium_rules::record::ids::check_player_id("player_id", player_id)?;
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let key = tombstone_key(player_id);
    // The player's partition, read once: the boards to hide them from.
    let boards = boards_of(store, player_id).await?;
    let (mut g, version, unchanged) = match guard(store, player_id).await? {
        Some((g, version)) => (g, version, true),
        None => {
            if boards.is_empty() {
                return Err(ServiceError::NotFound(
                    "nothing is stored about this player".into(),
                ));
            }
            let g = Guard {
                state: podium_store::SUSPENDED.into(),
                suspension: Suspension {
                    player_id: player_id.to_string(),
                    since: now,
                    restorable_until: now + Duration::days(restore_days),
                    operator: operator.to_string(),
                    reason,
                    hidden_from: Vec::new(),
                },
            };
            let body = serde_json::to_vec(&g).map_err(|e| corrupt("suspension", e))?;
            if store.put_item_if(&key, &body, 0).await? {
                (g, 1, false)
            } else {
                // Suspended (or deleted) meanwhile: go on with what stands.
                let (g, version) = guard(store, player_id)
                    .await?
                    .ok_or(ServiceError::Contended { attempts: 1 })?;
                (g, version, true)
            }
        }
    };
    // Every step below is safe to repeat: a call that stopped midway (or found the
    // suspension already written) finishes them. Left out of every snapshot from now
    // on, then hidden from those taken.
    let since = g.suspension.since;
    crate::boards::snapshot::left_out::set_listed(store, player_id, Some(since)).await?;
    let mut hidden_from = Vec::new();
    for board in &boards {
        hidden_from.extend(crate::boards::hidden::hide(store, board, player_id, since).await?);
    }
    hidden_from.retain(|b| !g.suspension.hidden_from.contains(b));
    if !hidden_from.is_empty() {
        g.suspension.hidden_from.extend(hidden_from);
        let body = serde_json::to_vec(&g).map_err(|e| corrupt("suspension", e))?;
        // A restore that read the guard meanwhile wins: its own record stands.
        store.put_item_if(&key, &body, version).await?;
    }
    let suspension = g.suspension;
    // The same action's entry (same instant and id) on every repeat.
    audit::append(
        store,
        &AuditEntry {
            id: format!("{player_id}@{}", suspension.since.timestamp_millis()),
            at: suspension.since,
            operator: suspension.operator.clone(),
            action: action::SUSPEND.into(),
            target: player_id.to_string(),
            player_id: Some(player_id.to_string()),
            reason: suspension.reason.clone(),
            changes: serde_json::json!({"hidden_from": suspension.hidden_from, "restorable_until": suspension.restorable_until}),
        },
    )
    .await?;
    Ok(SuspensionAnswer {
        state: "suspended".into(),
        suspension: Some(suspension),
        released: None,
        unchanged,
    })
}

/// Restores `player_id` (OP-4) by `operator` with `reason` at `now`; see the module
/// notes. Safe to repeat: a restored player's held records left unsettled by an
/// interrupted call are settled (`unchanged` when nothing was suspended). Errors:
/// [`ServiceError::NotFound`] (not suspended and nothing held), `Conflict` (past the
/// restore window: delete instead), `Invalid` (the reason), transient store errors.
pub async fn restore<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Result<SuspensionAnswer, ServiceError> {
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let Some((g, version)) = guard(store, player_id).await? else {
        // Not suspended: an earlier restore that stopped after removing the guard
        // left held records to settle; finish them.
        let released = super::review::release(store, player_id, (operator, &reason), now, policy).await?;
        if released == 0 {
            return Err(ServiceError::NotFound("the player is not suspended".into()));
        }
        return Ok(SuspensionAnswer {
            state: "active".into(),
            suspension: None,
            released: Some(released),
            unchanged: false,
        });
    };
    if now > g.suspension.restorable_until {
        return Err(ServiceError::Conflict {
            field: "player_id",
            id: "past the restore window; the suspension can only become a deletion".into(),
        });
    }
    // Shown again, off the list, the boards marked changed (the next refresh lists
    // them, LB-5): all safe to repeat, and done while the guard still holds their
    // records back. Then the guard goes, and the held records are settled.
    for b in &g.suspension.hidden_from {
        if let Some((board, period)) = b.split_once('@') {
            crate::boards::hidden::show(store, &BoardRef::new(board, period), player_id).await?;
        }
    }
    crate::boards::snapshot::left_out::set_listed(store, player_id, None).await?;
    for board in boards_of(store, player_id).await? {
        if let Some(mark) = crate::engine::changes::mark_for(&board, player_id, now.timestamp_millis()) {
            crate::engine::changes::raise(store, &mark).await?;
        }
    }
    if !store.delete_item_if(&tombstone_key(player_id), version).await? {
        return Err(ServiceError::Contended { attempts: 1 });
    }
    let released = super::review::release(store, player_id, (operator, &reason), now, policy).await?;
    audit::append(
        store,
        &AuditEntry::on_player(
            action::RESTORE,
            player_id,
            (operator, reason),
            now,
            serde_json::json!({"suspended_since": g.suspension.since, "held_records_settled": released}),
        ),
    )
    .await?;
    Ok(SuspensionAnswer {
        state: "active".into(),
        suspension: Some(g.suspension),
        released: Some(released),
        unchanged: false,
    })
}

/// Whether `player_id` is suspended, with the suspension.
pub async fn of_player<S: podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<Option<Suspension>, ServiceError> {
    Ok(guard(store, player_id).await?.map(|(g, _)| g.suspension))
}

/// GM-6: a deleted player leaves the list of suspended players (their guard became a
/// tombstone). Safe to repeat.
pub async fn forget<S: SettleStore + podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<(), ServiceError> {
    crate::boards::snapshot::left_out::set_listed(store, player_id, None).await
}
