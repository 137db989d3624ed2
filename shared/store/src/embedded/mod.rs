//! The embedded in-process store: one `redb` database file (or memory), the local
//! default. Every settlement is written inside one redb write transaction, so it is
//! atomic and serialised with every other write, across threads and processes;
//! settlements committed concurrently share a transaction and its sync to disk
//! (`group_commit`).

mod batch;
mod group_commit;

pub use batch::EmbeddedBatch;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::history::KeyHistory;
use podium_rules::leaderboard::Standing;
use podium_rules::settlement::LedgerEntry;
use redb::backends::InMemoryBackend;
use redb::{ConcurrencyMode, Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};

use crate::commit::{Claim, Commit, CommitOutcome, SourceKey, State, StoredSource};
use crate::error::StoreError;
use crate::model::{
    balance_board, board_game, check_key, tombstone_key, Balance, BoardKey, Item, ItemKey, LedgerPosition,
    SortKeyRange,
};
use crate::traits::{
    BoardStore, ErasureStore, Holdings, ItemStore, LedgerStore, PeriodStore, SettleStore, SourceStore,
};

/// Items by key: `source/{kind}/{id}`, `balance/{game}/{player}`,
/// `period/{board}@{period}/{player}`, `claim/{player}/{game}/{kind}/{day}`,
/// `state/{player}/{name}`, `ledger/{player}/{game}/{source}/{id}`,
/// `ref/{player}/{named item's key}` (GM-6: [`crate::Reference`]).
const ITEMS: TableDefinition<&str, &[u8]> = TableDefinition::new("items");
/// Board entries: `{game}/{encoded BoardKey}` → nothing; ordered as LB-2 lists them.
const BOARD: TableDefinition<&str, ()> = TableDefinition::new("board");
/// Ledger entries by instant: `{player}\u{0}{LedgerPosition::index_key}` → the entry.
const LEDGER_BY_TIME: TableDefinition<&str, &[u8]> = TableDefinition::new("ledger_by_time");
/// Opaque items of [`ItemStore`]: `{pk}\u{0}{sk}` → 8-byte big-endian version, then the body.
const BLOBS: TableDefinition<&str, &[u8]> = TableDefinition::new("blobs");

/// The embedded store. Cheap to clone; clones share the database.
#[derive(Clone)]
pub struct EmbeddedStore {
    db: Arc<Database>,
    commits: group_commit::GroupCommit,
}

#[derive(Serialize, Deserialize)]
struct BalanceItem {
    points: i64,
    version: u64,
    reached_at_ms: i64,
    #[serde(default)]
    history: KeyHistory,
}

#[derive(Serialize, Deserialize)]
struct SourceItem {
    content_hash: String,
    attempt: Option<String>,
    result: String,
}

#[derive(Serialize, Deserialize)]
struct StateItem {
    version: u64,
    body: String,
}

impl EmbeddedStore {
    /// Opens (or creates) the database file at `path`; several processes may share it.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Embedded(e.to_string()))?;
        }
        let db = Database::builder()
            .set_concurrency_mode(ConcurrencyMode::MultiWriter)
            .create(path)?;
        Self::init(db)
    }

    /// A fresh store in memory, gone when dropped (tests, dry runs).
    pub fn in_memory() -> Result<Self, StoreError> {
        let db = Database::builder().create_with_backend(InMemoryBackend::new())?;
        Self::init(db)
    }

    fn init(db: Database) -> Result<Self, StoreError> {
        let txn = db.begin_write()?;
        txn.open_table(ITEMS)?;
        txn.open_table(BOARD)?;
        txn.open_table(BLOBS)?;
        txn.commit()?;
        Ok(EmbeddedStore {
            db: Arc::new(db),
            commits: group_commit::GroupCommit::default(),
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
        let board = BoardRef::all_time(game.id());
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
                items.insert(balance_key(game, &s.player_id).as_str(), encode(&item).as_slice())?;
                let key = BoardKey {
                    value: s.value,
                    reached_at_ms: s.reached_at_ms,
                    player_id: s.player_id,
                };
                entries.insert(board_entry(&board, &key).as_str(), ())?;
                n += 1;
            }
        }
        txn.commit()?;
        Ok(n)
    }

    /// Runs blocking database work (scans, writes) off the async runtime's worker threads.
    async fn blocking<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    {
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(|e| StoreError::Embedded(format!("store task failed: {e}")))?
    }
}

fn source_key(key: &SourceKey) -> String {
    format!("source/{}/{}", key.kind, key.id)
}

fn claim_key(player: &str, game: Game, kind: &str, day: &str) -> String {
    format!("claim/{player}/{}/{kind}/{day}", game.id())
}

fn state_key(player: &str, name: &str) -> String {
    format!("state/{player}/{name}")
}

fn balance_key(game: Game, player: &str) -> String {
    format!("balance/{}/{player}", game.id())
}

fn ledger_prefix(game: Game, player: &str) -> String {
    format!("ledger/{player}/{}/", game.id())
}

fn board_prefix(board: &BoardRef) -> String {
    format!("{}/", board.key())
}

fn board_entry(board: &BoardRef, key: &BoardKey) -> String {
    format!("{}{}", board_prefix(board), key.encode())
}

fn decode<T: for<'de> Deserialize<'de>>(key: &str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::corrupt(key, e))
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Plain structs of strings and integers always serialise.
    serde_json::to_vec(value).unwrap_or_default()
}

fn read_balance(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    game: Game,
    player: &str,
) -> Result<Option<Balance>, StoreError> {
    read_entry(table, &balance_key(game, player), player, game)
}

/// A board entry (a balance, or a value on a period board) stored under `key`.
fn read_entry(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
    player: &str,
    game: Game,
) -> Result<Option<Balance>, StoreError> {
    let Some(v) = table.get(key)? else {
        return Ok(None);
    };
    let item: BalanceItem = decode(key, v.value())?;
    Ok(Some(Balance {
        player_id: player.to_string(),
        game,
        points: item.points,
        version: item.version,
        reached_at_ms: item.reached_at_ms,
        history: item.history,
    }))
}

/// Replaces the board entry `old` (if any) of `board` by `new` in the board table.
fn move_entry(
    board_table: &mut redb::Table<'_, &'static str, ()>,
    board: &BoardRef,
    old: Option<BoardKey>,
    new: BoardKey,
) -> Result<(), StoreError> {
    if let Some(old) = old {
        board_table.remove(board_entry(board, &old).as_str())?;
    }
    board_table.insert(board_entry(board, &new).as_str(), ())?;
    Ok(())
}

/// Checks every condition of `c`, then writes it whole; on any other outcome it has
/// written nothing, so the transaction may go on with other commits.
fn commit_in(txn: &WriteTransaction, c: &Commit) -> Result<CommitOutcome, StoreError> {
    let mut items = txn.open_table(ITEMS)?;
    let skey = source_key(&c.source);
    if items.get(skey.as_str())?.is_some() {
        return Ok(CommitOutcome::SourceExists);
    }
    for (i, claim) in c.claims.iter().enumerate() {
        let key = claim_key(&claim.player_id, claim.game, &claim.kind, &claim.day);
        if items.get(key.as_str())?.is_some() {
            return Ok(CommitOutcome::ClaimTaken(i));
        }
    }
    // GM-6: no write for a player whose deletion has begun (DynamoDB's guards).
    let players = c.players();
    if !players.is_empty() {
        let blobs = txn.open_table(BLOBS)?;
        for player in players {
            if blobs.get(blob_key(&tombstone_key(player)).as_str())?.is_some() {
                return Ok(CommitOutcome::PlayerDeleted(player.to_string()));
            }
        }
    }
    let mut old_balances = Vec::new();
    for w in &c.balances {
        let current = read_balance(&items, w.game, &w.player_id)?;
        let version = current.as_ref().map_or(0, |b| b.version);
        if version != w.expected_version || (w.must_exist && current.is_none()) {
            return Ok(CommitOutcome::Contended);
        }
        old_balances.push(current.map(|b| b.board_key()));
    }
    let mut old_entries = Vec::new();
    for w in &c.entries {
        let current = read_period(&items, &w.board, &w.player_id)?;
        if current.as_ref().map_or(0, |b| b.version) != w.expected_version {
            return Ok(CommitOutcome::Contended);
        }
        old_entries.push(current.map(|b| b.board_key()));
    }
    for w in &c.states {
        let key = state_key(&w.player_id, &w.name);
        let version = match items.get(key.as_str())? {
            Some(v) => decode::<StateItem>(&key, v.value())?.version,
            None => 0,
        };
        if version != w.expected_version {
            return Ok(CommitOutcome::Contended);
        }
    }
    for e in &c.ledger {
        if items.get(ledger_key(e).as_str())?.is_some() {
            return Ok(CommitOutcome::SourceExists);
        }
    }
    // Every condition holds: write it all.
    let stored = SourceItem {
        content_hash: c.content_hash.clone(),
        attempt: Some(c.attempt.clone()),
        result: c.result.clone(),
    };
    items.insert(skey.as_str(), encode(&stored).as_slice())?;
    for claim in &c.claims {
        let key = claim_key(&claim.player_id, claim.game, &claim.kind, &claim.day);
        items.insert(key.as_str(), claim.body.as_bytes())?;
    }
    let mut board_table = txn.open_table(BOARD)?;
    for (w, old) in c.balances.iter().zip(old_balances) {
        let item = BalanceItem {
            points: w.points,
            version: w.expected_version + 1,
            reached_at_ms: w.reached_at_ms,
            history: w.history.clone(),
        };
        items.insert(
            balance_key(w.game, &w.player_id).as_str(),
            encode(&item).as_slice(),
        )?;
        if let Some(board) = balance_board(w.game) {
            let new = BoardKey {
                value: w.points,
                reached_at_ms: w.reached_at_ms,
                player_id: w.player_id.clone(),
            };
            move_entry(&mut board_table, &board, old, new)?;
        }
    }
    for (w, old) in c.entries.iter().zip(old_entries) {
        let item = BalanceItem {
            points: w.value,
            version: w.expected_version + 1,
            reached_at_ms: w.reached_at_ms,
            history: w.history.clone(),
        };
        items.insert(
            period_key(&w.board, &w.player_id).as_str(),
            encode(&item).as_slice(),
        )?;
        let new = BoardKey {
            value: w.value,
            reached_at_ms: w.reached_at_ms,
            player_id: w.player_id.clone(),
        };
        move_entry(&mut board_table, &w.board, old, new)?;
    }
    for w in &c.states {
        let item = StateItem {
            version: w.expected_version + 1,
            body: w.body.clone(),
        };
        items.insert(
            state_key(&w.player_id, &w.name).as_str(),
            encode(&item).as_slice(),
        )?;
    }
    if !c.ledger.is_empty() {
        let mut by_time = txn.open_table(LEDGER_BY_TIME)?;
        for e in &c.ledger {
            let body = encode(e);
            items.insert(ledger_key(e).as_str(), body.as_slice())?;
            by_time.insert(ledger_time_key(e).as_str(), body.as_slice())?;
        }
    }
    for r in &c.refs {
        let body = serde_json::to_vec(&r.named).map_err(|e| StoreError::corrupt("reference", e))?;
        items.insert(ref_key(&r.player_id, &r.named).as_str(), body.as_slice())?;
    }
    if !c.marks.is_empty() {
        let mut blobs = txn.open_table(BLOBS)?;
        for m in &c.marks {
            check_key(&m.key.pk, &m.key.sk)?;
            let key = blob_key(&m.key);
            let version = blobs
                .get(key.as_str())?
                .map_or(0, |v| read_blob(v.value()).version);
            blobs.insert(key.as_str(), blob(version + 1, &m.body).as_slice())?;
        }
    }
    Ok(CommitOutcome::Committed)
}

fn ref_key(player: &str, named: &crate::Named) -> String {
    format!("ref/{player}/{}", named.key())
}

fn ledger_time_key(e: &LedgerEntry) -> String {
    format!("{}\u{0}{}", e.player_id, LedgerPosition::of(e).index_key(e.game))
}

fn ledger_key(e: &LedgerEntry) -> String {
    format!(
        "{}{}/{}",
        ledger_prefix(e.game, &e.player_id),
        e.source,
        e.source_id
    )
}

fn read_source(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &SourceKey,
) -> Result<Option<StoredSource>, StoreError> {
    let key = source_key(key);
    let Some(v) = table.get(key.as_str())? else {
        return Ok(None);
    };
    let item: SourceItem = decode(&key, v.value())?;
    Ok(Some(StoredSource {
        content_hash: item.content_hash,
        attempt: item.attempt,
        result: item.result,
    }))
}

fn read_balances(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    game: Game,
    players: &[&str],
) -> Result<Vec<Balance>, StoreError> {
    players
        .iter()
        .map(|p| Ok(read_balance(table, game, p)?.unwrap_or_else(|| Balance::absent(game, p))))
        .collect()
}

fn read_state(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    player_id: &str,
    name: &str,
) -> Result<Option<State>, StoreError> {
    let key = state_key(player_id, name);
    let Some(v) = table.get(key.as_str())? else {
        return Ok(None);
    };
    let item: StateItem = decode(&key, v.value())?;
    Ok(Some(State {
        body: item.body,
        version: item.version,
    }))
}

fn read_claim(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    player_id: &str,
    game: Game,
    kind: &str,
    day: &str,
) -> Result<Option<Claim>, StoreError> {
    let key = claim_key(player_id, game, kind, day);
    Ok(table.get(key.as_str())?.map(|v| Claim {
        body: String::from_utf8_lossy(v.value()).into_owned(),
    }))
}

// Point reads (a few items by key) run in place: a redb read transaction never waits
// for writers, and a handful of cached pages costs less than handing the work to
// another thread and back.

#[async_trait]
impl SourceStore for EmbeddedStore {
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        let txn = self.db.begin_read()?;
        read_source(&txn.open_table(ITEMS)?, key)
    }
}

#[async_trait]
impl SettleStore for EmbeddedStore {
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        let txn = self.db.begin_read()?;
        read_balances(&txn.open_table(ITEMS)?, game, players)
    }

    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.period_entry(board, player_id).await
    }

    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError> {
        let txn = self.db.begin_read()?;
        read_state(&txn.open_table(ITEMS)?, player_id, name)
    }

    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError> {
        let txn = self.db.begin_read()?;
        read_claim(&txn.open_table(ITEMS)?, player_id, game, kind, day)
    }

    async fn is_deleted(&self, player_id: &str) -> Result<bool, StoreError> {
        Ok(self.get_item(&tombstone_key(player_id), true).await?.is_some())
    }

    async fn commit(&self, commit: &Commit) -> Result<CommitOutcome, StoreError> {
        self.commits
            .commit(Arc::clone(&self.db), commit.clone(), commit_in)
            .await
    }
}

#[async_trait]
impl BoardStore for EmbeddedStore {
    async fn get_balance(&self, game: Game, player_id: &str) -> Result<Option<Balance>, StoreError> {
        let txn = self.db.begin_read()?;
        read_balance(&txn.open_table(ITEMS)?, game, player_id)
    }

    async fn board_after(
        &self,
        board: &BoardRef,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        let prefix = board_prefix(board);
        let after = after.map(|k| board_entry(board, k));
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let board = txn.open_table(BOARD)?;
            let end = format!("{}\u{10FFFF}", prefix);
            let range = match &after {
                Some(a) => board.range::<&str>((
                    std::ops::Bound::Excluded(a.as_str()),
                    std::ops::Bound::Excluded(end.as_str()),
                ))?,
                None => board.range::<&str>(prefix.as_str()..end.as_str())?,
            };
            collect(range, &prefix, limit)
        })
        .await
    }

    async fn board_before(
        &self,
        board: &BoardRef,
        before: &BoardKey,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        let prefix = board_prefix(board);
        let before = board_entry(board, before);
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let board = txn.open_table(BOARD)?;
            let range = board.range::<&str>(prefix.as_str()..before.as_str())?.rev();
            collect(range, &prefix, limit)
        })
        .await
    }

    fn board_shards(&self) -> u32 {
        1
    }

    async fn shard_after(
        &self,
        board: &BoardRef,
        _shard: u32,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.board_after(board, after, limit).await
    }

    async fn count_before(&self, board: &BoardRef, key: &BoardKey) -> Result<u64, StoreError> {
        let prefix = board_prefix(board);
        let before = board_entry(board, key);
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let board = txn.open_table(BOARD)?;
            let mut n = 0u64;
            for entry in board.range::<&str>(prefix.as_str()..before.as_str())? {
                entry?;
                n += 1;
            }
            Ok(n)
        })
        .await
    }
}

#[async_trait]
impl LedgerStore for EmbeddedStore {
    async fn ledger_entries(&self, game: Game, player_id: &str) -> Result<Vec<LedgerEntry>, StoreError> {
        let prefix = ledger_prefix(game, player_id);
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let items = txn.open_table(ITEMS)?;
            let end = format!("{prefix}\u{10FFFF}");
            let mut out = Vec::new();
            for entry in items.range::<&str>(prefix.as_str()..end.as_str())? {
                let (k, v) = entry?;
                out.push(decode(k.value(), v.value())?);
            }
            Ok(out)
        })
        .await
    }

    async fn ledger_page(
        &self,
        game: Game,
        player_id: &str,
        after: Option<&LedgerPosition>,
        limit: usize,
    ) -> Result<Vec<LedgerEntry>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let start = format!("{player_id}\u{0}{}#", game.id());
        let end = match after {
            Some(at) => format!("{player_id}\u{0}{}", at.index_key(game)),
            None => format!("{player_id}\u{0}{}$", game.id()),
        };
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let table = match txn.open_table(LEDGER_BY_TIME) {
                Ok(t) => t,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(e) => return Err(e.into()),
            };
            let mut out = Vec::new();
            for entry in table
                .range::<&str>(start.as_str()..end.as_str())?
                .rev()
                .take(limit)
            {
                let (k, v) = entry?;
                out.push(decode(k.value(), v.value())?);
            }
            Ok(out)
        })
        .await
    }
}

fn blob_key(key: &ItemKey) -> String {
    format!("{}\u{0}{}", key.pk, key.sk)
}

fn read_blob(raw: &[u8]) -> Item {
    let (version, body) = raw.split_at(raw.len().min(8));
    let mut v = [0u8; 8];
    v[..version.len()].copy_from_slice(version);
    Item {
        body: body.to_vec(),
        version: u64::from_be_bytes(v),
    }
}

fn blob(version: u64, body: &[u8]) -> Vec<u8> {
    let mut raw = version.to_be_bytes().to_vec();
    raw.extend_from_slice(body);
    raw
}

#[async_trait]
impl ItemStore for EmbeddedStore {
    async fn get_item(&self, key: &ItemKey, _consistent: bool) -> Result<Option<Item>, StoreError> {
        check_key(&key.pk, &key.sk)?;
        let key = blob_key(key);
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let blobs = txn.open_table(BLOBS)?;
            Ok(blobs.get(key.as_str())?.map(|v| read_blob(v.value())))
        })
        .await
    }

    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError> {
        check_key(&key.pk, &key.sk)?;
        let key = blob_key(key);
        let body = body.to_vec();
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            let written = {
                let mut blobs = txn.open_table(BLOBS)?;
                let current = blobs
                    .get(key.as_str())?
                    .map_or(0, |v| read_blob(v.value()).version);
                if current == expected {
                    blobs.insert(key.as_str(), blob(expected + 1, &body).as_slice())?;
                    true
                } else {
                    false
                }
            };
            if written {
                txn.commit()?;
            } else {
                txn.abort()?;
            }
            Ok(written)
        })
        .await
    }

    async fn put_items(
        &self,
        items: &[(ItemKey, Vec<u8>)],
        _expires_at: Option<i64>,
    ) -> Result<(), StoreError> {
        for (k, _) in items {
            check_key(&k.pk, &k.sk)?;
        }
        let items: Vec<(String, Vec<u8>)> = items.iter().map(|(k, b)| (blob_key(k), blob(1, b))).collect();
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            {
                let mut blobs = txn.open_table(BLOBS)?;
                for (k, raw) in &items {
                    blobs.insert(k.as_str(), raw.as_slice())?;
                }
            }
            txn.commit()?;
            Ok(())
        })
        .await
    }

    async fn query_items(
        &self,
        pk: &str,
        range: &SortKeyRange,
        forward: bool,
        limit: usize,
        _consistent: bool,
    ) -> Result<Vec<(String, Item)>, StoreError> {
        check_key(pk, range.bound().unwrap_or("-"))?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let prefix = format!("{pk}\u{0}");
        let end = format!("{pk}\u{1}");
        let full = |sk: &str| format!("{prefix}{sk}");
        use std::ops::Bound::{Excluded, Included};
        let (lo, hi) = match range {
            SortKeyRange::All => (Included(prefix.clone()), Excluded(end)),
            SortKeyRange::Before(sk) => (Included(prefix.clone()), Excluded(full(sk))),
            SortKeyRange::AtOrBefore(sk) => (Included(prefix.clone()), Included(full(sk))),
            SortKeyRange::After(sk) => (Excluded(full(sk)), Excluded(end)),
            SortKeyRange::AtOrAfter(sk) => (Included(full(sk)), Excluded(end)),
        };
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let blobs = txn.open_table(BLOBS)?;
            let bounds = (lo.as_ref().map(String::as_str), hi.as_ref().map(String::as_str));
            let range = blobs.range::<&str>(bounds)?;
            let mut out = Vec::new();
            let mut push = |entry: Result<
                (redb::AccessGuard<'_, &str>, redb::AccessGuard<'_, &[u8]>),
                redb::StorageError,
            >|
             -> Result<bool, StoreError> {
                let (k, v) = entry?;
                let sk = k.value()[prefix.len()..].to_string();
                out.push((sk, read_blob(v.value())));
                Ok(out.len() < limit)
            };
            if forward {
                for entry in range {
                    if !push(entry)? {
                        break;
                    }
                }
            } else {
                for entry in range.rev() {
                    if !push(entry)? {
                        break;
                    }
                }
            }
            Ok(out)
        })
        .await
    }

    async fn delete_item_if(&self, key: &ItemKey, expected: u64) -> Result<bool, StoreError> {
        check_key(&key.pk, &key.sk)?;
        let key = blob_key(key);
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            let deleted = {
                let mut blobs = txn.open_table(BLOBS)?;
                let current = blobs.get(key.as_str())?.map(|v| read_blob(v.value()).version);
                if current == Some(expected) {
                    blobs.remove(key.as_str())?;
                    true
                } else {
                    false
                }
            };
            if deleted {
                txn.commit()?;
            } else {
                txn.abort()?;
            }
            Ok(deleted)
        })
        .await
    }

    async fn delete_items(&self, keys: &[ItemKey]) -> Result<(), StoreError> {
        for k in keys {
            check_key(&k.pk, &k.sk)?;
        }
        let keys: Vec<String> = keys.iter().map(blob_key).collect();
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            {
                let mut blobs = txn.open_table(BLOBS)?;
                for k in &keys {
                    blobs.remove(k.as_str())?;
                }
            }
            txn.commit()?;
            Ok(())
        })
        .await
    }
}

fn period_key(board: &BoardRef, player: &str) -> String {
    format!("period/{}/{player}", board.key())
}

fn read_period(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    board: &BoardRef,
    player: &str,
) -> Result<Option<Balance>, StoreError> {
    read_entry(table, &period_key(board, player), player, board_game(board))
}

#[async_trait]
impl PeriodStore for EmbeddedStore {
    async fn period_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        let txn = self.db.begin_read()?;
        read_period(&txn.open_table(ITEMS)?, board, player_id)
    }
}

type BoardEntry = Result<
    (
        redb::AccessGuard<'static, &'static str>,
        redb::AccessGuard<'static, ()>,
    ),
    redb::StorageError,
>;

fn collect(
    entries: impl Iterator<Item = BoardEntry>,
    prefix: &str,
    limit: usize,
) -> Result<Vec<Standing>, StoreError> {
    let mut out = Vec::with_capacity(limit);
    for entry in entries.take(limit) {
        let (k, _) = entry?;
        let raw = k.value();
        let key = raw
            .strip_prefix(prefix)
            .and_then(BoardKey::decode)
            .ok_or_else(|| StoreError::corrupt(raw, "not a board key"))?;
        out.push(key.into_standing());
    }
    Ok(out)
}

/// Every game, for the balances a player may hold.
const GAMES: [Game; 4] = [
    Game::Seega,
    Game::DotsAndBoxes,
    Game::Minesweeper,
    Game::MahjongRivals,
];

/// What the store keeps under `player`, and the keys of their items (balances,
/// period entries, claims, states, ledger entries). Period entries are found by a
/// scan of every period entry (`period/{board}@{period}/{player}`): fine locally.
fn player_items(
    items: &impl ReadableTable<&'static str, &'static [u8]>,
    player: &str,
) -> Result<(Holdings, Vec<String>), StoreError> {
    let mut out = Holdings::default();
    let mut found: Vec<String> = Vec::new();
    for game in GAMES {
        let key = balance_key(game, player);
        if items.get(key.as_str())?.is_some() {
            out.balances.push(game);
            found.push(key);
        }
    }
    let suffix = format!("/{player}");
    for entry in items.range::<&str>("period/".."period0")? {
        let (k, _) = entry?;
        let key = k.value();
        let Some(board) = key
            .strip_prefix("period/")
            .and_then(|r| r.strip_suffix(suffix.as_str()))
        else {
            continue;
        };
        if board.contains('/') {
            continue;
        }
        if let Some((board, period)) = board.split_once('@') {
            out.entries.push(BoardRef::new(board, period));
            found.push(key.to_string());
        }
    }
    for (prefix, kind) in [("claim", 0), ("state", 1), ("ledger", 2), ("ref", 3)] {
        let start = format!("{prefix}/{player}/");
        let end = format!("{prefix}/{player}0");
        for entry in items.range::<&str>(start.as_str()..end.as_str())? {
            let (k, v) = entry?;
            match kind {
                0 => out.claims += 1,
                1 => out.states += 1,
                2 => out.ledger.push(decode(k.value(), v.value())?),
                _ => out
                    .refs
                    .push(serde_json::from_slice(v.value()).map_err(|e| StoreError::corrupt(k.value(), e))?),
            }
            found.push(k.value().to_string());
        }
    }
    Ok((out, found))
}

#[async_trait]
impl ErasureStore for EmbeddedStore {
    async fn holdings(&self, player_id: &str) -> Result<Holdings, StoreError> {
        let player = player_id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            Ok(player_items(&txn.open_table(ITEMS)?, &player)?.0)
        })
        .await
    }

    /// One write transaction: the moved ledger entries written, every item of the
    /// player and their board entries removed.
    async fn erase_holdings(&self, player_id: &str, pseudonym: &str) -> Result<(), StoreError> {
        let (player, pseudonym) = (player_id.to_string(), pseudonym.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            {
                let mut items = txn.open_table(ITEMS)?;
                let mut board_table = txn.open_table(BOARD)?;
                let (holdings, found) = player_items(&items, &player)?;
                let mut by_time = txn.open_table(LEDGER_BY_TIME)?;
                for e in &holdings.ledger {
                    let moved = crate::dynamo::pseudonymised(e, &player, &pseudonym);
                    items.insert(ledger_key(&moved).as_str(), encode(&moved).as_slice())?;
                    by_time.remove(ledger_time_key(e).as_str())?;
                    by_time.insert(ledger_time_key(&moved).as_str(), encode(&moved).as_slice())?;
                }
                for game in &holdings.balances {
                    if let (Some(board), Some(b)) =
                        (balance_board(*game), read_balance(&items, *game, &player)?)
                    {
                        board_table.remove(board_entry(&board, &b.board_key()).as_str())?;
                    }
                }
                for board in &holdings.entries {
                    if let Some(b) = read_period(&items, board, &player)? {
                        board_table.remove(board_entry(board, &b.board_key()).as_str())?;
                    }
                }
                for key in found {
                    items.remove(key.as_str())?;
                }
            }
            txn.commit()?;
            Ok(())
        })
        .await
    }

    async fn replace_source_result(&self, key: &SourceKey, result: &str) -> Result<bool, StoreError> {
        let (skey, result) = (source_key(key), result.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            let replaced = {
                let mut items = txn.open_table(ITEMS)?;
                let stored = match items.get(skey.as_str())? {
                    Some(v) => Some(decode::<SourceItem>(&skey, v.value())?),
                    None => None,
                };
                match stored {
                    Some(mut stored) => {
                        stored.result = result;
                        items.insert(skey.as_str(), encode(&stored).as_slice())?;
                        true
                    }
                    None => false,
                }
            };
            txn.commit()?;
            Ok(replaced)
        })
        .await
    }

    async fn move_source(&self, from: &SourceKey, to: &SourceKey, result: &str) -> Result<bool, StoreError> {
        let (from, to, result) = (source_key(from), source_key(to), result.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            let moved = {
                let mut items = txn.open_table(ITEMS)?;
                let stored = match items.get(from.as_str())? {
                    Some(v) => Some(decode::<SourceItem>(&from, v.value())?),
                    None => None,
                };
                match stored {
                    Some(mut stored) => {
                        stored.result = result;
                        if items.get(to.as_str())?.is_none() {
                            items.insert(to.as_str(), encode(&stored).as_slice())?;
                        }
                        items.remove(from.as_str())?;
                        true
                    }
                    None => false,
                }
            };
            txn.commit()?;
            Ok(moved)
        })
        .await
    }

    async fn replace_state(
        &self,
        owner: &str,
        name: &str,
        body: &str,
        version: u64,
    ) -> Result<bool, StoreError> {
        let (key, body) = (state_key(owner, name), body.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            let replaced = {
                let mut items = txn.open_table(ITEMS)?;
                let stored = match items.get(key.as_str())? {
                    Some(v) => Some(decode::<StateItem>(&key, v.value())?),
                    None => None,
                };
                match stored {
                    Some(s) if s.version == version => {
                        let item = StateItem {
                            version: version + 1,
                            body,
                        };
                        items.insert(key.as_str(), encode(&item).as_slice())?;
                        true
                    }
                    _ => false,
                }
            };
            txn.commit()?;
            Ok(replaced)
        })
        .await
    }
}
