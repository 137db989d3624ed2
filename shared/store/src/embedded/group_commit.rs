//! Group commit for the embedded store: writes that arrive while a write transaction
//! is being made durable wait, then go together into the next one, so many
//! settlements, and the item writes of jobs and requests beside them, share one redb
//! transaction and one sync to disk (redb writes one transaction at a time: a write
//! in a transaction of its own would hold every settlement behind its sync).
//!
//! Each write is checked and written in arrival order inside the shared transaction,
//! so it sees every earlier write of its batch exactly as if they had run one after
//! another: a write whose condition fails writes nothing and the others go on. Its
//! outcome is answered only after the transaction is durable. If the shared
//! transaction fails, nothing of it was written, and each of its writes is run again
//! in a transaction of its own: a write that fails (a corrupt item, a full disk)
//! gets its error alone.

use std::sync::{Arc, Mutex};

use redb::{Database, ReadableTable};
use tokio::sync::oneshot;

use super::keys::{read_blob, BLOBS};
use super::views::Views;
use crate::commit::{Commit, CommitOutcome};
use crate::error::StoreError;

/// Checks and writes one commit inside a transaction (writing nothing unless it
/// answers `Committed`).
pub type Apply = fn(&redb::WriteTransaction, &Commit) -> Result<CommitOutcome, StoreError>;

/// An item write ([`crate::ItemStore`]) on the blobs table, keys and bodies encoded.
#[derive(Debug, Clone)]
pub(crate) enum ItemWrite {
    /// Every `(key, stored, expected version)` written if every version holds, else none.
    PutIf(Vec<(String, Vec<u8>, u64)>),
    /// Written whatever is stored.
    Put(Vec<(String, Vec<u8>)>),
    /// Deleted if its stored version is the one given.
    DeleteIf(String, u64),
    /// Deleted, those that exist.
    Delete(Vec<String>),
}

impl ItemWrite {
    /// Applies the write inside `txn`; whether it wrote (its condition held).
    fn apply(&self, txn: &redb::WriteTransaction) -> Result<bool, StoreError> {
        let mut blobs = txn.open_table(BLOBS)?;
        let version = |blobs: &redb::Table<&str, &[u8]>, key: &str| -> Result<Option<u64>, StoreError> {
            Ok(blobs.get(key)?.map(|v| read_blob(v.value()).version))
        };
        Ok(match self {
            ItemWrite::PutIf(writes) => {
                for (key, _, expected) in writes {
                    if version(&blobs, key)?.unwrap_or(0) != *expected {
                        return Ok(false);
                    }
                }
                for (key, raw, _) in writes {
                    put(txn, &mut blobs, key, raw)?;
                }
                true
            }
            ItemWrite::Put(items) => {
                for (key, raw) in items {
                    put(txn, &mut blobs, key, raw)?;
                }
                !items.is_empty()
            }
            ItemWrite::DeleteIf(key, expected) => {
                if version(&blobs, key)? != Some(*expected) {
                    return Ok(false);
                }
                blobs.remove(key.as_str())?;
                true
            }
            ItemWrite::Delete(keys) => {
                let mut any = false;
                for key in keys {
                    any |= blobs.remove(key.as_str())?.is_some();
                }
                any
            }
        })
    }
}

/// Writes `raw` (version and body) under the blob `key`, and a streamed item's
/// change to the stream ([`crate::stream::streamed_item`]).
fn put(
    txn: &redb::WriteTransaction,
    blobs: &mut redb::Table<&str, &[u8]>,
    key: &str,
    raw: &[u8],
) -> Result<(), StoreError> {
    let streamed = key
        .split_once('\u{0}')
        .filter(|(pk, sk)| crate::stream::streamed_item(pk, sk));
    let old = match streamed {
        Some(_) => blobs.get(key)?.map(|v| read_blob(v.value()).body),
        None => None,
    };
    blobs.insert(key, raw)?;
    if let Some((pk, sk)) = streamed {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let change = crate::stream::Change::Item(crate::stream::ItemImages {
            pk: pk.to_string(),
            sk: sk.to_string(),
            old_body: old.as_deref().map(text),
            new_body: Some(text(&read_blob(raw).body)),
        });
        super::stream::append(txn, change)?;
    }
    Ok(())
}

/// One write waiting for a transaction.
enum Job {
    Commit(Box<Commit>, Apply),
    Items(ItemWrite),
}

/// What a write answers: a commit's outcome, or whether an item write wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Done {
    Commit(CommitOutcome),
    Items(bool),
}

impl Done {
    fn wrote(&self) -> bool {
        matches!(self, Done::Commit(CommitOutcome::Committed) | Done::Items(true))
    }
}

impl Job {
    fn apply(&self, txn: &redb::WriteTransaction) -> Result<Done, StoreError> {
        match self {
            Job::Commit(commit, apply) => apply(txn, commit).map(Done::Commit),
            Job::Items(write) => write.apply(txn).map(Done::Items),
        }
    }
}

/// Writes one transaction takes at most: bounds the wait of the last one.
pub const MAX_BATCH: usize = 256;

type Reply = oneshot::Sender<Result<Done, StoreError>>;

#[derive(Default)]
struct Queue {
    waiting: Vec<(Job, Reply)>,
    /// A blocking thread is draining the queue.
    leader: bool,
}

/// The queue of writes waiting for the next write transaction. Cheap to clone.
#[derive(Clone)]
pub struct GroupCommit {
    queue: Arc<Mutex<Queue>>,
    /// Writes one transaction takes at most ([`MAX_BATCH`], or 1 to measure the worst case).
    max_batch: usize,
    /// Told when each batch's write transaction ends, before any of its commits is answered.
    views: Views,
}

impl Default for GroupCommit {
    /// A queue of [`MAX_BATCH`] writes a transaction, ending a view of its own.
    fn default() -> Self {
        Self::new(Views::default())
    }
}

impl GroupCommit {
    /// A queue whose batches end `views`' shared view.
    pub(crate) fn new(views: Views) -> Self {
        Self::with_max_batch(views, MAX_BATCH)
    }

    /// A queue whose transactions take at most `max_batch` writes (at least 1).
    pub(crate) fn with_max_batch(views: Views, max_batch: usize) -> Self {
        GroupCommit {
            queue: Arc::default(),
            max_batch: max_batch.max(1),
            views,
        }
    }

    /// Commits `commit` with whichever other writes are waiting, answering once the
    /// transaction that holds it is durable. `apply` checks and writes one commit
    /// inside the transaction (writing nothing unless it answers `Committed`).
    pub async fn commit(
        &self,
        db: Arc<Database>,
        commit: Commit,
        apply: Apply,
    ) -> Result<CommitOutcome, StoreError> {
        match self.run(db, Job::Commit(Box::new(commit), apply)).await? {
            Done::Commit(outcome) => Ok(outcome),
            Done::Items(_) => Err(StoreError::Embedded("a commit answered as an item write".into())),
        }
    }

    /// Writes `write` with whichever others are waiting, answering once the
    /// transaction that holds it is durable: whether it wrote (its condition held).
    pub(crate) async fn items(&self, db: Arc<Database>, write: ItemWrite) -> Result<bool, StoreError> {
        match self.run(db, Job::Items(write)).await? {
            Done::Items(wrote) => Ok(wrote),
            Done::Commit(_) => Err(StoreError::Embedded("an item write answered as a commit".into())),
        }
    }

    async fn run(&self, db: Arc<Database>, job: Job) -> Result<Done, StoreError> {
        let (tx, rx) = oneshot::channel();
        let lead = {
            let mut q = self
                .queue
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            q.waiting.push((job, tx));
            !std::mem::replace(&mut q.leader, true)
        };
        if lead {
            let (queue, views, max) = (Arc::clone(&self.queue), self.views.clone(), self.max_batch);
            tokio::task::spawn_blocking(move || drain(&queue, &db, &views, max));
        }
        rx.await
            .map_err(|_| StoreError::Embedded("the write's transaction was dropped".into()))?
    }
}

/// Takes batches off the queue until it is empty, each in one write transaction.
fn drain(queue: &Mutex<Queue>, db: &Database, views: &Views, max_batch: usize) {
    /// Hands leadership back if a batch panics, so later commits are not left waiting.
    struct Guard<'a>(&'a Mutex<Queue>);
    impl Drop for Guard<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                let mut q = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                q.leader = false;
                q.waiting.clear();
            }
        }
    }
    let _guard = Guard(queue);
    loop {
        let batch: Vec<(Job, Reply)> = {
            let mut q = queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if q.waiting.is_empty() {
                q.leader = false;
                return;
            }
            let take = q.waiting.len().min(max_batch);
            q.waiting.drain(..take).collect()
        };
        let ran = run_batch(db, &batch);
        views.write_ended();
        match ran {
            Ok(outcomes) => {
                for ((_, reply), outcome) in batch.into_iter().zip(outcomes) {
                    let _ = reply.send(Ok(outcome));
                }
            }
            Err(e) if batch.len() == 1 => {
                if let Some((_, reply)) = batch.into_iter().next() {
                    let _ = reply.send(Err(e));
                }
            }
            Err(_) => {
                // Nothing of the batch was written: each write goes again in its own
                // transaction, so one that fails (a corrupt item, a full disk) fails
                // alone and the others are unaffected.
                for one in batch {
                    let single = [one];
                    let ran = run_batch(db, &single);
                    views.write_ended();
                    let outcome = ran.and_then(|mut o| {
                        o.pop()
                            .ok_or_else(|| StoreError::Embedded("a write without an outcome".into()))
                    });
                    let [(_, reply)] = single;
                    let _ = reply.send(outcome);
                }
            }
        }
    }
}

fn run_batch(db: &Database, batch: &[(Job, Reply)]) -> Result<Vec<Done>, StoreError> {
    let txn = db.begin_write()?;
    let mut outcomes = Vec::with_capacity(batch.len());
    for (job, _) in batch {
        outcomes.push(job.apply(&txn)?);
    }
    if outcomes.iter().any(Done::wrote) {
        txn.commit()?;
    } else {
        txn.abort()?;
    }
    Ok(outcomes)
}
