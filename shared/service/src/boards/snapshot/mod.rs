//! Ranked snapshots of a board (LB-5, LB-7): content-addressed page bodies, a
//! directory in chunks, a `CURRENT` pointer.
//!
//! - [`layout`]: the items a snapshot is made of and their keys.
//! - [`country`]: the country boards a run derives from the board (PF-3).
//! - [`codec`]: the compact binary encoding of page bodies and directory chunks.
//! - [`compact`]: compact forms of ids and cards a run keeps for every player.
//! - [`left_out`]: the players a run leaves out while suspended (OP-4).
//! - [`write`]: a refresh or freeze run, resumable, and erasures (GM-6).
//! - [`movement`]: each entry's earlier ranks, recorded by the run.
//! - [`seen`]: the players a run has listed so far.
//! - [`read`]: the current snapshot, its directory and pages.
//! - [`rendered`]: top pages kept as rendered JSON per snapshot.

pub mod codec;
pub mod compact;
pub mod country;
pub mod layout;
pub mod movement;
pub mod read;
pub mod rendered;
pub mod seen;
pub mod write;
