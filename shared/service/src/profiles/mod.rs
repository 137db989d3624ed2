//! Players' profiles and friend lists (PF-1 … PF-5): the name, avatar and country
//! every entry the app reads carries, read in batches for any view.
//!
//! May use: [`crate::engine`] (its backoff, and its change marks: a card change marks
//! the boards refreshed only when changed that list the player), the store, the
//! rules. Knows no board page, game or player feature; every view above reads cards
//! through [`cards`].
//!
//! - [`cards`]: the items, and the cards of many players in one batch read.
//! - [`edit`]: the caller's profile read and changed (conditional on its version).
//! - [`friends`]: the caller's friend list.
//!
//! | item | partition key | sort key | body |
//! |---|---|---|---|
//! | profile | `PROFILE#{player id}` | `P` | [`podium_rules::profile::Profile`] (JSON) |
//! | friend list | `FRIENDS#{player id}` | `F` | the ids (JSON array) |
//! | profile change | `PROFILECHANGES#{UTC hour, YYYYMMDDHH}` | `{ms, 13 digits}#{player id}` | empty; expires after [`CHANGE_RETENTION_SECS`] |
//! | the player's profile changes | `PROFILECHANGED#{player id}` | `{ms, 13 digits}` | empty; expires with the change it lists |
//!
//! Each profile write first records a change: a snapshot run takes the cards of the
//! players who did not change since the previous snapshot from that snapshot's pages
//! and reads only the others' ([`changed_between`]). A change of the card also marks
//! the boards refreshed only when changed that list the player, so their next refresh
//! rewrites them too ([`edit::put`]).

pub mod cards;
pub mod edit;
pub mod friends;

/// Attempts of a conditional write on one player's item before answering 503
/// `contended` (each after a jittered pause: concurrent writes of one player's own
/// item are rare, and none is lost).
pub(crate) const WRITE_ATTEMPTS: u32 = 12;

/// How many locks the profile writers of one process share ([`writer`]).
const WRITER_STRIPES: usize = 256;

/// The lock that orders the profile writes of `player_id` in this process: one of
/// [`WRITER_STRIPES`], by a hash of the id (players sharing one wait for each other
/// only while both write; memory stays fixed whatever the number of players).
pub(crate) fn writer(player_id: &str) -> &'static tokio::sync::Mutex<()> {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    static STRIPES: std::sync::OnceLock<Vec<tokio::sync::Mutex<()>>> = std::sync::OnceLock::new();
    let stripes = STRIPES.get_or_init(|| (0..WRITER_STRIPES).map(|_| tokio::sync::Mutex::new(())).collect());
    let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(player_id);
    &stripes[(hash % WRITER_STRIPES as u64) as usize]
}

use podium_store::ItemKey;

/// How long a profile change is recorded: longer than any gap between two
/// snapshots of a board that reuse each other's cards.
pub const CHANGE_RETENTION_SECS: i64 = 2 * 86_400;

/// The partition of the profile changes of the UTC hour that holds `ms`.
fn change_pk(ms: i64) -> String {
    let hour = chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default();
    format!("PROFILECHANGES#{}", hour.format("%Y%m%d%H"))
}

/// The record of `player_id`'s profile change at `ms` (server clock, ms UTC).
pub fn change_key(player_id: &str, ms: i64) -> ItemKey {
    ItemKey::new(change_pk(ms), format!("{ms:013}#{player_id}"))
}

/// The players whose profile changed from `from_ms` to `to_ms` (server clock, ms UTC):
/// one Query per UTC hour of the span (paged). `None` when the span reaches back past
/// [`CHANGE_RETENTION_SECS`] (the records may be gone: read every card).
pub async fn changed_between<S: podium_store::ItemStore + ?Sized>(
    store: &S,
    from_ms: i64,
    to_ms: i64,
) -> Result<Option<std::collections::HashSet<String>>, crate::error::ServiceError> {
    if to_ms - from_ms > (CHANGE_RETENTION_SECS - 3_600) * 1000 {
        return Ok(None);
    }
    let mut out = std::collections::HashSet::new();
    let mut hour = from_ms - from_ms.rem_euclid(3_600_000);
    while hour <= to_ms {
        let pk = change_pk(hour);
        let mut range = podium_store::SortKeyRange::AtOrAfter(format!("{from_ms:013}"));
        loop {
            let found = store.query_items(&pk, &range, true, 1_000, true).await?;
            let full = found.len() == 1_000;
            let Some((last, _)) = found.last() else { break };
            range = podium_store::SortKeyRange::After(last.clone());
            out.extend(
                found
                    .iter()
                    .filter_map(|(sk, _)| sk.split_once('#').map(|(_, p)| p.to_string())),
            );
            if !full {
                break;
            }
        }
        hour += 3_600_000;
    }
    Ok(Some(out))
}

/// The item that lists `player_id`'s change record of `ms` under the player, so that a
/// deletion finds every record that names them (GM-6).
fn change_index_key(player_id: &str, ms: i64) -> ItemKey {
    ItemKey::new(format!("PROFILECHANGED#{player_id}"), format!("{ms:013}"))
}

/// Records that `player_id`'s profile changes at `now` (PF-5): first the item that
/// lists the record under the player, then the record a snapshot run reads
/// ([`changed_between`]), both expiring after [`CHANGE_RETENTION_SECS`]; so every
/// record that names the player is listed under them, and their deletion erases it at
/// once ([`erase_changes`], GM-6). Two writes (a write unit each). Safe to repeat.
pub async fn record_change<S: podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), crate::error::ServiceError> {
    let at = now.timestamp_millis();
    let expires = Some(now.timestamp() + CHANGE_RETENTION_SECS);
    store
        .put_items(&[(change_index_key(player_id, at), Vec::new())], expires)
        .await?;
    store
        .put_items(&[(change_key(player_id, at), Vec::new())], expires)
        .await?;
    Ok(())
}

/// GM-6: erases every profile change record that names `player_id` (and the items
/// that list them), whatever their age: a deleted player's id is not kept until they
/// expire. One Query of the player's list per 1,000 records, one BatchWriteItem per 25
/// deletions. Answers how many records it erased. Safe to repeat.
pub async fn erase_changes<S: podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<usize, crate::error::ServiceError> {
    let pk = format!("PROFILECHANGED#{player_id}");
    let mut erased = 0;
    loop {
        let listed = store
            .query_items(&pk, &podium_store::SortKeyRange::All, true, 1_000, true)
            .await?;
        if listed.is_empty() {
            return Ok(erased);
        }
        let mut gone = Vec::with_capacity(2 * listed.len());
        for (sk, _) in &listed {
            if let Ok(ms) = sk.parse::<i64>() {
                gone.push(change_key(player_id, ms));
                erased += 1;
            }
            gone.push(ItemKey::new(pk.clone(), sk.clone()));
        }
        // The records first: a deletion that stops midway still lists what is left.
        let (records, lists): (Vec<ItemKey>, Vec<ItemKey>) = gone.into_iter().partition(|k| k.pk != pk);
        store.delete_items(&records).await?;
        store.delete_items(&lists).await?;
    }
}

/// The item of `player_id`'s profile.
pub fn profile_key(player_id: &str) -> ItemKey {
    ItemKey::new(format!("PROFILE#{player_id}"), "P")
}

/// The item of `player_id`'s friend list.
pub fn friends_key(player_id: &str) -> ItemKey {
    ItemKey::new(format!("FRIENDS#{player_id}"), "F")
}

/// Every item this room keeps under `player_id`: what a deletion removes (GM-6).
pub fn keys_of(player_id: &str) -> Vec<ItemKey> {
    vec![profile_key(player_id), friends_key(player_id)]
}
