//! Snapshot publication: every refresh has its own identity, and a run is complete only once its pointer is published (LB-5).
//!
//! A refresh is named by its instant and a number the store issues
//! ([`podium_service::jobs::identity`]): a new request at an instant an earlier refresh
//! ran at is a new snapshot, published over the earlier one; only a retry of the same
//! scheduled tick resumes the earlier refresh. A run publishes its pointers before it
//! records itself complete ([`podium_service::boards::snapshot::write::run_sequenced`]):
//! a publication that fails once (injected with [`crate::faults::Faulty`]) leaves the
//! run incomplete, the next call publishes it, and a frozen period is one whose
//! `final` pointer is published ([`podium_service::boards::close::is_frozen`]), which
//! is what the close and the next period read.

use chrono::{DateTime, Duration, Utc};
use podium_rules::board::{board_def, BoardRef};
use podium_rules::record::policy::RecordPolicy;
use podium_service::boards::close;
use podium_service::boards::periods;
use podium_service::boards::snapshot::layout::{current_key, run_key, RunReport, RunState, FINAL};
use podium_service::boards::snapshot::{read, write};
use podium_service::config::parse_period_rewards;
use podium_service::jobs::{handle, handle_request, Job, ScheduledRun, TickReport, TickSettings};
use podium_service::moderation::suspensions::{restore, suspend};
use podium_store::Store;

use crate::deletion::t;
use crate::faults::Faulty;
use crate::fixtures::{now, seed_balance};

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! publication_tests {
    ($make:path) => {
        $crate::publication_tests!(@cases $make;
            lb5_refreshes_at_one_instant_after_a_restore_publish_the_restored_player,
            lb5_a_retried_scheduled_tick_resumes_its_refresh_and_a_new_request_takes_another,
            lb5_a_final_whose_publication_fails_once_is_published_and_closed_by_the_next_tick,
            lb5_a_run_is_never_complete_while_its_pointer_lags,
            lb5_a_final_recorded_complete_before_its_pointer_is_published_by_the_operator_close,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::publication::$case($make().await).await;
            }
        )*
    };
}

/// Five Seega players, erin on top (1,400) down to alice (1,000).
async fn seed_seega<S: Store + ?Sized>(store: &S) {
    for (i, p) in ["alice", "bob", "carol", "dave", "erin"].iter().enumerate() {
        seed_balance(store, p, 1_000 + 100 * i as i64, 1_000).await;
    }
}

/// The refresh tick at `at` as a new request (`podium snapshot`, a test clock's move).
async fn requested_refresh<S: Store + ?Sized>(store: &S, at: DateTime<Utc>) -> TickReport {
    let run = ScheduledRun {
        job: Job::Refresh,
        scheduled_time: at,
    };
    handle_request(store, run, &TickSettings::default())
        .await
        .expect("refresh")
}

/// The snapshot id `report` refreshed `seega` under (complete).
fn seega_run(report: &TickReport) -> String {
    let run = report
        .runs
        .iter()
        .find(|r| r.board == "seega")
        .expect("seega refreshed");
    assert!(run.complete, "{run:?}");
    run.snapshot.clone()
}

/// The players `board`'s current pointer lists on its first page, and its id.
async fn listed<S: Store + ?Sized>(store: &S, board: &BoardRef) -> (String, Vec<String>) {
    let p = read::current_consistent(store, board)
        .await
        .expect("read")
        .expect("a pointer");
    let ids = p
        .first_page
        .as_ref()
        .map(|page| page.entries.iter().map(|e| e.player_id.clone()).collect())
        .unwrap_or_default();
    (p.id, ids)
}

/// LB-5, OP-4: a test clock that stands still: refresh, suspend the top player,
/// refresh, restore them, refresh, all at one instant. Each refresh is a snapshot of
/// its own, and the last one, published over the one taken during the suspension,
/// lists the restored player again (with a whole-second id the last refresh found the
/// suspension's snapshot "already complete" and the player stayed off the board).
pub async fn lb5_refreshes_at_one_instant_after_a_restore_publish_the_restored_player<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    seed_seega(&store).await;
    let board = BoardRef::all_time("seega");
    let at = now();
    let first = seega_run(&requested_refresh(&store, at).await);
    assert_eq!(listed(&store, &board).await.1[0], "erin");
    suspend(&store, "erin", ("support-1", "a modified client"), 30, at)
        .await
        .expect("suspended");
    let during = seega_run(&requested_refresh(&store, at).await);
    let (current, ids) = listed(&store, &board).await;
    assert_eq!(current, during);
    assert!(
        !ids.contains(&"erin".to_string()),
        "left out while suspended: {ids:?}"
    );
    restore(
        &store,
        "erin",
        ("support-1", "the report was wrong"),
        at,
        &RecordPolicy::default(),
    )
    .await
    .expect("restored");
    let after = seega_run(&requested_refresh(&store, at).await);
    assert!(
        first != during && during != after && first != after,
        "{first} {during} {after}"
    );
    let (current, ids) = listed(&store, &board).await;
    assert_eq!(current, after, "the later refresh of one instant is published");
    assert_eq!(ids, ["erin", "dave", "carol", "bob", "alice"]);
}

/// LB-5: a retried invocation of one scheduled time resumes that tick's refresh (the
/// same snapshot, found complete, nothing written); a new request at the same instant
/// is a refresh of its own, and it is published.
pub async fn lb5_a_retried_scheduled_tick_resumes_its_refresh_and_a_new_request_takes_another<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    seed_seega(&store).await;
    let board = BoardRef::all_time("seega");
    let run = ScheduledRun {
        job: Job::Refresh,
        scheduled_time: now(),
    };
    let scheduled = handle(&store, run.clone(), &TickSettings::default())
        .await
        .expect("tick");
    let id = seega_run(&scheduled);
    let retried = handle(&store, run.clone(), &TickSettings::default())
        .await
        .expect("retry");
    assert!(
        retried
            .runs
            .iter()
            .filter(|r| r.snapshot != FINAL)
            .all(|r| r.snapshot == id && r.already_complete && r.pages_written == 0),
        "{:?}",
        retried.runs
    );
    seed_balance(&store, "alice", 2_000, 2_000).await;
    let requested = seega_run(&requested_refresh(&store, now()).await);
    assert_ne!(requested, id);
    let (current, ids) = listed(&store, &board).await;
    assert_eq!(current, requested);
    assert_eq!(ids[0], "alice", "the board as the request read it: {ids:?}");
}

/// Week 2026-W48 of `mahjong-weekly`, which [`crate::period_close::seed_week`] fills.
fn week() -> BoardRef {
    BoardRef::new("mahjong-weekly", "2026-W48")
}

/// The freeze tick just after week 48 ended, with the week's reward table.
async fn freeze_tick<S: Store + ?Sized>(store: &S) -> Result<TickReport, podium_service::ServiceError> {
    let settings: TickSettings = parse_period_rewards(crate::period_close::TABLES)
        .expect("tables")
        .into();
    let run = ScheduledRun {
        job: Job::Freeze,
        scheduled_time: t("2026-11-29T22:05:00Z"),
    };
    handle(store, run, &settings).await
}

/// Whether m00, first in week 48, was sent their `period_result`.
async fn result_sent<S: Store + ?Sized>(store: &S) -> bool {
    store
        .get_source(&close::result_key(&week(), "m00"))
        .await
        .expect("read")
        .is_some()
}

/// The last period of `mahjong-weekly` recorded closed.
async fn closed_through<S: Store + ?Sized>(store: &S) -> Option<String> {
    let def = board_def("mahjong-weekly").expect("registered");
    periods::closed_through(store, def)
        .await
        .expect("read")
        .0
        .map(|p| p.id)
}

/// Asserts week 48 is not frozen: its final run not complete (or recorded complete
/// by `legacy`), its pointer not the final, nothing sent, the week not recorded closed.
async fn assert_not_frozen<S: Store + ?Sized>(store: &S, legacy: bool) {
    let state = read::run_state(store, &week(), FINAL)
        .await
        .expect("read")
        .expect("the freeze started");
    assert_eq!(state.complete, legacy, "{state:?}");
    assert!(!close::is_frozen(store, &week()).await.expect("read"));
    assert!(
        !result_sent(store).await,
        "no result paid from an unpublished final"
    );
    assert_ne!(closed_through(store).await.as_deref(), Some("2026-W48"));
}

/// Asserts week 48 is frozen and closed: its pointer is the final, its run complete,
/// m00's result sent, the week recorded closed.
async fn assert_frozen_and_closed<S: Store + ?Sized>(store: &S) {
    let p = read::current_consistent(store, &week())
        .await
        .expect("read")
        .expect("a pointer");
    assert_eq!((p.id.as_str(), p.entries), (FINAL, 30));
    assert!(close::is_frozen(store, &week()).await.expect("read"));
    let state = read::run_state(store, &week(), FINAL)
        .await
        .expect("read")
        .expect("run");
    assert!(state.complete);
    assert!(result_sent(store).await);
}

/// LB-5: the freeze of week 48 whose pointer write fails once (a transient store
/// error) fails the tick without recording anything it did not do: the final run is
/// not complete, the period not frozen, no result sent, the week not closed. The
/// next tick publishes the final without reading the board again, then closes the
/// week from it; the next week's refresh compares with that final.
pub async fn lb5_a_final_whose_publication_fails_once_is_published_and_closed_by_the_next_tick<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    crate::period_close::seed_week(&store).await;
    let faulty = Faulty::new(store.clone()).failing_item_write(current_key(&week()), 1);
    assert!(freeze_tick(&faulty).await.is_err(), "the publication failed");
    assert_not_frozen(&store, false).await;
    let next = freeze_tick(&store).await.expect("the next tick");
    let frozen = next
        .runs
        .iter()
        .find(|r| r.board == "mahjong-weekly" && r.period == "2026-W48")
        .expect("week 48 frozen by the next tick");
    assert!(
        frozen.complete && !frozen.already_complete && frozen.pages_written == 0,
        "{frozen:?}"
    );
    assert_frozen_and_closed(&store).await;
    assert_eq!(closed_through(&store).await.as_deref(), Some("2026-W48"));
    // PF-5: the next week's snapshot compares with the published final.
    requested_refresh(&store, t("2026-11-30T10:00:00Z")).await;
    let w49 = read::current_consistent(&store, &BoardRef::new("mahjong-weekly", "2026-W49"))
        .await
        .expect("read")
        .expect("week 49 refreshed");
    assert_eq!(w49.last_final.as_deref(), Some("2026-W48"));
}

/// Marks run `id` of `board` complete without publishing it, as versions that
/// recorded completion first left a run whose publication then failed.
async fn record_complete<S: Store + ?Sized>(store: &S, board: &BoardRef, id: &str) {
    let key = run_key(board, id);
    let item = store.get_item(&key, true).await.expect("read").expect("run");
    let mut state: RunState = serde_json::from_slice(&item.body).expect("run state");
    state.complete = true;
    state.lease = None;
    let body = serde_json::to_vec(&state).expect("encode");
    assert!(store.put_item_if(&key, &body, item.version).await.expect("write"));
}

/// Snapshot `id` of the Seega board, `minutes` after the tests' clock.
async fn seega_snapshot<S: Store + ?Sized>(
    store: &S,
    id: &str,
    minutes: i64,
) -> Result<RunReport, podium_service::ServiceError> {
    let at = now() + Duration::minutes(minutes);
    write::run(store, &BoardRef::all_time("seega"), id, at, 100, None, at).await
}

/// LB-5: a refresh whose pointer write fails once is not complete (its lease given
/// up), and the next call of the same run publishes it at once and only then records
/// it complete, listing nothing again. A run found complete while its pointer lags
/// (recorded so before its publication) is published by the next call.
pub async fn lb5_a_run_is_never_complete_while_its_pointer_lags<S: Store + Clone + 'static>(store: S) {
    seed_seega(&store).await;
    let board = BoardRef::all_time("seega");
    let failing_once = || Faulty::new(store.clone()).failing_item_write(current_key(&board), 1);
    let state_of = |id: &'static str| {
        let (store, board) = (store.clone(), board.clone());
        async move {
            read::run_state(&store, &board, id)
                .await
                .expect("read")
                .expect("run")
        }
    };
    assert!(seega_snapshot(&store, "first", 0).await.expect("run").complete);
    assert!(
        seega_snapshot(&failing_once(), "second", 5).await.is_err(),
        "the publication failed"
    );
    let state = state_of("second").await;
    assert!(!state.complete && state.lease.is_none(), "{state:?}");
    assert_eq!(listed(&store, &board).await.0, "first");
    let resumed = seega_snapshot(&store, "second", 5).await.expect("resumed");
    assert!(
        resumed.complete && !resumed.already_complete && resumed.pages_written == 0,
        "{resumed:?}"
    );
    assert_eq!(listed(&store, &board).await.0, "second");
    assert!(state_of("second").await.complete);

    // Recorded complete before its publication: published by the next call.
    assert!(seega_snapshot(&failing_once(), "third", 10).await.is_err());
    record_complete(&store, &board, "third").await;
    assert_eq!(listed(&store, &board).await.0, "second");
    let again = seega_snapshot(&store, "third", 10).await.expect("called again");
    assert!(again.complete && again.already_complete, "{again:?}");
    assert_eq!(
        listed(&store, &board).await,
        (
            "third".to_string(),
            vec![
                "erin".to_string(),
                "dave".to_string(),
                "carol".to_string(),
                "bob".to_string(),
                "alice".to_string()
            ]
        )
    );
}

/// LB-5, OP-5: a final recorded complete before its pointer was published (as older
/// versions recorded it) is not frozen: the operator's close publishes it, then sends
/// the week's results from it.
pub async fn lb5_a_final_recorded_complete_before_its_pointer_is_published_by_the_operator_close<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    crate::period_close::seed_week(&store).await;
    let faulty = Faulty::new(store.clone()).failing_item_write(current_key(&week()), 1);
    assert!(freeze_tick(&faulty).await.is_err(), "the publication failed");
    record_complete(&store, &week(), FINAL).await;
    assert_not_frozen(&store, true).await;
    let tables = parse_period_rewards(crate::period_close::TABLES).expect("tables");
    let op = podium_service::operators::periods::close_period(
        &store,
        ("mahjong-weekly", "2026-W48"),
        false,
        &tables,
        ("support-1", "the week's results were never sent"),
        t("2026-11-30T09:00:00Z"),
    )
    .await
    .expect("closed");
    assert!(!op.was_frozen, "{op:?}");
    assert_eq!((op.ranked, op.sent), (30, 30), "{op:?}");
    assert_frozen_and_closed(&store).await;
}
