//! Issue 44's cases at scale, through the scheduled ticks
//! ([`podium_service::jobs::handle_within`]) with a step budget that forces several
//! calls, one of them killed mid-step:
//!
//! 1. **Close** (below) first, at instants in November; then
//! 2. **Refresh.** A Seega board of N players refreshed by refresh ticks of N / 600
//!    pages each (about seven calls); the third is killed after it wrote a chunk and
//!    before it saved its progress. Checked: one snapshot id from the first call to
//!    the publication, every player listed once.
//! 1. **Close.** A Mahjong day of N players (the top half rewarded) frozen and closed
//!    by freeze ticks of N / 1,536 steps each (pages of the freeze, chunks of 256
//!    results of the close: about six close calls, fifteen freeze calls); the first close
//!    call after the freeze is killed after it sent a chunk and before it saved that it
//!    did. Checked: every player has their result, the day is closed.
//!
//! Each call prints its peak heap over what the process held before it (every
//! allocation counted, [`podium_tests::heap`]) and its store requests (reads: Get,
//! Query, one BatchGetItem per 100 keys; writes: Put, Delete, one transaction per
//! settlement, one BatchWriteItem per 25 items, [`podium_tests::counting`]).
//!
//!   cargo run --release -p podium-tests --example job_scale
//!
//! N is `PODIUM_JOB_SCALE_PLAYERS` (default 1,000,000) on the embedded store (a redb
//! file, its page cache bounded to 32 MB); with `PODIUM_TEST_DYNAMODB_ENDPOINT` set, on
//! DynamoDB Local instead (default 100,000).

use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use futures::stream::{self, StreamExt};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::Standing;
use podium_service::boards::close;
use podium_service::boards::snapshot::layout::{run_key, FINAL};
use podium_service::boards::snapshot::read;
use podium_service::budget::Budget;
use podium_service::jobs::{handle_within, Job, ScheduledRun, TickReport, TickSettings};
use podium_store::embedded::EmbeddedStore;
use podium_store::{ItemKey, ItemStore, SortKeyRange, Store};
use podium_tests::counting::Counted;
use podium_tests::faults::Faulty;
use podium_tests::heap::{peak_over, reset_peak};

#[global_allocator]
static ALLOCATOR: podium_tests::heap::Counting = podium_tests::heap::Counting;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The day's reward table: 5 points to the top half.
const DAILY_TABLE: &str = r#"{"mahjong-daily": {"bands": [{"top_percent": 50, "points": 5}]}}"#;

/// `players` standings reached during 25 November 2026 (UTC).
fn day_standings(players: u64) -> impl Iterator<Item = Standing> {
    let start = t("2026-11-25T00:00:00Z").timestamp_millis();
    podium_generate::synthetic::standings(players).map(move |mut s| {
        s.reached_at_ms = start + s.reached_at_ms % 70_000_000;
        s
    })
}

/// One tick through `store` (or, `killed`, through a store whose write of `key` fails
/// after `pass` writes); prints its line; the report, or `None` when killed.
#[allow(clippy::too_many_arguments)]
async fn tick<S: Store + Clone + 'static>(
    store: &Counted<S>,
    label: &str,
    job: Job,
    at: DateTime<Utc>,
    settings: &TickSettings,
    steps: u32,
    kill: Option<(ItemKey, u32)>,
) -> Option<TickReport> {
    let run = ScheduledRun {
        job,
        scheduled_time: at,
    };
    let base = reset_peak();
    let (r0, w0) = store.counts();
    let started = Instant::now();
    let report = match kill {
        Some((key, pass)) => {
            let faulty = Faulty::new(store.clone()).failing_item_write_after(key, pass);
            assert!(handle_within(&faulty, run, settings, Budget::steps(steps))
                .await
                .is_err());
            None
        }
        None => Some(
            handle_within(store, run, settings, Budget::steps(steps))
                .await
                .expect("tick"),
        ),
    };
    let (r1, w1) = store.counts();
    println!(
        "| {label} | {at} | {} | {:.1?} | {} MB | {} | {} |",
        if report.is_some() { "done" } else { "killed" },
        started.elapsed(),
        peak_over(base),
        r1 - r0,
        w1 - w0
    );
    report
}

async fn refresh_case<S: Store + Clone + 'static>(store: &Counted<S>, players: u64) {
    let seega = BoardRef::all_time("seega");
    let settings = TickSettings::default();
    let steps = u32::try_from(players / 600).unwrap_or(u32::MAX).max(1);
    let start = t("2026-12-01T10:00:00Z");
    println!("\nrefresh of {players} players, {steps} pages a call\n");
    println!(
        "| call | scheduled | outcome | wall | peak heap | reads | writes |\n|---|---|---|---|---|---|---|"
    );
    let first = tick(store, "refresh 1", Job::Refresh, start, &settings, steps, None)
        .await
        .expect("first");
    let id = first
        .runs
        .iter()
        .find(|r| r.board == "seega")
        .expect("seega")
        .snapshot
        .clone();
    let mut calls = 1;
    loop {
        let at = start + Duration::minutes(5 * calls);
        calls += 1;
        let kill = (calls == 3).then(|| (run_key(&seega, &id), 1));
        let Some(report) = tick(
            store,
            &format!("refresh {calls}"),
            Job::Refresh,
            at,
            &settings,
            steps,
            kill,
        )
        .await
        else {
            continue;
        };
        let run = report.runs.iter().find(|r| r.board == "seega").expect("seega");
        assert_eq!(run.snapshot, id, "the same refresh, resumed");
        if run.complete {
            break;
        }
        assert!(calls < 100, "never published");
    }
    let pointer = read::current_consistent(store, &seega)
        .await
        .expect("read")
        .expect("published");
    assert_eq!(pointer.id, id, "the snapshot begun is the one published");
    let pages = read::pages(store, &seega, &id, SortKeyRange::All, true, usize::MAX, true)
        .await
        .expect("pages");
    let listed: usize = pages.iter().map(|p| p.entries.len()).sum();
    assert_eq!(listed as u64, players, "every player listed once");
    println!(
        "\npublished {id} after {calls} calls (one killed), {} pages, {listed} entries",
        pages.len()
    );
}

async fn close_case<S: Store + Clone + 'static>(store: &Counted<S>, players: u64) {
    let day = BoardRef::new("mahjong-daily", "2026-11-25");
    let settings: TickSettings = podium_service::config::parse_period_rewards(DAILY_TABLE)
        .expect("table")
        .into();
    // Chunks of 256 results: about six close calls (and 2.5 times as many freeze calls).
    let steps = u32::try_from(players / 1_536).unwrap_or(u32::MAX).max(1);
    let progress = ItemKey::new(format!("CLOSE#{}", day.key()), "PROGRESS");
    let start = t("2026-11-25T22:05:00Z");
    println!("\nclose of a {players}-player day, {steps} steps a call\n");
    println!(
        "| call | scheduled | outcome | wall | peak heap | reads | writes |\n|---|---|---|---|---|---|---|"
    );
    let (mut calls, mut killed) = (0, false);
    loop {
        assert!(calls < 400, "the close never ends");
        let at = start + Duration::minutes(5 * calls);
        calls += 1;
        let frozen = close::is_frozen(store, &day).await.expect("read");
        let started = store.get_item(&progress, true).await.expect("read").is_some();
        let phase = if frozen { "close" } else { "freeze" };
        let kill = (frozen && started && !killed).then(|| (progress.clone(), 0));
        killed |= kill.is_some();
        let Some(report) = tick(
            store,
            &format!("{phase} {calls}"),
            Job::Freeze,
            at,
            &settings,
            steps,
            kill,
        )
        .await
        else {
            continue;
        };
        if report
            .closed
            .iter()
            .any(|c| c.board == "mahjong-daily" && c.period == "2026-11-25")
        {
            break;
        }
    }
    let listed: usize = read::pages(store, &day, FINAL, SortKeyRange::All, true, usize::MAX, true)
        .await
        .expect("pages")
        .iter()
        .map(|p| p.entries.len())
        .sum();
    assert_eq!(listed as u64, players, "every player in the final");
    let sent = stream::iter(day_standings(players))
        .map(|s| {
            let key = close::result_key(&day, &s.player_id);
            async move { store.inner.get_source(&key).await.expect("read").is_some() }
        })
        .buffer_unordered(64)
        .filter(|sent| std::future::ready(*sent))
        .count()
        .await;
    assert_eq!(sent as u64, players, "every result sent");
    println!("\nclosed after {calls} calls (one killed): {sent} results, each once (GM-3)");
}

#[tokio::main]
async fn main() {
    if std::env::var("PODIUM_TEST_DYNAMODB_ENDPOINT").is_ok() {
        let players = env("PODIUM_JOB_SCALE_PLAYERS", 100_000);
        let store = Counted::new(podium_tests::fixtures::dynamodb().await);
        let started = Instant::now();
        let seega: Vec<Standing> = podium_generate::synthetic::standings(players).collect();
        store
            .inner
            .load_balances(Game::Seega, &seega)
            .await
            .expect("load");
        let day: Vec<Standing> = day_standings(players).collect();
        let board = BoardRef::new("mahjong-daily", "2026-11-25");
        store.inner.load_entries(&board, &day).await.expect("load");
        println!(
            "DynamoDB Local: {players} players loaded twice in {:.1?}",
            started.elapsed()
        );
        close_case(&store, players).await;
        refresh_case(&store, players).await;
        return;
    }
    let players = env("PODIUM_JOB_SCALE_PLAYERS", 1_000_000);
    let dir = std::env::temp_dir().join(format!("podium-job-scale-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store =
        Counted::new(EmbeddedStore::open_with(&dir.join("store.redb"), Some(32 << 20)).expect("store"));
    let started = Instant::now();
    store
        .inner
        .load_balances(Game::Seega, podium_generate::synthetic::standings(players))
        .expect("load");
    store
        .inner
        .load_period_entries(
            &BoardRef::new("mahjong-daily", "2026-11-25"),
            day_standings(players),
        )
        .expect("load");
    println!(
        "embedded store: {players} players loaded twice in {:.1?}",
        started.elapsed()
    );
    close_case(&store, players).await;
    refresh_case(&store, players).await;
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
