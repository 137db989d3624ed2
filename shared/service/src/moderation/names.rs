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
/// Errors: `BadRequest` (not a player id), [`ServiceError::NotFound`] (nothing stored
/// under the id, or the player was deleted), `Invalid` (the reason, OP-5), the
/// transient store errors.
pub async fn reset_name<S: Store + ?Sized>(
    store: &S,
    policy: &ProfilePolicy,
    player_id: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
) -> Result<ProfileView, ServiceError> {
    if !podium_rules::record::ids::is_valid_id(player_id)
        || podium_rules::record::ids::is_reserved_id(player_id)
    {
        return Err(ServiceError::BadRequest {
            field: "player_id",
            message: "not a player id".into(),
        });
    }
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let unknown = || ServiceError::NotFound("no such player".into());
    if store.account(player_id).await? == Account::Deleted {
        return Err(unknown());
    }
    let before = edit::get(store, policy, player_id, now).await?;
    if before.card == podium_rules::profile::Card::default() && store.holdings(player_id).await?.is_empty() {
        return Err(unknown());
    }
    let change = ProfileChange::from_json(&serde_json::json!({"name": null}))?;
    let after = edit::put(store, policy, player_id, &change, now).await?;
    audit::append(
        store,
        &AuditEntry {
            id: audit::fresh_id(&format!("{player_id}@{}", now.timestamp_millis())),
            at: now,
            operator: operator.to_string(),
            action: action::NAME_RESET.into(),
            target: player_id.to_string(),
            player_id: Some(player_id.to_string()),
            reason,
            changes: serde_json::json!({"name_was": before.card.name}),
        },
    )
    .await?;
    Ok(after)
}
