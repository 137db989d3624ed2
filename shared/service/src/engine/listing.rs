//! Every item of one small partition, decoded: the lists the jobs keep for operators
//! (refreshes under way, results left out, operators' actions), read by Queries of 100.

use podium_store::{ItemStore, SortKeyRange, StoreError};
use serde::de::DeserializeOwned;

use crate::error::ServiceError;

/// Every item of partition `pk` as a `T`, by sort key (strongly consistent Queries of
/// 100). Errors: the store's; an item that is not a `T` (corrupt, naming its key).
pub async fn all<S: ItemStore + ?Sized, T: DeserializeOwned>(
    store: &S,
    pk: &str,
) -> Result<Vec<T>, ServiceError> {
    Ok(with_versions(store, pk)
        .await?
        .into_iter()
        .map(|(t, _)| t)
        .collect())
}

/// [`all`], each item with its version (what a conditional write after conditions on).
pub async fn with_versions<S: ItemStore + ?Sized, T: DeserializeOwned>(
    store: &S,
    pk: &str,
) -> Result<Vec<(T, u64)>, ServiceError> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let range = after.clone().map_or(SortKeyRange::All, SortKeyRange::After);
        let items = store.query_items(pk, &range, true, 100, true).await?;
        let full = items.len() == 100;
        after = items.last().map(|(sk, _)| sk.clone());
        for (sk, item) in items {
            let value = serde_json::from_slice(&item.body)
                .map_err(|e| ServiceError::Store(StoreError::corrupt(format!("{pk}/{sk}"), e)))?;
            out.push((value, item.version));
        }
        if !full {
            return Ok(out);
        }
    }
}
