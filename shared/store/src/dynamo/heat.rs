//! Partition heat (LB-7): for every request the DynamoDB store sends, the partition
//! key of each item and each GSI entry it reads or writes and the capacity units that
//! cost, by DynamoDB's published pricing, summed per labelled second.
//!
//! DynamoDB serves each partition at most 1,000 write units and 3,000 read units a
//! second, on the table and on each GSI alike; all items of one partition key live in
//! one partition. LB-7 asks that a peak of 2,000 scored matches a second keeps every
//! partition key under half of that. [`Heat`] is an SDK interceptor on the store's
//! client ([`DynamoStore::recording_heat`]): it reads each request's input before it
//! is sent and its output after, so no call site of the store knows of it.
//!
//! Units, by the published pricing (the same sizes as [`super::pricing`]):
//! - a standard write (PutItem, UpdateItem, DeleteItem, each item of a
//!   BatchWriteItem): 1 write unit per KB of the item (rounded up); in a
//!   TransactWriteItems every item 2 per KB, a condition check counted as a write of
//!   2 (the conservative reading of the transaction pricing);
//! - each GSI entry a put adds: 1 write unit per KB of the entry (2 when the put
//!   replaces a versioned item, whose index key moves: a delete and a put), on the
//!   partition of the entry's index key; an update that sets an index's partition key
//!   attribute writes that index's entry likewise;
//! - a read: per 4 KB (rounded up) of what it returns, half a unit eventually
//!   consistent, one strongly consistent; a Query by the summed size of its items, a
//!   GetItem or BatchGetItem key by its item (half a unit at least, found or not).
//!
//! An UpdateItem's size is its key and values (a lower bound: DynamoDB bills the
//! larger of the item before and after); a DeleteItem's GSI entries are not known
//! from its input and are not counted. What a second is, is the caller's choice
//! ([`Heat::set_second`]): a load run labels the wall clock's seconds, a trace labels
//! the second its records would be sent in at a given rate.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::operation::batch_get_item::{BatchGetItemInput, BatchGetItemOutput};
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
use aws_sdk_dynamodb::operation::get_item::{GetItemInput, GetItemOutput};
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::query::{QueryInput, QueryOutput};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::context::{
    BeforeSerializationInterceptorContextRef, FinalizerInterceptorContextRef,
};
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::{ConfigBag, Storable, StoreReplace};

use super::items::Item;
use super::pricing::{index_entries, item_size, kb, value_size, INDEXES};
use super::store::DynamoStore;

/// The table's own partitions, as [`Hot::place`] names them.
pub const TABLE: &str = "table";

/// DynamoDB's write units a second per partition.
pub const PARTITION_WRITE_UNITS: u64 = 1_000;
/// DynamoDB's read units a second per partition.
pub const PARTITION_READ_UNITS: u64 = 3_000;

/// Units of one partition key in one second, in thousandths of a unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Cell {
    read_milli: u64,
    write_milli: u64,
}

/// One partition key's load in one second: `place` is [`TABLE`] or a GSI's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hot {
    /// The labelled second ([`Heat::set_second`]).
    pub second: u64,
    /// [`TABLE`] or the GSI's name.
    pub place: String,
    /// The partition key's value (`PLAYER#p-0001`, `seega@all#07`, …).
    pub key: String,
    /// Read units × 1000 in that second.
    pub read_milli: u64,
    /// Write units × 1000 in that second.
    pub write_milli: u64,
}

/// The record of a run's partition heat (see the module's documentation). Shared by
/// the interceptor and the caller through an `Arc`.
#[derive(Debug, Default)]
pub struct Heat {
    second: AtomicU64,
    cells: Mutex<HashMap<(u64, String, String), Cell>>,
}

impl Heat {
    /// An empty record, at second 0.
    pub fn new() -> Arc<Heat> {
        Arc::new(Heat::default())
    }

    /// Requests sent from now on count in second `second` (until the next call).
    pub fn set_second(&self, second: u64) {
        self.second.store(second, Ordering::Relaxed);
    }

    fn add(&self, place: &str, key: String, read_milli: u64, write_milli: u64) {
        let second = self.second.load(Ordering::Relaxed);
        let mut cells = self.cells.lock().unwrap_or_else(|e| e.into_inner());
        let cell = cells.entry((second, place.to_string(), key)).or_default();
        cell.read_milli += read_milli;
        cell.write_milli += write_milli;
    }

    /// Every (second, place, partition key) with its units, busiest writes first.
    pub fn all(&self) -> Vec<Hot> {
        let cells = self.cells.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<Hot> = cells
            .iter()
            .map(|((second, place, key), c)| Hot {
                second: *second,
                place: place.clone(),
                key: key.clone(),
                read_milli: c.read_milli,
                write_milli: c.write_milli,
            })
            .collect();
        out.sort_by(|a, b| {
            (b.write_milli, b.read_milli, &a.place, &a.key).cmp(&(
                a.write_milli,
                a.read_milli,
                &b.place,
                &b.key,
            ))
        });
        out
    }

    /// Per place ([`TABLE`] and each GSI that was touched), the `n` busiest partition
    /// keys of any second by write units and the `n` by read units.
    pub fn busiest(&self, n: usize) -> Vec<(String, Vec<Hot>, Vec<Hot>)> {
        let all = self.all();
        let mut places: Vec<String> = all.iter().map(|h| h.place.clone()).collect();
        places.sort();
        places.dedup();
        places
            .into_iter()
            .map(|place| {
                let mut here: Vec<Hot> = all.iter().filter(|h| h.place == place).cloned().collect();
                let writes: Vec<Hot> = here.iter().take(n).cloned().collect();
                here.sort_by(|a, b| (b.read_milli, &a.key).cmp(&(a.read_milli, &b.key)));
                let reads: Vec<Hot> = here.into_iter().take(n).collect();
                (place, writes, reads)
            })
            .collect()
    }

    /// Forgets everything recorded (the second stays).
    pub fn clear(&self) {
        self.cells.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// What a request will cost, worked out from its input before it is sent; its reads
/// are completed from its output.
#[derive(Debug, Clone, Default)]
struct Pending {
    /// (place, partition key, write units × 1000).
    writes: Vec<(String, String, u64)>,
    /// A read request: the place, its partition key (a Query's, a GetItem's) and
    /// whether it is strongly consistent.
    read: Option<(String, Option<String>, bool)>,
    /// A BatchGetItem's keys: (partition key, sort key).
    batch: Vec<(String, String)>,
}

impl Storable for Pending {
    type Storer = StoreReplace<Self>;
}

/// The interceptor that fills a [`Heat`].
#[derive(Debug, Clone)]
struct Recorder(Arc<Heat>);

/// Read units × 1000 of `bytes` read at once.
fn read_milli(bytes: usize, consistent: bool) -> u64 {
    let units = bytes.div_ceil(4096).max(1) as u64;
    if consistent {
        units * 1000
    } else {
        units * 500
    }
}

fn text(v: Option<&AttributeValue>) -> Option<String> {
    match v? {
        AttributeValue::S(s) => Some(s.clone()),
        AttributeValue::N(n) => Some(n.clone()),
        AttributeValue::B(b) => Some(format!("{:?}", b.as_ref())),
        _ => None,
    }
}

fn pk_of(item: &HashMap<String, AttributeValue>) -> String {
    text(item.get("pk")).unwrap_or_else(|| "(no pk)".into())
}

/// The writes of an item put (`per_kb` units a KB on the table) and its GSI entries.
fn put_writes(item: &Item, per_kb: u64, replaces: bool, out: &mut Vec<(String, String, u64)>) {
    out.push((TABLE.into(), pk_of(item), per_kb * kb(item_size(item)) * 1000));
    for (index, hash, entry) in index_entries(item) {
        let Some(key) = text(item.get(hash)) else {
            continue;
        };
        let writes = if replaces { 2 } else { 1 };
        out.push((index.into(), key, writes * kb(entry) * 1000));
    }
}

/// The writes of an update (`per_kb` units a KB on the table) and of the GSI entries
/// whose partition key attribute its `SET` names.
fn update_writes(
    key: Option<&Item>,
    expression: Option<&str>,
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
    per_kb: u64,
    out: &mut Vec<(String, String, u64)>,
) {
    let key_size: usize = key
        .map(|k| k.iter().map(|(n, v)| n.len() + value_size(v)).sum())
        .unwrap_or(0);
    let values_size: usize = values.map(|m| m.values().map(value_size).sum()).unwrap_or(0);
    let pk = key.map(pk_of).unwrap_or_else(|| "(no pk)".into());
    out.push((TABLE.into(), pk, per_kb * kb(key_size + values_size) * 1000));
    let Some(expression) = expression else {
        return;
    };
    // `SET a = :x, #b = :y`: each assignment's attribute and value.
    for part in expression.split(',') {
        let Some((lhs, rhs)) = part.split_once('=') else {
            continue;
        };
        let lhs = lhs.trim().trim_start_matches("SET ").trim();
        let attribute = names.and_then(|n| n.get(lhs)).map(String::as_str).unwrap_or(lhs);
        let Some(value) = values.and_then(|v| v.get(rhs.trim())) else {
            continue;
        };
        for (index, [hash, _], _) in INDEXES {
            if attribute == hash && hash != "pk" {
                if let Some(k) = text(Some(value)) {
                    out.push((index.into(), k, 2 * 1000));
                }
            }
        }
    }
}

/// The partition key a Query's key condition names: the value of `attr = :v`.
fn query_key(input: &QueryInput) -> Option<String> {
    let condition = input.key_condition_expression()?;
    let first = condition.split(" AND ").next()?;
    let (_, value) = first.split_once('=')?;
    text(input.expression_attribute_values()?.get(value.trim()))
}

impl Recorder {
    fn pending(input: &aws_smithy_runtime_api::client::interceptors::context::Input) -> Option<Pending> {
        let mut p = Pending::default();
        if let Some(i) = input.downcast_ref::<PutItemInput>() {
            let item = i.item()?;
            let replaces = i.condition_expression().is_some_and(|e| e.contains("version ="));
            put_writes(item, 1, replaces, &mut p.writes);
        } else if let Some(i) = input.downcast_ref::<UpdateItemInput>() {
            update_writes(
                i.key(),
                i.update_expression(),
                i.expression_attribute_names(),
                i.expression_attribute_values(),
                1,
                &mut p.writes,
            );
        } else if let Some(i) = input.downcast_ref::<DeleteItemInput>() {
            let size: usize = i
                .key()
                .map(|k| k.iter().map(|(n, v)| n.len() + value_size(v)).sum())
                .unwrap_or(0);
            p.writes.push((
                TABLE.into(),
                i.key().map(pk_of).unwrap_or_default(),
                kb(size) * 1000,
            ));
        } else if let Some(i) = input.downcast_ref::<BatchWriteItemInput>() {
            for request in i.request_items().into_iter().flat_map(|m| m.values()).flatten() {
                if let Some(put) = request.put_request() {
                    put_writes(put.item(), 1, false, &mut p.writes);
                } else if let Some(delete) = request.delete_request() {
                    p.writes.push((TABLE.into(), pk_of(delete.key()), 1000));
                }
            }
        } else if let Some(i) = input.downcast_ref::<TransactWriteItemsInput>() {
            for item in i.transact_items() {
                if let Some(put) = item.put() {
                    let replaces = put
                        .condition_expression()
                        .is_some_and(|e| e.contains("version ="));
                    put_writes(put.item(), 2, replaces, &mut p.writes);
                } else if let Some(u) = item.update() {
                    update_writes(
                        Some(u.key()),
                        Some(u.update_expression()),
                        u.expression_attribute_names(),
                        u.expression_attribute_values(),
                        2,
                        &mut p.writes,
                    );
                } else if let Some(d) = item.delete() {
                    p.writes.push((TABLE.into(), pk_of(d.key()), 2000));
                } else if let Some(c) = item.condition_check() {
                    p.writes.push((TABLE.into(), pk_of(c.key()), 2000));
                }
            }
        } else if let Some(i) = input.downcast_ref::<GetItemInput>() {
            p.read = Some((
                TABLE.into(),
                i.key().map(pk_of),
                i.consistent_read().unwrap_or(false),
            ));
        } else if let Some(i) = input.downcast_ref::<QueryInput>() {
            p.read = Some((
                i.index_name().unwrap_or(TABLE).to_string(),
                query_key(i),
                i.consistent_read().unwrap_or(false),
            ));
        } else if let Some(i) = input.downcast_ref::<BatchGetItemInput>() {
            let consistent = i
                .request_items()
                .into_iter()
                .flat_map(|m| m.values())
                .any(|k| k.consistent_read().unwrap_or(false));
            p.batch = i
                .request_items()
                .into_iter()
                .flat_map(|m| m.values())
                .flat_map(|k| k.keys())
                .map(|k| (pk_of(k), text(k.get("sk")).unwrap_or_default()))
                .collect();
            p.read = Some((TABLE.into(), None, consistent));
        } else {
            return None;
        }
        Some(p)
    }
}

impl Intercept for Recorder {
    fn name(&self) -> &'static str {
        "PartitionHeat"
    }

    fn read_before_execution(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Some(p) = Recorder::pending(context.input()) {
            cfg.interceptor_state().store_put(p);
        }
        Ok(())
    }

    fn read_after_execution(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(p) = cfg.load::<Pending>().cloned() else {
            return Ok(());
        };
        let Some(Ok(output)) = context.output_or_error() else {
            // A refused request (a failed condition, a cancelled transaction) is
            // counted as its table writes all the same (the conservative reading);
            // it wrote no GSI entry; a failed read is not counted.
            for (place, key, milli) in p.writes {
                if place == TABLE {
                    self.0.add(&place, key, 0, milli);
                }
            }
            return Ok(());
        };
        for (place, key, milli) in p.writes {
            self.0.add(&place, key, 0, milli);
        }
        let Some((place, key, consistent)) = p.read else {
            return Ok(());
        };
        if let Some(o) = output.downcast_ref::<GetItemOutput>() {
            let size = o.item().map(item_size).unwrap_or(0);
            self.0
                .add(&place, key.unwrap_or_default(), read_milli(size, consistent), 0);
        } else if let Some(o) = output.downcast_ref::<QueryOutput>() {
            let size: usize = o.items().iter().map(item_size).sum();
            self.0
                .add(&place, key.unwrap_or_default(), read_milli(size, consistent), 0);
        } else if let Some(o) = output.downcast_ref::<BatchGetItemOutput>() {
            // Every key is billed: by its item's size, or as the least read when absent.
            let found: HashMap<(String, String), usize> = o
                .responses()
                .into_iter()
                .flat_map(|m| m.values())
                .flatten()
                .map(|item| {
                    (
                        (pk_of(item), text(item.get("sk")).unwrap_or_default()),
                        item_size(item),
                    )
                })
                .collect();
            for key in p.batch {
                let size = found.get(&key).copied().unwrap_or(0);
                self.0.add(TABLE, key.0, read_milli(size, consistent), 0);
            }
        }
        Ok(())
    }
}

impl DynamoStore {
    /// This store with every request's partition heat recorded into `heat` (load runs
    /// and the LB-7 test; see [`Heat`]). Clones made from the result record too.
    pub fn recording_heat(&self, heat: Arc<Heat>) -> DynamoStore {
        let config = self
            .client
            .config()
            .to_builder()
            .interceptor(Recorder(heat))
            .build();
        DynamoStore {
            client: aws_sdk_dynamodb::Client::from_conf(config),
            table: self.table.clone(),
            usage: self.usage.clone(),
            kept: self.kept.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    /// LB-7's units: a transactional put of a balance listed on a board is 2 write
    /// units on its player's partition and, its key moved, 2 on its board shard.
    #[test]
    fn a_put_writes_its_partition_and_its_board_shard() {
        let item: Item = HashMap::from([
            ("pk".to_string(), s("PLAYER#p-1")),
            ("sk".to_string(), s("BALANCE#seega")),
            ("board_shard".to_string(), s("seega@all#07")),
            ("board_key".to_string(), s("k")),
        ]);
        let mut out = Vec::new();
        put_writes(&item, 2, true, &mut out);
        assert_eq!(
            out,
            [
                (TABLE.to_string(), "PLAYER#p-1".to_string(), 2000),
                ("board".to_string(), "seega@all#07".to_string(), 2000),
            ]
        );
    }

    /// An update's `SET` of an index's partition key attribute writes that index's entry.
    #[test]
    fn an_update_setting_a_carried_ledger_key_writes_its_index() {
        let key: Item = HashMap::from([
            ("pk".to_string(), s("SOURCE#m#1")),
            ("sk".to_string(), s("RESULT")),
        ]);
        let names = HashMap::from([("#p".to_string(), "la_pk".to_string())]);
        let values = HashMap::from([(":new".to_string(), s("PLAYER#deleted-x"))]);
        let mut out = Vec::new();
        update_writes(
            Some(&key),
            Some("SET #p = :new"),
            Some(&names),
            Some(&values),
            1,
            &mut out,
        );
        assert_eq!(out[0], (TABLE.to_string(), "SOURCE#m#1".to_string(), 1000));
        assert_eq!(
            out[1],
            ("ledger_a".to_string(), "PLAYER#deleted-x".to_string(), 2000)
        );
    }

    /// Reads: half a unit per 4 KB eventually consistent, one strongly, half at least.
    #[test]
    fn reads_are_billed_per_4_kb() {
        assert_eq!(read_milli(0, false), 500);
        assert_eq!(read_milli(4096, true), 1000);
        assert_eq!(read_milli(4097, false), 1000);
    }
}
