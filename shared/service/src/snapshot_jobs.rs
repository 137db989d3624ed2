//! Scheduled snapshot jobs (LB-5), what the `snapshot` function and `podium snapshot` run.
//!
//! - `refresh` (every 5 minutes): materialises the ranked pages of every live board
//!   (content-defined pages, only those that changed written:
//!   [`snapshot::Paging::content_defined`]):
//!   the all-time boards and the current period of each period board.
//! - `freeze` (just after local midnight in the boards' zone): freezes each period
//!   board's period that has ended into its final snapshot, and moves each rolling
//!   board's window (MJ-20).
//!
//! The schedule passes its scheduled time, which names the refresh snapshot and is
//! the freeze's clock: a retried invocation resumes the same work instead of starting
//! another, and finished work is never redone.

use crate::error::ServiceError;
use crate::period_boards;
use crate::snapshot::{self, Paging};
use chrono::{DateTime, Utc};
use podium_rules::board::BOARDS;
use podium_rules::period::PeriodKind;
use podium_rules::snapshot::PAGE_SIZE;
use podium_store::{BoardStore, ItemStore, SettleStore};
use serde::{Deserialize, Serialize};

/// The schedule's input: `{"job": "refresh" | "freeze", "scheduled_time": "<aws.scheduler.scheduled-time>"}`.
#[derive(Debug, Clone, Deserialize)]
pub struct ScheduledRun {
    #[serde(default)]
    pub job: Job,
    /// The scheduled instant (RFC 3339, UTC).
    pub scheduled_time: DateTime<Utc>,
}

/// Which work a tick does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Job {
    #[default]
    Refresh,
    Freeze,
}

/// One board's outcome, as the function's response (for the schedule's logs).
#[derive(Debug, Clone, Serialize)]
pub struct BoardRun {
    pub board: &'static str,
    pub period: String,
    pub snapshot: String,
    pub pages_written: u32,
    /// Of which page bodies stored (the others were shared with the snapshot before).
    pub bodies_written: u32,
    pub pages_total: u32,
    pub complete: bool,
    pub already_complete: bool,
}

/// Runs one tick over every board. Errors are transient (store, contention): the
/// schedule's retry resumes the same snapshots.
pub async fn handle<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    run: ScheduledRun,
) -> Result<Vec<BoardRun>, ServiceError> {
    let mut out = Vec::new();
    for def in &BOARDS {
        let (period, report) = match run.job {
            Job::Refresh => {
                let period = def.period_at(run.scheduled_time);
                let id = snapshot::id_for(run.scheduled_time);
                let report = snapshot::run_paged(
                    store,
                    &def.in_period(&period),
                    &id,
                    run.scheduled_time,
                    Paging::content_defined(PAGE_SIZE),
                    None,
                )
                .await?;
                (period, report)
            }
            Job::Freeze if def.window_days.is_some() => {
                // MJ-20: the day that left the rolling window comes off it.
                if let Some((day, changed)) =
                    period_boards::expire_window(store, def, run.scheduled_time).await?
                {
                    tracing::info!(board = def.id, %day, changed, "rolling window moved");
                }
                continue;
            }
            Job::Freeze if def.period == PeriodKind::AllTime => continue,
            Job::Freeze => match period_boards::freeze_ended(store, def, run.scheduled_time).await? {
                Some(done) => done,
                None => continue,
            },
        };
        tracing::info!(
            board = def.id,
            period = %period.id,
            snapshot = %report.id,
            pages_written = report.pages_written,
            bodies_written = report.bodies_written,
            complete = report.complete,
            "snapshot run"
        );
        out.push(BoardRun {
            board: def.id,
            period: period.id,
            snapshot: report.id,
            pages_written: report.pages_written,
            bodies_written: report.bodies_written,
            pages_total: report.pages_total,
            complete: report.complete,
            already_complete: report.already_complete,
        });
    }
    Ok(out)
}
