//! Settling many sources inside one write transaction: a replay's group commit.
//!
//! An [`EmbeddedBatch`] holds the store's write transaction (other writers, in this
//! process or another, wait for it). Settlements run against it one after another,
//! in the caller's order: each reads what the batch's earlier commits wrote and
//! commits into the same transaction, with the same conditions as a lone commit.
//! [`EmbeddedBatch::finish`] makes the whole batch durable with one sync; until then
//! nothing of it is visible to other readers, and if it fails (or the batch is
//! dropped) nothing of it is written, so every source of the batch can be settled
//! again from the start. A caller reports a settlement only after `finish` succeeds.

use std::sync::Mutex;

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use redb::WriteTransaction;

use super::keys::{blob_key, BLOBS, ITEMS};
use super::store::EmbeddedStore;
use super::txn::{
    commit_in, read_balances, read_claim, read_period, read_source, read_state, scan_sources_in,
};
use crate::commit::{Claim, Commit, CommitOutcome, SourceKey, State, StoredSource};
use crate::error::StoreError;
use crate::model::Balance;
use crate::traits::{SettleStore, SourceStore};

/// One write transaction that settlements commit into until [`finish`](Self::finish).
pub struct EmbeddedBatch {
    txn: Mutex<WriteTransaction>,
    views: super::views::Views,
}

impl EmbeddedStore {
    /// Starts a batch: takes the write transaction, waiting (blocking the thread) while
    /// another writer holds it.
    pub fn begin_batch(&self) -> Result<EmbeddedBatch, StoreError> {
        Ok(EmbeddedBatch {
            txn: Mutex::new(self.db.begin_write()?),
            views: self.views.clone(),
        })
    }
}

impl EmbeddedBatch {
    fn with<T>(&self, f: impl FnOnce(&WriteTransaction) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let txn = self
            .txn
            .lock()
            .map_err(|_| StoreError::Embedded("a batch's transaction was poisoned by a panic".into()))?;
        f(&txn)
    }

    /// Makes every commit of the batch durable at once (one sync to disk).
    pub fn finish(self) -> Result<(), StoreError> {
        let txn = self
            .txn
            .into_inner()
            .map_err(|_| StoreError::Embedded("a batch's transaction was poisoned by a panic".into()))?;
        let done = txn.commit();
        self.views.write_ended();
        Ok(done?)
    }
}

#[async_trait]
impl SourceStore for EmbeddedBatch {
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        self.with(|txn| read_source(&txn.open_table(ITEMS)?, key))
    }

    async fn scan_sources(
        &self,
        kinds: &[&str],
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<crate::commit::SourcePage, StoreError> {
        self.with(|txn| scan_sources_in(&txn.open_table(ITEMS)?, kinds, cursor, limit))
    }
}

#[async_trait]
impl SettleStore for EmbeddedBatch {
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        self.with(|txn| read_balances(&txn.open_table(ITEMS)?, game, players))
    }

    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.with(|txn| read_period(&txn.open_table(ITEMS)?, board, player_id))
    }

    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError> {
        self.with(|txn| read_state(&txn.open_table(ITEMS)?, player_id, name))
    }

    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError> {
        self.with(|txn| read_claim(&txn.open_table(ITEMS)?, player_id, game, kind, day))
    }

    async fn settle_item(&self, key: &crate::ItemKey) -> Result<Option<crate::Item>, StoreError> {
        crate::model::check_key(&key.pk, &key.sk)?;
        let key = blob_key(key);
        self.with(|txn| {
            use redb::ReadableTable;
            let table = txn.open_table(BLOBS)?;
            let found = table.get(key.as_str())?;
            Ok(found.map(|v| crate::embedded::keys::read_blob(v.value())))
        })
    }

    async fn account(&self, player_id: &str) -> Result<crate::model::Account, StoreError> {
        let key = blob_key(&crate::model::tombstone_key(player_id));
        self.with(|txn| {
            use redb::ReadableTable;
            let table = txn.open_table(BLOBS)?;
            let found = table.get(key.as_str())?;
            Ok(crate::model::Account::of_guard(
                found
                    .as_ref()
                    .map(|v| crate::embedded::keys::read_blob(v.value()).body)
                    .as_deref(),
            ))
        })
    }

    /// Checks and writes `commit` inside the batch's transaction; durable only with
    /// the batch.
    async fn commit(&self, commit: &Commit) -> Result<CommitOutcome, StoreError> {
        self.with(|txn| commit_in(txn, commit))
    }
}
