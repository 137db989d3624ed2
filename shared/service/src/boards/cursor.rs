//! Page cursors (LB-3): opaque to the app and integrity-checked. A cursor is the
//! position where a page stopped, signed with HMAC-SHA-256 under a key from
//! configuration ([`CursorKey`]) and bound to its board and period; the server
//! takes nothing from a cursor it did not issue for that board and period, so no
//! rank ever depends on a number the client sent.
//!
//! Wire form: unpadded base64url of the JSON payload followed by the first 16 bytes
//! of its HMAC. Clients must treat it as an opaque string.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use podium_rules::board::BoardRef;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::error::ServiceError;

/// Bytes of the HMAC kept in a cursor.
const TAG_BYTES: usize = 16;

/// The longest cursor accepted, in characters (issued ones are far shorter).
pub const MAX_CURSOR_CHARS: usize = 1_024;

/// Where a page stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", deny_unknown_fields)]
pub enum Cursor {
    /// In snapshot `snapshot`: the entry at `offset` of the page whose first entry's
    /// encoded board key is `page`; an offset of `page_size` starts the next page.
    /// The snapshot's page size, entry count and `as_of` (ms, UTC) travel along, so a
    /// walk on an older snapshot needs nothing else.
    #[serde(rename = "s")]
    Snapshot {
        #[serde(rename = "s")]
        snapshot: String,
        #[serde(rename = "k")]
        page: String,
        #[serde(rename = "o")]
        offset: u64,
        /// Entries of the snapshot before the next one (its 0-based position).
        #[serde(rename = "p")]
        position: u64,
        #[serde(rename = "n")]
        page_size: u64,
        #[serde(rename = "e")]
        entries: u64,
        #[serde(rename = "a")]
        as_of_ms: i64,
    },
    /// On the live board (no snapshot yet): after the entry with board key `after`
    /// (encoded), `position` entries listed so far, the last with `value` at `rank`.
    #[serde(rename = "l")]
    Live {
        #[serde(rename = "k")]
        after: String,
        #[serde(rename = "p")]
        position: u64,
        #[serde(rename = "v")]
        value: i64,
        #[serde(rename = "r")]
        rank: u64,
    },
    /// In a player's point history (GM-4): after the entry settled `seq`-th of
    /// `source`/`source_id`, newest settled first.
    #[serde(rename = "h")]
    Ledger {
        #[serde(rename = "q")]
        seq: u64,
        #[serde(rename = "s")]
        source: String,
        #[serde(rename = "i")]
        source_id: String,
    },
    /// In a list read by sort key (an audit trail, the review queue): after the item
    /// with sort key `key`, in the list's order.
    #[serde(rename = "k")]
    Key {
        #[serde(rename = "k")]
        key: String,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Signed {
    /// The board and period (`seega@all`).
    b: String,
    c: Cursor,
}

/// The secret that signs cursors. Cheap to clone.
#[derive(Clone)]
pub struct CursorKey {
    secret: Arc<[u8]>,
    /// [`CursorKey::fingerprint`].
    fingerprint: [u8; 8],
}

impl std::fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorKey(…)")
    }
}

/// The refusal of a cursor of another listing (a board's where a history's is
/// expected, or the reverse): a 400 naming `cursor`.
pub(crate) fn foreign() -> ServiceError {
    bad("not a cursor this API issued for this listing")
}

fn bad(message: &str) -> ServiceError {
    ServiceError::BadRequest {
        field: "cursor",
        message: message.to_string(),
    }
}

impl CursorKey {
    /// The shortest key accepted, in bytes.
    pub const MIN_LEN: usize = 32;

    /// A key from configuration; `None` when shorter than [`Self::MIN_LEN`].
    pub fn new(secret: &[u8]) -> Option<Self> {
        (secret.len() >= Self::MIN_LEN).then(|| Self::of(secret.into()))
    }

    /// A random key (one process's cursors).
    pub fn random() -> Self {
        let bytes: [u8; 32] = rand::random();
        Self::of(bytes.as_slice().into())
    }

    fn of(secret: Arc<[u8]>) -> Self {
        let mut key = CursorKey {
            secret,
            fingerprint: [0; 8],
        };
        let tag = key
            .mac(b"podium: the fingerprint of a cursor key")
            .finalize()
            .into_bytes();
        key.fingerprint.copy_from_slice(&tag[..8]);
        key
    }

    /// 8 bytes that differ between keys and reveal nothing of the secret (an HMAC of
    /// a fixed text): an answer that carries cursors names the key that signed them
    /// in its entity tag, so that a revalidation after the key changed (a rotation,
    /// a process with a random key) gets the new cursors, never a 304 keeping
    /// cursors no longer accepted.
    pub fn fingerprint(&self) -> [u8; 8] {
        self.fingerprint
    }

    fn mac(&self, payload: &[u8]) -> Hmac<Sha256> {
        // HMAC takes keys of any length.
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.secret).unwrap_or_else(|_| unreachable!());
        mac.update(payload);
        mac
    }

    /// The cursor string for `cursor` on `board` (in its period).
    pub fn issue(&self, board: &BoardRef, cursor: Cursor) -> String {
        self.issue_in(&board.key(), cursor)
    }

    /// The cursor string for `cursor` in `scope`: a board and period's key, or
    /// another listing's (`ledger/{game}/{player}`).
    pub fn issue_in(&self, scope: &str, cursor: Cursor) -> String {
        let payload = serde_json::to_vec(&Signed {
            b: scope.to_string(),
            c: cursor,
        })
        .unwrap_or_default();
        let tag = self.mac(&payload).finalize().into_bytes();
        let mut raw = payload;
        raw.extend_from_slice(&tag[..TAG_BYTES]);
        URL_SAFE_NO_PAD.encode(raw)
    }

    /// The cursor in `token`, if this key issued it for `board` (in its period).
    /// Anything else is a 400 naming `cursor`.
    pub fn open(&self, board: &BoardRef, token: &str) -> Result<Cursor, ServiceError> {
        self.open_in(&board.key(), token)
    }

    /// The cursor in `token`, if this key issued it in `scope` ([`Self::issue_in`]).
    pub fn open_in(&self, scope: &str, token: &str) -> Result<Cursor, ServiceError> {
        // A history's scope is `ledger/…`, an audit trail's `audit:…`, the review
        // queue's `review`; any other is a board and period's.
        let (foreign, other) = if scope.starts_with("ledger/") {
            (
                "not a cursor this API issued for this history",
                "this cursor belongs to another player's or game's history",
            )
        } else if scope.starts_with("audit:") {
            (
                "not a cursor this API issued for this audit trail",
                "this cursor belongs to another audit trail (player, operator, day or board)",
            )
        } else if scope == "review" {
            (
                "not a cursor this API issued for the review queue",
                "this cursor belongs to another list",
            )
        } else {
            (
                "not a cursor this API issued for this board and period",
                "this cursor belongs to another board, period or country",
            )
        };
        if token.is_empty() || token.len() > MAX_CURSOR_CHARS {
            return Err(bad(foreign));
        }
        let raw = URL_SAFE_NO_PAD.decode(token).map_err(|_| bad(foreign))?;
        if raw.len() <= TAG_BYTES {
            return Err(bad(foreign));
        }
        let (payload, tag) = raw.split_at(raw.len() - TAG_BYTES);
        self.mac(payload)
            .verify_truncated_left(tag)
            .map_err(|_| bad(foreign))?;
        let signed: Signed = serde_json::from_slice(payload).map_err(|_| bad(foreign))?;
        if signed.b != scope {
            return Err(bad(other));
        }
        Ok(signed.c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> CursorKey {
        CursorKey::new(b"0123456789abcdef0123456789abcdef").unwrap()
    }

    fn live() -> Cursor {
        Cursor::Live {
            after: "k".into(),
            position: 3,
            value: 311,
            rank: 1,
        }
    }

    fn refused(r: Result<Cursor, ServiceError>) -> bool {
        matches!(r, Err(ServiceError::BadRequest { field: "cursor", .. }))
    }

    /// LB-3: a cursor opens only with its key, on its board and period, unaltered.
    #[test]
    fn cursors_are_bound_and_signed() {
        let board = BoardRef::all_time("seega");
        let token = key().issue(&board, live());
        assert_eq!(key().open(&board, &token).unwrap(), live());
        assert!(refused(key().open(&BoardRef::all_time("mahjong-amr"), &token)));
        assert!(refused(key().open(
            &BoardRef::new("mahjong-weekly", "2026-W48"),
            &key().issue(&BoardRef::new("mahjong-weekly", "2026-W49"), live())
        )));
        let other = CursorKey::new(b"another key, another key, another").unwrap();
        assert!(refused(other.open(&board, &token)));
        // Every single-character change of the token is refused.
        let chars: Vec<char> = token.chars().collect();
        for i in 0..chars.len() {
            for c in ['A', 'b', '0', '-', '_'] {
                if chars[i] == c {
                    continue;
                }
                let mut t = chars.clone();
                t[i] = c;
                let t: String = t.into_iter().collect();
                if let Ok(opened) = key().open(&board, &t) {
                    // Only a change in the unused low bits of the last character decodes to the same bytes.
                    assert_eq!(opened, live(), "{t}");
                }
            }
        }
        for t in [
            "",
            "x",
            "eyJ0IjoibCJ9",
            &"A".repeat(5_000),
            &token[..token.len() - 2],
        ] {
            assert!(refused(key().open(&board, t)), "{t}");
        }
    }

    /// LB-3 (review case): the rank state of an unsigned cursor, edited, is refused.
    #[test]
    fn unsigned_rank_state_is_refused() {
        let board = BoardRef::all_time("seega");
        let forged = serde_json::json!({"b": "seega@all", "c": {"t": "l", "k": "k", "p": 100, "v": 1_000_000, "r": 100}});
        let forged = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&forged).unwrap());
        assert!(refused(key().open(&board, &forged)));
        let mut raw = URL_SAFE_NO_PAD.decode(key().issue(&board, live())).unwrap();
        let text = String::from_utf8_lossy(&raw[..raw.len() - TAG_BYTES]).replace("\"p\":3", "\"p\":9");
        let tag = raw.split_off(raw.len() - TAG_BYTES);
        let mut edited = text.into_bytes();
        edited.extend(tag);
        assert!(refused(key().open(&board, &URL_SAFE_NO_PAD.encode(edited))));
    }
}
