//! Snapshots of a live board (LB-5): the `snapshot` job materialises the board as
//! ranked pages, resumably; readers then serve any page, and any player's rank, with
//! a constant number of reads (LB-7).
//!
//! Items (all through [`ItemStore`]), for board `B` in period `P`:
//!
//! | item | partition key | sort key | body |
//! |---|---|---|---|
//! | run state | `SNAP#B@P` | `RUN#{id}` | [`RunState`] (JSON, constant size): progress and lease, so a retried run resumes |
//! | directory chunk | `SNAP#B@P#{id}` | `DIR#{its first page's first board key}` | up to [`CHUNK_PAGES`] [`DirEntry`]s, compact binary ([`crate::boards::snapshot::codec`]) |
//! | page body | `SNAP#B@P#PAGE#{page id}` | `P` | a page's entries without ranks, compact binary |
//! | movement | `SNAP#B@P#{id}#MOVE` | the chunk's sort key and a block of 16 of its pages | each listed entry's ranks in the previous snapshot and the previous period's final ([`crate::boards::snapshot::movement`]) |
//! | current snapshot | `SNAP#B@P` | `CURRENT` | [`Published`] (JSON), with page 0 and directory chunk 0 inline |
//!
//! Page bodies are shared between snapshots: a page's id is a hash of its
//! body, and a run writes only the bodies the previous snapshot did not already
//! store. A page holds no rank or position (one player moving near the top would
//! change every page below); each snapshot's directory lists, per page in listing
//! order, its first entry's [`BoardKey::encode`], its id, the entries before it and
//! its first entry's LB-2 rank, from which every entry's rank follows. With
//! [`Paging::content_defined`] a page ends after an entry whose player id hashes to a
//! target (or at the page's maximum size), so boundaries do not move when one entry
//! moves: a balance change rewrites the page it leaves and the page it enters.
//!
//! Expiry: a refresh snapshot's directory expires [`REFRESH_RETENTION_SECS`] after
//! its `as_of`; a page body written by a refresh expires [`PAGE_RETENTION_SECS`]
//! after that refresh's `as_of`, and its expiry is recorded in each directory that
//! lists it. A run reuses a stored body only if it outlives the new snapshot
//! (expiry ≥ its `as_of` + [`REFRESH_RETENTION_SECS`]), else writes it again with a
//! fresh expiry: so no body expires while a directory that lists it is kept, and each
//! unchanged body is rewritten about once a day. A frozen (`final`) snapshot keeps its
//! directory and bodies for good, and reuses only bodies kept for good.
//!
//! Directory chunks are sorted by their first page's key, so one Query finds the
//! chunk that lists the page holding any board key, or the page that decides any
//! value's rank; then one read fetches that page.
//!
//! A run holds a lease on its run state (taken and renewed with conditional writes)
//! while it writes: a second run of the same id backs off until the lease lapses.
//! It writes one directory chunk at a time (the new page bodies it lists first, in
//! batches of 25, then the chunk), then saves its progress conditionally on the run
//! state's version. A run that resumes a dead one first deletes the chunks written
//! after the last saved progress, then goes on from there (bodies written without a
//! chunk are harmless: they expire). A run publishes its pointers (every country's,
//! then the board's) before it records itself complete, so a run state is never
//! `complete` while its pointer lags; a publication that fails leaves the run
//! incomplete (its lease given up when the store still answers), and the next call
//! publishes. A complete run is never redone; one found complete with its pointer
//! behind (recorded so by an older version of this code) publishes again from what it
//! stored. The current pointer only moves forward: to a newer `as_of`, or at the same
//! `as_of` to a later refresh of the store-issued sequence ([`RunState::seq`]).
//!
//! Identity: a period's frozen snapshot is [`FINAL`] (one per period); every refresh
//! has an id of its own, [`refresh_id`]: its instant (for people) and a number the
//! store issued it (the identity), so two refreshes at one instant, or in one second,
//! never share a run ([`crate::jobs::identity`]). Each run records the server-clock window in
//! which it read the board, which tells readers which of a player's recent keys it
//! holds.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::snapshot::SnapshotPage;
use podium_store::{BoardKey, ItemKey, StoreError};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::error::ServiceError;

/// How long a refresh snapshot's directory is kept after its `as_of`: long enough
/// for any walk that started on it; frozen (`final`) snapshots are kept for good.
pub const REFRESH_RETENTION_SECS: i64 = 24 * 3600;

/// How long a page body a refresh writes is kept after that refresh's `as_of`: twice
/// a snapshot's retention, so later snapshots reuse it for a day before writing it again.
pub const PAGE_RETENTION_SECS: i64 = 2 * REFRESH_RETENTION_SECS;

/// How long a run's lease lasts after its last progress (ms). A run renews it at every
/// step (a chunk of pages saved) and gives it up when it stops within its budget
/// ([`crate::budget::Budget`]), so it lapses only after a call killed mid-step: then
/// the next tick (5 minutes later) resumes the run. Longer than any one step; a live
/// run taken over by a slower step loses nothing (its next save is refused by the
/// run state's version and it stops).
pub const LEASE_MS: i64 = 2 * 60 * 1000;

/// How long after publication a snapshot's pages are read strongly consistent (ms):
/// a reader that meets a new pointer must not miss a page written just before it.
pub const FRESH_MS: i64 = 5_000;

/// Pages one batch write carries (DynamoDB's BatchWriteItem limit).
pub const PAGES_PER_BATCH: usize = 25;

/// Pages one directory chunk lists; a run saves its progress once per chunk.
pub const CHUNK_PAGES: usize = 200;

/// The pointer's layout written by this code: pages shared between snapshots, found
/// through a directory. A pointer of another layout is not read (see [`current`]).
pub const LAYOUT: u32 = 2;

/// The sort-key prefix of directory chunks.
pub(crate) const DIR_PREFIX: &str = "DIR#";

/// The sort-key prefix of page keys as [`pages`] takes ranges of them.
pub(crate) const PAGE_PREFIX: &str = "PAGE#";

/// The TTL of a snapshot's directory: none for a frozen period's `final`.
pub(crate) fn expiry(id: &str, as_of: DateTime<Utc>) -> Option<i64> {
    (id != crate::boards::snapshot::layout::FINAL).then(|| as_of.timestamp() + REFRESH_RETENTION_SECS)
}

/// The TTL a page body written now gets: none for a frozen period's `final`.
pub(crate) fn body_expiry(id: &str, as_of: DateTime<Utc>) -> Option<i64> {
    (id != crate::boards::snapshot::layout::FINAL).then(|| as_of.timestamp() + PAGE_RETENTION_SECS)
}

/// Whether a body stored until `stored` (`None`: for good) outlives a directory kept
/// until `needed`.
pub(crate) fn outlives(stored: Option<i64>, needed: Option<i64>) -> bool {
    match (stored, needed) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(s), Some(n)) => s >= n,
    }
}

/// Where pages end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paging {
    /// A page ends after an entry whose player-id hash is 0 modulo `target` (0: never),
    /// so pages hold `target` entries on average.
    pub target: u32,
    /// And after `max` entries at most.
    pub max: u32,
}

impl Paging {
    /// Pages of exactly `size` entries (the last one fewer): boundaries move whenever
    /// an entry above them moves, so refreshes share few pages.
    pub fn fixed(size: u32) -> Self {
        Paging {
            target: 0,
            max: size.max(1),
        }
    }

    /// Content-defined pages of `target` entries on average and at most 4 × `target`:
    /// a boundary is an entry (by its player id), so it stays where it is when other
    /// entries move.
    pub fn content_defined(target: u32) -> Self {
        let target = target.max(1);
        Paging {
            target,
            max: target.saturating_mul(4),
        }
    }

    /// Whether a page of `len` entries ends after `player_id`'s entry.
    pub(crate) fn ends_after(&self, player_id: &str, len: usize) -> bool {
        len >= self.max as usize
            || (self.target > 0 && cut_hash(player_id).is_multiple_of(u64::from(self.target)))
    }
}

/// A stable 64-bit hash of a player id for page boundaries: FNV-1a, then SplitMix64's
/// finaliser (so it is unrelated to the board shard, which is FNV-1a alone).
pub(crate) fn cut_hash(player_id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in player_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// One page as a snapshot's directory lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirEntry {
    /// The page's first entry's [`BoardKey::encode`].
    #[serde(rename = "k")]
    pub key: String,
    /// The page body's id: the first 16 bytes of its SHA-256, hex.
    #[serde(rename = "p")]
    pub page: String,
    /// Entries listed before the page (its first entry's 0-based position).
    #[serde(rename = "n")]
    pub position: u64,
    /// The LB-2 rank of its first entry.
    #[serde(rename = "r")]
    pub rank: u64,
    /// Entries on the page.
    #[serde(rename = "l")]
    pub len: u32,
    /// When the stored body may expire (seconds since the Unix epoch; `None`: never).
    #[serde(rename = "x")]
    pub expires_at: Option<i64>,
}

/// Who holds a run, and until when: `until_ms` on the server clock the caller gives
/// (the scheduled instant of a tick, ms), and `ends_ms` the holding call's deadline on
/// the wall clock (ms since the Unix epoch; absent for a call without a deadline).
/// The run is held while both are ahead: a retry of the same scheduled tick after the
/// holder was killed at its deadline (Lambda's timeout) finds the lease over and
/// resumes the run, where its clock alone would still read the lease as held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    pub owner: String,
    pub until_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_ms: Option<i64>,
}

impl Lease {
    /// Whether the lease still holds at `now_ms` (server clock) and `wall_ms` (wall
    /// clock, ms since the Unix epoch).
    pub fn holds(&self, now_ms: i64, wall_ms: i64) -> bool {
        self.until_ms > now_ms && self.ends_ms.is_none_or(|end| end > wall_ms)
    }
}

/// Progress of one snapshot run: constant size, whatever the board's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunState {
    pub id: String,
    pub as_of: DateTime<Utc>,
    /// The refresh's number in the store-issued sequence ([`refresh_id`]; 0 for a
    /// `final` snapshot and runs named by their caller): orders runs of one `as_of`.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub seq: u64,
    /// The pages' maximum size ([`Paging::max`]).
    pub page_size: u32,
    /// [`Paging::target`] (0: fixed-size pages).
    #[serde(default)]
    pub page_target: u32,
    pub pages_written: u32,
    /// Entries written so far.
    pub position: u64,
    /// The last written entry's encoded board key, value and rank.
    pub last: Option<(String, i64, u64)>,
    /// The sort key of the last directory chunk saved.
    #[serde(default)]
    pub last_chunk: Option<String>,
    pub complete: bool,
    #[serde(default)]
    pub lease: Option<Lease>,
    /// Server clock (ms) when this snapshot started and last stopped reading the board.
    #[serde(default)]
    pub read_from_ms: Option<i64>,
    #[serde(default)]
    pub read_to_ms: Option<i64>,
    /// Each country's progress ([`crate::boards::snapshot::country`]), as of the last save.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub countries: std::collections::BTreeMap<String, SinkState>,
}

/// A country's progress in a run, saved with the run state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkState {
    /// Entries listed so far.
    #[serde(rename = "n")]
    pub position: u64,
    /// The last listed entry's encoded board key, value and rank.
    #[serde(rename = "l")]
    pub last: Option<(String, i64, u64)>,
    #[serde(rename = "p")]
    pub pages_written: u32,
    /// The sort key of the last directory chunk saved.
    #[serde(rename = "c")]
    pub last_chunk: Option<String>,
}

impl RunState {
    pub(crate) fn paging(&self) -> Paging {
        Paging {
            target: self.page_target,
            max: self.page_size.max(1),
        }
    }
}

/// The board's current snapshot, as readers find it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Published {
    /// [`LAYOUT`] for pointers written by this code (absent: an older layout).
    #[serde(default)]
    pub layout: u32,
    pub id: String,
    pub as_of: DateTime<Utc>,
    /// The run's [`RunState::seq`]: of two pointers of one `as_of`, the higher is newer.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub seq: u64,
    /// The pages' maximum size.
    pub page_size: u32,
    pub pages: u32,
    pub entries: u64,
    /// Page 0, so the top page costs no extra read (shared, never copied, by readers).
    pub first_page: Option<std::sync::Arc<SnapshotPage>>,
    /// The stored value listed at position [`TOP_CUTOFF`] (the 100th entry), when the
    /// snapshot has more entries than that: the top-100 cut-off every caller's
    /// standing measures against, found once by the run (absent on older pointers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_cutoff: Option<i64>,
    /// Directory chunk 0 (the first [`CHUNK_PAGES`] pages), so reads near the top and
    /// on small boards need no directory read.
    #[serde(default)]
    pub directory: std::sync::Arc<Vec<DirEntry>>,
    /// Server clock (ms) of the window in which the run read the board.
    #[serde(default)]
    pub read_from_ms: i64,
    #[serde(default)]
    pub read_to_ms: i64,
    /// Server clock (ms) when this pointer was written.
    #[serde(default)]
    pub published_at_ms: i64,
    /// Players deleted since snapshots of this board were taken (GM-6): readers leave
    /// their entries out of every snapshot of the board (this one, older ones a cursor
    /// pins). Carried to the next pointer for [`REFRESH_RETENTION_SECS`] (while an older
    /// snapshot may still be read); a frozen `final` pointer keeps them for good.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub erased: Vec<Erased>,
    /// Raised by one by each erasure into this pointer, so that what was rendered
    /// from it before is not served again ([`Published::render_key`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revision: u32,
    /// The countries this snapshot ranks separately (PF-3), ISO 3166-1 alpha-2, sorted:
    /// each has a country board ([`crate::boards::snapshot::country::country_board`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub countries: Vec<String>,
    /// The snapshot this one's movement compares with (its predecessor), and the
    /// period whose final it compares with ([`crate::boards::snapshot::movement`]);
    /// when either is set, each directory chunk has a movement item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_final: Option<String>,
    /// Players whose name an operator reset since this snapshot was taken (PF-1, OP-5;
    /// [`crate::engine::names::id_hash`] of their ids): readers show their entries
    /// without a name ([`Published::card_shown`]). Only a frozen archive (`final`)
    /// gets them: every other snapshot is taken again with the new card.
    #[serde(rename = "nr", default, skip_serializing_if = "Vec::is_empty")]
    pub name_resets: Vec<String>,
    /// The entries listed right after [`Published::top_cutoff`]'s, (value, player id),
    /// at most [`CUTOFF_SPARE`]: where the cut-off moves for a caller whose own older
    /// entry, or a player hidden since, is listed at or above it (LB-4, OP-4:
    /// [`crate::boards::visibility::Hidden::top_cutoff`]).
    #[serde(rename = "cn", default, skip_serializing_if = "Vec::is_empty")]
    pub cutoff_next: Vec<(i64, String)>,
}

/// How many entries after the top-100 cut-off a pointer keeps ([`Published::cutoff_next`]).
pub const CUTOFF_SPARE: u64 = 8;

pub(crate) fn is_zero(n: &u32) -> bool {
    *n == 0
}

pub(crate) fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// A player left out of a board's snapshots (GM-6): not their id, but
/// [`crate::engine::names::id_hash`] of it, and when (server clock, ms).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Erased {
    #[serde(rename = "h")]
    pub hash: String,
    #[serde(rename = "t")]
    pub at_ms: i64,
    /// Hidden while suspended (OP-4), not deleted: a restore removes the entry.
    #[serde(rename = "s", default, skip_serializing_if = "std::ops::Not::not")]
    pub suspended: bool,
    /// The rank the player holds in snapshot [`Erased::snapshot`]: readers of that
    /// snapshot list everyone ranked below one place higher. `None`: unknown (ranks
    /// keep a gap where the player stood).
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    #[serde(rename = "n", default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

/// The snapshot ranks of players hidden while suspended (OP-4), ascending
/// ([`Published::hidden_ranks`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HiddenRanks(Vec<u64>);

impl HiddenRanks {
    /// How many places a rank closes up: the hidden players ranked strictly better
    /// (a player tied with one keeps their rank, LB-2). O(log h).
    pub fn closed_up(&self, rank: u64) -> u64 {
        self.0.partition_point(|&h| h < rank) as u64
    }

    /// How many players readers leave out of the snapshot.
    pub fn count(&self) -> u64 {
        self.0.len() as u64
    }

    /// The ranks, ascending.
    pub fn ranks(&self) -> &[u64] {
        &self.0
    }
}

impl Published {
    /// Where the pointer stands in the order publication moves forward in: its
    /// `as_of`, then its [`Published::seq`].
    pub fn order(&self) -> (DateTime<Utc>, u64) {
        (self.as_of, self.seq)
    }

    /// Whether this pointer stands against snapshot `id` taken at `order` (its `as_of`
    /// and seq), so that publication only moves forward (LB-5): a period's final
    /// snapshot is its last word, what its results were sent from, whatever a refresh
    /// of the period read (one taken later, or at the very instant the period ended:
    /// the same `as_of`, a higher seq); otherwise the newer stands.
    pub fn stands_against(&self, id: &str, order: (DateTime<Utc>, u64)) -> bool {
        match (self.id == FINAL, id == FINAL) {
            (true, false) => true,
            (false, true) => false,
            _ => self.order() >= order,
        }
    }

    /// Whether readers must leave `player_id`'s entries out (GM-6).
    pub fn hides(&self, player_id: &str) -> bool {
        !self.erased.is_empty() && {
            let h = crate::engine::names::id_hash(player_id);
            self.erased.iter().any(|e| e.hash == h)
        }
    }

    /// The ranks in `snapshot` of the players hidden from it while suspended (OP-4),
    /// ascending (those whose rank there is known): what every reader of that
    /// snapshot closes ranks up by ([`HiddenRanks::closed_up`]).
    pub fn hidden_ranks(&self, snapshot: &str) -> HiddenRanks {
        let mut ranks: Vec<u64> = self
            .erased
            .iter()
            .filter(|e| e.snapshot.as_deref() == Some(snapshot))
            .filter_map(|e| e.rank)
            .collect();
        ranks.sort_unstable();
        HiddenRanks(ranks)
    }

    /// The card a reader of this pointer's snapshots shows for `player_id`'s entry,
    /// whose card there is `card`: without its name when an operator reset that name
    /// after the snapshot was taken ([`Published::name_resets`]).
    pub fn card_shown(
        &self,
        player_id: &str,
        card: &podium_rules::profile::Card,
    ) -> podium_rules::profile::Card {
        if !self.name_resets.is_empty()
            && card.name.is_some()
            && self
                .name_resets
                .contains(&crate::engine::names::id_hash(player_id))
        {
            return podium_rules::profile::Card {
                name: None,
                ..card.clone()
            };
        }
        card.clone()
    }

    /// What rendered top pages of this pointer are kept under
    /// ([`crate::boards::snapshot::rendered::RenderedPages`]): the snapshot id, and its revision once a
    /// deletion changed what it shows.
    pub fn render_key(&self) -> String {
        if self.revision == 0 {
            self.id.clone()
        } else {
            format!("{}~r{}", self.id, self.revision)
        }
    }

    /// Whether reads of its pages must be strongly consistent at `now_ms` ([`FRESH_MS`]).
    pub fn fresh(&self, now_ms: i64) -> bool {
        now_ms - self.published_at_ms < FRESH_MS
    }
}

/// What one call of [`run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub id: String,
    /// Pages this call listed.
    pub pages_written: u32,
    /// Of which page bodies it stored (the others were stored already).
    pub bodies_written: u32,
    /// Pages of the snapshot when complete (else so far).
    pub pages_total: u32,
    pub complete: bool,
    /// The run had completed before this call: nothing was written.
    pub already_complete: bool,
    /// Another call holds this run (its lease is live, or it took the run over while
    /// this call wrote): this call stopped and left the run to it. Not a failure:
    /// concurrent ticks of one schedule meet like this (LB-5).
    pub busy: bool,
    /// Server clock (ms, UTC) when the run started reading the board.
    pub read_from_ms: Option<i64>,
}

impl RunReport {
    /// The report of a call that found another call holding run `id`.
    pub(crate) fn busy(id: &str) -> Self {
        RunReport {
            id: id.to_string(),
            pages_written: 0,
            bodies_written: 0,
            pages_total: 0,
            complete: false,
            already_complete: false,
            busy: true,
            read_from_ms: None,
        }
    }
}

/// An instant to the second, as snapshot ids show it: `20261130T020500Z`. A label,
/// not an identity (two refreshes in one second share it): jobs name each refresh
/// with [`refresh_id`]; a caller that names runs by it alone (tests, benchmarks)
/// runs at most one a second.
pub fn id_for(at: DateTime<Utc>) -> String {
    at.format("%Y%m%dT%H%M%SZ").to_string()
}

/// The id of the refresh numbered `seq` by the store ([`crate::jobs::identity`]), taken
/// at `at`: `20261130T020500Z-42`. Unique per refresh whatever the clock shows (the
/// number is), ordered within one instant by the number; holds no `/` or `#`.
pub fn refresh_id(at: DateTime<Utc>, seq: u64) -> String {
    let mut id = id_for(at);
    id.push('-');
    id.push_str(itoa::Buffer::new().format(seq));
    id
}

pub(crate) fn scope(board: &BoardRef) -> String {
    ["SNAP#", board.board.as_str(), "@", board.period.as_str()].concat()
}

pub fn run_key(board: &BoardRef, id: &str) -> ItemKey {
    ItemKey::new(scope(board), format!("RUN#{id}"))
}

/// The partition that holds snapshot `id`'s directory.
pub fn dir_pk(board: &BoardRef, id: &str) -> String {
    ["SNAP#", board.board.as_str(), "@", board.period.as_str(), "#", id].concat()
}

/// The partition of snapshot `id`'s movement items: one per [`MOVE_BLOCK`] pages of
/// a directory chunk ([`move_sk`]), each entry's
/// [`crate::boards::snapshot::codec::Earlier`] ranks.
pub fn moves_pk(board: &BoardRef, id: &str) -> String {
    format!("{}#MOVE", dir_pk(board, id))
}

/// Pages one movement item covers: a reader reads about 1 KB per page shown's block.
pub const MOVE_BLOCK: usize = 16;

/// The sort key of block `block` (pages `block × MOVE_BLOCK ..` of the chunk) of the
/// movement of the directory chunk whose sort key is `chunk_sk`.
pub fn move_sk(chunk_sk: &str, block: usize) -> String {
    format!("{chunk_sk}#{block:04}")
}

pub fn chunk_sk(first_key: &str) -> String {
    format!("{DIR_PREFIX}{first_key}")
}

/// The movement item of snapshot `id` that holds the page `offset` pages into the
/// directory chunk starting at `first_key` ([`crate::boards::snapshot::movement::block`]).
pub fn block_key(board: &BoardRef, id: &str, first_key: &str, offset: u32) -> ItemKey {
    ItemKey::new(
        moves_pk(board, id),
        move_sk(&chunk_sk(first_key), offset as usize / MOVE_BLOCK),
    )
}

/// The item that stores the body of page `page` (a [`DirEntry::page`]) of `board`.
pub fn body_key(board: &BoardRef, page: &str) -> ItemKey {
    ItemKey::new(format!("{}#PAGE#{page}", scope(board)), "P")
}

/// The key of the page whose first entry has board key `encoded`, as [`pages`] takes
/// ranges of them.
pub fn page_sk(encoded: &str) -> String {
    format!("{PAGE_PREFIX}{encoded}")
}

/// The encoded first key of `page` (what cursors carry and the directory lists).
pub fn first_key(page: &SnapshotPage) -> String {
    page.entries
        .first()
        .map(|e| {
            BoardKey {
                value: e.value,
                reached_at_ms: e.reached_at_ms,
                player_id: e.player_id.clone(),
            }
            .encode()
        })
        .unwrap_or_default()
}

/// The item of `board`'s current snapshot pointer ([`Published`]): `SNAP#B@P` / `CURRENT`.
pub fn current_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(scope(board), "CURRENT")
}

/// Players erased from a board before it had any snapshot pointer (GM-6): the first
/// pointer published takes them over ([`publish`]).
pub(crate) fn pending_erasures_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(scope(board), "ERASED")
}

pub(crate) fn decode<T: DeserializeOwned>(what: &str, body: &[u8]) -> Result<T, ServiceError> {
    serde_json::from_slice(body).map_err(|e| ServiceError::Store(StoreError::corrupt(what, e)))
}

pub(crate) fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// The snapshot id of a period's frozen board.
pub const FINAL: &str = "final";
