//! What operators change (OP-*): corrections of a balance, held records and their
//! review, suspensions, the audit trail of every operator action.
//!
//! May use: [`crate::games`], [`crate::players`], [`crate::teams`], [`crate::boards`],
//! [`crate::profiles`], [`crate::engine`], the store, the rules.
//!
//! - [`audit`]: the append-only trail of operator actions (OP-5).
//! - [`corrections`]: operators' corrections of a balance (OP-1).
//! - [`names`]: an operator's reset of a display name (PF-1).
//! - [`suspensions`]: suspending a player and restoring them (OP-4).
//! - [`review`]: records held by the plausibility checks, and their review (OP-2, OP-3).
//! - [`teams`]: an operator's rename or disbanding of a team (TM-1, TM-5).

pub mod audit;
pub mod corrections;
pub mod names;
pub mod review;
pub mod suspensions;
pub mod teams;
