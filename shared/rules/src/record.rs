//! The finished-match record a game server sends (GM-1), its parsing and its
//! validation (GM-5), and the content hash that tells a retry from a conflict (GM-3).
//!
//! Wire shape (JSON; every field required, unknown fields refused):
//!
//! ```json
//! {
//!   "match_id": "m-000123",
//!   "game": "seega",
//!   "started_at": "2026-11-30T10:00:00Z",
//!   "ended_at": "2026-11-30T10:05:12Z",
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
use sha2::{Digest, Sha256};

use crate::error::RuleError;
use crate::game::Game;

/// Stones each Seega player has (SG-1).
pub const STONES_PER_PLAYER: u32 = 24;
/// The most moves one player may be counted in one match (GM-5 range).
pub const MAX_MOVES: u32 = 10_000;
/// The longest match accepted, in milliseconds (24 hours; GM-5 range).
pub const MAX_DURATION_MS: i64 = 24 * 60 * 60 * 1000;
/// The longest id (match or player) accepted, in bytes.
pub const MAX_ID_LEN: usize = 128;

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
    pub started_at: DateTime<Utc>,
    /// When the match ended (RFC 3339); the instant the result is dated by.
    pub ended_at: DateTime<Utc>,
    /// Exactly two players.
    pub players: Vec<PlayerRecord>,
    /// Stones placed on the board in total by both players (SG-5).
    pub stones_placed: u32,
    /// How the match ended.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultKind {
    Win,
    Draw,
}

/// Why a decided match ended (SG-6, SG-9).
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
        let de = &mut serde_json::Deserializer::from_slice(bytes);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let message = e.into_inner().to_string();
            // A missing field is reported at its parent; name the field itself.
            let missing = message
                .strip_prefix("missing field `")
                .and_then(|rest| rest.split('`').next());
            let field = match (path.as_str(), missing) {
                (".", Some(name)) => name.to_string(),
                (parent, Some(name)) => format!("{parent}.{name}"),
                (".", None) => "record".to_string(),
                (path, None) => path.to_string(),
            };
            RuleError::new(field, "GM-5", message)
        })
    }

    /// Checks every field against the rules (GM-5, SG-1, SG-4) and returns the match in
    /// its validated form. Errors name the first offending field and the rule.
    pub fn validate(&self) -> Result<ValidMatch, RuleError> {
        check_id("match_id", &self.match_id)?;
        let game = Game::from_id(&self.game)
            .ok_or_else(|| RuleError::new("game", "GM-5", format!("unknown game `{}`", self.game)))?;
        if game != Game::Seega {
            return Err(RuleError::new(
                "game",
                "GM-5",
                format!("matches of `{}` are not scored by this service yet", self.game),
            ));
        }
        let duration_ms = (self.ended_at - self.started_at).num_milliseconds();
        if duration_ms < 0 {
            return Err(RuleError::new("ended_at", "GM-5", "ended before it started"));
        }
        if duration_ms > MAX_DURATION_MS {
            return Err(RuleError::new("ended_at", "GM-5", "match longer than 24 hours"));
        }
        let [a, b] = match self.players.as_slice() {
            [a, b] => [a, b],
            other => {
                return Err(RuleError::new(
                    "players",
                    "GM-5",
                    format!("a Seega match has exactly 2 players, got {}", other.len()),
                ))
            }
        };
        for (i, p) in [a, b].into_iter().enumerate() {
            check_id(&format!("players[{i}].player_id"), &p.player_id)?;
            if p.moves > MAX_MOVES {
                return Err(RuleError::new(
                    format!("players[{i}].moves"),
                    "SG-4",
                    format!("{} moves is over the limit of {MAX_MOVES}", p.moves),
                ));
            }
            if p.stones_on_board > STONES_PER_PLAYER {
                return Err(RuleError::new(
                    format!("players[{i}].stones_on_board"),
                    "SG-1",
                    format!(
                        "{} stones is more than the {STONES_PER_PLAYER} a player has",
                        p.stones_on_board
                    ),
                ));
            }
            if p.stones_in_hand > STONES_PER_PLAYER {
                return Err(RuleError::new(
                    format!("players[{i}].stones_in_hand"),
                    "SG-1",
                    format!(
                        "{} stones is more than the {STONES_PER_PLAYER} a player has",
                        p.stones_in_hand
                    ),
                ));
            }
            if p.stones_on_board + p.stones_in_hand > STONES_PER_PLAYER {
                return Err(RuleError::new(
                    format!("players[{i}].stones_on_board"),
                    "SG-1",
                    format!(
                        "{} on the board plus {} in hand is more than the {STONES_PER_PLAYER} a player has",
                        p.stones_on_board, p.stones_in_hand
                    ),
                ));
            }
        }
        if a.player_id == b.player_id {
            return Err(RuleError::new(
                "players[1].player_id",
                "GM-5",
                format!("player `{}` appears twice", a.player_id),
            ));
        }
        // Stones leave a hand only by being placed, so the total placed is fixed by the hands.
        let placed_by_hands = 2 * STONES_PER_PLAYER - a.stones_in_hand - b.stones_in_hand;
        if self.stones_placed != placed_by_hands {
            return Err(RuleError::new(
                "stones_placed",
                "SG-1",
                format!(
                    "{} stones placed, but the hands say {placed_by_hands} (48 minus the stones in hand)",
                    self.stones_placed
                ),
            ));
        }
        let outcome = match (&self.outcome.result, &self.outcome.winner, self.outcome.reason) {
            (ResultKind::Draw, None, None) => ValidOutcome::Draw,
            (ResultKind::Draw, Some(_), _) => {
                return Err(RuleError::new("outcome.winner", "GM-5", "a draw has no winner"))
            }
            (ResultKind::Draw, None, Some(_)) => {
                return Err(RuleError::new(
                    "outcome.reason",
                    "GM-5",
                    "a draw has no end reason",
                ))
            }
            (ResultKind::Win, None, _) => {
                return Err(RuleError::new("outcome.winner", "GM-5", "a win names its winner"))
            }
            (ResultKind::Win, Some(_), None) => {
                return Err(RuleError::new(
                    "outcome.reason",
                    "GM-5",
                    "a win names its end reason",
                ))
            }
            (ResultKind::Win, Some(winner), Some(reason)) => {
                let winner = if *winner == a.player_id {
                    0
                } else if *winner == b.player_id {
                    1
                } else {
                    return Err(RuleError::new(
                        "outcome.winner",
                        "GM-5",
                        format!("winner `{winner}` is not one of the match's players"),
                    ));
                };
                ValidOutcome::Win { winner, reason }
            }
        };
        Ok(ValidMatch {
            match_id: self.match_id.clone(),
            game,
            started_at: self.started_at,
            ended_at: self.ended_at,
            duration_ms,
            players: [a.clone(), b.clone()],
            stones_placed: self.stones_placed,
            outcome,
            content_hash: self.content_hash(),
        })
    }

    /// SHA-256 (hex) of the record's canonical JSON: equal for two deliveries of the
    /// same content however it was formatted, different when any field differs (GM-3).
    pub fn content_hash(&self) -> String {
        // Serialising a typed record cannot fail: no maps with non-string keys.
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        hex::encode(Sha256::digest(&canonical))
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

/// A validated outcome: the winner as an index into `players`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidOutcome {
    Win { winner: usize, reason: EndReason },
    Draw,
}

/// Ids are 1–128 bytes of `A–Z a–z 0–9 . _ : -` (no `#`, which keys use as a separator).
fn check_id(field: &str, id: &str) -> Result<(), RuleError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b':' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(RuleError::new(
            field,
            "GM-5",
            format!("ids are 1–{MAX_ID_LEN} characters of A–Z, a–z, 0–9, '.', '_', ':', '-'"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

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
            Ok(r) => r.validate().expect_err("refused"),
        };
        (e.field, e.rule)
    }

    #[test]
    fn valid_record_passes() {
        let r = MatchRecord::from_json(valid().to_string().as_bytes()).unwrap();
        let m = r.validate().unwrap();
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
            (Box::new(|v| v["points"] = json!(9999)), "points", "GM-5"),
        ];
        for (break_it, field, rule) in cases {
            let mut v = valid();
            break_it(&mut v);
            assert_eq!(refusal(&v), (field.to_string(), rule), "{v}");
        }
    }

    /// GM-1: a record cannot carry points; unknown fields are refused, not ignored.
    #[test]
    fn unknown_fields_are_refused() {
        let mut v = valid();
        v["players"][0]["points"] = json!(1_000_000);
        assert_eq!(refusal(&v).1, "GM-5");
        assert!(refusal(&v).0.starts_with("players[0]"));
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
