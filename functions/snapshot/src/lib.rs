//! `snapshot`: on an EventBridge Scheduler schedule, materialises the ranked pages of
//! the live boards (LB-5). The schedule passes its scheduled time, which names the
//! snapshot: a retried invocation resumes the same snapshot instead of starting another.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::snapshot::PAGE_SIZE;
use podium_service::snapshot::{self, RunReport};
use podium_service::ServiceError;
use podium_store::{BoardStore, ItemStore};
use serde::{Deserialize, Serialize};

/// The schedule's input: `{"scheduled_time": "<aws.scheduler.scheduled-time>"}`.
#[derive(Debug, Clone, Deserialize)]
pub struct ScheduledRun {
    /// The scheduled instant (RFC 3339, UTC); names the snapshot and is its `as_of`.
    pub scheduled_time: DateTime<Utc>,
}

/// What the run did, as the function's response (for the schedule's logs).
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub board: &'static str,
    pub snapshot: String,
    pub pages_written: u32,
    pub pages_total: u32,
    pub complete: bool,
    pub already_complete: bool,
}

/// Refreshes the Seega board's snapshot for `run`. Errors are transient (store,
/// contention): the schedule's retry resumes the same snapshot.
pub async fn handle<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    run: ScheduledRun,
) -> Result<RunSummary, ServiceError> {
    let id = snapshot::id_for(run.scheduled_time);
    let RunReport {
        pages_written,
        pages_total,
        complete,
        already_complete,
        ..
    } = snapshot::run(
        store,
        &BoardRef::all_time(Game::Seega.id()),
        &id,
        run.scheduled_time,
        PAGE_SIZE,
        None,
    )
    .await?;
    tracing::info!(snapshot = %id, pages_written, pages_total, complete, already_complete, "snapshot run");
    Ok(RunSummary {
        board: Game::Seega.id(),
        snapshot: id,
        pages_written,
        pages_total,
        complete,
        already_complete,
    })
}
