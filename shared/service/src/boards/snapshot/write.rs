//! Writing a snapshot: a refresh or freeze run, resumable under a lease, and the
//! erasure of a deleted player (GM-6). The items it writes: [`super::layout`].

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{listing_order, Standing};
use podium_rules::profile::Card;
use podium_rules::snapshot::SnapshotPage;
use podium_rules::standing::TOP_CUTOFF;
use podium_store::{BoardKey, BoardStore, ItemKey, ItemStore, SortKeyRange, StoreError};

use super::country::{country_board, cut, CutPage, Sink};
use super::layout::*;
use super::read::*;
use super::seen::Seen;
use crate::boards::snapshot::codec::{decode_chunk, encode_moves, Earlier};
use crate::budget::Budget;
use crate::error::ServiceError;

/// Entries one shard read asks for while a snapshot streams the board.
pub const SHARD_FETCH: usize = 1_000;

/// Players whose cards a run reads ahead of the page it cuts (PF-5): 8 BatchGetItems.
pub const CARDS_AHEAD: usize = 800;

/// How far before the previous snapshot's start a run looks for profile changes (ms):
/// more than any skew between the functions' clocks.
const CHANGE_MARGIN_MS: i64 = 10 * 60 * 1000;

/// The whole board in listing order, read shard by shard (one Query per
/// [`SHARD_FETCH`] entries of a shard) and merged, so each entry is read once.
struct BoardStream<'a, S: ?Sized> {
    store: &'a S,
    board: &'a BoardRef,
    shards: Vec<ShardBuffer>,
    /// Players left out: those suspended when the run read the board (OP-4).
    skip: HashSet<String>,
}

struct ShardBuffer {
    buffered: std::collections::VecDeque<Standing>,
    last: Option<BoardKey>,
    done: bool,
}

fn key_of(s: &Standing) -> BoardKey {
    BoardKey::of(s)
}

impl<'a, S: BoardStore + ?Sized> BoardStream<'a, S> {
    /// A stream of the entries after `after` (from the top when `None`).
    fn new(store: &'a S, board: &'a BoardRef, after: Option<BoardKey>, skip: HashSet<String>) -> Self {
        let shards = (0..store.board_shards())
            .map(|_| ShardBuffer {
                buffered: Default::default(),
                last: after.clone(),
                done: false,
            })
            .collect();
        BoardStream {
            store,
            board,
            shards,
            skip,
        }
    }

    /// The player ids of up to `limit` entries read but not yet taken, about evenly
    /// from each shard: those the next pages will list (for reading their cards ahead).
    fn upcoming(&self, limit: usize) -> Vec<String> {
        let each = limit / self.shards.len().max(1) + 1;
        self.shards
            .iter()
            .flat_map(|s| s.buffered.iter().take(each))
            .map(|r| r.player_id.clone())
            .take(limit)
            .collect()
    }

    /// The next entry not left out (`None` at the end of the board).
    async fn next(&mut self) -> Result<Option<Standing>, ServiceError> {
        loop {
            match self.next_listed().await? {
                Some(s) if self.skip.contains(&s.player_id) => continue,
                other => return Ok(other),
            }
        }
    }

    /// The next entry (`None` at the end of the board).
    async fn next_listed(&mut self) -> Result<Option<Standing>, ServiceError> {
        for (i, shard) in self.shards.iter_mut().enumerate() {
            if shard.buffered.is_empty() && !shard.done {
                let rows = self
                    .store
                    .shard_after(self.board, i as u32, shard.last.as_ref(), SHARD_FETCH)
                    .await?;
                shard.done = rows.len() < SHARD_FETCH;
                shard.last = rows.last().map(key_of);
                shard.buffered.extend(rows);
            }
        }
        let best = self
            .shards
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.buffered.front().map(|f| (i, f)))
            .min_by(|a, b| listing_order(a.1, b.1))
            .map(|(i, _)| i);
        Ok(best.and_then(|i| self.shards[i].buffered.pop_front()))
    }
}

/// A run's server clock: the injected instant the call started at (UTC), advanced
/// by the monotonic time since, so that leases and read instants move with the run
/// while the caller chooses the instant (the wall clock is read only for a lease's
/// holder's deadline, [`Lease::ends_ms`]).
struct RunClock {
    start_ms: i64,
    started: std::time::Instant,
}

impl RunClock {
    fn new(now: DateTime<Utc>) -> Self {
        RunClock {
            start_ms: now.timestamp_millis(),
            started: std::time::Instant::now(),
        }
    }

    /// The server clock now (milliseconds, UTC).
    fn now_ms(&self) -> i64 {
        self.start_ms
            .saturating_add(i64::try_from(self.started.elapsed().as_millis()).unwrap_or(i64::MAX))
    }
}

/// The players the pages of snapshot `id` saved so far list, by the key of their id
/// (a resumed run must not list them again), and the bodies those pages use with
/// their expiry.
async fn listed_so_far<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    seen: &mut Seen<'_>,
) -> Result<HashMap<String, Option<i64>>, ServiceError> {
    let mut bodies = HashMap::new();
    for (_, first, entries) in all_chunks(store, board, id, true).await? {
        for (i, e) in entries.iter().enumerate() {
            let page = load_page(store, board, first + i as u32, e, true)
                .await?
                .ok_or_else(|| {
                    StoreError::corrupt(body_key(board, &e.page).pk, "a listed page is missing")
                })?;
            for entry in &page.entries {
                seen.insert(&entry.player_id);
            }
            bodies.insert(e.page.clone(), e.expires_at);
        }
    }
    Ok(bodies)
}

/// The page bodies the current snapshot (other than `id`) lists, with their expiry:
/// what a new run may reuse instead of writing.
async fn stored_bodies<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
) -> Result<HashMap<String, Option<i64>>, ServiceError> {
    let key = current_key(board);
    let Some(item) = store.get_item(&key, true).await? else {
        return Ok(HashMap::new());
    };
    let p: Published = decode(&key.sk, &item.body)?;
    if p.layout != LAYOUT || p.id == id {
        return Ok(HashMap::new());
    }
    Ok(all_chunks(store, board, &p.id, true)
        .await?
        .into_iter()
        .flat_map(|(_, _, entries)| entries)
        .map(|e| (e.page, e.expires_at))
        .collect())
}

/// Deletes the directory chunks of snapshot `id` after sort key `after` (all when
/// `None`): what a run that died wrote after its last saved progress.
async fn delete_unsaved_chunks<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    after: Option<&str>,
) -> Result<(), ServiceError> {
    let pk = dir_pk(board, id);
    let range = match after {
        Some(sk) => SortKeyRange::After(sk.to_string()),
        None => SortKeyRange::All,
    };
    loop {
        let found = store.query_items(&pk, &range, true, 100, true).await?;
        if found.is_empty() {
            return Ok(());
        }
        let keys: Vec<ItemKey> = found
            .into_iter()
            .map(|(sk, _)| ItemKey::new(pk.clone(), sk))
            .collect();
        store.delete_items(&keys).await?;
    }
}

/// Runs (or resumes) snapshot `id` of `board` at `as_of` in pages of `page_size`
/// entries ([`Paging::fixed`]); see [`run_paged`].
pub async fn run<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    as_of: DateTime<Utc>,
    page_size: u32,
    page_budget: Option<u32>,
    now: DateTime<Utc>,
) -> Result<RunReport, ServiceError> {
    run_paged(
        store,
        board,
        id,
        as_of,
        Paging::fixed(page_size),
        page_budget,
        now,
    )
    .await
}

/// Runs (or resumes) snapshot `id` of `board` at `as_of`, cutting pages by `paging`
/// (a resumed run keeps the paging it started with) and listing at most
/// `page_budget` pages in this call (`None`: to the end). Writes only the page bodies
/// the current snapshot does not already store (for long enough). Safe to call again
/// with the same id after a timeout or crash; a completed snapshot is left as it is
/// (its pointer published again if it lags, [`run_sequenced`]); while another call
/// holds the run, a [`RunReport::busy`] report (nothing done, the run left to it).
/// `now` is the server clock at the call (UTC): leases, the instants the board was
/// read and the pointer's publication are dated from it. The run's `seq` is 0: runs
/// of one `as_of` under other ids do not replace each other's pointer.
#[allow(clippy::too_many_arguments)]
pub async fn run_paged<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    as_of: DateTime<Utc>,
    paging: Paging,
    page_budget: Option<u32>,
    now: DateTime<Utc>,
) -> Result<RunReport, ServiceError> {
    let budget = Budget {
        steps: page_budget,
        deadline: None,
    };
    run_sequenced(store, board, id, 0, as_of, paging, budget, now).await
}

/// [`run_paged`] for the refresh numbered `seq` by the store
/// ([`super::layout::refresh_id`], [`RunState::seq`]): its pointer replaces one of the
/// same `as_of` with a lower number (a later refresh at one instant is published).
///
/// Completion (LB-5): the run publishes every country's pointer and then the board's,
/// and only then records itself `complete`, so a complete run's pointer (or a newer
/// one) is always current. A publication that fails (a store error, pointer writes
/// lost to concurrent erasures or hides) leaves the run incomplete with its progress
/// saved and its lease given up (when the store still answers): the next call
/// publishes without reading the board again, and records it complete. A run found
/// complete whose pointer lags (recorded complete before publishing, by an older
/// version of this code) is published again from what it stored.
///
/// `budget` bounds this call: at most its steps in pages, and no chunk of pages begun
/// after its deadline (one chunk, [`CHUNK_PAGES`] pages, is always listed): the call then saves
/// its progress, gives its lease up and answers incomplete, and the next call with
/// the same id goes on from there.
#[allow(clippy::too_many_arguments)]
pub async fn run_sequenced<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    seq: u64,
    as_of: DateTime<Utc>,
    paging: Paging,
    budget: Budget,
    now: DateTime<Utc>,
) -> Result<RunReport, ServiceError> {
    let clock = RunClock::new(now);
    // Milliseconds, as cursors carry it: one `as_of` on every page of a walk.
    let as_of = DateTime::from_timestamp_millis(as_of.timestamp_millis()).unwrap_or(as_of);
    let rkey = run_key(board, id);
    let owner = format!("{:016x}", rand::random::<u64>());
    let lease = |owner: &str| {
        Some(Lease {
            owner: owner.to_string(),
            until_ms: clock.now_ms() + LEASE_MS,
            ends_ms: budget.deadline_wall_ms(),
        })
    };
    // Another call holds the run (or took it over): it finishes it.
    let busy = || Ok(RunReport::busy(id));
    let (mut state, mut version) = match store.get_item(&rkey, true).await? {
        None => {
            let fresh = RunState {
                id: id.to_string(),
                as_of,
                seq,
                page_size: paging.max.max(1),
                page_target: paging.target,
                pages_written: 0,
                position: 0,
                last: None,
                last_chunk: None,
                complete: false,
                lease: lease(&owner),
                read_from_ms: None,
                read_to_ms: None,
                countries: Default::default(),
            };
            if !store.put_item_if(&rkey, &encode(&fresh), 0).await? {
                return busy();
            }
            (fresh, 1)
        }
        Some(item) => {
            let mut state: RunState = decode(&rkey.sk, &item.body)?;
            if state.complete {
                if lags(store, board, id, &state).await? {
                    republish(store, board, id, &state, &clock).await?;
                }
                return Ok(RunReport {
                    id: id.to_string(),
                    pages_written: 0,
                    bodies_written: 0,
                    pages_total: state.pages_written,
                    complete: true,
                    already_complete: true,
                    busy: false,
                    read_from_ms: state.read_from_ms,
                });
            }
            if state
                .lease
                .as_ref()
                .is_some_and(|l| l.holds(clock.now_ms(), crate::budget::wall_ms()))
            {
                return busy();
            }
            // A lease left behind: the call died (a clean stop gives its lease up).
            let died = state.lease.is_some();
            state.lease = lease(&owner);
            if !store.put_item_if(&rkey, &encode(&state), item.version).await? {
                return busy();
            }
            delete_unsaved_chunks(store, board, id, state.last_chunk.as_deref()).await?;
            if died {
                // Its countries may have written chunks after the last save: any country.
                for cc in podium_rules::profile::all_countries() {
                    let saved = state.countries.get(cc).and_then(|c| c.last_chunk.as_deref());
                    delete_unsaved_chunks(store, &country_board(board, cc), id, saved).await?;
                }
            }
            (state, item.version + 1)
        }
    };
    let paging = state.paging();
    let needed = expiry(id, as_of);
    let fresh_expiry = body_expiry(id, as_of);
    let mut pages_left = budget.steps.unwrap_or(u32::MAX);
    let mut chunks_now = 0u32;
    let resume_after = state.last.as_ref().and_then(|(k, _, _)| BoardKey::decode(k));
    // The board moves while it is read: a player met twice (their value changed and
    // they moved past the reading) is listed once, where first met.
    // Movement: the earlier snapshots this one is compared with, read whole.
    let earlier = super::movement::earlier(store, board, id).await?;
    let mut seen = Seen::new(earlier.previous.as_ref().map(|(_, listed)| listed));
    let mut stored = if state.last_chunk.is_some() {
        listed_so_far(store, board, id, &mut seen).await?
    } else {
        Default::default()
    };
    stored.extend(stored_bodies(store, board, id).await?);
    // PF-3: one sink per country, resuming the saved progress.
    let mut sinks: BTreeMap<String, Sink> = BTreeMap::new();
    for (cc, saved) in &state.countries {
        let cb = country_board(board, cc);
        let bodies = stored_bodies(store, &cb, id).await?;
        sinks.insert(cc.clone(), Sink::new(cb, saved.clone(), bodies));
    }
    // OP-4: suspended players are left out, so the snapshot's ranks close up: those
    // the board's index lists when this call begins.
    let skip = crate::boards::suspended::ids_on(store, board).await?;
    let mut stream = BoardStream::new(store, board, resume_after, skip);
    // Cards read ahead of the pages that list them (absent profiles: empty cards).
    let mut known: HashMap<String, Card> = HashMap::new();
    // PF-5: the cards of players who did not change their profile since the previous
    // snapshot started reading are that snapshot's; only the others' are read.
    let changed = match &earlier.previous {
        Some(_) => {
            let from = earlier.previous_read_from_ms - CHANGE_MARGIN_MS;
            crate::profiles::changed_between(store, from, clock.now_ms()).await?
        }
        None => None,
    };
    let reusable = |player: &str| -> Option<Card> {
        let changed = changed.as_ref()?;
        if changed.contains(player) {
            return None;
        }
        earlier.previous_card(player)
    };
    let (mut written_now, mut bodies_now) = (0, 0);
    let mut first_page = None;
    let mut first_chunk = None;
    let mut exhausted = false;
    if state.read_from_ms.is_none() {
        state.read_from_ms = Some(clock.now_ms());
    }
    while pages_left > 0 && !exhausted && !(chunks_now > 0 && budget.expired()) {
        chunks_now += 1;
        let mut next = state.clone();
        let mut listed: Vec<DirEntry> = Vec::new();
        let mut moves: Vec<Vec<Earlier>> = Vec::new();
        let mut bodies: Vec<(ItemKey, Vec<u8>)> = Vec::new();
        while listed.len() < CHUNK_PAGES && pages_left > 0 {
            let mut rows: Vec<Standing> = Vec::new();
            loop {
                let Some(s) = stream.next().await? else {
                    exhausted = true;
                    break;
                };
                if !seen.insert(&s.player_id) {
                    continue;
                }
                let ends = paging.ends_after(&s.player_id, rows.len() + 1);
                rows.push(s);
                if ends {
                    break;
                }
            }
            if rows.is_empty() {
                break;
            }
            // PF-5: each entry's card as the snapshot reads it, read ahead for the next
            // pages too (one BatchGetItem per 100 players, several in flight).
            for r in &rows {
                if !known.contains_key(&r.player_id) {
                    if let Some(card) = reusable(&r.player_id) {
                        known.insert(r.player_id.clone(), card);
                    }
                }
            }
            if rows.iter().any(|r| !known.contains_key(&r.player_id)) {
                let mut ids: Vec<String> = rows.iter().map(|r| r.player_id.clone()).collect();
                ids.extend(stream.upcoming(CARDS_AHEAD));
                ids.retain(|id| !known.contains_key(id) && reusable(id).is_none());
                ids.sort_unstable();
                ids.dedup();
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                let mut found = crate::profiles::cards::cards(store, &refs).await?;
                for id in ids {
                    let card = found.remove(&id).unwrap_or_default();
                    known.insert(id, card);
                }
            }
            let rows: Vec<(Standing, Card)> = rows
                .into_iter()
                .map(|r| {
                    let card = known.remove(&r.player_id).unwrap_or_default();
                    (r, card)
                })
                .collect();
            // PF-3: each entry of a country also to that country's board.
            for (row, card) in &rows {
                let Some(cc) = card.country.as_deref() else {
                    continue;
                };
                if !sinks.contains_key(cc) {
                    let cb = country_board(board, cc);
                    let bodies = stored_bodies(store, &cb, id).await?;
                    sinks.insert(cc.to_string(), Sink::new(cb, Default::default(), bodies));
                }
                if let Some(sink) = sinks.get_mut(cc) {
                    sink.push(row.clone(), card.clone(), &paging, needed, fresh_expiry);
                }
            }
            if earlier.any() {
                moves.push(rows.iter().map(|(r, _)| earlier.of(&r.player_id)).collect());
            }
            let Some(CutPage {
                mut entry,
                body,
                entries,
                tail,
            }) = cut(rows, next.position, next.last.as_ref())
            else {
                break;
            };
            entry.expires_at = match stored.get(&entry.page) {
                Some(e) if outlives(*e, needed) => *e,
                _ => {
                    bodies.push((body_key(board, &entry.page), body));
                    stored.insert(entry.page.clone(), fresh_expiry);
                    fresh_expiry
                }
            };
            next.last = Some(tail);
            if next.pages_written == 0 {
                first_page = Some(SnapshotPage {
                    number: 0,
                    first_position: 0,
                    entries,
                });
            }
            next.position += u64::from(entry.len);
            next.pages_written += 1;
            listed.push(entry);
            pages_left -= 1;
            if exhausted {
                break;
            }
        }
        let Some(head) = listed.first() else {
            break;
        };
        let sk = chunk_sk(&head.key);
        let first_number = next.pages_written - listed.len() as u32;
        // Bodies first, then the chunk that lists them, then the progress that counts it.
        if !bodies.is_empty() {
            store.put_items(&bodies, fresh_expiry).await?;
        }
        let chunk = crate::boards::snapshot::codec::encode_chunk(first_number, &listed);
        let mut items = vec![(ItemKey::new(dir_pk(board, id), sk.clone()), chunk)];
        if earlier.any() {
            for (b, block) in moves.chunks(MOVE_BLOCK).enumerate() {
                items.push((
                    ItemKey::new(moves_pk(board, id), move_sk(&sk, b)),
                    encode_moves(block),
                ));
            }
        }
        store.put_items(&items, needed).await?;
        written_now += listed.len() as u32;
        bodies_now += bodies.len() as u32;
        if first_number == 0 {
            first_chunk = Some(listed);
        }
        // The countries' pages so far, saved with the board's progress.
        for sink in sinks.values_mut() {
            sink.flush(store, id, needed, fresh_expiry).await?;
        }
        next.countries = sinks
            .iter()
            .map(|(cc, s)| (cc.clone(), s.state.clone()))
            .collect();
        next.last_chunk = Some(sk);
        next.read_to_ms = Some(clock.now_ms());
        next.lease = lease(&owner);
        if !store.put_item_if(&rkey, &encode(&next), version).await? {
            // Another run of the same id took over: let it finish.
            return busy();
        }
        version += 1;
        state = next;
    }
    if !exhausted {
        // Out of budget (pages or time): save where this call stopped and let the next
        // one go on at once.
        state.lease = None;
        if !store.put_item_if(&rkey, &encode(&state), version).await? {
            return busy();
        }
        return Ok(RunReport {
            id: id.to_string(),
            pages_written: written_now,
            bodies_written: bodies_now,
            pages_total: state.pages_written,
            complete: false,
            already_complete: false,
            busy: false,
            read_from_ms: state.read_from_ms,
        });
    }
    let mut done = state.clone();
    done.complete = true;
    done.lease = None;
    done.read_to_ms = Some(clock.now_ms());
    // LB-5: published first, recorded complete after: a complete run's pointer is current.
    let compared = (
        earlier.previous.as_ref().map(|(id, _)| id.clone()),
        earlier.last_final.as_ref().map(|(id, _)| id.clone()),
    );
    let first = (first_page, first_chunk);
    if let Err(e) = publish_run(store, board, id, &done, first, &mut sinks, compared, &clock).await {
        // Every page is saved: give the lease up so that the next call publishes at
        // once (when the store does not answer, the lease lapses instead).
        let mut held = state;
        held.lease = None;
        if let Err(release) = store.put_item_if(&rkey, &encode(&held), version).await {
            tracing::warn!(error = %release, snapshot = id, "giving up a snapshot run's lease failed; it lapses");
        }
        return Err(e);
    }
    if !store.put_item_if(&rkey, &encode(&done), version).await? {
        // Another call took the run over meanwhile: it records it complete.
        return busy();
    }
    Ok(RunReport {
        id: id.to_string(),
        pages_written: written_now,
        bodies_written: bodies_now,
        pages_total: state.pages_written,
        complete: true,
        already_complete: false,
        busy: false,
        read_from_ms: done.read_from_ms,
    })
}

/// Whether the pointer of `board` lags complete run `state` of snapshot `id`: absent,
/// or not standing against it ([`Published::stands_against`]).
async fn lags<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    state: &RunState,
) -> Result<bool, ServiceError> {
    Ok(match pointer(store, board, true).await? {
        Some(p) => !p.stands_against(id, (state.as_of, state.seq)),
        None => true,
    })
}

/// Publishes complete run `state` again from what it stored (its directory, its
/// countries' progress), without reading the board: a run recorded complete before
/// its pointer was published.
async fn republish<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    state: &RunState,
    clock: &RunClock,
) -> Result<(), ServiceError> {
    tracing::warn!(board = %board.key(), snapshot = id, "a complete snapshot's pointer lags: publishing it");
    let earlier = super::movement::earlier(store, board, id).await?;
    let compared = (
        earlier.previous.map(|(id, _)| id),
        earlier.last_final.map(|(id, _)| id),
    );
    let mut sinks: BTreeMap<String, Sink> = state
        .countries
        .iter()
        .map(|(cc, saved)| {
            let sink = Sink::new(country_board(board, cc), saved.clone(), HashMap::new());
            (cc.clone(), sink)
        })
        .collect();
    publish_run(store, board, id, state, (None, None), &mut sinks, compared, clock).await
}

/// Publishes run `state` of snapshot `id` (all its pages saved): every country's
/// pointer, then the board's ([`publish`]: only forward). `first` is page 0 and
/// directory chunk 0 when this call has them (else read back); `compared` the ids of
/// the snapshots its movement compares with (the previous one, the previous period).
#[allow(clippy::too_many_arguments)]
async fn publish_run<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    state: &RunState,
    first: (Option<SnapshotPage>, Option<Vec<DirEntry>>),
    sinks: &mut BTreeMap<String, Sink>,
    compared: (Option<String>, Option<String>),
    clock: &RunClock,
) -> Result<(), ServiceError> {
    let (mut first_page, mut first_chunk) = first;
    if first_chunk.is_none() && state.pages_written > 0 {
        let pk = dir_pk(board, id);
        if let Some((sk, item)) = store
            .query_items(&pk, &SortKeyRange::All, true, 1, true)
            .await?
            .into_iter()
            .next()
        {
            let (_, entries) = decode_chunk(&sk, &item.body)?;
            if let Some(e) = entries.first() {
                first_page = load_page(store, board, 0, e, true).await?;
            }
            first_chunk = Some(entries);
        }
    }
    let (top_cutoff, cutoff_next) = cutoff(
        store,
        board,
        first_page.as_ref(),
        first_chunk.as_deref(),
        state.position,
    )
    .await?;
    let countries = publish_countries(store, board, id, state, sinks, clock).await?;
    let (previous, last_final) = compared;
    publish(
        store,
        board,
        Published {
            layout: LAYOUT,
            id: id.to_string(),
            as_of: state.as_of,
            seq: state.seq,
            page_size: state.page_size,
            pages: state.pages_written,
            entries: state.position,
            first_page: first_page.map(std::sync::Arc::new),
            top_cutoff,
            directory: std::sync::Arc::new(first_chunk.unwrap_or_default()),
            read_from_ms: state.read_from_ms.unwrap_or_default(),
            read_to_ms: state.read_to_ms.unwrap_or_default(),
            published_at_ms: 0,
            erased: Vec::new(),
            revision: 0,
            countries,
            previous,
            last_final,
            name_resets: Vec::new(),
            cutoff_next,
        },
        clock,
        Vec::new(),
    )
    .await
}

/// A snapshot's top-100 cut-off (LB-4) and the entries after it
/// ([`Published::cutoff_next`]), for a snapshot of `entries` entries; none when it
/// ranks no more than the cut-off.
async fn cutoff<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    first_page: Option<&SnapshotPage>,
    chunk0: Option<&[DirEntry]>,
    entries: u64,
) -> Result<(Option<i64>, Vec<(i64, String)>), ServiceError> {
    if entries <= TOP_CUTOFF {
        return Ok((None, Vec::new()));
    }
    let mut listed = entries_at(store, board, first_page, chunk0, TOP_CUTOFF - 1, 1 + CUTOFF_SPARE).await?;
    let at = (!listed.is_empty()).then(|| listed.remove(0).0);
    Ok((at, listed))
}

/// Publishes each country's snapshot of run `state` (PF-3), and an empty one for each
/// country the board's current snapshot ranked that this run met no entry of, each
/// leaving out whom the board's current pointer does (GM-6); answers the countries
/// ranked, sorted.
async fn publish_countries<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    state: &RunState,
    sinks: &mut BTreeMap<String, Sink>,
    clock: &RunClock,
) -> Result<Vec<String>, ServiceError> {
    let previous = pointer(store, board, true).await?;
    let inherit = previous.as_ref().map(|p| p.erased.clone()).unwrap_or_default();
    let before = previous.map(|p| p.countries).unwrap_or_default();
    let snapshot = |pages: u32, entries: u64| Published {
        layout: LAYOUT,
        id: id.to_string(),
        as_of: state.as_of,
        seq: state.seq,
        page_size: state.page_size,
        pages,
        entries,
        first_page: None,
        top_cutoff: None,
        directory: Default::default(),
        read_from_ms: state.read_from_ms.unwrap_or_default(),
        read_to_ms: state.read_to_ms.unwrap_or_default(),
        published_at_ms: 0,
        erased: Vec::new(),
        revision: 0,
        countries: Vec::new(),
        previous: None,
        last_final: None,
        name_resets: Vec::new(),
        cutoff_next: Vec::new(),
    };
    let mut ranked = Vec::new();
    for (cc, sink) in sinks.iter_mut() {
        if sink.state.pages_written == 0 {
            continue;
        }
        let cb = sink.board.clone();
        let (first_page, first_chunk) = match (sink.first_page.take(), sink.first_chunk.take()) {
            (Some(page), Some(chunk)) => (Some(page), chunk),
            _ => {
                // Written by an earlier call of this run: read them back.
                let found = store
                    .query_items(&dir_pk(&cb, id), &SortKeyRange::All, true, 1, true)
                    .await?;
                match found.into_iter().next() {
                    Some((sk, item)) => {
                        let (_, entries) = decode_chunk(&sk, &item.body)?;
                        let page = match entries.first() {
                            Some(e) => load_page(store, &cb, 0, e, true).await?,
                            None => None,
                        };
                        (page, entries)
                    }
                    None => (None, Vec::new()),
                }
            }
        };
        let (top_cutoff, cutoff_next) = cutoff(
            store,
            &cb,
            first_page.as_ref(),
            Some(&first_chunk),
            sink.state.position,
        )
        .await?;
        let mut published = snapshot(sink.state.pages_written, sink.state.position);
        published.first_page = first_page.map(std::sync::Arc::new);
        published.directory = std::sync::Arc::new(first_chunk);
        published.top_cutoff = top_cutoff;
        published.cutoff_next = cutoff_next;
        publish(store, &cb, published, clock, inherit.clone()).await?;
        ranked.push(cc.clone());
    }
    for cc in before.iter().filter(|c| !ranked.contains(c)) {
        publish(
            store,
            &country_board(board, cc),
            snapshot(0, 0),
            clock,
            inherit.clone(),
        )
        .await?;
    }
    Ok(ranked)
}

/// Points readers at `snapshot` unless it or a newer one is current already
/// ([`Published::order`]: a later `as_of`, or the same with a later refresh number):
/// publication only moves forward, and publishing again changes nothing.
async fn publish<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    mut snapshot: Published,
    clock: &RunClock,
    inherit: Vec<Erased>,
) -> Result<(), ServiceError> {
    let key = current_key(board);
    for _ in 0..10 {
        let (current, version) = match store.get_item(&key, true).await? {
            Some(item) => (Some(decode::<Published>(&key.sk, &item.body)?), item.version),
            None => (None, 0),
        };
        // A newer pointer stands, a period's final snapshot against any refresh, and
        // a final against a refresh of its period (LB-5: what its results are sent from).
        if current
            .as_ref()
            .is_some_and(|c| c.layout == LAYOUT && c.stands_against(&snapshot.id, snapshot.order()))
        {
            return Ok(());
        }
        snapshot.published_at_ms = clock.now_ms();
        // GM-6: erasures stay while a snapshot taken before them may still be read
        // (its entries may predate the deletion, even this run's: it may have read the
        // board before the player's entries were removed).
        let keep_from = snapshot.published_at_ms - REFRESH_RETENTION_SECS * 1000;
        let first = current.is_none();
        // OP-4: a suspension's entry (written once the player was indexed on the
        // board, [`crate::boards::suspended`]) is carried, without the rank it had in
        // the older snapshot, while a snapshot taken before it may still be read, and
        // while this run may have read the board before the player was indexed (then
        // they are hidden, with a gap); after, this run left them out itself. A restore
        // takes it off the pointer it finds, so a pointer carries only the suspensions
        // of about a day, however many players are suspended.
        let read_from = snapshot.read_from_ms;
        snapshot.erased = match current {
            Some(c) => c
                .erased
                .into_iter()
                .filter(|e| e.at_ms >= keep_from || (e.suspended && e.at_ms + CHANGE_MARGIN_MS >= read_from))
                .map(|mut e| {
                    if e.suspended {
                        e.rank = None;
                        e.snapshot = None;
                    }
                    e
                })
                .collect(),
            // The board's first pointer: players deleted before it existed.
            None => pending_erasures(store, board).await?.0,
        };
        // A country board also leaves out whom its board does (PF-3, GM-6).
        for e in &inherit {
            if !snapshot.erased.iter().any(|x| x.hash == e.hash) {
                snapshot.erased.push(e.clone());
            }
        }
        if store.put_item_if(&key, &encode(&snapshot), version).await? {
            if first {
                // A deletion may have recorded its erasure after the read above and
                // found no pointer yet: carry over any that the pointer lacks.
                for e in pending_erasures(store, board).await?.0 {
                    if !snapshot.erased.iter().any(|x| x.hash == e.hash) {
                        erase_hash(store, board, &e.hash, clock.now_ms()).await?;
                    }
                }
            }
            return Ok(());
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// Leaves `player_id` out of every snapshot of `board` from now on (GM-6): records
/// them in the current pointer's [`Published::erased`] and raises its revision
/// (conditional on the pointer's version, retried). `Ok(false)`: the board has no
/// snapshot. Safe to repeat: an erasure already recorded changes nothing.
pub async fn erase_player<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<bool, ServiceError> {
    let hash = crate::engine::names::id_hash(player_id);
    let marked = erase_hash(store, board, &hash, now.timestamp_millis()).await?;
    // PF-3: and from the board's country boards.
    if let Some(p) = pointer(store, board, true).await? {
        for cc in &p.countries {
            erase_hash(store, &country_board(board, cc), &hash, now.timestamp_millis()).await?;
        }
    }
    Ok(marked)
}

/// [`erase_player`] by the id's hash, at the server clock `now_ms` (milliseconds, UTC). A board without a pointer yet records the
/// erasure for its first one (a snapshot run may be under way, having read the
/// player's entries before they were removed); answers whether a pointer was marked.
async fn erase_hash<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    hash: &str,
    now_ms: i64,
) -> Result<bool, ServiceError> {
    let key = current_key(board);
    let hash = hash.to_string();
    for _ in 0..10 {
        let Some(item) = store.get_item(&key, true).await? else {
            let (mut pending, version) = pending_erasures(store, board).await?;
            if !pending.iter().any(|e| e.hash == hash) {
                pending.push(Erased {
                    hash: hash.clone(),
                    at_ms: now_ms,
                    suspended: false,
                    rank: None,
                    snapshot: None,
                });
                if !store
                    .put_item_if(&pending_erasures_key(board), &encode(&pending), version)
                    .await?
                {
                    continue;
                }
            }
            // Published meanwhile? Then mark the pointer too (the loop goes on).
            if store.get_item(&key, true).await?.is_none() {
                return Ok(false);
            }
            continue;
        };
        let mut p: Published = decode(&key.sk, &item.body)?;
        if p.erased.iter().any(|e| e.hash == hash) {
            return Ok(true);
        }
        p.erased.push(Erased {
            hash: hash.clone(),
            at_ms: now_ms,
            suspended: false,
            rank: None,
            snapshot: None,
        });
        p.revision = p.revision.saturating_add(1);
        if store.put_item_if(&key, &encode(&p), item.version).await? {
            return Ok(true);
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}
