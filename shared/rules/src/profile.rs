//! Player profiles and friend lists (PF-1 … PF-5): the display name, avatar and
//! country every entry the app reads carries, and the friends a friends board ranks.
//!
//! Pure: the policy (blocklist, avatars, the country interval) and the clock are
//! parameters. Normalisation and grapheme counting are Unicode's, through the
//! `unicode-normalization`, `unicode-segmentation` and `unicode-properties` crates;
//! names meet blocked terms in one comparison form (`name_form`: case folding by
//! `caseless`, confusable skeletons by `unicode-security`); countries are ISO 3166-1
//! alpha-2 codes as the `isocountry` crate lists them.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_properties::emoji::is_tag_character;
use unicode_properties::{GeneralCategory, UnicodeEmoji, UnicodeGeneralCategory};
use unicode_segmentation::UnicodeSegmentation;

use crate::error::{quoted, RuleError};

mod name_form;
use name_form::comparison_form;

/// The shortest and longest display name, in grapheme clusters (PF-1).
pub const NAME_MIN: usize = 3;
pub const NAME_MAX: usize = 24;

/// The most friends a friend list holds (PF-4): a friends view reads the caller and
/// them in ⌈(n + 1) / 100⌉ batch reads of each kind.
pub const MAX_FRIENDS: usize = 200;

/// The default least interval between two changes of country (PF-3), in days.
pub const DEFAULT_COUNTRY_CHANGE_DAYS: u32 = 30;

/// What a name, avatar or country is checked against (PF-1 … PF-3): the operators'
/// settings, read once at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfilePolicy {
    /// Terms no name may contain, held in their comparison form (PF-1: accents
    /// removed, case-folded, separators dropped, as confusable skeletons with
    /// letter-like symbols read as letters; see `name_form::comparison_form`).
    blocked: Vec<String>,
    /// The avatar ids the app ships (PF-2).
    pub avatars: Vec<String>,
    /// The least time between two changes of country (PF-3), in milliseconds.
    pub country_change_ms: i64,
}

impl Default for ProfilePolicy {
    /// No blocked term, avatars `a01` … `a24`, a country change every 30 days.
    fn default() -> Self {
        ProfilePolicy::new(
            &[],
            (1..=24).map(|i| format!("a{i:02}")).collect(),
            DEFAULT_COUNTRY_CHANGE_DAYS,
        )
    }
}

impl ProfilePolicy {
    /// A policy blocking `blocked` (terms, any case), offering `avatars`, allowing a
    /// change of country every `country_change_days` days.
    pub fn new(blocked: &[&str], avatars: Vec<String>, country_change_days: u32) -> Self {
        ProfilePolicy {
            blocked: blocked
                .iter()
                .map(|t| comparison_form(t))
                .filter(|t| !t.is_empty())
                .collect(),
            avatars,
            country_change_ms: i64::from(country_change_days) * 86_400_000,
        }
    }
}

/// The name, avatar and country an entry carries (PF-5); each absent when unset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Card {
    /// The display name (PF-1): NFKC-normalised, 3–24 grapheme clusters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// An avatar id of the configured set (PF-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    /// ISO 3166-1 alpha-2 country code (PF-3), upper case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

impl Card {
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.avatar.is_none() && self.country.is_none()
    }
}

/// A stored profile: the card and when its country last changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    #[serde(flatten)]
    pub card: Card,
    /// When the country last changed from one value to another (PF-3; the first
    /// setting is no change): milliseconds since the Unix epoch, UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_changed_at_ms: Option<i64>,
}

impl Profile {
    /// The earliest instant (ms, UTC) the country may change again (PF-3); `None`: now.
    pub fn country_changeable_from_ms(&self, policy: &ProfilePolicy) -> Option<i64> {
        self.country_changed_at_ms
            .map(|t| t.saturating_add(policy.country_change_ms))
    }
}

/// One field of a profile change: left out (kept), `null` (removed) or a value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Change {
    #[default]
    Keep,
    Remove,
    Set(String),
}

/// A profile change as the app sends it (`PUT /v1/me/profile`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileChange {
    pub name: Change,
    pub avatar: Change,
    pub country: Change,
}

impl ProfileChange {
    /// The change a JSON object of `name`, `avatar` and `country` asks for: a field
    /// left out is kept, `null` removes it, a string sets it. Errors name the field
    /// (or `body` for anything but such an object).
    pub fn from_json(value: &serde_json::Value) -> Result<ProfileChange, RuleError> {
        let object = value.as_object().ok_or_else(|| {
            RuleError::new(
                "body",
                "PF-1",
                "a JSON object with `name`, `avatar` and `country`",
            )
        })?;
        let mut change = ProfileChange::default();
        for (key, v) in object {
            let (slot, field, rule) = match key.as_str() {
                "name" => (&mut change.name, "name", "PF-1"),
                "avatar" => (&mut change.avatar, "avatar", "PF-2"),
                "country" => (&mut change.country, "country", "PF-3"),
                other => {
                    return Err(RuleError::new(
                        "body",
                        "PF-1",
                        format!(
                            "unknown field {}: a profile has `name`, `avatar` and `country`",
                            quoted(other)
                        ),
                    ))
                }
            };
            *slot = match v {
                serde_json::Value::Null => Change::Remove,
                serde_json::Value::String(s) => Change::Set(s.clone()),
                _ => {
                    return Err(RuleError::new(
                        field,
                        rule,
                        "must be a string, or null to remove it",
                    ))
                }
            };
        }
        Ok(change)
    }
}

/// The most code points one character (grapheme cluster) of a name may hold: an
/// emoji family with skin tones has 11; a pile of combining marks is refused.
pub const GRAPHEME_MAX_CHARS: usize = 12;

/// The most bytes of UTF-8 a name may take.
pub const NAME_MAX_BYTES: usize = 200;

/// The display name `raw` stands for (PF-1): NFKC-normalised, trimmed, runs of white
/// space (tabs and line breaks included) made one space; 3–24 grapheme clusters, each
/// visible and of at most [`GRAPHEME_MAX_CHARS`] code points, [`NAME_MAX_BYTES`] at
/// most; no control, format (zero-width, bidirectional), private-use, unassigned or
/// separator character, and no default-ignorable mark (variation selectors, the
/// grapheme joiner, Hangul fillers) save the joiners and variation selectors inside
/// an emoji, the variation selector of a keycap (`1️⃣`) and the tags of the flags of
/// England, Scotland and Wales (no other tag sequence); no blocked term, compared in
/// the one comparison form of PF-1 (marks removed, case-folded, confusable
/// skeletons, letter-like symbols read as letters).
///
/// Errors name `name` and PF-1; a character is named as it stands after NFKC.
pub fn normalize_name(raw: &str, policy: &ProfilePolicy) -> Result<String, RuleError> {
    let refuse = |message: String| RuleError::new("name", "PF-1", message);
    let nfkc: String = raw.nfkc().collect();
    let name = nfkc.split_whitespace().collect::<Vec<_>>().join(" ");
    for g in name.graphemes(true) {
        let chars: Vec<char> = g.chars().collect();
        if chars.len() > GRAPHEME_MAX_CHARS {
            return Err(refuse(format!(
                "a character may hold at most {GRAPHEME_MAX_CHARS} code points (combining marks included); one holds {}",
                chars.len()
            )));
        }
        let emoji = chars.first().is_some_and(|&c| !c.is_ascii() && c.is_emoji_char());
        let keycap = is_keycap(&chars);
        let flag = is_subdivision_flag(&chars);
        for (i, &c) in chars.iter().enumerate() {
            let inside = i > 0 && i + 1 < chars.len();
            let emoji_part = i > 0
                && ((emoji && ((c == '\u{200D}' && inside) || matches!(c, '\u{FE0E}' | '\u{FE0F}')))
                    || (keycap && c == '\u{FE0F}')
                    || (flag && is_tag_character(c)));
            if !emoji_part && !allowed_char(c) {
                return Err(refuse(format!(
                    "U+{:04X} (after NFKC normalisation) is an invisible or control character, which names may not hold",
                    c as u32
                )));
            }
        }
        if g != " " && !chars.iter().any(|&c| visible(c)) {
            return Err(refuse("every character of a name must be visible".into()));
        }
    }
    let len = name.graphemes(true).count();
    if !(NAME_MIN..=NAME_MAX).contains(&len) {
        return Err(refuse(format!(
            "names are {NAME_MIN}–{NAME_MAX} characters after normalisation; this one has {len}"
        )));
    }
    if name.len() > NAME_MAX_BYTES {
        return Err(refuse(format!(
            "names take at most {NAME_MAX_BYTES} bytes of UTF-8; this one takes {}",
            name.len()
        )));
    }
    let form = comparison_form(&name);
    if policy.blocked.iter().any(|term| form.contains(term.as_str())) {
        return Err(refuse("this name is not allowed".into()));
    }
    Ok(name)
}

/// Whether `cluster` is a keycap (Unicode TS #51 `emoji_keycap_sequence`: a digit,
/// `#` or `*`, U+FE0F, U+20E3, as `1️⃣`), whose variation selector belongs to it.
fn is_keycap(cluster: &[char]) -> bool {
    matches!(cluster, [base, '\u{FE0F}', '\u{20E3}'] if base.is_ascii_digit() || matches!(base, '#' | '*'))
}

/// The subdivisions whose flags are the emoji tag sequences Unicode recommends
/// (RGI, Unicode TS #51 `emoji-sequences.txt`): England, Scotland, Wales. Each flag
/// is U+1F3F4 (a black flag), the subdivision's code in tag characters, and U+E007F
/// (cancel tag). Any other tag sequence shows as a black flag alone, its tags
/// hidden, so tags are refused everywhere else (PF-1).
const SUBDIVISION_FLAGS: [&str; 3] = ["gbeng", "gbsct", "gbwls"];

/// Whether `cluster` is the flag of one of the [`SUBDIVISION_FLAGS`].
fn is_subdivision_flag(cluster: &[char]) -> bool {
    let [black_flag, tags @ .., cancel] = cluster else {
        return false;
    };
    *black_flag == '\u{1F3F4}'
        && *cancel == '\u{E007F}'
        && SUBDIVISION_FLAGS.iter().any(|code| {
            code.len() == tags.len()
                && code
                    .chars()
                    .zip(tags)
                    .all(|(letter, &tag)| u32::from(letter) + 0xE0000 == u32::from(tag))
        })
}

/// Marks and letters that render as nothing (default-ignorable code points of
/// categories other than format, which are refused as a class): refused like them.
const INVISIBLE: [std::ops::RangeInclusive<char>; 9] = [
    '\u{034F}'..='\u{034F}',
    '\u{115F}'..='\u{1160}',
    '\u{17B4}'..='\u{17B5}',
    '\u{180B}'..='\u{180F}',
    '\u{2800}'..='\u{2800}',
    '\u{3164}'..='\u{3164}',
    '\u{FE00}'..='\u{FE0F}',
    '\u{FFA0}'..='\u{FFA0}',
    '\u{E0100}'..='\u{E01EF}',
];

fn invisible(c: char) -> bool {
    INVISIBLE.iter().any(|r| r.contains(&c))
}

fn allowed_char(c: char) -> bool {
    use GeneralCategory::*;
    if invisible(c) {
        return false;
    }
    !matches!(
        c.general_category(),
        Control | Format | PrivateUse | Unassigned | Surrogate | LineSeparator | ParagraphSeparator
    ) && (c == ' ' || !c.is_whitespace())
}

/// A character that shows something: a letter, number, punctuation or symbol.
fn visible(c: char) -> bool {
    use unicode_properties::GeneralCategoryGroup::*;
    !invisible(c) && matches!(c.general_category_group(), Letter | Number | Punctuation | Symbol)
}

/// The avatar id `raw`, if the configured set offers it (PF-2); errors name `avatar`.
pub fn check_avatar(raw: &str, policy: &ProfilePolicy) -> Result<String, RuleError> {
    if policy.avatars.iter().any(|a| a == raw) {
        Ok(raw.to_string())
    } else {
        Err(RuleError::new(
            "avatar",
            "PF-2",
            format!("{} is not an avatar this game offers", quoted(raw)),
        ))
    }
}

/// The ISO 3166-1 alpha-2 code `raw` (any case), upper case (PF-3); errors name `country`.
pub fn check_country(raw: &str) -> Result<String, RuleError> {
    match isocountry::CountryCode::for_alpha2_caseless(raw) {
        Ok(code) if raw.len() == 2 => Ok(code.alpha2().to_string()),
        _ => Err(RuleError::new(
            "country",
            "PF-3",
            format!("{} is no ISO 3166-1 alpha-2 country code", quoted(raw)),
        )),
    }
}

/// Every ISO 3166-1 alpha-2 code (PF-3): the countries a profile may name.
pub fn all_countries() -> impl Iterator<Item = &'static str> {
    isocountry::CountryCode::as_array().iter().map(|c| c.alpha2())
}

/// `current` after `change` at `now_ms` (server clock, ms UTC) under `policy`
/// (PF-1 … PF-3): each field checked, the country changed at most once per
/// [`ProfilePolicy::country_change_ms`]. Nothing changes when any field is refused.
pub fn apply(
    current: &Profile,
    change: &ProfileChange,
    policy: &ProfilePolicy,
    now_ms: i64,
) -> Result<Profile, RuleError> {
    let mut next = current.clone();
    match &change.name {
        Change::Keep => {}
        Change::Remove => next.card.name = None,
        Change::Set(raw) => next.card.name = Some(normalize_name(raw, policy)?),
    }
    match &change.avatar {
        Change::Keep => {}
        Change::Remove => next.card.avatar = None,
        Change::Set(raw) => next.card.avatar = Some(check_avatar(raw, policy)?),
    }
    let country = match &change.country {
        Change::Keep => current.card.country.clone(),
        Change::Remove => None,
        Change::Set(raw) => Some(check_country(raw)?),
    };
    if country != current.card.country {
        // The first setting is free; every later change (removal included) counts.
        let first = current.card.country.is_none() && current.country_changed_at_ms.is_none();
        if !first {
            if let Some(from) = current.country_changeable_from_ms(policy) {
                if now_ms < from {
                    let when = chrono::DateTime::from_timestamp_millis(from)
                        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                        .unwrap_or_default();
                    return Err(RuleError::new(
                        "country",
                        "PF-3",
                        format!("the country changed less than the allowed interval ago; it may change again from {when}"),
                    ));
                }
            }
            next.country_changed_at_ms = Some(now_ms);
        }
        next.card.country = country;
    }
    Ok(next)
}

/// The ids of a friend list body, `{"friends": [ids]}` (PF-4); errors name `body`,
/// `friends` or `friends[i]`.
pub fn friends_from_json(value: &serde_json::Value) -> Result<Vec<String>, RuleError> {
    let object = value
        .as_object()
        .ok_or_else(|| RuleError::new("body", "PF-4", "a JSON object: {\"friends\": [player ids]}"))?;
    if let Some(other) = object.keys().find(|k| k.as_str() != "friends") {
        return Err(RuleError::new(
            "body",
            "PF-4",
            format!(
                "unknown field {}: a friend list has `friends` only",
                quoted(other)
            ),
        ));
    }
    let list = object
        .get("friends")
        .ok_or_else(|| RuleError::new("friends", "PF-4", "required: a list of player ids"))?
        .as_array()
        .ok_or_else(|| RuleError::new("friends", "PF-4", "must be a list of player ids"))?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_str().map(str::to_string).ok_or_else(|| {
                RuleError::new(format!("friends[{i}]"), "PF-4", "must be a player id (a string)")
            })
        })
        .collect()
}

/// The friend list `ids` as stored (PF-4): each a player id (GM-5), duplicates and
/// the caller's own id left out, at most [`MAX_FRIENDS`]; errors name
/// `friends[i]` or `friends`.
pub fn check_friends(owner: &str, ids: &[String]) -> Result<Vec<String>, RuleError> {
    let mut out: Vec<String> = Vec::with_capacity(ids.len().min(MAX_FRIENDS));
    let mut seen = std::collections::HashSet::new();
    for (i, id) in ids.iter().enumerate() {
        use crate::record::ids::{player_id_form, PlayerIdForm};
        if player_id_form(id) == PlayerIdForm::Internal {
            // One of podium's own records (a league, a tournament) is nobody's friend.
            crate::record::ids::check_player_id(&format!("friends[{i}]"), id)?;
        }
        if !crate::record::ids::is_valid_id(id) {
            return Err(RuleError::new(
                format!("friends[{i}]"),
                "PF-4",
                format!(
                    "ids are 1–{} characters of A–Z, a–z, 0–9, '.', '_', ':', '-', '|'",
                    crate::record::ids::MAX_ID_LEN
                ),
            ));
        }
        // A deleted player's pseudonym (GM-6) is nobody's: left out, like a deleted id.
        if id != owner && !crate::record::ids::is_reserved_id(id) && seen.insert(id.as_str()) {
            out.push(id.clone());
        }
    }
    if out.len() > MAX_FRIENDS {
        return Err(RuleError::new(
            "friends",
            "PF-4",
            format!(
                "a friend list holds at most {MAX_FRIENDS} players; this one has {}",
                out.len()
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn policy() -> ProfilePolicy {
        ProfilePolicy::new(&["badword"], vec!["a01".into(), "a02".into()], 30)
    }

    /// PF-1: normalised, trimmed, spaces collapsed; full-width letters become ASCII.
    #[test]
    fn names_are_normalised() {
        let p = policy();
        assert_eq!(normalize_name("  Ａｌｉｃｅ  ", &p).unwrap(), "Alice");
        assert_eq!(normalize_name("Mr   Bean", &p).unwrap(), "Mr Bean");
        assert_eq!(normalize_name("ﬁne", &p).unwrap(), "fine");
        assert_eq!(normalize_name("Ионела", &p).unwrap(), "Ионела");
        assert_eq!(normalize_name("لاعب", &p).unwrap(), "لاعب");
        // An emoji sequence with joiners is one grapheme.
        assert_eq!(normalize_name("ab👨‍👩‍👧", &p).unwrap(), "ab👨‍👩‍👧");
    }

    /// PF-1: the cases the issue names: too short, too long, zero-width, blocked.
    #[test]
    fn bad_names_are_refused_naming_name() {
        let p = policy();
        for bad in [
            "ab",
            "abcdefghijklmnopqrstuvwxy",
            "\u{200B}\u{200B}\u{200B}\u{200B}",
            "a\u{200B}bc",
            "BadWord99",
            "b.a.d w o r d",
            "\u{3164}\u{3164}\u{3164}",
            "abc\u{202E}def",
            "a\u{0007}bc",
            "   ",
        ] {
            let e = normalize_name(bad, &p).unwrap_err();
            assert_eq!((e.field.as_str(), e.rule), ("name", "PF-1"), "{bad:?}: {e}");
        }
        assert!(normalize_name(&"x".repeat(24), &p).is_ok());
        assert!(normalize_name("abc", &p).is_ok());
    }

    /// PF-1: piles of combining marks, invisible marks outside emoji, and confusable
    /// or case-folded spellings of a blocked term are refused; emoji sequences (ZWJ
    /// families with skin tones, tag flags) are one visible character each.
    #[test]
    fn hostile_names() {
        let p = ProfilePolicy::new(&["bad", "admin", "straße"], vec![], 30);
        for bad in [
            format!("Zed{}", "\u{0301}".repeat(30)),
            "Ione\u{034F}la".to_string(),
            "Ione\u{FE0F}la".to_string(),
            "Ione\u{17B4}la".to_string(),
            "x\u{E0100}yz".to_string(),
            "bаd guy".to_string(), // Cyrillic а
            "Admın".to_string(),
            "Strasse".to_string(),
        ] {
            let e = normalize_name(&bad, &p).expect_err(&bad);
            assert_eq!((e.field.as_str(), e.rule), ("name", "PF-1"), "{bad:?}: {e}");
        }
        assert!(normalize_name(&"é".repeat(24), &p).is_ok());
        for good in [
            "ab👨🏻‍👩🏻‍👧🏻‍👦🏻",
            "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}go",
            "❤️‍🔥 fan",
            "Sinclair",
        ] {
            assert!(
                normalize_name(good, &p).is_ok(),
                "{good:?}: {:?}",
                normalize_name(good, &p)
            );
        }
        // At most 200 bytes: 24 families of 25 bytes each are too many.
        let families = "👨‍👩‍👧‍👦".repeat(24);
        assert_eq!(normalize_name(&families, &p).unwrap_err().field, "name");
    }

    /// A blocklist of five terms, for the PF-1 cases below.
    fn probe_policy() -> ProfilePolicy {
        ProfilePolicy::new(&["bad", "admin", "hitler", "fuck", "nazi"], vec![], 30)
    }

    /// PF-1: refused as a blocked term (not for some other reason).
    fn assert_blocked(name: &str, p: &ProfilePolicy) {
        match normalize_name(name, p) {
            Err(e) => assert_eq!(
                (e.field.as_str(), e.rule, e.message.as_str()),
                ("name", "PF-1", "this name is not allowed"),
                "{name:?}"
            ),
            Ok(n) => panic!("{name:?} accepted as {n:?}"),
        }
    }

    /// PF-1: one accent, precomposed or combining, no longer hides a blocked term:
    /// `fück`, `fúck` (both ways), `bąd`, `bàd` with a combining grave.
    #[test]
    fn pf1_a_blocked_term_with_one_accent_is_refused() {
        let p = probe_policy();
        for name in [
            "fück",
            "fúck",
            "fu\u{301}ck",
            "bąd",
            "ba\u{300}d",
            "bàd",
            "b\u{336}a\u{336}d\u{336}",
        ] {
            assert_blocked(name, &p);
        }
    }

    /// PF-1: letter-like symbols spelling a blocked term are refused: negative squared
    /// and negative circled letters, regional indicators (`🇧🇦🇩`: a flag and a D on
    /// most screens, BAD on others), small capitals.
    #[test]
    fn pf1_letter_like_symbols_spelling_a_blocked_term_are_refused() {
        let p = probe_policy();
        for name in [
            "🅱🅰🅳",
            "🅑🅐🅓",
            "\u{1F1E7}\u{1F1E6}\u{1F1E9} x",
            "ʙᴀᴅ x",
            "ᴀᴅᴍɪɴ",
            "🅷🅸🆃🅻🅴🆁",
            "ΒΑD guy", // Greek capitals
            "ВАD guy", // Cyrillic capitals
            "ᏏᎪᎠ",
        ] {
            assert_blocked(name, &p);
        }
        // `℮` is `e` (Unicode TS #39): `b℮d` reads `bed`, blocked only where `bed` is.
        assert!(normalize_name("b℮d", &p).is_ok());
        assert_blocked("b℮d", &ProfilePolicy::new(&["bed"], vec![], 30));
    }

    /// PF-1: look-alikes outside Unicode TS #39 (`h1tler`, Cyrillic `у` in `fуck`,
    /// the runes `ᛋᛋ`) are not read as letters, and are refused once an operator
    /// lists them.
    #[test]
    fn pf1_spellings_outside_ts39_are_blocked_by_listing_them() {
        let names = ["h1tler", "f\u{443}ck", "\u{16CB}\u{16CB} guy"];
        let p = probe_policy();
        for name in names {
            assert!(normalize_name(name, &p).is_ok(), "{name:?}");
        }
        let listed = ProfilePolicy::new(&["h1tler", "f\u{443}ck", "\u{16CB}\u{16CB}"], vec![], 30);
        for name in names {
            assert_blocked(name, &listed);
        }
    }

    /// PF-1: tag characters hidden after an emoji that is no flag of England,
    /// Scotland or Wales are refused; those three flags are accepted.
    #[test]
    fn pf1_tags_outside_a_subdivision_flag_are_refused() {
        let p = probe_policy();
        for name in [
            "🏴\u{E0062}\u{E0061}\u{E0064}\u{E007F} ok",
            "😀\u{E0062}\u{E0061}\u{E0064}\u{E007F} ok",
            "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067} ok", // no cancel tag
            "🏴\u{E0075}\u{E0073}\u{E0063}\u{E0061}\u{E007F} ok", // California: not recommended
        ] {
            let e = normalize_name(name, &p).expect_err(name);
            assert_eq!((e.field.as_str(), e.rule), ("name", "PF-1"), "{name:?}: {e}");
            assert!(e.message.contains("U+E00"), "{name:?}: {e}");
        }
        for code in SUBDIVISION_FLAGS {
            let tags: String = code
                .chars()
                .filter_map(|c| char::from_u32(u32::from(c) + 0xE0000))
                .collect();
            let name = format!("🏴{tags}\u{E007F} fan");
            assert!(normalize_name(&name, &p).is_ok(), "{code}");
        }
    }

    /// PF-1: keycap emoji (`1️⃣`, `#️⃣`, `*️⃣`) are accepted; a variation selector
    /// after a plain digit or letter still is not.
    #[test]
    fn pf1_keycaps_are_accepted() {
        let p = probe_policy();
        for name in [
            "1\u{FE0F}\u{20E3}2\u{FE0F}\u{20E3}3\u{FE0F}\u{20E3}",
            "Team #\u{FE0F}\u{20E3}",
            "*\u{FE0F}\u{20E3} star",
            "1\u{20E3} go",
        ] {
            assert_eq!(normalize_name(name, &p).as_deref(), Ok(name));
        }
        for name in ["ab1\u{FE0F}", "a\u{FE0F}\u{20E3}bc", "ba\u{FE0F}d"] {
            assert!(normalize_name(name, &p).is_err(), "{name:?}");
        }
    }

    /// PF-1: real names stay accepted under a blocklist: accents, other scripts,
    /// emoji, flags, keycaps.
    #[test]
    fn pf1_legitimate_names_stay_accepted() {
        let p = probe_policy();
        for name in [
            "José",
            "Zoë",
            "Björk",
            "Ionela",
            "Ионела",
            "山田太郎",
            "김민준",
            "لاعب",
            "Ελένη",
            "Nguyễn Văn",
            "ab👨🏻‍👩🏻‍👧🏻‍👦🏻",
            "❤️‍🔥 fan",
            "\u{1F1F7}\u{1F1F4} Radu",
            "Team 1\u{FE0F}\u{20E3}",
            "Sinclair",
            "Nadia",
            "Bach",
        ] {
            assert!(
                normalize_name(name, &p).is_ok(),
                "{name:?}: {:?}",
                normalize_name(name, &p)
            );
        }
    }

    /// PF-1: other known spellings of blocked terms stay refused:
    /// case, separators, other scripts, compatibility forms, invisible characters.
    #[test]
    fn pf1_probed_spellings_stay_refused() {
        let p = probe_policy();
        for name in [
            "xbadx",
            "XBADX",
            "B.a d guy",
            "b\u{430}d guy",
            "Adm\u{131}n",
            "\u{FF42}\u{FF41}\u{FF44}",
            "\u{24D1}\u{24D0}\u{24D3}",
            "\u{1D41B}\u{1D41A}\u{1D41D}",
            "b\u{3B1}d guy",
            "b\u{251}d guy",
            "\u{13CF}\u{13AA}\u{13A0}",
            "\u{1F131}\u{1F130}\u{1F133}",
            "\u{249D}\u{249C}\u{249F}",
            "\u{1D47}\u{1D43}\u{1D48} x",
            "h\u{1D62}tler",
            "ba\u{16FE4}d",
            "h\u{131}tler",
            "h\u{456}tler",
            "\u{430}dmin",
            "b\u{A0}ad",
            "ba\u{3000}d",
            "ba\td",
            "\u{2102}\u{2115} bad",
            "\u{1D2E}\u{1D2C}\u{1D30}",
            "\u{1D51F}\u{1D51E}\u{1D521}",
            "ba\u{111}",
            "\u{253}ad",
            "b|a|d",
            "n-a-z-i",
        ] {
            assert!(normalize_name(name, &p).is_err(), "{name:?}");
        }
    }

    /// The small capitals of a … w, y and z (Unicode has none of x).
    const SMALL_CAPITALS: &str = "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡ-ʏᴢ";

    /// A way to write `letter` (a–z) that reads as it: itself, its capital, a
    /// compatibility or letter-like form, a small capital, or a confusable letter of
    /// another script (Unicode TS #39).
    fn disguises(letter: char) -> Vec<String> {
        let i = u32::from(letter) - u32::from('a');
        let at = |base: u32| char::from_u32(base + i).map(String::from);
        let mut out: Vec<String> = [
            Some(letter.to_string()),
            Some(letter.to_ascii_uppercase().to_string()),
            at(0xFF41),  // full-width
            at(0x1D41A), // mathematical bold
            at(0x24D0),  // circled
            at(0x249C),  // parenthesised
            at(0x1F130), // squared capital
            at(0x1F150), // negative circled capital
            at(0x1F170), // negative squared capital
            at(0x1F1E6), // regional indicator
            SMALL_CAPITALS
                .chars()
                .zip('a'..='z')
                .find(|&(capital, l)| l == letter && capital != '-')
                .map(|(capital, _)| capital.to_string()),
        ]
        .into_iter()
        .flatten()
        .collect();
        let confusables = match letter {
            'a' => "аαɑ⍺АΑᎪ",
            'b' => "ᏏвВΒᏴ",
            'c' => "сⅽС", // not Greek ϲ, which NFKC makes ς
            'd' => "ԁⅾᎠ",
            'e' => "еЕΕ",
            'h' => "һнНΗ",
            'i' => "іıɩιІΙ",
            'k' => "кκКΚ",
            'l' => "ӏⅼ",
            'm' => "мМΜ",
            'n' => "ΝՈ",
            'r' => "г",
            't' => "тτТΤ",
            'u' => "υս",
            'z' => "ΖᏃ",
            _ => "",
        };
        out.extend(confusables.chars().map(String::from));
        out
    }

    /// PF-1: every disguise of a letter has that letter's comparison form.
    #[test]
    fn pf1_every_disguise_reads_as_its_letter() {
        for letter in 'a'..='z' {
            for d in disguises(letter) {
                assert_eq!(
                    comparison_form(&d),
                    comparison_form(&letter.to_string()),
                    "{d:?} for {letter}"
                );
            }
        }
    }

    /// Combining marks a disguise may carry (U+0300 … U+036F but the grapheme joiner,
    /// which is refused as invisible; the overlays and enclosing circle, keycap).
    fn mark() -> impl Strategy<Value = char> {
        prop_oneof![
            (0x300u32..=0x36F).prop_filter_map("not the grapheme joiner", |c| {
                char::from_u32(c).filter(|&c| c != '\u{34F}')
            }),
            Just('\u{20DD}'),
            Just('\u{20E3}'),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// PF-1: any blocked term, each letter written as itself, its capital, a
        /// compatibility or letter-like form, a small capital or a confusable of
        /// another script, with combining marks added, among other letters, is
        /// refused as a blocked term.
        #[test]
        fn pf1_disguised_blocked_terms_are_refused(
            term in prop::sample::select(vec!["bad", "admin", "hitler", "fuck", "nazi"]),
            picks in prop::collection::vec((any::<prop::sample::Index>(), prop::collection::vec(mark(), 0..=3)), 6),
            before in "[a-z]{0,3}",
            after in "( [a-z]{1,3})?",
        ) {
            let p = probe_policy();
            let mut name = before;
            for (letter, (pick, marks)) in term.chars().zip(&picks) {
                let ways = disguises(letter);
                name.push_str(pick.get::<String>(&ways));
                name.extend(marks);
            }
            name.push_str(&after);
            if name.graphemes(true).count() < NAME_MIN {
                // Two regional indicators are one character: keep 3 at least.
                name.push_str(" go");
            }
            let refused = normalize_name(&name, &p);
            prop_assert!(
                matches!(&refused, Err(e) if e.field == "name" && e.message == "this name is not allowed"),
                "{:?} ({}): {:?}", name, name.escape_unicode(), refused
            );
        }
    }

    /// PF-4: a friend list body, every refusal naming its field.
    #[test]
    fn friend_list_bodies() {
        let ok = serde_json::json!({"friends": ["a", "b"]});
        assert_eq!(friends_from_json(&ok).unwrap(), vec!["a", "b"]);
        for (body, field) in [
            (serde_json::json!(["a"]), "body"),
            (serde_json::json!({"friends": ["a"], "x": 1}), "body"),
            (serde_json::json!({}), "friends"),
            (serde_json::json!({"friends": "a"}), "friends"),
            (serde_json::json!({"friends": ["a", 3]}), "friends[1]"),
        ] {
            assert_eq!(friends_from_json(&body).unwrap_err().field, field, "{body}");
        }
        let with_pseudonym = vec!["deleted-0123456789abcdef".to_string(), "c".to_string()];
        assert_eq!(check_friends("me", &with_pseudonym).unwrap(), vec!["c"]);
    }

    /// PF-2, PF-3: avatars from the set, countries by ISO code.
    #[test]
    fn avatars_and_countries() {
        let p = policy();
        assert_eq!(check_avatar("a01", &p).unwrap(), "a01");
        assert_eq!(check_avatar("a99", &p).unwrap_err().field, "avatar");
        assert_eq!(check_country("ro").unwrap(), "RO");
        for bad in ["XX", "ROU", "", "R"] {
            assert_eq!(check_country(bad).unwrap_err().field, "country", "{bad}");
        }
    }

    /// PF-3: the first setting is free; a second change within the interval is refused.
    #[test]
    fn country_changes_once_per_interval() {
        let p = policy();
        let day = 86_400_000;
        let set = |c: &str| ProfileChange {
            country: Change::Set(c.into()),
            ..Default::default()
        };
        let a = apply(&Profile::default(), &set("RO"), &p, 0).unwrap();
        assert_eq!(a.country_changed_at_ms, None);
        let b = apply(&a, &set("FR"), &p, day).unwrap();
        assert_eq!(b.card.country.as_deref(), Some("FR"));
        let e = apply(&b, &set("DE"), &p, 2 * day).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("country", "PF-3"));
        // Setting the same country again is no change.
        assert_eq!(apply(&b, &set("fr"), &p, 2 * day).unwrap(), b);
        // Removing counts as a change too.
        let off = ProfileChange {
            country: Change::Remove,
            ..Default::default()
        };
        assert!(apply(&b, &off, &p, 2 * day).is_err());
        assert!(apply(&b, &set("DE"), &p, 31 * day).is_ok());
    }

    /// PF-4: duplicates and the caller dropped, ids checked, the size capped.
    #[test]
    fn friend_lists() {
        let ids: Vec<String> = ["b", "c", "b", "me"].iter().map(|s| s.to_string()).collect();
        assert_eq!(check_friends("me", &ids).unwrap(), vec!["b", "c"]);
        let bad = vec!["ok".to_string(), "no#".to_string()];
        assert_eq!(check_friends("me", &bad).unwrap_err().field, "friends[1]");
        let many: Vec<String> = (0..=MAX_FRIENDS).map(|i| format!("f{i}")).collect();
        assert_eq!(check_friends("me", &many).unwrap_err().field, "friends");
    }
}
