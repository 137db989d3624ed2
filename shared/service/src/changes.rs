//! Which boards changed since their last snapshot (LB-5): the change marks of boards
//! refreshed [`Refresh::WhenChanged`] (the 11,000 level time rankings, MJ-3).
//!
//! Every commit that writes an entry of such a board also writes the board's mark, in
//! the same transaction ([`podium_store::MarkWrite`]: its version rises by one).
//! The refresh job lists the marks ([`changed`]), snapshots those boards, then
//! deletes each mark at the version it read ([`clear`]), and only when its snapshot
//! surely holds the change (read from the board more than
//! [`CLOCK_MARGIN_MS`] after it): a change committed meanwhile keeps the mark, so the
//! next tick refreshes the board again; nothing is lost, and a quiet board costs
//! nothing.
//!
//! | item | partition key | sort key | body |
//! |---|---|---|---|
//! | change mark | `CHANGED#{shard}` | the board's storage name (`mahjong-level-420@all`) | [`Mark`] (JSON) |
//!
//! The marks are spread over [`MARK_SHARDS`] partitions by the board's name, so a
//! tick reads them with that many Queries, whatever the number of boards.

use futures::future::try_join_all;
use podium_rules::board::{board_def, BoardRef, Refresh};
use podium_rules::history::CLOCK_MARGIN_MS;
use podium_store::{ItemKey, ItemStore, MarkWrite, SortKeyRange};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// Partitions the change marks are spread over.
pub const MARK_SHARDS: u32 = 8;

/// Marks one Query asks for.
const MARKS_PER_QUERY: usize = 1_000;

/// A change mark's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// Server clock (ms, UTC) of the last commit that changed the board.
    pub at_ms: i64,
}

/// A board with a change mark, as the refresh job finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub board: BoardRef,
    pub mark: Mark,
    /// The mark's version when read: [`clear`] deletes it only at this version.
    pub version: u64,
}

/// The mark item of `board`.
pub fn mark_key(board: &BoardRef) -> ItemKey {
    let name = board.key();
    ItemKey::new(format!("CHANGED#{}", shard(&name)), name)
}

/// The mark a commit that writes an entry of `board` at `now_ms` (server clock)
/// writes with it; `None` for a board refreshed on every tick.
pub fn mark_for(board: &BoardRef, now_ms: i64) -> Option<MarkWrite> {
    let def = board_def(&board.board)?;
    (def.refresh == Refresh::WhenChanged).then(|| MarkWrite {
        key: mark_key(board),
        body: serde_json::to_vec(&Mark { at_ms: now_ms }).unwrap_or_default(),
    })
}

/// Every board with a change mark, least recently changed first, at most `limit`.
/// [`MARK_SHARDS`] Queries (more only past [`MARKS_PER_QUERY`] marks in a shard).
pub async fn changed<S: ItemStore + ?Sized>(store: &S, limit: usize) -> Result<Vec<Changed>, ServiceError> {
    let shards = (0..MARK_SHARDS).map(|s| shard_marks(store, s));
    let mut all: Vec<Changed> = try_join_all(shards).await?.into_iter().flatten().collect();
    all.sort_by_key(|c| c.mark.at_ms);
    all.truncate(limit);
    Ok(all)
}

async fn shard_marks<S: ItemStore + ?Sized>(store: &S, shard: u32) -> Result<Vec<Changed>, ServiceError> {
    let pk = format!("CHANGED#{shard}");
    let mut out = Vec::new();
    let mut range = SortKeyRange::All;
    loop {
        let items = store
            .query_items(&pk, &range, true, MARKS_PER_QUERY, false)
            .await?;
        let full = items.len() == MARKS_PER_QUERY;
        for (sk, item) in items {
            range = SortKeyRange::After(sk.clone());
            let Some((name, period)) = sk.split_once('@') else {
                tracing::warn!(mark = %sk, "change mark of no board; skipped");
                continue;
            };
            let mark: Mark = serde_json::from_slice(&item.body).map_err(|e| {
                ServiceError::Store(podium_store::StoreError::corrupt(format!("{pk}/{sk}"), e))
            })?;
            out.push(Changed {
                board: BoardRef::new(name, period),
                mark,
                version: item.version,
            });
        }
        if !full {
            return Ok(out);
        }
    }
}

/// After a complete snapshot of `c.board` that started reading the board at
/// `read_from_ms` (server clock): deletes the mark if that snapshot surely holds its
/// change and no commit marked the board since. Returns whether it did.
pub async fn clear<S: ItemStore + ?Sized>(
    store: &S,
    c: &Changed,
    read_from_ms: i64,
) -> Result<bool, ServiceError> {
    if c.mark.at_ms >= read_from_ms - CLOCK_MARGIN_MS {
        return Ok(false);
    }
    Ok(store.delete_item_if(&mark_key(&c.board), c.version).await?)
}

/// The mark shard of a board's storage name: FNV-1a, stable across releases.
fn shard(name: &str) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h % u64::from(MARK_SHARDS)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LB-5: only boards refreshed when changed are marked, under one key per board.
    #[test]
    fn marks_only_boards_refreshed_when_changed() {
        let level = BoardRef::all_time("mahjong-level-420");
        let m = mark_for(&level, 1_000).expect("a level ranking is marked");
        assert_eq!(m.key, mark_key(&level));
        assert_eq!(m.key.sk, "mahjong-level-420@all");
        assert!(m.key.pk.starts_with("CHANGED#"));
        assert!(mark_for(&BoardRef::all_time("mahjong-amr"), 1_000).is_none());
        assert!(mark_for(&BoardRef::new("mahjong-weekly", "2027-W29"), 1_000).is_none());
        let spread: std::collections::HashSet<_> = (1..=200)
            .map(|l| mark_key(&BoardRef::all_time(format!("mahjong-level-{l}"))).pk)
            .collect();
        assert_eq!(spread.len(), MARK_SHARDS as usize);
    }
}
