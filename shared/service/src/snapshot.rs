//! Snapshots of a live board (LB-5): the `snapshot` job materialises the board as
//! ranked pages, resumably; readers then serve any page, and any player's rank, with
//! one read (LB-7).
//!
//! Items (all through [`ItemStore`]), for board `B` in period `P`:
//!
//! | item | partition key | sort key | body (JSON) |
//! |---|---|---|---|
//! | run state | `SNAP#B@P` | `RUN#{id}` | [`RunState`]: progress and lease, so a retried run resumes |
//! | page | `SNAP#B@P#{id}` | `PAGE#{first entry's board key}` | [`SnapshotPage`] |
//! | current snapshot | `SNAP#B@P` | `CURRENT` | [`Published`], with page 0 inline |
//!
//! A page's sort key is its first entry's [`BoardKey::encode`], so pages sort in
//! listing order and one Query finds the page that holds any board key, or the one
//! that decides any value's rank: no page index is kept.
//!
//! A run holds a lease on its run state (taken and renewed with conditional writes)
//! while it writes: a second run of the same id backs off until the lease lapses.
//! It writes pages in batches (one BatchWriteItem of up to 25), then saves its
//! progress conditionally on the run state's version. A run that resumes a dead one
//! first deletes the pages written after the last saved progress, then goes on from
//! there. A complete run is never redone, and the current pointer only moves to a
//! newer `as_of`. Each run records the server-clock window in which it read the
//! board, which tells readers which of a player's recent keys it holds.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{listing_order, RankCounter, Standing};
use podium_rules::snapshot::{SnapshotEntry, SnapshotPage};
use podium_store::{BoardKey, BoardStore, ItemKey, ItemStore, SortKeyRange};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::error::ServiceError;

/// How long a refresh snapshot's pages are kept after its `as_of`: long enough for any
/// walk that started on it; frozen (`final`) snapshots are kept for good.
pub const REFRESH_RETENTION_SECS: i64 = 24 * 3600;

/// How long a run's lease lasts after its last progress (ms): longer than the
/// snapshot function's timeout (300 s), so a live run is never taken over.
pub const LEASE_MS: i64 = 15 * 60 * 1000;

/// How long after publication a snapshot's pages are read strongly consistent (ms):
/// a reader that meets a new pointer must not miss a page written just before it.
pub const FRESH_MS: i64 = 5_000;

/// Pages one batch write carries (DynamoDB's BatchWriteItem limit).
pub const PAGES_PER_BATCH: usize = 25;

/// The sort-key prefix of pages.
const PAGE_PREFIX: &str = "PAGE#";

/// The TTL of a snapshot's pages: none for a frozen period's `final`.
fn expiry(id: &str, as_of: DateTime<Utc>) -> Option<i64> {
    (id != crate::period_boards::FINAL).then(|| as_of.timestamp() + REFRESH_RETENTION_SECS)
}

/// Who holds a run, and until when (server clock, ms).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    pub owner: String,
    pub until_ms: i64,
}

/// Progress of one snapshot run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunState {
    pub id: String,
    pub as_of: DateTime<Utc>,
    pub page_size: u32,
    pub pages_written: u32,
    /// Entries written so far.
    pub position: u64,
    /// The last written entry's encoded board key, value and rank.
    pub last: Option<(String, i64, u64)>,
    /// The sort key of the last page saved.
    #[serde(default)]
    pub last_page: Option<String>,
    pub complete: bool,
    #[serde(default)]
    pub lease: Option<Lease>,
    /// Server clock (ms) when this snapshot started and last stopped reading the board.
    #[serde(default)]
    pub read_from_ms: Option<i64>,
    #[serde(default)]
    pub read_to_ms: Option<i64>,
}

/// The board's current snapshot, as readers find it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Published {
    pub id: String,
    pub as_of: DateTime<Utc>,
    pub page_size: u32,
    pub pages: u32,
    pub entries: u64,
    /// Page 0, so the top page costs no extra read.
    pub first_page: Option<SnapshotPage>,
    /// Server clock (ms) of the window in which the run read the board.
    #[serde(default)]
    pub read_from_ms: i64,
    #[serde(default)]
    pub read_to_ms: i64,
    /// Server clock (ms) when this pointer was written.
    #[serde(default)]
    pub published_at_ms: i64,
}

impl Published {
    /// Whether reads of its pages must be strongly consistent at `now_ms` ([`FRESH_MS`]).
    pub fn fresh(&self, now_ms: i64) -> bool {
        now_ms - self.published_at_ms < FRESH_MS
    }
}

/// What one call of [`run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub id: String,
    /// Pages this call wrote.
    pub pages_written: u32,
    /// Pages of the snapshot when complete (else so far).
    pub pages_total: u32,
    pub complete: bool,
    /// The run had completed before this call: nothing was written.
    pub already_complete: bool,
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

    /// The next `n` entries (fewer at the end of the board).
    async fn take(&mut self, n: usize) -> Result<Vec<Standing>, ServiceError> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
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
            match best.and_then(|i| self.shards[i].buffered.pop_front()) {
                Some(next) => out.push(next),
                None => break,
            }
        }
        Ok(out)
    }
}

fn scope(board: &BoardRef) -> String {
    format!("SNAP#{}", board.key())
}

fn run_key(board: &BoardRef, id: &str) -> ItemKey {
    ItemKey::new(scope(board), format!("RUN#{id}"))
}

/// The partition that holds snapshot `id`'s pages.
fn pages_pk(board: &BoardRef, id: &str) -> String {
    format!("{}#{id}", scope(board))
}

/// The sort key of the page whose first entry has board key `encoded`.
pub fn page_sk(encoded: &str) -> String {
    format!("{PAGE_PREFIX}{encoded}")
}

/// The sort key of `page` (by its first entry).
fn sk_of(page: &SnapshotPage) -> String {
    page.entries
        .first()
        .map(|e| {
            page_sk(
                &BoardKey {
                    value: e.value,
                    reached_at_ms: e.reached_at_ms,
                    player_id: e.player_id.clone(),
                }
                .encode(),
            )
        })
        .unwrap_or_else(|| PAGE_PREFIX.to_string())
}

/// The encoded first key of `page` (what cursors carry).
pub fn first_key(page: &SnapshotPage) -> String {
    sk_of(page)[PAGE_PREFIX.len()..].to_string()
}

fn current_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(scope(board), "CURRENT")
}

fn decode<T: DeserializeOwned>(what: &str, body: &[u8]) -> Result<T, ServiceError> {
    serde_json::from_slice(body).map_err(|e| {
        ServiceError::Store(podium_store::StoreError::Corrupt {
            key: what.to_string(),
            message: e.to_string(),
        })
    })
}

fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// The players the pages of snapshot `id` written so far list (a resumed run must not
/// list them again).
async fn listed_players<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
) -> Result<std::collections::HashSet<String>, ServiceError> {
    let pk = pages_pk(board, id);
    let mut seen = std::collections::HashSet::new();
    let mut range = SortKeyRange::All;
    loop {
        let found = store.query_items(&pk, &range, true, 100, true).await?;
        let Some((last, _)) = found.last() else {
            return Ok(seen);
        };
        range = SortKeyRange::After(last.clone());
        for (sk, item) in &found {
            let page: SnapshotPage = decode(sk, &item.body)?;
            seen.extend(page.entries.into_iter().map(|e| e.player_id));
        }
    }
}

/// Deletes the pages of snapshot `id` after sort key `after` (all when `None`):
/// what a run that died wrote after its last saved progress.
async fn delete_unsaved_pages<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    after: Option<&str>,
) -> Result<(), ServiceError> {
    let pk = pages_pk(board, id);
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

/// Runs (or resumes) snapshot `id` of `board` at `as_of`, writing at most
/// `page_budget` pages in this call (`None`: to the end). Safe to call again with the
/// same id after a timeout or crash; a completed snapshot is left as it is; while
/// another call holds the run, [`ServiceError::Contended`].
pub async fn run<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    as_of: DateTime<Utc>,
    page_size: u32,
    page_budget: Option<u32>,
) -> Result<RunReport, ServiceError> {
    let page_size = page_size.max(1);
    // Milliseconds, as cursors carry it: one `as_of` on every page of a walk.
    let as_of = DateTime::from_timestamp_millis(as_of.timestamp_millis()).unwrap_or(as_of);
    let rkey = run_key(board, id);
    let owner = format!("{:016x}", rand::random::<u64>());
    let lease = |owner: &str| {
        Some(Lease {
            owner: owner.to_string(),
            until_ms: now_ms() + LEASE_MS,
        })
    };
    let contended = || ServiceError::Contended { attempts: 1 };
    let (mut state, mut version) = match store.get_item(&rkey, true).await? {
        None => {
            let fresh = RunState {
                id: id.to_string(),
                as_of,
                page_size,
                pages_written: 0,
                position: 0,
                last: None,
                last_page: None,
                complete: false,
                lease: lease(&owner),
                read_from_ms: None,
                read_to_ms: None,
            };
            if !store.put_item_if(&rkey, &encode(&fresh), 0).await? {
                return Err(contended());
            }
            (fresh, 1)
        }
        Some(item) => {
            let mut state: RunState = decode(&rkey.sk, &item.body)?;
            if state.complete {
                return Ok(RunReport {
                    id: id.to_string(),
                    pages_written: 0,
                    pages_total: state.pages_written,
                    complete: true,
                    already_complete: true,
                });
            }
            if state.lease.as_ref().is_some_and(|l| l.until_ms > now_ms()) {
                return Err(contended());
            }
            state.lease = lease(&owner);
            if !store.put_item_if(&rkey, &encode(&state), item.version).await? {
                return Err(contended());
            }
            delete_unsaved_pages(store, board, id, state.last_page.as_deref()).await?;
            (state, item.version + 1)
        }
    };
    let mut budget = page_budget.unwrap_or(u32::MAX);
    let resume_after = state.last.as_ref().and_then(|(k, _, _)| BoardKey::decode(k));
    // The board moves while it is read: a player met twice (their value changed and
    // they moved past the reading) is listed once, where first met.
    let mut seen = listed_players(store, board, id).await?;
    let mut stream = BoardStream::new(store, board, resume_after);
    let mut written_now = 0;
    let mut first_page = None;
    let mut exhausted = false;
    if state.read_from_ms.is_none() {
        state.read_from_ms = Some(now_ms());
    }
    while budget > 0 && !exhausted {
        let mut batch = Vec::new();
        let mut next = state.clone();
        while batch.len() < PAGES_PER_BATCH && budget > 0 {
            let mut rows = Vec::with_capacity(next.page_size as usize);
            while rows.len() < next.page_size as usize {
                let more = stream.take(next.page_size as usize - rows.len()).await?;
                if more.is_empty() {
                    break;
                }
                rows.extend(more.into_iter().filter(|s| seen.insert(s.player_id.clone())));
            }
            if rows.is_empty() {
                exhausted = true;
                break;
            }
            let mut counter = match &next.last {
                Some((_, v, r)) => RankCounter::resume(next.position, *v, *r),
                None => RankCounter::top(),
            };
            let entries: Vec<SnapshotEntry> = rows
                .into_iter()
                .map(|s| SnapshotEntry {
                    rank: counter.next(s.value),
                    player_id: s.player_id,
                    value: s.value,
                    reached_at_ms: s.reached_at_ms,
                })
                .collect();
            let page = SnapshotPage {
                number: next.pages_written,
                first_position: next.position,
                entries,
            };
            next.last = page.entries.last().map(|e| {
                let key = BoardKey {
                    value: e.value,
                    reached_at_ms: e.reached_at_ms,
                    player_id: e.player_id.clone(),
                };
                (key.encode(), e.value, e.rank)
            });
            next.position += page.entries.len() as u64;
            let sk = sk_of(&page);
            next.last_page = Some(sk.clone());
            let full = page.entries.len() == next.page_size as usize;
            if page.number == 0 {
                first_page = Some(page.clone());
            }
            batch.push((ItemKey::new(pages_pk(board, id), sk), encode(&page)));
            next.pages_written += 1;
            budget -= 1;
            if !full {
                exhausted = true;
                break;
            }
        }
        if batch.is_empty() {
            break;
        }
        store.put_items(&batch, expiry(id, as_of)).await?;
        written_now += batch.len() as u32;
        next.read_to_ms = Some(now_ms());
        next.lease = lease(&owner);
        if !store.put_item_if(&rkey, &encode(&next), version).await? {
            // Another run of the same id took over: let it finish.
            return Err(contended());
        }
        version += 1;
        state = next;
    }
    if !exhausted {
        // Out of budget: save where this call stopped and let the next one go on at once.
        state.lease = None;
        if !store.put_item_if(&rkey, &encode(&state), version).await? {
            return Err(contended());
        }
        return Ok(RunReport {
            id: id.to_string(),
            pages_written: written_now,
            pages_total: state.pages_written,
            complete: false,
            already_complete: false,
        });
    }
    if first_page.is_none() && state.pages_written > 0 {
        first_page = store
            .query_items(&pages_pk(board, id), &SortKeyRange::All, true, 1, true)
            .await?
            .into_iter()
            .next()
            .map(|(sk, item)| decode(&sk, &item.body))
            .transpose()?;
    }
    let mut done = state.clone();
    done.complete = true;
    done.lease = None;
    done.read_to_ms = Some(now_ms());
    if !store.put_item_if(&rkey, &encode(&done), version).await? {
        return Err(contended());
    }
    publish(
        store,
        board,
        Published {
            id: id.to_string(),
            as_of: state.as_of,
            page_size: state.page_size,
            pages: state.pages_written,
            entries: state.position,
            first_page,
            read_from_ms: done.read_from_ms.unwrap_or_default(),
            read_to_ms: done.read_to_ms.unwrap_or_default(),
            published_at_ms: 0,
        },
    )
    .await?;
    Ok(RunReport {
        id: id.to_string(),
        pages_written: written_now,
        pages_total: state.pages_written,
        complete: true,
        already_complete: false,
    })
}

/// Points readers at `snapshot` unless a newer one is current already.
async fn publish<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    mut snapshot: Published,
) -> Result<(), ServiceError> {
    let key = current_key(board);
    for _ in 0..10 {
        let (current, version) = match store.get_item(&key, true).await? {
            Some(item) => (Some(decode::<Published>(&key.sk, &item.body)?), item.version),
            None => (None, 0),
        };
        if current.is_some_and(|c| c.as_of >= snapshot.as_of) {
            return Ok(());
        }
        snapshot.published_at_ms = now_ms();
        if store.put_item_if(&key, &encode(&snapshot), version).await? {
            return Ok(());
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// The board's current snapshot, if any (one read).
pub async fn current<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Option<Published>, ServiceError> {
    let key = current_key(board);
    match store.get_item(&key, false).await? {
        Some(item) => Ok(Some(decode(&key.sk, &item.body)?)),
        None => Ok(None),
    }
}

/// Up to `limit` pages of snapshot `id` in `range` of page sort keys (see
/// [`page_sk`]), nearest first in the direction `forward` (one read).
pub async fn pages<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    range: SortKeyRange,
    forward: bool,
    limit: usize,
    consistent: bool,
) -> Result<Vec<SnapshotPage>, ServiceError> {
    store
        .query_items(&pages_pk(board, id), &range, forward, limit, consistent)
        .await?
        .into_iter()
        .map(|(sk, item)| decode(&sk, &item.body))
        .collect()
}

/// The page of snapshot `id` that holds board key `key`, or would hold it: the last
/// page whose first key is at or before it (`None`: it lies before every page). One read.
pub async fn page_holding<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    key: &BoardKey,
    consistent: bool,
) -> Result<Option<SnapshotPage>, ServiceError> {
    let range = SortKeyRange::AtOrBefore(page_sk(&key.encode()));
    Ok(pages(store, board, id, range, false, 1, consistent).await?.pop())
}

/// The page of snapshot `id` that decides the LB-2 rank of `value`: the last page
/// whose first value is strictly better (`None`: no entry is). One read.
pub async fn page_deciding<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    value: i64,
    consistent: bool,
) -> Result<Option<SnapshotPage>, ServiceError> {
    let range = SortKeyRange::Before(page_sk(&BoardKey::first_of_value(value).encode()));
    Ok(pages(store, board, id, range, false, 1, consistent).await?.pop())
}

/// The page right before or right after `page` in snapshot `id`, if any. One read.
pub async fn neighbour_page<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    page: &SnapshotPage,
    after: bool,
    consistent: bool,
) -> Result<Option<SnapshotPage>, ServiceError> {
    let sk = sk_of(page);
    let range = if after {
        SortKeyRange::After(sk)
    } else {
        SortKeyRange::Before(sk)
    };
    Ok(pages(store, board, id, range, after, 1, consistent).await?.pop())
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
