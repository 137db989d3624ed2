//! The store's capabilities, one trait each, so every function asks only for what
//! it uses (and `template.yaml` grants only those DynamoDB actions).

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::Standing;
use podium_rules::settlement::LedgerEntry;

use crate::commit::{Claim, Commit, CommitOutcome, SourceKey, SourcePage, State, StoredSource};
use crate::error::StoreError;
use crate::model::{Balance, BoardKey, Item, ItemKey, LedgerPosition, SortKeyRange};

/// Reads settled sources (match results, granted rewards).
#[async_trait]
pub trait SourceStore: Send + Sync {
    /// What the source's first commit stored, if any (strongly consistent).
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError>;

    /// [`get_source`](Self::get_source) read eventually consistent (DynamoDB: half
    /// the read units, and the read may miss a write of the last second): for a
    /// record read by every settlement of a busy moment whose late sight costs
    /// nothing more than a race the caller tolerates anyway (LB-7: a week's freeze
    /// marker at Monday 00:00). The embedded store reads it as `get_source`.
    async fn get_source_eventually(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        self.get_source(key).await
    }

    /// One page of the stored source records whose kind is one of `kinds` (each with
    /// its key), after `cursor` (the position a previous page returned; `None`: from
    /// the start), examining at most `limit` items (1 to 1,000; DynamoDB: a Scan of
    /// the table, so a page may hold no record and still not be the last). Read
    /// eventually consistent: a record written during the walk may be missed. A
    /// cursor is this store's own (the caller keeps it server-side); one it did not
    /// write is [`StoreError::OutOfLimits`].
    async fn scan_sources(
        &self,
        kinds: &[&str],
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<SourcePage, StoreError>;
}

/// What settling a source needs besides reading sources: the state it plans from
/// (all reads strongly consistent) and the one atomic commit (GM-3, GM-4).
#[async_trait]
pub trait SettleStore: SourceStore {
    /// The players' current balances on `game`, in the order asked; a player with
    /// none gets [`Balance::absent`].
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError>;

    /// A player's entry on a period board, if any.
    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError>;

    /// Several players' entries on a period board, in the order asked (`None`: no
    /// entry), strongly consistent. DynamoDB: one BatchGetItem for 2 … 100 players;
    /// by default one [`get_entry`](Self::get_entry) each, concurrently.
    async fn get_entries(
        &self,
        board: &BoardRef,
        players: &[&str],
    ) -> Result<Vec<Option<Balance>>, StoreError> {
        futures::future::try_join_all(players.iter().map(|p| self.get_entry(board, p))).await
    }

    /// An opaque item ([`crate::ItemStore`]) that settlements read and that rarely
    /// changes (a game's board definitions in force, BD-12). DynamoDB: one strongly
    /// consistent GetItem, the copy then kept by this process for up to
    /// [`crate::SETTLE_ITEM_MAX_AGE`] (a write of it through this store forgets it);
    /// embedded: read each time.
    async fn settle_item(&self, key: &crate::ItemKey) -> Result<Option<crate::Item>, StoreError>;

    /// A player's state item `name`, if any.
    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError>;

    /// Several state items, `(player_id, name)` each, in the order asked (`None`:
    /// absent), strongly consistent. DynamoDB: one GetItem for one key, else one
    /// BatchGetItem per 100 keys; by default one [`get_state`](Self::get_state) each,
    /// concurrently.
    async fn get_states(&self, keys: &[(&str, &str)]) -> Result<Vec<Option<State>>, StoreError> {
        futures::future::try_join_all(keys.iter().map(|(p, n)| self.get_state(p, n))).await
    }

    /// A player's claim of `kind` on `game` for `day` (`YYYY-MM-DD`), if any.
    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError>;

    /// Whether `player_id` is active, suspended (OP-4) or deleted (GM-6): their guard
    /// item ([`crate::tombstone_key`]) absent, or holding a suspension or a deletion
    /// (strongly consistent). Commits check the guard themselves (it must be absent);
    /// this read lets a refusal name GM-6, and a suspended player's record be held.
    async fn account(&self, player_id: &str) -> Result<crate::model::Account, StoreError>;

    /// Whether `player_id` was deleted (GM-6): [`account`](Self::account) says so.
    async fn is_deleted(&self, player_id: &str) -> Result<bool, StoreError> {
        Ok(self.account(player_id).await? == crate::model::Account::Deleted)
    }

    /// Writes a settlement whole, or nothing (see [`Commit`]).
    ///
    /// Sending the same commit again (same attempt and plan) after a reply was lost
    /// is safe: it answers [`CommitOutcome::Committed`] when the store recognises the
    /// repeat (DynamoDB, within its idempotency window), else
    /// [`CommitOutcome::SourceExists`], and never writes twice. An
    /// [`StoreError::Unavailable`] on a commit leaves its outcome unknown.
    async fn commit(&self, commit: &Commit) -> Result<CommitOutcome, StoreError>;
}

/// Reads boards and balances.
#[async_trait]
pub trait BoardStore: Send + Sync {
    /// One player's balance, if they have one (eventually consistent is fine).
    async fn get_balance(&self, game: Game, player_id: &str) -> Result<Option<Balance>, StoreError>;

    /// Up to `limit` entries after `after` (from the top when `None`), in LB-2 listing
    /// order; `limit` 0 reads nothing.
    async fn board_after(
        &self,
        board: &BoardRef,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError>;

    /// Up to `limit` entries before `before`, nearest first (listing order reversed);
    /// `limit` 0 reads nothing.
    async fn board_before(
        &self,
        board: &BoardRef,
        before: &BoardKey,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError>;

    /// How many partition-key shards the board is spread over (1: one ordered board).
    fn board_shards(&self) -> u32;

    /// Up to `limit` entries of one shard (0 … [`board_shards`](Self::board_shards) − 1)
    /// after `after`, in listing order: for reading a whole board shard by shard.
    async fn shard_after(
        &self,
        board: &BoardRef,
        shard: u32,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError>;

    /// How many entries come before `key` in listing order. With
    /// [`BoardKey::first_of_value`] this is the count of strictly better values.
    async fn count_before(&self, board: &BoardRef, key: &BoardKey) -> Result<u64, StoreError>;
}

/// Reads a player's ledger (GM-4).
#[async_trait]
pub trait LedgerStore: Send + Sync {
    /// Every ledger entry of `player_id` on `game`, in source order (strongly consistent).
    async fn ledger_entries(&self, game: Game, player_id: &str) -> Result<Vec<LedgerEntry>, StoreError>;

    /// Up to `limit` ledger entries of `player_id` on `game`, newest first (see
    /// [`LedgerPosition`]), after `after` (from the newest when `None`); `limit` 0
    /// reads nothing. DynamoDB: one Query of the `ledger` GSI (eventually consistent).
    async fn ledger_page(
        &self,
        game: Game,
        player_id: &str,
        after: Option<&LedgerPosition>,
        limit: usize,
    ) -> Result<Vec<LedgerEntry>, StoreError>;
}

/// Items that only podium's own jobs write (snapshot runs, pages, pointers): an opaque
/// body under a partition key and a sort key, with a version for conditional writes.
#[async_trait]
pub trait ItemStore: Send + Sync {
    /// This store's identity among those one process opens, the same for its clones: a
    /// copy a process keeps of what it read (a board definition) is kept per store.
    /// Embedded: a number given when opened; DynamoDB: a hash of the table's name.
    fn scope(&self) -> u64;

    /// The item's body and version, if it exists (strongly consistent when `consistent`).
    async fn get_item(&self, key: &ItemKey, consistent: bool) -> Result<Option<Item>, StoreError>;

    /// Several items, in the order asked (`None`: absent), strongly consistent when
    /// `consistent`. DynamoDB: one BatchGetItem per 100 keys (unprocessed keys sent
    /// again); by default one [`get_item`](Self::get_item) each, concurrently.
    async fn get_items(&self, keys: &[ItemKey], consistent: bool) -> Result<Vec<Option<Item>>, StoreError> {
        futures::future::try_join_all(keys.iter().map(|k| self.get_item(k, consistent))).await
    }

    /// Writes `body` at version `expected + 1` if the stored version is `expected`
    /// (0: the item must not exist). `Ok(false)`: the condition failed, nothing written.
    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError>;

    /// Writes every `(key, body, expected)` as [`put_item_if`](Self::put_item_if)
    /// does, all or none: `Ok(true)` all written, `Ok(false)` some item's condition
    /// failed and nothing was written. At most 100 items with distinct keys, 4 MB in all
    /// ([`crate::model::MAX_TRANSACTION_BYTES`]); an item over
    /// the size limit ([`crate::check_item`]) is [`StoreError::OutOfLimits`] before
    /// anything is sent. DynamoDB: one `TransactWriteItems` (one `PutItem` for one
    /// item); embedded: one write transaction.
    async fn put_items_if(&self, writes: &[(ItemKey, Vec<u8>, u64)]) -> Result<bool, StoreError>;

    /// Up to `limit` items of partition `pk` whose sort keys are in `range`, with
    /// their sort keys, in sort-key order (`forward`) or reversed; `limit` 0 reads
    /// nothing. Eventually consistent unless `consistent`.
    async fn query_items(
        &self,
        pk: &str,
        range: &SortKeyRange,
        forward: bool,
        limit: usize,
        consistent: bool,
    ) -> Result<Vec<(String, Item)>, StoreError>;

    /// Deletes the item if its stored version is still `expected` (a change mark read at
    /// that version). `Ok(false)`: it is absent or was written since; nothing deleted.
    async fn delete_item_if(&self, key: &ItemKey, expected: u64) -> Result<bool, StoreError>;

    /// Deletes these items (those that exist), in as few requests as the store allows.
    async fn delete_items(&self, keys: &[ItemKey]) -> Result<(), StoreError>;

    /// Writes many items unconditionally (version 1), in as few requests as the store
    /// allows. With `expires_at` (seconds since the Unix epoch, UTC) the store may delete
    /// them after that instant (DynamoDB's TTL; the embedded store keeps them).
    async fn put_items(
        &self,
        items: &[(ItemKey, Vec<u8>)],
        expires_at: Option<i64>,
    ) -> Result<(), StoreError>;
}

/// Period boards (LB-1, MJ-20): a player's value in one period.
#[async_trait]
pub trait PeriodStore: Send + Sync {
    /// A player's entry on `board` (a board in one period), if any (strongly consistent).
    async fn period_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError>;

    /// The boards (each in one period) whose storage name (`{board}@{period}`) starts
    /// with `prefix` and on which `player_id` has an entry, in storage-name order
    /// (eventually consistent): what a change to what their entries show marks
    /// (PF-5, OP-4). DynamoDB: one Query of the player's partition over the sort keys
    /// `BOARD#{prefix}…` (paged), billed by the entries read (about 0.2 KB each: one
    /// read unit per 40 entries or so), nothing else of the player's read. Embedded: a
    /// range read of the player's own period entries (`p/{player}/e/{prefix}…`).
    async fn entry_boards(&self, player_id: &str, prefix: &str) -> Result<Vec<BoardRef>, StoreError>;
}

/// What the store keeps under one player (GM-6): what a deletion removes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holdings {
    /// Games the player has a balance on (listed on the game's all-time board, if any).
    pub balances: Vec<Game>,
    /// Period boards (a board in one period) the player has an entry on.
    pub entries: Vec<BoardRef>,
    /// Every ledger entry of the player, all games.
    pub ledger: Vec<LedgerEntry>,
    /// Once-a-day claims and state items (streaks, inventories) held.
    pub claims: usize,
    pub states: usize,
    /// The claims as stored: (`{game}/{kind}/{day}`, body), for a player's export.
    pub claim_items: Vec<(String, String)>,
    /// The state items as stored: (name, body), for a player's export.
    pub state_items: Vec<(String, String)>,
    /// Items elsewhere that name the player ([`crate::Reference`]): results that pay
    /// them nothing, others' state items that list them.
    pub refs: Vec<crate::Named>,
}

impl Holdings {
    /// Whether the store keeps nothing under the player.
    pub fn is_empty(&self) -> bool {
        self.balances.is_empty()
            && self.entries.is_empty()
            && self.ledger.is_empty()
            && self.claims == 0
            && self.states == 0
            && self.refs.is_empty()
    }
}

/// Erasing a player (GM-6, account removal). Only `podium_service::operators::deletion` calls it,
/// after the player's tombstone is in place, so no commit writes under the player
/// meanwhile. Not part of [`Store`]: only the deletion entry points need it.
#[async_trait]
pub trait ErasureStore: Send + Sync {
    /// Everything the store keeps under `player_id` (strongly consistent). DynamoDB:
    /// one Query of the player's partition (paged). Embedded: a scan of the period
    /// entries (the local store only).
    async fn holdings(&self, player_id: &str) -> Result<Holdings, StoreError>;

    /// Removes the player's balances and period entries (so from every live board),
    /// claims and state items, and moves each ledger entry to `pseudonym`: the entry
    /// with `player_id` replaced by `pseudonym`, and any occurrence of the id in its
    /// `source_id` too (a daily bonus's id names its player). Safe to repeat and to
    /// resume: the moved copy is written before the original is deleted.
    async fn erase_holdings(&self, player_id: &str, pseudonym: &str) -> Result<(), StoreError>;

    /// Replaces the result document of a settled source (an anonymised copy), keeping
    /// its content hash and attempt. `Ok(false)`: no such source is stored.
    async fn replace_source_result(&self, key: &SourceKey, result: &str) -> Result<bool, StoreError>;

    /// Replaces the body of `owner`'s state item `name` (an anonymised copy), if its
    /// version is still `version`, raising it by one. `Ok(false)`: it moved meanwhile
    /// (read it again), or no such item is stored.
    async fn replace_state(
        &self,
        owner: &str,
        name: &str,
        body: &str,
        version: u64,
    ) -> Result<bool, StoreError>;

    /// Moves a settled source to the key `to` (a key that named the deleted player,
    /// renamed), with `result`, its content hash and attempt kept: `to` is written
    /// (unless it exists), then `from` deleted, so a call that stops midway is
    /// finished by the next. `Ok(false)`: `from` is not stored.
    async fn move_source(&self, from: &SourceKey, to: &SourceKey, result: &str) -> Result<bool, StoreError>;
}

/// Every capability: what the local binary, the HTTP functions (a player's export
/// reads their holdings) and the contract tests use.
pub trait Store: SettleStore + BoardStore + LedgerStore + ItemStore + PeriodStore + ErasureStore {}
impl<T: SettleStore + BoardStore + LedgerStore + ItemStore + PeriodStore + ErasureStore> Store for T {}
