//! `podium serve`'s live feed, `GET /v1/live` (LIVE-1 … LIVE-4, docs/rules/live.md):
//! the WebSocket protocol the deployed WebSocket API speaks, with the development
//! identity as on every route (`Authorization: Dev <player-id>`, or, for a browser,
//! which cannot set headers on a WebSocket, `?token=Dev%20<player-id>`, as the deployed
//! API takes its token).
//!
//! Pushes come from the embedded store's change stream, read every
//! [`POLL`] by one task ([`follow`]) and handed to the same
//! [`podium_service::push::feed::on_change`] the `events` function calls deployed, so
//! whatever process wrote the change (`podium replay`, `podium snapshot`, this
//! server) its pushes reach the sockets of this one. The live feed keeps wall-clock
//! time (a connection's two hours), whatever the test clock says.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use podium_rules::push::{ServerMessage, MAX_CLIENT_MESSAGE_BYTES};
use podium_service::api::{ApiError, Identity};
use podium_service::error::ServiceError;
use podium_service::push::connections;
use podium_service::push::gateway::{Delivery, Gateway, Pusher};
use podium_store::embedded::EmbeddedStore;
use podium_store::Store;
use tokio::sync::mpsc;

/// How often the store's change stream is read when it had nothing new.
pub const POLL: Duration = Duration::from_millis(100);

/// Frames waiting for one socket at most: past it, pushes to it are dropped
/// (LIVE-4 bounds what a connection is sent; a socket this far behind is not reading).
const QUEUE: usize = 64;

/// The largest frame a client may send (API Gateway's 32 KB): larger closes the
/// socket; up to it, a message over LIVE-2's 4 KB is answered with an error.
const MAX_FRAME: usize = 32 * 1024;
const _: () = assert!(MAX_FRAME >= MAX_CLIENT_MESSAGE_BYTES);

/// Each socket's read buffer, in bytes.
const BUFFER: usize = 8 * 1024;

enum Outgoing {
    Frame(String),
    Close,
}

/// This server's sockets, by connection id: the [`Gateway`] pushes go through. Its
/// connection ids begin with its own tag, so that another `podium serve` on the same
/// store (which reads the same stream) leaves this one's connections alone.
pub struct Sockets {
    tag: String,
    open: Mutex<HashMap<String, mpsc::Sender<Outgoing>>>,
}

impl Default for Sockets {
    fn default() -> Self {
        Sockets {
            tag: format!("{:08x}-", rand::random::<u32>()),
            open: Mutex::new(HashMap::new()),
        }
    }
}

impl Sockets {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::Sender<Outgoing>>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl Gateway for Sockets {
    async fn post(&self, connection_id: &str, data: &str) -> Result<Delivery, ServiceError> {
        if !connection_id.starts_with(&self.tag) {
            return Ok(Delivery::Elsewhere);
        }
        let Some(tx) = self.lock().get(connection_id).cloned() else {
            return Ok(Delivery::Gone);
        };
        match tx.try_send(Outgoing::Frame(data.to_string())) {
            Ok(()) => Ok(Delivery::Sent),
            Err(mpsc::error::TrySendError::Closed(_)) => Ok(Delivery::Gone),
            Err(mpsc::error::TrySendError::Full(_)) => {
                Err(ServiceError::Push("the socket's queue is full".into()))
            }
        }
    }

    async fn close(&self, connection_id: &str) -> Result<Delivery, ServiceError> {
        if !connection_id.starts_with(&self.tag) {
            return Ok(Delivery::Elsewhere);
        }
        match self.lock().get(connection_id).cloned() {
            Some(tx) => {
                let _ = tx.try_send(Outgoing::Close);
                Ok(Delivery::Sent)
            }
            None => Ok(Delivery::Gone),
        }
    }
}

/// The live feed's state: the store, this server's sockets and the pusher over them.
#[derive(Clone)]
pub struct Live {
    pub store: Arc<dyn Store>,
    pub sockets: Arc<Sockets>,
    pub pusher: Arc<Pusher>,
    /// The API's copy of the boards' pointers: a pointer seen on the stream replaces
    /// it before the `board_changed` goes out, so that a page fetched on the notice is
    /// the new snapshot's.
    pub cache: Arc<podium_service::boards::pages::SnapshotCache>,
}

impl Live {
    pub fn new(store: Arc<dyn Store>, cache: Arc<podium_service::boards::pages::SnapshotCache>) -> Self {
        let sockets = Arc::new(Sockets::default());
        let pusher = Arc::new(Pusher::new(sockets.clone()));
        Live {
            store,
            sockets,
            pusher,
            cache,
        }
    }
}

/// `GET /v1/live`: upgrades to the live feed's WebSocket for the caller (LIVE-1):
/// 401 without an identity, 403 for a suspended or deleted account, 400 for a request
/// that is no WebSocket upgrade.
pub async fn upgrade(
    State(live): State<Live>,
    identity: Option<axum::Extension<Identity>>,
    ws: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    let Some(player) = identity.and_then(|i| i.0.player) else {
        return ApiError(ServiceError::Unauthenticated).into_response();
    };
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => {
            return ApiError(ServiceError::BadRequest {
                field: "Upgrade",
                message: format!("{rejection}: open it as a WebSocket (ws://…/v1/live)"),
            })
            .into_response()
        }
    };
    let connection_id = format!("{}{}", live.sockets.tag, new_connection_id());
    let now = Utc::now();
    let closed = match connections::connect(live.store.as_ref(), &player, &connection_id, now).await {
        Ok(closed) => closed,
        Err(e) => return ApiError(e).into_response(),
    };
    for id in closed {
        let _ = live.sockets.close(&id).await;
    }
    let (tx, rx) = mpsc::channel(QUEUE);
    live.sockets.lock().insert(connection_id.clone(), tx);
    // Small buffers: frames are under 4 KB both ways (tungstenite's defaults, 128 KiB
    // each, cost a server of 1,000 connections about 190 MB).
    ws.max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .read_buffer_size(BUFFER)
        .write_buffer_size(0)
        .on_upgrade(move |socket| session(live, player, connection_id, socket, rx))
}

/// A connection id's random part: 12 random bytes, base64.
fn new_connection_id() -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(rand::random::<[u8; 12]>())
}

async fn session(
    live: Live,
    player: String,
    connection_id: String,
    mut socket: WebSocket,
    mut rx: mpsc::Receiver<Outgoing>,
) {
    let ends = tokio::time::Instant::now()
        + Duration::from_secs(podium_rules::push::CONNECTION_TTL_SECS.unsigned_abs());
    // The close frame's code and reason (RFC 6455): a normal close unless the server
    // ends it.
    let mut close: (u16, &str) = (1000, "");
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t.to_string(),
                    Some(Ok(Message::Binary(_))) => {
                        // LIVE-2: the protocol is JSON text.
                        let refusal = ServerMessage::Error {
                            message: "message (LIVE-2): send JSON as a text frame".into(),
                        };
                        if send(&mut socket, &refusal).await.is_err() {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                };
                let answer = podium_service::push::session::answer(
                    live.store.as_ref(),
                    &player,
                    &connection_id,
                    &text,
                    Utc::now(),
                )
                .await
                .unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "a live message could not be answered");
                    ServerMessage::Error {
                        message: "the store is not answering; send it again shortly".into(),
                    }
                });
                if send(&mut socket, &answer).await.is_err() {
                    break;
                }
            }
            out = rx.recv() => match out {
                Some(Outgoing::Frame(text)) => {
                    if socket.send(Message::Text(text.into())).await.is_err() {
                        break;
                    }
                }
                Some(Outgoing::Close) | None => {
                    close = (1008, "closed by the server: a newer connection of this player, or the account suspended or deleted (LIVE-1)");
                    break;
                }
            },
            _ = tokio::time::sleep_until(ends) => {
                close = (1001, "the connection's 2 hours are over: connect again (LIVE-1)");
                break;
            }
        }
    }
    let frame = axum::extract::ws::CloseFrame {
        code: close.0,
        reason: close.1.into(),
    };
    let _ = socket.send(Message::Close(Some(frame))).await;
    live.sockets.lock().remove(&connection_id);
    live.pusher.forget(&connection_id);
    if let Err(e) = connections::disconnect(live.store.as_ref(), &player, &connection_id).await {
        tracing::warn!(error = %e, "a closed connection's item could not be deleted; its expiry will");
    }
}

async fn send(socket: &mut WebSocket, message: &ServerMessage) -> Result<(), axum::Error> {
    let text = serde_json::to_string(message).unwrap_or_default();
    socket.send(Message::Text(text.into())).await
}

/// Reads the embedded store's change stream from its end on, every [`POLL`] when
/// there was nothing new, and pushes each change ([`podium_service::push::feed`]).
/// A change whose push fails is logged and passed (at most once); runs until the
/// server stops.
pub async fn follow(store: Arc<EmbeddedStore>, live: Live) {
    let mut after = match store.stream_end().await {
        Ok(n) => n,
        Err(e) => {
            eprintln!("live feed: the store's change stream cannot be read ({e}): nothing will be pushed");
            return;
        }
    };
    loop {
        let changes = match store.stream_after(after, 100).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "reading the change stream failed; trying again");
                tokio::time::sleep(POLL * 10).await;
                continue;
            }
        };
        let full = changes.len() == 100;
        for (n, change) in changes {
            if let podium_store::stream::Change::Item(item) = &change {
                if let Some((board, published)) = podium_service::push::feed::pointer(item) {
                    live.cache.offer(&board, published);
                }
            }
            if let Err(e) =
                podium_service::push::feed::on_change(live.store.as_ref(), &live.pusher, &change, Utc::now())
                    .await
            {
                tracing::warn!(error = %e, "a change could not be pushed; passed (at most once)");
            }
            after = n;
        }
        if !full {
            tokio::time::sleep(POLL).await;
        }
    }
}
