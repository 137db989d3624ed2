//! Scheduled snapshot jobs (LB-5), what the `snapshot` function and `podium snapshot` run.
//!
//! - `refresh` (every 5 minutes): materialises the ranked pages of every live board
//!   (content-defined pages, only those that changed written:
//!   [`snapshot::layout::Paging::content_defined`]): the all-time boards and the current
//!   period of each period board of [`BOARDS`], then the boards refreshed only when
//!   changed (the level time rankings) that changed since their last snapshot
//!   ([`crate::engine::changes`]): a quiet level costs nothing.
//! - `refresh` also moves the tournaments along first ([`crate::games::tournaments::tick`]):
//!   starts or cancels them, closes them, fixes their winners, pays their prizes.
//! - Every tick first catches up on the periods (the `freeze` schedule, just after
//!   local midnight, runs only this): every period of every period board that has
//!   ended and is not closed yet is frozen into its final snapshot and closed (its
//!   reward table's results, its league's week), oldest first, each once, at most
//!   [`PERIODS_PER_TICK`] a board and tick; and each rolling board's window moves over
//!   every day that left it (MJ-20). A tick that runs hours or a year late, or not at
//!   all for a while, leaves nothing behind: the next ones go on from the last period
//!   closed ([`periods::closed_through`]).
//!
//! The schedule passes its scheduled time, the ticks' clock. Every refresh has a
//! snapshot id of its own, with a number the store issues ([`identity`]): a retried
//! invocation of the same scheduled time resumes the same refresh instead of
//! starting another ([`handle`]), and finished work is never redone; a new request
//! ([`handle_request`]: `podium snapshot`, a test clock's move) is a new refresh
//! whatever its clock shows, so it never answers with an earlier refresh's snapshot.
//! A period's freeze is named by its period (`final`): any tick resumes it. Ticks
//! that run at once (a retry overlapping the next tick) meet in the work's own
//! records: one finds another at work on a snapshot or a period ([`RunReport::busy`])
//! and leaves it to it, succeeding; only real failures (the store) fail a tick.
//!
//! Work is recorded done only after its effect: a snapshot run is `complete` once its
//! pointer is published ([`snapshot::write::run_sequenced`]); a period is closed
//! ([`periods::mark_closed`]) only once its final snapshot is published and its close
//! (results, league week) has run to the end.
//!
//! Every job works in bounded steps within the tick's budget ([`handle_within`],
//! [`crate::budget::Budget`]: the invocation's deadline less 20 s): a refresh or a
//! freeze a chunk of pages at a time, a close a chunk of results, a league's week a
//! cohort. A job that reaches the deadline saves its progress and stops; the next
//! tick resumes it: a refresh left unpublished under the same snapshot id
//! ([`open_runs`]), a freeze under `final`, a close from its progress. The catch-up
//! takes at most half the time, operators' closes under way are carried a step on
//! ([`crate::operators::periods::carry_on`]), and the refreshes share the rest,
//! boards with a refresh under way first. [`status`] is what operators see of it.

pub mod identity;
pub mod open_runs;
mod prizes;
pub mod report;
pub mod schedule;

use crate::boards::close;
use crate::boards::periods;
use crate::boards::snapshot::{self, layout::Paging, layout::RunReport};
use crate::budget::Budget;
use crate::engine::changes;
use crate::error::ServiceError;
use chrono::{DateTime, Duration, Utc};
use futures::stream::{self, StreamExt};
use identity::{Invocation, RefreshId};
use podium_rules::board::{BoardDef, BoardRef, Refresh, BOARDS};
use podium_rules::period::{Period, PeriodKind};
use podium_rules::period_reward::RewardTables;
use podium_rules::record::policy::RecordPolicy;
use podium_rules::snapshot::PAGE_SIZE;
use podium_store::{BoardStore, ItemStore, PeriodStore, SettleStore};
pub use report::{Behind, BoardRun, OvertakenSent, PeriodClosed, TickReport, WindowMoved};
use serde::{Deserialize, Serialize};

/// The schedule's input: `{"job": "refresh" | "freeze", "scheduled_time": "<aws.scheduler.scheduled-time>"}`;
/// `"probe"` is the pre-traffic hook's (functions/pre-traffic-hook).
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
    /// No work: an empty report at once, nothing read or written. A new version of
    /// the snapshot function answers it before it takes the schedules' ticks.
    Probe,
}

/// Boards refreshed [`Refresh::WhenChanged`] one tick snapshots at most (the least
/// recently changed first; the others keep their marks for the next tick).
pub const CHANGED_PER_TICK: usize = 2_000;

/// Changed boards one tick snapshots at a time.
pub const CHANGED_IN_FLIGHT: usize = 8;

/// What the ticks take from configuration (read once at start-up).
#[derive(Debug, Clone, Default)]
pub struct TickSettings {
    /// The period boards' reward tables, paid when a period closes (`PODIUM_PERIOD_REWARDS`).
    pub rewards: RewardTables,
    /// The records' policy (`PODIUM_MAX_RECORD_AGE_DAYS` and the others of
    /// [`crate::config::record_policy`]): how old a record may be bounds how far back
    /// the first catch-up ever looks for periods and window days; a restore the ticks
    /// carry on settles the held records by it.
    pub records: RecordPolicy,
}

impl From<RewardTables> for TickSettings {
    fn from(rewards: RewardTables) -> Self {
        TickSettings {
            rewards,
            ..TickSettings::default()
        }
    }
}

/// Periods of one board one tick freezes and closes at most (the oldest first): a
/// month of days. More wait for the next tick ([`TickReport::behind`]).
pub const PERIODS_PER_TICK: usize = 31;

/// How long after a period's end it is frozen: the records of its last seconds
/// still on their way (the `freeze` schedule runs a minute after local midnight).
pub const FREEZE_GRACE: Duration = Duration::minutes(1);

/// The scheduled jobs' status, for operators (`GET /v1/operator/jobs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct JobsStatus {
    /// The refreshes begun and not published yet, resumed by the next ticks
    /// ([`open_runs`]): board, period, snapshot id, the instant it snapshots, pages so far.
    pub refreshes: Vec<open_runs::OpenRun>,
    /// Each period board's last period frozen and closed in order (absent before its
    /// first), then each active defined board's with prizes (BD-9): a board whose
    /// period ended more than a tick ago is behind.
    pub closed_through: Vec<ClosedThrough>,
    /// The results jobs could not apply and left out for review
    /// ([`crate::engine::unapplied`]).
    pub unapplied: Vec<crate::engine::unapplied::Recorded>,
    /// Operators' closes, under way or done
    /// ([`crate::operators::periods::CloseAction`]).
    pub actions: Vec<crate::operators::periods::CloseAction>,
    /// Operators' suspensions, restores and deletions under way
    /// ([`crate::operators::player_actions`]).
    pub player_actions: Vec<crate::operators::player_actions::PlayerAction>,
    /// Closes' dry runs under way or finished lately, without their listed results
    /// ([`crate::operators::dry_runs`]).
    pub dry_runs: Vec<crate::operators::dry_runs::DryRun>,
}

/// A period board's last period closed, in [`JobsStatus`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ClosedThrough {
    pub board: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<String>,
}

/// The scheduled jobs' status: one Query of the refreshes under way, one read per
/// period board, one Query of the games' active definitions and one read per defined
/// board with prizes, one Query of the results left out. Errors: the store's.
pub async fn status<S: ItemStore + ?Sized>(store: &S) -> Result<JobsStatus, ServiceError> {
    let mut closed_through = Vec::new();
    for def in BOARDS
        .iter()
        .filter(|d| d.period != PeriodKind::AllTime && d.window_days.is_none())
    {
        let (through, _) = periods::closed_through(store, def).await?;
        closed_through.push(ClosedThrough {
            board: def.id.to_string(),
            period: through.map(|p| p.id),
        });
    }
    // The defined boards with prizes (BD-9), after the built-in ones.
    for (board, period) in prizes::closed_through(store).await? {
        closed_through.push(ClosedThrough { board, period });
    }
    Ok(JobsStatus {
        refreshes: open_runs::list(store).await?,
        closed_through,
        unapplied: crate::engine::unapplied::list(store).await?,
        actions: crate::operators::periods::actions(store).await?,
        player_actions: crate::operators::player_actions::list(store).await?,
        dry_runs: crate::operators::dry_runs::list(store).await?,
    })
}

/// Runs one scheduled tick over every board (the `snapshot` function). Errors are
/// real failures (the store): the schedule's retry, with the same scheduled time,
/// resumes the same snapshots ([`identity::Invocation::Scheduled`]); a tick that
/// meets another succeeds.
pub async fn handle<S: podium_store::Store + ?Sized>(
    store: &S,
    run: ScheduledRun,
    settings: &TickSettings,
) -> Result<TickReport, ServiceError> {
    tick(store, run, settings, Invocation::Scheduled, Budget::unbounded()).await
}

/// [`handle`] within `budget` (the `snapshot` function: its invocation's deadline):
/// every job stops at a step's end once the deadline has passed, its progress saved,
/// and the next tick resumes it ([`open_runs`], the close's progress, the catch-up's
/// record). The catch-up takes at most half the time left; the refreshes share the
/// rest, boards with a refresh under way first. Errors as [`handle`]'s.
pub async fn handle_within<S: podium_store::Store + ?Sized>(
    store: &S,
    run: ScheduledRun,
    settings: &TickSettings,
    budget: Budget,
) -> Result<TickReport, ServiceError> {
    tick(store, run, settings, Invocation::Scheduled, budget).await
}

/// Runs one tick at `run`'s time as a new request (`podium snapshot`, a test clock's
/// move): its refresh is a new snapshot even when an earlier tick ran at the same
/// instant ([`identity::Invocation::Request`]). Errors as [`handle`]'s.
pub async fn handle_request<S: podium_store::Store + ?Sized>(
    store: &S,
    run: ScheduledRun,
    settings: &TickSettings,
) -> Result<TickReport, ServiceError> {
    tick(store, run, settings, Invocation::Request, Budget::unbounded()).await
}

async fn tick<S: podium_store::Store + ?Sized>(
    store: &S,
    run: ScheduledRun,
    settings: &TickSettings,
    invocation: Invocation,
    budget: Budget,
) -> Result<TickReport, ServiceError> {
    let at = run.scheduled_time;
    let mut report = TickReport::default();
    if run.job == Job::Probe {
        return Ok(report);
    }
    // Every tick catches up on the periods first (within half the time left, so a
    // large close leaves the refreshes theirs); a failure there keeps no board from
    // being refreshed, and fails the tick after them.
    let share = if run.job == Job::Refresh {
        budget.share(2)
    } else {
        budget
    };
    let mut caught_up = catch_up(store, at, settings, share, &mut report).await;
    // Operators' actions accepted and not done yet go on (after the catch-up, which
    // their closes may be waiting for), unless the store is not answering.
    if !caught_up.as_ref().is_err_and(ServiceError::is_unavailable) {
        if let Err(e) = carry_on_actions(store, settings, at, budget.share(2), &mut report).await {
            tracing::error!(error = %e, "carrying operators' actions on failed; the refreshes go on");
            if caught_up.is_ok() {
                caught_up = Err(e);
            }
        }
    }
    if run.job == Job::Refresh {
        // Tournaments move first, so a final standing is snapshotted in the same tick.
        let (moved, failed) = crate::games::tournaments::tick_within(store, at, budget.share(2)).await;
        for t in moved {
            if !t.steps.is_empty() || t.prizes_paid > 0 {
                tracing::info!(tournament = %t.tournament_id, steps = ?t.steps, prizes_paid = t.prizes_paid, done = t.done, "tournament moved");
                report.tournaments.push(t);
            }
        }
        if let Some(e) = failed {
            if e.is_unavailable() {
                return Err(e);
            }
            if caught_up.is_ok() {
                caught_up = Err(e);
            }
        }
        let refresh_id = identity::refresh(store, at, invocation).await?;
        refresh(store, at, &refresh_id, budget, &mut report).await?;
    }
    caught_up?;
    Ok(report)
}

/// Carries operators' actions under way one step on within `budget`: their closes,
/// the closes' dry runs, the definitions' previews (BD-13), then their suspensions, restores and deletions; how many it
/// moved is added to `report`. A failure of one kind leaves the others to go on, but
/// a store that does not answer stops them (each would wait for its timeouts). Errors:
/// the first failure.
async fn carry_on_actions<S: podium_store::Store + ?Sized>(
    store: &S,
    settings: &TickSettings,
    at: DateTime<Utc>,
    budget: Budget,
    report: &mut TickReport,
) -> Result<(), ServiceError> {
    let mut failed: Option<ServiceError> = None;
    let mut count = |moved: Result<usize, ServiceError>, failed: &mut Option<ServiceError>| match moved {
        Ok(n) => {
            report.actions_moved += n;
            true
        }
        Err(e) => {
            let down = e.is_unavailable();
            failed.get_or_insert(e);
            !down
        }
    };
    let going = count(
        crate::operators::periods::carry_on(store, &settings.rewards, at, budget).await,
        &mut failed,
    ) && count(
        crate::operators::dry_runs::carry_on(store, &settings.rewards, at, budget).await,
        &mut failed,
    ) && count(
        crate::operators::previews::carry_on(store, at, budget).await,
        &mut failed,
    );
    if going {
        count(
            crate::operators::player_actions::carry_on(store, &settings.records, at, budget).await,
            &mut failed,
        );
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// LB-5: snapshots every board refreshed on every tick (the current period of each),
/// sending each one's `overtaken` messages ([`crate::players::overtaken`]), then the boards
/// marked changed since their last snapshot ([`crate::engine::changes`]). Within
/// `budget`: the boards with a refresh under way come first ([`open_runs`]), and each
/// board takes an equal share of the time left, so a board too large for one call
/// cannot starve the others; time left over goes to the boards still unpublished.
/// A notification that fails does not keep the other boards from being refreshed:
/// the tick then fails after them, and its retry (or the next tick) sends what is left.
async fn refresh<S: BoardStore + ItemStore + PeriodStore + SettleStore + ?Sized>(
    store: &S,
    at: DateTime<Utc>,
    refresh_id: &RefreshId,
    budget: Budget,
    tick: &mut TickReport,
) -> Result<(), ServiceError> {
    let mut failed: Option<ServiceError> = None;
    let mut boards: Vec<BoardRef> = BOARDS
        .iter()
        .filter(|d| d.refresh == Refresh::EveryTick)
        .map(|def| def.in_period(&def.period_at(at)))
        .collect();
    // The refreshes under way, read once (one Query) for every board of the tick. One
    // of an earlier period of a board refreshed every tick is over (that period's
    // freeze took its place): forgotten.
    let mut under_way: std::collections::HashMap<String, (open_runs::OpenRun, u64)> = Default::default();
    for (open, version) in open_runs::list_with_versions(store).await? {
        let board = open.board_ref();
        let past = podium_rules::board::board_def(&open.board)
            .is_some_and(|d| d.refresh == Refresh::EveryTick)
            && !boards.contains(&board);
        if past {
            open_runs::forget(store, &board, version).await?;
        } else {
            under_way.insert(board.key(), (open, version));
        }
    }
    // Late boards first (a stable sort keeps the definitions' order otherwise).
    boards.sort_by_key(|b| !under_way.contains_key(&b.key()));
    let mut unpublished: Vec<BoardRef> = Vec::new();
    let count = boards.len() as u32;
    for (i, board) in boards.into_iter().enumerate() {
        let share = budget.share(count - i as u32);
        let open = under_way.remove(&board.key());
        let report = match refresh_board(store, &board, open, refresh_id, at, share).await {
            Ok(report) => report,
            Err(e) => {
                board_failed(&board, e, &mut failed)?;
                continue;
            }
        };
        if report.complete {
            if let Err(e) = notify(store, &board, &report.id, at, tick).await {
                failed.get_or_insert(e);
            }
        } else if !report.busy {
            unpublished.push(board.clone());
        }
        tick.runs.push(BoardRun::new(&board, report));
    }
    // Time left over (a deadline not reached): the boards still unpublished go on.
    if budget.deadline.is_some() {
        for board in unpublished {
            if budget.expired() {
                break;
            }
            // Read again: the first pass may have left a refresh under way on it.
            let open = open_runs::get(store, &board).await?;
            let report = match refresh_board(store, &board, open, refresh_id, at, budget).await {
                Ok(report) => report,
                Err(e) => {
                    board_failed(&board, e, &mut failed)?;
                    continue;
                }
            };
            if report.complete {
                if let Err(e) = notify(store, &board, &report.id, at, tick).await {
                    failed.get_or_insert(e);
                }
            }
            tick.runs.push(BoardRun::new(&board, report));
        }
    }
    let changed = changes::changed(store, CHANGED_PER_TICK).await?;
    let under_way = &under_way;
    let runs = stream::iter(changed)
        .map(|c| async move {
            if budget.expired() {
                // Their marks stay: the next tick refreshes them.
                return Ok::<_, (BoardRef, ServiceError)>(None);
            }
            let open = under_way.get(&c.board.key()).cloned();
            let run = async {
                let report = refresh_board(store, &c.board, open, refresh_id, at, budget).await?;
                if report.complete {
                    if let Some(from) = report.read_from_ms {
                        changes::clear(store, &c, from).await?;
                    }
                }
                Ok::<_, ServiceError>(Some(BoardRun::new(&c.board, report)))
            };
            run.await.map_err(|e| (c.board.clone(), e))
        })
        .buffer_unordered(CHANGED_IN_FLIGHT);
    let mut runs = std::pin::pin!(runs);
    while let Some(r) = runs.next().await {
        match r {
            Ok(run) => tick.runs.extend(run),
            Err((board, e)) => board_failed(&board, e, &mut failed)?,
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A board whose refresh failed: the others go on (its refresh is resumed by the next
/// tick) and the tick fails after them with the first failure; but a store that does
/// not answer stops the tick at once (each board would wait for its timeouts).
fn board_failed(
    board: &BoardRef,
    e: ServiceError,
    failed: &mut Option<ServiceError>,
) -> Result<(), ServiceError> {
    if e.is_unavailable() {
        return Err(e);
    }
    tracing::error!(board = %board.key(), error = %e, "refreshing a board failed; the other boards go on");
    failed.get_or_insert(e);
    Ok(())
}

/// One board's refresh within `budget`: `open`, the refresh under way on it (as read,
/// with its version), resumed (same snapshot id and `as_of`), else this tick's;
/// recorded under way when it stops unpublished, forgotten once published. A refresh
/// under way that another call published meanwhile is forgotten and this tick's
/// begins.
async fn refresh_board<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    open: Option<(open_runs::OpenRun, u64)>,
    refresh_id: &RefreshId,
    at: DateTime<Utc>,
    budget: Budget,
) -> Result<RunReport, ServiceError> {
    let paging = Paging::content_defined(PAGE_SIZE);
    let RefreshId { id, seq } = refresh_id;
    if let Some((open, version)) = open {
        let report =
            snapshot::write::run_sequenced(store, board, &open.id, open.seq, open.as_of, paging, budget, at)
                .await?;
        if report.complete {
            open_runs::forget(store, board, version).await?;
            if !report.already_complete || open.id == *id {
                return Ok(report);
            }
            // Published by an earlier call: this tick's refresh goes on below.
        } else {
            if !report.busy {
                let progress = open_runs::OpenRun {
                    pages: report.pages_total,
                    ..open
                };
                open_runs::record(store, &progress, version).await?;
            }
            return Ok(report);
        }
    }
    let report = snapshot::write::run_sequenced(store, board, id, *seq, at, paging, budget, at).await?;
    if !report.complete && !report.busy {
        let open = open_runs::OpenRun {
            board: board.board.clone(),
            period: board.period.clone(),
            id: id.clone(),
            seq: *seq,
            as_of: at,
            pages: report.pages_total,
        };
        // Only if none is recorded: a concurrent tick's run, recorded first, is the
        // one resumed.
        open_runs::record(store, &open, 0).await?;
    }
    Ok(report)
}

/// Sends `board`'s `overtaken` messages after its snapshot `snapshot` was published,
/// noting them in `tick`. Errors: the notification's (the caller goes on with the
/// other boards).
async fn notify<S: BoardStore + ItemStore + PeriodStore + SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    snapshot: &str,
    at: DateTime<Utc>,
    tick: &mut TickReport,
) -> Result<(), ServiceError> {
    match crate::players::overtaken::notify(store, board, snapshot, at).await {
        Ok(n) if n.top + n.neighbours > 0 => {
            tracing::info!(
                board = %board.board,
                top = n.top,
                neighbours = n.neighbours,
                checked = n.checked,
                "overtaken messages sent"
            );
            tick.overtaken.push(OvertakenSent {
                board: board.board.clone(),
                top: n.top,
                neighbours: n.neighbours,
            });
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(e) => {
            tracing::error!(board = %board.board, error = %e, "sending overtaken messages failed; the other boards go on");
            Err(e)
        }
    }
}

/// The catch-up every tick starts with: each rolling board's window moved over the
/// days that left it (MJ-20), and each period board's ended periods frozen and closed
/// in order ([`catch_up_board`]). A board that fails does not keep the others from
/// their catch-up: the first failure is returned after them.
async fn catch_up<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    at: DateTime<Utc>,
    settings: &TickSettings,
    budget: Budget,
    report: &mut TickReport,
) -> Result<(), ServiceError> {
    let lookback = u64::try_from(settings.records.max_record_age_days.max(1) + 1).unwrap_or(31);
    let mut failed: Option<ServiceError> = None;
    for def in &BOARDS {
        if def.window_days.is_some() {
            match periods::expire_window(store, def, at, lookback, budget).await {
                Ok(Some(w)) => {
                    if w.changed > 0 {
                        tracing::info!(board = def.id, through = %w.through, changed = w.changed, "rolling window moved");
                        report.windows.push(WindowMoved {
                            board: def.id.to_string(),
                            through: w.through.to_string(),
                            changed: w.changed,
                        });
                    }
                    if w.behind {
                        report.behind.push(Behind {
                            board: def.id.to_string(),
                            next: (w.through + chrono::Days::new(1)).to_string(),
                            busy: false,
                        });
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::error!(board = def.id, error = %e, "moving the rolling window failed; the other boards go on");
                    failed.get_or_insert(e);
                }
            }
        } else if def.period != PeriodKind::AllTime {
            if let Err(e) = catch_up_board(store, def, at, settings, lookback, budget, report).await {
                tracing::error!(board = def.id, error = %e, "closing a period failed; the other boards go on");
                failed.get_or_insert(e);
            }
        }
    }
    // The defined boards' periods that pay prizes (BD-9).
    if let Err(e) = prizes::catch_up(store, at, FREEZE_GRACE, PERIODS_PER_TICK, budget, report).await {
        failed.get_or_insert(e);
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Whether `period` is over and past [`FREEZE_GRACE`] at `at`.
fn due(period: &Period, at: DateTime<Utc>) -> bool {
    period.end.is_some_and(|end| end + FREEZE_GRACE <= at)
}

/// Freezes and closes `def`'s ended periods not closed yet, oldest first, at most
/// [`PERIODS_PER_TICK`]: each frozen ([`periods::freeze`]), then closed
/// ([`close`]), then recorded as closed ([`periods::mark_closed`]), so a period
/// is closed only after every period before it, and a tick that stops anywhere (a
/// crash, its bound, another tick at work) is resumed by the next from the record.
/// The first catch-up ever starts at the period `lookback_days` back.
#[allow(clippy::too_many_arguments)]
async fn catch_up_board<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    def: &BoardDef,
    at: DateTime<Utc>,
    settings: &TickSettings,
    lookback_days: u64,
    budget: Budget,
    report: &mut TickReport,
) -> Result<(), ServiceError> {
    let (through, mut version) = periods::closed_through(store, def).await?;
    let mut next = match through {
        Some(p) => p.next(),
        None => def.period_at(at - Duration::days(i64::try_from(lookback_days).unwrap_or(31))),
    };
    let mut done = 0;
    while due(&next, at) {
        if done == PERIODS_PER_TICK || (done > 0 && budget.expired()) {
            report.behind.push(Behind {
                board: def.id.to_string(),
                next: next.id.clone(),
                busy: false,
            });
            return Ok(());
        }
        let board = def.in_period(&next);
        if let Some(league) = podium_rules::league::league_of_board(def.id) {
            // The week takes nobody new once its freeze begins.
            crate::players::leagues::mark_frozen(store, league, &next.id, at).await?;
        }
        let frozen = periods::freeze(store, def, &next, at, budget).await?;
        let (busy, published) = (frozen.busy, frozen.complete);
        report.runs.push(BoardRun::new(&board, frozen));
        if !published {
            // Another tick is freezing it (it closes it and goes on), or the freeze
            // stopped short of publishing: the next tick goes on from here.
            report.behind.push(Behind {
                board: def.id.to_string(),
                next: next.id.clone(),
                busy,
            });
            return Ok(());
        }
        if !close(store, def, &board, &settings.rewards, at, budget, report).await? {
            // The close found the period not frozen (its final not published), or ran
            // out of time (its progress saved): it is not recorded closed, and the
            // next tick goes on with it.
            report.behind.push(Behind {
                board: def.id.to_string(),
                next: next.id.clone(),
                busy: false,
            });
            return Ok(());
        }
        if periods::mark_closed(store, def, &next, version).await? {
            version += 1;
            next = next.next();
        } else {
            // Another tick recorded a close meanwhile (of this period, or later ones):
            // go on from its record.
            let (through, v) = periods::closed_through(store, def).await?;
            version = v;
            if let Some(p) = through {
                next = p.next();
            }
        }
        done += 1;
    }
    Ok(())
}

/// Closes a frozen period within `budget`: the board's reward table's results, and
/// its league's week. `Ok(false)`: the period is not frozen (its final snapshot not
/// published), or its results are not all sent yet (out of time, the progress saved):
/// it must not be recorded closed.
#[allow(clippy::too_many_arguments)]
async fn close<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    def: &podium_rules::board::BoardDef,
    board: &BoardRef,
    rewards: &RewardTables,
    at: DateTime<Utc>,
    budget: Budget,
    report: &mut TickReport,
) -> Result<bool, ServiceError> {
    let mut results = None;
    if let Some(table) = rewards.get(def.id) {
        match close::close(store, def.game, board, Some(table), at, budget).await? {
            Some(closed) if !closed.done => {
                tracing::info!(board = def.id, period = %board.period, sent = closed.sent, ranked = closed.ranked, "period close stopped at its budget; the next tick goes on");
                return Ok(false);
            }
            Some(closed) => {
                if !closed.already_done {
                    tracing::info!(board = def.id, period = %board.period, sent = closed.sent, rewarded = closed.rewarded, reward_points = closed.reward_points, skipped = closed.skipped, "period closed");
                    results = Some(closed);
                }
            }
            None => return Ok(false),
        }
    }
    if let Some(league) = podium_rules::league::league_of_board(def.id) {
        let closed =
            crate::players::leagues::close_week_within(store, league, &board.period, at, budget).await?;
        if !closed.frozen {
            return Ok(false);
        }
        if !closed.done {
            tracing::info!(league = league.id, week = %board.period, placed = closed.placed, sent = closed.sent, "league close stopped at its budget; the next tick goes on");
            return Ok(false);
        }
        if !closed.already_done {
            tracing::info!(league = league.id, week = %board.period, placed = closed.placed, promoted = closed.promoted, relegated = closed.relegated, sent = closed.sent, "league week closed");
            report.league_weeks.push(closed);
        }
    }
    report.closed.push(PeriodClosed {
        board: def.id.to_string(),
        period: board.period.clone(),
        results,
    });
    Ok(true)
}
