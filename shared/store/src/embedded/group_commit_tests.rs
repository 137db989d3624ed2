//! The group commit under concurrent settlements, on an in-memory store.

use super::group_commit::*;
use super::store::EmbeddedStore;
use super::txn::commit_in;
use crate::commit::{Commit, CommitOutcome, SourceKey};
use crate::error::StoreError;
use crate::traits::SourceStore;
use std::sync::Arc;

fn commit(id: &str) -> Commit {
    Commit {
        source: SourceKey::new("match", id),
        content_hash: "h".into(),
        attempt: "a".into(),
        plan: 0,
        result: "{}".into(),
        claims: Vec::new(),
        balances: Vec::new(),
        entries: Vec::new(),
        states: Vec::new(),
        marks: Vec::new(),
        ledger: Vec::new(),
        refs: Vec::new(),
        named: Vec::new(),
    }
}

/// Writes like [`commit_in`], but fails (after writing) for the source `bad`.
fn failing_for_bad(txn: &redb::WriteTransaction, c: &Commit) -> Result<CommitOutcome, StoreError> {
    let outcome = commit_in(txn, c)?;
    if c.source.id == "bad" {
        return Err(StoreError::Embedded("disk full".into()));
    }
    Ok(outcome)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failing_commit_fails_alone_and_the_others_of_its_batch_are_durable() {
    let store = EmbeddedStore::in_memory().expect("store");
    let group = GroupCommit::default();
    let ids: Vec<String> = (0..40)
        .map(|i| {
            if i == 20 {
                "bad".to_string()
            } else {
                format!("m-{i}")
            }
        })
        .collect();
    let calls = ids.iter().map(|id| {
        let (group, db, c) = (group.clone(), Arc::clone(&store.db), commit(id));
        tokio::spawn(async move { group.commit(db, c, failing_for_bad).await })
    });
    let outcomes = futures::future::join_all(calls).await;
    for (id, outcome) in ids.iter().zip(outcomes) {
        let outcome = outcome.expect("task");
        let stored = store
            .get_source(&SourceKey::new("match", id))
            .await
            .expect("read");
        if id == "bad" {
            assert!(outcome.is_err(), "{outcome:?}");
            assert!(stored.is_none(), "the failed commit wrote nothing");
        } else {
            assert_eq!(outcome.expect("committed"), CommitOutcome::Committed, "{id}");
            assert!(stored.is_some(), "{id} is durable");
        }
    }
    // The same id again is caught by its condition, inside a group as alone.
    let again = group
        .commit(Arc::clone(&store.db), commit("m-1"), commit_in)
        .await
        .expect("outcome");
    assert_eq!(again, CommitOutcome::SourceExists);
}
