//! podium's data access: the store traits ([`traits`]) and their two
//! implementations, DynamoDB ([`dynamo::DynamoStore`], production) and the embedded
//! in-process store ([`embedded::EmbeddedStore`], the local default).

pub mod aws;
pub mod commit;
pub mod dynamo;
pub mod embedded;
pub mod error;
pub mod model;
pub mod traits;

pub use commit::*;
pub use error::StoreError;
pub use model::*;
pub use traits::*;
