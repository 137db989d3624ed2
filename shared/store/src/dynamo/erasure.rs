//! Deleting a player (GM-6): their holdings read from their partition, erased, and
//! results and states rewritten under conditions.

use async_trait::async_trait;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, ReturnConsumedCapacity, WriteRequest};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::settlement::LedgerEntry;

use super::store::*;
use super::{errors, items};

use super::items::carried_attributes;
use super::items::{get_s, ledger_at, ledger_sk, n, player_pk, s, source_pk, state_sk};
use crate::commit::{Named, SourceKey};
use crate::error::StoreError;
use crate::model::pseudonymised;
use crate::model::{check_key, LedgerPosition};
use crate::traits::{ErasureStore, Holdings};

impl DynamoStore {
    /// Every item of the player's partition `PLAYER#{id}` (strongly consistent, paged).
    pub(crate) async fn player_partition(&self, player_id: &str) -> Result<Vec<items::Item>, StoreError> {
        let pk = player_pk(player_id);
        check_key(&pk, "-")?;
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :p")
            .expression_attribute_values(":p", s(pk))
            .consistent_read(true);
        self.query_to_end(query).await
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
            } else if let Some(id) = sk.strip_prefix("CLAIM#") {
                out.claims += 1;
                out.claim_items
                    .push((id.replace('#', "/"), get_s(&item, "body")?.to_string()));
            } else if let Some(name) = sk.strip_prefix("STATE#") {
                out.states += 1;
                out.state_items
                    .push((name.to_string(), get_s(&item, "body")?.to_string()));
            } else if sk.starts_with("REF#") {
                let raw = get_s(&item, "body")?;
                out.refs
                    .push(serde_json::from_str::<Named>(raw).map_err(|e| StoreError::corrupt(sk, e))?);
            }
        }
        // The entries two-player source records carry for them.
        for slot in &CARRIED_LEDGER {
            for item in self.carried_items(slot, player_id, None).await? {
                out.ledger.push(slot.decode(&item)?);
            }
        }
        Ok(out)
    }

    /// The entries source records carry for the player rewritten in place for the
    /// pseudonym (an UpdateItem each, conditional on still naming the player), then
    /// BatchWriteItem puts of the moved ledger items, then BatchWriteItem deletes of
    /// every item of the player's partition (the GSI entries go with them).
    async fn erase_holdings(&self, player_id: &str, pseudonym: &str) -> Result<(), StoreError> {
        for slot in &CARRIED_LEDGER {
            for item in self.carried_items(slot, player_id, None).await? {
                let moved = pseudonymised(&slot.decode(&item)?, player_id, pseudonym);
                let (pk, _, entry) = carried_attributes(&moved)?;
                let out = self
                    .client
                    .update_item()
                    .table_name(&self.table)
                    .key("pk", s(get_s(&item, "pk")?))
                    .key("sk", s(get_s(&item, "sk")?))
                    .update_expression("SET #p = :new, #e = :e")
                    .condition_expression("#p = :old")
                    .expression_attribute_names("#p", slot.pk)
                    .expression_attribute_names("#e", slot.entry)
                    .expression_attribute_values(":new", s(pk))
                    .expression_attribute_values(":old", s(player_pk(player_id)))
                    .expression_attribute_values(":e", s(entry))
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send()
                    .await;
                // Rewritten now, or already by an earlier run of this deletion.
                self.conditional(
                    "UpdateItem",
                    out,
                    |o| o.consumed_capacity(),
                    |e| matches!(e, UpdateItemError::ConditionalCheckFailedException(_)),
                )?;
            }
        }
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
        self.conditional(
            "UpdateItem",
            out,
            |o| o.consumed_capacity(),
            |e| matches!(e, UpdateItemError::ConditionalCheckFailedException(_)),
        )
    }

    async fn move_source(&self, from: &SourceKey, to: &SourceKey, result: &str) -> Result<bool, StoreError> {
        check_key(&source_pk(from), "RESULT")?;
        check_key(&source_pk(to), "RESULT")?;
        let Some(mut item) = self.get_raw(source_pk(from), "RESULT".to_string(), true).await? else {
            return Ok(false);
        };
        // Everything the record holds moves with it (the ledger entries it carries too).
        item.insert("pk".to_string(), s(source_pk(to)));
        item.insert("result".to_string(), s(result));
        let out = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        // Written now, or by an earlier run of this move: either way it is there.
        self.conditional(
            "PutItem",
            out,
            |o| o.consumed_capacity(),
            |e| matches!(e, PutItemError::ConditionalCheckFailedException(_)),
        )?;
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
        self.conditional(
            "UpdateItem",
            out,
            |o| o.consumed_capacity(),
            |e| matches!(e, UpdateItemError::ConditionalCheckFailedException(_)),
        )
    }
}
