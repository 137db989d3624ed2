//! The deployed schedule as instants, and running what it would have run between two
//! instants: what `podium snapshot` and `podium serve`'s test clock do locally.
//!
//! `template.yaml` schedules two jobs (LB-5, GM-2):
//! - `freeze`: daily at 00:01 local time in the period boards' zone (Europe/Bucharest),
//!   [`next_freeze`];
//! - `refresh`: every N minutes (`PODIUM_SNAPSHOT_REFRESH_MINUTES`), [`next_refresh`]
//!   (taken here as the multiples of N minutes since the Unix epoch, UTC).
//!
//! [`run_between`] runs, oldest first, the ticks whose outcome the time between two
//! instants decides: every `freeze` instant (periods, AMR window days and league weeks
//! close at the instant they would have), and the `refresh` instant right after each
//! tournament step falls due (start, end, final places; MJ-12, MJ-16) and each period
//! of a defined board with prizes ends (a minute after its end; BD-9), then the
//! catch-up and refresh at the end instant. Refresh ticks in between that would find
//! nothing due are not run: no record arrives while a test clock jumps, so they would
//! only re-snapshot unchanged boards.

use chrono::{DateTime, Duration, NaiveTime, TimeZone, Utc};
use podium_rules::board::BOARDS;
use podium_rules::period::PeriodKind;

use super::{handle_request, Job, ScheduledRun, TickReport, TickSettings};
use crate::error::ServiceError;

/// How long after local midnight the `freeze` schedule runs (template.yaml: `cron(1 0 * * ? *)`).
pub const FREEZE_AFTER_MIDNIGHT: Duration = Duration::minutes(1);

/// Catch-up ticks [`catch_up_then_refresh`] runs at most at one instant (each freezes
/// and closes up to a month of days per board); the schedule goes on at its next tick.
pub const CATCH_UP_TICKS: usize = 40;

/// `freeze` instants one [`run_between`] may span at most (a bound on the work one
/// move may ask for: about three years of days). A longer move is refused before
/// anything runs.
pub const MAX_TICKS: usize = 1_200;

/// How many `freeze` instants lie after `from` up to `to` (at most `cap` + 1 counted).
pub fn freezes_between(from: DateTime<Utc>, to: DateTime<Utc>, cap: usize) -> usize {
    let (mut t, mut n) = (from, 0);
    while n <= cap {
        t = next_freeze(t);
        if t > to {
            break;
        }
        n += 1;
    }
    n
}

/// The first `freeze` instant strictly after `after`: 00:01 local time in the zone of
/// any period board (GM-2), the earliest over their zones.
pub fn next_freeze(after: DateTime<Utc>) -> DateTime<Utc> {
    let at = NaiveTime::from_hms_opt(0, 0, 0).unwrap_or_default();
    BOARDS
        .iter()
        .filter(|d| d.period != PeriodKind::AllTime)
        .map(|d| d.zone)
        .map(|zone| {
            let mut day = after.with_timezone(&zone).date_naive();
            loop {
                // Local midnight, or the first instant after it on a day without one.
                let midnight = zone
                    .from_local_datetime(&day.and_time(at))
                    .earliest()
                    .map(|m| m.with_timezone(&Utc))
                    .unwrap_or_else(|| day.and_time(at).and_utc());
                let run = midnight + FREEZE_AFTER_MIDNIGHT;
                if run > after {
                    return run;
                }
                day = day.succ_opt().unwrap_or(day);
            }
        })
        .min()
        .unwrap_or(after + Duration::days(1))
}

/// The first `refresh` instant at or after `at`, every `every` (a multiple of it since
/// the Unix epoch; `every` of at least a second).
pub fn next_refresh(at: DateTime<Utc>, every: std::time::Duration) -> DateTime<Utc> {
    let step = i64::try_from(every.as_millis()).unwrap_or(i64::MAX).max(1_000);
    let ms = at.timestamp_millis();
    let next = ms.div_euclid(step) * step + if ms.rem_euclid(step) == 0 { 0 } else { step };
    DateTime::from_timestamp_millis(next).unwrap_or(at)
}

/// One tick run by [`run_between`] or [`catch_up_then_refresh`]: its job, its
/// scheduled instant, what it did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ScheduledTick {
    pub job: Job,
    pub scheduled_time: DateTime<Utc>,
    pub report: TickReport,
}

/// At one instant: `freeze` ticks until no ended period is left (at most
/// [`CATCH_UP_TICKS`], or until another tick is found at work), then, when `refresh`,
/// one `refresh` tick. Each is a new request ([`handle_request`]): its refresh is a
/// new snapshot, even at an instant an earlier call ran at. What each did, in order.
pub async fn catch_up_then_refresh<S: podium_store::Store + ?Sized>(
    store: &S,
    at: DateTime<Utc>,
    settings: &TickSettings,
    refresh: bool,
) -> Result<Vec<ScheduledTick>, ServiceError> {
    let mut out = Vec::new();
    for _ in 0..CATCH_UP_TICKS {
        let run = ScheduledRun {
            job: Job::Freeze,
            scheduled_time: at,
        };
        let report = handle_request(store, run, settings).await?;
        let (done, busy) = (report.behind.is_empty(), report.behind.iter().any(|b| b.busy));
        out.push(ScheduledTick {
            job: Job::Freeze,
            scheduled_time: at,
            report,
        });
        if done || busy {
            break;
        }
    }
    if refresh {
        let run = ScheduledRun {
            job: Job::Refresh,
            scheduled_time: at,
        };
        let report = handle_request(store, run, settings).await?;
        out.push(ScheduledTick {
            job: Job::Refresh,
            scheduled_time: at,
            report,
        });
    }
    Ok(out)
}

/// When the next step falls due after `t` that only a tick decides: a tournament's
/// (MJ-12, MJ-16), or a defined board's period with prizes ending (BD-9).
async fn next_due<S: podium_store::Store + ?Sized>(
    store: &S,
    t: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, ServiceError> {
    let tournament = crate::games::tournaments::next_due(store, t).await?;
    let prizes = super::prizes::next_due(store, t, super::FREEZE_GRACE).await?;
    Ok(match (tournament, prizes) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}

/// Runs what the schedule would have run after `from` up to `to` (see the module's
/// docs), oldest first; `at_tick` is told each instant before its ticks run (a test
/// clock moves there). Errors: the store's, or [`ServiceError::BadRequest`] (field
/// `to`) when `to` is not after `from` or the move spans more than [`MAX_TICKS`]
/// freezes: then nothing ran.
pub async fn run_between<S: podium_store::Store + ?Sized>(
    store: &S,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    settings: &TickSettings,
    every: std::time::Duration,
    mut at_tick: impl FnMut(DateTime<Utc>),
) -> Result<Vec<ScheduledTick>, ServiceError> {
    if to <= from {
        return Err(ServiceError::BadRequest {
            field: "to",
            message: "the clock moves forward only (jobs already run cannot be undone)".into(),
        });
    }
    if freezes_between(from, to, MAX_TICKS) > MAX_TICKS {
        return Err(ServiceError::BadRequest {
            field: "to",
            message: format!(
                "a move may span at most {MAX_TICKS} daily freezes (about three years); move the clock in smaller steps"
            ),
        });
    }
    let mut out = Vec::new();
    let mut t = from;
    // A bound on the loop whatever the tournaments ask for (each step moves `t` on).
    let mut budget = MAX_TICKS * 4;
    // When the next step falls due (a tournament's, a prize period's end): only a refresh tick moves a tournament,
    // so it is read again only after one (not at every freeze in between).
    let mut due = next_due(store, t).await?;
    loop {
        let freeze = next_freeze(t);
        // A tournament step due: the first refresh instant after it (and after `t`).
        let step = due.map(|due| next_refresh(due.max(t + Duration::milliseconds(1)), every));
        let next = step.map_or(freeze, |s| s.min(freeze));
        if next > to {
            break;
        }
        budget = budget.saturating_sub(1);
        if budget == 0 {
            // Tournament steps that never stop falling due: the end instant's ticks
            // below still run, and the next move goes on from there.
            tracing::warn!(at = %next, "scheduled ticks over budget; the rest runs at the end instant");
            break;
        }
        at_tick(next);
        let refreshed = step == Some(next);
        out.extend(catch_up_then_refresh(store, next, settings, refreshed).await?);
        t = next;
        if refreshed {
            due = next_due(store, t).await?;
        }
    }
    at_tick(to);
    out.extend(catch_up_then_refresh(store, to, settings, true).await?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    /// GM-2: the freeze runs a minute after Bucharest midnight, 22:01Z in winter and
    /// 21:01Z in summer, across the DST change of 2027-03-28.
    #[test]
    fn gm2_freeze_instants_follow_bucharest_midnight_across_dst() {
        assert_eq!(
            next_freeze(utc("2027-03-26T12:00:00Z")),
            utc("2027-03-26T22:01:00Z")
        );
        assert_eq!(
            next_freeze(utc("2027-03-26T22:01:00Z")),
            utc("2027-03-27T22:01:00Z")
        );
        assert_eq!(
            next_freeze(utc("2027-03-27T22:01:00Z")),
            utc("2027-03-28T21:01:00Z")
        );
        assert_eq!(
            next_freeze(utc("2027-10-30T21:01:00Z")),
            utc("2027-10-31T22:01:00Z")
        );
    }

    #[test]
    fn a_year_spans_365_freezes() {
        let from = utc("2027-01-01T12:00:00Z");
        assert_eq!(freezes_between(from, utc("2028-01-01T12:00:00Z"), MAX_TICKS), 365);
        assert_eq!(
            freezes_between(from, utc("2031-01-01T12:00:00Z"), MAX_TICKS),
            MAX_TICKS + 1
        );
        assert_eq!(freezes_between(from, utc("2027-01-01T12:30:00Z"), MAX_TICKS), 0);
    }

    #[test]
    fn lb5_refresh_instants_are_multiples_of_the_interval() {
        let five = std::time::Duration::from_secs(300);
        assert_eq!(
            next_refresh(utc("2027-01-01T00:00:00Z"), five),
            utc("2027-01-01T00:00:00Z")
        );
        assert_eq!(
            next_refresh(utc("2027-01-01T00:00:00.001Z"), five),
            utc("2027-01-01T00:05:00Z")
        );
        assert_eq!(
            next_refresh(utc("2027-01-01T00:07:00Z"), five),
            utc("2027-01-01T00:10:00Z")
        );
    }
}
