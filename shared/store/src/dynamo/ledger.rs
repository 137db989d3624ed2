//! A player's ledger: every entry of a game, and pages newest first through the
//! `ledger` GSI (GM-4).

use async_trait::async_trait;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use podium_rules::game::Game;
use podium_rules::settlement::LedgerEntry;

use super::store::*;

use super::items::{get_s, ledger_at, player_pk, s};
use crate::error::StoreError;
use crate::model::{check_key, LedgerPosition};
use crate::traits::LedgerStore;

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
