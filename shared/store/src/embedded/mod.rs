//! The embedded in-process store: one `redb` database file (or memory), the local
//! default. Every settlement is written inside one redb write transaction, so it is
//! atomic and serialised with every other write, across threads and processes;
//! settlements committed concurrently share a transaction and its sync to disk
//! (`group_commit`).

mod batch;
mod boards;
mod erasure;
mod group_commit;
#[cfg(test)]
mod group_commit_tests;
mod keys;
mod layout;
mod ledger;
mod opaque;
mod settle;
mod store;
pub mod stream;
mod stream_read;
mod txn;
mod views;

pub use batch::EmbeddedBatch;
pub use store::EmbeddedStore;
