//! `overtaken` messages on both stores ([`podium_service::players::overtaken`], LB-2, LB-5): who
//! passed whom between two refreshes of a board, told to the top 100 and to players
//! who opted in on the board, once per snapshot whatever the reruns and concurrent
//! runs of the refresh tick.

use chrono::{DateTime, Duration, Utc};
use futures::future::join_all;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_service::jobs::{handle, Job, ScheduledRun};
use podium_store::{ErasureStore, Store};
use serde_json::Value;

use crate::contract::cursor_key;
use crate::fixtures::{now, seed_balance};
use crate::review::get;

/// The scheduled refresh tick `minutes` after the tests' clock.
pub async fn refresh<S: Store>(store: &S, minutes: i64) {
    try_refresh(store, minutes).await.expect("refresh tick");
}

/// [`refresh`], its outcome answered: the tick's snapshot runs.
pub async fn try_refresh<S: Store>(
    store: &S,
    minutes: i64,
) -> Result<Vec<podium_service::jobs::BoardRun>, podium_service::ServiceError> {
    let run = ScheduledRun {
        job: Job::Refresh,
        scheduled_time: later(minutes),
    };
    handle(store, run, &Default::default()).await.map(|r| r.runs)
}

/// The refresh tick twice at once (one may find the other's snapshot run holding its
/// lease: it leaves the run to it and succeeds), then its retry.
async fn refresh_twice_at_once<S: Store>(store: &S, minutes: i64) {
    for outcome in join_all((0..2).map(|_| try_refresh(store, minutes))).await {
        if let Err(e) = outcome {
            panic!("a tick that meets another one succeeds: {e}");
        }
    }
    refresh(store, minutes).await;
}

/// The tests' clock plus `minutes`.
pub fn later(minutes: i64) -> DateTime<Utc> {
    now() + Duration::minutes(minutes)
}

/// `req` through the API at [`later`]`(30)`.
pub async fn call<S: Store + Clone + 'static>(store: &S, req: ApiRequest) -> ApiResponse {
    api::handle(store, &ApiContext::new(cursor_key()), &req, later(30)).await
}

/// `method` (`PUT` or `DELETE`) on `/v1/me/follows/{board}` as `player`.
pub async fn follows<S: Store + Clone + 'static>(
    store: &S,
    method: &str,
    board: &str,
    player: &str,
) -> ApiResponse {
    let req = ApiRequest {
        method: method.into(),
        ..get(&format!("/v1/me/follows/{board}"), &[], player)
    };
    call(store, req).await
}

/// The `overtaken` messages in `player`'s inbox, oldest first.
async fn overtaken<S: Store + Clone + 'static>(store: &S, player: &str) -> Vec<Value> {
    let answer = call(store, get("/v1/me/inbox", &[], player)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let mut out: Vec<Value> = answer.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["kind"] == "overtaken")
        .cloned()
        .collect();
    out.reverse();
    out
}

/// The ids of the passers an `overtaken` message names.
pub fn passers(message: &Value) -> Vec<String> {
    message["overtaken"]["by"]
        .as_array()
        .expect("by")
        .iter()
        .map(|p| p["player_id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Stores `body` as `player`'s inbox, unreadable or not (as a later version may write it).
pub async fn write_inbox<S: Store>(store: &S, player: &str, body: &str) {
    let write = podium_store::Commit {
        source: podium_store::SourceKey::new("seed", format!("inbox-{player}")),
        content_hash: "seed".into(),
        attempt: "seed".into(),
        plan: 0,
        result: "{}".into(),
        fields: None,
        claims: Vec::new(),
        balances: Vec::new(),
        entries: Vec::new(),
        states: vec![podium_store::StateWrite {
            player_id: player.into(),
            name: podium_rules::inbox::STATE.into(),
            expected_version: 0,
            body: body.into(),
        }],
        ledger: Vec::new(),
        marks: Vec::new(),
        refs: Vec::new(),
        named: Vec::new(),
    };
    store.commit(&write).await.expect("inbox written");
}

fn player(i: usize) -> String {
    format!("ot{i:03}")
}

/// LB-2, LB-5, GM-3: 120 players; the 111th jumps to sixth place between two refreshes.
/// Each of the 95 players it passed within the top 100 (ranks 6 … 100) gets one
/// message naming it, with their rank before and now; those it passed below the top
/// 100, and those above it, get none. The refresh tick run three times, two of them at
/// once, then ticks of three later instants at once and another after them, send
/// nothing twice; an unreadable opt-in item, and one passed player's unreadable inbox
/// (skipped), hold nothing up. Once the passer is deleted (GM-6), the messages no
/// longer name them.
pub async fn lb_5_the_top_100_hear_who_passed_them_once<S: Store + ErasureStore + Clone + 'static>(store: S) {
    for i in 0..120 {
        seed_balance(&store, &player(i), 10_000 - 10 * i as i64, 1_000 + i as i64).await;
    }
    assert!(store
        .put_item_if(
            &podium_service::players::overtaken::follow_key("seega", "broken"),
            b"not json",
            0
        )
        .await
        .expect("write"));
    write_inbox(
        &store,
        &player(60),
        r#"{"messages":[{"kind":"from_a_later_version"}]}"#,
    )
    .await;
    refresh(&store, 1).await;
    assert!(
        overtaken(&store, &player(50)).await.is_empty(),
        "the first snapshot has nothing to compare"
    );
    // 9,955: between the fifth (9,960) and the sixth (9,950).
    seed_balance(&store, &player(110), 9_955, 5_000).await;
    refresh_twice_at_once(&store, 2).await;
    // Ticks of different instants at once (a late retry overlapping the next tick).
    for outcome in join_all((3..6).map(|m| try_refresh(&store, m))).await {
        if let Err(e) = outcome {
            panic!("overlapping ticks succeed: {e}");
        }
    }
    refresh(&store, 6).await;
    for i in 0..120 {
        if i == 60 {
            continue; // its inbox cannot be read: skipped
        }
        let got = overtaken(&store, &player(i)).await;
        if (5..100).contains(&i) {
            assert_eq!(got.len(), 1, "{}: one message", player(i));
            let m = &got[0];
            assert_eq!(passers(m), [player(110)], "{}", m);
            assert_eq!(m["overtaken"]["rank_before"], i as u64 + 1, "{}", m);
            assert_eq!(m["rank"], i as u64 + 2, "{}", m);
            assert_eq!(m["overtaken"]["passed_by"], 1, "{}", m);
            assert_eq!(m["board"], "seega");
        } else {
            assert!(got.is_empty(), "{}: {got:?}", player(i));
        }
    }
    podium_service::operators::deletion::delete_player(&store, &player(110), later(40))
        .await
        .expect("deletion");
    let got = overtaken(&store, &player(50)).await;
    assert_eq!(got.len(), 1);
    assert!(passers(&got[0]).is_empty(), "GM-6: {}", got[0]);
}

/// LB-5: a player ranked 151st of 200 opts in on `seega` (and may not on a board that
/// sends no such messages). When the second player listed behind them passes them,
/// the first jumps five places over them, and a player from far below jumps over them
/// too, they hear of their two neighbours only, nearest above first, once across
/// reruns. After opting out they hear nothing. A deletion (GM-6) removes the opt-in,
/// and a deleted player cannot opt in.
pub async fn lb_5_opted_in_players_hear_of_neighbours_passing<S: Store + ErasureStore + Clone + 'static>(
    store: S,
) {
    for i in 0..200 {
        seed_balance(&store, &player(i), 20_000 - 10 * i as i64, 1_000 + i as i64).await;
    }
    let me = player(150);
    let opted = follows(&store, "PUT", "seega", &me).await;
    assert_eq!(opted.status, 200, "{}", opted.body);
    assert_eq!(opted.body["boards"], serde_json::json!(["seega"]));
    assert_eq!(
        follows(&store, "PUT", "seega", &me).await.body,
        opted.body,
        "safe to repeat"
    );
    for board in ["mahjong-level-7", "chess"] {
        let refused = follows(&store, "PUT", board, &me).await;
        assert_eq!(refused.status, 404, "{board}: {}", refused.body);
    }
    refresh(&store, 1).await;
    // 152nd (the second behind) to 18,505 (above me at 18,500), the 151st (just
    // behind) to 18,545 (five places above me), and the 190th to 19,000.
    seed_balance(&store, &player(152), 18_505, 5_000).await;
    seed_balance(&store, &player(151), 18_545, 5_000).await;
    seed_balance(&store, &player(190), 19_000, 5_001).await;
    refresh_twice_at_once(&store, 2).await;
    let got = overtaken(&store, &me).await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        passers(&got[0]),
        [player(152), player(151)],
        "the neighbours only: {}",
        got[0]
    );
    assert_eq!(got[0]["overtaken"]["rank_before"], 151);
    assert_eq!(got[0]["rank"], 154);
    // Out: nothing more.
    let out = follows(&store, "DELETE", "seega", &me).await;
    assert_eq!(out.status, 200, "{}", out.body);
    assert_eq!(out.body["boards"], serde_json::json!([]));
    seed_balance(&store, &player(153), 18_700, 5_002).await;
    refresh(&store, 3).await;
    assert_eq!(overtaken(&store, &me).await.len(), 1, "opted out");
    // GM-6: a deletion removes the opt-in.
    let other = player(199);
    assert_eq!(follows(&store, "PUT", "minesweeper", &other).await.status, 200);
    podium_service::operators::deletion::delete_player(&store, &other, later(40))
        .await
        .expect("deletion");
    let left = podium_service::players::overtaken::following(&store, &other)
        .await
        .expect("read");
    assert!(left.is_empty(), "{left:?}");
    let again = follows(&store, "PUT", "seega", &other).await;
    assert_eq!(again.status, 400, "GM-6: {}", again.body);
    assert!(
        again.body["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("caller (GM-6)"),
        "{}",
        again.body
    );
}

/// LB-5: three cases a refresh tick must not tell twice nor lose, with one opted-in
/// player each:
/// - a neighbour who passes while the tick runs (after its snapshot was built) is told
///   once, not again at the next tick;
/// - a player who opted in and hovers around the 100th place is told of a pass once:
///   through the top while in it, and never again from an old check once out of it;
/// - a late tick of the day before (`mahjong-daily`) does not wipe out the next day's
///   check.
pub async fn lb_5_opted_in_players_are_told_once_around_the_top_and_the_tick<S: Store + Clone + 'static>(
    store: S,
) {
    for i in 0..200 {
        seed_balance(&store, &player(i), 20_000 - 10 * i as i64, 1_000 + i as i64).await;
    }
    let opt_in = |p: String| {
        let store = store.clone();
        async move {
            let answer = follows(&store, "PUT", "seega", &p).await;
            assert_eq!(answer.status, 200, "{}", answer.body);
        }
    };
    let seega = podium_rules::board::BoardRef::all_time("seega");
    // A pass scored after the snapshot was built, before the opt-ins are checked.
    opt_in(player(150)).await;
    refresh(&store, 1).await;
    podium_service::boards::snapshot::write::run(&store, &seega, "manual-2", later(2), 50, None, later(2))
        .await
        .expect("snapshot");
    seed_balance(&store, &player(151), 18_600, 5_000).await;
    podium_service::players::overtaken::notify(&store, &seega, "manual-2", later(2))
        .await
        .expect("notify");
    refresh(&store, 3).await;
    refresh(&store, 4).await;
    let got = overtaken(&store, &player(150)).await;
    assert_eq!(got.len(), 1, "told once: {got:?}");
    assert_eq!(passers(&got[0]), [player(151)]);
    // Around the 100th place: ot120 opts in, climbs to 51st, is passed by ot051, then
    // falls out of the top by its own loss.
    opt_in(player(120)).await;
    refresh(&store, 5).await;
    seed_balance(&store, &player(120), 19_505, 5_001).await;
    refresh(&store, 6).await;
    seed_balance(&store, &player(51), 19_600, 5_002).await;
    refresh(&store, 7).await;
    seed_balance(&store, &player(120), 18_795, 5_003).await;
    refresh(&store, 8).await;
    refresh(&store, 9).await;
    let got = overtaken(&store, &player(120)).await;
    assert_eq!(got.len(), 1, "told once: {got:?}");
    assert_eq!(passers(&got[0]), [player(51)]);
}

/// LB-5: an opted-in player's check whose write fails after its message was sent
/// (the tick fails), then the next tick: the pass told then is not told again, and a
/// later neighbour's pass is told (under a key of its own), not lost.
pub async fn lb_5_a_failed_check_write_loses_no_later_pass<S: Store + Clone + 'static>(store: S) {
    for i in 0..200 {
        seed_balance(&store, &player(i), 20_000 - 10 * i as i64, 1_000 + i as i64).await;
    }
    let me = player(150);
    assert_eq!(follows(&store, "PUT", "seega", &me).await.status, 200);
    refresh(&store, 1).await;
    seed_balance(&store, &player(152), 18_505, 5_000).await;
    let faulty = crate::faults::Faulty::new(store.clone()).failing_item_writes("FOLLOW#", 1);
    assert!(try_refresh(&faulty, 2).await.is_err(), "the check's write failed");
    seed_balance(&store, &player(151), 18_520, 5_001).await;
    refresh(&store, 3).await;
    refresh(&store, 4).await;
    let got = overtaken(&store, &me).await;
    let told: Vec<Vec<String>> = got.iter().map(passers).collect();
    assert_eq!(told, [vec![player(152)], vec![player(151)]], "{got:?}");
}

#[macro_export]
macro_rules! overtaken_tests {
    ($make:path) => {
        $crate::overtaken_tests!(@cases $make;
            lb_5_the_top_100_hear_who_passed_them_once,
            lb_5_opted_in_players_hear_of_neighbours_passing,
            lb_5_opted_in_players_are_told_once_around_the_top_and_the_tick,
            lb_5_a_failed_check_write_loses_no_later_pass,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::overtaken::$case($make().await).await;
            }
        )*
    };
}
