//! The LB-7 load run (`scripts/lb7-load`): a fleet of game servers sending scored
//! matches at `PODIUM_LB7_RATE` records a second (default 2,000) for
//! `PODIUM_LB7_SECONDS` (default 600) into one store, paced by the wall clock, while
//! the app reads `PODIUM_LB7_READS` a second (default 1,000) and the snapshot job
//! refreshes every `PODIUM_LB7_REFRESH` seconds (default 5); the fleet and the reads
//! are [`podium_tests::lb7`]'s. Prints a row of throughput and latency percentiles per
//! 10 s, then the end checks (every record applied once, nothing lost, every ledger
//! equal to its balance); exits non-zero when a check fails.
//!
//! The store: a fresh embedded store (a redb file in a folder of its own under the
//! temporary folder, `TMPDIR`); with
//! `PODIUM_TEST_DYNAMODB_ENDPOINT` set, a fresh table on DynamoDB Local, its partition
//! heat recorded and printed. `PODIUM_LB7_TRACE=1`: not paced, each second's records
//! settled before the next second's (the heat of that rate, whatever the emulator's
//! speed). Other settings: `PODIUM_LB7_PLAYERS` (1,000,000), `PODIUM_LB7_EXPONENT`
//! (1.0), `PODIUM_LB7_RETURNING` (20,000), `PODIUM_LB7_MIDNIGHT_AT` (60),
//! `PODIUM_LB7_IN_FLIGHT` (64).
//!
//!   cargo run --release -p podium-tests --example lb7

use std::sync::Arc;

use podium_store::dynamo::Heat;
use podium_store::embedded::EmbeddedStore;
use podium_tests::lb7::{self, Report, Settings, Window};

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn print(report: &Report) {
    println!("{}", Window::HEADER);
    for w in &report.windows {
        println!("{}", w.row());
    }
    println!();
    println!("{}", report.summary());
}

#[tokio::main]
async fn main() {
    let trace = env("PODIUM_LB7_TRACE", 0u8) == 1;
    let settings = Settings {
        rate: env("PODIUM_LB7_RATE", 2_000),
        seconds: env("PODIUM_LB7_SECONDS", 600),
        reads: env("PODIUM_LB7_READS", 1_000),
        players: env("PODIUM_LB7_PLAYERS", 1_000_000),
        exponent: env("PODIUM_LB7_EXPONENT", 1.0),
        refresh_every: env("PODIUM_LB7_REFRESH", 5),
        midnight_at: env("PODIUM_LB7_MIDNIGHT_AT", 60),
        returning: env("PODIUM_LB7_RETURNING", 20_000),
        in_flight: env("PODIUM_LB7_IN_FLIGHT", 64),
        paced: !trace,
        seed: 7,
        check_every: env("PODIUM_LB7_CHECK_EVERY", 1),
        sent_ms: env("PODIUM_LB7_SENT_MS", 1_000),
    };
    println!("{settings:?}");
    // The rows print as each 10 s window ends (standard error), under this heading.
    eprintln!("{}", Window::HEADER);
    let report = if std::env::var(podium_tests::fixtures::DYNAMODB_ENDPOINT_VAR).is_ok() {
        let heat = Heat::new();
        let store = podium_tests::fixtures::dynamodb()
            .await
            .recording_heat(Arc::clone(&heat));
        let report = lb7::run(store, &settings, Some(Arc::clone(&heat))).await;
        print(&report);
        println!();
        println!("{}", lb7::heat_table(&heat));
        let over = lb7::over_half(&heat, settings.sent_ms);
        println!(
            "partition keys over half their limit in some second: {}",
            over.len()
        );
        for h in over.iter().take(20) {
            println!(
                "  s {} {} `{}`: {:.1} write units, {:.1} read units",
                h.second,
                h.place,
                h.key,
                h.write_milli as f64 / 1000.0,
                h.read_milli as f64 / 1000.0
            );
        }
        report
    } else {
        let dir = std::env::temp_dir().join(format!("podium-lb7-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let store = EmbeddedStore::open(&dir.join("podium.redb")).expect("store");
        // A run stopped by Ctrl-C or SIGTERM removes its file too (gigabytes after a
        // few minutes), as one that ends does.
        let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        let report = tokio::select! {
            report = lb7::run(store, &settings, None) => report,
            _ = tokio::signal::ctrl_c() => stopped(&dir),
            _ = terminate.recv() => stopped(&dir),
        };
        print(&report);
        let _ = std::fs::remove_dir_all(&dir);
        report
    };
    if !report.sound() {
        std::process::exit(1);
    }
}

/// Removes the run's folder and exits (130: stopped, not finished).
fn stopped(dir: &std::path::Path) -> ! {
    let _ = std::fs::remove_dir_all(dir);
    eprintln!("stopped; removed {}", dir.display());
    std::process::exit(130)
}
