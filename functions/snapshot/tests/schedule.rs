//! The snapshot function on the schedule's input, over the embedded store.

use podium_store::embedded::EmbeddedStore;
use snapshot::{handle, ScheduledRun};

fn event() -> ScheduledRun {
    let path = format!("{}/tests/events/scheduled-run.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("input")
}

/// LB-5: the scheduled time names the snapshot; a retried invocation of the same
/// schedule tick finds it complete and writes nothing.
#[tokio::test]
async fn a_retried_tick_writes_nothing() {
    let store = EmbeddedStore::in_memory().expect("store");
    let first = handle(&store, event()).await.expect("run");
    assert_eq!(first.snapshot, "20261130T020500Z");
    assert!(first.complete && !first.already_complete);
    let again = handle(&store, event()).await.expect("retry");
    assert!(again.already_complete);
    assert_eq!(again.pages_written, 0);
}
