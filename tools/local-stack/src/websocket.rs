//! The local WebSocket API of the live feed (LIVE-1 … LIVE-3), as API Gateway's
//! WebSocket API runs the template's: a client connects to `/live?token=…`; the
//! `live-authorizer` function is invoked with the REQUEST authorizer event, then the
//! `live` function with `$connect` (the authorizer's `principalId` and context in
//! `requestContext.authorizer`), each text frame with `$default`, and the close with
//! `$disconnect`. The management API is served under `/live/@connections/{id}`:
//! `POST` sends its body to the connection as one text frame, `DELETE` closes it, and
//! a connection this gateway does not hold answers 410 `GoneException`, as API
//! Gateway answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::runtime::Answer;
use crate::stack::Stack;

/// The stage the template names (`StageName: live`).
pub const STAGE: &str = "live";

enum Out {
    Frame(String),
    Close,
}

/// The connections this gateway holds, by connection id.
#[derive(Clone, Default)]
pub struct Connections(Arc<Mutex<HashMap<String, mpsc::UnboundedSender<Out>>>>);

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Out>>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn get(&self, id: &str) -> Option<mpsc::UnboundedSender<Out>> {
        self.lock().get(id).cloned()
    }
}

#[derive(Clone)]
pub struct WebSocketApi {
    pub stack: Arc<Stack>,
    pub connections: Connections,
}

fn request_context(route: &str, connection_id: &str, authorizer: Option<&Value>) -> Value {
    let mut c = json!({
        "routeKey": route,
        "eventType": match route { "$connect" => "CONNECT", "$disconnect" => "DISCONNECT", _ => "MESSAGE" },
        "connectionId": connection_id,
        "stage": STAGE,
        "apiId": "liveapi-local",
        "domainName": "127.0.0.1",
        "requestId": format!("{:016x}", rand::random::<u64>()),
        "requestTimeEpoch": chrono::Utc::now().timestamp_millis(),
    });
    if let Some(a) = authorizer {
        c["authorizer"] = a.clone();
    }
    c
}

fn gone() -> Response {
    (
        StatusCode::GONE,
        [("x-amzn-ErrorType", "GoneException")],
        "{\"message\":\"Gone\"}",
    )
        .into_response()
}

/// `GET /live`: the authorizer, then `$connect`; the upgrade only when both allow it
/// (401: no or a refused token; the `$connect` answer's status otherwise).
pub async fn connect(
    State(api): State<WebSocketApi>,
    Query(query): Query<HashMap<String, String>>,
    ws: WebSocketUpgrade,
) -> Response {
    let connection_id = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(rand::random::<[u8; 12]>())
    };
    let authorizer_event = json!({
        "type": "REQUEST",
        "methodArn": format!("arn:aws:execute-api:{}:{}:liveapi-local/{STAGE}/$connect", crate::REGION, crate::ACCOUNT),
        "queryStringParameters": query,
        "requestContext": request_context("$connect", &connection_id, None),
    });
    let policy = match api.stack.invoke("live-authorizer", &authorizer_event).await {
        Ok(Answer::Response(p)) => p,
        Ok(Answer::Error { .. }) => {
            return (StatusCode::UNAUTHORIZED, "{\"message\":\"Unauthorized\"}").into_response()
        }
        Err(e) => {
            eprintln!("local-stack: live-authorizer: {e}");
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "{\"message\":\"Internal Server Error\"}",
            )
                .into_response();
        }
    };
    let allowed = policy["policyDocument"]["Statement"]
        .as_array()
        .is_some_and(|s| s.iter().all(|s| s["Effect"] == "Allow") && !s.is_empty());
    if !allowed {
        return (StatusCode::FORBIDDEN, "{\"message\":\"Forbidden\"}").into_response();
    }
    let mut authorizer = policy.get("context").cloned().unwrap_or_else(|| json!({}));
    authorizer["principalId"] = policy["principalId"].clone();
    let event = json!({
        "requestContext": request_context("$connect", &connection_id, Some(&authorizer)),
        "queryStringParameters": query,
        "isBase64Encoded": false,
    });
    let status = match api.stack.invoke("live", &event).await {
        Ok(Answer::Response(r)) => r["statusCode"].as_u64().unwrap_or(502),
        Ok(Answer::Error { .. }) => 502,
        Err(e) => {
            eprintln!("local-stack: live $connect: {e}");
            500
        }
    };
    if !(200..300).contains(&status) {
        let status =
            StatusCode::from_u16(u16::try_from(status).unwrap_or(502)).unwrap_or(StatusCode::BAD_GATEWAY);
        return (status, "{\"message\":\"Forbidden\"}").into_response();
    }
    let (tx, rx) = mpsc::unbounded_channel();
    api.connections.lock().insert(connection_id.clone(), tx);
    ws.on_upgrade(move |socket| session(api, connection_id, authorizer, socket, rx))
}

async fn session(
    api: WebSocketApi,
    connection_id: String,
    authorizer: Value,
    mut socket: WebSocket,
    mut rx: mpsc::UnboundedReceiver<Out>,
) {
    let (frames_tx, mut frames) = mpsc::unbounded_channel::<String>();
    // The client's messages, each to `$default` in order, apart from the socket loop
    // (a function posting back to this connection is answered meanwhile).
    let routes = {
        let api = api.clone();
        let connection_id = connection_id.clone();
        let authorizer = authorizer.clone();
        tokio::spawn(async move {
            while let Some(body) = frames.recv().await {
                let event = json!({
                    "requestContext": request_context("$default", &connection_id, Some(&authorizer)),
                    "body": body,
                    "isBase64Encoded": false,
                });
                if let Err(e) = api.stack.invoke("live", &event).await {
                    eprintln!("local-stack: live $default: {e}");
                }
            }
        })
    };
    loop {
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(t))) => {
                    let _ = frames_tx.send(t.to_string());
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            out = rx.recv() => match out {
                Some(Out::Frame(text)) => {
                    if socket.send(Message::Text(text.into())).await.is_err() {
                        break;
                    }
                }
                Some(Out::Close) | None => {
                    let _ = socket.send(Message::Close(None)).await;
                    break;
                }
            },
        }
    }
    api.connections.lock().remove(&connection_id);
    drop(frames_tx);
    let _ = routes.await;
    let event = json!({
        "requestContext": request_context("$disconnect", &connection_id, Some(&authorizer)),
        "isBase64Encoded": false,
    });
    if let Err(e) = api.stack.invoke("live", &event).await {
        eprintln!("local-stack: live $disconnect: {e}");
    }
}

/// `POST /live/@connections/{id}`: the body to the connection as one text frame.
pub async fn post_to_connection(
    State(api): State<WebSocketApi>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    match api.connections.get(&id) {
        Some(tx)
            if tx
                .send(Out::Frame(String::from_utf8_lossy(&body).into_owned()))
                .is_ok() =>
        {
            StatusCode::OK.into_response()
        }
        _ => gone(),
    }
}

/// `DELETE /live/@connections/{id}`: closes the connection.
pub async fn delete_connection(State(api): State<WebSocketApi>, Path(id): Path<String>) -> Response {
    match api.connections.get(&id) {
        Some(tx) if tx.send(Out::Close).is_ok() => StatusCode::NO_CONTENT.into_response(),
        _ => gone(),
    }
}
