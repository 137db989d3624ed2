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
//! ago goes first. Cursor pages and around-me are not cached (they differ per
//! caller or per position).

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
