//! The form in which display names and blocked terms are compared (PF-1): built in
//! one pass, in one documented order, so that no step undoes another (a mark split
//! off is never joined back to its letter by a later normalisation).
//!
//! The steps are Unicode's where Unicode has one, through the crates the profile
//! rules already use: `unicode-normalization` (NFKC, NFD), `caseless` (full case
//! folding), `unicode-security` (the TS #39 confusable skeleton) and
//! `unicode-properties` (general categories, regional indicators). What none of them
//! maps, the letter-like symbols and the small capitals, is the one table here.

use caseless::Caseless;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::emoji::is_regional_indicator;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
use unicode_security::confusable_detection::skeleton;

/// The comparison form of `s` (PF-1): a name contains a blocked term when its form
/// contains the term's form. Both are built here, in this order:
///
/// 1. **Compatibility normalisation** (NFKC): full-width, circled, parenthesised,
///    squared, mathematical, superscript, subscript and modifier letters become the
///    letters they are (`ｂ`, `ⓑ`, `⒝`, `🄱`, `𝐛`, `ᵇ`, `ᴮ` are `b`; `ℂ` is `C`).
/// 2. **Canonical decomposition** (NFD): an accented letter becomes its letter and
///    its marks (`à` is `a` and U+0300).
/// 3. **Marks removed** (general category M): accents, overlays, variation
///    selectors and the keycap's enclosure (`fück`, `ba\u{300}d`, `bąd`, `b̶a̶d̶`
///    are `fuck` and `bad`). No later step recomposes. Marks go before case folding,
///    which would make one of them (U+0345) the letter `ι`.
/// 4. **Case folding**, Unicode's full folding (`Straße` is `strasse`). A capital
///    whose confusable prototype (step 6) is a Latin capital reads as that Latin
///    letter instead (Greek `Β`, Cyrillic `Н`, Cherokee `Ꭺ`), since its own small
///    form (`β`, `н`) does not look like it.
/// 5. **Separators dropped**: punctuation, spaces, control, format (tags,
///    joiners) and private-use characters, and the ASCII symbols (`B.a d`, `b|a|d`,
///    `b_a_d` contain `bad`). Letters, numbers and the other symbols remain.
/// 6. **Confusable skeleton** (Unicode TS #39): every character becomes its
///    prototype (Cyrillic `а` is `a`, `ı` and `і` are `i`, `1` is `l`, `m` is `rn`,
///    `⍺` is `a`, `℮` is `e`, Cyrillic `в` is the small capital `ʙ`).
/// 7. **Letter-like symbols mapped** to the Latin letters they show, written as the
///    skeleton writes them (`m` as `rn`): negative circled and negative squared
///    letters (`🅑`, `🅱`) and squared words (`🆗`), regional indicators (`🇧`,
///    whether or not two of them pair into a flag: `🇧🇦🇩` is `bad`), the small
///    capitals the skeleton leaves (`ʙᴀᴅ`), and the Latin capitals it chooses as
///    prototypes (Cherokee `Ꭺ` is `A`, `0` is `O`), lower-cased.
/// 8. **Only letters and numbers kept**: the marks the skeleton writes (`ɓ` is
///    `b` and U+0314, `đ` is `d` and U+0335) and symbols that show no letter go.
///
/// Stable (the same text always gives the same form) and blind to what PF-1 lets
/// a name hold: a keycap `1️⃣` is `l`, an emoji is nothing.
pub(super) fn comparison_form(s: &str) -> String {
    // Steps 1–3.
    let unmarked = s
        .nfkc()
        .nfd()
        .filter(|c| c.general_category_group() != GeneralCategoryGroup::Mark);
    // Step 4, then 5.
    let mut folded = String::with_capacity(s.len());
    for c in unmarked {
        match latin_capital(c) {
            Some(latin) => folded.push(latin.to_ascii_lowercase()),
            None => folded.extend(std::iter::once(c).default_case_fold()),
        }
    }
    folded.retain(|c| !separator(c));
    // Steps 6–8.
    let mut form = String::with_capacity(folded.len());
    for c in skeleton(&folded) {
        match letter_like(c) {
            Some(latin) => form.extend(skeleton(latin)),
            None if matches!(
                c.general_category_group(),
                GeneralCategoryGroup::Letter | GeneralCategoryGroup::Number
            ) =>
            {
                form.push(c)
            }
            None => {}
        }
    }
    form
}

/// The Latin capital a non-Latin capital is confusable with (step 4): Greek `Β` is
/// `B`, Cyrillic `Н` is `H`; `None` for any other character, Latin ones included
/// (their own folding says what they are).
fn latin_capital(c: char) -> Option<char> {
    if c.is_ascii() || !c.is_uppercase() {
        return None;
    }
    let mut buf = [0u8; 4];
    let mut prototype = skeleton(c.encode_utf8(&mut buf));
    match (prototype.next(), prototype.next()) {
        (Some(p), None) if p.is_ascii_uppercase() => Some(p),
        _ => None,
    }
}

/// What step 5 drops: what stands between letters without being one.
fn separator(c: char) -> bool {
    use GeneralCategoryGroup::*;
    match c.general_category_group() {
        Letter | Number => false,
        Symbol => c.is_ascii(),
        Mark | Punctuation | Separator | Other => true,
    }
}

/// Letters in the order of the regional indicators and the enclosed letters.
const ALPHABET: &str = "abcdefghijklmnopqrstuvwxyz";

/// The enclosed letters NFKC leaves as they are (Enclosed Alphanumeric Supplement):
/// the first code point of each run of 26, from A.
const ENCLOSED_RUNS: [u32; 2] = [
    0x1F150, // NEGATIVE CIRCLED LATIN CAPITAL LETTER A … Z
    0x1F170, // NEGATIVE SQUARED LATIN CAPITAL LETTER A … Z
];

/// The other letter-like symbols of the Enclosed Alphanumeric Supplement NFKC
/// leaves as they are, with the letters they show.
const ENCLOSED_WORDS: [(char, &str); 17] = [
    ('\u{1F18A}', "p"), // CROSSED NEGATIVE SQUARED LATIN CAPITAL LETTER P
    ('\u{1F18B}', "ic"),
    ('\u{1F18C}', "pa"),
    ('\u{1F18D}', "sa"),
    ('\u{1F18E}', "ab"),
    ('\u{1F18F}', "wc"),
    ('\u{1F191}', "cl"),
    ('\u{1F192}', "cool"),
    ('\u{1F193}', "free"),
    ('\u{1F194}', "id"),
    ('\u{1F195}', "new"),
    ('\u{1F196}', "ng"),
    ('\u{1F197}', "ok"),
    ('\u{1F198}', "sos"),
    ('\u{1F199}', "up"),
    ('\u{1F19A}', "vs"),
    ('\u{1F1A5}', "d"), // SQUARED LATIN SMALL LETTER D
];

/// The small capitals the skeleton keeps as their own prototypes (it maps `ᴄ`,
/// `ɪ`, `ᴏ`, `ꜱ`, `ᴜ`, `ᴠ`, `ᴡ`, `ʏ`, `ᴢ` to Latin letters itself, `ᴋ` to `ĸ` and
/// `ᴍ` to `ʍ`), and those two, with the letters they show. They are also the
/// prototypes of Cyrillic `в`, `н`, `т`, `к`, `м` and Greek `τ`, `κ`.
const SMALL_CAPITALS: [(char, &str); 16] = [
    ('\u{1D00}', "a"), // ᴀ
    ('\u{0299}', "b"), // ʙ
    ('\u{1D05}', "d"), // ᴅ
    ('\u{1D07}', "e"), // ᴇ
    ('\u{A730}', "f"), // ꜰ
    ('\u{0262}', "g"), // ɢ
    ('\u{029C}', "h"), // ʜ
    ('\u{1D0A}', "j"), // ᴊ
    ('\u{0138}', "k"), // ĸ, the prototype of ᴋ
    ('\u{029F}', "l"), // ʟ
    ('\u{028D}', "m"), // ʍ, the prototype of ᴍ
    ('\u{0274}', "n"), // ɴ
    ('\u{1D18}', "p"), // ᴘ
    ('\u{A7AF}', "q"), // ꞯ
    ('\u{0280}', "r"), // ʀ
    ('\u{1D1B}', "t"), // ᴛ
];

/// The Latin letters a letter-like symbol or a prototype of step 7 shows, in
/// lower case; `None` for anything else.
fn letter_like(c: char) -> Option<&'static str> {
    let letter = |offset: u32| {
        let i = usize::try_from(offset).ok()?;
        ALPHABET.get(i..i + 1)
    };
    if c.is_ascii_uppercase() {
        return letter(u32::from(c) - u32::from('A'));
    }
    if is_regional_indicator(c) {
        return letter(u32::from(c) - 0x1F1E6);
    }
    let code = u32::from(c);
    if let Some(start) = ENCLOSED_RUNS
        .iter()
        .find(|&&start| (start..start + 26).contains(&code))
    {
        return letter(code - start);
    }
    ENCLOSED_WORDS
        .iter()
        .chain(SMALL_CAPITALS.iter())
        .find(|(symbol, _)| *symbol == c)
        .map(|(_, latin)| *latin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(s: &str) -> String {
        comparison_form(s)
    }

    /// PF-1: accents, whether precomposed or combining, are gone from the form
    /// (the skeleton's own decomposition is never recomposed).
    #[test]
    fn marks_are_removed_and_stay_removed() {
        for s in ["fück", "fúck", "fu\u{301}ck", "FÜCK"] {
            assert_eq!(form(s), form("fuck"), "{s:?}");
        }
        for s in [
            "bąd",
            "bàd",
            "ba\u{300}d",
            "b\u{336}a\u{336}d\u{336}",
            "ɓad",
            "bađ",
        ] {
            assert_eq!(form(s), "bad", "{s:?}");
        }
        // U+0345 is a mark, not the letter ι its case folding would give.
        assert_eq!(form("ba\u{345}d"), "bad");
    }

    /// PF-1: letter-like symbols NFKC leaves alone show their letters.
    #[test]
    fn letter_like_symbols_show_their_letters() {
        for s in [
            "🅱🅰🅳",
            "🅑🅐🅓",
            "\u{1F1E7}\u{1F1E6}\u{1F1E9}",
            "ʙᴀᴅ",
            "ＢＡＤ",
            "ⓑⓐⓓ",
            "🄱🄰🄳",
            "𝐛𝐚𝐝",
            "⒝⒜⒟",
            "ᵇᵃᵈ",
            "ᴮᴬᴰ",
        ] {
            assert_eq!(form(s), "bad", "{s:?}");
        }
        assert_eq!(form("🆗"), "ok");
        assert_eq!(form("b℮d"), "bed");
        assert_eq!(form("ᴍ"), form("m"));
        assert_eq!(form("🅼"), "rn", "m as the skeleton writes it");
    }

    /// PF-1: every small capital shows the letter it is a small capital of (Unicode
    /// has none of x).
    #[test]
    fn every_small_capital_is_its_letter() {
        let capitals = "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡ-ʏᴢ";
        for (capital, letter) in capitals.chars().zip(ALPHABET.chars()).filter(|(c, _)| *c != '-') {
            assert_eq!(form(&capital.to_string()), form(&letter.to_string()), "{capital}");
        }
    }

    /// PF-1: capitals of other scripts that look like Latin capitals read as them,
    /// and small letters of other scripts that look like small capitals too.
    #[test]
    fn look_alike_capitals_and_small_capitals() {
        assert_eq!(form("ΒΑD"), "bad"); // Greek Beta, Alpha
        assert_eq!(form("ВАD"), "bad"); // Cyrillic Ve, A
        assert_eq!(form("вад"), form("bад"));
        assert_eq!(form("ᏏᎪᎠ"), "bad"); // Cherokee
        assert_eq!(form("НІТLЕR"), form("hitler")); // Cyrillic
        assert_eq!(form("ADMIN"), form("admin"));
        assert_eq!(form("Admın"), form("admin"));
    }

    /// PF-1: what stands between letters is ignored; emoji, tags and keycaps are
    /// nothing but their letters.
    #[test]
    fn separators_and_emoji() {
        for s in [
            "B.a d",
            "b|a|d",
            "b_a_d",
            "b\u{00A0}ad",
            "ba\u{3000}d",
            "b★a★d",
            "b😀a😀d",
        ] {
            assert_eq!(form(s), "bad", "{s:?}");
        }
        assert_eq!(form("1\u{FE0F}\u{20E3}"), form("1"));
        assert_eq!(form("🏴\u{E0062}\u{E0061}\u{E0064}\u{E007F}"), "");
        assert_eq!(form("❤️‍🔥"), "");
    }

    /// PF-1: names in other scripts keep their letters (only their marks go).
    #[test]
    fn other_scripts_keep_their_letters() {
        assert_eq!(form("José"), form("jose"));
        assert_eq!(form("Zoë"), form("zoe"));
        assert_eq!(form("山田太郎"), "山田太郎");
        assert!(!form("Ионела").is_empty());
        assert!(!form("لاعب").is_empty());
    }
}
