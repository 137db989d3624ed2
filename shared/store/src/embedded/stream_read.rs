//! Reading the embedded store's change stream ([`super::stream`]): where a reader
//! starts, and the changes after a number.

use redb::{ReadableDatabase, ReadableTable};

use super::store::EmbeddedStore;
use super::stream::{Record, STREAM};
use crate::error::StoreError;
use crate::stream::Change;

impl EmbeddedStore {
    /// The number of the last change in the stream (0: none yet): a reader that starts
    /// now reads after it (DynamoDB's `LATEST`).
    pub async fn stream_end(&self) -> Result<u64, StoreError> {
        self.blocking(|db| {
            let txn = db.begin_read()?;
            let table = match txn.open_table(STREAM) {
                Ok(t) => t,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
                Err(e) => return Err(e.into()),
            };
            let last = table.last()?.map_or(0, |(k, _)| k.value());
            Ok(last)
        })
        .await
    }

    /// Up to `limit` changes after number `after`, in commit order, each with its
    /// number. Changes removed past [`super::stream::RETENTION_MS`] (a day) are gone (a reader that far behind
    /// misses them, as a DynamoDB Streams reader would).
    pub async fn stream_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, Change)>, StoreError> {
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let table = match txn.open_table(STREAM) {
                Ok(t) => t,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(e) => return Err(e.into()),
            };
            let mut out = Vec::new();
            for r in table.range(after.saturating_add(1)..)?.take(limit) {
                let (k, v) = r?;
                let record: Record =
                    serde_json::from_slice(v.value()).map_err(|e| StoreError::corrupt("stream record", e))?;
                out.push((k.value(), record.change));
            }
            Ok(out)
        })
        .await
    }
}
