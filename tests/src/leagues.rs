//! Weekly leagues on both stores ([`podium_rules::league`], GM-3, LB-2): every
//! player placed once in a cohort of at most 30 with their first points of the week,
//! concurrent first points included and several players of one settlement together;
//! the week's close promotes and relegates once from the frozen week, sends one
//! `league_result` each, and is the one decision of a player's tier: a player who
//! scores in the next week before the close waits for it and plays the tier it
//! announced, whatever points of either week arrive around it.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use futures::future::join_all;
use futures::StreamExt;
use podium_rules::board::board_def;
use podium_rules::league::{self, Membership, LEAGUES};
use podium_service::api::{self, ApiContext, ApiResponse};
use podium_service::boards::periods;
use podium_service::jobs::{handle, Job, ScheduledRun};
use podium_service::players::leagues;
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
    periods::credit(store, weekly, player, points, at, at, source)
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
pub fn same_shard(prefix: &str, n: usize) -> Vec<String> {
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
        // A player a second: the cohorts fill as a day's players fill them, never
        // busy (a busy cohort spills, LB-7: `a_busy_cohort_spills_…`).
        let at = (t("2026-11-25T12:00:00Z") + chrono::Duration::seconds(i as i64)).to_rfc3339();
        credit(store, p, top - 10 * i as i64, &at, &format!("w48-{p}")).await;
    }
}

/// The scheduled freeze tick at `at` (RFC 3339), without reward tables.
async fn freeze_at<S: Store>(
    store: &S,
    at: &str,
) -> Result<Vec<podium_service::jobs::BoardRun>, podium_service::ServiceError> {
    let run = ScheduledRun {
        job: Job::Freeze,
        scheduled_time: t(at),
    };
    handle(store, run, &Default::default()).await.map(|r| r.runs)
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
/// week 49 before the close ran waits for it, and is placed by it at the tier it records.
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
    // players[0] leads the cohort of 30: it scores in week 49 before the close, and
    // waits for it (the close decides its tier).
    credit(&store, &players[0], 5, "2026-11-30T00:00:30+02:00", "w49-early").await;
    let early = membership(&store, &players[0]).await;
    assert_eq!(
        (early.week.as_deref(), early.tier, early.pending.as_slice()),
        (Some("2026-W48"), 0, ["2026-W49".to_string()].as_slice()),
        "waits for the close of week 48"
    );
    let waiting = call(
        &store,
        "/v1/leagues/mahjong-league/me",
        &[],
        &players[0],
        "2026-11-30T00:00:40+02:00",
    )
    .await;
    assert_eq!(waiting.body["awaiting_close_of"], "2026-W48", "{}", waiting.body);
    assert!(waiting.body.get("cohort").is_none(), "{}", waiting.body);

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
    if !first.already_done && first.frozen {
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
    let placed = membership(&store, &players[0]).await;
    assert_eq!(
        (placed.week.as_deref(), placed.tier, placed.pending.is_empty()),
        (Some("2026-W49"), 1, true),
        "placed by the close, promoted"
    );
    assert_eq!(placed.cohort.as_deref().and_then(league::tier_of_cohort), Some(1));

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
    periods::credit(
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
    podium_service::operators::deletion::delete_player(&store, &players[0], t("2026-11-30T10:00:00Z"))
        .await
        .expect("deleted");
    // A player of week 49 whose late first record of week 48 arrives afterwards.
    credit(&store, "z-late", 30, "2026-12-01T10:00:00Z", "z49-late").await;
    let placed = membership(&store, "z-late").await;
    periods::credit(
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

/// The message `id` in `player`'s inbox, if any.
async fn message<S: Store + Clone + 'static>(store: &S, player: &str, id: &str, now: &str) -> Option<Value> {
    let inbox = call(store, "/v1/me/inbox", &[], player, now).await;
    inbox.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["id"] == id)
        .cloned()
}

/// The `league_result` of `week` in `player`'s inbox, if any.
async fn league_result<S: Store + Clone + 'static>(
    store: &S,
    player: &str,
    week: &str,
    now: &str,
) -> Option<Value> {
    message(store, player, &format!("lr:mahjong-league:{week}"), now).await
}

/// The `period_result` of `mahjong-weekly` in `week` in `player`'s inbox, if any.
async fn period_result<S: Store + Clone + 'static>(
    store: &S,
    player: &str,
    week: &str,
    now: &str,
) -> Option<Value> {
    message(store, player, &format!("pr:mahjong-weekly:{week}"), now).await
}

/// Review round 3, fault 1 (`league-tier/`): lg-0, lg-1 and lg-9 score 20 each in week
/// 48 (one cohort); lg-1 scores in week 49 before the close (and waits for it); then
/// 40 more points of week 48 for lg-1 arrive, still before the close: the close
/// announces "promoted to silver" to lg-1 and lg-1 plays week 49 in silver. Points of
/// week 48 arriving after the freeze change no result: the period result and the
/// league result both rank the frozen week (lg-9's 20, not 120).
pub async fn league_tier_played_is_the_tier_announced<S: Store + Clone + 'static>(store: S) {
    let players = same_shard("lg-", 3);
    for p in &players {
        credit(&store, p, 20, "2026-11-25T12:00:00Z", &format!("s1-{p}")).await;
    }
    let (early, late) = (&players[1], &players[2]);
    credit(&store, early, 5, "2026-11-30T08:00:00Z", "s1-next-week").await;
    credit(&store, early, 40, "2026-11-29T21:00:00Z", "s2-last-sunday").await;
    // The week is frozen; then a late record of it arrives; then the week closes.
    let weekly = board_def("mahjong-weekly").expect("registered");
    let w48 = weekly.period_at(t("2026-11-25T12:00:00Z"));
    periods::freeze(
        &store,
        weekly,
        &w48,
        t("2026-11-29T22:01:00Z"),
        Default::default(),
    )
    .await
    .expect("frozen");
    periods::credit(
        &store,
        weekly,
        late,
        100,
        t("2026-11-29T20:00:00Z"),
        t("2026-11-29T22:02:00Z"),
        "s3-after-the-freeze",
    )
    .await
    .expect("late credit");
    let tables = podium_service::config::parse_period_rewards(
        r#"{"mahjong-weekly": {"bands": [{"ranks": [1, 1], "points": 100}]}}"#,
    )
    .expect("tables");
    let run = ScheduledRun {
        job: Job::Freeze,
        scheduled_time: t("2026-11-29T22:05:00Z"),
    };
    handle(&store, run, &tables.into()).await.expect("the close");
    let now = "2026-11-30T10:00:00Z";
    let announced = league_result(&store, early, "2026-W48", now)
        .await
        .expect("a league result");
    assert_eq!(
        (
            announced["league"]["movement"].as_str(),
            announced["league"]["tier_after"].as_u64(),
            announced["league"]["tier_name"].as_str()
        ),
        (Some("promoted"), Some(1), Some("silver")),
        "{announced}"
    );
    let m = membership(&store, early).await;
    assert_eq!((m.week.as_deref(), m.tier), (Some("2026-W49"), 1));
    assert_eq!(m.cohort.as_deref().and_then(league::tier_of_cohort), Some(1));
    let mine = call(&store, "/v1/leagues/mahjong-league/me", &[], early, now).await;
    assert_eq!(
        (
            mine.body["week"].as_str(),
            mine.body["tier_name"].as_str(),
            mine.body["cohort"]["tier"].as_u64()
        ),
        (Some("2026-W49"), Some("silver"), Some(1)),
        "{}",
        mine.body
    );
    // One frozen source for both results of the week, whatever arrived after it.
    for p in &players {
        let league = league_result(&store, p, "2026-W48", now)
            .await
            .expect("league result");
        let period = period_result(&store, p, "2026-W48", now)
            .await
            .expect("period result");
        assert_eq!(league["value"], period["value"], "{p}: {league} / {period}");
    }
    let lagging = league_result(&store, late, "2026-W48", now)
        .await
        .expect("result");
    assert_eq!(lagging["value"], 20, "the frozen value: {lagging}");
    // The closed cohort reads as its close recorded it.
    let cohort = m.cohort.clone().expect("cohort");
    let closed = membership(&store, &players[0])
        .await
        .cohort
        .expect("week 48's cohort");
    let view = call(
        &store,
        &format!("/v1/leagues/mahjong-league/cohorts/{closed}"),
        &[("week", "2026-W48")],
        "anyone",
        now,
    )
    .await;
    let lines: Vec<(String, i64, String)> = view.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or("").to_string(),
                e["value"].as_i64().unwrap_or(-1),
                e["zone"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        lines[0],
        (early.clone(), 60, "promotion".to_string()),
        "{}",
        view.body
    );
    assert!(lines.iter().any(|l| l.0 == *late && l.1 == 20), "{}", view.body);
    assert!(cohort.starts_with("t1-"), "{cohort}");
}

/// Fault 1 under concurrency: 24 players of week 48 in one shard; around Sunday
/// midnight, late points of week 48 and first points of week 49 arrive while three
/// ticks close the week at once, then the ticks go on. For every player: one league
/// result, its `tier_after` is the tier they play (their week-49 cohort's), and its
/// value is their period result's.
pub async fn league_tiers_hold_under_a_midnight_race<S: Store + Clone + 'static>(store: S) {
    let players = same_shard("mr", 24);
    seed_week_48(&store, &players, 500).await;
    let racing = players.iter().enumerate().map(|(i, p)| {
        let store = store.clone();
        async move {
            let late = format!("2026-11-29T21:{:02}:00Z", 30 + i);
            credit(&store, p, 7 * i as i64, &late, &format!("mr-late-{p}")).await;
            let next = format!("2026-11-29T22:{:02}:30Z", i % 10);
            credit(&store, p, 3, &next, &format!("mr-next-{p}")).await;
        }
    });
    let ticks = (0..3).map(|k| {
        let store = store.clone();
        async move {
            let run = ScheduledRun {
                job: if k == 0 { Job::Freeze } else { Job::Refresh },
                scheduled_time: t("2026-11-29T22:05:00Z"),
            };
            handle(&store, run, &Default::default()).await.map(|_| ())
        }
    });
    let (_, outcomes) = tokio::join!(
        futures::stream::iter(racing)
            .buffer_unordered(8)
            .collect::<Vec<()>>(),
        join_all(ticks)
    );
    for o in outcomes {
        o.expect("a tick that meets another one succeeds");
    }
    // Later ticks finish what the race left; the players' week-49 points arrived.
    for at in ["2026-11-29T22:10:00Z", "2026-11-30T10:00:00Z"] {
        freeze_at(&store, at).await.expect("later tick");
    }
    let now = "2026-11-30T10:00:00Z";
    for p in &players {
        let result = league_result(&store, p, "2026-W48", now)
            .await
            .expect("league result");
        let m = membership(&store, p).await;
        assert_eq!(m.week.as_deref(), Some("2026-W49"), "{p}: {m:?}");
        let after = result["league"]["tier_after"].as_u64().expect("tier_after") as u32;
        assert_eq!(m.tier, after, "{p} plays the tier announced: {result}");
        assert_eq!(
            m.cohort.as_deref().and_then(league::tier_of_cohort),
            Some(after),
            "{p}'s cohort"
        );
    }
}

/// Fault 1's repro as the queue delivers it: every record of week 48 arrives after
/// the week ended (a backlog), before any tick ran: its players still join the week
/// and the close ranks them; a first record of week 48 that arrives once the freeze
/// has begun places nobody (the frozen week takes nobody new).
pub async fn league_a_backlog_before_the_close_joins_the_week<S: Store + Clone + 'static>(store: S) {
    let weekly = board_def("mahjong-weekly").expect("registered");
    let players = same_shard("bl", 3);
    for (i, p) in players.iter().enumerate() {
        periods::credit(
            &store,
            weekly,
            p,
            20 + 10 * i as i64,
            t("2026-11-25T12:00:00Z"),
            t("2026-11-30T09:00:00Z"),
            &format!("bl-{p}"),
        )
        .await
        .expect("late credit");
        assert_eq!(
            membership(&store, p).await.week.as_deref(),
            Some("2026-W48"),
            "{p}"
        );
    }
    freeze_at(&store, "2026-11-30T10:00:00Z").await.expect("the tick");
    periods::credit(
        &store,
        weekly,
        "bl-after",
        50,
        t("2026-11-25T12:00:00Z"),
        t("2026-11-30T10:01:00Z"),
        "bl-after",
    )
    .await
    .expect("credit after the freeze");
    assert_eq!(
        membership(&store, "bl-after").await,
        Membership::default(),
        "placed nowhere"
    );
    for p in &players {
        let result = league_result(&store, p, "2026-W48", "2026-11-30T10:05:00Z").await;
        assert!(result.is_some(), "{p} was ranked");
    }
    assert!(
        league_result(&store, "bl-after", "2026-W48", "2026-11-30T10:05:00Z")
            .await
            .is_none()
    );
}

/// Found by attack (GM-6): a member deleted before the close is left out of it (the
/// deletion wrote the pseudonym into the member list): the cohort is ranked without
/// them, its record is stored, and its view after the close is what the messages say.
pub async fn league_a_member_deleted_before_the_close_is_left_out<
    S: Store + ErasureStore + ItemStore + Clone + 'static,
>(
    store: S,
) {
    let players = same_shard("dl", 6);
    seed_week_48(&store, &players, 600).await;
    let cohort = membership(&store, &players[0]).await.cohort.expect("a cohort");
    podium_service::operators::deletion::delete_player(&store, &players[5], t("2026-11-28T10:00:00Z"))
        .await
        .expect("deleted");
    freeze_at(&store, "2026-11-29T22:05:00Z")
        .await
        .expect("the close");
    let now = "2026-11-30T10:00:00Z";
    let mut promoted = Vec::new();
    for p in &players[..5] {
        let r = league_result(&store, p, "2026-W48", now).await.expect("a result");
        assert_eq!(r["of"], 5, "{p}: {r}");
        if r["league"]["movement"] == "promoted" {
            promoted.push(p.clone());
        }
    }
    assert_eq!(promoted, [players[0].clone()], "a third of 5 is 1");
    let view = call(
        &store,
        &format!("/v1/leagues/mahjong-league/cohorts/{cohort}"),
        &[("week", "2026-W48")],
        "anyone",
        now,
    )
    .await;
    let zones: Vec<(String, String)> = view.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or("").to_string(),
                e["zone"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(zones.len(), 5, "{}", view.body);
    assert_eq!(zones[0], (players[0].clone(), "promotion".to_string()));
    assert!(zones[1..].iter().all(|(_, z)| z == "stay"), "{}", view.body);
    // Late records after the close change nothing it recorded.
    credit(&store, &players[4], 900, "2026-11-29T21:59:00Z", "dl-late").await;
    let again = call(
        &store,
        &format!("/v1/leagues/mahjong-league/cohorts/{cohort}"),
        &[("week", "2026-W48")],
        "anyone",
        now,
    )
    .await;
    assert_eq!(again.body, view.body);
}

/// GM-6, GM-3: a member deleted mid-week (their cohort's member list rewritten with the
/// pseudonym) blocks nobody: later first points of the week in the same tier and
/// shard place their players, in that same cohort, and the list holds the pseudonym
/// and them.
pub async fn league_a_deletion_mid_week_blocks_no_later_placement<
    S: Store + ErasureStore + ItemStore + Clone + 'static,
>(
    store: S,
) {
    let players = same_shard("dm", 5);
    seed_week_48(&store, &players[..2], 600).await;
    let cohort = membership(&store, &players[0]).await.cohort.expect("a cohort");
    let report =
        podium_service::operators::deletion::delete_player(&store, &players[0], t("2026-11-26T10:00:00Z"))
            .await
            .expect("deleted");
    for (i, p) in players[2..].iter().enumerate() {
        credit(
            &store,
            p,
            100 + i as i64,
            "2026-11-26T12:00:00Z",
            &format!("w48-late-{p}"),
        )
        .await;
        assert_eq!(
            membership(&store, p).await.cohort.as_deref(),
            Some(cohort.as_str()),
            "{p} joins the cohort the deleted member was in"
        );
    }
    let members = leagues::members(&store, &LEAGUES[0], "2026-W48", &cohort)
        .await
        .expect("members");
    let mut expected = vec![report.pseudonym.clone()];
    expected.extend(players[1..].iter().cloned());
    assert_eq!(members, expected);
}

/// A player the frozen week ranks but nobody placed (their first record of the week
/// arrived once its freeze had begun, before the freeze read it) joins a cohort at
/// the close and gets their league result, with the value their period result has.
pub async fn league_every_player_the_frozen_week_ranks_is_in_its_league<S: Store + Clone + 'static>(
    store: S,
) {
    let players = same_shard("fj", 2);
    seed_week_48(&store, &players, 100).await;
    leagues::mark_frozen(&store, &LEAGUES[0], "2026-W48", t("2026-11-29T22:01:00Z"))
        .await
        .expect("marked");
    let weekly = board_def("mahjong-weekly").expect("registered");
    periods::credit(
        &store,
        weekly,
        "fj-late",
        70,
        t("2026-11-29T21:00:00Z"),
        t("2026-11-29T22:01:30Z"),
        "fj-late",
    )
    .await
    .expect("credit");
    assert_eq!(
        membership(&store, "fj-late").await,
        Membership::default(),
        "not placed then"
    );
    let tables = podium_service::config::parse_period_rewards(
        r#"{"mahjong-weekly": {"bands": [{"ranks": [1, 1], "points": 10}]}}"#,
    )
    .expect("tables");
    let run = ScheduledRun {
        job: Job::Freeze,
        scheduled_time: t("2026-11-29T22:05:00Z"),
    };
    handle(&store, run, &tables.into()).await.expect("the close");
    let now = "2026-11-30T10:00:00Z";
    let league = league_result(&store, "fj-late", "2026-W48", now)
        .await
        .expect("a league result");
    let period = period_result(&store, "fj-late", "2026-W48", now)
        .await
        .expect("a period result");
    assert_eq!(league["value"], period["value"]);
    assert_eq!(league["value"], 70);
    assert_eq!(
        membership(&store, "fj-late").await.week.as_deref(),
        Some("2026-W48")
    );
}

/// Review round 4, known item: records that arrive out of order. `oo00`'s first
/// record of week 49 arrives (placing them in a week-49 bronze cohort, beside
/// `oo03`) before their first record of week 48, which wins week 48's cohort. The
/// close ranks them in week 48 and announces "promoted to silver", and they play week
/// 49 in silver: they left the bronze cohort, and their message, the cohort's record
/// and their membership agree. A second close changes nothing.
pub async fn league_records_out_of_order_end_as_in_order<S: Store + Clone + 'static>(store: S) {
    let players = same_shard("oo", 4);
    let (late, rivals, neighbour) = (&players[0], &players[1..3], &players[3]);
    for (i, p) in rivals.iter().enumerate() {
        credit(
            &store,
            p,
            100 - 10 * i as i64,
            "2026-11-25T12:00:00Z",
            &format!("oo48-{p}"),
        )
        .await;
    }
    // Week 49 begins at 22:00 UTC (Monday, Bucharest); its records come first.
    credit(&store, late, 30, "2026-11-29T22:00:30Z", "oo49-late").await;
    credit(&store, neighbour, 20, "2026-11-29T22:00:40Z", "oo49-neighbour").await;
    let bronze49 = membership(&store, late).await;
    assert_eq!((bronze49.week.as_deref(), bronze49.tier), (Some("2026-W49"), 0));
    let bronze49 = bronze49.cohort.expect("a cohort");
    let weekly = board_def("mahjong-weekly").expect("registered");
    periods::credit(
        &store,
        weekly,
        late,
        500,
        t("2026-11-29T21:59:00Z"),
        t("2026-11-29T22:01:00Z"),
        "oo48-late",
    )
    .await
    .expect("the week-48 record, late");
    for at in ["2026-11-29T22:05:00Z", "2026-11-29T23:05:00Z"] {
        freeze_at(&store, at).await.expect("the close");
    }
    let now = "2026-11-30T10:00:00Z";
    let result = league_result(&store, late, "2026-W48", now)
        .await
        .expect("a week-48 league result");
    assert_eq!(result["value"], 500, "{result}");
    assert_eq!(result["rank"], 1, "{result}");
    assert_eq!(result["league"]["movement"], "promoted", "{result}");
    assert_eq!(result["league"]["tier_after"], 1, "{result}");
    let cohort48 = result["league"]["cohort"].as_str().expect("cohort").to_string();
    let record = call(
        &store,
        &format!("/v1/leagues/mahjong-league/cohorts/{cohort48}"),
        &[("week", "2026-W48")],
        "anyone",
        now,
    )
    .await;
    let first = &record.body["entries"][0];
    assert_eq!(
        (first["player_id"].as_str(), first["zone"].as_str()),
        (Some(late.as_str()), Some("promotion"))
    );
    assert_eq!(
        record.body["entries"].as_array().map(Vec::len),
        Some(3),
        "{}",
        record.body
    );
    // They play week 49 in silver, and the bronze cohort keeps only its other member.
    let m = membership(&store, late).await;
    assert_eq!(
        (m.week.as_deref(), m.tier, m.closed),
        (Some("2026-W49"), 1, false),
        "{m:?}"
    );
    assert_eq!(m.cohort.as_deref().and_then(league::tier_of_cohort), Some(1));
    assert!(m.pending.is_empty(), "{m:?}");
    let bronze = leagues::members(&store, &LEAGUES[0], "2026-W49", &bronze49)
        .await
        .expect("members");
    assert_eq!(bronze, std::slice::from_ref(neighbour));
    let me = call(&store, "/v1/leagues/mahjong-league/me", &[], late, now).await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["tier_name"], "silver", "{}", me.body);
    let entries = me.body["cohort"]["entries"].as_array().expect("their cohort");
    assert!(
        entries
            .iter()
            .any(|e| e["player_id"] == late.as_str() && e["value"] == 30),
        "{}",
        me.body
    );
    // The neighbour, placed in order, is where they were.
    assert_eq!(membership(&store, neighbour).await.cohort, Some(bronze49));
}

/// LB-5, GM-3: a week's close in steps. 65 players of one tier and shard (cohorts of
/// 30, 30 and 5) closed one cohort per call: each call saves its progress and stops,
/// one is killed after settling a cohort and before saving that it did, and the next
/// calls go on from the saved progress; every member gets exactly one
/// `league_result`, every cohort its record, and the week is recorded closed only at
/// the end.
pub async fn league_a_week_closes_in_steps_resumed_after_a_kill<S: Store + ItemStore + Clone + 'static>(
    store: S,
) {
    use podium_service::budget::Budget;
    let players = same_shard("ls", 65);
    seed_week_48(&store, &players, 1_000).await;
    let weekly = board_def("mahjong-weekly").expect("registered");
    let w48 = weekly.period_at(t("2026-11-25T12:00:00Z"));
    let at = t("2026-11-29T22:05:00Z");
    periods::freeze(&store, weekly, &w48, at, Default::default())
        .await
        .expect("frozen");
    let progress = podium_store::ItemKey::new("LEAGUE-CLOSE#mahjong-league@2026-W48", "PROGRESS");
    let (mut calls, mut killed, mut placed) = (0, false, 0);
    loop {
        assert!(calls < 10, "the close never ends");
        calls += 1;
        if calls == 3 {
            let faulty =
                crate::faults::Faulty::new(store.clone()).failing_item_write_after(progress.clone(), 0);
            assert!(
                leagues::close_week_within(&faulty, &LEAGUES[0], "2026-W48", at, Budget::steps(1))
                    .await
                    .is_err()
            );
            killed = true;
            continue;
        }
        let report = leagues::close_week_within(&store, &LEAGUES[0], "2026-W48", at, Budget::steps(1))
            .await
            .expect("a step");
        placed += report.placed;
        if report.done {
            break;
        }
        assert!(report.placed <= 30, "one cohort a call: {report:?}");
    }
    assert!(killed && calls >= 4, "{calls} calls");
    assert!(placed >= 65, "every cohort closed at least once: {placed}");
    let now = "2026-11-30T10:00:00Z";
    for p in players.iter().step_by(8) {
        let inbox = call(&store, "/v1/me/inbox", &[], p, now).await;
        let results = inbox.body["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["id"] == "lr:mahjong-league:2026-W48")
            .count();
        assert_eq!(results, 1, "{p}");
    }
    for p in &players {
        let key = podium_store::SourceKey::new(leagues::RESULT_KIND, format!("mahjong-league@2026-W48:{p}"));
        assert!(store.get_source(&key).await.expect("read").is_some(), "{p}");
    }
    for n in 0..3 {
        let cohort = league::cohort_id(0, league::shard_of(&players[0], LEAGUES[0].shards), n);
        let view = call(
            &store,
            &format!("/v1/leagues/mahjong-league/cohorts/{cohort}"),
            &[("week", "2026-W48")],
            "anyone",
            now,
        )
        .await;
        assert_eq!(view.status, 200, "{cohort}: {}", view.body);
    }
    let again = leagues::close_week(&store, &LEAGUES[0], "2026-W48", at)
        .await
        .expect("again");
    assert!(again.already_done && again.sent == 0, "{again:?}");
}

/// LB-5 (Leagues): a league's weeks close in order, each the one decision of the next
/// tier. An operator's close of week 48 while the ticks have closed no earlier week is
/// refused (409 naming `period`), nothing written and nothing audited; once the ticks
/// have closed through week 48, closing it again is accepted. A body that is a JSON
/// array (`["reason", true]`, which serde would read as the fields in order) is
/// refused naming `body`.
pub async fn league_weeks_close_in_order_and_an_operator_cannot_skip_one<
    S: Store + ItemStore + Clone + 'static,
>(
    store: S,
) {
    use serde_json::json;
    let players = same_shard("lo", 3);
    seed_week_48(&store, &players, 300).await;
    let close = |body: serde_json::Value, at: &'static str| {
        let store = store.clone();
        async move {
            crate::moderation::operator_call(
                &store,
                "POST",
                "/v1/operator/periods/mahjong-weekly/2026-W48/close",
                &[],
                Some("support-7"),
                Some(&body),
                t(at),
            )
            .await
        }
    };
    let early = close(json!({"reason": "the scheduler was off"}), "2026-11-30T10:00:00Z").await;
    assert_eq!(early.status, 409, "{}", early.body);
    let message = early.body["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("period (LB-5)") && message.contains("close in order"),
        "{message}"
    );
    assert!(
        league_result(&store, &players[0], "2026-W48", "2026-11-30T10:00:00Z")
            .await
            .is_none(),
        "nothing sent"
    );
    let array = close(json!(["the scheduler was off", false]), "2026-11-30T10:00:00Z").await;
    assert_eq!(array.status, 400, "{}", array.body);
    assert!(
        array.body["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("body"),
        "{}",
        array.body
    );
    freeze_at(&store, "2026-11-30T10:05:00Z")
        .await
        .expect("the ticks close in order");
    assert!(
        league_result(&store, &players[0], "2026-W48", "2026-11-30T10:10:00Z")
            .await
            .is_some()
    );
    let again = close(json!({"reason": "send what was missed"}), "2026-11-30T10:10:00Z").await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["done"], true, "{}", again.body);
}

/// Each of `players` has exactly one `league_result` in their inbox (week 48 closed).
async fn assert_one_league_result_each<S: Store + Clone + 'static>(store: &S, players: &[String]) {
    for p in players {
        let inbox = call(store, "/v1/me/inbox", &[], p, "2026-11-30T10:00:00Z").await;
        let results = inbox.body["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["kind"] == "league_result")
            .count();
        assert_eq!(results, 1, "{p}: {}", inbox.body);
    }
}

/// LB-7 (the Monday 00:00 spike): 50 players of one shard placed in the same second.
/// The first [`league::BUSY_PER_SECOND`] fill their shard's cohort, the others spill
/// into spill shards (each player in exactly one cohort of the week). The week's
/// close reads the spill shards: every one of the 50 gets one `league_result`.
pub async fn league_a_busy_cohort_spills_and_its_close_finds_every_member<S: Store + Clone + 'static>(
    store: S,
) {
    let players = same_shard("sp", 50);
    for (i, p) in players.iter().enumerate() {
        credit(
            &store,
            p,
            1_000 - i as i64,
            "2026-11-25T12:00:00.500Z",
            &format!("w48-{p}"),
        )
        .await;
    }
    let cohorts = cohorts_of(&store, &players, "2026-W48").await;
    let base = league::shard_of(&players[0], LEAGUES[0].shards);
    let in_base: usize = cohorts
        .iter()
        .filter(|(c, _)| league::parse_cohort(c).is_some_and(|(_, shard, _)| shard == base))
        .map(|(_, m)| m.len())
        .sum();
    assert_eq!(in_base, league::BUSY_PER_SECOND as usize, "{cohorts:?}");
    assert!(
        cohorts
            .keys()
            .filter_map(|c| league::parse_cohort(c))
            .all(|(_, shard, _)| shard == base || shard >= LEAGUES[0].shards),
        "the rest in spill shards: {cohorts:?}"
    );
    let members: Vec<&String> = cohorts.values().flatten().collect();
    assert_eq!(members.len(), 50, "each player once: {cohorts:?}");
    freeze_at(&store, "2026-11-29T22:05:00Z").await.expect("freeze");
    assert_one_league_result_each(&store, &players).await;
}

/// LB-7: placements that meet on a cohort (15 players of one shard, all first points
/// in the same instant, fewer than [`league::BUSY_PER_SECOND`]: the cohort is never
/// busy) do not queue behind each other: a placement whose commit met a concurrent
/// write is placed again from a spill shard. Each player is in exactly one cohort, at
/// least one of them a spill cohort, and the week's close finds every one of them.
pub async fn league_placements_that_meet_go_on_to_spill_cohorts<S: Store + Clone + 'static>(store: S) {
    let players = same_shard("mt", 15);
    join_all(players.iter().enumerate().map(|(i, p)| {
        let store = store.clone();
        async move {
            credit(
                &store,
                p,
                1_000 - i as i64,
                "2026-11-25T12:00:00.500Z",
                &format!("w48-{p}"),
            )
            .await
        }
    }))
    .await;
    let cohorts = cohorts_of(&store, &players, "2026-W48").await;
    let members: Vec<&String> = cohorts.values().flatten().collect();
    assert_eq!(members.len(), 15, "each player once: {cohorts:?}");
    let spilled: usize = cohorts
        .iter()
        .filter(|(c, _)| league::parse_cohort(c).is_some_and(|(_, shard, _)| shard >= LEAGUES[0].shards))
        .map(|(_, m)| m.len())
        .sum();
    assert!(spilled >= 1, "the placements that met went on: {cohorts:?}");
    freeze_at(&store, "2026-11-29T22:05:00Z").await.expect("freeze");
    assert_one_league_result_each(&store, &players).await;
}

/// LB-7, the other side of [`league_placements_that_meet_go_on_to_spill_cohorts`]: two
/// players of one shard whose first points race in a quiet cohort (fewer than
/// [`league::RACING_PER_SECOND`] placements that second) both stay in their own
/// shard's cohort: the one that lost the race is placed again there, not alone in a
/// spill cohort for the week.
pub async fn league_a_race_of_two_stays_in_its_own_cohort<S: Store + Clone + 'static>(store: S) {
    let players = same_shard("q2", 2);
    join_all(players.iter().map(|p| {
        let store = store.clone();
        async move { credit(&store, p, 100, "2026-11-25T12:00:00.500Z", &format!("w48-{p}")).await }
    }))
    .await;
    let cohorts = cohorts_of(&store, &players, "2026-W48").await;
    let base = league::shard_of(&players[0], LEAGUES[0].shards);
    assert_eq!(cohorts.len(), 1, "one cohort: {cohorts:?}");
    assert!(
        cohorts
            .keys()
            .all(|c| league::parse_cohort(c).is_some_and(|(_, shard, _)| shard == base)),
        "their own shard's: {cohorts:?}"
    );
}

#[macro_export]
macro_rules! league_tests {
    ($make:path) => {
        $crate::league_tests!(@cases $make;
            league_placement_is_once_per_player_and_week,
            league_week_closes_once_and_moves_tiers,
            league_close_survives_late_records_and_deletions,
            league_tier_played_is_the_tier_announced,
            league_tiers_hold_under_a_midnight_race,
            league_a_backlog_before_the_close_joins_the_week,
            league_a_member_deleted_before_the_close_is_left_out,
            league_a_deletion_mid_week_blocks_no_later_placement,
            league_every_player_the_frozen_week_ranks_is_in_its_league,
            league_records_out_of_order_end_as_in_order,
            league_a_week_closes_in_steps_resumed_after_a_kill,
            league_weeks_close_in_order_and_an_operator_cannot_skip_one,
            league_a_busy_cohort_spills_and_its_close_finds_every_member,
            league_placements_that_meet_go_on_to_spill_cohorts,
            league_a_race_of_two_stays_in_its_own_cohort,
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
