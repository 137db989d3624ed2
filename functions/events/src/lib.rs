//! `events`: publishes every message a settlement adds to a player's inbox as one
//! EventBridge event ([`podium_service::operators::events`]), and pushes what each
//! change means to the live feed's connections (LIVE-3: inbox messages, a watched
//! board's `board_changed`, a suspended player's connections closed), reading the
//! table's stream (DynamoDB Streams, new and old images, filtered to inbox items,
//! boards' snapshot pointers and players' guards).
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
use podium_service::push::feed::on_change_until;
use podium_service::push::gateway::Pusher;
use podium_store::dynamo::stream::{change, state_images};
use podium_store::{ItemStore, SettleStore};
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

/// The live feed (LIVE-3): the store its connections are kept in, and the pusher
/// over the WebSocket API's management API.
pub struct Live<'a, S: ?Sized> {
    pub store: &'a S,
    pub pusher: &'a Pusher,
    /// When pushes stop (the rest dropped): before the invocation's end.
    pub deadline: Option<tokio::time::Instant>,
}

/// Handles one batch of stream records (the Lambda event, as JSON): each record's
/// events published, then what it means pushed to the live feed's connections
/// (`live`; [`podium_service::push::feed`]). The answer lists the first record whose
/// events could not all be published, if any. A push is at most once: pushes follow
/// the record's publication, so a batch retried from a failed record pushes again only
/// what had not been pushed; a push that fails is logged, never retried.
pub async fn handle<P: Publish + ?Sized, S: ItemStore + SettleStore + ?Sized>(
    sink: &P,
    live: Option<&Live<'_, S>>,
    event: &Value,
) -> DynamoDbEventResponse {
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
                if let (Some(live), Some(change)) = (live, change(dynamodb)) {
                    match on_change_until(
                        live.store,
                        live.pusher,
                        &change,
                        chrono::Utc::now(),
                        live.deadline,
                    )
                    .await
                    {
                        Ok(p) if p.sent + p.dropped + p.gone > 0 => {
                            tracing::info!(
                                sequence,
                                sent = p.sent,
                                dropped = p.dropped,
                                gone = p.gone,
                                "pushed"
                            );
                        }
                        Ok(_) => {}
                        Err(e) => {
                            tracing::warn!(sequence, error = %e, "pushing a change failed; not retried (at most once)")
                        }
                    }
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
