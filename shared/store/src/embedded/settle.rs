//! The reads a settlement takes and its commit, through the group commit.

use std::sync::Arc;

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;

use crate::commit::{Claim, Commit, CommitOutcome, SourceKey, State, StoredSource};
use crate::error::StoreError;
use crate::model::{tombstone_key, Balance};
use crate::traits::{ItemStore, PeriodStore, SettleStore, SourceStore};

use super::store::EmbeddedStore;
use super::txn::*;

// Point reads (a few items by key) run in place, on the view point reads share
// (`views.rs`): a redb read transaction never waits for writers, and a handful of
// cached pages costs less than handing the work to another thread and back.
#[async_trait]
impl SourceStore for EmbeddedStore {
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        read_source(&self.views.view(&self.db)?.items, key)
    }

    async fn scan_sources(
        &self,
        kinds: &[&str],
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<crate::commit::SourcePage, StoreError> {
        scan_sources_in(&self.views.view(&self.db)?.items, kinds, cursor, limit)
    }
}

#[async_trait]
impl SettleStore for EmbeddedStore {
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        read_balances(&self.views.view(&self.db)?.items, game, players)
    }

    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.period_entry(board, player_id).await
    }

    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError> {
        read_state(&self.views.view(&self.db)?.items, player_id, name)
    }

    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError> {
        read_claim(&self.views.view(&self.db)?.items, player_id, game, kind, day)
    }

    async fn settle_item(&self, key: &crate::ItemKey) -> Result<Option<crate::Item>, StoreError> {
        crate::ItemStore::get_item(self, key, true).await
    }

    async fn account(&self, player_id: &str) -> Result<crate::model::Account, StoreError> {
        let item = self.get_item(&tombstone_key(player_id), true).await?;
        Ok(crate::model::Account::of_guard(
            item.as_ref().map(|i| i.body.as_slice()),
        ))
    }

    async fn commit(&self, commit: &Commit) -> Result<CommitOutcome, StoreError> {
        self.commits
            .commit(Arc::clone(&self.db), commit.clone(), commit_in)
            .await
    }
}
