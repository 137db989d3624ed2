//! Opaque items (snapshots, follows, run states): conditional puts and deletes,
//! batched reads and writes, Queries by sort-key range.

use async_trait::async_trait;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, DeleteRequest, Put, PutRequest, ReturnConsumedCapacity, TransactWriteItem, WriteRequest,
};

use super::store::*;
use super::{errors, items};

use super::items::{get_b, get_n, get_s, n, s};
use crate::error::StoreError;
use crate::model::{check_item, check_item_writes, check_key, Item, ItemKey, SortKeyRange};
use crate::traits::ItemStore;

fn decode_item(pk: &str, sk: &str, item: &items::Item) -> Result<Item, StoreError> {
    let body = get_b(item, "body").map_err(|_| StoreError::corrupt(format!("{pk}/{sk}"), "missing body"))?;
    Ok(Item {
        body: body.to_vec(),
        version: get_n(item, "version")?,
    })
}

#[async_trait]
impl ItemStore for DynamoStore {
    fn scope(&self) -> u64 {
        // FNV-1a of the table's name: stable, and the same for every copy of the store.
        self.table.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    async fn get_item(&self, key: &ItemKey, consistent: bool) -> Result<Option<Item>, StoreError> {
        let Some(item) = self.get_raw(key.pk.clone(), key.sk.clone(), consistent).await? else {
            return Ok(None);
        };
        decode_item(&key.pk, &key.sk, &item).map(Some)
    }

    /// One BatchGetItem per [`BATCH_GET_MAX`] keys (a single key: one GetItem),
    /// sending unprocessed keys again with a growing pause.
    async fn get_items(&self, keys: &[ItemKey], consistent: bool) -> Result<Vec<Option<Item>>, StoreError> {
        if keys.len() <= 1 {
            let mut out = Vec::with_capacity(keys.len());
            for k in keys {
                out.push(self.get_item(k, consistent).await?);
            }
            return Ok(out);
        }
        let mut wanted: Vec<items::Item> = Vec::with_capacity(keys.len());
        let mut seen = std::collections::HashSet::new();
        for k in keys {
            check_key(&k.pk, &k.sk)?;
            if seen.insert((k.pk.as_str(), k.sk.as_str())) {
                wanted.push(items::Item::from([
                    ("pk".to_string(), s(&k.pk)),
                    ("sk".to_string(), s(&k.sk)),
                ]));
            }
        }
        let mut found: std::collections::HashMap<(String, String), Item> = Default::default();
        for item in self.batch_get_raw(wanted, consistent).await? {
            let pk = get_s(&item, "pk")?.to_string();
            let sk = get_s(&item, "sk")?.to_string();
            let decoded = decode_item(&pk, &sk, &item)?;
            found.insert((pk, sk), decoded);
        }
        Ok(keys
            .iter()
            .map(|k| found.get(&(k.pk.clone(), k.sk.clone())).cloned())
            .collect())
    }

    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError> {
        check_item(key, body)?;
        self.kept.forget([key]);
        let put = self
            .client
            .put_item()
            .table_name(&self.table)
            .item("pk", s(&key.pk))
            .item("sk", s(&key.sk))
            .item("body", AttributeValue::B(body.to_vec().into()))
            .item("version", n(expected + 1))
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let put = if expected == 0 {
            put.condition_expression("attribute_not_exists(pk)")
        } else {
            put.condition_expression("version = :v")
                .expression_attribute_values(":v", n(expected))
        };
        self.conditional(
            "PutItem",
            put.send().await,
            |o| o.consumed_capacity(),
            |e| matches!(e, PutItemError::ConditionalCheckFailedException(_)),
        )
    }

    /// One `TransactWriteItems` of conditional puts (one `PutItem` for one item). A
    /// cancellation with a failed condition is `Ok(false)`; one for a conflicting
    /// transaction or throttling is [`StoreError::Unavailable`] (nothing written;
    /// retry); any other reason a defect ([`StoreError::Rejected`]).
    async fn put_items_if(&self, writes: &[(ItemKey, Vec<u8>, u64)]) -> Result<bool, StoreError> {
        check_item_writes(writes)?;
        self.kept.forget(writes.iter().map(|(k, _, _)| k));
        match writes {
            [] => return Ok(true),
            [(key, body, expected)] => return self.put_item_if(key, body, *expected).await,
            _ => {}
        }
        let mut items = Vec::with_capacity(writes.len());
        for (key, body, expected) in writes {
            let put = Put::builder()
                .table_name(&self.table)
                .item("pk", s(&key.pk))
                .item("sk", s(&key.sk))
                .item("body", AttributeValue::B(body.clone().into()))
                .item("version", n(expected + 1));
            let put = if *expected == 0 {
                put.condition_expression("attribute_not_exists(pk)")
            } else {
                put.condition_expression("version = :v")
                    .expression_attribute_values(":v", n(*expected))
            };
            let put = put.build().map_err(|e| errors::build("TransactWriteItems", e))?;
            items.push(TransactWriteItem::builder().put(put).build());
        }
        // No ClientRequestToken of ours: the SDK makes one per call (its own retries
        // reuse it), so a later call with the same items is never taken for this one.
        let out = self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match out {
            Ok(out) => {
                self.usage.record_write(out.consumed_capacity());
                Ok(true)
            }
            Err(SdkError::ServiceError(e)) => match e.err() {
                TransactWriteItemsError::TransactionCanceledException(t) => {
                    self.usage.record_write(None);
                    let codes: Vec<&str> = t
                        .cancellation_reasons()
                        .iter()
                        .map(|r| r.code().unwrap_or("None"))
                        .collect();
                    cancelled_puts(&codes)
                }
                _ => Err(self.fail("TransactWriteItems", SdkError::ServiceError(e))),
            },
            Err(e) => Err(self.fail("TransactWriteItems", e)),
        }
    }

    async fn query_items(
        &self,
        pk: &str,
        range: &SortKeyRange,
        forward: bool,
        limit: usize,
        consistent: bool,
    ) -> Result<Vec<(String, Item)>, StoreError> {
        check_key(pk, range.bound().unwrap_or("-"))?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let q = self
            .client
            .query()
            .table_name(&self.table)
            .expression_attribute_values(":p", s(pk))
            .scan_index_forward(forward)
            .consistent_read(consistent)
            .limit(limit.min(QUERY_LIMIT_MAX) as i32)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let (q, op) = match range {
            SortKeyRange::All => (q, None),
            SortKeyRange::Before(sk) => (q.expression_attribute_values(":s", s(sk)), Some("<")),
            SortKeyRange::AtOrBefore(sk) => (q.expression_attribute_values(":s", s(sk)), Some("<=")),
            SortKeyRange::After(sk) => (q.expression_attribute_values(":s", s(sk)), Some(">")),
            SortKeyRange::AtOrAfter(sk) => (q.expression_attribute_values(":s", s(sk)), Some(">=")),
        };
        let q = match op {
            Some(op) => q.key_condition_expression(format!("pk = :p AND sk {op} :s")),
            None => q.key_condition_expression("pk = :p"),
        };
        let out = q.send().await.map_err(|e| self.fail("Query", e))?;
        self.usage.record_read(out.consumed_capacity());
        out.items()
            .iter()
            .map(|item| {
                let sk = get_s(item, "sk")?.to_string();
                let decoded = decode_item(pk, &sk, item)?;
                Ok((sk, decoded))
            })
            .collect()
    }

    async fn delete_item_if(&self, key: &ItemKey, expected: u64) -> Result<bool, StoreError> {
        check_key(&key.pk, &key.sk)?;
        let out = self
            .client
            .delete_item()
            .table_name(&self.table)
            .key("pk", s(&key.pk))
            .key("sk", s(&key.sk))
            .condition_expression("version = :v")
            .expression_attribute_values(":v", n(expected))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        self.conditional(
            "DeleteItem",
            out,
            |o| o.consumed_capacity(),
            |e| matches!(e, DeleteItemError::ConditionalCheckFailedException(_)),
        )
    }

    async fn delete_items(&self, keys: &[ItemKey]) -> Result<(), StoreError> {
        let requests = keys
            .iter()
            .map(|k| {
                check_key(&k.pk, &k.sk)?;
                let delete = DeleteRequest::builder()
                    .key("pk", s(&k.pk))
                    .key("sk", s(&k.sk))
                    .build()
                    .map_err(|e| errors::build("BatchWriteItem", e))?;
                Ok(WriteRequest::builder().delete_request(delete).build())
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.batch_write(requests).await
    }

    async fn put_items(
        &self,
        items: &[(ItemKey, Vec<u8>)],
        expires_at: Option<i64>,
    ) -> Result<(), StoreError> {
        let requests = items
            .iter()
            .map(|(key, body)| {
                check_item(key, body)?;
                let put = PutRequest::builder()
                    .item("pk", s(&key.pk))
                    .item("sk", s(&key.sk))
                    .item("body", AttributeValue::B(body.clone().into()))
                    .item("version", n(1));
                let put = match expires_at {
                    Some(t) => put.item(TTL_ATTRIBUTE, n(t)),
                    None => put,
                };
                let put = put.build().map_err(|e| errors::build("BatchWriteItem", e))?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.batch_write(requests).await
    }
}

/// What a cancelled transaction of conditional puts means, by its per-item reasons:
/// a failed condition `Ok(false)`; conflicts and throttling alone
/// [`StoreError::Unavailable`]; anything else (validation, sizes) a defect.
fn cancelled_puts(codes: &[&str]) -> Result<bool, StoreError> {
    if codes.contains(&"ConditionalCheckFailed") {
        return Ok(false);
    }
    let message = format!("cancelled: {codes:?}");
    let transient = codes.iter().all(|c| {
        matches!(
            *c,
            "None" | "TransactionConflict" | "ThrottlingError" | "ProvisionedThroughputExceeded"
        )
    });
    Err(if transient {
        StoreError::Unavailable {
            operation: "TransactWriteItems",
            message,
        }
    } else {
        StoreError::Rejected {
            operation: "TransactWriteItems",
            message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OP-4: a transaction of conditional puts cancelled for a failed condition wrote
    /// nothing and says so; one cancelled for a conflict or throttling is worth
    /// retrying; a validation failure is a defect, never a failed condition.
    #[test]
    fn a_cancelled_put_transaction_is_read_by_its_reasons() {
        assert!(matches!(
            cancelled_puts(&["None", "ConditionalCheckFailed"]),
            Ok(false)
        ));
        assert!(matches!(
            cancelled_puts(&["TransactionConflict", "ConditionalCheckFailed"]),
            Ok(false)
        ));
        for codes in [["TransactionConflict", "None"], ["None", "ThrottlingError"]] {
            assert!(
                matches!(cancelled_puts(&codes), Err(StoreError::Unavailable { .. })),
                "{codes:?}"
            );
        }
        assert!(matches!(
            cancelled_puts(&["ValidationError", "None"]),
            Err(StoreError::Rejected { .. })
        ));
    }
}
