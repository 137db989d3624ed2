//! podium's data access: the store traits ([`traits`]) and their two
//! implementations, DynamoDB ([`dynamo::DynamoStore`], production) and the embedded
//! in-process store ([`embedded::EmbeddedStore`], the local default).

pub mod aws;
pub mod commit;
pub mod dynamo;
pub mod embedded;
pub mod error;
pub mod model;
pub mod stream;
pub mod traits;

pub use commit::*;
pub use error::StoreError;
pub use model::*;
pub use traits::*;

/// How long a DynamoDB store keeps an item settlements read ([`SettleStore::settle_item`]):
/// a change of a game's board definitions reaches every scoring process within it.
pub const SETTLE_ITEM_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(10);
