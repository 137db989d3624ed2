//! Pages of the current snapshots, rendered once (LB-3, LB-5): the JSON body of
//! `GET /v1/leaderboards/{board}?limit=L` is the same for every caller until the
//! board's current snapshot or its period changes, and so is every page reached by a
//! cursor (a cursor names a position in one snapshot, and every caller paging down
//! from the top with the same `limit` is handed the same cursors). So each page is
//! serialised once and its bytes are shared by every later request.
//!
//! Bodies are kept by board, snapshot, `limit` and cursor ([`RenderedPages::key`]; the
//! top page has none). The snapshot is named by
//! [`crate::boards::snapshot::layout::Published::render_key`]: its id, and its
//! revision once a player deletion (GM-6) changed what it shows, so a body rendered
//! before the deletion is not served after it. Each body is kept with the period
//! clock it was rendered under and served only under the same clock, and with the
//! entity tag it was answered with (opaque here: the HTTP layer makes it), so that a
//! request answered from a kept page hashes and formats nothing. Every body of
//! every board, country view, period and page size counts against one bound in bytes
//! ([`RENDERED_PAGES_BYTES`]), the least used going first: however many views callers
//! ask for, a process holds no more. Around-me is not cached (it differs per caller).

use std::sync::Arc;

use bytes::Bytes;
use podium_rules::board::BoardRef;
use podium_rules::period::PeriodClock;

/// Bytes of page bodies [`RenderedPages`] holds at most, per process (a warm Lambda
/// container or `podium serve`): 16 MiB, about 2,700 pages of 50 entries (a 128 MB
/// function holds it beside its 27 MB read cache).
pub const RENDERED_PAGES_BYTES: u64 = 16 * 1024 * 1024;

/// Rendered pages of the current snapshots (LB-3, LB-5), top pages and pages reached
/// by a cursor alike, by [`RenderedPages::key`]; the least used go first past
/// [`RENDERED_PAGES_BYTES`]. Shared by every request of a process.
#[derive(Default)]
pub struct RenderedPages {
    held: std::sync::OnceLock<quick_cache::sync::Cache<String, Arc<Held>, BodyBytes>>,
}

/// A kept page: its JSON body and the entity tag it is answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptPage {
    pub body: Bytes,
    pub etag: Bytes,
}

/// A kept page with the period clock it was rendered under (shared: a hit clones
/// two reference counts, nothing else).
struct Held {
    clock: PeriodClock,
    page: KeptPage,
}

#[derive(Clone)]
struct BodyBytes;

impl quick_cache::Weighter<String, Arc<Held>> for BodyBytes {
    fn weight(&self, key: &String, held: &Arc<Held>) -> u64 {
        // The body and tag (copied to their length when kept), the key, the clock's
        // strings, and the entry's own fixed cost.
        let Held { clock, page } = held.as_ref();
        (key.len() + page.body.len() + page.etag.len() + clock.period.len() + clock.zone.len()) as u64 + 256
    }
}

impl RenderedPages {
    /// The key of `board`'s page of `limit` entries in the snapshot named by
    /// `render_key` (its id and revision): the top page when `cursor` is `None`, else
    /// the page at `cursor` (as the caller sent it, verified; never empty).
    pub fn key(board: &BoardRef, render_key: &str, limit: usize, cursor: Option<&str>) -> String {
        format!(
            "{}\u{1f}{render_key}\u{1f}{limit}\u{1f}{}",
            board.key(),
            cursor.unwrap_or_default()
        )
    }

    fn held(&self) -> &quick_cache::sync::Cache<String, Arc<Held>, BodyBytes> {
        self.held.get_or_init(|| {
            // Pages of about 6 KB: the item estimate sizes quick_cache's tables.
            quick_cache::sync::Cache::with_weighter(
                (RENDERED_PAGES_BYTES / 6_000) as usize,
                RENDERED_PAGES_BYTES,
                BodyBytes,
            )
        })
    }

    /// The page kept under `key`, if rendered under `clock`.
    pub fn get(&self, key: &str, clock: &PeriodClock) -> Option<KeptPage> {
        self.held()
            .get(key)
            .filter(|held| held.clock == *clock)
            .map(|held| held.page.clone())
    }

    /// Whether a body is kept under `key`, under any clock.
    pub fn holds(&self, key: &str) -> bool {
        self.held().contains_key(key)
    }

    /// Bytes held, as the bound counts them.
    pub fn weight(&self) -> u64 {
        self.held().weight()
    }

    /// Keeps `page` under `key`, rendered under `clock`.
    pub fn put(&self, key: String, clock: &PeriodClock, page: &KeptPage) {
        // Copies of exactly their length: a body serialised into a growing buffer may
        // hold up to twice its length, which the bound would not see.
        let held = Held {
            clock: clock.clone(),
            page: KeptPage {
                body: Bytes::copy_from_slice(&page.body),
                etag: Bytes::copy_from_slice(&page.etag),
            },
        };
        self.held().insert(key, Arc::new(held));
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

    fn page(body: &'static [u8]) -> KeptPage {
        KeptPage {
            body: Bytes::from_static(body),
            etag: Bytes::from_static(b"\"s1.0123456789abcdef\""),
        }
    }

    #[test]
    fn lb3_a_page_is_served_under_its_snapshot_limit_cursor_and_clock_only() {
        let pages = RenderedPages::default();
        let b = BoardRef::new("seega-weekly", "2026-W49");
        let key = RenderedPages::key(&b, "s1", 50, Some("c1"));
        let top = RenderedPages::key(&b, "s1", 50, None);
        pages.put(key.clone(), &clock("2026-W49"), &page(b"one"));
        pages.put(top.clone(), &clock("2026-W49"), &page(b"top"));
        assert_eq!(pages.get(&key, &clock("2026-W49")), Some(page(b"one")));
        assert_eq!(pages.get(&top, &clock("2026-W49")), Some(page(b"top")));
        assert_eq!(pages.get(&key, &clock("2026-W50")), None);
        for other in [
            RenderedPages::key(&b, "s2", 50, Some("c1")),
            RenderedPages::key(&b, "s1", 10, Some("c1")),
            RenderedPages::key(&b, "s1", 50, Some("c2")),
            RenderedPages::key(&b, "s2", 50, None),
            RenderedPages::key(&b, "s1", 10, None),
            RenderedPages::key(&BoardRef::new("seega-weekly", "2026-W48"), "s1", 50, None),
        ] {
            assert_eq!(pages.get(&other, &clock("2026-W49")), None, "{other:?}");
        }
    }

    /// LB-3, PF-3: every view and page size a caller can ask for (boards, countries,
    /// periods, limits 1 … 100) fills at most the bound.
    #[test]
    fn lb3_every_view_and_limit_together_stay_within_the_bound() {
        let pages = RenderedPages::default();
        let kept = KeptPage {
            body: Bytes::from(vec![b'x'; 6_000]),
            etag: Bytes::from_static(b"\"s1.0123456789abcdef\""),
        };
        for country in 0..40 {
            let b = BoardRef::new(format!("seega~C{country}"), "all");
            for limit in 1..=100 {
                pages.put(RenderedPages::key(&b, "s1", limit, None), &clock("all"), &kept);
            }
        }
        assert!(pages.weight() <= RENDERED_PAGES_BYTES, "{} bytes", pages.weight());
        assert!(
            pages.weight() > RENDERED_PAGES_BYTES / 2,
            "the bound is used: {}",
            pages.weight()
        );
    }
}
