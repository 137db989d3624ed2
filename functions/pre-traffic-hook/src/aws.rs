//! [`Deployments`] and [`Versions`] on AWS: CodeDeploy's `GetDeployment` and
//! `PutLifecycleEventHookExecutionStatus`, Lambda's `Invoke` (RequestResponse). Every
//! request has a timeout: CodeDeploy's 5 s, an invocation's [`INVOKE_TIMEOUT`].

use std::time::Duration;

use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_codedeploy::types::LifecycleEventStatus;
use aws_sdk_lambda::primitives::Blob;

use crate::probe::Invocation;
use crate::{Deployments, HookError, Status, Versions};

/// How long a probe's invocation may take, its cold start included (the hook's own
/// timeout is 90 s: with the reads and the report, every request ends within it).
pub const INVOKE_TIMEOUT: Duration = Duration::from_secs(45);

fn timeouts(operation: Duration) -> aws_config::timeout::TimeoutConfig {
    aws_config::timeout::TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(2))
        .operation_timeout(operation)
        .build()
}

/// CodeDeploy.
pub struct CodeDeploy(aws_sdk_codedeploy::Client);

impl CodeDeploy {
    pub fn new(sdk: &SdkConfig) -> Self {
        let config = aws_sdk_codedeploy::config::Builder::from(sdk)
            .timeout_config(timeouts(Duration::from_secs(5)))
            .build();
        CodeDeploy(aws_sdk_codedeploy::Client::from_conf(config))
    }
}

#[async_trait]
impl Deployments for CodeDeploy {
    async fn appspec(&self, id: &str) -> Result<String, HookError> {
        let failed = |call: &str, e: String| HookError::CodeDeploy(format!("{call} {id}: {e}"));
        let info = self
            .0
            .get_deployment()
            .deployment_id(id)
            .send()
            .await
            .map_err(|e| failed("GetDeployment", context(e)))?
            .deployment_info
            .ok_or_else(|| failed("GetDeployment", "no deployment info".into()))?;
        if let Some(content) = info.revision.as_ref().and_then(content) {
            return Ok(content);
        }
        // A deployment whose answer leaves the AppSpec out: its application revision.
        let got = self
            .0
            .get_application_revision()
            .set_application_name(info.application_name)
            .set_revision(info.revision)
            .send()
            .await
            .map_err(|e| failed("GetApplicationRevision", context(e)))?;
        got.revision
            .as_ref()
            .and_then(content)
            .ok_or_else(|| failed("GetApplicationRevision", "no AppSpec content".into()))
    }

    async fn report(&self, id: &str, execution_id: &str, status: Status) -> Result<(), HookError> {
        let status = match status {
            Status::Succeeded => LifecycleEventStatus::Succeeded,
            Status::Failed => LifecycleEventStatus::Failed,
        };
        let sent = self
            .0
            .put_lifecycle_event_hook_execution_status()
            .deployment_id(id)
            .lifecycle_event_hook_execution_id(execution_id)
            .status(status)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(()),
            // Reported before (this invocation retried, or run twice for one event):
            // the first verdict stands, and this invocation has nothing left to do.
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_lifecycle_event_already_completed_exception()) =>
            {
                tracing::warn!(
                    deployment = id,
                    "the lifecycle event was reported already; the first verdict stands"
                );
                Ok(())
            }
            Err(e) => Err(HookError::CodeDeploy(format!(
                "PutLifecycleEventHookExecutionStatus {id}: {}",
                context(e)
            ))),
        }
    }
}

/// An SDK error with its whole chain of causes, on one line.
fn context<E: std::error::Error>(e: E) -> String {
    aws_sdk_codedeploy::error::DisplayErrorContext(e).to_string()
}

/// A revision's AppSpec: `appSpecContent`, or the older `string` revision type, which
/// deployments of Lambda aliases may still carry.
#[allow(deprecated)]
fn content(revision: &aws_sdk_codedeploy::types::RevisionLocation) -> Option<String> {
    revision
        .app_spec_content
        .as_ref()
        .and_then(|c| c.content.clone())
        .or_else(|| revision.string.as_ref().and_then(|s| s.content.clone()))
}

/// Lambda.
pub struct Lambda(aws_sdk_lambda::Client);

impl Lambda {
    pub fn new(sdk: &SdkConfig) -> Self {
        let config = aws_sdk_lambda::config::Builder::from(sdk)
            .timeout_config(timeouts(INVOKE_TIMEOUT))
            .build();
        Lambda(aws_sdk_lambda::Client::from_conf(config))
    }
}

#[async_trait]
impl Versions for Lambda {
    async fn invoke(
        &self,
        function: &str,
        version: &str,
        event: &serde_json::Value,
    ) -> Result<Invocation, String> {
        let out = self
            .0
            .invoke()
            .function_name(function)
            .qualifier(version)
            .payload(Blob::new(event.to_string()))
            .send()
            .await
            .map_err(|e| format!("Invoke {function}:{version}: {}", context(e)))?;
        let payload = out
            .payload
            .as_ref()
            .and_then(|p| serde_json::from_slice(p.as_ref()).ok())
            .unwrap_or(serde_json::Value::Null);
        Ok(Invocation {
            function_error: out.function_error,
            payload,
        })
    }
}
