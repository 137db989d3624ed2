//! The layout of the items table ([`super::keys::ITEMS`]), recorded in the file, and
//! the upgrade of a file written in an earlier one.
//!
//! Layout 1 kept the items in a table named `items`, each keyed by its kind first
//! (`balance/{game}/{player}`, `period/{board}@{period}/{player}`, `claim/{player}/…`,
//! `state/{owner}/…`, `ledger/{player}/…`, `ref/{player}/…`), and the ledger by
//! settlement in a table of its own (`ledger_by_time`, `{player}\u{0}{index}`), so one
//! settlement's items lay on as many of the tree's pages as it had items. Layouts 2
//! and 3 (never released) keyed them by owner first in the same table, then moved the
//! ledger by settlement under its player. Layout 4 keeps them, owner first, in a table
//! named `owned_items`, and leaves under the name `items` an empty table of another
//! type: a podium built before layout 4 fails to open the file (its first act opens
//! `items` as it knew it) instead of reading it as empty and writing beside it.
//! Layout 5 stores balances and period entries compactly
//! ([`super::keys::encode_entry`]), so a build of layout 4 refuses the file; a file of
//! layout 4 needs nothing moved (its JSON entries are read as they are and rewritten
//! compactly when next written).
//!
//! Opening a file of an earlier layout copies every item into `owned_items`, rekeyed,
//! in one write transaction (a crash leaves the file as it was; the next open starts
//! again), logs what it moved and how long it took, and records the layout. The file
//! grows by about the items' size meanwhile. A file of a later layout than this build
//! knows is refused, not read wrong.

use std::time::Instant;

use redb::{ReadableTable, TableDefinition, TableHandle, WriteTransaction};

use crate::error::StoreError;

use super::keys::{owned, Owned, ITEMS, LEDGER_BY_TIME};

/// The items table's layout this build writes.
pub(crate) const LAYOUT: u64 = 5;

/// Where the file records its layout (no owner's key starts with `meta/`).
const LAYOUT_KEY: &str = "meta/layout";

/// The items table of layouts 1 to 3, read only to upgrade a file.
const EARLIER_ITEMS: TableDefinition<&str, &[u8]> = TableDefinition::new("items");

/// What layout 4 leaves under the earlier table's name: empty, of a type no earlier
/// build opens.
const REFUSES_EARLIER_BUILDS: TableDefinition<u64, u64> = TableDefinition::new("items");

fn layout_number(raw: &[u8]) -> Result<u64, StoreError> {
    <[u8; 8]>::try_from(raw)
        .map(u64::from_be_bytes)
        .map_err(|_| StoreError::corrupt(LAYOUT_KEY, "not an 8-byte layout number"))
}

/// Records [`LAYOUT`] in a new file, upgrades a file of an earlier layout, refuses a
/// later one. Returns how many items moved.
pub(crate) fn ensure(txn: &WriteTransaction) -> Result<u64, StoreError> {
    let earlier = txn.list_tables()?.any(|t| t.name() == EARLIER_ITEMS.name());
    let earlier_layout = if earlier {
        match txn.open_table(EARLIER_ITEMS) {
            Ok(items) => Some(match items.get(LAYOUT_KEY)? {
                Some(v) => layout_number(v.value())?,
                None => 1,
            }),
            // The table left to refuse earlier builds.
            Err(redb::TableError::TableTypeMismatch { .. }) => None,
            Err(e) => return Err(e.into()),
        }
    } else {
        None
    };
    let recorded = match txn.open_table(ITEMS)?.get(LAYOUT_KEY)? {
        Some(v) => Some(layout_number(v.value())?),
        None => None,
    };
    if let Some(later) = recorded.filter(|n| *n > LAYOUT) {
        return Err(StoreError::Embedded(format!(
            "the store file has items table layout {later}, newer than this build's {LAYOUT}: \
             open it with a newer podium"
        )));
    }
    let moved = match earlier_layout {
        Some(from) if from > 3 => {
            return Err(StoreError::Embedded(format!(
                "the store file's `items` table records layout {from}, which no podium wrote"
            )))
        }
        Some(from) => {
            tracing::warn!(
                from,
                to = LAYOUT,
                "upgrading the embedded store's items: one write transaction (about a minute \
                 for a million items in a debug build), the file growing by about their size"
            );
            let began = Instant::now();
            let moved = upgrade(txn, from)?;
            tracing::info!(
                from,
                to = LAYOUT,
                items = moved,
                elapsed_ms = began.elapsed().as_millis() as u64,
                "upgraded the embedded store's items"
            );
            moved
        }
        None => 0,
    };
    if !earlier || earlier_layout.is_some() {
        txn.open_table(REFUSES_EARLIER_BUILDS)?;
    }
    if recorded != Some(LAYOUT) {
        txn.open_table(ITEMS)?
            .insert(LAYOUT_KEY, LAYOUT.to_be_bytes().as_slice())?;
    }
    Ok(moved)
}

/// Copies every item of a file of layout `from` (1 to 3) into [`ITEMS`] as layout 4
/// keys it, the ledger by settlement too, and deletes the earlier tables.
fn upgrade(txn: &WriteTransaction, from: u64) -> Result<u64, StoreError> {
    let mut moved = move_table(txn, EARLIER_ITEMS, |key| {
        Ok(match key {
            LAYOUT_KEY => None,
            _ if from < 2 => Some(rekey_first(key)?),
            _ => Some(key.to_string()),
        })
    })?;
    if from < 3 {
        // Layouts 1 and 2: `{player}\u{0}{index}` in a table of its own.
        moved += move_table(txn, LEDGER_BY_TIME, |key| match key.split_once('\u{0}') {
            Some((player, index)) => Ok(Some(owned(player, Owned::Time) + index)),
            None => Err(StoreError::corrupt(
                key,
                "not a ledger-by-settlement key of layout 1 or 2, so the file cannot be upgraded",
            )),
        })?;
    }
    Ok(moved)
}

/// Copies every item of `table` (if the file has it) into [`ITEMS`] under the key
/// `rekey` gives it (none: left out), then deletes `table`. Returns how many moved.
fn move_table(
    txn: &WriteTransaction,
    table: TableDefinition<&str, &[u8]>,
    rekey: impl Fn(&str) -> Result<Option<String>, StoreError>,
) -> Result<u64, StoreError> {
    if !txn.list_tables()?.any(|t| t.name() == table.name()) {
        return Ok(0);
    }
    let mut moved = 0;
    {
        let earlier = txn.open_table(table)?;
        let mut items = txn.open_table(ITEMS)?;
        for entry in earlier.iter()? {
            let (k, v) = entry?;
            if let Some(new) = rekey(k.value())? {
                items.insert(new.as_str(), v.value())?;
                moved += 1;
            }
        }
    }
    txn.delete_table(table)?;
    Ok(moved)
}

/// The kind-first prefixes of layout 1 and the kind each holds.
const FIRST_LAYOUT: [(&str, Owned); 6] = [
    ("balance/", Owned::Balance),
    ("period/", Owned::Period),
    ("claim/", Owned::Claim),
    ("state/", Owned::State),
    ("ledger/", Owned::Ledger),
    ("ref/", Owned::Ref),
];

/// A layout-1 key as later layouts key it: an item of an owned kind under its owner,
/// any other (a source record) as it was.
fn rekey_first(key: &str) -> Result<String, StoreError> {
    let Some((rest, kind)) = FIRST_LAYOUT
        .iter()
        .find_map(|(old, kind)| Some((key.strip_prefix(old)?, *kind)))
    else {
        return Ok(key.to_string());
    };
    // Balances and period entries named the owner last, the others first.
    let split = match kind {
        Owned::Balance | Owned::Period => rest.rsplit_once('/').map(|(what, owner)| (owner, what)),
        _ => rest.split_once('/'),
    };
    match split {
        Some((owner, what)) if !owner.is_empty() && !what.is_empty() => {
            Ok(format!("{}{what}", owned(owner, kind)))
        }
        _ => Err(StoreError::corrupt(
            key,
            "not an item key of layout 1, so the file cannot be upgraded",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layout_1_key_is_moved_under_its_owner() {
        let cases = [
            ("balance/seega/p1", "p/p1/b/seega"),
            (
                "period/mahjong-daily@2026-12-05/p1",
                "p/p1/e/mahjong-daily@2026-12-05",
            ),
            ("claim/p1/seega/daily/2026-12-05", "p/p1/c/seega/daily/2026-12-05"),
            (
                "state/@mahjong-league:2026-W49:0:3/members",
                "p/@mahjong-league:2026-W49:0:3/s/members",
            ),
            ("ledger/p1/seega/match/m-1", "p/p1/x/seega/match/m-1"),
            ("ref/p1/00ff", "p/p1/r/00ff"),
        ];
        for (key, new) in cases {
            assert_eq!(rekey_first(key).unwrap(), new, "{key}");
        }
        assert!(rekey_first("balance/seega").is_err());
        assert_eq!(rekey_first("source/match/m-1").unwrap(), "source/match/m-1");
    }
}
