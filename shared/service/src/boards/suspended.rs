//! Who is suspended (OP-4), found without one list of every suspended player, so that
//! any number of suspensions hold and none contends with another:
//!
//! - **On a board**: one index item per (board, suspended player), partition key
//!   `SUSPENDED#{board}@{period}`, sort key the player's board key
//!   ([`BoardKey::encode`], listing order). A player's board key does not move while
//!   they are suspended (their guard refuses every commit naming them), so the index
//!   lists them where the board does. A snapshot run of the board leaves them out
//!   ([`ids_on`]); a live read of it skips them and counts those ranked above the
//!   caller ([`on_board`]). Cost: one Query per 1 MB of the board's own suspended
//!   players (a board with no snapshot yet, the only one read live, holds none but
//!   those suspended after their first points on it).
//! - **Among known players** (friends, a cohort, winners, the players a message
//!   names): their guard items ([`podium_store::tombstone_key`]), one BatchGetItem per
//!   100 ([`among`]), whatever the number of suspensions.
//!
//! Written by [`crate::moderation::suspensions`] after the guard and before the
//! snapshots taken are hidden ([`crate::boards::hidden`]); removed before the guard
//! goes (a restore) or the player's entries are erased (a deletion, GM-6).

use std::collections::HashSet;

use podium_rules::board::BoardRef;
use podium_store::{Account, BoardKey, ItemKey, ItemStore, SettleStore, SortKeyRange};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// Index items one Query asks for (some 100 bytes each: under DynamoDB's 1 MB a page).
const PER_QUERY: usize = 5_000;

/// The partition key of `board`'s index of suspended players (a board, not a
/// country's view of it: a view leaves out whom its board does, PF-3).
pub fn partition(board: &BoardRef) -> String {
    format!("SUSPENDED#{}", board.key())
}

/// One suspended player on a board, as the index item's body holds them (the sort
/// key holds their board key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Listed {
    player_id: String,
}

/// Every suspended player on `board`, in listing order; strongly consistent, one
/// Query per [`PER_QUERY`]. Errors: the store's, a corrupt item.
pub async fn on_board<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Vec<BoardKey>, ServiceError> {
    let pk = partition(board);
    let mut out = Vec::new();
    let mut range = SortKeyRange::All;
    loop {
        let page = store.query_items(&pk, &range, true, PER_QUERY, true).await?;
        let full = page.len() == PER_QUERY;
        let last = page.last().map(|(sk, _)| sk.clone());
        for (sk, item) in page {
            out.push(decoded(&pk, &sk, &item.body)?);
        }
        match (full, last) {
            (true, Some(last)) => range = SortKeyRange::After(last),
            _ => break,
        }
    }
    Ok(out)
}

/// The suspended players on `board` ranked after `after` (from the top when `None`)
/// and at or before `through` (board keys, [`BoardKey::encode`]), in listing order:
/// what a live read of that stretch of the board skips. Read backwards from
/// `through`, 100 to a Query at first: usually one Query that finds none.
pub async fn between<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    after: Option<&str>,
    through: &str,
) -> Result<Vec<BoardKey>, ServiceError> {
    let pk = partition(board);
    let mut out = Vec::new();
    let mut range = SortKeyRange::AtOrBefore(through.to_string());
    let mut limit = 100;
    loop {
        let page = store.query_items(&pk, &range, false, limit, true).await?;
        let full = page.len() == limit;
        let mut last = None;
        for (sk, item) in page {
            if after.is_some_and(|a| sk.as_str() <= a) {
                last = None;
                break;
            }
            out.push(decoded(&pk, &sk, &item.body)?);
            last = Some(sk);
        }
        match (full, last) {
            (true, Some(last)) => {
                range = SortKeyRange::Before(last);
                limit = PER_QUERY;
            }
            _ => break,
        }
    }
    out.reverse();
    Ok(out)
}

/// An index item's board key, checked against its body.
fn decoded(pk: &str, sk: &str, body: &[u8]) -> Result<BoardKey, ServiceError> {
    let corrupt = |e: &dyn std::fmt::Display| ServiceError::Store(podium_store::StoreError::corrupt(pk, e));
    let listed: Listed = serde_json::from_slice(body).map_err(|e| corrupt(&e))?;
    match BoardKey::decode(sk) {
        Some(key) if key.player_id == listed.player_id => Ok(key),
        _ => Err(corrupt(&"not the board key of the player it names")),
    }
}

/// The ids of every suspended player on `board`: what a snapshot run of it leaves out.
pub async fn ids_on<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<HashSet<String>, ServiceError> {
    Ok(on_board(store, board)
        .await?
        .into_iter()
        .map(|k| k.player_id)
        .collect())
}

/// The accounts of `players` (active, suspended or deleted; GM-6, OP-4) from their
/// guard items, in the order asked: one strongly consistent BatchGetItem per 100.
/// Errors: the store's.
pub async fn accounts<S: ItemStore + ?Sized>(
    store: &S,
    players: &[&str],
) -> Result<Vec<Account>, ServiceError> {
    let keys: Vec<ItemKey> = players.iter().map(|p| podium_store::tombstone_key(p)).collect();
    Ok(store
        .get_items(&keys, true)
        .await?
        .iter()
        .map(|g| Account::of_guard(g.as_ref().map(|g| g.body.as_slice())))
        .collect())
}

/// Which of `players` are suspended now ([`accounts`]). Errors: the store's.
pub async fn among<S: ItemStore + ?Sized>(
    store: &S,
    players: &[&str],
) -> Result<HashSet<String>, ServiceError> {
    let mut ids: Vec<&str> = players.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let accounts = accounts(store, &ids).await?;
    Ok(ids
        .into_iter()
        .zip(accounts)
        .filter(|(_, a)| *a == Account::Suspended)
        .map(|(p, _)| p.to_string())
        .collect())
}

/// The index item of `player_id` on `board`, from their entry there (`None`: no entry;
/// one strongly consistent read).
async fn item_key<S: SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    player_id: &str,
) -> Result<Option<ItemKey>, ServiceError> {
    let entry = crate::boards::entries::entries_of(store, board, &[player_id]).await?;
    Ok(entry
        .into_iter()
        .flatten()
        .next()
        .map(|b| ItemKey::new(partition(board), b.board_key().encode())))
}

/// The index items of `player_id` on each of `boards`, in order ([`item_key`]): the
/// entries read [`READS_IN_FLIGHT`] at a time, so a player on hundreds of boards is
/// indexed in a fraction of a request's time.
async fn item_keys<S: SettleStore + ?Sized>(
    store: &S,
    boards: &[BoardRef],
    player_id: &str,
) -> Result<Vec<Option<ItemKey>>, ServiceError> {
    use futures::stream::{self, StreamExt, TryStreamExt};
    stream::iter(boards.iter().cloned())
        .map(|board| {
            let player_id = player_id.to_string();
            async move { item_key(store, &board, &player_id).await }
        })
        .buffered(READS_IN_FLIGHT)
        .try_collect()
        .await
}

/// Entry reads [`item_keys`] makes at once.
const READS_IN_FLIGHT: usize = 16;

/// Indexes `player_id` (suspended: their guard written) on each of `boards` they hold
/// an entry on: one read per board (16 at once), then one BatchWriteItem per 25;
/// answers the keys written (for a caller overtaken meanwhile to take back). Safe to repeat
/// (the same keys).
pub async fn list<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    boards: &[BoardRef],
) -> Result<Vec<ItemKey>, ServiceError> {
    let body = serde_json::to_vec(&Listed {
        player_id: player_id.to_string(),
    })
    .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("suspended", e)))?;
    let items: Vec<(ItemKey, Vec<u8>)> = item_keys(store, boards, player_id)
        .await?
        .into_iter()
        .flatten()
        .map(|key| (key, body.clone()))
        .collect();
    store.put_items(&items, None).await?;
    Ok(items.into_iter().map(|(key, _)| key).collect())
}

/// Takes `player_id` off the index of each of `boards` (a restore, an overtaken
/// suspension, a deletion): before their guard goes and before their entries are
/// erased, while their board keys are still those indexed. A board they hold no entry
/// on any more is searched by id. Safe to repeat.
pub async fn unlist<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    boards: &[BoardRef],
) -> Result<(), ServiceError> {
    let mut keys = Vec::new();
    for (board, key) in boards.iter().zip(item_keys(store, boards, player_id).await?) {
        match key {
            Some(key) => keys.push(key),
            None => keys.extend(
                on_board(store, board)
                    .await?
                    .into_iter()
                    .filter(|k| k.player_id == player_id)
                    .map(|k| ItemKey::new(partition(board), k.encode())),
            ),
        }
    }
    store.delete_items(&keys).await?;
    Ok(())
}
