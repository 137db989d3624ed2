//! DynamoDB's answers as [`StoreError`]s: transient failures (timeouts, throttling,
//! service errors, lost connections) are [`StoreError::Unavailable`], a missing table
//! is [`StoreError::TableMissing`], the rest [`StoreError::Rejected`]. Classified by
//! the SDK's error kind and the service's error code, never by message text.

use aws_sdk_dynamodb::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};

use crate::error::StoreError;

/// Error codes DynamoDB answers for conditions that pass: throttling, capacity,
/// its own failures, a transaction on the same items in flight (a single-item write
/// to an item a transaction holds is refused with `TransactionConflictException`; a
/// multi-Region table's concurrent write with `ReplicatedWriteConflictException`:
/// nothing written either way, and the same request may pass a moment later).
const TRANSIENT_CODES: &[&str] = &[
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "TransactionInProgressException",
    "TransactionConflictException",
    "ReplicatedWriteConflictException",
    "LimitExceededException",
];

/// The store error for a failed request of `operation` on `table`.
pub(crate) fn classify<E, R>(operation: &'static str, table: &str, err: SdkError<E, R>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug,
{
    let message = DisplayErrorContext(&err).to_string();
    match &err {
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => {
            StoreError::Unavailable { operation, message }
        }
        SdkError::ServiceError(e) => match e.err().code() {
            Some(code) if TRANSIENT_CODES.contains(&code) => StoreError::Unavailable { operation, message },
            Some("ResourceNotFoundException") => StoreError::TableMissing {
                table: table.to_string(),
            },
            _ => StoreError::Rejected { operation, message },
        },
        _ => StoreError::Rejected { operation, message },
    }
}

/// A request that could not be built (a defect: missing required members).
pub(crate) fn build(operation: &'static str, err: aws_sdk_dynamodb::error::BuildError) -> StoreError {
    StoreError::Rejected {
        operation,
        message: err.to_string(),
    }
}
