//! The snapshot function on the schedules' inputs, over the embedded store.

use podium_rules::board::board_def;
use podium_service::boards::periods;
use podium_store::embedded::EmbeddedStore;
use snapshot::{handle, ScheduledRun};

fn event(name: &str) -> ScheduledRun {
    let path = format!("{}/tests/events/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("input")
}

/// LB-5: one refresh snapshot of every live board per scheduled time (named by the
/// instant and the store's number); a retried invocation of the same tick resumes
/// that refresh, finds it complete and writes nothing.
#[tokio::test]
async fn a_retried_refresh_tick_writes_nothing() {
    let store = EmbeddedStore::in_memory().expect("store");
    let first = handle(&store, event("scheduled-run.json"), &Default::default())
        .await
        .expect("run");
    // The first tick ever also freezes the (empty) periods of the last month (the
    // period catch-up): the refresh snapshots are the others.
    let refreshed: Vec<_> = first.runs.iter().filter(|r| r.snapshot != "final").collect();
    let boards: Vec<_> = refreshed
        .iter()
        .map(|r| (r.board.as_str(), r.period.as_str()))
        .collect();
    assert_eq!(
        boards,
        [
            ("seega", "all"),
            ("dots-and-boxes", "all"),
            ("minesweeper", "all"),
            ("mahjong-amr", "all"),
            ("mahjong-weekly", "2026-W49"),
            ("mahjong-daily", "2026-11-30")
        ]
    );
    let id = &refreshed[0].snapshot;
    assert!(id.starts_with("20261130T020500Z-"), "{id}");
    assert!(refreshed
        .iter()
        .all(|r| &r.snapshot == id && r.complete && !r.already_complete));
    assert!(first.runs.iter().all(|r| r.complete) && first.behind.is_empty());
    let again = handle(&store, event("scheduled-run.json"), &Default::default())
        .await
        .expect("retry");
    assert!(again
        .runs
        .iter()
        .all(|r| &r.snapshot == id && r.already_complete && r.pages_written == 0));
    assert!(
        again.runs.iter().all(|r| r.snapshot != "final"),
        "the periods were closed by the first: nothing to freeze"
    );
}

/// LB-5: the freeze tick just after Bucharest midnight freezes the ended week and day.
#[tokio::test]
async fn the_freeze_tick_freezes_ended_periods() {
    let store = EmbeddedStore::in_memory().expect("store");
    let weekly = board_def("mahjong-weekly").expect("board");
    let at = chrono::DateTime::parse_from_rfc3339("2027-01-02T12:00:00Z")
        .expect("instant")
        .to_utc();
    periods::credit(&store, weekly, "p1", 20, at, at, "bonus-1")
        .await
        .expect("credit");
    let runs = handle(&store, event("freeze.json"), &Default::default())
        .await
        .expect("freeze");
    let frozen: Vec<_> = runs
        .runs
        .iter()
        .filter(|r| r.pages_total > 0)
        .map(|r| {
            (
                r.board.as_str(),
                r.period.as_str(),
                r.snapshot.as_str(),
                r.complete,
            )
        })
        .collect();
    assert_eq!(frozen, [("mahjong-weekly", "2026-W53", "final", true)]);
    // Every ended period of the last month is frozen (the first tick's catch-up), the
    // week and the day that just ended among them; nothing is left behind.
    let has = |board: &str, period: &str| {
        runs.runs
            .iter()
            .any(|r| r.board == board && r.period == period && r.snapshot == "final" && r.complete)
    };
    assert!(has("mahjong-weekly", "2026-W53") && has("mahjong-daily", "2027-01-03"));
    assert!(runs.runs.iter().all(|r| r.snapshot == "final" && r.complete));
    assert!(runs.behind.is_empty(), "{:?}", runs.behind);
}
