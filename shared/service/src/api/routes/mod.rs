//! The handlers, one file per capability, each annotated with its OpenAPI operation
//! ([`super::docs`] collects them into the router and the document).
//!
//! - [`respond`]: JSON bodies serialised once, content types.
//! - [`boards`]: board pages and around-me.
//! - [`me`]: the caller's profiles, match results, point history.
//! - [`messages`]: the inbox, claims, `overtaken` follows.
//! - [`profiles`]: the caller's profile and friend list.
//! - [`leagues`]: the caller's league, a cohort.
//! - [`mahjong`]: Arenas, tournament tables, tournaments, the daily bonus.
//! - [`ads`]: rewarded-ad callbacks.
//! - [`operator`]: the operator routes that read.
//! - [`moderation`]: the operator routes that act: corrections, the audit trail.
//! - [`board_definitions`]: the operator routes of board definitions (BD-*).
//! - [`teams`]: teams, memberships and contributions (TM-*).

pub mod ads;
pub mod board_definitions;
pub mod boards;
pub mod leagues;
pub mod mahjong;
pub mod me;
pub mod messages;
pub mod moderation;
pub mod operator;
pub mod profiles;
pub mod respond;
pub mod teams;
