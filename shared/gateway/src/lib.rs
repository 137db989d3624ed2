//! The live feed's [`Gateway`] deployed: API Gateway's management API of the WebSocket
//! API (`https://{api id}.execute-api.{region}.amazonaws.com/{stage}`, or the local
//! stack's), `PostToConnection` for a push and `DeleteConnection` to close. A
//! connection the API no longer has answers 410 (`GoneException`): [`Delivery::Gone`].
//! Every call has a timeout ([`TIMEOUT`]).

use std::time::Duration;

use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_apigatewaymanagement::error::SdkError;
use aws_sdk_apigatewaymanagement::operation::delete_connection::DeleteConnectionError;
use aws_sdk_apigatewaymanagement::operation::post_to_connection::PostToConnectionError;
use aws_sdk_apigatewaymanagement::primitives::Blob;
use aws_sdk_apigatewaymanagement::Client;
use podium_service::push::gateway::{Delivery, Gateway};
use podium_service::ServiceError;

/// The longest one management API call may take, attempts included.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// The management API at one endpoint.
pub struct ManagementApi {
    client: Client,
}

impl ManagementApi {
    /// The management API at `endpoint` (the WebSocket API's stage URL, `https://…`),
    /// with `sdk`'s region and credentials.
    pub fn new(sdk: &SdkConfig, endpoint: &str) -> Self {
        let timeouts = aws_config::timeout::TimeoutConfig::builder()
            .operation_timeout(TIMEOUT)
            .connect_timeout(Duration::from_secs(1))
            .build();
        let config = aws_sdk_apigatewaymanagement::config::Builder::from(sdk)
            .endpoint_url(endpoint)
            .timeout_config(timeouts)
            .build();
        ManagementApi {
            client: Client::from_conf(config),
        }
    }
}

#[async_trait]
impl Gateway for ManagementApi {
    async fn post(&self, connection_id: &str, data: &str) -> Result<Delivery, ServiceError> {
        let sent = self
            .client
            .post_to_connection()
            .connection_id(connection_id)
            .data(Blob::new(data.as_bytes()))
            .send()
            .await;
        match sent {
            Ok(_) => Ok(Delivery::Sent),
            Err(SdkError::ServiceError(e)) if matches!(e.err(), PostToConnectionError::GoneException(_)) => {
                Ok(Delivery::Gone)
            }
            Err(e) => Err(ServiceError::Push(
                aws_sdk_apigatewaymanagement::error::DisplayErrorContext(e).to_string(),
            )),
        }
    }

    async fn close(&self, connection_id: &str) -> Result<Delivery, ServiceError> {
        match self
            .client
            .delete_connection()
            .connection_id(connection_id)
            .send()
            .await
        {
            Ok(_) => Ok(Delivery::Sent),
            Err(SdkError::ServiceError(e)) if matches!(e.err(), DeleteConnectionError::GoneException(_)) => {
                Ok(Delivery::Gone)
            }
            Err(e) => Err(ServiceError::Push(
                aws_sdk_apigatewaymanagement::error::DisplayErrorContext(e).to_string(),
            )),
        }
    }
}
