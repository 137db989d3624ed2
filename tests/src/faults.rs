//! A store that injects faults into another one, for tests: replies lost after a
//! commit was applied (a timeout after DynamoDB committed), source reads failing as a
//! throttled DynamoDB would, and the last commit kept for a resend.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

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

/// `inner`, with faults (clones share their fault state).
#[derive(Clone)]
pub struct Faulty<S> {
    pub inner: S,
    lose_replies: Arc<AtomicU32>,
    failing_source: Option<String>,
    /// Commits of the source with this id are refused for good (as DynamoDB refuses
    /// an item over its size limit), nothing written.
    rejecting_source: Option<String>,
    last_commit: Arc<Mutex<Option<Commit>>>,
    /// Cancellation reasons the next commit after a lost reply is answered with.
    resend_reasons: Option<Vec<&'static str>>,
    lost_one: Arc<std::sync::atomic::AtomicBool>,
    /// Conditional item writes under partition keys starting with this fail as
    /// throttled (nothing written), this many more times.
    failing_item_writes: Option<(String, Arc<AtomicU32>)>,
    /// Conditional writes of this one item fail as throttled, this many more times.
    failing_item: Option<(ItemKey, Arc<AtomicU32>)>,
    /// Conditional writes of this one item that pass before one fails (then none
    /// fails again): a call killed between two of its saves.
    failing_item_after: Option<(ItemKey, Arc<AtomicU32>)>,
    /// Commits that find this player's Seega balance moved just before they reach the
    /// store, this many more; every commit after them fails, nothing sent.
    interrupting: Option<(String, Arc<AtomicU32>)>,
    /// Commits that pass before the call stops: every commit after them fails.
    stopping_after: Option<Arc<AtomicU32>>,
}

fn unavailable(operation: &'static str, message: &str) -> StoreError {
    StoreError::Unavailable {
        operation,
        message: message.into(),
    }
}

impl<S> Faulty<S> {
    /// No faults yet.
    pub fn new(inner: S) -> Self {
        Faulty {
            inner,
            lose_replies: Arc::default(),
            failing_source: None,
            rejecting_source: None,
            last_commit: Arc::default(),
            resend_reasons: None,
            lost_one: Arc::default(),
            failing_item_writes: None,
            failing_item: None,
            failing_item_after: None,
            interrupting: None,
            stopping_after: None,
        }
    }

    /// After `n` commits pass, the call has stopped (a function killed mid-way):
    /// every later commit fails as unavailable, nothing written.
    pub fn stopping_after_commits(mut self, n: u32) -> Self {
        self.stopping_after = Some(Arc::new(AtomicU32::new(n)));
        self
    }

    /// The next `n` commits each find `player`'s Seega balance moved by a concurrent
    /// write (10 points more) just before they reach the store, which then cancels
    /// them for real (the version they condition on moved); after those the delivery
    /// has stopped (a function that timed out): every later commit fails as
    /// unavailable, nothing sent.
    pub fn interrupting_commits(mut self, player: &str, n: u32) -> Self {
        self.interrupting = Some((player.to_string(), Arc::new(AtomicU32::new(n))));
        self
    }

    /// How many of the commits [`Faulty::interrupting_commits`] set up are still to come.
    pub fn interruptions_left(&self) -> u32 {
        self.interrupting
            .as_ref()
            .map_or(0, |(_, left)| left.load(Ordering::SeqCst))
    }

    /// The next `n` conditional writes of the item `key` (its partition and sort key)
    /// fail as throttled (nothing written): one pointer's publication, say.
    pub fn failing_item_write(mut self, key: ItemKey, n: u32) -> Self {
        self.failing_item = Some((key, Arc::new(AtomicU32::new(n))));
        self
    }

    /// After `pass` conditional writes of the item `key`, the next one fails as
    /// throttled (nothing written), once: a call killed between two saves of its
    /// progress, its lease left behind.
    pub fn failing_item_write_after(mut self, key: ItemKey, pass: u32) -> Self {
        self.failing_item_after = Some((key, Arc::new(AtomicU32::new(pass))));
        self
    }

    /// The next `n` conditional item writes under a partition key starting with
    /// `pk_prefix` fail as throttled (nothing written).
    pub fn failing_item_writes(mut self, pk_prefix: &str, n: u32) -> Self {
        self.failing_item_writes = Some((pk_prefix.to_string(), Arc::new(AtomicU32::new(n))));
        self
    }

    /// The first commit sent after a lost reply is cancelled with these per-item
    /// reasons (as DynamoDB would answer a retry outside its idempotency window),
    /// without reaching the store.
    pub fn cancelling_the_resend(mut self, reasons: &[&'static str]) -> Self {
        self.resend_reasons = Some(reasons.to_vec());
        self
    }

    /// The next `n` commits are applied but their replies lost.
    pub fn losing_replies(self, n: u32) -> Self {
        self.lose_replies.store(n, Ordering::SeqCst);
        self
    }

    /// Reads and commits of the source with this id fail as throttled (nothing written).
    pub fn failing_source(mut self, id: &str) -> Self {
        self.failing_source = Some(id.to_string());
        self
    }

    /// Commits of the source with this id are refused for good (a validation error,
    /// as for an item over DynamoDB's 400 KB), nothing written.
    pub fn rejecting_source(mut self, id: &str) -> Self {
        self.rejecting_source = Some(id.to_string());
        self
    }

    /// The last commit sent through.
    pub fn last_commit(&self) -> Option<Commit> {
        self.last_commit
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl<S: SourceStore> SourceStore for Faulty<S> {
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        if self.failing_source.as_deref() == Some(key.id.as_str()) {
            return Err(unavailable("GetItem", "ProvisionedThroughputExceededException"));
        }
        self.inner.get_source(key).await
    }
    async fn scan_sources(
        &self,
        kinds: &[&str],
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<podium_store::SourcePage, StoreError> {
        self.inner.scan_sources(kinds, cursor, limit).await
    }
}

#[async_trait]
impl<S: SettleStore> SettleStore for Faulty<S> {
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        self.inner.get_balances(game, players).await
    }
    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.inner.get_entry(board, player_id).await
    }
    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError> {
        self.inner.get_state(player_id, name).await
    }
    async fn get_states(&self, keys: &[(&str, &str)]) -> Result<Vec<Option<State>>, StoreError> {
        self.inner.get_states(keys).await
    }
    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError> {
        self.inner.get_claim(player_id, game, kind, day).await
    }
    async fn settle_item(
        &self,
        key: &podium_store::ItemKey,
    ) -> Result<Option<podium_store::Item>, StoreError> {
        self.inner.settle_item(key).await
    }
    async fn account(&self, player_id: &str) -> Result<podium_store::Account, StoreError> {
        self.inner.account(player_id).await
    }
    async fn commit(&self, commit: &Commit) -> Result<CommitOutcome, StoreError> {
        if self.rejecting_source.as_deref() == Some(commit.source.id.as_str()) {
            return Err(StoreError::Rejected {
                operation: "TransactWriteItems",
                message: "ValidationException: Item size has exceeded the maximum allowed size (injected)"
                    .into(),
            });
        }
        if self.failing_source.as_deref() == Some(commit.source.id.as_str()) {
            return Err(unavailable(
                "TransactWriteItems",
                "ProvisionedThroughputExceededException",
            ));
        }
        if let Some(left) = &self.stopping_after {
            if left
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_err()
            {
                return Err(unavailable("TransactWriteItems", "the call stopped (injected)"));
            }
        }
        if let Some((player, left)) = &self.interrupting {
            if left
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_err()
            {
                return Err(unavailable(
                    "TransactWriteItems",
                    "the delivery stopped (injected)",
                ));
            }
            let b = &self.inner.get_balances(Game::Seega, &[player]).await?[0];
            crate::fixtures::seed_balance(&self.inner, player, b.points + 10, b.reached_at_ms + 1).await;
        }
        *self
            .last_commit
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(commit.clone());
        if let Some(reasons) = &self.resend_reasons {
            if self.lost_one.swap(false, Ordering::SeqCst) {
                return podium_store::outcome_of_cancellation(commit, reasons).map_err(|message| {
                    StoreError::Rejected {
                        operation: "TransactWriteItems",
                        message,
                    }
                });
            }
        }
        let outcome = self.inner.commit(commit).await?;
        let lose = self
            .lose_replies
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if lose {
            self.lost_one.store(true, Ordering::SeqCst);
            return Err(unavailable(
                "TransactWriteItems",
                "timed out waiting for the reply",
            ));
        }
        Ok(outcome)
    }
}

#[async_trait]
impl<S: BoardStore> BoardStore for Faulty<S> {
    async fn get_balance(&self, game: Game, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.inner.get_balance(game, player_id).await
    }
    async fn board_after(
        &self,
        b: &BoardRef,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.inner.board_after(b, after, limit).await
    }
    async fn board_before(
        &self,
        b: &BoardRef,
        before: &BoardKey,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
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
        self.inner.shard_after(b, shard, after, limit).await
    }
    async fn count_before(&self, b: &BoardRef, key: &BoardKey) -> Result<u64, StoreError> {
        self.inner.count_before(b, key).await
    }
}

#[async_trait]
impl<S: LedgerStore> LedgerStore for Faulty<S> {
    async fn ledger_entries(&self, game: Game, player_id: &str) -> Result<Vec<LedgerEntry>, StoreError> {
        self.inner.ledger_entries(game, player_id).await
    }
    async fn ledger_page(
        &self,
        game: Game,
        player_id: &str,
        after: Option<&LedgerPosition>,
        limit: usize,
    ) -> Result<Vec<LedgerEntry>, StoreError> {
        self.inner.ledger_page(game, player_id, after, limit).await
    }
}

#[async_trait]
impl<S: ItemStore> ItemStore for Faulty<S> {
    fn scope(&self) -> u64 {
        self.inner.scope()
    }

    async fn get_item(&self, key: &ItemKey, consistent: bool) -> Result<Option<Item>, StoreError> {
        self.inner.get_item(key, consistent).await
    }
    async fn get_items(&self, keys: &[ItemKey], consistent: bool) -> Result<Vec<Option<Item>>, StoreError> {
        self.inner.get_items(keys, consistent).await
    }
    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError> {
        if let Some((prefix, left)) = &self.failing_item_writes {
            if key.pk.starts_with(prefix.as_str())
                && left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok()
            {
                return Err(unavailable("PutItem", "throttled (injected)"));
            }
        }
        if let Some((failing, left)) = &self.failing_item {
            if failing == key
                && left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok()
            {
                return Err(unavailable("PutItem", "throttled (injected)"));
            }
        }
        if let Some((failing, left)) = &self.failing_item_after {
            if failing == key {
                // `pass` counts down to 0, which fails once and becomes u32::MAX.
                let before = left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| match n {
                        u32::MAX => None,
                        0 => Some(u32::MAX),
                        n => Some(n - 1),
                    })
                    .unwrap_or(u32::MAX);
                if before == 0 {
                    return Err(unavailable("PutItem", "killed (injected)"));
                }
            }
        }
        self.inner.put_item_if(key, body, expected).await
    }
    async fn put_items_if(&self, writes: &[(ItemKey, Vec<u8>, u64)]) -> Result<bool, StoreError> {
        if let Some((prefix, left)) = &self.failing_item_writes {
            if writes
                .iter()
                .any(|(key, _, _)| key.pk.starts_with(prefix.as_str()))
                && left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok()
            {
                return Err(unavailable("TransactWriteItems", "throttled (injected)"));
            }
        }
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
        self.inner
            .query_items(pk, range, forward, limit, consistent)
            .await
    }
    async fn delete_item_if(&self, key: &ItemKey, expected: u64) -> Result<bool, StoreError> {
        self.inner.delete_item_if(key, expected).await
    }
    async fn delete_items(&self, keys: &[ItemKey]) -> Result<(), StoreError> {
        self.inner.delete_items(keys).await
    }
    async fn put_items(
        &self,
        items: &[(ItemKey, Vec<u8>)],
        expires_at: Option<i64>,
    ) -> Result<(), StoreError> {
        if let Some((prefix, left)) = &self.failing_item_writes {
            if items.iter().any(|(key, _)| key.pk.starts_with(prefix.as_str()))
                && left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok()
            {
                return Err(unavailable("BatchWriteItem", "throttled (injected)"));
            }
        }
        self.inner.put_items(items, expires_at).await
    }
}

#[async_trait]
impl<S: PeriodStore> PeriodStore for Faulty<S> {
    async fn period_entry(&self, b: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.inner.period_entry(b, player_id).await
    }
    async fn entry_boards(&self, player_id: &str, prefix: &str) -> Result<Vec<BoardRef>, StoreError> {
        self.inner.entry_boards(player_id, prefix).await
    }
}

#[async_trait]
impl<S: podium_store::ErasureStore> podium_store::ErasureStore for Faulty<S> {
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
