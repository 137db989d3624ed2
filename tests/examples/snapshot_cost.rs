//! What refreshing a large board's snapshot costs in DynamoDB write units (the goal:
//! at most 2,000,000 write units a day for a 1,000,000-player board refreshed
//! every 5 minutes with 1,000 balance changes per tick).
//!
//! On the embedded store (redb in memory), billed as DynamoDB on-demand would bill
//! the same item writes ([`podium_tests::billing`]): a board of `PODIUM_COST_PLAYERS`
//! players (default 1,000,000) is loaded and snapshotted, then `PODIUM_COST_TICKS`
//! ticks (default 3) each change `PODIUM_COST_CHANGES` balances (default 1,000: a
//! random player gains or loses up to `PODIUM_COST_DELTA` points, default 200) and
//! refresh the snapshot. Prints the write units of the first snapshot (every page
//! new: what a refresh costs when every page changes, as at LB-7's peak), of each
//! refresh, per day (× 288 refreshes) and the ratio to the goal. With
//! `PODIUM_TEST_DYNAMODB_ENDPOINT` set, also checks the billing model against what
//! DynamoDB Local reports for `PODIUM_COST_DYNAMODB_PLAYERS` players (default 20,000).

use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use podium_generate::synthetic::standings;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::snapshot::PAGE_SIZE;
use podium_service::boards::snapshot::{self, layout::Paging};
use podium_store::embedded::EmbeddedStore;

use podium_tests::billing::{Bill, Billed};
use podium_tests::fixtures::change_balances;
use rand::SeedableRng;

/// Write units a day the goal allows.
const GOAL_PER_DAY: f64 = 2_000_000.0;
/// Refreshes a day (one every 5 minutes).
const REFRESHES_PER_DAY: f64 = 288.0;
/// On-demand price of a million write request units (USD).
const PRICE_PER_MILLION: f64 = 0.625;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
        .expect("instant")
        .to_utc()
}

fn line(what: &str, bill: &Bill, pages: u32, bodies: u32) {
    println!(
        "{what}: {} write units, {} items written ({} body bytes, {:.0} per item), {} read requests, {} pages, {bodies} page bodies written",
        bill.write_units,
        bill.items_written,
        bill.body_bytes,
        bill.body_bytes as f64 / bill.items_written.max(1) as f64,
        bill.read_requests,
        pages
    );
}

/// The billing model against DynamoDB's own report: the same snapshot and refresh on
/// DynamoDB Local, billed by [`Billed`] and by DynamoDB (`ReturnConsumedCapacity`).
async fn check_on_dynamodb(players: u64, changes: u64, delta: i64, paging: Paging) {
    let store = Billed::new(podium_tests::fixtures::dynamodb().await);
    let all: Vec<_> = standings(players).collect();
    store.inner.load_balances(Game::Seega, &all).await.expect("load");
    let board = BoardRef::all_time("seega");
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let mut at = start();
    for tick in 0..2 {
        if tick > 0 {
            at += Duration::minutes(5);
            change_balances(&store.inner, &mut rng, players, changes, delta, at).await;
        }
        let (billed, reported) = (store.bill(), store.inner.usage());
        snapshot::write::run_paged(
            &store,
            &board,
            &snapshot::layout::id_for(at),
            at,
            paging,
            None,
            at,
        )
        .await
        .expect("snapshot");
        println!(
            "DynamoDB Local, {players} players, {}: {} write units billed here, {:.1} as DynamoDB reports",
            if tick == 0 {
                "first snapshot".to_string()
            } else {
                format!("refresh after {changes} changes")
            },
            store.bill().since(&billed).write_units,
            store.inner.usage().since(&reported).write_milli_units as f64 / 1000.0
        );
    }
}

#[tokio::main]
async fn main() {
    let players = env("PODIUM_COST_PLAYERS", 1_000_000);
    let ticks = env("PODIUM_COST_TICKS", 3);
    let changes = env("PODIUM_COST_CHANGES", 1_000);
    let delta = env("PODIUM_COST_DELTA", 200) as i64;
    let store = Billed::new(EmbeddedStore::in_memory().expect("store"));
    let started = Instant::now();
    store
        .inner
        .load_balances(Game::Seega, standings(players))
        .expect("load");
    println!("{players} players loaded in {:.1?}", started.elapsed());
    let board = BoardRef::all_time("seega");
    // As the refresh job cuts pages; `PODIUM_COST_PAGING=fixed` for fixed-size pages.
    let paging = match std::env::var("PODIUM_COST_PAGING").as_deref() {
        Ok("fixed") => Paging::fixed(PAGE_SIZE),
        _ => Paging::content_defined(PAGE_SIZE),
    };
    println!("paging: {paging:?}");
    let mut at = start();
    let before = store.bill();
    let started = Instant::now();
    let first = snapshot::write::run_paged(
        &store,
        &board,
        &snapshot::layout::id_for(at),
        at,
        paging,
        None,
        at,
    )
    .await
    .expect("snapshot");
    let full = store.bill().since(&before);
    line(
        &format!("first snapshot ({:.1?})", started.elapsed()),
        &full,
        first.pages_total,
        first.bodies_written,
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let mut refreshes = Vec::new();
    for tick in 1..=ticks {
        at += Duration::minutes(5);
        change_balances(&store.inner, &mut rng, players, changes, delta, at).await;
        let before = store.bill();
        let started = Instant::now();
        let report = snapshot::write::run_paged(
            &store,
            &board,
            &snapshot::layout::id_for(at),
            at,
            paging,
            None,
            at,
        )
        .await
        .expect("refresh");
        let bill = store.bill().since(&before);
        line(
            &format!(
                "refresh {tick} after {changes} balance changes ({:.1?})",
                started.elapsed()
            ),
            &bill,
            report.pages_total,
            report.bodies_written,
        );
        refreshes.push(bill.write_units);
    }
    let per_refresh = refreshes.iter().sum::<u64>() as f64 / refreshes.len().max(1) as f64;
    let per_day = per_refresh * REFRESHES_PER_DAY;
    println!(
        "refresh: {per_refresh:.0} write units, {per_day:.0} a day, ${:.0} a month; goal <= {GOAL_PER_DAY:.0} a day: ratio {:.2} (<= 1 meets it)",
        per_day * 30.0 / 1e6 * PRICE_PER_MILLION,
        per_day / GOAL_PER_DAY
    );
    // An unchanged body is written again once it no longer outlives a new snapshot
    // (about a day after it was written): at most one full write of every page a day.
    let renewed = per_day + full.write_units as f64;
    println!(
        "with every unchanged page body renewed once a day: {renewed:.0} a day, ${:.0} a month: ratio {:.2}",
        renewed * 30.0 / 1e6 * PRICE_PER_MILLION,
        renewed / GOAL_PER_DAY
    );
    println!(
        "before (one full rewrite a refresh, measured at c7708b7): 80410 write units a refresh, 23158080 a day: ratio 11.58"
    );
    let peak = full.write_units as f64 * REFRESHES_PER_DAY;
    println!(
        "every page changed (LB-7 peak): {} write units a refresh, {peak:.0} a day, ${:.0} a month: ratio {:.2}",
        full.write_units,
        peak * 30.0 / 1e6 * PRICE_PER_MILLION,
        peak / GOAL_PER_DAY
    );
    if std::env::var(podium_tests::fixtures::DYNAMODB_ENDPOINT_VAR).is_ok() {
        let players = env("PODIUM_COST_DYNAMODB_PLAYERS", 20_000);
        check_on_dynamodb(players, changes * players / 1_000_000 + 1, delta, paging).await;
    }
}
