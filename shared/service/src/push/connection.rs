//! One connection of the live feed (LIVE-1), as its item and the watchers index
//! hold it.

use podium_rules::push::Watched;
use serde::{Deserialize, Serialize};

/// One open connection (LIVE-1): its id (API Gateway's `connectionId`, or the local
/// server's), its player, when it opened and when it ends (ms since the Unix epoch,
/// UTC), and what it watches (LIVE-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connection {
    pub connection_id: String,
    pub player_id: String,
    pub connected_at_ms: i64,
    pub ends_at_ms: i64,
    #[serde(default)]
    pub watching: Vec<Watched>,
}
