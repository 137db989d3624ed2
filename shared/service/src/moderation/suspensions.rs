//! Suspending a player and restoring them (OP-4).
//!
//! **Suspend.** The player's guard item ([`podium_store::tombstone_key`]) is written
//! with state `suspended` (only if absent): from then on every commit that writes or
//! names them fails in the same transaction, so their new records are held, not scored
//! and not lost ([`crate::moderation::review`]), and their own calls are refused (403).
//! Then, each a step safe to repeat (a call that fails or stops midway is finished by
//! its repeat or by the ticks): they are indexed as suspended on each board they stand
//! on ([`crate::boards::suspended`]), which snapshot runs leave out and live reads
//! skip, and the snapshots taken before (each board's current one, frozen finals,
//! their country's view) hide them through their pointers, the ranks below closed up
//! ([`crate::boards::hidden`]). Nothing of theirs is changed or removed. Suspensions
//! of different players write no item in common but the audit trail's own: any number
//! hold, and any number run at once.
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
use crate::budget::Budget;
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
    /// A restore under way: who began it, when and why (it ends by removing the
    /// guard). A suspension found restoring hides nothing more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    restoring: Option<Restoring>,
    /// How many of the player's boards (by key) the suspension has hidden them from so
    /// far: a call that stopped at its budget resumes after them.
    #[serde(default)]
    hidden_through: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Restoring {
    at: DateTime<Utc>,
    operator: String,
    reason: String,
    /// How many of the boards the suspension hid the player from are shown again.
    #[serde(default)]
    shown: usize,
}

/// What a suspend or restore call answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SuspensionAnswer {
    /// `suspended`, `restoring` (a restore under way: the next ticks finish it) or
    /// `active`.
    pub state: String,
    /// The suspension (absent when a restore only finished an earlier one's records).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspension: Option<Suspension>,
    /// Held records settled by this restore.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub released: Option<usize>,
    /// True when the call found the state it asks for already (nothing done now).
    pub unchanged: bool,
    /// False when the call stopped at its budget with work left (the player is
    /// suspended, or still suspended while restoring, but not yet hidden from, or shown
    /// again on, every board): the next ticks carry it on
    /// ([`crate::operators::player_actions`]), and asking again joins it.
    pub done: bool,
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
    Ok(boards_and_holdings(store, player_id).await?.0)
}

/// [`boards_of`], whether anything at all is stored in the player's partition (a
/// player who only joined a team, TM-1, stands on no board but is someone to suspend),
/// and the items that name them elsewhere (GM-6's references: their teams'
/// contributions among them, TM-7), from the one read of their partition.
async fn boards_and_holdings<S: ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<(Vec<BoardRef>, bool, Vec<podium_store::Named>), ServiceError> {
    let h = store.holdings(player_id).await?;
    let stored = !h.is_empty();
    let refs = h.refs.clone();
    let mut boards: Vec<BoardRef> = h.balances.iter().filter_map(|g| balance_board(*g)).collect();
    boards.extend(h.entries);
    // One order on every call, so that a resumed suspension skips what it hid.
    boards.sort_by_key(BoardRef::key);
    boards.dedup();
    Ok((boards, stored, refs))
}

/// Suspends `player_id` (OP-4) by `operator` with `reason` at `now`, restorable for
/// `restore_days`; see the module notes. Safe to repeat and to resume: a suspended
/// player's suspension is answered as it stands (`unchanged`), its hiding finished. Errors: `Invalid` (the id,
/// GM-5/GM-6; the reason, OP-5), [`ServiceError::NotFound`] (nothing stored about the
/// player, or deleted), [`ServiceError::StateConflict`] (OP-4: a restore overtook it), the transient store errors (call again: it resumes).
pub async fn suspend<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    (operator, reason): (&str, &str),
    restore_days: i64,
    now: DateTime<Utc>,
) -> Result<SuspensionAnswer, ServiceError> {
    suspend_within(
        store,
        player_id,
        (operator, reason),
        restore_days,
        now,
        Budget::unbounded(),
    )
    .await
}

/// [`suspend`] within `budget`: the guard first (the suspension holds from there,
/// audited), then the boards' indexes, then the boards' snapshots one by one, in key order, each a step; a call
/// that stops at its budget saves how far it got in the guard and answers `done`
/// false, and the next call (a repeat, or a tick carrying the action on) resumes after
/// the boards already done. Errors as [`suspend`]'s.
pub async fn suspend_within<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    (operator, reason): (&str, &str),
    restore_days: i64,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<SuspensionAnswer, ServiceError> {
    // GM-5, GM-6: a player id, not a deleted player's pseudonym (400 naming the rule).
    podium_rules::record::ids::check_player_id("player_id", player_id)?;
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    // The player's partition, read once: the boards to hide them from.
    let (boards, stored, refs) = boards_and_holdings(store, player_id).await?;
    let (g, version, unchanged) = match guard(store, player_id).await? {
        Some((g, version)) => (g, version, true),
        None => {
            if !stored {
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
                restoring: None,
                hidden_through: 0,
            };
            let body = serde_json::to_vec(&g).map_err(|e| corrupt("suspension", e))?;
            if store.put_item_if(&tombstone_key(player_id), &body, 0).await? {
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
    if g.restoring.is_some() {
        return Err(restore_under_way());
    }
    hide(
        store,
        player_id,
        (&boards, &refs),
        (g, version),
        unchanged,
        now,
        budget,
    )
    .await
}

/// Carries on the suspension of `player_id` within `budget` (a tick carrying an
/// operator's action on): only while the guard holds a suspension with no restore
/// begun on it, whichever request wrote it (concurrent requests join one action
/// record, the first one's, while another's write may be the guard's: hiding a player
/// who is suspended is right whichever it was); `None` when there is none (restored,
/// deleted, or a restore under way, which owns the player now): never begins one.
/// Errors as [`suspend_within`]'s.
pub async fn carry_on<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<Option<SuspensionAnswer>, ServiceError> {
    let (boards, _, refs) = boards_and_holdings(store, player_id).await?;
    match guard(store, player_id).await {
        Ok(Some((g, version))) if g.restoring.is_none() => Ok(Some(
            hide(
                store,
                player_id,
                (&boards, &refs),
                (g, version),
                true,
                now,
                budget,
            )
            .await?,
        )),
        Ok(_) | Err(ServiceError::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The steps of a suspension once its guard stands (`g` at `version`): audited, indexed
/// on `boards`, then hidden from their snapshots one by one within `budget`, the progress saved in the
/// guard when the budget stops it.
async fn hide<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    (boards, refs): (&[BoardRef], &[podium_store::Named]),
    (mut g, version): (Guard, u64),
    unchanged: bool,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<SuspensionAnswer, ServiceError> {
    // OP-5: the suspension holds from the guard's write on (the player's calls are
    // refused), so it is audited now, before the steps below; the entry is written
    // again, the same id, with the boards it was hidden from once they are done.
    audit::append(store, &suspend_entry(player_id, &g.suspension)).await?;
    // TM-7: their points withheld from their teams' entries (one settlement each).
    crate::teams::withholding::apply(store, player_id, refs, true, g.suspension.since, now).await?;
    // Every step below is safe to repeat: a call that stopped midway (or found the
    // suspension already written) finishes them. Left out of every snapshot from now
    // on, then hidden from those taken: each board's snapshots recorded in the guard
    // before they are hidden (so a restore shows them again whatever stopped where),
    // and after each step the guard read again: a restore that began meanwhile wins,
    // and this call undoes what it did and answers 503.
    let mut version = version;
    // Indexed on every board first (left out of every snapshot run from now on), then
    // hidden from the snapshots taken: their pointers' entries are written after the
    // index, so a run that began reading before one carries it on (see
    // `snapshot::write`).
    let indexed = crate::boards::suspended::list(store, player_id, boards).await?;
    if let Err(e) = still_suspended(store, player_id, &g).await {
        // Overtaken (a restore, a deletion) between the keys' read and their write:
        // the player may have moved since, so their current entries no longer name
        // what was written; these very keys are taken back.
        store.delete_items(&indexed).await?;
        return Err(e);
    }
    for (taken, (i, board)) in boards.iter().enumerate().skip(g.hidden_through).enumerate() {
        if budget.stops_after(taken as u32) {
            // Out of budget: how far it got is saved, and the rest is left to the next
            // call (every board before `i` is hidden).
            g.hidden_through = i;
            record(store, player_id, &mut g, version).await?;
            return Ok(SuspensionAnswer {
                state: "suspended".into(),
                suspension: Some(g.suspension),
                released: None,
                unchanged,
                done: false,
            });
        }
        let views = crate::boards::hidden::views(store, board, player_id).await?;
        let new: Vec<String> = views
            .iter()
            .map(|v| v.board.key())
            .filter(|b| !g.suspension.hidden_from.contains(b))
            .collect();
        if !new.is_empty() {
            g.suspension.hidden_from.extend(new);
            version = record(store, player_id, &mut g, version).await?;
        }
        crate::boards::hidden::hide_in(store, views, player_id, now).await?;
        still_suspended(store, player_id, &g).await?;
    }
    if g.hidden_through < boards.len() {
        g.hidden_through = boards.len();
        record(store, player_id, &mut g, version).await?;
    }
    // LB-5: the boards refreshed only when changed re-rank without them at the next
    // refresh (a write unit each), as a restore's marks list them again.
    crate::engine::changes::raise_for(store, boards, player_id, now.timestamp_millis()).await?;
    let suspension = g.suspension;
    // The same action's entry (same instant and id) on every repeat.
    audit::append(store, &suspend_entry(player_id, &suspension)).await?;
    Ok(SuspensionAnswer {
        state: "suspended".into(),
        suspension: Some(suspension),
        released: None,
        unchanged,
        done: true,
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
    restore_within(
        store,
        player_id,
        (operator, reason),
        now,
        policy,
        Budget::unbounded(),
    )
    .await
}

/// [`restore`] within `budget`: the restore recorded in the guard and audited first
/// (OP-5), then the player shown again board by board, each a step; a call that stops
/// at its budget saves how far it got and answers `done` false (state `restoring`: the
/// player's calls are still refused and their records still held), and the next call
/// resumes. Once every board shows them: off the list, the boards marked changed, the
/// guard removed, the held records settled. Errors as [`restore`]'s.
pub async fn restore_within<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
    policy: &RecordPolicy,
    budget: Budget,
) -> Result<SuspensionAnswer, ServiceError> {
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let Some((mut g, mut version)) = guard(store, player_id).await? else {
        // Not suspended: an earlier restore that stopped after removing the guard
        // (its audit entry written) left held records to settle; finish them.
        let released = super::review::release(store, player_id, (operator, &reason), now, policy).await?;
        if released == 0 {
            return Err(ServiceError::NotFound("the player is not suspended".into()));
        }
        return Ok(SuspensionAnswer {
            state: "active".into(),
            suspension: None,
            released: Some(released),
            unchanged: false,
            done: true,
        });
    };
    if g.restoring.is_none() {
        if now > g.suspension.restorable_until {
            return Err(ServiceError::StateConflict {
                field: "player_id",
                rule: "OP-4",
                message: "past the restore window; the suspension can only become a deletion".into(),
            });
        }
        // The restore begins: recorded in the guard, so that a suspension repeated
        // meanwhile hides nothing more, and a repeat of this call finishes it as begun.
        g.restoring = Some(Restoring {
            at: now,
            operator: operator.to_string(),
            reason: reason.clone(),
            shown: 0,
        });
        version = write_guard(store, player_id, &g, version).await?;
    }
    let began = g
        .restoring
        .clone()
        .ok_or(ServiceError::Contended { attempts: 1 })?;
    // OP-5: the same entry (instant and id) on every repeat of this restore, written
    // before any effect; its id is the suspension's, marked as its restore.
    audit::append(
        store,
        &AuditEntry {
            id: format!("{player_id}@{}/restore", g.suspension.since.timestamp_millis()),
            at: began.at,
            operator: began.operator.clone(),
            action: action::RESTORE.into(),
            target: player_id.to_string(),
            player_id: Some(player_id.to_string()),
            players: Vec::new(),
            reason: began.reason.clone(),
            changes: serde_json::json!({"suspended_since": g.suspension.since}),
        },
    )
    .await?;
    // Shown again, off the list, the boards marked changed (the next refresh lists
    // them, LB-5): all safe to repeat, and done while the guard still holds their
    // records back. Then the guard goes, and the held records are settled.
    for (taken, (i, b)) in g
        .suspension
        .hidden_from
        .iter()
        .enumerate()
        .skip(began.shown)
        .enumerate()
    {
        if budget.stops_after(taken as u32) {
            let mut saved = g.clone();
            if let Some(r) = saved.restoring.as_mut() {
                r.shown = i;
            }
            write_guard(store, player_id, &saved, version).await?;
            return Ok(SuspensionAnswer {
                state: "restoring".into(),
                suspension: Some(g.suspension),
                released: None,
                unchanged: false,
                done: false,
            });
        }
        if let Some((board, period)) = b.split_once('@') {
            crate::boards::hidden::show(store, &BoardRef::new(board, period), player_id).await?;
        }
    }
    let (boards, _, refs) = boards_and_holdings(store, player_id).await?;
    crate::boards::suspended::unlist(store, player_id, &boards).await?;
    // TM-7: their points given back to their teams' entries.
    crate::teams::withholding::apply(store, player_id, &refs, false, g.suspension.since, now).await?;
    for board in boards {
        if let Some(mark) = crate::engine::changes::mark_for(&board, player_id, now.timestamp_millis()) {
            crate::engine::changes::raise(store, &mark).await?;
        }
    }
    if !store.delete_item_if(&tombstone_key(player_id), version).await? {
        return Err(ServiceError::Contended { attempts: 1 });
    }
    let released =
        super::review::release(store, player_id, (&began.operator, &began.reason), now, policy).await?;
    g.restoring = None;
    Ok(SuspensionAnswer {
        state: "active".into(),
        suspension: Some(g.suspension),
        released: Some(released),
        unchanged: false,
        done: true,
    })
}

/// Writes guard `g` over the one at `version` (a restore's progress); answers the new
/// version. Errors: [`ServiceError::Contended`] when the guard moved meanwhile (the
/// call is repeated, and resumes).
async fn write_guard<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    g: &Guard,
    version: u64,
) -> Result<u64, ServiceError> {
    let body = serde_json::to_vec(g).map_err(|e| corrupt("suspension", e))?;
    if !store
        .put_item_if(&tombstone_key(player_id), &body, version)
        .await?
    {
        return Err(ServiceError::Contended { attempts: 1 });
    }
    Ok(version + 1)
}

/// The audit entry (OP-5) of `suspension`: one id per suspension (its player and
/// instant), so every write of it is the same entry, the last one complete.
fn suspend_entry(player_id: &str, suspension: &Suspension) -> AuditEntry {
    AuditEntry {
        id: format!("{player_id}@{}", suspension.since.timestamp_millis()),
        at: suspension.since,
        operator: suspension.operator.clone(),
        action: action::SUSPEND.into(),
        target: player_id.to_string(),
        player_id: Some(player_id.to_string()),
        players: Vec::new(),
        reason: suspension.reason.clone(),
        changes: serde_json::json!({"hidden_from": suspension.hidden_from, "restorable_until": suspension.restorable_until}),
    }
}

fn restore_under_way() -> ServiceError {
    ServiceError::Contended { attempts: 1 }
}

/// Writes `g` (the boards about to be hidden added) over the guard at `version`;
/// answers the new version. A guard another suspend call changed meanwhile is merged
/// with and written again; one a restore began on, or removed, is not: what this
/// call hid is shown again and it answers 409 ([`overtaken`]).
async fn record<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    g: &mut Guard,
    mut version: u64,
) -> Result<u64, ServiceError> {
    let key = tombstone_key(player_id);
    for _ in 0..10 {
        let body = serde_json::to_vec(&*g).map_err(|e| corrupt("suspension", e))?;
        if store.put_item_if(&key, &body, version).await? {
            return Ok(version + 1);
        }
        match guard(store, player_id).await? {
            Some((stored, v))
                if stored.restoring.is_none() && stored.suspension.since == g.suspension.since =>
            {
                for b in stored.suspension.hidden_from {
                    if !g.suspension.hidden_from.contains(&b) {
                        g.suspension.hidden_from.push(b);
                    }
                }
                g.hidden_through = g.hidden_through.max(stored.hidden_through);
                version = v;
            }
            found => {
                overtaken(store, player_id, g, found.map(|(s, _)| s)).await?;
                return Err(restore_under_way());
            }
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// Checks that the guard still holds `g`'s suspension, no restore begun on it; if a
/// restore began (or ended), shows `player_id` again where this call hid them and
/// answers 409 ([`overtaken`]).
async fn still_suspended<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    g: &Guard,
) -> Result<(), ServiceError> {
    match guard(store, player_id).await? {
        Some((stored, _)) if stored.restoring.is_none() && stored.suspension.since == g.suspension.since => {
            Ok(())
        }
        found => overtaken(store, player_id, g, found.map(|(s, _)| s)).await,
    }
}

/// A suspension call overtaken: by a restore of its suspension (or one that ended it),
/// whose hiding it undoes; or by a newer suspension, which owns the hiding now. The
/// suspension did hold (it is audited) until the restore lifted it: 409 naming
/// `player_id`, not a 503 that would say nothing was done.
async fn overtaken<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    g: &Guard,
    stored: Option<Guard>,
) -> Result<(), ServiceError> {
    let newer = stored.is_some_and(|s| s.restoring.is_none() && s.suspension.since != g.suspension.since);
    if !newer {
        undo(store, player_id, g).await?;
    }
    Err(ServiceError::StateConflict {
        field: "player_id",
        rule: "OP-4",
        message: "a restore lifted this suspension while it was being applied (both are in the audit trail)"
            .into(),
    })
}

/// Shows `player_id` again on every board `g` records and takes them off the boards'
/// indexes (a suspension overtaken by a restore). Safe to repeat.
async fn undo<S: Store + ?Sized>(store: &S, player_id: &str, g: &Guard) -> Result<(), ServiceError> {
    for b in &g.suspension.hidden_from {
        if let Some((board, period)) = b.split_once('@') {
            crate::boards::hidden::show(store, &BoardRef::new(board, period), player_id).await?;
        }
    }
    crate::boards::suspended::unlist(store, player_id, &boards_of(store, player_id).await?).await
}

/// Whether `player_id` is suspended, with the suspension.
pub async fn of_player<S: podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<Option<Suspension>, ServiceError> {
    Ok(guard(store, player_id).await?.map(|(g, _)| g.suspension))
}

/// GM-6: a player being deleted (their guard became a tombstone) leaves the indexes
/// of suspended players, before their entries are erased (while their board keys are
/// those indexed). Safe to repeat.
pub async fn forget<S: SettleStore + podium_store::ItemStore + ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<(), ServiceError> {
    crate::boards::suspended::unlist(store, player_id, &boards_of(store, player_id).await?).await
}
