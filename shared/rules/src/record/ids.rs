//! Ids in records (GM-5): what a match or player id may be, and the form reserved for
//! deleted players' pseudonyms (GM-6).

use crate::error::RuleError;

/// The longest id (match or player) accepted, in bytes.
pub const MAX_ID_LEN: usize = 128;

/// True for a well-formed match or player id (GM-5): 1–128 characters of
/// `A–Z a–z 0–9 . _ : - |`. `|` admits identity providers' subjects such as
/// `auth0|5f7c…`; `@` is refused (an e-mail address is personal data, and `@` joins a
/// board to its period in keys), as is `#` (the keys' separator).
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b':' | b'-' | b'|'))
}

/// The prefix of the ids reserved for deleted players' pseudonyms (GM-6:
/// `deleted-{16 hex digits}`): no caller identity and no record may use an id that
/// starts with it.
pub const RESERVED_PREFIX: &str = "deleted-";

/// True for an id of the form reserved for deleted players' pseudonyms (GM-6).
pub fn is_reserved_id(id: &str) -> bool {
    id.starts_with(RESERVED_PREFIX)
}

/// [`check_id`] for a player's id, which also may not be of the reserved form of
/// deleted players' pseudonyms (GM-6).
pub fn check_player_id(field: &str, id: &str) -> Result<(), RuleError> {
    check_id(field, id)?;
    if is_reserved_id(id) {
        return Err(RuleError::new(
            field,
            "GM-6",
            format!("ids starting with `{RESERVED_PREFIX}` stand for deleted players and are no account"),
        ));
    }
    Ok(())
}

pub(crate) fn check_id(field: &str, id: &str) -> Result<(), RuleError> {
    if is_valid_id(id) {
        Ok(())
    } else {
        Err(RuleError::new(
            field,
            "GM-5",
            format!("ids are 1–{MAX_ID_LEN} characters of A–Z, a–z, 0–9, '.', '_', ':', '-', '|'"),
        ))
    }
}
