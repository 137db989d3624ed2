//! The redb tables and how each item is keyed and encoded in them.

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::history::KeyHistory;
use podium_rules::settlement::LedgerEntry;
use redb::TableDefinition;
use serde::{Deserialize, Serialize};

use crate::commit::SourceKey;
use crate::error::StoreError;
use crate::model::{BoardKey, Item, ItemKey, LedgerPosition};

/// Items by key: `source/{kind}/{id}`, `balance/{game}/{player}`,
/// `period/{board}@{period}/{player}`, `claim/{player}/{game}/{kind}/{day}`,
/// `state/{player}/{name}`, `ledger/{player}/{game}/{source}/{id}`,
/// `ref/{player}/{named item's key}` (GM-6: [`crate::Reference`]).
pub(crate) const ITEMS: TableDefinition<&str, &[u8]> = TableDefinition::new("items");

/// Board entries: `{game}/{encoded BoardKey}` → nothing; ordered as LB-2 lists them.
pub(crate) const BOARD: TableDefinition<&str, ()> = TableDefinition::new("board");

/// Ledger entries by instant: `{player}\u{0}{LedgerPosition::index_key}` → the entry.
pub(crate) const LEDGER_BY_TIME: TableDefinition<&str, &[u8]> = TableDefinition::new("ledger_by_time");

/// Opaque items of [`ItemStore`]: `{pk}\u{0}{sk}` → 8-byte big-endian version, then the body.
pub(crate) const BLOBS: TableDefinition<&str, &[u8]> = TableDefinition::new("blobs");

#[derive(Serialize, Deserialize)]
pub(crate) struct BalanceItem {
    pub(crate) points: i64,
    pub(crate) version: u64,
    pub(crate) reached_at_ms: i64,
    #[serde(default)]
    pub(crate) history: KeyHistory,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct SourceItem {
    pub(crate) content_hash: String,
    pub(crate) attempt: Option<String>,
    pub(crate) result: String,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct StateItem {
    pub(crate) version: u64,
    pub(crate) body: String,
}

pub(crate) fn source_key(key: &SourceKey) -> String {
    format!("source/{}/{}", key.kind, key.id)
}

pub(crate) fn claim_key(player: &str, game: Game, kind: &str, day: &str) -> String {
    format!("claim/{player}/{}/{kind}/{day}", game.id())
}

pub(crate) fn state_key(player: &str, name: &str) -> String {
    format!("state/{player}/{name}")
}

pub(crate) fn balance_key(game: Game, player: &str) -> String {
    ["balance/", game.id(), "/", player].concat()
}

pub(crate) fn ledger_prefix(game: Game, player: &str) -> String {
    format!("ledger/{player}/{}/", game.id())
}

pub(crate) fn board_prefix(board: &BoardRef) -> String {
    format!("{}/", board.key())
}

pub(crate) fn board_entry(board: &BoardRef, key: &BoardKey) -> String {
    format!("{}{}", board_prefix(board), key.encode())
}

pub(crate) fn decode<T: for<'de> Deserialize<'de>>(key: &str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::corrupt(key, e))
}

pub(crate) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Plain structs of strings and integers always serialise.
    serde_json::to_vec(value).unwrap_or_default()
}

pub(crate) fn ref_key(player: &str, named: &crate::Named) -> String {
    format!("ref/{player}/{}", named.key())
}

pub(crate) fn ledger_time_key(e: &LedgerEntry) -> String {
    format!("{}\u{0}{}", e.player_id, LedgerPosition::of(e).index_key(e.game))
}

pub(crate) fn ledger_key(e: &LedgerEntry) -> String {
    format!(
        "{}{}/{}",
        ledger_prefix(e.game, &e.player_id),
        e.source,
        e.source_id
    )
}

pub(crate) fn blob_key(key: &ItemKey) -> String {
    format!("{}\u{0}{}", key.pk, key.sk)
}

pub(crate) fn read_blob(raw: &[u8]) -> Item {
    let (version, body) = raw.split_at(raw.len().min(8));
    let mut v = [0u8; 8];
    v[..version.len()].copy_from_slice(version);
    Item {
        body: body.to_vec(),
        version: u64::from_be_bytes(v),
    }
}

pub(crate) fn blob(version: u64, body: &[u8]) -> Vec<u8> {
    let mut raw = version.to_be_bytes().to_vec();
    raw.extend_from_slice(body);
    raw
}

pub(crate) fn period_key(board: &BoardRef, player: &str) -> String {
    format!("period/{}/{player}", board.key())
}
