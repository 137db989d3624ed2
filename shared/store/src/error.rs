//! The store crate's one error type.

use thiserror::Error;

/// A failure to read or write the store.
///
/// [`Unavailable`](StoreError::Unavailable) is transient (retry later: the SQS consumer
/// leaves the record for redelivery, the API answers 503). The rest are not the
/// caller's fault and retrying the same request will not help.
#[derive(Debug, Error)]
pub enum StoreError {
    /// DynamoDB did not answer in time, throttled, or failed on its side: worth
    /// retrying. For a write, whether it was applied is unknown.
    #[error("dynamodb {operation} unavailable: {message}")]
    Unavailable {
        operation: &'static str,
        message: String,
    },
    /// The table does not exist (or is not active yet).
    #[error("dynamodb table `{table}` does not exist at this endpoint")]
    TableMissing { table: String },
    /// DynamoDB refused the request itself (validation, size limits): a defect.
    #[error("dynamodb {operation} refused: {message}")]
    Rejected {
        operation: &'static str,
        message: String,
    },
    /// A request the store would refuse was stopped before it was sent (an argument
    /// outside what the store accepts, such as a key over DynamoDB's size limits).
    #[error("request outside the store's limits: {0}")]
    OutOfLimits(String),
    /// The embedded store's database failed.
    #[error("embedded store: {0}")]
    Embedded(String),
    /// A stored item could not be decoded: the table holds something this code did not write.
    #[error("corrupt item {key}: {message}")]
    Corrupt { key: String, message: String },
}

impl StoreError {
    /// A corrupt-item error for `key`.
    pub fn corrupt(key: impl Into<String>, err: impl std::fmt::Display) -> Self {
        StoreError::Corrupt {
            key: key.into(),
            message: err.to_string(),
        }
    }

    /// True when retrying later may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Unavailable { .. })
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
