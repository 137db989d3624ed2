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
        fields: None,
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

/// Item writes go through the same queue as commits: 20 conditional puts of one new
/// item at once (version 0: only if absent) and 20 settlements beside them, sharing
/// transactions; exactly one put writes, every settlement is durable, and the item
/// holds the winner's body at version 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item_writes_share_the_commits_transactions_and_keep_their_conditions() {
    use crate::model::ItemKey;
    use crate::traits::ItemStore;
    let store = EmbeddedStore::in_memory().expect("store");
    let key = ItemKey::new("RACE", "one");
    let puts = (0..20).map(|i| {
        let (store, key) = (store.clone(), key.clone());
        tokio::spawn(async move { (i, store.put_item_if(&key, format!("{i}").as_bytes(), 0).await) })
    });
    let commits = (0..20).map(|i| {
        let (group, db, c) = (
            store.commits.clone(),
            Arc::clone(&store.db),
            commit(&format!("c-{i}")),
        );
        tokio::spawn(async move { group.commit(db, c, commit_in).await })
    });
    let (puts, commits) = futures::future::join(
        futures::future::join_all(puts),
        futures::future::join_all(commits),
    )
    .await;
    let winners: Vec<usize> = puts
        .into_iter()
        .map(|r| r.expect("task"))
        .filter_map(|(i, wrote)| wrote.expect("put").then_some(i))
        .collect();
    assert_eq!(winners.len(), 1, "{winners:?}");
    for c in commits {
        assert_eq!(c.expect("task").expect("commit"), CommitOutcome::Committed);
    }
    let item = store.get_item(&key, true).await.expect("read").expect("written");
    assert_eq!(
        (item.version, item.body),
        (1, format!("{}", winners[0]).into_bytes())
    );
    assert!(
        !store.delete_item_if(&key, 2).await.expect("delete"),
        "not at version 2"
    );
    assert!(store.delete_item_if(&key, 1).await.expect("delete"));
    assert!(store.get_item(&key, true).await.expect("read").is_none());
}
