//! The players a run has listed so far (a player met twice while the board moves
//! under the reading is listed once, where first met), in memory that follows what
//! changed: one bit for each player of the earlier snapshot the run compares with
//! ([`super::movement::Listed`], which it holds anyway) and a set of 128-bit id keys
//! only for the players that snapshot does not list (new on the board since, or every
//! player when there is no earlier snapshot). At 10^6 players of whom 1 % are new:
//! 125 KB and about 0.5 MB, where a set of every key took 36–52 MB.

use std::collections::HashSet;

use super::compact::{id_key, IdKey};
use super::movement::Listed;

/// Players listed so far by one call of a run.
#[derive(Debug)]
pub(crate) struct Seen<'a> {
    earlier: Option<&'a Listed>,
    bits: Vec<u64>,
    others: HashSet<IdKey>,
}

impl<'a> Seen<'a> {
    /// Nobody listed yet; `earlier` is the snapshot whose players get a bit each.
    pub(crate) fn new(earlier: Option<&'a Listed>) -> Self {
        let words = earlier.map_or(0, |l| l.len().div_ceil(64));
        Seen {
            earlier,
            bits: vec![0; words],
            others: HashSet::new(),
        }
    }

    /// Records `player_id`; `false` when they were listed already.
    pub(crate) fn insert(&mut self, player_id: &str) -> bool {
        let key = id_key(player_id);
        match self.earlier.and_then(|l| l.index(&key)) {
            Some(i) => {
                let (word, bit) = (i / 64, 1u64 << (i % 64));
                let new = self.bits[word] & bit == 0;
                self.bits[word] |= bit;
                new
            }
            None => self.others.insert(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_rules::profile::Card;

    #[test]
    fn each_player_is_listed_once_whether_the_earlier_snapshot_lists_them_or_not() {
        let mut earlier = Listed::default();
        for (i, p) in ["ana", "bo", "cy"].iter().enumerate() {
            earlier.push(p, i as u64 + 1, Some(&Card::default()));
        }
        let earlier = earlier.sealed();
        let mut seen = Seen::new(Some(&earlier));
        assert!(seen.insert("bo"));
        assert!(!seen.insert("bo"));
        assert!(seen.insert("dee"), "a player new since the earlier snapshot");
        assert!(!seen.insert("dee"));
        assert!(seen.insert("ana") && seen.insert("cy"));
        assert!(!seen.insert("ana") && !seen.insert("cy"));
        let mut first = Seen::new(None);
        assert!(first.insert("ana") && !first.insert("ana"));
    }
}
