//! Serving boards from their current snapshot (LB-3, LB-4, LB-5, LB-7): any page in
//! one read, the caller's rank and neighbours in a few, whatever the board's size
//! and however large its tie groups.
//!
//! The current snapshot's pointer (with page 0) is cached per process for
//! [`CACHE_TTL`]. Around-me reads the caller's live entry, the page that holds the
//! caller's live key (one Query on the pages' sort keys), at most one neighbouring
//! page when the neighbours cross a page boundary, the page that decides the rank of
//! the caller's value when it is not among those, and, when the caller changed since
//! the snapshot and their older entry lies on another page above, that page: 2 to 5
//! reads.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{listing_key, Standing};
use podium_rules::snapshot::{around, nearest_better, rank_against, SnapshotEntry, SnapshotPage};
use podium_store::{BoardKey, BoardStore, ItemStore, PeriodStore};

use crate::boards::cursor::{Cursor, CursorKey};
use crate::boards::live::{
    board_value, entry, relative, AroundMe, EarlierRank, Movement, Page, StandingMovement,
};
use crate::boards::snapshot::codec::Earlier;
use crate::boards::snapshot::layout::MOVE_BLOCK;
use crate::boards::snapshot::{layout::first_key, layout::Published, read::Directory, read::Memo};
use crate::boards::visibility::Hidden;
use crate::error::ServiceError;

/// How long a process trusts its copy of the current snapshot's pointer.
pub const CACHE_TTL: Duration = Duration::from_secs(30);

/// Cached pointers by board name, then period: when each was read, and what it says.
type PointerSlots = HashMap<String, HashMap<String, (Instant, Arc<Published>)>>;

/// The current snapshot's pointer of each board, cached for [`CACHE_TTL`], and the
/// snapshots' decoded directory chunks, pages and movement ([`Memo`], bounded).
#[derive(Default)]
pub struct SnapshotCache {
    /// By board name, then period (looked up without building a key).
    slots: Mutex<PointerSlots>,
    memo: Memo,
}

impl SnapshotCache {
    /// The cached entries; a panic elsewhere cannot leave a cache unusable.
    fn slots(&self) -> std::sync::MutexGuard<'_, PointerSlots> {
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Forgets every cached pointer: the next read of each board reads its pointer
    /// again (after a snapshot published by hand, and in tests).
    pub fn forget(&self) {
        self.slots().clear();
    }

    /// Takes `published`, a pointer of `board` just seen written (the change stream
    /// of `podium serve`), in place of the copy kept, unless the copy is newer
    /// ([`Published::stands_against`]): pages are then answered from it at once, not
    /// up to [`CACHE_TTL`] later.
    pub fn offer(&self, board: &BoardRef, published: Published) {
        let mut slots = self.slots();
        let periods = slots.entry(board.board.clone()).or_default();
        if let Some((_, kept)) = periods.get(&board.period) {
            if kept.stands_against(&published.id, published.order()) {
                return;
            }
        }
        periods.insert(board.period.clone(), (Instant::now(), Arc::new(published)));
    }

    /// A cache whose [`Memo`] holds at most `entries` page entries ([`Memo::with_capacity`]).
    pub fn with_memo_entries(entries: u64) -> Self {
        SnapshotCache {
            slots: Mutex::default(),
            memo: Memo::with_capacity(entries),
        }
    }

    /// The decoded snapshot data this process keeps.
    pub fn memo(&self) -> &Memo {
        &self.memo
    }

    /// The current snapshot of `board`, if there is one.
    pub async fn current<S: ItemStore + ?Sized>(
        &self,
        store: &S,
        board: &BoardRef,
    ) -> Result<Option<Arc<Published>>, ServiceError> {
        if let Some((at, p)) = self.slots().get(&board.board).and_then(|b| b.get(&board.period)) {
            if at.elapsed() < CACHE_TTL {
                return Ok(Some(Arc::clone(p)));
            }
        }
        let Some(published) = crate::boards::snapshot::read::current(store, board).await? else {
            return Ok(None);
        };
        let published = Arc::new(published);
        self.slots()
            .entry(board.board.clone())
            .or_default()
            .insert(board.period.clone(), (Instant::now(), Arc::clone(&published)));
        Ok(Some(published))
    }
}

fn gone() -> ServiceError {
    ServiceError::BadRequest {
        field: "cursor",
        message: "that snapshot is gone; start again from the top".into(),
    }
}

/// Which snapshot a walk reads and what a cursor into it must carry.
struct Walk<'a> {
    board: &'a BoardRef,
    id: String,
    as_of: DateTime<Utc>,
    page_size: u64,
    entries: u64,
    consistent: bool,
}

impl Walk<'_> {
    /// The cursor at offset `offset` (may equal the page's length) of `page`.
    fn cursor(&self, key: &CursorKey, page: &SnapshotPage, offset: u64) -> String {
        key.issue(
            self.board,
            Cursor::Snapshot {
                snapshot: self.id.clone(),
                page: first_key(page),
                offset,
                position: page.first_position + offset,
                page_size: self.page_size,
                entries: self.entries,
                as_of_ms: self.as_of.timestamp_millis(),
            },
        )
    }
}

/// A page of the current snapshot from the top, or of the snapshot a cursor pins
/// (`cursor` must be a [`Cursor::Snapshot`] of this board). `None` when there is no
/// cursor and the board has no snapshot yet (the caller then reads the live board).
pub async fn top_page<S: ItemStore + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    key: &CursorKey,
    board: &BoardRef,
    limit: usize,
    cursor: Option<Cursor>,
    now: DateTime<Utc>,
) -> Result<Option<Page>, ServiceError> {
    let current = match cursor {
        Some(Cursor::Live { .. }) => None,
        _ => cache.current(store, board).await?,
    };
    top_page_of(store, cache, key, board, limit, cursor, now, current).await
}

/// [`top_page`] under the current pointer `current` the caller read (whatever the
/// pointer cache holds by now): a body kept under that pointer's render key is the
/// one rendered from it, its erasures (GM-6, OP-4) included.
#[allow(clippy::too_many_arguments)]
pub async fn top_page_of<S: ItemStore + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    key: &CursorKey,
    board: &BoardRef,
    limit: usize,
    cursor: Option<Cursor>,
    now: DateTime<Utc>,
    current: Option<Arc<Published>>,
) -> Result<Option<Page>, ServiceError> {
    let limit = limit as u64;
    let pinned = cursor.is_some();
    if let Some(Cursor::Live { .. }) = cursor {
        return Ok(None);
    }
    let (walk, mut dir, start, start_offset) = match cursor {
        None => {
            let Some(p) = current.clone() else {
                return Ok(None);
            };
            let walk = Walk {
                board,
                id: p.id.clone(),
                as_of: p.as_of,
                page_size: u64::from(p.page_size.max(1)),
                entries: p.entries,
                consistent: p.fresh(now.timestamp_millis()),
            };
            let dir = Directory::new(store, board, &p, walk.consistent)
                .with_memo(&cache.memo, p.as_of.timestamp_millis());
            (walk, dir, 0, 0)
        }
        Some(Cursor::Snapshot {
            snapshot,
            page,
            offset,
            position,
            page_size,
            entries,
            as_of_ms,
        }) => {
            // A refresh snapshot superseded by a newer one is kept REFRESH_RETENTION_SECS
            // after its `as_of`, and so are the erasures (GM-6) of players deleted after
            // it: past that, its pages are not served (whatever a lazy TTL left of them).
            // The current snapshot holds its own erasures, so its cursors stay good
            // however old it is (a refresh job that stopped does not break page two).
            let expired =
                as_of_ms.saturating_add(crate::boards::snapshot::layout::REFRESH_RETENTION_SECS * 1000);
            let is_current = current.as_ref().is_some_and(|p| p.id == snapshot);
            if snapshot != crate::boards::snapshot::layout::FINAL
                && !is_current
                && expired <= now.timestamp_millis()
            {
                return Err(gone());
            }
            let walk = Walk {
                board,
                id: snapshot,
                as_of: DateTime::from_timestamp_millis(as_of_ms).unwrap_or_default(),
                page_size: page_size.max(1),
                entries,
                consistent: false,
            };
            // The cursor's page must still be listed where the cursor saw it: a
            // directory expired in between would shift the walk.
            let mut dir = Directory::pinned(store, board, &walk.id, None, false)
                .with_entries(walk.entries)
                .with_memo(&cache.memo, as_of_ms);
            let Some(mut number) = dir.number_of(&page).await? else {
                return Err(gone());
            };
            let Some(mut listed) = dir.listed(number).await? else {
                return Err(gone());
            };
            if listed.position + offset != position {
                return Err(gone());
            }
            // A cursor at the end of its page starts the next one.
            let mut offset = offset;
            while offset >= u64::from(listed.len) {
                offset -= u64::from(listed.len);
                number += 1;
                listed = dir.listed(number).await?.ok_or_else(gone)?;
            }
            (walk, dir, number, offset)
        }
        Some(Cursor::Live { .. }) => return Ok(None),
        Some(Cursor::Ledger { .. } | Cursor::Key { .. }) => return Err(crate::boards::cursor::foreign()),
    };
    // The current pointer says who was deleted (GM-6) or suspended (OP-4) since, also
    // for a pinned walk, and closes ranks up below the suspended.
    let hidden = Hidden::in_snapshot(current.as_ref(), &walk.id);
    // Consecutive pages until the request is covered: a page whose body is gone (a
    // TTL took it) ends this page early, and a cursor to it says the snapshot is gone.
    // Entries of hidden players are skipped, not counted.
    let mut start_pages: Vec<Arc<SnapshotPage>> = Vec::new();
    let mut covered = 0u64;
    let mut number = start;
    while covered < limit {
        let Some(page) = dir.page(number).await? else {
            break;
        };
        let skip = if start_pages.is_empty() {
            start_offset as usize
        } else {
            0
        };
        covered += page
            .entries
            .iter()
            .skip(skip)
            .filter(|e| !hidden.hides(&e.player_id))
            .count() as u64;
        start_pages.push(page);
        number += 1;
    }
    if pinned && start_pages.is_empty() {
        return Err(gone());
    }
    let (mut entries, shown_at, next_cursor) =
        list_from(board, key, &walk, &start_pages, start_offset, limit, &hidden);
    // PF-5: movement, one read per block of pages the entries are listed in.
    let recorded = current
        .as_ref()
        .is_some_and(|p| p.id == walk.id && (p.previous.is_some() || p.last_final.is_some()));
    if recorded {
        type Block = Option<Arc<Vec<Vec<Earlier>>>>;
        let mut blocks: BTreeMap<(u32, u32), Block> = BTreeMap::new();
        for (e, (number, j)) in entries.iter_mut().zip(&shown_at) {
            let Some((first, key)) = dir.chunk_of(*number) else {
                continue;
            };
            let offset = number - first;
            let at = (first, offset / MOVE_BLOCK as u32);
            if let std::collections::btree_map::Entry::Vacant(slot) = blocks.entry(at) {
                slot.insert(dir.movement(&key, offset).await?);
            }
            let earlier = blocks
                .get(&at)
                .and_then(|m| m.as_ref())
                .and_then(|m| m.get(offset as usize % MOVE_BLOCK))
                .and_then(|pg| pg.get(*j));
            if let Some(earlier) = earlier {
                e.movement = Movement::of(*earlier, e.rank);
            }
        }
    }
    Ok(Some(Page {
        board: board.board.clone(),
        as_of: walk.as_of,
        snapshot: Some(walk.id.clone()),
        entries,
        next_cursor,
    }))
}

/// The entries a page shows from `start_pages` (from `start_offset` on the first),
/// at most `limit`, through `hidden`: hidden players (GM-6, OP-4) skipped and the
/// ranks below a suspended one closed up: the entries, where each is listed
/// (page number, index), and the cursor after the last when more follow.
fn list_from(
    board: &BoardRef,
    key: &CursorKey,
    walk: &Walk<'_>,
    start_pages: &[Arc<SnapshotPage>],
    start_offset: u64,
    limit: u64,
    hidden: &Hidden,
) -> (Vec<crate::boards::live::Entry>, Vec<(u32, usize)>, Option<String>) {
    let mut entries = Vec::new();
    // The last page listed from, and the offset after its last entry listed.
    let mut stop: Option<(&SnapshotPage, u64)> = None;
    let listed = start_pages.iter().enumerate().flat_map(|(i, pg)| {
        let skip = if i == 0 { start_offset as usize } else { 0 };
        pg.entries
            .iter()
            .enumerate()
            .skip(skip)
            .map(move |(j, e)| (pg, j, e))
    });
    let mut listed = listed
        .filter_map(|(pg, j, e)| {
            let standing = Standing {
                player_id: e.player_id.clone(),
                value: e.value,
                reached_at_ms: e.reached_at_ms,
            };
            hidden
                .listed(standing, e.rank, e.rank)
                .map(|line| (pg, j, e, line))
        })
        .peekable();
    // Where each entry shown is listed: page number, index on the page.
    let mut shown_at: Vec<(u32, usize)> = Vec::new();
    let mut entries_left = limit as usize;
    while entries_left > 0 {
        let Some((pg, j, e, line)) = listed.next() else {
            break;
        };
        entries_left -= 1;
        let mut shown = entry(board, line);
        shown.card = hidden.card(&e.player_id, &e.card);
        entries.push(shown);
        shown_at.push((pg.number, j));
        stop = Some((pg, j as u64 + 1));
    }
    // More to list: a shown entry after the stop among the pages read, or entries
    // after the last page read.
    let read_to = start_pages
        .last()
        .map_or(0, |pg| pg.first_position + pg.entries.len() as u64);
    let more = listed.peek().is_some() || read_to < walk.entries;
    let next_cursor = stop
        .filter(|(pg, after)| more && pg.first_position + after < walk.entries)
        .map(|(pg, after)| walk.cursor(key, pg, after));
    (entries, shown_at, next_cursor)
}

/// The caller's LB-2 rank for their live value against the current snapshot, with
/// up to `n` snapshot neighbours each side (LB-4). `None` when there is no snapshot yet.
pub async fn around_me<S: BoardStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    board: &BoardRef,
    player_id: &str,
    n: usize,
    now: DateTime<Utc>,
) -> Result<Option<AroundMe>, ServiceError> {
    let Some(p) = cache.current(store, board).await? else {
        return Ok(None);
    };
    let me = board_value(store, board, player_id).await?;
    let consistent = p.fresh(now.timestamp_millis());
    let my_key = me.board_key();
    let mine = listing_key(my_key.value, my_key.reached_at_ms, &my_key.player_id);
    let before_me = |e: &SnapshotEntry| listing_key(e.value, e.reached_at_ms, &e.player_id) < mine;
    let mut dir =
        Directory::new(store, board, &p, consistent).with_memo(&cache.memo, p.as_of.timestamp_millis());
    let mut read: BTreeMap<u32, Arc<SnapshotPage>> = BTreeMap::new();
    let page0 = p.first_page.as_ref();
    // The page that holds the caller's live key (page 0 when it comes before every page).
    let holding = match page0 {
        Some(first) if p.pages == 1 => Some(Arc::clone(first)),
        _ => dir.page_holding(&my_key).await?.or_else(|| page0.cloned()),
    };
    let Some(holding) = holding else {
        // An empty snapshot: the caller alone.
        let mine = entry(board, Hidden::default().own(my_key.into_standing(), 1));
        return Ok(Some(AroundMe {
            movement: None,
            live_key: (me.points, me.reached_at_ms),
            pointer: Some(Arc::clone(&p)),
            board: board.board.clone(),
            as_of: p.as_of,
            snapshot: Some(p.id.clone()),
            me: mine.clone(),
            entries: vec![mine],
            standing: relative(board, 1, Some(p.entries + 1), me.points, None, None),
        }));
    };
    // q: snapshot entries listed before the live key; read every page of q − n − 1 … q + n.
    // (A page lists its entries in listing order: a binary search, not a scan.)
    let q = holding.first_position + holding.entries.partition_point(before_me) as u64;
    // Entries of deleted players (GM-6) are left out below: read a few more (at most
    // n + 1 each side, so many deletions cannot make around-me read many pages).
    let slack = (p.erased.len() as u64).min(n as u64 + 1);
    let lo = q.saturating_sub(n as u64 + 1 + slack);
    let hi = q + n as u64 + 1 + slack;
    read.insert(holding.number, holding);
    loop {
        let first = read.values().next().cloned();
        match first {
            Some(f) if f.first_position > lo && f.number > 0 => {
                let Some(prev) = dir.neighbour(&f, false).await? else {
                    break;
                };
                read.insert(prev.number, prev);
            }
            _ => break,
        }
    }
    loop {
        let last = read.values().next_back().cloned();
        match last {
            Some(l) if l.first_position + (l.entries.len() as u64) < hi && l.number + 1 < p.pages => {
                let Some(next) = dir.neighbour(&l, true).await? else {
                    break;
                };
                read.insert(next.number, next);
            }
            _ => break,
        }
    }
    // The page that decides the rank of the caller's value: the last read page whose
    // first value is strictly better (pages after it start after the caller's key),
    // else one before every read page.
    let decided = read
        .values()
        .rev()
        .find(|pg| pg.entries.first().is_some_and(|e| e.value > me.points))
        .cloned();
    let deciding = match decided {
        Some(pg) => Some(pg),
        None => {
            let first = read.values().next().map(|pg| pg.number).unwrap_or(0);
            if first == 0 {
                None
            } else {
                dir.page_deciding(me.points).await?
            }
        }
    };
    let better = rank_against(deciding.as_deref(), me.points) - 1;
    // The nearest strictly better value is on the deciding page (every later page
    // starts at or after the caller's value), another player's (LB-4: the caller's own
    // older snapshot entry is nobody to catch up with; GM-6, OP-4: nor is a hidden
    // player). When that page's better entries are only those, it is on the nearest
    // page before it with another's (usually the one before, often read already).
    let mut next_better = None;
    let mut looking = deciding.clone();
    while let Some(pg) = looking {
        next_better = nearest_better(&pg, me.points, player_id, |id| p.hides(id));
        if next_better.is_some() || pg.number == 0 {
            break;
        }
        looking = match read.get(&(pg.number - 1)) {
            Some(before) => Some(Arc::clone(before)),
            None => dir.neighbour(&pg, false).await?,
        };
    }
    // Where an entry read is listed (page number, index), before GM-6 hides any: for
    // movement only (PF-5), so looked up only when the snapshot records it.
    let recorded = p.previous.is_some() || p.last_final.is_some();
    let read_pages: Vec<Arc<SnapshotPage>> = read.values().cloned().collect();
    // GM-6, OP-4: hidden players are not shown (ranks close up below the suspended).
    let hidden = Hidden::in_snapshot(Some(&p), &p.id);
    let pages: Vec<Arc<SnapshotPage>> = read
        .values()
        .map(|pg| {
            if p.erased.is_empty() {
                return Arc::clone(pg);
            }
            let mut pg = SnapshotPage::clone(pg);
            pg.entries.retain(|e| !hidden.hides(&e.player_id));
            Arc::new(pg)
        })
        .collect();
    // The caller's own entry among the pages read, if listed there (its card is theirs):
    // first where their live key lists (a binary search; there for every caller whose
    // value has not changed since the snapshot), else by id.
    let listed_mine = listed(&pages, my_key.value, my_key.reached_at_ms, player_id)
        .map(|(_, _, e)| e)
        .or_else(|| {
            pages
                .iter()
                .flat_map(|pg| &pg.entries)
                .find(|e| e.player_id == player_id)
        });
    // The caller's own snapshot entry (value, rank), wherever it is listed.
    let stale = match listed_mine {
        Some(e) => Some((e.value, e.rank)),
        None => match own_entry_elsewhere(&mut dir, &p, &pages, &me).await? {
            Found::Entry { value, rank } => Some((value, rank)),
            Found::Absent => None,
            Found::Unknown => {
                // The caller changed more often than their history keeps since this
                // snapshot read the board: answer exactly from the live board.
                tracing::warn!(board = %board.key(), "around-me: history too short for the snapshot; live board read");
                return Ok(None);
            }
        },
    };
    let standing = my_key.clone().into_standing();
    let placed = around(&pages, &standing, better, stale.map(|(value, _)| value), n);
    let of = p.entries + u64::from(stale.is_none());
    // PF-5: every card as the snapshot read it (no extra read: a rename shows from
    // the next refresh); none for a caller newer than the snapshot. A neighbour is
    // found by its listing key (binary searches over the pages read), the caller by id.
    let my_card = listed_mine
        .map(|e| hidden.card(player_id, &e.card))
        .unwrap_or_default();
    let card_of = |s: &Standing| {
        if s.player_id == player_id {
            return my_card.clone();
        }
        listed_entry(&pages, s)
            .map(|e| hidden.card(&s.player_id, &e.card))
            .unwrap_or_default()
    };
    let shown: Vec<Standing> = match recorded {
        true => placed.entries.iter().map(|(s, _)| s.clone()).collect(),
        false => Vec::new(),
    };
    // OP-4: ranks close up below a player hidden while suspended. The ranks placed
    // here count the caller at their live value; a hidden player's rank is theirs in
    // the snapshot. A neighbour closes up by the hidden players ranked above its own
    // snapshot rank; the caller by those ahead of their live value: ranked above
    // `my_rank` once the caller's own snapshot entry (when above them) is taken out.
    let my_old = stale.map(|(_, rank)| rank);
    let mine_closed_up = hidden
        .ranks()
        .ranks()
        .iter()
        .filter(|&&h| h - u64::from(my_old.is_some_and(|o| o < h)) < placed.my_rank)
        .count() as u64;
    let entries: Vec<_> = placed
        .entries
        .into_iter()
        .filter_map(|(s, rank)| {
            let card = card_of(&s);
            let line = if s.player_id == player_id {
                hidden.own(s, rank - mine_closed_up)
            } else {
                let listed_rank = listed_entry(&pages, &s).map_or(rank, |e| e.rank);
                hidden.listed(s, rank, listed_rank)?
            };
            let mut shown = entry(board, line);
            shown.card = card;
            Some(shown)
        })
        .collect();
    let mut me_entry = entry(board, hidden.own(standing, placed.my_rank - mine_closed_up));
    me_entry.card = my_card.clone();
    let mut entries = entries;
    // PF-5: the caller's earlier ranks, from the movement item of the chunk that lists
    // their snapshot entry (one read); neighbours of that block get theirs too, against
    // their snapshot rank.
    let mut movement = None;
    // The caller's own snapshot entry: where it is listed among the pages read.
    let my_place = listed_mine
        .filter(|_| recorded)
        .and_then(|e| listed(&read_pages, e.value, e.reached_at_ms, &e.player_id))
        .map(|(pg, j, _)| (pg.number, j));
    if let Some((number, j)) = my_place {
        if let Some((first, key)) = dir.chunk_of(number) {
            let offset = number - first;
            if let Some(moves) = dir.movement(&key, offset).await? {
                // The block's pages: those of the chunk from `block_first` on.
                let block_first = first + offset / MOVE_BLOCK as u32 * MOVE_BLOCK as u32;
                // A neighbour shown: where it is listed, its earlier ranks there and
                // its snapshot rank (found by its listing key, as its card was).
                let earlier_of = |s: &Standing| {
                    let (pg, k, listed) = listed(&read_pages, s.value, s.reached_at_ms, &s.player_id)?;
                    let earlier = pg
                        .number
                        .checked_sub(block_first)
                        .and_then(|i| moves.get(i as usize))
                        .and_then(|m| m.get(k))
                        .copied()?;
                    Some((earlier, listed.rank))
                };
                // Movement is against the rank shown (closed up below a player hidden
                // while suspended, OP-4), as a page's is: the same number on both.
                for (e, s) in entries.iter_mut().zip(&shown) {
                    if s.player_id == player_id {
                        continue;
                    }
                    if let Some((earlier, _)) = earlier_of(s) {
                        e.movement = Movement::of(earlier, e.rank);
                    }
                }
                if let Some(earlier) = moves
                    .get((number - block_first) as usize)
                    .and_then(|pg| pg.get(j))
                {
                    let my_rank = me_entry.rank;
                    me_entry.movement = Movement::of(*earlier, my_rank);
                    for e in entries.iter_mut().filter(|e| e.player_id == player_id) {
                        e.movement = me_entry.movement;
                    }
                    let change = |r: u64| i64::try_from(r).unwrap_or(i64::MAX) - my_rank as i64;
                    movement = Some(StandingMovement {
                        previous_snapshot: p.previous.clone().zip(earlier.previous).map(|(of, rank)| {
                            EarlierRank {
                                of,
                                rank,
                                rank_change: change(rank),
                            }
                        }),
                        previous_final: p.last_final.clone().zip(earlier.last_final).map(|(of, rank)| {
                            EarlierRank {
                                of,
                                rank,
                                rank_change: change(rank),
                            }
                        }),
                    })
                    .filter(|m| m.previous_snapshot.is_some() || m.previous_final.is_some());
                }
            }
        }
    }
    Ok(Some(AroundMe {
        movement,
        live_key: (me.points, me.reached_at_ms),
        pointer: Some(Arc::clone(&p)),
        board: board.board.clone(),
        as_of: p.as_of,
        snapshot: Some(p.id.clone()),
        me: me_entry,
        entries,
        // OP-4: the rank closed up and the count without the players hidden from it.
        standing: relative(
            board,
            placed.my_rank - mine_closed_up,
            Some(of.saturating_sub(hidden.ranks().count())),
            me.points,
            next_better,
            hidden.top_cutoff(&p, player_id, stale.map(|(_, rank)| rank)),
        ),
    }))
}

/// The entry listed with `s`'s listing key (LB-2) among `pages` (consecutive, in page
/// order), if it is `s`'s player's: the first page that ends at or after the key (a
/// page emptied by GM-6 is passed over), then a binary search in it.
fn listed_entry<'p>(pages: &'p [Arc<SnapshotPage>], s: &Standing) -> Option<&'p SnapshotEntry> {
    listed(pages, s.value, s.reached_at_ms, &s.player_id).map(|(_, _, e)| e)
}

/// Where the listing key (`value`, `reached_at_ms`, `player_id`) is listed among
/// `pages` (see [`listed_entry`]): the page, the entry's index on it and the entry.
fn listed<'p>(
    pages: &'p [Arc<SnapshotPage>],
    value: i64,
    reached_at_ms: i64,
    player_id: &str,
) -> Option<(&'p SnapshotPage, usize, &'p SnapshotEntry)> {
    let key = listing_key(value, reached_at_ms, player_id);
    let before = |e: &SnapshotEntry| listing_key(e.value, e.reached_at_ms, &e.player_id) < key;
    let pg = pages
        .iter()
        .find(|pg| pg.entries.last().is_some_and(|e| !before(e)))?;
    let j = pg.entries.partition_point(before);
    pg.entries
        .get(j)
        .filter(|e| e.player_id == player_id)
        .map(|e| (pg.as_ref(), j, e))
}

/// The caller's place on `board` with neighbours (LB-4): from its current snapshot, or
/// the live board before the first snapshot; `None` when the caller has no entry there.
pub async fn place<S: BoardStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    board: &BoardRef,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<Option<AroundMe>, ServiceError> {
    match around_me(store, cache, board, player_id, 0, now).await {
        Ok(Some(me)) => return Ok(Some(me)),
        Ok(None) | Err(ServiceError::NotFound(_)) => {}
        Err(e) => return Err(e),
    }
    match crate::boards::live::around_me(store, board, player_id, 0, now).await {
        Ok(me) => Ok(Some(me)),
        Err(ServiceError::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether the caller has an entry in the snapshot outside the pages read.
enum Found {
    /// Yes, with this value and snapshot rank: above the pages read (a player who
    /// fell since), or below them (one who climbed; it still counts among the
    /// snapshot's entries).
    Entry { value: i64, rank: u64 },
    /// No.
    Absent,
    /// The caller's history no longer reaches back to the snapshot.
    Unknown,
}

/// Looks for the caller's own older entry among the snapshot pages listed before or
/// after `pages`, trying the keys the caller's history says the snapshot may hold,
/// most likely first (usually one read, none when the caller did not change since).
async fn own_entry_elsewhere<S: ItemStore + ?Sized>(
    dir: &mut Directory<'_, S>,
    p: &Published,
    pages: &[Arc<SnapshotPage>],
    me: &podium_store::Balance,
) -> Result<Found, ServiceError> {
    let Some(first_read) = pages.first() else {
        return Ok(Found::Absent);
    };
    fn key_of(e: &SnapshotEntry) -> (std::cmp::Reverse<i64>, i64, &str) {
        listing_key(e.value, e.reached_at_ms, &e.player_id)
    }
    // The listing keys the pages read span: the first page's first key (none when the
    // pages read start at page 0), the last page's last key (none when they end the
    // snapshot). Pages emptied by GM-6 are passed over.
    let top = (first_read.number > 0)
        .then(|| pages.iter().find_map(|pg| pg.entries.first()).map(key_of))
        .flatten();
    let last_read = pages.last().map_or(0, |pg| pg.number);
    let bottom = (last_read + 1 < p.pages)
        .then(|| pages.iter().rev().find_map(|pg| pg.entries.last()).map(key_of))
        .flatten();
    if top.is_none() && bottom.is_none() {
        // Every page was read: the caller's entry would be among them.
        return Ok(Found::Absent);
    }
    let candidates = me
        .history
        .snapshot_candidates(me.held(), p.read_from_ms, p.read_to_ms);
    // Pages read while looking, so that candidates on one page cost one read.
    let mut looked: Vec<Arc<SnapshotPage>> = p.first_page.iter().cloned().collect();
    let mut reads = 0;
    for held in &candidates.keys {
        let mine = listing_key(held.value, held.reached_at_ms, &me.player_id);
        let above = top.as_ref().is_some_and(|t| mine < *t);
        let below = bottom.as_ref().is_some_and(|b| mine > *b);
        if !above && !below {
            continue; // among the pages read: not found there, so not in the snapshot
        }
        let holds = |pg: &SnapshotPage| {
            let first = pg
                .entries
                .first()
                .map(|e| listing_key(e.value, e.reached_at_ms, &e.player_id));
            let last = pg
                .entries
                .last()
                .map(|e| listing_key(e.value, e.reached_at_ms, &e.player_id));
            let next_first = first.is_some_and(|f| f <= mine) && last.is_some_and(|l| mine <= l);
            next_first || (pg.number + 1 == p.pages && first.is_some_and(|f| f <= mine))
        };
        let page = match looked.iter().find(|pg| holds(pg)) {
            Some(pg) => Some(Arc::clone(pg)),
            None if reads < MAX_LOOKUPS => {
                reads += 1;
                let key = BoardKey {
                    value: held.value,
                    reached_at_ms: held.reached_at_ms,
                    player_id: me.player_id.clone(),
                };
                let found = dir.page_holding(&key).await?;
                looked.extend(found.clone());
                found
            }
            None => return Ok(Found::Unknown),
        };
        let found = page.as_ref().and_then(|pg| {
            pg.entries.iter().find(|e| {
                e.player_id == me.player_id && e.value == held.value && e.reached_at_ms == held.reached_at_ms
            })
        });
        if let Some(e) = found {
            return Ok(Found::Entry {
                value: e.value,
                rank: e.rank,
            });
        }
    }
    Ok(if candidates.exhaustive {
        Found::Absent
    } else {
        Found::Unknown
    })
}

/// The most pages one around-me reads looking for the caller's older entry; the
/// likeliest key is tried first, so one is the rule.
const MAX_LOOKUPS: u32 = 2;

#[cfg(test)]
mod tests {
    use super::*;
    use podium_rules::profile::Card;

    fn page(number: u32, entries: &[(&str, i64, u64)]) -> Arc<SnapshotPage> {
        Arc::new(SnapshotPage {
            number,
            first_position: u64::from(number) * 2,
            entries: entries
                .iter()
                .map(|&(id, value, rank)| SnapshotEntry {
                    rank,
                    player_id: id.to_string(),
                    value,
                    reached_at_ms: 0,
                    card: Card {
                        name: Some(format!("name of {id}")),
                        ..Card::default()
                    },
                })
                .collect(),
        })
    }

    fn standing(id: &str, value: i64) -> Standing {
        Standing {
            player_id: id.to_string(),
            value,
            reached_at_ms: 0,
        }
    }

    /// PF-5: a neighbour's card is found by its listing key (LB-2), ties broken by
    /// id, across a page that GM-6 emptied; a key no entry of that player has finds none.
    #[test]
    fn a_neighbours_entry_is_found_by_its_listing_key_past_an_emptied_page() {
        let pages = [
            page(0, &[("a", 90, 1), ("b", 80, 2)]),
            page(1, &[]),
            page(2, &[("c", 70, 5), ("d", 70, 5)]),
            page(3, &[("e", 60, 7), ("f", 50, 8)]),
        ];
        for (id, value) in [("a", 90), ("b", 80), ("c", 70), ("d", 70), ("e", 60), ("f", 50)] {
            let found = listed_entry(&pages, &standing(id, value)).map(|e| e.card.name.clone());
            assert_eq!(found, Some(Some(format!("name of {id}"))), "{id}");
        }
        assert!(listed_entry(&pages, &standing("c", 60)).is_none());
        assert!(listed_entry(&pages, &standing("z", 10)).is_none());
    }
}
