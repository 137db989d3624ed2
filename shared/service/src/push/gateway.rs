//! Sending to connections (LIVE-3, LIVE-4): the [`Gateway`] that carries a frame to
//! one connection (API Gateway's management API deployed, the local server's sockets
//! in `podium serve`), and the [`Pusher`] every push goes through: the rate cap of
//! each connection, at most once, and a gone connection forgotten.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use podium_rules::push::{Budget, ServerMessage, CONNECTION_TTL_SECS};
use podium_store::ItemStore;

use super::connections::{self, Connection};
use crate::error::ServiceError;

/// What posting a frame to a connection came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Handed to the connection.
    Sent,
    /// The connection is gone (API Gateway's 410): forget it, never retry.
    Gone,
    /// The connection is another gateway's (another local server on the same store):
    /// not sent here, and not forgotten.
    Elsewhere,
}

/// Carries frames to connections.
#[async_trait]
pub trait Gateway: Send + Sync {
    /// Posts `data` (one JSON text frame) to `connection_id`. Errors: the gateway
    /// could not be reached or refused otherwise (the push is dropped: at most once).
    async fn post(&self, connection_id: &str, data: &str) -> Result<Delivery, ServiceError>;

    /// Closes `connection_id` (the oldest of a player past LIVE-1's cap, a suspended
    /// or deleted player's): `Sent` when closed, `Gone` when it was already gone,
    /// `Elsewhere` when another gateway holds it (its item is then left to that one).
    async fn close(&self, connection_id: &str) -> Result<Delivery, ServiceError>;
}

/// What one push came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    Sent,
    /// Past the connection's rate cap (LIVE-4), or the gateway failed: not sent.
    Dropped,
    /// The connection was gone: its item deleted.
    Gone,
}

/// What the pusher knows of one connection (LIVE-4): its budget, whether it was told
/// it lags, and the last inbox message it was sent.
#[derive(Debug, Clone)]
struct Sending {
    budget: Budget,
    lagging: bool,
    last_message: Option<String>,
}

/// Connections the pusher remembers at most before forgetting those idle for a
/// connection's lifetime.
const REMEMBERED: usize = 10_000;

/// Pushes frames through a [`Gateway`] within each connection's rate cap (LIVE-4): a
/// bucket of [`podium_rules::push::MAX_PUSHES_PER_SECOND`] refilled continuously.
/// Past it the push is dropped, and the connection told once, with
/// `{"type": "lagging", "since": <the last message id sent to it>}`, until it has
/// budget again. The cap is kept by each process that pushes (one per stream shard
/// deployed: a player's inbox messages all pass one; `board_changed` notices come
/// from the same stream).
pub struct Pusher {
    gateway: Arc<dyn Gateway>,
    sending: Mutex<HashMap<String, Sending>>,
    pace: Option<Pace>,
}

/// The most posts a second a pusher makes (deployed: within API Gateway's account
/// throttle, docs/deploy.md): each post takes the next slot, waiting for it; a post
/// whose slot falls after its deadline is dropped instead.
struct Pace {
    interval: std::time::Duration,
    next: Mutex<tokio::time::Instant>,
}

impl Pusher {
    /// A pusher through `gateway`, unpaced.
    pub fn new(gateway: Arc<dyn Gateway>) -> Self {
        Pusher {
            gateway,
            sending: Mutex::new(HashMap::new()),
            pace: None,
        }
    }

    /// This pusher making at most `per_second` posts a second (at least 1).
    pub fn paced(mut self, per_second: u32) -> Self {
        self.pace = Some(Pace {
            interval: std::time::Duration::from_secs(1) / per_second.max(1),
            next: Mutex::new(tokio::time::Instant::now()),
        });
        self
    }

    /// Waits for the next post slot; `false` when it falls after `deadline`.
    async fn slot(&self, deadline: Option<tokio::time::Instant>) -> bool {
        let Some(pace) = &self.pace else {
            return true;
        };
        let at = {
            let mut next = pace
                .next
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let at = (*next).max(tokio::time::Instant::now());
            if deadline.is_some_and(|d| at > d) {
                return false;
            }
            *next = at + pace.interval;
            at
        };
        tokio::time::sleep_until(at).await;
        true
    }

    /// The gateway pushes go through.
    pub fn gateway(&self) -> &Arc<dyn Gateway> {
        &self.gateway
    }

    /// Pushes `message` to `connection` at `now` within its budget. A gone connection's
    /// item is deleted (with its watches). Errors: only the store's, deleting a gone
    /// connection; a gateway failure is logged and the push dropped.
    pub async fn push<S: ItemStore + ?Sized>(
        &self,
        store: &S,
        connection: &Connection,
        message: &ServerMessage,
        now: DateTime<Utc>,
    ) -> Result<Pushed, ServiceError> {
        self.push_until(store, connection, message, now, None).await
    }

    /// [`Pusher::push`], dropped when the pusher's pace has no slot for it before
    /// `deadline`.
    pub async fn push_until<S: ItemStore + ?Sized>(
        &self,
        store: &S,
        connection: &Connection,
        message: &ServerMessage,
        now: DateTime<Utc>,
        deadline: Option<tokio::time::Instant>,
    ) -> Result<Pushed, ServiceError> {
        let now_ms = now.timestamp_millis();
        let id = &connection.connection_id;
        let lagging_notice = {
            let mut sending = self.lock();
            if sending.len() > REMEMBERED {
                let idle = now_ms - CONNECTION_TTL_SECS * 1000;
                sending.retain(|_, s| s.budget.at_ms > idle);
            }
            let s = sending.entry(id.clone()).or_insert_with(|| Sending {
                budget: Budget::full(now_ms),
                lagging: false,
                last_message: None,
            });
            match s.budget.spend(now_ms) {
                Some(left) => {
                    s.budget = left;
                    s.lagging = false;
                    if let ServerMessage::Message { message } = message {
                        s.last_message = Some(message.id.clone());
                    }
                    None
                }
                None if s.lagging => return Ok(Pushed::Dropped),
                None => {
                    s.lagging = true;
                    Some(ServerMessage::Lagging {
                        since: s.last_message.clone(),
                    })
                }
            }
        };
        if !self.slot(deadline).await {
            return Ok(Pushed::Dropped);
        }
        let frame = lagging_notice.as_ref().unwrap_or(message);
        let data = serde_json::to_string(frame)
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("push", e)))?;
        match self.gateway.post(id, &data).await {
            Ok(Delivery::Elsewhere) => Ok(Pushed::Dropped),
            Ok(Delivery::Sent) if lagging_notice.is_some() => Ok(Pushed::Dropped),
            Ok(Delivery::Sent) => Ok(Pushed::Sent),
            Ok(Delivery::Gone) => {
                self.forget(id);
                connections::disconnect(store, &connection.player_id, id).await?;
                Ok(Pushed::Gone)
            }
            Err(e) => {
                tracing::warn!(connection = %id, error = %e, "a push failed; dropped (at most once)");
                Ok(Pushed::Dropped)
            }
        }
    }

    /// Forgets what the pusher knew of a connection that closed.
    pub fn forget(&self, connection_id: &str) {
        self.lock().remove(connection_id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Sending>> {
        // A panic while holding it leaves only budgets behind: still usable.
        self.sending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
