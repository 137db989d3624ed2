//! The live feed's protocol (LIVE-1 … LIVE-4): what a connected app sends, what podium
//! pushes, and the limits of both. Pure: the service keeps the connections and sends.
//!
//! - LIVE-1: a connection belongs to the player its token (locally, the development
//!   identity) names, and lives at most [`CONNECTION_TTL_SECS`] (API Gateway's two
//!   hours); a player holds at most [`MAX_CONNECTIONS`] at once, the oldest closed
//!   when another opens.
//! - LIVE-2: the client names what it shows with `watch`: at most [`MAX_WATCHED`]
//!   boards, each in the global, friends or country view; a new `watch` replaces the
//!   last.
//! - LIVE-3: podium pushes every inbox message of the player, as the inbox serves it,
//!   and a `board_changed` notice with the new ETag when a refresh changes a watched
//!   board. A push is at most once: the inbox stays the record, read by `since` after
//!   a reconnection.
//! - LIVE-4: a connection receives at most [`MAX_PUSHES_PER_SECOND`] pushes a second;
//!   past it, `board_changed` notices are dropped (the next refresh sends another) and
//!   messages wait in the inbox (the client reads them by `since`), and the client is
//!   told once with a `lagging` notice.

use serde::{Deserialize, Serialize};

use crate::error::{quoted, RuleError};

/// How long a connection lives (LIVE-1): API Gateway closes a WebSocket after 2 hours.
pub const CONNECTION_TTL_SECS: i64 = 2 * 60 * 60;

/// The most connections one player holds at once (LIVE-1): a phone and a tablet, and
/// a reconnection racing the old connection's end.
pub const MAX_CONNECTIONS: usize = 5;

/// The most boards one `watch` names (LIVE-2).
pub const MAX_WATCHED: usize = 10;

/// The most pushes a connection receives a second (LIVE-4).
pub const MAX_PUSHES_PER_SECOND: u32 = 10;

/// The longest client message accepted, in bytes (API Gateway's frame limit is 32 KB;
/// a `watch` of ten boards is under 1 KB).
pub const MAX_CLIENT_MESSAGE_BYTES: usize = 4096;

/// Which entries of a board the client shows (LIVE-2): all, the caller's friends, or
/// one country's (named by `country`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    #[default]
    Global,
    Friends,
    Country,
}

/// One watched board (LIVE-2): a board id (`seega`, `mahjong-weekly`, a defined
/// board's id), the view (global when absent), the country of a country view, and a
/// period (`2026-W49`; the current one when absent).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Watched {
    pub board: String,
    #[serde(default)]
    pub view: View,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<String>,
}

/// What a client sends (LIVE-2): `{"action": "watch", "boards": [...]}` or
/// `{"action": "ping"}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    Watch { boards: Vec<Watched> },
    Ping,
}

/// What podium pushes (LIVE-3, LIVE-4), as JSON with a `type`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// An inbox message, exactly as `GET /v1/me/inbox` serves it.
    Message { message: Box<crate::message::Message> },
    /// A refresh changed a watched board's pages (LIVE-3): the board and view as the
    /// watch named them, the period refreshed, and the new snapshot: every `ETag` of
    /// an answer built from it begins `"{snapshot}.`, so a copy whose ETag does not is
    /// stale (read it again; `If-None-Match` with the old ETag answers 200).
    BoardChanged {
        board: String,
        period: String,
        view: View,
        #[serde(skip_serializing_if = "Option::is_none")]
        country: Option<String>,
        snapshot: String,
    },
    /// The boards now watched, after a `watch`.
    Watching { boards: Vec<Watched> },
    /// Pushes were dropped past the rate cap (LIVE-4): read the inbox `since` the
    /// last message received.
    Lagging { since: Option<String> },
    /// The answer to `ping`.
    Pong,
    /// A client message refused: the field, the rule and why (nothing changed).
    Error { message: String },
}

/// Parses a client message (LIVE-2). Errors name the field and the rule: a message
/// over [`MAX_CLIENT_MESSAGE_BYTES`], not JSON, an unknown `action`, more than
/// [`MAX_WATCHED`] boards or one named twice, a country not of two letters.
pub fn parse_client(text: &str) -> Result<ClientMessage, RuleError> {
    if text.len() > MAX_CLIENT_MESSAGE_BYTES {
        return Err(RuleError::new(
            "message",
            "LIVE-2",
            format!(
                "{} bytes: a message is at most {MAX_CLIENT_MESSAGE_BYTES}",
                text.len()
            ),
        ));
    }
    // The shape first, in the protocol's words (serde's would name its own types).
    let hint = "send {\"action\": \"watch\", \"boards\": [{\"board\": \"seega\"}]} or {\"action\": \"ping\"}";
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        let Some(object) = value.as_object() else {
            return Err(RuleError::new(
                "message",
                "LIVE-2",
                format!("not a JSON object: {hint}"),
            ));
        };
        if !object.get("action").is_some_and(serde_json::Value::is_string) {
            return Err(RuleError::new(
                "action",
                "LIVE-2",
                format!("missing or not a string: {hint}"),
            ));
        }
    }
    let message: ClientMessage = serde_json::from_str(text).map_err(|e| {
        RuleError::new(
            "message",
            "LIVE-2",
            format!(
                "{}: send {{\"action\": \"watch\", \"boards\": [{{\"board\": \"seega\"}}]}} or {{\"action\": \"ping\"}}",
                crate::record::shape::plain_words(&e.to_string())
            ),
        )
    })?;
    if let ClientMessage::Watch { boards } = &message {
        if boards.len() > MAX_WATCHED {
            return Err(RuleError::new(
                "boards",
                "LIVE-2",
                format!("{} boards: a watch names at most {MAX_WATCHED}", boards.len()),
            ));
        }
        for (i, w) in boards.iter().enumerate() {
            if boards[..i].iter().any(|o| o == w) {
                return Err(RuleError::new(
                    format!("boards[{i}]"),
                    "LIVE-2",
                    format!("{} is watched twice in the same view", quoted(&w.board)),
                ));
            }
            match (&w.view, &w.country) {
                (View::Country, Some(country))
                    if country.len() != 2 || !country.bytes().all(|c| c.is_ascii_uppercase()) =>
                {
                    return Err(RuleError::new(
                        format!("boards[{i}].country"),
                        "LIVE-2",
                        format!(
                            "{} is not a country code of two capital letters (`RO`)",
                            quoted(country)
                        ),
                    ));
                }
                (View::Country, None) => {
                    return Err(RuleError::new(
                        format!("boards[{i}].country"),
                        "LIVE-2",
                        "a country view names its country (`RO`)",
                    ))
                }
                (View::Global | View::Friends, Some(_)) => {
                    return Err(RuleError::new(
                        format!("boards[{i}].country"),
                        "LIVE-2",
                        "only a country view (`\"view\": \"country\"`) names a country",
                    ))
                }
                _ => {}
            }
        }
    }
    Ok(message)
}

/// A connection's push budget (LIVE-4): a token bucket of [`MAX_PUSHES_PER_SECOND`]
/// pushes refilled continuously, in milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Pushes available, in thousandths.
    pub milli_tokens: u32,
    /// When it was last spent or refilled (ms, UTC).
    pub at_ms: i64,
}

impl Budget {
    /// A full budget at `now_ms`.
    pub fn full(now_ms: i64) -> Self {
        Budget {
            milli_tokens: MAX_PUSHES_PER_SECOND * 1000,
            at_ms: now_ms,
        }
    }

    /// The budget after one push at `now_ms`, or `None` when none is left (LIVE-4):
    /// the push is dropped.
    pub fn spend(self, now_ms: i64) -> Option<Budget> {
        let elapsed = u32::try_from((now_ms - self.at_ms).clamp(0, 10_000)).unwrap_or(0);
        let refilled =
            (self.milli_tokens + elapsed * MAX_PUSHES_PER_SECOND).min(MAX_PUSHES_PER_SECOND * 1000);
        refilled.checked_sub(1000).map(|left| Budget {
            milli_tokens: left,
            at_ms: now_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LIVE-2: a message that is no object, or has no string `action`, is refused in
    /// the protocol's words.
    #[test]
    fn live_2_refusals_name_the_protocol_not_the_parser() {
        for (text, field) in [
            ("null", "message"),
            ("[1]", "message"),
            (r#"{"action": null}"#, "action"),
            ("{}", "action"),
        ] {
            let e = parse_client(text).expect_err(text);
            assert_eq!((e.field.as_str(), e.rule), (field, "LIVE-2"), "{text}");
            assert!(
                !e.message.contains("enum") && !e.message.contains("variant"),
                "{}",
                e.message
            );
        }
    }

    /// LIVE-2: a watch of boards in their views, and a ping.
    #[test]
    fn live_2_client_messages() {
        assert_eq!(
            parse_client(r#"{"action": "ping"}"#).unwrap(),
            ClientMessage::Ping
        );
        let watch = parse_client(
            r#"{"action": "watch", "boards": [{"board": "seega"},
                {"board": "mahjong-weekly", "view": "friends"},
                {"board": "seega", "view": "country", "country": "RO"},
                {"board": "mahjong-daily", "period": "2026-12-06"}]}"#,
        )
        .unwrap();
        let ClientMessage::Watch { boards } = watch else {
            panic!("a watch")
        };
        assert_eq!(boards.len(), 4);
        assert_eq!(boards[0].view, View::Global);
        assert_eq!(boards[1].view, View::Friends);
        assert_eq!(
            (boards[2].view, boards[2].country.as_deref()),
            (View::Country, Some("RO"))
        );
        assert_eq!(boards[3].period.as_deref(), Some("2026-12-06"));
    }

    /// LIVE-2: refusals name the field and the rule.
    #[test]
    fn live_2_refusals_name_the_field() {
        let refused = |t: &str| parse_client(t).unwrap_err().to_string();
        assert!(refused(r#"{"action": "subscribe"}"#)
            .starts_with("message (LIVE-2): `subscribe` is not one of `watch`, `ping`"));
        assert!(refused("not json").starts_with("message (LIVE-2):"));
        let many = format!(
            r#"{{"action": "watch", "boards": [{}]}}"#,
            (0..11)
                .map(|i| format!(r#"{{"board": "b{i}"}}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(
            refused(&many),
            "boards (LIVE-2): 11 boards: a watch names at most 10"
        );
        assert_eq!(
            refused(
                r#"{"action": "watch", "boards": [{"board": "seega"}, {"board": "seega", "view": "global"}]}"#
            ),
            "boards[1] (LIVE-2): `seega` is watched twice in the same view"
        );
        assert_eq!(
            refused(
                r#"{"action": "watch", "boards": [{"board": "seega", "view": "country", "country": "ro"}]}"#
            ),
            "boards[0].country (LIVE-2): `ro` is not a country code of two capital letters (`RO`)"
        );
        assert!(refused(&"x".repeat(5000)).starts_with("message (LIVE-2): 5000 bytes"));
        assert_eq!(
            refused(r#"{"action": "watch", "boards": [{"board": "seega", "view": "country"}]}"#),
            "boards[0].country (LIVE-2): a country view names its country (`RO`)"
        );
        assert!(
            refused(r#"{"action": "watch", "boards": [{"board": "seega", "colour": "red"}]}"#)
                .contains("unknown field `colour`")
        );
    }

    /// LIVE-4: ten pushes at once, then one every 100 ms.
    #[test]
    fn live_4_the_push_budget() {
        let mut b = Budget::full(0);
        for _ in 0..10 {
            b = b.spend(0).expect("within the cap");
        }
        assert_eq!(b.spend(0), None, "the 11th at once is dropped");
        assert_eq!(b.spend(50), None, "half a push refilled");
        let b = b.spend(100).expect("one refilled after 100 ms");
        assert_eq!(b.milli_tokens, 0);
        assert_eq!(Budget::full(0).spend(60_000).map(|b| b.milli_tokens), Some(9_000));
    }
}
