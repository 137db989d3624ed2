//! `overtaken` messages ([`podium_rules::overtaken`]): after each refresh of a board
//! (LB-5), the newer snapshot is compared with the one the last notification saw, and
//! the players passed on the top 100, and players who opted in on the board whose
//! neighbours passed them, get a message in their inbox.
//!
//! Each message is a settlement of its own (source `overtaken`, idempotency key
//! `{board}@{period}#{since}/{player}`, `since` the older snapshot compared from), so
//! a comparison repeated from the same snapshot tells nothing twice: a retried tick,
//! two ticks at once, or a tick after one that failed part way. The last snapshot
//! seen is recorded as soon as the top's messages are settled, before the players
//! who opted in are checked (each from their own last check). The inbox keeps at
//! most [`podium_rules::overtaken::MAX_PER_DAY`] a day.
//!
//! | item | partition key | sort key | body |
//! |---|---|---|---|
//! | last snapshot seen | `OVERTAKEN#{board}@{period}` | `LAST` | [`Seen`] (JSON) |
//! | opt-in | `FOLLOW#{board}` | the player's id | [`Follow`] (JSON): where the player stood at the last check |
//!
//! Messages come from play only: a player passes another only if their own value
//! took them from behind (when the older snapshot read the board) to ahead. A
//! suspension, a restore, a deletion or a name change moves nobody (OP-4, GM-6,
//! PF-1): players hidden now are left out of both snapshots compared, and a player
//! listed again after a restore is compared by the key they held when the older
//! snapshot (which left them out) read the board ([`podium_rules::overtaken::top_passes`]).
//!
//! The top's cost is reading the first pages (about 100 entries) of both snapshots,
//! only when the board's snapshot changed, and, when players the older snapshot did
//! not list are now near the top, its run state and their entries (one BatchGetItem
//! per 100). Each player who opted in costs one
//! around-me read of the newer snapshot (LB-4, constant reads), the live entries of
//! the [`NEIGHBOURS`] players who were behind them and their own, and, when their
//! place or neighbours moved, one write of their opt-in item, per refresh of the board.

use chrono::{DateTime, Utc};
use futures::stream::{self, StreamExt, TryStreamExt};
use podium_rules::board::{board_def, BoardDef, BoardRef, Order, Refresh};
use podium_rules::message::Message;
use podium_rules::overtaken::{
    neighbour_passes, top_passes, unlisted_contenders, HeldThen, Pass, NEIGHBOURS, TOP,
};
use podium_rules::settlement::{Planned, Settlement};
use podium_rules::snapshot::SnapshotEntry;
use podium_store::{BoardStore, ItemKey, ItemStore, PeriodStore, SettleStore, SortKeyRange, SourceKey};
use serde::{Deserialize, Serialize};

use crate::boards::pages::SnapshotCache;
use crate::boards::snapshot::{self, layout::Published, read::Directory};
use crate::engine::names::hex_sha256;
use crate::engine::settle::{settle, settle_all, Tally};
use crate::engine::source::{ReadState, Reads, Settled, Source};
use crate::error::ServiceError;

/// The source kind of an `overtaken` message.
pub const KIND: &str = "overtaken";

/// Messages settled at a time; players who opted in checked at a time.
pub const IN_FLIGHT: usize = 16;

/// Opt-in items one Query reads.
const FOLLOWERS_PER_QUERY: usize = 1_000;

/// Whether `board` sends `overtaken` messages (and takes opt-ins): the boards
/// refreshed on every tick, ranked higher first.
pub fn sends(def: &BoardDef) -> bool {
    def.refresh == Refresh::EveryTick && def.order == Order::HigherFirst
}

/// The board `id` if it takes opt-ins, else a 404 naming the board.
pub fn followable(id: &str) -> Result<&'static BoardDef, ServiceError> {
    board_def(id).filter(|d| sends(d)).ok_or_else(|| {
        let boards: Vec<&str> = followable_boards().map(|d| d.id).collect();
        ServiceError::NotFound(format!(
            "board {} (boards that send overtaken messages: {})",
            podium_rules::error::quoted(id),
            boards.join(", ")
        ))
    })
}

/// The boards that send `overtaken` messages, in registry order.
fn followable_boards() -> impl Iterator<Item = &'static BoardDef> {
    podium_rules::board::BOARDS.iter().filter(|d| sends(d))
}

/// The last snapshot whose passes were sent, and its instant; and the interval
/// claimed after it and not finished yet, if any.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub snapshot: String,
    #[serde(default)]
    pub as_of: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Interval>,
}

/// Two snapshots compared: passes from `from` to `to` (of instant `as_of`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interval {
    pub from: String,
    pub to: String,
    pub as_of: DateTime<Utc>,
}

/// Where a player who opted in stood at the last check (empty until the first).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Follow {
    #[serde(default)]
    pub period: String,
    #[serde(default)]
    pub snapshot: String,
    #[serde(default)]
    pub rank: u64,
    #[serde(default)]
    pub value: i64,
    /// When the value was reached (ms, UTC).
    #[serde(default)]
    pub reached_at_ms: i64,
    /// Up to [`NEIGHBOURS`] players listed just behind them, nearest first.
    #[serde(default)]
    pub behind: Vec<String>,
}

fn seen_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(format!("OVERTAKEN#{}", board.key()), "LAST")
}

fn follow_pk(board: &str) -> String {
    format!("FOLLOW#{board}")
}

/// The opt-in item of `player_id` on `board`.
pub fn follow_key(board: &str, player_id: &str) -> ItemKey {
    ItemKey::new(follow_pk(board), player_id)
}

fn decode<T: serde::de::DeserializeOwned>(key: &ItemKey, body: &[u8]) -> Result<T, ServiceError> {
    serde_json::from_slice(body)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(&key.pk, e)))
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// Opts `player_id` in on `board` (safe to repeat). Errors: 404 for a board that
/// sends no `overtaken` messages, and for a deleted player (GM-6).
pub async fn follow<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    board: &str,
    player_id: &str,
) -> Result<(), ServiceError> {
    followable(board)?;
    // Version 0: only when absent; present already is the same answer.
    let key = follow_key(board, player_id);
    store.put_item_if(&key, &encode(&Follow::default()), 0).await?;
    // Checked after the write: a deletion writes its tombstone before it removes the
    // opt-ins, so one that ran before or meanwhile shows here, and the write is undone.
    if store.is_deleted(player_id).await? {
        store.delete_items(std::slice::from_ref(&key)).await?;
        return Err(crate::engine::names::deleted_player());
    }
    Ok(())
}

/// Opts `player_id` out on `board` (safe to repeat).
pub async fn unfollow<S: ItemStore + ?Sized>(
    store: &S,
    board: &str,
    player_id: &str,
) -> Result<(), ServiceError> {
    followable(board)?;
    let key = follow_key(board, player_id);
    // At the version read: the job may rewrite the item meanwhile (then read again).
    for _ in 0..5 {
        match store.get_item(&key, true).await? {
            None => return Ok(()),
            Some(item) => {
                if store.delete_item_if(&key, item.version).await? {
                    return Ok(());
                }
            }
        }
    }
    Err(ServiceError::Contended { attempts: 5 })
}

/// The boards `player_id` opted in on (one read per board that takes opt-ins, at once).
pub async fn following<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<Vec<&'static str>, ServiceError> {
    let keys = follow_keys(player_id);
    let found = futures::future::try_join_all(keys.iter().map(|k| store.get_item(k, false))).await?;
    Ok(followable_boards()
        .zip(found)
        .filter_map(|(d, item)| item.map(|_| d.id))
        .collect())
}

/// The opt-in items of every board (GM-6: what a deletion removes), in registry order.
pub fn follow_keys(player_id: &str) -> Vec<ItemKey> {
    followable_boards().map(|d| follow_key(d.id, player_id)).collect()
}

/// One player's `overtaken` message, as a settlement: passes seen comparing snapshot
/// `since` with snapshot `snapshot`.
struct Notice<'a> {
    board: &'a BoardRef,
    since: &'a str,
    snapshot: &'a str,
    pass: Pass,
    now: DateTime<Utc>,
}

impl Source for Notice<'_> {
    type Result = Message;

    fn key(&self) -> SourceKey {
        // Board, period and snapshot hold no `/`: the first one ends them.
        SourceKey::new(
            KIND,
            format!("{}#{}/{}", self.board.key(), self.since, self.pass.player_id),
        )
    }

    fn content_hash(&self) -> String {
        let by: Vec<&str> = self.pass.by.iter().map(|e| e.player_id.as_str()).collect();
        hex_sha256(&format!(
            "{}|{}|{}|{}|{}|{:?}|{}",
            self.board.key(),
            self.since,
            self.snapshot,
            self.pass.player_id,
            self.pass.rank_before,
            self.pass.rank_after,
            by.join(",")
        ))
    }

    fn reads(&self) -> Reads {
        Reads::default()
    }

    /// The message joins the inbox in the commit ([`Settlement::messages`]), which
    /// keeps the day's cap ([`podium_rules::inbox::Inbox::with`]).
    fn plan(&self, _: &ReadState) -> Result<Planned<Message>, ServiceError> {
        let message = Message::overtaken(
            &self.board.board,
            &self.board.period,
            self.since,
            self.snapshot,
            &self.pass,
            self.now,
        );
        let mut s = Settlement::result_only(message.clone());
        s.messages.push((self.pass.player_id.clone(), message));
        Ok(Planned::Write(s))
    }

    fn id_field(&self) -> &'static str {
        "player_id"
    }
}

/// What one notification of a board did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Notified {
    /// Messages sent to players passed on the top, and to players who opted in.
    pub top: usize,
    pub neighbours: usize,
    /// Players who opted in and were checked.
    pub checked: usize,
}

/// Up to the first `at_least` visible entries of a snapshot (whole pages, so possibly
/// more; fewer when the snapshot ends), leaving out deleted players (GM-6), and
/// whether they are the whole snapshot.
async fn first_entries<S: ItemStore + ?Sized>(
    dir: &mut Directory<'_, S>,
    current: &Published,
    at_least: u64,
) -> Result<(Vec<SnapshotEntry>, bool), ServiceError> {
    let mut out = Vec::new();
    let mut number = 0;
    loop {
        let Some(page) = dir.page(number).await? else {
            return Ok((out, true));
        };
        out.extend(
            page.entries
                .iter()
                .filter(|e| !current.hides(&e.player_id))
                .cloned(),
        );
        if out.len() as u64 >= at_least {
            return Ok((out, false));
        }
        number += 1;
    }
}

/// Sends the `overtaken` messages of `board`'s newest snapshot, after the refresh
/// whose run was `run` (its snapshot id): nothing when the board sends none, or when
/// `run`'s snapshot was seen already (one small read), or when the current snapshot
/// is not newer than the one seen. Safe to rerun and to run concurrently (each
/// message once).
///
/// The snapshots compared form a chain: each comparison (an interval, older →
/// newer) is first claimed in the last-seen item with a conditional write, so each
/// older snapshot starts exactly one interval, and the messages are keyed by it; an
/// interval left unfinished (a failed or timed-out tick) is finished, with the same
/// keys, by the next call before it claims the next one.
pub async fn notify<S: BoardStore + ItemStore + PeriodStore + SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    run: &str,
    now: DateTime<Utc>,
) -> Result<Notified, ServiceError> {
    let mut done = Notified::default();
    if !board_def(&board.board).is_some_and(sends) {
        return Ok(done);
    }
    let key = seen_key(board);
    let read_seen = || async {
        match store.get_item(&key, true).await? {
            Some(item) => Ok::<_, ServiceError>((Some(decode::<Seen>(&key, &item.body)?), item.version)),
            None => Ok((None, 0)),
        }
    };
    let (mut seen, mut version) = read_seen().await?;
    if seen
        .as_ref()
        .is_some_and(|s| s.snapshot == run && s.pending.is_none())
    {
        return Ok(done);
    }
    let Some(current) = snapshot::read::current_consistent(store, board).await? else {
        return Ok(done);
    };
    for _ in 0..4 {
        let next = match &seen {
            None => Seen {
                snapshot: current.id.clone(),
                as_of: Some(current.as_of),
                pending: None,
            },
            Some(s) => match &s.pending {
                Some(interval) => {
                    done.top += compare(store, board, &current, interval, now).await?;
                    Seen {
                        snapshot: interval.to.clone(),
                        as_of: Some(interval.as_of),
                        pending: None,
                    }
                }
                // Only forward: a snapshot seen already, or older, starts nothing.
                None if s.snapshot == current.id || s.as_of.is_some_and(|t| t >= current.as_of) => break,
                None => Seen {
                    pending: Some(Interval {
                        from: s.snapshot.clone(),
                        to: current.id.clone(),
                        as_of: current.as_of,
                    }),
                    ..s.clone()
                },
            },
        };
        if !store.put_item_if(&key, &encode(&next), version).await? {
            // Another call moved the chain: go on from where it is.
            (seen, version) = read_seen().await?;
            continue;
        }
        version += 1;
        seen = Some(next);
    }
    let (checked, neighbours) = check_followers(store, board, &current, now).await?;
    done.checked = checked;
    done.neighbours = neighbours;
    Ok(done)
}

/// Sends the top's messages of `interval` (older → newer snapshot); how many.
///
/// Passes come from play only (LB-5, OP-4): a player listed near the top now whom the
/// older snapshot does not list among the entries compared ([`unlisted_contenders`]:
/// new, climbed from below, or left out then while suspended and restored since) is
/// compared by the key their entry held when the older snapshot read the board
/// ([`held_then`]), so a restore passes nobody.
async fn compare<S: BoardStore + ItemStore + PeriodStore + SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    current: &Published,
    interval: &Interval,
    now: DateTime<Utc>,
) -> Result<usize, ServiceError> {
    let mut older = Directory::pinned(store, board, &interval.from, None, false);
    let (before, _) = first_entries(&mut older, current, TOP).await?;
    if before.is_empty() {
        return Ok(0);
    }
    // Just published (or pinned by the interval): read strongly consistent.
    let mut newer = match current.id == interval.to {
        true => Directory::new(store, board, current, true),
        false => Directory::pinned(store, board, &interval.to, None, true),
    };
    let (after, whole) = first_entries(&mut newer, current, TOP + NEIGHBOURS as u64).await?;
    if after.is_empty() && !whole {
        // The newer snapshot's pages are gone: nothing can be said.
        return Ok(0);
    }
    let then = held_then(
        store,
        board,
        &interval.from,
        &unlisted_contenders(&before, &after),
    )
    .await?;
    let notices = top_passes(&before, &after, whole, &then)
        .into_iter()
        .map(|pass| Notice {
            board,
            since: &interval.from,
            snapshot: &interval.to,
            pass,
            now,
        });
    Ok(settle_all(store, notices, IN_FLIGHT, now).await?.applied)
}

/// The keys `players` held on `board` when snapshot `since` read it (the most likely
/// of their entries' recent keys, [`podium_rules::history::KeyHistory::snapshot_candidates`]);
/// a player with no entry then is left out. Reads: the snapshot's run state (one
/// GetItem) and the players' entries (one BatchGetItem per 100), only when `players`
/// is not empty: usually a few newcomers near the top, or none.
async fn held_then<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    since: &str,
    players: &[&str],
) -> Result<HeldThen, ServiceError> {
    let mut out = HeldThen::new();
    if players.is_empty() {
        return Ok(out);
    }
    let Some(run) = snapshot::read::run_state(store, board, since).await? else {
        tracing::warn!(board = %board.key(), snapshot = since, "the older snapshot's run state is gone; its unlisted players count as new");
        return Ok(out);
    };
    let Some(from) = run.read_from_ms else {
        return Ok(out);
    };
    let to = run.read_to_ms.unwrap_or(from);
    let entries = crate::boards::entries::entries_of(store, board, players).await?;
    for (player, entry) in players.iter().zip(entries) {
        let Some(entry) = entry else { continue };
        if let Some(key) = entry
            .history
            .snapshot_candidates(entry.held(), from, to)
            .keys
            .first()
        {
            out.insert(player.to_string(), *key);
        }
    }
    Ok(out)
}

/// Checks every player who opted in on `board` against snapshot `current`: (checked,
/// messages sent).
async fn check_followers<S: BoardStore + ItemStore + PeriodStore + SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    current: &Published,
    now: DateTime<Utc>,
) -> Result<(usize, usize), ServiceError> {
    let pk = follow_pk(&board.board);
    let cache = SnapshotCache::default();
    let mut after: Option<String> = None;
    let (mut checked, mut sent) = (0, 0);
    loop {
        let range = after.clone().map_or(SortKeyRange::All, SortKeyRange::After);
        let items = store
            .query_items(&pk, &range, true, FOLLOWERS_PER_QUERY, true)
            .await?;
        let full = items.len() == FOLLOWERS_PER_QUERY;
        after = items.last().map(|(sk, _)| sk.clone());
        let tallies: Vec<(bool, Tally)> = stream::iter(items)
            .map(|(player, item)| {
                let cache = &cache;
                async move { check_one(store, cache, board, current, &player, item, now).await }
            })
            .buffer_unordered(IN_FLIGHT)
            .try_collect()
            .await?;
        for (was_checked, t) in tallies {
            checked += usize::from(was_checked);
            sent += t.applied;
        }
        if !full {
            return Ok((checked, sent));
        }
    }
}

/// Sends `pass` to an opted-in player, keyed by their last check `since`; how many
/// messages were sent (0 or 1). A check from the same `since` may have told some of
/// these passers already (its write of the new check failed after the message): the
/// others are then told under a key of their own (`{since}+{snapshot}`), so none is
/// lost and none told twice.
async fn tell_neighbours<S: SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    since: &str,
    snapshot: &str,
    mut pass: Pass,
    now: DateTime<Utc>,
) -> Result<usize, ServiceError> {
    let notice = Notice {
        board,
        since,
        snapshot,
        pass: pass.clone(),
        now,
    };
    match settle(store, &notice, now).await {
        Ok(Settled::Applied(_)) => return Ok(1),
        Ok(_) => return Ok(0),
        Err(ServiceError::Conflict { .. }) => {}
        Err(ServiceError::Invalid(e)) if e.rule == "GM-6" => return Ok(0),
        Err(ServiceError::Store(e @ podium_store::StoreError::Corrupt { .. })) => {
            tracing::error!(error = %e, "a stored item cannot be read; this message is skipped");
            return Ok(0);
        }
        Err(e) => return Err(e),
    }
    let told: Vec<String> = match store.get_source(&notice.key()).await? {
        Some(stored) => serde_json::from_str::<Message>(&stored.result)
            .ok()
            .and_then(|m| m.overtaken)
            .map(|o| o.by.into_iter().map(|p| p.player_id).collect())
            .unwrap_or_default(),
        None => Vec::new(),
    };
    pass.by.retain(|e| !told.contains(&e.player_id));
    if pass.by.is_empty() {
        return Ok(0);
    }
    let since = format!("{since}+{snapshot}");
    let rest = Notice {
        board,
        since: &since,
        snapshot,
        pass,
        now,
    };
    Ok(settle_all(store, [rest], 1, now).await?.applied)
}

async fn check_one<S: BoardStore + ItemStore + PeriodStore + SettleStore + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    board: &BoardRef,
    current: &Published,
    player: &str,
    item: podium_store::Item,
    now: DateTime<Utc>,
) -> Result<(bool, Tally), ServiceError> {
    let key = follow_key(&board.board, player);
    let old: Follow = match serde_json::from_slice(&item.body) {
        Ok(f) => f,
        Err(e) => {
            // Never readable: skipped, so it cannot hold up the others.
            tracing::warn!(board = %board.board, error = %e, "an opt-in item is unreadable; skipped");
            return Ok((false, Tally::default()));
        }
    };
    if (old.snapshot == current.id && old.period == board.period) || current.hides(player) {
        return Ok((false, Tally::default()));
    }
    // A late tick of an earlier period never overwrites a later period's check.
    if !old.period.is_empty() && old.period.as_str() > board.period.as_str() {
        return Ok((false, Tally::default()));
    }
    let me = match crate::boards::pages::around_me(store, cache, board, player, NEIGHBOURS, now).await {
        Ok(Some(me)) => me,
        // No entry on the board (yet): nothing to say.
        Ok(None) | Err(ServiceError::NotFound(_)) => return Ok((true, Tally::default())),
        Err(e) => return Err(e),
    };
    let mine = me
        .entries
        .iter()
        .position(|e| e.player_id == player)
        .unwrap_or(me.entries.len());
    let mut behind: Vec<String> = me
        .entries
        .iter()
        .skip(mine + 1)
        .map(|e| e.player_id.clone())
        .collect();
    let live = |id: String| async move {
        match crate::boards::live::board_value(store, board, &id).await {
            Ok(b) => Ok(Some(b)),
            Err(ServiceError::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    };
    let Some(my_entry) = live(player.to_string()).await? else {
        return Ok((true, Tally::default()));
    };
    let mut tally = Tally::default();
    // A player in the top 100 at their last check hears of passes through the top's
    // check: their record only moves on, so it never tells a pass twice.
    let silent = old.rank > 0 && old.rank <= TOP;
    if old.period == board.period && !old.snapshot.is_empty() && !silent {
        // Where the players who were behind at the last check are now (live).
        let mut were_behind = Vec::new();
        for id in old.behind.iter().filter(|id| !current.hides(id)) {
            if let Some(b) = live(id.clone()).await? {
                let rank = me
                    .entries
                    .iter()
                    .find(|e| &e.player_id == id)
                    .map_or(0, |e| e.rank);
                were_behind.push(SnapshotEntry {
                    rank,
                    player_id: id.clone(),
                    value: b.points,
                    reached_at_ms: b.reached_at_ms,
                    card: Default::default(),
                });
            }
        }
        let was = SnapshotEntry {
            rank: old.rank,
            player_id: player.to_string(),
            value: old.value,
            reached_at_ms: old.reached_at_ms,
            card: Default::default(),
        };
        let now_entry = SnapshotEntry {
            rank: me.me.rank,
            player_id: player.to_string(),
            value: my_entry.points,
            reached_at_ms: my_entry.reached_at_ms,
            card: Default::default(),
        };
        let by = neighbour_passes(&was, &now_entry, &were_behind);
        // Told now: not behind any more, whatever the snapshot says (a pass scored
        // after it was built).
        behind.retain(|id| !by.iter().any(|e| &e.player_id == id));
        if !by.is_empty() {
            let pass = Pass {
                player_id: player.to_string(),
                rank_before: old.rank,
                rank_after: Some(me.me.rank),
                value: my_entry.points,
                by,
            };
            tally.applied = tell_neighbours(store, board, &old.snapshot, &current.id, pass, now).await?;
        }
    }
    let new = Follow {
        period: board.period.clone(),
        snapshot: current.id.clone(),
        rank: me.me.rank,
        value: my_entry.points,
        reached_at_ms: my_entry.reached_at_ms,
        behind,
    };
    let moved =
        (&new.period, new.rank, new.value, &new.behind) != (&old.period, old.rank, old.value, &old.behind);
    if moved || tally.applied > 0 {
        // Opted out meanwhile, or checked by a concurrent call: either way done.
        store.put_item_if(&key, &encode(&new), item.version).await?;
    }
    Ok((true, tally))
}
