//! Seega (SG-1 … SG-12, `docs/rules/seega.md`): match points, void matches and the
//! floor, the match result players see, ranks, and the daily ad reward.

mod canonical;
pub mod daily_ad;
pub mod points;
pub mod rank;
pub mod record;
pub mod result;
mod validate;

pub use points::{captured_lost, score, PlayerScore, Scoring, Side, VoidReason, MIN_STONES_PLACED};
