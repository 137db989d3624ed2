//! The store the local binary runs on: embedded by default, DynamoDB when
//! `AWS_ENDPOINT_URL_DYNAMODB` is set (see `podium_service::config::local_store`).

use std::sync::Arc;

use podium_service::config::{self, LocalStore};
use podium_store::dynamo::DynamoStore;
use podium_store::embedded::EmbeddedStore;
use podium_store::{ErasureStore, Store};

use crate::error::CliError;

/// The configured store, with the embedded one by its own type (for what only it
/// offers, such as batches).
pub enum Opened {
    Embedded(Arc<EmbeddedStore>),
    Other(Arc<dyn Store>),
}

/// [`open`], keeping the embedded store's type.
pub async fn open_target(create: bool) -> Result<Opened, CliError> {
    match config::local_store() {
        LocalStore::Embedded(path) if create || path.exists() => {
            tracing::info!(path = %path.display(), "embedded store");
            Ok(Opened::Embedded(Arc::new(EmbeddedStore::open(&path)?)))
        }
        _ => Ok(Opened::Other(open(create).await?)),
    }
}

/// Every capability the local binary uses: the store's and erasing a player (GM-6).
pub trait Local: Store + ErasureStore {}
impl<T: Store + ErasureStore> Local for T {}

/// Opens the configured store for a command that acts on what is stored (an export,
/// a period close): an embedded store file that does not exist is refused, naming it,
/// rather than read as an empty store.
pub async fn open_existing() -> Result<Arc<dyn Local>, CliError> {
    if let LocalStore::Embedded(path) = config::local_store() {
        if !path.exists() {
            return Err(CliError::StoreUnreachable(format!(
                "no store at {}: nothing to act on (PODIUM_DATA names the store file; the \
                 demo's is podium-data/demo/podium.redb)",
                path.display()
            )));
        }
    }
    open(false).await
}

/// [`open`] with `create`, and the embedded store again by its own type when it is
/// one (its change stream feeds `podium serve`'s live feed).
pub async fn open_streamed() -> Result<(Arc<dyn Local>, Option<Arc<EmbeddedStore>>), CliError> {
    match config::local_store() {
        LocalStore::Embedded(path) => {
            tracing::info!(path = %path.display(), "embedded store");
            let store = Arc::new(EmbeddedStore::open(&path)?);
            Ok((store.clone(), Some(store)))
        }
        LocalStore::Dynamo { .. } => Ok((open(true).await?, None)),
    }
}

/// Opens the configured store; on DynamoDB, creates the table if it is missing and
/// `create` is set (a dry run reads only).
pub async fn open(create: bool) -> Result<Arc<dyn Local>, CliError> {
    match config::local_store() {
        LocalStore::Embedded(path) if !create && !path.exists() => {
            // A dry run with no data yet: an empty store, and no file left behind.
            Ok(Arc::new(EmbeddedStore::in_memory()?))
        }
        LocalStore::Embedded(path) => {
            tracing::info!(path = %path.display(), "embedded store");
            Ok(Arc::new(EmbeddedStore::open(&path)?))
        }
        LocalStore::Dynamo { endpoint, table } => {
            config::check_table_name(&table)?;
            tracing::info!(%endpoint, %table, "DynamoDB store");
            let timeouts = config::dynamodb_timeouts()?;
            let aws = podium_store::aws::local_sdk_config().await;
            let store = DynamoStore::from_sdk_config(&aws, table, &timeouts);
            if create {
                store
                    .ensure_table()
                    .await
                    .map_err(|e| CliError::unreachable(&endpoint, e))?;
            }
            Ok(Arc::new(store))
        }
    }
}
