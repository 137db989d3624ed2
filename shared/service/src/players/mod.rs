//! What a player has and asks for beyond a board page.
//!
//! May use: [`crate::engine`], [`crate::boards`], [`crate::profiles`], the store, the
//! rules.
//!
//! - [`rewards`]: rewarded ads (SG-10) and the daily bonus (MJ-18).
//! - [`inbox`]: messages and claims of period rewards.
//! - [`point_history`]: the ledger as the player reads it (GM-4).
//! - [`leagues`]: weekly leagues: cohorts, standings, the week's close.
//! - [`overtaken`]: follows and `overtaken` messages.
//! - [`joins`]: joining a defined board whose entry rules ask for it (BD-8).

pub mod inbox;
pub mod joins;
pub mod leagues;
pub mod overtaken;
pub mod point_history;
pub mod rewards;
