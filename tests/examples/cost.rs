//! Measures what each operation costs on DynamoDB (requests and capacity units, as
//! DynamoDB reports them with `ReturnConsumedCapacity: TOTAL`) on a board of
//! `PLAYERS` players. Run with DynamoDB Local: `scripts/measure-cost`.

use std::time::Instant;

use podium_rules::game::Game;
use podium_rules::snapshot::PAGE_SIZE;
use podium_service::boards::{around_me, match_result, profile, top_page};
use podium_service::cursor::SnapshotCursor;
use podium_service::score::score_match;
use podium_service::snapshot;
use podium_service::snapshot_reads::{self, SnapshotCache};
use podium_store::dynamo::{DynamoStore, UsageSnapshot};
use podium_tests::fixtures::{at, dynamodb, rout, seed_balance};

/// Board size: `PODIUM_COST_PLAYERS` (default 1,000).
fn players() -> usize {
    std::env::var("PODIUM_COST_PLAYERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000)
}

fn row(what: &str, before: UsageSnapshot, store: &DynamoStore) {
    let d = store.usage().since(&before);
    println!(
        "| {what} | {} | {:.1} | {:.1} |",
        d.requests,
        d.read_milli_units as f64 / 1000.0,
        d.write_milli_units as f64 / 1000.0
    );
}

#[tokio::main]
async fn main() {
    let store = dynamodb().await;
    let started = Instant::now();
    let n_players = players();
    for i in 0..n_players {
        seed_balance(
            &store,
            &format!("p-{i:05}"),
            ((i * 7_919) % 5_000) as i64,
            1_000 + i as i64,
        )
        .await;
    }
    eprintln!("seeded {n_players} players in {:.1?}", started.elapsed());
    let now = at(0);
    let clock = podium_tests::fixtures::now();
    println!(
        "board of {n_players} players, {} shards\n",
        podium_store::BOARD_SHARDS
    );
    println!("| operation | requests | read units | write units |");
    println!("|---|---|---|---|");

    let before = store.usage();
    score_match(&store, &rout("m-cost", "p-00001", "p-00002", now), clock)
        .await
        .expect("scored");
    row("score a match (2 existing players)", before, &store);

    let before = store.usage();
    score_match(&store, &rout("m-cost", "p-00001", "p-00002", now), clock)
        .await
        .expect("duplicate");
    row("the same match again (duplicate)", before, &store);

    let before = store.usage();
    score_match(&store, &rout("m-cost-new", "new-1", "new-2", now), clock)
        .await
        .expect("scored");
    row("score a match (2 new players)", before, &store);

    let before = store.usage();
    let mut void = rout("m-cost-void", "p-00003", "p-00004", now);
    void.outcome = podium_rules::record::Outcome::draw();
    score_match(&store, &void, clock).await.expect("void");
    row("score a void match", before, &store);

    let before = store.usage();
    let page = top_page(
        &store,
        &podium_rules::board::BoardRef::all_time("seega"),
        50,
        None,
        now,
    )
    .await
    .expect("page");
    row("GET /v1/leaderboards/seega (top 50)", before, &store);

    let before = store.usage();
    top_page(
        &store,
        &podium_rules::board::BoardRef::all_time("seega"),
        50,
        page.next_cursor.as_deref(),
        now,
    )
    .await
    .expect("page 2");
    row("GET /v1/leaderboards/seega?cursor= (next 50)", before, &store);

    for probe in ["p-00000", "p-00500"] {
        let before = store.usage();
        let me = around_me(
            &store,
            &podium_rules::board::BoardRef::all_time("seega"),
            probe,
            5,
            now,
        )
        .await
        .expect("around me");
        row(
            &format!("GET /v1/leaderboards/seega/me (5 each side; rank {})", me.me.rank),
            before,
            &store,
        );
    }

    let before = store.usage();
    profile(&store, Game::Seega, "p-00001").await.expect("profile");
    row("GET /v1/me", before, &store);

    let before = store.usage();
    match_result(&store, "p-00001", "m-cost").await.expect("result");
    row("GET /v1/me/matches/{id}", before, &store);

    // Snapshots (LB-5): materialise, then serve from them.
    let before = store.usage();
    let started = Instant::now();
    let run = snapshot::run(
        &store,
        &podium_rules::board::BoardRef::all_time("seega"),
        "cost",
        clock,
        PAGE_SIZE,
        None,
    )
    .await
    .expect("snapshot");
    let d = store.usage().since(&before);
    row(
        &format!(
            "snapshot run: {} pages in {:.1?}",
            run.pages_total,
            started.elapsed()
        ),
        before,
        &store,
    );
    println!(
        "| (write requests per materialised page: {:.3}) | | | |",
        d.write_requests as f64 / f64::from(run.pages_total.max(1))
    );
    let cache = SnapshotCache::default();
    let before = store.usage();
    let page = snapshot_reads::top_page(
        &store,
        &cache,
        &podium_rules::board::BoardRef::all_time("seega"),
        50,
        None,
    )
    .await
    .expect("page")
    .expect("snap");
    row("snapshot top 50, cold cache (pointer + index)", before, &store);
    let cursor = page
        .next_cursor
        .as_deref()
        .and_then(|c| SnapshotCursor::decode(c, "seega@all").ok().flatten());
    let before = store.usage();
    snapshot_reads::top_page(
        &store,
        &cache,
        &podium_rules::board::BoardRef::all_time("seega"),
        50,
        None,
    )
    .await
    .expect("page");
    row("snapshot top 50, warm cache", before, &store);
    let before = store.usage();
    snapshot_reads::top_page(
        &store,
        &cache,
        &podium_rules::board::BoardRef::all_time("seega"),
        50,
        cursor.as_ref(),
    )
    .await
    .expect("page 2");
    row("snapshot next 50 (cursor)", before, &store);
    for probe in ["p-00000", "p-00500"] {
        let before = store.usage();
        let me = snapshot_reads::around_me(
            &store,
            &cache,
            &podium_rules::board::BoardRef::all_time("seega"),
            probe,
            5,
        )
        .await
        .expect("me")
        .expect("snap");
        row(
            &format!("snapshot around-me, warm cache (rank {})", me.me.rank),
            before,
            &store,
        );
    }
}
