//! Jobs that finish at any size (LB-5): every tick works within a budget
//! ([`podium_service::budget::Budget`]: a deadline, or for these tests a number of
//! steps), saves its progress before it stops, and the next tick resumes the same
//! work: a refresh under the same snapshot id and `as_of`
//! ([`podium_service::jobs::open_runs`]), a freeze under `final`, a close from its
//! saved progress. A call killed mid-step (a save that never happens) loses nothing
//! and sends nothing twice, and a board too large for one call never keeps a small
//! one from being refreshed at every tick.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};
use podium_rules::board::{board_def, BoardRef};
use podium_rules::game::Game;
use podium_service::boards::close;
use podium_service::boards::periods;
use podium_service::boards::snapshot::layout::{run_key, FINAL};
use podium_service::boards::snapshot::read;
use podium_service::budget::Budget;
use podium_service::config::parse_period_rewards;
use podium_service::jobs::{handle_within, open_runs, Job, ScheduledRun, TickReport, TickSettings};
use podium_store::{ItemKey, SortKeyRange, Store};

use crate::faults::Faulty;
use crate::fixtures::{seed_balance, seed_game_balance};

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! job_steps_tests {
    ($make:path) => {
        $crate::job_steps_tests!(@cases $make;
            lb_5_a_refresh_larger_than_a_call_is_resumed_to_its_end_and_starves_no_board,
            lb_5_a_close_larger_than_a_call_sends_every_result_once_across_calls,
            lb_5_a_call_out_of_time_still_takes_a_step_and_the_next_goes_on,
            lb_5_no_player_blocks_a_close_a_full_inbox_is_paid_and_a_refused_result_recorded,
            op_5_an_operator_close_is_accepted_at_once_and_the_ticks_finish_it,
            lb_5_a_refresh_under_way_of_an_ended_period_is_forgotten,
            op_4_a_suspension_of_a_player_on_400_boards_is_accepted_at_once_and_the_ticks_finish_it,
            lb_5_a_small_board_is_refreshed_at_every_tick_while_a_large_day_closes,
            mj_20_the_window_takes_a_large_day_off_in_steps_each_player_once,
            op_5_a_dry_run_larger_than_a_request_is_carried_on_and_joined,
            gm_6_a_deletion_whose_request_failed_mid_step_is_finished_by_the_ticks,
            op_4_a_tick_never_begins_a_suspension_a_restore_lifted,
            lb_5_a_retry_of_the_same_tick_after_a_kill_at_its_deadline_resumes_the_run,
            lb_5_a_board_whose_refresh_fails_stops_no_other_board,
            lb_5_a_tick_with_nothing_due_costs_eight_reads,
            op_4_concurrent_suspensions_are_finished_by_the_ticks_whichever_wrote_the_guard,
            op_4_requests_sent_at_once_on_one_player_join_instead_of_answering_503,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::job_steps::$case($make().await).await;
            }
        )*
    };
}

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

/// The scheduled tick `job` at `at` within `budget`.
async fn tick<S: Store + ?Sized>(
    store: &S,
    job: Job,
    at: DateTime<Utc>,
    settings: &TickSettings,
    budget: Budget,
) -> Result<TickReport, podium_service::ServiceError> {
    let run = ScheduledRun {
        job,
        scheduled_time: at,
    };
    handle_within(store, run, settings, budget).await
}

/// The run of `board` a tick report holds.
fn run_of<'a>(report: &'a TickReport, board: &str) -> Option<&'a podium_service::jobs::BoardRun> {
    report.runs.iter().find(|r| r.board == board)
}

/// How many entries snapshot `id` of `board` lists, page by page.
async fn listed<S: Store + ?Sized>(store: &S, board: &BoardRef, id: &str) -> usize {
    read::pages(store, board, id, SortKeyRange::All, true, usize::MAX, true)
        .await
        .expect("pages")
        .iter()
        .map(|p| p.entries.len())
        .sum()
}

/// How many audit entries the trail holds under `filter` (`player`, `board`, …) at `at`.
async fn audit_count<S: Store + Clone + 'static>(
    store: &S,
    filter: (&str, &str),
    at: DateTime<Utc>,
) -> usize {
    audit_actions(store, filter, at).await.len()
}

/// `player` credited 5 points on each of `days` daily Mahjong boards from 2026-10-01
/// (one board each, source ids `{prefix}-{day}`).
async fn on_daily_boards<S: Store + ?Sized>(store: &S, player: &str, days: i64, prefix: &str) {
    let daily = board_def("mahjong-daily").expect("registered");
    let first_day = t("2026-10-01T12:00:00Z");
    for d in 0..days {
        let at = first_day + Duration::days(d);
        periods::credit(store, daily, player, 5, at, at, &format!("{prefix}-{d}"))
            .await
            .expect("credit");
    }
}

/// Freeze ticks every 5 minutes after `at`, 5 steps each, until no action on a player
/// is under way (at most 20).
async fn ticks_until_no_player_action<S: Store + Clone + 'static>(store: &S, at: DateTime<Utc>) {
    let settings = TickSettings::default();
    for n in 0..20 {
        if jobs_status(store).await["player_actions"]
            .as_array()
            .is_some_and(Vec::is_empty)
        {
            break;
        }
        tick(
            store,
            Job::Freeze,
            at + Duration::minutes(5 * (n + 1)),
            &settings,
            Budget::steps(5),
        )
        .await
        .expect("tick");
    }
}

/// 250 Seega players (ids `{prefix}000` …) and a refresh tick at 2026-12-01T10:00Z
/// that lists one page and stops: the Seega board, that instant, the refresh's
/// snapshot id (under way).
async fn seega_refresh_begun<S: Store + ?Sized>(
    store: &S,
    prefix: &str,
) -> (BoardRef, DateTime<Utc>, String) {
    for i in 0..250 {
        seed_balance(store, &format!("{prefix}{i:03}"), 60_000 - i as i64, 1_000).await;
    }
    let at = t("2026-12-01T10:00:00Z");
    let first = tick(
        store,
        Job::Refresh,
        at,
        &TickSettings::default(),
        Budget::steps(1),
    )
    .await
    .expect("tick");
    let id = run_of(&first, "seega").expect("seega").snapshot.clone();
    (BoardRef::all_time("seega"), at, id)
}

/// The actions of the audit trail `filter` (`(trail, id)`), newest first.
async fn audit_actions<S: Store + Clone + 'static>(
    store: &S,
    filter: (&str, &str),
    at: DateTime<Utc>,
) -> Vec<String> {
    let trail = crate::moderation::operator_call(
        store,
        "GET",
        "/v1/operator/audit",
        &[filter],
        Some("support-9"),
        None,
        at,
    )
    .await;
    assert_eq!(trail.status, 200, "{}", trail.body);
    trail.body["entries"]
        .as_array()
        .map(|e| {
            e.iter()
                .filter_map(|e| e["action"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// An operator's (`support-7`) `POST` of `body` to `path` at `at` through the HTTP
/// routes, with `tables`' rewards, working at most `steps` steps before it answers.
async fn operator_post<S: Store + Clone + 'static>(
    store: &S,
    tables: &podium_rules::period_reward::RewardTables,
    steps: u32,
    path: &str,
    body: serde_json::Value,
    at: DateTime<Utc>,
) -> podium_service::api::ApiResponse {
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key())
        .with_rewards(tables.clone())
        .with_operator_steps(podium_service::budget::StepLimit {
            time: std::time::Duration::from_secs(30),
            steps: Some(steps),
        });
    crate::moderation::operator_call_in(&ctx, store, "POST", path, &[], Some("support-7"), Some(&body), at)
        .await
}

/// The jobs' status, as operators read it (`GET /v1/operator/jobs`).
async fn jobs_status<S: Store + Clone + 'static>(store: &S) -> serde_json::Value {
    let shown = crate::overtaken::call(store, crate::review::operator_get("/v1/operator/jobs", &[])).await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    shown.body
}

/// Credits 25 November 2026 on `mahjong-daily` to `players`: `top` points to the
/// first, one fewer to each next.
async fn credit_day<S: Store>(store: &S, players: &[String], top: i64) {
    let daily = board_def("mahjong-daily").expect("registered");
    let at = t("2026-11-25T12:00:00Z");
    for (i, p) in players.iter().enumerate() {
        periods::credit(store, daily, p, top - i as i64, at, at, &format!("day-{p}"))
            .await
            .expect("credit");
    }
}

/// LB-5: 700 Seega players (7 pages) refreshed with a budget of 1 page a call:
/// the first tick begins a refresh and records it under way; every following tick
/// resumes it under the same snapshot id (none starts again from the top), one of
/// them killed between two saves of its progress (its lease left behind, lapsed by
/// the next tick); the refresh is published once, with every player listed once,
/// and the pages listed over all calls are the snapshot's pages plus at most the one
/// killed step's. Meanwhile the Minesweeper board (3 players, one page) is refreshed
/// and published at every tick that was not killed.
pub async fn lb_5_a_refresh_larger_than_a_call_is_resumed_to_its_end_and_starves_no_board<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    const PLAYERS: usize = 700;
    for i in 0..PLAYERS {
        seed_balance(&store, &format!("js{i:04}"), 100_000 - i as i64, 1_000).await;
    }
    for i in 0..3 {
        seed_game_balance(
            &store,
            Game::Minesweeper,
            &format!("ms{i}"),
            500 - i as i64,
            1_000,
        )
        .await;
    }
    let seega = BoardRef::all_time("seega");
    let settings = TickSettings::default();
    let budget = Budget::steps(1);
    let start = t("2026-12-01T10:00:00Z");
    let first = tick(&store, Job::Refresh, start, &settings, budget)
        .await
        .expect("tick");
    let run = run_of(&first, "seega").expect("seega").clone();
    assert!(!run.complete && run.pages_written == 1, "{run:?}");
    let id = run.snapshot.clone();
    let open = open_runs::list(&store).await.expect("open runs");
    assert!(
        open.iter()
            .any(|o| o.board == "seega" && o.id == id && o.as_of == start),
        "recorded under way: {open:?}"
    );
    assert!(run_of(&first, "minesweeper").is_some_and(|r| r.complete));
    // Operators see it under way.
    let status = crate::overtaken::call(&store, crate::review::operator_get("/v1/operator/jobs", &[])).await;
    assert_eq!(status.status, 200, "{}", status.body);
    let under_way = &status.body["refreshes"];
    assert!(
        under_way.as_array().is_some_and(|r| r
            .iter()
            .any(|o| o["board"] == "seega" && o["id"] == id.as_str() && o["pages"] == 1)),
        "{under_way}"
    );
    let mut written = run.pages_written;
    let mut ticks = 1;
    let mut killed = false;
    let mut published = false;
    while !published {
        assert!(ticks < 20, "the refresh never ends");
        let at = start + Duration::minutes(5 * ticks);
        ticks += 1;
        if ticks == 3 {
            // Killed after its lease was taken and a chunk written, before the chunk
            // was saved in its progress.
            let faulty = Faulty::new(store.clone()).failing_item_write_after(run_key(&seega, &id), 1);
            assert!(tick(&faulty, Job::Refresh, at, &settings, budget).await.is_err());
            killed = true;
            continue;
        }
        let report = tick(&store, Job::Refresh, at, &settings, budget)
            .await
            .expect("tick");
        let run = run_of(&report, "seega").expect("seega resumed");
        assert_eq!(run.snapshot, id, "the same refresh, resumed");
        written += run.pages_written;
        published = run.complete;
        let small = run_of(&report, "minesweeper").expect("minesweeper refreshed");
        assert!(small.complete, "a small board at every tick: {small:?}");
    }
    assert!(killed && ticks >= 5, "{ticks} ticks");
    let pointer = read::current_consistent(&store, &seega)
        .await
        .expect("read")
        .expect("published");
    assert_eq!(pointer.id, id);
    assert_eq!(listed(&store, &seega, &id).await, PLAYERS);
    let pages = read::run_state(&store, &seega, &id)
        .await
        .expect("read")
        .expect("run")
        .pages_written;
    assert!(written <= pages + 1, "{written} pages listed for {pages}");
    assert!(
        open_runs::list(&store)
            .await
            .expect("open runs")
            .iter()
            .all(|o| o.board != "seega"),
        "forgotten once published"
    );
    // The next tick is a new refresh.
    let next = tick(
        &store,
        Job::Refresh,
        start + Duration::minutes(5 * ticks),
        &settings,
        Budget::unbounded(),
    )
    .await
    .expect("tick");
    let run = run_of(&next, "seega").expect("seega");
    assert!(run.complete && run.snapshot != id, "{run:?}");
}

/// `mahjong-daily`'s reward table in these tests: 5 points to the top half.
const DAILY_TABLE: &str = r#"{"mahjong-daily": {"bands": [{"top_percent": 50, "points": 5}]}}"#;

/// LB-5, GM-3: 600 players of one Mahjong day (6 pages, 3 chunks of results) frozen
/// and closed by freeze ticks of one step each: the freeze resumes under `final` and
/// the close from its saved progress, one tick killed after sending a chunk and
/// before saving that it did; every player has exactly one result, the day is
/// recorded closed once everything is sent, and not before.
pub async fn lb_5_a_close_larger_than_a_call_sends_every_result_once_across_calls<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    const PLAYERS: usize = 600;
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("jd{i:03}")).collect();
    credit_day(&store, &players, 10_000).await;
    let day = BoardRef::new("mahjong-daily", "2026-11-25");
    let settings: TickSettings = parse_period_rewards(DAILY_TABLE).expect("table").into();
    let budget = Budget::steps(1);
    let progress = ItemKey::new(format!("CLOSE#{}", day.key()), "PROGRESS");
    let start = t("2026-11-25T22:05:00Z");
    let (mut ticks, mut killed) = (0, false);
    loop {
        assert!(ticks < 40, "the close never ends");
        let at = start + Duration::minutes(5 * ticks);
        ticks += 1;
        let frozen = close::is_frozen(&store, &day).await.expect("read");
        let started = store.get_item(&progress, true).await.expect("read").is_some();
        if frozen && started && !killed {
            // Killed after a chunk's results were sent, before its progress was saved.
            let faulty = Faulty::new(store.clone()).failing_item_write_after(progress.clone(), 0);
            assert!(tick(&faulty, Job::Freeze, at, &settings, budget).await.is_err());
            killed = true;
            continue;
        }
        let report = tick(&store, Job::Freeze, at, &settings, budget)
            .await
            .expect("tick");
        if report
            .closed
            .iter()
            .any(|c| c.board == "mahjong-daily" && c.period == "2026-11-25")
        {
            break;
        }
        assert!(
            report
                .behind
                .iter()
                .any(|b| b.board == "mahjong-daily" && b.next == "2026-11-25"),
            "not closed, so behind: {:?}",
            report.behind
        );
    }
    assert!(killed && ticks >= 5, "{ticks} ticks");
    assert_eq!(listed(&store, &day, FINAL).await, PLAYERS);
    let mut sent = BTreeSet::new();
    for p in &players {
        if store
            .get_source(&close::result_key(&day, p))
            .await
            .expect("read")
            .is_some()
        {
            sent.insert(p.clone());
        }
    }
    assert_eq!(sent.len(), PLAYERS, "every result sent");
    for p in players.iter().step_by(97) {
        let inbox = crate::overtaken::call(&store, crate::review::get("/v1/me/inbox", &[], p)).await;
        let results = inbox.body["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["id"] == "pr:mahjong-daily:2026-11-25")
            .count();
        assert_eq!(results, 1, "{p}: {}", inbox.body);
    }
}

/// LB-5: a call whose deadline has passed before it starts still takes one step of
/// each job (so every call makes progress) and stops there, its progress saved and
/// its lease given up: the next call, at once, goes on.
pub async fn lb_5_a_call_out_of_time_still_takes_a_step_and_the_next_goes_on<S: Store + Clone + 'static>(
    store: S,
) {
    for i in 0..250 {
        seed_balance(&store, &format!("jt{i:03}"), 50_000 - i as i64, 1_000).await;
    }
    let seega = BoardRef::all_time("seega");
    let at = t("2026-12-01T10:00:00Z");
    let spent = Budget {
        steps: Some(1),
        deadline: Some(std::time::Instant::now()),
    };
    let settings = TickSettings::default();
    let first = tick(&store, Job::Refresh, at, &settings, spent)
        .await
        .expect("tick");
    let run = run_of(&first, "seega").expect("seega").clone();
    assert!(!run.complete && run.pages_written == 1, "{run:?}");
    let state = read::run_state(&store, &seega, &run.snapshot)
        .await
        .expect("read")
        .expect("run");
    assert!(state.lease.is_none(), "given up: {state:?}");
    // A retry of the same scheduled time, at once, goes on with the same run.
    let again = tick(&store, Job::Refresh, at, &settings, Budget::unbounded())
        .await
        .expect("retry");
    let resumed = run_of(&again, "seega").expect("seega");
    assert!(
        resumed.complete && resumed.snapshot == run.snapshot,
        "{resumed:?}"
    );
    assert_eq!(listed(&store, &seega, &run.snapshot).await, 250);
}

/// LB-5: Lambda retries a scheduled tick that was killed (at its timeout) with the
/// same scheduled time, so the retry's clock reads the killed call's lease as fresh.
/// The lease also records the holder's deadline on the wall clock: once it has
/// passed, the retry takes the run over and resumes it (the same snapshot id), where
/// a lease without a deadline (a call with no time bound) still holds against it.
pub async fn lb_5_a_retry_of_the_same_tick_after_a_kill_at_its_deadline_resumes_the_run<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    // The first call lists a page and stops; the next, with a deadline 50 ms away,
    // is killed after writing its next chunk, before saving it.
    let (seega, at, id) = seega_refresh_begun(&store, "jr").await;
    let settings = TickSettings::default();
    let deadline = Budget {
        steps: Some(1),
        deadline: Some(std::time::Instant::now() + std::time::Duration::from_millis(50)),
    };
    let faulty = Faulty::new(store.clone()).failing_item_write_after(run_key(&seega, &id), 1);
    assert!(tick(&faulty, Job::Refresh, at, &settings, deadline)
        .await
        .is_err());
    let state = read::run_state(&store, &seega, &id)
        .await
        .expect("read")
        .expect("run");
    let lease = state.lease.expect("the killed call's lease is left behind");
    assert!(lease.ends_ms.is_some(), "{lease:?}");
    tokio::time::sleep(std::time::Duration::from_millis(60)).await;
    // Retried with the same scheduled time: the lease is over, the run resumed.
    let retry = tick(&store, Job::Refresh, at, &settings, Budget::steps(1))
        .await
        .expect("retry");
    let resumed = run_of(&retry, "seega").expect("seega resumed by the retry");
    assert_eq!(resumed.snapshot, id);
    assert!(resumed.pages_written >= 1, "{resumed:?}");
    // Killed again, by a call without a deadline: its lease holds against a retry of
    // the same instant, and the next tick (5 minutes on) resumes the run.
    let faulty = Faulty::new(store.clone()).failing_item_write_after(run_key(&seega, &id), 1);
    assert!(tick(&faulty, Job::Refresh, at, &settings, Budget::steps(1))
        .await
        .is_err());
    let held = tick(&store, Job::Refresh, at, &settings, Budget::steps(1))
        .await
        .expect("retry");
    assert!(
        run_of(&held, "seega").is_none_or(|r| r.pages_written == 0 && !r.complete),
        "the lease holds: {:?}",
        run_of(&held, "seega")
    );
    let next = tick(
        &store,
        Job::Refresh,
        at + Duration::minutes(5),
        &settings,
        Budget::unbounded(),
    )
    .await
    .expect("next tick");
    let done = run_of(&next, "seega").expect("seega");
    assert!(done.complete && done.snapshot == id, "{done:?}");
    assert_eq!(listed(&store, &seega, &id).await, 250);
}

/// LB-5: a board whose refresh fails for good (here its run's saved progress is
/// unreadable) is reported and left to the next tick; the boards after it in the tick
/// are still refreshed and published, and the tick fails after them.
pub async fn lb_5_a_board_whose_refresh_fails_stops_no_other_board<S: Store + Clone + 'static>(store: S) {
    seed_game_balance(&store, Game::Minesweeper, "mb0", 500, 1_000).await;
    let (seega, at, id) = seega_refresh_begun(&store, "jb").await;
    let settings = TickSettings::default();
    let key = run_key(&seega, &id);
    let item = store
        .get_item(&key, true)
        .await
        .expect("read")
        .expect("run state");
    assert!(store
        .put_item_if(&key, b"{not a run state", item.version)
        .await
        .expect("write"));
    seed_game_balance(&store, Game::Minesweeper, "mb1", 900, 1_000).await;
    let later = at + Duration::minutes(5);
    let failed = tick(&store, Job::Refresh, later, &settings, Budget::unbounded()).await;
    assert!(failed.is_err(), "the tick reports the failure");
    let pointer = read::current_consistent(&store, &BoardRef::all_time("minesweeper"))
        .await
        .expect("read")
        .expect("published");
    assert_eq!(
        pointer.as_of, later,
        "the board after the failing one was refreshed"
    );
    assert_eq!(pointer.entries, 2);
}

/// LB-5 (cost held): a freeze tick with nothing due, after the first one caught up,
/// reads 3 records (the period boards' last closes, the AMR window's last day), the
/// games' active board definitions once (their prizes, BD-9), and lists the
/// operators' work 4 times (closes, dry runs, previews of definitions, actions on
/// players), all empty, and
/// writes nothing (docs/costs.md, "tick catch-up with nothing due"). A new
/// kind of job that lists its work at every tick raises this count.
pub async fn lb_5_a_tick_with_nothing_due_costs_eight_reads<S: Store + Clone + 'static>(store: S) {
    let settings = TickSettings::default();
    let at = t("2026-12-01T10:00:00Z");
    tick(&store, Job::Freeze, at, &settings, Budget::unbounded())
        .await
        .expect("the first tick catches up");
    let counted = crate::counting::Counted::new(store.clone());
    tick(
        &counted,
        Job::Freeze,
        at + Duration::minutes(5),
        &settings,
        Budget::unbounded(),
    )
    .await
    .expect("tick");
    assert_eq!(
        counted.counts(),
        (8, 0),
        "(reads, writes) of a tick with nothing due"
    );
}

/// LB-5, GM-3: one player never stops a close. `jf-full` holds 1,500 unclaimed
/// rewards (an inbox near DynamoDB's 400 KB item limit, as an older version let it
/// grow): their new reward is paid into their balance at once (ledger `period-reward`)
/// and their inbox is not rewritten; `jf-room` (49 waiting) gets the reward to claim
/// as usual. The store refuses `jf-refused`'s result for good: it is recorded for
/// review with its player and the error, and the close finishes for everyone else;
/// deleting `jf-refused` erases that record (GM-6).
pub async fn lb_5_no_player_blocks_a_close_a_full_inbox_is_paid_and_a_refused_result_recorded<
    S: Store + podium_store::ErasureStore + Clone + 'static,
>(
    store: S,
) {
    use podium_rules::inbox::{Inbox, MAX_UNCLAIMED};
    use podium_rules::message::Message;
    use podium_rules::period_reward::PeriodResult;
    use podium_service::engine::unapplied;
    let players: Vec<String> = ["jf-full", "jf-refused", "jf-room"]
        .into_iter()
        .map(String::from)
        .chain((0..7).map(|i| format!("jf-{i}")))
        .collect();
    credit_day(&store, &players, 1_000).await;
    let waiting = |n: usize| {
        let old = PeriodResult {
            player_id: String::new(),
            rank: 1,
            of: 10,
            top_percent: 10,
            value: 100,
            reward: 5,
            jokers: 0,
        };
        let messages = (0..n)
            .map(|i| {
                let day = format!("2025-{:02}-{:02}-{i}", 1 + i % 12, 1 + i % 28);
                Message::period_result(
                    "mahjong-daily",
                    &day,
                    Game::MahjongRivals,
                    &old,
                    t("2026-01-01T00:00:00Z"),
                )
            })
            .collect();
        serde_json::to_string(&Inbox {
            messages,
            ..Inbox::default()
        })
        .expect("inbox")
    };
    crate::overtaken::write_inbox(&store, "jf-full", &waiting(1_500)).await;
    crate::overtaken::write_inbox(&store, "jf-room", &waiting(MAX_UNCLAIMED - 1)).await;
    let day = BoardRef::new("mahjong-daily", "2026-11-25");
    let refused = close::result_key(&day, "jf-refused");
    let faulty = Faulty::new(store.clone()).rejecting_source(&refused.id);
    let settings: TickSettings = parse_period_rewards(DAILY_TABLE).expect("table").into();
    let report = tick(
        &faulty,
        Job::Freeze,
        t("2026-11-25T22:05:00Z"),
        &settings,
        Budget::unbounded(),
    )
    .await
    .expect("the close goes on");
    let closed = report
        .closed
        .iter()
        .find(|c| c.board == "mahjong-daily" && c.period == "2026-11-25")
        .expect("the day closed");
    let results = closed.results.as_ref().expect("results");
    assert_eq!(
        (results.sent, results.unapplied),
        (players.len() - 1, 1),
        "{results:?}"
    );
    // The full inbox: paid at once, not rewritten.
    let balance = store
        .get_balances(Game::MahjongRivals, &["jf-full"])
        .await
        .expect("balance");
    assert_eq!(balance[0].points, 5, "paid into the balance");
    let inbox = |p: &'static str| {
        let store = store.clone();
        async move {
            let answer = crate::overtaken::call(&store, crate::review::get("/v1/me/inbox", &[], p)).await;
            assert_eq!(answer.status, 200, "{}", answer.body);
            answer.body
        }
    };
    let full = inbox("jf-full").await;
    assert_eq!(full["unclaimed"], 1_500, "{}", full["unclaimed"]);
    let ledger = crate::overtaken::call(
        &store,
        crate::review::get("/v1/me/ledger", &[("game", "mahjong-rivals")], "jf-full"),
    )
    .await;
    assert!(
        ledger.body["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .any(|e| e["source"] == "period-reward" && e["source_id"] == "pr:mahjong-daily:2026-11-25"),
        "{}",
        ledger.body
    );
    // Room left: the reward waits to be claimed.
    let room = inbox("jf-room").await;
    assert_eq!(room["unclaimed"], MAX_UNCLAIMED, "{}", room["unclaimed"]);
    // The refused result: recorded, the others sent.
    let recorded = unapplied::list(&store).await.expect("list");
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0].unapplied.player.as_deref(), Some("jf-refused"));
    assert_eq!(recorded[0].unapplied.id, refused.id);
    assert!(
        recorded[0].unapplied.error.contains("ValidationException"),
        "{recorded:?}"
    );
    assert!(store.get_source(&refused).await.expect("read").is_none());
    let status = crate::overtaken::call(&store, crate::review::operator_get("/v1/operator/jobs", &[])).await;
    assert_eq!(status.status, 200, "{}", status.body);
    assert_eq!(
        status.body["unapplied"][0]["player"], "jf-refused",
        "{}",
        status.body
    );
    assert_eq!(
        status.body["unapplied"][0]["job"], "period-close",
        "{}",
        status.body
    );
    assert!(
        status.body["closed_through"].as_array().is_some_and(|c| c
            .iter()
            .any(|b| b["board"] == "mahjong-daily" && b["period"] == "2026-11-25")),
        "{}",
        status.body
    );
    for p in ["jf-0", "jf-6"] {
        let body = inbox(p).await;
        assert!(
            body["messages"]
                .as_array()
                .expect("messages")
                .iter()
                .any(|m| m["id"] == "pr:mahjong-daily:2026-11-25"),
            "{p}: {body}"
        );
    }
    podium_service::operators::deletion::delete_player(&store, "jf-refused", t("2026-11-26T10:00:00Z"))
        .await
        .expect("deleted");
    assert!(unapplied::list(&store).await.expect("list").is_empty(), "GM-6");
}

/// OP-5, LB-5: an operator's close of a 600-player day that no tick froze, through the
/// HTTP route with one step a request: the first answer is 202 (under way, `done`
/// false) with its audit entry already written; the jobs' status shows the action; a
/// repeat joins it (no second action); the ticks carry it on to its end, and every
/// player has exactly one result.
pub async fn op_5_an_operator_close_is_accepted_at_once_and_the_ticks_finish_it<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    use serde_json::json;
    const PLAYERS: usize = 600;
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("jo{i:03}")).collect();
    credit_day(&store, &players, 10_000).await;
    let tables = parse_period_rewards(DAILY_TABLE).expect("table");
    let at = t("2026-11-26T10:00:00Z");
    let close = || {
        operator_post(
            &store,
            &tables,
            1,
            "/v1/operator/periods/mahjong-daily/2026-11-25/close",
            json!({"reason": "the scheduler was off"}),
            at,
        )
    };
    let first = close().await;
    assert_eq!(first.status, 202, "{}", first.body);
    assert_eq!(first.body["done"], false, "{}", first.body);
    assert_eq!(
        audit_count(&store, ("board", "mahjong-daily@2026-11-25"), at).await,
        1,
        "audited first"
    );
    let status = |store: S| async move {
        crate::overtaken::call(&store, crate::review::operator_get("/v1/operator/jobs", &[])).await
    };
    let shown = status(store.clone()).await;
    let actions = shown.body["actions"].as_array().cloned().unwrap_or_default();
    assert_eq!(actions.len(), 1, "{}", shown.body);
    assert_eq!(
        (actions[0]["board"].as_str(), actions[0]["done"].as_bool()),
        (Some("mahjong-daily"), Some(false))
    );
    let again = close().await;
    assert!(again.status == 202 || again.status == 200, "{}", again.body);
    assert_eq!(
        status(store.clone()).await.body["actions"]
            .as_array()
            .map(Vec::len),
        Some(1),
        "the repeat joined"
    );
    let settings: TickSettings = tables.into();
    let mut ticks = 0;
    loop {
        let shown = status(store.clone()).await;
        if shown.body["actions"][0]["done"] == true {
            break;
        }
        assert!(ticks < 40, "never done: {}", shown.body);
        tick(
            &store,
            Job::Freeze,
            at + Duration::minutes(5 * (ticks + 1)),
            &settings,
            Budget::steps(1),
        )
        .await
        .expect("tick");
        ticks += 1;
    }
    assert!(ticks >= 2, "the ticks carried it on: {ticks}");
    let day = BoardRef::new("mahjong-daily", "2026-11-25");
    for p in &players {
        assert!(
            store
                .get_source(&close::result_key(&day, p))
                .await
                .expect("read")
                .is_some(),
            "{p}"
        );
    }
    let p = &players[0];
    let inbox = crate::overtaken::call(&store, crate::review::get("/v1/me/inbox", &[], p)).await;
    let results = inbox.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["id"] == "pr:mahjong-daily:2026-11-25")
        .count();
    assert_eq!(results, 1, "{}", inbox.body);
}

/// LB-5: a refresh left under way on a day that has ended (the day's freeze took its
/// place) is forgotten by the next tick, not resumed nor listed forever; one of the
/// current period is kept.
pub async fn lb_5_a_refresh_under_way_of_an_ended_period_is_forgotten<S: Store + Clone + 'static>(store: S) {
    let run = |period: &str| open_runs::OpenRun {
        board: "mahjong-daily".into(),
        period: period.into(),
        id: "r-old".into(),
        seq: 1,
        as_of: t("2026-11-24T21:00:00Z"),
        pages: 1,
    };
    assert!(open_runs::record(&store, &run("2026-11-24"), 0)
        .await
        .expect("recorded"));
    let at = t("2026-11-26T10:00:00Z");
    tick(
        &store,
        Job::Refresh,
        at,
        &TickSettings::default(),
        Budget::unbounded(),
    )
    .await
    .expect("tick");
    let left = open_runs::list(&store).await.expect("list");
    assert!(left.iter().all(|o| o.period != "2026-11-24"), "{left:?}");
}

/// OP-4, OP-5, GM-6: a player on 400 boards (400 days of `mahjong-daily`, two of them
/// snapshotted), through the HTTP routes with a few boards a request (50 for the
/// suspension, 4 for the restore, 100 boards or results for the deletion): the suspension
/// answers 202 at once (`done` false) with its audit entry written and the player
/// already refused, the jobs' status shows it, a repeat joins it, and the ticks hide
/// them from every board; the restore and then the deletion go the same way, each
/// finished by the ticks, and nothing is left under way.
pub async fn op_4_a_suspension_of_a_player_on_400_boards_is_accepted_at_once_and_the_ticks_finish_it<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    use podium_service::boards::snapshot::write;
    use serde_json::json;
    const DAYS: i64 = 400;
    let daily = board_def("mahjong-daily").expect("registered");
    let first_day = t("2025-10-01T12:00:00Z");
    for d in 0..DAYS {
        let at = first_day + Duration::days(d);
        periods::credit(&store, daily, "many-days", 5, at, at, &format!("md-{d}"))
            .await
            .expect("credit");
    }
    // Two of the days snapshotted, with another player beside them.
    let shown_days: Vec<BoardRef> = [0, DAYS - 1]
        .iter()
        .map(|d| daily.in_period(&daily.period_at(first_day + Duration::days(*d))))
        .collect();
    for (i, b) in shown_days.iter().enumerate() {
        let at = first_day + Duration::days(if i == 0 { 0 } else { DAYS - 1 });
        periods::credit(&store, daily, "beside", 3, at, at, &format!("bs-{i}"))
            .await
            .expect("credit");
        write::run(&store, b, "s1", at, 100, None, at)
            .await
            .expect("snapshot");
    }
    let at = t("2026-11-26T10:00:00Z");
    // `steps` boards (or results) a request and a tick.
    let no_rewards = podium_rules::period_reward::RewardTables::new();
    let call = |action: &'static str, body: serde_json::Value, steps: u32| {
        let path = format!("/v1/operator/players/many-days/{action}");
        let (store, no_rewards) = (store.clone(), no_rewards.clone());
        async move { operator_post(&store, &no_rewards, steps, &path, body, at).await }
    };
    let status = |store: S| async move { jobs_status(&store).await };
    let settings = TickSettings::default();
    // Ticks until no action on a player is left; how many it took.
    let finish = |store: S, steps: u32| {
        let settings = settings.clone();
        async move {
            let mut ticks = 0;
            loop {
                let shown = status(store.clone()).await;
                if shown["player_actions"].as_array().is_some_and(Vec::is_empty) {
                    return ticks;
                }
                assert!(ticks < 30, "never done: {}", shown);
                tick(
                    &store,
                    Job::Freeze,
                    at + Duration::minutes(5 * (ticks + 1)),
                    &settings,
                    Budget::steps(steps),
                )
                .await
                .expect("tick");
                ticks += 1;
            }
        }
    };

    let first = call("suspend", json!({"reason": "cheating reported"}), 50).await;
    assert_eq!(first.status, 202, "{}", first.body);
    assert_eq!(first.body["done"], false, "{}", first.body);
    // Audited, and the player refused, from the first answer.
    assert_eq!(
        audit_count(&store, ("player", "many-days"), at).await,
        1,
        "audited first"
    );
    let me = crate::overtaken::call(&store, crate::review::get("/v1/me", &[], "many-days")).await;
    assert_eq!(me.status, 403, "{}", me.body);
    let shown = status(store.clone()).await;
    let actions = shown["player_actions"].as_array().cloned().unwrap_or_default();
    assert_eq!(actions.len(), 1, "{}", shown);
    assert_eq!(
        (actions[0]["action"].as_str(), actions[0]["player_id"].as_str()),
        (Some("suspend"), Some("many-days"))
    );
    let again = call("suspend", json!({"reason": "cheating reported"}), 50).await;
    assert_eq!(again.status, 202, "a repeat joins and goes on: {}", again.body);
    assert_eq!(again.body["unchanged"], true, "{}", again.body);
    let ticks = finish(store.clone(), 50).await;
    assert!(ticks >= 2, "the ticks carried it on: {ticks}");
    let suspension = podium_service::moderation::suspensions::of_player(&store, "many-days")
        .await
        .expect("read")
        .expect("suspended");
    for b in &shown_days {
        assert!(
            suspension.hidden_from.contains(&b.key()),
            "{:?}",
            suspension.hidden_from
        );
    }
    let done = call("suspend", json!({"reason": "cheating reported"}), 50).await;
    assert_eq!(
        (done.status, &done.body["done"]),
        (200, &json!(true)),
        "{}",
        done.body
    );

    let restoring = call("restore", json!({"reason": "the report was wrong"}), 4).await;
    assert_eq!(restoring.status, 202, "{}", restoring.body);
    assert_eq!(restoring.body["state"], "restoring", "{}", restoring.body);
    assert!(finish(store.clone(), 4).await >= 1);
    assert_eq!(
        podium_service::moderation::suspensions::of_player(&store, "many-days")
            .await
            .expect("read"),
        None,
        "restored"
    );
    let me = crate::overtaken::call(&store, crate::review::get("/v1/me", &[], "many-days")).await;
    assert_eq!(me.status, 200, "{}", me.body);

    let deleting = call("delete", json!({"reason": "account removal requested"}), 100).await;
    assert_eq!(deleting.status, 202, "{}", deleting.body);
    assert_eq!(deleting.body["done"], false, "{}", deleting.body);
    // GM-6: what the deletion works through is listed beside the tombstone, which stays
    // a few hundred bytes whatever the player holds (a list inline outgrew DynamoDB's
    // 400 KB item at about 2,000 boards).
    let tombstone = store
        .get_item(&podium_store::tombstone_key("many-days"), true)
        .await
        .expect("read")
        .expect("tombstone");
    assert!(tombstone.body.len() < 512, "{} bytes", tombstone.body.len());
    // A repeat joins the deletion under way: the first request's audit entry stands.
    let audited = audit_count(&store, ("operator", "support-7"), at).await;
    let joined = call("delete", json!({"reason": "asked again"}), 1).await;
    assert_eq!(joined.status, 202, "{}", joined.body);
    assert_eq!(audit_count(&store, ("operator", "support-7"), at).await, audited);
    let ticks = finish(store.clone(), 100).await;
    assert!(ticks >= 2, "the ticks carried it on: {ticks}");
    let me = crate::overtaken::call(&store, crate::review::get("/v1/me", &[], "many-days")).await;
    assert_eq!(me.status, 400, "deleted (GM-6): {}", me.body);
    let again = call("delete", json!({"reason": "account removal requested"}), 100).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["already_deleted"], true, "{}", again.body);
    assert!(status(store.clone()).await["player_actions"]
        .as_array()
        .is_some_and(Vec::is_empty));
}

/// LB-5: two boards, one large Mahjong day (600 players) frozen and closed over
/// several refresh ticks of one step each, and a small Minesweeper board (3 players)
/// whose leader gains points before every tick: every tick publishes the small
/// board's new standing while the large day is still closing, and the day ends
/// closed.
pub async fn lb_5_a_small_board_is_refreshed_at_every_tick_while_a_large_day_closes<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    const PLAYERS: usize = 600;
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("jl{i:03}")).collect();
    credit_day(&store, &players, 10_000).await;
    for i in 0..3 {
        seed_game_balance(
            &store,
            Game::Minesweeper,
            &format!("mx{i}"),
            500 - i as i64,
            1_000,
        )
        .await;
    }
    let day = BoardRef::new("mahjong-daily", "2026-11-25");
    let small = BoardRef::all_time("minesweeper");
    let settings: TickSettings = parse_period_rewards(DAILY_TABLE).expect("table").into();
    let start = t("2026-11-25T22:05:00Z");
    let mut ticks_while_closing = 0;
    for tick_no in 0..40 {
        // The small board changed since the last tick.
        seed_game_balance(&store, Game::Minesweeper, "mx0", 501 + tick_no, 2_000 + tick_no).await;
        let at = start + Duration::minutes(5 * tick_no);
        let report = tick(&store, Job::Refresh, at, &settings, Budget::steps(1))
            .await
            .expect("tick");
        let run = run_of(&report, "minesweeper").expect("the small board refreshed");
        assert!(run.complete, "published at every tick: {run:?}");
        let pointer = read::current_consistent(&store, &small)
            .await
            .expect("read")
            .expect("published");
        let top = read::pages(&store, &small, &pointer.id, SortKeyRange::All, true, 1, true)
            .await
            .expect("pages");
        let leader = &top[0].entries[0];
        assert_eq!(
            (leader.player_id.as_str(), leader.value),
            ("mx0", 500 + tick_no + 1),
            "the change of this tick is shown"
        );
        let closed = report
            .closed
            .iter()
            .any(|c| c.board == "mahjong-daily" && c.period == "2026-11-25");
        if closed {
            break;
        }
        ticks_while_closing += 1;
    }
    assert!(
        ticks_while_closing >= 4,
        "the day took several ticks: {ticks_while_closing}"
    );
    assert!(
        periods::closed_through(&store, board_def("mahjong-daily").expect("registered"))
            .await
            .expect("read")
            .0
            .is_some_and(|p| p.id.as_str() >= "2026-11-25"),
        "closed"
    );
    assert_eq!(listed(&store, &day, FINAL).await, PLAYERS);
}

/// MJ-20, LB-5: a day of 1,100 players leaves the AMR window through calls of one step
/// each (a batch of 1,000 entries a step): a call stops within the day, its place
/// saved, and the next takes off the rest; every player's points are taken off
/// exactly once.
pub async fn mj_20_the_window_takes_a_large_day_off_in_steps_each_player_once<S: Store + Clone + 'static>(
    store: S,
) {
    use futures::stream::{self, StreamExt};
    const PLAYERS: usize = 1_100;
    let amr = board_def("mahjong-amr").expect("registered");
    let day = t("2026-12-01T10:00:00Z");
    stream::iter(0..PLAYERS)
        .for_each_concurrent(16, |i| {
            let store = store.clone();
            async move {
                periods::credit_all(
                    &store,
                    Game::MahjongRivals,
                    &format!("jw{i:04}"),
                    7,
                    day,
                    day,
                    "w-1",
                )
                .await
                .expect("credit");
            }
        })
        .await;
    let still_held = |store: S| async move {
        let mut held = 0;
        for i in 0..PLAYERS {
            let e = store
                .period_entry(&BoardRef::all_time("mahjong-amr"), &format!("jw{i:04}"))
                .await
                .expect("read");
            held += usize::from(e.is_some_and(|e| e.points > 0));
        }
        held
    };
    // 2026-12-01 leaves the window on 2027-12-01 (its first maintenance looks 31 days back).
    let now = t("2027-12-01T10:00:00Z");
    let (mut calls, mut changed, mut stopped_within) = (0, 0, false);
    loop {
        assert!(calls < 60, "the window never moved through");
        calls += 1;
        let run = periods::expire_window(&store, amr, now, 31, Budget::steps(1))
            .await
            .expect("expire")
            .expect("rolling");
        changed += run.changed;
        if run.behind && run.changed == 1_000 {
            // Stopped within the day: a thousand off, a hundred still held.
            assert_eq!(still_held(store.clone()).await, PLAYERS - 1_000);
            stopped_within = true;
        }
        if !run.behind {
            assert_eq!(run.through.to_string(), "2026-12-01");
            break;
        }
    }
    assert!(stopped_within, "a call stopped within the day");
    assert_eq!(changed, PLAYERS as u64, "each player's points taken off once");
    assert_eq!(still_held(store.clone()).await, 0);
}

/// LB-5, OP-5: the dry run of a frozen 600-player day through the HTTP route with one
/// step (256 results) a request: it answers 202 with the results checked so far, the
/// jobs' status shows it, a tick carries it a step on, a repeat joins it where it
/// stands, and it answers 200 once every result is checked, having written nothing but
/// its own record (no result sent, no audit entry); a player deleted since the freeze
/// is neither listed nor counted to send (GM-6).
pub async fn op_5_a_dry_run_larger_than_a_request_is_carried_on_and_joined<S: Store + Clone + 'static>(
    store: S,
) {
    use serde_json::json;
    const PLAYERS: usize = 600;
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("jy{i:03}")).collect();
    credit_day(&store, &players, 10_000).await;
    let daily = board_def("mahjong-daily").expect("registered");
    let day = BoardRef::new("mahjong-daily", "2026-11-25");
    let at = t("2026-11-26T10:00:00Z");
    let period = daily.period_at(t("2026-11-25T12:00:00Z"));
    periods::freeze(&store, daily, &period, at, Budget::unbounded())
        .await
        .expect("frozen");
    // GM-6: the last-ranked player is deleted after the freeze: kept in place, sent
    // nothing, not listed.
    podium_service::operators::deletion::delete_player(&store, "jy599", at)
        .await
        .expect("deleted");
    let tables = parse_period_rewards(DAILY_TABLE).expect("table");
    let dry = || {
        operator_post(
            &store,
            &tables,
            1,
            "/v1/operator/periods/mahjong-daily/2026-11-25/close",
            json!({"reason": "what would it send?", "dry_run": true}),
            at,
        )
    };
    let first = dry().await;
    assert_eq!(first.status, 202, "{}", first.body);
    assert_eq!(
        (
            &first.body["ranked"],
            &first.body["checked"],
            &first.body["to_send"]
        ),
        (&json!(PLAYERS), &json!(256), &json!(256)),
        "{}",
        first.body
    );
    assert_eq!(first.body["results"].as_array().map(Vec::len), Some(256));
    let shown = jobs_status(&store).await;
    assert_eq!(shown["dry_runs"][0]["checked"], json!(256), "{}", shown);
    // A tick carries it a step on.
    podium_service::operators::dry_runs::carry_on(&store, &tables, at, Budget::steps(1))
        .await
        .expect("carried on");
    let last = dry().await;
    assert_eq!(
        last.status, 200,
        "joined where it stood, then finished: {}",
        last.body
    );
    assert_eq!(
        (
            &last.body["checked"],
            &last.body["already_sent"],
            &last.body["to_send"]
        ),
        (&json!(PLAYERS), &json!(0), &json!(PLAYERS - 1)),
        "the deleted player is not counted to send"
    );
    let listed = last.body["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), PLAYERS - 1);
    assert!(
        listed.iter().all(|l| l["player_id"] != "jy599"),
        "a deleted player is not listed"
    );
    // Nothing sent, nothing audited.
    for p in players.iter().step_by(50) {
        assert!(store
            .get_source(&close::result_key(&day, p))
            .await
            .expect("read")
            .is_none());
    }
    assert_eq!(
        audit_count(&store, ("board", "mahjong-daily@2026-11-25"), at).await,
        0,
        "not audited"
    );
}

/// GM-6, OP-5: an operator's deletion of a player on 30 boards whose request fails
/// mid-step (the store refuses the save of its progress, as when the function is
/// killed there) is recorded before its first step, so the next tick finishes it; the
/// record is then removed.
pub async fn gm_6_a_deletion_whose_request_failed_mid_step_is_finished_by_the_ticks<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    on_daily_boards(&store, "gone-soon", 30, "gs").await;
    let at = t("2026-11-26T10:00:00Z");
    // The tombstone's writes: made, its inventory, then the progress of the first stop.
    let faulty =
        Faulty::new(store.clone()).failing_item_write_after(podium_store::tombstone_key("gone-soon"), 2);
    let failed = podium_service::operators::player_actions::delete(
        &faulty,
        "gone-soon",
        ("support-7", "account removal requested"),
        at,
        false,
        Budget::steps(5),
    )
    .await;
    assert!(failed.is_err(), "{failed:?}");
    let shown = jobs_status(&store).await;
    assert_eq!(
        shown["player_actions"][0]["action"], "delete",
        "recorded before its first step: {}",
        shown
    );
    // 30 boards' snapshots and 30 results to anonymise, 5 a tick.
    ticks_until_no_player_action(&store, at).await;
    let shown = jobs_status(&store).await;
    assert!(
        shown["player_actions"].as_array().is_some_and(Vec::is_empty),
        "{}",
        shown
    );
    assert!(store.is_deleted("gone-soon").await.expect("read"));
    let report = podium_service::operators::deletion::delete_player(&store, "gone-soon", at)
        .await
        .expect("read");
    assert!(report.already_deleted, "finished by the ticks: {report:?}");
}

/// OP-4: two suspensions of one player sent at once: the action record holds the
/// first request's instant while the other request's write is the guard's (here the
/// record's instant set a moment earlier than the guard's). The ticks still finish the
/// suspension (a repeat finds nothing left to do), and the record is removed.
pub async fn op_4_concurrent_suspensions_are_finished_by_the_ticks_whichever_wrote_the_guard<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    use podium_service::moderation::suspensions;
    on_daily_boards(&store, "raced", 30, "rc").await;
    let at = t("2026-11-26T10:00:00Z");
    let who = ("support-7", "cheating reported");
    let first =
        podium_service::operators::player_actions::suspend(&store, "raced", who, 30, at, Budget::steps(2))
            .await
            .expect("suspended");
    assert!(!first.done, "{first:?}");
    let key = ItemKey::new("ACTION#PLAYER", "suspend:raced");
    let item = store.get_item(&key, true).await.expect("read").expect("recorded");
    let mut record: serde_json::Value = serde_json::from_slice(&item.body).expect("json");
    record["requested_at"] = serde_json::json!((at - Duration::milliseconds(1)).to_rfc3339());
    assert!(store
        .put_item_if(&key, &serde_json::to_vec(&record).expect("json"), item.version)
        .await
        .expect("write"));
    ticks_until_no_player_action(&store, at).await;
    assert!(jobs_status(&store).await["player_actions"]
        .as_array()
        .is_some_and(Vec::is_empty));
    // Hidden from every board already: a repeat has nothing left to do.
    let again =
        podium_service::operators::player_actions::suspend(&store, "raced", who, 30, at, Budget::steps(1))
            .await
            .expect("suspended");
    assert!(again.done, "the ticks finished it: {again:?}");
    assert!(suspensions::of_player(&store, "raced")
        .await
        .expect("read")
        .is_some());
}

/// OP-4, GM-6, OP-5: ten suspensions of one player sent at once (a double click, a
/// client's retries) contend on the player's guard: the losers try again and join,
/// so none answers 503 and the trail holds one entry; then ten deletions at once the
/// same way (one `delete` entry).
pub async fn op_4_requests_sent_at_once_on_one_player_join_instead_of_answering_503<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    on_daily_boards(&store, "clicked", 12, "ck").await;
    let at = t("2026-11-26T10:00:00Z");
    let tables = podium_rules::period_reward::RewardTables::default();
    for (action, body) in [
        ("suspend", serde_json::json!({"reason": "cheating reported"})),
        (
            "delete",
            serde_json::json!({"reason": "account removal requested"}),
        ),
    ] {
        let path = format!("/v1/operator/players/clicked/{action}");
        let answers = futures::future::join_all((0..10).map(|_| {
            let (store, tables, path, body) = (store.clone(), tables.clone(), path.clone(), body.clone());
            tokio::spawn(async move { operator_post(&store, &tables, 3, &path, body, at).await })
        }))
        .await;
        for a in answers {
            let a = a.expect("joined");
            assert!(
                a.status == 200 || a.status == 202,
                "{action}: {} {}",
                a.status,
                a.body
            );
        }
    }
    let mut actions = audit_actions(&store, ("operator", "support-7"), at).await;
    actions.sort();
    assert_eq!(actions, ["delete", "suspend"]);
}

/// OP-4: a tick carrying a suspension on after a restore lifted it does nothing (it
/// never begins a new suspension): the player stays active.
pub async fn op_4_a_tick_never_begins_a_suspension_a_restore_lifted<S: Store + Clone + 'static>(store: S) {
    use podium_service::moderation::suspensions;
    seed_balance(&store, "lifted", 100, 1_000).await;
    let at = t("2026-11-26T10:00:00Z");
    let who = ("support-7", "cheating reported");
    let suspended = suspensions::suspend(&store, "lifted", who, 30, at)
        .await
        .expect("suspended");
    assert!(suspended.suspension.is_some());
    suspensions::restore(
        &store,
        "lifted",
        ("support-7", "the report was wrong"),
        at,
        &Default::default(),
    )
    .await
    .expect("restored");
    let carried = suspensions::carry_on(&store, "lifted", at + Duration::minutes(5), Budget::steps(1))
        .await
        .expect("carried on");
    assert!(carried.is_none(), "{carried:?}");
    assert_eq!(
        suspensions::of_player(&store, "lifted").await.expect("read"),
        None
    );
}
