//! Board machinery: a board is (name, period, order), and every view derives from it.
//!
//! May use: [`crate::engine`], the store, the rules. Knows no game or player feature.
//!
//! - [`catalogue`]: the boards the app can show now, with the caller's value (BD-12).
//! - [`live`]: live board pages, around-me and standing from the board's GSI.
//! - [`cursor`]: opaque, signed page cursors (LB-3).
//! - [`defined`]: defined boards as the machinery reads them: period, clock, values.
//! - [`definitions`]: board definitions as data, stored and versioned (BD-1 … BD-11).
//! - [`entries`]: a player's entry on a board, balance or period points (LB-1).
//! - [`periods`]: period boards: credits, the AMR window, freezing ended periods.
//! - [`close`]: a frozen period's close: its `period_result` messages and rewards.
//! - [`reward`]: paying a period reward: points into the balance, Jokers (BD-9).
//! - [`final_results`]: a frozen period's results streamed from its final snapshot.
//! - [`snapshot`]: ranked snapshots of a board: written, encoded, read, rendered.
//! - [`pages`]: the pages the app reads, served from the current snapshot.
//! - [`friends`]: a board among the caller's friends (PF-4).
//! - [`hidden`]: suspended players hidden from every board, ranks closed up (OP-4).
//! - [`suspended`]: who is suspended, per board (an index) and among known players.
//! - [`visibility`]: whom a read that lists players shows, at which ranks (OP-4, GM-6).

pub mod catalogue;
pub mod close;
pub mod cursor;
pub mod defined;
pub mod definitions;
pub mod entries;
pub mod final_results;
pub mod friends;
pub mod hidden;
pub mod live;
pub mod pages;
pub mod periods;
pub mod reward;
pub mod snapshot;
pub mod suspended;
pub mod visibility;
