//! The grid (MS-1): 25 rows × 10 columns, 40 mines, the same for both players, and a
//! starting area revealed for both. Tiles are numbered row by row: `row · 10 + col`.

use serde::{Deserialize, Serialize};

use crate::error::RuleError;

/// Rows of the grid (MS-1).
pub const ROWS: u32 = 25;
/// Columns of the grid (MS-1).
pub const COLS: u32 = 10;
/// Tiles: 250.
pub const TILES: u32 = ROWS * COLS;
/// Mines (MS-1).
pub const MINES: usize = 40;

/// A tile by row and column (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tile {
    pub row: u32,
    pub col: u32,
}

impl Tile {
    /// Its index, if it is on the grid.
    pub fn index(self) -> Option<usize> {
        // Bounds first: a row of billions must not overflow the product.
        (self.row < ROWS && self.col < COLS).then(|| (self.row * COLS + self.col) as usize)
    }
}

/// The grid both players play: where the mines are and how many each tile touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    mine: Vec<bool>,
    count: Vec<u8>,
}

/// The up to 8 neighbours of tile `i`.
pub fn neighbours(i: usize) -> impl Iterator<Item = usize> {
    let (r, c) = ((i as u32 / COLS) as i64, (i as u32 % COLS) as i64);
    (-1..=1i64)
        .flat_map(move |dr| (-1..=1i64).map(move |dc| (r + dr, c + dc)))
        .filter(move |&(nr, nc)| {
            (nr, nc) != (r, c) && (0..ROWS as i64).contains(&nr) && (0..COLS as i64).contains(&nc)
        })
        .map(|(nr, nc)| (nr as u32 * COLS + nc as u32) as usize)
}

impl Grid {
    /// The grid of `mines` (MS-1: exactly 40 distinct tiles on the grid), checked,
    /// naming `field` (`mines[3]`).
    pub fn new(mines: &[Tile], field: &str) -> Result<Grid, RuleError> {
        if mines.len() != MINES {
            return Err(RuleError::new(
                field,
                "MS-1",
                format!("a grid has {MINES} mines, not {}", mines.len()),
            ));
        }
        let mut mine = vec![false; TILES as usize];
        for (k, t) in mines.iter().enumerate() {
            let i = t.index().ok_or_else(|| {
                RuleError::new(
                    format!("{field}[{k}]"),
                    "MS-1",
                    format!(
                        "row {}, col {} is outside the 25 × 10 grid (rows 0–24, cols 0–9)",
                        t.row, t.col
                    ),
                )
            })?;
            if mine[i] {
                return Err(RuleError::new(
                    format!("{field}[{k}]"),
                    "MS-1",
                    "a mine listed twice",
                ));
            }
            mine[i] = true;
        }
        let count = (0..TILES as usize)
            .map(|i| neighbours(i).filter(|&n| mine[n]).count() as u8)
            .collect();
        Ok(Grid { mine, count })
    }

    /// Whether tile `i` hides a mine.
    pub fn is_mine(&self, i: usize) -> bool {
        self.mine[i]
    }

    /// How many of tile `i`'s neighbours hide a mine.
    pub fn count(&self, i: usize) -> u8 {
        self.count[i]
    }

    /// Safe tiles: 210.
    pub fn safe_tiles(&self) -> u32 {
        TILES - MINES as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MS-1: 40 distinct mines on a 25 × 10 grid, each tile's count of mined neighbours.
    #[test]
    fn ms_1_the_grid() {
        let mines: Vec<Tile> = (0..40)
            .map(|k| Tile {
                row: k / 10 * 2,
                col: k % 10,
            })
            .collect();
        let g = Grid::new(&mines, "mines").expect("grid");
        assert_eq!(g.safe_tiles(), 210);
        assert!(g.is_mine(0));
        // Row 1 lies between mined rows 0 and 2: 6 mined neighbours inside, 4 at the edges.
        assert_eq!(g.count(15), 6);
        assert_eq!(g.count(10), 4);
        assert_eq!(neighbours(0).count(), 3);
        assert_eq!(neighbours(15).count(), 8);
        let mut twice = mines.clone();
        twice[1] = twice[0];
        assert_eq!(Grid::new(&twice, "mines").unwrap_err().field, "mines[1]");
        assert_eq!(Grid::new(&mines[..39], "mines").unwrap_err().rule, "MS-1");
        let mut off = mines;
        off[0] = Tile { row: 25, col: 0 };
        assert_eq!(Grid::new(&off, "mines").unwrap_err().field, "mines[0]");
    }
}
