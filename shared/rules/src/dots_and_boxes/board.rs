//! The board (DB-1): `w × h` boxes, each side 3 to 5 long (default 5 × 4), and its
//! lines numbered as OpenSpiel numbers them: the horizontal lines row by row, top to
//! bottom, left to right, then the vertical lines row by row. On 3 × 3:
//!
//! ```text
//!  .  0  .  1  .  2  .
//! 12    13    14    15
//!  .  3  .  4  .  5  .
//! 16    17    18    19
//!  .  6  .  7  .  8  .
//! 20    21    22    23
//!  .  9  . 10  . 11  .
//! ```
//!
//! Box `(r, c)` (row `r` from the top, column `c` from the left) has the sides
//! `r·w + c` (top), `(r+1)·w + c` (bottom), `w(h+1) + r(w+1) + c` (left) and that + 1
//! (right).

use serde::{Deserialize, Serialize};

use crate::error::RuleError;

/// Boxes a side may have (DB-1).
pub const SIDES: std::ops::RangeInclusive<u8> = 3..=5;

/// A board of `width × height` boxes (DB-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    /// Boxes in a row (3 … 5).
    pub width: u8,
    /// Boxes in a column (3 … 5).
    pub height: u8,
}

impl Default for Board {
    /// 5 wide by 4 high: 6 × 5 dots (DB-1).
    fn default() -> Self {
        Board { width: 5, height: 4 }
    }
}

impl Board {
    /// Checks the sides (DB-1), naming `field` (`board`).
    pub fn check(&self, field: &str) -> Result<(), RuleError> {
        if SIDES.contains(&self.width) && SIDES.contains(&self.height) {
            Ok(())
        } else {
            Err(RuleError::new(
                field,
                "DB-1",
                format!(
                    "a board is 3 to 5 boxes each way, not {} × {}",
                    self.width, self.height
                ),
            ))
        }
    }

    fn w(&self) -> u32 {
        u32::from(self.width)
    }

    fn h(&self) -> u32 {
        u32::from(self.height)
    }

    /// Horizontal lines: `w(h+1)`.
    pub fn horizontal_lines(&self) -> u32 {
        self.w() * (self.h() + 1)
    }

    /// Every line: `w(h+1) + h(w+1)` (DB-1).
    pub fn lines(&self) -> u32 {
        self.horizontal_lines() + self.h() * (self.w() + 1)
    }

    /// Boxes: `w·h` (DB-1).
    pub fn boxes(&self) -> u32 {
        self.w() * self.h()
    }

    /// The four sides of box `b` (row-major index).
    pub fn sides(&self, b: u32) -> [u32; 4] {
        let (r, c) = (b / self.w(), b % self.w());
        let top = r * self.w() + c;
        let left = self.horizontal_lines() + r * (self.w() + 1) + c;
        [top, top + self.w(), left, left + 1]
    }

    /// The boxes (one or two) line `line` is a side of.
    pub fn boxes_of(&self, line: u32) -> impl Iterator<Item = u32> {
        let (w, h, hl) = (self.w(), self.h(), self.horizontal_lines());
        let (a, b) = if line < hl {
            let (r, c) = (line / w, line % w);
            // Above the line (box r − 1) and below it (box r).
            ((r > 0).then(|| (r - 1) * w + c), (r < h).then_some(r * w + c))
        } else {
            let v = line - hl;
            let (r, c) = (v / (w + 1), v % (w + 1));
            // Left of the line (box c − 1) and right of it (box c).
            ((c > 0).then(|| r * w + c - 1), (c < w).then_some(r * w + c))
        };
        a.into_iter().chain(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DB-1: the worked examples' line and box counts.
    #[test]
    fn db_1_lines_and_boxes() {
        let b = |w, h| Board { width: w, height: h };
        assert_eq!((Board::default().lines(), Board::default().boxes()), (49, 20));
        assert_eq!((b(3, 3).lines(), b(3, 3).boxes()), (24, 9));
        assert_eq!((b(5, 5).lines(), b(5, 5).boxes()), (60, 25));
        assert!(b(2, 3).check("board").is_err());
        assert!(b(6, 3).check("board").is_err());
        assert!(b(3, 5).check("board").is_ok());
    }

    /// DB-1: the numbering of the module's 3 × 3 picture; every line is a side of
    /// one or two boxes, and each box's four sides name it back.
    #[test]
    fn db_1_numbering_matches_the_picture() {
        let b = Board { width: 3, height: 3 };
        assert_eq!(b.sides(0), [0, 3, 12, 13]);
        assert_eq!(b.sides(4), [4, 7, 17, 18]);
        assert_eq!(b.sides(8), [8, 11, 22, 23]);
        for board in [b, Board::default(), Board { width: 5, height: 5 }] {
            let mut count = vec![0; board.lines() as usize];
            for bx in 0..board.boxes() {
                for s in board.sides(bx) {
                    assert!(board.boxes_of(s).any(|x| x == bx), "{board:?} box {bx} side {s}");
                    count[s as usize] += 1;
                }
            }
            assert!(count.iter().all(|c| (1..=2).contains(c)), "{board:?}");
        }
    }
}
