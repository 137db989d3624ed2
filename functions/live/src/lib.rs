//! `live`: the live feed's WebSocket API routes (LIVE-1, LIVE-2), as API Gateway's
//! WebSocket API invokes them (Lambda proxy integration):
//!
//! - `$connect`, after the `live-authorizer` function verified the token: the player
//!   is the authorizer's `principalId` (the token's `sub`). The connection is stored
//!   (LIVE-1), the oldest past the cap closed; a suspended or deleted account is
//!   refused (403), and API Gateway then refuses the connection.
//! - `$disconnect`: the connection and its watches deleted.
//! - `$default`: a client message (`watch`, `ping`), answered by posting one frame
//!   back through the management API ([`podium_service::push::session`]).
//!
//! Answers are `{"statusCode": N}`; a store failure answers 500 (a `$connect` is then
//! refused and the client connects again).

use chrono::{DateTime, Utc};
use podium_service::push::gateway::Gateway;
use podium_service::push::{connections, session};
use podium_service::ServiceError;
use podium_store::{ItemStore, SettleStore};
use serde_json::{json, Value};

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(*k))?.as_str()
}

fn status(code: u16) -> Value {
    json!({"statusCode": code})
}

/// Handles one WebSocket route invocation (`event`: API Gateway's WebSocket proxy
/// event) at `now`; the answer is API Gateway's proxy response.
pub async fn handle<S: ItemStore + SettleStore + ?Sized, G: Gateway + ?Sized>(
    store: &S,
    gateway: &G,
    event: &Value,
    now: DateTime<Utc>,
) -> Value {
    let route = text(event, &["requestContext", "routeKey"]).unwrap_or_default();
    let Some(connection) = text(event, &["requestContext", "connectionId"]) else {
        return status(400);
    };
    // Set by the authorizer (its principalId): never by the client.
    let Some(player) = text(event, &["requestContext", "authorizer", "principalId"]) else {
        tracing::warn!(route, "no authorizer principal on a live route");
        return status(401);
    };
    let answered = match route {
        "$connect" => connect(store, gateway, player, connection, now).await,
        "$disconnect" => connections::disconnect(store, player, connection)
            .await
            .map(|()| 200),
        _ => {
            let body = text(event, &["body"]).unwrap_or_default();
            message(store, gateway, player, connection, body, now).await
        }
    };
    match answered {
        Ok(code) => status(code),
        Err(e @ (ServiceError::Forbidden(_) | ServiceError::Suspended { .. })) => {
            tracing::info!(route, reason = %e.log_reason(), "live connection refused");
            status(403)
        }
        Err(e @ (ServiceError::Invalid(_) | ServiceError::BadRequest { .. })) => {
            tracing::info!(route, reason = %e.log_reason(), "live request refused");
            status(400)
        }
        Err(e) => {
            tracing::error!(route, error = %e, "live route failed");
            status(500)
        }
    }
}

async fn connect<S: ItemStore + SettleStore + ?Sized, G: Gateway + ?Sized>(
    store: &S,
    gateway: &G,
    player: &str,
    connection: &str,
    now: DateTime<Utc>,
) -> Result<u16, ServiceError> {
    for closed in connections::connect(store, player, connection, now).await? {
        if let Err(e) = gateway.close(&closed).await {
            tracing::warn!(error = %e, "closing a connection past the cap failed; its item is gone");
        }
    }
    Ok(200)
}

async fn message<S: ItemStore + SettleStore + ?Sized, G: Gateway + ?Sized>(
    store: &S,
    gateway: &G,
    player: &str,
    connection: &str,
    body: &str,
    now: DateTime<Utc>,
) -> Result<u16, ServiceError> {
    let answer = session::answer(store, player, connection, body, now).await?;
    let frame = serde_json::to_string(&answer).unwrap_or_default();
    gateway.post(connection, &frame).await?;
    Ok(200)
}
