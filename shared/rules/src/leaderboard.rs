//! Leaderboard order and ranks (LB-2).
//!
//! Higher values first. Equal values share one rank and the next rank skips
//! (1, 2, 2, 4): rank = 1 + the number of entries with a strictly better value.
//! Among equals the listing order is fixed: who reached the value first, then player id.

use std::cmp::{Ordering, Reverse};

/// One player's place on a board: the value (points) and when it was reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    pub player_id: String,
    /// The board value (points for Seega), ≥ 0.
    pub value: i64,
    /// When the player reached this value: milliseconds since the Unix epoch (UTC).
    pub reached_at_ms: i64,
}

/// LB-2's listing order as a sortable key: value descending, then reached first, then
/// player id.
pub fn listing_key(value: i64, reached_at_ms: i64, player_id: &str) -> (Reverse<i64>, i64, &str) {
    (Reverse(value), reached_at_ms, player_id)
}

/// LB-2's listing order: value descending, then reached first, then player id.
pub fn listing_order(a: &Standing, b: &Standing) -> Ordering {
    listing_key(a.value, a.reached_at_ms, &a.player_id).cmp(&listing_key(
        b.value,
        b.reached_at_ms,
        &b.player_id,
    ))
}

/// Assigns LB-2 ranks to entries met in listing order, possibly starting mid-board
/// (after a cursor): it needs only the previous entry's value and rank and how many
/// entries came before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankCounter {
    /// Entries already listed before the next one.
    position: u64,
    /// The last listed entry's value and rank.
    last: Option<(i64, u64)>,
}

impl RankCounter {
    /// A counter at the top of the board.
    pub fn top() -> Self {
        Self {
            position: 0,
            last: None,
        }
    }

    /// A counter that resumes after `position` listed entries, the last of which had
    /// `value` at `rank`.
    pub fn resume(position: u64, value: i64, rank: u64) -> Self {
        Self {
            position,
            last: Some((value, rank)),
        }
    }

    /// The rank of the next entry in listing order, which has `value`.
    pub fn next(&mut self, value: i64) -> u64 {
        let rank = match self.last {
            Some((v, r)) if v == value => r,
            _ => self.position + 1,
        };
        self.position += 1;
        self.last = Some((value, rank));
        rank
    }

    /// Entries listed so far.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The last entry's value and rank, if any.
    pub fn last(&self) -> Option<(i64, u64)> {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(p: &str, v: i64, t: i64) -> Standing {
        Standing {
            player_id: p.into(),
            value: v,
            reached_at_ms: t,
        }
    }

    /// LB-2: A 101, B 100, C 100, D 99 with B at 100 before C → 1, 2, 2, 4 in that order.
    #[test]
    fn ties_share_and_skip() {
        let mut board = [s("D", 99, 1), s("C", 100, 5), s("A", 101, 9), s("B", 100, 3)];
        board.sort_by(listing_order);
        let mut c = RankCounter::top();
        let ranked: Vec<_> = board
            .iter()
            .map(|e| (e.player_id.as_str(), c.next(e.value)))
            .collect();
        assert_eq!(ranked, [("A", 1), ("B", 2), ("C", 2), ("D", 4)]);
    }

    /// LB-2: equal values reached at the same instant fall back to player id.
    #[test]
    fn player_id_breaks_full_ties() {
        let mut board = [s("b", 5, 1), s("a", 5, 1)];
        board.sort_by(listing_order);
        assert_eq!(board[0].player_id, "a");
    }

    /// LB-3: 500, 400, 400, 400, 300 paged by 2 → ranks (1,2), (2,2), (5).
    #[test]
    fn ranks_across_pages() {
        let values = [500, 400, 400, 400, 300];
        let mut pages = Vec::new();
        let mut state: Option<RankCounter> = None;
        for chunk in values.chunks(2) {
            let mut c = state.unwrap_or_else(RankCounter::top);
            pages.push(chunk.iter().map(|v| c.next(*v)).collect::<Vec<_>>());
            // A cursor carries only the position and the last (value, rank).
            let (v, r) = c.last().unwrap();
            state = Some(RankCounter::resume(c.position(), v, r));
        }
        assert_eq!(pages, [vec![1, 2], vec![2, 2], vec![5]]);
    }

    proptest! {
        /// LB-2: the counter's rank is 1 + the number of strictly better values,
        /// wherever the walk is cut into pages.
        #[test]
        fn rank_is_one_plus_strictly_better(mut values in proptest::collection::vec(0i64..20, 0..60), page in 1usize..7) {
            values.sort_by(|a, b| b.cmp(a));
            let mut c = RankCounter::top();
            let mut got = Vec::new();
            for chunk in values.chunks(page) {
                for v in chunk { got.push(c.next(*v)); }
                if let Some((v, r)) = c.last() { c = RankCounter::resume(c.position(), v, r); }
            }
            for (i, v) in values.iter().enumerate() {
                let better = values.iter().filter(|x| *x > v).count() as u64;
                prop_assert_eq!(got[i], better + 1);
            }
        }

        /// LB-2: rank is monotone in points: a higher value never has a worse rank.
        #[test]
        fn rank_monotone(mut values in proptest::collection::vec(0i64..1000, 1..50)) {
            values.sort_by(|a, b| b.cmp(a));
            let mut c = RankCounter::top();
            let ranks: Vec<_> = values.iter().map(|v| c.next(*v)).collect();
            for i in 1..values.len() {
                prop_assert!(ranks[i - 1] <= ranks[i]);
                prop_assert_eq!(values[i - 1] == values[i], ranks[i - 1] == ranks[i]);
            }
        }
    }
}
