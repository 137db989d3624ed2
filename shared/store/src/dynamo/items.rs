//! How podium's values are laid out as DynamoDB items: key builders, attribute
//! helpers, and the board-entry item (a Seega balance or a period-board value).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::history::KeyHistory;
use podium_rules::settlement::LedgerEntry;

use crate::error::StoreError;
use crate::model::{board_shard, Balance, BoardKey, LedgerPosition};

pub(crate) type Item = HashMap<String, AttributeValue>;

pub(crate) fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

pub(crate) fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

pub(crate) fn get_s<'a>(item: &'a Item, name: &str) -> Result<&'a str, StoreError> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Ok(v),
        _ => Err(StoreError::corrupt(name, "missing string attribute")),
    }
}

pub(crate) fn get_n<T: std::str::FromStr>(item: &Item, name: &str) -> Result<T, StoreError> {
    match item.get(name) {
        Some(AttributeValue::N(v)) => v
            .parse()
            .map_err(|_| StoreError::corrupt(name, "not a number in range")),
        _ => Err(StoreError::corrupt(name, "missing number attribute")),
    }
}

pub(crate) fn get_b<'a>(item: &'a Item, name: &str) -> Result<&'a [u8], StoreError> {
    match item.get(name) {
        Some(AttributeValue::B(b)) => Ok(b.as_ref()),
        _ => Err(StoreError::corrupt(name, "missing binary attribute")),
    }
}

pub(crate) fn source_pk(key: &crate::commit::SourceKey) -> String {
    format!("SOURCE#{}#{}", key.kind, key.id)
}

pub(crate) fn claim_sk(game: Game, kind: &str, day: &str) -> String {
    format!("CLAIM#{}#{kind}#{day}", game.id())
}

pub(crate) fn state_sk(name: &str) -> String {
    format!("STATE#{name}")
}

/// The sort key of a reference (GM-6) in the referencing player's partition.
pub(crate) fn ref_sk(named: &crate::commit::Named) -> String {
    format!("REF#{}", named.key())
}

pub(crate) fn player_pk(id: &str) -> String {
    format!("PLAYER#{id}")
}

pub(crate) fn balance_sk(game: Game) -> String {
    format!("BALANCE#{}", game.id())
}

pub(crate) fn period_sk(board: &BoardRef) -> String {
    format!("BOARD#{}", board.key())
}

pub(crate) fn shard_id(board: &BoardRef, shard: u32) -> String {
    format!("{}#{shard:02}", board.key())
}

pub(crate) fn ledger_sk(e: &LedgerEntry) -> String {
    format!("LEDGER#{}#{}#{}", e.game.id(), e.source, e.source_id)
}

/// The sort key of a ledger entry in the `ledger` GSI ([`LedgerPosition::index_key`]).
pub(crate) fn ledger_at(game: Game, at: &LedgerPosition) -> String {
    at.index_key(game)
}

/// What a board entry holds: value, version, when reached, and its key history.
pub(crate) struct EntryValues<'a> {
    pub value: i64,
    pub version: u64,
    pub reached_at_ms: i64,
    pub history: &'a KeyHistory,
}

/// A board entry item under `sk` of the player's partition, with the key history
/// (`hist`) and, when it is listed on `board`, the attributes of the `board` GSI
/// (`board_shard`, `board_key`).
pub(crate) fn entry_item(sk: String, board: Option<&BoardRef>, player: &str, v: EntryValues<'_>) -> Item {
    let mut item = HashMap::from([
        ("pk".to_string(), s(player_pk(player))),
        ("sk".to_string(), s(sk)),
        ("points".to_string(), n(v.value)),
        ("version".to_string(), n(v.version)),
        ("reached_at_ms".to_string(), n(v.reached_at_ms)),
        ("hist".to_string(), s(v.history.encode())),
    ]);
    if let Some(board) = board {
        let key = BoardKey {
            value: v.value,
            reached_at_ms: v.reached_at_ms,
            player_id: player.to_string(),
        };
        item.insert("board_shard".to_string(), s(shard_id(board, board_shard(player))));
        item.insert("board_key".to_string(), s(key.encode()));
    }
    item
}

/// The board entry stored in `item` (entries written before histories were kept
/// read with an empty history).
pub(crate) fn decode_entry(item: &Item, player: &str, game: Game) -> Result<Balance, StoreError> {
    let history = match item.get("hist") {
        Some(AttributeValue::S(h)) => {
            KeyHistory::decode(h).ok_or_else(|| StoreError::corrupt(player_pk(player), "bad key history"))?
        }
        _ => KeyHistory::default(),
    };
    Ok(Balance {
        player_id: player.to_string(),
        game,
        points: get_n(item, "points")?,
        version: get_n(item, "version")?,
        reached_at_ms: get_n(item, "reached_at_ms")?,
        history,
    })
}
