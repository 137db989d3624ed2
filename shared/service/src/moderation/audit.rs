//! The audit trail (OP-5): one entry per operator action (a correction, an approval, a
//! rejection, a suspension, a restore, a deletion, a period close run again), append
//! only, read per player, per operator and per day.
//!
//! Each entry is written three times, under the player it concerns
//! (`AUDIT#P#{player}`), the operator (`AUDIT#O#{operator}`) and the UTC day
//! (`AUDIT#D#{YYYY-MM-DD}`), with the sort key `{at_ms:013}#{action}#{id}`: the action's
//! own instant and id, so an action retried after a lost reply writes the same items
//! again, never a second entry. A player's deletion (GM-6) erases the entries about them
//! but keeps the fact of each action, under the pseudonym ([`erase_player`]).

use chrono::{DateTime, Utc};
use podium_store::{ItemKey, ItemStore, SortKeyRange};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// The actions the trail records (OP-5).
pub mod action {
    pub const CORRECTION: &str = "correction";
    pub const APPROVE: &str = "approve";
    pub const REJECT: &str = "reject";
    pub const SUSPEND: &str = "suspend";
    pub const RESTORE: &str = "restore";
    pub const DELETE: &str = "delete";
    pub const NAME_RESET: &str = "name-reset";
    pub const CLOSE: &str = "close";
}

/// One operator action (OP-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AuditEntry {
    /// The action's id: a correction's idempotency key, a held record's id, a
    /// suspension's `{player}@{ms}`, …. Not unique: the actions on one subject share
    /// it (a suspension and the restore that lifts it); an entry is its `at`, `action`
    /// and `id` together.
    pub id: String,
    /// When it was done (UTC).
    pub at: DateTime<Utc>,
    /// Who did it: the operator's verified identity (the JWT's `sub`).
    pub operator: String,
    /// `correction`, `approve`, `reject`, `suspend`, `restore`, `delete`,
    /// `name-reset`, `close`.
    pub action: String,
    /// What it was done to: a player id, a held record (`{kind}/{id}`), a board and
    /// period (`{board}@{period}`).
    pub target: String,
    /// The player it concerns, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    /// Why, as the operator wrote it (OP-5).
    pub reason: String,
    /// What changed (the action's result: points applied, records settled, …), a JSON
    /// object; empty once erased with the player (GM-6).
    #[serde(default)]
    pub changes: serde_json::Value,
}

impl AuditEntry {
    /// An entry of a keyless `action` by `operator` on `player_id` at `now` (a name
    /// reset, a restore): its id fresh ([`fresh_id`]), the player its target.
    pub fn on_player(
        action: &str,
        player_id: &str,
        (operator, reason): (&str, String),
        now: DateTime<Utc>,
        changes: serde_json::Value,
    ) -> AuditEntry {
        AuditEntry {
            id: fresh_id(&format!("{player_id}@{}", now.timestamp_millis())),
            at: now,
            operator: operator.to_string(),
            action: action.to_string(),
            target: player_id.to_string(),
            player_id: Some(player_id.to_string()),
            reason,
            changes,
        }
    }
}

/// An entry id for an action that has no key of its own (a name reset, a restore, a
/// period close, a deletion): `base` and a random suffix, so two such actions at one
/// instant are two entries.
pub fn fresh_id(base: &str) -> String {
    format!("{base}~{:08x}", rand::random::<u32>())
}

/// The longest page of entries read (entries).
pub const MAX_PAGE: usize = 200;

fn sort_key(e: &AuditEntry) -> String {
    format!("{:013}#{}#{}", e.at.timestamp_millis().max(0), e.action, e.id)
}

fn player_pk(player: &str) -> String {
    format!("AUDIT#P#{player}")
}

fn operator_pk(operator: &str) -> String {
    format!("AUDIT#O#{operator}")
}

fn day_pk(at: DateTime<Utc>) -> String {
    format!("AUDIT#D#{}", at.format("%Y-%m-%d"))
}

/// Appends `entry` (OP-5): safe to repeat (the same action writes the same items).
pub async fn append<S: ItemStore + ?Sized>(store: &S, entry: &AuditEntry) -> Result<(), ServiceError> {
    let body = serde_json::to_vec(entry).map_err(|e| corrupt("audit entry", e))?;
    let sk = sort_key(entry);
    let mut items = vec![
        (
            ItemKey::new(operator_pk(&entry.operator), sk.clone()),
            body.clone(),
        ),
        (ItemKey::new(day_pk(entry.at), sk.clone()), body.clone()),
    ];
    if let Some(p) = &entry.player_id {
        items.push((ItemKey::new(player_pk(p), sk), body));
    }
    store.put_items(&items, None).await?;
    Ok(())
}

/// Whose entries to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trail {
    Player(String),
    Operator(String),
    /// A UTC day's entries, every operator.
    Day(chrono::NaiveDate),
}

/// Up to `limit` (≤ [`MAX_PAGE`]) entries of `trail`, newest first, before the sort
/// key `before` (from the newest when `None`); with the sort key to continue from
/// when more may follow.
pub async fn read<S: ItemStore + ?Sized>(
    store: &S,
    trail: &Trail,
    before: Option<&str>,
    limit: usize,
) -> Result<(Vec<AuditEntry>, Option<String>), ServiceError> {
    let pk = match trail {
        Trail::Player(p) => player_pk(p),
        Trail::Operator(o) => operator_pk(o),
        Trail::Day(d) => format!("AUDIT#D#{}", d.format("%Y-%m-%d")),
    };
    let limit = limit.clamp(1, MAX_PAGE);
    let range = before.map_or(SortKeyRange::All, |b| SortKeyRange::Before(b.to_string()));
    let items = store.query_items(&pk, &range, false, limit + 1, true).await?;
    let more = items.len() > limit;
    let mut out = Vec::with_capacity(limit);
    let mut last = None;
    for (sk, item) in items.into_iter().take(limit) {
        out.push(serde_json::from_slice(&item.body).map_err(|e| corrupt(&pk, e))?);
        last = Some(sk);
    }
    Ok((out, if more { last } else { None }))
}

/// GM-6: erases what the trail says about `player_id`. Each entry about them is kept,
/// under the operator and the day, as the fact of the action only (its target and
/// player the `pseudonym`, its reason and changes removed), and the player's own
/// entries are deleted. Safe to repeat and to resume.
pub async fn erase_player<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    pseudonym: &str,
) -> Result<usize, ServiceError> {
    let pk = player_pk(player_id);
    let mut erased = 0;
    loop {
        let items = store
            .query_items(&pk, &SortKeyRange::All, true, 100, true)
            .await?;
        if items.is_empty() {
            return Ok(erased);
        }
        let mut rewritten = Vec::new();
        let mut gone = Vec::new();
        for (sk, item) in &items {
            let mut e: AuditEntry = serde_json::from_slice(&item.body).map_err(|e| corrupt(&pk, e))?;
            e.player_id = Some(pseudonym.to_string());
            e.id = e.id.replace(player_id, pseudonym);
            e.target = e.target.replace(player_id, pseudonym);
            e.reason = String::from("(erased with the player, GM-6)");
            e.changes = serde_json::json!({});
            // The sort key holds the id: the copies move to the renamed one.
            let renamed = sort_key(&e);
            let body = serde_json::to_vec(&e).map_err(|e| corrupt("audit entry", e))?;
            rewritten.push((
                ItemKey::new(operator_pk(&e.operator), renamed.clone()),
                body.clone(),
            ));
            rewritten.push((ItemKey::new(day_pk(e.at), renamed.clone()), body));
            if renamed != *sk {
                gone.push(ItemKey::new(operator_pk(&e.operator), sk.clone()));
                gone.push(ItemKey::new(day_pk(e.at), sk.clone()));
            }
            gone.push(ItemKey::new(pk.clone(), sk.clone()));
        }
        store.put_items(&rewritten, None).await?;
        store.delete_items(&gone).await?;
        erased += gone.len();
    }
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(podium_store::StoreError::corrupt(what, e))
}
