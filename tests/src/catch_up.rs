//! The ticks' catch-up on both stores (LB-5, MJ-20; review round 3, faults 4 and 5):
//! however late a tick runs, every ended period of every period board is frozen once
//! and closed once (period results, league results, rewards), oldest first, a bounded
//! number a tick, resumed by the next; the rolling window takes off every day that
//! left it; ticks that run at once all succeed, and nothing is sent twice.

use chrono::{DateTime, Utc};
use futures::future::join_all;
use podium_rules::board::{board_def, BoardRef};
use podium_rules::game::Game;
use podium_service::api::{self, ApiContext, ApiResponse};
use podium_service::boards::periods;
use podium_service::boards::snapshot;
use podium_service::boards::snapshot::layout::FINAL;
use podium_service::config::parse_period_rewards;
use podium_service::jobs::{handle, Job, ScheduledRun, TickReport, TickSettings, PERIODS_PER_TICK};
use podium_store::Store;
use serde_json::Value;

use crate::contract::cursor_key;
use crate::review::get;

const TABLES: &str = r#"{
    "mahjong-weekly": {"bands": [{"ranks": [1, 1], "points": 100}]},
    "mahjong-daily": {"bands": [{"ranks": [1, 1], "points": 30}]}}"#;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

fn settings() -> TickSettings {
    parse_period_rewards(TABLES).expect("tables").into()
}

async fn tick<S: Store>(store: &S, job: Job, at: &str) -> Result<TickReport, podium_service::ServiceError> {
    let run = ScheduledRun {
        job,
        scheduled_time: t(at),
    };
    handle(store, run, &settings()).await
}

/// `points` for `player` on every Mahjong period board (AMR, week, day), earned at
/// `at` and settled then: what a Quick Match win credits (MJ-20, MJ-21).
async fn earn<S: Store>(store: &S, player: &str, points: i64, at: &str) {
    periods::credit_all(
        store,
        Game::MahjongRivals,
        player,
        points,
        t(at),
        t(at),
        &format!("e-{player}-{at}"),
    )
    .await
    .expect("credit");
}

async fn call<S: Store + Clone + 'static>(
    store: &S,
    path: &str,
    query: &[(&str, &str)],
    player: &str,
    now: &str,
) -> ApiResponse {
    api::handle(
        store,
        &ApiContext::new(cursor_key()),
        &get(path, query, player),
        t(now),
    )
    .await
}

/// The ids of `player`'s inbox messages.
async fn inbox<S: Store + Clone + 'static>(store: &S, player: &str, now: &str) -> Vec<String> {
    let answer = call(store, "/v1/me/inbox", &[], player, now).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["id"].as_str().unwrap_or("").to_string())
        .collect()
}

async fn frozen<S: Store>(store: &S, board: &str, period: &str) -> bool {
    snapshot::read::run_state(store, &BoardRef::new(board, period), FINAL)
        .await
        .expect("read")
        .is_some_and(|r| r.complete)
}

/// The last period of `board` the catch-up recorded as frozen and closed.
async fn closed_through<S: Store>(store: &S, board: &str) -> Option<String> {
    let def = board_def(board).expect("registered");
    periods::closed_through(store, def)
        .await
        .expect("read")
        .0
        .map(|p| p.id)
}

/// Two players earn on Wednesday 2 December 2026 (week 2026-W49), after a tick on time.
async fn seed<S: Store>(store: &S) {
    tick(store, Job::Refresh, "2026-12-02T10:05:00Z")
        .await
        .expect("the tick on time");
    earn(store, "lt-1", 40, "2026-12-02T10:00:00Z").await;
    earn(store, "lt-2", 15, "2026-12-02T11:00:00Z").await;
}

/// LB-5 (fault 4): the next tick runs 15 days late (the schedule was off): it freezes
/// and closes every week and day it missed, oldest first, not only the last: W49's
/// board reads `final`, lt-1 gets W49's and 2 December's results and rewards and its
/// league result, each once however often the ticks run again.
pub async fn lb_5_a_tick_15_days_late_closes_every_missed_period<S: Store + Clone + 'static>(store: S) {
    seed(&store).await;
    let late = "2026-12-17T10:00:00Z";
    let report = tick(&store, Job::Refresh, late).await.expect("the late tick");
    assert!(report.behind.is_empty(), "{:?}", report.behind);
    for week in ["2026-W49", "2026-W50"] {
        assert!(frozen(&store, "mahjong-weekly", week).await, "{week}");
    }
    for day in 2..=16 {
        let day = format!("2026-12-{day:02}");
        assert!(frozen(&store, "mahjong-daily", &day).await, "{day}");
    }
    assert!(
        !frozen(&store, "mahjong-daily", "2026-12-17").await,
        "today is not over"
    );
    assert_eq!(
        closed_through(&store, "mahjong-weekly").await.as_deref(),
        Some("2026-W50")
    );
    assert_eq!(
        closed_through(&store, "mahjong-daily").await.as_deref(),
        Some("2026-12-16")
    );
    let page = call(
        &store,
        "/v1/leaderboards/mahjong-weekly",
        &[("period", "2026-W49")],
        "lt-2",
        late,
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(page.body["snapshot"], "final", "{}", page.body);
    assert_eq!(page.body["entries"][0]["player_id"], "lt-1");
    let expected = [
        "pr:mahjong-weekly:2026-W49",
        "pr:mahjong-daily:2026-12-02",
        "lr:mahjong-league:2026-W49",
    ];
    for again in [late, "2026-12-17T10:05:00Z", "2026-12-18T22:01:00Z"] {
        tick(&store, Job::Refresh, again).await.expect("a later tick");
        let mut got = inbox(&store, "lt-1", again).await;
        got.sort();
        let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "each result once (after the tick at {again})");
    }
    let claimed = call(&store, "/v1/me/inbox", &[], "lt-1", late).await;
    let rewards: Vec<i64> = claimed.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["reward"]["points"].as_i64())
        .collect();
    assert_eq!(rewards.iter().sum::<i64>(), 130, "W49's 100 and 2 December's 30");
}

/// `player`'s points on the AMR board (MJ-20), 0 without an entry.
async fn amr_points<S: Store>(store: &S, player: &str) -> i64 {
    store
        .period_entry(&BoardRef::all_time("mahjong-amr"), player)
        .await
        .expect("read")
        .map_or(0, |e| e.points)
}

/// Ticks at `late` until none is behind: each does at most [`PERIODS_PER_TICK`]
/// periods of a board; returns how many ticks it took. Then every day and week up to
/// the one before `late` is closed, the listed periods are frozen, lt-1's results were
/// each sent once, and one more tick has nothing left to freeze.
async fn catch_up_in_bounded_ticks<S: Store + Clone + 'static>(
    store: &S,
    late: &str,
    frozen_periods: &[(&str, &str)],
) -> usize {
    let mut ticks = 0;
    loop {
        let report = tick(store, Job::Freeze, late).await.expect("a catch-up tick");
        ticks += 1;
        for board in ["mahjong-weekly", "mahjong-daily"] {
            let done = report
                .runs
                .iter()
                .filter(|r| r.board == board && r.snapshot == FINAL)
                .count();
            assert!(done <= PERIODS_PER_TICK, "{board}: {done} periods in one tick");
        }
        if report.behind.is_empty() {
            break;
        }
        assert!(ticks < 30, "the catch-up ends: {:?}", report.behind);
    }
    let def = board_def("mahjong-daily").expect("registered");
    let last_day = def.period_at(t(late)).previous().id;
    assert_eq!(closed_through(store, "mahjong-daily").await, Some(last_day));
    let weekly = board_def("mahjong-weekly").expect("registered");
    let last_week = weekly.period_at(t(late)).previous().id;
    assert_eq!(closed_through(store, "mahjong-weekly").await, Some(last_week));
    for (board, period) in frozen_periods {
        assert!(frozen(store, board, period).await, "{board}@{period}");
    }
    let mut got = inbox(store, "lt-1", late).await;
    got.sort();
    assert_eq!(
        got,
        [
            "lr:mahjong-league:2026-W49",
            "pr:mahjong-daily:2026-12-02",
            "pr:mahjong-weekly:2026-W49"
        ]
    );
    // Nothing is left, and nothing happens twice.
    let again = tick(store, Job::Refresh, late).await.expect("again");
    assert!(again.behind.is_empty());
    assert!(
        again.runs.iter().all(|r| r.snapshot != FINAL),
        "nothing left to freeze"
    );
    ticks
}

/// LB-5, MJ-20 (fault 4): a tick 400 days late does at most [`PERIODS_PER_TICK`]
/// periods of a board, says it is behind, and the ticks after it finish the rest
/// (bounded work, resumable): every day and week from 2 December 2026 on is frozen and
/// closed in order, the AMR window has taken off the days that left it (lt-1's points
/// of 2 December 2026 among them), and every result was sent once. (About 30,000
/// DynamoDB requests: on DynamoDB Local the same property is held by the 70-day case.)
pub async fn lb_5_a_tick_400_days_late_catches_up_in_bounded_ticks<S: Store + Clone + 'static>(store: S) {
    seed(&store).await;
    let ticks = catch_up_in_bounded_ticks(
        &store,
        "2028-01-06T10:00:00Z",
        &[
            ("mahjong-daily", "2026-12-02"),
            ("mahjong-daily", "2027-06-15"),
            ("mahjong-daily", "2028-01-05"),
            ("mahjong-weekly", "2026-W49"),
            ("mahjong-weekly", "2027-W30"),
            ("mahjong-weekly", "2027-W52"),
        ],
    )
    .await;
    assert!(ticks >= 13, "400 days are 13 ticks' work at least: {ticks}");
    let amr = amr_points(&store, "lt-1").await;
    assert_eq!(amr, 0, "2 December 2026 left the AMR window (MJ-20)");
}

/// LB-5 (fault 4): a tick 70 days late needs three ticks of at most
/// [`PERIODS_PER_TICK`] periods a board, each resuming where the one before stopped;
/// every missed day and week is frozen and closed once, and lt-1's points of
/// 2 December 2026 are still inside the AMR window (MJ-20).
pub async fn lb_5_a_tick_70_days_late_catches_up_in_bounded_ticks<S: Store + Clone + 'static>(store: S) {
    seed(&store).await;
    let ticks = catch_up_in_bounded_ticks(
        &store,
        "2027-02-10T10:00:00Z",
        &[
            ("mahjong-daily", "2026-12-02"),
            ("mahjong-daily", "2027-01-15"),
            ("mahjong-daily", "2027-02-09"),
            ("mahjong-weekly", "2026-W49"),
            ("mahjong-weekly", "2027-W02"),
            ("mahjong-weekly", "2027-W05"),
        ],
    )
    .await;
    assert!(ticks >= 3, "70 days are 3 ticks' work at least: {ticks}");
    let amr = amr_points(&store, "lt-1").await;
    assert!(amr > 0, "2 December 2026 is still inside the AMR window (MJ-20)");
}

/// LB-5 (fault 5): three refresh ticks of one schedule at once, then three catch-up
/// ticks at once over a week missed: every one succeeds (one finds another at work
/// and leaves the work to it), and each result is sent once.
pub async fn lb_5_ticks_at_once_all_succeed<S: Store + Clone + 'static>(store: S) {
    seed(&store).await;
    for (job, at) in [
        (Job::Refresh, "2026-12-02T10:10:00Z"),
        (Job::Freeze, "2026-12-09T10:00:00Z"),
    ] {
        let ticks = join_all((0..3).map(|_| {
            let store = store.clone();
            async move { tick(&store, job, at).await }
        }))
        .await;
        for outcome in ticks {
            if let Err(e) = outcome {
                panic!("a tick that meets another one succeeds ({job:?} at {at}): {e}");
            }
        }
    }
    // Whatever the concurrent ticks left to each other is done by the next one.
    let next = tick(&store, Job::Refresh, "2026-12-09T10:05:00Z")
        .await
        .expect("next");
    assert!(next.behind.is_empty(), "{:?}", next.behind);
    assert_eq!(
        closed_through(&store, "mahjong-weekly").await.as_deref(),
        Some("2026-W49")
    );
    assert_eq!(
        closed_through(&store, "mahjong-daily").await.as_deref(),
        Some("2026-12-08")
    );
    let mut got = inbox(&store, "lt-1", "2026-12-09T10:05:00Z").await;
    got.sort();
    assert_eq!(
        got,
        [
            "lr:mahjong-league:2026-W49",
            "pr:mahjong-daily:2026-12-02",
            "pr:mahjong-weekly:2026-W49"
        ]
    );
    let body: Value = call(
        &store,
        "/v1/leaderboards/mahjong-daily",
        &[("period", "2026-12-02")],
        "lt-1",
        "2026-12-09T10:05:00Z",
    )
    .await
    .body;
    assert_eq!(body["snapshot"], "final", "{body}");
}

#[macro_export]
macro_rules! catch_up_tests {
    // Both stores; the 400-day case (about 30,000 requests) on the embedded store
    // only, its property (bounded, resumable) held on DynamoDB Local by the 70-day one.
    ($make:path) => {
        $crate::catch_up_tests!(@cases $make;
            lb_5_a_tick_15_days_late_closes_every_missed_period,
            lb_5_a_tick_70_days_late_catches_up_in_bounded_ticks,
            lb_5_ticks_at_once_all_succeed,
        );
    };
    ($make:path, with_400_days) => {
        $crate::catch_up_tests!($make);
        $crate::catch_up_tests!(@cases $make;
            lb_5_a_tick_400_days_late_catches_up_in_bounded_ticks,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::catch_up::$case($make().await).await;
            }
        )*
    };
}
