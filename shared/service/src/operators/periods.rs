//! Period operations for operators (LB-5, OP-5): a period's close run again, or an
//! ended period that no tick closed frozen and closed now, with a dry run that shows
//! what would be sent to whom. The close is the tick's own machinery: every result
//! message is a settlement keyed by board, period and player, so a close run again
//! sends only what was never sent, and runs alongside a tick safely.

use chrono::{DateTime, Utc};
use podium_rules::board::{board_def, BoardRef};
use podium_rules::period::{Period, PeriodKind};
use podium_rules::period_reward::RewardTables;
use podium_store::{BoardStore, ItemStore, SettleStore};
use serde::Serialize;

use crate::boards::close;
use crate::error::ServiceError;
use crate::moderation::audit::{self, action, AuditEntry};

/// The most result lines a dry run lists.
pub const MAX_LISTED: usize = 1_000;

/// One player's result of the period, and whether it was sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ResultLine {
    pub player_id: String,
    /// LB-2 rank, of `of` ranked.
    pub rank: u64,
    pub of: u64,
    /// The value the period ended with (stored units: points, or milliseconds).
    pub value: i64,
    /// The reward (points; 0 for none).
    pub reward: i64,
    /// Whether the result message was sent before (a close sends it at most once).
    pub sent: bool,
}

/// What a period operation found or did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PeriodOperation {
    pub board: String,
    pub period: String,
    /// Whether the period was frozen before this call (its final snapshot complete).
    pub was_frozen: bool,
    pub dry_run: bool,
    /// Players ranked in the final snapshot (after a freeze this call made; in a dry
    /// run of an unfrozen period, none: nothing is read from a live board).
    pub ranked: usize,
    /// Results sent before, and those a close sends now (or would, in a dry run).
    pub already_sent: usize,
    pub to_send: usize,
    /// The first [`MAX_LISTED`] results, in rank order.
    pub results: Vec<ResultLine>,
    /// Messages this call sent (0 in a dry run).
    pub sent: usize,
}

/// The board and period an operator names: a period board (not all-time, not a rolling
/// window) and one of its ended periods. Errors name `board` or `period`.
fn ended_period(
    board: &str,
    period: &str,
    now: DateTime<Utc>,
) -> Result<(&'static podium_rules::board::BoardDef, Period), ServiceError> {
    let def = board_def(board).ok_or_else(|| ServiceError::NotFound("no such board".into()))?;
    if def.period == PeriodKind::AllTime || def.window_days.is_some() {
        return Err(ServiceError::BadRequest {
            field: "board",
            message: "an all-time or rolling board has no period to close".into(),
        });
    }
    let p = Period::parse(def.period, def.zone, period)?;
    if !p.is_over(now) {
        return Err(ServiceError::BadRequest {
            field: "period",
            message: "the period has not ended".into(),
        });
    }
    Ok((def, p))
}

/// Closes `board`'s ended `period` (freezing it first when no tick did), or with
/// `dry_run` only says what that would send, to whom; recorded in the audit trail when
/// applied (OP-5). Idempotent with the tick's close and with itself. Errors:
/// [`ServiceError::NotFound`] (no such board), `BadRequest` (not a period board, a
/// period not ended), `Invalid` (the period id, the reason), transient store errors.
#[allow(clippy::too_many_arguments)]
pub async fn close_period<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    (board, period): (&str, &str),
    dry_run: bool,
    rewards: &RewardTables,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
) -> Result<PeriodOperation, ServiceError> {
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let (def, p) = ended_period(board, period, now)?;
    let bref: BoardRef = def.in_period(&p);
    let table = rewards.get(def.id);
    let was_frozen = close::is_frozen(store, &bref).await?;
    let mut op = PeriodOperation {
        board: def.id.to_string(),
        period: p.id.clone(),
        was_frozen,
        dry_run,
        ranked: 0,
        already_sent: 0,
        to_send: 0,
        results: Vec::new(),
        sent: 0,
    };
    if !was_frozen && !dry_run {
        let frozen =
            crate::boards::periods::freeze(store, def, &p, now, crate::budget::Budget::unbounded()).await?;
        if !frozen.complete {
            return Err(ServiceError::Contended { attempts: 1 });
        }
    }
    if was_frozen || !dry_run {
        let results = close::final_results(store, def, &bref, table).await?;
        op.ranked = results.len();
        for r in &results {
            let sent = table.is_some()
                && store
                    .get_source(&close::result_key(&bref, &r.player_id))
                    .await?
                    .is_some();
            op.already_sent += usize::from(sent);
            if op.results.len() < MAX_LISTED {
                op.results.push(ResultLine {
                    player_id: r.player_id.clone(),
                    rank: r.rank,
                    of: r.of,
                    value: r.value,
                    reward: r.reward,
                    sent,
                });
            }
        }
        op.to_send = if table.is_some() {
            op.ranked - op.already_sent
        } else {
            0
        };
    }
    if dry_run {
        return Ok(op);
    }
    if table.is_some() {
        if let Some(report) = close::rerun(store, def, &bref, table, now).await? {
            op.sent = report.sent;
        }
    }
    if let Some(league) = podium_rules::league::league_of_board(def.id) {
        crate::players::leagues::close_week(store, league, &p.id, now).await?;
    }
    audit::append(
        store,
        &AuditEntry {
            id: audit::fresh_id(&format!("{}@{}", def.id, p.id)),
            at: now,
            operator: operator.to_string(),
            action: action::CLOSE.into(),
            target: bref.key(),
            player_id: None,
            players: Vec::new(),
            reason,
            changes: serde_json::json!({"was_frozen": was_frozen, "ranked": op.ranked, "sent": op.sent, "already_sent": op.already_sent}),
        },
    )
    .await?;
    Ok(op)
}
