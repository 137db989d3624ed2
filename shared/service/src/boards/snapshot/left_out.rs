//! The players a snapshot run leaves out (OP-4): those suspended, listed in one item
//! (`SUSPENDED` / `LIST`) read once per run call.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use podium_store::{ItemKey, ItemStore};
use serde::{Deserialize, Serialize};

use crate::boards::snapshot::layout::{decode, encode};
use crate::error::ServiceError;

/// The list's item: one for every board (at most [`podium_store::max_body_bytes`] of
/// JSON, some 5,000 players; a suspension that would not fit is refused, OP-4).
pub fn list_key() -> ItemKey {
    ItemKey::new("SUSPENDED", "LIST")
}

/// One suspended player in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listed {
    pub player_id: String,
    /// Since when (UTC).
    pub since: DateTime<Utc>,
}

/// The players suspended now (strongly consistent).
pub async fn suspended<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<Listed>, ServiceError> {
    Ok(match store.get_item(&list_key(), true).await? {
        Some(item) => decode(&list_key().pk, &item.body)?,
        None => Vec::new(),
    })
}

/// The ids of [`suspended`], for a snapshot run to leave out.
pub async fn suspended_ids<S: ItemStore + ?Sized>(store: &S) -> Result<HashSet<String>, ServiceError> {
    Ok(suspended(store).await?.into_iter().map(|l| l.player_id).collect())
}

/// The write that adds `player_id` (suspended `since`) to the list as it stands now:
/// `(key, body, version read)` for [`podium_store::ItemStore::put_items_if`], to go
/// in one transaction with the suspension's guard (OP-4); `None` when they are listed
/// already. The body may be over the item limit ([`podium_store::check_item`]): the
/// caller checks.
pub async fn listing<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    since: DateTime<Utc>,
) -> Result<Option<(ItemKey, Vec<u8>, u64)>, ServiceError> {
    let (mut list, version): (Vec<Listed>, u64) = match store.get_item(&list_key(), true).await? {
        Some(item) => (decode(&list_key().pk, &item.body)?, item.version),
        None => (Vec::new(), 0),
    };
    if list.iter().any(|l| l.player_id == player_id) {
        return Ok(None);
    }
    list.push(Listed {
        player_id: player_id.to_string(),
        since,
    });
    Ok(Some((list_key(), encode(&list), version)))
}

/// Adds (`Some(since)`) or removes (`None`) `player_id` in the list, by conditional
/// writes retried; safe to repeat.
pub async fn set_listed<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    since: Option<DateTime<Utc>>,
) -> Result<(), ServiceError> {
    for _ in 0..20 {
        let (mut list, version): (Vec<Listed>, u64) = match store.get_item(&list_key(), true).await? {
            Some(item) => (decode(&list_key().pk, &item.body)?, item.version),
            None => (Vec::new(), 0),
        };
        let listed = list.iter().any(|l| l.player_id == player_id);
        match since {
            Some(_) if listed => return Ok(()),
            None if !listed => return Ok(()),
            Some(since) => list.push(Listed {
                player_id: player_id.to_string(),
                since,
            }),
            None => list.retain(|l| l.player_id != player_id),
        }
        if store.put_item_if(&list_key(), &encode(&list), version).await? {
            return Ok(());
        }
        crate::engine::settle::backoff(2).await;
    }
    Err(ServiceError::Contended { attempts: 20 })
}
