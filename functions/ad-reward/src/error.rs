//! The ad-reward function's one error type.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum FunctionError {
    /// Configuration missing or malformed at start-up.
    #[error(transparent)]
    Config(#[from] podium_service::config::ConfigError),
}
