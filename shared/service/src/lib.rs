//! podium's use cases over the store: scoring a match exactly once ([`score`]),
//! reading boards and standings ([`boards`]), and the HTTP API's routing ([`api`]),
//! shared by the Lambda functions and the local binary.

pub mod api;
pub mod boards;
pub mod changes;
pub mod config;
pub mod cursor;
pub mod deletion;
pub mod error;
pub mod events;
pub mod generate;
pub mod generate_mahjong;
pub mod generate_replayed;
pub mod inbox;
pub mod incoming;
pub mod keyed;
pub mod leagues;
pub mod mahjong;
pub mod operator;
pub mod overtaken;
pub mod period_boards;
pub mod period_close;
pub mod point_history;
pub mod rendered;
pub mod replayed;
pub mod rewards;
pub mod score;
pub mod settle;
pub mod snapshot;
pub mod snapshot_codec;
pub mod snapshot_jobs;
pub mod snapshot_reads;
pub mod synthetic;
pub mod telemetry;
pub mod tournaments;

pub use error::ServiceError;
