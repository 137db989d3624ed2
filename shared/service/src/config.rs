//! Configuration, read once at start-up from the environment, failing fast.
//!
//! | variable | used by | meaning |
//! |---|---|---|
//! | `PODIUM_TABLE` | Lambda functions; `podium` with DynamoDB | the DynamoDB table name |
//! | `AWS_ENDPOINT_URL_DYNAMODB` | `podium` | when set, `podium` uses DynamoDB there instead of the embedded store (the SDK reads it too) |
//! | `PODIUM_DATA` | `podium` | the embedded store's file (default `podium-data/podium.redb`) |
//! | `DEAD_LETTER_QUEUE_URL` | `score-match` | where records that can never succeed go, with their reason |

use std::path::PathBuf;

use thiserror::Error;

/// A setting that is missing or malformed.
#[derive(Debug, Error)]
#[error("configuration: {name} {problem}")]
pub struct ConfigError {
    pub name: &'static str,
    pub problem: &'static str,
}

fn required(name: &'static str) -> Result<String, ConfigError> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => Ok(v),
        _ => Err(ConfigError {
            name,
            problem: "is not set",
        }),
    }
}

/// The DynamoDB table name (`PODIUM_TABLE`).
pub fn table_name() -> Result<String, ConfigError> {
    required("PODIUM_TABLE")
}

/// The dead-letter queue's URL (`DEAD_LETTER_QUEUE_URL`).
pub fn dead_letter_queue_url() -> Result<String, ConfigError> {
    required("DEAD_LETTER_QUEUE_URL")
}

/// Which store the local binary uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalStore {
    /// The embedded store in this file.
    Embedded(PathBuf),
    /// DynamoDB at `endpoint` (DynamoDB Local, typically), table `table`.
    Dynamo { endpoint: String, table: String },
}

/// The local binary's store: DynamoDB when `AWS_ENDPOINT_URL_DYNAMODB` is set
/// (table `PODIUM_TABLE`, default `podium`), else the embedded store at `PODIUM_DATA`
/// (default `podium-data/podium.redb`).
pub fn local_store() -> LocalStore {
    match std::env::var("AWS_ENDPOINT_URL_DYNAMODB") {
        Ok(endpoint) if !endpoint.trim().is_empty() => LocalStore::Dynamo {
            endpoint,
            table: required("PODIUM_TABLE").unwrap_or_else(|_| "podium".to_string()),
        },
        _ => LocalStore::Embedded(
            std::env::var_os("PODIUM_DATA")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("podium-data/podium.redb")),
        ),
    }
}
