//! Snapshots of a live board (LB-5): the `snapshot` job materialises the board as
//! ranked pages, resumably; readers then serve any page, and any player's rank, with
//! a constant number of reads (LB-7).
//!
//! Items (all through [`ItemStore`]), for board `B` in period `P`:
//!
//! | item | partition key | sort key | body |
//! |---|---|---|---|
//! | run state | `SNAP#B@P` | `RUN#{id}` | [`RunState`] (JSON, constant size): progress and lease, so a retried run resumes |
//! | directory chunk | `SNAP#B@P#{id}` | `DIR#{its first page's first board key}` | up to [`CHUNK_PAGES`] [`DirEntry`]s, compact binary ([`crate::snapshot_codec`]) |
//! | page body | `SNAP#B@P#PAGE#{page id}` | `P` | a page's entries without ranks, compact binary |
//! | current snapshot | `SNAP#B@P` | `CURRENT` | [`Published`] (JSON), with page 0 and directory chunk 0 inline |
//!
//! Page bodies are shared between snapshots: a page's id is a hash of its
//! body, and a run writes only the bodies the previous snapshot did not already
//! store. A page holds no rank or position (one player moving near the top would
//! change every page below); each snapshot's directory lists, per page in listing
//! order, its first entry's [`BoardKey::encode`], its id, the entries before it and
//! its first entry's LB-2 rank, from which every entry's rank follows. With
//! [`Paging::content_defined`] a page ends after an entry whose player id hashes to a
//! target (or at the page's maximum size), so boundaries do not move when one entry
//! moves: a balance change rewrites the page it leaves and the page it enters.
//!
//! Expiry: a refresh snapshot's directory expires [`REFRESH_RETENTION_SECS`] after
//! its `as_of`; a page body written by a refresh expires [`PAGE_RETENTION_SECS`]
//! after that refresh's `as_of`, and its expiry is recorded in each directory that
//! lists it. A run reuses a stored body only if it outlives the new snapshot
//! (expiry ≥ its `as_of` + [`REFRESH_RETENTION_SECS`]), else writes it again with a
//! fresh expiry: so no body expires while a directory that lists it is kept, and each
//! unchanged body is rewritten about once a day. A frozen (`final`) snapshot keeps its
//! directory and bodies for good, and reuses only bodies kept for good.
//!
//! Directory chunks are sorted by their first page's key, so one Query finds the
//! chunk that lists the page holding any board key, or the page that decides any
//! value's rank; then one read fetches that page.
//!
//! A run holds a lease on its run state (taken and renewed with conditional writes)
//! while it writes: a second run of the same id backs off until the lease lapses.
//! It writes one directory chunk at a time (the new page bodies it lists first, in
//! batches of 25, then the chunk), then saves its progress conditionally on the run
//! state's version. A run that resumes a dead one first deletes the chunks written
//! after the last saved progress, then goes on from there (bodies written without a
//! chunk are harmless: they expire). A complete run is never redone, and the current
//! pointer only moves to a newer `as_of`. Each run records the server-clock window in
//! which it read the board, which tells readers which of a player's recent keys it
//! holds.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{listing_order, RankCounter, Standing};
use podium_rules::snapshot::SnapshotPage;
use podium_rules::standing::TOP_CUTOFF;
use podium_store::{BoardKey, BoardStore, ItemKey, ItemStore, SortKeyRange, StoreError};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::error::ServiceError;
use crate::snapshot_codec::{decode_body, decode_chunk, encode_body, page_id, ranked};

/// How long a refresh snapshot's directory is kept after its `as_of`: long enough
/// for any walk that started on it; frozen (`final`) snapshots are kept for good.
pub const REFRESH_RETENTION_SECS: i64 = 24 * 3600;

/// How long a page body a refresh writes is kept after that refresh's `as_of`: twice
/// a snapshot's retention, so later snapshots reuse it for a day before writing it again.
pub const PAGE_RETENTION_SECS: i64 = 2 * REFRESH_RETENTION_SECS;

/// How long a run's lease lasts after its last progress (ms): longer than the
/// snapshot function's timeout (300 s), so a live run is never taken over.
pub const LEASE_MS: i64 = 15 * 60 * 1000;

/// How long after publication a snapshot's pages are read strongly consistent (ms):
/// a reader that meets a new pointer must not miss a page written just before it.
pub const FRESH_MS: i64 = 5_000;

/// Pages one batch write carries (DynamoDB's BatchWriteItem limit).
pub const PAGES_PER_BATCH: usize = 25;

/// Pages one directory chunk lists; a run saves its progress once per chunk.
pub const CHUNK_PAGES: usize = 200;

/// The pointer's layout written by this code: pages shared between snapshots, found
/// through a directory. A pointer of another layout is not read (see [`current`]).
pub const LAYOUT: u32 = 2;

/// The sort-key prefix of directory chunks.
const DIR_PREFIX: &str = "DIR#";

/// The sort-key prefix of page keys as [`pages`] takes ranges of them.
const PAGE_PREFIX: &str = "PAGE#";

/// The TTL of a snapshot's directory: none for a frozen period's `final`.
fn expiry(id: &str, as_of: DateTime<Utc>) -> Option<i64> {
    (id != crate::period_boards::FINAL).then(|| as_of.timestamp() + REFRESH_RETENTION_SECS)
}

/// The TTL a page body written now gets: none for a frozen period's `final`.
fn body_expiry(id: &str, as_of: DateTime<Utc>) -> Option<i64> {
    (id != crate::period_boards::FINAL).then(|| as_of.timestamp() + PAGE_RETENTION_SECS)
}

/// Whether a body stored until `stored` (`None`: for good) outlives a directory kept
/// until `needed`.
fn outlives(stored: Option<i64>, needed: Option<i64>) -> bool {
    match (stored, needed) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(s), Some(n)) => s >= n,
    }
}

/// Where pages end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paging {
    /// A page ends after an entry whose player-id hash is 0 modulo `target` (0: never),
    /// so pages hold `target` entries on average.
    pub target: u32,
    /// And after `max` entries at most.
    pub max: u32,
}

impl Paging {
    /// Pages of exactly `size` entries (the last one fewer): boundaries move whenever
    /// an entry above them moves, so refreshes share few pages.
    pub fn fixed(size: u32) -> Self {
        Paging {
            target: 0,
            max: size.max(1),
        }
    }

    /// Content-defined pages of `target` entries on average and at most 4 × `target`:
    /// a boundary is an entry (by its player id), so it stays where it is when other
    /// entries move.
    pub fn content_defined(target: u32) -> Self {
        let target = target.max(1);
        Paging {
            target,
            max: target.saturating_mul(4),
        }
    }

    /// Whether a page of `len` entries ends after `player_id`'s entry.
    fn ends_after(&self, player_id: &str, len: usize) -> bool {
        len >= self.max as usize
            || (self.target > 0 && cut_hash(player_id).is_multiple_of(u64::from(self.target)))
    }
}

/// A stable 64-bit hash of a player id for page boundaries: FNV-1a, then SplitMix64's
/// finaliser (so it is unrelated to the board shard, which is FNV-1a alone).
fn cut_hash(player_id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in player_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// One page as a snapshot's directory lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirEntry {
    /// The page's first entry's [`BoardKey::encode`].
    #[serde(rename = "k")]
    pub key: String,
    /// The page body's id: the first 16 bytes of its SHA-256, hex.
    #[serde(rename = "p")]
    pub page: String,
    /// Entries listed before the page (its first entry's 0-based position).
    #[serde(rename = "n")]
    pub position: u64,
    /// The LB-2 rank of its first entry.
    #[serde(rename = "r")]
    pub rank: u64,
    /// Entries on the page.
    #[serde(rename = "l")]
    pub len: u32,
    /// When the stored body may expire (seconds since the Unix epoch; `None`: never).
    #[serde(rename = "x")]
    pub expires_at: Option<i64>,
}

/// Who holds a run, and until when (server clock, ms).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    pub owner: String,
    pub until_ms: i64,
}

/// Progress of one snapshot run: constant size, whatever the board's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunState {
    pub id: String,
    pub as_of: DateTime<Utc>,
    /// The pages' maximum size ([`Paging::max`]).
    pub page_size: u32,
    /// [`Paging::target`] (0: fixed-size pages).
    #[serde(default)]
    pub page_target: u32,
    pub pages_written: u32,
    /// Entries written so far.
    pub position: u64,
    /// The last written entry's encoded board key, value and rank.
    pub last: Option<(String, i64, u64)>,
    /// The sort key of the last directory chunk saved.
    #[serde(default)]
    pub last_chunk: Option<String>,
    pub complete: bool,
    #[serde(default)]
    pub lease: Option<Lease>,
    /// Server clock (ms) when this snapshot started and last stopped reading the board.
    #[serde(default)]
    pub read_from_ms: Option<i64>,
    #[serde(default)]
    pub read_to_ms: Option<i64>,
}

impl RunState {
    fn paging(&self) -> Paging {
        Paging {
            target: self.page_target,
            max: self.page_size.max(1),
        }
    }
}

/// The board's current snapshot, as readers find it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Published {
    /// [`LAYOUT`] for pointers written by this code (absent: an older layout).
    #[serde(default)]
    pub layout: u32,
    pub id: String,
    pub as_of: DateTime<Utc>,
    /// The pages' maximum size.
    pub page_size: u32,
    pub pages: u32,
    pub entries: u64,
    /// Page 0, so the top page costs no extra read.
    pub first_page: Option<SnapshotPage>,
    /// The stored value listed at position [`TOP_CUTOFF`] (the 100th entry), when the
    /// snapshot has more entries than that: the top-100 cut-off every caller's
    /// standing measures against, found once by the run (absent on older pointers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_cutoff: Option<i64>,
    /// Directory chunk 0 (the first [`CHUNK_PAGES`] pages), so reads near the top and
    /// on small boards need no directory read.
    #[serde(default)]
    pub directory: Vec<DirEntry>,
    /// Server clock (ms) of the window in which the run read the board.
    #[serde(default)]
    pub read_from_ms: i64,
    #[serde(default)]
    pub read_to_ms: i64,
    /// Server clock (ms) when this pointer was written.
    #[serde(default)]
    pub published_at_ms: i64,
    /// Players deleted since snapshots of this board were taken (GM-6): readers leave
    /// their entries out of every snapshot of the board (this one, older ones a cursor
    /// pins). Carried to the next pointer for [`REFRESH_RETENTION_SECS`] (while an older
    /// snapshot may still be read); a frozen `final` pointer keeps them for good.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub erased: Vec<Erased>,
    /// Raised by one by each erasure into this pointer, so that what was rendered
    /// from it before is not served again ([`Published::render_key`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revision: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A player left out of a board's snapshots (GM-6): not their id, but
/// [`crate::deletion::id_hash`] of it, and when (server clock, ms).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Erased {
    #[serde(rename = "h")]
    pub hash: String,
    #[serde(rename = "t")]
    pub at_ms: i64,
}

impl Published {
    /// Whether readers must leave `player_id`'s entries out (GM-6).
    pub fn hides(&self, player_id: &str) -> bool {
        !self.erased.is_empty() && {
            let h = crate::deletion::id_hash(player_id);
            self.erased.iter().any(|e| e.hash == h)
        }
    }

    /// What rendered top pages of this pointer are kept under
    /// ([`crate::rendered::RenderedPages`]): the snapshot id, and its revision once a
    /// deletion changed what it shows.
    pub fn render_key(&self) -> String {
        if self.revision == 0 {
            self.id.clone()
        } else {
            format!("{}~r{}", self.id, self.revision)
        }
    }

    /// Whether reads of its pages must be strongly consistent at `now_ms` ([`FRESH_MS`]).
    pub fn fresh(&self, now_ms: i64) -> bool {
        now_ms - self.published_at_ms < FRESH_MS
    }
}

/// What one call of [`run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub id: String,
    /// Pages this call listed.
    pub pages_written: u32,
    /// Of which page bodies it stored (the others were stored already).
    pub bodies_written: u32,
    /// Pages of the snapshot when complete (else so far).
    pub pages_total: u32,
    pub complete: bool,
    /// The run had completed before this call: nothing was written.
    pub already_complete: bool,
    /// Another call holds this run (its lease is live, or it took the run over while
    /// this call wrote): this call stopped and left the run to it. Not a failure:
    /// concurrent ticks of one schedule meet like this (LB-5).
    pub busy: bool,
    /// Server clock (ms, UTC) when the run started reading the board.
    pub read_from_ms: Option<i64>,
}

impl RunReport {
    /// The report of a call that found another call holding run `id`.
    fn busy(id: &str) -> Self {
        RunReport {
            id: id.to_string(),
            pages_written: 0,
            bodies_written: 0,
            pages_total: 0,
            complete: false,
            already_complete: false,
            busy: true,
            read_from_ms: None,
        }
    }
}

/// The snapshot id for an instant (a schedule's tick): `20261130T020500Z`.
pub fn id_for(at: DateTime<Utc>) -> String {
    at.format("%Y%m%dT%H%M%SZ").to_string()
}

/// Entries one shard read asks for while a snapshot streams the board.
pub const SHARD_FETCH: usize = 1_000;

/// The whole board in listing order, read shard by shard (one Query per
/// [`SHARD_FETCH`] entries of a shard) and merged, so each entry is read once.
struct BoardStream<'a, S: ?Sized> {
    store: &'a S,
    board: &'a BoardRef,
    shards: Vec<ShardBuffer>,
}

struct ShardBuffer {
    buffered: std::collections::VecDeque<Standing>,
    last: Option<BoardKey>,
    done: bool,
}

fn key_of(s: &Standing) -> BoardKey {
    BoardKey {
        value: s.value,
        reached_at_ms: s.reached_at_ms,
        player_id: s.player_id.clone(),
    }
}

impl<'a, S: BoardStore + ?Sized> BoardStream<'a, S> {
    /// A stream of the entries after `after` (from the top when `None`).
    fn new(store: &'a S, board: &'a BoardRef, after: Option<BoardKey>) -> Self {
        let shards = (0..store.board_shards())
            .map(|_| ShardBuffer {
                buffered: Default::default(),
                last: after.clone(),
                done: false,
            })
            .collect();
        BoardStream { store, board, shards }
    }

    /// The next entry (`None` at the end of the board).
    async fn next(&mut self) -> Result<Option<Standing>, ServiceError> {
        for (i, shard) in self.shards.iter_mut().enumerate() {
            if shard.buffered.is_empty() && !shard.done {
                let rows = self
                    .store
                    .shard_after(self.board, i as u32, shard.last.as_ref(), SHARD_FETCH)
                    .await?;
                shard.done = rows.len() < SHARD_FETCH;
                shard.last = rows.last().map(key_of);
                shard.buffered.extend(rows);
            }
        }
        let best = self
            .shards
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.buffered.front().map(|f| (i, f)))
            .min_by(|a, b| listing_order(a.1, b.1))
            .map(|(i, _)| i);
        Ok(best.and_then(|i| self.shards[i].buffered.pop_front()))
    }
}

fn scope(board: &BoardRef) -> String {
    format!("SNAP#{}", board.key())
}

fn run_key(board: &BoardRef, id: &str) -> ItemKey {
    ItemKey::new(scope(board), format!("RUN#{id}"))
}

/// The partition that holds snapshot `id`'s directory.
fn dir_pk(board: &BoardRef, id: &str) -> String {
    format!("{}#{id}", scope(board))
}

fn chunk_sk(first_key: &str) -> String {
    format!("{DIR_PREFIX}{first_key}")
}

/// The item that stores the body of page `page` (a [`DirEntry::page`]) of `board`.
pub fn body_key(board: &BoardRef, page: &str) -> ItemKey {
    ItemKey::new(format!("{}#PAGE#{page}", scope(board)), "P")
}

/// The item that stores the body of `page` (the id follows from its entries).
pub fn body_key_of(board: &BoardRef, page: &SnapshotPage) -> ItemKey {
    let standings: Vec<Standing> = page
        .entries
        .iter()
        .map(|e| Standing {
            player_id: e.player_id.clone(),
            value: e.value,
            reached_at_ms: e.reached_at_ms,
        })
        .collect();
    body_key(board, &page_id(&encode_body(&standings)))
}

/// The key of the page whose first entry has board key `encoded`, as [`pages`] takes
/// ranges of them.
pub fn page_sk(encoded: &str) -> String {
    format!("{PAGE_PREFIX}{encoded}")
}

/// The encoded first key of `page` (what cursors carry and the directory lists).
pub fn first_key(page: &SnapshotPage) -> String {
    page.entries
        .first()
        .map(|e| {
            BoardKey {
                value: e.value,
                reached_at_ms: e.reached_at_ms,
                player_id: e.player_id.clone(),
            }
            .encode()
        })
        .unwrap_or_default()
}

fn current_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(scope(board), "CURRENT")
}

/// Players erased from a board before it had any snapshot pointer (GM-6): the first
/// pointer published takes them over ([`publish`]).
fn pending_erasures_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(scope(board), "ERASED")
}

/// The erasures recorded before the board's first pointer (none when absent).
async fn pending_erasures<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<(Vec<Erased>, u64), ServiceError> {
    let key = pending_erasures_key(board);
    match store.get_item(&key, true).await? {
        Some(item) => Ok((decode(&key.sk, &item.body)?, item.version)),
        None => Ok((Vec::new(), 0)),
    }
}

fn decode<T: DeserializeOwned>(what: &str, body: &[u8]) -> Result<T, ServiceError> {
    serde_json::from_slice(body).map_err(|e| ServiceError::Store(StoreError::corrupt(what, e)))
}

fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// A run's server clock: the injected instant the call started at (UTC), advanced
/// by the monotonic time since, so that leases and read instants move with the run
/// while the caller chooses the instant (no wall clock is read here).
struct RunClock {
    start_ms: i64,
    started: std::time::Instant,
}

impl RunClock {
    fn new(now: DateTime<Utc>) -> Self {
        RunClock {
            start_ms: now.timestamp_millis(),
            started: std::time::Instant::now(),
        }
    }

    /// The server clock now (milliseconds, UTC).
    fn now_ms(&self) -> i64 {
        self.start_ms
            .saturating_add(i64::try_from(self.started.elapsed().as_millis()).unwrap_or(i64::MAX))
    }
}

/// Every directory chunk of snapshot `id`, in order, as (sort key, first page number, entries).
async fn all_chunks<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    consistent: bool,
) -> Result<Vec<(String, u32, Vec<DirEntry>)>, ServiceError> {
    let pk = dir_pk(board, id);
    let mut out = Vec::new();
    let mut range = SortKeyRange::All;
    loop {
        let found = store.query_items(&pk, &range, true, 100, consistent).await?;
        let Some((last, _)) = found.last() else {
            return Ok(out);
        };
        range = SortKeyRange::After(last.clone());
        for (sk, item) in found {
            let (first, entries) = decode_chunk(&sk, &item.body)?;
            out.push((sk, first, entries));
        }
    }
}

/// Reads and ranks the body of the page `entry` lists as page `number`; `None` when
/// it is gone (expired).
/// The stored value listed at 0-based `position`: on page 0, or on the page chunk 0
/// of the directory lists it on (one read); `None` beyond chunk 0.
async fn value_at<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    first_page: Option<&SnapshotPage>,
    chunk0: Option<&[DirEntry]>,
    position: u64,
) -> Result<Option<i64>, ServiceError> {
    let on = |pg: &SnapshotPage| {
        position
            .checked_sub(pg.first_position)
            .and_then(|i| pg.entries.get(i as usize))
            .map(|e| e.value)
    };
    if let Some(v) = first_page.and_then(on) {
        return Ok(Some(v));
    }
    let holding = chunk0
        .unwrap_or_default()
        .iter()
        .enumerate()
        .find(|(_, e)| e.position <= position && position < e.position + u64::from(e.len));
    match holding {
        Some((number, e)) => Ok(load_page(store, board, number as u32, e, true)
            .await?
            .as_ref()
            .and_then(on)),
        None => Ok(None),
    }
}

async fn load_page<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    number: u32,
    entry: &DirEntry,
    consistent: bool,
) -> Result<Option<SnapshotPage>, ServiceError> {
    let key = body_key(board, &entry.page);
    let Some(item) = store.get_item(&key, consistent).await? else {
        return Ok(None);
    };
    let standings = decode_body(&key.pk, &item.body)?;
    if standings.len() != entry.len as usize {
        return Err(StoreError::corrupt(
            key.pk,
            format!(
                "{} entries where the directory lists {}",
                standings.len(),
                entry.len
            ),
        )
        .into());
    }
    Ok(Some(SnapshotPage {
        number,
        first_position: entry.position,
        entries: ranked(entry.position, entry.rank, standings),
    }))
}

/// The players the pages of snapshot `id` saved so far list (a resumed run must not
/// list them again), and the bodies those pages use with their expiry.
async fn listed_so_far<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
) -> Result<(HashSet<String>, HashMap<String, Option<i64>>), ServiceError> {
    let mut seen = HashSet::new();
    let mut bodies = HashMap::new();
    for (_, first, entries) in all_chunks(store, board, id, true).await? {
        for (i, e) in entries.iter().enumerate() {
            let page = load_page(store, board, first + i as u32, e, true)
                .await?
                .ok_or_else(|| {
                    StoreError::corrupt(body_key(board, &e.page).pk, "a listed page is missing")
                })?;
            seen.extend(page.entries.into_iter().map(|e| e.player_id));
            bodies.insert(e.page.clone(), e.expires_at);
        }
    }
    Ok((seen, bodies))
}

/// The page bodies the current snapshot (other than `id`) lists, with their expiry:
/// what a new run may reuse instead of writing.
async fn stored_bodies<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
) -> Result<HashMap<String, Option<i64>>, ServiceError> {
    let key = current_key(board);
    let Some(item) = store.get_item(&key, true).await? else {
        return Ok(HashMap::new());
    };
    let p: Published = decode(&key.sk, &item.body)?;
    if p.layout != LAYOUT || p.id == id {
        return Ok(HashMap::new());
    }
    Ok(all_chunks(store, board, &p.id, true)
        .await?
        .into_iter()
        .flat_map(|(_, _, entries)| entries)
        .map(|e| (e.page, e.expires_at))
        .collect())
}

/// Deletes the directory chunks of snapshot `id` after sort key `after` (all when
/// `None`): what a run that died wrote after its last saved progress.
async fn delete_unsaved_chunks<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    after: Option<&str>,
) -> Result<(), ServiceError> {
    let pk = dir_pk(board, id);
    let range = match after {
        Some(sk) => SortKeyRange::After(sk.to_string()),
        None => SortKeyRange::All,
    };
    loop {
        let found = store.query_items(&pk, &range, true, 100, true).await?;
        if found.is_empty() {
            return Ok(());
        }
        let keys: Vec<ItemKey> = found
            .into_iter()
            .map(|(sk, _)| ItemKey::new(pk.clone(), sk))
            .collect();
        store.delete_items(&keys).await?;
    }
}

/// Runs (or resumes) snapshot `id` of `board` at `as_of` in pages of `page_size`
/// entries ([`Paging::fixed`]); see [`run_paged`].
pub async fn run<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    as_of: DateTime<Utc>,
    page_size: u32,
    page_budget: Option<u32>,
    now: DateTime<Utc>,
) -> Result<RunReport, ServiceError> {
    run_paged(
        store,
        board,
        id,
        as_of,
        Paging::fixed(page_size),
        page_budget,
        now,
    )
    .await
}

/// Runs (or resumes) snapshot `id` of `board` at `as_of`, cutting pages by `paging`
/// (a resumed run keeps the paging it started with) and listing at most
/// `page_budget` pages in this call (`None`: to the end). Writes only the page bodies
/// the current snapshot does not already store (for long enough). Safe to call again
/// with the same id after a timeout or crash; a completed snapshot is left as it is;
/// while another call holds the run, a [`RunReport::busy`] report (nothing done, the
/// run left to it). `now` is the server
/// clock at the call (UTC): leases, the instants the board was read and the pointer's
/// publication are dated from it.
#[allow(clippy::too_many_arguments)]
pub async fn run_paged<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    as_of: DateTime<Utc>,
    paging: Paging,
    page_budget: Option<u32>,
    now: DateTime<Utc>,
) -> Result<RunReport, ServiceError> {
    let clock = RunClock::new(now);
    // Milliseconds, as cursors carry it: one `as_of` on every page of a walk.
    let as_of = DateTime::from_timestamp_millis(as_of.timestamp_millis()).unwrap_or(as_of);
    let rkey = run_key(board, id);
    let owner = format!("{:016x}", rand::random::<u64>());
    let lease = |owner: &str| {
        Some(Lease {
            owner: owner.to_string(),
            until_ms: clock.now_ms() + LEASE_MS,
        })
    };
    // Another call holds the run (or took it over): it finishes it.
    let busy = || Ok(RunReport::busy(id));
    let (mut state, mut version) = match store.get_item(&rkey, true).await? {
        None => {
            let fresh = RunState {
                id: id.to_string(),
                as_of,
                page_size: paging.max.max(1),
                page_target: paging.target,
                pages_written: 0,
                position: 0,
                last: None,
                last_chunk: None,
                complete: false,
                lease: lease(&owner),
                read_from_ms: None,
                read_to_ms: None,
            };
            if !store.put_item_if(&rkey, &encode(&fresh), 0).await? {
                return busy();
            }
            (fresh, 1)
        }
        Some(item) => {
            let mut state: RunState = decode(&rkey.sk, &item.body)?;
            if state.complete {
                return Ok(RunReport {
                    id: id.to_string(),
                    pages_written: 0,
                    bodies_written: 0,
                    pages_total: state.pages_written,
                    complete: true,
                    already_complete: true,
                    busy: false,
                    read_from_ms: state.read_from_ms,
                });
            }
            if state.lease.as_ref().is_some_and(|l| l.until_ms > clock.now_ms()) {
                return busy();
            }
            state.lease = lease(&owner);
            if !store.put_item_if(&rkey, &encode(&state), item.version).await? {
                return busy();
            }
            delete_unsaved_chunks(store, board, id, state.last_chunk.as_deref()).await?;
            (state, item.version + 1)
        }
    };
    let paging = state.paging();
    let needed = expiry(id, as_of);
    let fresh_expiry = body_expiry(id, as_of);
    let mut budget = page_budget.unwrap_or(u32::MAX);
    let resume_after = state.last.as_ref().and_then(|(k, _, _)| BoardKey::decode(k));
    // The board moves while it is read: a player met twice (their value changed and
    // they moved past the reading) is listed once, where first met.
    let (mut seen, mut stored) = if state.last_chunk.is_some() {
        listed_so_far(store, board, id).await?
    } else {
        Default::default()
    };
    stored.extend(stored_bodies(store, board, id).await?);
    let mut stream = BoardStream::new(store, board, resume_after);
    let (mut written_now, mut bodies_now) = (0, 0);
    let mut first_page = None;
    let mut first_chunk = None;
    let mut exhausted = false;
    if state.read_from_ms.is_none() {
        state.read_from_ms = Some(clock.now_ms());
    }
    while budget > 0 && !exhausted {
        let mut next = state.clone();
        let mut listed: Vec<DirEntry> = Vec::new();
        let mut bodies: Vec<(ItemKey, Vec<u8>)> = Vec::new();
        while listed.len() < CHUNK_PAGES && budget > 0 {
            let mut rows: Vec<Standing> = Vec::new();
            loop {
                let Some(s) = stream.next().await? else {
                    exhausted = true;
                    break;
                };
                if !seen.insert(s.player_id.clone()) {
                    continue;
                }
                let ends = paging.ends_after(&s.player_id, rows.len() + 1);
                rows.push(s);
                if ends {
                    break;
                }
            }
            let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
                break;
            };
            let mut counter = match &next.last {
                Some((_, v, r)) => RankCounter::resume(next.position, *v, *r),
                None => RankCounter::top(),
            };
            let first_rank = counter.next(first.value);
            let last_rank = rows.iter().skip(1).fold(first_rank, |_, s| counter.next(s.value));
            let body = encode_body(&rows);
            let page = page_id(&body);
            let expires_at = match stored.get(&page) {
                Some(e) if outlives(*e, needed) => *e,
                _ => {
                    bodies.push((body_key(board, &page), body));
                    stored.insert(page.clone(), fresh_expiry);
                    fresh_expiry
                }
            };
            let entry = DirEntry {
                key: key_of(first).encode(),
                page,
                position: next.position,
                rank: first_rank,
                len: rows.len() as u32,
                expires_at,
            };
            next.last = Some((key_of(last).encode(), last.value, last_rank));
            if next.pages_written == 0 {
                first_page = Some(SnapshotPage {
                    number: 0,
                    first_position: 0,
                    entries: ranked(0, first_rank, rows),
                });
            }
            next.position += u64::from(entry.len);
            next.pages_written += 1;
            listed.push(entry);
            budget -= 1;
            if exhausted {
                break;
            }
        }
        let Some(head) = listed.first() else {
            break;
        };
        let sk = chunk_sk(&head.key);
        let first_number = next.pages_written - listed.len() as u32;
        // Bodies first, then the chunk that lists them, then the progress that counts it.
        if !bodies.is_empty() {
            store.put_items(&bodies, fresh_expiry).await?;
        }
        let chunk = crate::snapshot_codec::encode_chunk(first_number, &listed);
        store
            .put_items(&[(ItemKey::new(dir_pk(board, id), sk.clone()), chunk)], needed)
            .await?;
        written_now += listed.len() as u32;
        bodies_now += bodies.len() as u32;
        if first_number == 0 {
            first_chunk = Some(listed);
        }
        next.last_chunk = Some(sk);
        next.read_to_ms = Some(clock.now_ms());
        next.lease = lease(&owner);
        if !store.put_item_if(&rkey, &encode(&next), version).await? {
            // Another run of the same id took over: let it finish.
            return busy();
        }
        version += 1;
        state = next;
    }
    if !exhausted {
        // Out of budget: save where this call stopped and let the next one go on at once.
        state.lease = None;
        if !store.put_item_if(&rkey, &encode(&state), version).await? {
            return busy();
        }
        return Ok(RunReport {
            id: id.to_string(),
            pages_written: written_now,
            bodies_written: bodies_now,
            pages_total: state.pages_written,
            complete: false,
            already_complete: false,
            busy: false,
            read_from_ms: state.read_from_ms,
        });
    }
    if first_chunk.is_none() && state.pages_written > 0 {
        let pk = dir_pk(board, id);
        if let Some((sk, item)) = store
            .query_items(&pk, &SortKeyRange::All, true, 1, true)
            .await?
            .into_iter()
            .next()
        {
            let (_, entries) = decode_chunk(&sk, &item.body)?;
            if let Some(e) = entries.first() {
                first_page = load_page(store, board, 0, e, true).await?;
            }
            first_chunk = Some(entries);
        }
    }
    let top_cutoff = match state.position > TOP_CUTOFF {
        true => {
            value_at(
                store,
                board,
                first_page.as_ref(),
                first_chunk.as_deref(),
                TOP_CUTOFF - 1,
            )
            .await?
        }
        false => None,
    };
    let mut done = state.clone();
    done.complete = true;
    done.lease = None;
    done.read_to_ms = Some(clock.now_ms());
    if !store.put_item_if(&rkey, &encode(&done), version).await? {
        return busy();
    }
    publish(
        store,
        board,
        Published {
            layout: LAYOUT,
            id: id.to_string(),
            as_of: state.as_of,
            page_size: state.page_size,
            pages: state.pages_written,
            entries: state.position,
            first_page,
            top_cutoff,
            directory: first_chunk.unwrap_or_default(),
            read_from_ms: done.read_from_ms.unwrap_or_default(),
            read_to_ms: done.read_to_ms.unwrap_or_default(),
            published_at_ms: 0,
            erased: Vec::new(),
            revision: 0,
        },
        &clock,
    )
    .await?;
    Ok(RunReport {
        id: id.to_string(),
        pages_written: written_now,
        bodies_written: bodies_now,
        pages_total: state.pages_written,
        complete: true,
        already_complete: false,
        busy: false,
        read_from_ms: done.read_from_ms,
    })
}

/// Points readers at `snapshot` unless a newer one is current already.
async fn publish<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    mut snapshot: Published,
    clock: &RunClock,
) -> Result<(), ServiceError> {
    let key = current_key(board);
    for _ in 0..10 {
        let (current, version) = match store.get_item(&key, true).await? {
            Some(item) => (Some(decode::<Published>(&key.sk, &item.body)?), item.version),
            None => (None, 0),
        };
        if current
            .as_ref()
            .is_some_and(|c| c.layout == LAYOUT && c.as_of >= snapshot.as_of)
        {
            return Ok(());
        }
        snapshot.published_at_ms = clock.now_ms();
        // GM-6: erasures stay while a snapshot taken before them may still be read
        // (its entries may predate the deletion, even this run's: it may have read the
        // board before the player's entries were removed).
        let keep_from = snapshot.published_at_ms - REFRESH_RETENTION_SECS * 1000;
        let first = current.is_none();
        snapshot.erased = match current {
            Some(c) => c.erased.into_iter().filter(|e| e.at_ms >= keep_from).collect(),
            // The board's first pointer: players deleted before it existed.
            None => pending_erasures(store, board).await?.0,
        };
        if store.put_item_if(&key, &encode(&snapshot), version).await? {
            if first {
                // A deletion may have recorded its erasure after the read above and
                // found no pointer yet: carry over any that the pointer lacks.
                for e in pending_erasures(store, board).await?.0 {
                    if !snapshot.erased.iter().any(|x| x.hash == e.hash) {
                        erase_hash(store, board, &e.hash, clock.now_ms()).await?;
                    }
                }
            }
            return Ok(());
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// Leaves `player_id` out of every snapshot of `board` from now on (GM-6): records
/// them in the current pointer's [`Published::erased`] and raises its revision
/// (conditional on the pointer's version, retried). `Ok(false)`: the board has no
/// snapshot. Safe to repeat: an erasure already recorded changes nothing.
pub async fn erase_player<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<bool, ServiceError> {
    erase_hash(
        store,
        board,
        &crate::deletion::id_hash(player_id),
        now.timestamp_millis(),
    )
    .await
}

/// [`erase_player`] by the id's hash, at the server clock `now_ms` (milliseconds, UTC). A board without a pointer yet records the
/// erasure for its first one (a snapshot run may be under way, having read the
/// player's entries before they were removed); answers whether a pointer was marked.
async fn erase_hash<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    hash: &str,
    now_ms: i64,
) -> Result<bool, ServiceError> {
    let key = current_key(board);
    let hash = hash.to_string();
    for _ in 0..10 {
        let Some(item) = store.get_item(&key, true).await? else {
            let (mut pending, version) = pending_erasures(store, board).await?;
            if !pending.iter().any(|e| e.hash == hash) {
                pending.push(Erased {
                    hash: hash.clone(),
                    at_ms: now_ms,
                });
                if !store
                    .put_item_if(&pending_erasures_key(board), &encode(&pending), version)
                    .await?
                {
                    continue;
                }
            }
            // Published meanwhile? Then mark the pointer too (the loop goes on).
            if store.get_item(&key, true).await?.is_none() {
                return Ok(false);
            }
            continue;
        };
        let mut p: Published = decode(&key.sk, &item.body)?;
        if p.erased.iter().any(|e| e.hash == hash) {
            return Ok(true);
        }
        p.erased.push(Erased {
            hash: hash.clone(),
            at_ms: now_ms,
        });
        p.revision = p.revision.saturating_add(1);
        if store.put_item_if(&key, &encode(&p), item.version).await? {
            return Ok(true);
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// The board's current snapshot, if any (one read). A pointer of an older layout
/// counts as none: readers then read the live board until the next refresh.
pub async fn current<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Option<Published>, ServiceError> {
    pointer(store, board, false).await
}

async fn pointer<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    consistent: bool,
) -> Result<Option<Published>, ServiceError> {
    let key = current_key(board);
    match store.get_item(&key, consistent).await? {
        Some(item) => {
            let p: Published = decode(&key.sk, &item.body)?;
            Ok((p.layout == LAYOUT).then_some(p))
        }
        None => Ok(None),
    }
}

/// [`current`], read strongly consistent (a job that acts on the snapshot just
/// published).
pub async fn current_consistent<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Option<Published>, ServiceError> {
    pointer(store, board, true).await
}

/// The run state of snapshot `id`, if it was ever started.
pub async fn run_state<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
) -> Result<Option<RunState>, ServiceError> {
    let key = run_key(board, id);
    match store.get_item(&key, true).await? {
        Some(item) => Ok(Some(decode(&key.sk, &item.body)?)),
        None => Ok(None),
    }
}

/// Up to `limit` pages of snapshot `id` whose [`page_sk`] is in `range`, nearest
/// first in the direction `forward`, read through its whole directory (for tests
/// and tools; readers use [`Directory`]). A page whose body is gone is left out.
pub async fn pages<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    range: SortKeyRange,
    forward: bool,
    limit: usize,
    consistent: bool,
) -> Result<Vec<SnapshotPage>, ServiceError> {
    let mut listed: Vec<(u32, DirEntry)> = all_chunks(store, board, id, consistent)
        .await?
        .into_iter()
        .flat_map(|(_, first, entries)| {
            entries
                .into_iter()
                .enumerate()
                .map(move |(i, e)| (first + i as u32, e))
        })
        .filter(|(_, e)| in_range(&range, &page_sk(&e.key)))
        .collect();
    if !forward {
        listed.reverse();
    }
    let mut out = Vec::new();
    for (number, e) in listed.into_iter().take(limit) {
        out.extend(load_page(store, board, number, &e, consistent).await?);
    }
    Ok(out)
}

/// Whether sort key `sk` is in `range`.
fn in_range(range: &SortKeyRange, sk: &str) -> bool {
    match range {
        SortKeyRange::All => true,
        SortKeyRange::Before(k) => sk < k.as_str(),
        SortKeyRange::AtOrBefore(k) => sk <= k.as_str(),
        SortKeyRange::After(k) => sk > k.as_str(),
        SortKeyRange::AtOrAfter(k) => sk >= k.as_str(),
    }
}

/// One directory chunk a [`Directory`] has read: the pages `first ..` it lists.
struct Chunk {
    first: u32,
    entries: Vec<DirEntry>,
}

/// The directory of one snapshot as one request reads it: chunk 0 from the pointer,
/// other chunks read when needed (one Query each) and kept for the request, page
/// bodies one read each (page 0 from the pointer).
pub struct Directory<'a, S: ?Sized> {
    store: &'a S,
    board: &'a BoardRef,
    id: String,
    pages: u32,
    consistent: bool,
    first_page: Option<SnapshotPage>,
    chunks: Vec<Chunk>,
}

impl<'a, S: ItemStore + ?Sized> Directory<'a, S> {
    /// The directory of the snapshot `p` points to, read strongly consistent when `consistent`.
    pub fn new(store: &'a S, board: &'a BoardRef, p: &Published, consistent: bool) -> Self {
        Directory {
            store,
            board,
            id: p.id.clone(),
            pages: p.pages,
            consistent,
            first_page: p.first_page.clone(),
            chunks: vec![Chunk {
                first: 0,
                entries: p.directory.clone(),
            }],
        }
    }

    /// The directory of snapshot `id` (of `pages` pages) with nothing read yet, as a
    /// cursor names it.
    pub fn pinned(store: &'a S, board: &'a BoardRef, id: &str, pages: Option<u32>, consistent: bool) -> Self {
        Directory {
            store,
            board,
            id: id.to_string(),
            pages: pages.unwrap_or(u32::MAX),
            consistent,
            first_page: None,
            chunks: Vec::new(),
        }
    }

    /// The entry of page `number` if a chunk read holds it.
    fn known(&self, number: u32) -> Option<&DirEntry> {
        self.chunks.iter().find_map(|c| {
            number
                .checked_sub(c.first)
                .and_then(|i| c.entries.get(i as usize))
        })
    }

    /// Reads the chunk `range` finds nearest first (`forward` or back), keeps it and
    /// returns its first page number.
    async fn read_chunk(&mut self, range: SortKeyRange, forward: bool) -> Result<Option<u32>, ServiceError> {
        let found = self
            .store
            .query_items(&dir_pk(self.board, &self.id), &range, forward, 1, self.consistent)
            .await?;
        let Some((sk, item)) = found.into_iter().next() else {
            return Ok(None);
        };
        let (first, entries) = decode_chunk(&sk, &item.body)?;
        if entries
            .last()
            .is_some_and(|_| first.checked_add(entries.len() as u32).is_none())
        {
            return Err(StoreError::corrupt(sk, "page numbers overflow").into());
        }
        if !self.chunks.iter().any(|c| c.first == first) {
            self.chunks.push(Chunk { first, entries });
        }
        Ok(Some(first))
    }

    /// The number of the last page whose first key is before `key` (at or before when
    /// `inclusive`): from the chunks read when they tell, else after one Query.
    async fn last_before(&mut self, key: &str, inclusive: bool) -> Result<Option<u32>, ServiceError> {
        let before = |k: &str| if inclusive { k <= key } else { k < key };
        for c in &self.chunks {
            let n = c.entries.partition_point(|e| before(&e.key));
            if n == 0 {
                continue;
            }
            let number = c.first + n as u32 - 1;
            // Known when a later page of this chunk, or the next chunk's first, is after `key`.
            let next = number + 1;
            let decided = n < c.entries.len()
                || next >= self.pages
                || self.known(next).is_some_and(|e| !before(&e.key));
            if decided {
                return Ok(Some(number));
            }
        }
        let target = chunk_sk(key);
        let range = if inclusive {
            SortKeyRange::AtOrBefore(target)
        } else {
            SortKeyRange::Before(target)
        };
        let Some(first) = self.read_chunk(range, false).await? else {
            return Ok(None);
        };
        let c = self.chunks.iter().find(|c| c.first == first);
        Ok(c.and_then(|c| {
            let n = c.entries.partition_point(|e| before(&e.key));
            (n > 0).then(|| c.first + n as u32 - 1)
        }))
    }

    /// The directory entry of page `number`, reading the chunk after or before a
    /// chunk read when needed (`None`: no such page).
    async fn entry(&mut self, number: u32) -> Result<Option<DirEntry>, ServiceError> {
        if number >= self.pages {
            return Ok(None);
        }
        if let Some(e) = self.known(number) {
            return Ok(Some(e.clone()));
        }
        // The nearest chunk read before or after it.
        let below = self
            .chunks
            .iter()
            .filter(|c| c.first <= number)
            .max_by_key(|c| c.first)
            .and_then(|c| c.entries.first().map(|e| chunk_sk(&e.key)));
        let above = self
            .chunks
            .iter()
            .filter(|c| c.first > number)
            .min_by_key(|c| c.first)
            .and_then(|c| c.entries.first().map(|e| chunk_sk(&e.key)));
        match (below, above) {
            (Some(sk), _) => self.read_chunk(SortKeyRange::After(sk), true).await?,
            (None, Some(sk)) => self.read_chunk(SortKeyRange::Before(sk), false).await?,
            (None, None) => self.read_chunk(SortKeyRange::All, true).await?,
        };
        Ok(self.known(number).cloned())
    }

    /// Page `number`, `None` when there is no such page or its body is gone.
    pub async fn page(&mut self, number: u32) -> Result<Option<SnapshotPage>, ServiceError> {
        if number == 0 {
            if let Some(p) = &self.first_page {
                return Ok(Some(p.clone()));
            }
        }
        let Some(e) = self.entry(number).await? else {
            return Ok(None);
        };
        load_page(self.store, self.board, number, &e, self.consistent).await
    }

    /// The page that holds board key `key`, or would hold it: the last page whose
    /// first key is at or before it (`None`: it lies before every page).
    pub async fn page_holding(&mut self, key: &BoardKey) -> Result<Option<SnapshotPage>, ServiceError> {
        match self.last_before(&key.encode(), true).await? {
            Some(n) => self.page(n).await,
            None => Ok(None),
        }
    }

    /// The page that decides the LB-2 rank of `value`: the last page whose first
    /// value is strictly better (`None`: no entry is).
    pub async fn page_deciding(&mut self, value: i64) -> Result<Option<SnapshotPage>, ServiceError> {
        match self
            .last_before(&BoardKey::first_of_value(value).encode(), false)
            .await?
        {
            Some(n) => self.page(n).await,
            None => Ok(None),
        }
    }

    /// The page right before or right after `page`, if any.
    pub async fn neighbour(
        &mut self,
        page: &SnapshotPage,
        after: bool,
    ) -> Result<Option<SnapshotPage>, ServiceError> {
        let number = if after {
            page.number.checked_add(1)
        } else {
            page.number.checked_sub(1)
        };
        match number {
            Some(n) => self.page(n).await,
            None => Ok(None),
        }
    }

    /// The number of the page whose first key is exactly `key` (what a cursor names).
    pub async fn number_of(&mut self, key: &str) -> Result<Option<u32>, ServiceError> {
        let Some(n) = self.last_before(key, true).await? else {
            return Ok(None);
        };
        Ok(self.entry(n).await?.filter(|e| e.key == key).map(|_| n))
    }

    /// The directory entry of page `number` (`None`: no such page).
    pub async fn listed(&mut self, number: u32) -> Result<Option<DirEntry>, ServiceError> {
        self.entry(number).await
    }
}
