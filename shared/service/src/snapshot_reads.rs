//! Serving boards from their current snapshot (LB-5, LB-7): any page in one read
//! (two when a page of the request straddles two stored pages), the caller's rank
//! with their live value and one page read.
//!
//! The current snapshot's pointer and page index are cached per process for
//! [`CACHE_TTL`]: a warm function reads them once in that time, so a player's own
//! rank costs 2 reads (balance, page) whatever the board's size.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{listing_key, RankCounter, Standing};
use podium_rules::snapshot::{rank_in_page, PageIndex, RankLookup, SnapshotEntry, SnapshotPage};
use podium_store::{BoardStore, ItemStore, PeriodStore};

use crate::boards::{board_value, entry, AroundMe, Page};
use crate::cursor::SnapshotCursor;
use crate::error::ServiceError;
use crate::snapshot::{self, Published};

/// How long a process trusts its copy of the current snapshot's pointer and index.
pub const CACHE_TTL: Duration = Duration::from_secs(30);

/// The current snapshot's pointer and page index, cached for [`CACHE_TTL`].
#[derive(Default)]
pub struct SnapshotCache {
    slots: Mutex<HashMap<String, (Instant, Published, PageIndex)>>,
}

impl SnapshotCache {
    /// The cached entries; a panic elsewhere cannot leave a cache unusable.
    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Instant, Published, PageIndex)>> {
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The current snapshot of `board` with its index, if there is one.
    pub async fn current<S: ItemStore + ?Sized>(
        &self,
        store: &S,
        board: &BoardRef,
    ) -> Result<Option<(Published, PageIndex)>, ServiceError> {
        if let Some((at, p, i)) = self.slots().get(&board.key()) {
            if at.elapsed() < CACHE_TTL {
                return Ok(Some((p.clone(), i.clone())));
            }
        }
        let Some(published) = snapshot::current(store, board).await? else {
            return Ok(None);
        };
        let index = snapshot::read_index(store, board, &published.id).await?;
        self.slots()
            .insert(board.key(), (Instant::now(), published.clone(), index.clone()));
        Ok(Some((published, index)))
    }
}

async fn page<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    p: &Published,
    n: u32,
) -> Result<SnapshotPage, ServiceError> {
    if n == 0 {
        if let Some(first) = &p.first_page {
            return Ok(first.clone());
        }
    }
    snapshot::read_page(store, board, &p.id, n)
        .await?
        .ok_or_else(|| ServiceError::NotFound("snapshot page".into()))
}

/// Entries at positions `from .. to` of the snapshot, reading only the pages that hold them.
async fn entries_between<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    p: &Published,
    from: u64,
    to: u64,
    known: Option<&SnapshotPage>,
) -> Result<Vec<SnapshotEntry>, ServiceError> {
    let to = to.min(p.entries);
    if from >= to {
        return Ok(Vec::new());
    }
    let size = u64::from(p.page_size.max(1));
    let mut out = Vec::new();
    for n in (from / size)..=((to - 1) / size) {
        let pg = match known {
            Some(k) if u64::from(k.number) == n => k.clone(),
            _ => page(store, board, p, n as u32).await?,
        };
        for (i, e) in pg.entries.into_iter().enumerate() {
            let pos = pg.first_position + i as u64;
            if (from..to).contains(&pos) {
                out.push(e);
            }
        }
    }
    Ok(out)
}

/// True when `key` is listed before `e` (LB-2).
fn before(key: &Standing, e: &SnapshotEntry) -> bool {
    listing_key(key.value, key.reached_at_ms, &key.player_id)
        < listing_key(e.value, e.reached_at_ms, &e.player_id)
}

fn standing(e: SnapshotEntry) -> (Standing, u64) {
    (
        Standing {
            player_id: e.player_id,
            value: e.value,
            reached_at_ms: e.reached_at_ms,
        },
        e.rank,
    )
}

/// A page of the current snapshot: from the top, or at a snapshot cursor. `None` when
/// the board has no snapshot yet (the caller then reads the live board).
pub async fn top_page<S: ItemStore + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    board: &BoardRef,
    limit: usize,
    cursor: Option<&SnapshotCursor>,
) -> Result<Option<Page>, ServiceError> {
    let published = match cursor {
        // A cursor pins its snapshot, so a walk stays in one snapshot (LB-3).
        Some(c) => match cache.current(store, board).await? {
            Some((p, _)) if p.id == c.s => p,
            _ => match snapshot::run_state(store, board, &c.s).await? {
                Some(run) if run.complete => Published {
                    id: run.id,
                    as_of: run.as_of,
                    page_size: run.page_size,
                    pages: run.pages_written,
                    entries: run.position,
                    first_page: None,
                },
                _ => {
                    return Err(ServiceError::BadRequest {
                        field: "cursor",
                        message: "that snapshot is gone; start again from the top".into(),
                    })
                }
            },
        },
        None => match cache.current(store, board).await? {
            Some((p, _)) => p,
            None => return Ok(None),
        },
    };
    let from = cursor.map_or(0, |c| c.o);
    let to = from + limit as u64;
    let entries = entries_between(store, board, &published, from, to, None)
        .await?
        .into_iter()
        .map(|e| {
            let (s, rank) = standing(e);
            entry(board, s, rank)
        })
        .collect();
    let next_cursor = (to < published.entries).then(|| {
        SnapshotCursor {
            b: board.key(),
            s: published.id.clone(),
            o: to,
        }
        .encode()
    });
    Ok(Some(Page {
        board: board.board.clone(),
        as_of: published.as_of,
        snapshot: Some(published.id),
        entries,
        next_cursor,
    }))
}

/// The caller's LB-2 rank for their live balance against the current snapshot, with
/// up to `n` snapshot neighbours each side (LB-4). `None` when there is no snapshot yet.
pub async fn around_me<S: BoardStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    board: &BoardRef,
    player_id: &str,
    n: usize,
) -> Result<Option<AroundMe>, ServiceError> {
    let Some((published, index)) = cache.current(store, board).await? else {
        return Ok(None);
    };
    let me = board_value(store, board, player_id).await?;
    let (rank, known) = match index.lookup(me.points) {
        RankLookup::Top => (1, None),
        RankLookup::Page(k) => {
            let pg = page(store, board, &published, k).await?;
            (rank_in_page(&pg, me.points), Some(pg))
        }
    };
    // Every strictly better entry comes before the caller (position rank − 1); among
    // equal values LB-2's order decides, so read on until n entries follow the caller.
    let my_key = me.board_key().into_standing();
    let n = n as u64;
    let start = (rank - 1).saturating_sub(n);
    let size = u64::from(published.page_size.max(1));
    let mut listed: Vec<(u64, SnapshotEntry)> = Vec::new();
    let mut next = start;
    loop {
        let to = (next / size + 1) * size;
        let got = entries_between(store, board, &published, next, to, known.as_ref()).await?;
        listed.extend(got.into_iter().enumerate().map(|(i, e)| (next + i as u64, e)));
        next = to;
        let after_me = listed
            .iter()
            .filter(|(_, e)| e.player_id != player_id && before(&my_key, e))
            .count() as u64;
        if after_me >= n || next >= published.entries {
            break;
        }
    }
    // The caller's own snapshot entry (an older value) gives way to the live one.
    listed.retain(|(_, e)| e.player_id != player_id);
    let at = listed.partition_point(|(_, e)| {
        listing_key(e.value, e.reached_at_ms, &e.player_id)
            < listing_key(my_key.value, my_key.reached_at_ms, &my_key.player_id)
    });
    let shown_from = at.saturating_sub(n as usize);
    let shown_to = (at + n as usize).min(listed.len());
    // Ranks within the answer follow LB-2 from its first entry's snapshot rank, the
    // caller counted where the live value puts them.
    let mut rows: Vec<Standing> = listed[shown_from..at]
        .iter()
        .map(|(_, e)| standing(e.clone()).0)
        .collect();
    rows.push(my_key.clone());
    rows.extend(listed[at..shown_to].iter().map(|(_, e)| standing(e.clone()).0));
    let mut counter = match listed.get(shown_from).filter(|_| shown_from < at) {
        Some((pos, first)) => RankCounter::resume(*pos, first.value, first.rank),
        None => RankCounter::resume(rank - 1, me.points, rank),
    };
    let entries: Vec<_> = rows
        .into_iter()
        .map(|s| {
            let r = counter.next(s.value);
            entry(board, s, r)
        })
        .collect();
    let mine = entries
        .iter()
        .find(|e| e.player_id == player_id)
        .cloned()
        .unwrap_or_else(|| entry(board, my_key, rank));
    Ok(Some(AroundMe {
        board: board.board.clone(),
        as_of: published.as_of,
        snapshot: Some(published.id),
        me: mine,
        entries,
    }))
}
