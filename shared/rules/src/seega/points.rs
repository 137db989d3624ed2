//! Seega points (SG-1 … SG-9) and the balance floor (SG-7).

use serde::{Deserialize, Serialize};

use crate::seega::record::{ValidMatch, ValidOutcome, STONES_PER_PLAYER};

/// Fewest stones on the board, in total, for a match to count (SG-5).
pub const MIN_STONES_PLACED: u32 = 4;

/// Why a match gives no points.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VoidReason {
    /// Ended before 4 stones were on the board (SG-5).
    TooFewStones,
    /// Reported as a draw, which the page does not score (SG-6 decision).
    Draw,
}

/// Win or loss, for one player of a decided match.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Win,
    Loss,
}

/// One player's nominal points for a decided match (SG-2, SG-3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerScore {
    pub player_id: String,
    pub side: Side,
    /// Opponent stones this player captured: 24 − the opponent's stones on board and in hand (SG-1).
    pub captured: u32,
    /// Own stones lost: 24 − own stones on board and in hand (SG-1).
    pub lost: u32,
    /// Moves the server counted for this player (SG-4).
    pub moves: u32,
    /// Whole minutes of the match, rounded down (SG-4).
    pub minutes: i64,
    /// Nominal points (SG-2 or SG-3), before the floor of SG-7; may be of either sign.
    pub points: i64,
}

/// The scoring of one validated match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scoring {
    /// No points for anyone (SG-5, SG-6 decision).
    Void(VoidReason),
    /// One winner, one loser; scores in the record's player order.
    Decided([PlayerScore; 2]),
}

/// Scores a validated Seega match by SG-1 … SG-6 (and SG-9: a `turn_timeout`
/// loser is taken as reported).
pub fn score(m: &ValidMatch) -> Scoring {
    if m.stones_placed < MIN_STONES_PLACED {
        return Scoring::Void(VoidReason::TooFewStones);
    }
    let winner = match m.outcome {
        ValidOutcome::Draw => return Scoring::Void(VoidReason::Draw),
        ValidOutcome::Win { winner, .. } => winner,
    };
    let minutes = m.duration_ms / 60_000;
    let player = |i: usize| {
        let (captured, lost) = captured_lost(m, i);
        let moves = m.players[i].moves;
        let base = 4 * i64::from(captured) - 2 * i64::from(lost);
        let (side, points) = if i == winner {
            (Side::Win, 240 + base - minutes - i64::from(moves))
        } else {
            (Side::Loss, -100 + base + i64::from(moves) + minutes)
        };
        PlayerScore {
            player_id: m.players[i].player_id.clone(),
            side,
            captured,
            lost,
            moves,
            minutes,
            points,
        }
    };
    Scoring::Decided([player(0), player(1)])
}

/// What player `i` of a validated match captured and lost (SG-1): 24 minus the
/// opponent's, and 24 minus its own, stones on the board and in hand.
pub fn captured_lost(m: &ValidMatch, i: usize) -> (u32, u32) {
    let remaining = |i: usize| m.players[i].stones_on_board + m.players[i].stones_in_hand;
    (
        STONES_PER_PLAYER - remaining(1 - i),
        STONES_PER_PLAYER - remaining(i),
    )
}

pub use crate::settlement::apply_floor;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seega::record::{EndReason, MatchRecord, Outcome, PlayerRecord};
    use chrono::{TimeZone, Utc};
    use proptest::prelude::*;

    fn test_now() -> chrono::DateTime<Utc> {
        Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap()
    }

    fn record(winner_captured: u32, loser_captured: u32, secs: i64, moves: u32, placed: u32) -> MatchRecord {
        let start = Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0).unwrap();
        // All stones placed: what is not captured is on the board.
        MatchRecord {
            match_id: "m-1".into(),
            game: "seega".into(),
            started_at: start,
            ended_at: start + chrono::Duration::seconds(secs),
            players: vec![
                PlayerRecord {
                    player_id: "w".into(),
                    moves,
                    stones_on_board: 24 - loser_captured,
                    stones_in_hand: 0,
                },
                PlayerRecord {
                    player_id: "l".into(),
                    moves,
                    stones_on_board: 24 - winner_captured,
                    stones_in_hand: 0,
                },
            ],
            stones_placed: placed,
            outcome: Outcome::win("w", EndReason::Completed),
        }
    }

    fn points(r: &MatchRecord) -> (i64, i64) {
        match score(&r.validate(test_now()).unwrap()) {
            Scoring::Decided([w, l]) => (w.points, l.points),
            other => panic!("{other:?}"),
        }
    }

    /// SG-8: the rules page's examples (5 minutes, 20 moves each).
    #[test]
    fn seed_examples() {
        for (wc, lc, w, l) in [
            (24, 0, 311, -123),
            (24, 12, 287, -75),
            (16, 8, 263, -75),
            (12, 4, 255, -83),
        ] {
            assert_eq!(
                points(&record(wc, lc, 300, 20, 48)),
                (w, l),
                "winner captured {wc}, loser {lc}"
            );
        }
    }

    /// SG-4: minutes are floored (5 min 59 s is 5).
    #[test]
    fn minutes_floor() {
        assert_eq!(points(&record(24, 0, 359, 20, 48)), (311, -123));
        assert_eq!(points(&record(24, 0, 360, 20, 48)), (310, -122));
    }

    /// SG-5: fewer than 4 stones placed is void; 4 counts (SG-6).
    #[test]
    fn void_below_four_stones() {
        let mut r = record(0, 0, 30, 1, 3);
        r.players[0].stones_on_board = 2;
        r.players[0].stones_in_hand = 22;
        r.players[1].stones_on_board = 1;
        r.players[1].stones_in_hand = 23;
        assert_eq!(
            score(&r.validate(test_now()).unwrap()),
            Scoring::Void(VoidReason::TooFewStones)
        );
        r.players[1].stones_on_board = 2;
        r.players[1].stones_in_hand = 22;
        r.stones_placed = 4;
        r.outcome = Outcome::win("l", EndReason::Resigned);
        assert!(matches!(
            score(&r.validate(test_now()).unwrap()),
            Scoring::Decided(_)
        ));
    }

    /// SG-6 decision: a reported draw is void.
    #[test]
    fn draw_is_void() {
        let mut r = record(10, 10, 300, 20, 48);
        r.outcome = Outcome::draw();
        assert_eq!(
            score(&r.validate(test_now()).unwrap()),
            Scoring::Void(VoidReason::Draw)
        );
    }

    /// SG-9: a turn timeout's loser is taken as reported, the other wins.
    #[test]
    fn turn_timeout_scores_like_a_win() {
        let mut r = record(24, 0, 300, 20, 48);
        r.outcome = Outcome::win("w", EndReason::TurnTimeout);
        assert_eq!(points(&r), (311, -123));
    }

    /// SG-7: the floor.
    #[test]
    fn floor() {
        assert_eq!(apply_floor(50, -123), -50);
        assert_eq!(apply_floor(0, -75), 0);
        assert_eq!(apply_floor(500, -123), -123);
        assert_eq!(apply_floor(0, 311), 311);
    }

    proptest! {
        /// SG-7: a loss never takes a balance below zero, and the applied delta is
        /// the nominal one whenever the balance covers it.
        #[test]
        fn floor_never_negative(balance in 0i64..10_000_000, delta in -1_000_000i64..1_000_000) {
            let applied = apply_floor(balance, delta);
            prop_assert!(balance + applied >= 0);
            prop_assert!(applied >= delta);
            if balance + delta >= 0 { prop_assert_eq!(applied, delta); } else { prop_assert_eq!(balance + applied, 0); }
        }
    }
}
