//! The server clock every command reads (UTC): the system clock, or, for tests and
//! demonstrations, the fixed instant `--test-clock START` (`PODIUM_TEST_CLOCK`) names.
//!
//! Everything time-dependent a command does reads this one clock: the record bounds
//! (GM-5's clock skew and age), the day a bonus is claimed on (MJ-18), the periods a
//! tick freezes and closes (LB-5), a deletion's instants (GM-6), the default end of
//! generated records. The Lambda functions have no such option: they read the system
//! clock (and a schedule's scheduled time).

use chrono::{DateTime, Utc};

/// A `--test-clock` value: an RFC 3339 instant in the years podium's periods may
/// name ([`podium_rules::period::PERIOD_YEARS`]), so a tick on it names real periods.
pub fn parse_start(raw: &str) -> Result<DateTime<Utc>, String> {
    use chrono::Datelike;
    let at = DateTime::parse_from_rfc3339(raw.trim())
        .map_err(|e| format!("an RFC 3339 instant such as 2027-03-28T00:30:00+02:00 ({e})"))?
        .to_utc();
    let years = podium_rules::period::PERIOD_YEARS;
    if !years.contains(&at.year()) || at.timestamp_subsec_nanos() >= 1_000_000_000 {
        return Err(format!(
            "an instant in the years {} to {}, without a leap second",
            years.start(),
            years.end()
        ));
    }
    Ok(at)
}

/// The clock of one `podium` process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clock {
    fixed: Option<DateTime<Utc>>,
}

impl Clock {
    /// The system clock, or `fixed` when given.
    pub fn new(fixed: Option<DateTime<Utc>>) -> Self {
        Clock { fixed }
    }

    /// The instant now (UTC).
    pub fn now(&self) -> DateTime<Utc> {
        self.fixed.unwrap_or_else(Utc::now)
    }

    /// The clock as the HTTP API takes it.
    pub fn for_api(&self) -> podium_service::api::Clock {
        let fixed = self.fixed;
        std::sync::Arc::new(move || fixed.unwrap_or_else(Utc::now))
    }

    /// Whole seconds of [`Clock::now`] (generated records carry no fractions).
    pub fn now_secs(&self) -> DateTime<Utc> {
        let now = self.now();
        DateTime::from_timestamp(now.timestamp(), 0).unwrap_or(now)
    }
}
