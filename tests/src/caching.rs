//! Conditional requests on both stores (LB-5, LB-7): answers built from a snapshot
//! carry an ETag and a max-age up to the next refresh, and a revalidation that still
//! holds is a 304 read from no page.

use chrono::Duration;
use podium_rules::board::BoardRef;
use podium_service::api::{self, ApiContext};
use podium_service::boards::cursor::CursorKey;
use podium_service::boards::snapshot;
use podium_store::Store;

use crate::contract::cursor_key;
use crate::counting::Counted;
use crate::fixtures::{seed_balance, tick};
use crate::review::get;

/// Forty Seega players `e00` … `e39` and the snapshot `e1` of their board, taken now
/// ([`tick`]) in pages of 10: the board and that instant.
async fn forty_in_snapshot_e1<S: Store>(store: &S) -> (BoardRef, chrono::DateTime<chrono::Utc>) {
    for i in 0..40 {
        seed_balance(store, &format!("e{i:02}"), 100 + i % 7, 1_000 + i).await;
    }
    let board = BoardRef::all_time("seega");
    let now = tick();
    snapshot::write::run(store, &board, "e1", now, 10, None, now)
        .await
        .expect("snapshot");
    (board, now)
}

/// LB-5: a page's second read with its ETag is a 304 that reads nothing from the
/// store (pointer and caller cached); `max-age` runs to the next refresh; a cursor
/// page and around-me (private) revalidate alike, around-me reading only the
/// caller's tombstone and live entry; a new snapshot changes every ETag.
pub async fn a_revalidated_page_reads_nothing<S: Store + Clone + 'static>(store: S) {
    let (board, now) = forty_in_snapshot_e1(&store).await;
    let counted = Counted::new(store.clone());
    let ctx = ApiContext::new(cursor_key()).with_refresh(std::time::Duration::from_secs(300));
    let at = now + Duration::seconds(100);
    let page = |q: &'static [(&'static str, &'static str)]| get("/v1/leaderboards/seega", q, "e01");
    let first = api::handle(&counted, &ctx, &page(&[("limit", "10")]), at).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let etag = first.etag.clone().expect("an ETag");
    assert!(etag.starts_with("\"e1."), "{etag}");
    assert_eq!(
        first.cache_control.as_deref(),
        Some("public, max-age=230"),
        "to the next refresh, and the 30 s a process may answer from this snapshot after it"
    );
    let (r0, _) = counted.counts();
    let again = api::handle_with_headers(
        &counted,
        &ctx,
        &page(&[("limit", "10")]),
        &[("if-none-match", &etag)],
        at,
    )
    .await;
    assert_eq!(again.status, 304);
    assert_eq!(again.etag.as_deref(), Some(etag.as_str()));
    assert_eq!(counted.counts().0, r0, "a 304 reads nothing");
    // Answered from the kept page: the same body, with the tag it was kept with.
    let kept = api::handle(&counted, &ctx, &page(&[("limit", "10")]), at).await;
    assert_eq!(
        (kept.status, kept.etag.as_deref(), kept.cache_control.as_deref()),
        (200, Some(etag.as_str()), Some("public, max-age=230"))
    );
    assert_eq!(kept.body, first.body);
    assert_eq!(counted.counts().0, r0, "a kept page reads nothing");
    // Another cursor key (a rotation, a process with a random key) signs other
    // cursors: another tag, and the old one is answered with the new cursors.
    let rotated = ApiContext::new(CursorKey::new(&[7; 32]).expect("a key"))
        .with_refresh(std::time::Duration::from_secs(300));
    let after = api::handle_with_headers(
        &counted,
        &rotated,
        &page(&[("limit", "10")]),
        &[("if-none-match", &etag)],
        at,
    )
    .await;
    assert_eq!(after.status, 200, "{}", after.body);
    assert_ne!(after.etag, first.etag);
    assert_ne!(after.body["next_cursor"], first.body["next_cursor"]);
    // Another query is another answer.
    let other = api::handle_with_headers(
        &counted,
        &ctx,
        &page(&[("limit", "11")]),
        &[("if-none-match", &etag)],
        at,
    )
    .await;
    assert_eq!(other.status, 200);
    assert_ne!(other.etag, first.etag);
    // A cursor page revalidates too.
    let cursor = first.body["next_cursor"].as_str().expect("a cursor").to_string();
    let q = [("limit", "10"), ("cursor", cursor.as_str())];
    let second = api::handle(&counted, &ctx, &get("/v1/leaderboards/seega", &q, "e01"), at).await;
    let tag2 = second.etag.clone().expect("an ETag");
    let (r1, _) = counted.counts();
    let again = api::handle_with_headers(
        &counted,
        &ctx,
        &get("/v1/leaderboards/seega", &q, "e01"),
        &[("if-none-match", &tag2)],
        at,
    )
    .await;
    assert_eq!((again.status, counted.counts().0), (304, r1));
    // Around-me: private; a 304 reads the caller's tombstone and live entry, no page.
    let me = api::handle(&counted, &ctx, &get("/v1/leaderboards/seega/me", &[], "e05"), at).await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert!(
        me.cache_control
            .as_deref()
            .is_some_and(|c| c.starts_with("private, max-age=")),
        "{:?}",
        me.cache_control
    );
    let tag_me = me.etag.clone().expect("an ETag");
    let (r2, _) = counted.counts();
    let again = api::handle_with_headers(
        &counted,
        &ctx,
        &get("/v1/leaderboards/seega/me", &[], "e05"),
        &[("if-none-match", &tag_me)],
        at,
    )
    .await;
    assert_eq!(again.status, 304);
    assert_eq!(counted.counts().0 - r2, 2, "tombstone and live entry");
    // The caller's value changed: the same validator no longer holds.
    seed_balance(&store, "e05", 999, 9_000).await;
    let changed = api::handle_with_headers(
        &counted,
        &ctx,
        &get("/v1/leaderboards/seega/me", &[], "e05"),
        &[("if-none-match", &tag_me)],
        at,
    )
    .await;
    assert_eq!(changed.status, 200);
    // A new snapshot: new ETags; the old one answers 200.
    snapshot::write::run(&store, &board, "e2", now + Duration::minutes(5), 10, None, now)
        .await
        .expect("refresh");
    ctx.cache.forget();
    let later = now + Duration::minutes(5) + Duration::seconds(30);
    let fresh = api::handle_with_headers(
        &counted,
        &ctx,
        &page(&[("limit", "10")]),
        &[("if-none-match", &etag)],
        later,
    )
    .await;
    assert_eq!(fresh.status, 200);
    assert!(
        fresh
            .etag
            .as_deref()
            .is_some_and(|t| t.starts_with("\"e2.") && t != etag),
        "{:?}",
        fresh.etag
    );
    // A late refresh: max-age 0, so caches revalidate.
    let late = api::handle(
        &counted,
        &ctx,
        &page(&[("limit", "10")]),
        now + Duration::minutes(30),
    )
    .await;
    assert_eq!(late.cache_control.as_deref(), Some("public, max-age=0"));
}

/// LB-3, LB-5: the top page and a page a cursor reaches in the current snapshot are
/// rendered once and then read from nothing (the same body for every caller paging
/// down), but not kept while the snapshot is fresh (its pages and movement items may
/// not be visible yet to eventually consistent reads): then they are rendered again
/// at every read.
pub async fn a_cursor_page_is_kept_past_the_fresh_window<S: Store + Clone + 'static>(store: S) {
    let (board, now) = forty_in_snapshot_e1(&store).await;
    let counted = Counted::new(store.clone());
    let ctx = ApiContext::new(cursor_key());
    let fresh = now + Duration::seconds(1);
    let first = api::handle(
        &counted,
        &ctx,
        &get("/v1/leaderboards/seega", &[("limit", "10")], "e01"),
        fresh,
    )
    .await;
    assert_eq!(
        first.cache_control.as_deref(),
        Some("public, max-age=0"),
        "an answer built in the fresh window is not to be kept by a cache either"
    );
    let cursor = first.body["next_cursor"].as_str().expect("a cursor").to_string();
    let q = [("limit", "10"), ("cursor", cursor.as_str())];
    let page = |at| {
        let (counted, ctx, q) = (&counted, &ctx, &q);
        async move {
            let before = counted.counts().0;
            let r = api::handle(counted, ctx, &get("/v1/leaderboards/seega", q, "e01"), at).await;
            assert_eq!(r.status, 200, "{}", r.body);
            (r.body, counted.counts().0 - before)
        }
    };
    let key = podium_service::boards::snapshot::rendered::RenderedPages::key(&board, "e1", 10, Some(&cursor));
    let top = podium_service::boards::snapshot::rendered::RenderedPages::key(&board, "e1", 10, None);
    assert!(!ctx.pages.holds(&top), "the top page is not kept while fresh");
    let (body, _) = page(fresh).await;
    assert!(!ctx.pages.holds(&key), "not kept while the snapshot is fresh");
    let later = now + Duration::seconds(60);
    let (rendered, _) = page(later).await;
    assert_eq!(rendered, body);
    assert!(ctx.pages.holds(&key), "kept past the fresh window");
    let later_top = api::handle(
        &counted,
        &ctx,
        &get("/v1/leaderboards/seega", &[("limit", "10")], "e01"),
        later,
    )
    .await;
    assert_eq!(later_top.body["entries"], first.body["entries"]);
    assert!(
        ctx.pages.holds(&top),
        "the top page is kept past the fresh window"
    );
    let (kept, reads) = page(later).await;
    assert_eq!((kept, reads), (body, 0), "kept: read from nothing");
}

#[macro_export]
macro_rules! caching_tests {
    ($make:path) => {
        $crate::caching_tests!(@cases $make;
            a_revalidated_page_reads_nothing,
            a_cursor_page_is_kept_past_the_fresh_window,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::caching::$case($make().await).await;
            }
        )*
    };
}
