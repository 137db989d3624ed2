//! What every Mahjong Rivals record line shares (GM-5): one path-tracked parse whose
//! errors name the field, its `game` and `kind`, and an instant not ahead of the
//! server clock by more than the allowed skew.

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;

use crate::error::RuleError;
use crate::game::Game;

/// Parses one record line into `T`; a shape error names the JSON path of the field.
pub(crate) fn parse_line<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, RuleError> {
    let text = std::str::from_utf8(bytes).map_err(|_| RuleError::new("record", "GM-5", "not UTF-8 text"))?;
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let segments: Vec<serde_path_to_error::Segment> = e.path().iter().cloned().collect();
        crate::record::shape_error(&segments, &e.into_inner().to_string())
    })
}

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

/// Refuses an instant in `field` more than `max_skew_ms` after the server clock `now`.
pub(crate) fn check_not_ahead(
    field: &str,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
    max_skew_ms: i64,
) -> Result<(), RuleError> {
    if at > now + chrono::Duration::milliseconds(max_skew_ms) {
        return Err(RuleError::new(field, "GM-5", "in the future"));
    }
    Ok(())
}
