//! A finished Dots and Boxes match as the game server reports it, checked by replay
//! (DB-4), and its settlement: both players' Elo ratings when both are human (DB-6),
//! else only the match's record.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::board::Board;
use super::replay::{self, Move, Outcome};
use crate::error::RuleError;
use crate::game::Game;
use crate::rating::{self, Score};
use crate::settlement::{Planned, Settlement};

/// The game.
pub const GAME: Game = Game::DotsAndBoxes;

/// The ledger source of rating changes.
pub const SOURCE: &str = "dots-and-boxes";

/// One seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    pub player_id: String,
    /// A person (rated), not the CPU (DB-6).
    pub human: bool,
}

/// The result the game server claims (DB-3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claimed {
    /// The winner's id; `null` for a draw.
    pub winner: Option<String>,
    /// Who resigned, if anybody (DB-3: they lose whatever the boxes).
    #[serde(default)]
    pub resigned: Option<String>,
}

/// A Dots and Boxes match record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DotsMatch {
    pub match_id: String,
    pub game: String,
    #[serde(with = "crate::record::instant")]
    pub started_at: DateTime<Utc>,
    /// The instant the result is dated by.
    #[serde(with = "crate::record::instant")]
    pub ended_at: DateTime<Utc>,
    #[serde(default)]
    pub board: Board,
    /// Exactly two; `moves[].player` indexes them.
    pub players: Vec<Seat>,
    /// Every line, in order, by whom (DB-4; the CPU's lines for a player who left are
    /// theirs, DB-5).
    pub moves: Vec<Move>,
    pub result: Claimed,
}

/// The answer to a match, stored with it (GM-3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DotsResult {
    pub match_id: String,
    /// `dots-and-boxes`.
    pub game: Game,
    /// When the match ended, as its record states (UTC): the instant it counts at on
    /// defined boards (BD-6). Absent on results stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
    /// Per player, in the record's order.
    pub players: Vec<DotsPlayer>,
    /// `win` or `draw`, as replayed.
    pub outcome: Outcome,
    /// Lines drawn in the match (DB-4); absent on results stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<u32>,
    /// The player who resigned, if one did (DB-3: they lose whatever the boxes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resigned: Option<String>,
    /// Whether the ratings changed (both players human, DB-6).
    pub rated: bool,
}

/// One player's end of a match.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DotsPlayer {
    pub player_id: String,
    /// The player's name, avatar and country (PF-5): filled when the app reads it,
    /// empty (so absent) in what is stored.
    #[serde(default, flatten)]
    pub card: crate::profile::Card,
    /// Boxes taken (DB-3).
    pub boxes: u32,
    /// Lines this player drew (the CPU's for a player who left included, DB-5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<u32>,
    pub rating_before: Option<i64>,
    pub rating_after: Option<i64>,
}

impl DotsMatch {
    /// Parses a record line (GM-5), naming the field of a shape error.
    pub fn from_json(bytes: &[u8]) -> Result<DotsMatch, RuleError> {
        crate::record::lines::parse_line(bytes)
    }

    /// Checks the record (GM-5, DB-1 … DB-4) and replays it: ids, two distinct
    /// players, instants (not before 2020, ending after starting, at most
    /// `max_skew_ms` after `now`), then the moves; the claimed result must be the
    /// replay's. Returns the replayed boxes and outcome. Errors name the first
    /// offending field or move.
    pub fn check(&self, now: DateTime<Utc>, max_skew_ms: i64) -> Result<([u32; 2], Outcome), RuleError> {
        let players: Vec<&str> = self.players.iter().map(|p| p.player_id.as_str()).collect();
        crate::record::lines::check_match_envelope(
            &self.match_id,
            &self.game,
            GAME,
            &players,
            "DB-1",
            self.started_at,
            self.ended_at,
            now,
            max_skew_ms,
        )?;
        // A move refused is refused on a board: it is named, so that a record that
        // forgot its `board` learns which one its moves were replayed on (DB-1).
        let replayed = replay::replay(&self.board, &self.moves).map_err(|mut e| {
            let Board { width, height } = self.board;
            let default = if self.board == Board::default() {
                ", the default when a record names no `board`"
            } else {
                ""
            };
            e.message = format!(
                "{} (replayed on the {width} × {height} board{default})",
                e.message
            );
            e
        })?;
        let index = |id: &Option<String>, field: &str| -> Result<Option<u8>, RuleError> {
            match id {
                None => Ok(None),
                Some(id) => self
                    .players
                    .iter()
                    .position(|s| &s.player_id == id)
                    .map(|i| Some(i as u8))
                    .ok_or_else(|| RuleError::new(field, "GM-5", "not one of the two players")),
            }
        };
        let resigned = index(&self.result.resigned, "result.resigned")?;
        if resigned.is_some() && replayed.complete {
            return Err(RuleError::new(
                "result.resigned",
                "DB-3",
                "every box was taken: the game was over before anybody resigned",
            ));
        }
        let Some(outcome) = replay::outcome(&replayed, resigned) else {
            return Err(RuleError::new(
                "moves",
                "DB-3",
                "the game did not end: boxes are left and nobody resigned",
            ));
        };
        let claimed = match index(&self.result.winner, "result.winner")? {
            Some(p) => Outcome::Win(p),
            None => Outcome::Draw,
        };
        if claimed != outcome {
            return Err(RuleError::new(
                "result",
                "DB-4",
                format!(
                    "the moves give {} ({} boxes to {})",
                    match outcome {
                        Outcome::Win(p) => format!("a win for {}", self.players[p as usize].player_id),
                        Outcome::Draw => "a draw".to_string(),
                    },
                    replayed.boxes[0],
                    replayed.boxes[1]
                ),
            ));
        }
        Ok((replayed.boxes, outcome))
    }
}

/// Plans a checked match: with two humans, both ratings (DB-6; `ratings` are the
/// stored ones, `None` for an account not rated yet: [`rating::START`]) and their
/// ledger entries; otherwise the record only.
pub fn plan(
    m: &DotsMatch,
    boxes: [u32; 2],
    outcome: Outcome,
    ratings: [Option<i64>; 2],
) -> Planned<DotsResult> {
    let rated = m.players.iter().all(|s| s.human);
    let result = DotsResult {
        match_id: m.match_id.clone(),
        game: GAME,
        ended_at: Some(m.ended_at),
        players: m
            .players
            .iter()
            .zip(boxes)
            .enumerate()
            .map(|(i, (s, b))| DotsPlayer {
                card: Default::default(),
                player_id: s.player_id.clone(),
                boxes: b,
                moves: Some(m.moves.iter().filter(|mv| usize::from(mv.player) == i).count() as u32),
                rating_before: None,
                rating_after: None,
            })
            .collect(),
        outcome,
        moves: Some(m.moves.len() as u32),
        resigned: m.result.resigned.clone(),
        rated,
    };
    if !rated {
        return Planned::Write(Settlement::result_only(result));
    }
    let score = match outcome {
        Outcome::Win(0) => Score::Win,
        Outcome::Win(_) => Score::Loss,
        Outcome::Draw => Score::Draw,
    };
    let ids = [m.players[0].player_id.as_str(), m.players[1].player_id.as_str()];
    Planned::Write(rating::settlement(
        GAME,
        SOURCE,
        &m.match_id,
        m.ended_at,
        ids,
        ratings,
        score,
        result,
        |r, i, before, after| {
            r.players[i].rating_before = Some(before);
            r.players[i].rating_after = Some(after);
        },
    ))
}

impl DotsResult {
    /// What this result, of a match ended at `at`, says about each player for defined
    /// boards (BD-2, BD-12): the rating points applied (DB-6; 0 unrated), the win, the
    /// moves, whether it was rated.
    pub fn facts(&self, at: DateTime<Utc>) -> Vec<crate::board::feed::Fact> {
        self.players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                crate::board::feed::Fact::of_rated_match(
                    &p.player_id,
                    self.game,
                    at,
                    (p.rating_before, p.rating_after),
                    self.outcome == Outcome::Win(i as u8),
                    self.rated,
                    p.moves,
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(moves: Vec<Move>, winner: Option<&str>, resigned: Option<&str>, humans: bool) -> DotsMatch {
        DotsMatch {
            match_id: "db-1".into(),
            game: "dots-and-boxes".into(),
            started_at: DateTime::parse_from_rfc3339("2027-01-01T10:00:00Z")
                .unwrap()
                .to_utc(),
            ended_at: DateTime::parse_from_rfc3339("2027-01-01T10:10:00Z")
                .unwrap()
                .to_utc(),
            board: Board { width: 3, height: 3 },
            players: vec![
                Seat {
                    player_id: "a".into(),
                    human: true,
                },
                Seat {
                    player_id: "b".into(),
                    human: humans,
                },
            ],
            moves,
            result: Claimed {
                winner: winner.map(String::from),
                resigned: resigned.map(String::from),
            },
        }
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2027-01-01T10:11:00Z")
            .unwrap()
            .to_utc()
    }

    /// DB-3, DB-4: a resignation loses whatever the boxes; a claimed result the moves
    /// contradict is refused naming `result`; an unfinished game without one too.
    #[test]
    fn db_4_the_claimed_result_must_be_the_replays() {
        let moves = vec![Move { player: 0, line: 0 }, Move { player: 1, line: 1 }];
        let m = record(moves.clone(), Some("a"), Some("b"), true);
        assert_eq!(m.check(now(), 0).map(|(_, o)| o), Ok(Outcome::Win(0)));
        let cheat = record(moves.clone(), Some("b"), Some("b"), true);
        let e = cheat.check(now(), 0).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("result", "DB-4"));
        let unfinished = record(moves, Some("a"), None, true);
        assert_eq!(unfinished.check(now(), 0).unwrap_err().rule, "DB-3");
    }

    /// DB-1, DB-2: a move refused names the board it was replayed on, and says when it
    /// was the default (a record that forgot its `board`).
    #[test]
    fn db_2_a_refused_move_names_the_board() {
        let moves = vec![Move { player: 0, line: 0 }, Move { player: 0, line: 1 }];
        let mut m = record(moves, Some("a"), Some("b"), true);
        m.board = Board::default();
        let e = m.check(now(), 0).unwrap_err();
        assert!(e.field.starts_with("moves[1]"), "{e}");
        assert!(
            e.message
                .ends_with("(replayed on the 5 × 4 board, the default when a record names no `board`)"),
            "{e}"
        );
        m.board = Board { width: 3, height: 3 };
        let e = m.check(now(), 0).unwrap_err();
        assert!(e.message.ends_with("(replayed on the 3 × 3 board)"), "{e}");
    }

    /// DB-3, GM-5: a resignation after every box was taken is refused; so is a match
    /// longer than 24 hours.
    #[test]
    fn db_3_no_resignation_after_the_last_box() {
        let board = Board { width: 3, height: 3 };
        let mut moves = Vec::new();
        let mut player = 0;
        for line in 0..board.lines() {
            moves.push(Move { player, line });
            player = replay::replay(&board, &moves)
                .expect("legal")
                .to_move
                .unwrap_or(player);
        }
        let done = record(moves, Some("a"), Some("b"), true);
        let e = done.check(now(), 0).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("result.resigned", "DB-3"));
        let mut long = record(vec![Move { player: 0, line: 0 }], Some("a"), Some("b"), true);
        long.started_at = long.ended_at - chrono::Duration::hours(25);
        assert_eq!(long.check(now(), 0).unwrap_err().field, "ended_at");
    }

    /// DB-6: two humans are rated (1500 beats 1500 → 1516 / 1484, ledger entries);
    /// a game against the CPU is recorded, not rated.
    #[test]
    fn db_6_only_two_humans_are_rated() {
        let m = record(vec![Move { player: 0, line: 0 }], Some("a"), Some("b"), true);
        let Planned::Write(s) = plan(&m, [0, 0], Outcome::Win(0), [None, None]) else {
            panic!("planned")
        };
        assert_eq!(
            s.balances.iter().map(|b| b.after).collect::<Vec<_>>(),
            [1516, 1484]
        );
        assert_eq!(s.ledger[1].applied, -16);
        assert_eq!(s.result.players[0].rating_before, Some(1500));
        let cpu = record(vec![Move { player: 0, line: 0 }], Some("a"), Some("b"), false);
        let Planned::Write(s) = plan(&cpu, [0, 0], Outcome::Win(0), [Some(1600), None]) else {
            panic!("planned")
        };
        assert!(s.balances.is_empty() && !s.result.rated);
    }
}
