//! AdMob server-side verification (SSV) of rewarded-ad callbacks: ECDSA P-256 with
//! SHA-256, the DER signature in unpadded base64url.
//!
//! The callback's `signature` and `key_id` are its last two parameters. The signed
//! content is the raw query before the first `&signature=`, percent-decoded (`%XX`
//! only; `+` stays `+`); what follows it must be exactly
//! `<signature>&key_id=<digits>`. The query must be the raw one the request carried
//! (the HTTP API's `rawQueryString`), never one re-encoded from parsed parameters:
//! real Google-signed callbacks verify only over that exact decoding.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::DateTime;
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{Signature, VerifyingKey};
use podium_rules::reward::{AdNetwork, AdView};

use crate::error::AdError;
use crate::keys::KeySet;
use crate::query::{self, cut, MAX_QUERY_BYTES};

/// The test ad unit of AdMob's console test callbacks.
pub const TEST_AD_UNIT: &str = "1234567890";

const SIGNATURE: &str = "&signature=";
const KEY_ID: &str = "&key_id=";

/// A callback split into what was signed and its signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedCallback<'a> {
    /// The raw query before `&signature=`.
    pub raw_signed: &'a str,
    /// What the signature covers: `raw_signed` percent-decoded.
    pub content: Vec<u8>,
    /// The DER signature.
    pub signature: Vec<u8>,
    pub key_id: u64,
}

/// Splits a raw query (without `?`) into the signed content and its signature.
pub fn split(raw: &str) -> Result<SignedCallback<'_>, AdError> {
    if raw.len() > MAX_QUERY_BYTES {
        return Err(AdError::malformed("query", "too long"));
    }
    let at = raw.find(SIGNATURE).ok_or(AdError::MissingSignature)?;
    let (raw_signed, tail) = (&raw[..at], &raw[at + SIGNATURE.len()..]);
    let (sig, key) = tail
        .split_once(KEY_ID)
        .ok_or_else(|| AdError::malformed("key_id", "missing after the signature"))?;
    if sig.is_empty() {
        return Err(AdError::MissingSignature);
    }
    if key.is_empty() || !key.bytes().all(|c| c.is_ascii_digit()) {
        return Err(AdError::malformed(
            "key_id",
            "must be the last parameter, all digits (nothing may follow it)",
        ));
    }
    let key_id = key
        .parse::<u64>()
        .map_err(|_| AdError::malformed("key_id", "out of range"))?;
    let signature = URL_SAFE_NO_PAD
        .decode(sig.trim_end_matches('='))
        .map_err(|_| AdError::BadSignature)?;
    // No DER signature: refused here, before any verifier key is looked up (or fetched).
    Signature::from_der(&signature).map_err(|_| AdError::BadSignature)?;
    Ok(SignedCallback {
        raw_signed,
        content: query::percent_decode(raw_signed)?,
        signature,
        key_id,
    })
}

/// Signs `raw_params` (a raw query, as a network would send it) with `key`, the way
/// AdMob does: the query followed by `&signature=…&key_id=<key_id>`, the signature over
/// its percent-decoding. For local development and tests (a key pair of one's own, or
/// a published test key), never for production keys.
pub fn sign(key: &p256::ecdsa::SigningKey, raw_params: &str, key_id: u64) -> Result<String, AdError> {
    use p256::ecdsa::signature::Signer;
    let content = query::percent_decode(raw_params)?;
    let signature: Signature = key.sign(&content);
    Ok(format!(
        "{raw_params}&signature={}&key_id={key_id}",
        URL_SAFE_NO_PAD.encode(signature.to_der().as_bytes())
    ))
}

/// Verifies `callback` with the key its `key_id` names.
pub fn verify(callback: &SignedCallback<'_>, keys: &KeySet) -> Result<(), AdError> {
    let key = keys
        .get(callback.key_id)
        .ok_or(AdError::UnknownKey(callback.key_id))?;
    verify_with(callback, key)
}

/// Verifies `callback` with `key`.
pub fn verify_with(callback: &SignedCallback<'_>, key: &VerifyingKey) -> Result<(), AdError> {
    let signature = Signature::from_der(&callback.signature).map_err(|_| AdError::BadSignature)?;
    key.verify(&callback.content, &signature)
        .map_err(|_| AdError::BadSignature)
}

/// The ad view a verified callback reports: `ad_unit`, `transaction_id`, `user_id`
/// (the player) and `timestamp` (ms since the Unix epoch, signed), read from the
/// signed part only. `reward_amount` is ignored (SG-10: the amount is podium's).
///
/// The signature covers the decoded text, in which an `&` or `=` the app put into a
/// value it controls (`custom_data`, `user_id`) reads like a separator, so one signed
/// text can be re-encoded into queries that parse to other values. Each field read
/// must therefore appear exactly once in the signed text itself, with the value the
/// query gives it: otherwise the callback is refused (`Malformed`, naming the field),
/// whichever way it is encoded.
pub fn view(callback: &SignedCallback<'_>) -> Result<AdView, AdError> {
    let params = query::params(callback.raw_signed)?;
    let content =
        std::str::from_utf8(&callback.content).map_err(|_| AdError::malformed("query", "not UTF-8"))?;
    let need = |name: &'static str| {
        let value = query::get(&params, name)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| AdError::malformed(name, "missing"))?;
        let mut signed = content
            .split('&')
            .filter_map(|part| part.split_once('=').filter(|(k, _)| *k == name));
        match (signed.next(), signed.next()) {
            (Some((_, v)), None) if v == value => Ok(value),
            (Some(_), Some(_)) => Err(AdError::malformed(
                name,
                "given more than once in the signed text (an `&` or `=` inside another value)",
            )),
            _ => Err(AdError::malformed(
                name,
                "its value in the query is not the one in the signed text (an `&` or `=` encoded in it)",
            )),
        }
    };
    let timestamp = need("timestamp")?;
    let ms = timestamp
        .parse::<i64>()
        .map_err(|_| AdError::malformed("timestamp", format!("not milliseconds: `{}`", cut(timestamp))))?;
    let viewed_at =
        DateTime::from_timestamp_millis(ms).ok_or_else(|| AdError::malformed("timestamp", "out of range"))?;
    Ok(AdView {
        network: AdNetwork::Admob,
        ad_unit: need("ad_unit")?.to_string(),
        transaction_id: need("transaction_id")?.to_string(),
        player_id: need("user_id")?.to_string(),
        viewed_at,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use p256::ecdsa::signature::Signer;
    use p256::ecdsa::SigningKey;

    /// A callback query signed at test time with `key` (id 7).
    pub fn signed(key: &SigningKey, raw_params: &str) -> String {
        sign(key, raw_params, 7).unwrap()
    }

    pub fn key() -> SigningKey {
        SigningKey::from_slice(&[7u8; 32]).unwrap()
    }

    fn check(raw: &str) -> Result<AdView, AdError> {
        let c = split(raw)?;
        verify_with(&c, key().verifying_key())?;
        view(&c)
    }

    const BASE: &str = "ad_network=5450213213286189855&ad_unit=1234567890&reward_amount=40&reward_item=points&timestamp=1709251200000&transaction_id=abc123&user_id=player-42";

    /// The parsing rules, on callbacks signed at test time: plain, encoded values,
    /// `custom_data` holding `&` and `=`, and the literal text `&signature=` in it.
    #[test]
    fn signed_at_test_time_verify() {
        let v = check(&signed(&key(), BASE)).unwrap();
        assert_eq!(
            (
                v.ad_unit.as_str(),
                v.transaction_id.as_str(),
                v.player_id.as_str()
            ),
            ("1234567890", "abc123", "player-42")
        );
        assert_eq!(v.viewed_at.timestamp_millis(), 1_709_251_200_000);
        let encoded = "custom_data=hello%20world%2B%7E&".to_string() + BASE;
        assert!(check(&signed(&key(), &encoded)).is_ok());
        let json = "custom_data=%7B%22slot%22%3A%22a%26b%3Dc%22%7D&".to_string() + BASE;
        assert!(check(&signed(&key(), &json)).is_ok());
        let tricky = "custom_data=x%26signature%3Dy&".to_string() + BASE;
        let v = check(&signed(&key(), &tricky)).unwrap();
        assert_eq!(v.player_id, "player-42");
    }

    /// Tampered parameters, a parameter after `key_id`, bad or missing signatures,
    /// another key, a signature over the raw (undecoded) text: refused.
    #[test]
    fn forgeries_are_refused() {
        let good = signed(&key(), &("custom_data=a%20b&".to_string() + BASE));
        assert_eq!(
            check(&good.replace("abc123", "abc124")),
            Err(AdError::BadSignature)
        );
        assert_eq!(
            check(&good.replace("player-42", "player-43")),
            Err(AdError::BadSignature)
        );
        assert_eq!(check(&good.replace("a%20b", "a+b")), Err(AdError::BadSignature));
        assert!(matches!(
            check(&format!("{good}&extra=1")),
            Err(AdError::Malformed { field: "key_id", .. })
        ));
        assert_eq!(check(BASE), Err(AdError::MissingSignature));
        assert_eq!(
            check(&format!("{BASE}&signature=&key_id=7")),
            Err(AdError::MissingSignature)
        );
        assert_eq!(
            check(&format!("{BASE}&signature=AAAA&key_id=7")),
            Err(AdError::BadSignature)
        );
        assert_eq!(
            check(&format!("{BASE}&signature=!!&key_id=7")),
            Err(AdError::BadSignature)
        );
        let other = SigningKey::from_slice(&[9u8; 32]).unwrap();
        assert_eq!(check(&signed(&other, BASE)), Err(AdError::BadSignature));
        // Signed over the raw encoding instead of the decoded content.
        let raw = "custom_data=a%20b&".to_string() + BASE;
        let sig: Signature = key().sign(raw.as_bytes());
        let over_raw = format!(
            "{raw}&signature={}&key_id=7",
            URL_SAFE_NO_PAD.encode(sig.to_der().as_bytes())
        );
        assert_eq!(check(&over_raw), Err(AdError::BadSignature));
        let mut keys = KeySet::default();
        let c = split(&good).unwrap();
        assert_eq!(verify(&c, &keys), Err(AdError::UnknownKey(7)));
        keys = KeySet::default();
        assert!(keys.is_empty());
    }

    /// One signed text, re-encoded: the app put `&user_id=…` into `custom_data`, then
    /// moved which `&` and `=` are encoded so that the same signature covers a query
    /// naming another player and transaction (or another ad unit). Refused, naming the
    /// field, and so is the callback as first sent: its signed text is ambiguous.
    #[test]
    fn a_signed_text_re_encoded_to_other_values_is_refused() {
        let genuine = signed(&key(), &("custom_data=x%26user_id%3Dp-7&".to_string() + BASE));
        let signature = &genuine[genuine.find("&signature=").unwrap()..];
        let forged = "custom_data=x&user_id=p-7&".to_string()
            + &BASE.replace(
                "transaction_id=abc123&user_id=player-42",
                "transaction_id=abc123%26user_id%3Dplayer-42",
            )
            + signature;
        let c = split(&forged).unwrap();
        assert_eq!(
            verify_with(&c, key().verifying_key()),
            Ok(()),
            "the same signed text"
        );
        for raw in [&genuine, &forged] {
            assert!(
                matches!(
                    check(raw),
                    Err(AdError::Malformed {
                        field: "user_id" | "transaction_id",
                        ..
                    })
                ),
                "{:?}",
                check(raw)
            );
        }
        let unit = signed(
            &key(),
            &BASE.replace("ad_network=5450213213286189855", "ad_network=5%26ad_unit%3D999"),
        );
        assert!(matches!(
            check(&unit),
            Err(AdError::Malformed { field: "ad_unit", .. })
        ));
        let split_value = signed(
            &key(),
            &BASE.replace("transaction_id=abc123", "transaction_id=abc%3D123"),
        );
        assert!(
            check(&split_value).is_ok(),
            "an `=` inside a value is no separator"
        );
    }

    #[test]
    fn views_need_their_fields() {
        for drop in ["ad_unit", "transaction_id", "user_id", "timestamp"] {
            let params: Vec<&str> = BASE
                .split('&')
                .filter(|p| !p.starts_with(&format!("{drop}=")))
                .collect();
            let raw = signed(&key(), &params.join("&"));
            assert!(
                matches!(check(&raw), Err(AdError::Malformed { field, .. }) if field == drop),
                "{drop}"
            );
        }
        let raw = signed(&key(), &BASE.replace("timestamp=1709251200000", "timestamp=soon"));
        assert!(matches!(
            check(&raw),
            Err(AdError::Malformed {
                field: "timestamp",
                ..
            })
        ));
    }
}
