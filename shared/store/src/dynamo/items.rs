//! How podium's values are laid out as DynamoDB items: key builders, attribute
//! helpers, and the board-entry item (a Seega balance or a period-board value).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::history::KeyHistory;
use podium_rules::settlement::LedgerEntry;

use crate::error::StoreError;
use crate::model::{board_shard, check_key, Balance, BoardKey, LedgerPosition};

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

/// The GSI that lists a player's ledger entries by instant (partition key `pk`, sort
/// key `ledger_at`, projecting `entry`).
pub const LEDGER_INDEX: &str = "ledger";

/// Where a source record carries one of its two players' ledger entries (GM-4), and the
/// GSI that lists it in that player's point history: partition key `pk` (the player's
/// `PLAYER#{id}`), sort key `at` (as `ledger_at`), projecting `entry` (the entry's JSON).
#[derive(Debug, Clone, Copy)]
pub struct CarriedLedger {
    /// The GSI's name.
    pub index: &'static str,
    /// The attribute holding the player's partition key.
    pub pk: &'static str,
    /// The attribute holding the entry's position ([`LedgerPosition::index_key`](crate::model::LedgerPosition::index_key)).
    pub at: &'static str,
    /// The attribute holding the entry (JSON).
    pub entry: &'static str,
}

impl CarriedLedger {
    /// The entry an item listed by this GSI carries (base table item or index item).
    pub(crate) fn decode(&self, item: &Item) -> Result<LedgerEntry, StoreError> {
        carried_entry(
            get_s(item, self.pk)?,
            get_s(item, self.at)?,
            get_s(item, self.entry)?,
        )
    }
}

/// The two places of a two-player source record's ledger entries: GSIs `ledger_a` and
/// `ledger_b`. A match between two players writes no ledger item of its own (each
/// would be a transaction item of 2 write units and a `ledger` GSI write): the record
/// carries both entries and each GSI adds one standard write.
pub const CARRIED_LEDGER: [CarriedLedger; 2] = [
    CarriedLedger {
        index: "ledger_a",
        pk: "la_pk",
        at: "la_at",
        entry: "la_entry",
    },
    CarriedLedger {
        index: "ledger_b",
        pk: "lb_pk",
        at: "lb_at",
        entry: "lb_entry",
    },
];

/// A carried entry's three attributes: the player's partition key, its position
/// (`{game}#{seq}#{source}#{source id}`), and the rest of the entry as JSON
/// ([`CarriedEntry`]: what the two keys do not already say, so the record stays within
/// one KB of transaction write).
pub(crate) fn carried_attributes(e: &LedgerEntry) -> Result<(String, String, String), StoreError> {
    let pk = player_pk(&e.player_id);
    let at = ledger_at(e.game, &LedgerPosition::of(e));
    check_key(&pk, &at)?;
    let rest = CarriedEntry {
        at: e.at,
        nominal: e.nominal,
        applied: e.applied,
        balance_after: e.balance_after,
        rule: e.rule.clone(),
        settled_at: e.settled_at,
        note: e.note.clone(),
    };
    let entry = serde_json::to_string(&rest).map_err(|err| StoreError::corrupt("entry", err))?;
    Ok((pk, at, entry))
}

/// The ledger entry a source record carries, from its three attributes (as
/// [`carried_attributes`] wrote them).
pub(crate) fn carried_entry(pk: &str, at: &str, entry: &str) -> Result<LedgerEntry, StoreError> {
    let bad = |why: &str| StoreError::corrupt(at.to_string(), why.to_string());
    let player_id = pk
        .strip_prefix("PLAYER#")
        .ok_or_else(|| bad("not a player key"))?;
    let mut parts = at.splitn(4, '#');
    let (Some(game), Some(seq), Some(source), Some(source_id)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("not a ledger position"));
    };
    let rest: CarriedEntry =
        serde_json::from_str(entry).map_err(|e| StoreError::corrupt(at.to_string(), e))?;
    Ok(LedgerEntry {
        player_id: player_id.to_string(),
        game: Game::from_id(game).ok_or_else(|| bad("unknown game"))?,
        source: source.to_string(),
        source_id: source_id.to_string(),
        at: rest.at,
        nominal: rest.nominal,
        applied: rest.applied,
        balance_after: rest.balance_after,
        rule: rest.rule,
        seq: seq.parse().map_err(|_| bad("not a sequence number"))?,
        settled_at: rest.settled_at,
        note: rest.note,
    })
}

/// A carried ledger entry without what its attributes' keys hold (player, game, source,
/// source id, sequence number): short field names, as it is written with every match.
#[derive(serde::Serialize, serde::Deserialize)]
struct CarriedEntry {
    #[serde(rename = "t")]
    at: chrono::DateTime<chrono::Utc>,
    #[serde(rename = "n")]
    nominal: i64,
    #[serde(rename = "a")]
    applied: i64,
    #[serde(rename = "b")]
    balance_after: i64,
    #[serde(rename = "r")]
    rule: String,
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    settled_at: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(rename = "w", default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}
