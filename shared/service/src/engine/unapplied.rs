//! The sources a job could not apply, kept for review: a settlement that fails for a
//! reason of its own (the store refused its commit, a rule its plan) is left out of
//! [`super::settle::settle_all`] so that one player never stops a close, and the job
//! records it here. An operator reads them ([`list`]), mends the cause and reruns
//! the job (a period close's rerun settles every result again; those sent before
//! write nothing, GM-3).
//!
//! Items: partition key `UNAPPLIED`, sort key `{kind}#{source id}` (one per source,
//! written again by a rerun that fails the same way), body [`Unapplied`] with the
//! job and the instant. A player's deletion erases those about them (GM-6, [`forget`]).

use chrono::{DateTime, Utc};
use podium_store::{ItemKey, ItemStore};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

const PK: &str = "UNAPPLIED";

/// A source a job left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Unapplied {
    /// The source's kind and id (its idempotency key, GM-3).
    pub kind: String,
    pub id: String,
    /// The player it is about, if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    /// Why it failed.
    pub error: String,
}

/// An [`Unapplied`] as stored: which job left it out, and when (UTC).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Recorded {
    #[serde(flatten)]
    pub unapplied: Unapplied,
    pub job: String,
    pub at: DateTime<Utc>,
}

fn key(u: &Unapplied) -> ItemKey {
    ItemKey::new(PK, format!("{}#{}", u.kind, u.id))
}

/// Records `left_out` for review, as left out by `job` at `at` (one write each, the
/// last one standing). Errors: the store's.
pub async fn record<S: ItemStore + ?Sized>(
    store: &S,
    job: &str,
    left_out: &[Unapplied],
    at: DateTime<Utc>,
) -> Result<(), ServiceError> {
    if left_out.is_empty() {
        return Ok(());
    }
    let items: Vec<(ItemKey, Vec<u8>)> = left_out
        .iter()
        .map(|u| {
            let r = Recorded {
                unapplied: u.clone(),
                job: job.to_string(),
                at,
            };
            (key(u), serde_json::to_vec(&r).unwrap_or_default())
        })
        .collect();
    store.put_items(&items, None).await?;
    Ok(())
}

/// Every source left out for review, by kind and id (Queries of 100). Errors: the
/// store's; an item this code did not write.
pub async fn list<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<Recorded>, ServiceError> {
    super::listing::all(store, PK).await
}

/// Erases the records about `player_id` (GM-6). Errors: the store's.
pub async fn forget<S: ItemStore + ?Sized>(store: &S, player_id: &str) -> Result<(), ServiceError> {
    let about: Vec<ItemKey> = list(store)
        .await?
        .iter()
        .filter(|r| r.unapplied.player.as_deref() == Some(player_id))
        .map(|r| key(&r.unapplied))
        .collect();
    if !about.is_empty() {
        store.delete_items(&about).await?;
    }
    Ok(())
}
