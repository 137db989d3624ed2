//! The ads crate's one error type.

use thiserror::Error;

/// Why a callback is refused. Every variant is the caller's: the network (or whoever
/// sent it) gets a 4xx and nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AdError {
    /// The query carries no `signature` (AdMob) or `hmac` (Unity Ads).
    #[error("signature: missing")]
    MissingSignature,
    /// The signature does not verify over the signed content.
    #[error("signature: does not verify")]
    BadSignature,
    /// No verifier key has this id.
    #[error("key_id: no verifier key {0}")]
    UnknownKey(u64),
    /// The query is not a callback of this network: `field` names what is wrong.
    #[error("{field}: {message}")]
    Malformed { field: &'static str, message: String },
    /// The ad unit is not one podium pays for (the keys are shared by every publisher).
    #[error("ad_unit: not one of this app's ad units")]
    ForeignAdUnit,
}

impl AdError {
    pub(crate) fn malformed(field: &'static str, message: impl Into<String>) -> Self {
        AdError::Malformed {
            field,
            message: message.into(),
        }
    }
}
