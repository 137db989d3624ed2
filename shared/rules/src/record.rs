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
use sha2::{Digest, Sha256};

use crate::error::{quoted, RuleError};
use crate::game::Game;

mod canonical;
pub(crate) mod instant;
pub mod lines;

/// What record validation takes from configuration (GM-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordPolicy {
    /// How far after the server's clock a record's instant may lie, in milliseconds
    /// (≥ 0): the game servers' clocks may run this much ahead of podium's.
    pub max_clock_skew_ms: i64,
    /// How old a Mahjong Rivals record's instant may be when it arrives, in days
    /// (1 … [`MAX_RECORD_AGE_DAYS_LIMIT`]): older records are refused for good (GM-5),
    /// so a day that left the AMR window (MJ-20) is never credited.
    pub max_record_age_days: i64,
}

impl Default for RecordPolicy {
    fn default() -> Self {
        RecordPolicy {
            max_clock_skew_ms: DEFAULT_MAX_CLOCK_SKEW_MS,
            max_record_age_days: DEFAULT_MAX_RECORD_AGE_DAYS,
        }
    }
}

/// How old a Mahjong Rivals record may be by default (days): late deliveries and
/// retries, far inside the AMR's 365 days (MJ-20).
pub const DEFAULT_MAX_RECORD_AGE_DAYS: i64 = 30;

/// The largest allowed [`RecordPolicy::max_record_age_days`]: a record must still be
/// inside the AMR window when it is credited (MJ-20: 365 days, today included).
pub const MAX_RECORD_AGE_DAYS_LIMIT: i64 = 364;

/// Stones each Seega player has (SG-1).
pub const STONES_PER_PLAYER: u32 = 24;
/// The most moves one player may be counted in one match (GM-5 range).
pub const MAX_MOVES: u32 = 10_000;
/// The longest match accepted, in milliseconds (24 hours; GM-5 range).
pub const MAX_DURATION_MS: i64 = 24 * 60 * 60 * 1000;
/// How far after the server's clock a match may end by default (clock skew of the
/// game servers), in milliseconds; see [`RecordPolicy`].
pub const DEFAULT_MAX_CLOCK_SKEW_MS: i64 = 5 * 60 * 1000;
/// The earliest instant a record may name, in seconds since the Unix epoch
/// (2020-01-01T00:00:00Z): nothing older was ever played on the platform.
pub const EARLIEST_INSTANT_SECS: i64 = 1_577_836_800;
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
            return Err(RuleError::new(
                "record",
                "GM-5",
                format!("not one JSON value: {e}"),
            ));
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

    /// [`validate_with`](Self::validate_with) under the default [`RecordPolicy`].
    pub fn validate(&self, now: DateTime<Utc>) -> Result<ValidMatch, RuleError> {
        self.validate_with(now, &RecordPolicy::default())
    }

    /// Checks every field against the rules (GM-5, SG-1, SG-4) and returns the match in
    /// its validated form; `now` is the server's clock (UTC). Besides the games' rules:
    /// `started_at` not before 2020-01-01T00:00:00Z, `ended_at` not before `started_at`,
    /// at most 24 hours after it, and at most `policy.max_clock_skew_ms` after `now`.
    /// Errors name the first offending field and the rule.
    pub fn validate_with(&self, now: DateTime<Utc>, policy: &RecordPolicy) -> Result<ValidMatch, RuleError> {
        check_id("match_id", &self.match_id)?;
        let game = Game::from_id(&self.game)
            .ok_or_else(|| RuleError::new("game", "GM-5", format!("unknown game {}", quoted(&self.game))))?;
        if game != Game::Seega {
            return Err(RuleError::new(
                "game",
                "GM-5",
                format!(
                    "matches of {} are not scored by this service yet",
                    quoted(&self.game)
                ),
            ));
        }
        if self.started_at < earliest_instant() {
            return Err(RuleError::new(
                "started_at",
                "GM-5",
                "before 2020-01-01T00:00:00Z",
            ));
        }
        if self.ended_at < self.started_at {
            return Err(RuleError::new("ended_at", "GM-5", "ended before it started"));
        }
        let duration = self.ended_at - self.started_at;
        if duration > chrono::Duration::milliseconds(MAX_DURATION_MS) {
            return Err(RuleError::new("ended_at", "GM-5", "match longer than 24 hours"));
        }
        if self.ended_at > now + chrono::Duration::milliseconds(policy.max_clock_skew_ms.max(0)) {
            return Err(RuleError::new(
                "ended_at",
                "GM-5",
                format!(
                    "ends more than {} s after the server's clock (allowed clock skew)",
                    policy.max_clock_skew_ms.max(0) / 1000
                ),
            ));
        }
        let duration_ms = duration.num_milliseconds();
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
            check_player_id(&format!("players[{i}].player_id"), &p.player_id)?;
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
        // Captures happen only once every stone is placed: while stones are in hand,
        // each player's stones are all on the board or in hand (SG-1, SG-6).
        if a.stones_in_hand + b.stones_in_hand > 0 {
            for (i, p) in [a, b].into_iter().enumerate() {
                if p.stones_on_board + p.stones_in_hand != STONES_PER_PLAYER {
                    return Err(RuleError::new(
                        format!("players[{i}].stones_on_board"),
                        "SG-1",
                        "stones are still in hand, so none can have been captured: on board plus in hand must be 24",
                    ));
                }
            }
        }
        if a.player_id == b.player_id {
            return Err(RuleError::new(
                "players[1].player_id",
                "GM-5",
                format!("player {} appears twice", quoted(&a.player_id)),
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
                        format!("winner {} is not one of the match's players", quoted(winner)),
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
        let mut canonical = Vec::with_capacity(512);
        canonical::write(self, &mut canonical);
        hex::encode(Sha256::digest(&canonical))
    }
}

/// The earliest instant a record may name: 2020-01-01T00:00:00Z.
fn earliest_instant() -> DateTime<Utc> {
    DateTime::from_timestamp(EARLIEST_INSTANT_SECS, 0).unwrap_or_default()
}

/// The JSON path of `segments` as a field name (`players[1].moves`; `record` for the
/// top), or `None` when a segment is not a plain name of the schema.
fn field_of(segments: &[serde_path_to_error::Segment]) -> Option<String> {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for s in segments {
        match s {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } if key.bytes().all(|c| c.is_ascii_lowercase() || c == b'_') => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            _ => return None,
        }
    }
    Some(if out.is_empty() { "record".to_string() } else { out })
}

/// The refusal for a JSON shape error at the path `segments`. The field named is always
/// one the schema knows: an unknown key is reported at its parent, its name only quoted
/// (cut) in the message, so it never reaches a log as a field name; input quoted in
/// serde's message is cut too (GM-5).
pub(crate) fn shape_error(segments: &[serde_path_to_error::Segment], message: &str) -> RuleError {
    let named = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('`').next())
            .map(str::to_string)
    };
    if let Some(name) = named("missing field `") {
        // A missing field is reported at its parent; name the field itself.
        let field = match field_of(segments).as_deref() {
            None => "record".to_string(),
            Some("record") => name,
            Some(parent) => format!("{parent}.{name}"),
        };
        return RuleError::new(field, "GM-5", "missing field");
    }
    if let Some(name) = named("unknown field `") {
        // serde_path_to_error puts the unknown key on the path: its parent is the field.
        let parent = &segments[..segments.len().saturating_sub(1)];
        let field = field_of(parent).unwrap_or_else(|| "record".to_string());
        return RuleError::new(field, "GM-5", format!("unknown field {}", quoted(&name)));
    }
    let field = field_of(segments).unwrap_or_else(|| "record".to_string());
    // serde's position ("at line 1 column 87") says nothing to a caller who sent one line.
    let message = match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => &message[..i],
        _ => message,
    };
    RuleError::new(field, "GM-5", cut_quotes(message))
}

/// `message` with every span between `"…"` or `` `…` `` cut like [`quoted`] cuts input.
fn cut_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(400));
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let q = rest.as_bytes()[open] as char;
        out.push_str(&rest[..=open]);
        let after = &rest[open + 1..];
        match after.find(q) {
            Some(close) => {
                out.push_str(&crate::error::cut(
                    &after[..close],
                    crate::error::MAX_QUOTED_CHARS,
                ));
                out.push(q);
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&crate::error::cut(after, crate::error::MAX_QUOTED_CHARS));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// JSON objects only where the record has objects (GM-5): serde would otherwise
/// take a struct from an array of its fields' values.
mod objects {
    use serde::de::value::MapAccessDeserializer;
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use std::marker::PhantomData;

    /// A `T` read from a JSON object only.
    pub struct Object<T>(pub T);

    struct ObjectVisitor<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(MapAccessDeserializer::new(map))
        }
    }

    impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(ObjectVisitor(PhantomData)).map(Object)
        }
    }

    /// A field holding an object.
    pub fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
        Object::<T>::deserialize(d).map(|o| o.0)
    }

    struct SeqVisitor<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for SeqVisitor<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON array of objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(2).min(16));
            while let Some(Object(x)) = seq.next_element::<Object<T>>()? {
                out.push(x);
            }
            Ok(out)
        }
    }

    /// A field holding an array of objects.
    pub fn seq_of_objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(SeqVisitor(PhantomData))
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

/// True for a well-formed match or player id (GM-5): 1–128 characters of
/// `A–Z a–z 0–9 . _ : - |`. `|` admits identity providers' subjects such as
/// `auth0|5f7c…`; `@` is refused (an e-mail address is personal data, and `@` joins a
/// board to its period in keys), as is `#` (the keys' separator).
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b':' | b'-' | b'|'))
}

/// The prefix of the ids reserved for deleted players' pseudonyms (GM-6:
/// `deleted-{16 hex digits}`): no caller identity and no record may use an id that
/// starts with it.
pub const RESERVED_PREFIX: &str = "deleted-";

/// True for an id of the form reserved for deleted players' pseudonyms (GM-6).
pub fn is_reserved_id(id: &str) -> bool {
    id.starts_with(RESERVED_PREFIX)
}

/// [`check_id`] for a player's id, which also may not be of the reserved form of
/// deleted players' pseudonyms (GM-6).
pub(crate) fn check_player_id(field: &str, id: &str) -> Result<(), RuleError> {
    check_id(field, id)?;
    if is_reserved_id(id) {
        return Err(RuleError::new(
            field,
            "GM-6",
            format!("ids starting with `{RESERVED_PREFIX}` stand for deleted players and are no account"),
        ));
    }
    Ok(())
}

pub(crate) fn check_id(field: &str, id: &str) -> Result<(), RuleError> {
    if is_valid_id(id) {
        Ok(())
    } else {
        Err(RuleError::new(
            field,
            "GM-5",
            format!("ids are 1–{MAX_ID_LEN} characters of A–Z, a–z, 0–9, '.', '_', ':', '-', '|'"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(e.to_string().len() < 120, "{e}");
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
        assert!(e.to_string().len() < 120, "{e}");
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
        assert!(e.to_string().starts_with("game (GM-5): unknown game `ggg"), "{e}");
        assert!(e.to_string().len() < 100, "{e}");
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
