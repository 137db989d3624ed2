//! The finished-match record a game server sends (GM-1), its parsing and its
//! validation (GM-5), and the content hash that tells a retry from a conflict (GM-3).
//!
//! Wire shape (JSON; every field required, unknown fields refused):
//!
//! ```json
//! {
//!   "match_id": "m-000123",
//!   "game": "seega",
//!   "started_at": "2026-11-29T10:00:00Z",
//!   "ended_at": "2026-11-29T10:05:12Z",
//!   "players": [
//!     {"player_id": "p-1", "moves": 20, "stones_on_board": 24, "stones_in_hand": 0},
//!     {"player_id": "p-2", "moves": 20, "stones_on_board": 0, "stones_in_hand": 0}
//!   ],
//!   "stones_placed": 48,
//!   "outcome": {"result": "win", "winner": "p-1", "reason": "completed"}
//! }
//! ```
//!
//! `outcome` is either `{"result": "win", "winner": ID, "reason": R}` with `R` one of
//! `completed`, `resigned`, `turn_timeout`, or `{"result": "draw"}`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::RuleError;
use crate::game::Game;
use crate::record::instant;
use crate::record::shape::objects;
use crate::record::shape::shape_error;

/// Stones each Seega player has (SG-1).
pub const STONES_PER_PLAYER: u32 = 24;
/// The most moves one player may be counted in one match (GM-5 range).
pub const MAX_MOVES: u32 = 10_000;

/// A finished match as the game server reports it. Deserialising checks only the
/// JSON shape; [`MatchRecord::validate`] checks the rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchRecord {
    /// The game server's id for the match: the idempotency key (GM-3).
    pub match_id: String,
    /// Game id, e.g. `seega` (LB-1 names).
    pub game: String,
    /// When the match started (RFC 3339, UTC on the wire).
    #[serde(with = "instant")]
    pub started_at: DateTime<Utc>,
    /// When the match ended (RFC 3339); the instant the result is dated by.
    #[serde(with = "instant")]
    pub ended_at: DateTime<Utc>,
    /// Exactly two players.
    #[serde(deserialize_with = "objects::seq_of_objects")]
    pub players: Vec<PlayerRecord>,
    /// Stones placed on the board in total by both players (SG-5).
    pub stones_placed: u32,
    /// How the match ended.
    #[serde(deserialize_with = "objects::object")]
    pub outcome: Outcome,
}

/// One player's counts at the end of the match, as the server counted them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerRecord {
    pub player_id: String,
    /// Moves the server counted for this player (SG-4).
    pub moves: u32,
    /// This player's stones still on the board (SG-1).
    pub stones_on_board: u32,
    /// This player's stones not yet placed (SG-1).
    pub stones_in_hand: u32,
}

/// The match's outcome as reported: `{"result": "win", "winner": ID, "reason": R}` or
/// `{"result": "draw"}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    pub result: ResultKind,
    /// The winner's player id; required for `win`, absent for `draw`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// Why the match ended; required for `win`, absent for `draw`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<EndReason>,
}

impl Outcome {
    /// A decided match.
    pub fn win(winner: impl Into<String>, reason: EndReason) -> Self {
        Outcome {
            result: ResultKind::Win,
            winner: Some(winner.into()),
            reason: Some(reason),
        }
    }

    /// A match reported as drawn.
    pub fn draw() -> Self {
        Outcome {
            result: ResultKind::Draw,
            winner: None,
            reason: None,
        }
    }
}

/// `win` or `draw`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultKind {
    Win,
    Draw,
}

/// Why a decided match ended (SG-6, SG-9).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Completed,
    Resigned,
    TurnTimeout,
}

impl MatchRecord {
    /// Parses one record from JSON. A shape error names the JSON path of the
    /// offending field (GM-5).
    pub fn from_json(bytes: &[u8]) -> Result<Self, RuleError> {
        // UTF-8 is checked once for the whole line (serde_json's slice reader checks
        // each string again). The common case parses once, without tracking paths; a
        // refused record is parsed again with path tracking, to name its field.
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Err(RuleError::new("record", "GM-5", "not UTF-8 text"));
        };
        if let Ok(objects::Object(record)) = serde_json::from_str::<objects::Object<MatchRecord>>(text) {
            return Ok(record);
        }
        if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
            return Err(crate::record::shape::not_json(&e));
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize::<_, objects::Object<MatchRecord>>(de)
            .map(|objects::Object(record)| record)
            .map_err(|e| {
                let segments: Vec<serde_path_to_error::Segment> = e.path().iter().cloned().collect();
                let message = e.into_inner().to_string();
                shape_error(&segments, &message)
            })
    }
}

/// A match that passed [`MatchRecord::validate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidMatch {
    pub match_id: String,
    pub game: Game,
    pub started_at: DateTime<Utc>,
    pub ended_at: DateTime<Utc>,
    /// `ended_at − started_at`, milliseconds, 0 ≤ d ≤ [`MAX_DURATION_MS`].
    pub duration_ms: i64,
    pub players: [PlayerRecord; 2],
    pub stones_placed: u32,
    pub outcome: ValidOutcome,
    /// See [`MatchRecord::content_hash`].
    pub content_hash: String,
}

impl ValidMatch {
    /// The record as it was sent, in its canonical field order (a draw without a
    /// winner or reason): what a conflict compares field by field (GM-3).
    pub fn as_record(&self) -> MatchRecord {
        MatchRecord {
            match_id: self.match_id.clone(),
            game: self.game.id().to_string(),
            started_at: self.started_at,
            ended_at: self.ended_at,
            players: self.players.to_vec(),
            stones_placed: self.stones_placed,
            outcome: match self.outcome {
                ValidOutcome::Win { winner, reason } => {
                    Outcome::win(self.players[winner].player_id.clone(), reason)
                }
                ValidOutcome::Draw => Outcome::draw(),
            },
        }
    }
}

/// A validated outcome: the winner as an index into `players`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidOutcome {
    Win { winner: usize, reason: EndReason },
    Draw,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::ids::is_valid_id;
    use crate::record::policy::RecordPolicy;
    use serde_json::{json, Value};

    fn test_now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2027-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn valid() -> Value {
        json!({
            "match_id": "m-1",
            "game": "seega",
            "started_at": "2026-11-30T10:00:00Z",
            "ended_at": "2026-11-30T10:05:00Z",
            "players": [
                {"player_id": "p-1", "moves": 20, "stones_on_board": 24, "stones_in_hand": 0},
                {"player_id": "p-2", "moves": 20, "stones_on_board": 0, "stones_in_hand": 0}
            ],
            "stones_placed": 48,
            "outcome": {"result": "win", "winner": "p-1", "reason": "completed"}
        })
    }

    /// Parses and validates; returns (field, rule) of the refusal.
    fn refusal(v: &Value) -> (String, &'static str) {
        let bytes = serde_json::to_vec(v).unwrap();
        let e = match MatchRecord::from_json(&bytes) {
            Err(e) => e,
            Ok(r) => r.validate(test_now()).expect_err("refused"),
        };
        (e.field, e.rule)
    }

    #[test]
    fn valid_record_passes() {
        let r = MatchRecord::from_json(valid().to_string().as_bytes()).unwrap();
        let m = r.validate(test_now()).unwrap();
        assert_eq!(m.duration_ms, 300_000);
        assert_eq!(
            m.outcome,
            ValidOutcome::Win {
                winner: 0,
                reason: EndReason::Completed
            }
        );
    }

    /// GM-5: each malformed field is refused, naming the field and the rule.
    #[test]
    fn refusals_name_field_and_rule() {
        type Breaker = Box<dyn Fn(&mut Value)>;
        let cases: Vec<(Breaker, &str, &str)> = vec![
            (Box::new(|v| v["game"] = json!("chess")), "game", "GM-5"),
            (Box::new(|v| v["game"] = json!("dots-and-boxes")), "game", "GM-5"),
            (
                Box::new(|v| v["players"][1]["player_id"] = json!("p-1")),
                "players[1].player_id",
                "GM-5",
            ),
            (
                Box::new(|v| v["players"][0]["stones_on_board"] = json!(25)),
                "players[0].stones_on_board",
                "SG-1",
            ),
            (
                Box::new(|v| v["players"][1]["stones_in_hand"] = json!(25)),
                "players[1].stones_in_hand",
                "SG-1",
            ),
            (
                Box::new(|v| v["players"][0]["stones_in_hand"] = json!(1)),
                "players[0].stones_on_board",
                "SG-1",
            ),
            (
                Box::new(|v| v["players"][0]["moves"] = json!(10_001)),
                "players[0].moves",
                "SG-4",
            ),
            (
                Box::new(|v| v["players"][0]["moves"] = json!(-1)),
                "players[0].moves",
                "GM-5",
            ),
            (
                Box::new(|v| v["players"][0]["moves"] = json!("20")),
                "players[0].moves",
                "GM-5",
            ),
            (
                Box::new(|v| v["ended_at"] = json!("2026-11-30T09:59:59Z")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["ended_at"] = json!("2026-12-01T10:00:01Z")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["started_at"] = json!("yesterday")),
                "started_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["outcome"]["winner"] = json!("p-3")),
                "outcome.winner",
                "GM-5",
            ),
            (
                Box::new(|v| v["outcome"]["reason"] = json!("rage_quit")),
                "outcome.reason",
                "GM-5",
            ),
            (
                Box::new(|v| v["stones_placed"] = json!(47)),
                "stones_placed",
                "SG-1",
            ),
            (Box::new(|v| v["match_id"] = json!("")), "match_id", "GM-5"),
            (Box::new(|v| v["match_id"] = json!("m#1")), "match_id", "GM-5"),
            (Box::new(|v| v["match_id"] = json!("m@1")), "match_id", "GM-5"),
            (
                Box::new(|v| v["players"][0]["player_id"] = json!("a@example.com")),
                "players[0].player_id",
                "GM-5",
            ),
            (
                Box::new(|v| v["players"][0]["player_id"] = json!("x".repeat(129))),
                "players[0].player_id",
                "GM-5",
            ),
            (
                Box::new(|v| {
                    v.as_object_mut().unwrap().remove("ended_at");
                }),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| {
                    v["players"][1].as_object_mut().unwrap().remove("moves");
                }),
                "players[1].moves",
                "GM-5",
            ),
            (
                Box::new(|v| v["players"].as_array_mut().unwrap().truncate(1)),
                "players",
                "GM-5",
            ),
            (Box::new(|v| v["points"] = json!(9999)), "record", "GM-5"),
            (
                Box::new(|v| v["ended_at"] = json!("2026-11-30T10:05:60Z")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["ended_at"] = json!("2026-11-30T10:05:00+0000")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["ended_at"] = json!("2026-11-30 10:05:00Z")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["ended_at"] = json!(" 2026-11-30T10:05:00Z")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["ended_at"] = json!("2027-01-01T00:05:00.001Z")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["started_at"] = json!("2019-12-31T23:59:59Z")),
                "started_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["started_at"] = json!("2026-11-30T10:05:00.0009Z")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["started_at"] = json!("2026-11-29T10:04:59.9999Z")),
                "ended_at",
                "GM-5",
            ),
            (
                Box::new(|v| v["players"][0] = json!(["p-1", 20, 24, 0])),
                "players[0]",
                "GM-5",
            ),
            (Box::new(|v| v["outcome"] = json!(["draw"])), "outcome", "GM-5"),
            (Box::new(|v| *v = json!([v.clone()])), "record", "GM-5"),
            (
                Box::new(|v| {
                    v["players"][1]["stones_on_board"] = json!(0);
                    v["players"][1]["stones_in_hand"] = json!(2);
                    v["stones_placed"] = json!(46);
                }),
                "players[1].stones_on_board",
                "SG-1",
            ),
        ];
        for (break_it, field, rule) in cases {
            let mut v = valid();
            break_it(&mut v);
            assert_eq!(refusal(&v), (field.to_string(), rule), "{v}");
        }
    }

    /// GM-5: one JSON object, nothing after it.
    #[test]
    fn trailing_data_is_refused() {
        for tail in [" garbage", " {}", "\n{\"match_id\": \"m-2\"}"] {
            let bytes = format!("{}{tail}", valid());
            let e = MatchRecord::from_json(bytes.as_bytes()).unwrap_err();
            assert_eq!((e.field.as_str(), e.rule), ("record", "GM-5"), "{tail}");
        }
        assert!(MatchRecord::from_json(format!(" {} \n", valid()).as_bytes()).is_ok());
    }

    /// GM-1: a record cannot carry points; unknown fields are refused, not ignored.
    /// GM-5: the refusal names the object that holds the unknown key, never the key
    /// itself (it is input, and may be personal data or huge); the message quotes it cut.
    #[test]
    fn unknown_fields_are_refused() {
        let mut v = valid();
        v["players"][0]["points"] = json!(1_000_000);
        assert_eq!(refusal(&v), ("players[0]".to_string(), "GM-5"));
        let mut v = valid();
        let key = format!("player_email_{}", "x".repeat(1_000_000));
        v[key.as_str()] = json!(1);
        let e = MatchRecord::from_json(v.to_string().as_bytes()).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("record", "GM-5"));
        // The key is cut; the fields the record takes are listed (bounded by the schema).
        assert!(e.to_string().len() < 260, "{e}");
        assert!(e.to_string().contains("record takes `match_id`, `game`"), "{e}");
        let mut v = valid();
        v["outcome"]["player_email_a"] = json!(1);
        assert_eq!(refusal(&v), ("outcome".to_string(), "GM-5"));
    }

    /// GM-5 (review): an unknown key holding `.` or odd bytes never becomes the field.
    #[test]
    fn unknown_keys_with_dots_are_named_by_their_parent() {
        for (key, parent) in [
            ("alice@example.com.x", "record"),
            ("x.y", "record"),
            ("\\u0000\\u001b[31m", "record"),
        ] {
            let text = valid().to_string().replacen('{', &format!("{{\"{key}\":1,"), 1);
            let e = MatchRecord::from_json(text.as_bytes()).unwrap_err();
            assert_eq!((e.field.as_str(), e.rule), (parent, "GM-5"), "{key}");
        }
        let mut v = valid();
        v["players"][0]["secret.x"] = json!(1);
        assert_eq!(refusal(&v).0, "players[0]");
        v = valid();
        v["outcome"]["zz.yy"] = json!(1);
        assert_eq!(refusal(&v).0, "outcome");
        let long = format!("{}.x", "B".repeat(3_000));
        let text = valid().to_string().replacen('{', &format!("{{\"{long}\":1,"), 1);
        let e = MatchRecord::from_json(text.as_bytes()).unwrap_err();
        assert_eq!(e.field, "record");
        assert!(e.to_string().len() < 260, "{e}");
    }

    /// GM-5: values quoted in a refusal are cut, so the field and rule lead and the
    /// reason stays short whatever the input's size.
    #[test]
    fn quoted_values_are_cut() {
        let mut v = valid();
        v["game"] = json!("g".repeat(5_000));
        let e = MatchRecord::from_json(v.to_string().as_bytes())
            .unwrap()
            .validate(test_now())
            .unwrap_err();
        assert!(e.to_string().starts_with("game (GM-5): `ggg"), "{e}");
        assert!(e.to_string().len() < 160, "{e}");
        let mut v = valid();
        v["players"][0]["moves"] = json!("9".repeat(5_000));
        let e = MatchRecord::from_json(v.to_string().as_bytes()).unwrap_err();
        assert_eq!(e.field, "players[0].moves");
        assert!(e.to_string().len() <= 150, "{e}");
        v = valid();
        v["outcome"]["reason"] = json!("r".repeat(5_000));
        let e = MatchRecord::from_json(v.to_string().as_bytes()).unwrap_err();
        assert_eq!(e.field, "outcome.reason");
        assert!(e.to_string().len() <= 200, "{e}");
    }

    /// GM-5: `|` is accepted in ids (identity providers' subjects), `@` and `#` are not.
    #[test]
    fn id_character_set() {
        assert!(is_valid_id("auth0|5f7c8ec7c33c6c004bbafe82"));
        assert!(is_valid_id("google-oauth2:1234.5_6"));
        assert!(!is_valid_id("a@example.com"));
        assert!(!is_valid_id("seega@all"));
        assert!(!is_valid_id("p#1"));
        assert!(!is_valid_id(""));
        assert!(!is_valid_id(&"p".repeat(129)));
        assert!(is_valid_id(&"p".repeat(128)));
    }

    /// GM-5: the allowed clock skew of the game servers is configuration: a server 6
    /// minutes fast is refused by default and accepted with a 10-minute allowance.
    #[test]
    fn clock_skew_is_a_policy() {
        let mut v = valid();
        v["started_at"] = json!("2027-01-01T00:01:00Z");
        v["ended_at"] = json!("2027-01-01T00:06:00Z");
        let r = MatchRecord::from_json(v.to_string().as_bytes()).unwrap();
        let e = r.validate(test_now()).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("ended_at", "GM-5"));
        assert!(e.message.contains("300 s"), "{e}");
        let wide = RecordPolicy {
            max_clock_skew_ms: 10 * 60 * 1000,
            ..RecordPolicy::default()
        };
        assert!(r.validate_with(test_now(), &wide).is_ok());
    }

    /// GM-3: the content hash ignores formatting and time-zone spelling, not content.
    #[test]
    fn content_hash() {
        let a = MatchRecord::from_json(valid().to_string().as_bytes()).unwrap();
        let mut v = valid();
        v["started_at"] = json!("2026-11-30T12:00:00+02:00");
        let b = MatchRecord::from_json(serde_json::to_string_pretty(&v).unwrap().as_bytes()).unwrap();
        assert_eq!(a.content_hash(), b.content_hash());
        v["players"][0]["moves"] = json!(21);
        let c = MatchRecord::from_json(v.to_string().as_bytes()).unwrap();
        assert_ne!(a.content_hash(), c.content_hash());
    }
}
