//! The records game servers send through the match queue, told apart by `game` and
//! `kind`: a Seega match (no `kind`), a Mahjong Rivals Quick Match
//! (`"kind": "quick-match"`), level completion (`"kind": "level-completion"`), Arena
//! (`"kind": "arena"`), tournament registration (`"kind": "tournament-registration"`)
//! or table result (`"kind": "tournament-table"`). One entry point parses and settles
//! any of them, for the score-match function and `podium replay`.

use chrono::{DateTime, Utc};
use podium_rules::error::RuleError;
use podium_rules::game::Game;
use podium_rules::mahjong::arena::{self, Arena};
use podium_rules::mahjong::completion::{self, LevelCompletion};
use podium_rules::mahjong::quick_match::{self, QuickMatch};
use podium_rules::mahjong::tournament_play::{self as tournament, Registration, Table};
use podium_rules::record::policy::RecordPolicy;
use podium_rules::seega::record::MatchRecord;
use podium_rules::seega::result::MatchStatus;
use serde::Deserialize;

use crate::engine::source::Settled;
use crate::error::ServiceError;
use crate::games::seega::{score_delivery, Scored};

/// One record from the queue.
#[derive(Debug, Clone)]
pub enum Incoming {
    Seega(MatchRecord),
    QuickMatch(QuickMatch),
    LevelCompletion(LevelCompletion),
    Arena(Arena),
    Registration(Registration),
    Table(Table),
    DotsAndBoxes(podium_rules::dots_and_boxes::record::DotsMatch),
    Minesweeper(podium_rules::minesweeper::record::Duel),
}

/// How settling a record ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This call applied it (points moved, or nobody won).
    Applied,
    /// This call recorded a void Seega match (no points).
    Void,
    /// It was applied before with the same content.
    Duplicate,
}

/// The fields that route a record (any JSON value: a wrong type is refused by name).
#[derive(Deserialize)]
struct Route {
    #[serde(default)]
    game: Option<serde_json::Value>,
    #[serde(default)]
    kind: Option<serde_json::Value>,
}

/// The kinds of Mahjong Rivals records (GM-5), as a refusal lists them.
const MAHJONG_KINDS: [&str; 5] = [
    completion::KIND,
    quick_match::KIND,
    arena::KIND,
    tournament::KIND_REGISTRATION,
    tournament::KIND_TABLE,
];

/// The refusal of a `game` that names no game podium scores, listing those it does.
fn unknown_game(game: Option<&serde_json::Value>) -> RuleError {
    let found = match game {
        Some(serde_json::Value::String(g)) => podium_rules::error::quoted(g),
        Some(other) => podium_rules::error::quoted(&other.to_string()),
        None => "nothing".into(),
    };
    podium_rules::game::not_scored(&found)
}

/// Why a line refused as a Seega match is none, when it says so: its `game` names
/// another game or none podium scores, or it is a Mahjong Rivals record without its
/// `kind`. `None`: a Seega match (or no game at all), whose own refusal stands.
fn misrouted(bytes: &[u8]) -> Option<RuleError> {
    let text = std::str::from_utf8(bytes).ok()?;
    let route: Route = serde_json::from_str(text).ok()?;
    match route.game.as_ref()? {
        serde_json::Value::String(g) if g == Game::Seega.id() => None,
        serde_json::Value::String(g) if g == Game::MahjongRivals.id() => Some(RuleError::new(
            "kind",
            "GM-5",
            format!(
                "missing field: a mahjong-rivals record names its kind, one of {}",
                MAHJONG_KINDS.map(|k| format!("`{k}`")).join(", ")
            ),
        )),
        serde_json::Value::String(g) if Game::from_id(g).is_some() => None,
        other => Some(unknown_game(Some(other))),
    }
}

impl Incoming {
    /// Parses one record (GM-5); `now` and `policy` bound a Mahjong record's instant.
    /// A line without a top-level `kind` is a Seega match, parsed in one pass; a line
    /// with one is a Mahjong Rivals record of that kind, and a `kind` or `game` that
    /// is not one podium scores is refused naming that field.
    pub fn from_json(bytes: &[u8], now: DateTime<Utc>, policy: &RecordPolicy) -> Result<Incoming, RuleError> {
        // An array of records (a batch sent as one message) is refused as a whole: the
        // routing below would read its first element's fields.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
            return Err(RuleError::new(
                "record",
                "GM-5",
                "an array: a record is one JSON object, `{…}`, one a message (one a line in a file)",
            ));
        }
        // A Dots and Boxes match or a Minesweeper duel is told apart by its game (it
        // has no kind).
        if bytes.windows(16).any(|w| w == b"\"dots-and-boxes\"")
            || bytes.windows(13).any(|w| w == b"\"minesweeper\"")
        {
            if let Ok(text) = std::str::from_utf8(bytes) {
                if let Ok(Route {
                    game: Some(g),
                    kind: None,
                }) = serde_json::from_str::<Route>(text)
                {
                    match g.as_str() {
                        Some("dots-and-boxes") => {
                            return podium_rules::dots_and_boxes::record::DotsMatch::from_json(bytes)
                                .map(Incoming::DotsAndBoxes)
                        }
                        Some("minesweeper") => {
                            return podium_rules::minesweeper::record::Duel::from_json(bytes)
                                .map(Incoming::Minesweeper)
                        }
                        _ => {}
                    }
                }
            }
        }
        // Only a line that mentions "kind" pays for routing.
        if bytes.windows(6).any(|w| w == b"\"kind\"") {
            if let Ok(text) = std::str::from_utf8(bytes) {
                match serde_json::from_str::<Route>(text) {
                    Ok(Route {
                        game,
                        kind: Some(kind),
                    }) => return Self::mahjong(bytes, game, kind, now, policy),
                    Ok(Route { kind: None, .. }) => {}
                    Err(e) => {
                        for field in ["kind", "game"] {
                            if e.to_string().contains(&format!("duplicate field `{field}`")) {
                                return Err(RuleError::new(field, "GM-5", "appears twice"));
                            }
                        }
                    }
                }
            }
        }
        // A Seega match has no kind; a line that is none is refused for what it is not
        // (another game, a Mahjong Rivals record without its kind), not for the first
        // Seega field it lacks. Only a refused line pays for this.
        MatchRecord::from_json(bytes)
            .map(Incoming::Seega)
            .map_err(|e| misrouted(bytes).unwrap_or(e))
    }

    fn mahjong(
        bytes: &[u8],
        game: Option<serde_json::Value>,
        kind: serde_json::Value,
        now: DateTime<Utc>,
        policy: &RecordPolicy,
    ) -> Result<Incoming, RuleError> {
        let Some(kind) = kind.as_str() else {
            return Err(RuleError::new("kind", "GM-5", "a kind is a string"));
        };
        match game.as_ref().map(serde_json::Value::as_str) {
            Some(Some("mahjong-rivals")) => {}
            Some(Some(g)) if Game::from_id(g).is_some() => {
                return Err(RuleError::new(
                    "game",
                    "GM-5",
                    format!(
                        "a record with a kind is a mahjong-rivals record; a {g} record names no kind"
                    ),
                ))
            }
            Some(_) => return Err(unknown_game(game.as_ref())),
            None => {
                return Err(RuleError::new(
                    "game",
                    "GM-5",
                    "missing field: a record with a kind is a mahjong-rivals record (`\"game\": \"mahjong-rivals\"`)",
                ))
            }
        }
        match kind {
            quick_match::KIND => QuickMatch::from_json(bytes, now, policy).map(Incoming::QuickMatch),
            completion::KIND => LevelCompletion::from_json(bytes, now, policy).map(Incoming::LevelCompletion),
            tournament::KIND_REGISTRATION => {
                Registration::from_json(bytes, now, policy).map(Incoming::Registration)
            }
            tournament::KIND_TABLE => Table::from_json(bytes, now, policy).map(Incoming::Table),
            arena::KIND => Arena::from_json(bytes, now, policy).map(Incoming::Arena),
            other => Err(RuleError::new(
                "kind",
                "GM-5",
                format!(
                    "{} is not a mahjong-rivals record kind: one of {}",
                    podium_rules::error::quoted(other),
                    MAHJONG_KINDS.map(|k| format!("`{k}`")).join(", ")
                ),
            )),
        }
    }

    /// The record's kind, as metrics name it: its game, or its Mahjong record kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Incoming::Seega(_) => "seega",
            Incoming::QuickMatch(_) => "quick-match",
            Incoming::LevelCompletion(_) => "level-completion",
            Incoming::Arena(_) => "arena",
            Incoming::Registration(_) => "tournament-registration",
            Incoming::Table(_) => "tournament-table",
            Incoming::DotsAndBoxes(_) => "dots-and-boxes",
            Incoming::Minesweeper(_) => "minesweeper",
        }
    }

    /// The key the record is settled under, its idempotency key (GM-3): the one
    /// [`settle_incoming`] records it as.
    pub fn source_key(&self) -> podium_store::SourceKey {
        use podium_rules::game::Game;
        use podium_store::SourceKey;
        match self {
            Incoming::Seega(r) => SourceKey::new(crate::games::seega::MATCH, r.match_id.clone()),
            Incoming::QuickMatch(m) => SourceKey::new(quick_match::KIND, m.match_id.clone()),
            Incoming::LevelCompletion(c) => SourceKey::new(completion::KIND, c.completion_id.clone()),
            Incoming::Arena(a) => SourceKey::new(arena::KIND, a.arena_id.clone()),
            Incoming::Registration(r) => SourceKey::new(tournament::KIND_REGISTRATION, r.id()),
            Incoming::Table(t) => SourceKey::new(tournament::KIND_TABLE, t.table_id.clone()),
            Incoming::DotsAndBoxes(m) => SourceKey::new(Game::DotsAndBoxes.id(), m.match_id.clone()),
            Incoming::Minesweeper(d) => SourceKey::new(Game::Minesweeper.id(), d.match_id.clone()),
        }
    }

    /// The match id.
    pub fn match_id(&self) -> &str {
        match self {
            Incoming::Seega(r) => &r.match_id,
            Incoming::QuickMatch(m) => &m.match_id,
            Incoming::LevelCompletion(c) => &c.completion_id,
            Incoming::Arena(a) => &a.arena_id,
            Incoming::Registration(r) => &r.tournament_id,
            Incoming::Table(t) => &t.table_id,
            Incoming::DotsAndBoxes(m) => &m.match_id,
            Incoming::Minesweeper(d) => &d.match_id,
        }
    }

    /// The players the record names, in its order.
    pub fn players(&self) -> Vec<&str> {
        match self {
            Incoming::Seega(r) => r.players.iter().map(|p| p.player_id.as_str()).collect(),
            Incoming::QuickMatch(m) => m.players.iter().map(|p| p.player_id.as_str()).collect(),
            Incoming::LevelCompletion(c) => vec![c.player_id.as_str()],
            Incoming::Arena(a) => a.players.iter().map(String::as_str).collect(),
            Incoming::Registration(r) => vec![r.player_id.as_str()],
            Incoming::Table(t) => t.players.iter().map(|p| p.player_id.as_str()).collect(),
            Incoming::DotsAndBoxes(m) => m.players.iter().map(|p| p.player_id.as_str()).collect(),
            Incoming::Minesweeper(d) => d.players.iter().map(|p| p.player_id.as_str()).collect(),
        }
    }

    /// What the plausibility checks (OP-2) read of the record: its game, a match's
    /// duration, a Seega match's moves and winner's points (SG-2, as the rules score
    /// it; none when it does not validate: the settlement refuses it), a level
    /// completion's level and time.
    pub fn facts(&self, now: DateTime<Utc>, policy: &RecordPolicy) -> podium_rules::plausibility::Facts {
        use podium_rules::game::Game;
        use podium_rules::plausibility::Facts;
        let span = |a: DateTime<Utc>, b: DateTime<Utc>| Some((b - a).num_milliseconds());
        match self {
            Incoming::Seega(r) => {
                let Ok(m) = r.validate_with(now, policy) else {
                    return Facts::default();
                };
                let win_points = match podium_rules::seega::points::score(&m) {
                    podium_rules::seega::points::Scoring::Decided(scores) => scores
                        .iter()
                        .find(|s| s.side == podium_rules::seega::points::Side::Win)
                        .map(|s| s.points),
                    podium_rules::seega::points::Scoring::Void(_) => None,
                };
                Facts {
                    game: Some(Game::Seega),
                    duration_ms: span(r.started_at, r.ended_at),
                    moves: Some(r.players.iter().map(|p| p.moves).sum()),
                    win_points,
                    level: None,
                }
            }
            Incoming::DotsAndBoxes(m) => Facts {
                game: Some(Game::DotsAndBoxes),
                duration_ms: span(m.started_at, m.ended_at),
                ..Facts::default()
            },
            Incoming::Minesweeper(d) => Facts {
                game: Some(Game::Minesweeper),
                duration_ms: span(d.started_at, d.ended_at),
                ..Facts::default()
            },
            Incoming::LevelCompletion(c) => Facts {
                game: Some(Game::MahjongRivals),
                level: Some((c.level, c.time_ms)),
                ..Facts::default()
            },
            _ => Facts {
                game: Some(Game::MahjongRivals),
                ..Facts::default()
            },
        }
    }

    /// The keys that order its settlement against others' in
    /// [`run_keyed`](crate::engine::keyed::run_keyed): its match id and each player.
    pub fn ordering_keys(&self) -> Vec<String> {
        match self {
            Incoming::Seega(r) => crate::games::seega::ordering_keys(r),
            Incoming::QuickMatch(m) => {
                crate::engine::keyed::record_keys(&m.match_id, m.players.iter().map(|p| p.player_id.as_str()))
            }
            // Completions of one level order against each other: each one's place
            // depends on the others' best times (MJ-3).
            Incoming::LevelCompletion(c) => {
                let mut keys = crate::engine::keyed::record_keys(&c.completion_id, [c.player_id.as_str()]);
                keys.push(format!("level\u{0}{}", c.level));
                keys
            }
            Incoming::Arena(a) => {
                crate::engine::keyed::record_keys(&a.arena_id, a.players.iter().map(String::as_str))
            }
            Incoming::Registration(r) => crate::engine::keyed::record_keys(&r.id(), [r.player_id.as_str()]),
            Incoming::DotsAndBoxes(m) => {
                crate::engine::keyed::record_keys(&m.match_id, m.players.iter().map(|s| s.player_id.as_str()))
            }
            Incoming::Minesweeper(d) => {
                crate::engine::keyed::record_keys(&d.match_id, d.players.iter().map(|p| p.player_id.as_str()))
            }
            Incoming::Table(t) => {
                crate::engine::keyed::record_keys(&t.table_id, t.players.iter().map(|p| p.player_id.as_str()))
            }
        }
    }
}

/// Validates and settles one record exactly once as delivery `delivery` at server
/// clock `now`. Errors as [`score_delivery`]'s.
pub async fn settle_incoming<S: podium_store::SettleStore + ?Sized>(
    store: &S,
    record: &Incoming,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
    delivery: &str,
) -> Result<Outcome, ServiceError> {
    match record {
        Incoming::Seega(r) => Ok(match score_delivery(store, r, now, policy, delivery).await? {
            Scored::Applied(r) if r.status == MatchStatus::Void => Outcome::Void,
            Scored::Applied(_) => Outcome::Applied,
            Scored::Duplicate(_) => Outcome::Duplicate,
        }),
        Incoming::QuickMatch(m) => Ok(outcome(
            crate::games::mahjong::settle_quick_match(store, m, now, delivery).await?,
        )),
        Incoming::LevelCompletion(c) => Ok(outcome(
            crate::games::mahjong::settle_completion(store, c, now, delivery).await?,
        )),
        Incoming::Arena(a) => Ok(outcome(
            crate::games::mahjong::settle_arena(store, a, now, delivery).await?,
        )),
        Incoming::Registration(r) => Ok(outcome(
            crate::games::tournaments::settle_registration(store, r, delivery, now).await?,
        )),
        Incoming::Table(t) => Ok(outcome(
            crate::games::tournaments::settle_table(store, t, delivery, now).await?,
        )),
        Incoming::DotsAndBoxes(m) => Ok(outcome(
            crate::games::replayed::settle_match(store, m, now, policy.max_clock_skew_ms, delivery).await?,
        )),
        Incoming::Minesweeper(d) => Ok(outcome(
            crate::games::replayed::settle_duel(store, d, now, policy.max_clock_skew_ms, delivery).await?,
        )),
    }
}

/// A settlement's outcome as the queue counts it.
fn outcome<R>(s: Settled<R>) -> Outcome {
    match s {
        Settled::Applied(_) | Settled::Nothing(_) => Outcome::Applied,
        Settled::Duplicate(_) => Outcome::Duplicate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(line: &str) -> (String, &'static str) {
        let now = DateTime::parse_from_rfc3339("2027-07-18T12:00:00Z")
            .unwrap()
            .to_utc();
        match Incoming::from_json(line.as_bytes(), now, &RecordPolicy::default()) {
            Err(e) => (e.field, e.rule),
            Ok(r) => panic!("accepted {r:?}"),
        }
    }

    /// GM-5: a line that is no Seega match is refused for what it is not, listing what
    /// is allowed: an unknown game, a Mahjong Rivals record without its kind, an
    /// unknown kind.
    #[test]
    fn gm_5_refusals_list_the_games_and_kinds() {
        let message = |line: &str| {
            let now = DateTime::parse_from_rfc3339("2027-07-18T12:00:00Z")
                .unwrap()
                .to_utc();
            Incoming::from_json(line.as_bytes(), now, &RecordPolicy::default())
                .expect_err("refused")
                .to_string()
        };
        let body = r#""completion_id":"c-1","player_id":"p","level":1,"time_ms":1000,"completed_at":"2027-07-18T11:00:00Z","jokers_used":0"#;
        assert_eq!(
            message(&format!(r#"{{{body},"game":"mahjong-rivals"}}"#)),
            "kind (GM-5): missing field: a mahjong-rivals record names its kind, one of `level-completion`, `quick-match`, `arena`, `tournament-registration`, `tournament-table`"
        );
        assert!(
            message(&format!(r#"{{{body},"game":"mahjong-rivals","kind":"level"}}"#)).starts_with(
                "kind (GM-5): `level` is not a mahjong-rivals record kind: one of `level-completion`"
            )
        );
        assert_eq!(
            message(r#"{"match_id":"m-1","game":"chess"}"#),
            "game (GM-5): `chess` is not a game podium scores: one of `seega`, `dots-and-boxes`, `minesweeper`, `mahjong-rivals`"
        );
        assert!(message(r#"{"match_id":"m-1","game":"seega","kind":"x"}"#)
            .starts_with("game (GM-5): a record with a kind"));
        assert!(message(r#"{"match_id":"m-1","game":7}"#)
            .starts_with("game (GM-5): `7` is not a game podium scores"));
        let shape = message(r#"{"match_id":5,"game":"seega"}"#);
        assert_eq!(
            shape,
            "match_id (GM-5): `5` is not a string: ids, names and instants are JSON strings, in double quotes"
        );
        // A player twice: named as every game names them (docs/records.md).
        assert_eq!(
            message(
                r#"{"match_id":"q-1","game":"mahjong-rivals","kind":"quick-match","ended_at":"2027-07-18T11:00:00Z","players":[{"player_id":"a","completed":true,"score":5},{"player_id":"a","completed":true,"score":4}]}"#
            ),
            "players[1].player_id (GM-5): player `a` appears twice"
        );
        // A Seega match's own refusals stand; a number is named in the project's words.
        assert_eq!(
            message(r#"{"match_id":"m-1","game":"seega","players":[{"player_id":"a","moves":1.5}]}"#),
            "players[0].moves (GM-5): `1.5` is not a whole number, 0 or more"
        );
    }

    /// GM-5: a record with a `kind` is routed by it; a wrong `kind` or `game` is
    /// refused naming that field, not passed on to the Seega parser.
    #[test]
    fn gm_5_routing_refusals_name_kind_or_game() {
        let body = r#""completion_id":"c-1","player_id":"p","level":1,"time_ms":1000,"completed_at":"2027-07-18T11:00:00Z","jokers_used":0"#;
        assert_eq!(
            refusal(&format!(r#"{{{body},"kind":"level-completion"}}"#)).0,
            "game"
        );
        assert_eq!(
            refusal(&format!(r#"{{{body},"game":"seega","kind":"level-completion"}}"#)).0,
            "game"
        );
        assert_eq!(
            refusal(&format!(r#"{{{body},"game":"mahjong-rivals","kind":5}}"#)).0,
            "kind"
        );
        assert_eq!(
            refusal(&format!(
                r#"{{{body},"game":"mahjong-rivals","kind":"level-completion","kind":"x"}}"#
            ))
            .0,
            "kind"
        );
        assert_eq!(
            refusal(&format!(r#"{{{body},"game":"mahjong-rivals","kind":"duel"}}"#)).0,
            "kind"
        );
        // An escaped spelling of the right value is the right value.
        let ok = format!(r#"{{{body},"game":"mahjong\u002drivals","kind":"level-completion"}}"#);
        let now = DateTime::parse_from_rfc3339("2027-07-18T12:00:00Z")
            .unwrap()
            .to_utc();
        assert!(Incoming::from_json(ok.as_bytes(), now, &RecordPolicy::default()).is_ok());
    }
}
