//! The store crate's one error type.

use thiserror::Error;

/// A failure to read or write the store. None of these is the caller's fault: all
/// are worth retrying (the SQS consumer reports the record as failed).
#[derive(Debug, Error)]
pub enum StoreError {
    /// DynamoDB answered with an error (throttling, service error, network).
    #[error("dynamodb {operation}: {message}")]
    Dynamo {
        operation: &'static str,
        message: String,
    },
    /// The embedded store's database failed.
    #[error("embedded store: {0}")]
    Embedded(String),
    /// A stored item could not be decoded: the table holds something this code did not write.
    #[error("corrupt item {key}: {message}")]
    Corrupt { key: String, message: String },
}

impl StoreError {
    pub(crate) fn dynamo(operation: &'static str, err: impl std::fmt::Display) -> Self {
        StoreError::Dynamo {
            operation,
            message: err.to_string(),
        }
    }

    pub(crate) fn corrupt(key: impl Into<String>, err: impl std::fmt::Display) -> Self {
        StoreError::Corrupt {
            key: key.into(),
            message: err.to_string(),
        }
    }
}

impl From<redb::Error> for StoreError {
    fn from(e: redb::Error) -> Self {
        StoreError::Embedded(e.to_string())
    }
}

macro_rules! from_redb {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self {
                StoreError::Embedded(e.to_string())
            }
        }
    )*};
}
from_redb!(
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);
