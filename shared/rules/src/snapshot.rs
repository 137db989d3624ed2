//! Snapshot pages (LB-3, LB-5, LB-7): a board frozen at one instant, cut into pages
//! of ranked entries, and the page index that finds any value's rank with one page.

use serde::{Deserialize, Serialize};

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

/// The value of each page's first entry, in page order (non-increasing).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PageIndex {
    pub first_values: Vec<i64>,
}

/// Where the rank of a value is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankLookup {
    /// No entry is strictly better: rank 1, nothing to read.
    Top,
    /// Read this page and call [`rank_in_page`].
    Page(u32),
}

impl PageIndex {
    /// The one page that decides the LB-2 rank of `value` (1 + entries strictly
    /// better): every page before it holds only better values, every page after it none.
    pub fn lookup(&self, value: i64) -> RankLookup {
        // Pages whose first value is strictly better come first.
        let better_pages = self.first_values.partition_point(|&first| first > value);
        match better_pages {
            0 => RankLookup::Top,
            k => RankLookup::Page((k - 1) as u32),
        }
    }
}

/// The LB-2 rank `value` has against a snapshot, given the page [`PageIndex::lookup`] named.
pub fn rank_in_page(page: &SnapshotPage, value: i64) -> u64 {
    page.first_position + page.entries.iter().filter(|e| e.value > value).count() as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pages(values: &[i64], size: usize) -> (Vec<SnapshotPage>, PageIndex) {
        let mut counter = crate::leaderboard::RankCounter::top();
        let entries: Vec<SnapshotEntry> = values
            .iter()
            .enumerate()
            .map(|(i, v)| SnapshotEntry {
                rank: counter.next(*v),
                player_id: format!("p{i}"),
                value: *v,
                reached_at_ms: 0,
            })
            .collect();
        let pages: Vec<SnapshotPage> = entries
            .chunks(size)
            .enumerate()
            .map(|(n, c)| SnapshotPage {
                number: n as u32,
                first_position: (n * size) as u64,
                entries: c.to_vec(),
            })
            .collect();
        let index = PageIndex {
            first_values: pages.iter().map(|p| p.entries[0].value).collect(),
        };
        (pages, index)
    }

    fn rank(pages: &[SnapshotPage], index: &PageIndex, v: i64) -> u64 {
        match index.lookup(v) {
            RankLookup::Top => 1,
            RankLookup::Page(n) => rank_in_page(&pages[n as usize], v),
        }
    }

    /// LB-2 via the index: 500, 400, 400, 400, 300 in pages of 2.
    #[test]
    fn ranks_through_the_index() {
        let (p, i) = pages(&[500, 400, 400, 400, 300], 2);
        assert_eq!(rank(&p, &i, 600), 1);
        assert_eq!(rank(&p, &i, 500), 1);
        assert_eq!(rank(&p, &i, 450), 2);
        assert_eq!(rank(&p, &i, 400), 2);
        assert_eq!(rank(&p, &i, 350), 5);
        assert_eq!(rank(&p, &i, 300), 5);
        assert_eq!(rank(&p, &i, 0), 6);
        assert_eq!(PageIndex::default().lookup(5), RankLookup::Top);
    }

    proptest! {
        /// LB-7: one page read gives the exact LB-2 rank of any value.
        #[test]
        fn one_page_decides_the_rank(mut values in proptest::collection::vec(0i64..50, 1..300), size in 1usize..12, probe in -1i64..52) {
            values.sort_by(|a, b| b.cmp(a));
            let (p, i) = pages(&values, size);
            let better = values.iter().filter(|v| **v > probe).count() as u64;
            prop_assert_eq!(rank(&p, &i, probe), better + 1);
        }
    }
}
