//! The cards (name, avatar, country) of many players in one batch read (PF-5).

use std::collections::HashMap;

use podium_rules::profile::{Card, Profile};
use podium_store::{ItemStore, StoreError};

use super::profile_key;
use crate::error::ServiceError;

/// Players' cards by id; a player without a profile has none here.
pub type Cards = HashMap<String, Card>;

/// The stored profile in `body` of `player_id`'s item.
pub(crate) fn decode(player_id: &str, body: &[u8]) -> Result<Profile, ServiceError> {
    serde_json::from_slice(body)
        .map_err(|e| ServiceError::Store(StoreError::corrupt(profile_key(player_id).pk, e)))
}

/// The cards of `players` (duplicates read once): one BatchGetItem per 100 players
/// on DynamoDB, eventually consistent (a change shows within a second or so).
/// Players without a profile, or with an empty one, are left out.
pub async fn cards<S: ItemStore + ?Sized>(store: &S, players: &[&str]) -> Result<Cards, ServiceError> {
    let mut unique: Vec<&str> = players.to_vec();
    unique.sort_unstable();
    unique.dedup();
    if unique.is_empty() {
        return Ok(Cards::new());
    }
    let keys: Vec<_> = unique.iter().map(|p| profile_key(p)).collect();
    let found = store.get_items(&keys, false).await?;
    let mut out = Cards::with_capacity(unique.len());
    for (player, item) in unique.into_iter().zip(found) {
        if let Some(item) = item {
            let card = decode(player, &item.body)?.card;
            if !card.is_empty() {
                out.insert(player.to_string(), card);
            }
        }
    }
    Ok(out)
}

/// One player's card (empty when they have no profile): one read.
pub async fn card<S: ItemStore + ?Sized>(store: &S, player: &str) -> Result<Card, ServiceError> {
    Ok(cards(store, &[player]).await?.remove(player).unwrap_or_default())
}

/// Sets each slot's card (player id, the card to set) from one batch read (PF-5):
/// [`cards`] of every id named; a player without a profile keeps an empty card.
pub async fn fill<'a, S: ItemStore + ?Sized>(
    store: &S,
    slots: impl IntoIterator<Item = (&'a str, &'a mut Card)>,
) -> Result<(), ServiceError> {
    let slots: Vec<(&str, &mut Card)> = slots.into_iter().collect();
    let ids: Vec<&str> = slots.iter().map(|(id, _)| *id).collect();
    let found = cards(store, &ids).await?;
    for (id, card) in slots {
        if let Some(c) = found.get(id) {
            *card = c.clone();
        }
    }
    Ok(())
}
