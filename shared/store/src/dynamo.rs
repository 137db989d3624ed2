//! The DynamoDB store (production), on one table.
//!
//! | item | partition key `pk` | sort key `sk` | other attributes |
//! |---|---|---|---|
//! | match result | `MATCH#{match id}` | `RESULT` | `content_hash`, `result` (JSON) |
//! | balance | `PLAYER#{player id}` | `BALANCE#{game}` | `points`, `version`, `reached_at_ms`, `board_shard`, `board_key` |
//! | ledger entry | `PLAYER#{player id}` | `LEDGER#{game}#{source}#{source id}` | `entry` (JSON), `at_ms`, `applied` |
//!
//! GSI `board`: partition key `board_shard` (`{board}@{period}#{00 … 31}`, e.g. `seega@all#07`; [`BOARD_SHARDS`]),
//! sort key `board_key` ([`BoardKey::encode`]), keys only. A board page merges one
//! Query a shard. Every request asks for `ReturnConsumedCapacity` and adds it to
//! [`Usage`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ConsumedCapacity, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, Projection, ProjectionType, Put, ReturnConsumedCapacity, ScalarAttributeType,
    Select, TransactWriteItem,
};
use aws_sdk_dynamodb::Client;
use futures::future::try_join_all;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::{listing_order, Standing};
use podium_rules::result::{LedgerEntry, MatchResult};

use crate::error::StoreError;
use crate::model::{board_game, Credit, CreditOutcome};
use crate::model::{
    board_shard, Balance, BalanceWrite, BoardKey, CommitOutcome, MatchCommit, StoredMatch, BOARD_SHARDS,
};
use crate::model::{Item, ItemKey};
use crate::traits::{BoardStore, ItemStore, LedgerStore, PeriodStore, ResultStore, ScoreStore};

/// The attribute DynamoDB's TTL deletes items by (seconds since the Unix epoch).
pub const TTL_ATTRIBUTE: &str = "expires_at";

/// The board GSI's name.
pub const BOARD_INDEX: &str = "board";

/// Requests made and capacity consumed, as DynamoDB reported it
/// (`ReturnConsumedCapacity: TOTAL`). Units are thousandths of a capacity unit.
#[derive(Debug, Default)]
pub struct Usage {
    requests: AtomicU64,
    write_requests: AtomicU64,
    read_milli_units: AtomicU64,
    write_milli_units: AtomicU64,
}

/// A copy of [`Usage`]'s counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageSnapshot {
    /// Requests of every kind.
    pub requests: u64,
    /// Of which write requests (PutItem, TransactWriteItems, BatchWriteItem).
    pub write_requests: u64,
    /// Read capacity units × 1000.
    pub read_milli_units: u64,
    /// Write capacity units × 1000.
    pub write_milli_units: u64,
}

impl UsageSnapshot {
    /// The difference `self − earlier`.
    pub fn since(&self, earlier: &UsageSnapshot) -> UsageSnapshot {
        UsageSnapshot {
            requests: self.requests - earlier.requests,
            write_requests: self.write_requests - earlier.write_requests,
            read_milli_units: self.read_milli_units - earlier.read_milli_units,
            write_milli_units: self.write_milli_units - earlier.write_milli_units,
        }
    }
}

impl Usage {
    fn record_read<'a>(&self, consumed: impl IntoIterator<Item = &'a ConsumedCapacity>) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        for c in consumed {
            let units = c.read_capacity_units().or(c.capacity_units()).unwrap_or(0.0);
            self.read_milli_units
                .fetch_add((units * 1000.0).round() as u64, Ordering::Relaxed);
        }
    }

    fn record_write<'a>(&self, consumed: impl IntoIterator<Item = &'a ConsumedCapacity>) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.write_requests.fetch_add(1, Ordering::Relaxed);
        for c in consumed {
            let units = c.write_capacity_units().or(c.capacity_units()).unwrap_or(0.0);
            self.write_milli_units
                .fetch_add((units * 1000.0).round() as u64, Ordering::Relaxed);
        }
    }

    /// The counters now.
    pub fn snapshot(&self) -> UsageSnapshot {
        UsageSnapshot {
            requests: self.requests.load(Ordering::Relaxed),
            write_requests: self.write_requests.load(Ordering::Relaxed),
            read_milli_units: self.read_milli_units.load(Ordering::Relaxed),
            write_milli_units: self.write_milli_units.load(Ordering::Relaxed),
        }
    }
}

/// The DynamoDB store. Cheap to clone; clones share the client and the usage counters.
#[derive(Clone)]
pub struct DynamoStore {
    client: Client,
    table: String,
    usage: Arc<Usage>,
}

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn get_s<'a>(item: &'a HashMap<String, AttributeValue>, name: &str) -> Result<&'a str, StoreError> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Ok(v),
        _ => Err(StoreError::corrupt(name, "missing string attribute")),
    }
}

fn get_n<T: std::str::FromStr>(item: &HashMap<String, AttributeValue>, name: &str) -> Result<T, StoreError> {
    match item.get(name) {
        Some(AttributeValue::N(v)) => v
            .parse()
            .map_err(|_| StoreError::corrupt(name, "not a number in range")),
        _ => Err(StoreError::corrupt(name, "missing number attribute")),
    }
}

fn match_pk(id: &str) -> String {
    format!("MATCH#{id}")
}

fn player_pk(id: &str) -> String {
    format!("PLAYER#{id}")
}

fn balance_sk(game: Game) -> String {
    format!("BALANCE#{}", game.id())
}

fn shard_id(board: &BoardRef, shard: u32) -> String {
    format!("{}#{shard:02}", board.key())
}

fn ledger_sk(e: &LedgerEntry) -> String {
    format!("LEDGER#{}#{}#{}", e.game.id(), e.source, e.source_id)
}

fn period_sk(board: &BoardRef) -> String {
    format!("BOARD#{}", board.key())
}

/// A board entry (a Seega balance, or a value on a period board): its key, value,
/// version and the attributes of the `board` GSI.
fn entry_item(
    sk: String,
    board: &BoardRef,
    player: &str,
    value: i64,
    version: u64,
    reached_at_ms: i64,
) -> HashMap<String, AttributeValue> {
    let key = BoardKey {
        value,
        reached_at_ms,
        player_id: player.to_string(),
    };
    HashMap::from([
        ("pk".to_string(), s(player_pk(player))),
        ("sk".to_string(), s(sk)),
        ("points".to_string(), n(value)),
        ("version".to_string(), n(version)),
        ("reached_at_ms".to_string(), n(reached_at_ms)),
        ("board_shard".to_string(), s(shard_id(board, board_shard(player)))),
        ("board_key".to_string(), s(key.encode())),
    ])
}

fn decode_entry(
    item: &HashMap<String, AttributeValue>,
    player: &str,
    game: Game,
) -> Result<Balance, StoreError> {
    Ok(Balance {
        player_id: player.to_string(),
        game,
        points: get_n(item, "points")?,
        version: get_n(item, "version")?,
        reached_at_ms: get_n(item, "reached_at_ms")?,
    })
}

/// How a TransactWriteItems request ended.
enum Transacted {
    Committed,
    /// The first item's condition failed (the idempotency record exists): nothing written.
    FirstConditionFailed,
    /// Another item's condition failed, or a conflict or throttling cancelled it: read again and retry.
    Retry,
}

impl DynamoStore {
    /// Sends one transaction; cancellations that a retry can cure are answers, the
    /// rest (validation, size limits) are errors.
    async fn transact(&self, items: Vec<TransactWriteItem>) -> Result<Transacted, StoreError> {
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
                Ok(Transacted::Committed)
            }
            Err(SdkError::ServiceError(e)) => match e.err() {
                TransactWriteItemsError::TransactionCanceledException(t) => {
                    self.usage.record_write(None);
                    let codes: Vec<&str> = t
                        .cancellation_reasons()
                        .iter()
                        .map(|r| r.code().unwrap_or("None"))
                        .collect();
                    let retryable = |c: &&str| {
                        matches!(
                            *c,
                            "None"
                                | "ConditionalCheckFailed"
                                | "TransactionConflict"
                                | "ThrottlingError"
                                | "ProvisionedThroughputExceeded"
                        )
                    };
                    if codes.first() == Some(&"ConditionalCheckFailed") {
                        Ok(Transacted::FirstConditionFailed)
                    } else if codes.iter().all(retryable) {
                        Ok(Transacted::Retry)
                    } else {
                        Err(StoreError::dynamo(
                            "TransactWriteItems",
                            format!("cancelled: {codes:?}"),
                        ))
                    }
                }
                other => Err(StoreError::dynamo("TransactWriteItems", other)),
            },
            Err(e) => Err(StoreError::dynamo(
                "TransactWriteItems",
                aws_sdk_dynamodb::error::DisplayErrorContext(e),
            )),
        }
    }
}

impl DynamoStore {
    /// A store on `table`, through `client` (configured by the caller, e.g. from
    /// `aws_config::load_defaults`; `AWS_ENDPOINT_URL_DYNAMODB` points it at DynamoDB Local).
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        DynamoStore {
            client,
            table: table.into(),
            usage: Arc::new(Usage::default()),
        }
    }

    /// The SDK client and the table, for tools that need a raw request.
    pub fn client_and_table(&self) -> (&Client, &str) {
        (&self.client, &self.table)
    }

    /// Requests made and capacity consumed so far by this store and its clones.
    pub fn usage(&self) -> UsageSnapshot {
        self.usage.snapshot()
    }

    /// Creates the table and its GSI (on-demand) if it does not exist: for DynamoDB
    /// Local and tests. Production tables come from `template.yaml`.
    pub async fn ensure_table(&self) -> Result<(), StoreError> {
        let attr = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(|e| StoreError::dynamo("CreateTable", e))
        };
        let key = |name: &str, kind: KeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kind)
                .build()
                .map_err(|e| StoreError::dynamo("CreateTable", e))
        };
        let gsi = GlobalSecondaryIndex::builder()
            .index_name(BOARD_INDEX)
            .key_schema(key("board_shard", KeyType::Hash)?)
            .key_schema(key("board_key", KeyType::Range)?)
            .projection(
                Projection::builder()
                    .projection_type(ProjectionType::KeysOnly)
                    .build(),
            )
            .build()
            .map_err(|e| StoreError::dynamo("CreateTable", e))?;
        let result = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(attr("pk")?)
            .attribute_definitions(attr("sk")?)
            .attribute_definitions(attr("board_shard")?)
            .attribute_definitions(attr("board_key")?)
            .key_schema(key("pk", KeyType::Hash)?)
            .key_schema(key("sk", KeyType::Range)?)
            .global_secondary_indexes(gsi)
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_resource_in_use_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(StoreError::dynamo(
                "CreateTable",
                aws_sdk_dynamodb::error::DisplayErrorContext(e),
            )),
        }
    }

    async fn get_item(
        &self,
        pk: String,
        sk: String,
        consistent: bool,
    ) -> Result<Option<HashMap<String, AttributeValue>>, StoreError> {
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
            .map_err(|e| StoreError::dynamo("GetItem", aws_sdk_dynamodb::error::DisplayErrorContext(e)))?;
        self.usage.record_read(out.consumed_capacity());
        Ok(out.item)
    }

    async fn balance(
        &self,
        game: Game,
        player: &str,
        consistent: bool,
    ) -> Result<Option<Balance>, StoreError> {
        let item = self
            .get_item(player_pk(player), balance_sk(game), consistent)
            .await?;
        item.map(|item| decode_entry(&item, player, game)).transpose()
    }

    /// Loads `game`'s all-time board: each standing becomes the player's balance
    /// (version 1), written 25 to a BatchWriteItem. For imports and benchmarks into a
    /// fresh table; it checks nothing a player already has.
    pub async fn load_balances(&self, game: Game, standings: &[Standing]) -> Result<u64, StoreError> {
        let board = BoardRef::all_time(game.id());
        for chunk in standings.chunks(BATCH_WRITE_MAX) {
            let mut requests = chunk
                .iter()
                .map(|st| {
                    let item = entry_item(
                        balance_sk(game),
                        &board,
                        &st.player_id,
                        st.value,
                        1,
                        st.reached_at_ms,
                    );
                    let put = aws_sdk_dynamodb::types::PutRequest::builder()
                        .set_item(Some(item))
                        .build()
                        .map_err(|e| StoreError::dynamo("BatchWriteItem", e))?;
                    Ok(aws_sdk_dynamodb::types::WriteRequest::builder()
                        .put_request(put)
                        .build())
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            while !requests.is_empty() {
                let out = self
                    .client
                    .batch_write_item()
                    .request_items(&self.table, requests)
                    .send()
                    .await
                    .map_err(|e| {
                        StoreError::dynamo("BatchWriteItem", aws_sdk_dynamodb::error::DisplayErrorContext(e))
                    })?;
                requests = out
                    .unprocessed_items
                    .and_then(|mut m| m.remove(&self.table))
                    .unwrap_or_default();
            }
        }
        Ok(standings.len() as u64)
    }

    fn match_item(&self, c: &MatchCommit) -> Result<HashMap<String, AttributeValue>, StoreError> {
        let result = serde_json::to_string(&c.result).map_err(|e| StoreError::corrupt("result", e))?;
        Ok(HashMap::from([
            ("pk".to_string(), s(match_pk(&c.result.match_id))),
            ("sk".to_string(), s("RESULT")),
            ("content_hash".to_string(), s(&c.content_hash)),
            ("result".to_string(), s(result)),
        ]))
    }

    /// The Put of a board entry at `expected_version + 1`, if the stored version is still
    /// `expected_version` (0: no entry yet).
    fn entry_put(
        &self,
        item: HashMap<String, AttributeValue>,
        expected_version: u64,
    ) -> Result<Put, StoreError> {
        let builder = Put::builder().table_name(&self.table).set_item(Some(item));
        let builder = if expected_version == 0 {
            builder.condition_expression("attribute_not_exists(pk)")
        } else {
            builder
                .condition_expression("version = :v")
                .expression_attribute_values(":v", n(expected_version))
        };
        builder
            .build()
            .map_err(|e| StoreError::dynamo("TransactWriteItems", e))
    }

    fn balance_put(&self, game: Game, w: &BalanceWrite) -> Result<Put, StoreError> {
        let item = entry_item(
            balance_sk(game),
            &BoardRef::all_time(game.id()),
            &w.player_id,
            w.points,
            w.expected_version + 1,
            w.reached_at_ms,
        );
        self.entry_put(item, w.expected_version)
    }

    fn ledger_put(&self, e: &LedgerEntry) -> Result<Put, StoreError> {
        let entry = serde_json::to_string(e).map_err(|err| StoreError::corrupt("entry", err))?;
        Put::builder()
            .table_name(&self.table)
            .item("pk", s(player_pk(&e.player_id)))
            .item("sk", s(ledger_sk(e)))
            .item("entry", s(entry))
            .item("at_ms", n(e.at.timestamp_millis()))
            .item("applied", n(e.applied))
            .condition_expression("attribute_not_exists(pk)")
            .build()
            .map_err(|err| StoreError::dynamo("TransactWriteItems", err))
    }

    /// One Query of one shard of the board GSI.
    async fn query_shard(
        &self,
        board: &BoardRef,
        shard: u32,
        condition: Option<(&str, String)>,
        forward: bool,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        let mut q = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(BOARD_INDEX)
            .expression_attribute_values(":s", s(shard_id(board, shard)))
            .scan_index_forward(forward)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        q = match condition {
            Some((op, key)) => q
                .key_condition_expression(format!("board_shard = :s AND board_key {op} :k"))
                .expression_attribute_values(":k", s(key)),
            None => q.key_condition_expression("board_shard = :s"),
        };
        let out = q
            .send()
            .await
            .map_err(|e| StoreError::dynamo("Query", aws_sdk_dynamodb::error::DisplayErrorContext(e)))?;
        self.usage.record_read(out.consumed_capacity());
        out.items()
            .iter()
            .map(|item| {
                let raw = get_s(item, "board_key")?;
                BoardKey::decode(raw)
                    .map(BoardKey::into_standing)
                    .ok_or_else(|| StoreError::corrupt(raw, "not a board key"))
            })
            .collect()
    }

    /// One Query a shard of the board GSI, merged in listing order.
    async fn query_shards(
        &self,
        board: &BoardRef,
        condition: Option<(&str, String)>,
        forward: bool,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        let queries =
            (0..BOARD_SHARDS).map(|shard| self.query_shard(board, shard, condition.clone(), forward, limit));
        let mut all: Vec<Standing> = try_join_all(queries).await?.into_iter().flatten().collect();
        all.sort_by(listing_order);
        if !forward {
            all.reverse();
        }
        all.truncate(limit);
        Ok(all)
    }
}

#[async_trait]
impl ResultStore for DynamoStore {
    async fn get_match(&self, match_id: &str) -> Result<Option<StoredMatch>, StoreError> {
        let Some(item) = self.get_item(match_pk(match_id), "RESULT".into(), true).await? else {
            return Ok(None);
        };
        let result: MatchResult = serde_json::from_str(get_s(&item, "result")?)
            .map_err(|e| StoreError::corrupt(match_pk(match_id), e))?;
        Ok(Some(StoredMatch {
            content_hash: get_s(&item, "content_hash")?.to_string(),
            result,
        }))
    }
}

#[async_trait]
impl ScoreStore for DynamoStore {
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        let reads = players.iter().map(|p| async move {
            Ok::<_, StoreError>(
                self.balance(game, p, true)
                    .await?
                    .unwrap_or_else(|| Balance::absent(game, p)),
            )
        });
        try_join_all(reads).await
    }

    async fn commit_match(&self, c: &MatchCommit) -> Result<CommitOutcome, StoreError> {
        let game = c.result.game;
        if c.balances.is_empty() && c.ledger.is_empty() {
            // A void match: the result alone, one conditional write.
            let out = self
                .client
                .put_item()
                .table_name(&self.table)
                .set_item(Some(self.match_item(c)?))
                .condition_expression("attribute_not_exists(pk)")
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            return match out {
                Ok(out) => {
                    self.usage.record_write(out.consumed_capacity());
                    Ok(CommitOutcome::Committed)
                }
                Err(SdkError::ServiceError(e))
                    if matches!(e.err(), PutItemError::ConditionalCheckFailedException(_)) =>
                {
                    self.usage.record_write(None);
                    Ok(CommitOutcome::MatchExists)
                }
                Err(e) => Err(StoreError::dynamo(
                    "PutItem",
                    aws_sdk_dynamodb::error::DisplayErrorContext(e),
                )),
            };
        }
        let mut items = vec![TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(self.match_item(c)?))
                    .condition_expression("attribute_not_exists(pk)")
                    .build()
                    .map_err(|e| StoreError::dynamo("TransactWriteItems", e))?,
            )
            .build()];
        for w in &c.balances {
            items.push(
                TransactWriteItem::builder()
                    .put(self.balance_put(game, w)?)
                    .build(),
            );
        }
        for e in &c.ledger {
            items.push(TransactWriteItem::builder().put(self.ledger_put(e)?).build());
        }
        Ok(match self.transact(items).await? {
            Transacted::Committed => CommitOutcome::Committed,
            Transacted::FirstConditionFailed => CommitOutcome::MatchExists,
            Transacted::Retry => CommitOutcome::Contended,
        })
    }
}

#[async_trait]
impl BoardStore for DynamoStore {
    async fn get_balance(&self, game: Game, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.balance(game, player_id, false).await
    }

    async fn board_after(
        &self,
        board: &BoardRef,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.query_shards(board, after.map(|k| (">", k.encode())), true, limit)
            .await
    }

    async fn board_before(
        &self,
        board: &BoardRef,
        before: &BoardKey,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.query_shards(board, Some(("<", before.encode())), false, limit)
            .await
    }

    fn board_shards(&self) -> u32 {
        BOARD_SHARDS
    }

    async fn shard_after(
        &self,
        board: &BoardRef,
        shard: u32,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.query_shard(board, shard, after.map(|k| (">", k.encode())), true, limit)
            .await
    }

    async fn count_before(&self, board: &BoardRef, key: &BoardKey) -> Result<u64, StoreError> {
        let encoded = key.encode();
        let counts = (0..BOARD_SHARDS).map(|shard| {
            let encoded = encoded.clone();
            async move {
                let mut total = 0u64;
                let mut start = None;
                loop {
                    let out = self
                        .client
                        .query()
                        .table_name(&self.table)
                        .index_name(BOARD_INDEX)
                        .key_condition_expression("board_shard = :s AND board_key < :k")
                        .expression_attribute_values(":s", s(shard_id(board, shard)))
                        .expression_attribute_values(":k", s(encoded.clone()))
                        .select(Select::Count)
                        .set_exclusive_start_key(start)
                        .return_consumed_capacity(ReturnConsumedCapacity::Total)
                        .send()
                        .await
                        .map_err(|e| {
                            StoreError::dynamo("Query", aws_sdk_dynamodb::error::DisplayErrorContext(e))
                        })?;
                    self.usage.record_read(out.consumed_capacity());
                    total += u64::try_from(out.count()).unwrap_or(0);
                    match out.last_evaluated_key {
                        Some(k) if !k.is_empty() => start = Some(k),
                        _ => return Ok::<_, StoreError>(total),
                    }
                }
            }
        });
        Ok(try_join_all(counts).await?.into_iter().sum())
    }
}

#[async_trait]
impl PeriodStore for DynamoStore {
    async fn period_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        let item = DynamoStore::get_item(self, player_pk(player_id), period_sk(board), true).await?;
        item.map(|item| decode_entry(&item, player_id, board_game(board)))
            .transpose()
    }

    async fn credit(
        &self,
        board: &BoardRef,
        c: &Credit,
        expected_version: u64,
    ) -> Result<CreditOutcome, StoreError> {
        let build = |e: aws_sdk_dynamodb::error::BuildError| StoreError::dynamo("TransactWriteItems", e);
        let marker = Put::builder()
            .table_name(&self.table)
            .item("pk", s(format!("CREDIT#{}#{}", board.key(), c.source_id)))
            .item("sk", s(player_pk(&c.player_id)))
            .condition_expression("attribute_not_exists(pk)")
            .build()
            .map_err(build)?;
        let entry = entry_item(
            period_sk(board),
            board,
            &c.player_id,
            c.value_after,
            expected_version + 1,
            c.at_ms,
        );
        let items = vec![
            TransactWriteItem::builder().put(marker).build(),
            TransactWriteItem::builder()
                .put(self.entry_put(entry, expected_version)?)
                .build(),
        ];
        Ok(match self.transact(items).await? {
            Transacted::Committed => CreditOutcome::Credited,
            Transacted::FirstConditionFailed => CreditOutcome::Duplicate,
            Transacted::Retry => CreditOutcome::Contended,
        })
    }
}

/// Items a BatchWriteItem request takes at most.
const BATCH_WRITE_MAX: usize = 25;

#[async_trait]
impl ItemStore for DynamoStore {
    async fn get_item(&self, key: &ItemKey, consistent: bool) -> Result<Option<Item>, StoreError> {
        let Some(item) = DynamoStore::get_item(self, key.pk.clone(), key.sk.clone(), consistent).await?
        else {
            return Ok(None);
        };
        let body = match item.get("body") {
            Some(AttributeValue::B(b)) => b.as_ref().to_vec(),
            _ => {
                return Err(StoreError::corrupt(
                    format!("{}/{}", key.pk, key.sk),
                    "missing body",
                ))
            }
        };
        Ok(Some(Item {
            body,
            version: get_n(&item, "version")?,
        }))
    }

    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError> {
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
        match put.send().await {
            Ok(out) => {
                self.usage.record_write(out.consumed_capacity());
                Ok(true)
            }
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), PutItemError::ConditionalCheckFailedException(_)) =>
            {
                self.usage.record_write(None);
                Ok(false)
            }
            Err(e) => Err(StoreError::dynamo(
                "PutItem",
                aws_sdk_dynamodb::error::DisplayErrorContext(e),
            )),
        }
    }

    async fn put_items(
        &self,
        items: &[(ItemKey, Vec<u8>)],
        expires_at: Option<i64>,
    ) -> Result<(), StoreError> {
        for chunk in items.chunks(BATCH_WRITE_MAX) {
            let mut requests = chunk
                .iter()
                .map(|(key, body)| {
                    let put = aws_sdk_dynamodb::types::PutRequest::builder()
                        .item("pk", s(&key.pk))
                        .item("sk", s(&key.sk))
                        .item("body", AttributeValue::B(body.clone().into()))
                        .item("version", n(1));
                    let put = match expires_at {
                        Some(t) => put.item(TTL_ATTRIBUTE, n(t)),
                        None => put,
                    };
                    let put = put.build().map_err(|e| StoreError::dynamo("BatchWriteItem", e))?;
                    Ok(aws_sdk_dynamodb::types::WriteRequest::builder()
                        .put_request(put)
                        .build())
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            // Unprocessed items (throttling) are sent again with a growing pause.
            for attempt in 0u32.. {
                let out = self
                    .client
                    .batch_write_item()
                    .request_items(&self.table, requests)
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send()
                    .await
                    .map_err(|e| {
                        StoreError::dynamo("BatchWriteItem", aws_sdk_dynamodb::error::DisplayErrorContext(e))
                    })?;
                self.usage.record_write(out.consumed_capacity());
                requests = out
                    .unprocessed_items
                    .and_then(|mut m| m.remove(&self.table))
                    .unwrap_or_default();
                if requests.is_empty() {
                    break;
                }
                if attempt >= 10 {
                    return Err(StoreError::dynamo(
                        "BatchWriteItem",
                        "items still unprocessed after 10 attempts",
                    ));
                }
                tokio::time::sleep(std::time::Duration::from_millis(20 << attempt.min(5))).await;
            }
        }
        Ok(())
    }
}

#[async_trait]
impl LedgerStore for DynamoStore {
    async fn ledger_entries(&self, game: Game, player_id: &str) -> Result<Vec<LedgerEntry>, StoreError> {
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("pk = :p AND begins_with(sk, :l)")
                .expression_attribute_values(":p", s(player_pk(player_id)))
                .expression_attribute_values(":l", s(format!("LEDGER#{}#", game.id())))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| StoreError::dynamo("Query", aws_sdk_dynamodb::error::DisplayErrorContext(e)))?;
            self.usage.record_read(page.consumed_capacity());
            for item in page.items() {
                let raw = get_s(item, "entry")?;
                out.push(
                    serde_json::from_str(raw).map_err(|e| StoreError::corrupt(player_pk(player_id), e))?,
                );
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok(out),
            }
        }
    }
}

impl DynamoStore {
    /// A store on `table` from an SDK configuration loaded once at start-up (region,
    /// credentials, and `AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB Local).
    pub fn from_sdk_config(config: &aws_config::SdkConfig, table: impl Into<String>) -> Self {
        DynamoStore::new(Client::new(config), table)
    }
}
