//! Board reads through the keys-only `board` GSI: shard Queries merged in listing
//! order, ranks by counting, period entries.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, Select};
use futures::future::try_join_all;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::{listing_order, Standing};

use super::store::*;

use super::items::{decode_entry, get_s, period_sk, player_pk, s, shard_id};
use crate::error::StoreError;
use crate::model::{board_game, check_key, Balance, BoardKey, BOARD_SHARDS};
use crate::traits::{BoardStore, PeriodStore};

impl DynamoStore {
    /// One Query of one shard of the board GSI.
    pub(crate) async fn query_shard(
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
    pub(crate) async fn query_shards(
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

    async fn entry_boards(&self, player_id: &str, prefix: &str) -> Result<Vec<BoardRef>, StoreError> {
        let pk = player_pk(player_id);
        check_key(&pk, "-")?;
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :p AND begins_with(sk, :s)")
            .expression_attribute_values(":p", s(pk))
            .expression_attribute_values(":s", s(format!("BOARD#{prefix}")))
            .projection_expression("sk");
        let mut out = Vec::new();
        for item in self.query_to_end(query).await? {
            let sk = get_s(&item, "sk")?;
            let (board, period) = sk
                .strip_prefix("BOARD#")
                .and_then(|b| b.split_once('@'))
                .ok_or_else(|| StoreError::corrupt(sk, "not a board key"))?;
            out.push(BoardRef::new(board, period));
        }
        Ok(out)
    }
}
