//! The embedded store's change stream ([`crate::stream`]): each change of a streamed
//! state item or streamed opaque item, written in the write transaction that made it
//! (so a change is in the stream exactly when it is committed, across processes), in
//! commit order, numbered from 1. Kept for a day, like DynamoDB Streams' 24 hours:
//! each append removes up to [`TRIM_PER_APPEND`] records older than that.

use redb::{ReadableTable, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::stream::Change;

/// Stream records by sequence number → [`Record`] (JSON).
pub(crate) const STREAM: TableDefinition<u64, &[u8]> = TableDefinition::new("stream");

/// How long a record is kept, in milliseconds (a day).
pub const RETENTION_MS: i64 = 24 * 60 * 60 * 1000;

/// Records older than [`RETENTION_MS`] removed by one append at most.
const TRIM_PER_APPEND: usize = 16;

#[derive(Serialize, Deserialize)]
pub(crate) struct Record {
    /// When it was written (wall clock, ms since the Unix epoch).
    pub(crate) at_ms: i64,
    pub(crate) change: Change,
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
