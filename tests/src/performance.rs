//! What the performance work must not change, run on both stores through the HTTP
//! API's code: top pages rendered once per snapshot are the pages a fresh render
//! gives, cost no store request while the snapshot is current, and follow a new
//! snapshot (LB-3, LB-5).

use std::collections::HashMap;

use podium_rules::board::BoardRef;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_service::snapshot;
use podium_store::Store;

use crate::contract::{cursor_key, score_match};
use crate::counting::Counted;
use crate::fixtures::{at, now, rout, seed_balance};

fn top(limit: &str) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: "/v1/leaderboards/seega".into(),
        query: HashMap::from([("limit".to_string(), limit.to_string())]),
        player: Some("reader".into()),
        raw_query: None,
    }
}

async fn call<S: Store + ?Sized>(store: &S, ctx: &ApiContext, req: &ApiRequest) -> ApiResponse {
    let answer = api::handle(store, ctx, req, chrono::Utc::now()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer
}

/// LB-5: the top page of a snapshot is rendered once per (board, period, snapshot,
/// limit); later requests are served from it without a store request and equal a
/// fresh render; another limit is its own page; a new snapshot replaces them.
pub async fn top_pages_are_rendered_once_per_snapshot<S: Store + 'static>(store: S) {
    let counted = Counted::new(store);
    for i in 0..30i64 {
        seed_balance(&counted, &format!("r{i:02}"), 10 * i, 1_000 + i).await;
    }
    let board = BoardRef::all_time("seega");
    snapshot::run(&counted, &board, "first", at(60), 7, None)
        .await
        .expect("snapshot");
    let ctx = ApiContext::new(cursor_key());
    let rendered = call(&counted, &ctx, &top("10")).await;
    assert_eq!(rendered.body["snapshot"], "first");
    let (reads, writes) = counted.counts();
    let again = call(&counted, &ctx, &top("10")).await;
    assert_eq!(
        counted.counts(),
        (reads, writes),
        "served without a store request"
    );
    assert_eq!(again, rendered);
    let fresh = call(&counted, &ApiContext::new(cursor_key()), &top("10")).await;
    assert_eq!(fresh, rendered, "the kept page is what a fresh render gives");
    let five = call(&counted, &ctx, &top("5")).await;
    assert_eq!(five.body["entries"].as_array().map(Vec::len), Some(5));
    assert_eq!(five.body["entries"][0], rendered.body["entries"][0]);

    // r00 climbs to the top; once the next snapshot is current, the page follows it.
    score_match(&counted, &rout("perf-m1", "r00", "r01", at(61)), now())
        .await
        .expect("scored");
    snapshot::run(&counted, &board, "second", at(62), 7, None)
        .await
        .expect("snapshot");
    ctx.cache.forget();
    let moved = call(&counted, &ctx, &top("10")).await;
    assert_eq!(moved.body["snapshot"], "second");
    assert_eq!(moved.body["entries"][0]["player_id"], "r00");
    assert_eq!(
        moved,
        call(&counted, &ApiContext::new(cursor_key()), &top("10")).await
    );
}

/// Declares one `#[tokio::test]` per performance case for a store made by `$make`.
#[macro_export]
macro_rules! performance_tests {
    ($make:path) => {
        $crate::performance_tests!(@cases $make;
            top_pages_are_rendered_once_per_snapshot,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::performance::$case($make().await).await;
            }
        )*
    };
}
