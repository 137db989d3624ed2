//! Top pages of the current snapshots, rendered once (LB-3, LB-5): the JSON body of
//! `GET /v1/leaderboards/{board}?limit=L` is the same for every caller until the
//! board's current snapshot or its period changes, so each (board, period, snapshot,
//! limit) is serialised once and its bytes are shared by every later request. The
//! snapshot is named by [`crate::boards::snapshot::layout::Published::render_key`]: its id, and its
//! revision once a player deletion (GM-6) changed what it shows, so a body rendered
//! before the deletion is not served after it.
//!
//! A slot per board and period holds the bodies of one snapshot: a newer snapshot
//! (or a changed period clock) empties the slot. At most
//! [`MAX_PERIODS_PER_BOARD`] periods of one board are kept; the slot filled longest
//! ago goes first.
//!
//! Pages reached by a cursor ([`CursorPages`]) are the same for every caller too: a
//! cursor names a position in one snapshot, and every caller paging down from the
//! top with the same `limit` is handed the same cursors. Their bodies are kept by
//! board, snapshot (render key), `limit` and cursor, within a bound in bytes
//! ([`CURSOR_PAGES_BYTES`]); around-me is not cached (it differs per caller).

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::Instant;

use bytes::Bytes;
use podium_rules::board::BoardRef;
use podium_rules::period::PeriodClock;

/// Periods of one board whose pages are kept (the current one and a few past ones
/// that callers page through).
pub const MAX_PERIODS_PER_BOARD: usize = 4;

/// What the periods kept together belong to: the board, or a country's board of it
/// (each country keeps its own [`MAX_PERIODS_PER_BOARD`]).
fn group(board: &BoardRef) -> String {
    match crate::boards::snapshot::country::split(board) {
        (base, Some(country)) => format!("{}~{country}", base.board),
        (base, None) => base.board,
    }
}

/// The rendered top pages, per board and period. Shared by every request of a process.
#[derive(Default)]
pub struct RenderedPages {
    slots: RwLock<HashMap<String, Slot>>,
}

struct Slot {
    board: String,
    snapshot: String,
    clock: PeriodClock,
    filled: Instant,
    /// Body by page size (`limit`).
    bodies: HashMap<usize, Bytes>,
}

impl RenderedPages {
    /// The body of `board`'s top `limit` entries in `snapshot` under `clock`, if rendered.
    pub fn get(&self, board: &BoardRef, snapshot: &str, limit: usize, clock: &PeriodClock) -> Option<Bytes> {
        let slots = self
            .slots
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let slot = slots.get(&board.key())?;
        if slot.snapshot != snapshot || slot.clock != *clock {
            return None;
        }
        slot.bodies.get(&limit).cloned()
    }

    /// Keeps `body` as the top `limit` entries of `board` in `snapshot` under `clock`.
    pub fn put(&self, board: &BoardRef, snapshot: &str, limit: usize, clock: &PeriodClock, body: Bytes) {
        let mut slots = self
            .slots
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = board.key();
        if !slots.contains_key(&key) {
            // A new period of this board: make room by dropping the oldest ones.
            let mut same_board: Vec<(Instant, String)> = slots
                .iter()
                .filter(|(_, s)| s.board == group(board))
                .map(|(k, s)| (s.filled, k.clone()))
                .collect();
            same_board.sort();
            let excess = (same_board.len() + 1).saturating_sub(MAX_PERIODS_PER_BOARD);
            for (_, k) in same_board.into_iter().take(excess) {
                slots.remove(&k);
            }
        }
        let slot = slots.entry(key).or_insert_with(|| Slot {
            board: group(board),
            snapshot: snapshot.to_string(),
            clock: clock.clone(),
            filled: Instant::now(),
            bodies: HashMap::new(),
        });
        if slot.snapshot != snapshot || slot.clock != *clock {
            slot.snapshot = snapshot.to_string();
            slot.clock = clock.clone();
            slot.filled = Instant::now();
            slot.bodies.clear();
        }
        slot.bodies.insert(limit, body);
    }
}

/// Bytes of cursor-page bodies [`CursorPages`] holds at most, per process (a warm
/// Lambda container or `podium serve`): 16 MiB, about 2,700 pages of 50 entries (a
/// 128 MB function holds it beside its 27 MB read cache).
pub const CURSOR_PAGES_BYTES: u64 = 16 * 1024 * 1024;

/// Rendered pages reached by a cursor of the current snapshots (LB-3, LB-5), by
/// [`CursorPages::key`]; the least used go first past [`CURSOR_PAGES_BYTES`]. Each
/// body is kept with the period clock it was rendered under and served only under
/// the same clock.
#[derive(Default)]
pub struct CursorPages {
    held: std::sync::OnceLock<quick_cache::sync::Cache<String, (PeriodClock, Bytes), BodyBytes>>,
}

#[derive(Clone)]
struct BodyBytes;

impl quick_cache::Weighter<String, (PeriodClock, Bytes)> for BodyBytes {
    fn weight(&self, key: &String, (clock, body): &(PeriodClock, Bytes)) -> u64 {
        // The body (copied to its length when kept), the key, the clock's strings, and
        // the entry's own fixed cost.
        (key.len() + body.len() + clock.period.len() + clock.zone.len()) as u64 + 256
    }
}

impl CursorPages {
    /// The key of `board`'s page at `cursor` (as the caller sent it, verified) of
    /// `limit` entries in the snapshot named by `render_key` (its id and revision).
    pub fn key(board: &BoardRef, render_key: &str, limit: usize, cursor: &str) -> String {
        format!("{}\u{1f}{render_key}\u{1f}{limit}\u{1f}{cursor}", board.key())
    }

    fn held(&self) -> &quick_cache::sync::Cache<String, (PeriodClock, Bytes), BodyBytes> {
        self.held.get_or_init(|| {
            // Pages of about 6 KB: the item estimate sizes quick_cache's tables.
            quick_cache::sync::Cache::with_weighter(
                (CURSOR_PAGES_BYTES / 6_000) as usize,
                CURSOR_PAGES_BYTES,
                BodyBytes,
            )
        })
    }

    /// The body kept under `key`, if rendered under `clock`.
    pub fn get(&self, key: &str, clock: &PeriodClock) -> Option<Bytes> {
        self.held()
            .get(key)
            .filter(|(c, _)| c == clock)
            .map(|(_, body)| body)
    }

    /// Whether a body is kept under `key`, under any clock.
    pub fn holds(&self, key: &str) -> bool {
        self.held().contains_key(key)
    }

    /// Keeps `body` under `key`, rendered under `clock`.
    pub fn put(&self, key: String, clock: &PeriodClock, body: Bytes) {
        // A copy of exactly its length: a body serialised into a growing buffer may
        // hold up to twice its length, which the bound would not see.
        self.held()
            .insert(key, (clock.clone(), Bytes::copy_from_slice(&body)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_rules::period::ClockKind;

    fn clock(period: &str) -> PeriodClock {
        PeriodClock {
            period: period.into(),
            kind: ClockKind::Weekly,
            zone: "UTC".into(),
            start: None,
            end: None,
            next_reset: None,
            window_days: None,
        }
    }

    #[test]
    fn lb5_a_new_snapshot_or_clock_empties_the_slot() {
        let pages = RenderedPages::default();
        let b = BoardRef::new("seega-weekly", "2026-W49");
        let c = clock("2026-W49");
        pages.put(&b, "s1", 50, &c, Bytes::from_static(b"one"));
        assert_eq!(pages.get(&b, "s1", 50, &c).as_deref(), Some(&b"one"[..]));
        assert_eq!(pages.get(&b, "s1", 10, &c), None);
        assert_eq!(pages.get(&b, "s2", 50, &c), None);
        pages.put(&b, "s2", 10, &c, Bytes::from_static(b"two"));
        assert_eq!(
            pages.get(&b, "s1", 50, &c),
            None,
            "the older snapshot's pages are gone"
        );
        assert_eq!(pages.get(&b, "s2", 10, &c).as_deref(), Some(&b"two"[..]));
        let mut moved = c.clone();
        moved.window_days = Some(365);
        assert_eq!(pages.get(&b, "s2", 10, &moved), None);
    }

    #[test]
    fn lb3_a_cursor_page_is_served_under_its_clock_only() {
        let pages = CursorPages::default();
        let b = BoardRef::new("seega-weekly", "2026-W49");
        let key = CursorPages::key(&b, "s1", 50, "c1");
        pages.put(key.clone(), &clock("2026-W49"), Bytes::from_static(b"one"));
        assert_eq!(pages.get(&key, &clock("2026-W49")).as_deref(), Some(&b"one"[..]));
        assert_eq!(pages.get(&key, &clock("2026-W50")), None);
        assert_eq!(
            pages.get(&CursorPages::key(&b, "s2", 50, "c1"), &clock("2026-W49")),
            None
        );
        assert_eq!(
            pages.get(&CursorPages::key(&b, "s1", 10, "c1"), &clock("2026-W49")),
            None
        );
    }

    #[test]
    fn lb5_at_most_four_periods_of_a_board_are_kept() {
        let pages = RenderedPages::default();
        let weeks: Vec<BoardRef> = (40..46)
            .map(|w| BoardRef::new("seega-weekly", format!("2026-W{w}")))
            .collect();
        for b in &weeks {
            pages.put(b, "s", 50, &clock(&b.period), Bytes::from_static(b"x"));
        }
        pages.put(
            &BoardRef::all_time("seega"),
            "s",
            50,
            &clock("all"),
            Bytes::from_static(b"y"),
        );
        let kept: Vec<&BoardRef> = weeks
            .iter()
            .filter(|b| pages.get(b, "s", 50, &clock(&b.period)).is_some())
            .collect();
        assert_eq!(kept, weeks[2..].iter().collect::<Vec<_>>());
        assert!(pages
            .get(&BoardRef::all_time("seega"), "s", 50, &clock("all"))
            .is_some());
    }
}
