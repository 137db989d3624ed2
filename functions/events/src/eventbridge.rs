//! [`Publish`] to an EventBridge bus.

use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_eventbridge::config::timeout::TimeoutConfig;
use aws_sdk_eventbridge::types::PutEventsRequestEntry;
use podium_service::operators::events::{Event, SOURCE};

use crate::{FunctionError, Publish};

/// An EventBridge bus, with timeouts: 1 s to connect, 2 s an attempt, 5 s a request.
pub struct EventBridge {
    client: aws_sdk_eventbridge::Client,
    bus: String,
}

impl EventBridge {
    /// A publisher to the bus named `bus` (a name or ARN).
    pub fn new(sdk: &aws_config::SdkConfig, bus: String) -> Self {
        let config = aws_sdk_eventbridge::config::Builder::from(sdk)
            .timeout_config(
                TimeoutConfig::builder()
                    .connect_timeout(Duration::from_secs(1))
                    .operation_attempt_timeout(Duration::from_secs(2))
                    .operation_timeout(Duration::from_secs(5))
                    .build(),
            )
            .build();
        EventBridge {
            client: aws_sdk_eventbridge::Client::from_conf(config),
            bus,
        }
    }
}

#[async_trait]
impl Publish for EventBridge {
    async fn publish(&self, events: &[Event]) -> Result<usize, FunctionError> {
        let entries = events
            .iter()
            .map(|e| {
                PutEventsRequestEntry::builder()
                    .event_bus_name(&self.bus)
                    .source(SOURCE)
                    .detail_type(&e.detail_type)
                    .detail(&e.detail)
                    .build()
            })
            .collect();
        let out = self
            .client
            .put_events()
            .set_entries(Some(entries))
            .send()
            .await
            .map_err(|e| {
                FunctionError::Publish(aws_sdk_eventbridge::error::DisplayErrorContext(e).to_string())
            })?;
        Ok(usize::try_from(out.failed_entry_count()).unwrap_or(usize::MAX))
    }
}
