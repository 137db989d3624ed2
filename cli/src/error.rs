//! The `podium` binary's one error type.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum CliError {
    #[error(transparent)]
    Store(#[from] podium_store::StoreError),
    #[error(transparent)]
    Service(#[from] podium_service::ServiceError),
    #[error("{path}: {source}")]
    File { path: String, source: std::io::Error },
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("the record was refused: {0}")]
    Refused(podium_service::ServiceError),
}

impl CliError {
    /// 2 for a refused record (the caller's input), 1 for everything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Refused(_) => 2,
            _ => 1,
        }
    }
}
