//! Opaque items (snapshots, follows, run states): conditional puts and deletes,
//! range reads.

use async_trait::async_trait;
use redb::ReadableDatabase;

use crate::error::StoreError;
use crate::model::{check_item, check_item_writes, check_key, Item, ItemKey, SortKeyRange};
use crate::traits::ItemStore;

use super::group_commit::ItemWrite;
use super::keys::*;
use super::store::EmbeddedStore;

/// The most items a range read takes in place, without a blocking thread.
const IN_PLACE_ITEMS: usize = 128;

#[async_trait]
impl ItemStore for EmbeddedStore {
    fn scope(&self) -> u64 {
        self.scope
    }

    async fn get_item(&self, key: &ItemKey, _consistent: bool) -> Result<Option<Item>, StoreError> {
        check_key(&key.pk, &key.sk)?;
        // A point read runs in place (see `settle.rs`): no hand-off to a blocking
        // thread, on the view point reads share (`views.rs`).
        let view = self.views.view(&self.db)?;
        let found = view.blobs.get(blob_key(key).as_str())?;
        Ok(found.map(|v| read_blob(v.value())))
    }

    /// The one-item case of [`ItemStore::put_items_if`].
    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError> {
        self.put_items_if(&[(key.clone(), body.to_vec(), expected)]).await
    }

    /// Every stored version checked, then all written, or none, inside the group
    /// commit's shared write transaction.
    async fn put_items_if(&self, writes: &[(ItemKey, Vec<u8>, u64)]) -> Result<bool, StoreError> {
        check_item_writes(writes)?;
        let writes: Vec<(String, Vec<u8>, u64)> = writes
            .iter()
            .map(|(k, body, expected)| (blob_key(k), blob(expected + 1, body), *expected))
            .collect();
        self.write(ItemWrite::PutIf(writes)).await
    }

    async fn put_items(
        &self,
        items: &[(ItemKey, Vec<u8>)],
        _expires_at: Option<i64>,
    ) -> Result<(), StoreError> {
        for (k, body) in items {
            check_item(k, body)?;
        }
        let items: Vec<(String, Vec<u8>)> = items.iter().map(|(k, b)| (blob_key(k), blob(1, b))).collect();
        self.write(ItemWrite::Put(items)).await.map(drop)
    }

    async fn query_items(
        &self,
        pk: &str,
        range: &SortKeyRange,
        forward: bool,
        limit: usize,
        _consistent: bool,
    ) -> Result<Vec<(String, Item)>, StoreError> {
        check_key(pk, range.bound().unwrap_or("-"))?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let prefix = format!("{pk}\u{0}");
        let end = format!("{pk}\u{1}");
        let full = |sk: &str| format!("{prefix}{sk}");
        use std::ops::Bound::{Excluded, Included};
        let (lo, hi) = match range {
            SortKeyRange::All => (Included(prefix.clone()), Excluded(end)),
            SortKeyRange::Before(sk) => (Included(prefix.clone()), Excluded(full(sk))),
            SortKeyRange::AtOrBefore(sk) => (Included(prefix.clone()), Included(full(sk))),
            SortKeyRange::After(sk) => (Excluded(full(sk)), Excluded(end)),
            SortKeyRange::AtOrAfter(sk) => (Included(full(sk)), Excluded(end)),
        };
        let read = move |db: &redb::Database| {
            let txn = db.begin_read()?;
            let blobs = txn.open_table(BLOBS)?;
            let bounds = (lo.as_ref().map(String::as_str), hi.as_ref().map(String::as_str));
            let range = blobs.range::<&str>(bounds)?;
            let mut out = Vec::new();
            let mut push = |entry: Result<
                (redb::AccessGuard<'_, &str>, redb::AccessGuard<'_, &[u8]>),
                redb::StorageError,
            >|
             -> Result<bool, StoreError> {
                let (k, v) = entry?;
                let sk = k.value()[prefix.len()..].to_string();
                out.push((sk, read_blob(v.value())));
                Ok(out.len() < limit)
            };
            if forward {
                for entry in range {
                    if !push(entry)? {
                        break;
                    }
                }
            } else {
                for entry in range.rev() {
                    if !push(entry)? {
                        break;
                    }
                }
            }
            Ok(out)
        };
        // A few items (a directory chunk, a page of follows) are read in place like a
        // point read; longer ranges run on a blocking thread.
        if limit <= IN_PLACE_ITEMS {
            read(&self.db)
        } else {
            self.blocking(read).await
        }
    }

    async fn delete_item_if(&self, key: &ItemKey, expected: u64) -> Result<bool, StoreError> {
        check_key(&key.pk, &key.sk)?;
        self.write(ItemWrite::DeleteIf(blob_key(key), expected)).await
    }

    async fn delete_items(&self, keys: &[ItemKey]) -> Result<(), StoreError> {
        for k in keys {
            check_key(&k.pk, &k.sk)?;
        }
        self.write(ItemWrite::Delete(keys.iter().map(blob_key).collect()))
            .await
            .map(drop)
    }
}

impl EmbeddedStore {
    /// `write` through the group commit (`group_commit.rs`): in the next shared write
    /// transaction, answered once durable; whether it wrote.
    async fn write(&self, write: ItemWrite) -> Result<bool, StoreError> {
        if matches!(&write, ItemWrite::Put(v) if v.is_empty())
            || matches!(&write, ItemWrite::Delete(v) if v.is_empty())
        {
            return Ok(false);
        }
        self.commits.items(std::sync::Arc::clone(&self.db), write).await
    }
}
