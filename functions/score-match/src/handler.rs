//! The SQS batch handler: parse each record, score it through the core, map errors.
//! A batch's records settle concurrently, but records that share a player or a match
//! id settle one after another, in delivery order.
//!
//! - scored or duplicate (GM-3): done;
//! - breaking a plausibility check (OP-2): held for review, done;
//! - refused (GM-5) or conflicting (GM-3): sent to the dead-letter queue with its
//!   reason and logged, never retried;
//! - transient (store, contention, or the dead-letter queue itself failing): reported
//!   in `batchItemFailures`, so SQS redelivers that record alone.

use std::ops::ControlFlow;

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};
use chrono::{DateTime, Utc};

use podium_rules::error::RuleError;
use podium_rules::record::policy::RecordPolicy;
use podium_service::engine::keyed::run_keyed;
use podium_service::games::incoming::{Incoming, Outcome};
use podium_service::moderation::review::{accept, Intake};
use podium_service::telemetry;
use podium_service::ServiceError;
use podium_store::{ItemStore, SettleStore};

use crate::dead_letter::DeadLetters;

/// The longest refusal reason sent with a dead letter, in characters.
pub const MAX_REASON_CHARS: usize = 1_000;

/// What became of one SQS record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordOutcome {
    Applied,
    Duplicate,
    /// Held for review: it broke this plausibility check (OP-2).
    Held(String),
    /// Sent to the dead-letter queue with this reason.
    DeadLettered(String),
    /// Left for SQS to redeliver.
    Retry,
}

/// Handles one batch at the server clock `now` under `policy`; the response lists
/// the records SQS must redeliver.
pub async fn handle<S: SettleStore + ItemStore + ?Sized, D: DeadLetters + ?Sized>(
    store: &S,
    dead_letters: &D,
    event: SqsEvent,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> SqsBatchResponse {
    let outcomes = handle_outcomes(store, dead_letters, &event, now, policy).await;
    let mut response = SqsBatchResponse::default();
    for (message, outcome) in event.records.iter().zip(outcomes) {
        if outcome == RecordOutcome::Retry {
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = message.message_id.clone().unwrap_or_default();
            response.batch_item_failures.push(failure);
        }
    }
    response
}

/// [`handle`], answering what became of each record of the batch, in the batch's order.
pub async fn handle_outcomes<S: SettleStore + ItemStore + ?Sized, D: DeadLetters + ?Sized>(
    store: &S,
    dead_letters: &D,
    event: &SqsEvent,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Vec<RecordOutcome> {
    // Records of the batch settle at once, except that records sharing a player or a
    // match id settle one after another in delivery order (no contention between them).
    let jobs = event.records.iter().map(|m| {
        let body = m.body.as_deref().unwrap_or("");
        let record = Incoming::from_json(body.as_bytes(), now, policy);
        let keys = record.as_ref().map(Incoming::ordering_keys).unwrap_or_default();
        (keys, (m, record))
    });
    let mut outcomes = vec![RecordOutcome::Retry; event.records.len()];
    run_keyed(
        jobs,
        event.records.len(),
        |(m, record)| handle_record(store, dead_letters, m, record, now, policy),
        |i, outcome| {
            outcomes[i] = outcome;
            ControlFlow::Continue(())
        },
    )
    .await;
    outcomes
}

/// Handles one record, parsed from `message`'s body.
pub async fn handle_record<S: SettleStore + ItemStore + ?Sized, D: DeadLetters + ?Sized>(
    store: &S,
    dead_letters: &D,
    message: &SqsMessage,
    record: Result<Incoming, RuleError>,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> RecordOutcome {
    let message_id = message.message_id.as_deref().unwrap_or("");
    let body = message.body.as_deref().unwrap_or("");
    let kind = record.as_ref().map_or("unparsed", Incoming::kind);
    let result = match record {
        // A redelivered message keeps its id: a retry after a lost reply counts as applied.
        Ok(record) => match accept(
            store,
            body.as_bytes(),
            &record,
            now,
            policy,
            &format!("sqs:{message_id}"),
        )
        .await
        {
            Ok(Intake::Settled(outcome)) => Ok((outcome, record.match_id().to_string())),
            Ok(Intake::Held { check, duplicate }) => {
                tracing::warn!(
                    message_id,
                    match_id = record.match_id(),
                    check,
                    duplicate,
                    "record held for review"
                );
                return RecordOutcome::Held(check);
            }
            Err(e) => Err(e),
        },
        Err(e) => Err(ServiceError::Invalid(e)),
    };
    match &result {
        Ok((Outcome::Applied, _)) => telemetry::record(kind, "applied"),
        Ok((Outcome::Void, _)) => telemetry::record(kind, "void"),
        Ok((Outcome::Duplicate, _)) => telemetry::record(kind, "duplicate"),
        Err(ServiceError::Invalid(e)) => telemetry::record_refused(kind, e.rule),
        Err(ServiceError::Conflict { .. }) => telemetry::record(kind, "conflict"),
        Err(_) => telemetry::record(kind, "retry"),
    }
    match result {
        Ok((Outcome::Applied | Outcome::Void, match_id)) => {
            tracing::info!(message_id, match_id, "match applied");
            RecordOutcome::Applied
        }
        Ok((Outcome::Duplicate, match_id)) => {
            tracing::info!(message_id, match_id, "duplicate delivery, first result kept");
            RecordOutcome::Duplicate
        }
        Err(e) if e.is_permanent() => {
            // The reason (`field (rule): message`, quoting input only cut short)
            // travels with the record to the dead-letter queue, cut to fit SQS's limits
            // with field and rule first; the log gets only the field and rule, so no
            // player data reaches the logs.
            let reason = podium_rules::error::cut(&e.to_string(), MAX_REASON_CHARS);
            let logged = e.log_reason();
            match dead_letters.send(body, &reason).await {
                Ok(()) => {
                    tracing::warn!(
                        message_id,
                        reason = logged,
                        "record refused, sent to the dead-letter queue"
                    );
                    RecordOutcome::DeadLettered(reason)
                }
                Err(dl) => {
                    tracing::error!(message_id, reason = logged, error = %dl, "dead-letter queue failed; record left for redelivery");
                    RecordOutcome::Retry
                }
            }
        }
        Err(e) => {
            tracing::warn!(
                message_id,
                kind = e.kind(),
                "transient failure; record left for redelivery"
            );
            if let ServiceError::Store(err) = &e {
                tracing::warn!(message_id, error = %err, "store failure");
            }
            RecordOutcome::Retry
        }
    }
}
