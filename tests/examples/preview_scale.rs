//! A definition previewed against past play at scale (BD-13): N Seega matches of
//! 2N/10 players settled over a week, then a wins board with a moves tie-break and a
//! prize table previewed over that week by calls of a 5-second budget, as the ticks carry
//! it (a page of 1,000 stored results a step). Each call prints its time, its peak heap
//! over what the process held before it ([`podium_tests::heap`]) and its store requests
//! ([`podium_tests::counting`]); the last one folds.
//!
//!   cargo run --release -p podium-tests --example preview_scale
//!
//! N is `PODIUM_PREVIEW_SCALE_MATCHES` (default 200,000), on the embedded store (a redb
//! file, its page cache bounded to 32 MB).

use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, Utc};
use futures::stream::{self, StreamExt};
use podium_rules::board::definition::Definition;
use podium_service::budget::Budget;
use podium_service::operators::previews;
use podium_store::embedded::EmbeddedStore;
use podium_tests::counting::Counted;
use podium_tests::heap::{peak_over, reset_peak};

#[global_allocator]
static ALLOCATOR: podium_tests::heap::Counting = podium_tests::heap::Counting;

fn instant(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("an instant").to_utc()
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::var("PODIUM_PREVIEW_SCALE_MATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let players = (n / 5).max(2);
    let dir = std::env::temp_dir().join(format!("podium-preview-scale-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory");
    let store =
        Counted::new(EmbeddedStore::open_with(&dir.join("store.redb"), Some(32 << 20)).expect("store"));
    let start = instant("2026-11-23T00:00:00Z");
    let week_ms = 7 * 24 * 3_600_000_i64;
    let began = Instant::now();
    stream::iter(0..n)
        .map(|i| {
            let store = &store;
            async move {
                // A spread of winners, losers and moves (a multiplicative hash of i).
                let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let w = (h % players as u64) as usize;
                let l = (w + 1 + (h >> 40) as usize % (players - 1)) % players;
                let at = start + Duration::milliseconds((i as i64 * 7_777_777) % week_ms);
                let record = podium_tests::fixtures::record(
                    &format!("m-{i}"),
                    &format!("p-{w:06}"),
                    &format!("p-{l:06}"),
                    6 + ((h >> 20) % 18) as u32,
                    0,
                    300,
                    10 + ((h >> 30) % 60) as u32,
                    20,
                    at,
                );
                podium_service::games::seega::score_match(
                    store,
                    &record,
                    podium_tests::fixtures::now(),
                    &podium_rules::record::policy::RecordPolicy::default(),
                )
                .await
                .expect("scored");
            }
        })
        .buffer_unordered(32)
        .collect::<Vec<()>>()
        .await;
    println!(
        "settled {n} Seega matches of {players} players in {:.1}s",
        began.elapsed().as_secs_f64()
    );

    let def: Definition = serde_json::from_value(serde_json::json!({
        "id": "week-wins", "title": "Week wins", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "tie_breaks": [{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}],
        "schedule": {"kind": "window", "start": "2026-11-23T00:00:00Z", "end": "2026-11-30T00:00:00Z"},
        "prizes": [{"from": 1, "to": 1, "points": 1000, "jokers": 3}, {"from": 2, "to": 100, "points": 100}],
    }))
    .expect("a definition");
    let window = (start, start + Duration::days(7));
    let now = instant("2026-12-01T12:00:00Z");
    let total = Instant::now();
    for call in 1.. {
        let (reads0, writes0) = store.counts();
        let base = reset_peak();
        let began = Instant::now();
        let p = previews::run(
            &store,
            def.clone(),
            window,
            now,
            Budget::lasting(StdDuration::from_secs(5)),
            previews::PAGE,
        )
        .await
        .expect("a preview");
        let (reads, writes) = store.counts();
        println!(
            "call {call}: {:.2}s, peak heap +{} MB, {} reads, {} writes; {} results read, {} counted{}",
            began.elapsed().as_secs_f64(),
            peak_over(base),
            reads - reads0,
            writes - writes0,
            p.results_read,
            p.counted,
            if p.finished_at.is_some() { ", finished" } else { "" }
        );
        if p.finished_at.is_some() {
            let w = &p.periods[0];
            println!(
                "preview finished in {:.1}s: {} ranked, prizes {} points and {} Jokers; first {:?} {} wins",
                total.elapsed().as_secs_f64(),
                w.entries,
                w.prize_points,
                w.prize_jokers,
                w.top[0].player_id,
                w.top[0].value
            );
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
