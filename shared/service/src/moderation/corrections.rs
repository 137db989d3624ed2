//! Operators' corrections of a balance (OP-1): a settlement like any other source of
//! points, through the one commit path ([`crate::engine::settle`]), keyed by the
//! idempotency key the console sends, and recorded in the audit trail (OP-5).

use chrono::{DateTime, Utc};
use podium_rules::operator::{plan_correction, Correction, CorrectionResult, CORRECTION};
use podium_rules::settlement::Planned;
use podium_store::{ItemStore, SettleStore, SourceKey};

use super::audit::{self, action, AuditEntry};
use crate::engine::names::hex_sha256;
use crate::engine::settle::settle;
use crate::engine::source::{ReadState, Reads, Settled, Source};
use crate::error::ServiceError;

/// A checked correction and who makes it, as the engine settles it.
pub(crate) struct Corrected<'a> {
    pub correction: &'a Correction,
    pub operator: &'a str,
    pub now: DateTime<Utc>,
}

impl Source for Corrected<'_> {
    type Result = CorrectionResult;

    fn key(&self) -> SourceKey {
        SourceKey::new(CORRECTION, self.correction.correction_id.clone())
    }

    fn content_hash(&self) -> String {
        let c = self.correction;
        hex_sha256(&format!(
            "{}|{}|{}|{}",
            c.player_id,
            c.game.id(),
            c.points,
            c.reason
        ))
    }

    fn reads(&self) -> Reads {
        Reads {
            balances: vec![(self.correction.game, self.correction.player_id.clone(), true)],
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<CorrectionResult>, ServiceError> {
        let c = self.correction;
        let balance = read.balance(c.game, &c.player_id);
        if balance.version == 0 {
            return Err(ServiceError::NotFound(format!(
                "the player has no balance on {} to correct",
                c.game.id()
            )));
        }
        Ok(Planned::Write(plan_correction(
            c,
            self.operator,
            balance.points,
            self.now,
        )))
    }

    fn id_field(&self) -> &'static str {
        "correction_id"
    }

    fn repeats_are_common(&self) -> bool {
        // A console retrying after a lost reply.
        true
    }
}

/// What a correction call answers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct CorrectionAnswer {
    #[serde(flatten)]
    pub result: CorrectionResult,
    /// True when this key was applied before: nothing was applied now.
    pub duplicate: bool,
}

/// Applies `correction` (OP-1) by `operator` at `now`, exactly once by its key, and
/// appends it to the audit trail (OP-5). Errors: [`ServiceError::Invalid`] (a field
/// breaks OP-1/OP-5/GM-5, or the player was deleted: GM-6), [`ServiceError::NotFound`]
/// (no balance on that game), [`ServiceError::Conflict`] (the key was used with other
/// content), and the transient store errors.
pub async fn correct<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    correction: Correction,
    operator: &str,
    now: DateTime<Utc>,
) -> Result<CorrectionAnswer, ServiceError> {
    let correction = correction.checked()?;
    let source = Corrected {
        correction: &correction,
        operator,
        now,
    };
    let settled = settle(store, &source, now).await?;
    let duplicate = matches!(settled, Settled::Duplicate(_));
    let result = settled.into_result();
    // Written again on a repeat (same instant and id: the same items), so a trail
    // entry lost with a reply is still written.
    audit::append(store, &audit_entry(&result)).await?;
    Ok(CorrectionAnswer { result, duplicate })
}

fn audit_entry(r: &CorrectionResult) -> AuditEntry {
    AuditEntry {
        id: r.correction_id.clone(),
        at: r.at,
        operator: r.operator.clone(),
        action: action::CORRECTION.into(),
        target: r.player_id.clone(),
        player_id: Some(r.player_id.clone()),
        players: Vec::new(),
        reason: r.reason.clone(),
        changes: serde_json::json!({
            "game": r.game.id(),
            "nominal": r.nominal,
            "applied": r.applied,
            "balance_after": r.balance_after,
        }),
    }
}
