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
    /// An operator's request refused (a malformed or unknown player id); nothing done.
    #[error("refused, nothing done: {0}")]
    Declined(podium_service::ServiceError),
    #[error(transparent)]
    Config(#[from] podium_service::config::ConfigError),
    /// DynamoDB did not answer, or has no table yet: what is missing and what to do.
    #[error("{0}")]
    StoreUnreachable(String),
    /// `podium replay` scored what it could, but some lines were refused or
    /// conflicted with a record settled before (the summary says which).
    #[error("{refused} line(s) refused and {conflicts} conflicting (see the summary; --refused FILE writes each with its number and reason)")]
    LinesRefused { refused: u64, conflicts: u64 },
}

impl CliError {
    /// The error for a store failure at `endpoint`, saying what to do about it.
    pub fn unreachable(endpoint: &str, e: podium_store::StoreError) -> Self {
        use podium_store::StoreError;
        match e {
            StoreError::TableMissing { table } => CliError::StoreUnreachable(format!(
                "DynamoDB at {endpoint} has no table `{table}`: `podium replay`, `podium serve` or \
                 `podium snapshot` create it (set PODIUM_TABLE for another name)"
            )),
            StoreError::Unavailable { operation, .. } => CliError::StoreUnreachable(format!(
                "DynamoDB at {endpoint} did not answer ({operation}) within the configured timeouts \
                 (PODIUM_DYNAMODB_*_TIMEOUT_MS): is it running?"
            )),
            other => CliError::Store(other),
        }
    }

    /// This error with store failures on DynamoDB explained (missing table, no answer).
    pub fn explained(self) -> Self {
        let podium_service::config::LocalStore::Dynamo { endpoint, .. } =
            podium_service::config::local_store()
        else {
            return self;
        };
        match self {
            CliError::Store(e) => CliError::unreachable(&endpoint, e),
            CliError::Service(podium_service::ServiceError::Store(e)) => CliError::unreachable(&endpoint, e),
            other => other,
        }
    }
}

impl CliError {
    /// 2 for a refused record (the caller's input), 3 for a replay with lines refused
    /// or conflicting (the others scored), 1 for everything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Refused(_) | CliError::Declined(_) => 2,
            CliError::LinesRefused { .. } => 3,
            _ => 1,
        }
    }
}
