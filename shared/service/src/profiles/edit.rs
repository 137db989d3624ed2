//! The caller's profile (PF-1 … PF-3): read, and changed field by field with a
//! conditional write on its version (concurrent changes retried, none lost).

use chrono::{DateTime, SecondsFormat, Utc};
use podium_rules::profile::{apply, Card, Profile, ProfileChange, ProfilePolicy};
use podium_store::{ItemStore, PeriodStore};
use serde::Serialize;

use super::cards::decode;
use super::profile_key;
use crate::error::ServiceError;

/// The caller's profile as the app reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ProfileView {
    pub player_id: String,
    #[serde(flatten)]
    pub card: Card,
    /// When the country may change again (PF-3; UTC); absent: now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country_changeable_from: Option<String>,
}

impl ProfileView {
    fn new(player_id: &str, p: &Profile, policy: &ProfilePolicy, now: DateTime<Utc>) -> Self {
        let from = p
            .country_changeable_from_ms(policy)
            .filter(|&t| t > now.timestamp_millis())
            .and_then(DateTime::from_timestamp_millis)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true));
        ProfileView {
            player_id: player_id.to_string(),
            card: p.card.clone(),
            country_changeable_from: from,
        }
    }
}

/// The stored profile of `player_id` and its version (0: none), strongly consistent.
async fn stored<S: ItemStore + ?Sized>(store: &S, player_id: &str) -> Result<(Profile, u64), ServiceError> {
    match store.get_item(&profile_key(player_id), true).await? {
        Some(item) => Ok((decode(player_id, &item.body)?, item.version)),
        None => Ok((Profile::default(), 0)),
    }
}

/// The caller's profile (empty when never set): one read.
pub async fn get<S: ItemStore + ?Sized>(
    store: &S,
    policy: &ProfilePolicy,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<ProfileView, ServiceError> {
    let (p, _) = stored(store, player_id).await?;
    Ok(ProfileView::new(player_id, &p, policy, now))
}

/// Applies `change` to the caller's profile at `now` (PF-1 … PF-3): one read and one
/// conditional write (none when nothing changes), retried when a concurrent change
/// won. Refusals name the field and rule and write nothing.
///
/// A change of the card (name, avatar, country; an operator's name reset too) reaches
/// every page at the next refresh (PF-5): it is recorded for the snapshot runs (two
/// writes, [`super::record_change`]: the record is listed under the player, so that
/// their deletion erases it at once, GM-6), and the boards refreshed only when changed
/// that list the player (level time rankings, tournament standings, defined boards)
/// are marked changed before the profile is written
/// ([`crate::engine::changes::mark_entry_boards`]: one Query of the player's period
/// entries, one BatchGetItem per 100 marks, and one write unit per board: a rename of
/// a player on `N` such boards writes `N` marks).
pub async fn put<S: ItemStore + PeriodStore + ?Sized>(
    store: &S,
    policy: &ProfilePolicy,
    player_id: &str,
    change: &ProfileChange,
    now: DateTime<Utc>,
) -> Result<ProfileView, ServiceError> {
    // Writes of one player's profile in this process go one at a time: a burst of
    // them (a client retrying, several devices) queues here instead of spending the
    // conditional write's attempts on each other; other processes' writes still
    // meet in the conditional write.
    let _turn = super::writer(player_id).lock().await;
    // The change is recorded, and the boards marked, once per call: a retry after a
    // lost conditional write does not repeat them (both are for `now`).
    let (mut recorded, mut marked) = (false, false);
    for attempt in 0..super::WRITE_ATTEMPTS {
        if attempt > 0 {
            crate::engine::settle::backoff(attempt).await;
        }
        let (current, version) = stored(store, player_id).await?;
        let next = apply(&current, change, policy, now.timestamp_millis())?;
        if next == current {
            return Ok(ProfileView::new(player_id, &next, policy, now));
        }
        let body = serde_json::to_vec(&next).unwrap_or_default();
        // The change first: a snapshot run then reads this player's card again (a
        // change recorded for a write that then fails costs one read more, nothing else).
        let at = now.timestamp_millis();
        if !recorded {
            super::record_change(store, player_id, now).await?;
            recorded = true;
        }
        // Marked before the write, so that a write that succeeds was always marked
        // (its repeat finds nothing to change): the next refresh rewrites those boards.
        if next.card != current.card && !marked {
            crate::engine::changes::mark_entry_boards(store, player_id, at).await?;
            marked = true;
        }
        if store.put_item_if(&profile_key(player_id), &body, version).await? {
            return Ok(ProfileView::new(player_id, &next, policy, now));
        }
    }
    Err(ServiceError::Contended {
        attempts: super::WRITE_ATTEMPTS,
    })
}
