//! Point reads share one read transaction for up to [`SHARED_FOR`], until this
//! process writes.
//!
//! The database is opened so that other `podium` processes may write the same file
//! (redb's `MultiWriter`), so each read transaction locks and reads the file's header
//! to find the latest commit: a cost paid per transaction, not per item read. Point
//! reads (a caller's account, a live entry, a snapshot's pointer) are many and small,
//! so they share a *view*: the tables of one read transaction, kept for at most
//! [`SHARED_FOR`] and dropped the moment any write transaction of this process ends
//! (committed or not), before the writer's caller hears of it.
//!
//! What a reader can see: every write of this process that ended before the read
//! began, as with a fresh transaction; another process's commit at most
//! [`SHARED_FOR`] after it (the reader may be handed a view begun up to then).
//! A conditional write is never decided on a view: it checks its conditions in its
//! own write transaction, and a failed one ends a write transaction, so the retry
//! reads afresh.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redb::{Database, ReadOnlyTable, ReadableDatabase};

use crate::error::StoreError;

use super::keys::{BLOBS, ITEMS};

/// How long point reads may share one read transaction (1 ms).
pub(crate) const SHARED_FOR: Duration = Duration::from_millis(1);

/// The tables of one read transaction (each keeps the transaction's snapshot alive).
pub(crate) struct View {
    /// The `items` table: balances, entries, sources, states, claims.
    pub(crate) items: ReadOnlyTable<&'static str, &'static [u8]>,
    /// The `blobs` table: opaque items (snapshots, tombstones, run states).
    pub(crate) blobs: ReadOnlyTable<&'static str, &'static [u8]>,
}

/// The view point reads share, and the count of write transactions this process
/// has ended. Cheap to clone; clones share both.
#[derive(Clone, Default)]
pub(crate) struct Views {
    ended: Arc<AtomicU64>,
    recent: Arc<Mutex<Option<Recent>>>,
}

/// A shared view: begun at `at`, after `ended` write transactions had ended.
struct Recent {
    ended: u64,
    at: Instant,
    view: Arc<View>,
}

impl Views {
    /// A view no older than [`SHARED_FOR`] that began after every write transaction
    /// this process has ended; a new one (one read transaction) when there is none.
    pub(crate) fn view(&self, db: &Database) -> Result<Arc<View>, StoreError> {
        // Read before the transaction begins: a write ending meanwhile makes this
        // view unshareable, never a stale one shareable.
        let ended = self.ended.load(Ordering::SeqCst);
        if let Some(r) = self.recent().as_ref() {
            if r.ended == ended && r.at.elapsed() < SHARED_FOR {
                return Ok(Arc::clone(&r.view));
            }
        }
        let at = Instant::now();
        let txn = db.begin_read()?;
        let view = Arc::new(View {
            items: txn.open_table(ITEMS)?,
            blobs: txn.open_table(BLOBS)?,
        });
        *self.recent() = Some(Recent {
            ended,
            at,
            view: Arc::clone(&view),
        });
        Ok(view)
    }

    /// A write transaction of this process has ended (committed or aborted): no read
    /// begun from now on is answered from an earlier view.
    pub(crate) fn write_ended(&self) {
        self.ended.fetch_add(1, Ordering::SeqCst);
        *self.recent() = None;
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, Option<Recent>> {
        self.recent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::backends::InMemoryBackend;

    fn db() -> Database {
        let db = Database::builder()
            .create_with_backend(InMemoryBackend::new())
            .expect("db");
        let txn = db.begin_write().expect("write");
        txn.open_table(ITEMS).expect("items");
        txn.open_table(BLOBS).expect("blobs");
        txn.commit().expect("commit");
        db
    }

    fn put(db: &Database, views: &Views, key: &str, value: &[u8]) {
        let txn = db.begin_write().expect("write");
        txn.open_table(ITEMS)
            .expect("items")
            .insert(key, value)
            .expect("insert");
        txn.commit().expect("commit");
        views.write_ended();
    }

    fn get(views: &Views, db: &Database, key: &str) -> Option<Vec<u8>> {
        let view = views.view(db).expect("view");
        view.items.get(key).expect("get").map(|v| v.value().to_vec())
    }

    /// A write this process ended is seen by the very next read, however recent the
    /// shared view was.
    #[test]
    fn a_read_after_a_write_sees_it() {
        let (db, views) = (db(), Views::default());
        assert_eq!(get(&views, &db, "a"), None);
        put(&db, &views, "a", b"1");
        assert_eq!(get(&views, &db, "a").as_deref(), Some(&b"1"[..]));
        put(&db, &views, "a", b"2");
        assert_eq!(get(&views, &db, "a").as_deref(), Some(&b"2"[..]));
    }

    /// Reads within the sharing window share one transaction; a write that did not
    /// go through `write_ended` (another process's) shows once the window has passed.
    #[test]
    fn reads_share_a_view_until_it_is_older_than_the_window() {
        let (db, views) = (db(), Views::default());
        assert_eq!(get(&views, &db, "b"), None);
        // "Another process" writes: this process's views are not told.
        let txn = db.begin_write().expect("write");
        txn.open_table(ITEMS)
            .expect("items")
            .insert("b", &b"x"[..])
            .expect("insert");
        txn.commit().expect("commit");
        std::thread::sleep(SHARED_FOR * 2);
        assert_eq!(get(&views, &db, "b").as_deref(), Some(&b"x"[..]));
    }
}
