//! The settlement engine: every source of points becomes a settlement computed by
//! the pure rules and committed whole, exactly once (GM-3, GM-4).
//!
//! May use: the store, the rules, [`crate::error`], [`crate::telemetry`]. Knows no
//! game, board page or player feature built on it.
//!
//! - [`source`]: what a source of points is to the engine: its reads, what was
//!   read, how a settlement ended.
//! - [`settle`]: the one commit path (read, compute, commit, retry, replay).
//! - [`commit`]: a settlement as the store's commit (claims, balances, entries,
//!   states, inbox messages, league placements, GM-6 references).
//! - [`defined`]: results feeding defined boards in the same commit (BD-12).
//! - [`keyed`]: runs keyed by a record's idempotency key.
//! - [`listing`]: every item of one small partition, decoded.
//! - [`changes`]: change marks, what the refresh job reads to know what moved.
//! - [`names`]: which players an item names (GM-6), content hashes, pseudonyms.
//! - [`placement`]: league memberships a commit writes (LG).
//! - [`state`]: players' stored state bodies.
//! - [`unapplied`]: the sources a job left out for review (one that no rerun can
//!   apply never stops the others).

pub mod changes;
pub mod commit;
pub mod defined;
pub mod fingerprint;
pub mod keyed;
pub mod listing;
pub mod names;
pub mod placement;
pub mod settle;
pub mod source;
pub mod state;
pub mod unapplied;
