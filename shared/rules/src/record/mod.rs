//! What every game's records share (GM-5): the record policy and its bounds, ids and
//! the reserved pseudonym form, strict instants on the wire, shape errors that name
//! the field, and reading a JSON line into a game's record. Each game's own record
//! lives with its game (`seega::record`, `dots_and_boxes::record`,
//! `minesweeper::record`, `mahjong::records`).
//!
//! - [`policy`]: [`policy::RecordPolicy`], the age and clock-skew bounds.
//! - [`ids`]: valid ids, reserved ids (GM-6).
//! - [`instant`]: strict RFC 3339 instants, written as the content hash needs them.
//! - [`shape`]: shape errors naming the field.
//! - [`lines`]: one JSON line read as a game's record.

pub mod ids;
pub mod instant;
pub mod lines;
pub mod policy;
pub mod shape;
