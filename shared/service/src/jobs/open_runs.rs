//! The refreshes begun and not published yet (LB-5): a board whose refresh stopped
//! at its budget (or was killed mid-step) is resumed by the next tick under the same
//! snapshot id and `as_of`, from the progress its run saved, instead of starting
//! another from the top; a board that needs more than one call's time still
//! publishes, a few calls later.
//!
//! One item per board: partition key `REFRESH#OPEN`, sort key the board's key
//! (`{board}@{period}`), body [`OpenRun`]. Written when a tick leaves a refresh
//! unpublished (only if no other is recorded), deleted (at the version read) once
//! it is published. One Query lists every refresh under way: the ticks resume those
//! first, and operators read them as the jobs' status ([`list`]).

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_store::{ItemKey, ItemStore, StoreError};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// A refresh under way on one board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct OpenRun {
    pub board: String,
    pub period: String,
    /// The snapshot id it is written under, and its number ([`super::identity`]).
    pub id: String,
    pub seq: u64,
    /// The instant it snapshots (UTC): the tick that began it.
    pub as_of: DateTime<Utc>,
    /// Pages listed so far (as the last call left it).
    pub pages: u32,
}

impl OpenRun {
    /// The board and period it refreshes.
    pub fn board_ref(&self) -> BoardRef {
        BoardRef::new(self.board.clone(), self.period.clone())
    }
}

const PK: &str = "REFRESH#OPEN";

fn key(board: &BoardRef) -> ItemKey {
    ItemKey::new(PK, board.key())
}

fn corrupt(sk: &str, e: serde_json::Error) -> ServiceError {
    ServiceError::Store(StoreError::corrupt(format!("{PK}/{sk}"), e))
}

/// The refresh under way on `board`, and the version read (one strongly consistent
/// GetItem). Errors: the store's; a body that is not an [`OpenRun`].
pub async fn get<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Option<(OpenRun, u64)>, ServiceError> {
    let k = key(board);
    match store.get_item(&k, true).await? {
        Some(item) => Ok(Some((
            serde_json::from_slice(&item.body).map_err(|e| corrupt(&k.sk, e))?,
            item.version,
        ))),
        None => Ok(None),
    }
}

/// Records `run` as the refresh under way on its board: written at `version` (0:
/// only if none is recorded; the version read: the progress of the one recorded).
/// `false` when another call changed the record first (its run is resumed instead).
pub async fn record<S: ItemStore + ?Sized>(
    store: &S,
    run: &OpenRun,
    version: u64,
) -> Result<bool, ServiceError> {
    let body = serde_json::to_vec(run).unwrap_or_default();
    Ok(store.put_item_if(&key(&run.board_ref()), &body, version).await?)
}

/// Forgets the refresh recorded on `board` at `version` (it is published). Nothing
/// when the record changed since (another call's run is recorded now).
pub async fn forget<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    version: u64,
) -> Result<(), ServiceError> {
    store.delete_item_if(&key(board), version).await?;
    Ok(())
}

/// Every refresh under way, by board key (Queries of 100).
pub async fn list<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<OpenRun>, ServiceError> {
    crate::engine::listing::all(store, PK).await
}

/// [`list`], each with the version read (what [`record`] and [`forget`] condition on).
pub async fn list_with_versions<S: ItemStore + ?Sized>(
    store: &S,
) -> Result<Vec<(OpenRun, u64)>, ServiceError> {
    crate::engine::listing::with_versions(store, PK).await
}
