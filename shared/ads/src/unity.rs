//! Unity Ads server-to-server redeem callbacks: `hmac` is the lowercase hex
//! HMAC-MD5, keyed with the secret Unity issues, over every other parameter as
//! `key=value` pairs sorted by key and joined with `,`. Success is answered with the
//! body `1`. The player is `sid`, the transaction `oid`, the ad unit `productid`;
//! an optional `ts` (ms since the Unix epoch, signed like every parameter) is the
//! view's instant, else the callback's arrival.

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use md5::Md5;
use podium_rules::reward::{AdNetwork, AdView};

use crate::error::AdError;
use crate::query::{self, cut};

/// The body Unity expects for a callback it must not send again.
pub const SUCCESS_BODY: &str = "1";

/// The parameters sorted by key, joined as Unity signs them: `k=v,k=v`.
pub fn signed_text(params: &[(String, String)]) -> String {
    let mut pairs: Vec<&(String, String)> = params.iter().filter(|(k, _)| k != "hmac").collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The HMAC-MD5 of `text` under `secret`, lowercase hex.
pub fn sign(secret: &[u8], text: &str) -> String {
    let mut mac = <Hmac<Md5> as KeyInit>::new_from_slice(secret).unwrap_or_else(|_| unreachable!());
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Verifies a raw callback query (without `?`) under `secret` and returns the view it
/// reports; `arrived_at` dates a callback that carries no `ts`.
/// Errors: `MissingSignature`, `BadSignature`, `Malformed` naming the parameter (one
/// missing, a `ts` that is no instant, or a `,` or `=` in a parameter's name or value:
/// the signed text joins them with those, so such a callback could be re-split into
/// other values under the same signature).
pub fn verify(raw: &str, secret: &[u8], arrived_at: DateTime<Utc>) -> Result<AdView, AdError> {
    let params = query::params(raw)?;
    if let Some((k, _)) = params
        .iter()
        .find(|(k, v)| k.contains([',', '=']) || (k != "hmac" && v.contains([',', '='])))
    {
        let field = ["sid", "oid", "productid", "ts"]
            .into_iter()
            .find(|n| n == k)
            .unwrap_or("query");
        return Err(AdError::malformed(
            field,
            format!(
                "`{}` holds a `,` or `=`, the separators of the signed text",
                cut(k)
            ),
        ));
    }
    let given = query::get(&params, "hmac").ok_or(AdError::MissingSignature)?;
    let tag = hex::decode(given).map_err(|_| AdError::BadSignature)?;
    let mut mac = <Hmac<Md5> as KeyInit>::new_from_slice(secret).unwrap_or_else(|_| unreachable!());
    mac.update(signed_text(&params).as_bytes());
    mac.verify_slice(&tag).map_err(|_| AdError::BadSignature)?;
    let need = |name: &'static str| {
        query::get(&params, name)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| AdError::malformed(name, "missing"))
    };
    let viewed_at = match query::get(&params, "ts") {
        None => arrived_at,
        Some(ts) => ts
            .parse::<i64>()
            .ok()
            .and_then(DateTime::from_timestamp_millis)
            .ok_or_else(|| AdError::malformed("ts", format!("not milliseconds: `{}`", cut(ts))))?,
    };
    Ok(AdView {
        network: AdNetwork::UnityAds,
        ad_unit: need("productid")?.to_string(),
        transaction_id: need("oid")?.to_string(),
        player_id: need("sid")?.to_string(),
        viewed_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap()
    }

    /// Unity's worked example, restated: secret `xyzKEY` over
    /// `oid=0987654321,productid=1234,sid=1234567890` (also checked against the
    /// published vector when PODIUM_TESTDATA is set, in `tests/vectors.rs`).
    #[test]
    fn signs_like_unity() {
        let raw = "productid=1234&sid=1234567890&oid=0987654321";
        let p = query::params(raw).unwrap();
        assert_eq!(signed_text(&p), "oid=0987654321,productid=1234,sid=1234567890");
        let tag = sign(b"xyzKEY", &signed_text(&p));
        let v = verify(&format!("{raw}&hmac={tag}"), b"xyzKEY", now()).unwrap();
        assert_eq!(
            (
                v.player_id.as_str(),
                v.transaction_id.as_str(),
                v.ad_unit.as_str()
            ),
            ("1234567890", "0987654321", "1234")
        );
        assert_eq!(v.viewed_at, now());
        assert_eq!(
            verify(&format!("{raw}&hmac={tag}"), b"other", now()),
            Err(AdError::BadSignature)
        );
        assert_eq!(
            verify(
                &format!("{}&hmac={tag}", raw.replace("sid=1234567890", "sid=1234567891")),
                b"xyzKEY",
                now()
            ),
            Err(AdError::BadSignature)
        );
        assert_eq!(verify(raw, b"xyzKEY", now()), Err(AdError::MissingSignature));
        let with_ts = format!("{raw}&ts=1700000000000");
        let tag = sign(b"k", &signed_text(&query::params(&with_ts).unwrap()));
        let v = verify(&format!("{with_ts}&hmac={tag}"), b"k", now()).unwrap();
        assert_eq!(v.viewed_at.timestamp_millis(), 1_700_000_000_000);
    }

    /// A `sid` the app chose as `p-1,ts=…` signs the same text as `sid=p-1&ts=…`: the
    /// callback could be re-split to date the view at will. Refused either way, naming
    /// the parameter.
    #[test]
    fn a_separator_inside_a_parameter_is_refused() {
        let raw = "productid=1234&sid=p-1,ts=1700000000000&oid=1";
        let tag = sign(b"k", &signed_text(&query::params(raw).unwrap()));
        let split = format!("productid=1234&sid=p-1&ts=1700000000000&oid=1&hmac={tag}");
        assert_eq!(
            signed_text(&query::params(&split).unwrap()).replace(",hmac", ""),
            signed_text(&query::params(raw).unwrap()).replace(",hmac", ""),
            "one signed text"
        );
        assert!(matches!(
            verify(&format!("{raw}&hmac={tag}"), b"k", now()),
            Err(AdError::Malformed { .. })
        ));
        let eq = "productid=1234&sid=p=1&oid=1";
        let tag = sign(b"k", &signed_text(&query::params(eq).unwrap()));
        assert!(matches!(
            verify(&format!("{eq}&hmac={tag}"), b"k", now()),
            Err(AdError::Malformed { .. })
        ));
    }
}
