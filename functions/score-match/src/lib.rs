//! `score-match`: scores finished matches that game servers send through SQS,
//! exactly once per match id (GM-3), with partial batch responses.

pub mod dead_letter;
pub mod error;
pub mod handler;
