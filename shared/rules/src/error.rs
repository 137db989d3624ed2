//! The rules crate's one error type.

use thiserror::Error;

/// A record or value that breaks a rule (GM-5): names the field and the rule.
///
/// `field` is a JSON path into the input (`players[1].stones_in_hand`), `rule`
/// the SPEC rule id (`SG-1`), `message` a sentence for the caller.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{field}: {message} ({rule})")]
pub struct RuleError {
    pub field: String,
    pub rule: &'static str,
    pub message: String,
}

impl RuleError {
    pub fn new(field: impl Into<String>, rule: &'static str, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            rule,
            message: message.into(),
        }
    }
}
