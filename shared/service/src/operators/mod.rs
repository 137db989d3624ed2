//! What operators run: board definitions, deletion, a player's export, the support console's read model,
//! events.
//!
//! May use: [`crate::moderation`], [`crate::players`], [`crate::profiles`], [`crate::games`], [`crate::boards`],
//! [`crate::engine`], the store, the rules.
//!
//! - [`board_definitions`]: board definitions created, updated and retired, audited
//!   (BD-*, OP-5), or previewed.
//! - [`deletion`]: deleting a player (GM-6), resumably.
//! - [`deletion_lists`]: what a deletion works through, kept beside its tombstone.
//! - [`export`]: everything stored about a player, as one document (GDPR Art. 15, 20).
//! - [`concerning`]: what of a stored document concerns one player: the export's scope
//!   (GDPR Art. 15(4), 20(4): other players only as the role they played).
//! - [`periods`]: a period's close run again, or run for a period no tick closed.
//! - [`dry_runs`]: a close's dry run, carried on by the ticks when it outgrows a request.
//! - [`previews`]: a definition previewed against past play (BD-13), carried on by the
//!   ticks.
//! - [`player_actions`]: suspensions, restores and deletions that outgrow a request,
//!   carried on by the ticks.
//! - [`console`]: the support console's read model and the operator scope.
//! - [`events`]: new inbox messages as EventBridge events.

pub mod board_definitions;
pub(crate) mod closable;
pub mod concerning;
pub mod console;
pub mod deletion;
pub mod deletion_lists;
pub mod dry_runs;
pub mod events;
pub mod export;
pub mod periods;
pub mod player_actions;
pub mod previews;
