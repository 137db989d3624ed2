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
//!    erasure within [`crate::snapshot_reads::CACHE_TTL`] (30 s).
//! 4. **Results.** Each stored source their ledger names (matches, Arenas, tables,
//!    rewards) whose result document mentions the id gets the id replaced by the
//!    [`pseudonym`]: the opponent's `GET /v1/me/matches/{id}` still shows the match,
//!    with the pseudonym in place of the deleted id.
//! 5. **Erasure.** The ledger moves to the pseudonym's partition (each entry with its
//!    player replaced; the applied deltas kept, so totals stay auditable), and every
//!    balance, period entry (off every live board), claim and state item of the player
//!    is deleted.
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

use crate::error::ServiceError;

/// The first 16 hex digits of SHA-256 of a player id: what stands for a deleted
/// player in snapshots ([`crate::snapshot::Erased`]) and in [`pseudonym`].
pub fn id_hash(player_id: &str) -> String {
    let mut h = crate::period_boards::hex_sha256(player_id);
    h.truncate(16);
    h
}

/// The stable pseudonym that replaces a deleted player's id in their ledger and in
/// others' match results: `deleted-{first 16 hex digits of SHA-256(id)}`, of the form
/// reserved for it ([`podium_rules::record::is_reserved_id`]): no caller and no record
/// may use it.
pub fn pseudonym(player_id: &str) -> String {
    format!("{}{}", podium_rules::record::RESERVED_PREFIX, id_hash(player_id))
}

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
    /// Boards (`{board}@{period}`) the player stood on: their snapshots are erased.
    #[serde(default)]
    pub boards: Vec<String>,
    /// Sources (`kind`, `id`) the player's ledger names, or whose results name them
    /// (their references): their results are anonymised.
    #[serde(default)]
    pub sources: Vec<(String, String)>,
    /// Others' state items (`owner`, `name`) that name the player (their references:
    /// league member lists, tournament winners, inboxes): anonymised too.
    #[serde(default)]
    pub states: Vec<(String, String)>,
}

/// The state of a finished deletion.
pub const DELETED: &str = "deleted";
/// The state of a deletion under way.
pub const DELETING: &str = "deleting";

/// What [`delete_player`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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
}

/// Sources a ledger entry may stand for: its own source name, and the kinds its
/// game's records are stored under (a ledger names `match`, the Dots and Boxes
/// record is stored under `dots-and-boxes`; a level's ledger names `level`, its
/// record `level-completion`). Only results that mention the player are rewritten.
fn candidate_kinds(e: &podium_rules::settlement::LedgerEntry) -> Vec<String> {
    use podium_rules::mahjong::{completion, quick_match};
    let mut kinds = vec![e.source.clone(), e.game.id().to_string()];
    for k in [crate::score::MATCH, quick_match::KIND, completion::KIND] {
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

/// Keys whose string value is a player id in a stored result.
const ID_KEYS: &[&str] = &["player_id", "winner", "resigned", "player", "user_id"];
/// Keys whose array holds player ids, alone or first in a pair (`[id, value]`).
const ID_LIST_KEYS: &[&str] = &["players", "times", "tp", "registered", "order", "members"];

/// Whether `key` names an id that may hold a player id as a `:`-separated part
/// (`{player}:{day}`): `*_id` keys and `claim`, `source`, `id`. Timestamps, statuses
/// and other values are never touched, whatever they hold.
fn composite_key(key: &str) -> bool {
    (key.ends_with("_id") && !ID_KEYS.contains(&key)) || matches!(key, "claim" | "source" | "id")
}

/// Replaces `from` by `to` where a stored result names a player: the values of
/// [`ID_KEYS`], the elements (or pairs' first elements) of [`ID_LIST_KEYS`], and
/// `:`-separated parts of [`composite_key`] values. Answers whether anything changed.
fn replace_id(v: &mut serde_json::Value, from: &str, to: &str) -> bool {
    replace_in(v, None, from, to)
}

fn replace_in(v: &mut serde_json::Value, key: Option<&str>, from: &str, to: &str) -> bool {
    use serde_json::Value;
    match v {
        Value::String(s) => match key {
            Some(k) if ID_KEYS.contains(&k) && s == from => {
                *s = to.to_string();
                true
            }
            Some(k) if composite_key(k) && s.split(':').any(|part| part == from) => {
                *s = s
                    .split(':')
                    .map(|part| if part == from { to } else { part })
                    .collect::<Vec<_>>()
                    .join(":");
                true
            }
            _ => false,
        },
        Value::Array(a) => {
            let list = key.is_some_and(|k| ID_LIST_KEYS.contains(&k));
            // Every element is visited (no short circuit): each mention is replaced.
            a.iter_mut()
                .map(|x| match x {
                    Value::String(s) if list && s == from => {
                        *s = to.to_string();
                        true
                    }
                    Value::Array(pair) if list => match pair.first_mut() {
                        Some(Value::String(s)) if s == from => {
                            *s = to.to_string();
                            true
                        }
                        _ => false,
                    },
                    other => replace_in(other, None, from, to),
                })
                .filter(|changed| *changed)
                .count()
                > 0
        }
        Value::Object(o) => {
            o.iter_mut()
                .map(|(k, x)| replace_in(x, Some(k.as_str()), from, to))
                .filter(|changed| *changed)
                .count()
                > 0
        }
        _ => false,
    }
}

/// Whether `key` (a source's id) names `player` as one of its `:`- or `/`-separated
/// parts (a registration's `{tournament}/{player}`, a period result's
/// `{board}@{period}:{player}`): the parts [`rename_in_key`] renames.
pub(crate) fn key_names(key: &str, player: &str) -> bool {
    key.split([':', '/']).any(|part| part == player)
}

/// The source `kind`/`id` a reference names, or, when another deletion renamed it
/// since (its key named that other player too), where it is now.
async fn find_source<S: SettleStore + ?Sized>(
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
        if part == player_id || !podium_rules::record::is_valid_id(part) || !store.is_deleted(part).await? {
            continue;
        }
        let moved = SourceKey::new(kind, rename_in_key(id, part, &pseudonym(part)));
        if let Some(stored) = store.get_source(&moved).await? {
            return Ok(Some((moved, stored)));
        }
    }
    Ok(None)
}

/// `key` (a source's id) with each `:`- or `/`-separated part that is `from` replaced
/// by `to`.
fn rename_in_key(key: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut part = String::new();
    for c in key.chars() {
        if c == ':' || c == '/' {
            out.push_str(if part == from { to } else { &part });
            out.push(c);
            part.clear();
        } else {
            part.push(c);
        }
    }
    out.push_str(if part == from { to } else { &part });
    out
}

/// Replaces `from` by `to` in a state item's body: as [`replace_id`], and, in a body
/// that is a list (a league cohort's members), each element that is the id.
fn replace_id_in_state(v: &mut serde_json::Value, from: &str, to: &str) -> bool {
    replace_in(v, v.is_array().then_some("members"), from, to)
}

/// Every player id `v` names where [`replace_id`] replaces one (the values of
/// [`ID_KEYS`], the elements or pairs' first elements of [`ID_LIST_KEYS`]; with
/// `list`, the elements of `v` itself, a state item that is a list), each once and a
/// valid id: what the commit path references for GM-6 ([`podium_store::Reference`]).
/// Parts of composite ids (`{player}:{day}`) are not listed: they are keyed by the
/// player whose own items hold them.
pub(crate) fn named_ids(v: &serde_json::Value, list: bool) -> Vec<String> {
    let mut out = Vec::new();
    collect_ids(v, list.then_some("members"), &mut out);
    out
}

fn collect_ids(v: &serde_json::Value, key: Option<&str>, out: &mut Vec<String>) {
    use serde_json::Value;
    fn push(out: &mut Vec<String>, s: &str) {
        if podium_rules::record::is_valid_id(s) && !out.iter().any(|x| x == s) {
            out.push(s.to_string());
        }
    }
    match v {
        Value::String(s) if key.is_some_and(|k| ID_KEYS.contains(&k)) => push(out, s),
        Value::Array(a) => {
            let list = key.is_some_and(|k| ID_LIST_KEYS.contains(&k));
            for x in a {
                match x {
                    Value::String(s) if list => push(out, s),
                    Value::Array(pair) if list => {
                        if let Some(Value::String(s)) = pair.first() {
                            push(out, s);
                        }
                    }
                    other => collect_ids(other, None, out),
                }
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                collect_ids(x, Some(k.as_str()), out);
            }
        }
        _ => {}
    }
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
    if !podium_rules::record::is_valid_id(player_id) {
        return Err(ServiceError::BadRequest {
            field: "player_id",
            message: "not a player id".into(),
        });
    }
    let key = tombstone_key(player_id);
    let mut report = DeletionReport {
        pseudonym: pseudonym(player_id),
        ..DeletionReport::default()
    };
    // 1. The tombstone, first: no commit naming the player lands after it.
    let existed = store.get_item(&key, true).await?;
    report.resumed = existed.is_some();
    let (mut tomb, mut version) = match existed {
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
        return Ok(report);
    }
    // 2. What the player holds; the boards and sources go into the tombstone first.
    let holdings = store.holdings(player_id).await?;
    let mut boards: Vec<BoardRef> = holdings
        .balances
        .iter()
        .filter_map(|g| balance_board(*g))
        .collect();
    boards.extend(holdings.entries.iter().cloned());
    let mut grew = false;
    for b in &boards {
        if !tomb.boards.contains(&b.key()) {
            tomb.boards.push(b.key());
            grew = true;
        }
    }
    for e in &holdings.ledger {
        for kind in candidate_kinds(e) {
            let s = (kind, e.source_id.clone());
            if !tomb.sources.contains(&s) {
                tomb.sources.push(s);
                grew = true;
            }
        }
    }
    // Every other item that names them: the references its commit wrote.
    for r in &holdings.refs {
        match r {
            podium_store::Named::Source { kind, id } => {
                let s = (kind.clone(), id.clone());
                if !tomb.sources.contains(&s) {
                    tomb.sources.push(s);
                    grew = true;
                }
            }
            podium_store::Named::State { owner, name } => {
                let s = (owner.clone(), name.clone());
                if !tomb.states.contains(&s) {
                    tomb.states.push(s);
                    grew = true;
                }
            }
        }
    }
    if grew {
        let body = serde_json::to_vec(&tomb).map_err(|e| corrupt(&key.pk, e))?;
        if !store.put_item_if(&key, &body, version).await? {
            return Err(ServiceError::Contended { attempts: 1 });
        }
        version += 1;
    }
    // 3. Every snapshot of those boards leaves the player out.
    for b in &tomb.boards {
        let Some((board, period)) = b.split_once('@') else {
            continue;
        };
        if crate::snapshot::erase_player(store, &BoardRef::new(board, period), player_id, now).await? {
            report.snapshots.push(b.clone());
        }
    }
    // 4. Others' results no longer show the id.
    for (kind, id) in &tomb.sources {
        let Some((skey, stored)) = find_source(store, kind, id, player_id).await? else {
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
    for (owner, name) in &tomb.states {
        if anonymise_state(store, owner, name, player_id, &report.pseudonym).await? {
            report.results += 1;
        }
    }
    // 5. The ledger to the pseudonym; balances, entries, claims and states gone, and
    // the opt-ins to `overtaken` messages ([`crate::overtaken`]).
    store.erase_holdings(player_id, &report.pseudonym).await?;
    store
        .delete_items(&crate::overtaken::follow_keys(player_id))
        .await?;
    report.balances = holdings.balances.len();
    report.entries = holdings.entries.len();
    report.ledger_entries = holdings.ledger.len();
    report.claims = holdings.claims;
    report.states = holdings.states;
    // Boards refreshed only when changed (LB-5) learn of it: the next refresh re-ranks.
    for b in &tomb.boards {
        if let Some((board, period)) = b.split_once('@') {
            let board = BoardRef::new(board, period);
            if let Some(mark) = crate::changes::mark_for(&board, player_id, now.timestamp_millis()) {
                raise_mark(store, &mark).await?;
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
    // 7. Done.
    tomb.state = DELETED.into();
    tomb.deleted_at = Some(now);
    let body = serde_json::to_vec(&tomb).map_err(|e| corrupt(&key.pk, e))?;
    if !store.put_item_if(&key, &body, version).await? {
        return Err(ServiceError::Contended { attempts: 1 });
    }
    Ok(report)
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

/// Raises a change mark by one version (as a commit does), retried on a race.
async fn raise_mark<S: ItemStore + ?Sized>(
    store: &S,
    mark: &podium_store::MarkWrite,
) -> Result<(), ServiceError> {
    for _ in 0..10 {
        let version = store.get_item(&mark.key, true).await?.map_or(0, |i| i.version);
        if store.put_item_if(&mark.key, &mark.body, version).await? {
            return Ok(());
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
    if !even_if_unknown
        && podium_rules::record::is_valid_id(player_id)
        && store.get_item(&tombstone_key(player_id), true).await?.is_none()
        && store.holdings(player_id).await?.is_empty()
    {
        return Err(ServiceError::NotFound(
            "no such player: nothing is stored under this id and nothing was deleted \
             (to block the id ahead, delete it even if unknown)"
                .into(),
        ));
    }
    delete_player(store, player_id, now).await
}

/// Whether `player_id` was deleted (or is being deleted): their tombstone exists (GM-6).
pub async fn is_deleted<S: SettleStore + ?Sized>(store: &S, player_id: &str) -> Result<bool, ServiceError> {
    Ok(store.is_deleted(player_id).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GM-6: the pseudonym is stable and carries no part of the id.
    #[test]
    fn pseudonyms_are_stable_hashes() {
        assert_eq!(pseudonym("p-1"), pseudonym("p-1"));
        assert_ne!(pseudonym("p-1"), pseudonym("p-2"));
        assert!(pseudonym("p-1").starts_with("deleted-"));
        assert_eq!(pseudonym("p-1").len(), "deleted-".len() + 16);
        assert!(podium_rules::record::is_valid_id(&pseudonym("p-1")));
    }

    /// GM-6: a source key's parts that are the id are renamed, nothing else.
    #[test]
    fn keys_naming_the_player_are_renamed() {
        assert_eq!(rename_in_key("cup-1/p-1", "p-1", "deleted-x"), "cup-1/deleted-x");
        assert_eq!(
            rename_in_key("p-1:2027-05-10", "p-1", "deleted-x"),
            "deleted-x:2027-05-10"
        );
        assert_eq!(
            rename_in_key("p-10:2027-05-10", "p-1", "deleted-x"),
            "p-10:2027-05-10"
        );
        assert_eq!(rename_in_key("m-1", "p-1", "deleted-x"), "m-1");
    }

    /// GM-6: the ids a commit references are those a deletion would replace: member
    /// lists, `player_id`s, pairs' first elements; not composite ids or other words.
    #[test]
    fn named_ids_are_what_replace_id_replaces() {
        let v = serde_json::json!({
            "claim": "p-1:2027-05-10", "status": "final",
            "winners": [{"place": 1, "player_id": "w-1"}], "tp": [["t-1", 30]],
            "members": ["c-1", "c-2"], "by": [{"player_id": "b-1", "value": 3}],
        });
        assert_eq!(named_ids(&v, false), ["b-1", "c-1", "c-2", "t-1", "w-1"]);
        assert_eq!(named_ids(&serde_json::json!(["a", "b"]), true), ["a", "b"]);
        let mut list = serde_json::json!(["a", "b"]);
        assert!(replace_id_in_state(&mut list, "b", "deleted-x"));
        assert_eq!(list, serde_json::json!(["a", "deleted-x"]));
    }

    /// GM-6: results keep their shape; the id is replaced wherever it stands.
    #[test]
    fn ids_are_replaced_in_results() {
        let mut v = serde_json::json!({
            "match_id": "m-1",
            "players": [{"player_id": "p-1", "points": 3}, {"player_id": "p-10"}],
            "claim": "p-1:2027-05-10",
        });
        assert!(replace_id(&mut v, "p-1", "deleted-x"));
        assert_eq!(v["players"][0]["player_id"], "deleted-x");
        assert_eq!(v["players"][1]["player_id"], "p-10");
        assert_eq!(v["claim"], "deleted-x:2027-05-10");
        assert_eq!(v["match_id"], "m-1");
        assert!(!replace_id(&mut v, "p-1", "deleted-x"));
    }

    /// GM-6: an id that is also a word or a number of the result (`scored`, `win`,
    /// `seega`, `00`) is replaced only where a player id stands: statuses, sides, games
    /// and timestamps keep their values, so the result still reads back.
    #[test]
    fn only_player_id_fields_are_replaced() {
        for id in ["scored", "win", "seega", "00"] {
            let mut v = serde_json::json!({
                "match_id": "sg-77", "game": "seega", "status": "scored",
                "ended_at": "2026-11-30T10:00:00Z",
                "outcome": {"result": "win", "winner": id},
                "players": [{"player_id": id, "side": "win"}, {"player_id": "p-2", "side": "loss"}],
                "tp": [[id, 90], ["p-2", 21]],
            });
            assert!(replace_id(&mut v, id, "deleted-x"), "{id}");
            assert_eq!(v["players"][0]["player_id"], "deleted-x");
            assert_eq!(v["outcome"]["winner"], "deleted-x");
            assert_eq!(v["tp"][0][0], "deleted-x");
            assert_eq!(
                (&v["game"], &v["status"], &v["ended_at"], &v["players"][0]["side"]),
                (
                    &serde_json::json!("seega"),
                    &serde_json::json!("scored"),
                    &serde_json::json!("2026-11-30T10:00:00Z"),
                    &serde_json::json!("win")
                ),
                "{id}"
            );
            assert_eq!(v["outcome"]["result"], "win");
        }
    }
}
