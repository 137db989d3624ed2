//! The public ad-callback test vectors (real Google-signed AdMob callbacks, the Tink
//! test key's vectors, Unity's worked example), read from the folder that
//! `PODIUM_TESTDATA` names (`.ci/run` sets it when the workspace's shared test data
//! exists). They are public data from elsewhere and are never copied into this
//! repository; without the variable these tests say so and pass, and the vectors
//! signed at test time in `src/admob.rs` and `src/unity.rs` still cover the rules.

use std::path::PathBuf;

use base64::Engine;
use podium_ads::admob::{self, SignedCallback};
use podium_ads::keys::KeySet;
use podium_ads::{query, unity, AdError};
use serde_json::Value;

/// The ad-callbacks folder, or `None` (said out loud) when PODIUM_TESTDATA is unset.
fn folder() -> Option<PathBuf> {
    match std::env::var_os("PODIUM_TESTDATA") {
        Some(dir) => {
            let dir = PathBuf::from(dir).join("ad-callbacks");
            assert!(
                dir.is_dir(),
                "PODIUM_TESTDATA has no ad-callbacks folder: {}",
                dir.display()
            );
            Some(dir)
        }
        None => {
            eprintln!("external ad-callback vectors NOT checked: PODIUM_TESTDATA is not set");
            None
        }
    }
}

fn read(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The raw query of a callback as found (a bare query, or a URL with one).
fn raw_query(found: &str) -> &str {
    found.split_once('?').map_or(found, |(_, q)| q)
}

fn check(raw: &str, keys: &KeySet) -> Result<(), AdError> {
    let c = admob::split(raw)?;
    admob::verify(&c, keys)
}

/// Every real Google-signed callback verifies over the percent-decoded prefix, and
/// yields its ad view; every derived forgery is refused.
#[test]
fn admob_production_callbacks() {
    let Some(dir) = folder() else { return };
    let keys =
        KeySet::from_json(read(&dir, "admob/verifier-keys.prod-3335741209.json").as_bytes()).expect("keys");
    assert!(keys.get(3_335_741_209).is_some());
    let lines = read(&dir, "admob/prod-callbacks.txt");
    let mut checked = 0;
    for line in lines.lines().filter(|l| !l.trim().is_empty()) {
        let raw = raw_query(line.trim());
        check(raw, &keys).unwrap_or_else(|e| panic!("{raw}: {e}"));
        // Console test callbacks name no user: they verify but are no ad view to pay.
        match admob::view(&admob::split(raw).expect("split")) {
            Ok(view) => assert!(!view.transaction_id.is_empty()),
            Err(e) => assert_eq!(
                e,
                AdError::Malformed {
                    field: "user_id",
                    message: "missing".into()
                },
                "{raw}"
            ),
        }
        checked += 1;
    }
    assert_eq!(checked, 6);
    let manifest: Value = serde_json::from_str(&read(&dir, "admob/prod-callbacks.json")).expect("manifest");
    for v in manifest["valid"].as_array().expect("valid") {
        let id = v["id"].as_str().unwrap_or_default();
        if let Some(found) = v["as_found"].as_str() {
            check(raw_query(found), &keys).unwrap_or_else(|e| panic!("{id}: {e}"));
            let decoded = admob::split(raw_query(found)).expect("split").content;
            assert_eq!(
                String::from_utf8_lossy(&decoded),
                v["signed_content_decoded"].as_str().unwrap_or_default(),
                "{id}"
            );
        } else {
            // Stored as signed content and signature apart.
            let content = v["signed_content_as_found"].as_str().expect("content");
            let signature = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(v["signature_as_found"].as_str().expect("signature"))
                .expect("base64url");
            let c = SignedCallback {
                raw_signed: content,
                content: query::percent_decode(content).expect("decode"),
                signature,
                key_id: v["key_id"].as_u64().expect("key id"),
            };
            admob::verify(&c, &keys).unwrap_or_else(|e| panic!("{id}: {e}"));
        }
    }
    for v in manifest["invalid_derived"].as_array().expect("invalid") {
        let id = v["id"].as_str().unwrap_or_default();
        let raw = v["url"].as_str().expect("url");
        assert!(check(raw_query(raw), &keys).is_err(), "{id} must be refused");
    }
}

/// The vectors signed with the published Tink test key: valid ones verify, invalid
/// ones are refused; with Tink's alternate key under the same id, none verifies.
#[test]
fn tink_test_key_vectors() {
    let Some(dir) = folder() else { return };
    let keys = KeySet::from_json(read(&dir, "admob/tink-test-keys.json").as_bytes()).expect("keys");
    let alternate = read(&dir, "admob/tink-alternate-public-key.spki.b64");
    let alternate = KeySet::from_json(
        serde_json::json!({"keys": [{"keyId": 1234, "base64": alternate.trim()}]})
            .to_string()
            .as_bytes(),
    )
    .expect("alternate");
    let vectors: Value =
        serde_json::from_str(&read(&dir, "admob/synthetic-tink-key-vectors.json")).expect("vectors");
    for v in vectors["vectors"].as_array().expect("vectors") {
        let name = v["name"].as_str().unwrap_or_default();
        let raw = raw_query(v["url"].as_str().expect("url"));
        match v["expect"].as_str() {
            Some("valid") => {
                check(raw, &keys).unwrap_or_else(|e| panic!("{name}: {e}"));
                let signed = admob::split(raw).expect("split");
                assert_eq!(
                    String::from_utf8_lossy(&signed.content),
                    v["signed_content"].as_str().unwrap_or_default(),
                    "{name}"
                );
                assert_eq!(
                    check(raw, &alternate),
                    Err(AdError::BadSignature),
                    "{name} with the alternate key"
                );
            }
            _ => assert!(check(raw, &keys).is_err(), "{name} must be refused"),
        }
    }
}

/// The key JSON of Tink's documentation: the P-256 key is kept, the secp256k1 one left
/// out (a callback naming it is signed with an unknown key).
#[test]
fn tink_documentation_keys() {
    let Some(dir) = folder() else { return };
    let text = read(&dir, "admob/tink-javadoc-keys-sample.txt");
    // Not strict JSON (unquoted names, trailing commas): take each keyId and base64.
    let mut keys = Vec::new();
    let mut id = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("keyId:") {
            id = rest.trim().trim_end_matches(',').parse::<u64>().ok();
        }
        if let (Some(rest), Some(k)) = (line.strip_prefix("base64:"), id) {
            let b64 = rest.trim().trim_end_matches(',').trim_matches('"');
            keys.push(serde_json::json!({"keyId": k, "base64": b64}));
        }
    }
    assert_eq!(keys.len(), 2);
    let set = KeySet::from_json(serde_json::json!({ "keys": keys }).to_string().as_bytes()).expect("keys");
    assert!(set.get(1_916_455_855).is_some());
    assert!(set.get(3_901_585_526).is_none(), "secp256k1 is not P-256");
}

/// Unity Ads' worked example: HMAC-MD5 of the sorted parameters.
#[test]
fn unity_ads_worked_example() {
    let Some(dir) = folder() else { return };
    let v: Value = serde_json::from_str(&read(&dir, "unity-ads/s2s-hmac-md5.json")).expect("vector");
    let secret = v["secret"].as_str().expect("secret");
    let raw = raw_query(v["url_without_hmac"].as_str().expect("url"));
    let params = query::params(raw).expect("params");
    assert_eq!(
        unity::signed_text(&params),
        v["parameter_string"].as_str().expect("string")
    );
    assert_eq!(
        unity::sign(secret.as_bytes(), &unity::signed_text(&params)),
        v["expected_hmac"].as_str().expect("hmac")
    );
    let signed = raw_query(v["signed_url"].as_str().expect("signed url"));
    let now = chrono::Utc::now();
    let view = unity::verify(signed, secret.as_bytes(), now).expect("verifies");
    assert_eq!(view.player_id, "1234567890");
    assert_eq!(unity::SUCCESS_BODY, "1");
}
