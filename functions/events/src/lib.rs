//! `events`: publishes every message a settlement adds to a player's inbox as one
//! EventBridge event ([`podium_service::operators::events`]), reading the table's stream
//! (DynamoDB Streams, new and old images, filtered to inbox items).
//!
//! Records are handled in stream order. When publishing a record's events fails, the
//! answer names that record as the first failure (`ReportBatchItemFailures`): Lambda
//! then retries the batch from it, so nothing after a failure is lost and nothing
//! before it is sent again. Events of the failed record that EventBridge did take are
//! sent again with the retry: subscribers drop repeats by `detail.id`.

mod error;
mod eventbridge;

pub use error::FunctionError;
pub use eventbridge::EventBridge;

use async_trait::async_trait;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use podium_service::operators::events::{inbox_events, Event};
use podium_store::dynamo::stream::state_images;
use serde_json::Value;

/// Where events go: EventBridge deployed ([`EventBridge`]), anything in tests.
#[async_trait]
pub trait Publish: Send + Sync {
    /// Publishes `events` (at most 10); `Ok(n)`: how many were rejected (then the
    /// record is retried). Errors: the request failed as a whole.
    async fn publish(&self, events: &[Event]) -> Result<usize, FunctionError>;
}

/// Events per PutEvents request (EventBridge's limit).
pub const PER_REQUEST: usize = 10;

/// Handles one batch of stream records (the Lambda event, as JSON): the answer lists
/// the first record whose events could not all be published, if any.
pub async fn handle<P: Publish + ?Sized>(sink: &P, event: &Value) -> DynamoDbEventResponse {
    let mut answer = DynamoDbEventResponse::default();
    let records = event
        .get("Records")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for record in records {
        let Some(dynamodb) = record.get("dynamodb") else {
            continue;
        };
        let sequence = dynamodb
            .get("SequenceNumber")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match publish_record(sink, dynamodb).await {
            Ok(sent) => {
                if sent > 0 {
                    tracing::info!(sequence, sent, "inbox messages published");
                }
            }
            Err(e) => {
                tracing::error!(sequence, error = %e, "publishing failed; the batch is retried from this record");
                let mut failure = DynamoDbBatchItemFailure::default();
                failure.item_identifier = Some(sequence.to_string());
                answer.batch_item_failures.push(failure);
                return answer;
            }
        }
    }
    answer
}

/// Publishes the events of one record; how many.
async fn publish_record<P: Publish + ?Sized>(sink: &P, dynamodb: &Value) -> Result<usize, FunctionError> {
    let Some(state) = state_images(dynamodb) else {
        return Ok(0);
    };
    if state.name != podium_service::operators::events::INBOX_STATE {
        return Ok(0);
    }
    let events = match inbox_events(
        &state.player_id,
        state.old_body.as_deref(),
        state.new_body.as_deref(),
    ) {
        Ok(events) => events,
        Err(e) => {
            // A body that is no inbox never becomes one: retrying cannot help.
            tracing::error!(error = %e, "an inbox in the stream could not be read; its record is skipped");
            return Ok(0);
        }
    };
    for chunk in events.chunks(PER_REQUEST) {
        let rejected = sink.publish(chunk).await?;
        if rejected > 0 {
            return Err(FunctionError::Publish(format!(
                "{rejected} of {} events rejected",
                chunk.len()
            )));
        }
    }
    Ok(events.len())
}
