//! What every typed record line shares (GM-5): one path-tracked parse whose errors
//! name the field, and the check that an account appears once. Used by the Mahjong
//! Rivals, Dots and Boxes and Minesweeper records.

use serde::de::DeserializeOwned;

use crate::error::RuleError;

/// Parses one record line into `T`; a shape error names the JSON path of the field.
/// The line must be a JSON object: serde would otherwise take the record from an
/// array of its fields' values, and name a refusal by position (`[1]`).
pub fn parse_line<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, RuleError> {
    let text = std::str::from_utf8(bytes).map_err(|_| RuleError::new("record", "GM-5", "not UTF-8 text"))?;
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de)
        .map(|crate::record::shape::objects::Object(record)| record)
        .map_err(|e| {
            let segments: Vec<serde_path_to_error::Segment> = e.path().iter().cloned().collect();
            crate::record::shape::shape_error(&segments, &e.into_inner().to_string())
        })
}

/// Refuses an account that appears twice among `ids` (GM-5), naming the second one's
/// field: `field(i)` is the field of the `i`-th id (`players[1].player_id`).
pub fn check_once<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    field: impl Fn(usize) -> String,
) -> Result<(), RuleError> {
    let mut seen: Vec<&str> = Vec::new();
    for (i, id) in ids.into_iter().enumerate() {
        if seen.contains(&id) {
            return Err(RuleError::new(
                field(i),
                "GM-5",
                format!("player {} appears twice", crate::error::quoted(id)),
            ));
        }
        seen.push(id);
    }
    Ok(())
}

/// The envelope every two-player match record shares (GM-5): its `match_id`, its
/// `game` (`want`), exactly two distinct valid `players` (`rule`: the game's rule for
/// two players, DB-1 or MS-1), `started_at` not before 2020, and `ended_at` after it,
/// at most 24 hours later and at most `max_skew_ms` after the server clock `now`.
/// Errors name the field.
#[allow(clippy::too_many_arguments)]
pub fn check_match_envelope(
    match_id: &str,
    game: &str,
    want: crate::game::Game,
    players: &[&str],
    rule: &'static str,
    started_at: chrono::DateTime<chrono::Utc>,
    ended_at: chrono::DateTime<chrono::Utc>,
    now: chrono::DateTime<chrono::Utc>,
    max_skew_ms: i64,
) -> Result<(), RuleError> {
    crate::record::ids::check_id("match_id", match_id)?;
    if game != want.id() {
        return Err(RuleError::new(
            "game",
            "GM-5",
            format!("not a {} record", want.id()),
        ));
    }
    if players.len() != 2 {
        return Err(RuleError::new("players", rule, "a match has two players"));
    }
    for (i, p) in players.iter().enumerate() {
        crate::record::ids::check_player_id(&format!("players[{i}].player_id"), p)?;
    }
    check_once(players.iter().copied(), |i| format!("players[{i}].player_id"))?;
    if started_at.timestamp() < crate::record::policy::EARLIEST_INSTANT_SECS {
        return Err(RuleError::new(
            "started_at",
            "GM-5",
            "before 2020-01-01T00:00:00Z",
        ));
    }
    if ended_at < started_at {
        return Err(crate::record::policy::ended_before_start(ended_at, started_at));
    }
    if ended_at - started_at > chrono::Duration::milliseconds(crate::record::policy::MAX_DURATION_MS) {
        return Err(crate::record::policy::too_long(ended_at, started_at));
    }
    if ended_at > now + chrono::Duration::milliseconds(max_skew_ms.max(0)) {
        return Err(crate::record::policy::ahead_of_clock(
            "ended_at",
            ended_at,
            now,
            max_skew_ms,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    /// GM-5, DB-1, MS-1: the two-player envelope refuses, naming the field: another
    /// game, other than two players, a player twice, a start before 2020, an end
    /// before the start, more than 24 hours, or an end past the clock's skew.
    #[test]
    fn gm_5_two_player_envelope() {
        let t = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        let (start, end, now) = (
            t("2027-01-01T10:00:00Z"),
            t("2027-01-01T10:05:00Z"),
            t("2027-01-01T10:06:00Z"),
        );
        let check = |game: &str, players: &[&str], start, end| {
            check_match_envelope(
                "m-1",
                game,
                Game::Minesweeper,
                players,
                "MS-1",
                start,
                end,
                now,
                0,
            )
            .map_err(|e| (e.field, e.rule))
        };
        assert_eq!(check("minesweeper", &["a", "b"], start, end), Ok(()));
        assert_eq!(
            check("seega", &["a", "b"], start, end),
            Err(("game".into(), "GM-5"))
        );
        assert_eq!(
            check("minesweeper", &["a"], start, end),
            Err(("players".into(), "MS-1"))
        );
        assert_eq!(
            check("minesweeper", &["a", "a"], start, end),
            Err(("players[1].player_id".into(), "GM-5"))
        );
        assert_eq!(
            check("minesweeper", &["a", "b"], t("2019-12-31T23:00:00Z"), end),
            Err(("started_at".into(), "GM-5"))
        );
        assert_eq!(
            check("minesweeper", &["a", "b"], end, start),
            Err(("ended_at".into(), "GM-5"))
        );
        assert_eq!(
            check("minesweeper", &["a", "b"], t("2026-12-31T09:00:00Z"), end),
            Err(("ended_at".into(), "GM-5"))
        );
        assert_eq!(
            check("minesweeper", &["a", "b"], start, t("2027-01-01T10:07:00Z")),
            Err(("ended_at".into(), "GM-5"))
        );
    }
}
