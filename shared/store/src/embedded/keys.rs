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

/// Items by key: `source/{kind}/{id}`, and every item of one owner (a player, or an
/// internal owner such as a league cohort) under `p/{owner}/`, one letter naming the
/// kind: `b/{game}` (balance), `c/{game}/{kind}/{day}` (claim), `e/{board}@{period}`
/// (period entry), `r/{named item's key}` (GM-6: [`crate::Reference`]), `s/{name}`
/// (state), then a ledger entry twice (last: a long ledger does not split the others):
/// `t/{LedgerPosition::index_key}` (by settlement, for pages newest first) and
/// `x/{game}/{source}/{id}` (by source). An owner's items lie side by side, so a settlement rewrites one
/// or two of the tree's pages for each player instead of one for each item
/// ([`super::layout`]).
pub(crate) const ITEMS: TableDefinition<&str, &[u8]> = TableDefinition::new("owned_items");

/// Board entries: `{game}/{encoded BoardKey}` → nothing; ordered as LB-2 lists them.
pub(crate) const BOARD: TableDefinition<&str, ()> = TableDefinition::new("board");

/// The ledger entries by settlement of layouts 1 and 2,
/// `{player}\u{0}{LedgerPosition::index_key}` → the entry: read only to upgrade a file
/// ([`super::layout`]); now `p/{player}/t/…` in [`ITEMS`].
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fields: Option<String>,
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
    format!("{}{}/{kind}/{day}", owned(player, Owned::Claim), game.id())
}

pub(crate) fn state_key(player: &str, name: &str) -> String {
    format!("{}{name}", owned(player, Owned::State))
}

pub(crate) fn balance_key(game: Game, player: &str) -> String {
    owned(player, Owned::Balance) + game.id()
}

pub(crate) fn ledger_prefix(game: Game, player: &str) -> String {
    format!("{}{}/", owned(player, Owned::Ledger), game.id())
}

pub(crate) fn board_prefix(board: &BoardRef) -> String {
    format!("{}/", board.key())
}

pub(crate) fn board_entry(board: &BoardRef, key: &BoardKey) -> String {
    format!("{}{}", board_prefix(board), key.encode())
}

/// The first byte of a board entry (a balance or a period entry) as layout 5 stores it,
/// postcard after it (integers as varints: 142 bytes with a full [`KeyHistory`] of 8
/// past keys, 747 as JSON, in the unit test below; so more of an owner's items share a page). Earlier layouts stored JSON
/// (first byte `{`), still read; each is rewritten compactly when next written.
const COMPACT_ENTRY: u8 = 1;

/// A board entry as stored ([`COMPACT_ENTRY`]); `key` names it in the error, were
/// postcard ever to refuse it (never written as a bare version byte).
pub(crate) fn encode_entry(key: &str, item: &BalanceItem) -> Result<Vec<u8>, StoreError> {
    let mut raw = vec![COMPACT_ENTRY];
    raw.extend(postcard::to_allocvec(item).map_err(|e| StoreError::corrupt(key, e))?);
    Ok(raw)
}

/// A board entry stored under `key`, compact or (written before layout 5) JSON.
pub(crate) fn decode_entry(key: &str, raw: &[u8]) -> Result<BalanceItem, StoreError> {
    match raw.split_first() {
        Some((&COMPACT_ENTRY, rest)) => postcard::from_bytes(rest).map_err(|e| StoreError::corrupt(key, e)),
        _ => decode(key, raw),
    }
}

pub(crate) fn decode<T: for<'de> Deserialize<'de>>(key: &str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::corrupt(key, e))
}

pub(crate) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Plain structs of strings and integers always serialise.
    serde_json::to_vec(value).unwrap_or_default()
}

pub(crate) fn ref_key(player: &str, named: &crate::Named) -> String {
    format!("{}{}", owned(player, Owned::Ref), named.key())
}

pub(crate) fn ledger_time_key(e: &LedgerEntry) -> String {
    owned(&e.player_id, Owned::Time) + &LedgerPosition::of(e).index_key(e.game)
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
    format!("{}{}", owned(player, Owned::Period), board.key())
}

/// The kinds of item an owner holds under `p/{owner}/` ([`ITEMS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owned {
    Balance,
    Claim,
    Period,
    Ref,
    State,
    /// A ledger entry by settlement.
    Time,
    /// A ledger entry by source.
    Ledger,
}

impl Owned {
    const ALL: [Owned; 7] = [
        Owned::Balance,
        Owned::Claim,
        Owned::Period,
        Owned::Ref,
        Owned::State,
        Owned::Time,
        Owned::Ledger,
    ];

    /// The letter naming the kind in a key.
    fn letter(self) -> char {
        match self {
            Owned::Balance => 'b',
            Owned::Claim => 'c',
            Owned::Period => 'e',
            Owned::Ref => 'r',
            Owned::State => 's',
            Owned::Time => 't',
            Owned::Ledger => 'x',
        }
    }
}

/// The start of every key of `owner`'s items of `kind`: `p/{owner}/{letter}/`.
pub(crate) fn owned(owner: &str, kind: Owned) -> String {
    format!("p/{owner}/{}/", kind.letter())
}

/// The start of every key of `owner`'s items: `p/{owner}/`.
pub(crate) fn owner_prefix(owner: &str) -> String {
    format!("p/{owner}/")
}

/// The kind and the rest of an owned key past its [`owner_prefix`] (`{letter}/{rest}`);
/// `None` for anything else.
pub(crate) fn owned_kind(past_owner: &str) -> Option<(Owned, &str)> {
    let (letter, rest) = past_owner.split_once('/')?;
    let kind = Owned::ALL
        .into_iter()
        .find(|k| letter.len() == 1 && letter.starts_with(k.letter()))?;
    Some((kind, rest))
}

/// The end (exclusive) of a range of keys that start with `prefix`.
pub(crate) fn prefix_end(prefix: &str) -> String {
    format!("{prefix}\u{10FFFF}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_rules::history::PastKey;

    #[test]
    fn a_board_entry_is_stored_compactly_and_one_stored_as_json_still_reads() {
        let item = BalanceItem {
            points: 1_532,
            version: 41,
            reached_at_ms: 1_796_512_345_678,
            history: KeyHistory {
                created_at_ms: 1_796_000_000_000,
                updated_at_ms: 1_796_512_345_678,
                past: (0..8)
                    .map(|i| PastKey {
                        value: 1_500 + i,
                        reached_at_ms: 1_796_500_000_000 + i,
                        until_ms: 1_796_500_000_100 + i,
                    })
                    .collect(),
                truncated: true,
                known_since_ms: 1_796_400_000_000,
            },
        };
        let compact = encode_entry("p/p1/b/seega", &item).expect("encodes");
        let json = encode(&item);
        assert!(
            compact.len() * 4 < json.len(),
            "{} bytes, {} as JSON",
            compact.len(),
            json.len()
        );
        for raw in [compact, json] {
            let read = decode_entry("p/p1/b/seega", &raw).expect("reads");
            assert_eq!(
                (read.points, read.version, read.reached_at_ms, read.history),
                (
                    item.points,
                    item.version,
                    item.reached_at_ms,
                    item.history.clone()
                )
            );
        }
        assert!(decode_entry("p/p1/b/seega", &[COMPACT_ENTRY, 0xff]).is_err());
    }
}
