//! podium's use cases over the store, shared by the Lambda functions and the local
//! binary, in rooms by capability. Each room's `mod.rs` says what it holds and what
//! it may use; the arrows point down this list and never back (`module-check`, run
//! by the test command, refuses an import circle at any level):
//!
//! - [`api`]: the HTTP API (routes, extractors, the OpenAPI document).
//! - [`config`]: configuration, read once at start-up.
//! - [`jobs`]: the scheduled tick (refreshes, period closes, league weeks,
//!   tournaments, `overtaken` messages, the AMR window).
//! - [`operators`]: deletion (GM-6), the support console's read model, events.
//! - [`push`]: the live feed (LIVE-1 … LIVE-4): connections and what they watch.
//! - [`moderation`]: what operators change: corrections (OP-1), the audit trail (OP-5).
//! - [`games`]: each game's records settled (Seega, replayed duels, Mahjong Rivals,
//!   tournaments), incoming routing, match results.
//! - [`players`]: rewards, the inbox, point history, leagues, `overtaken` follows.
//! - [`teams`]: teams, memberships, contributions (TM-1 … TM-7).
//! - [`boards`]: live boards, periods and their close, snapshots, pages, cursors,
//!   and the views derived from them (friends).
//! - [`profiles`]: names, avatars, countries and friend lists (PF-*).
//! - [`engine`]: the settlement engine: one commit path, keyed runs, change marks.
//! - [`telemetry`], [`error`]: metrics and the crate's error, used by every room.

pub mod api;
pub mod boards;
pub mod budget;
pub mod config;
pub mod engine;
pub mod error;
pub mod games;
pub mod jobs;
pub mod moderation;
pub mod operators;
pub mod players;
pub mod profiles;
pub mod push;
pub mod teams;
pub mod telemetry;

pub use error::ServiceError;
