//! Deleting a player (GM-6, account removal): "removes them from every board,
//! snapshot and period, and anonymises their ledger; reads never show them again."
//!
//! [`delete_player`] runs these steps, each safe to repeat, so a run that stops midway
//! is finished by running it again:
//!
//! 1. **Tombstone first.** The item `DELETED#{player}` / `TOMBSTONE`
//!    ([`podium_store::tombstone_key`]) is written in state `deleting` (only if absent).
//!    From then on every commit naming the player fails: each commit checks the
//!    tombstone of every player it writes or names, in the same transaction
//!    ([`podium_store::Commit::players`]), so a record racing the deletion either
//!    committed before the tombstone (and step 2 sees what it wrote) or is refused
//!    with `GM-6`, writing nothing.
//! 2. **Inventory.** The player's holdings are read (strongly consistent): balances,
//!    period entries (every board and period: all-time boards, Mahjong level rankings
//!    `mahjong-level-N`, weekly, daily, tournament boards), ledger entries, claims and
//!    state items. The boards they stand on and the sources their ledger names are
//!    added to the tombstone (so a rerun still knows them once the entries are gone).
//! 3. **Snapshots.** Each of those boards' current snapshot pointer (the current
//!    snapshot, or a past period's frozen `final`) records the player's
//!    [`id_hash`] as erased and raises its revision: every read of any snapshot of
//!    the board (top pages, cursor walks pinned to an older snapshot, around-me)
//!    leaves the player out, and top pages rendered before are not served again.
//!    Ranks of the others stay as the snapshot has them (a gap where the player
//!    stood) until the next refresh re-ranks the board; a frozen period keeps its
//!    ranks (its prizes were paid by them). Processes that cached the pointer see the
//!    erasure within [`crate::boards::pages::CACHE_TTL`] (30 s).
//! 4. **Results.** Each stored source their ledger names (matches, Arenas, tables,
//!    rewards) whose result document mentions the id gets the id replaced by the
//!    [`pseudonym`]: the opponent's `GET /v1/me/matches/{id}` still shows the match,
//!    with the pseudonym in place of the deleted id.
//! 5. **Erasure.** The ledger moves to the pseudonym's partition (each entry with its
//!    player replaced; the applied deltas kept, so totals stay auditable), and every
//!    balance, period entry (off every live board), claim and state item of the player
//!    is deleted, with their profile, friend list and the records of their profile
//!    changes ([`crate::profiles::erase_changes`]: at once, not when they expire).
//! 6. The tombstone is set to state `deleted`.
//!
//! Afterwards the player's own reads answer 404 (`GET /v1/me`, around-me, Mahjong
//! profile), and later records naming them are refused (`GM-6`). The tombstone stays
//! (it holds no personal data beyond the id it is keyed by, which is what refuses
//! later records).

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_store::{
    balance_board, tombstone_key, ErasureStore, ItemStore, SettleStore, SourceKey, StoreError,
};
use serde::{Deserialize, Serialize};

use std::collections::HashSet;

use super::deletion_lists as lists;
use crate::budget::Budget;
use crate::engine::names::pseudonym;
use crate::engine::names::rename_in_key;
use crate::engine::names::replace_id;
use crate::engine::names::replace_id_in_state;
use crate::error::ServiceError;

/// A deletion's progress, the tombstone's body (JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tombstone {
    /// `deleting` until every step is done, then `deleted`.
    pub state: String,
    /// When the deletion started (UTC).
    pub started_at: Option<DateTime<Utc>>,
    /// When it finished.
    #[serde(default)]
    pub deleted_at: Option<DateTime<Utc>>,
    /// Written by an earlier version: the lists held inline (moved beside the
    /// tombstone by the next call, [`super::deletion_lists`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<(String, String)>,
    /// Whether what the player holds is listed beside the tombstone
    /// ([`super::deletion_lists`]): the boards (`{board}@{period}`) they stood on,
    /// whose snapshots are erased; the sources (`kind`, `id`) their ledger names or
    /// whose results name them, anonymised; others' state items (`owner`, `name`) that
    /// name them (league member lists, tournament winners, inboxes), anonymised too.
    #[serde(default)]
    pub listed: bool,
    /// How many boards, sources and states are listed.
    #[serde(default)]
    pub boards_n: usize,
    #[serde(default)]
    pub sources_n: usize,
    #[serde(default)]
    pub states_n: usize,
    /// How many of the boards have their snapshots erased, and of the sources are
    /// anonymised: a deletion that stopped at its budget resumes after them.
    #[serde(default)]
    pub erased_through: usize,
    #[serde(default)]
    pub anonymised_through: usize,
}

/// The state of a finished deletion.
pub const DELETED: &str = "deleted";
/// The state of a deletion under way.
pub const DELETING: &str = "deleting";

/// What [`delete_player`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DeletionReport {
    /// The pseudonym that now stands for the player.
    pub pseudonym: String,
    /// True when the player had been deleted before: nothing was done.
    pub already_deleted: bool,
    /// True when an earlier call had started this deletion (this call finished it).
    pub resumed: bool,
    /// Balances removed (one per game).
    pub balances: usize,
    /// Period-board entries removed.
    pub entries: usize,
    /// Ledger entries moved to the pseudonym.
    pub ledger_entries: usize,
    /// Claims and state items removed.
    pub claims: usize,
    pub states: usize,
    /// Boards (`{board}@{period}`) whose current snapshot now leaves the player out.
    pub snapshots: Vec<String>,
    /// Stored results whose mention of the player was replaced by the pseudonym.
    pub results: usize,
    /// False when the call stopped at its budget with work left (the player is
    /// refused everywhere from the tombstone on, but not yet erased from every board
    /// and result): the next ticks carry it on ([`crate::operators::player_actions`]),
    /// and asking again joins it.
    pub done: bool,
}

/// Sources a ledger entry may stand for: its own source name, and the kinds its
/// game's records are stored under (a ledger names `match`, the Dots and Boxes
/// record is stored under `dots-and-boxes`; a level's ledger names `level`, its
/// record `level-completion`). Only results that mention the player are rewritten.
pub(crate) fn candidate_kinds(e: &podium_rules::settlement::LedgerEntry) -> Vec<String> {
    use podium_rules::mahjong::{completion, quick_match};
    let mut kinds = vec![e.source.clone(), e.game.id().to_string()];
    for k in [crate::games::seega::MATCH, quick_match::KIND, completion::KIND] {
        kinds.push(k.to_string());
    }
    kinds.dedup();
    let mut out: Vec<String> = Vec::new();
    for k in kinds {
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The source `kind`/`id` a reference names, or, when another deletion renamed it
/// since (its key named that other player too), where it is now.
pub(crate) async fn find_source<S: SettleStore + ?Sized>(
    store: &S,
    kind: &str,
    id: &str,
    player_id: &str,
) -> Result<Option<(SourceKey, podium_store::StoredSource)>, ServiceError> {
    let key = SourceKey::new(kind, id);
    if let Some(stored) = store.get_source(&key).await? {
        return Ok(Some((key, stored)));
    }
    for part in id.split([':', '/']) {
        if part == player_id
            || !podium_rules::record::ids::is_valid_id(part)
            || !store.is_deleted(part).await?
        {
            continue;
        }
        let moved = SourceKey::new(kind, rename_in_key(id, part, &pseudonym(part)));
        if let Some(stored) = store.get_source(&moved).await? {
            return Ok(Some((moved, stored)));
        }
    }
    Ok(None)
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(StoreError::corrupt(what, e))
}

/// Deletes `player_id` (GM-6; see the module notes for the steps). Answers what was
/// removed, or [`DeletionReport::already_deleted`] when an earlier call finished;
/// an interrupted earlier call is finished ([`DeletionReport::resumed`]).
///
/// Errors: [`ServiceError::BadRequest`] (`player_id` is not a valid id), the
/// transient [`ServiceError::Store`] and [`ServiceError::Contended`] (run it again:
/// it resumes).
pub async fn delete_player<S: SettleStore + ItemStore + ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<DeletionReport, ServiceError> {
    delete_player_within(store, player_id, now, Budget::unbounded()).await
}

/// [`delete_player`] within `budget`: the tombstone and the inventory first, then the
/// boards' snapshots and the results one by one, each a step; a call that stops at its
/// budget saves how far it got in the tombstone and answers
/// [`DeletionReport::done`] false, and the next call resumes after what is done.
/// Errors as [`delete_player`]'s.
pub async fn delete_player_within<S: SettleStore + ItemStore + ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<DeletionReport, ServiceError> {
    // GM-5, GM-6: an internal owner (a league's member list, a tournament) or a
    // pseudonym is no account: deleting it would erase what belongs to others.
    podium_rules::record::ids::check_player_id("player_id", player_id)?;
    let key = tombstone_key(player_id);
    let mut report = DeletionReport {
        pseudonym: pseudonym(player_id),
        ..DeletionReport::default()
    };
    // 1. The tombstone, first: no commit naming the player lands after it.
    let existed = store.get_item(&key, true).await?;
    let suspended = existed
        .as_ref()
        .is_some_and(|i| podium_store::Account::of_guard(Some(&i.body)) == podium_store::Account::Suspended);
    report.resumed = existed.is_some() && !suspended;
    let (mut tomb, mut version) = match existed {
        // A suspended player (OP-4): the deletion takes over the guard.
        Some(item) if suspended => {
            let t = Tombstone {
                state: DELETING.into(),
                started_at: Some(now),
                ..Tombstone::default()
            };
            let body = serde_json::to_vec(&t).map_err(|e| corrupt(&key.pk, e))?;
            if !store.put_item_if(&key, &body, item.version).await? {
                return Err(ServiceError::Contended { attempts: 1 });
            }
            (t, item.version + 1)
        }
        Some(item) => {
            let t: Tombstone = serde_json::from_slice(&item.body).map_err(|e| corrupt(&key.pk, e))?;
            (t, item.version)
        }
        None => {
            let t = Tombstone {
                state: DELETING.into(),
                started_at: Some(now),
                ..Tombstone::default()
            };
            let body = serde_json::to_vec(&t).map_err(|e| corrupt(&key.pk, e))?;
            if !store.put_item_if(&key, &body, 0).await? {
                return Err(ServiceError::Contended { attempts: 1 });
            }
            (t, 1)
        }
    };
    if tomb.state == DELETED {
        report.already_deleted = true;
        report.resumed = false;
        report.done = true;
        return Ok(report);
    }
    // 2. What the player holds, listed beside the tombstone once (a list an earlier
    // version held inline first, in its order, so its progress still counts).
    let holdings = store.holdings(player_id).await?;
    if !tomb.listed {
        let mut boards: Vec<String> = std::mem::take(&mut tomb.boards);
        let mut sources: Vec<(String, String)> = std::mem::take(&mut tomb.sources);
        let mut states: Vec<(String, String)> = std::mem::take(&mut tomb.states);
        let mut seen_boards: HashSet<String> = boards.iter().cloned().collect();
        let mut seen_sources: HashSet<(String, String)> = sources.iter().cloned().collect();
        let mut seen_states: HashSet<(String, String)> = states.iter().cloned().collect();
        let held = holdings
            .balances
            .iter()
            .filter_map(|g| balance_board(*g))
            .chain(holdings.entries.iter().cloned());
        for b in held {
            if seen_boards.insert(b.key()) {
                boards.push(b.key());
            }
        }
        for e in &holdings.ledger {
            for kind in candidate_kinds(e) {
                let s = (kind, e.source_id.clone());
                if seen_sources.insert(s.clone()) {
                    sources.push(s);
                }
            }
        }
        // Every other item that names them: the references its commit wrote.
        for r in &holdings.refs {
            match r {
                podium_store::Named::Source { kind, id } => {
                    let s = (kind.clone(), id.clone());
                    if seen_sources.insert(s.clone()) {
                        sources.push(s);
                    }
                }
                podium_store::Named::State { owner, name } => {
                    let s = (owner.clone(), name.clone());
                    if seen_states.insert(s.clone()) {
                        states.push(s);
                    }
                }
            }
        }
        tomb.boards_n = lists::write(store, player_id, lists::BOARDS, &boards).await?;
        tomb.sources_n = lists::write(store, player_id, lists::SOURCES, &sources).await?;
        tomb.states_n = lists::write(store, player_id, lists::STATES, &states).await?;
        tomb.listed = true;
        let body = serde_json::to_vec(&tomb).map_err(|e| corrupt(&key.pk, e))?;
        if !store.put_item_if(&key, &body, version).await? {
            return Err(ServiceError::Contended { attempts: 1 });
        }
        version += 1;
    }
    let mut boards = lists::Reader::<String>::new(player_id, lists::BOARDS);
    let mut sources = lists::Reader::<(String, String)>::new(player_id, lists::SOURCES);
    let mut states = lists::Reader::<(String, String)>::new(player_id, lists::STATES);
    // 3. Every snapshot of those boards leaves the player out, one board a step.
    let mut taken = 0;
    for i in tomb.erased_through..tomb.boards_n {
        if budget.stops_after(taken) {
            tomb.erased_through = i;
            save_progress(store, &key, &tomb, version).await?;
            return Ok(report);
        }
        taken += 1;
        let Some(b) = boards.get(store, i).await? else {
            continue;
        };
        let Some((board, period)) = b.split_once('@') else {
            continue;
        };
        if crate::boards::snapshot::write::erase_player(store, &BoardRef::new(board, period), player_id, now)
            .await?
        {
            report.snapshots.push(b.clone());
        }
    }
    tomb.erased_through = tomb.boards_n;
    // 4. Others' results no longer show the id, one a step.
    for i in tomb.anonymised_through..tomb.sources_n {
        if budget.stops_after(taken) {
            tomb.anonymised_through = i;
            save_progress(store, &key, &tomb, version).await?;
            return Ok(report);
        }
        taken += 1;
        let Some((kind, id)) = sources.get(store, i).await? else {
            continue;
        };
        let kind = &kind;
        let Some((skey, stored)) = find_source(store, kind, &id, player_id).await? else {
            continue;
        };
        let id = &skey.id;
        let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(&stored.result) else {
            continue;
        };
        let named = replace_id(&mut doc, player_id, &report.pseudonym);
        let text = serde_json::to_string(&doc).map_err(|e| corrupt(&stored.content_hash, e))?;
        // A key that names them (a registration's `{tournament}/{player}`, a bonus's
        // `{player}:{day}`) is renamed too.
        let renamed = rename_in_key(id, player_id, &report.pseudonym);
        if renamed != *id {
            if store
                .move_source(&skey, &SourceKey::new(kind.clone(), renamed), &text)
                .await?
            {
                report.results += 1;
            }
        } else if named && store.replace_source_result(&skey, &text).await? {
            report.results += 1;
        }
    }
    for i in 0..tomb.states_n {
        let Some((owner, name)) = states.get(store, i).await? else {
            continue;
        };
        if anonymise_state(store, &owner, &name, player_id, &report.pseudonym).await? {
            report.results += 1;
        }
    }
    // 5. Off the boards' indexes of suspended players (OP-4) while their entries
    // still say where; then the ledger to the pseudonym; balances, entries, claims and
    // states gone, and the opt-ins to `overtaken` messages
    // ([`crate::players::overtaken`]).
    crate::moderation::suspensions::forget(store, player_id).await?;
    store.erase_holdings(player_id, &report.pseudonym).await?;
    store
        .delete_items(&crate::players::overtaken::follow_keys(player_id))
        .await?;
    // The profile and friend list (PF-1 … PF-4), and the records of their profile
    // changes (PF-5), which would otherwise name them until they expire.
    store.delete_items(&crate::profiles::keys_of(player_id)).await?;
    crate::profiles::erase_changes(store, player_id).await?;
    // The audit trail keeps only the fact of each action about them (OP-5).
    crate::moderation::review::forget_player(store, player_id, &report.pseudonym).await?;
    crate::engine::unapplied::forget(store, player_id).await?;
    super::dry_runs::forget_player(store, player_id).await?;
    super::previews::forget_player(store, player_id).await?;
    crate::moderation::audit::erase_player(store, player_id, &report.pseudonym).await?;
    report.balances = holdings.balances.len();
    report.entries = holdings.entries.len();
    report.ledger_entries = holdings.ledger.len();
    report.claims = holdings.claims;
    report.states = holdings.states;
    // Boards refreshed only when changed (LB-5) learn of it: the next refresh re-ranks.
    for i in 0..tomb.boards_n {
        let Some(b) = boards.get(store, i).await? else {
            continue;
        };
        if let Some((board, period)) = b.split_once('@') {
            let board = BoardRef::new(board, period);
            if let Some(mark) = crate::engine::changes::mark_for(&board, player_id, now.timestamp_millis()) {
                crate::engine::changes::raise(store, &mark).await?;
            }
        }
    }
    // 6. The pseudonym is no account: its own tombstone refuses any record naming it
    // (GM-6), so no one can score as it (an existing one is kept).
    let alias = Tombstone {
        state: DELETED.into(),
        started_at: Some(now),
        deleted_at: Some(now),
        ..Tombstone::default()
    };
    let body = serde_json::to_vec(&alias).map_err(|e| corrupt(&key.pk, e))?;
    store
        .put_item_if(&tombstone_key(&report.pseudonym), &body, 0)
        .await?;
    // 7. Done: the lists, whose keys name the player, removed.
    lists::remove(
        store,
        player_id,
        &[
            (lists::BOARDS, tomb.boards_n),
            (lists::SOURCES, tomb.sources_n),
            (lists::STATES, tomb.states_n),
        ],
    )
    .await?;
    tomb.state = DELETED.into();
    tomb.deleted_at = Some(now);
    let body = serde_json::to_vec(&tomb).map_err(|e| corrupt(&key.pk, e))?;
    if !store.put_item_if(&key, &body, version).await? {
        return Err(ServiceError::Contended { attempts: 1 });
    }
    report.done = true;
    Ok(report)
}

/// Saves a deletion's progress in its tombstone `key` (at `version`). Errors:
/// [`ServiceError::Contended`] when another call moved it meanwhile (repeat: it
/// resumes from what that call saved).
async fn save_progress<S: ItemStore + ?Sized>(
    store: &S,
    key: &podium_store::ItemKey,
    tomb: &Tombstone,
    version: u64,
) -> Result<(), ServiceError> {
    let body = serde_json::to_vec(tomb).map_err(|e| corrupt(&key.pk, e))?;
    if !store.put_item_if(key, &body, version).await? {
        return Err(ServiceError::Contended { attempts: 1 });
    }
    Ok(())
}

/// Replaces `player_id` by `pseudonym` in `owner`'s state item `name`, at the version
/// read (read again when a commit moved it meanwhile). True when it named them.
async fn anonymise_state<S: SettleStore + ErasureStore + ?Sized>(
    store: &S,
    owner: &str,
    name: &str,
    player_id: &str,
    pseudonym: &str,
) -> Result<bool, ServiceError> {
    for _ in 0..10 {
        let Some(state) = store.get_state(owner, name).await? else {
            return Ok(false);
        };
        let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(&state.body) else {
            return Ok(false);
        };
        if !replace_id_in_state(&mut doc, player_id, pseudonym) {
            return Ok(false);
        }
        let text = serde_json::to_string(&doc).map_err(|e| corrupt(name, e))?;
        if store.replace_state(owner, name, &text, state.version).await? {
            return Ok(true);
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// [`delete_player`], for an operator: unless `even_if_unknown`, an id under which
/// nothing is stored and that was never deleted is refused with
/// [`ServiceError::NotFound`] and nothing is written, so that a mistyped id does not
/// block that id for good (GM-6). With `even_if_unknown`, the id is blocked ahead.
pub async fn delete_known_player<S: SettleStore + ItemStore + ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
    now: DateTime<Utc>,
    even_if_unknown: bool,
) -> Result<DeletionReport, ServiceError> {
    check_known(store, player_id, even_if_unknown).await?;
    delete_player(store, player_id, now).await
}

/// The refusal of [`delete_known_player`]: an id nothing is stored under and that was
/// never deleted, unless `even_if_unknown`. Answers the player's tombstone: `None`
/// (no deletion begun: none, or a suspension's guard), `Some(false)` (a deletion under
/// way), `Some(true)` (their deletion finished). Errors: `BadRequest` (not a player id),
/// [`ServiceError::NotFound`], the store's.
async fn check_known<S: SettleStore + ItemStore + ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
    even_if_unknown: bool,
) -> Result<Option<bool>, ServiceError> {
    podium_rules::record::ids::check_player_id("player_id", player_id)?;
    let tomb = store.get_item(&tombstone_key(player_id), true).await?;
    if !even_if_unknown && tomb.is_none() && store.holdings(player_id).await?.is_empty() {
        return Err(ServiceError::NotFound(
            "no such player: nothing is stored under this id and nothing was deleted \
             (to block the id ahead, or to erase an account that holds only a profile, \
             delete it with `even_if_unknown`)"
                .into(),
        ));
    }
    Ok(tomb
        .filter(|item| podium_store::Account::of_guard(Some(&item.body)) != podium_store::Account::Suspended)
        .map(|item| serde_json::from_slice::<Tombstone>(&item.body).is_ok_and(|t| t.state == DELETED)))
}

/// [`delete_known_player`] by `operator` with `reason` (OP-5), the operator route's and
/// `podium delete-player`'s: the audit trail keeps the fact of the deletion, under the
/// pseudonym, in the pseudonym's own trail too (where the facts of the entries about
/// the player, erased with them, now stand: GM-6). Errors: those of
/// [`delete_known_player`]; `Invalid` for the reason.
pub async fn delete_by_operator<S: SettleStore + ItemStore + ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
    even_if_unknown: bool,
) -> Result<DeletionReport, ServiceError> {
    delete_by_operator_within(
        store,
        player_id,
        (operator, reason),
        now,
        even_if_unknown,
        Budget::unbounded(),
    )
    .await
}

/// [`delete_by_operator`] within `budget` ([`delete_player_within`]): the audit entry
/// is written before anything is deleted (OP-5), so a deletion stopped anywhere has it.
pub async fn delete_by_operator_within<S: SettleStore + ItemStore + ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
    even_if_unknown: bool,
    budget: Budget,
) -> Result<DeletionReport, ServiceError> {
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let tombstone = check_known(store, player_id, even_if_unknown).await?;
    let alias = pseudonym(player_id);
    if tombstone.is_some() {
        // A deletion under way, or finished: its first request's entry stands, and this
        // one joins it (or answers `already_deleted`, changing nothing).
        return delete_player_within(store, player_id, now, budget).await;
    }
    // The deletion's entry has the pseudonym for its id: requests sent at one instant,
    // before any of them wrote the tombstone, write one entry (OP-5).
    crate::moderation::audit::append(
        store,
        &crate::moderation::audit::AuditEntry {
            id: alias.clone(),
            at: now,
            operator: operator.to_string(),
            action: crate::moderation::audit::action::DELETE.into(),
            target: alias.clone(),
            player_id: Some(alias.clone()),
            players: Vec::new(),
            reason,
            changes: serde_json::json!({"already_deleted": false}),
        },
    )
    .await?;
    delete_player_within(store, player_id, now, budget).await
}

/// Whether `player_id` was deleted (or is being deleted): their tombstone exists (GM-6).
pub async fn is_deleted<S: SettleStore + ?Sized>(store: &S, player_id: &str) -> Result<bool, ServiceError> {
    Ok(store.is_deleted(player_id).await?)
}
