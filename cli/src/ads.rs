//! `podium ad-keys` and `podium ad-callback`: a verifier key pair of one's own and
//! signed AdMob-style callbacks, to try the rewarded-ad route of `podium serve` (the
//! published Tink test key works too). Development only: production callbacks are
//! signed by Google and verified with Google's published keys.

use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use p256::ecdsa::SigningKey;
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};

use crate::error::CliError;

fn io(path: &Path, source: std::io::Error) -> CliError {
    CliError::File {
        path: path.display().to_string(),
        source,
    }
}

fn other(message: String) -> CliError {
    CliError::Io(std::io::Error::other(message))
}

/// Writes a new key pair into `dir`: `private-key.pkcs8.b64` (base64 PKCS#8 DER) and
/// `verifier-keys.json` (the public key as AdMob publishes keys, key id 1).
pub fn keys(dir: &Path) -> Result<(), CliError> {
    let key = loop {
        let bytes: [u8; 32] = rand::random();
        if let Ok(k) = SigningKey::from_slice(&bytes) {
            break k;
        }
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let private = key.to_pkcs8_der().map_err(|e| other(e.to_string()))?;
    let public = key
        .verifying_key()
        .to_public_key_der()
        .map_err(|e| other(e.to_string()))?;
    let private_path = dir.join("private-key.pkcs8.b64");
    std::fs::write(&private_path, STANDARD.encode(private.as_bytes())).map_err(|e| io(&private_path, e))?;
    let keys_path = dir.join("verifier-keys.json");
    let document = serde_json::json!({"keys": [{"keyId": 1, "base64": STANDARD.encode(public.as_bytes())}]});
    std::fs::write(&keys_path, document.to_string()).map_err(|e| io(&keys_path, e))?;
    println!("{}\n{}", private_path.display(), keys_path.display());
    Ok(())
}

/// What `podium ad-callback` signs.
pub struct Callback<'a> {
    pub private_key: &'a Path,
    pub key_id: u64,
    pub ad_unit: &'a str,
    pub user: &'a str,
    pub transaction_id: Option<&'a str>,
    pub timestamp_ms: i64,
}

/// Prints the raw query of an AdMob-style callback signed with the private key
/// (base64 PKCS#8 DER, as `podium ad-keys` and the Tink test key are written).
pub fn callback(c: &Callback<'_>) -> Result<(), CliError> {
    let text = std::fs::read_to_string(c.private_key).map_err(|e| io(c.private_key, e))?;
    let der = STANDARD
        .decode(text.trim())
        .map_err(|e| other(format!("{}: not base64: {e}", c.private_key.display())))?;
    let key = SigningKey::from_pkcs8_der(&der).map_err(|e| {
        other(format!(
            "{}: not a P-256 PKCS#8 key: {e}",
            c.private_key.display()
        ))
    })?;
    let txn = c
        .transaction_id
        .map(str::to_string)
        .unwrap_or_else(|| format!("{:032x}", rand::random::<u128>()));
    let ts = c.timestamp_ms;
    let raw = format!(
        "ad_network=5450213213286189855&ad_unit={}&reward_amount=1&reward_item=points&timestamp={ts}&transaction_id={txn}&user_id={}",
        c.ad_unit, c.user
    );
    let signed = podium_ads::admob::sign(&key, &raw, c.key_id).map_err(|e| other(e.to_string()))?;
    println!("{signed}");
    Ok(())
}
