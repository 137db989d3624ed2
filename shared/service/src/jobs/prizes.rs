//! Defined boards' ended periods (LB-5, BD-9): every tick's catch-up (after the
//! built-in boards') freezes each ended period of a defined board with periods (a
//! cron, a day, a week, a window) into its final snapshot, as a built-in period
//! board's, and when the board pays prizes closes it through the period-reward path
//! ([`crate::boards::close`]): every ranked player gets their `period_result` message,
//! the places the prize table names with their points and Jokers to claim (exactly
//! once, GM-3), oldest period first, each once.
//!
//! - Which table: the one of the newest version written before the period ended
//!   ([`crate::boards::defined::Known::prizes_at_end`]): an edit during the event
//!   counts, one after its end does not.
//! - A result of the period arriving after its freeze began counts on the player's
//!   entry, not on the period's results (as on a built-in period board, LB-5); a
//!   refresh of the period never replaces its final snapshot (the pointer's
//!   publication keeps a `final`, [`crate::boards::snapshot::write`]).
//! - Progress: `PERIODS#{board}` / `CLOSED` holds the last period closed and its end
//!   (`{"through": "window", "end": "…"}`), written conditionally on the version read,
//!   so concurrent ticks close each period once; before the first, the board's
//!   creation. A freeze or close cut short by the tick's budget is resumed by the next
//!   tick (each under its own records).
//! - A retired board is fed no more and its prizes are no longer paid: retiring an
//!   event before its end cancels its prizes. A period that ended before the
//!   retirement is still closed, also when the retirement came within the minute of
//!   grace before the tick's close: the board stays in its game's list of boards
//!   closing until every such period is.
//! - Cost: per tick, one Query of the games' active definitions and one read of the
//!   record of each active board with periods; per ended period, one Query of its
//!   definition (read afresh: a change written seconds before the end counts), its
//!   freeze, and with prizes its close.

use chrono::{DateTime, Utc};
use podium_rules::board::definition::{DefinedPeriod, Schedule};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::period_reward::RewardTable;
use podium_store::{BoardStore, ItemKey, ItemStore, SettleStore};
use serde::{Deserialize, Serialize};

use super::report::{Behind, BoardRun, PeriodClosed, TickReport};
use crate::boards::close;
use crate::boards::defined::Known;
use crate::budget::Budget;
use crate::engine::defined::{Feeding, GameBoards};
use crate::error::ServiceError;

/// A defined board's progress (`PERIODS#{board}` / `CLOSED`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct ClosedThrough {
    /// The last period closed; absent before the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    through: Option<String>,
    /// Its end (UTC), or the board's creation before the first: the next period is
    /// the one that holds this instant or follows it.
    end: DateTime<Utc>,
}

fn record_key(board: &str) -> ItemKey {
    ItemKey::new(format!("PERIODS#{board}"), "CLOSED")
}

async fn read_record<S: ItemStore + ?Sized>(
    store: &S,
    key: &ItemKey,
) -> Result<Option<(ClosedThrough, u64)>, ServiceError> {
    let Some(item) = store.get_item(key, true).await? else {
        return Ok(None);
    };
    let record = serde_json::from_slice(&item.body)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(&key.pk, e)))?;
    Ok(Some((record, item.version)))
}

/// The period of `schedule` that holds `at` or is the first after it: a cron period,
/// or a window not ended by then; `None` for an all-time board (it never ends) and
/// after a window.
fn period_from(schedule: &Schedule, at: DateTime<Utc>) -> Option<DefinedPeriod> {
    match schedule {
        Schedule::AllTime => None,
        Schedule::Window { end, .. } if at >= *end => None,
        Schedule::Window { .. } => schedule.period_named("window").ok(),
        Schedule::Cron { .. } | Schedule::Daily { .. } | Schedule::Weekly { .. } => {
            schedule.period_at(at).ok().flatten()
        }
    }
}

/// Freezes the ended periods of every active defined board with periods (in any
/// version results still meet), closing those with prizes,, within `budget`, noting what it did in
/// `report`. A board that fails does not keep the others from theirs: the first
/// failure is returned after them (at once when the store does not answer).
pub(super) async fn catch_up<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    at: DateTime<Utc>,
    grace: chrono::Duration,
    per_tick: usize,
    budget: Budget,
    report: &mut TickReport,
) -> Result<(), ServiceError> {
    let mut failed: Option<ServiceError> = None;
    for listed in crate::engine::defined::all_in_force(store).await? {
        let Some(game) = Game::ALL.into_iter().find(|g| g.id() == listed.game) else {
            continue;
        };
        for (feeding, retired) in to_close(&listed) {
            let caught_up =
                catch_up_board(store, game, &feeding.id, at, (grace, per_tick), budget, report).await;
            let done = match caught_up {
                Ok(done) => done,
                Err(e) if e.is_unavailable() => return Err(e),
                Err(e) => {
                    tracing::error!(board = %feeding.id, error = %e, "closing a defined board's period failed; the other boards go on");
                    failed.get_or_insert(e);
                    false
                }
            };
            if retired && done {
                crate::boards::definitions::closed_after_retirement(store, game.id(), &feeding.id).await?;
            }
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The first instant after `after` at which a tick would close a period of an active
/// defined board with prizes (its end plus `grace`), if any: what a test clock runs a
/// tick at ([`super::schedule::run_between`]). Reads the games' active definitions
/// (one Query).
pub(crate) async fn next_due<S: ItemStore + ?Sized>(
    store: &S,
    after: DateTime<Utc>,
    grace: chrono::Duration,
) -> Result<Option<DateTime<Utc>>, ServiceError> {
    let mut due: Option<DateTime<Utc>> = None;
    for listed in crate::engine::defined::all_in_force(store).await? {
        for (f, _) in to_close(&listed) {
            let from = after - grace;
            let Some(d) = f.at(from).or_else(|| f.versions.first().map(|v| &v.definition)) else {
                continue;
            };
            if let Some(end) = period_from(&d.schedule, from).and_then(|p| p.end) {
                let at = end + grace;
                if at > after && due.is_none_or(|d| at < d) {
                    due = Some(at);
                }
            }
        }
    }
    Ok(due)
}

/// The last period closed of each defined board the ticks close, as the jobs'
/// status shows it: (board, period; `None` before its first).
pub(crate) async fn closed_through<S: ItemStore + ?Sized>(
    store: &S,
) -> Result<Vec<(String, Option<String>)>, ServiceError> {
    let mut out = Vec::new();
    for listed in crate::engine::defined::all_in_force(store).await? {
        for (f, _) in to_close(&listed) {
            let through = read_record(store, &record_key(&f.id))
                .await?
                .and_then(|(r, _)| r.through);
            out.push((f.id.clone(), through));
        }
    }
    Ok(out)
}

/// The boards of one game whose ended periods the ticks freeze and close: its active
/// definitions with periods, then its retired boards still closing (`true`).
fn to_close(listed: &GameBoards) -> impl Iterator<Item = (&Feeding, bool)> {
    let active = listed
        .active
        .iter()
        .filter(|f| has_periods(f))
        .map(|f| (f, false));
    active.chain(listed.closing.iter().map(|f| (f, true)))
}

/// Whether a version results still meet has periods that end (a cron, a day, a week,
/// a window): each is frozen when it ends (LB-5), and closed with its prizes if any.
fn has_periods(f: &Feeding) -> bool {
    f.versions
        .iter()
        .any(|v| v.definition.schedule != Schedule::AllTime)
}

/// One board's ended periods (each `grace` after its end), oldest first, at most
/// `per_tick`: each frozen, closed with its prize table (none: nothing to send), then
/// recorded closed. True when nothing is left to close of a retired board (every
/// period that ended before its retirement is closed, BD-9), or of one that is gone.
async fn catch_up_board<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    game: Game,
    id: &str,
    at: DateTime<Utc>,
    (grace, per_tick): (chrono::Duration, usize),
    budget: Budget,
    report: &mut TickReport,
) -> Result<bool, ServiceError> {
    let key = record_key(id);
    let mut known: Option<std::sync::Arc<Known>> = None;
    let (mut record, mut version) = match read_record(store, &key).await? {
        Some(r) => r,
        None => {
            // The first time: periods from the board's creation on.
            let Some(k) = crate::boards::defined::resolve(store, id).await? else {
                return Ok(true);
            };
            let created = k.versions[0].written_at;
            known = Some(k);
            (
                ClosedThrough {
                    through: None,
                    end: created,
                },
                0,
            )
        }
    };
    let mut done = 0;
    loop {
        let k = match &known {
            Some(k) => k.clone(),
            None => {
                // This process's copy: the schedule, to find the period due (the
                // copy a close pays from is read afresh below).
                let Some(k) = crate::boards::defined::resolve(store, id).await? else {
                    return Ok(true);
                };
                k
            }
        };
        let schedule = &k.in_force_at(record.end).definition.schedule;
        let Some(period) = period_from(schedule, record.end) else {
            return Ok(k.head.retired_at.is_some());
        };
        if k.retired_before_end(&period) {
            return Ok(true);
        }
        let Some(end) = period.end.filter(|end| *end + grace <= at) else {
            return Ok(false);
        };
        let behind = |busy: bool| Behind {
            board: id.to_string(),
            next: period.id.clone(),
            busy,
        };
        if done == per_tick || (done > 0 && budget.expired()) {
            report.behind.push(behind(false));
            return Ok(false);
        }
        let board = BoardRef {
            board: id.to_string(),
            period: period.id.clone(),
        };
        // The table paid, read now (not this process's copy): an edit or a
        // retirement written just before the end counts (BD-9).
        let Some(k) = crate::boards::defined::resolve_fresh(store, id).await? else {
            return Ok(true);
        };
        if k.retired_before_end(&period) {
            return Ok(true);
        }
        known = Some(k.clone());
        let prizes = k.prizes_at_end(&period);
        let mut results = None;
        // Frozen when it ends, as a built-in period board (LB-5): its pages read the
        // final snapshot from then on, a late result counts on the entry only.
        let frozen = crate::boards::periods::freeze_board(store, &board, end, at, budget).await?;
        let (busy, published) = (frozen.busy, frozen.complete);
        report.runs.push(BoardRun::new(&board, frozen));
        if !published {
            report.behind.push(behind(busy));
            return Ok(false);
        }
        if !prizes.is_empty() {
            let table = RewardTable::of_prizes(prizes);
            match close::close(store, game, &board, Some(&table), at, budget).await? {
                Some(closed) if closed.done => {
                    if !closed.already_done {
                        tracing::info!(board = id, period = %period.id, sent = closed.sent, rewarded = closed.rewarded, reward_points = closed.reward_points, "defined board's period closed");
                        results = Some(closed);
                    }
                }
                _ => {
                    report.behind.push(behind(false));
                    return Ok(false);
                }
            }
        }
        let next = ClosedThrough {
            through: Some(period.id.clone()),
            end,
        };
        let body = serde_json::to_vec(&next).unwrap_or_default();
        if store.put_item_if(&key, &body, version).await? {
            version += 1;
            record = next;
        } else {
            // Another tick recorded a close meanwhile: go on from its record.
            match read_record(store, &key).await? {
                Some((r, v)) => (record, version) = (r, v),
                None => return Ok(false),
            }
        }
        report.closed.push(PeriodClosed {
            board: id.to_string(),
            period: period.id.clone(),
            results,
        });
        done += 1;
    }
}
