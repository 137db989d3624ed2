//! Each game's records settled through the engine: the service runs the pure rules
//! of a game and commits their settlement; it never scores a game itself.
//!
//! May use: [`crate::engine`], [`crate::boards`], the store, the rules.
//!
//! - [`seega`]: Seega matches (SG).
//! - [`replayed`]: Dots and Boxes matches and Minesweeper duels, replayed (DB, MS).
//! - [`mahjong`]: Mahjong Rivals level completions, Quick Matches, Arenas (MJ).
//! - [`tournaments`]: Mahjong Rivals tournaments: registration, tables, prizes.
//! - [`incoming`]: a queued record routed to its game, exactly once.
//! - [`results`]: a finished match's result as its players see it.
//! - [`played`]: past play read back: the facts a stored result holds (BD-2).

pub mod incoming;
pub mod mahjong;
pub mod played;
pub mod replayed;
pub mod results;
pub mod seega;
pub mod tournaments;
