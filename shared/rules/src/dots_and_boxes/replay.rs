//! Replaying a match's lines (DB-2 … DB-4): every line new and on the board, the turn
//! order of DB-2 (a line that completes one or two boxes gives its player exactly one
//! more line; otherwise the turn passes), and the boxes each player took. Lines the
//! CPU drew for a player who left count as that player's (DB-5); a record lists them
//! under that player.

use serde::{Deserialize, Serialize};

use super::board::Board;
use crate::error::RuleError;

/// One line drawn: by which of the two players (0 or 1, the record's order), and
/// which line ([`Board`]'s numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    pub player: u8,
    pub line: u32,
}

/// What the replay found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// Boxes each player took.
    pub boxes: [u32; 2],
    /// Whether every box was taken (DB-3).
    pub complete: bool,
    /// Whose turn it is after the last line.
    pub to_move: Option<u8>,
}

/// How a match ended (DB-3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Player 0 or 1 won.
    Win(u8),
    Draw,
}

/// Replays `moves` on `board` (DB-2, DB-4). Errors name the first offending move
/// (`moves[12].line`, `moves[13].player`): a player other than 0 or 1, a line off the
/// board or drawn before, a line by the player whose turn it is not, or a line after
/// every box was taken.
pub fn replay(board: &Board, moves: &[Move]) -> Result<Replayed, RuleError> {
    board.check("board")?;
    let mut drawn = vec![false; board.lines() as usize];
    let mut owner: Vec<Option<u8>> = vec![None; board.boxes() as usize];
    let mut boxes = [0u32; 2];
    let mut to_move: Option<u8> = None;
    for (i, m) in moves.iter().enumerate() {
        let at = |f: &str| format!("moves[{i}].{f}");
        if m.player > 1 {
            return Err(RuleError::new(at("player"), "DB-1", "a player is 0 or 1"));
        }
        if boxes[0] + boxes[1] == board.boxes() {
            return Err(RuleError::new(
                at("line"),
                "DB-3",
                "every box is taken: the game is over",
            ));
        }
        if m.line >= board.lines() {
            return Err(RuleError::new(
                at("line"),
                "DB-4",
                format!("line {} is off a board of {} lines", m.line, board.lines()),
            ));
        }
        if drawn[m.line as usize] {
            return Err(RuleError::new(
                at("line"),
                "DB-4",
                format!("line {} was drawn before", m.line),
            ));
        }
        if to_move.is_some_and(|p| p != m.player) {
            return Err(RuleError::new(
                at("player"),
                "DB-2",
                format!("player {} drew out of turn", m.player),
            ));
        }
        drawn[m.line as usize] = true;
        let mut closed = 0;
        for b in board.boxes_of(m.line) {
            if board.sides(b).iter().all(|s| drawn[*s as usize]) {
                owner[b as usize] = Some(m.player);
                closed += 1;
            }
        }
        boxes[m.player as usize] += closed;
        // DB-2: one more line after completing one or two boxes, else the other's turn.
        to_move = Some(if closed > 0 { m.player } else { 1 - m.player });
    }
    Ok(Replayed {
        boxes,
        complete: boxes[0] + boxes[1] == board.boxes(),
        to_move,
    })
}

/// The result of a replayed match (DB-3): a resignation loses whatever the boxes;
/// otherwise a complete game goes to more boxes, equal boxes a draw. `None` for an
/// unfinished game nobody resigned.
pub fn outcome(r: &Replayed, resigned: Option<u8>) -> Option<Outcome> {
    if let Some(p) = resigned.filter(|p| *p <= 1) {
        return Some(Outcome::Win(1 - p));
    }
    if !r.complete {
        return None;
    }
    Some(match r.boxes[0].cmp(&r.boxes[1]) {
        std::cmp::Ordering::Greater => Outcome::Win(0),
        std::cmp::Ordering::Less => Outcome::Win(1),
        std::cmp::Ordering::Equal => Outcome::Draw,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn m(player: u8, line: u32) -> Move {
        Move { player, line }
    }

    const THREE: Board = Board { width: 3, height: 3 };

    /// DB-2: a line that closes two boxes gives one extra move, not two.
    #[test]
    fn db_2_a_line_closing_two_boxes_gives_one_more_line() {
        // Boxes 0 and 1 share line 13. Draw 0, 3, 12 (box 0 open on 13) and 1, 4, 14
        // (box 1 open on 13), alternating; then 13 closes both.
        let moves = [m(0, 0), m(1, 3), m(0, 12), m(1, 1), m(0, 4), m(1, 14), m(0, 13)];
        let r = replay(&THREE, &moves).expect("legal");
        assert_eq!(r.boxes, [2, 0]);
        assert_eq!(r.to_move, Some(0), "one more line for player 0");
        let mut more = moves.to_vec();
        more.push(m(0, 20)); // no box: the turn passes
        more.push(m(0, 21));
        let e = replay(&THREE, &more).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("moves[8].player", "DB-2"));
    }

    /// DB-4: a repeated line, a line off the board, or a move by the wrong player is
    /// refused naming the move.
    #[test]
    fn db_4_bad_lines_are_refused_naming_the_move() {
        let e = replay(&THREE, &[m(0, 0), m(1, 0)]).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("moves[1].line", "DB-4"));
        let e = replay(&THREE, &[m(0, 24)]).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("moves[0].line", "DB-4"));
        let e = replay(&THREE, &[m(0, 0), m(0, 1)]).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("moves[1].player", "DB-2"));
        let e = replay(&THREE, &[m(2, 0)]).unwrap_err();
        assert_eq!(e.field, "moves[0].player");
    }

    /// Every line in order, players taking turns as DB-2 says.
    fn play(board: &Board, order: &[u32], first: u8) -> Vec<Move> {
        let mut moves = Vec::new();
        let mut drawn = vec![false; board.lines() as usize];
        let mut p = first;
        for &line in order {
            moves.push(m(p, line));
            drawn[line as usize] = true;
            let closed = board
                .boxes_of(line)
                .filter(|b| board.sides(*b).iter().all(|s| drawn[*s as usize]))
                .count();
            if closed == 0 {
                p = 1 - p;
            }
        }
        moves
    }

    /// DB-3: a complete game goes to more boxes; a resignation loses whatever the
    /// boxes; a line after the last box is refused.
    #[test]
    fn db_3_the_result() {
        let board = Board::default();
        let moves = play(&board, &(0..board.lines()).collect::<Vec<_>>(), 0);
        let r = replay(&board, &moves).expect("legal");
        assert!(r.complete);
        assert_eq!(r.boxes[0] + r.boxes[1], 20);
        let expected = match r.boxes[0].cmp(&r.boxes[1]) {
            std::cmp::Ordering::Greater => Outcome::Win(0),
            std::cmp::Ordering::Less => Outcome::Win(1),
            std::cmp::Ordering::Equal => Outcome::Draw,
        };
        assert_eq!(outcome(&r, None), Some(expected));
        assert_eq!(outcome(&r, Some(0)), Some(Outcome::Win(1)));
        let partial = replay(&board, &moves[..10]).expect("legal");
        assert_eq!(outcome(&partial, None), None);
        assert_eq!(outcome(&partial, Some(1)), Some(Outcome::Win(0)));
        let draw = Replayed {
            boxes: [10, 10],
            complete: true,
            to_move: None,
        };
        assert_eq!(
            outcome(&draw, None),
            Some(Outcome::Draw),
            "10–10 on 5 × 4 is a draw"
        );
    }

    /// DB-5, DB-7: lines the CPU drew for a player who left are listed as theirs and
    /// count as theirs; either player may draw first (the table may swap the first
    /// player on a rematch), and only the final list of lines is replayed.
    #[test]
    fn db_5_db_7_lines_are_the_players_whoever_drew_first() {
        let board = Board::default();
        let order: Vec<u32> = (0..board.lines()).collect();
        let from_1 = play(&board, &order, 1);
        assert_eq!(from_1[0].player, 1);
        let r = replay(&board, &from_1).expect("player 1 may draw first");
        let from_0 = play(&board, &order, 0);
        let s = replay(&board, &from_0).expect("legal");
        // The same lines with the seats swapped: the boxes swap too.
        assert_eq!(r.boxes, [s.boxes[1], s.boxes[0]]);
    }

    proptest! {
        /// DB-1 … DB-4: random legal games end with every box shared out, and replay
        /// the same twice.
        #[test]
        fn db_random_legal_games_share_every_box(
            w in 3u8..=5,
            h in 3u8..=5,
            seed in any::<u64>(),
            first in 0u8..=1,
        ) {
            let board = Board { width: w, height: h };
            let mut order: Vec<u32> = (0..board.lines()).collect();
            // A seeded shuffle (Fisher–Yates with an LCG).
            let mut x = seed | 1;
            for i in (1..order.len()).rev() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                order.swap(i, (x >> 33) as usize % (i + 1));
            }
            let moves = play(&board, &order, first);
            let r = replay(&board, &moves).expect("legal");
            prop_assert!(r.complete);
            prop_assert_eq!(r.boxes[0] + r.boxes[1], board.boxes());
            prop_assert_eq!(replay(&board, &moves).expect("again"), r);
        }
    }
}
