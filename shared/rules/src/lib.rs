//! podium's rules: pure functions over plain types. No I/O, no async, no AWS types;
//! the clock is always a parameter. Rule ids (SG-*, DISP-*, LB-*, GM-*) refer to the rules pages in `docs/rules/`.

pub mod board;
pub mod display;
pub mod dots_and_boxes;
pub mod error;
pub mod game;
pub mod history;
pub mod inbox;
pub mod leaderboard;
pub mod league;
pub mod mahjong;
pub mod message;
pub mod minesweeper;
pub mod operator;
pub mod overtaken;
pub mod period;
pub mod period_reward;
pub mod plausibility;
pub mod profile;
pub mod push;
pub mod rating;
pub mod record;
pub mod reward;
pub mod seega;
pub mod settlement;
pub mod snapshot;
pub mod standing;
pub mod team;

pub use error::RuleError;
