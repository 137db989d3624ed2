//! A store that counts the requests it passes on, as DynamoDB would bill them (one
//! read per Get or Query, one write per write request, one BatchWriteItem per 25
//! items), so both stores' request counts can be asserted alike.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::Standing;
use podium_rules::settlement::LedgerEntry;
use podium_store::{
    Balance, BoardKey, BoardStore, Claim, Commit, CommitOutcome, Item, ItemKey, ItemStore, LedgerPosition,
    LedgerStore, PeriodStore, SettleStore, SortKeyRange, SourceKey, SourceStore, State, StoreError,
    StoredSource,
};

/// `inner`, counting requests (clones share the counts).
#[derive(Clone)]
pub struct Counted<S> {
    pub inner: S,
    reads: Arc<AtomicU64>,
    writes: Arc<AtomicU64>,
}

impl<S> Counted<S> {
    pub fn new(inner: S) -> Self {
        Counted {
            inner,
            reads: Arc::default(),
            writes: Arc::default(),
        }
    }

    fn read(&self) {
        self.reads.fetch_add(1, Ordering::Relaxed);
    }

    fn write(&self, n: u64) {
        self.writes.fetch_add(n, Ordering::Relaxed);
    }

    /// (reads, writes) so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.reads.load(Ordering::Relaxed),
            self.writes.load(Ordering::Relaxed),
        )
    }
}

#[async_trait]
impl<S: SourceStore> SourceStore for Counted<S> {
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        self.read();
        self.inner.get_source(key).await
    }
    async fn scan_sources(
        &self,
        kinds: &[&str],
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<podium_store::SourcePage, StoreError> {
        self.read();
        self.inner.scan_sources(kinds, cursor, limit).await
    }
}

#[async_trait]
impl<S: SettleStore> SettleStore for Counted<S> {
    /// One BatchGetItem per 100 players, as DynamoDB sends them.
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        self.reads
            .fetch_add(players.len().div_ceil(100) as u64, Ordering::Relaxed);
        self.inner.get_balances(game, players).await
    }
    /// One BatchGetItem per 100 players, as DynamoDB sends them.
    async fn get_entries(
        &self,
        board: &BoardRef,
        players: &[&str],
    ) -> Result<Vec<Option<Balance>>, StoreError> {
        self.reads
            .fetch_add(players.len().div_ceil(100) as u64, Ordering::Relaxed);
        self.inner.get_entries(board, players).await
    }
    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.read();
        self.inner.get_entry(board, player_id).await
    }
    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError> {
        self.read();
        self.inner.get_state(player_id, name).await
    }
    /// One GetItem for one key, else one BatchGetItem per 100, as DynamoDB sends them.
    async fn get_states(&self, keys: &[(&str, &str)]) -> Result<Vec<Option<State>>, StoreError> {
        self.reads
            .fetch_add(keys.len().div_ceil(100) as u64, Ordering::Relaxed);
        self.inner.get_states(keys).await
    }
    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError> {
        self.read();
        self.inner.get_claim(player_id, game, kind, day).await
    }
    async fn settle_item(&self, key: &ItemKey) -> Result<Option<Item>, StoreError> {
        self.read();
        self.inner.settle_item(key).await
    }
    async fn account(&self, player_id: &str) -> Result<podium_store::Account, StoreError> {
        self.read();
        self.inner.account(player_id).await
    }
    async fn commit(&self, commit: &Commit) -> Result<CommitOutcome, StoreError> {
        self.write(1);
        self.inner.commit(commit).await
    }
}

#[async_trait]
impl<S: BoardStore> BoardStore for Counted<S> {
    async fn get_balance(&self, game: Game, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.read();
        self.inner.get_balance(game, player_id).await
    }
    async fn board_after(
        &self,
        b: &BoardRef,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.read();
        self.inner.board_after(b, after, limit).await
    }
    async fn board_before(
        &self,
        b: &BoardRef,
        before: &BoardKey,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.read();
        self.inner.board_before(b, before, limit).await
    }
    fn board_shards(&self) -> u32 {
        self.inner.board_shards()
    }
    async fn shard_after(
        &self,
        b: &BoardRef,
        shard: u32,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.read();
        self.inner.shard_after(b, shard, after, limit).await
    }
    async fn count_before(&self, b: &BoardRef, key: &BoardKey) -> Result<u64, StoreError> {
        self.read();
        self.inner.count_before(b, key).await
    }
}

#[async_trait]
impl<S: LedgerStore> LedgerStore for Counted<S> {
    async fn ledger_entries(&self, game: Game, player_id: &str) -> Result<Vec<LedgerEntry>, StoreError> {
        self.read();
        self.inner.ledger_entries(game, player_id).await
    }
    async fn ledger_page(
        &self,
        game: Game,
        player_id: &str,
        after: Option<&LedgerPosition>,
        limit: usize,
    ) -> Result<Vec<LedgerEntry>, StoreError> {
        self.read();
        self.inner.ledger_page(game, player_id, after, limit).await
    }
}

#[async_trait]
impl<S: ItemStore> ItemStore for Counted<S> {
    fn scope(&self) -> u64 {
        self.inner.scope()
    }

    async fn get_item(&self, key: &ItemKey, consistent: bool) -> Result<Option<Item>, StoreError> {
        self.read();
        self.inner.get_item(key, consistent).await
    }
    async fn get_items(&self, keys: &[ItemKey], consistent: bool) -> Result<Vec<Option<Item>>, StoreError> {
        self.reads
            .fetch_add(keys.len().div_ceil(100) as u64, Ordering::Relaxed);
        self.inner.get_items(keys, consistent).await
    }
    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError> {
        self.write(1);
        self.inner.put_item_if(key, body, expected).await
    }
    async fn put_items_if(&self, writes: &[(ItemKey, Vec<u8>, u64)]) -> Result<bool, StoreError> {
        self.write(1);
        self.inner.put_items_if(writes).await
    }
    async fn query_items(
        &self,
        pk: &str,
        range: &SortKeyRange,
        forward: bool,
        limit: usize,
        consistent: bool,
    ) -> Result<Vec<(String, Item)>, StoreError> {
        self.read();
        self.inner
            .query_items(pk, range, forward, limit, consistent)
            .await
    }
    async fn delete_item_if(&self, key: &ItemKey, expected: u64) -> Result<bool, StoreError> {
        self.write(1);
        self.inner.delete_item_if(key, expected).await
    }
    async fn delete_items(&self, keys: &[ItemKey]) -> Result<(), StoreError> {
        self.write(keys.len().div_ceil(25) as u64);
        self.inner.delete_items(keys).await
    }
    async fn put_items(
        &self,
        items: &[(ItemKey, Vec<u8>)],
        expires_at: Option<i64>,
    ) -> Result<(), StoreError> {
        self.write(items.len().div_ceil(25) as u64);
        self.inner.put_items(items, expires_at).await
    }
}

#[async_trait]
impl<S: PeriodStore> PeriodStore for Counted<S> {
    async fn period_entry(&self, b: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.read();
        self.inner.period_entry(b, player_id).await
    }
    async fn entry_boards(&self, player_id: &str, prefix: &str) -> Result<Vec<BoardRef>, StoreError> {
        self.read();
        self.inner.entry_boards(player_id, prefix).await
    }
}

#[async_trait]
impl<S: podium_store::ErasureStore> podium_store::ErasureStore for Counted<S> {
    async fn holdings(&self, player_id: &str) -> Result<podium_store::Holdings, StoreError> {
        self.inner.holdings(player_id).await
    }

    async fn erase_holdings(&self, player_id: &str, pseudonym: &str) -> Result<(), StoreError> {
        self.inner.erase_holdings(player_id, pseudonym).await
    }

    async fn replace_source_result(&self, key: &SourceKey, result: &str) -> Result<bool, StoreError> {
        self.inner.replace_source_result(key, result).await
    }

    async fn replace_state(
        &self,
        owner: &str,
        name: &str,
        body: &str,
        version: u64,
    ) -> Result<bool, StoreError> {
        self.inner.replace_state(owner, name, body, version).await
    }

    async fn move_source(&self, from: &SourceKey, to: &SourceKey, result: &str) -> Result<bool, StoreError> {
        self.inner.move_source(from, to, result).await
    }
}
