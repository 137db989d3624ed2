//! What every Mahjong Rivals record line shares (GM-5): its `game` and `kind`, and an
//! instant not ahead of the server clock by more than the allowed skew nor older than
//! the allowed age ([`RecordPolicy`]). The parse itself is [`crate::record::lines`].

use chrono::{DateTime, Utc};

use crate::error::RuleError;
use crate::game::Game;
use crate::record::policy::RecordPolicy;

/// Refuses a line whose `game` is not Mahjong Rivals or whose `kind` is not `kind`;
/// `what` names the record in the message (`a Quick Match`).
pub(crate) fn check_route(game: &str, kind: &str, want_kind: &str, what: &str) -> Result<(), RuleError> {
    if game != Game::MahjongRivals.id() {
        return Err(RuleError::new(
            "game",
            "GM-5",
            format!("{what} is a mahjong-rivals record"),
        ));
    }
    if kind != want_kind {
        return Err(RuleError::new("kind", "GM-5", format!("not {what}")));
    }
    Ok(())
}

/// Refuses an instant in `field` more than the policy's clock skew after the server
/// clock `now`, more than its record age before it, or before 2020 (GM-5).
pub(crate) fn check_instant(
    field: &str,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Result<(), RuleError> {
    let max_skew_ms = policy.max_clock_skew_ms;
    let max_age_days = policy
        .max_record_age_days
        .clamp(1, crate::record::policy::MAX_RECORD_AGE_DAYS_LIMIT);
    if at > now + chrono::Duration::milliseconds(max_skew_ms.max(0)) {
        return Err(crate::record::policy::ahead_of_clock(field, at, now, max_skew_ms));
    }
    if at < now - chrono::Duration::days(max_age_days)
        || at.timestamp() < crate::record::policy::EARLIEST_INSTANT_SECS
    {
        return Err(RuleError::new(
            field,
            "GM-5",
            format!(
                "{} is more than {max_age_days} days before the server's clock, {} (allowed record age, PODIUM_MAX_RECORD_AGE_DAYS): refused for good",
                crate::record::policy::shown(at),
                crate::record::policy::shown(chrono::SubsecRound::trunc_subsecs(now, 0))
            ),
        ));
    }
    Ok(())
}
