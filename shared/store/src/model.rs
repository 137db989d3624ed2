//! What the store keeps: balances and board entries, board keys, and opaque items
//! (the atomic write of a settlement is in [`crate::commit`]).

use podium_rules::game::Game;
use podium_rules::history::{HeldKey, KeyHistory};
use podium_rules::leaderboard::Standing;
use podium_rules::settlement::LedgerEntry;

/// Partition-key shards a board is spread over (LB-7).
///
/// At the LB-7 peak of 2,000 scored matches a second, 4,000 balances change a
/// second; each change moves the item in the board GSI (a delete and a put: 2 write
/// units), 8,000 GSI write units a second. Over 32 shards that is 250 a shard, a
/// quarter of DynamoDB's 1,000 per partition. Writers and readers must agree, so
/// this is a constant, not a setting; changing it needs a re-index.
pub const BOARD_SHARDS: u32 = 32;

/// A player's balance on one game's board, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Balance {
    pub player_id: String,
    pub game: Game,
    /// Points, ≥ 0 (SG-7).
    pub points: i64,
    /// Optimistic-concurrency version: 0 when the player has no balance item yet,
    /// +1 on every write.
    pub version: u64,
    /// When the player reached `points`: milliseconds since the Unix epoch (UTC), the
    /// instant of the event that set it (LB-2 tie order).
    pub reached_at_ms: i64,
    /// The entry's recent keys by server clock (LB-4: which one a snapshot holds).
    pub history: KeyHistory,
}

impl Balance {
    /// The balance of a player who has none yet: 0 points at version 0.
    pub fn absent(game: Game, player_id: &str) -> Self {
        Balance {
            player_id: player_id.to_string(),
            game,
            points: 0,
            version: 0,
            reached_at_ms: 0,
            history: KeyHistory::default(),
        }
    }

    /// The key this entry holds now.
    pub fn held(&self) -> HeldKey {
        HeldKey {
            value: self.points,
            reached_at_ms: self.reached_at_ms,
        }
    }

    /// The history after this entry is set to `points` reached at `reached_at_ms` by a
    /// write at `now_ms` (server clock): a new entry's, or this one's plus the key replaced.
    pub fn history_after(&self, points: i64, reached_at_ms: i64, now_ms: i64) -> KeyHistory {
        if self.version == 0 {
            KeyHistory::created(now_ms)
        } else {
            self.history.after_write(
                self.held(),
                HeldKey {
                    value: points,
                    reached_at_ms,
                },
                now_ms,
            )
        }
    }

    /// This balance's place on its board.
    pub fn board_key(&self) -> BoardKey {
        BoardKey {
            value: self.points,
            reached_at_ms: self.reached_at_ms,
            player_id: self.player_id.clone(),
        }
    }
}

/// The all-time board a game's balances are listed on (LB-1: `seega`), if it has one;
/// a game whose boards are period boards keeps balances off any board.
pub fn balance_board(game: Game) -> Option<podium_rules::board::BoardRef> {
    podium_rules::board::board_def(game.id()).map(|d| podium_rules::board::BoardRef::all_time(d.id))
}

/// The game that feeds a board (LB-1); Seega for a board podium does not know.
pub fn board_game(board: &podium_rules::board::BoardRef) -> Game {
    podium_rules::board::board_def(&board.board).map_or(Game::Seega, |d| d.game)
}

/// The item that marks `player_id` deleted (GM-6): partition key
/// `DELETED#{player id}`, sort key `TOMBSTONE`; its body is the deletion's progress
/// (written by `podium_service::operators::deletion`). Every [`crate::Commit`] checks it is absent
/// for each player it writes anything of.
/// What a player's guard item ([`tombstone_key`]) says: no item, a suspension
/// (OP-4: its body's `state` is `suspended`), or a deletion begun or done (GM-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Account {
    Active,
    Suspended,
    Deleted,
}

impl Account {
    /// The account a guard item's body (JSON with a `state`) stands for; `None`: no item.
    pub fn of_guard(body: Option<&[u8]>) -> Account {
        #[derive(serde::Deserialize)]
        struct Guard {
            #[serde(default)]
            state: String,
        }
        match body {
            None => Account::Active,
            Some(b) => match serde_json::from_slice::<Guard>(b) {
                Ok(g) if g.state == SUSPENDED => Account::Suspended,
                _ => Account::Deleted,
            },
        }
    }
}

/// The guard item's `state` while a player is suspended (OP-4).
pub const SUSPENDED: &str = "suspended";

/// The key of a player's guard item (`DELETED#{player}` / `TOMBSTONE`): while it
/// exists no commit writes or names the player. It holds a deletion (GM-6, for good)
/// or a suspension (OP-4, until restored).
pub fn tombstone_key(player_id: &str) -> ItemKey {
    ItemKey::new(["DELETED#", player_id].concat(), "TOMBSTONE")
}

/// A ledger entry's place in a player's point history (GM-4): its settlement order
/// ([`LedgerEntry::seq`](podium_rules::settlement::LedgerEntry::seq), the balance's
/// version after it), source kind and source id. History lists newest settled first,
/// so each entry's `balance_after` is the balance the one before it started from,
/// whatever the events' own instants (a late record settles after earlier ones).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LedgerPosition {
    pub seq: u64,
    pub source: String,
    pub source_id: String,
}

impl LedgerPosition {
    /// The position of `entry`.
    pub fn of(entry: &podium_rules::settlement::LedgerEntry) -> Self {
        LedgerPosition {
            seq: entry.seq,
            source: entry.source.clone(),
            source_id: entry.source_id.clone(),
        }
    }

    /// This position as a key that sorts a player's entries of `game` by settlement:
    /// `{game}#{seq, 15 digits}#{source}#{source id}` (both stores index it).
    pub fn index_key(&self, game: Game) -> String {
        format!(
            "{}#{:015}#{}#{}",
            game.id(),
            self.seq.min(999_999_999_999_999),
            self.source,
            self.source_id
        )
    }
}

/// The key of an [`Item`]: a partition key and a sort key (no `#` restrictions
/// beyond what the caller builds; both are plain strings).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ItemKey {
    pub pk: String,
    pub sk: String,
}

impl ItemKey {
    pub fn new(pk: impl Into<String>, sk: impl Into<String>) -> Self {
        ItemKey {
            pk: pk.into(),
            sk: sk.into(),
        }
    }
}

/// Which sort keys of one partition a [`crate::ItemStore::query_items`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortKeyRange {
    /// Every item of the partition.
    All,
    /// Sort keys strictly before this one.
    Before(String),
    /// Sort keys up to and including this one.
    AtOrBefore(String),
    /// Sort keys strictly after this one.
    After(String),
    /// Sort keys from this one on.
    AtOrAfter(String),
}

/// DynamoDB's limits on key attributes (bytes): a partition key of 1–2,048, a sort
/// key of 1–1,024. Both stores refuse other keys before any request
/// ([`crate::StoreError::OutOfLimits`]), so that both answer alike.
pub const MAX_PARTITION_KEY_BYTES: usize = 2_048;
pub const MAX_SORT_KEY_BYTES: usize = 1_024;

/// Checks a key against [`MAX_PARTITION_KEY_BYTES`] and [`MAX_SORT_KEY_BYTES`].
pub fn check_key(pk: &str, sk: &str) -> Result<(), crate::StoreError> {
    if pk.is_empty() || pk.len() > MAX_PARTITION_KEY_BYTES {
        return Err(crate::StoreError::OutOfLimits(format!(
            "partition key of {} bytes (1 to {MAX_PARTITION_KEY_BYTES})",
            pk.len()
        )));
    }
    if sk.is_empty() || sk.len() > MAX_SORT_KEY_BYTES {
        return Err(crate::StoreError::OutOfLimits(format!(
            "sort key of {} bytes (1 to {MAX_SORT_KEY_BYTES})",
            sk.len()
        )));
    }
    Ok(())
}

/// DynamoDB's limit on one item (bytes, attribute names and values counted): 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// What an opaque item ([`crate::ItemStore`]) holds besides its key and body, as
/// DynamoDB counts it: the attribute names `pk`, `sk`, `body`, `version` and
/// `expires_at`, and the two numbers (at most 21 bytes each).
const ITEM_OVERHEAD_BYTES: usize = 2 + 2 + 4 + 7 + 21 + 10 + 21;

/// The most bytes the body of an opaque item under `key` may hold
/// ([`MAX_ITEM_BYTES`] less its key and other attributes).
pub fn max_body_bytes(key: &ItemKey) -> usize {
    MAX_ITEM_BYTES.saturating_sub(key.pk.len() + key.sk.len() + ITEM_OVERHEAD_BYTES)
}

/// Checks an opaque item (its key by [`check_key`], its body by [`max_body_bytes`]).
/// Both stores refuse a larger item before any request
/// ([`crate::StoreError::OutOfLimits`], nothing written), so that both answer alike
/// and no item reaches DynamoDB's own validation (which would answer a defect).
pub fn check_item(key: &ItemKey, body: &[u8]) -> Result<(), crate::StoreError> {
    check_key(&key.pk, &key.sk)?;
    let max = max_body_bytes(key);
    if body.len() > max {
        return Err(crate::StoreError::OutOfLimits(format!(
            "an item body of {} bytes under {}/{} (at most {max}: DynamoDB's {MAX_ITEM_BYTES}-byte item limit)",
            body.len(),
            key.pk,
            key.sk
        )));
    }
    Ok(())
}

/// The most items one [`crate::ItemStore::put_items_if`] writes (DynamoDB's limit on
/// one transaction).
pub const MAX_ITEM_WRITES: usize = 100;

/// The most bytes (keys and bodies) one transaction may write: DynamoDB's 4 MB.
pub const MAX_TRANSACTION_BYTES: usize = 4_000_000;

/// Checks the writes of one [`crate::ItemStore::put_items_if`]: at most
/// [`MAX_ITEM_WRITES`] and [`MAX_TRANSACTION_BYTES`], distinct keys, each item by
/// [`check_item`].
pub fn check_item_writes(writes: &[(ItemKey, Vec<u8>, u64)]) -> Result<(), crate::StoreError> {
    if writes.len() > MAX_ITEM_WRITES {
        return Err(crate::StoreError::OutOfLimits(format!(
            "{} items in one transaction (at most {MAX_ITEM_WRITES})",
            writes.len()
        )));
    }
    // DynamoDB refuses a transaction over 4 MB as a whole; refused alike on both stores.
    let total: usize = writes
        .iter()
        .map(|(k, body, _)| k.pk.len() + k.sk.len() + body.len())
        .sum();
    if total > MAX_TRANSACTION_BYTES {
        return Err(crate::StoreError::OutOfLimits(format!(
            "{total} bytes in one transaction (at most {MAX_TRANSACTION_BYTES})"
        )));
    }
    for (i, (key, body, _)) in writes.iter().enumerate() {
        check_item(key, body)?;
        if writes[..i].iter().any(|(k, _, _)| k == key) {
            return Err(crate::StoreError::OutOfLimits(format!(
                "the item {}/{} twice in one transaction",
                key.pk, key.sk
            )));
        }
    }
    Ok(())
}

impl SortKeyRange {
    /// The sort key this range is bounded by, if any.
    pub fn bound(&self) -> Option<&str> {
        match self {
            SortKeyRange::All => None,
            SortKeyRange::Before(s)
            | SortKeyRange::AtOrBefore(s)
            | SortKeyRange::After(s)
            | SortKeyRange::AtOrAfter(s) => Some(s),
        }
    }
}

/// An opaque item of [`crate::ItemStore`]: its body and its version (1 on first write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub body: Vec<u8>,
    pub version: u64,
}

/// A place on a board in LB-2 listing order: value descending, then reached first,
/// then player id. Its [`encode`](BoardKey::encode)d form sorts the same way as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardKey {
    /// Board value (points), ≥ 0.
    pub value: i64,
    /// When it was reached, ms since the Unix epoch (UTC), 0 … 10^15 − 1.
    pub reached_at_ms: i64,
    pub player_id: String,
}

const MAX_MS: i64 = 999_999_999_999_999;

/// Appends `n` in decimal, zero-padded to `width` digits (wider numbers keep all
/// their digits, as `{n:0width$}` does).
fn push_padded(out: &mut String, n: u64, width: usize) {
    let mut buffer = itoa::Buffer::new();
    let digits = buffer.format(n);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

impl BoardKey {
    /// The key just before every entry of `value`: entries before it are exactly
    /// those with a strictly higher value (so a count before it, plus 1, is the LB-2 rank).
    pub fn first_of_value(value: i64) -> Self {
        BoardKey {
            value,
            reached_at_ms: 0,
            player_id: String::new(),
        }
    }

    /// `IIIIIIIIIIIIIIIIIII#TTTTTTTTTTTTTTT#player`: 19 digits of `i64::MAX − value`,
    /// 15 digits of milliseconds, the player id. Byte order equals listing order.
    pub fn encode(&self) -> String {
        // Written digit by digit into one allocation: every read of a caller's place
        // builds one (a `format!` with padding was the bulk of its cost).
        let inverted = (i64::MAX - self.value.max(0)) as u64;
        let at = self.reached_at_ms.clamp(0, MAX_MS) as u64;
        let mut key = String::with_capacity(19 + 1 + 15 + 1 + self.player_id.len());
        push_padded(&mut key, inverted, 19);
        key.push('#');
        push_padded(&mut key, at, 15);
        key.push('#');
        key.push_str(&self.player_id);
        key
    }

    /// The inverse of [`encode`](BoardKey::encode); `None` for anything else.
    pub fn decode(s: &str) -> Option<Self> {
        let (inv, rest) = s.split_once('#')?;
        let (at, player) = rest.split_once('#')?;
        if inv.len() != 19 || at.len() != 15 {
            return None;
        }
        let inverted: i64 = inv.parse().ok()?;
        Some(BoardKey {
            value: i64::MAX - inverted,
            reached_at_ms: at.parse().ok()?,
            player_id: player.to_string(),
        })
    }

    /// The key of `standing` on its board.
    pub fn of(standing: &Standing) -> Self {
        BoardKey {
            value: standing.value,
            reached_at_ms: standing.reached_at_ms,
            player_id: standing.player_id.clone(),
        }
    }

    /// The standing this key stands for.
    pub fn into_standing(self) -> Standing {
        Standing {
            player_id: self.player_id,
            value: self.value,
            reached_at_ms: self.reached_at_ms,
        }
    }
}

/// The board shard (0 … [`BOARD_SHARDS`] − 1) a player's entry lives in: FNV-1a of
/// the player id, so it is stable across processes and releases.
pub fn board_shard(player_id: &str) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in player_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h % u64::from(BOARD_SHARDS)) as u32
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

#[cfg(test)]
mod tests {
    use super::*;
    use podium_rules::leaderboard::listing_order;

    fn key(v: i64, t: i64, p: &str) -> BoardKey {
        BoardKey {
            value: v,
            reached_at_ms: t,
            player_id: p.into(),
        }
    }

    /// LB-2: the encoded keys sort like the listing order.
    #[test]
    fn encoding_sorts_in_listing_order() {
        let keys = [
            key(101, 9, "A"),
            key(100, 3, "B"),
            key(100, 5, "C"),
            key(100, 5, "Ca"),
            key(99, 1, "D"),
            key(0, 0, "E"),
        ];
        for w in keys.windows(2) {
            assert!(w[0].encode() < w[1].encode(), "{:?} {:?}", w[0], w[1]);
            let (a, b) = (w[0].clone().into_standing(), w[1].clone().into_standing());
            assert_eq!(listing_order(&a, &b), std::cmp::Ordering::Less);
        }
        assert!(BoardKey::first_of_value(100).encode() < key(100, 0, "0").encode());
        assert!(BoardKey::first_of_value(100).encode() > key(101, MAX_MS, "zzz").encode());
        for k in keys {
            assert_eq!(BoardKey::decode(&k.encode()), Some(k));
        }
    }

    proptest::proptest! {
        /// The key written digit by digit is the padded `format!` it replaced.
        #[test]
        fn encoding_is_the_padded_format(value in proptest::prelude::any::<i64>(), at in proptest::prelude::any::<i64>(), id in "[a-z0-9-]{0,12}") {
            let k = key(value, at, &id);
            let inverted = i64::MAX - value.max(0);
            let clamped = at.clamp(0, MAX_MS);
            proptest::prop_assert_eq!(k.encode(), format!("{inverted:019}#{clamped:015}#{id}"));
        }
    }

    #[test]
    fn padding_keeps_wide_numbers_whole() {
        let mut s = String::new();
        push_padded(&mut s, u64::MAX, 19);
        assert_eq!(s, u64::MAX.to_string());
        s.clear();
        push_padded(&mut s, 0, 3);
        assert_eq!(s, "000");
    }

    #[test]
    fn shards_spread() {
        let mut counts = [0u32; BOARD_SHARDS as usize];
        for i in 0..32_000 {
            counts[board_shard(&format!("p-{i}")) as usize] += 1;
        }
        assert!(counts.iter().all(|c| (800..1200).contains(c)), "{counts:?}");
    }
}
