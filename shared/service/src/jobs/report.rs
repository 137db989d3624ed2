//! What a tick did, as the `snapshot` function answers it (for the schedule's logs):
//! each snapshot run, each period closed, the rolling windows moved, the `overtaken`
//! messages sent, and the boards the catch-up is behind on.

use podium_rules::board::BoardRef;
use serde::Serialize;

use crate::boards::snapshot::layout::RunReport;

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
    pub(crate) fn new(board: &BoardRef, report: RunReport) -> Self {
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

/// What one tick did: each snapshot run, what the closes, the tournaments, the
/// rolling windows and the `overtaken` notifications did, and the boards it left
/// work on.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TickReport {
    pub runs: Vec<BoardRun>,
    /// Boards with ended periods (or window days) still to freeze and close: this tick
    /// reached its bound or found another tick at work on them; the next goes on.
    pub behind: Vec<Behind>,
    /// Periods this tick closed (after freezing them), oldest first per board.
    pub closed: Vec<PeriodClosed>,
    /// League weeks this tick closed (not those closed before).
    pub league_weeks: Vec<crate::players::leagues::WeekReport>,
    /// Tournaments this tick moved (a step taken or a prize paid).
    pub tournaments: Vec<crate::games::tournaments::TickReport>,
    /// Rolling windows this tick moved (entries changed).
    pub windows: Vec<WindowMoved>,
    /// `overtaken` messages this tick sent, per board.
    pub overtaken: Vec<OvertakenSent>,
    /// Operators' closes this tick carried a step on.
    pub actions_moved: usize,
}

/// A period a tick froze and closed, and the `period_result` messages its close sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeriodClosed {
    pub board: String,
    pub period: String,
    /// The results this close sent: `None` when the board has no reward table, or its
    /// results were sent before.
    pub results: Option<crate::boards::close::CloseReport>,
}

/// A rolling window a tick moved (MJ-20: days taken off the AMR).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WindowMoved {
    pub board: String,
    /// The last day taken off the window.
    pub through: String,
    /// Entries changed.
    pub changed: u64,
}

/// The `overtaken` messages a tick sent on one board, after its refresh.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OvertakenSent {
    pub board: String,
    /// Messages to players passed on the top of the board.
    pub top: usize,
    /// Messages to players who opted in, passed by a neighbour.
    pub neighbours: usize,
}

/// A board the catch-up is behind on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Behind {
    pub board: String,
    /// The next period (or window day) to do.
    pub next: String,
    /// Whether another tick is at work on it now.
    pub busy: bool,
}
