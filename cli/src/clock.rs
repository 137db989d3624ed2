//! The server clock every command reads (UTC): the system clock, or, for tests and
//! demonstrations, a test clock that starts at `--test-clock START`
//! (`PODIUM_TEST_CLOCK`) and moves only when told.
//!
//! Everything time-dependent a command does reads this one clock: the record bounds
//! (GM-5's clock skew and age), the day a bonus is claimed on (MJ-18), the UTC day of
//! an ad reward (SG-10), the periods a tick freezes and closes (LB-5), a deletion's
//! instants (GM-6), the default end of generated records. `podium serve` moves a test
//! clock with `POST /v1/dev/clock` ([`crate::dev_clock`]), running the scheduled jobs
//! in between. The Lambda functions have no such option: they read the system clock
//! (and a schedule's scheduled time).

use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};

/// A `--test-clock` value: an RFC 3339 instant in the years podium's periods may
/// name ([`podium_rules::period::PERIOD_YEARS`]), so a tick on it names real periods.
pub fn parse_start(raw: &str) -> Result<DateTime<Utc>, String> {
    let at = DateTime::parse_from_rfc3339(raw.trim())
        .map_err(|e| format!("an RFC 3339 instant such as 2027-03-28T00:30:00+02:00 ({e})"))?
        .to_utc();
    check_in_years(at)?;
    Ok(at)
}

/// Whether `at` lies in the years podium's periods may name, without a leap second.
pub fn check_in_years(at: DateTime<Utc>) -> Result<(), String> {
    use chrono::Datelike;
    let years = podium_rules::period::PERIOD_YEARS;
    if !years.contains(&at.year()) || at.timestamp_subsec_nanos() >= 1_000_000_000 {
        return Err(format!(
            "an instant in the years {} to {}, without a leap second",
            years.start(),
            years.end()
        ));
    }
    Ok(())
}

/// The clock of one `podium` process. Clones share one test clock.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    test: Option<Arc<TestClock>>,
}

/// A clock that stands still until moved ([`TestClock::move_to`]).
#[derive(Debug)]
pub struct TestClock {
    now: Mutex<DateTime<Utc>>,
    /// Held by the one move under way: moves run one at a time, in order.
    pub(crate) moving: Mutex<()>,
    /// Every other request holds it shared; a move holds it alone while its jobs run,
    /// so no request is answered at an instant the move is passing through (a claim
    /// then would miss the period its jobs are closing).
    pub(crate) gate: tokio::sync::RwLock<()>,
}

impl TestClock {
    /// The instant the clock shows.
    pub fn now(&self) -> DateTime<Utc> {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Shows `at` from now on (forward only: an earlier `at` is ignored).
    pub fn move_to(&self, at: DateTime<Utc>) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        if at > *now {
            *now = at;
        }
    }
}

impl TestClock {
    /// Shows `at` again after a move that failed part way: only by that move, while
    /// it holds the gate alone (no request has read the instants after `at`).
    pub(crate) fn rewind_to(&self, at: DateTime<Utc>) {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner) = at;
    }
}

impl Clock {
    /// The system clock, or a test clock starting at `start` when given.
    pub fn new(start: Option<DateTime<Utc>>) -> Self {
        Clock {
            test: start.map(|at| {
                Arc::new(TestClock {
                    now: Mutex::new(at),
                    moving: Mutex::new(()),
                    gate: tokio::sync::RwLock::new(()),
                })
            }),
        }
    }

    /// The test clock, when this process runs on one.
    pub fn test(&self) -> Option<&Arc<TestClock>> {
        self.test.as_ref()
    }

    /// The instant now (UTC).
    pub fn now(&self) -> DateTime<Utc> {
        self.test.as_ref().map_or_else(Utc::now, |t| t.now())
    }

    /// The clock as the HTTP API takes it (a test clock as it moves).
    pub fn for_api(&self) -> podium_service::api::Clock {
        let clock = self.clone();
        Arc::new(move || clock.now())
    }

    /// Whole seconds of [`Clock::now`] (generated records carry no fractions).
    pub fn now_secs(&self) -> DateTime<Utc> {
        let now = self.now();
        DateTime::from_timestamp(now.timestamp(), 0).unwrap_or(now)
    }
}
