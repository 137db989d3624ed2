//! Players hidden from every read that lists players while suspended (OP-4), with
//! the ranks of the others closed up: how a suspension reaches the snapshots. Whom a
//! read shows is decided in one place, [`crate::boards::visibility::Hidden`].
//!
//! - Each board's index of its suspended players ([`crate::boards::suspended`]): a
//!   snapshot run leaves them out of the snapshot it takes, so its ranks are closed
//!   up; live reads leave them out and rank the others among themselves (LB-2).
//! - A snapshot taken before the suspension (a board's current one, a frozen period's
//!   `final`, a country view) hides them through its pointer: the player's
//!   [`Erased`] entry, marked suspended, with the rank they hold in that snapshot, so
//!   readers skip them and list everyone ranked below one place higher
//!   ([`crate::boards::snapshot::layout::HiddenRanks::closed_up`]). A restore removes
//!   the entry: the snapshot reads as it was ([`show`]).
//! - An operator's name reset reaches the frozen archives the same way
//!   ([`reset_name_in_archives`]): every other snapshot is taken again with the new
//!   card at the next refresh, but a period's `final` never is.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_store::{BoardKey, BoardStore, ItemStore, PeriodStore};

use crate::boards::snapshot::country::country_board;
use crate::boards::snapshot::layout::{current_key, decode, encode, Erased, Published};
use crate::boards::snapshot::read::Directory;
use crate::error::ServiceError;

/// The rank `player_id` holds in the snapshot `p` of `board`, found from their entry's
/// key history (the keys the snapshot may hold, most likely first); `None` when not
/// listed there.
async fn rank_in<S: BoardStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    p: &Published,
    player_id: &str,
) -> Result<Option<(u64, podium_rules::profile::Card)>, ServiceError> {
    let find = |pg: &podium_rules::snapshot::SnapshotPage| {
        pg.entries
            .iter()
            .find(|e| e.player_id == player_id)
            .map(|e| (e.rank, e.card.clone()))
    };
    if let Some(found) = p.first_page.as_deref().and_then(find) {
        return Ok(Some(found));
    }
    let me = match crate::boards::live::board_value(store, board, player_id).await {
        Ok(me) => me,
        Err(ServiceError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    let candidates = me
        .history
        .snapshot_candidates(me.held(), p.read_from_ms, p.read_to_ms);
    let mut dir = Directory::new(store, board, p, true);
    for held in candidates.keys.iter().take(4) {
        let key = BoardKey {
            value: held.value,
            reached_at_ms: held.reached_at_ms,
            player_id: player_id.to_string(),
        };
        if let Some(found) = dir.page_holding(&key).await?.as_deref().and_then(find) {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// Changes the pointer of `board` by `change` (conditional on its version, retried);
/// `Ok(None)` when the board has no snapshot.
async fn update_pointer<S: ItemStore + ?Sized, T>(
    store: &S,
    board: &BoardRef,
    mut change: impl FnMut(&mut Published) -> Option<T>,
) -> Result<Option<T>, ServiceError> {
    let key = current_key(board);
    for _ in 0..10 {
        let Some(item) = store.get_item(&key, true).await? else {
            return Ok(None);
        };
        let mut p: Published = decode(&key.sk, &item.body)?;
        let Some(out) = change(&mut p) else {
            return Ok(None);
        };
        p.revision = p.revision.saturating_add(1);
        if store.put_item_if(&key, &encode(&p), item.version).await? {
            return Ok(Some(out));
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// Hides `player_id` from the snapshot of `board` (and of their country's view of it)
/// from now on, closing up the ranks below them (OP-4); answers the boards whose
/// pointers now hide them (`{board}@{period}`). Safe to repeat.
pub async fn hide<S: BoardStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<Vec<String>, ServiceError> {
    let views = views(store, board, player_id).await?;
    hide_in(store, views, player_id, now).await
}

/// The snapshots [`hide`] hides `player_id` from on `board`: the board's and their
/// country's view's, each with its pointer and the player's rank there (read, nothing
/// written), so that a caller can record where it is about to hide them first.
pub async fn views<S: BoardStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    player_id: &str,
) -> Result<Vec<View>, ServiceError> {
    let Some(p) = crate::boards::snapshot::read::pointer(store, board, true).await? else {
        return Ok(Vec::new());
    };
    let found = rank_in(store, board, &p, player_id).await?;
    let mut views = vec![View {
        board: board.clone(),
        pointer: p,
        rank: found.as_ref().map(|f| f.0),
    }];
    if let Some(cc) = found.as_ref().and_then(|f| f.1.country.clone()) {
        let view = country_board(board, &cc);
        if let Some(cp) = crate::boards::snapshot::read::pointer(store, &view, true).await? {
            let rank = rank_in(store, &view, &cp, player_id).await?.map(|f| f.0);
            views.push(View {
                board: view,
                pointer: cp,
                rank,
            });
        }
    }
    Ok(views)
}

/// One snapshot [`hide`] hides a player from: its board, pointer as read, and the
/// player's rank in it (`None`: not listed there).
pub struct View {
    pub board: BoardRef,
    pointer: Published,
    rank: Option<u64>,
}

/// Hides `player_id` from each of `views` ([`views`]); answers the boards whose
/// pointers now hide them. Safe to repeat.
pub async fn hide_in<S: ItemStore + ?Sized>(
    store: &S,
    views: Vec<View>,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<Vec<String>, ServiceError> {
    let hash = crate::engine::names::id_hash(player_id);
    let mut hidden = Vec::new();
    for View {
        board: view,
        pointer: p,
        rank,
    } in views
    {
        let id = p.id.clone();
        let entry = Erased {
            hash: hash.clone(),
            at_ms: now.timestamp_millis(),
            suspended: true,
            rank,
            snapshot: rank.map(|_| id),
        };
        let done = update_pointer(store, &view, |p| {
            if p.erased.iter().any(|e| e.hash == entry.hash) {
                return None;
            }
            p.erased.push(entry.clone());
            Some(())
        })
        .await?;
        if done.is_some() || p.erased.iter().any(|e| e.hash == hash) {
            hidden.push(view.key());
        }
    }
    Ok(hidden)
}

/// Shows `player_id` again in the snapshot of `board` (a `{board}@{period}` that
/// [`hide`] answered): their suspended entry leaves its pointer. Safe to repeat.
pub async fn show<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    player_id: &str,
) -> Result<(), ServiceError> {
    let hash = crate::engine::names::id_hash(player_id);
    update_pointer(store, board, |p| {
        let before = p.erased.len();
        p.erased.retain(|e| !(e.suspended && e.hash == hash));
        (p.erased.len() != before).then_some(())
    })
    .await?;
    Ok(())
}

/// An operator's name reset (PF-1, OP-5) in the frozen archives: every period's
/// `final` that lists `player_id` among `boards` (their period entries, past periods
/// included), and their country's view of it, shows their entry without a name from
/// now on (the pointer's [`Published::name_resets`], its revision raised so that no
/// page rendered before is served again). Every other snapshot is taken again at the
/// next refresh with the reset card. Answers the archives changed
/// (`{board}@{period}`). Safe to repeat. Cost: a strongly consistent read of each
/// board's pointer (16 at once), and for each archive that lists the player, the
/// reads [`views`] makes and a conditional write of each pointer.
pub async fn reset_name_in_archives<S: BoardStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    boards: &[BoardRef],
    player_id: &str,
) -> Result<Vec<String>, ServiceError> {
    use futures::stream::{self, StreamExt, TryStreamExt};
    let hash = crate::engine::names::id_hash(player_id);
    let changed: Vec<Vec<String>> = stream::iter(boards.iter().cloned())
        .map(|board| {
            let hash = hash.clone();
            async move {
                if !crate::boards::close::is_frozen(store, &board).await? {
                    return Ok::<_, ServiceError>(Vec::new());
                }
                let mut changed = Vec::new();
                for view in views(store, &board, player_id).await? {
                    if view.rank.is_none() {
                        continue;
                    }
                    let done = update_pointer(store, &view.board, |p| {
                        if p.name_resets.contains(&hash) {
                            return None;
                        }
                        p.name_resets.push(hash.clone());
                        Some(())
                    })
                    .await?;
                    if done.is_some() {
                        changed.push(view.board.key());
                    }
                }
                Ok(changed)
            }
        })
        .buffer_unordered(16)
        .try_collect()
        .await?;
    Ok(changed.into_iter().flatten().collect())
}
