//! The snapshot path at scale on the embedded store: a board of `PODIUM_SCALE_PLAYERS`
//! players (default 1,000,000) and one of 1,000, each snapshotted as the refresh job
//! does (content-defined pages); prints the snapshot
//! wall time, the write requests per materialised page (counted as DynamoDB would
//! count them: one BatchWriteItem per 25 items), and the reads a player's own rank
//! costs on each board; with DynamoDB Local (`scripts/bench-scale`) the same at 1,000
//! and `PODIUM_SCALE_DYNAMODB_PLAYERS` (default 100,000) players there.

use std::time::Instant;

use chrono::{DateTime, Utc};
use podium_generate::synthetic::standings;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::Standing;
use podium_rules::snapshot::PAGE_SIZE;
use podium_service::boards::cursor::CursorKey;
use podium_service::boards::pages::{self, SnapshotCache};
use podium_service::boards::snapshot::{self, layout::Paging};
use podium_store::embedded::EmbeddedStore;
use podium_tests::counting::Counted;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
        .expect("instant")
        .to_utc()
}

async fn run(players: u64) {
    let store = Counted::new(EmbeddedStore::in_memory().expect("store"));
    let started = Instant::now();
    store
        .inner
        .load_balances(Game::Seega, standings(players))
        .expect("load");
    let loaded = started.elapsed();
    let board = BoardRef::all_time("seega");
    let started = Instant::now();
    let (r0, w0) = store.counts();
    let report = snapshot::write::run_paged(
        &store,
        &board,
        "bench",
        now(),
        Paging::content_defined(PAGE_SIZE),
        None,
        now(),
    )
    .await
    .expect("snapshot");
    let took = started.elapsed();
    let (r1, w1) = store.counts();
    let cache = SnapshotCache::default();
    let key = CursorKey::random();
    pages::top_page(&store, &cache, &key, &board, 50, None, Utc::now())
        .await
        .expect("warm")
        .expect("snapshot");
    let mut rank_reads = Vec::new();
    for probe in [0, players / 2, players - 1] {
        let (before, _) = store.counts();
        let me = pages::around_me(&store, &cache, &board, &format!("p-{probe:07}"), 0, Utc::now())
            .await
            .expect("rank")
            .expect("snapshot");
        rank_reads.push((me.me.rank, store.counts().0 - before));
    }
    println!(
        "| embedded (memory) | {players} | {:.1?} | {} | {:.1?} | {} | {:.3} | {:?} |",
        loaded,
        report.pages_total,
        took,
        r1 - r0,
        (w1 - w0) as f64 / f64::from(report.pages_total),
        rank_reads
    );
}

/// The same on DynamoDB Local, counted from DynamoDB's own capacity reports.
async fn run_dynamodb(players: u64) {
    let store = podium_tests::fixtures::dynamodb().await;
    let all: Vec<Standing> = standings(players).collect();
    let started = Instant::now();
    store.load_balances(Game::Seega, &all).await.expect("load");
    let loaded = started.elapsed();
    let board = BoardRef::all_time("seega");
    let before = store.usage();
    let started = Instant::now();
    let report = snapshot::write::run_paged(
        &store,
        &board,
        "bench",
        now(),
        Paging::content_defined(PAGE_SIZE),
        None,
        now(),
    )
    .await
    .expect("snapshot");
    let took = started.elapsed();
    let d = store.usage().since(&before);
    let cache = SnapshotCache::default();
    let key = CursorKey::random();
    pages::top_page(&store, &cache, &key, &board, 50, None, Utc::now())
        .await
        .expect("warm")
        .expect("snapshot");
    let mut rank_reads = Vec::new();
    for probe in [0, players / 2, players - 1] {
        let before = store.usage();
        let me = pages::around_me(&store, &cache, &board, &format!("p-{probe:07}"), 0, Utc::now())
            .await
            .expect("rank")
            .expect("snapshot");
        rank_reads.push((me.me.rank, store.usage().since(&before).requests));
    }
    println!(
        "| DynamoDB Local | {players} | {:.1?} | {} | {:.1?} | {} | {:.3} | {:?} |",
        loaded,
        report.pages_total,
        took,
        d.requests - d.write_requests,
        d.write_requests as f64 / f64::from(report.pages_total),
        rank_reads
    );
}

#[tokio::main]
async fn main() {
    let big: u64 = std::env::var("PODIUM_SCALE_PLAYERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    println!("| store | players | load | pages | snapshot wall time | read requests | write requests per page | (rank, reads) for own rank, warm cache |");
    println!("|---|---|---|---|---|---|---|---|");
    run(1_000).await;
    run(big).await;
    if std::env::var(podium_tests::fixtures::DYNAMODB_ENDPOINT_VAR).is_ok() {
        let big: u64 = std::env::var("PODIUM_SCALE_DYNAMODB_PLAYERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(100_000);
        run_dynamodb(1_000).await;
        run_dynamodb(big).await;
    }
}
