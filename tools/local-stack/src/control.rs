//! The Lambda and CodeDeploy APIs of a local stack, as far as the pre-traffic hook
//! uses them (every function is pointed here by `AWS_ENDPOINT_URL_LAMBDA` and
//! `AWS_ENDPOINT_URL_CODEDEPLOY`):
//!
//! - Lambda `Invoke` (`POST /2015-03-31/functions/{name}/invocations?Qualifier=N`): the
//!   function's version `N` (a number, the alias's name, or `$LATEST`), run as Lambda
//!   runs it; a version that fails to start or times out is answered as Lambda does,
//!   `X-Amz-Function-Error: Unhandled` with `Runtime.ExitError` or `Sandbox.Timedout`
//!   (and, as Lambda, without the function's output: that is in its log).
//! - CodeDeploy `GetDeployment` (the AppSpec of a deployment [`crate::stack::Stack::deploy`]
//!   began) and `PutLifecycleEventHookExecutionStatus` (the hook's verdict, kept; a
//!   second report is refused, `LifecycleEventAlreadyCompletedException`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};

use crate::error::StackError;
use crate::function::Running;
use crate::runtime::Answer;

struct Deployment {
    appspec: String,
    execution_id: String,
    status: Option<String>,
}

/// The functions by name, and the deployments begun.
pub struct Control {
    functions: BTreeMap<String, Arc<Running>>,
    deployments: Mutex<HashMap<String, Deployment>>,
}

impl Control {
    pub(crate) fn new(functions: impl Iterator<Item = Arc<Running>>) -> Control {
        Control {
            functions: functions.map(|r| (r.name().to_string(), r)).collect(),
            deployments: Mutex::new(HashMap::new()),
        }
    }

    /// A new deployment of `appspec` (JSON): its id and its hook execution's id.
    pub(crate) fn begin(&self, appspec: String) -> (String, String) {
        let id = format!("d-{:09X}", rand::random::<u64>() & 0xf_ffff_ffff);
        let execution_id = format!("{:032x}", rand::random::<u128>());
        self.deployments.lock().unwrap_or_else(|p| p.into_inner()).insert(
            id.clone(),
            Deployment {
                appspec,
                execution_id: execution_id.clone(),
                status: None,
            },
        );
        (id, execution_id)
    }

    /// The status the hook reported for deployment `id`.
    pub(crate) fn status(&self, id: &str) -> Option<String> {
        self.deployments
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .and_then(|d| d.status.clone())
    }
}

/// Serves the APIs on `listener` until aborted.
pub(crate) fn serve(listener: tokio::net::TcpListener, control: Arc<Control>) -> tokio::task::AbortHandle {
    let app = Router::new()
        .route("/2015-03-31/functions/{name}/invocations", post(invoke))
        .route("/", post(codedeploy))
        .with_state(control);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    })
    .abort_handle()
}

fn aws_error(status: StatusCode, kind: &str, message: &str) -> Response {
    (
        status,
        [("x-amzn-errortype", kind), ("content-type", "application/json")],
        json!({ "__type": kind, "message": message, "Message": message }).to_string(),
    )
        .into_response()
}

async fn invoke(
    State(control): State<Arc<Control>>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    // A name, an ARN, or either with `:qualifier`.
    let bare = name.rsplit(":function:").next().unwrap_or(&name);
    let (bare, inline) = match bare.split_once(':') {
        Some((n, q)) => (n, Some(q.to_string())),
        None => (bare, None),
    };
    let Some(running) = control.functions.get(bare) else {
        return aws_error(
            StatusCode::NOT_FOUND,
            "ResourceNotFoundException",
            &format!("Function not found: {name}"),
        );
    };
    let qualifier = query.get("Qualifier").cloned().or(inline);
    let version = match qualifier.as_deref() {
        None | Some("$LATEST") => running.latest(),
        Some(q) if q.chars().all(|c| c.is_ascii_digit()) => match q.parse::<usize>() {
            Ok(n) if running.version(n).is_some() => n,
            _ => {
                return aws_error(
                    StatusCode::NOT_FOUND,
                    "ResourceNotFoundException",
                    &format!("Function not found: {name}:{q}"),
                )
            }
        },
        Some(q) if q == running.alias_name() => running.alias_version(),
        Some(q) => {
            return aws_error(
                StatusCode::NOT_FOUND,
                "ResourceNotFoundException",
                &format!("Function not found: {bare}:{q}"),
            )
        }
    };
    let event: Value = if body.is_empty() {
        json!({})
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => {
                return aws_error(
                    StatusCode::BAD_REQUEST,
                    "InvalidRequestContentException",
                    &e.to_string(),
                )
            }
        }
    };
    let unhandled = |error_type: &str, message: String| {
        (
            StatusCode::OK,
            [
                ("x-amz-function-error", "Unhandled".to_string()),
                ("x-amz-executed-version", version.to_string()),
                ("content-type", "application/json".to_string()),
            ],
            json!({ "errorType": error_type, "errorMessage": message }).to_string(),
        )
            .into_response()
    };
    match running.invoke_version(version, &event).await {
        Ok(Answer::Response(v)) => (
            StatusCode::OK,
            [
                ("x-amz-executed-version", version.to_string()),
                ("content-type", "application/json".to_string()),
            ],
            v.to_string(),
        )
            .into_response(),
        Ok(Answer::Error { error_type, message }) => unhandled(&error_type, message),
        // Lambda's own words: why the runtime exited is in the function's log only.
        Err(StackError::Timeout { .. }) => unhandled("Sandbox.Timedout", "Task timed out".into()),
        Err(_) => unhandled(
            "Runtime.ExitError",
            "Runtime exited with error: exit status 1".into(),
        ),
    }
}

async fn codedeploy(State(control): State<Arc<Control>>, headers: HeaderMap, body: Bytes) -> Response {
    let target = headers
        .get("x-amz-target")
        .and_then(|t| t.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let input: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = input
        .get("deploymentId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let json = |v: Value| {
        (
            StatusCode::OK,
            [("content-type", "application/x-amz-json-1.1")],
            v.to_string(),
        )
            .into_response()
    };
    let mut deployments = control.deployments.lock().unwrap_or_else(|p| p.into_inner());
    let Some(deployment) = deployments.get_mut(id) else {
        return aws_error(
            StatusCode::BAD_REQUEST,
            "DeploymentDoesNotExistException",
            &format!("no deployment {id:?}"),
        );
    };
    match target.as_str() {
        "CodeDeploy_20141006.GetDeployment" => json(json!({
            "deploymentInfo": {
                "deploymentId": id,
                "computePlatform": "Lambda",
                "status": "InProgress",
                "revision": {
                    "revisionType": "AppSpecContent",
                    "appSpecContent": { "content": deployment.appspec },
                },
            }
        })),
        "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus" => {
            let execution = input
                .get("lifecycleEventHookExecutionId")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if deployment.status.is_some() {
                return aws_error(
                    StatusCode::BAD_REQUEST,
                    "LifecycleEventAlreadyCompletedException",
                    "the hook execution has already reported",
                );
            }
            if execution != deployment.execution_id {
                return aws_error(
                    StatusCode::BAD_REQUEST,
                    "LifecycleEventAlreadyCompletedException",
                    "not this deployment's hook execution",
                );
            }
            deployment.status = input.get("status").and_then(Value::as_str).map(String::from);
            json(json!({ "lifecycleEventHookExecutionId": execution }))
        }
        other => aws_error(
            StatusCode::BAD_REQUEST,
            "UnknownOperationException",
            &format!("{other:?} is not served locally"),
        ),
    }
}
