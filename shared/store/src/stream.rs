//! The table's change stream, as both stores give it: every change of a player's
//! streamed state item (the inbox) and of a streamed opaque item (a board's current
//! snapshot pointer, a player's guard), with its body before and after. Deployed, DynamoDB Streams
//! carries it (NEW_AND_OLD_IMAGES, filtered as `template.yaml` filters the `events`
//! function's mapping; [`crate::dynamo::stream`] reads its records); locally the
//! embedded store keeps the same changes in its own stream table, for a day
//! ([`crate::embedded::EmbeddedStore::stream_after`]). What reads it (the live feed,
//! EventBridge) is the service's.

use serde::{Deserialize, Serialize};

/// The state items whose changes the stream carries: the inbox.
pub const STREAMED_STATES: &[&str] = &["inbox"];

/// Whether the stream carries changes of the opaque item (`pk`, `sk`): a board's
/// current snapshot pointer, `SNAP#{board}@{period}` / `CURRENT`, and a player's
/// guard, `DELETED#{player}` / `TOMBSTONE` (a suspension or a deletion, GM-6, OP-4).
pub fn streamed_item(pk: &str, sk: &str) -> bool {
    (sk == "CURRENT" && pk.starts_with("SNAP#")) || (sk == "TOMBSTONE" && pk.starts_with("DELETED#"))
}

/// A player's state item as one change left it: its body (JSON) before and after
/// (`None`: absent, created or removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateImages {
    pub player_id: String,
    /// The state's name (`inbox`).
    pub name: String,
    pub old_body: Option<String>,
    pub new_body: Option<String>,
}

/// An opaque item as one change left it: its key and its body before and after
/// (streamed items' bodies are JSON text; `None`: absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemImages {
    pub pk: String,
    pub sk: String,
    pub old_body: Option<String>,
    pub new_body: Option<String>,
}

/// One change the stream carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    State(StateImages),
    Item(ItemImages),
}
