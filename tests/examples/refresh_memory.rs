//! Peak memory of a snapshot refresh and a period close, over what the process held
//! before (issue 44: "memory that follows what changed").
//!
//! A board of `PODIUM_MEMORY_PLAYERS` Seega players (default 1,000,000) is loaded
//! into the embedded store (a redb file in the temporary folder, its page cache
//! bounded to 32 MB), every player with a profile (a name, an
//! avatar and one of 50 countries), and snapshotted once; then, for each change rate
//! of `PODIUM_MEMORY_RATES` (per mille, default `1,10,100`: 0.1 %, 1 %, 10 %), that
//! share of the players' balances change and the board is refreshed (with movement
//! against the snapshot before, and the 50 country boards). Every allocation is
//! counted: the peak heap during a refresh less the heap held before it is what the
//! refresh needed (it includes what the in-memory store allocates for the items the
//! refresh writes, which grows with what changed). Also printed: read requests and
//! write units (billed as DynamoDB bills them, [`podium_tests::billing`]).
//!
//!   cargo run --release -p podium-tests --example refresh_memory

use std::time::Instant;

use chrono::{DateTime, Duration};
use podium_generate::synthetic::standings;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::profile::{Card, Profile};
use podium_rules::snapshot::PAGE_SIZE;
use podium_service::boards::snapshot::{self, layout::Paging};
use podium_store::embedded::EmbeddedStore;
use podium_store::ItemStore;
use podium_tests::billing::Billed;
use podium_tests::fixtures::change_balances;
use podium_tests::heap::{peak_over, reset_peak};
use rand::SeedableRng;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[global_allocator]
static ALLOCATOR: podium_tests::heap::Counting = podium_tests::heap::Counting;

const COUNTRIES: [&str; 50] = [
    "RO", "FR", "DE", "IT", "ES", "PT", "GB", "IE", "NL", "BE", "LU", "AT", "CH", "PL", "CZ", "SK", "HU",
    "BG", "GR", "TR", "SE", "NO", "DK", "FI", "EE", "LV", "LT", "UA", "MD", "RS", "HR", "SI", "BA", "AL",
    "MK", "US", "CA", "MX", "BR", "AR", "CL", "CO", "PE", "EG", "MA", "DZ", "TN", "SA", "AE", "IN",
];

#[tokio::main]
async fn main() {
    let players = env("PODIUM_MEMORY_PLAYERS", 1_000_000);
    let rates: Vec<u64> = std::env::var("PODIUM_MEMORY_RATES")
        .unwrap_or_else(|_| "1,10,100".into())
        .split(',')
        .filter_map(|r| r.trim().parse().ok())
        .collect();
    // A database file with a 32 MB page cache: the store's own memory stays bounded,
    // so the heap the refresh adds is its own (and the items it writes).
    let dir = std::env::temp_dir().join(format!("podium-refresh-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store =
        Billed::new(EmbeddedStore::open_with(&dir.join("store.redb"), Some(32 << 20)).expect("store"));
    let started = Instant::now();
    store
        .inner
        .load_balances(Game::Seega, standings(players))
        .expect("load");
    let all: Vec<String> = standings(players).map(|s| s.player_id).collect();
    for (n, chunk) in all.chunks(10_000).enumerate() {
        let items: Vec<_> = chunk
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let profile = Profile {
                    card: Card {
                        name: Some(format!("Player {}", n * 10_000 + i)),
                        avatar: Some(format!("a{:02}", 1 + i % 24)),
                        country: Some(COUNTRIES[(n * 10_000 + i) % COUNTRIES.len()].to_string()),
                    },
                    country_changed_at_ms: None,
                };
                (
                    podium_service::profiles::profile_key(p),
                    serde_json::to_vec(&profile).expect("profile"),
                )
            })
            .collect();
        store.inner.put_items(&items, None).await.expect("profiles");
    }
    drop(all);
    println!(
        "{players} players with profiles in 50 countries loaded in {:.1?}",
        started.elapsed()
    );
    let board = BoardRef::all_time("seega");
    let paging = Paging::content_defined(PAGE_SIZE);
    let mut at = DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
        .expect("instant")
        .to_utc();
    let base = reset_peak();
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
    let bill = store.bill().since(&before);
    println!(
        "first snapshot ({:.1?}): {} pages; peak heap {} MB over the {} MB held before; {} read requests, {} write units",
        started.elapsed(),
        first.pages_total,
        peak_over(base),
        base / (1024 * 1024),
        bill.read_requests,
        bill.write_units
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(44);
    for rate in rates {
        let changes = players * rate / 1000;
        at += Duration::minutes(5);
        change_balances(&store.inner, &mut rng, players, changes, 200, at).await;
        let base = reset_peak();
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
        println!(
            "refresh after {changes} changes ({:.1} %) ({:.1?}): {} pages, {} bodies written; peak heap {} MB over the {} MB held before; {} read requests, {} write units",
            rate as f64 / 10.0,
            started.elapsed(),
            report.pages_total,
            report.bodies_written,
            peak_over(base),
            base / (1024 * 1024),
            bill.read_requests,
            bill.write_units
        );
    }
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
