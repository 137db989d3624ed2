//! A store that bills item writes as DynamoDB's on-demand mode would (write request
//! units), so a run on the embedded store can be priced like one on DynamoDB.
//!
//! DynamoDB bills a write 1 unit per started KB of the item (the larger of its old
//! and new size when it replaces one), a delete by the size of the item it removes.
//! An item's size is its attribute names plus their values: `pk`, `sk`, `body`
//! (binary), `version` and `expires_at` (numbers), as `podium_store::dynamo` writes
//! items. Reads are counted as requests only.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::Standing;
use podium_store::{
    Balance, BoardKey, BoardStore, Item, ItemKey, ItemStore, PeriodStore, SortKeyRange, StoreError,
};

/// What a [`Billed`] store has billed so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bill {
    /// Write request units (1 per started KB of each item written or deleted).
    pub write_units: u64,
    /// Items written or deleted.
    pub items_written: u64,
    /// Read requests (GetItem, Query).
    pub read_requests: u64,
    /// Bytes of item bodies written.
    pub body_bytes: u64,
}

impl Bill {
    /// The difference `self − earlier`.
    pub fn since(&self, earlier: &Bill) -> Bill {
        Bill {
            write_units: self.write_units - earlier.write_units,
            items_written: self.items_written - earlier.items_written,
            read_requests: self.read_requests - earlier.read_requests,
            body_bytes: self.body_bytes - earlier.body_bytes,
        }
    }
}

/// The bill so far and the size of every item written through the store, by key.
type Ledger = (Bill, HashMap<(String, String), u64>);

/// `inner`, billing its item writes as DynamoDB would.
pub struct Billed<S> {
    pub inner: S,
    state: Mutex<Ledger>,
}

/// DynamoDB's size of a number attribute's value: about one byte per two significant
/// digits, plus one.
fn number_size(n: i64) -> u64 {
    let digits = n.unsigned_abs().to_string().trim_end_matches('0').len().max(1) as u64;
    digits.div_ceil(2) + 1
}

/// The size DynamoDB gives an item podium's DynamoDB store writes (bytes).
pub fn item_size(key: &ItemKey, body: &[u8], version: u64, expires_at: Option<i64>) -> u64 {
    let mut size = 2 + key.pk.len() as u64 + 2 + key.sk.len() as u64 + 4 + body.len() as u64;
    size += 7 + number_size(version as i64);
    if let Some(t) = expires_at {
        size += "expires_at".len() as u64 + number_size(t);
    }
    size
}

impl<S> Billed<S> {
    pub fn new(inner: S) -> Self {
        Billed {
            inner,
            state: Mutex::new((Bill::default(), HashMap::new())),
        }
    }

    /// What has been billed so far.
    pub fn bill(&self) -> Bill {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0
    }

    fn written(&self, key: &ItemKey, size: Option<u64>, body_bytes: u64) {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (bill, sizes) = &mut *state;
        let k = (key.pk.clone(), key.sk.clone());
        let old = match size {
            Some(s) => sizes.insert(k, s),
            None => sizes.remove(&k),
        };
        let billed = size.unwrap_or(0).max(old.unwrap_or(0));
        if billed > 0 {
            bill.write_units += billed.div_ceil(1024);
            bill.items_written += 1;
            bill.body_bytes += body_bytes;
        }
    }

    fn read(&self) {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state.0.read_requests += 1;
    }
}

#[async_trait]
impl<S: BoardStore> BoardStore for Billed<S> {
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
impl<S: ItemStore> ItemStore for Billed<S> {
    fn scope(&self) -> u64 {
        self.inner.scope()
    }

    async fn get_item(&self, key: &ItemKey, consistent: bool) -> Result<Option<Item>, StoreError> {
        self.read();
        self.inner.get_item(key, consistent).await
    }
    async fn get_items(&self, keys: &[ItemKey], consistent: bool) -> Result<Vec<Option<Item>>, StoreError> {
        for _ in 0..keys.len().div_ceil(100) {
            self.read();
        }
        self.inner.get_items(keys, consistent).await
    }
    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError> {
        let done = self.inner.put_item_if(key, body, expected).await?;
        if done {
            self.written(
                key,
                Some(item_size(key, body, expected + 1, None)),
                body.len() as u64,
            );
        }
        Ok(done)
    }
    async fn put_items_if(&self, writes: &[(ItemKey, Vec<u8>, u64)]) -> Result<bool, StoreError> {
        let done = self.inner.put_items_if(writes).await?;
        if done {
            for (key, body, expected) in writes {
                self.written(
                    key,
                    Some(item_size(key, body, expected + 1, None)),
                    body.len() as u64,
                );
            }
        }
        Ok(done)
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
        self.written(key, None, 0);
        self.inner.delete_item_if(key, expected).await
    }
    async fn delete_items(&self, keys: &[ItemKey]) -> Result<(), StoreError> {
        for k in keys {
            self.written(k, None, 0);
        }
        self.inner.delete_items(keys).await
    }
    async fn put_items(
        &self,
        items: &[(ItemKey, Vec<u8>)],
        expires_at: Option<i64>,
    ) -> Result<(), StoreError> {
        for (k, body) in items {
            self.written(k, Some(item_size(k, body, 1, expires_at)), body.len() as u64);
        }
        self.inner.put_items(items, expires_at).await
    }
}

#[async_trait]
impl<S: PeriodStore> PeriodStore for Billed<S> {
    async fn period_entry(&self, b: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.read();
        self.inner.period_entry(b, player_id).await
    }
    async fn entry_boards(&self, player_id: &str, prefix: &str) -> Result<Vec<BoardRef>, StoreError> {
        self.read();
        self.inner.entry_boards(player_id, prefix).await
    }
}
