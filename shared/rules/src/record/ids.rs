//! Ids in records (GM-5): what a match or player id may be, and the two forms reserved
//! where a player's id is expected: deleted players' pseudonyms (GM-6) and podium's
//! internal owners (`@…`: leagues, tournaments, level records).

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

/// The prefix of podium's internal owners (GM-5): the pseudo-players under which
/// podium keeps state that belongs to no account — a league's filling cohorts and
/// member lists, a tournament, a Mahjong level's fastest times. `@` is outside the
/// id alphabet ([`is_valid_id`]), so no caller identity, record, profile, friend
/// list, operator action, export or deletion can name one; every internal owner is
/// made by [`internal_owner`].
pub const INTERNAL_PREFIX: &str = "@";

/// The internal owner named `name` (`@{name}`, for example
/// `@mahjong-league:2026-W49:t1-s0-n0`): a key under which podium keeps state of its
/// own, never an account (see [`INTERNAL_PREFIX`]).
pub fn internal_owner(name: &str) -> String {
    [INTERNAL_PREFIX, name].concat()
}

/// What an id that stands where a player's id is expected is (GM-5, GM-6): the one
/// place where the reserved forms are told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerIdForm {
    /// A well-formed account id.
    Account,
    /// A deleted player's pseudonym (`deleted-…`, GM-6): names nobody.
    DeletedPseudonym,
    /// One of podium's internal owners (`@…`, [`internal_owner`]): never an account.
    Internal,
    /// Not an id at all (GM-5: empty, too long, or outside the alphabet).
    Malformed,
}

/// The form of `id` (see [`PlayerIdForm`]).
pub fn player_id_form(id: &str) -> PlayerIdForm {
    if id.starts_with(INTERNAL_PREFIX) {
        PlayerIdForm::Internal
    } else if !is_valid_id(id) {
        PlayerIdForm::Malformed
    } else if id.starts_with(RESERVED_PREFIX) {
        PlayerIdForm::DeletedPseudonym
    } else {
        PlayerIdForm::Account
    }
}

/// True for an id of the form reserved for deleted players' pseudonyms (GM-6).
pub fn is_reserved_id(id: &str) -> bool {
    id.starts_with(RESERVED_PREFIX)
}

/// True for an id that may stand for an account: well-formed (GM-5) and of neither
/// reserved form (no deleted player's pseudonym, GM-6, and no internal owner).
pub fn is_account_id(id: &str) -> bool {
    player_id_form(id) == PlayerIdForm::Account
}

/// Checks that `id`, given as `field`, may stand for an account: every way a player
/// id comes in (a caller's identity, a record, a friend list, an operator action, an
/// export, a deletion) goes through here. Errors name `field` and the rule: GM-5 for
/// a malformed id or an internal owner, GM-6 for a deleted player's pseudonym.
pub fn check_player_id(field: &str, id: &str) -> Result<(), RuleError> {
    match player_id_form(id) {
        PlayerIdForm::Account => Ok(()),
        PlayerIdForm::Malformed => check_id(field, id),
        PlayerIdForm::Internal => Err(RuleError::new(
            field,
            "GM-5",
            format!(
                "ids starting with `{INTERNAL_PREFIX}` name podium's own records (leagues, \
                 tournaments, level records) and are no account"
            ),
        )),
        PlayerIdForm::DeletedPseudonym => Err(RuleError::new(
            field,
            "GM-6",
            format!("ids starting with `{RESERVED_PREFIX}` stand for deleted players and are no account"),
        )),
    }
}

pub(crate) fn check_id(field: &str, id: &str) -> Result<(), RuleError> {
    if is_valid_id(id) {
        return Ok(());
    }
    // What is wrong, without quoting the id (it may be personal data: an e-mail address).
    let found = if id.is_empty() {
        "an empty id".to_string()
    } else if id.len() > MAX_ID_LEN {
        format!("an id of {} bytes", id.len())
    } else {
        let bad = id
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-' | '|')))
            .unwrap_or('?');
        format!(
            "{} is not allowed in an id",
            crate::error::quoted(&bad.to_string())
        )
    };
    Err(RuleError::new(
        field,
        "GM-5",
        format!("{found}: ids are 1–{MAX_ID_LEN} characters of A–Z, a–z, 0–9, '.', '_', ':', '-', '|'"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gm5_every_internal_owner_is_refused_as_a_player() {
        for owner in [
            internal_owner("mahjong-league:2026-W49:t1-s0-n0"),
            internal_owner("mahjong-league:2026-W49:1:0"),
            internal_owner("mahjong-tournament-cup-1"),
            internal_owner("mahjong-level-7"),
        ] {
            assert_eq!(player_id_form(&owner), PlayerIdForm::Internal, "{owner}");
            let e = check_player_id("player_id", &owner).expect_err("refused");
            assert_eq!((e.field.as_str(), e.rule), ("player_id", "GM-5"), "{owner}");
            assert!(!is_account_id(&owner));
        }
    }

    #[test]
    fn gm6_pseudonyms_and_gm5_malformed_ids_are_no_accounts() {
        assert_eq!(
            player_id_form("deleted-0123456789abcdef"),
            PlayerIdForm::DeletedPseudonym
        );
        assert_eq!(
            check_player_id("p", "deleted-x").expect_err("refused").rule,
            "GM-6"
        );
        for bad in ["", "a#b", "a b", "x@y"] {
            assert_eq!(player_id_form(bad), PlayerIdForm::Malformed, "{bad:?}");
            assert_eq!(check_player_id("p", bad).expect_err("refused").rule, "GM-5");
        }
        assert!(is_account_id("auth0|5f7c"));
        assert!(
            is_account_id("mahjong-league:2026-W49:t1-s0-n0"),
            "an ordinary id: no internal owner has this form"
        );
    }
}
