//! AdMob's verifier keys: the JSON Google publishes (`{"keys": [{"keyId": u64,
//! "pem": "...", "base64": "..."}]}`), as P-256 public keys by key id. Keys of other
//! curves are left out (a callback naming one is then signed with an unknown key).

use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use p256::ecdsa::VerifyingKey;
use p256::pkcs8::DecodePublicKey;
use serde::Deserialize;

use crate::error::AdError;

#[derive(Deserialize)]
struct Wire {
    keys: Vec<WireKey>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireKey {
    key_id: u64,
    #[serde(default)]
    pem: Option<String>,
    #[serde(default)]
    base64: Option<String>,
}

/// The verifier keys by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeySet {
    keys: HashMap<u64, VerifyingKey>,
}

impl KeySet {
    /// Parses the published JSON. Malformed JSON is an error naming `keys`; a key that
    /// is not a P-256 public key is left out.
    pub fn from_json(bytes: &[u8]) -> Result<Self, AdError> {
        let wire: Wire = serde_json::from_slice(bytes)
            .map_err(|e| AdError::malformed("keys", format!("not a verifier-keys document: {e}")))?;
        let mut keys = HashMap::new();
        for k in wire.keys {
            let parsed = match (&k.base64, &k.pem) {
                (Some(b64), _) => STANDARD
                    .decode(b64.trim())
                    .ok()
                    .and_then(|der| VerifyingKey::from_public_key_der(&der).ok()),
                (None, Some(pem)) => VerifyingKey::from_public_key_pem(pem).ok(),
                (None, None) => None,
            };
            if let Some(key) = parsed {
                keys.insert(k.key_id, key);
            }
        }
        Ok(KeySet { keys })
    }

    /// The key with this id, if any.
    pub fn get(&self, key_id: u64) -> Option<&VerifyingKey> {
        self.keys.get(&key_id)
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}
