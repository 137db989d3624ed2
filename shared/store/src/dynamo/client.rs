//! The DynamoDB client podium uses: timeouts on every request, so a store that
//! stops answering fails the request in bounded time instead of hanging it.

use std::time::Duration;

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::Client;

/// Timeouts of every DynamoDB request (configuration; see the service's `config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing a connection.
    pub connect: Duration,
    /// One attempt, from sending the request to the whole response.
    pub attempt: Duration,
    /// The whole operation, retries and their pauses included.
    pub operation: Duration,
    /// Attempts per operation (the SDK's standard retries; 1: no retry).
    pub max_attempts: u32,
}

impl Default for Timeouts {
    /// 1 s to connect, 1.5 s an attempt, 4 s an operation, 3 attempts: well under the
    /// functions' timeouts (10 s HTTP, 30 s score-match), with room for a request
    /// that makes a few reads in a row.
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_millis(1_000),
            attempt: Duration::from_millis(1_500),
            operation: Duration::from_millis(4_000),
            max_attempts: 3,
        }
    }
}

/// A client from a loaded SDK configuration (region, credentials, and
/// `AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB Local), with `timeouts` applied.
pub fn client(sdk: &aws_config::SdkConfig, timeouts: &Timeouts) -> Client {
    let config = aws_sdk_dynamodb::config::Builder::from(sdk)
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(timeouts.connect)
                .read_timeout(timeouts.attempt)
                .operation_attempt_timeout(timeouts.attempt)
                .operation_timeout(timeouts.operation)
                .build(),
        )
        .retry_config(RetryConfig::standard().with_max_attempts(timeouts.max_attempts.max(1)))
        .build();
    Client::from_conf(config)
}
