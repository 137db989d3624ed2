//! The opaque page cursor (LB-3): where the last page stopped and the LB-2 rank
//! state there, so the next page needs no count.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use podium_rules::leaderboard::RankCounter;
use podium_store::BoardKey;
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cursor {
    /// Board id the cursor belongs to.
    pub b: String,
    /// Encoded board key of the last entry listed.
    pub k: String,
    /// Entries listed so far.
    pub p: u64,
    /// The last entry's value and rank.
    pub v: i64,
    pub r: u64,
}

/// A cursor into a snapshot: the snapshot id and the offset of the next entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotCursor {
    /// Board id.
    pub b: String,
    /// Snapshot id.
    pub s: String,
    /// Entries before the next page.
    pub o: u64,
}

impl SnapshotCursor {
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default())
    }

    /// Parses a snapshot cursor for `board`; `None` when `s` is no snapshot cursor
    /// (it may be a live one), an error when it is one of another board.
    pub fn decode(s: &str, board: &str) -> Result<Option<Self>, ServiceError> {
        let Some(c) = URL_SAFE_NO_PAD
            .decode(s)
            .ok()
            .and_then(|b| serde_json::from_slice::<SnapshotCursor>(&b).ok())
        else {
            return Ok(None);
        };
        if c.b != board {
            return Err(ServiceError::BadRequest {
                field: "cursor",
                message: "cursor belongs to another board".into(),
            });
        }
        Ok(Some(c))
    }
}

impl Cursor {
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default())
    }

    /// Parses a cursor for `board`; errors name the `cursor` parameter.
    pub fn decode(s: &str, board: &str) -> Result<(BoardKey, RankCounter), ServiceError> {
        let bad = |message: &str| ServiceError::BadRequest {
            field: "cursor",
            message: message.to_string(),
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(s)
            .map_err(|_| bad("not a cursor of this API"))?;
        let c: Cursor = serde_json::from_slice(&bytes).map_err(|_| bad("not a cursor of this API"))?;
        if c.b != board {
            return Err(bad("cursor belongs to another board"));
        }
        let key = BoardKey::decode(&c.k)
            .filter(|k| podium_rules::record::is_valid_id(&k.player_id))
            .ok_or_else(|| bad("not a cursor of this API"))?;
        if c.r == 0 || c.r > c.p {
            return Err(bad("not a cursor of this API"));
        }
        Ok((key, RankCounter::resume(c.p, c.v, c.r)))
    }
}
