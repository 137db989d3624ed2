//! Record generators: realistic JSON-lines input of every game, as a fleet of game
//! servers produces it (duplicates, retries and a few refused records mixed in), for
//! `podium generate` and `podium serve --demo`, and the load runs, benchmarks and
//! fuzz tests that feed on it. Nothing here is used by a deployed function.
//!
//! - [`seega`]: Seega matches (SG-1 … SG-12).
//! - [`replayed`]: Dots and Boxes matches and Minesweeper duels, move by move (DB, MS).
//! - [`mahjong`]: Mahjong Rivals level completions, Quick Matches, Arenas and
//!   tournaments (MJ-1 … MJ-17).
//! - [`synthetic`]: a ranked board of N players, without records, for benchmarks.

pub mod mahjong;
pub mod replayed;
pub mod seega;
pub mod synthetic;
