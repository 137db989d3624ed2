//! What operators run: deletion, the support console's read model, events.
//!
//! May use: [`crate::players`], [`crate::games`], [`crate::boards`],
//! [`crate::engine`], the store, the rules.
//!
//! - [`deletion`]: deleting a player (GM-6), resumably.
//! - [`console`]: the support console's read model and the operator scope.
//! - [`events`]: new inbox messages as EventBridge events.

pub mod console;
pub mod deletion;
pub mod events;
