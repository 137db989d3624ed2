//! Period boards (LB-1, LB-5, MJ-20): points credited in the period of the event's own
//! instant, and each period frozen into a final snapshot once it is over.

use std::time::Duration;

use chrono::{DateTime, Utc};
use podium_rules::board::BoardDef;
use podium_rules::period::Period;
use podium_rules::snapshot::PAGE_SIZE;
use podium_store::{BoardStore, Credit, CreditOutcome, ItemStore, PeriodStore};

use crate::error::ServiceError;
use crate::snapshot::{self, RunReport};

/// The snapshot id of a period's frozen board.
pub const FINAL: &str = "final";

/// How often a credit is retried while other credits move the same entry.
pub const MAX_ATTEMPTS: u32 = 25;

/// How a credit ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credited {
    /// Added; the player's value in that period is now `value_after`.
    Added { period: Period, value_after: i64 },
    /// This source was credited before: nothing changed.
    Duplicate { period: Period },
}

/// Credits `points` (≥ 0) earned at `at` to `player_id` on `board`, in the period
/// that contains `at` in the board's zone (MJ-20), exactly once per `source_id`.
pub async fn credit<S: PeriodStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    player_id: &str,
    points: i64,
    at: DateTime<Utc>,
    source_id: &str,
) -> Result<Credited, ServiceError> {
    if points < 0 {
        return Err(ServiceError::BadRequest {
            field: "points",
            message: "period boards only grow".into(),
        });
    }
    let period = board.period_at(at);
    let target = board.in_period(&period);
    for attempt in 0..MAX_ATTEMPTS {
        let current = store.period_entry(&target, player_id).await?;
        let (value, version) = current.map_or((0, 0), |b| (b.points, b.version));
        let c = Credit {
            player_id: player_id.to_string(),
            points,
            value_after: value.saturating_add(points),
            at_ms: at.timestamp_millis(),
            source_id: source_id.to_string(),
        };
        match store.credit(&target, &c, version).await? {
            CreditOutcome::Credited => {
                return Ok(Credited::Added {
                    period,
                    value_after: c.value_after,
                })
            }
            CreditOutcome::Duplicate => return Ok(Credited::Duplicate { period }),
            CreditOutcome::Contended => {
                tokio::time::sleep(Duration::from_millis(u64::from(attempt.min(8)) * 5)).await;
            }
        }
    }
    Err(ServiceError::Contended {
        attempts: MAX_ATTEMPTS,
    })
}

/// Freezes the period of `board` that ended last before `now` (LB-5): its final
/// snapshot, ranked as of the period's end. Idempotent: a frozen period is left as it
/// is. `None` for an all-time board.
pub async fn freeze_ended<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    now: DateTime<Utc>,
) -> Result<Option<(Period, RunReport)>, ServiceError> {
    let ended = board.period_at(now).previous();
    let Some(end) = ended.end.filter(|e| *e <= now) else {
        return Ok(None);
    };
    let report = snapshot::run(store, &board.in_period(&ended), FINAL, end, PAGE_SIZE, None).await?;
    Ok(Some((ended, report)))
}
