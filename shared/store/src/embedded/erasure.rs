//! Deleting a player (GM-6): their holdings found, erased, results and states
//! rewritten under conditions.

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use redb::{ReadableDatabase, ReadableTable};

use crate::commit::SourceKey;
use crate::error::StoreError;
use crate::model::balance_board;
use crate::traits::{ErasureStore, Holdings};

use super::keys::*;
use super::store::EmbeddedStore;
use super::txn::*;

/// Every game, in the order a player's balances are listed.
const GAMES: [Game; 4] = [
    Game::Seega,
    Game::DotsAndBoxes,
    Game::Minesweeper,
    Game::MahjongRivals,
];

/// What the store keeps under `player`, and the keys of their items (balances,
/// period entries, claims, states, ledger entries, references): one range read of
/// `p/{player}/`.
fn player_items(
    items: &impl ReadableTable<&'static str, &'static [u8]>,
    player: &str,
) -> Result<(Holdings, Vec<String>), StoreError> {
    let mut out = Holdings::default();
    let mut found: Vec<String> = Vec::new();
    let own = owner_prefix(player);
    for entry in items.range::<&str>(own.as_str()..prefix_end(&own).as_str())? {
        let (k, v) = entry?;
        let key = k.value();
        let Some((kind, rest)) = key.strip_prefix(own.as_str()).and_then(owned_kind) else {
            continue;
        };
        match kind {
            Owned::Balance => match Game::from_id(rest) {
                Some(game) => out.balances.push(game),
                None => continue,
            },
            Owned::Period => match rest.split_once('@') {
                Some((board, period)) => out.entries.push(BoardRef::new(board, period)),
                None => continue,
            },
            Owned::Claim => {
                out.claims += 1;
                out.claim_items
                    .push((rest.to_string(), String::from_utf8_lossy(v.value()).into_owned()));
            }
            Owned::State => {
                out.states += 1;
                let item: StateItem = decode(key, v.value())?;
                out.state_items.push((rest.to_string(), item.body));
            }
            Owned::Ledger => out.ledger.push(decode(key, v.value())?),
            Owned::Ref => out
                .refs
                .push(serde_json::from_slice(v.value()).map_err(|e| StoreError::corrupt(key, e))?),
            // The ledger by settlement: the same entries again, removed with the others.
            Owned::Time => {}
        }
        found.push(key.to_string());
    }
    // Balances in the games' own order, as before the keys were owner first.
    out.balances.sort_by_key(|g| GAMES.iter().position(|x| x == g));
    Ok((out, found))
}

#[async_trait]
impl ErasureStore for EmbeddedStore {
    async fn holdings(&self, player_id: &str) -> Result<Holdings, StoreError> {
        let player = player_id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            Ok(player_items(&txn.open_table(ITEMS)?, &player)?.0)
        })
        .await
    }

    /// One write transaction: the moved ledger entries written, every item of the
    /// player and their board entries removed.
    async fn erase_holdings(&self, player_id: &str, pseudonym: &str) -> Result<(), StoreError> {
        let (player, pseudonym) = (player_id.to_string(), pseudonym.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            {
                let mut items = txn.open_table(ITEMS)?;
                let mut board_table = txn.open_table(BOARD)?;
                let (holdings, found) = player_items(&items, &player)?;
                for e in &holdings.ledger {
                    let moved = crate::model::pseudonymised(e, &player, &pseudonym);
                    items.insert(ledger_key(&moved).as_str(), encode(&moved).as_slice())?;
                    items.insert(ledger_time_key(&moved).as_str(), encode(&moved).as_slice())?;
                }
                for game in &holdings.balances {
                    if let (Some(board), Some(b)) =
                        (balance_board(*game), read_balance(&items, *game, &player)?)
                    {
                        board_table.remove(board_entry(&board, &b.board_key()).as_str())?;
                    }
                }
                for board in &holdings.entries {
                    if let Some(b) = read_period(&items, board, &player)? {
                        board_table.remove(board_entry(board, &b.board_key()).as_str())?;
                    }
                }
                for key in found {
                    items.remove(key.as_str())?;
                }
            }
            txn.commit()?;
            Ok(())
        })
        .await
    }

    async fn replace_source_result(&self, key: &SourceKey, result: &str) -> Result<bool, StoreError> {
        let (skey, result) = (source_key(key), result.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            let replaced = {
                let mut items = txn.open_table(ITEMS)?;
                let stored = match items.get(skey.as_str())? {
                    Some(v) => Some(decode::<SourceItem>(&skey, v.value())?),
                    None => None,
                };
                match stored {
                    Some(mut stored) => {
                        stored.result = result;
                        items.insert(skey.as_str(), encode(&stored).as_slice())?;
                        true
                    }
                    None => false,
                }
            };
            txn.commit()?;
            Ok(replaced)
        })
        .await
    }

    async fn move_source(&self, from: &SourceKey, to: &SourceKey, result: &str) -> Result<bool, StoreError> {
        let (from, to, result) = (source_key(from), source_key(to), result.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            let moved = {
                let mut items = txn.open_table(ITEMS)?;
                let stored = match items.get(from.as_str())? {
                    Some(v) => Some(decode::<SourceItem>(&from, v.value())?),
                    None => None,
                };
                match stored {
                    Some(mut stored) => {
                        stored.result = result;
                        if items.get(to.as_str())?.is_none() {
                            items.insert(to.as_str(), encode(&stored).as_slice())?;
                        }
                        items.remove(from.as_str())?;
                        true
                    }
                    None => false,
                }
            };
            txn.commit()?;
            Ok(moved)
        })
        .await
    }

    async fn replace_state(
        &self,
        owner: &str,
        name: &str,
        body: &str,
        version: u64,
    ) -> Result<bool, StoreError> {
        let (key, body) = (state_key(owner, name), body.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write()?;
            let replaced = {
                let mut items = txn.open_table(ITEMS)?;
                let stored = match items.get(key.as_str())? {
                    Some(v) => Some(decode::<StateItem>(&key, v.value())?),
                    None => None,
                };
                match stored {
                    Some(s) if s.version == version => {
                        let item = StateItem {
                            version: version + 1,
                            body,
                        };
                        items.insert(key.as_str(), encode(&item).as_slice())?;
                        true
                    }
                    _ => false,
                }
            };
            txn.commit()?;
            Ok(replaced)
        })
        .await
    }
}
