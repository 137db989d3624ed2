//! What every typed record line shares (GM-5): one path-tracked parse whose errors
//! name the field, and the check that an account appears once. Used by the Mahjong
//! Rivals, Dots and Boxes and Minesweeper records.

use serde::de::DeserializeOwned;

use crate::error::RuleError;

/// Parses one record line into `T`; a shape error names the JSON path of the field.
pub fn parse_line<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, RuleError> {
    let text = std::str::from_utf8(bytes).map_err(|_| RuleError::new("record", "GM-5", "not UTF-8 text"))?;
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let segments: Vec<serde_path_to_error::Segment> = e.path().iter().cloned().collect();
        crate::record::shape_error(&segments, &e.into_inner().to_string())
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
            return Err(RuleError::new(field(i), "GM-5", "a player appears once"));
        }
        seen.push(id);
    }
    Ok(())
}
