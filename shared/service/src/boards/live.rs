//! Reading boards and standings: the top page (LB-3), the caller's own entry with
//! neighbours (LB-4), the caller's profile (SG-12) and a finished match's result.
//!
//! Reads cost (DynamoDB; `S` = [`podium_store::BOARD_SHARDS`] = 32): a page is `S` Queries of at
//! most `limit + 1` keys each; around-me is 1 GetItem, 2 counts of `S` Queries each
//! (reading every key above the player: proportional to the rank, not constant) and
//! 2 × `S` Queries for the neighbours, and `S` Queries of one key each for the
//! nearest better value (the standing's gap); the profile is 1 GetItem; a match result is
//! 1 GetItem.

use chrono::{DateTime, Utc};
use podium_rules::board::{board_def, BoardDef, BoardRef, Order, Unit};
use podium_rules::display::format_points;
use podium_rules::game::Game;
use podium_rules::leaderboard::{RankCounter, Standing};
use podium_rules::profile::Card;
use podium_rules::seega::rank::rank_for;
use podium_rules::standing::Relative;
use podium_store::{Balance, BoardKey, BoardStore, ItemStore, PeriodStore, SettleStore};
use serde::Serialize;

use crate::boards::cursor::{Cursor, CursorKey};
use crate::boards::entries::balance_game;
use crate::boards::visibility::{Hidden, Line};
use crate::engine::names::deleted_player;
use crate::error::ServiceError;

/// Default and largest page size (LB-3).
pub const DEFAULT_PAGE: usize = 50;
pub const MAX_PAGE: usize = 100;
/// Default and largest number of neighbours each side (LB-4).
pub const DEFAULT_NEIGHBOURS: usize = 5;
pub const MAX_NEIGHBOURS: usize = 25;

/// One line of a board (LB-3). Written as a JSON object by hand (below): the card's
/// fields inline, as `flatten` describes them to the schema.
#[derive(Debug, Clone, PartialEq, Eq, utoipa::ToSchema)]
pub struct Entry {
    /// LB-2 rank: 1 + the number of players with a strictly higher value.
    pub rank: u64,
    pub player_id: String,
    /// Points; on a level's time ranking, the best time in milliseconds.
    pub value: i64,
    /// `value` as shown (DISP-1 … DISP-3; a time as `m:ss.mmm`).
    pub value_shown: String,
    /// On a defined board with tie-breaks (BD-5): each tie-break's value, in the
    /// definition's order (`[30]`: 30 moves); absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_breaks: Option<Vec<i64>>,
    /// SG-12 rank id and badge (the Seega board only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_id: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub badge: Option<&'static str>,
    /// The player's name, avatar and country (PF-5), each absent when unset.
    #[serde(flatten)]
    pub card: Card,
    /// How many places the entry climbed (negative: fell) since the previous snapshot
    /// and since the previous period's final; absent where unknown (a live board, a
    /// player new since then, a country board).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movement: Option<Movement>,
}

impl Serialize for Entry {
    /// The fields in declaration order, the card's (PF-5) in its place, every `None`
    /// left out: what the derive with `flatten` writes, as a struct, not a map (a map
    /// serialiser per entry was a tenth of an around-me answer's time).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Entry", 11)?;
        m.serialize_field("rank", &self.rank)?;
        m.serialize_field("player_id", &self.player_id)?;
        m.serialize_field("value", &self.value)?;
        m.serialize_field("value_shown", &self.value_shown)?;
        match &self.tie_breaks {
            Some(v) => m.serialize_field("tie_breaks", v)?,
            None => m.skip_field("tie_breaks")?,
        }
        for (name, v) in [("rank_id", self.rank_id), ("badge", self.badge)] {
            match v {
                Some(v) => m.serialize_field(name, v)?,
                None => m.skip_field(name)?,
            }
        }
        let card = &self.card;
        for (name, v) in [
            ("name", &card.name),
            ("avatar", &card.avatar),
            ("country", &card.country),
        ] {
            match v {
                Some(v) => m.serialize_field(name, v)?,
                None => m.skip_field(name)?,
            }
        }
        match &self.movement {
            Some(v) => m.serialize_field("movement", v)?,
            None => m.skip_field("movement")?,
        }
        m.end()
    }
}

/// Places climbed since earlier snapshots (PF-5): earlier rank − rank now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Movement {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since_previous: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since_final: Option<i64>,
}

impl Movement {
    /// The movement of an entry ranked `rank` now, `earlier` before; `None` when
    /// neither earlier rank is known.
    pub fn of(earlier: crate::boards::snapshot::codec::Earlier, rank: u64) -> Option<Movement> {
        let change = |r: u64| i64::try_from(r).unwrap_or(i64::MAX) - i64::try_from(rank).unwrap_or(i64::MAX);
        let m = Movement {
            since_previous: earlier.previous.map(change),
            since_final: earlier.last_final.map(change),
        };
        (m != Movement::default()).then_some(m)
    }
}

/// The caller's rank in an earlier snapshot, and the places climbed since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct EarlierRank {
    /// The earlier snapshot's id, or the period whose final it is.
    pub of: String,
    pub rank: u64,
    /// `rank` − the caller's rank now: +6 for a climb from 9th to 3rd.
    pub rank_change: i64,
}

/// The caller's movement (PF-5): against the board's previous snapshot and the
/// previous period's final, where the caller was on them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct StandingMovement {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_snapshot: Option<EarlierRank>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_final: Option<EarlierRank>,
}

/// Gives each of `entries` its player's card (PF-5): one batch read of their profiles.
pub(crate) async fn with_cards<S: ItemStore + ?Sized>(
    store: &S,
    entries: &mut [Entry],
) -> Result<(), ServiceError> {
    crate::profiles::cards::fill(
        store,
        entries.iter_mut().map(|e| (e.player_id.as_str(), &mut e.card)),
    )
    .await
}

/// A page of a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Page {
    pub board: String,
    /// The instant the ranks are of: the snapshot's, or for the live board the read instant (UTC).
    pub as_of: DateTime<Utc>,
    /// The snapshot read (LB-5); absent when the live board was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    pub entries: Vec<Entry>,
    /// Pass as `cursor` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
}

/// The caller's entry with neighbours (LB-4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct AroundMe {
    pub board: String,
    pub as_of: DateTime<Utc>,
    /// The snapshot read (LB-5); absent when the live board was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// The caller's own entry.
    pub me: Entry,
    /// Up to N entries listed just above the caller, then the caller, then up to N below,
    /// in listing order.
    pub entries: Vec<Entry>,
    /// The caller against the whole board: rank of N, top X %, the next better value
    /// and the top-100 cut-off, with the gaps to them.
    pub standing: Relative,
    /// Where the caller stood in earlier snapshots (PF-5); absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movement: Option<StandingMovement>,
    /// The caller's live entry this answer ranked (stored value, reached at, ms UTC):
    /// what its cache validators name besides the snapshot.
    #[serde(skip)]
    pub live_key: (i64, i64),
    /// The snapshot pointer this answer was built from (`None`: the live board): what
    /// its cache validators name, read once with the answer.
    #[serde(skip)]
    pub pointer: Option<std::sync::Arc<crate::boards::snapshot::layout::Published>>,
}

/// The caller's [`Relative`] standing on `board` (stored values; see
/// [`podium_rules::standing::relative`]).
pub(crate) fn relative(
    board: &BoardRef,
    rank: u64,
    of: Option<u64>,
    mine: i64,
    next_better: Option<i64>,
    cutoff: Option<i64>,
) -> Relative {
    if board_def(&board.board).is_none() {
        // A defined board (BD-12): gaps counted in its value, tie-breaks set aside.
        if let Some(shape) = crate::boards::defined::shape(board) {
            let v = |s: i64| shape.value_stored(s);
            return podium_rules::standing::relative(
                shape.order(),
                shape.unit,
                rank,
                of,
                v(mine),
                next_better.map(v),
                cutoff.map(v),
            );
        }
    }
    let (order, unit) =
        board_def(&board.board).map_or((Order::HigherFirst, Unit::Points), |d| (d.order, d.unit));
    podium_rules::standing::relative(order, unit, rank, of, mine, next_better, cutoff)
}

/// The caller's Seega profile (SG-12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Profile {
    pub player_id: String,
    #[schema(value_type = String, example = "seega")]
    pub game: Game,
    /// Points (0 for a player who has not finished a match).
    pub balance: i64,
    pub balance_shown: String,
    pub rank_id: &'static str,
    pub rank_name_ar: &'static str,
    pub rank_name_en: &'static str,
    pub badge: &'static str,
}

/// The board of LB-1 named `board`; [`ServiceError::NotFound`] for any other.
pub fn board_named(board: &str) -> Result<&'static BoardDef, ServiceError> {
    board_def(board)
        .ok_or_else(|| ServiceError::NotFound(format!("board {}", podium_rules::error::quoted(board))))
}

/// A player's current value on `board`: the Seega balance, or their points in the
/// period. [`ServiceError::NotFound`] when they have none there yet.
pub async fn board_value<S: BoardStore + PeriodStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    player_id: &str,
) -> Result<Balance, ServiceError> {
    // A country board's values are its board's (PF-3).
    let (board, _) = &crate::boards::snapshot::country::split(board);
    let found = if let Some(game) = balance_game(board) {
        store.get_balance(game, player_id).await?
    } else {
        store.period_entry(board, player_id).await?
    };
    found.ok_or_else(|| ServiceError::NotFound(format!("no entry on {} yet", board.board)))
}

fn is_seega(board: &BoardRef) -> bool {
    board.board == Game::Seega.id()
}

/// One line of `board` from a stored standing that a [`Hidden`] let through (OP-4),
/// at the rank it shows: its value in the board's order and unit (a level's time
/// ranking: the best time in ms, shown `m:ss.mmm`; MJ-3).
pub(crate) fn entry(board: &BoardRef, line: Line) -> Entry {
    let (s, rank) = line.into_parts();
    let seega = is_seega(board).then(|| rank_for(s.value));
    let (value, value_shown, tie_breaks) = match board_def(&board.board) {
        Some(def) => {
            let value = def.order.value_of(s.value);
            (value, def.unit.show(value), None)
        }
        None => match crate::boards::defined::shape(board) {
            // A defined board (BD-5, BD-12): its value, its tie-breaks beside it.
            Some(shape) => {
                let columns = shape.fold.columns(s.value);
                let tie_breaks = (!columns.tie_breaks.is_empty()).then_some(columns.tie_breaks);
                (columns.value, shape.unit.show(columns.value), tie_breaks)
            }
            None => (s.value, format_points(s.value), None),
        },
    };
    Entry {
        rank,
        value_shown,
        tie_breaks,
        player_id: s.player_id,
        value,
        rank_id: seega.map(|r| r.id),
        badge: seega.map(|r| r.badge),
        card: Card::default(),
        movement: None,
    }
}

/// A page of `limit` (1 … 100) entries of the live board from the top, or after
/// `cursor` (a [`Cursor::Live`] this API issued, LB-3), before the board's first snapshot.
pub async fn top_page<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    key: &CursorKey,
    board_ref: &BoardRef,
    limit: usize,
    cursor: Option<Cursor>,
    now: DateTime<Utc>,
) -> Result<Page, ServiceError> {
    let board = board_ref.board.as_str();
    let (after, mut counter) = match cursor {
        Some(Cursor::Live {
            after,
            position,
            value,
            rank,
        }) => {
            // Signed by this API, so a well-formed key; decoded all the same.
            let k = BoardKey::decode(&after).ok_or_else(|| ServiceError::BadRequest {
                field: "cursor",
                message: "not a cursor this API issued for this board and period".into(),
            })?;
            (Some(k), RankCounter::resume(position, value, rank))
        }
        Some(Cursor::Ledger { .. } | Cursor::Key { .. }) => return Err(crate::boards::cursor::foreign()),
        Some(Cursor::Snapshot { .. }) => {
            return Err(ServiceError::BadRequest {
                field: "cursor",
                message: "that snapshot is gone; start again from the top".into(),
            })
        }
        None => (None, RankCounter::top()),
    };
    // OP-4: suspended players are left out (their rows skipped, ranks closed up): the
    // board's index over the rows read, and as many rows more as it hid.
    let after_key = after.as_ref().map(BoardKey::encode);
    let mut rows = store.board_after(board_ref, after.as_ref(), limit + 1).await?;
    let mut exhausted = rows.len() < limit + 1;
    let mut hidden = Hidden::default();
    while let Some(last) = rows.last().map(BoardKey::of) {
        hidden = Hidden::on_board(store, board_ref, after_key.as_deref(), &last.encode())
            .await?
            .0;
        let shown = rows.iter().filter(|s| !hidden.hides(&s.player_id)).count();
        if shown > limit || exhausted {
            break;
        }
        let more = store
            .board_after(board_ref, Some(&last), limit + 1 - shown)
            .await?;
        exhausted = more.len() < limit + 1 - shown;
        if more.is_empty() {
            break;
        }
        rows.extend(more);
    }
    rows.retain(|s| !hidden.hides(&s.player_id));
    let more = rows.len() > limit;
    rows.truncate(limit);
    let last_key = rows.last().map(|s| BoardKey {
        value: s.value,
        reached_at_ms: s.reached_at_ms,
        player_id: s.player_id.clone(),
    });
    let mut entries: Vec<Entry> = hidden
        .ranked(rows, &mut counter)
        .into_iter()
        .map(|line| entry(board_ref, line))
        .collect();
    with_cards(store, &mut entries).await?;
    let next_cursor = match (more, last_key, counter.last()) {
        (true, Some(k), Some((value, rank))) => Some(key.issue(
            board_ref,
            Cursor::Live {
                after: k.encode(),
                position: counter.position(),
                value,
                rank,
            },
        )),
        _ => None,
    };
    Ok(Page {
        board: board.to_string(),
        as_of: now,
        snapshot: None,
        entries,
        next_cursor,
    })
}

/// The caller's entry with its exact LB-2 rank and up to `n` neighbours each side (LB-4).
/// [`ServiceError::NotFound`] when the caller has no balance on the board yet.
pub async fn around_me<S: BoardStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    player_id: &str,
    n: usize,
    now: DateTime<Utc>,
) -> Result<AroundMe, ServiceError> {
    let me = board_value(store, board, player_id).await?;
    let my_key = me.board_key();
    let first_of_mine = BoardKey::first_of_value(me.points);
    let (position, better, above, below, nearest_better) = futures_join(
        store.count_before(board, &my_key),
        store.count_before(board, &first_of_mine),
        store.board_before(board, &my_key, n),
        store.board_after(board, Some(&my_key), n),
        store.board_before(board, &first_of_mine, 1),
    )
    .await?;
    // OP-4: suspended players ahead are not counted, nor shown: the board's index down
    // to the last neighbour below.
    let through = below
        .last()
        .map_or_else(|| my_key.encode(), |s| BoardKey::of(s).encode());
    let (hidden, listed) = Hidden::on_board(store, board, None, &through).await?;
    let (mut position, mut better) = (position, better);
    let (mine_at, better_at) = (my_key.encode(), first_of_mine.encode());
    let mut hidden_keys = Vec::new();
    for k in listed.iter().filter(|k| k.player_id != player_id) {
        let k = k.encode();
        position -= u64::from(k < mine_at && position > 0);
        better -= u64::from(k < better_at && better > 0);
        hidden_keys.push(k);
    }
    let (above, below): (Vec<Standing>, Vec<Standing>) = (
        above
            .into_iter()
            .filter(|s| !hidden.hides(&s.player_id))
            .collect(),
        below
            .into_iter()
            .filter(|s| !hidden.hides(&s.player_id))
            .collect(),
    );
    // The nearest better value shown: not a hidden player's.
    let nearest_better = if hidden.suspended_count() == 0 {
        nearest_better
    } else {
        store
            .board_before(board, &first_of_mine, 1 + hidden.suspended_count())
            .await?
            .into_iter()
            .filter(|s| !hidden.hides(&s.player_id))
            .take(1)
            .collect()
    };
    let my_rank = better + 1;
    let mut window: Vec<Standing> = above.into_iter().rev().collect();
    let top_rank = match window.first() {
        None => my_rank,
        Some(top) if top.value == me.points => my_rank,
        Some(top) => {
            let first = BoardKey::first_of_value(top.value);
            let ahead = hidden_keys.iter().filter(|k| **k < first.encode()).count() as u64;
            store.count_before(board, &first).await?.saturating_sub(ahead) + 1
        }
    };
    let start = position.saturating_sub(window.len() as u64);
    window.push(my_key.clone().into_standing());
    window.extend(below);
    let mut counter = match window.first() {
        Some(top) => RankCounter::resume(start, top.value, top_rank),
        None => RankCounter::top(),
    };
    let mut entries: Vec<Entry> = hidden
        .ranked(window, &mut counter)
        .into_iter()
        .map(|line| entry(board, line))
        .collect();
    with_cards(store, &mut entries).await?;
    let mut mine = entry(board, hidden.own(my_key.into_standing(), my_rank));
    if let Some(e) = entries.iter().find(|e| e.player_id == player_id) {
        mine.card = e.card.clone();
    }
    Ok(AroundMe {
        movement: None,
        live_key: (me.points, me.reached_at_ms),
        pointer: None,
        board: board.board.clone(),
        as_of: now,
        snapshot: None,
        me: mine,
        entries,
        // A live board's size is not counted (LB-7): no rank of N, no cut-off.
        standing: relative(
            board,
            my_rank,
            None,
            me.points,
            nearest_better.first().map(|s| s.value),
            None,
        ),
    })
}

async fn futures_join<A, B, C, D, E>(
    a: impl std::future::Future<Output = Result<A, podium_store::StoreError>>,
    b: impl std::future::Future<Output = Result<B, podium_store::StoreError>>,
    c: impl std::future::Future<Output = Result<C, podium_store::StoreError>>,
    d: impl std::future::Future<Output = Result<D, podium_store::StoreError>>,
    e: impl std::future::Future<Output = Result<E, podium_store::StoreError>>,
) -> Result<(A, B, C, D, E), ServiceError> {
    let (a, b, c, d, e) = tokio::join!(a, b, c, d, e);
    Ok((a?, b?, c?, d?, e?))
}

/// The caller's place on one board in its current period: absent when they have no
/// entry there yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct BoardPlace {
    pub board: String,
    pub period: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    pub value: i64,
    pub value_shown: String,
    /// Rank of N, top X % and the gaps (as [`AroundMe::standing`]); absent with `rank`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standing: Option<Relative>,
}

impl BoardPlace {
    /// The place of the caller (`me`, if they have an entry) on `board`.
    pub fn new(board: &BoardRef, me: Option<AroundMe>) -> Self {
        BoardPlace {
            board: board.board.clone(),
            period: board.period.clone(),
            rank: me.as_ref().map(|m| m.me.rank),
            value: me.as_ref().map_or(0, |m| m.me.value),
            value_shown: me
                .as_ref()
                .map_or_else(|| format_points(0), |m| m.me.value_shown.clone()),
            standing: me.map(|m| m.standing),
        }
    }
}

/// The caller's profile on `game`: balance, as shown, and SG-12 rank. One read; a
/// second (the tombstone) when the caller has no balance: a deleted player
/// (GM-6) gets [`deleted_player`].
pub async fn profile<S: BoardStore + SettleStore + ?Sized>(
    store: &S,
    game: Game,
    player_id: &str,
) -> Result<Profile, ServiceError> {
    let balance = match store.get_balance(game, player_id).await? {
        Some(b) => b.points,
        None if store.is_deleted(player_id).await? => return Err(deleted_player()),
        None => 0,
    };
    let r = rank_for(balance);
    Ok(Profile {
        player_id: player_id.to_string(),
        game,
        balance,
        balance_shown: podium_rules::display::format_balance(game, balance),
        rank_id: r.id,
        rank_name_ar: r.name_ar,
        rank_name_en: r.name_en,
        badge: r.badge,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derive `Entry` had: what its hand-written serialiser must still write.
    #[derive(Serialize)]
    struct Derived<'a> {
        rank: u64,
        player_id: &'a str,
        value: i64,
        value_shown: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        tie_breaks: Option<&'a Vec<i64>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rank_id: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        badge: Option<&'static str>,
        #[serde(flatten)]
        card: &'a Card,
        #[serde(skip_serializing_if = "Option::is_none")]
        movement: Option<Movement>,
    }

    fn derived(e: &Entry) -> Vec<u8> {
        serde_json::to_vec(&Derived {
            rank: e.rank,
            player_id: &e.player_id,
            value: e.value,
            value_shown: &e.value_shown,
            tie_breaks: e.tie_breaks.as_ref(),
            rank_id: e.rank_id,
            badge: e.badge,
            card: &e.card,
            movement: e.movement,
        })
        .unwrap()
    }

    /// LB-3, PF-5: an entry's JSON, byte for byte as before, with every optional
    /// field present, absent, and in between.
    #[test]
    fn lb3_pf5_an_entry_is_written_as_its_derive_wrote_it() {
        let full = Entry {
            rank: 3,
            player_id: "p-\"00003\"".into(),
            value: -12,
            value_shown: "-12".into(),
            tie_breaks: Some(vec![30, 2]),
            rank_id: Some("member"),
            badge: Some("1 star"),
            card: Card {
                name: Some("Ionela é".into()),
                avatar: Some("a02".into()),
                country: Some("RO".into()),
            },
            movement: Some(Movement {
                since_previous: Some(2),
                since_final: None,
            }),
        };
        let bare = Entry {
            tie_breaks: None,
            rank_id: None,
            badge: None,
            card: Card::default(),
            movement: None,
            ..full.clone()
        };
        let some = Entry {
            badge: None,
            card: Card {
                avatar: None,
                ..full.card.clone()
            },
            ..full.clone()
        };
        for e in [&full, &bare, &some] {
            assert_eq!(serde_json::to_vec(e).unwrap(), derived(e));
        }
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            r#"{"rank":3,"player_id":"p-\"00003\"","value":-12,"value_shown":"-12"}"#
        );
    }
}
