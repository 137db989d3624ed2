//! The events function's one error type.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum FunctionError {
    /// Configuration missing at start-up.
    #[error(transparent)]
    Config(#[from] podium_service::config::ConfigError),
    /// EventBridge did not take the events (the whole request failed).
    #[error("EventBridge: {0}")]
    Publish(String),
}
