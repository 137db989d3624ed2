//! Dots and Boxes (DB-1 … DB-7, `docs/rules/dots-and-boxes.md`): the board and its
//! line numbering ([`board`]) and the replay of a match's lines that derives its
//! result ([`replay`]).

pub mod board;
pub mod record;
pub mod replay;
