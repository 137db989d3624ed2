//! Property-based fuzzing (issue 13) of the ad-callback parsers: `query::params`,
//! `query::percent_decode`, `admob::split`, `admob::view`, `admob::verify` and
//! `unity::verify`, on arbitrary query strings and on mutations of callbacks signed at
//! test time (a character changed, inserted or deleted, the query cut short or
//! extended, a parameter repeated, moved or swapped, separators and escapes added).
//!
//! Properties: nothing panics; a mutated AdMob callback verifies only when what the
//! signature covers (the percent-decoded part before `&signature=`) is unchanged, and
//! a mutated Unity Ads callback only when its signed text (the sorted `k=v` pairs) is
//! unchanged; every refusal is an `AdError` whose display is `field: message`, naming a
//! parameter of the callback (or `query`), with a bounded message.
//!
//! The test command runs a smoke run (seconds in a debug build). The long run:
//! `PROPTEST_CASES=1000000 cargo test --release -p podium-ads --test fuzz_callbacks
//! -- --nocapture`, or `scripts/fuzz-long`.

use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use p256::ecdsa::SigningKey;
use p256::pkcs8::EncodePublicKey;
use podium_ads::admob::{self, SignedCallback};
use podium_ads::keys::KeySet;
use podium_ads::{query, unity, AdError};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[path = "../../testing/fuzz.rs"]
mod fuzz;
use fuzz::fuzz;

const KEY_ID: u64 = 7;

fn signing_key() -> SigningKey {
    SigningKey::from_slice(&[7u8; 32]).expect("key")
}

/// The verifier-key set holding the test key as id 7, through the published format.
fn keys() -> &'static KeySet {
    static KEYS: OnceLock<KeySet> = OnceLock::new();
    KEYS.get_or_init(|| {
        let der = signing_key().verifying_key().to_public_key_der().expect("der");
        let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, der.as_bytes());
        let json = format!(r#"{{"keys":[{{"keyId":{KEY_ID},"base64":"{b64}"}}]}}"#);
        KeySet::from_json(json.as_bytes()).expect("keys")
    })
}

/// AdMob callbacks signed once at start (ECDSA signing is slow in a debug build):
/// plain, with encoded values, with `custom_data` holding `&`, `=` and the text
/// `&signature=`, unicode, and a test-unit callback without a user.
fn signed_admob() -> &'static [String] {
    static SIGNED: OnceLock<Vec<String>> = OnceLock::new();
    SIGNED.get_or_init(|| {
        let base = "ad_network=5450213213286189855&ad_unit=1234567890&reward_amount=40&reward_item=points&timestamp=1709251200000&transaction_id=abc123&user_id=player-42";
        [
            base.to_string(),
            format!("custom_data=hello%20world%2B%7E&{base}"),
            format!("custom_data=%7B%22slot%22%3A%22a%26b%3Dc%22%7D&{base}"),
            format!("custom_data=x%26signature%3Dy%26key_id%3D7&{base}"),
            format!("{base}&custom_data=%C3%A9t%C3%A9%20%E2%9C%93"),
            "ad_network=5450213213286189855&ad_unit=1234567890&reward_amount=1&reward_item=Reward&timestamp=1709251200001&transaction_id=123456789".to_string(),
            "ad_unit=5224354917&timestamp=-1&transaction_id=t&user_id=p".to_string(),
            String::new(),
        ]
        .iter()
        .map(|params| admob::sign(&signing_key(), params, KEY_ID).expect("sign"))
        .collect()
    })
}

/// The parameter names the callbacks' refusals may name.
const FIELDS: &[&str] = &[
    "signature",
    "key_id",
    "query",
    "timestamp",
    "ad_unit",
    "transaction_id",
    "user_id",
    "ts",
    "productid",
    "oid",
    "sid",
];

/// The field an error names, as its display leads with it.
fn field_of(e: &AdError) -> &'static str {
    match e {
        AdError::MissingSignature | AdError::BadSignature => "signature",
        AdError::UnknownKey(_) => "key_id",
        AdError::Malformed { field, .. } => field,
        AdError::ForeignAdUnit => "ad_unit",
    }
}

/// The refusal property: a callback parameter named first, a bounded message.
fn check_refusal(e: &AdError, raw: &str) -> Result<(), TestCaseError> {
    let field = field_of(e);
    let shown = e.to_string();
    let context = || format!("{shown:?} for {:?}", &raw[..raw.floor_char_boundary(300)]);
    prop_assert!(FIELDS.contains(&field), "unknown field: {}", context());
    prop_assert!(shown.starts_with(&format!("{field}: ")), "{}", context());
    prop_assert!(shown.chars().count() <= 200, "unbounded message: {}", context());
    Ok(())
}

/// One change to a signed query.
#[derive(Debug, Clone)]
enum Edit {
    /// Replace a character.
    Char(prop::sample::Index, char),
    /// Insert text at a character.
    Insert(prop::sample::Index, String),
    /// Delete up to a few characters.
    Delete(prop::sample::Index, usize),
    /// Cut the query short.
    Truncate(prop::sample::Index),
    /// Append text.
    Append(String),
    /// Repeat one `&`-separated part, at the end or the start.
    Repeat(prop::sample::Index, bool),
    /// Swap two `&`-separated parts.
    Swap(prop::sample::Index, prop::sample::Index),
    /// Change the case of a character.
    Case(prop::sample::Index),
}

fn query_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => prop::sample::select(
            "abcdefxyzABCDEF0123456789%&=+-_.~/ ".chars().collect::<Vec<_>>()
        ),
        1 => any::<char>(),
    ]
}

fn snippet() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "&",
            "=",
            "%",
            "%2",
            "%zz",
            "%00",
            "%FF",
            "%C3",
            "+",
            "&signature=",
            "&key_id=",
            "&key_id=7",
            "&key_id=18446744073709551616",
            "&hmac=",
            "&hmac=00",
            "&user_id=mallory",
            "&ts=1",
            "&ts=99999999999999999999",
            "&timestamp=1e3",
            "&transaction_id=",
            "&sid=x",
            "=&=&",
        ])
        .prop_map(str::to_string),
        "[a-z_]{1,10}=[a-zA-Z0-9%]{0,10}".prop_map(|p| format!("&{p}")),
        "\\PC{1,6}",
        // Past the longest query accepted.
        (8_000usize..8_300).prop_map(|n| "a1".repeat(n / 2)),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<prop::sample::Index>;
    prop_oneof![
        4 => (at(), query_char()).prop_map(|(i, c)| Edit::Char(i, c)),
        2 => (at(), snippet()).prop_map(|(i, s)| Edit::Insert(i, s)),
        2 => (at(), 1usize..6).prop_map(|(i, n)| Edit::Delete(i, n)),
        1 => at().prop_map(Edit::Truncate),
        1 => snippet().prop_map(Edit::Append),
        1 => (at(), any::<bool>()).prop_map(|(i, end)| Edit::Repeat(i, end)),
        1 => (at(), at()).prop_map(|(i, j)| Edit::Swap(i, j)),
        1 => at().prop_map(Edit::Case),
    ]
}

/// `raw` with `edits` applied.
fn apply(raw: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = raw.chars().collect();
    for edit in edits {
        match edit {
            Edit::Char(i, c) if !chars.is_empty() => {
                let at = i.index(chars.len());
                chars[at] = *c;
            }
            Edit::Insert(i, s) => {
                let at = i.index(chars.len() + 1);
                chars.splice(at..at, s.chars());
            }
            Edit::Delete(i, n) if !chars.is_empty() => {
                let at = i.index(chars.len());
                let end = (at + n).min(chars.len());
                chars.drain(at..end);
            }
            Edit::Truncate(i) => {
                let at = i.index(chars.len() + 1);
                chars.truncate(at);
            }
            Edit::Append(s) => chars.extend(s.chars()),
            Edit::Repeat(i, end) => {
                let text: String = chars.iter().collect();
                let parts: Vec<&str> = text.split('&').collect();
                let part = *i.get(&parts);
                let repeated = if *end {
                    format!("{text}&{part}")
                } else {
                    format!("{part}&{text}")
                };
                chars = repeated.chars().collect();
            }
            Edit::Swap(i, j) => {
                let text: String = chars.iter().collect();
                let mut parts: Vec<&str> = text.split('&').collect();
                let (a, b) = (i.index(parts.len()), j.index(parts.len()));
                parts.swap(a, b);
                chars = parts.join("&").chars().collect();
            }
            Edit::Case(i) if !chars.is_empty() => {
                let at = i.index(chars.len());
                let c = chars[at];
                chars[at] = if c.is_ascii_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Every parser on `raw`, as the ad-reward route runs them, each refusal checked;
/// returns the AdMob callback when it split.
fn parse_all(raw: &str) -> Result<Option<SignedCallback<'_>>, TestCaseError> {
    match query::percent_decode(raw) {
        Ok(decoded) => prop_assert!(decoded.len() <= raw.len()),
        Err(e) => check_refusal(&e, raw)?,
    }
    if let Err(e) = query::params(raw) {
        check_refusal(&e, raw)?;
    }
    if let Err(e) = unity::verify(raw, b"unity secret", arrived()) {
        check_refusal(&e, raw)?;
    }
    match admob::split(raw) {
        Ok(c) => {
            if let Err(e) = admob::view(&c) {
                check_refusal(&e, raw)?;
            }
            if let Err(e) = admob::verify(&c, keys()) {
                check_refusal(&e, raw)?;
            }
            Ok(Some(c))
        }
        Err(e) => {
            check_refusal(&e, raw)?;
            Ok(None)
        }
    }
}

fn arrived() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).expect("instant")
}

/// Whatever query string arrives, the callback parsers answer (never panic), and
/// each refusal names a callback parameter with a bounded message.
#[test]
fn ad_callback_parsers_never_panic_and_name_the_field() {
    let raw = prop_oneof![
        "\\PC{0,80}",
        "[a-z_=&%0-9A-F+]{0,200}",
        prop::collection::vec(("[a-z_]{0,12}", "[a-zA-Z0-9%+=._-]{0,24}"), 0..10).prop_map(|kv| {
            kv.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&")
        }),
        (
            any::<prop::sample::Index>(),
            "[A-Za-z0-9_=-]{0,120}",
            "[0-9]{0,22}"
        )
            .prop_map(|(i, sig, key)| {
                let parts = [
                    "ad_unit=1&timestamp=1&transaction_id=t&user_id=p",
                    "timestamp=17092512000000000000000&user_id=p",
                    "",
                ];
                format!("{}&signature={sig}&key_id={key}", i.get(&parts))
            }),
        (8_180usize..8_200).prop_map(|n| "x".repeat(n)),
    ];
    fuzz("ad-callback parsers, arbitrary queries", 5_000, raw, |raw| {
        if let Some(c) = parse_all(&raw)? {
            // Nobody but the test key signs: an arbitrary query never verifies.
            prop_assert!(admob::verify(&c, keys()).is_err(), "{raw:?} verified");
        }
        Ok(())
    });
}

/// SG-10, MJ-19: a signed AdMob callback, altered, verifies only if what the
/// signature covers is unchanged (its percent-decoded part before `&signature=`), and
/// a view read from it is the original's (re-encoding which `&` and `=` are
/// separators names no other player, transaction or ad unit).
#[test]
fn altered_admob_callbacks_verify_only_with_the_signed_part_unchanged() {
    let strategy = (any::<prop::sample::Index>(), prop::collection::vec(edit(), 1..4));
    fuzz(
        "AdMob, altered signed callbacks",
        1_000,
        strategy,
        |(i, edits)| {
            let original = i.get(signed_admob());
            let signed = admob::split(original).expect("split").content;
            let altered = apply(original, &edits);
            if let Some(c) = parse_all(&altered)? {
                if admob::verify(&c, keys()).is_ok() {
                    prop_assert_eq!(
                        &c.content,
                        &signed,
                        "{:?} verified with other content than {:?}",
                        altered,
                        original
                    );
                    if let Ok(view) = admob::view(&c) {
                        let first = admob::split(original).ok().and_then(|o| admob::view(&o).ok());
                        prop_assert_eq!(
                            Some(view),
                            first,
                            "{:?} read as another view than {:?}",
                            altered,
                            original
                        );
                    }
                }
            }
            Ok(())
        },
    );
}

/// SG-10, MJ-19: a signed Unity Ads callback, altered, verifies only if its signed
/// text (every other parameter, sorted) is unchanged.
#[test]
fn altered_unity_callbacks_verify_only_with_the_signed_text_unchanged() {
    let params = prop::collection::vec(
        (
            prop_oneof![
                prop::sample::select(vec!["sid", "oid", "productid", "ts", "hmac2", "x"])
                    .prop_map(str::to_string),
                "[a-z]{1,6}"
            ],
            "[a-zA-Z0-9._-]{0,16}",
        ),
        0..6,
    );
    let strategy = (params, any::<Option<i64>>(), prop::collection::vec(edit(), 1..4));
    let secret = b"unity secret";
    fuzz(
        "Unity Ads, altered signed callbacks",
        3_000,
        strategy,
        |(params, ts, edits)| {
            let mut pairs = vec![
                ("sid".to_string(), "player-42".to_string()),
                ("oid".to_string(), "0987654321".to_string()),
                ("productid".to_string(), "1234".to_string()),
            ];
            for (k, v) in params {
                if !pairs.iter().any(|(seen, _)| *seen == k) {
                    pairs.push((k, v));
                }
            }
            if let Some(ts) = ts {
                if !pairs.iter().any(|(seen, _)| seen == "ts") {
                    pairs.push(("ts".into(), ts.to_string()));
                }
            }
            let text = unity::signed_text(&pairs);
            let raw = pairs
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&");
            let original = format!("{raw}&hmac={}", unity::sign(secret, &text));
            prop_assert!(
                !matches!(
                    unity::verify(&original, secret, arrived()),
                    Err(AdError::BadSignature | AdError::MissingSignature)
                ),
                "{original:?} does not verify"
            );
            let altered = apply(&original, &edits);
            parse_all(&altered)?;
            match unity::verify(&altered, secret, arrived()) {
                Err(AdError::BadSignature | AdError::MissingSignature) => {}
                // Refused before the signature was checked (the query does not parse).
                Err(_) if query::params(&altered).is_err() => {}
                // Refused before the signature was checked: a separator of the signed
                // text inside a parameter (its text would be ambiguous).
                Err(AdError::Malformed { .. })
                    if query::params(&altered).is_ok_and(|p| {
                        p.iter()
                            .any(|(k, v)| k.contains([',', '=']) || (k != "hmac" && v.contains([',', '='])))
                    }) => {}
                // Verified (a view, or a refusal after the signature): the signed text is unchanged.
                verified => {
                    let now = query::params(&altered).expect("verified params");
                    prop_assert_eq!(
                        unity::signed_text(&now),
                        text,
                        "{:?} verified ({:?}) with other content than {:?}",
                        altered,
                        verified,
                        original
                    );
                }
            }
            Ok(())
        },
    );
}
