//! Where records that can never succeed go (GM-5): the dead-letter queue, with the
//! reason as a message attribute, so that no retry loop spins on them.

use async_trait::async_trait;
use aws_sdk_sqs::types::MessageAttributeValue;

use crate::error::FunctionError;

/// A sink for refused records.
#[async_trait]
pub trait DeadLetters: Send + Sync {
    /// Sends `body` (the record as received) with `reason` (field, rule, message).
    async fn send(&self, body: &str, reason: &str) -> Result<(), FunctionError>;
}

/// The SQS dead-letter queue. Its SDK client is built on the first refused record,
/// not at start-up: most invocations never send one (cold start).
pub struct SqsDeadLetters {
    sdk: aws_config::SdkConfig,
    client: std::sync::OnceLock<aws_sdk_sqs::Client>,
    queue_url: String,
}

impl SqsDeadLetters {
    /// The queue at `queue_url`, reached with `sdk`'s region, credentials and HTTPS client.
    pub fn new(sdk: aws_config::SdkConfig, queue_url: String) -> Self {
        SqsDeadLetters {
            sdk,
            client: std::sync::OnceLock::new(),
            queue_url,
        }
    }

    fn client(&self) -> &aws_sdk_sqs::Client {
        self.client.get_or_init(|| aws_sdk_sqs::Client::new(&self.sdk))
    }
}

#[async_trait]
impl DeadLetters for SqsDeadLetters {
    async fn send(&self, body: &str, reason: &str) -> Result<(), FunctionError> {
        let attribute = MessageAttributeValue::builder()
            .data_type("String")
            .string_value(reason)
            .build()
            .map_err(|e| FunctionError::DeadLetter(e.to_string()))?;
        self.client()
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(body)
            .message_attributes("reason", attribute)
            .send()
            .await
            .map_err(|e| FunctionError::DeadLetter(aws_sdk_sqs::error::DisplayErrorContext(e).to_string()))?;
        Ok(())
    }
}
