//! A board seen among friends (PF-4, LB-2): the caller and their friends ranked among
//! themselves, each with their global rank where the current snapshot tells it.
//!
//! Reads (DynamoDB), for a caller with `n` friends (at most
//! [`podium_rules::profile::MAX_FRIENDS`]): 1 GetItem of the friend list, then
//! ⌈(n + 1) / 100⌉ BatchGetItems of the entries (strongly consistent), as many of
//! their guards (OP-4, who is suspended: [`Hidden::among`]), as many BatchGetItems of
//! the profiles as of the entries, and at most as many of the snapshot pages that
//! decide the global ranks (page 0 and directory chunk 0 come with the cached
//! pointer). For 150 friends: 1 + 2 + 2 + 2 + ≤ 2 = at most 9 requests, whatever the
//! board's size and the number of players suspended. A friend whose value fell since the snapshot adds, in the same
//! batches, the page that lists their own older entry (no rival of theirs, LB-4):
//! with every one of 150 friends fallen, 2 more requests at most.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{listing_order, RankCounter, Standing};
use podium_rules::snapshot::{rank_against, SnapshotPage};
use podium_store::{Balance, BoardKey, ItemStore, SettleStore};
use serde::Serialize;

use crate::boards::entries::entries_of;
use crate::boards::live::{entry, with_cards, Entry};
use crate::boards::pages::SnapshotCache;
use crate::boards::snapshot::codec::{decode_body, ranked};
use crate::boards::snapshot::layout::{body_key, Published};
use crate::boards::visibility::Hidden;
use crate::error::ServiceError;

/// Players one batch read carries (DynamoDB's BatchGetItem limit).
const BATCH: usize = 100;

/// One line of a friends view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FriendLine {
    /// `rank` is the LB-2 rank among the caller and their friends.
    #[serde(flatten)]
    pub entry: Entry,
    /// The LB-2 rank of this value on the whole board as of the current snapshot
    /// (1 + the snapshot's entries with a strictly better value); absent before the
    /// board's first snapshot, for a caller without an entry, and below the
    /// snapshot's first directory chunk (its first 200 pages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_rank: Option<u64>,
    /// The caller has no entry on the board yet: listed last, `value` 0 and
    /// `value_shown` `–` (on any board, a time ranking included).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_entry: bool,
}

/// The caller and their friends on a board, ranked among themselves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FriendsView {
    pub board: String,
    /// The instant the global ranks are of (the snapshot's), or the read instant (UTC).
    pub as_of: DateTime<Utc>,
    /// The snapshot the global ranks come from; absent before the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// The caller's own line (also among `entries`): listed last with `no_entry` when
    /// they have no entry on the board yet.
    pub me: FriendLine,
    /// The caller and every friend with an entry, in LB-2 listing order; friends
    /// without an entry, unknown or deleted ids are left out.
    pub entries: Vec<FriendLine>,
}

/// The first stored value a directory entry's page lists.
fn first_value(key: &str) -> Option<i64> {
    BoardKey::decode(key).map(|k| k.value)
}

/// The global LB-2 ranks of `values` (player, live value, the keys their entry may
/// have had in the snapshot, [`older_keys`]) against snapshot `p`: for each value, the
/// page that decides it (the last page whose first value is strictly better) when
/// page 0 or directory chunk 0 lists it, read in batches; `None` past chunk 0. A
/// player's own older, strictly better snapshot entry is no rival of theirs (LB-4):
/// the pages that may list it (on or before the deciding page) are read in the same
/// batches, and it is not counted.
async fn global_ranks<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    p: &Published,
    values: &[(String, i64, Vec<BoardKey>)],
    now: DateTime<Utc>,
) -> Result<Vec<Option<u64>>, ServiceError> {
    let dir = &p.directory;
    let chunk_is_whole = dir.len() as u64 >= u64::from(p.pages);
    // For each value: Ok(None) when no page is better (rank 1), Ok(Some(n)) when page n decides, Err(()) when unknown.
    let deciding: Vec<Result<Option<usize>, ()>> = values
        .iter()
        .map(|(_, v, _)| {
            let n = dir.partition_point(|e| first_value(&e.key).is_some_and(|f| f > *v));
            match n {
                0 => Ok(None),
                n if n < dir.len() || chunk_is_whole => Ok(Some(n - 1)),
                _ => Err(()),
            }
        })
        .collect();
    let mut pages: BTreeMap<usize, SnapshotPage> = BTreeMap::new();
    if let Some(first) = &p.first_page {
        pages.insert(0, SnapshotPage::clone(first));
    }
    // The page that lists (or would list) board key `key`: the last whose first key is
    // at or before it.
    let holding = |key: &BoardKey| {
        let key = key.encode();
        dir.partition_point(|e| e.key.as_str() <= key.as_str())
            .saturating_sub(1)
    };
    // Per value, the pages that may list the player's own older, better entry.
    let older_pages: Vec<Vec<usize>> = values
        .iter()
        .zip(&deciding)
        .map(|((_, _, older), d)| match d {
            Ok(Some(n)) => older.iter().map(holding).filter(|m| m <= n).collect(),
            _ => Vec::new(),
        })
        .collect();
    let wanted: Vec<usize> = {
        let mut w: Vec<usize> = deciding
            .iter()
            .filter_map(|d| d.ok().flatten())
            .chain(older_pages.iter().flatten().copied())
            .filter(|n| !pages.contains_key(n))
            .collect();
        w.sort_unstable();
        w.dedup();
        w
    };
    for chunk in wanted.chunks(BATCH) {
        let keys: Vec<_> = chunk.iter().map(|&n| body_key(board, &dir[n].page)).collect();
        let found = store.get_items(&keys, p.fresh(now.timestamp_millis())).await?;
        for ((&n, key), item) in chunk.iter().zip(&keys).zip(found) {
            if let Some(item) = item {
                let e = &dir[n];
                pages.insert(
                    n,
                    SnapshotPage {
                        number: n as u32,
                        first_position: e.position,
                        entries: ranked(e.position, e.rank, decode_body(&key.pk, &item.body)?),
                    },
                );
            }
        }
    }
    Ok(values
        .iter()
        .zip(deciding)
        .zip(older_pages)
        .map(|(((player, v, _), d), older)| match d {
            Ok(None) => Some(1),
            Ok(Some(n)) => pages.get(&n).map(|pg| {
                // The player's own older, better entry is no rival of theirs, on
                // whichever page it is listed.
                let own = older
                    .iter()
                    .chain([&n])
                    .filter_map(|m| pages.get(m))
                    .flat_map(|pg| &pg.entries)
                    .any(|e| &e.player_id == player && e.value > *v);
                rank_against(Some(pg), *v) - u64::from(own)
            }),
            Err(()) => None,
        })
        .collect())
}

/// The keys `b`'s entry may have had when snapshot `p` read the board that are
/// strictly better than its value now (a player who fell since): where their own
/// older entry may be listed ([`podium_rules::history::KeyHistory::snapshot_candidates`]).
fn older_keys(b: &Balance, p: &Published) -> Vec<BoardKey> {
    b.history
        .snapshot_candidates(b.held(), p.read_from_ms, p.read_to_ms)
        .keys
        .into_iter()
        .filter(|k| k.value > b.points)
        .map(|k| BoardKey {
            value: k.value,
            reached_at_ms: k.reached_at_ms,
            player_id: b.player_id.clone(),
        })
        .collect()
}

/// The caller and their friends on `board` (PF-4, LB-2): ranked among themselves by
/// their live values, each with their global rank as of the current snapshot.
pub async fn view<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    board: &BoardRef,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<FriendsView, ServiceError> {
    let list = crate::profiles::friends::get(store, player_id).await?;
    let mut ids: Vec<&str> = vec![player_id];
    ids.extend(list.friends.iter().map(String::as_str));
    let found: Vec<Balance> = entries_of(store, board, &ids)
        .await?
        .into_iter()
        .flatten()
        .collect();
    let mut standings: Vec<Standing> = found.iter().map(|b| b.board_key().into_standing()).collect();
    standings.sort_by(listing_order);
    let published = cache.current(store, board).await?;
    // OP-4: a suspended friend is not shown, whether or not the board has a snapshot
    // yet (their guards); the global ranks close up below those the snapshot hides.
    let hidden = Hidden::among(store, &ids).await?.and_snapshot(
        published.as_ref(),
        published.as_ref().map_or("", |p| p.id.as_str()),
    );
    let mut counter = RankCounter::top();
    let lines = hidden.ranked(standings, &mut counter);
    let caller_listed = lines.iter().any(|l| l.player_id() == player_id);
    let globals: HashMap<String, u64> = match &published {
        Some(p) => {
            let values: Vec<(String, i64, Vec<BoardKey>)> = lines
                .iter()
                .map(|l| {
                    let s = l.standing();
                    let older = found
                        .iter()
                        .find(|b| b.player_id == s.player_id)
                        .map(|b| older_keys(b, p))
                        .unwrap_or_default();
                    (s.player_id.clone(), s.value, older)
                })
                .collect();
            values
                .iter()
                .zip(global_ranks(store, board, p, &values, now).await?)
                .filter_map(|((id, _, _), r)| r.map(|r| (id.clone(), r - hidden.closed_up(r))))
                .collect()
        }
        None => HashMap::new(),
    };
    let mut entries: Vec<Entry> = lines.into_iter().map(|line| entry(board, line)).collect();
    if !caller_listed {
        let rank = counter.position() + 1;
        let mut mine = entry(
            board,
            hidden.own(
                Standing {
                    player_id: player_id.to_string(),
                    value: 0,
                    reached_at_ms: 0,
                },
                rank,
            ),
        );
        (mine.value, mine.value_shown) = (0, "–".to_string());
        (mine.rank_id, mine.badge) = (None, None);
        entries.push(mine);
    }
    with_cards(store, &mut entries).await?;
    let lines: Vec<FriendLine> = entries
        .into_iter()
        .map(|e| {
            let no_entry = e.player_id == player_id && !caller_listed;
            FriendLine {
                global_rank: if no_entry {
                    None
                } else {
                    globals.get(&e.player_id).copied()
                },
                no_entry,
                entry: e,
            }
        })
        .collect();
    let me = lines
        .iter()
        .find(|l| l.entry.player_id == player_id)
        .cloned()
        .ok_or_else(|| ServiceError::NotFound("the caller's own line".into()))?;
    Ok(FriendsView {
        board: board.board.clone(),
        as_of: published.as_ref().map_or(now, |p| p.as_of),
        snapshot: published.as_ref().map(|p| p.id.clone()),
        me,
        entries: lines,
    })
}
