//! An operator's reset of a player's display name (PF-1, OP-5): the name removed (the
//! avatar and country kept), shown everywhere from the next snapshot refresh, and
//! recorded in the audit trail.

use chrono::{DateTime, Utc};
use podium_rules::profile::{ProfileChange, ProfilePolicy};
use podium_store::{Account, Store};

use super::audit::{self, action, AuditEntry};
use crate::error::ServiceError;
use crate::profiles::edit::{self, ProfileView};

/// Removes `player_id`'s display name by `operator` with `reason` at `now`. Safe to
/// repeat (a name already gone changes nothing, and the trail records the call).
/// Errors: `Invalid` (not a player id: GM-5, GM-6), [`ServiceError::NotFound`] (nothing stored
/// under the id, or the player was deleted), `Invalid` (the reason, OP-5), the
/// transient store errors.
pub async fn reset_name<S: Store + ?Sized>(
    store: &S,
    policy: &ProfilePolicy,
    player_id: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
) -> Result<ProfileView, ServiceError> {
    // GM-5, GM-6: a player id, not a deleted player's pseudonym (400 naming the rule).
    podium_rules::record::ids::check_player_id("player_id", player_id)?;
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let unknown = || ServiceError::NotFound("no such player".into());
    if store.account(player_id).await? == Account::Deleted {
        return Err(unknown());
    }
    let before = edit::get(store, policy, player_id, now).await?;
    // One read of the player's partition: whether anything is stored, and the
    // period boards whose frozen archives list them.
    let holdings = store.holdings(player_id).await?;
    if before.card == podium_rules::profile::Card::default() && holdings.is_empty() {
        return Err(unknown());
    }
    let change = ProfileChange::from_json(&serde_json::json!({"name": null}))?;
    let after = edit::put(store, policy, player_id, &change, now).await?;
    // Every other page takes the reset card at the next refresh; the frozen archives
    // are never taken again: their pointers show the entry without a name.
    crate::boards::hidden::reset_name_in_archives(store, &holdings.entries, player_id).await?;
    audit::append(
        store,
        &AuditEntry::on_player(
            action::NAME_RESET,
            player_id,
            (operator, reason),
            now,
            serde_json::json!({"name_was": before.card.name}),
        ),
    )
    .await?;
    Ok(after)
}
