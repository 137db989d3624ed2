//! Reading a snapshot: the current pointer, its directory chunks and page bodies,
//! each read a constant number of times (LB-7).

use std::sync::Arc;

use podium_rules::board::BoardRef;
use podium_rules::leaderboard::Standing;
use podium_rules::snapshot::SnapshotPage;
use podium_store::{BoardKey, ItemKey, ItemStore, SortKeyRange, StoreError};

use super::layout::*;
use crate::boards::snapshot::codec::{
    decode_body, decode_chunk, decode_moves, encode_body, page_id, ranked, Earlier,
};
use crate::error::ServiceError;

/// The erasures recorded before the board's first pointer (none when absent).
pub(crate) async fn pending_erasures<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<(Vec<Erased>, u64), ServiceError> {
    let key = pending_erasures_key(board);
    match store.get_item(&key, true).await? {
        Some(item) => Ok((decode(&key.sk, &item.body)?, item.version)),
        None => Ok((Vec::new(), 0)),
    }
}

/// Every directory chunk of snapshot `id`, in order, as (sort key, first page number, entries).
pub(crate) async fn all_chunks<S: ItemStore + ?Sized>(
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

/// Page bodies one batch read carries when a snapshot is read whole.
const BODIES_AT_ONCE: usize = 100;

/// Every entry of snapshot `id` of `board`, in listing order, given to `each` one at a
/// time (pages whose body is gone are passed over): the directory (a Query per 100
/// chunks), then the page bodies [`BODIES_AT_ONCE`] to a batch read, so what is held
/// at once is the directory and one batch of pages, not the snapshot.
pub(crate) async fn each_entry<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    consistent: bool,
    mut each: impl FnMut(podium_rules::snapshot::SnapshotEntry),
) -> Result<(), ServiceError> {
    let listed: Vec<DirEntry> = all_chunks(store, board, id, consistent)
        .await?
        .into_iter()
        .flat_map(|(_, _, entries)| entries)
        .collect();
    for chunk in listed.chunks(BODIES_AT_ONCE) {
        let keys: Vec<ItemKey> = chunk.iter().map(|e| body_key(board, &e.page)).collect();
        for ((e, key), item) in chunk
            .iter()
            .zip(&keys)
            .zip(store.get_items(&keys, consistent).await?)
        {
            let Some(item) = item else { continue };
            ranked(e.position, e.rank, decode_body(&key.pk, &item.body)?)
                .into_iter()
                .for_each(&mut each);
        }
    }
    Ok(())
}

/// The entries listed at 0-based positions `from .. from + n`, as (value, player id),
/// in order: on page 0, or on the pages chunk 0 of the directory lists them on (a
/// read each); fewer past the end of the snapshot or of chunk 0.
pub(crate) async fn entries_at<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    first_page: Option<&SnapshotPage>,
    chunk0: Option<&[DirEntry]>,
    from: u64,
    n: u64,
) -> Result<Vec<(i64, String)>, ServiceError> {
    let mut out = Vec::new();
    let mut loaded: Option<SnapshotPage> = None;
    for position in from..from.saturating_add(n) {
        let on = |pg: &SnapshotPage| {
            position
                .checked_sub(pg.first_position)
                .and_then(|i| pg.entries.get(i as usize))
                .map(|e| (e.value, e.player_id.clone()))
        };
        if let Some(found) = first_page.and_then(on).or_else(|| loaded.as_ref().and_then(on)) {
            out.push(found);
            continue;
        }
        let holding = chunk0
            .unwrap_or_default()
            .iter()
            .enumerate()
            .find(|(_, e)| e.position <= position && position < e.position + u64::from(e.len));
        let Some((number, e)) = holding else {
            break;
        };
        loaded = load_page(store, board, number as u32, e, true).await?;
        match loaded.as_ref().and_then(on) {
            Some(found) => out.push(found),
            None => break,
        }
    }
    Ok(out)
}

/// Reads and ranks the body of the page `entry` lists as page `number`; `None` when
/// it is gone (expired).
pub(crate) async fn load_page<S: ItemStore + ?Sized>(
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

/// The board's current snapshot, if any (one read). A pointer of an older layout
/// counts as none: readers then read the live board until the next refresh.
pub async fn current<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Option<Published>, ServiceError> {
    pointer(store, board, false).await
}

pub(crate) async fn pointer<S: ItemStore + ?Sized>(
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
pub(crate) fn in_range(range: &SortKeyRange, sk: &str) -> bool {
    match range {
        SortKeyRange::All => true,
        SortKeyRange::Before(k) => sk < k.as_str(),
        SortKeyRange::AtOrBefore(k) => sk <= k.as_str(),
        SortKeyRange::After(k) => sk > k.as_str(),
        SortKeyRange::AtOrAfter(k) => sk >= k.as_str(),
    }
}

/// One directory chunk a [`Directory`] has read: the pages `first ..` it lists.
pub(crate) struct Chunk {
    first: u32,
    entries: Arc<Vec<DirEntry>>,
}

/// Decoded snapshot data kept by a process between requests (a server's, a warm
/// Lambda container's). Once a snapshot is published nothing it lists changes: page
/// bodies are addressed by their content's hash, directory chunks and movement items
/// by the snapshot's id and `as_of`. So each is read and decoded once and then
/// shared, never copied, by every request that needs it.
///
/// Bounded by entries held ([`Memo::with_capacity`]): `entries` ranked page entries
/// (about 200 bytes each with their cards), a quarter as many directory entries
/// (about 150 bytes each; a 10^6-player board's whole directory is about 20,000) and
/// half as many movement entries (about 24 bytes each), the least recently used
/// evicted first. The default, [`MEMO_DEFAULT_ENTRIES`], is about 27 MB when full.
/// Its tables are made on first use, not when the memo is (a function's start-up
/// makes a context, and so a memo, before its first request).
pub struct Memo {
    entries: u64,
    held: std::sync::OnceLock<Held>,
}

/// What a [`Memo`] holds: decoded pages, directory chunks, movement blocks.
struct Held {
    pages: quick_cache::sync::Cache<PageId, Arc<SnapshotPage>, EntriesWeight>,
    chunks: quick_cache::sync::Cache<String, Arc<KnownChunks>, EntriesWeight>,
    moves: quick_cache::sync::Cache<MoveId, Arc<Vec<Vec<Earlier>>>, EntriesWeight>,
}

/// The page entries a [`Memo`] holds at most by default (a 128 MB Lambda function's).
pub const MEMO_DEFAULT_ENTRIES: u64 = 100_000;

/// A ranked page in the memo: its body's id (the hash of its content, which holds
/// its entries and cards, so equal ids decode alike on any board), its number, first
/// position and first rank.
#[derive(PartialEq, Eq)]
struct PageId {
    page: String,
    number: u32,
    position: u64,
    rank: u64,
}

/// A [`PageId`] borrowed from a directory entry: looks a page up without allocating.
#[derive(Hash)]
struct PageRef<'a> {
    page: &'a str,
    number: u32,
    position: u64,
    rank: u64,
}

impl<'a> PageRef<'a> {
    fn of(number: u32, e: &'a DirEntry) -> Self {
        PageRef {
            page: &e.page,
            number,
            position: e.position,
            rank: e.rank,
        }
    }
}

impl std::hash::Hash for PageId {
    /// As its [`PageRef`] hashes (the memo finds one by the other).
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        PageRef {
            page: &self.page,
            number: self.number,
            position: self.position,
            rank: self.rank,
        }
        .hash(h)
    }
}

impl quick_cache::Equivalent<PageId> for PageRef<'_> {
    fn equivalent(&self, id: &PageId) -> bool {
        self.page == id.page
            && self.number == id.number
            && self.position == id.position
            && self.rank == id.rank
    }
}

/// A movement item: its partition and sort key, and its snapshot's `as_of` (ms).
type MoveId = (String, String, i64);

/// The directory chunks of one snapshot read so far, in page order. Never
/// changed once in the memo (its weight must stay what it was when inserted): a
/// chunk read later is added to a copy, which replaces it.
type KnownChunks = Vec<Arc<Chunk>>;

/// Weighs a [`Memo`] value by the entries it holds.
#[derive(Clone, Copy, Default)]
pub(crate) struct EntriesWeight;

impl quick_cache::Weighter<PageId, Arc<SnapshotPage>> for EntriesWeight {
    fn weight(&self, _: &PageId, page: &Arc<SnapshotPage>) -> u64 {
        page.entries.len() as u64 + 1
    }
}

impl quick_cache::Weighter<String, Arc<KnownChunks>> for EntriesWeight {
    fn weight(&self, _: &String, known: &Arc<KnownChunks>) -> u64 {
        known.iter().map(|c| c.entries.len() as u64).sum::<u64>() + 1
    }
}

impl quick_cache::Weighter<MoveId, Arc<Vec<Vec<Earlier>>>> for EntriesWeight {
    fn weight(&self, _: &MoveId, moves: &Arc<Vec<Vec<Earlier>>>) -> u64 {
        moves.iter().map(|pg| pg.len() as u64).sum::<u64>() + 1
    }
}

impl Default for Memo {
    fn default() -> Self {
        Memo::with_capacity(MEMO_DEFAULT_ENTRIES)
    }
}

impl Memo {
    /// A memo of at most `entries` ranked page entries, `entries / 4` directory
    /// entries and `entries / 2` movement entries.
    pub fn with_capacity(entries: u64) -> Self {
        Memo {
            entries,
            held: std::sync::OnceLock::new(),
        }
    }

    /// The memo's tables, made on the first call.
    fn held(&self) -> &Held {
        self.held.get_or_init(|| {
            // quick_cache sizes its tables from an estimate of the items held: pages of
            // about 50 entries, chunks of 200 pages, movement blocks of 16 pages of 50.
            use quick_cache::sync::Cache;
            let entries = self.entries;
            let (pages, dirs, moves) = (entries.max(1), (entries / 4).max(1), (entries / 2).max(1));
            Held {
                pages: Cache::with_weighter((pages / 50).max(16) as usize, pages, EntriesWeight),
                chunks: Cache::with_weighter((dirs / 200).max(16) as usize, dirs, EntriesWeight),
                moves: Cache::with_weighter((moves / 800).max(16) as usize, moves, EntriesWeight),
            }
        })
    }

    /// The movement block item `key` of the snapshot taken at `as_of_ms`, read and
    /// decoded once; `None` when it is absent (not kept: it may not be visible yet).
    pub(crate) async fn moves<S: ItemStore + ?Sized>(
        &self,
        store: &S,
        key: &ItemKey,
        as_of_ms: i64,
    ) -> Result<Option<Arc<Vec<Vec<Earlier>>>>, ServiceError> {
        let id = (key.pk.clone(), key.sk.clone(), as_of_ms);
        if let Some(found) = self.held().moves.get(&id) {
            return Ok(Some(found));
        }
        match store.get_item(key, false).await? {
            Some(item) => {
                let Some(moves) = movement_of(key, &item.body) else {
                    return Ok(None);
                };
                self.held().moves.insert(id, Arc::clone(&moves));
                Ok(Some(moves))
            }
            None => Ok(None),
        }
    }
}

/// A movement item decoded; `None`, logged, when it cannot be (a format this build
/// does not know, written by a newer one, or a corrupt item): movement (PF-5) is left
/// out of the answer rather than failing it.
fn movement_of(key: &ItemKey, body: &[u8]) -> Option<Arc<Vec<Vec<Earlier>>>> {
    match decode_moves(&key.pk, body) {
        Ok(moves) => Some(Arc::new(moves)),
        Err(e) => {
            tracing::warn!(error = %e, "movement item not read: answered without movement");
            None
        }
    }
}

/// The directory of one snapshot as one request reads it: chunk 0 from the pointer,
/// other chunks read when needed (one Query each) and kept for the request, page
/// bodies one read each (page 0 from the pointer). With a [`Memo`], chunks and
/// pages read by earlier requests are taken from it, and those read now are added.
pub struct Directory<'a, S: ?Sized> {
    store: &'a S,
    board: &'a BoardRef,
    id: String,
    pages: u32,
    consistent: bool,
    /// Entries listed in the snapshot (`u64::MAX`: unknown): the page that ends there is the last.
    entries: u64,
    first_page: Option<Arc<SnapshotPage>>,
    /// The chunks read, in page order: shared with the memo, copied only when this
    /// request reads a chunk the memo did not hold.
    chunks: Arc<KnownChunks>,
    memo: Option<(&'a Memo, String, i64)>,
}

impl<'a, S: ItemStore + ?Sized> Directory<'a, S> {
    /// The directory of the snapshot `p` points to, read strongly consistent when `consistent`.
    pub fn new(store: &'a S, board: &'a BoardRef, p: &Published, consistent: bool) -> Self {
        Directory {
            store,
            board,
            id: p.id.clone(),
            pages: p.pages,
            entries: p.entries,
            consistent,
            first_page: p.first_page.clone(),
            chunks: Arc::new(vec![Arc::new(Chunk {
                first: 0,
                entries: Arc::clone(&p.directory),
            })]),
            memo: None,
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
            entries: u64::MAX,
            consistent,
            first_page: None,
            chunks: Arc::default(),
            memo: None,
        }
    }

    /// This directory, of a snapshot that lists `entries` entries (as its cursors carry).
    pub fn with_entries(mut self, entries: u64) -> Self {
        self.entries = entries;
        self
    }

    /// This directory reading through `memo`, for the snapshot taken at `as_of_ms`
    /// (its chunks and pages read earlier are taken from it, those read now added).
    pub fn with_memo(mut self, memo: &'a Memo, as_of_ms: i64) -> Self {
        let mut snapshot = dir_pk(self.board, &self.id);
        snapshot.push('\u{0}');
        snapshot.push_str(itoa::Buffer::new().format(as_of_ms));
        if let Some(known) = memo.held().chunks.get(&snapshot) {
            // The memo's chunks of this snapshot include chunk 0 once any chunk was
            // read through it: then they are taken as they are, not copied.
            if self
                .chunks
                .iter()
                .all(|c| known.binary_search_by_key(&c.first, |k| k.first).is_ok())
            {
                self.chunks = known;
            } else {
                for c in known.iter() {
                    self.keep(Arc::clone(c));
                }
            }
        }
        self.memo = Some((memo, snapshot, as_of_ms));
        self
    }

    /// Adds chunk `c` in page order unless a chunk with its first page is held.
    fn keep(&mut self, c: Arc<Chunk>) {
        if self
            .chunks
            .binary_search_by_key(&c.first, |held| held.first)
            .is_err()
        {
            keep_in_order(Arc::make_mut(&mut self.chunks), c);
        }
    }

    /// How many chunks held start at or before page `number` (the chunk that may list
    /// it is the one before that index; the next one starts after it).
    fn chunks_through(&self, number: u32) -> usize {
        self.chunks.partition_point(|c| c.first <= number)
    }

    /// The directory chunk read that lists page `number`: its first page's number and
    /// first key (what its movement item is stored under).
    pub fn chunk_of(&self, number: u32) -> Option<(u32, String)> {
        let c = self.chunks.get(self.chunks_through(number).checked_sub(1)?)?;
        let i = (number - c.first) as usize;
        (i < c.entries.len()).then(|| (c.first, c.entries[0].key.clone()))
    }

    /// The entry of page `number` if a chunk read holds it.
    fn known(&self, number: u32) -> Option<&DirEntry> {
        let c = self.chunks.get(self.chunks_through(number).checked_sub(1)?)?;
        c.entries.get((number - c.first) as usize)
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
        if self.chunks.binary_search_by_key(&first, |c| c.first).is_err() {
            let chunk = Arc::new(Chunk {
                first,
                entries: Arc::new(entries),
            });
            self.keep(chunk);
            if let Some((memo, snapshot, _)) = &self.memo {
                // The memo gets every chunk this request holds (chunk 0 from the
                // pointer too), so the next request takes them without a copy.
                let mut known: KnownChunks = memo
                    .held()
                    .chunks
                    .get(snapshot)
                    .map(|k| k.to_vec())
                    .unwrap_or_default();
                let mut added = false;
                for c in self.chunks.iter() {
                    added |= keep_in_order(&mut known, Arc::clone(c));
                }
                if added {
                    memo.held().chunks.insert(snapshot.clone(), Arc::new(known));
                }
            }
        }
        Ok(Some(first))
    }

    /// The number of the last page whose first key is before `key` (at or before when
    /// `inclusive`): from the chunks read when they tell, else after one Query.
    async fn last_before(&mut self, key: &str, inclusive: bool) -> Result<Option<u32>, ServiceError> {
        let before = |k: &str| if inclusive { k <= key } else { k < key };
        // The chunks held are in page order, so are their keys: the last chunk whose
        // first key is before `key` is the only one that can list the page (a binary
        // search, not a scan of every chunk a warm memo holds).
        let starts_before = self
            .chunks
            .partition_point(|c| c.entries.first().is_some_and(|e| before(&e.key)));
        if let Some(c) = starts_before.checked_sub(1).map(|i| &self.chunks[i]) {
            let n = c.entries.partition_point(|e| before(&e.key));
            let number = c.first + n as u32 - 1;
            // Known when a later page of this chunk, or the next chunk's first, is after `key`.
            let next = number + 1;
            let last = &c.entries[n - 1];
            let decided = n < c.entries.len()
                || next >= self.pages
                || last.position + u64::from(last.len) >= self.entries
                || self
                    .chunks
                    .get(starts_before)
                    .is_some_and(|c| c.first == next && !c.entries.is_empty());
            if decided {
                return Ok(Some(number));
            }
        } else if self
            .chunks
            .first()
            .is_some_and(|c| c.first == 0 && !c.entries.is_empty())
        {
            // Before page 0's first key: before every page, no read needed.
            return Ok(None);
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
        let c = self
            .chunks
            .binary_search_by_key(&first, |c| c.first)
            .ok()
            .map(|i| &self.chunks[i]);
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
        let through = self.chunks_through(number);
        let below = through
            .checked_sub(1)
            .and_then(|i| self.chunks[i].entries.first().map(|e| chunk_sk(&e.key)));
        let above = self
            .chunks
            .get(through)
            .and_then(|c| c.entries.first().map(|e| chunk_sk(&e.key)));
        match (below, above) {
            (Some(sk), _) => self.read_chunk(SortKeyRange::After(sk), true).await?,
            (None, Some(sk)) => self.read_chunk(SortKeyRange::Before(sk), false).await?,
            (None, None) => self.read_chunk(SortKeyRange::All, true).await?,
        };
        Ok(self.known(number).cloned())
    }

    /// Page `number`, `None` when there is no such page or its body is gone.
    pub async fn page(&mut self, number: u32) -> Result<Option<Arc<SnapshotPage>>, ServiceError> {
        if number == 0 {
            if let Some(p) = &self.first_page {
                return Ok(Some(Arc::clone(p)));
            }
        }
        // A page a chunk held lists, found in the memo: no copy of its entry.
        if let (Some((memo, _, _)), Some(e)) = (&self.memo, self.known(number)) {
            if let Some(page) = memo.held().pages.get(&PageRef::of(number, e)) {
                return Ok(Some(page));
            }
        }
        let Some(e) = self.entry(number).await? else {
            return Ok(None);
        };
        let Some((memo, _, _)) = &self.memo else {
            return Ok(load_page(self.store, self.board, number, &e, self.consistent)
                .await?
                .map(Arc::new));
        };
        if let Some(page) = memo.held().pages.get(&PageRef::of(number, &e)) {
            return Ok(Some(page));
        }
        let page = load_page(self.store, self.board, number, &e, self.consistent)
            .await?
            .map(Arc::new);
        if let Some(page) = &page {
            let id = PageId {
                page: e.page.clone(),
                number,
                position: e.position,
                rank: e.rank,
            };
            memo.held().pages.insert(id, Arc::clone(page));
        }
        Ok(page)
    }

    /// The movement block of this snapshot that holds the page `offset` pages into
    /// the chunk starting at `first_key` ([`crate::boards::snapshot::movement::block`]),
    /// through the memo when there is one.
    pub async fn movement(
        &self,
        first_key: &str,
        offset: u32,
    ) -> Result<Option<Arc<Vec<Vec<Earlier>>>>, ServiceError> {
        let key = block_key(self.board, &self.id, first_key, offset);
        match &self.memo {
            Some((memo, _, as_of_ms)) => memo.moves(self.store, &key, *as_of_ms).await,
            None => match self.store.get_item(&key, false).await? {
                Some(item) => Ok(movement_of(&key, &item.body)),
                None => Ok(None),
            },
        }
    }

    /// The page that holds board key `key`, or would hold it: the last page whose
    /// first key is at or before it (`None`: it lies before every page).
    pub async fn page_holding(&mut self, key: &BoardKey) -> Result<Option<Arc<SnapshotPage>>, ServiceError> {
        match self.last_before(&key.encode(), true).await? {
            Some(n) => self.page(n).await,
            None => Ok(None),
        }
    }

    /// The page that decides the LB-2 rank of `value`: the last page whose first
    /// value is strictly better (`None`: no entry is).
    pub async fn page_deciding(&mut self, value: i64) -> Result<Option<Arc<SnapshotPage>>, ServiceError> {
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
    ) -> Result<Option<Arc<SnapshotPage>>, ServiceError> {
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

/// Adds `c` to `chunks` (in page order) at its place; false when a chunk with its
/// first page is there already.
fn keep_in_order(chunks: &mut Vec<Arc<Chunk>>, c: Arc<Chunk>) -> bool {
    match chunks.binary_search_by_key(&c.first, |held| held.first) {
        Ok(_) => false,
        Err(at) => {
            chunks.insert(at, c);
            true
        }
    }
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
    let cards: Vec<_> = page.entries.iter().map(|e| e.card.clone()).collect();
    body_key(board, &page_id(&encode_body(&standings, &cards)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_store::embedded::EmbeddedStore;

    /// A chunk starting at page `first`, listing pages of 10 entries with first keys `keys`.
    fn chunk(first: u32, keys: &[&str]) -> Arc<Chunk> {
        let entries = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let position = u64::from(first + i as u32) * 10;
                DirEntry {
                    key: k.to_string(),
                    page: format!("page-{k}"),
                    position,
                    rank: position + 1,
                    len: 10,
                    expires_at: None,
                }
            })
            .collect();
        Arc::new(Chunk {
            first,
            entries: Arc::new(entries),
        })
    }

    /// LB-7: chunks met in any order are held in page order, and the page holding a
    /// key is found from them alone (binary searches, no Query) whenever they tell.
    #[tokio::test]
    async fn chunks_met_in_any_order_find_the_page_holding_a_key() {
        let store = EmbeddedStore::in_memory().expect("store");
        let board = BoardRef::all_time("seega");
        let mut dir = Directory::pinned(&store, &board, "s", Some(6), true).with_entries(60);
        for c in [
            chunk(4, &["j", "l"]),
            chunk(0, &["b", "d"]),
            chunk(2, &["f", "h"]),
            chunk(2, &["f", "h"]),
        ] {
            dir.keep(c);
        }
        assert_eq!(dir.chunks.iter().map(|c| c.first).collect::<Vec<_>>(), [0, 2, 4]);
        for (key, inclusive, page) in [
            ("a", true, None),
            ("b", true, Some(0)),
            ("b", false, None),
            ("c", true, Some(0)),
            ("f", false, Some(1)),
            ("g", true, Some(2)),
            // The last page of a chunk: decided by the next chunk's first key.
            ("i", true, Some(3)),
            ("l", false, Some(4)),
            // The last page of the snapshot.
            ("z", true, Some(5)),
        ] {
            assert_eq!(
                dir.last_before(key, inclusive).await.expect("read"),
                page,
                "{key} {inclusive}"
            );
        }
        assert_eq!(dir.known(3).map(|e| e.key.as_str()), Some("h"));
        assert_eq!(dir.known(6), None);
        assert_eq!(dir.chunk_of(5), Some((4, "j".to_string())));
        assert_eq!(dir.chunk_of(1), Some((0, "b".to_string())));
    }

    /// A gap between the chunks held: the page after a chunk's last is not known, so
    /// the chunk after it is read (here: none stored, so no page is named).
    #[tokio::test]
    async fn a_gap_between_chunks_is_read_not_guessed() {
        let store = EmbeddedStore::in_memory().expect("store");
        let board = BoardRef::all_time("seega");
        let mut dir = Directory::pinned(&store, &board, "s", Some(6), true).with_entries(60);
        dir.keep(chunk(4, &["j", "l"]));
        dir.keep(chunk(0, &["b", "d"]));
        assert_eq!(dir.last_before("e", true).await.expect("read"), None);
        assert_eq!(dir.last_before("k", true).await.expect("read"), Some(4));
    }
}

#[cfg(test)]
mod movement_tests {
    use super::*;

    /// PF-5: a movement item this build cannot read (a newer format, a corrupt item)
    /// leaves movement out; a readable one is read.
    #[test]
    fn pf5_an_unreadable_movement_item_is_left_out() {
        let key = ItemKey::new("SNAP#seega#all#e1#MOVE", "m");
        assert_eq!(movement_of(&key, &[9, 1, 0]), None);
        assert_eq!(movement_of(&key, &[2, 1]), None);
        let pages = vec![vec![Earlier {
            previous: Some(3),
            last_final: None,
        }]];
        let body = crate::boards::snapshot::codec::encode_moves(&pages);
        assert_eq!(movement_of(&key, &body).as_deref(), Some(&pages));
    }
}
