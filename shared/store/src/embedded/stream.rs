//! The embedded store's change stream ([`crate::stream`]): each change of a streamed
//! state item or streamed opaque item, written in the write transaction that made it
//! (so a change is in the stream exactly when it is committed, across processes), in
//! commit order, numbered from 1. Kept for a day, like DynamoDB Streams' 24 hours:
//! each append removes up to [`TRIM_PER_APPEND`] records older than that.

use redb::{ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};

use super::store::EmbeddedStore;
use crate::error::StoreError;
use crate::stream::Change;

/// Stream records by sequence number → [`Record`] (JSON).
pub(crate) const STREAM: TableDefinition<u64, &[u8]> = TableDefinition::new("stream");

/// How long a record is kept, in milliseconds (a day).
pub const RETENTION_MS: i64 = 24 * 60 * 60 * 1000;

/// Records older than [`RETENTION_MS`] removed by one append at most.
const TRIM_PER_APPEND: usize = 16;

#[derive(Serialize, Deserialize)]
struct Record {
    /// When it was written (wall clock, ms since the Unix epoch).
    at_ms: i64,
    change: Change,
}

fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Appends `change` to the stream inside `txn`.
pub(crate) fn append(txn: &WriteTransaction, change: Change) -> Result<(), StoreError> {
    let mut table = txn.open_table(STREAM)?;
    let next = table.last()?.map_or(1, |(k, _)| k.value() + 1);
    let now = wall_ms();
    let mut expired = Vec::new();
    for r in table.iter()?.take(TRIM_PER_APPEND) {
        let (k, v) = r?;
        let at = serde_json::from_slice::<Record>(v.value()).map_or(0, |r| r.at_ms);
        if at >= now - RETENTION_MS {
            break;
        }
        expired.push(k.value());
    }
    for k in expired {
        table.remove(k)?;
    }
    let record = serde_json::to_vec(&Record { at_ms: now, change })
        .map_err(|e| StoreError::corrupt("stream record", e))?;
    table.insert(next, record.as_slice())?;
    Ok(())
}

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
    /// number. Changes removed past [`RETENTION_MS`] are gone (a reader that far behind
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
