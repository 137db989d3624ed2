//! The embedded store's handle: the database, opened on a file or in memory, and
//! blocking work moved off the async runtime.

use std::path::Path;
use std::sync::Arc;

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::history::KeyHistory;
use podium_rules::leaderboard::Standing;
use redb::backends::InMemoryBackend;
use redb::{ConcurrencyMode, Database};

use crate::error::StoreError;
use crate::model::BoardKey;

use super::keys::*;

/// The embedded store. Cheap to clone; clones share the database.
#[derive(Clone)]
pub struct EmbeddedStore {
    pub(crate) db: Arc<Database>,
    pub(crate) commits: super::group_commit::GroupCommit,
    /// The read transaction point reads share ([`super::views`]).
    pub(crate) views: super::views::Views,
    /// [`crate::ItemStore::scope`]: given when opened.
    pub(crate) scope: u64,
}

/// The scope the next store opened by this process gets.
static NEXT_SCOPE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl EmbeddedStore {
    /// Opens (or creates) the database file at `path`; several processes may share it.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with(path, None)
    }

    /// [`EmbeddedStore::open`] with the database's page cache bounded to
    /// `cache_bytes` (redb's default otherwise): for measuring what the code above the
    /// store holds in memory, apart from the store's own cache.
    pub fn open_with(path: &Path, cache_bytes: Option<usize>) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Embedded(e.to_string()))?;
        }
        let mut builder = Database::builder();
        builder.set_concurrency_mode(ConcurrencyMode::MultiWriter);
        if let Some(bytes) = cache_bytes {
            builder.set_cache_size(bytes);
        }
        let db = builder.create(path)?;
        Self::init(db)
    }

    /// A store on `backend` (redb's storage interface), for this process alone: for
    /// measuring what the store writes to its file.
    pub fn on_backend(backend: impl redb::StorageBackend) -> Result<Self, StoreError> {
        Self::init(Database::builder().create_with_backend(backend)?)
    }

    /// [`EmbeddedStore::on_backend`] with every write in a transaction of its own: what
    /// the file gets at worst, the same from run to run. (Group commit shares a
    /// transaction between the writes that happen to wait together, which timing
    /// decides: concurrent writes of one settlement, such as its boards' marks, share
    /// one or not from one run to the next.)
    pub fn on_backend_unbatched(backend: impl redb::StorageBackend) -> Result<Self, StoreError> {
        let mut store = Self::on_backend(backend)?;
        store.commits = super::group_commit::GroupCommit::with_max_batch(store.views.clone(), 1);
        Ok(store)
    }

    /// A fresh store in memory, gone when dropped (tests, dry runs).
    pub fn in_memory() -> Result<Self, StoreError> {
        let db = Database::builder().create_with_backend(InMemoryBackend::new())?;
        Self::init(db)
    }

    pub(crate) fn init(db: Database) -> Result<Self, StoreError> {
        let txn = db.begin_write()?;
        txn.open_table(ITEMS)?;
        txn.open_table(BOARD)?;
        txn.open_table(BLOBS)?;
        super::layout::ensure(&txn)?;
        txn.commit()?;
        let views = super::views::Views::default();
        Ok(EmbeddedStore {
            db: Arc::new(db),
            commits: super::group_commit::GroupCommit::new(views.clone()),
            views,
            scope: NEXT_SCOPE.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// Loads `game`'s all-time board in one write transaction: each standing becomes the
    /// player's balance (version 1) and board entry. For imports and benchmarks; it
    /// replaces nothing a player already has, so load into a fresh store.
    pub fn load_balances(
        &self,
        game: Game,
        standings: impl IntoIterator<Item = Standing>,
    ) -> Result<u64, StoreError> {
        self.load(
            &BoardRef::all_time(game.id()),
            |s| balance_key(game, s),
            standings,
        )
    }

    /// Loads `board` (one board in one period) in one write transaction: each standing
    /// becomes the player's period entry (version 1) and board entry, with no ledger.
    /// For benchmarks (a period's close at scale); load into a fresh store.
    pub fn load_period_entries(
        &self,
        board: &BoardRef,
        standings: impl IntoIterator<Item = Standing>,
    ) -> Result<u64, StoreError> {
        self.load(board, |s| period_key(board, s), standings)
    }

    fn load(
        &self,
        board: &BoardRef,
        item_key: impl Fn(&str) -> String,
        standings: impl IntoIterator<Item = Standing>,
    ) -> Result<u64, StoreError> {
        let txn = self.db.begin_write()?;
        let mut n = 0u64;
        {
            let mut items = txn.open_table(ITEMS)?;
            let mut entries = txn.open_table(BOARD)?;
            for s in standings {
                let item = BalanceItem {
                    points: s.value,
                    version: 1,
                    reached_at_ms: s.reached_at_ms,
                    history: KeyHistory::default(),
                };
                let key = item_key(&s.player_id);
                items.insert(key.as_str(), encode_entry(&key, &item)?.as_slice())?;
                let key = BoardKey {
                    value: s.value,
                    reached_at_ms: s.reached_at_ms,
                    player_id: s.player_id,
                };
                entries.insert(board_entry(board, &key).as_str(), ())?;
                n += 1;
            }
        }
        txn.commit()?;
        self.views.write_ended();
        Ok(n)
    }

    /// Runs blocking database work (scans, writes) off the async runtime's worker
    /// threads; point reads begun after it are not answered from an earlier view.
    pub(crate) async fn blocking<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    {
        let db = Arc::clone(&self.db);
        let views = self.views.clone();
        tokio::task::spawn_blocking(move || {
            let done = f(&db);
            views.write_ended();
            done
        })
        .await
        .map_err(|e| StoreError::Embedded(format!("store task failed: {e}")))?
    }
}
