//! The score-match function's one error type.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum FunctionError {
    /// Configuration missing at start-up.
    #[error(transparent)]
    Config(#[from] podium_service::config::ConfigError),
    /// The dead-letter queue refused a record.
    #[error("dead-letter queue: {0}")]
    DeadLetter(String),
}
