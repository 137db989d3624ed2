//! Group commit for the embedded store: commits that arrive while a write
//! transaction is being made durable wait, then go together into the next one, so
//! many settlements share one redb transaction and one sync to disk.
//!
//! Each commit is checked and written in arrival order inside the shared transaction,
//! so it sees every earlier commit of its batch exactly as if they had run one after
//! another: a commit whose condition fails writes nothing and the others go on. Its
//! outcome is answered only after the transaction is durable. If the shared
//! transaction fails, nothing of it was written, and each of its commits is run again
//! in a transaction of its own: a commit that fails (a corrupt item, a full disk)
//! gets its error alone.

use std::sync::{Arc, Mutex};

use redb::Database;
use tokio::sync::oneshot;

use super::views::Views;
use crate::commit::{Commit, CommitOutcome};
use crate::error::StoreError;

/// Commits one write transaction takes at most: bounds the wait of the last one.
pub const MAX_BATCH: usize = 256;

type Reply = oneshot::Sender<Result<CommitOutcome, StoreError>>;

#[derive(Default)]
struct Queue {
    waiting: Vec<(Commit, Reply)>,
    /// A blocking thread is draining the queue.
    leader: bool,
}

/// The queue of commits waiting for the next write transaction. Cheap to clone.
#[derive(Clone, Default)]
pub struct GroupCommit {
    queue: Arc<Mutex<Queue>>,
    /// Told when each batch's write transaction ends, before any of its commits is answered.
    views: Views,
}

impl GroupCommit {
    /// A queue whose batches end `views`' shared view.
    pub(crate) fn new(views: Views) -> Self {
        GroupCommit {
            queue: Arc::default(),
            views,
        }
    }

    /// Commits `commit` with whichever others are waiting, answering once the
    /// transaction that holds it is durable. `apply` checks and writes one commit
    /// inside the transaction (writing nothing unless it answers `Committed`).
    pub async fn commit(
        &self,
        db: Arc<Database>,
        commit: Commit,
        apply: fn(&redb::WriteTransaction, &Commit) -> Result<CommitOutcome, StoreError>,
    ) -> Result<CommitOutcome, StoreError> {
        let (tx, rx) = oneshot::channel();
        let lead = {
            let mut q = self
                .queue
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            q.waiting.push((commit, tx));
            !std::mem::replace(&mut q.leader, true)
        };
        if lead {
            let (queue, views) = (Arc::clone(&self.queue), self.views.clone());
            tokio::task::spawn_blocking(move || drain(&queue, &db, &views, apply));
        }
        rx.await
            .map_err(|_| StoreError::Embedded("the commit's write transaction was dropped".into()))?
    }
}

/// Takes batches off the queue until it is empty, each in one write transaction.
fn drain(
    queue: &Mutex<Queue>,
    db: &Database,
    views: &Views,
    apply: fn(&redb::WriteTransaction, &Commit) -> Result<CommitOutcome, StoreError>,
) {
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
        let batch: Vec<(Commit, Reply)> = {
            let mut q = queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if q.waiting.is_empty() {
                q.leader = false;
                return;
            }
            let take = q.waiting.len().min(MAX_BATCH);
            q.waiting.drain(..take).collect()
        };
        let ran = run_batch(db, &batch, apply);
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
                // Nothing of the batch was written: each commit goes again in its own
                // transaction, so one that fails (a corrupt item, a full disk) fails
                // alone and the others are unaffected.
                for one in batch {
                    let single = [one];
                    let ran = run_batch(db, &single, apply);
                    views.write_ended();
                    let outcome = ran.and_then(|mut o| {
                        o.pop()
                            .ok_or_else(|| StoreError::Embedded("a commit without an outcome".into()))
                    });
                    let [(_, reply)] = single;
                    let _ = reply.send(outcome);
                }
            }
        }
    }
}

fn run_batch(
    db: &Database,
    batch: &[(Commit, Reply)],
    apply: fn(&redb::WriteTransaction, &Commit) -> Result<CommitOutcome, StoreError>,
) -> Result<Vec<CommitOutcome>, StoreError> {
    let txn = db.begin_write()?;
    let mut outcomes = Vec::with_capacity(batch.len());
    for (commit, _) in batch {
        outcomes.push(apply(&txn, commit)?);
    }
    if outcomes.contains(&CommitOutcome::Committed) {
        txn.commit()?;
    } else {
        txn.abort()?;
    }
    Ok(outcomes)
}
