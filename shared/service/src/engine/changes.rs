//! Which boards changed since their last snapshot (LB-5): the change marks of boards
//! refreshed [`Refresh::WhenChanged`] (the 11,000 level time rankings, MJ-3).
//!
//! Every commit that writes an entry of such a board also raises one of the board's
//! marks, in the same transaction ([`podium_store::MarkWrite`]: its version rises by
//! one). The refresh job lists the marks ([`changed`]), snapshots those boards, then
//! deletes each mark at the version it read ([`clear`]), and only when its snapshot
//! surely holds the change (read from the board more than [`CLOCK_MARGIN_MS`] after
//! it): a change committed meanwhile keeps its mark, so the next tick refreshes the
//! board again; nothing is lost, and a quiet board costs nothing.
//!
//! | item | partition key | sort key | body |
//! |---|---|---|---|
//! | change mark | `CHANGED#{shard}` | the board's storage name and a slot (`mahjong-level-420@all#3`) | [`Mark`] (JSON) |
//!
//! A change to what a board's pages show that no commit writes (a player's card: name,
//! avatar, country; a suspension, a restore, a deletion) marks every such board the
//! player has an entry on ([`mark_entry_boards`], [`raise_for`]), so the next refresh
//! rewrites it, and its entity tag changes (PF-5, OP-4, GM-6). Its cost, for a player
//! on `N` of these boards: one Query of the player's period entries (about 40 a read
//! unit; the families' of [`FAMILIES`] and the defined boards' kept), one BatchGetItem per 100 marks (their versions), and
//! `N` PutItems of a few bytes: `N` write units; then each board's refresh at the next
//! tick. The boards refreshed on every tick carry no mark (they are rewritten anyway).
//!
//! A board has [`MARK_SPREAD`] marks, one per slot; a commit raises the slot of the
//! player whose entry it writes. Two transactions that write the same item conflict
//! on DynamoDB, so one mark per board would make every completion of a busy level
//! wait for the others; spread, two players of one level meet on a mark one time in
//! [`MARK_SPREAD`]. The marks are spread over [`MARK_SHARDS`] partitions by their
//! sort key, so a tick reads them all with that many Queries, whatever the number of
//! boards, and a busy level's marks are not all in one partition.

use std::collections::BTreeMap;

use futures::future::try_join_all;
use podium_rules::board::{
    board_def, BoardDef, BoardRef, Refresh, BOARDS, MAHJONG_LEVEL, MAHJONG_TOURNAMENT,
};
use podium_rules::history::CLOCK_MARGIN_MS;
use podium_store::{ItemKey, ItemStore, MarkWrite, PeriodStore, SortKeyRange};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// Partitions the change marks are spread over: at LB-7's 2,000 records a second,
/// about 1,100 level completions raise marks, 35 a shard, 70 write units (8 shards
/// were 280, over half of half a partition's limit once retries are counted).
pub const MARK_SHARDS: u32 = 32;

/// Marks per board (slots by the player's id).
pub const MARK_SPREAD: u32 = 16;

/// Marks one Query asks for.
pub const MARKS_PER_QUERY: usize = 1_000;

/// A change mark's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// Server clock (ms, UTC) of the last commit that raised this mark.
    pub at_ms: i64,
}

/// One mark as read: where it is, what it says, and its version then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadMark {
    pub key: ItemKey,
    pub mark: Mark,
    /// [`clear`] deletes the mark only at this version.
    pub version: u64,
}

/// A board with change marks, as the refresh job finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub board: BoardRef,
    /// Its raised marks, each with the version read.
    pub marks: Vec<ReadMark>,
}

impl Changed {
    /// When the board last changed (server clock, ms UTC).
    pub fn last_ms(&self) -> i64 {
        self.marks.iter().map(|m| m.mark.at_ms).max().unwrap_or(0)
    }
}

/// The mark of `board` that a commit writing `player_id`'s entry raises.
pub fn mark_key(board: &BoardRef, player_id: &str) -> ItemKey {
    let sk = format!("{}#{}", board.key(), fnv(player_id) % u64::from(MARK_SPREAD));
    ItemKey::new(format!("CHANGED#{}", fnv(&sk) % u64::from(MARK_SHARDS)), sk)
}

/// The mark a change of `player_id`'s entry of `board` at `now_ms` (server clock)
/// raises: on every board refreshed when changed, a family's, a built-in one so
/// refreshed, or a defined one (BD-12: any id no built-in board has); `None` for a
/// built-in board refreshed on every tick.
pub fn mark_for(board: &BoardRef, player_id: &str, now_ms: i64) -> Option<MarkWrite> {
    match board_def(&board.board) {
        Some(def) if def.refresh == Refresh::EveryTick => None,
        _ => Some(mark_of(board, player_id, now_ms)),
    }
}

/// The mark of `board` (a board refreshed when changed: a family's, a defined one)
/// that a commit writing `player_id`'s entry at `now_ms` (server clock) writes.
pub fn mark_of(board: &BoardRef, player_id: &str, now_ms: i64) -> MarkWrite {
    MarkWrite {
        key: mark_key(board, player_id),
        body: serde_json::to_vec(&Mark { at_ms: now_ms }).unwrap_or_default(),
    }
}

/// Writes `mark` whatever the item holds, its version raised by one (a change outside
/// a settlement: a deletion, a restore), retried while others write it.
pub async fn raise<S: ItemStore + ?Sized>(
    store: &S,
    mark: &podium_store::MarkWrite,
) -> Result<(), ServiceError> {
    for _ in 0..10 {
        let version = store.get_item(&mark.key, true).await?.map_or(0, |i| i.version);
        if store.put_item_if(&mark.key, &mark.body, version).await? {
            return Ok(());
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// The families of boards named `{family}-{id}` ([`board_def`]), each refreshed
/// [`Refresh::WhenChanged`]: the level time rankings and the tournament standings.
const FAMILIES: [&BoardDef; 2] = [&MAHJONG_LEVEL, &MAHJONG_TOURNAMENT];

/// Marks written at a time by [`raise_for`].
const RAISE_IN_FLIGHT: usize = 16;

/// The storage-name prefixes (`{board}@{period}`) of every board refreshed when
/// changed: each family's `{family}-`, and `{board}@` of any board of [`BOARDS`]
/// refreshed so (none today).
fn marked_prefixes() -> Vec<String> {
    let families = FAMILIES
        .iter()
        .filter(|d| d.refresh == Refresh::WhenChanged)
        .map(|d| format!("{}-", d.id));
    let boards = BOARDS
        .iter()
        .filter(|d| d.refresh == Refresh::WhenChanged)
        .map(|d| format!("{}@", d.id));
    families.chain(boards).collect()
}

/// Raises, at `now_ms` (server clock, ms UTC), the mark of each of `boards` refreshed
/// when changed that lists `player_id`'s entry (the others are passed over): a change
/// to what that entry shows that no commit writes (a card, a suspension, a restore, a
/// deletion). Answers how many marks it raised. Cost: one BatchGetItem per 100 marks
/// (their versions), one PutItem (a write unit) per mark, [`RAISE_IN_FLIGHT`] at a
/// time; a mark another writer raised meanwhile is raised again ([`raise`]).
pub async fn raise_for<S: ItemStore + ?Sized>(
    store: &S,
    boards: &[BoardRef],
    player_id: &str,
    now_ms: i64,
) -> Result<usize, ServiceError> {
    let mut marks: Vec<MarkWrite> = boards
        .iter()
        .filter_map(|b| mark_for(b, player_id, now_ms))
        .collect();
    marks.sort_by(|a, b| (&a.key.pk, &a.key.sk).cmp(&(&b.key.pk, &b.key.sk)));
    marks.dedup_by(|a, b| a.key == b.key);
    for chunk in marks.chunks(100) {
        let keys: Vec<ItemKey> = chunk.iter().map(|m| m.key.clone()).collect();
        let versions: Vec<u64> = store
            .get_items(&keys, true)
            .await?
            .into_iter()
            .map(|found| found.map_or(0, |i| i.version))
            .collect();
        let writes: Vec<(&MarkWrite, u64)> = chunk.iter().zip(versions).collect();
        for group in writes.chunks(RAISE_IN_FLIGHT) {
            try_join_all(
                group
                    .iter()
                    .map(|(mark, version)| raise_from(store, mark, *version)),
            )
            .await?;
        }
    }
    Ok(marks.len())
}

/// Writes `mark` over the version `version` read, or, when another writer raised it
/// meanwhile, raises it again ([`raise`]).
async fn raise_from<S: ItemStore + ?Sized>(
    store: &S,
    mark: &MarkWrite,
    version: u64,
) -> Result<(), ServiceError> {
    if store.put_item_if(&mark.key, &mark.body, version).await? {
        return Ok(());
    }
    raise(store, mark).await
}

/// Raises the marks of every board refreshed when changed on which `player_id` has an
/// entry, at `now_ms`: what a change to their card does (PF-5). The families' boards
/// ([`marked_prefixes`]) and the defined boards (BD-12: any id no built-in board has)
/// are found by one Query of all the player's period entries
/// ([`PeriodStore::entry_boards`]); the boards refreshed every tick among them are
/// left out. Answers how many it raised; see [`raise_for`] for the rest of the cost.
pub async fn mark_entry_boards<S: ItemStore + PeriodStore + ?Sized>(
    store: &S,
    player_id: &str,
    now_ms: i64,
) -> Result<usize, ServiceError> {
    let prefixes = marked_prefixes();
    let boards: Vec<BoardRef> = store
        .entry_boards(player_id, "")
        .await?
        .into_iter()
        .filter(|b| {
            let key = b.key();
            prefixes.iter().any(|p| key.starts_with(p.as_str())) || board_def(&b.board).is_none()
        })
        .collect();
    raise_for(store, &boards, player_id, now_ms).await
}

/// Every board with raised marks, least recently changed first, at most `limit`.
/// [`MARK_SHARDS`] Queries (more only past [`MARKS_PER_QUERY`] marks in a shard).
pub async fn changed<S: ItemStore + ?Sized>(store: &S, limit: usize) -> Result<Vec<Changed>, ServiceError> {
    let shards = (0..MARK_SHARDS).map(|s| shard_marks(store, s));
    let mut by_board: BTreeMap<String, Changed> = BTreeMap::new();
    for (board, mark) in try_join_all(shards).await?.into_iter().flatten() {
        by_board
            .entry(board.key())
            .or_insert_with(|| Changed {
                board,
                marks: Vec::new(),
            })
            .marks
            .push(mark);
    }
    let mut all: Vec<Changed> = by_board.into_values().collect();
    all.sort_by_key(Changed::last_ms);
    all.truncate(limit);
    Ok(all)
}

async fn shard_marks<S: ItemStore + ?Sized>(
    store: &S,
    shard: u32,
) -> Result<Vec<(BoardRef, ReadMark)>, ServiceError> {
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
            let board = sk
                .rsplit_once('#')
                .and_then(|(name, _)| name.split_once('@'))
                .map(|(board, period)| BoardRef::new(board, period));
            let Some(board) = board else {
                tracing::warn!(mark = %sk, "change mark of no board; skipped");
                continue;
            };
            let mark: Mark = serde_json::from_slice(&item.body).map_err(|e| {
                ServiceError::Store(podium_store::StoreError::corrupt(format!("{pk}/{sk}"), e))
            })?;
            out.push((
                board,
                ReadMark {
                    key: ItemKey::new(pk.clone(), sk),
                    mark,
                    version: item.version,
                },
            ));
        }
        if !full {
            return Ok(out);
        }
    }
}

/// After a complete snapshot of `c.board` that started reading the board at
/// `read_from_ms` (server clock): deletes each of its marks whose change the
/// snapshot surely holds and that no commit raised since. Returns how many it deleted.
pub async fn clear<S: ItemStore + ?Sized>(
    store: &S,
    c: &Changed,
    read_from_ms: i64,
) -> Result<usize, ServiceError> {
    let mut deleted = 0;
    for m in &c.marks {
        if m.mark.at_ms < read_from_ms - CLOCK_MARGIN_MS && store.delete_item_if(&m.key, m.version).await? {
            deleted += 1;
        }
    }
    Ok(deleted)
}

/// FNV-1a of a string: stable across processes and releases.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LB-5: only boards refreshed when changed are marked; a board's marks are
    /// spread by player over [`MARK_SPREAD`] slots, and the slots over the shards.
    #[test]
    fn marks_only_boards_refreshed_when_changed() {
        let level = BoardRef::all_time("mahjong-level-420");
        let m = mark_for(&level, "ana", 1_000).expect("a level ranking is marked");
        assert_eq!(m.key, mark_key(&level, "ana"));
        assert!(m.key.sk.starts_with("mahjong-level-420@all#"), "{}", m.key.sk);
        assert!(m.key.pk.starts_with("CHANGED#"));
        assert!(mark_for(&BoardRef::all_time("mahjong-amr"), "ana", 1_000).is_none());
        // BD-12: a defined board is refreshed when changed: a card change marks it too.
        assert!(mark_for(&BoardRef::new("seega-teams-weekly", "2027-W29"), "@team:x", 1_000).is_some());
        assert!(mark_for(&BoardRef::new("mahjong-weekly", "2027-W29"), "ana", 1_000).is_none());
        let slots: std::collections::HashSet<_> =
            (0..1_000).map(|p| mark_key(&level, &format!("p-{p}"))).collect();
        assert_eq!(slots.len(), MARK_SPREAD as usize);
        // One board's slots fall in several shards; the levels' slots in every one.
        let shards: std::collections::HashSet<_> = slots.iter().map(|k| k.pk.clone()).collect();
        assert!(shards.len() >= 8, "{shards:?}");
        let all: std::collections::HashSet<_> = (1..=200)
            .flat_map(|level| {
                let board = BoardRef::all_time(format!("mahjong-level-{level}"));
                (0..100).map(move |p| mark_key(&board, &format!("p-{p}")).pk)
            })
            .collect();
        assert_eq!(all.len(), MARK_SHARDS as usize);
    }

    /// LB-5, PF-5: the prefixes a card change queries name every board refreshed when
    /// changed, and no board refreshed on every tick.
    #[test]
    fn marked_prefixes_cover_the_boards_refreshed_when_changed() {
        let prefixes = marked_prefixes();
        let covered = |key: &str| prefixes.iter().any(|p| key.starts_with(p.as_str()));
        for id in [
            "mahjong-level-1",
            "mahjong-level-11000",
            "mahjong-tournament-spring-cup",
        ] {
            let def = board_def(id).expect("a board");
            assert_eq!(def.refresh, Refresh::WhenChanged, "{id}");
            assert!(covered(&BoardRef::all_time(id).key()), "{id}");
        }
        for def in BOARDS.iter() {
            let key = BoardRef::new(def.id, "2027-W10").key();
            assert_eq!(covered(&key), def.refresh == Refresh::WhenChanged, "{key}");
        }
    }
}
