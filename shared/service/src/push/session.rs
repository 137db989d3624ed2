//! A connected client's messages (LIVE-2): `watch` and `ping`, answered with one
//! frame each, the same deployed (the `live` function's `$default` route) and locally
//! (`podium serve`'s `/v1/live`).

use chrono::{DateTime, Utc};
use podium_rules::push::{parse_client, ClientMessage, ServerMessage};
use podium_store::{ItemStore, SettleStore};

use super::connections;
use crate::error::ServiceError;

/// The answer to the client message `text` of `player_id`'s connection
/// `connection_id`, at `now`: `watching` with the boards now watched, `pong`, or an
/// `error` naming the field and rule (a message not understood, a board that does not
/// exist, a connection no longer open; nothing changed). Errors: the store's only.
pub async fn answer<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    player_id: &str,
    connection_id: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<ServerMessage, ServiceError> {
    let refused = |message: String| Ok(ServerMessage::Error { message });
    match parse_client(text) {
        Err(e) => refused(e.to_string()),
        Ok(ClientMessage::Ping) => Ok(ServerMessage::Pong),
        Ok(ClientMessage::Watch { boards }) => {
            match connections::watch(store, player_id, connection_id, boards, now).await {
                Ok(boards) => Ok(ServerMessage::Watching { boards }),
                Err(ServiceError::Invalid(e)) => refused(e.to_string()),
                Err(ServiceError::NotFound(m)) => refused(m),
                Err(e) => Err(e),
            }
        }
    }
}
