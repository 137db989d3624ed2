//! Snapshots of a live board (LB-5): the `snapshot` job materialises the board as
//! ranked pages, resumably; readers then serve any page with one read and any
//! player's rank with one page read (LB-7).
//!
//! Items (all through [`ItemStore`]), for board `B` and period `P`:
//!
//! | item | partition key | sort key | body (JSON) |
//! |---|---|---|---|
//! | run state | `SNAP#B#P` | `RUN#{id}` | [`RunState`]: progress, so a retried run resumes |
//! | page | `SNAP#B#P#{id}` | `PAGE#{n:06}` | [`SnapshotPage`] |
//! | page index | `SNAP#B#P#{id}` | `INDEX` | [`PageIndex`] |
//! | current snapshot | `SNAP#B#P` | `CURRENT` | [`Published`], with page 0 inline |
//!
//! A run writes pages in batches (one BatchWriteItem of up to 25 pages), then saves
//! its progress with a conditional write on the run state's version, so two runs of
//! the same id never both advance it, and a run that dies resumes after the last
//! saved page (pages written after it are written again). A complete run is never
//! redone, and the current pointer only moves to a newer `as_of`.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{listing_order, RankCounter, Standing};
use podium_rules::snapshot::{PageIndex, SnapshotEntry, SnapshotPage};
use podium_store::{BoardKey, BoardStore, ItemKey, ItemStore};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::error::ServiceError;

/// How long a refresh snapshot's pages are kept after its `as_of`: long enough for any
/// walk that started on it; frozen (`final`) snapshots are kept for good.
pub const REFRESH_RETENTION_SECS: i64 = 24 * 3600;

/// The TTL of a snapshot's pages and index: none for a frozen period's `final`.
fn expiry(id: &str, as_of: DateTime<Utc>) -> Option<i64> {
    (id != crate::period_boards::FINAL).then(|| as_of.timestamp() + REFRESH_RETENTION_SECS)
}

/// Pages one batch write carries (DynamoDB's BatchWriteItem limit).
pub const PAGES_PER_BATCH: usize = 25;

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
    pub first_values: Vec<i64>,
    pub complete: bool,
}

/// The board's current snapshot, as readers find it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Published {
    pub id: String,
    pub as_of: DateTime<Utc>,
    pub page_size: u32,
    pub pages: u32,
    pub entries: u64,
    /// Page 0, so the top page costs one read.
    pub first_page: Option<SnapshotPage>,
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
                    shard.last = rows.last().map(|s| BoardKey {
                        value: s.value,
                        reached_at_ms: s.reached_at_ms,
                        player_id: s.player_id.clone(),
                    });
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

fn page_key(board: &BoardRef, id: &str, n: u32) -> ItemKey {
    ItemKey::new(format!("{}#{id}", scope(board)), format!("PAGE#{n:06}"))
}

fn index_key(board: &BoardRef, id: &str) -> ItemKey {
    ItemKey::new(format!("{}#{id}", scope(board)), "INDEX")
}

fn current_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(scope(board), "CURRENT")
}

fn decode<T: DeserializeOwned>(key: &ItemKey, body: &[u8]) -> Result<T, ServiceError> {
    serde_json::from_slice(body).map_err(|e| {
        ServiceError::Store(podium_store::StoreError::Corrupt {
            key: format!("{}/{}", key.pk, key.sk),
            message: e.to_string(),
        })
    })
}

fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// Runs (or resumes) snapshot `id` of `board` at `as_of`, writing at
/// most `page_budget` pages in this call (`None`: to the end). Safe to call again with
/// the same id after a timeout or crash; a completed snapshot is left as it is.
pub async fn run<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    as_of: DateTime<Utc>,
    page_size: u32,
    page_budget: Option<u32>,
) -> Result<RunReport, ServiceError> {
    let rkey = run_key(board, id);
    let (mut state, mut version) = match store.get_item(&rkey, true).await? {
        Some(item) => (decode::<RunState>(&rkey, &item.body)?, item.version),
        None => {
            let fresh = RunState {
                id: id.to_string(),
                as_of,
                page_size,
                pages_written: 0,
                position: 0,
                last: None,
                first_values: Vec::new(),
                complete: false,
            };
            if !store.put_item_if(&rkey, &encode(&fresh), 0).await? {
                return Err(ServiceError::Contended { attempts: 1 });
            }
            (fresh, 1)
        }
    };
    if state.complete {
        return Ok(RunReport {
            id: id.to_string(),
            pages_written: 0,
            pages_total: state.pages_written,
            complete: true,
            already_complete: true,
        });
    }
    let mut budget = page_budget.unwrap_or(u32::MAX);
    let resume_after = state.last.as_ref().and_then(|(k, _, _)| BoardKey::decode(k));
    let mut stream = BoardStream::new(store, board, resume_after);
    let mut written_now = 0;
    let mut first_page = None;
    let mut exhausted = false;
    while budget > 0 && !exhausted {
        let mut batch = Vec::new();
        let mut next = state.clone();
        while batch.len() < PAGES_PER_BATCH && budget > 0 {
            let rows = stream.take(next.page_size as usize).await?;
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
            let last = page.entries.last().map(|e| {
                let key = BoardKey {
                    value: e.value,
                    reached_at_ms: e.reached_at_ms,
                    player_id: e.player_id.clone(),
                };
                (key.encode(), e.value, e.rank)
            });
            next.first_values.push(page.entries[0].value);
            next.position += page.entries.len() as u64;
            next.last = last;
            if page.number == 0 {
                first_page = Some(page.clone());
            }
            let full = page.entries.len() == next.page_size as usize;
            batch.push((page_key(board, id, page.number), encode(&page)));
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
        if !store.put_item_if(&rkey, &encode(&next), version).await? {
            // Another run of the same id moved on: let it finish.
            return Err(ServiceError::Contended { attempts: 1 });
        }
        version += 1;
        state = next;
    }
    if !exhausted {
        return Ok(RunReport {
            id: id.to_string(),
            pages_written: written_now,
            pages_total: state.pages_written,
            complete: false,
            already_complete: false,
        });
    }
    let index = PageIndex {
        first_values: state.first_values.clone(),
    };
    store
        .put_items(&[(index_key(board, id), encode(&index))], expiry(id, as_of))
        .await?;
    if first_page.is_none() && state.pages_written > 0 {
        first_page = read_page(store, board, id, 0).await?;
    }
    let mut done = state.clone();
    done.complete = true;
    if !store.put_item_if(&rkey, &encode(&done), version).await? {
        return Err(ServiceError::Contended { attempts: 1 });
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
    snapshot: Published,
) -> Result<(), ServiceError> {
    let key = current_key(board);
    for _ in 0..10 {
        let (current, version) = match store.get_item(&key, true).await? {
            Some(item) => (Some(decode::<Published>(&key, &item.body)?), item.version),
            None => (None, 0),
        };
        if current.is_some_and(|c| c.as_of >= snapshot.as_of) {
            return Ok(());
        }
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
        Some(item) => Ok(Some(decode(&key, &item.body)?)),
        None => Ok(None),
    }
}

/// Page `n` of snapshot `id` (one read).
pub async fn read_page<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    n: u32,
) -> Result<Option<SnapshotPage>, ServiceError> {
    let key = page_key(board, id, n);
    match store.get_item(&key, false).await? {
        Some(item) => Ok(Some(decode(&key, &item.body)?)),
        None => Ok(None),
    }
}

/// The page index of snapshot `id` (one read; immutable once written, so cacheable).
pub async fn read_index<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
) -> Result<PageIndex, ServiceError> {
    let key = index_key(board, id);
    match store.get_item(&key, false).await? {
        Some(item) => decode(&key, &item.body),
        None => Ok(PageIndex::default()),
    }
}

/// The run state of snapshot `id`, if it was ever started.
pub async fn run_state<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
) -> Result<Option<RunState>, ServiceError> {
    let key = run_key(board, id);
    match store.get_item(&key, true).await? {
        Some(item) => Ok(Some(decode(&key, &item.body)?)),
        None => Ok(None),
    }
}
