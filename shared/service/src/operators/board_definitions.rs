//! Board definitions as operator actions (BD-1 … BD-11, OP-5): a definition created,
//! updated or retired by an operator with a reason, and recorded once in the audit
//! trail with what it was before and after; or previewed (`dry_run`: checked and
//! answered, nothing written, nothing audited).

use chrono::{DateTime, Utc};
use podium_rules::board::definition::Definition;
use podium_rules::operator::check_reason;
use podium_store::ItemStore;
use serde::Serialize;
use serde_json::json;

use crate::boards::definitions::{self, Head, Version};
use crate::error::ServiceError;
use crate::moderation::audit::{self, action, AuditEntry};

/// What an operator asks.
#[derive(Debug, Clone)]
pub enum Change {
    Create(Definition),
    /// The definition's next version, from `version` (BD-10).
    Update {
        definition: Definition,
        version: u32,
    },
    /// Retire `id` at `version`.
    Retire {
        id: String,
        version: u32,
    },
}

/// What a change did (or, as a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Changed {
    pub dry_run: bool,
    /// The definition's state after the change.
    pub head: Head,
    /// The version before (an update's), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Version>,
    /// The version written (a creation's or an update's), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Version>,
    /// What the change will not do though it was accepted, each naming its field
    /// and rule: a prize table written after the window ended, which no period pays
    /// (BD-9). Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The notes of a change written at `now` (see [`Changed::notes`]).
fn notes_of(before: Option<&Version>, after: &Version, now: DateTime<Utc>) -> Vec<String> {
    use podium_rules::board::definition::Schedule;
    let d = &after.definition;
    let prizes_written = !d.prizes.is_empty() && before.is_none_or(|b| b.definition.prizes != d.prizes);
    match d.schedule {
        Schedule::Window { end, .. } if end <= now && prizes_written => vec![format!(
            "prizes (BD-9): the window ended at {}: a prize table written after the end is paid by no period",
            end.to_rfc3339()
        )],
        _ => Vec::new(),
    }
}

/// Applies `change` by `operator` for `reason` (OP-5: 3 to 500 characters) at `now`,
/// a game feeding at most `max_active` active definitions (BD-11); as a dry run when
/// `dry_run`. A change that was written is appended to the audit trail (the
/// operator's, the day's) with its before and after. Errors: those of
/// [`definitions`], and [`ServiceError::Invalid`] for the reason.
pub async fn apply<S: ItemStore + ?Sized>(
    store: &S,
    change: Change,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
    max_active: u32,
    dry_run: bool,
) -> Result<Changed, ServiceError> {
    let reason = check_reason("reason", reason)?;
    let (name, changed) = match change {
        Change::Create(definition) => {
            let (head, after) =
                definitions::create(store, definition, operator, now, max_active, dry_run).await?;
            (
                action::BOARD_CREATE,
                Changed {
                    dry_run,
                    head,
                    before: None,
                    notes: notes_of(None, &after, now),
                    after: Some(after),
                },
            )
        }
        Change::Update { definition, version } => {
            let (before, after) =
                definitions::update(store, definition, version, operator, now, dry_run).await?;
            let head = Head {
                id: after.definition.id.clone(),
                game: after.definition.game.clone(),
                version: after.version,
                retired_at: None,
            };
            (
                action::BOARD_UPDATE,
                Changed {
                    dry_run,
                    head,
                    notes: notes_of(Some(&before), &after, now),
                    before: Some(before),
                    after: Some(after),
                },
            )
        }
        Change::Retire { id, version } => {
            let head = definitions::retire(store, &id, version, now, dry_run).await?;
            (
                action::BOARD_RETIRE,
                Changed {
                    dry_run,
                    head,
                    before: None,
                    after: None,
                    notes: Vec::new(),
                },
            )
        }
    };
    if !dry_run {
        let entry = AuditEntry {
            id: audit::fresh_id(&format!("{}@{}", changed.head.id, changed.head.version)),
            at: now,
            operator: operator.to_string(),
            action: name.to_string(),
            target: format!("board-definition/{}", changed.head.id),
            player_id: None,
            players: Vec::new(),
            reason,
            changes: json!({"before": changed.before, "after": changed.after, "head": changed.head}),
        };
        audit::append(store, &entry).await?;
    }
    Ok(changed)
}
