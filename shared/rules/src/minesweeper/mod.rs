//! The Minesweeper duel (MS-1 … MS-8, `docs/rules/minesweeper.md`): the grid
//! ([`grid`]) and the replay of both players' timed actions that derives scores,
//! lives, the winner and the kind of win ([`replay`]).

pub mod grid;
pub mod record;
pub mod replay;
