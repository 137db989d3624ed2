//! How old, how far ahead and how long a record may be (GM-5): the policy a
//! deployment configures, and the bounds no configuration moves.

use chrono::{DateTime, SubsecRound, Utc};

/// What record validation takes from configuration (GM-5), and the plausibility
/// checks (OP-2) records must pass to be counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordPolicy {
    /// How far after the server's clock a record's instant may lie, in milliseconds
    /// (≥ 0): the game servers' clocks may run this much ahead of podium's.
    pub max_clock_skew_ms: i64,
    /// How old a Mahjong Rivals record's instant may be when it arrives, in days
    /// (1 … [`MAX_RECORD_AGE_DAYS_LIMIT`]): older records are refused for good (GM-5),
    /// so a day that left the AMR window (MJ-20) is never credited.
    pub max_record_age_days: i64,
    /// The plausibility checks (OP-2): a record breaking one is held for review.
    pub plausibility: std::sync::Arc<crate::plausibility::Plausibility>,
}

impl Default for RecordPolicy {
    fn default() -> Self {
        RecordPolicy {
            max_clock_skew_ms: DEFAULT_MAX_CLOCK_SKEW_MS,
            max_record_age_days: DEFAULT_MAX_RECORD_AGE_DAYS,
            plausibility: Default::default(),
        }
    }
}

/// How old a Mahjong Rivals record may be by default (days): late deliveries and
/// retries, far inside the AMR's 365 days (MJ-20).
pub const DEFAULT_MAX_RECORD_AGE_DAYS: i64 = 30;

/// The largest allowed [`RecordPolicy::max_record_age_days`]: a record must still be
/// inside the AMR window when it is credited (MJ-20: 365 days, today included).
pub const MAX_RECORD_AGE_DAYS_LIMIT: i64 = 364;

/// The longest match accepted, in milliseconds (24 hours; GM-5 range).
pub const MAX_DURATION_MS: i64 = 24 * 60 * 60 * 1000;

/// How far after the server's clock a match may end by default (clock skew of the
/// game servers), in milliseconds; see [`RecordPolicy`].
pub const DEFAULT_MAX_CLOCK_SKEW_MS: i64 = 5 * 60 * 1000;

/// The earliest instant a record may name, in seconds since the Unix epoch
/// (2020-01-01T00:00:00Z): nothing older was ever played on the platform.
pub const EARLIEST_INSTANT_SECS: i64 = 1_577_836_800;

/// The earliest instant a record may name: 2020-01-01T00:00:00Z.
pub(crate) fn earliest_instant() -> DateTime<Utc> {
    DateTime::from_timestamp(EARLIEST_INSTANT_SECS, 0).unwrap_or_default()
}

/// `t` as a refusal shows it: RFC 3339 in UTC, seconds (and milliseconds when any).
pub fn shown(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// The refusal of an end instant `ended` before `started` (GM-5), naming both.
pub(crate) fn ended_before_start(ended: DateTime<Utc>, started: DateTime<Utc>) -> crate::error::RuleError {
    crate::error::RuleError::new(
        "ended_at",
        "GM-5",
        format!("{} is before started_at {}", shown(ended), shown(started)),
    )
}

/// The refusal of a match whose `ended` is more than 24 hours after `started` (GM-5).
pub(crate) fn too_long(ended: DateTime<Utc>, started: DateTime<Utc>) -> crate::error::RuleError {
    let hours = (ended - started).num_minutes() as f64 / 60.0;
    crate::error::RuleError::new(
        "ended_at",
        "GM-5",
        format!(
            "{} is {hours:.1} hours after started_at {}: a match lasts at most 24 hours",
            shown(ended),
            shown(started)
        ),
    )
}

/// The refusal of an instant `at`, given as `field`, further ahead of the server's
/// clock `now` than the allowed clock skew `max_skew_ms` (GM-5), naming both instants.
pub(crate) fn ahead_of_clock(
    field: &str,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
    max_skew_ms: i64,
) -> crate::error::RuleError {
    crate::error::RuleError::new(
        field,
        "GM-5",
        format!(
            "{} is more than {} s after the server's clock, {} (allowed clock skew: is the game server's clock right?)",
            shown(at),
            max_skew_ms.max(0) / 1000,
            shown(now.trunc_subsecs(0))
        ),
    )
}
