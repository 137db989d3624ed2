//! Bulk loading of synthetic balances and entries (benchmarks only).

use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::history::KeyHistory;
use podium_rules::leaderboard::Standing;

use super::errors;
use super::store::*;

use super::items::{balance_sk, entry_item, period_sk, EntryValues};
use crate::error::StoreError;

impl DynamoStore {
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

    pub(crate) async fn load(
        &self,
        sk: String,
        board: &BoardRef,
        standings: &[Standing],
    ) -> Result<u64, StoreError> {
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
}
