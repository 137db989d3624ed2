//! What a commit's transaction costs by DynamoDB's published on-demand pricing, item
//! by item: a transaction's write of an item is 2 write request units per KB (rounded
//! up) of the item; each GSI entry the write adds is a standard write, 1 unit per KB
//! of the index entry (its keys, the table's keys, the projected attributes and 100
//! bytes); an entry whose index key moves is a delete and a put, 2 writes. A condition
//! check writes nothing and is listed apart (`units` 0, `checks` 1): whether it is
//! billed as a transaction item is stated beside the total, not folded into it.
//!
//! DynamoDB Local reports more (2 units an index write); the figures here follow the
//! item sizes of the items actually sent.

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};

use super::items::Item;
use super::items::{CARRIED_LEDGER, LEDGER_INDEX};
use crate::commit::{Commit, Role};

/// One line of a commit's price: what was written, its size, its units. Made for
/// every committed transaction, so it holds no text of its own ([`PricedWrite::what`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PricedWrite {
    /// The commit item it belongs to (`source record`, `balance`, …).
    pub item: &'static str,
    /// What was written for it.
    pub write: Write,
    /// The item's (or index entry's) size in bytes, as DynamoDB counts it.
    pub bytes: usize,
    /// Write request units by the published pricing.
    pub units: u64,
    /// Condition checks on this line (each writes nothing).
    pub checks: u64,
}

/// What a [`PricedWrite`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// A transaction's put of the item.
    Put,
    /// A transaction's update of the item.
    Update,
    /// A transaction's condition check on the item.
    Check,
    /// The item's entry in a GSI; `moved` when its key moved (a delete and a put).
    Index { index: &'static str, moved: bool },
}

impl PricedWrite {
    /// The line as a reader says it: `balance: transactional put`, `board GSI entry of
    /// the balance (key moved: delete and put)`, …
    pub fn what(&self) -> String {
        let item = self.item;
        match self.write {
            Write::Put => format!("{item}: transactional put"),
            Write::Update => format!("{item}: transactional update"),
            Write::Check => format!("{item}: condition check"),
            Write::Index { index, moved } => format!(
                "{index} GSI entry of the {item}{}",
                if moved { " (key moved: delete and put)" } else { "" }
            ),
        }
    }
}

/// DynamoDB's size of an attribute value in bytes (strings and binaries their length,
/// numbers about one byte a two digits plus one, maps and lists 3 bytes plus their
/// elements).
pub(crate) fn value_size(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => n.trim_start_matches('-').len().div_ceil(2) + 1,
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::M(m) => 3 + m.iter().map(|(k, v)| k.len() + value_size(v) + 1).sum::<usize>(),
        AttributeValue::L(l) => 3 + l.iter().map(|v| value_size(v) + 1).sum::<usize>(),
        _ => 0,
    }
}

/// DynamoDB's size of an item: every attribute's name and value.
pub(crate) fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

pub(crate) fn kb(bytes: usize) -> u64 {
    bytes.div_ceil(1024).max(1) as u64
}

/// The GSIs an item is listed in: (index, its key attributes, its projected one).
pub(crate) const INDEXES: [(&str, [&str; 2], Option<&str>); 4] = [
    ("board", ["board_shard", "board_key"], None),
    (LEDGER_INDEX, ["pk", "ledger_at"], Some("entry")),
    (
        CARRIED_LEDGER[0].index,
        [CARRIED_LEDGER[0].pk, CARRIED_LEDGER[0].at],
        Some(CARRIED_LEDGER[0].entry),
    ),
    (
        CARRIED_LEDGER[1].index,
        [CARRIED_LEDGER[1].pk, CARRIED_LEDGER[1].at],
        Some(CARRIED_LEDGER[1].entry),
    ),
];

/// The GSI entries a put of `body` adds: (index, its partition key attribute, the
/// entry's size in bytes: its keys, the table's keys, the projected attribute and
/// 100 bytes), for each index whose key attributes `body` has.
pub(crate) fn index_entries(body: &Item) -> Vec<(&'static str, &'static str, usize)> {
    let base: usize = ["pk", "sk"]
        .iter()
        .filter_map(|k| body.get(*k).map(|v| k.len() + value_size(v)))
        .sum();
    INDEXES
        .iter()
        .filter(|(_, keys, _)| keys.iter().all(|k| body.contains_key(*k)))
        .map(|(index, keys, projected)| {
            let entry = base
                + keys
                    .iter()
                    .chain(projected.iter())
                    .filter(|k| **k != "pk")
                    .filter_map(|k| body.get(*k).map(|v| k.len() + value_size(v)))
                    .sum::<usize>()
                + 100;
            (*index, keys[0], entry)
        })
        .collect()
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Source => "source record",
        Role::Claim => "claim",
        Role::Balance => "balance",
        Role::Entry => "period entry",
        Role::State => "state",
        Role::Ledger => "ledger item",
        Role::Mark => "change mark",
        Role::Reference => "reference",
        Role::Guard(_) => "guard (deletion or suspension)",
    }
}

/// The price of `c` sent as `items` (in the commit's order, the carried ledger entries
/// left out when `carried`), item by item, then each GSI entry the items add.
pub(crate) fn price(c: &Commit, items: &[TransactWriteItem], carried: bool) -> Vec<PricedWrite> {
    let mut out = Vec::new();
    let mut index_lines = Vec::new();
    let ledger_at = c.ledger_start();
    for (i, item) in items.iter().enumerate() {
        // The commit's index of this transaction item.
        let at = if carried && i >= ledger_at {
            i + c.ledger.len()
        } else {
            i
        };
        let role = role_name(c.role(at));
        if let Some(put) = item.put() {
            let body = put.item();
            let bytes = item_size(body);
            out.push(PricedWrite {
                item: role,
                write: Write::Put,
                bytes,
                units: 2 * kb(bytes),
                checks: 0,
            });
            // A versioned replacement moves its index keys (a delete and a put); a
            // create adds one entry.
            let replaces = put
                .condition_expression()
                .is_some_and(|e| e.contains("version ="));
            for (index, _, entry) in index_entries(body) {
                let writes = if replaces { 2 } else { 1 };
                index_lines.push(PricedWrite {
                    item: role,
                    write: Write::Index {
                        index,
                        moved: replaces,
                    },
                    bytes: entry,
                    units: writes * kb(entry),
                    checks: 0,
                });
            }
        } else if let Some(update) = item.update() {
            let bytes: usize = update
                .key()
                .iter()
                .map(|(k, v)| k.len() + value_size(v))
                .sum::<usize>()
                + update
                    .expression_attribute_values()
                    .map(|m| m.values().map(value_size).sum::<usize>())
                    .unwrap_or(0);
            out.push(PricedWrite {
                item: role,
                write: Write::Update,
                bytes,
                units: 2 * kb(bytes),
                checks: 0,
            });
        } else if item.condition_check().is_some() {
            out.push(PricedWrite {
                item: role,
                write: Write::Check,
                bytes: 0,
                units: 0,
                checks: 1,
            });
        }
    }
    out.extend(index_lines);
    out
}
