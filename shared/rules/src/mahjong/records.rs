//! What every Mahjong Rivals record line shares (GM-5): its `game` and `kind`, and an
//! instant not ahead of the server clock by more than the allowed skew nor older than
//! the allowed age ([`RecordPolicy`]). The parse itself is [`crate::record::lines`].

use chrono::{DateTime, Utc};

use crate::error::RuleError;
use crate::game::Game;
use crate::record::RecordPolicy;

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
        .clamp(1, crate::record::MAX_RECORD_AGE_DAYS_LIMIT);
    if at > now + chrono::Duration::milliseconds(max_skew_ms.max(0)) {
        return Err(RuleError::new(
            field,
            "GM-5",
            format!(
                "more than {} s after the server's clock (allowed clock skew)",
                max_skew_ms.max(0) / 1000
            ),
        ));
    }
    if at < now - chrono::Duration::days(max_age_days)
        || at.timestamp() < crate::record::EARLIEST_INSTANT_SECS
    {
        return Err(RuleError::new(
            field,
            "GM-5",
            format!("more than {max_age_days} days before the server's clock (allowed record age)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mahjong::quick_match::QuickMatch;

    fn line(ended_at: &str) -> Vec<u8> {
        format!(
            r#"{{"match_id":"qm-1","game":"mahjong-rivals","kind":"quick-match","ended_at":"{ended_at}","players":[{{"player_id":"a","completed":true,"score":1}},{{"player_id":"b","completed":false,"score":0}}]}}"#
        )
        .into_bytes()
    }

    /// GM-5: Mahjong instants are strict RFC 3339, not older than 30 days (so never of
    /// a day the AMR has let go, MJ-20), not before 2020, not ahead beyond the skew.
    #[test]
    fn gm_5_mahjong_instants_are_strict_and_recent() {
        let now = DateTime::parse_from_rfc3339("2027-07-18T12:00:00Z")
            .unwrap()
            .to_utc();
        let policy = RecordPolicy::default();
        let parse = |at: &str| QuickMatch::from_json(&line(at), now, &policy).map_err(|e| (e.field, e.rule));
        assert!(parse("2027-07-18T11:00:00Z").is_ok());
        assert!(parse("2027-06-19T12:00:00Z").is_ok(), "29 days late");
        for bad in [
            "2027-06-17T12:00:00Z",
            "1970-01-01T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "2027-07-18T12:05:01Z",
            "2027-07-18 11:00:00Z",
            "2027-07-18t11:00:00z",
            "+2027-07-18T11:00:00Z",
            "2016-12-31T23:59:60Z",
        ] {
            assert_eq!(parse(bad), Err(("ended_at".to_string(), "GM-5")), "{bad}");
        }
    }

    /// GM-5: the record age is configuration ([`RecordPolicy::max_record_age_days`]):
    /// a record 45 days old is refused by default and accepted at 60 days; the age is
    /// held below the AMR window whatever is configured (MJ-20).
    #[test]
    fn gm_5_the_record_age_is_configuration() {
        let now = DateTime::parse_from_rfc3339("2027-07-18T12:00:00Z")
            .unwrap()
            .to_utc();
        let old = line("2027-06-03T12:00:00Z");
        let e = QuickMatch::from_json(&old, now, &RecordPolicy::default()).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("ended_at", "GM-5"));
        assert!(e.message.contains("30 days"), "{}", e.message);
        let wide = RecordPolicy {
            max_record_age_days: 60,
            ..RecordPolicy::default()
        };
        assert!(QuickMatch::from_json(&old, now, &wide).is_ok());
        let too_wide = RecordPolicy {
            max_record_age_days: 10_000,
            ..RecordPolicy::default()
        };
        let a_year = line("2026-07-17T12:00:00Z");
        assert!(QuickMatch::from_json(&a_year, now, &too_wide).is_err());
    }
}
