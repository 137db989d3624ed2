//! Weekly leagues on both stores ([`podium_rules::league`], GM-3, LB-2): every
//! player placed once in a cohort of at most 30 with their first points of the week,
//! concurrent first points included and several players of one settlement together;
//! the week's close promotes and relegates once, sends one `league_result` each, and
//! a player's next placement uses the tier the close gives (even before it ran).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use futures::future::join_all;
use futures::StreamExt;
use podium_rules::board::board_def;
use podium_rules::league::{self, Membership, LEAGUES};
use podium_service::api::{self, ApiContext, ApiResponse};
use podium_service::leagues;
use podium_service::period_boards;
use podium_service::snapshot_jobs::{handle, Job, ScheduledRun};
use podium_store::{ErasureStore, ItemStore, SettleStore, Store};
use serde_json::Value;

use crate::contract::cursor_key;
use crate::review::get;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

async fn credit<S: Store>(store: &S, player: &str, points: i64, at: &str, source: &str) {
    let weekly = board_def("mahjong-weekly").expect("registered");
    let at = t(at);
    period_boards::credit(store, weekly, player, points, at, at, source)
        .await
        .expect("credit");
}

async fn membership<S: SettleStore + ?Sized>(store: &S, player: &str) -> Membership {
    match store
        .get_state(player, &league::state_name(&LEAGUES[0]))
        .await
        .expect("read")
    {
        Some(s) => serde_json::from_str(&s.body).expect("membership"),
        None => Membership::default(),
    }
}

async fn call<S: Store + Clone + 'static>(
    store: &S,
    path: &str,
    q: &[(&str, &str)],
    player: &str,
    now: &str,
) -> ApiResponse {
    api::handle(
        store,
        &ApiContext::new(cursor_key()),
        &get(path, q, player),
        t(now),
    )
    .await
}

/// `n` player ids `{prefix}00`, … that fill cohorts in the same shard as the first.
fn same_shard(prefix: &str, n: usize) -> Vec<String> {
    let shard = league::shard_of(&format!("{prefix}00"), LEAGUES[0].shards);
    (0..)
        .map(|i| format!("{prefix}{i:02}"))
        .filter(|p| league::shard_of(p, LEAGUES[0].shards) == shard)
        .take(n)
        .collect()
}

/// Credits week 48 (2026-11-25) to `players`: `top` points to the first, 10 fewer to each next.
async fn seed_week_48<S: Store>(store: &S, players: &[String], top: i64) {
    for (i, p) in players.iter().enumerate() {
        credit(
            store,
            p,
            top - 10 * i as i64,
            "2026-11-25T12:00:00Z",
            &format!("w48-{p}"),
        )
        .await;
    }
}

/// The scheduled freeze tick at `at` (RFC 3339), without reward tables.
async fn freeze_at<S: Store>(
    store: &S,
    at: &str,
) -> Result<Vec<podium_service::snapshot_jobs::BoardRun>, podium_service::ServiceError> {
    let run = ScheduledRun {
        job: Job::Freeze,
        scheduled_time: t(at),
    };
    handle(store, run, &Default::default()).await
}

/// Every cohort of `week` a set of players was placed in, with its members.
async fn cohorts_of<S: Store>(store: &S, players: &[String], week: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for p in players {
        let m = membership(store, p).await;
        assert_eq!(m.week.as_deref(), Some(week), "{p} placed in {week}");
        let cohort = m.cohort.expect("a cohort");
        if let std::collections::btree_map::Entry::Vacant(slot) = out.entry(cohort) {
            let members = leagues::members(store, &LEAGUES[0], week, slot.key())
                .await
                .expect("members");
            slot.insert(members);
        }
    }
    out
}

/// Placement: 100 players' first points of week 2026-W49, 40 of them twice at once,
/// place each exactly once, in first-tier cohorts of at most 30 that together hold
/// exactly them; later points move nobody. An Arena whose three prize winners fill
/// the same cohort places all three in its one commit.
pub async fn league_placement_is_once_per_player_and_week<S: Store + Clone + 'static>(store: S) {
    let players: Vec<String> = (0..100).map(|i| format!("lg{i:03}")).collect();
    let firsts = players.iter().enumerate().map(|(i, p)| {
        let store = store.clone();
        async move {
            if i < 40 {
                // Two first points at once: one placement.
                join_all([
                    credit(&store, p, 10, "2026-12-01T10:00:00Z", &format!("a-{p}")),
                    credit(&store, p, 20, "2026-12-01T10:00:01Z", &format!("b-{p}")),
                ])
                .await;
            } else {
                credit(
                    &store,
                    p,
                    10 + i as i64,
                    "2026-12-01T10:00:00Z",
                    &format!("a-{p}"),
                )
                .await;
            }
        }
    });
    // 16 players at a time (a Lambda's batch is bounded too): DynamoDB Local serialises
    // transactions, and 140 at once on 4 items outlast the 1.5 s attempt timeout.
    futures::stream::iter(firsts)
        .buffer_unordered(16)
        .collect::<Vec<()>>()
        .await;
    let cohorts = cohorts_of(&store, &players, "2026-W49").await;
    let mut placed: Vec<String> = cohorts.values().flatten().cloned().collect();
    placed.sort();
    assert_eq!(placed, players, "each player in exactly one cohort");
    for (cohort, members) in &cohorts {
        assert!(members.len() <= 30, "{cohort}: {}", members.len());
        assert_eq!(
            league::tier_of_cohort(cohort),
            Some(0),
            "new players start in the first tier"
        );
    }
    credit(&store, "lg005", 7, "2026-12-02T10:00:00Z", "c-lg005").await;
    assert_eq!(
        cohorts_of(&store, &players, "2026-W49").await,
        cohorts,
        "later points move nobody"
    );

    // An Arena's three prize winners, chosen to fill the same cohort, in one commit.
    let mut same: Vec<String> = Vec::new();
    for i in 0.. {
        let p = format!("ar{i}");
        if same.is_empty()
            || league::shard_of(&p, LEAGUES[0].shards) == league::shard_of(&same[0], LEAGUES[0].shards)
        {
            same.push(p);
        }
        if same.len() == 4 {
            break;
        }
    }
    let names: [&str; 4] = [&same[0], &same[1], &same[2], &same[3]];
    let line = crate::mahjong::arena_line(
        "lg-arena",
        names,
        [[300, 300, 300], [200, 200, 200], [100, 100, 100], [0, 0, 0]],
        [0; 4],
    );
    crate::mahjong::settle(&store, &line, t("2027-07-18T21:31:00Z"))
        .await
        .expect("arena settled");
    let winners: Vec<String> = same[..3].to_vec();
    let cohorts = cohorts_of(&store, &winners, "2027-W29").await;
    assert_eq!(cohorts.len(), 1, "one cohort: {cohorts:?}");
    let members: BTreeSet<&String> = cohorts.values().flatten().collect();
    assert_eq!(members, winners.iter().collect(), "all three, once");
}

/// The week's close (the freeze after week 48): 40 players with distinct points in
/// one first-tier cohort of 30 and one of 10: the top 5 of the 30 (and the top 3 of
/// the 10) promoted to silver, nobody relegated from the first tier; each gets one
/// `league_result` message, whether two closes run at once or again later. A player who scores in
/// week 49 before the close ran is placed with the tier the close then records.
pub async fn league_week_closes_once_and_moves_tiers<S: Store + Clone + 'static>(store: S) {
    // Same shard for all, so that they fill cohorts of 30 and 10.
    let players = same_shard("w", 40);
    seed_week_48(&store, &players, 1_000).await;
    let cohorts = cohorts_of(&store, &players, "2026-W48").await;
    let sizes: Vec<usize> = cohorts.values().map(Vec::len).collect();
    assert_eq!(sizes, [30, 10]);
    // A cohort's entries read in one batch equal those read one by one, absent ones too.
    let week48 = podium_rules::board::BoardRef::new("mahjong-weekly", "2026-W48");
    let mut asked: Vec<&str> = players.iter().map(String::as_str).collect();
    asked.push("nobody");
    let batch = store.get_entries(&week48, &asked).await.expect("batch");
    for (p, got) in asked.iter().zip(&batch) {
        assert_eq!(got, &store.get_entry(&week48, p).await.expect("one"), "{p}");
    }
    assert!(batch.last().is_some_and(Option::is_none));
    // players[0] leads the cohort of 30: it scores in week 49 before the close.
    credit(&store, &players[0], 5, "2026-11-30T00:30:00+02:00", "w49-early").await;
    let early = membership(&store, &players[0]).await;
    assert_eq!(
        (early.week.as_deref(), early.tier),
        (Some("2026-W49"), 1),
        "placed as promoted"
    );
    assert_eq!(early.cohort.as_deref().and_then(league::tier_of_cohort), Some(1));

    let freeze = |at: &'static str| {
        let store = store.clone();
        async move { freeze_at(&store, at).await.expect("freeze") }
    };
    // The freeze closes the week while another close of it runs; then a rerun.
    let concurrent = leagues::close_week(&store, &LEAGUES[0], "2026-W48", t("2026-11-29T22:05:00Z"));
    let (_, concurrent) = tokio::join!(freeze("2026-11-29T22:05:00Z"), concurrent);
    freeze("2026-11-29T22:10:00Z").await;
    let report = leagues::close_week(&store, &LEAGUES[0], "2026-W48", t("2026-11-30T00:00:00Z"))
        .await
        .expect("close again");
    assert!(
        report.already_done && report.sent == 0,
        "closed before: {report:?}"
    );
    let first = concurrent.expect("concurrent close");
    if !first.already_done {
        assert_eq!((first.placed, first.promoted, first.relegated), (40, 8, 0));
        assert_eq!(first.cohort_sizes, BTreeMap::from([(10, 1), (30, 1)]));
    }
    let mut promoted = 0;
    for p in &players {
        let inbox = call(&store, "/v1/me/inbox", &[], p, "2026-11-30T10:00:00Z").await;
        let messages: Vec<&Value> = inbox.body["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["kind"] == "league_result")
            .collect();
        assert_eq!(messages.len(), 1, "{p}: {}", inbox.body);
        let outcome = &messages[0]["league"];
        if outcome["movement"] == "promoted" {
            promoted += 1;
            assert_eq!(
                (outcome["tier_after"].as_u64(), outcome["tier_name"].as_str()),
                (Some(1), Some("silver"))
            );
        }
        assert_eq!(messages[0]["period"], "2026-W48");
        let m = membership(&store, p).await;
        assert_eq!(
            m.tier,
            outcome["tier_after"].as_u64().unwrap_or(9) as u32,
            "{p}'s tier is the close's"
        );
    }
    assert_eq!(promoted, 8);
    assert_eq!(
        membership(&store, &players[0]).await,
        early,
        "the early placement already held the move"
    );

    // The caller's league now, and a cohort by week; refusals name what is wrong.
    let mine = call(
        &store,
        "/v1/leagues/mahjong-league/me",
        &[],
        &players[0],
        "2026-11-30T10:00:00Z",
    )
    .await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    assert_eq!(
        (mine.body["week"].as_str(), mine.body["tier_name"].as_str()),
        (Some("2026-W49"), Some("silver"))
    );
    assert_eq!(
        mine.body["cohort"]["entries"][0]["player_id"].as_str(),
        Some(players[0].as_str())
    );
    let idle = call(
        &store,
        "/v1/leagues/mahjong-league/me",
        &[],
        &players[39],
        "2026-11-30T10:00:00Z",
    )
    .await;
    assert!(
        idle.body.get("cohort").is_none(),
        "not placed this week: {}",
        idle.body
    );
    let cohort = cohorts.keys().next().expect("a cohort").clone();
    let path = format!("/v1/leagues/mahjong-league/cohorts/{cohort}");
    let page = call(
        &store,
        &path,
        &[("week", "2026-W48")],
        "anyone",
        "2026-11-30T10:00:00Z",
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let zones: Vec<&str> = page.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["zone"].as_str())
        .collect();
    assert_eq!(zones.iter().filter(|z| **z == "promotion").count(), 5);
    let bad_week = call(
        &store,
        &path,
        &[("week", "2026-W99")],
        "anyone",
        "2026-11-30T10:00:00Z",
    )
    .await;
    assert_eq!(bad_week.status, 400);
    assert!(
        bad_week.body["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("week"),
        "{}",
        bad_week.body
    );
    for missing in [
        "/v1/leagues/chess/me",
        "/v1/leagues/mahjong-league/cohorts/t9-s0-n0",
        "/v1/leagues/mahjong-league/cohorts/x",
    ] {
        assert_eq!(
            call(&store, missing, &[], "anyone", "2026-11-30T10:00:00Z")
                .await
                .status,
            404,
            "{missing}"
        );
    }
}

/// Found by attack: after a week's close, a late record of that week and a player's
/// deletion change its cohorts' standings; later freezes used to fail on every tick
/// (the close ranked the week again and conflicted), which also kept the daily board
/// from being frozen. Now a closed week is not ranked again, the first results
/// stand, and a late first record of an older week does not move a player's
/// membership back in time.
pub async fn league_close_survives_late_records_and_deletions<
    S: Store + ErasureStore + ItemStore + Clone + 'static,
>(
    store: S,
) {
    let players = same_shard("z", 12);
    seed_week_48(&store, &players, 500).await;
    let freeze = |at: &'static str| {
        let store = store.clone();
        async move { freeze_at(&store, at).await }
    };
    freeze("2026-11-29T22:05:00Z").await.expect("freeze");
    // A late record of week 48 for the last of the cohort, and a deletion.
    let weekly = board_def("mahjong-weekly").expect("registered");
    period_boards::credit(
        &store,
        weekly,
        &players[11],
        1_000,
        t("2026-11-29T20:00:00Z"),
        t("2026-11-30T10:00:00Z"),
        "z48-late",
    )
    .await
    .expect("late credit");
    podium_service::deletion::delete_player(&store, &players[0], t("2026-11-30T10:00:00Z"))
        .await
        .expect("deleted");
    // A player of week 49 whose late first record of week 48 arrives afterwards.
    credit(&store, "z-late", 30, "2026-12-01T10:00:00Z", "z49-late").await;
    let placed = membership(&store, "z-late").await;
    period_boards::credit(
        &store,
        weekly,
        "z-late",
        5,
        t("2026-11-29T20:00:00Z"),
        t("2026-12-01T11:00:00Z"),
        "z48-zlate",
    )
    .await
    .expect("late first credit");
    assert_eq!(
        membership(&store, "z-late").await,
        placed,
        "not moved back to week 48"
    );
    // The daily board of the 30th is frozen, and later ticks succeed.
    credit(&store, "daily-winner", 10, "2026-11-30T12:00:00Z", "d-1").await;
    for at in ["2026-11-30T22:05:00Z", "2026-11-30T23:05:00Z"] {
        freeze(at).await.expect("the freeze goes on");
    }
    let day = call(
        &store,
        "/v1/leaderboards/mahjong-daily",
        &[("period", "2026-11-30")],
        "anyone",
        "2026-12-01T10:00:00Z",
    )
    .await;
    assert_eq!(day.status, 200);
    assert_eq!(day.body["snapshot"], "final", "the day was frozen: {}", day.body);
    // Each remaining member still has exactly one week-48 result: the first.
    for p in &players[1..] {
        let inbox = call(&store, "/v1/me/inbox", &[], p, "2026-12-01T10:00:00Z").await;
        let results = inbox.body["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["id"] == "lr:mahjong-league:2026-W48")
            .count();
        assert_eq!(results, 1, "{p}");
    }
}

#[macro_export]
macro_rules! league_tests {
    ($make:path) => {
        $crate::league_tests!(@cases $make;
            league_placement_is_once_per_player_and_week,
            league_week_closes_once_and_moves_tiers,
            league_close_survives_late_records_and_deletions,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::leagues::$case($make().await).await;
            }
        )*
    };
}
