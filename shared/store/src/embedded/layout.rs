//! The layout of the items table ([`super::keys::ITEMS`]), recorded in the file, and
//! the upgrade of a file written in an earlier one.
//!
//! Layout 1 keyed an item by its kind first (`balance/{game}/{player}`,
//! `period/{board}@{period}/{player}`, `claim/{player}/…`, `state/{owner}/…`,
//! `ledger/{player}/…`, `ref/{player}/…`), so one settlement's items lay on as many of
//! the tree's pages as it had items, each rewritten by the transaction. Layout 2 keys
//! them by owner first (`p/{owner}/{letter}/…`), side by side; layout 3 also moves the
//! ledger by settlement from a table of its own (`ledger_by_time`,
//! `{player}\u{0}{index}`) under its player (`p/{player}/t/{index}`). Opening a file
//! of an earlier layout rewrites what moved in one write transaction (every such item
//! read and written once) and records this build's; a file of a later layout than this
//! build knows is refused, not read wrong.

use redb::{ReadableTable, TableHandle, WriteTransaction};

use crate::error::StoreError;

use super::keys::{owned, prefix_end, Owned, ITEMS, LEDGER_BY_TIME};

/// The items table's layout this build writes.
pub(crate) const LAYOUT: u64 = 3;

/// Where the file records its layout (no owner's key starts with `meta/`).
const LAYOUT_KEY: &str = "meta/layout";

/// Records [`LAYOUT`] in a new file, upgrades a file of an earlier layout (none
/// recorded: layout 1), refuses a later one. Returns how many items moved.
pub(crate) fn ensure(txn: &WriteTransaction) -> Result<u64, StoreError> {
    let recorded = {
        let items = txn.open_table(ITEMS)?;
        let value = items.get(LAYOUT_KEY)?;
        match value {
            Some(v) => <[u8; 8]>::try_from(v.value())
                .map(u64::from_be_bytes)
                .map_err(|_| StoreError::corrupt(LAYOUT_KEY, "not an 8-byte layout number"))?,
            None => 1,
        }
    };
    if recorded > LAYOUT {
        return Err(StoreError::Embedded(format!(
            "the store file has items table layout {recorded}, newer than this build's {LAYOUT}: \
             open it with a newer podium"
        )));
    }
    if recorded == LAYOUT {
        return Ok(0);
    }
    let mut moved = 0;
    if recorded < 2 {
        moved += owners_first(txn)?;
    }
    if recorded < 3 {
        moved += ledger_under_players(txn)?;
    }
    txn.open_table(ITEMS)?
        .insert(LAYOUT_KEY, LAYOUT.to_be_bytes().as_slice())?;
    Ok(moved)
}

/// Layout 1 to 2: every kind-first key rekeyed under its owner.
fn owners_first(txn: &WriteTransaction) -> Result<u64, StoreError> {
    let mut items = txn.open_table(ITEMS)?;
    let mut moved = 0;
    for (old, kind) in FIRST_LAYOUT {
        let keys: Vec<String> = items
            .range::<&str>(old..prefix_end(old).as_str())?
            .map(|entry| entry.map(|(k, _)| k.value().to_string()))
            .collect::<Result<_, _>>()?;
        for key in keys {
            let new = rekey(&key, old, kind)?;
            let value = items
                .remove(key.as_str())?
                .map(|v| v.value().to_vec())
                .unwrap_or_default();
            items.insert(new.as_str(), value.as_slice())?;
            moved += 1;
        }
    }
    Ok(moved)
}

/// Layout 2 to 3: the ledger by settlement moved from its own table under each player.
fn ledger_under_players(txn: &WriteTransaction) -> Result<u64, StoreError> {
    let exists = txn.list_tables()?.any(|t| t.name() == LEDGER_BY_TIME.name());
    if !exists {
        return Ok(0);
    }
    let entries: Vec<(String, Vec<u8>)> = {
        let by_time = txn.open_table(LEDGER_BY_TIME)?;
        let all = by_time
            .iter()?
            .map(|e| e.map(|(k, v)| (k.value().to_string(), v.value().to_vec())))
            .collect::<Result<_, _>>()?;
        all
    };
    let mut items = txn.open_table(ITEMS)?;
    for (key, value) in &entries {
        let (player, index) = key
            .split_once('\u{0}')
            .ok_or_else(|| StoreError::corrupt(key.as_str(), "not a layout-2 ledger key"))?;
        let new = owned(player, Owned::Time) + index;
        items.insert(new.as_str(), value.as_slice())?;
    }
    drop(items);
    txn.delete_table(LEDGER_BY_TIME)?;
    Ok(entries.len() as u64)
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

/// A layout-1 `key` under `old` as layout 2 keys it.
fn rekey(key: &str, old: &str, kind: Owned) -> Result<String, StoreError> {
    let rest = key.strip_prefix(old).unwrap_or(key);
    // Balances and period entries named the owner last, the others first.
    let split = match kind {
        Owned::Balance | Owned::Period => rest.rsplit_once('/').map(|(what, owner)| (owner, what)),
        _ => rest.split_once('/'),
    };
    match split {
        Some((owner, what)) if !owner.is_empty() && !what.is_empty() => {
            Ok(format!("{}{what}", owned(owner, kind)))
        }
        _ => Err(StoreError::corrupt(key, "not a layout-1 item key")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layout_1_key_is_moved_under_its_owner() {
        let cases = [
            ("balance/seega/p1", "balance/", Owned::Balance, "p/p1/b/seega"),
            (
                "period/mahjong-daily@2026-12-05/p1",
                "period/",
                Owned::Period,
                "p/p1/e/mahjong-daily@2026-12-05",
            ),
            (
                "claim/p1/seega/daily/2026-12-05",
                "claim/",
                Owned::Claim,
                "p/p1/c/seega/daily/2026-12-05",
            ),
            (
                "state/@mahjong-league:2026-W49:0:3/members",
                "state/",
                Owned::State,
                "p/@mahjong-league:2026-W49:0:3/s/members",
            ),
            (
                "ledger/p1/seega/match/m-1",
                "ledger/",
                Owned::Ledger,
                "p/p1/x/seega/match/m-1",
            ),
            ("ref/p1/00ff", "ref/", Owned::Ref, "p/p1/r/00ff"),
        ];
        for (key, old, kind, new) in cases {
            assert_eq!(rekey(key, old, kind).unwrap(), new, "{key}");
        }
        assert!(rekey("balance/seega", "balance/", Owned::Balance).is_err());
    }
}
