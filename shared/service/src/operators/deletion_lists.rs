//! What a deletion (GM-6) works through, kept beside its tombstone: the boards the
//! player stood on, the sources that name them and others' state items that name them,
//! each a list in items of [`CHUNK`] entries (partition `DELETING#{player}`, sort key
//! `{list}#{chunk}`), so a player with thousands of boards or records never makes the
//! tombstone outgrow DynamoDB's 400 KB item limit. Written once when the deletion
//! lists what the player holds, read a chunk at a time as it steps through them, and
//! removed when it is done (their partition key names the player).

use podium_store::{ItemKey, ItemStore};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::engine::placement::corrupt;
use crate::error::ServiceError;

/// Entries an item of a list holds (about 75 KB for sources with long ids).
pub const CHUNK: usize = 500;

/// The list of boards (`{board}@{period}`).
pub const BOARDS: &str = "boards";
/// The list of sources (`kind`, `id`).
pub const SOURCES: &str = "sources";
/// The list of others' state items (`owner`, `name`).
pub const STATES: &str = "states";

fn key(player_id: &str, list: &str, chunk: usize) -> ItemKey {
    ItemKey::new(format!("DELETING#{player_id}"), format!("{list}#{chunk:06}"))
}

/// Writes `entries` as `player_id`'s list `list` (replacing one written before).
/// Returns how many entries it holds.
pub async fn write<S: ItemStore + ?Sized, T: Serialize>(
    store: &S,
    player_id: &str,
    list: &str,
    entries: &[T],
) -> Result<usize, ServiceError> {
    let mut items = Vec::new();
    for (i, chunk) in entries.chunks(CHUNK).enumerate() {
        let body = serde_json::to_vec(chunk).map_err(|e| corrupt("deletion list", e))?;
        items.push((key(player_id, list, i), body));
    }
    store.put_items(&items, None).await?;
    Ok(entries.len())
}

/// Reads a list entry by entry, one item of [`CHUNK`] entries held at a time.
pub struct Reader<'a, T> {
    player_id: &'a str,
    list: &'static str,
    held: Option<(usize, Vec<T>)>,
}

impl<'a, T: DeserializeOwned + Clone> Reader<'a, T> {
    /// A reader of `player_id`'s list `list`.
    pub fn new(player_id: &'a str, list: &'static str) -> Self {
        Reader {
            player_id,
            list,
            held: None,
        }
    }

    /// Entry `i` of the list (`None` past what was written).
    pub async fn get<S: ItemStore + ?Sized>(
        &mut self,
        store: &S,
        i: usize,
    ) -> Result<Option<T>, ServiceError> {
        let chunk = i / CHUNK;
        if self.held.as_ref().is_none_or(|(c, _)| *c != chunk) {
            let key = key(self.player_id, self.list, chunk);
            let entries: Vec<T> = match store.get_item(&key, true).await? {
                Some(item) => serde_json::from_slice(&item.body).map_err(|e| corrupt(&key.pk, e))?,
                None => Vec::new(),
            };
            self.held = Some((chunk, entries));
        }
        Ok(self.held.as_ref().and_then(|(_, e)| e.get(i % CHUNK).cloned()))
    }
}

/// Removes `player_id`'s lists, of `counts` (list, entries) each.
pub async fn remove<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    counts: &[(&str, usize)],
) -> Result<(), ServiceError> {
    let keys: Vec<ItemKey> = counts
        .iter()
        .flat_map(|(list, n)| (0..n.div_ceil(CHUNK)).map(move |c| key(player_id, list, c)))
        .collect();
    if !keys.is_empty() {
        store.delete_items(&keys).await?;
    }
    Ok(())
}
