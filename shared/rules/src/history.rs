//! The recent board keys of one board entry (LB-2, LB-4): which value a player had
//! when, by the server's clock, so that a snapshot read at some instant can be matched
//! with the entry it holds for the player, and that older entry never counts as
//! "someone better" than the player's live value.

use serde::{Deserialize, Serialize};

/// Past keys an entry keeps (the newest), enough for every change a player makes
/// while one snapshot is current.
pub const HISTORY_KEYS: usize = 8;

/// How far the snapshot job's and the writers' clocks, plus the board index's
/// propagation, may differ, in milliseconds: a key set this close to a snapshot's
/// read window may or may not be in it.
pub const CLOCK_MARGIN_MS: i64 = 30_000;

/// One value a player held on a board before the current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PastKey {
    /// The value then (points).
    pub value: i64,
    /// When that value was reached (ms since the Unix epoch, UTC; LB-2 tie order).
    pub reached_at_ms: i64,
    /// When it was replaced: the server clock of the write that replaced it (ms, UTC).
    pub until_ms: i64,
}

/// A board entry's recent keys.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KeyHistory {
    /// Server clock of the entry's first write (ms, UTC; 0: unknown, long ago).
    pub created_at_ms: i64,
    /// Server clock of the write that set the current key (ms, UTC).
    pub updated_at_ms: i64,
    /// Earlier keys, oldest first, at most [`HISTORY_KEYS`].
    pub past: Vec<PastKey>,
    /// True when older keys than `past[0]` were dropped.
    pub truncated: bool,
    /// Since when (server clock, ms UTC) `past` and the current key hold every key the
    /// entry had: `past[0]` was set then. Equal to `created_at_ms` until keys are dropped.
    pub known_since_ms: i64,
}

/// A key a player may hold in a snapshot: value and when it was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldKey {
    pub value: i64,
    pub reached_at_ms: i64,
}

/// The keys a player may hold in one snapshot, most likely first (see
/// [`KeyHistory::snapshot_candidates`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidates {
    pub keys: Vec<HeldKey>,
    /// True when `keys` holds every key the entry ever had that the snapshot could
    /// hold: if none of them is in the snapshot, the player is not in it.
    pub exhaustive: bool,
}

impl KeyHistory {
    /// A new entry's history, written at `now_ms` (server clock).
    pub fn created(now_ms: i64) -> Self {
        KeyHistory {
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
            past: Vec::new(),
            truncated: false,
            known_since_ms: now_ms,
        }
    }

    /// The history after a write at `now_ms` that replaces `old` (value, reached at)
    /// with `new`. An unchanged key keeps the history as it is.
    pub fn after_write(&self, old: HeldKey, new: HeldKey, now_ms: i64) -> Self {
        if old == new {
            return self.clone();
        }
        let mut next = self.clone();
        next.past.push(PastKey {
            value: old.value,
            reached_at_ms: old.reached_at_ms,
            until_ms: now_ms,
        });
        if next.past.len() > HISTORY_KEYS {
            let drop = next.past.len() - HISTORY_KEYS;
            if let Some(last_dropped) = next.past.drain(..drop).next_back() {
                next.known_since_ms = last_dropped.until_ms;
            }
            next.truncated = true;
        }
        next.updated_at_ms = now_ms;
        next
    }

    /// The keys the entry may have had when a snapshot read the board between
    /// `read_from_ms` and `read_to_ms` (server clock), given its `current` key, most
    /// likely first: the key that held when the reading began, then those set while it
    /// went on, then those that held only within [`CLOCK_MARGIN_MS`] of it (nearest
    /// first). Keys set after the window (plus the margin) cannot be in the snapshot,
    /// and, when the history reaches back to the reading's start, neither can keys
    /// replaced before it (minus the margin): both are left out. When the history does
    /// not reach back that far, the older keys it has follow, newest first, and the
    /// answer is not exhaustive.
    pub fn snapshot_candidates(&self, current: HeldKey, read_from_ms: i64, read_to_ms: i64) -> Candidates {
        let lo = read_from_ms.saturating_sub(CLOCK_MARGIN_MS);
        let hi = read_to_ms.saturating_add(CLOCK_MARGIN_MS);
        // Every key with its validity [from, until).
        let mut spans: Vec<(HeldKey, i64, i64)> = Vec::with_capacity(self.past.len() + 1);
        let mut from = if self.truncated {
            self.known_since_ms
        } else {
            self.created_at_ms
        };
        // Every key since the reading began is known: a key dropped from the history was
        // replaced before it (a snapshot holds it only if the board index lagged by
        // more than that, which the margin does not assume for dropped keys).
        let reaches_back = from <= read_from_ms;
        for p in &self.past {
            let key = HeldKey {
                value: p.value,
                reached_at_ms: p.reached_at_ms,
            };
            spans.push((key, from, p.until_ms));
            from = p.until_ms;
        }
        spans.push((current, from, i64::MAX));
        // (rank of likelihood, distance) per key that may be in the snapshot.
        let mut ranked: Vec<(u8, i64, HeldKey)> = Vec::new();
        for (key, from, until) in spans {
            if from > hi {
                continue; // set after the snapshot finished reading
            }
            let likelihood = if from <= read_from_ms && until > read_from_ms {
                (0, 0) // held when the reading began
            } else if from > read_from_ms && from <= read_to_ms {
                (1, from - read_from_ms) // set while it read
            } else if until > lo {
                // held only within the margin, before or after
                (2, (read_from_ms - until).max(from - read_to_ms).max(0))
            } else if reaches_back {
                continue; // replaced well before the reading began
            } else {
                (3, read_from_ms.saturating_sub(until))
            };
            ranked.push((likelihood.0, likelihood.1, key));
        }
        ranked.sort_by_key(|(rank, distance, _)| (*rank, *distance));
        let mut keys: Vec<HeldKey> = ranked.into_iter().map(|(_, _, k)| k).collect();
        keys.dedup();
        Candidates {
            keys,
            exhaustive: !self.truncated || reaches_back,
        }
    }

    /// The compact stored form: `created;updated;truncated;v,r,u|v,r,u…;known since`
    /// (integers).
    pub fn encode(&self) -> String {
        let past: Vec<String> = self
            .past
            .iter()
            .map(|p| format!("{},{},{}", p.value, p.reached_at_ms, p.until_ms))
            .collect();
        format!(
            "{};{};{};{};{}",
            self.created_at_ms,
            self.updated_at_ms,
            u8::from(self.truncated),
            past.join("|"),
            self.known_since_ms
        )
    }

    /// The inverse of [`encode`](Self::encode); `None` for anything else.
    pub fn decode(s: &str) -> Option<Self> {
        let mut parts = s.split(';');
        let created_at_ms = parts.next()?.parse().ok()?;
        let updated_at_ms = parts.next()?.parse().ok()?;
        let truncated = match parts.next()? {
            "0" => false,
            "1" => true,
            _ => return None,
        };
        let rest = parts.next()?;
        // Histories stored before `known_since` was kept: complete since creation, or
        // (truncated) of unknown reach.
        let known_since_ms = match parts.next() {
            Some(k) => k.parse().ok()?,
            None if truncated => i64::MAX,
            None => created_at_ms,
        };
        if parts.next().is_some() {
            return None;
        }
        let past = if rest.is_empty() {
            Vec::new()
        } else {
            rest.split('|')
                .map(|p| {
                    let mut n = p.split(',');
                    let key = PastKey {
                        value: n.next()?.parse().ok()?,
                        reached_at_ms: n.next()?.parse().ok()?,
                        until_ms: n.next()?.parse().ok()?,
                    };
                    n.next().is_none().then_some(key)
                })
                .collect::<Option<Vec<_>>>()?
        };
        Some(KeyHistory {
            created_at_ms,
            updated_at_ms,
            past,
            truncated,
            known_since_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn k(value: i64, reached_at_ms: i64) -> HeldKey {
        HeldKey { value, reached_at_ms }
    }

    /// A player with 263 when the snapshot read the board, 140 after a later loss:
    /// the snapshot holds the 263.
    #[test]
    fn the_key_of_the_read_window_comes_first() {
        let h = KeyHistory::created(1_000).after_write(k(0, 0), k(263, 900), 1_000);
        let h = h.after_write(k(263, 900), k(140, 5_000_000), 5_000_000);
        let c = h.snapshot_candidates(k(140, 5_000_000), 2_000_000, 2_100_000);
        assert_eq!(
            c.keys,
            vec![k(263, 900)],
            "the key replaced before the reading is left out"
        );
        assert!(c.exhaustive);
        // Read after the loss: the 140 first, then the older keys.
        let c = h.snapshot_candidates(k(140, 5_000_000), 6_000_000, 6_100_000);
        assert_eq!(c.keys[0], k(140, 5_000_000));
        // A snapshot read before the entry existed can hold none of its keys.
        let c = KeyHistory::created(9_000_000).snapshot_candidates(k(5, 9_000_000), 1_000_000, 1_100_000);
        assert!(c.keys.is_empty() && c.exhaustive);
    }

    #[test]
    fn unchanged_keys_add_nothing_and_old_keys_drop() {
        let mut h = KeyHistory::created(0);
        assert_eq!(h.after_write(k(0, 5), k(0, 5), 10), h);
        for i in 0..20 {
            h = h.after_write(k(i, i), k(i + 1, i + 1), 100_000 + i * 100_000);
        }
        assert_eq!(h.past.len(), HISTORY_KEYS);
        assert!(h.truncated);
        assert_eq!(h.past[0].value, 20 - HISTORY_KEYS as i64);
        // Known since the last dropped key was replaced (value 11, until 1,200,000).
        assert_eq!(h.known_since_ms, 1_200_000);
        // A snapshot before that: not exhaustive. One after: exhaustive (review F1).
        assert!(!h.snapshot_candidates(k(20, 20), 0, 1).exhaustive);
        let c = h.snapshot_candidates(k(20, 20), 1_850_000, 1_860_000);
        assert!(c.exhaustive);
        assert_eq!(c.keys[0], k(18, 18), "held when the reading began");
    }

    /// Several changes around the reading: the key that held when it began comes
    /// first, keys replaced long before are left out (review F2).
    #[test]
    fn the_key_at_the_start_of_the_reading_leads() {
        let mut h = KeyHistory::created(0);
        for (i, at) in [
            (1, 9_000_000),
            (2, 10_010_000),
            (3, 10_020_000),
            (4, 10_080_000),
            (5, 20_000_000),
        ] {
            h = h.after_write(k(i - 1, i - 1), k(i, i), at);
        }
        let c = h.snapshot_candidates(k(5, 5), 10_025_000, 10_030_000);
        assert_eq!(
            c.keys,
            vec![k(3, 3), k(2, 2), k(1, 1)],
            "then the margin's, nearest first"
        );
        assert!(c.exhaustive);
        assert!(!c.keys.contains(&k(0, 0)), "replaced before the margin");
        assert!(!c.keys.contains(&k(5, 5)), "set after the margin");
    }

    proptest! {
        #[test]
        fn encoding_round_trips(values in proptest::collection::vec((any::<i64>(), any::<i64>(), any::<i64>()), 0..9), c in any::<i64>(), u in any::<i64>(), t in any::<bool>(), s in any::<i64>()) {
            let h = KeyHistory {
                created_at_ms: c,
                updated_at_ms: u,
                past: values.into_iter().map(|(value, reached_at_ms, until_ms)| PastKey { value, reached_at_ms, until_ms }).collect(),
                truncated: t,
                known_since_ms: s,
            };
            prop_assert_eq!(KeyHistory::decode(&h.encode()), Some(h));
        }
    }
}
