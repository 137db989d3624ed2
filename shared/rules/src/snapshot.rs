//! Snapshot pages (LB-3, LB-5, LB-7): a board frozen at one instant, cut into pages
//! of ranked entries, and the page index that finds any value's rank with one page.

use serde::{Deserialize, Serialize};

use crate::leaderboard::{listing_key, Standing};
use crate::profile::Card;

/// Entries per materialised page.
pub const PAGE_SIZE: u32 = 100;

/// One ranked entry of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotEntry {
    /// LB-2 rank at the snapshot's instant.
    pub rank: u64,
    pub player_id: String,
    /// Board value (points).
    pub value: i64,
    /// When the value was reached (ms since the Unix epoch, UTC).
    pub reached_at_ms: i64,
    /// The player's name, avatar and country when the snapshot read them (PF-5).
    #[serde(default, skip_serializing_if = "Card::is_empty")]
    pub card: Card,
}

/// One page of a snapshot: `entries` in listing order, preceded by `first_position`
/// entries on earlier pages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotPage {
    /// 0-based page number.
    pub number: u32,
    pub first_position: u64,
    pub entries: Vec<SnapshotEntry>,
}

/// The LB-2 rank `value` has against a snapshot (1 + the entries strictly better),
/// given `page`: the last page whose first value is strictly better than `value`
/// (`None` when no page is). Every page before it holds only better values and
/// every page after it none, so this one page decides (LB-7).
pub fn rank_against(page: Option<&SnapshotPage>, value: i64) -> u64 {
    match page {
        None => 1,
        // Entries are in listing order (value descending): a binary search.
        Some(p) => p.first_position + p.entries.partition_point(|e| e.value > value) as u64 + 1,
    }
}

/// The nearest value strictly better than the caller's live `value` on `page` (the
/// standing's next better, LB-4): held by another player than the caller `me`, not
/// hidden (`hidden`: deleted, GM-6; suspended, OP-4). The caller's own older snapshot
/// entry is nobody to catch up with. `None` when none of the page's better entries
/// qualifies: the nearest is then on an earlier page, if any.
pub fn nearest_better(
    page: &SnapshotPage,
    value: i64,
    me: &str,
    hidden: impl Fn(&str) -> bool,
) -> Option<i64> {
    page.entries[..page.entries.partition_point(|e| e.value > value)]
        .iter()
        .rev()
        .find(|e| e.player_id != me && !hidden(&e.player_id))
        .map(|e| e.value)
}

/// The caller's standing among a snapshot's entries (LB-4): their live value ranked
/// against everybody else's snapshot value, with the neighbours' ranks as they stand
/// once the caller's own older snapshot entry is set aside and the live one counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Around {
    /// The caller's LB-2 rank: 1 + the other players whose snapshot value is strictly
    /// better than the caller's live value.
    pub my_rank: u64,
    /// Up to `n` players listed just above the caller, the caller, up to `n` below,
    /// in LB-2 listing order, each with its rank.
    pub entries: Vec<(Standing, u64)>,
}

/// Places the caller among a snapshot's entries (LB-2, LB-4).
///
/// - `pages`: consecutive pages of the snapshot that hold every entry listed within
///   `n + 1` places of the caller's live key (the caller's own entries are skipped);
/// - `me`: the caller's live standing;
/// - `better`: how many snapshot entries have a value strictly better than `me.value`
///   ([`rank_against`] − 1), the caller's own older entry included if it is better;
/// - `stale_value`: the value of the caller's own entry in the snapshot, if it has one.
///
/// A neighbour's rank is its snapshot rank, one less if the caller's older entry was
/// strictly better than it, one more if the caller's live value is.
pub fn around<P: std::borrow::Borrow<SnapshotPage>>(
    pages: &[P],
    me: &Standing,
    better: u64,
    stale_value: Option<i64>,
    n: usize,
) -> Around {
    let stale_better = |v: i64| u64::from(stale_value.is_some_and(|s| s > v));
    // The caller's live key splits each page (each is in listing order): a binary
    // search per page, then a walk outwards, the caller's own older entry left out.
    let mine = listing_key(me.value, me.reached_at_ms, &me.player_id);
    let before = |e: &SnapshotEntry| listing_key(e.value, e.reached_at_ms, &e.player_id) < mine;
    fn split(
        p: &SnapshotPage,
        before: impl Fn(&SnapshotEntry) -> bool,
    ) -> (&[SnapshotEntry], &[SnapshotEntry]) {
        p.entries.split_at(p.entries.partition_point(before))
    }
    let not_mine = |e: &&SnapshotEntry| e.player_id != me.player_id;
    let ranked = |e: &SnapshotEntry| {
        let rank = e.rank - stale_better(e.value) + u64::from(me.value > e.value);
        (
            Standing {
                player_id: e.player_id.clone(),
                value: e.value,
                reached_at_ms: e.reached_at_ms,
            },
            rank,
        )
    };
    let my_rank = better - stale_better(me.value) + 1;
    let mut entries: Vec<(Standing, u64)> = pages
        .iter()
        .rev()
        .flat_map(|p| split(p.borrow(), before).0.iter().rev())
        .filter(not_mine)
        .take(n)
        .map(ranked)
        .collect();
    entries.reverse();
    entries.push((me.clone(), my_rank));
    entries.extend(
        pages
            .iter()
            .flat_map(|p| split(p.borrow(), before).1.iter())
            .filter(not_mine)
            .take(n)
            .map(ranked),
    );
    Around { my_rank, entries }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leaderboard::{listing_order, RankCounter};
    use proptest::prelude::*;

    fn s(p: &str, v: i64, t: i64) -> Standing {
        Standing {
            player_id: p.into(),
            value: v,
            reached_at_ms: t,
        }
    }

    /// A board cut into pages of `size`, ranked by LB-2.
    fn paged(mut board: Vec<Standing>, size: usize) -> Vec<SnapshotPage> {
        board.sort_by(listing_order);
        let mut counter = RankCounter::top();
        let entries: Vec<SnapshotEntry> = board
            .into_iter()
            .map(|st| SnapshotEntry {
                rank: counter.next(st.value),
                player_id: st.player_id,
                value: st.value,
                reached_at_ms: st.reached_at_ms,
                card: Default::default(),
            })
            .collect();
        entries
            .chunks(size)
            .enumerate()
            .map(|(n, c)| SnapshotPage {
                number: n as u32,
                first_position: (n * size) as u64,
                entries: c.to_vec(),
            })
            .collect()
    }

    fn rank(pages: &[SnapshotPage], v: i64) -> u64 {
        rank_against(pages.iter().rev().find(|p| p.entries[0].value > v), v)
    }

    /// LB-2: 500, 400, 400, 400, 300 in pages of 2.
    #[test]
    fn ranks_by_one_page() {
        let p = paged(
            [500, 400, 400, 400, 300]
                .iter()
                .enumerate()
                .map(|(i, v)| s(&format!("p{i}"), *v, i as i64))
                .collect(),
            2,
        );
        assert_eq!(
            [600, 500, 450, 400, 350, 300, 0].map(|v| rank(&p, v)),
            [1, 1, 2, 2, 5, 5, 6]
        );
    }

    /// LB-4 (review: `next-better-self`): C 622, A 311, B 0, D 0 in the snapshot; A
    /// has 188 now. A's next better is C's 622, not A's own 311; with A's 311 alone
    /// above 188 on its page, the page before is read; a fallen leader has none.
    #[test]
    fn the_callers_older_entry_is_nobody_to_catch_up_with() {
        let pages = paged(
            vec![s("C", 622, 1), s("A", 311, 2), s("B", 0, 3), s("D", 0, 4)],
            100,
        );
        assert_eq!(nearest_better(&pages[0], 188, "A", |_| false), Some(622));
        assert_eq!(nearest_better(&pages[0], 188, "C", |_| false), Some(311));
        let pages = paged(
            vec![s("C", 622, 1), s("A", 311, 2), s("B", 0, 3), s("D", 0, 4)],
            1,
        );
        assert_eq!(
            nearest_better(&pages[1], 188, "A", |_| false),
            None,
            "look before"
        );
        assert_eq!(nearest_better(&pages[0], 188, "A", |_| false), Some(622));
        let pages = paged(vec![s("A", 900, 1), s("B", 500, 2)], 100);
        assert_eq!(
            nearest_better(&pages[0], 600, "A", |_| false),
            None,
            "a fallen leader"
        );
        assert_eq!(nearest_better(&pages[0], 600, "A", |id| id == "B"), None);
    }

    /// LB-2, LB-4 (review case): p-11 had 263 and p-d 0 when the snapshot was taken;
    /// p-11 has 140 now. p-11 is 1st, p-d 2nd: the older 263 counts for nobody.
    #[test]
    fn the_callers_older_entry_is_nobody_better() {
        let pages = paged(vec![s("p-11", 263, 1), s("p-d", 0, 1)], 100);
        let me = s("p-11", 140, 9);
        let a = around(&pages, &me, rank(&pages, 140) - 1, Some(263), 5);
        assert_eq!(a.my_rank, 1);
        assert_eq!(a.entries, vec![(me, 1), (s("p-d", 0, 1), 2)]);
    }

    fn brute(board: &[Standing], me: &Standing, n: usize) -> Around {
        let mut view: Vec<Standing> = board
            .iter()
            .filter(|e| e.player_id != me.player_id)
            .cloned()
            .collect();
        view.push(me.clone());
        view.sort_by(listing_order);
        let ranks: Vec<u64> = view
            .iter()
            .map(|e| 1 + view.iter().filter(|o| o.value > e.value).count() as u64)
            .collect();
        let at = view.iter().position(|e| e.player_id == me.player_id).unwrap();
        let from = at.saturating_sub(n);
        let to = (at + n + 1).min(view.len());
        Around {
            my_rank: ranks[at],
            entries: (from..to).map(|i| (view[i].clone(), ranks[i])).collect(),
        }
    }

    proptest! {
        /// LB-2, LB-4: from the pages around the caller's live key, one rank page, and
        /// the caller's older snapshot value, the answer equals ranking the whole
        /// board with the caller's entry replaced by the live one.
        #[test]
        fn around_equals_the_whole_board(
            values in proptest::collection::vec((0i64..8, 0i64..4), 1..80),
            size in 1usize..9,
            n in 0usize..6,
            who in any::<prop::sample::Index>(),
            in_snapshot in any::<bool>(),
            live in (0i64..9, 0i64..5),
        ) {
            let board: Vec<Standing> = values.iter().enumerate().map(|(i, (v, t))| s(&format!("p{i:02}"), *v, *t)).collect();
            let me_id = board[who.index(board.len())].player_id.clone();
            let snap_board: Vec<Standing> = board.iter().filter(|e| in_snapshot || e.player_id != me_id).cloned().collect();
            if snap_board.is_empty() { return Ok(()); }
            let pages = paged(snap_board.clone(), size);
            let stale = snap_board.iter().find(|e| e.player_id == me_id).map(|e| e.value);
            let me = s(&me_id, live.0, live.1);
            // What a reader reads: the pages holding positions q − n − 1 … q + n around
            // the live key (q: entries listed before it).
            let all: Vec<&SnapshotEntry> = pages.iter().flat_map(|p| &p.entries).collect();
            let mine = listing_key(me.value, me.reached_at_ms, &me.player_id);
            let q = all.iter().filter(|e| listing_key(e.value, e.reached_at_ms, &e.player_id) < mine).count() as u64;
            let lo = q.saturating_sub(n as u64 + 1);
            let hi = q + n as u64 + 1;
            let read: Vec<SnapshotPage> = pages.iter().filter(|p| {
                let end = p.first_position + p.entries.len() as u64;
                p.first_position < hi && end > lo
            }).cloned().collect();
            let got = around(&read, &me, rank(&pages, me.value) - 1, stale, n);
            prop_assert_eq!(got, brute(&snap_board, &me, n));
        }

        /// LB-4 (review: the next better value was the caller's own older entry): the
        /// next better value found from the page deciding the caller's live value,
        /// and the pages before it while that page offers no other shown player's, is
        /// the nearest value strictly better held by another player not hidden (an
        /// oracle over the whole snapshot).
        #[test]
        fn the_next_better_counts_nobody_for_the_caller(
            values in proptest::collection::vec((0i64..12, 0i64..4), 1..60),
            size in 1usize..7,
            who in any::<prop::sample::Index>(),
            live in 0i64..13,
            hidden_mask in proptest::collection::vec(any::<bool>(), 60),
        ) {
            let board: Vec<Standing> = values.iter().enumerate().map(|(i, (v, t))| s(&format!("p{i:02}"), *v, *t)).collect();
            let me_id = board[who.index(board.len())].player_id.clone();
            let hidden = |id: &str| {
                id != me_id && id[1..].parse::<usize>().is_ok_and(|i| hidden_mask[i])
            };
            let pages = paged(board.clone(), size);
            let mut next = None;
            let mut looking = pages.iter().rev().find(|p| p.entries[0].value > live);
            while let Some(pg) = looking {
                next = nearest_better(pg, live, &me_id, hidden);
                if next.is_some() || pg.number == 0 {
                    break;
                }
                looking = pages.get(pg.number as usize - 1);
            }
            let oracle = board
                .iter()
                .filter(|e| e.player_id != me_id && !hidden(&e.player_id) && e.value > live)
                .map(|e| e.value)
                .min();
            prop_assert_eq!(next, oracle);
        }

        /// LB-7: one page read gives the exact LB-2 rank of any value.
        #[test]
        fn one_page_decides_the_rank(mut values in proptest::collection::vec(0i64..50, 1..300), size in 1usize..12, probe in -1i64..52) {
            values.sort_by(|a, b| b.cmp(a));
            let pages = paged(values.iter().enumerate().map(|(i, v)| s(&format!("p{i}"), *v, 0)).collect(), size);
            let better = values.iter().filter(|v| **v > probe).count() as u64;
            prop_assert_eq!(rank(&pages, probe), better + 1);
        }
    }
}
