//! An operator's rename or disbanding of a team (TM-1, TM-5), each recorded in the
//! audit trail (OP-5) with what it changed.

use chrono::{DateTime, Utc};
use podium_rules::profile::ProfilePolicy;
use podium_store::Store;

use super::audit::{self, action, AuditEntry};
use crate::error::ServiceError;
use crate::teams::{actions, Team};

fn entry(
    what: &str,
    team: &Team,
    (operator, reason): (&str, String),
    now: DateTime<Utc>,
    changes: serde_json::Value,
) -> AuditEntry {
    AuditEntry {
        id: audit::fresh_id(&format!("team/{}@{}", team.team_id, now.timestamp_millis())),
        at: now,
        operator: operator.to_string(),
        action: what.to_string(),
        target: format!("team/{}", team.team_id),
        player_id: None,
        players: Vec::new(),
        reason,
        changes,
    }
}

/// `operator` renames team `team_id` to `name` (PF-1) for `reason` (OP-5): the team
/// as it is now. Errors: [`ServiceError::Invalid`] naming `name` or `reason`,
/// [`ServiceError::NotFound`].
pub async fn rename<S: Store + ?Sized>(
    store: &S,
    profiles: &ProfilePolicy,
    team_id: &str,
    name: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let (before, after) = actions::rename_by_operator(store, team_id, name, profiles, now).await?;
    let changes = serde_json::json!({"name_was": before.name, "name": after.name});
    audit::append(
        store,
        &entry(action::TEAM_RENAME, &after, (operator, reason), now, changes),
    )
    .await?;
    Ok(after)
}

/// `operator` disbands team `team_id` for `reason` (OP-5): its members released (no
/// cooldown), their points until now kept by the team. Safe to repeat: a rerun
/// finishes an interrupted disbanding. Errors: [`ServiceError::Invalid`] naming
/// `reason`, [`ServiceError::NotFound`].
pub async fn disband<S: Store + ?Sized>(
    store: &S,
    team_id: &str,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let team = actions::disband_by_operator(store, team_id, now).await?;
    let changes =
        serde_json::json!({"members": team.roster.members.len(), "disbanded_at": team.disbanded_at});
    audit::append(
        store,
        &entry(action::TEAM_DISBAND, &team, (operator, reason), now, changes),
    )
    .await?;
    Ok(team)
}
