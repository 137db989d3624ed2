//! The caller's friend list (PF-4): the ids the app got from its platform (Game
//! Center, Play Games, Facebook, or the game's own), as podium player ids.

use podium_rules::profile::check_friends;
use podium_store::{ItemStore, StoreError};
use serde::Serialize;

use super::friends_key;
use crate::error::ServiceError;

/// The caller's friend list as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FriendList {
    pub player_id: String,
    /// Player ids, in the order sent, without duplicates or the caller (PF-4).
    pub friends: Vec<String>,
}

/// `player_id`'s friend list (empty when never set): one read.
pub async fn get<S: ItemStore + ?Sized>(store: &S, player_id: &str) -> Result<FriendList, ServiceError> {
    let key = friends_key(player_id);
    let friends = match store.get_item(&key, false).await? {
        Some(item) => serde_json::from_slice(&item.body)
            .map_err(|e| ServiceError::Store(StoreError::corrupt(key.pk, e)))?,
        None => Vec::new(),
    };
    Ok(FriendList {
        player_id: player_id.to_string(),
        friends,
    })
}

/// Replaces `player_id`'s friend list with `ids` (PF-4): checked first (nothing is
/// written when an id is refused), then one read and one conditional write. The
/// last write wins: the app sends the whole list each time.
pub async fn put<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    ids: &[String],
) -> Result<FriendList, ServiceError> {
    let friends = check_friends(player_id, ids)?;
    let body = serde_json::to_vec(&friends).unwrap_or_default();
    let key = friends_key(player_id);
    // A conditional write on the version read: of two concurrent lists, one is kept whole.
    for attempt in 0..super::WRITE_ATTEMPTS {
        if attempt > 0 {
            crate::engine::settle::backoff(attempt).await;
        }
        let version = store.get_item(&key, true).await?.map_or(0, |i| i.version);
        if store.put_item_if(&key, &body, version).await? {
            return Ok(FriendList {
                player_id: player_id.to_string(),
                friends,
            });
        }
    }
    Err(ServiceError::Contended {
        attempts: super::WRITE_ATTEMPTS,
    })
}
