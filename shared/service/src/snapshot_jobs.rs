//! Scheduled snapshot jobs (LB-5), what the `snapshot` function and `podium snapshot` run.
//!
//! - `refresh` (every 5 minutes): materialises the ranked pages of every live board
//!   (content-defined pages, only those that changed written:
//!   [`snapshot::Paging::content_defined`]): the all-time boards and the current
//!   period of each period board of [`BOARDS`], then the boards refreshed only when
//!   changed (the level time rankings) that changed since their last snapshot
//!   ([`crate::changes`]): a quiet level costs nothing.
//! - `refresh` also moves the tournaments along first ([`crate::tournaments::tick`]):
//!   starts or cancels them, closes them, fixes their winners, pays their prizes.
//! - `freeze` (just after local midnight in the boards' zone): freezes each period
//!   board's period that has ended into its final snapshot, and moves each rolling
//!   board's window (MJ-20).
//!
//! The schedule passes its scheduled time, which names the refresh snapshot and is
//! the freeze's clock: a retried invocation resumes the same work instead of starting
//! another, and finished work is never redone.

use crate::changes;
use crate::error::ServiceError;
use crate::period_boards;
use crate::period_close;
use crate::snapshot::{self, Paging, RunReport};
use chrono::{DateTime, Utc};
use futures::stream::{self, StreamExt};
use podium_rules::board::{BoardRef, Refresh, BOARDS};
use podium_rules::period::PeriodKind;
use podium_rules::period_reward::RewardTables;
use podium_rules::snapshot::PAGE_SIZE;
use podium_store::{BoardStore, ItemStore, PeriodStore, SettleStore};
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
    pub board: String,
    pub period: String,
    pub snapshot: String,
    pub pages_written: u32,
    /// Of which page bodies stored (the others were shared with the snapshot before).
    pub bodies_written: u32,
    pub pages_total: u32,
    pub complete: bool,
    pub already_complete: bool,
}

impl BoardRun {
    fn new(board: &BoardRef, report: RunReport) -> Self {
        tracing::info!(
            board = %board.board,
            period = %board.period,
            snapshot = %report.id,
            pages_written = report.pages_written,
            bodies_written = report.bodies_written,
            complete = report.complete,
            "snapshot run"
        );
        crate::telemetry::snapshot_run(report.pages_written, report.complete);
        BoardRun {
            board: board.board.clone(),
            period: board.period.clone(),
            snapshot: report.id,
            pages_written: report.pages_written,
            bodies_written: report.bodies_written,
            pages_total: report.pages_total,
            complete: report.complete,
            already_complete: report.already_complete,
        }
    }
}

/// Boards refreshed [`Refresh::WhenChanged`] one tick snapshots at most (the least
/// recently changed first; the others keep their marks for the next tick).
pub const CHANGED_PER_TICK: usize = 2_000;

/// Changed boards one tick snapshots at a time.
pub const CHANGED_IN_FLIGHT: usize = 8;

/// Runs one tick over every board. Errors are transient (store, contention): the
/// schedule's retry resumes the same snapshots.
pub async fn handle<S: BoardStore + ItemStore + PeriodStore + SettleStore + ?Sized>(
    store: &S,
    run: ScheduledRun,
    rewards: &RewardTables,
) -> Result<Vec<BoardRun>, ServiceError> {
    match run.job {
        Job::Refresh => {
            // Tournaments move first, so a final standing is snapshotted in the same tick.
            for t in crate::tournaments::tick(store, run.scheduled_time).await? {
                if !t.steps.is_empty() || t.prizes_paid > 0 {
                    tracing::info!(tournament = %t.tournament_id, steps = ?t.steps, prizes_paid = t.prizes_paid, done = t.done, "tournament moved");
                }
            }
            refresh(store, run.scheduled_time).await
        }
        Job::Freeze => freeze(store, run.scheduled_time, rewards).await,
    }
}

/// LB-5: snapshots every board refreshed on every tick (the current period of each),
/// sending each one's `overtaken` messages ([`crate::overtaken`]), then the boards
/// marked changed since their last snapshot ([`crate::changes`]). A notification that
/// fails does not keep the other boards from being refreshed: the tick then fails
/// after them, and its retry (or the next tick) sends what is left.
async fn refresh<S: BoardStore + ItemStore + PeriodStore + SettleStore + ?Sized>(
    store: &S,
    at: DateTime<Utc>,
) -> Result<Vec<BoardRun>, ServiceError> {
    let id = snapshot::id_for(at);
    let paging = Paging::content_defined(PAGE_SIZE);
    let mut out = Vec::new();
    let mut failed: Option<ServiceError> = None;
    for def in BOARDS.iter().filter(|d| d.refresh == Refresh::EveryTick) {
        let board = def.in_period(&def.period_at(at));
        let report = snapshot::run_paged(store, &board, &id, at, paging, None, at).await?;
        if report.complete {
            match crate::overtaken::notify(store, &board, &report.id, at).await {
                Ok(n) if n.top + n.neighbours > 0 => {
                    tracing::info!(
                        board = def.id,
                        top = n.top,
                        neighbours = n.neighbours,
                        checked = n.checked,
                        "overtaken messages sent"
                    );
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::error!(board = def.id, error = %e, "sending overtaken messages failed; the other boards go on");
                    failed.get_or_insert(e);
                }
            }
        }
        out.push(BoardRun::new(&board, report));
    }
    let changed = changes::changed(store, CHANGED_PER_TICK).await?;
    let runs = stream::iter(changed)
        .map(|c| {
            let id = &id;
            async move {
                let report = snapshot::run_paged(store, &c.board, id, at, paging, None, at).await?;
                if report.complete {
                    if let Some(from) = report.read_from_ms {
                        changes::clear(store, &c, from).await?;
                    }
                }
                Ok::<_, ServiceError>(BoardRun::new(&c.board, report))
            }
        })
        .buffer_unordered(CHANGED_IN_FLIGHT);
    let mut runs = std::pin::pin!(runs);
    while let Some(r) = runs.next().await {
        out.push(r?);
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Freezes each period board's ended period, and moves each rolling board's window.
/// A frozen period of a board with a reward table is then closed: its players sent
/// their results and rewards ([`period_close::close`]), and a league's week with it
/// ([`crate::leagues::close_week`]). A close that fails does not keep the other boards
/// from being frozen: the tick then fails after them, and the schedule's retry (or
/// the next tick) resumes the close.
async fn freeze<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    at: DateTime<Utc>,
    rewards: &RewardTables,
) -> Result<Vec<BoardRun>, ServiceError> {
    let mut out = Vec::new();
    let mut failed: Option<ServiceError> = None;
    for def in &BOARDS {
        if def.window_days.is_some() {
            // MJ-20: the day that left the rolling window comes off it.
            if let Some((day, changed)) = period_boards::expire_window(store, def, at).await? {
                tracing::info!(board = def.id, %day, changed, "rolling window moved");
            }
        } else if def.period != PeriodKind::AllTime {
            if let Some((period, report)) = period_boards::freeze_ended(store, def, at).await? {
                let board = def.in_period(&period);
                if report.complete {
                    if let Err(e) = close(store, def, &board, rewards, at).await {
                        tracing::error!(board = def.id, period = %period.id, error = %e, "closing the period failed; the other boards go on");
                        failed.get_or_insert(e);
                    }
                }
                out.push(BoardRun::new(&board, report));
            }
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Closes a frozen period: the board's reward table's results, and its league's week.
async fn close<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    def: &podium_rules::board::BoardDef,
    board: &BoardRef,
    rewards: &RewardTables,
    at: DateTime<Utc>,
) -> Result<(), ServiceError> {
    if let Some(table) = rewards.get(def.id) {
        if let Some(closed) = period_close::close(store, def, board, Some(table), at).await? {
            if !closed.already_done {
                tracing::info!(board = def.id, period = %board.period, sent = closed.sent, rewarded = closed.rewarded, reward_points = closed.reward_points, skipped = closed.skipped, "period closed");
            }
        }
    }
    if let Some(league) = podium_rules::league::league_of_board(def.id) {
        let closed = crate::leagues::close_week(store, league, &board.period, at).await?;
        if !closed.already_done {
            tracing::info!(league = league.id, week = %board.period, placed = closed.placed, promoted = closed.promoted, relegated = closed.relegated, sent = closed.sent, "league week closed");
        }
    }
    Ok(())
}
