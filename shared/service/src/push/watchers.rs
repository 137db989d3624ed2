//! Who watches a board (LIVE-2, LIVE-3): one item per connection and board watched,
//! `WATCH#{board}#{shard}` / `{connection id}#{player}`, its body the connection's
//! watches of that board (JSON), written with the connection's end as its expiry. A
//! board's watchers are spread over [`SHARDS`] partitions by connection id, so that a
//! popular board's watches and the reads of a refresh do not all fall on one
//! partition.
//!
//! Costs (DynamoDB): a watch writes one item per board it names and deletes one per
//! board it no longer names; a disconnect deletes them; a refresh that changed a
//! board reads its watchers with one Query per shard (8), a page per 1 MB.

use podium_rules::push::Watched;
use podium_store::{ItemKey, ItemStore, SortKeyRange};
use serde::{Deserialize, Serialize};

use super::connection::Connection;
use crate::error::ServiceError;

/// Partitions a board's watchers are spread over.
pub const SHARDS: u64 = 8;

/// Watchers read per Query page.
const PAGE: usize = 1_000;

/// One connection's watches of one board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watcher {
    pub player_id: String,
    pub connection_id: String,
    /// The connection's end (ms since the Unix epoch, UTC).
    pub ends_at_ms: i64,
    /// The connection's watches of this board (one per view).
    pub watching: Vec<Watched>,
}

impl Watcher {
    /// The connection this watcher item stands for (what a push needs of it).
    pub fn connection(&self) -> Connection {
        Connection {
            connection_id: self.connection_id.clone(),
            player_id: self.player_id.clone(),
            connected_at_ms: 0,
            ends_at_ms: self.ends_at_ms,
            watching: Vec::new(),
        }
    }
}

fn shard(connection_id: &str) -> u64 {
    // FNV-1a: stable across processes and releases.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in connection_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h % SHARDS
}

fn pk(board: &str, shard: u64) -> String {
    format!("WATCH#{board}#{shard}")
}

fn key(board: &str, c: &Connection) -> ItemKey {
    ItemKey::new(
        pk(board, shard(&c.connection_id)),
        format!("{}#{}", c.connection_id, c.player_id),
    )
}

/// The boards `watching` names, each once, in order.
fn boards(watching: &[Watched]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for w in watching {
        if !out.contains(&w.board.as_str()) {
            out.push(&w.board);
        }
    }
    out
}

/// Writes the watcher items of `connection`'s watches and deletes those of the boards
/// `before` named that it no longer does.
pub(crate) async fn replace<S: ItemStore + ?Sized>(
    store: &S,
    connection: &Connection,
    before: &[Watched],
) -> Result<(), ServiceError> {
    let now = boards(&connection.watching);
    let gone: Vec<ItemKey> = boards(before)
        .into_iter()
        .filter(|b| !now.contains(b))
        .map(|b| key(b, connection))
        .collect();
    if !gone.is_empty() {
        store.delete_items(&gone).await?;
    }
    let mut items = Vec::with_capacity(now.len());
    for board in now {
        let watcher = Watcher {
            player_id: connection.player_id.clone(),
            connection_id: connection.connection_id.clone(),
            ends_at_ms: connection.ends_at_ms,
            watching: connection
                .watching
                .iter()
                .filter(|w| w.board == board)
                .cloned()
                .collect(),
        };
        let body = serde_json::to_vec(&watcher)
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("watcher", e)))?;
        items.push((key(board, connection), body));
    }
    if !items.is_empty() {
        store
            .put_items(&items, Some(connection.ends_at_ms.div_euclid(1000) + 1))
            .await?;
    }
    Ok(())
}

/// Deletes the watcher items of `connection`.
pub(crate) async fn remove<S: ItemStore + ?Sized>(
    store: &S,
    connection: &Connection,
) -> Result<(), ServiceError> {
    let keys: Vec<ItemKey> = boards(&connection.watching)
        .into_iter()
        .map(|b| key(b, connection))
        .collect();
    if !keys.is_empty() {
        store.delete_items(&keys).await?;
    }
    Ok(())
}

/// Every connection watching `board` and open at `now_ms` (ms, UTC), with its
/// watches of it: one Query per shard and page.
pub async fn of_board<S: ItemStore + ?Sized>(
    store: &S,
    board: &str,
    now_ms: i64,
) -> Result<Vec<Watcher>, ServiceError> {
    let mut out = Vec::new();
    for shard in 0..SHARDS {
        let pk = pk(board, shard);
        let mut range = SortKeyRange::All;
        loop {
            let items = store.query_items(&pk, &range, true, PAGE, false).await?;
            let full = items.len() == PAGE;
            let last = items.last().map(|(sk, _)| sk.clone());
            out.extend(
                items
                    .into_iter()
                    .filter_map(|(_, item)| serde_json::from_slice::<Watcher>(&item.body).ok())
                    .filter(|w| w.ends_at_ms > now_ms),
            );
            match (full, last) {
                (true, Some(sk)) => range = SortKeyRange::After(sk),
                _ => break,
            }
        }
    }
    Ok(out)
}
