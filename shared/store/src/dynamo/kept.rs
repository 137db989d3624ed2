//! Items every settlement reads and that rarely change (a game's board definitions in
//! force, BD-12), kept by this process for at most [`crate::SETTLE_ITEM_MAX_AGE`]:
//! without it every scored match would read the same item, one partition key taking
//! the whole scoring rate (LB-7). A write of the item through this store forgets it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use crate::model::{Item, ItemKey};

/// The copies kept, by key, with when each was read.
#[derive(Default)]
pub(crate) struct Kept(Mutex<HashMap<ItemKey, (Instant, Option<Item>)>>);

impl Kept {
    /// The copy of `key` read less than [`crate::SETTLE_ITEM_MAX_AGE`] ago (`Some(None)`:
    /// known absent), if any.
    pub(crate) fn fresh(&self, key: &ItemKey) -> Option<Option<Item>> {
        let kept = self.0.lock().ok()?;
        let (at, item) = kept.get(key)?;
        (at.elapsed() < crate::SETTLE_ITEM_MAX_AGE).then(|| item.clone())
    }

    /// Keeps `item` as `key`'s copy read now (`read_at`: when the read was sent, so a
    /// copy is never taken as newer than it is).
    pub(crate) fn keep(&self, key: &ItemKey, read_at: Instant, item: Option<Item>) {
        if let Ok(mut kept) = self.0.lock() {
            kept.insert(key.clone(), (read_at, item));
        }
    }

    /// Forgets the copies of `keys` (written through this store).
    pub(crate) fn forget<'a>(&self, keys: impl IntoIterator<Item = &'a ItemKey>) {
        if let Ok(mut kept) = self.0.lock() {
            if kept.is_empty() {
                return;
            }
            for k in keys {
                kept.remove(k);
            }
        }
    }
}
