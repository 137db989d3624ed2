//! The DynamoDB store (production), on one table.
//!
//! | item | partition key `pk` | sort key `sk` | other attributes |
//! |---|---|---|---|
//! | source record | `SOURCE#{kind}#{id}` | `RESULT` | `content_hash`, `attempt`, `result` (JSON) |
//! | balance | `PLAYER#{player id}` | `BALANCE#{game}` | `points`, `version`, `reached_at_ms`, `hist`; `board_shard`, `board_key` on a game with a balance board |
//! | period entry | `PLAYER#{player id}` | `BOARD#{board}@{period}` | as a balance, with `board_shard`, `board_key` |
//! | claim | `PLAYER#{player id}` | `CLAIM#{game}#{kind}#{day}` | `body` (JSON) |
//! | state | `PLAYER#{player id}` | `STATE#{name}` | `body` (JSON), `version` |
//! | ledger entry | `PLAYER#{player id}` | `LEDGER#{game}#{source}#{source id}` | `entry` (JSON), `at_ms`, `applied`, `ledger_at` |
//! | reference (GM-6) | `PLAYER#{player id}` | `REF#{32 hex digits of the named item's hash}` | `body`: the item that names the player ([`Named`], JSON) |
//! | opaque item | any | any | `body` (binary), `version`, `expires_at` (TTL) |
//!
//! GSI `board`: partition key `board_shard` (`{board}@{period}#{00 … 31}`, e.g.
//! `seega@all#07`; [`BOARD_SHARDS`]), sort key `board_key` ([`BoardKey::encode`]),
//! keys only. A board page merges one Query a shard. GSI `ledger` ([`LEDGER_INDEX`]):
//! partition key `pk`, sort key `ledger_at` (`{game}#{instant ms, 15 digits}#{source}#{source id}`),
//! projecting `entry`: a player's point history, newest first, one Query a page. `hist` is the entry's recent
//! keys ([`KeyHistory::encode`](podium_rules::history::KeyHistory::encode)).
//!
//! Every request asks for `ReturnConsumedCapacity` and adds it to [`Usage`]. Every
//! argument is checked against DynamoDB's limits before a request is sent (a limit
//! of 0 reads nothing; keys over the size limits are [`StoreError::OutOfLimits`]),
//! so no input reaches DynamoDB's validation. Requests time out ([`Timeouts`]).

mod client;
mod errors;
mod items;
pub mod stream;
mod usage;

use std::sync::Arc;

use async_trait::async_trait;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ConditionCheck, DeleteRequest, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, KeysAndAttributes, Projection, ProjectionType, Put, PutRequest,
    ReturnConsumedCapacity, ScalarAttributeType, Select, StreamSpecification, StreamViewType,
    TransactWriteItem, Update, WriteRequest,
};
use aws_sdk_dynamodb::Client;
use futures::future::try_join_all;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::history::KeyHistory;
use podium_rules::leaderboard::{listing_order, Standing};
use podium_rules::settlement::LedgerEntry;

pub use client::{client, Timeouts};
pub use usage::{Usage, UsageSnapshot};

use crate::commit::{
    outcome_of_cancellation, Claim, Commit, CommitOutcome, Named, SourceKey, State, StoredSource,
};
use crate::error::StoreError;
use crate::model::{
    balance_board, board_game, check_key, tombstone_key, Balance, BoardKey, Item, ItemKey, LedgerPosition,
    SortKeyRange, BOARD_SHARDS,
};
use crate::traits::{
    BoardStore, ErasureStore, Holdings, ItemStore, LedgerStore, PeriodStore, SettleStore, SourceStore,
};
use items::{
    balance_sk, claim_sk, decode_entry, entry_item, get_b, get_n, get_s, ledger_at, ledger_sk, n, period_sk,
    player_pk, ref_sk, s, shard_id, source_pk, state_sk, EntryValues,
};

/// The attribute DynamoDB's TTL deletes items by (seconds since the Unix epoch).
pub const TTL_ATTRIBUTE: &str = "expires_at";

/// The board GSI's name.
pub const BOARD_INDEX: &str = "board";
/// The GSI that lists a player's ledger entries by instant (partition key `pk`, sort
/// key `ledger_at`, projecting `entry`).
pub const LEDGER_INDEX: &str = "ledger";

/// Keys a BatchGetItem request takes at most.
const BATCH_GET_MAX: usize = 100;

/// Items a BatchWriteItem request takes at most.
const BATCH_WRITE_MAX: usize = 25;

/// Items a TransactWriteItems request takes at most.
const MAX_TRANSACTION_ITEMS: usize = 100;

/// The most items one Query asks for (DynamoDB's `Limit` is an `i32`; a page of a
/// Query ends at 1 MB whatever the limit).
const QUERY_LIMIT_MAX: usize = 10_000;

/// The DynamoDB store. Cheap to clone; clones share the client and the usage counters.
#[derive(Clone)]
pub struct DynamoStore {
    client: Client,
    table: String,
    usage: Arc<Usage>,
}

impl DynamoStore {
    /// A store on `table`, through `client` (see [`client()`] for one with timeouts).
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        DynamoStore {
            client,
            table: table.into(),
            usage: Arc::new(Usage::default()),
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

    fn fail<E, R>(&self, operation: &'static str, err: SdkError<E, R>) -> StoreError
    where
        E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
        R: std::fmt::Debug,
    {
        errors::classify(operation, &self.table, err)
    }

    /// Sends `commit`'s items as one transaction with `token` as its
    /// ClientRequestToken; cancellations are classified by their per-item reasons.
    async fn transact(
        &self,
        commit: &Commit,
        items: Vec<TransactWriteItem>,
        token: &str,
    ) -> Result<CommitOutcome, StoreError> {
        let out = self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .client_request_token(token)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match out {
            Ok(out) => {
                self.usage.record_write(out.consumed_capacity());
                Ok(CommitOutcome::Committed)
            }
            Err(SdkError::ServiceError(e)) => match e.err() {
                TransactWriteItemsError::TransactionCanceledException(t) => {
                    self.usage.record_write(None);
                    let codes: Vec<&str> = t
                        .cancellation_reasons()
                        .iter()
                        .map(|r| r.code().unwrap_or("None"))
                        .collect();
                    outcome_of_cancellation(commit, &codes).map_err(|message| StoreError::Rejected {
                        operation: "TransactWriteItems",
                        message,
                    })
                }
                // The token was used for other content: another call's commit.
                TransactWriteItemsError::IdempotentParameterMismatchException(_) => {
                    self.usage.record_write(None);
                    Ok(CommitOutcome::SourceExists)
                }
                _ => Err(self.fail("TransactWriteItems", SdkError::ServiceError(e))),
            },
            Err(e) => Err(self.fail("TransactWriteItems", e)),
        }
    }

    /// Creates the table and its GSI (on-demand) if it does not exist: for DynamoDB
    /// Local and tests. Production tables come from `template.yaml`. Without the
    /// stream: DynamoDB Local writes several times slower with one.
    pub async fn ensure_table(&self) -> Result<(), StoreError> {
        self.create_table(false).await
    }

    /// [`ensure_table`](Self::ensure_table) with the table's stream (new and old
    /// images), as `template.yaml` deploys it: for the `events` function's tests.
    pub async fn ensure_streaming_table(&self) -> Result<(), StoreError> {
        self.create_table(true).await
    }

    async fn create_table(&self, stream: bool) -> Result<(), StoreError> {
        let build = |e| errors::build("CreateTable", e);
        let attr = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(build)
        };
        let key = |name: &str, kind: KeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kind)
                .build()
                .map_err(build)
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
            .map_err(build)?;
        let ledger = GlobalSecondaryIndex::builder()
            .index_name(LEDGER_INDEX)
            .key_schema(key("pk", KeyType::Hash)?)
            .key_schema(key("ledger_at", KeyType::Range)?)
            .projection(
                Projection::builder()
                    .projection_type(ProjectionType::Include)
                    .non_key_attributes("entry")
                    .build(),
            )
            .build()
            .map_err(build)?;
        let result = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(attr("pk")?)
            .attribute_definitions(attr("sk")?)
            .attribute_definitions(attr("board_shard")?)
            .attribute_definitions(attr("board_key")?)
            .attribute_definitions(attr("ledger_at")?)
            .key_schema(key("pk", KeyType::Hash)?)
            .key_schema(key("sk", KeyType::Range)?)
            .global_secondary_indexes(gsi)
            .global_secondary_indexes(ledger)
            // Inbox messages reach EventBridge from the table's stream (`events`).
            .set_stream_specification(
                stream
                    .then(|| {
                        StreamSpecification::builder()
                            .stream_enabled(true)
                            .stream_view_type(StreamViewType::NewAndOldImages)
                            .build()
                            .map_err(build)
                    })
                    .transpose()?,
            )
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
            Err(e) => Err(self.fail("CreateTable", e)),
        }
    }

    async fn get_raw(
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

    async fn balance(
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
    async fn batch_write(&self, requests: Vec<WriteRequest>) -> Result<(), StoreError> {
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

    /// Loads `game`'s all-time board: each standing becomes the player's balance
    /// (version 1), written 25 to a BatchWriteItem. For imports and benchmarks into a
    /// fresh table; it checks nothing a player already has.
    pub async fn load_balances(&self, game: Game, standings: &[Standing]) -> Result<u64, StoreError> {
        self.load(balance_sk(game), &BoardRef::all_time(game.id()), standings)
            .await
    }

    /// Writes entries of a period board (version 1, empty histories) unconditionally,
    /// 25 to a BatchWriteItem: for seeding measurements, like [`Self::load_balances`].
    pub async fn load_entries(&self, board: &BoardRef, standings: &[Standing]) -> Result<u64, StoreError> {
        self.load(period_sk(board), board, standings).await
    }

    async fn load(&self, sk: String, board: &BoardRef, standings: &[Standing]) -> Result<u64, StoreError> {
        let history = KeyHistory::default();
        let requests = standings
            .iter()
            .map(|st| {
                let item = entry_item(
                    sk.clone(),
                    Some(board),
                    &st.player_id,
                    EntryValues {
                        value: st.value,
                        version: 1,
                        reached_at_ms: st.reached_at_ms,
                        history: &history,
                    },
                );
                let put = PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map_err(|e| errors::build("BatchWriteItem", e))?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.batch_write(requests).await?;
        Ok(standings.len() as u64)
    }

    fn source_item(&self, c: &Commit) -> items::Item {
        items::Item::from([
            ("pk".to_string(), s(source_pk(&c.source))),
            ("sk".to_string(), s("RESULT")),
            ("content_hash".to_string(), s(&c.content_hash)),
            ("attempt".to_string(), s(&c.attempt)),
            ("result".to_string(), s(&c.result)),
        ])
    }

    /// The transaction items of `c`, in the commit's order.
    fn commit_items(&self, c: &Commit) -> Result<Vec<TransactWriteItem>, StoreError> {
        let build = |e| errors::build("TransactWriteItems", e);
        let put = |p: Put| TransactWriteItem::builder().put(p).build();
        let create_only = |item: items::Item| {
            Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(pk)")
                .build()
                .map_err(build)
        };
        let mut out = vec![put(create_only(self.source_item(c))?)];
        for claim in &c.claims {
            let sk = claim_sk(claim.game, &claim.kind, &claim.day);
            check_key(&player_pk(&claim.player_id), &sk)?;
            out.push(put(create_only(items::Item::from([
                ("pk".to_string(), s(player_pk(&claim.player_id))),
                ("sk".to_string(), s(sk)),
                ("body".to_string(), s(&claim.body)),
            ]))?));
        }
        for w in &c.balances {
            let item = entry_item(
                balance_sk(w.game),
                balance_board(w.game).as_ref(),
                &w.player_id,
                EntryValues {
                    value: w.points,
                    version: w.expected_version + 1,
                    reached_at_ms: w.reached_at_ms,
                    history: &w.history,
                },
            );
            out.push(put(self.entry_put(item, w.expected_version, w.must_exist)?));
        }
        for w in &c.entries {
            let item = entry_item(
                period_sk(&w.board),
                Some(&w.board),
                &w.player_id,
                EntryValues {
                    value: w.value,
                    version: w.expected_version + 1,
                    reached_at_ms: w.reached_at_ms,
                    history: &w.history,
                },
            );
            out.push(put(self.entry_put(item, w.expected_version, false)?));
        }
        for w in &c.states {
            let sk = state_sk(&w.name);
            check_key(&player_pk(&w.player_id), &sk)?;
            let item = items::Item::from([
                ("pk".to_string(), s(player_pk(&w.player_id))),
                ("sk".to_string(), s(sk)),
                ("body".to_string(), s(&w.body)),
                ("version".to_string(), n(w.expected_version + 1)),
            ]);
            out.push(put(self.entry_put(item, w.expected_version, false)?));
        }
        for e in &c.ledger {
            out.push(put(self.ledger_put(e)?));
        }
        for m in &c.marks {
            check_key(&m.key.pk, &m.key.sk)?;
            let update = Update::builder()
                .table_name(&self.table)
                .key("pk", s(&m.key.pk))
                .key("sk", s(&m.key.sk))
                .update_expression("SET body = :b, version = if_not_exists(version, :zero) + :one")
                .expression_attribute_values(":b", AttributeValue::B(m.body.clone().into()))
                .expression_attribute_values(":zero", n(0))
                .expression_attribute_values(":one", n(1))
                .build()
                .map_err(build)?;
            out.push(TransactWriteItem::builder().update(update).build());
        }
        for r in &c.refs {
            let sk = ref_sk(&r.named);
            check_key(&player_pk(&r.player_id), &sk)?;
            let body = serde_json::to_string(&r.named).map_err(|e| StoreError::corrupt("reference", e))?;
            let item = Put::builder()
                .table_name(&self.table)
                .item("pk", s(player_pk(&r.player_id)))
                .item("sk", s(sk))
                .item("body", s(body))
                .build()
                .map_err(build)?;
            out.push(put(item));
        }
        // GM-6: no write for a player whose deletion has begun.
        for player in c.players() {
            let key = tombstone_key(player);
            check_key(&key.pk, &key.sk)?;
            let check = ConditionCheck::builder()
                .table_name(&self.table)
                .key("pk", s(key.pk))
                .key("sk", s(key.sk))
                .condition_expression("attribute_not_exists(pk)")
                .build()
                .map_err(build)?;
            out.push(TransactWriteItem::builder().condition_check(check).build());
        }
        Ok(out)
    }

    /// The Put of a versioned item at `expected_version + 1`, if the stored version is
    /// still `expected_version` (0: no item yet; with `must_exist`, 0 always fails).
    fn entry_put(
        &self,
        item: items::Item,
        expected_version: u64,
        must_exist: bool,
    ) -> Result<Put, StoreError> {
        let builder = Put::builder().table_name(&self.table).set_item(Some(item));
        let builder = if expected_version == 0 && must_exist {
            // A balance that must exist was read absent: let the transaction fail on it.
            builder.condition_expression("attribute_exists(pk) AND attribute_not_exists(pk)")
        } else if expected_version == 0 {
            builder.condition_expression("attribute_not_exists(pk)")
        } else {
            builder
                .condition_expression("version = :v")
                .expression_attribute_values(":v", n(expected_version))
        };
        builder
            .build()
            .map_err(|e| errors::build("TransactWriteItems", e))
    }

    fn ledger_put(&self, e: &LedgerEntry) -> Result<Put, StoreError> {
        let entry = serde_json::to_string(e).map_err(|err| StoreError::corrupt("entry", err))?;
        let at = ledger_at(e.game, &LedgerPosition::of(e));
        check_key(&player_pk(&e.player_id), &at)?;
        Put::builder()
            .table_name(&self.table)
            .item("pk", s(player_pk(&e.player_id)))
            .item("sk", s(ledger_sk(e)))
            .item("ledger_at", s(at))
            .item("entry", s(entry))
            .item("at_ms", n(e.at.timestamp_millis()))
            .item("applied", n(e.applied))
            .condition_expression("attribute_not_exists(pk)")
            .build()
            .map_err(|err| errors::build("TransactWriteItems", err))
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
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut q = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(BOARD_INDEX)
            .expression_attribute_values(":s", s(shard_id(board, shard)))
            .scan_index_forward(forward)
            .limit(limit.min(QUERY_LIMIT_MAX) as i32)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        q = match condition {
            Some((op, key)) => {
                check_key(&shard_id(board, shard), &key)?;
                q.key_condition_expression(format!("board_shard = :s AND board_key {op} :k"))
                    .expression_attribute_values(":k", s(key))
            }
            None => q.key_condition_expression("board_shard = :s"),
        };
        let out = q.send().await.map_err(|e| self.fail("Query", e))?;
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
        if limit == 0 {
            return Ok(Vec::new());
        }
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

/// The ClientRequestToken of a transaction (1–36 characters): 36 hex digits of
/// SHA-256 over its parts (idempotency key, content hash, attempt…), so a resend of
/// the same transaction is recognised by DynamoDB and any other one is not.
pub fn request_token(parts: &[&str]) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for p in parts {
        h.update(p.len().to_be_bytes());
        h.update(p.as_bytes());
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    hex[..36].to_string()
}

#[async_trait]
impl SourceStore for DynamoStore {
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        let Some(item) = self.get_raw(source_pk(key), "RESULT".into(), true).await? else {
            return Ok(None);
        };
        Ok(Some(StoredSource {
            content_hash: get_s(&item, "content_hash")?.to_string(),
            attempt: get_s(&item, "attempt").ok().map(str::to_string),
            result: get_s(&item, "result")?.to_string(),
        }))
    }
}

#[async_trait]
impl SettleStore for DynamoStore {
    /// One strongly consistent BatchGetItem for up to 100 players (one GetItem for
    /// one), sending unprocessed keys again with a growing pause.
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        if players.len() <= 1 || players.len() > BATCH_GET_MAX {
            let reads = players.iter().map(|p| async move {
                Ok::<_, StoreError>(
                    self.balance(game, p, true)
                        .await?
                        .unwrap_or_else(|| Balance::absent(game, p)),
                )
            });
            return try_join_all(reads).await;
        }
        let found = self.batch_entries(&balance_sk(game), game, players).await?;
        Ok(players
            .iter()
            .map(|p| found.get(*p).cloned().unwrap_or_else(|| Balance::absent(game, p)))
            .collect())
    }

    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.period_entry(board, player_id).await
    }

    async fn get_entries(
        &self,
        board: &BoardRef,
        players: &[&str],
    ) -> Result<Vec<Option<Balance>>, StoreError> {
        if players.len() <= 1 || players.len() > BATCH_GET_MAX {
            return try_join_all(players.iter().map(|p| self.period_entry(board, p))).await;
        }
        let found = self
            .batch_entries(&period_sk(board), board_game(board), players)
            .await?;
        Ok(players.iter().map(|p| found.get(*p).cloned()).collect())
    }

    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError> {
        let Some(item) = self.get_raw(player_pk(player_id), state_sk(name), true).await? else {
            return Ok(None);
        };
        Ok(Some(State {
            body: get_s(&item, "body")?.to_string(),
            version: get_n(&item, "version")?,
        }))
    }

    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError> {
        let item = self
            .get_raw(player_pk(player_id), claim_sk(game, kind, day), true)
            .await?;
        item.map(|item| {
            Ok(Claim {
                body: get_s(&item, "body")?.to_string(),
            })
        })
        .transpose()
    }

    async fn is_deleted(&self, player_id: &str) -> Result<bool, StoreError> {
        let key = tombstone_key(player_id);
        Ok(self.get_raw(key.pk, key.sk, true).await?.is_some())
    }

    async fn commit(&self, c: &Commit) -> Result<CommitOutcome, StoreError> {
        check_key(&source_pk(&c.source), "RESULT")?;
        if c.items() > MAX_TRANSACTION_ITEMS {
            return Err(StoreError::OutOfLimits(format!(
                "{} items in one transaction (at most {MAX_TRANSACTION_ITEMS})",
                c.items()
            )));
        }
        if c.items() == 1 {
            // The source record alone (a void match): one conditional write.
            let out = self
                .client
                .put_item()
                .table_name(&self.table)
                .set_item(Some(self.source_item(c)))
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
                    Ok(CommitOutcome::SourceExists)
                }
                Err(e) => Err(self.fail("PutItem", e)),
            };
        }
        let token = request_token(&[
            &self.table,
            &c.source.kind,
            &c.source.id,
            &c.content_hash,
            &c.attempt,
            &c.plan.to_string(),
        ]);
        let items = self.commit_items(c)?;
        self.transact(c, items, &token).await
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
        check_key(&shard_id(board, 0), &encoded)?;
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
                        .map_err(|e| self.fail("Query", e))?;
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
        let item = self.get_raw(player_pk(player_id), period_sk(board), true).await?;
        item.map(|item| decode_entry(&item, player_id, board_game(board)))
            .transpose()
    }
}

fn decode_item(pk: &str, sk: &str, item: &items::Item) -> Result<Item, StoreError> {
    let body = get_b(item, "body").map_err(|_| StoreError::corrupt(format!("{pk}/{sk}"), "missing body"))?;
    Ok(Item {
        body: body.to_vec(),
        version: get_n(item, "version")?,
    })
}

#[async_trait]
impl ItemStore for DynamoStore {
    async fn get_item(&self, key: &ItemKey, consistent: bool) -> Result<Option<Item>, StoreError> {
        let Some(item) = self.get_raw(key.pk.clone(), key.sk.clone(), consistent).await? else {
            return Ok(None);
        };
        decode_item(&key.pk, &key.sk, &item).map(Some)
    }

    async fn put_item_if(&self, key: &ItemKey, body: &[u8], expected: u64) -> Result<bool, StoreError> {
        check_key(&key.pk, &key.sk)?;
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
            Err(e) => Err(self.fail("PutItem", e)),
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
        match out {
            Ok(out) => {
                self.usage.record_write(out.consumed_capacity());
                Ok(true)
            }
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), DeleteItemError::ConditionalCheckFailedException(_)) =>
            {
                self.usage.record_write(None);
                Ok(false)
            }
            Err(e) => Err(self.fail("DeleteItem", e)),
        }
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
                check_key(&key.pk, &key.sk)?;
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

impl DynamoStore {
    /// The items of `players` (at most [`BATCH_GET_MAX`]) under sort key `sk` (a
    /// balance's or a period entry's), by player, in BatchGetItem requests (strongly
    /// consistent; unprocessed keys retried with backoff).
    async fn batch_entries(
        &self,
        sk: &str,
        game: Game,
        players: &[&str],
    ) -> Result<std::collections::HashMap<String, Balance>, StoreError> {
        let mut keys = Vec::with_capacity(players.len());
        for p in players {
            let pk = player_pk(p);
            check_key(&pk, sk)?;
            let key = items::Item::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(sk.to_string()))]);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        let mut found: std::collections::HashMap<String, Balance> = std::collections::HashMap::new();
        let mut pending = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(true)
            .build()
            .map_err(|e| errors::build("BatchGetItem", e))?;
        for attempt in 0u32.. {
            let out = self
                .client
                .batch_get_item()
                .request_items(&self.table, pending)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| self.fail("BatchGetItem", e))?;
            self.usage.record_read(out.consumed_capacity());
            for item in out
                .responses
                .and_then(|mut r| r.remove(&self.table))
                .unwrap_or_default()
            {
                let pk = get_s(&item, "pk")?;
                let player = pk.strip_prefix("PLAYER#").unwrap_or(pk).to_string();
                let balance = decode_entry(&item, &player, game)?;
                found.insert(player, balance);
            }
            match out.unprocessed_keys.and_then(|mut m| m.remove(&self.table)) {
                Some(rest) if !rest.keys().is_empty() => pending = rest,
                _ => break,
            }
            if attempt >= 10 {
                return Err(StoreError::Unavailable {
                    operation: "BatchGetItem",
                    message: "keys still unprocessed after 10 attempts".into(),
                });
            }
            tokio::time::sleep(std::time::Duration::from_millis(20 << attempt.min(5))).await;
        }
        Ok(found)
    }
}

#[async_trait]
impl LedgerStore for DynamoStore {
    async fn ledger_entries(&self, game: Game, player_id: &str) -> Result<Vec<LedgerEntry>, StoreError> {
        check_key(&player_pk(player_id), "LEDGER#")?;
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
                .map_err(|e| self.fail("Query", e))?;
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

    async fn ledger_page(
        &self,
        game: Game,
        player_id: &str,
        after: Option<&LedgerPosition>,
        limit: usize,
    ) -> Result<Vec<LedgerEntry>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let pk = player_pk(player_id);
        check_key(&pk, "LEDGER#")?;
        let start = match after {
            Some(at) => {
                let sk = format!("LEDGER#{}#{}#{}", game.id(), at.source, at.source_id);
                let index = ledger_at(game, at);
                check_key(&pk, &sk)?;
                check_key(&pk, &index)?;
                Some(std::collections::HashMap::from([
                    ("pk".to_string(), s(pk.clone())),
                    ("sk".to_string(), s(sk)),
                    ("ledger_at".to_string(), s(index)),
                ]))
            }
            None => None,
        };
        let page = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(LEDGER_INDEX)
            .key_condition_expression("pk = :p AND begins_with(ledger_at, :g)")
            .expression_attribute_values(":p", s(pk.clone()))
            .expression_attribute_values(":g", s(format!("{}#", game.id())))
            .scan_index_forward(false)
            .limit(limit.min(QUERY_LIMIT_MAX) as i32)
            .set_exclusive_start_key(start)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(|e| self.fail("Query", e))?;
        self.usage.record_read(page.consumed_capacity());
        page.items()
            .iter()
            .map(|item| {
                let raw = get_s(item, "entry")?;
                serde_json::from_str(raw).map_err(|e| StoreError::corrupt(pk.clone(), e))
            })
            .collect()
    }
}

impl DynamoStore {
    /// Every item of the player's partition `PLAYER#{id}` (strongly consistent, paged).
    async fn player_partition(&self, player_id: &str) -> Result<Vec<items::Item>, StoreError> {
        let pk = player_pk(player_id);
        check_key(&pk, "-")?;
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("pk = :p")
                .expression_attribute_values(":p", s(pk.clone()))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| self.fail("Query", e))?;
            self.usage.record_read(page.consumed_capacity());
            out.extend(page.items().iter().cloned());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok(out),
            }
        }
    }
}

/// A ledger entry moved to `pseudonym` (GM-6): its player and any mention of the
/// player's id in its source id replaced.
pub(crate) fn pseudonymised(e: &LedgerEntry, player_id: &str, pseudonym: &str) -> LedgerEntry {
    LedgerEntry {
        player_id: pseudonym.to_string(),
        source_id: e.source_id.replace(player_id, pseudonym),
        ..e.clone()
    }
}

#[async_trait]
impl ErasureStore for DynamoStore {
    async fn holdings(&self, player_id: &str) -> Result<Holdings, StoreError> {
        let mut out = Holdings::default();
        for item in self.player_partition(player_id).await? {
            let sk = get_s(&item, "sk")?;
            if let Some(game) = sk.strip_prefix("BALANCE#") {
                let game = Game::from_id(game).ok_or_else(|| StoreError::corrupt(sk, "unknown game"))?;
                out.balances.push(game);
            } else if let Some(board) = sk.strip_prefix("BOARD#") {
                let (board, period) = board
                    .split_once('@')
                    .ok_or_else(|| StoreError::corrupt(sk, "not a board key"))?;
                out.entries.push(BoardRef::new(board, period));
            } else if sk.starts_with("LEDGER#") {
                let raw = get_s(&item, "entry")?;
                out.ledger
                    .push(serde_json::from_str(raw).map_err(|e| StoreError::corrupt(sk, e))?);
            } else if sk.starts_with("CLAIM#") {
                out.claims += 1;
            } else if sk.starts_with("STATE#") {
                out.states += 1;
            } else if sk.starts_with("REF#") {
                let raw = get_s(&item, "body")?;
                out.refs
                    .push(serde_json::from_str::<Named>(raw).map_err(|e| StoreError::corrupt(sk, e))?);
            }
        }
        Ok(out)
    }

    /// BatchWriteItem puts of the moved ledger entries, then BatchWriteItem deletes of
    /// every item of the player's partition (the GSI entries go with them).
    async fn erase_holdings(&self, player_id: &str, pseudonym: &str) -> Result<(), StoreError> {
        let items = self.player_partition(player_id).await?;
        let mut puts = Vec::new();
        let mut deletes = Vec::new();
        for item in &items {
            let sk = get_s(item, "sk")?;
            if sk.starts_with("LEDGER#") {
                let raw = get_s(item, "entry")?;
                let e: LedgerEntry = serde_json::from_str(raw).map_err(|err| StoreError::corrupt(sk, err))?;
                let moved = pseudonymised(&e, player_id, pseudonym);
                let entry = serde_json::to_string(&moved).map_err(|err| StoreError::corrupt("entry", err))?;
                check_key(&player_pk(pseudonym), &ledger_sk(&moved))?;
                let at = ledger_at(moved.game, &LedgerPosition::of(&moved));
                check_key(&player_pk(pseudonym), &at)?;
                let put = PutRequest::builder()
                    .item("pk", s(player_pk(pseudonym)))
                    .item("sk", s(ledger_sk(&moved)))
                    .item("ledger_at", s(at))
                    .item("entry", s(entry))
                    .item("at_ms", n(moved.at.timestamp_millis()))
                    .item("applied", n(moved.applied))
                    .build()
                    .map_err(|err| errors::build("BatchWriteItem", err))?;
                puts.push(WriteRequest::builder().put_request(put).build());
            }
            let delete = DeleteRequest::builder()
                .key("pk", s(player_pk(player_id)))
                .key("sk", s(sk))
                .build()
                .map_err(|err| errors::build("BatchWriteItem", err))?;
            deletes.push(WriteRequest::builder().delete_request(delete).build());
        }
        self.batch_write(puts).await?;
        self.batch_write(deletes).await
    }

    async fn replace_source_result(&self, key: &SourceKey, result: &str) -> Result<bool, StoreError> {
        check_key(&source_pk(key), "RESULT")?;
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .key("pk", s(source_pk(key)))
            .key("sk", s("RESULT"))
            .update_expression("SET #r = :r")
            .expression_attribute_names("#r", "result")
            .expression_attribute_values(":r", s(result))
            .condition_expression("attribute_exists(pk)")
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match out {
            Ok(out) => {
                self.usage.record_write(out.consumed_capacity());
                Ok(true)
            }
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), UpdateItemError::ConditionalCheckFailedException(_)) =>
            {
                self.usage.record_write(None);
                Ok(false)
            }
            Err(e) => Err(self.fail("UpdateItem", e)),
        }
    }

    async fn move_source(&self, from: &SourceKey, to: &SourceKey, result: &str) -> Result<bool, StoreError> {
        check_key(&source_pk(from), "RESULT")?;
        check_key(&source_pk(to), "RESULT")?;
        let Some(stored) = self.get_source(from).await? else {
            return Ok(false);
        };
        let out = self
            .client
            .put_item()
            .table_name(&self.table)
            .item("pk", s(source_pk(to)))
            .item("sk", s("RESULT"))
            .item("content_hash", s(&stored.content_hash))
            .item("attempt", s(stored.attempt.as_deref().unwrap_or_default()))
            .item("result", s(result))
            .condition_expression("attribute_not_exists(pk)")
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match out {
            Ok(out) => self.usage.record_write(out.consumed_capacity()),
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), PutItemError::ConditionalCheckFailedException(_)) =>
            {
                self.usage.record_write(None)
            }
            Err(e) => return Err(self.fail("PutItem", e)),
        }
        let out = self
            .client
            .delete_item()
            .table_name(&self.table)
            .key("pk", s(source_pk(from)))
            .key("sk", s("RESULT"))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(|e| self.fail("DeleteItem", e))?;
        self.usage.record_write(out.consumed_capacity());
        Ok(true)
    }

    async fn replace_state(
        &self,
        owner: &str,
        name: &str,
        body: &str,
        version: u64,
    ) -> Result<bool, StoreError> {
        let (pk, sk) = (player_pk(owner), state_sk(name));
        check_key(&pk, &sk)?;
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .key("pk", s(pk))
            .key("sk", s(sk))
            .update_expression("SET body = :b, version = :next")
            .condition_expression("version = :v")
            .expression_attribute_values(":b", s(body))
            .expression_attribute_values(":v", n(version))
            .expression_attribute_values(":next", n(version + 1))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match out {
            Ok(out) => {
                self.usage.record_write(out.consumed_capacity());
                Ok(true)
            }
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), UpdateItemError::ConditionalCheckFailedException(_)) =>
            {
                self.usage.record_write(None);
                Ok(false)
            }
            Err(e) => Err(self.fail("UpdateItem", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_tokens_are_36_hex_digits_and_differ_by_part() {
        let a = request_token(&["match", "m-1", "abc", "x"]);
        assert_eq!(a.len(), 36);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(a, request_token(&["match", "m-1", "abc", "x"]));
        assert_ne!(a, request_token(&["match", "m-1", "abc", "y"]));
        // Parts are length-prefixed: moving a boundary changes the token.
        assert_ne!(request_token(&["ab", "c"]), request_token(&["a", "bc"]));
    }
}
