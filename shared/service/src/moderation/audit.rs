//! The audit trail (OP-5): one entry per operator action (a correction, an approval, a
//! rejection, a suspension, a restore, a deletion, a period close run again), append
//! only, read per player, per operator and per day.
//!
//! Each entry is written under the operator (`AUDIT#O#{operator}`), the UTC day
//! (`AUDIT#D#{YYYY-MM-DD}`) and every player it concerns (`AUDIT#P#{player}`: its
//! `player_id`, and each of its `players` when it concerns several, such as the
//! approval of a match naming two players), with the sort key
//! `{at_ms:013}#{action}#{id}`: the action's own instant and id, so an action retried
//! after a lost reply writes the same items again, never a second entry. A period's
//! close is an action on a board, not on its players (it sends a result to every
//! player ranked, thousands on a busy week; each result is in that player's inbox,
//! naming the board and period): it names no player and is filed under the board and
//! period (`AUDIT#B#{board}@{period}`, its target) instead ([`Trail::Board`]); a
//! board definition's change (BD-10) is filed under its target too
//! (`AUDIT#B#board-definition/{id}`).
//!
//! A player's deletion (GM-6) erases the entries about them but keeps the fact of each
//! action, under the pseudonym, in every trail that holds it ([`erase_player`]).

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
    /// A board definition created, updated into a new version, or retired (BD-*).
    pub const BOARD_CREATE: &str = "board-create";
    pub const BOARD_UPDATE: &str = "board-update";
    pub const BOARD_RETIRE: &str = "board-retire";
    /// A team renamed or disbanded by an operator (TM-1, TM-5).
    pub const TEAM_RENAME: &str = "team-rename";
    pub const TEAM_DISBAND: &str = "team-disband";
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
    /// `name-reset`, `close`, `board-create`, `board-update`, `board-retire`.
    pub action: String,
    /// What it was done to: a player id, a held record (`{kind}/{id}`), a board and
    /// period (`{board}@{period}`), a board definition (`board-definition/{id}`).
    pub target: String,
    /// The player it concerns, if any; with several, the first of `players`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    /// Every player it concerns when it concerns more than one (an approved or
    /// rejected record naming two or more players), `player_id` first: the entry is in
    /// each one's trail. Empty (and absent) otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<String>,
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
            players: Vec::new(),
            reason,
            changes,
        }
    }

    /// The players whose trails hold the entry: `player_id` and each of `players`,
    /// each once, in that order.
    pub fn concerned(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for p in self.player_id.iter().chain(&self.players) {
            if !out.contains(&p.as_str()) {
                out.push(p);
            }
        }
        out
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

fn board_pk(board_period: &str) -> String {
    format!("AUDIT#B#{board_period}")
}

/// The partitions that hold `entry`: its operator's, its day's, each player's it
/// concerns, and, for a period close, its board's and period's (a definition's change:
/// the definition's).
fn trails_of(entry: &AuditEntry) -> Vec<String> {
    let mut pks = vec![operator_pk(&entry.operator), day_pk(entry.at)];
    pks.extend(entry.concerned().into_iter().map(player_pk));
    if [
        action::CLOSE,
        action::BOARD_CREATE,
        action::BOARD_UPDATE,
        action::BOARD_RETIRE,
    ]
    .contains(&entry.action.as_str())
    {
        pks.push(board_pk(&entry.target));
    }
    pks
}

/// Appends `entry` (OP-5) to the trail of its operator, its day, every player it
/// concerns ([`AuditEntry::concerned`]) and, for a period close, its board and period
/// (for a definition's change, the definition):
/// one item each, written together. Safe to repeat (the same action writes the same
/// items).
pub async fn append<S: ItemStore + ?Sized>(store: &S, entry: &AuditEntry) -> Result<(), ServiceError> {
    let body = serde_json::to_vec(entry).map_err(|e| corrupt("audit entry", e))?;
    let sk = sort_key(entry);
    let items: Vec<(ItemKey, Vec<u8>)> = trails_of(entry)
        .into_iter()
        .map(|pk| (ItemKey::new(pk, sk.clone()), body.clone()))
        .collect();
    store.put_items(&items, None).await?;
    Ok(())
}

/// Whose entries to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trail {
    /// The entries about a player (each one that concerns them, alone or with others).
    Player(String),
    Operator(String),
    /// A UTC day's entries, every operator.
    Day(chrono::NaiveDate),
    /// The actions on a board in one period (`{board}@{period}`, as a close's target):
    /// its closes.
    Board(String),
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
        Trail::Board(b) => board_pk(b),
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

/// GM-6: erases what the trail says about `player_id`. Each entry about them is kept
/// as the fact of the action only (the player the `pseudonym` wherever the entry names
/// them, its reason and changes removed) in every other trail that holds it (the
/// operator's, the day's, the pseudonym's, and those of the other players it
/// concerns), and the player's own copies are deleted. Safe to repeat and to resume.
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
            let before: AuditEntry = serde_json::from_slice(&item.body).map_err(|e| corrupt(&pk, e))?;
            let mut e = before.clone();
            let rename = |p: &mut String| {
                if p == player_id {
                    *p = pseudonym.to_string();
                }
            };
            e.player_id.iter_mut().for_each(rename);
            e.players.iter_mut().for_each(rename);
            e.id = e.id.replace(player_id, pseudonym);
            e.target = e.target.replace(player_id, pseudonym);
            e.reason = String::from("(erased with the player, GM-6)");
            e.changes = serde_json::json!({});
            // The sort key holds the id: the copies move to the renamed one, the
            // pseudonym's own trail among them (support finds what was done to a
            // deleted account by its pseudonym).
            let renamed = sort_key(&e);
            let body = serde_json::to_vec(&e).map_err(|e| corrupt("audit entry", e))?;
            for trail in trails_of(&e) {
                rewritten.push((ItemKey::new(trail, renamed.clone()), body.clone()));
            }
            if renamed != *sk {
                for trail in trails_of(&before) {
                    if trail != pk {
                        gone.push(ItemKey::new(trail, sk.clone()));
                    }
                }
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
