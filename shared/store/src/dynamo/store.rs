//! The DynamoDB store's handle: the client, the table, usage counters, and the
//! request plumbing every capability shares (limits, errors, batched writes).

use std::sync::Arc;

use async_trait::async_trait;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnConsumedCapacity, WriteRequest};
use aws_sdk_dynamodb::Client;
use podium_rules::game::Game;

use super::client::{client, Timeouts};
use super::usage::{Usage, UsageSnapshot};
use super::{errors, items};

use super::items::{balance_sk, decode_entry, get_s, player_pk, s, source_pk};
use crate::commit::{SourceKey, SourcePage, StoredSource};
use crate::error::StoreError;
use crate::model::{check_key, Balance};
use crate::traits::SourceStore;

/// The attribute DynamoDB's TTL deletes items by (seconds since the Unix epoch).
pub const TTL_ATTRIBUTE: &str = "expires_at";

/// The board GSI's name.
pub const BOARD_INDEX: &str = "board";

pub use super::items::{CarriedLedger, CARRIED_LEDGER, LEDGER_INDEX};

/// Keys a BatchGetItem request takes at most.
pub(crate) const BATCH_GET_MAX: usize = 100;

/// Items a BatchWriteItem request takes at most.
pub(crate) const BATCH_WRITE_MAX: usize = 25;

/// Items a TransactWriteItems request takes at most.
pub(crate) const MAX_TRANSACTION_ITEMS: usize = 100;

/// The most items one Query asks for (DynamoDB's `Limit` is an `i32`; a page of a
/// Query ends at 1 MB whatever the limit).
pub(crate) const QUERY_LIMIT_MAX: usize = 10_000;

/// The DynamoDB store. Cheap to clone; clones share the client and the usage counters.
#[derive(Clone)]
pub struct DynamoStore {
    pub(crate) client: Client,
    pub(crate) table: String,
    pub(crate) usage: Arc<Usage>,
    /// Items settlements read, kept a few seconds ([`super::kept`]).
    pub(crate) kept: Arc<super::kept::Kept>,
}

#[async_trait]
impl SourceStore for DynamoStore {
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        self.source(key, true).await
    }

    async fn get_source_eventually(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        self.source(key, false).await
    }

    /// A Scan of the table (eventually consistent), filtered to the kinds' source
    /// records and projected to their stored fields: it reads (and is charged for)
    /// every item it examines, whatever the filter keeps. The cursor is the page's
    /// `LastEvaluatedKey` as JSON.
    async fn scan_sources(
        &self,
        kinds: &[&str],
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<SourcePage, StoreError> {
        #[derive(serde::Serialize, serde::Deserialize)]
        struct Position {
            pk: String,
            sk: String,
        }
        if kinds.is_empty() {
            return Ok(SourcePage::default());
        }
        let mut scan = self
            .client
            .scan()
            .table_name(&self.table)
            .limit(limit.clamp(1, 1_000) as i32)
            .consistent_read(false)
            .projection_expression("#pk, #h, #a, #r")
            .expression_attribute_names("#pk", "pk")
            .expression_attribute_names("#h", "content_hash")
            .expression_attribute_names("#a", "attempt")
            .expression_attribute_names("#r", "result")
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let mut filter = Vec::new();
        for (i, kind) in kinds.iter().enumerate() {
            filter.push(format!("begins_with(#pk, :k{i})"));
            scan = scan.expression_attribute_values(format!(":k{i}"), s(format!("SOURCE#{kind}#")));
        }
        scan = scan.filter_expression(filter.join(" OR "));
        if let Some(c) = cursor {
            let p: Position = serde_json::from_str(c)
                .map_err(|_| StoreError::OutOfLimits("a source cursor of another store".into()))?;
            check_key(&p.pk, &p.sk)?;
            scan = scan
                .exclusive_start_key("pk", s(p.pk))
                .exclusive_start_key("sk", s(p.sk));
        }
        let out = scan.send().await.map_err(|e| self.fail("Scan", e))?;
        self.usage.record_read(out.consumed_capacity());
        let mut page = SourcePage::default();
        for item in out.items() {
            let pk = get_s(item, "pk")?;
            let Some((kind, id)) = pk.strip_prefix("SOURCE#").and_then(|r| r.split_once('#')) else {
                continue;
            };
            page.records.push((
                SourceKey::new(kind, id),
                StoredSource {
                    content_hash: get_s(item, "content_hash")?.to_string(),
                    attempt: get_s(item, "attempt").ok().map(str::to_string),
                    result: get_s(item, "result")?.to_string(),
                    fields: None,
                },
            ));
        }
        if let Some(last) = out.last_evaluated_key() {
            let position = Position {
                pk: get_s(last, "pk")?.to_string(),
                sk: get_s(last, "sk")?.to_string(),
            };
            page.next = Some(serde_json::to_string(&position).unwrap_or_default());
        }
        Ok(page)
    }
}

impl DynamoStore {
    async fn source(&self, key: &SourceKey, consistent: bool) -> Result<Option<StoredSource>, StoreError> {
        let Some(item) = self.get_raw(source_pk(key), "RESULT".into(), consistent).await? else {
            return Ok(None);
        };
        Ok(Some(StoredSource {
            content_hash: get_s(&item, "content_hash")?.to_string(),
            attempt: get_s(&item, "attempt").ok().map(str::to_string),
            result: get_s(&item, "result")?.to_string(),
            fields: get_s(&item, "fields").ok().map(str::to_string),
        }))
    }
}

impl DynamoStore {
    /// A store on `table`, through `client` (see [`client()`] for one with timeouts).
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        DynamoStore {
            client,
            table: table.into(),
            usage: Arc::new(Usage::default()),
            kept: Arc::default(),
        }
    }

    /// A store on `table` from an SDK configuration loaded once at start-up (region,
    /// credentials, and `AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB Local), with `timeouts`.
    pub fn from_sdk_config(
        config: &aws_config::SdkConfig,
        table: impl Into<String>,
        timeouts: &Timeouts,
    ) -> Self {
        DynamoStore::new(client(config, timeouts), table)
    }

    /// The SDK client and the table, for tools that need a raw request.
    pub fn client_and_table(&self) -> (&Client, &str) {
        (&self.client, &self.table)
    }

    /// Requests made and capacity consumed so far by this store and its clones.
    pub fn usage(&self) -> UsageSnapshot {
        self.usage.snapshot()
    }

    /// The last committed transaction's price by DynamoDB's published pricing, item by
    /// item ([`PricedWrite`]).
    pub fn last_price(&self) -> Vec<super::pricing::PricedWrite> {
        self.usage.last_price()
    }

    pub(crate) fn fail<E, R>(&self, operation: &'static str, err: SdkError<E, R>) -> StoreError
    where
        E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
        R: std::fmt::Debug,
    {
        errors::classify(operation, &self.table, err)
    }

    /// A conditional write's answer: `Ok(true)` written, `Ok(false)` its condition
    /// failed (nothing written; one write request all the same), else the store's
    /// error for `operation`. `condition_failed` tells the operation's
    /// `ConditionalCheckFailedException` from its other errors.
    pub(crate) fn conditional<O, E, R>(
        &self,
        operation: &'static str,
        out: Result<O, SdkError<E, R>>,
        consumed: impl FnOnce(&O) -> Option<&ConsumedCapacity>,
        condition_failed: impl FnOnce(&E) -> bool,
    ) -> Result<bool, StoreError>
    where
        E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
        R: std::fmt::Debug,
    {
        match out {
            Ok(out) => {
                self.usage.record_write(consumed(&out));
                Ok(true)
            }
            Err(SdkError::ServiceError(e)) if condition_failed(e.err()) => {
                self.usage.record_write(None);
                Ok(false)
            }
            Err(e) => Err(self.fail(operation, e)),
        }
    }

    pub(crate) async fn get_raw(
        &self,
        pk: String,
        sk: String,
        consistent: bool,
    ) -> Result<Option<items::Item>, StoreError> {
        check_key(&pk, &sk)?;
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("pk", s(pk))
            .key("sk", s(sk))
            .consistent_read(consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(|e| self.fail("GetItem", e))?;
        self.usage.record_read(out.consumed_capacity());
        Ok(out.item)
    }

    /// Every item `query` matches, page after page to the end (`query` is sent again
    /// from each page's last key), each page's capacity recorded.
    pub(crate) async fn query_to_end(
        &self,
        query: aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder,
    ) -> Result<Vec<items::Item>, StoreError> {
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let page = query
                .clone()
                .set_exclusive_start_key(start)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| self.fail("Query", e))?;
            self.usage.record_read(page.consumed_capacity());
            out.extend(page.items.unwrap_or_default());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok(out),
            }
        }
    }

    pub(crate) async fn balance(
        &self,
        game: Game,
        player: &str,
        consistent: bool,
    ) -> Result<Option<Balance>, StoreError> {
        let item = self
            .get_raw(player_pk(player), balance_sk(game), consistent)
            .await?;
        item.map(|item| decode_entry(&item, player, game)).transpose()
    }

    /// Sends `requests` in BatchWriteItem requests of 25, sending unprocessed items
    /// (throttling) again with a growing pause.
    pub(crate) async fn batch_write(&self, requests: Vec<WriteRequest>) -> Result<(), StoreError> {
        let mut chunks: Vec<Vec<WriteRequest>> = Vec::new();
        let mut rest = requests;
        while !rest.is_empty() {
            let tail = rest.split_off(rest.len().min(BATCH_WRITE_MAX));
            chunks.push(std::mem::replace(&mut rest, tail));
        }
        for mut pending in chunks {
            for attempt in 0u32.. {
                let out = self
                    .client
                    .batch_write_item()
                    .request_items(&self.table, pending)
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send()
                    .await
                    .map_err(|e| self.fail("BatchWriteItem", e))?;
                self.usage.record_write(out.consumed_capacity());
                pending = out
                    .unprocessed_items
                    .and_then(|mut m| m.remove(&self.table))
                    .unwrap_or_default();
                if pending.is_empty() {
                    break;
                }
                if attempt >= 10 {
                    return Err(StoreError::Unavailable {
                        operation: "BatchWriteItem",
                        message: "items still unprocessed after 10 attempts".into(),
                    });
                }
                tokio::time::sleep(std::time::Duration::from_millis(20 << attempt.min(5))).await;
            }
        }
        Ok(())
    }
}
