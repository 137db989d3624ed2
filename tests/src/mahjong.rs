//! Mahjong Rivals records through the queue's entry point on both stores (MJ-1 … MJ-8,
//! MJ-20, MJ-21, GM-3): a Quick Match's winner is paid once, on the balance and the
//! AMR, weekly and daily boards of the match's Bucharest date; a repeat changes
//! nothing; other content under the same id is a conflict; level completions earn
//! their bonuses by their place on the level's time ranking.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::mahjong::completion;
use podium_rules::record::policy::RecordPolicy;
use podium_service::api::{self, ApiContext, ApiRequest};
use podium_service::games::incoming::{settle_incoming, Incoming, Outcome};
use podium_service::ServiceError;
use podium_store::Store;

pub(crate) fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

pub(crate) fn quick_match(id: &str, ended_at: &str, players: &[(&str, bool, i64)]) -> Vec<u8> {
    let players: Vec<serde_json::Value> = players
        .iter()
        .map(|(p, completed, score)| serde_json::json!({"player_id": p, "completed": completed, "score": score}))
        .collect();
    serde_json::json!({
        "match_id": id, "game": "mahjong-rivals", "kind": "quick-match",
        "ended_at": ended_at, "players": players,
    })
    .to_string()
    .into_bytes()
}

pub async fn settle<S: Store + ?Sized>(
    store: &S,
    line: &[u8],
    now: DateTime<Utc>,
) -> Result<Outcome, ServiceError> {
    settle_under(store, line, now, &RecordPolicy::default()).await
}

/// [`settle`] under another record policy (GM-5's configurable bounds).
async fn settle_under<S: Store + ?Sized>(
    store: &S,
    line: &[u8],
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Result<Outcome, ServiceError> {
    let record = Incoming::from_json(line, now, policy)?;
    // Each call is another delivery (the same delivery again counts as applied).
    let delivery = format!("test-{:016x}", rand::random::<u64>());
    settle_incoming(store, &record, now, policy, &delivery).await
}

async fn value<S: Store + ?Sized>(store: &S, board: &str, period: &str, player: &str) -> i64 {
    store
        .period_entry(&BoardRef::new(board, period), player)
        .await
        .expect("entry")
        .map_or(0, |b| b.points)
}

/// MJ-7, MJ-20: the completed winner gets 20 on the balance and on the three boards
/// in the periods of 19 July 2027 (00:30 in Bucharest), not the UTC date; a repeat
/// is a duplicate that changes nothing (GM-3); other content is a conflict.
pub async fn quick_match_winner_paid_once_on_three_boards<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-07-18T21:31:00Z");
    let line = quick_match(
        "qm-1",
        "2027-07-18T21:30:00Z",
        &[("ana", true, 800), ("bo", false, 2_000)],
    );
    assert_eq!(
        settle(&store, &line, now).await.expect("settled"),
        Outcome::Applied
    );
    assert_eq!(
        settle(&store, &line, now).await.expect("settled"),
        Outcome::Duplicate
    );
    let balance = store.get_balance(Game::MahjongRivals, "ana").await.expect("read");
    assert_eq!(balance.map(|b| b.points), Some(20));
    assert_eq!(
        store.get_balance(Game::MahjongRivals, "bo").await.expect("read"),
        None
    );
    assert_eq!(value(&store, "mahjong-daily", "2027-07-19", "ana").await, 20);
    assert_eq!(value(&store, "mahjong-daily", "2027-07-18", "ana").await, 0);
    assert_eq!(value(&store, "mahjong-weekly", "2027-W29", "ana").await, 20);
    assert_eq!(value(&store, "mahjong-amr", "all", "ana").await, 20);
    // The result: the winner sees their balance afterwards, the loser does not.
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    let seen = |player: &str| podium_service::api::ApiRequest {
        method: "GET".into(),
        path: "/v1/me/quick-matches/qm-1".into(),
        query: Default::default(),
        player: Some(player.into()),
        operator: None,
        raw_query: None,
    };
    let won = podium_service::api::handle(&store, &ctx, &seen("ana"), now).await;
    let lost = podium_service::api::handle(&store, &ctx, &seen("bo"), now).await;
    assert_eq!(
        (won.status, lost.status),
        (200, 200),
        "{} {}",
        won.body,
        lost.body
    );
    assert_eq!(won.body["balance_after"], 20);
    assert_eq!(
        lost.body["balance_after"],
        serde_json::Value::Null,
        "{}",
        lost.body
    );
    assert_eq!(lost.body["players"][0]["points"], 20);
    assert_eq!(lost.body["players"][1]["place"], 2, "completion first (MJ-7)");
    let other = quick_match(
        "qm-1",
        "2027-07-18T21:30:00Z",
        &[("ana", false, 800), ("bo", false, 900)],
    );
    assert!(matches!(
        settle(&store, &other, now).await,
        Err(ServiceError::Conflict { .. })
    ));
    let ledger = store
        .ledger_entries(Game::MahjongRivals, "ana")
        .await
        .expect("ledger");
    assert_eq!(ledger.len(), 1, "one ledger entry (GM-4)");
    // The caller's Mahjong profile: points, Jokers, and 1st place on each board now.
    let ctx = ApiContext::new(crate::contract::cursor_key());
    for (player, points, rank) in [("ana", 20, Some(1)), ("bo", 0, None)] {
        let req = ApiRequest {
            method: "GET".into(),
            path: "/v1/me/mahjong-rivals".into(),
            query: Default::default(),
            player: Some(player.into()),
            operator: None,
            raw_query: None,
        };
        let profile = api::handle(&store, &ctx, &req, now).await;
        assert_eq!(profile.status, 200, "{}", profile.body);
        assert_eq!(profile.body["points"], points, "{}", profile.body);
        assert_eq!(profile.body["jokers"], 0);
        let boards = profile.body["boards"].as_array().expect("boards").clone();
        let periods: Vec<(&str, &str)> = boards
            .iter()
            .map(|b| {
                (
                    b["board"].as_str().unwrap_or(""),
                    b["period"].as_str().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            periods,
            [
                ("mahjong-amr", "all"),
                ("mahjong-weekly", "2027-W29"),
                ("mahjong-daily", "2027-07-19")
            ]
        );
        assert!(
            boards.iter().all(|b| b["rank"].as_u64() == rank),
            "{}",
            profile.body
        );
    }
}

/// MJ-7, MJ-9 (review round 3): round scores may be negative (a blocked tile costs
/// 100). Completion decides first, then the higher score: of two completed players at
/// −100 and −300 the first wins; a completed −300 beats an uncompleted −100. The
/// winner is paid once; the loser's balance is untouched (no points below zero).
pub async fn mj_9_negative_quick_match_scores_pay_their_winner<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T12:00:00Z");
    let both = quick_match(
        "qm-neg-1",
        "2027-03-01T11:00:00Z",
        &[("neg-a", true, -100), ("neg-b", true, -300)],
    );
    let first = quick_match(
        "qm-neg-2",
        "2027-03-01T11:10:00Z",
        &[("neg-c", false, -100), ("neg-d", true, -300)],
    );
    for line in [&both, &first] {
        assert_eq!(
            settle(&store, line, now).await.expect("settled"),
            Outcome::Applied
        );
        assert_eq!(
            settle(&store, line, now).await.expect("settled"),
            Outcome::Duplicate
        );
    }
    for (player, points) in [
        ("neg-a", Some(20)),
        ("neg-b", None),
        ("neg-c", None),
        ("neg-d", Some(20)),
    ] {
        let balance = store
            .get_balance(Game::MahjongRivals, player)
            .await
            .expect("read")
            .map(|b| b.points);
        assert_eq!(balance, points, "{player}");
    }
}

/// GM-5 (review round 3): the record age is configuration. A Quick Match 40 days old
/// is refused under the default 30 days, naming `ended_at` and GM-5, and writes
/// nothing; under 45 days the same line is applied once.
pub async fn gm_5_the_record_age_bound_is_the_configured_one<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T12:00:00Z");
    let line = quick_match(
        "qm-old-1",
        "2027-01-20T12:00:00Z",
        &[("old-a", true, 500), ("old-b", false, 0)],
    );
    match settle(&store, &line, now).await {
        Err(ServiceError::Invalid(e)) => assert_eq!((e.field.as_str(), e.rule), ("ended_at", "GM-5")),
        other => panic!("expected ended_at (GM-5), got {other:?}"),
    }
    assert_eq!(
        store
            .get_balance(Game::MahjongRivals, "old-a")
            .await
            .expect("read"),
        None
    );
    let wider = RecordPolicy {
        max_record_age_days: 45,
        ..RecordPolicy::default()
    };
    for expected in [Outcome::Applied, Outcome::Duplicate] {
        assert_eq!(
            settle_under(&store, &line, now, &wider).await.expect("settled"),
            expected
        );
    }
    let balance = store
        .get_balance(Game::MahjongRivals, "old-a")
        .await
        .expect("read");
    assert_eq!(balance.map(|b| b.points), Some(20));
}

/// MJ-7, MJ-8: tied first places and an all-zero match pay nobody, but are recorded
/// (a repeat is a duplicate); a bad record is refused naming its field (GM-5).
pub async fn quick_match_without_a_winner_pays_nobody<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T12:00:00Z");
    let tied = quick_match(
        "qm-t",
        "2027-03-01T11:00:00Z",
        &[("a", false, 700), ("b", false, 700), ("c", false, 10)],
    );
    let zero = quick_match(
        "qm-z",
        "2027-03-01T11:00:00Z",
        &[("a", false, 0), ("b", false, 0)],
    );
    for line in [&tied, &zero] {
        assert_eq!(
            settle(&store, line, now).await.expect("settled"),
            Outcome::Applied
        );
        assert_eq!(
            settle(&store, line, now).await.expect("settled"),
            Outcome::Duplicate
        );
    }
    for p in ["a", "b", "c"] {
        assert_eq!(
            store.get_balance(Game::MahjongRivals, p).await.expect("read"),
            None
        );
    }
    // The result, for its players only: both tied for first place, 0 points each.
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    let get = |player: &str| podium_service::api::ApiRequest {
        method: "GET".into(),
        path: "/v1/me/quick-matches/qm-t".into(),
        query: Default::default(),
        player: Some(player.into()),
        operator: None,
        raw_query: None,
    };
    let seen = podium_service::api::handle(&store, &ctx, &get("c"), now).await;
    assert_eq!(seen.status, 200, "{}", seen.body);
    let places: Vec<(String, u64, i64, i64)> = seen.body["players"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["player_id"].as_str().unwrap_or_default().to_string(),
                p["place"].as_u64().unwrap_or_default(),
                p["score"].as_i64().unwrap_or_default(),
                p["points"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    assert_eq!(
        places,
        [
            ("a".to_string(), 1, 700, 0),
            ("b".to_string(), 1, 700, 0),
            ("c".to_string(), 3, 10, 0)
        ],
        "{}",
        seen.body
    );
    assert_eq!(seen.body["winner"], serde_json::Value::Null);
    assert_eq!(seen.body["balance_after"], serde_json::Value::Null);
    assert_eq!(
        podium_service::api::handle(&store, &ctx, &get("zz"), now)
            .await
            .status,
        404
    );
    let one = quick_match("qm-1p", "2027-03-01T11:00:00Z", &[("a", true, 10)]);
    match settle(&store, &one, now).await {
        Err(ServiceError::Invalid(e)) => assert_eq!((e.field.as_str(), e.rule), ("players", "MJ-7")),
        other => panic!("{other:?}"),
    }
}

/// A Mahjong Rivals level completion's record line (MJ-3): `player` completed `level`
/// in `time_ms` at `at` (RFC 3339) with `jokers` Jokers.
pub fn completion(id: &str, player: &str, level: u32, time_ms: u64, at: &str, jokers: u32) -> Vec<u8> {
    serde_json::json!({
        "completion_id": id, "game": "mahjong-rivals", "kind": "level-completion",
        "player_id": player, "level": level, "time_ms": time_ms, "completed_at": at,
        "jokers_used": jokers,
    })
    .to_string()
    .into_bytes()
}

async fn balance<S: Store + ?Sized>(store: &S, player: &str) -> i64 {
    store
        .get_balance(Game::MahjongRivals, player)
        .await
        .expect("read")
        .map_or(0, |b| b.points)
}

/// MJ-2 … MJ-5: a first completion placing 4th earns 15, a replay placing 1st +10
/// more, then no time bonus ever again; a time equal to the fastest shares 1st; the
/// account's own earlier best does not count against it; the level's time ranking
/// holds each account's best time, fastest first (LB-1, LB-2).
pub async fn level_completions_earn_by_place<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T12:00:00Z");
    let at = "2027-03-01T11:00:00Z";
    let mut n = 0;
    let mut done = |player: &str, time_ms: u64| {
        n += 1;
        completion(&format!("c-{n}"), player, 420, time_ms, at, 0)
    };
    // Three others: 50 s, 60 s, 70 s (their first completions: 20, 15, 15).
    for (p, time_ms, points) in [("o1", 50_000, 20), ("o2", 60_000, 15), ("o3", 70_000, 15)] {
        settle(&store, &done(p, time_ms), now).await.expect("settled");
        assert_eq!(balance(&store, p).await, points, "{p}");
    }
    // A's first completion places 4th: 10 + 5.
    settle(&store, &done("a", 80_000), now).await.expect("settled");
    assert_eq!(balance(&store, "a").await, 15);
    // Its result, for A only: the place at that moment and what paid (MJ-2, MJ-3).
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    let get = |path: &str, player: &str| podium_service::api::ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: Default::default(),
        player: Some(player.into()),
        operator: None,
        raw_query: None,
    };
    let seen =
        podium_service::api::handle(&store, &ctx, &get("/v1/me/level-completions/c-4", "a"), now).await;
    assert_eq!(seen.status, 200, "{}", seen.body);
    assert_eq!(
        (
            seen.body["place"].clone(),
            seen.body["points"].clone(),
            seen.body["time_ms"].clone()
        ),
        (4.into(), 15.into(), 80_000.into()),
        "{}",
        seen.body
    );
    assert_eq!(
        seen.body["bonuses"],
        serde_json::json!([{"rule": "MJ-2", "points": 10}, {"rule": "MJ-3", "points": 5}])
    );
    assert_eq!(seen.body["completed_at"], "2027-03-01T11:00:00Z");
    let other =
        podium_service::api::handle(&store, &ctx, &get("/v1/me/level-completions/c-4", "o1"), now).await;
    assert_eq!(other.status, 404, "{}", other.body);
    // A replay equal to the fastest shares 1st: +10 (no second +10 for completion).
    settle(&store, &done("a", 50_000), now).await.expect("settled");
    assert_eq!(balance(&store, "a").await, 25);
    // After the +10, nothing more on this level, however fast.
    settle(&store, &done("a", 10_000), now).await.expect("settled");
    assert_eq!(balance(&store, "a").await, 25);
    // The ranking holds A's best time, first.
    let top = store
        .board_after(&completion::level_board(420), None, 2)
        .await
        .expect("ranking");
    assert_eq!(top[0].player_id, "a");
    assert_eq!(completion::time_of(top[0].value), 10_000);
    // o1's replay at 40 s is slower than A's 10 s: 2nd place, and o1 had no +5 yet.
    settle(&store, &done("o1", 40_000), now).await.expect("settled");
    assert_eq!(
        balance(&store, "o1").await,
        20,
        "o1 had the +10 already: no time bonus"
    );
    // o2's replay at 30 s: 2nd (A faster; o2's own 60 s does not count): +5 was given, so 0.
    settle(&store, &done("o2", 30_000), now).await.expect("settled");
    assert_eq!(balance(&store, "o2").await, 15);
    // Every counted point is on the three boards (MJ-21).
    assert_eq!(value(&store, "mahjong-amr", "all", "a").await, 25);
    assert_eq!(value(&store, "mahjong-daily", "2027-03-01", "a").await, 25);
    // The level's fastest times, read strongly consistent by every completion (MJ-3).
    let fastest = store
        .get_state(&completion::fastest_owner(420), completion::FASTEST_STATE)
        .await
        .expect("read")
        .expect("kept");
    let fastest: completion::Fastest = serde_json::from_str(&fastest.body).expect("fastest");
    assert_eq!(fastest.times[0], ("a".to_string(), 10_000));
    assert_eq!(fastest.times.len(), 4);
    // The level's time ranking over HTTP: fastest first, times shown, the caller's place.
    let ctx = ApiContext::new(crate::contract::cursor_key());
    let get = |path: &str, query: &[(&str, &str)]| ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        player: Some("o3".into()),
        operator: None,
        raw_query: None,
    };
    let page = api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/mahjong-level-420", &[("limit", "5")]),
        now,
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let entries = page.body["entries"].as_array().expect("entries").clone();
    let shown: Vec<(&str, &str, u64)> = entries
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or(""),
                e["value_shown"].as_str().unwrap_or(""),
                e["rank"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("a", "0:10.000", 1),
            ("o2", "0:30.000", 2),
            ("o1", "0:40.000", 3),
            ("o3", "1:10.000", 4)
        ]
    );
    let me = api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/mahjong-level-420/me", &[("neighbours", "1")]),
        now,
    )
    .await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["me"]["rank"], 4, "{}", me.body);
    for missing in ["mahjong-level-0", "mahjong-level-11001", "mahjong-level-0420"] {
        let r = api::handle(
            &store,
            &ctx,
            &get(&format!("/v1/leaderboards/{missing}"), &[]),
            now,
        )
        .await;
        assert_eq!(r.status, 404, "{missing}");
    }
}

/// MJ-3: among eleven accounts the 11th-fastest completion gets no time bonus;
/// MJ-1, MJ-6: a level outside 1 … 11,000 and Jokers not held are refused, naming
/// the field, and write nothing.
pub async fn the_eleventh_fastest_gets_no_time_bonus<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T12:00:00Z");
    let at = "2027-03-01T11:00:00Z";
    for i in 0..10u64 {
        let line = completion(&format!("e-{i}"), &format!("p{i}"), 7, 10_000 + i * 1_000, at, 0);
        settle(&store, &line, now).await.expect("settled");
    }
    settle(&store, &completion("e-10", "p10", 7, 30_000, at, 0), now)
        .await
        .expect("settled");
    assert_eq!(
        balance(&store, "p10").await,
        10,
        "11th: the first completion only"
    );
    assert_eq!(balance(&store, "p9").await, 15, "10th: +5");
    for (line, field, rule) in [
        (completion("e-x", "q", 0, 1_000, at, 0), "level", "MJ-1"),
        (completion("e-y", "q", 11_001, 1_000, at, 0), "level", "MJ-1"),
        (completion("e-z", "q", 7, 1_000, at, 3), "jokers_used", "MJ-6"),
        (completion("e-w", "q", 7, 1_000, at, 1), "jokers_used", "MJ-6"),
    ] {
        match settle(&store, &line, now).await {
            Err(ServiceError::Invalid(e)) => assert_eq!((e.field.as_str(), e.rule), (field, rule)),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(balance(&store, "q").await, 0, "refused completions wrote nothing");
}

/// MJ-3, GM-3: eight first completions of one level settled at the same time are
/// placed as if one after another: each account's points are those of some serial
/// order (+10 for whoever was fastest so far when settled, else +5), never two
/// placings against a ranking that misses the other.
pub async fn concurrent_completions_of_a_level_are_placed_in_some_order<S: Store + Clone + 'static>(
    store: S,
) {
    let now = t("2027-03-01T12:00:00Z");
    let store = std::sync::Arc::new(store);
    let lines: Vec<(String, Vec<u8>)> = (0..8u64)
        .map(|i| {
            let p = format!("k{i}");
            let line = completion(
                &format!("k-{i}"),
                &p,
                9,
                60_000 + 1_000 * i,
                "2027-03-01T11:00:00Z",
                0,
            );
            (p, line)
        })
        .collect();
    let runs = lines.iter().map(|(_, line)| {
        let (store, line) = (std::sync::Arc::clone(&store), line.clone());
        tokio::spawn(async move { settle(store.as_ref(), &line, now).await })
    });
    for r in futures::future::join_all(runs).await {
        assert_eq!(r.expect("task").expect("settled"), Outcome::Applied);
    }
    let mut got = Vec::new();
    for (p, _) in &lines {
        got.push(balance(store.as_ref(), p).await);
    }
    // Some order of the eight must give exactly these points.
    let times: Vec<u64> = (0..8).map(|i| 60_000 + 1_000 * i).collect();
    let mut order: Vec<usize> = (0..8).collect();
    let mut found = false;
    permute(&mut order, 0, &mut |o| {
        let mut best = u64::MAX;
        let mut points = [0i64; 8];
        for &i in o {
            points[i] = if times[i] < best { 20 } else { 15 };
            best = best.min(times[i]);
        }
        found |= points.as_slice() == got.as_slice();
    });
    assert!(found, "no serial order gives {got:?}");
}

/// An Arena record whose players' round scores are `scores[player][round]` (plain
/// pairs 10 s apart, 100 each), and `jokers[player]` Jokers used in round 1.
pub fn arena_line(id: &str, players: [&str; 4], scores: [[u64; 3]; 4], jokers: [u32; 4]) -> Vec<u8> {
    let rounds: Vec<serde_json::Value> = (0..3)
        .map(|r| {
            let logs: Vec<serde_json::Value> = players
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let events: Vec<serde_json::Value> = (1..=scores[i][r] / 100)
                        .map(|k| serde_json::json!({"type": "pair", "at_ms": k * 10_000}))
                        .collect();
                    let used = if r == 0 { jokers[i] } else { 0 };
                    serde_json::json!({"player_id": p, "events": events, "jokers_used": used})
                })
                .collect();
            serde_json::json!({"logs": logs})
        })
        .collect();
    serde_json::json!({
        "arena_id": id, "game": "mahjong-rivals", "kind": "arena",
        "ended_at": "2027-07-18T21:30:00Z", "players": players, "rounds": rounds,
    })
    .to_string()
    .into_bytes()
}

/// MJ-11, MJ-20, MJ-21, GM-3: an Arena with two tied first ([500, 500, 300, 100])
/// pays 60, 60, 20 and 0 once, on the balances and the boards of the Bucharest date
/// (19 July); a repeat is a duplicate; other content under its id is a conflict.
/// MJ-6: Jokers its rounds used are spent; using Jokers not held refuses the whole
/// Arena, naming the round's log, and writes nothing.
pub async fn arena_prizes_paid_once_with_ties_shared<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-07-18T21:31:00Z");
    let players = ["ar-a", "ar-b", "ar-c", "ar-d"];
    let scores = [[200, 200, 100], [100, 300, 100], [100, 100, 100], [0, 100, 0]];
    // ar-b holds no Jokers: an Arena where ar-b used one is refused, nothing written.
    let bad = arena_line("arena-0", players, scores, [0, 1, 0, 0]);
    match settle(&store, &bad, now).await {
        Err(ServiceError::Invalid(e)) => {
            assert_eq!(
                (e.field.as_str(), e.rule),
                ("rounds[0].logs[1].jokers_used", "MJ-6")
            )
        }
        other => panic!("expected MJ-6, got {other:?}"),
    }
    assert_eq!(balance(&store, "ar-a").await, 0);
    let line = arena_line("arena-1", players, scores, [0; 4]);
    assert_eq!(
        settle(&store, &line, now).await.expect("settled"),
        Outcome::Applied
    );
    assert_eq!(
        settle(&store, &line, now).await.expect("settled"),
        Outcome::Duplicate
    );
    for (p, prize) in [("ar-a", 60), ("ar-b", 60), ("ar-c", 20), ("ar-d", 0)] {
        assert_eq!(balance(&store, p).await, prize, "{p}");
        assert_eq!(
            value(&store, "mahjong-daily", "2027-07-19", p).await,
            prize,
            "{p}"
        );
        assert_eq!(value(&store, "mahjong-weekly", "2027-W29", p).await, prize, "{p}");
        assert_eq!(value(&store, "mahjong-amr", "all", p).await, prize, "{p}");
    }
    let ledger = store
        .ledger_entries(Game::MahjongRivals, "ar-a")
        .await
        .expect("ledger");
    assert_eq!(ledger.len(), 1);
    assert_eq!((ledger[0].source.as_str(), ledger[0].applied), ("arena", 60));
    let other = arena_line("arena-1", players, [[500, 0, 0], [0; 3], [0; 3], [0; 3]], [0; 4]);
    assert!(matches!(
        settle(&store, &other, now).await,
        Err(ServiceError::Conflict { .. })
    ));
    assert_eq!(balance(&store, "ar-a").await, 60);
    // Over HTTP, for its players only.
    let ctx = ApiContext::new(crate::contract::cursor_key());
    let get = |player: &str| ApiRequest {
        method: "GET".into(),
        path: "/v1/me/arenas/arena-1".into(),
        query: Default::default(),
        player: Some(player.into()),
        operator: None,
        raw_query: None,
    };
    let mine = api::handle(&store, &ctx, &get("ar-c"), now).await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    assert_eq!(mine.body["standings"][2]["prize"], 20, "{}", mine.body);
    assert_eq!(api::handle(&store, &ctx, &get("ar-x"), now).await.status, 404);
}

/// The level rankings refreshed by the refresh job on this store, in order.
async fn refreshed_levels<S: Store + ?Sized>(store: &S, tick: &str) -> Vec<String> {
    use podium_service::jobs::{handle, Job, ScheduledRun};
    let run = ScheduledRun {
        job: Job::Refresh,
        scheduled_time: t(tick),
    };
    let runs = handle(store, run, &Default::default())
        .await
        .expect("refresh tick")
        .runs;
    assert!(runs.iter().all(|r| r.complete), "{runs:?}");
    let mut levels: Vec<String> = runs
        .into_iter()
        .filter(|r| r.board.starts_with("mahjong-level-"))
        .map(|r| r.board)
        .collect();
    levels.sort();
    levels
}

/// Ages every change mark as if its change was committed an hour ago (server clock).
async fn age_marks<S: Store + ?Sized>(store: &S) {
    use podium_service::engine::changes::{changed, Mark};
    for c in changed(store, usize::MAX).await.expect("marks") {
        for m in c.marks {
            // An hour before the test's first tick (12:00): older than any tick's read.
            let old = Mark {
                at_ms: t("2027-03-01T11:00:00Z").timestamp_millis(),
            };
            let body = serde_json::to_vec(&old).expect("mark");
            assert!(store
                .put_item_if(&m.key, &body, m.version)
                .await
                .expect("age mark"));
        }
    }
}

/// LB-5, MJ-3: the refresh job snapshots a level's time ranking only after its
/// entries changed: none before any completion, the two changed levels after, none
/// on the next tick; a change committed while a snapshot is read (or too close to
/// it to be sure the snapshot holds it) keeps the level marked for the next tick.
/// The level's page is then served from its snapshot.
pub async fn level_rankings_are_refreshed_only_when_changed<S: Store + Clone + 'static>(store: S) {
    use podium_service::engine::changes::{changed, clear};
    let now = t("2027-03-01T12:00:00Z");
    let at = "2027-03-01T11:00:00Z";
    assert!(refreshed_levels(&store, "2027-03-01T12:00:00Z").await.is_empty());
    for (id, player, level, ms) in [
        ("r-1", "a", 7, 50_000),
        ("r-2", "b", 7, 40_000),
        ("r-3", "a", 9, 30_000),
    ] {
        settle(&store, &completion(id, player, level, ms, at, 0), now)
            .await
            .expect("settled");
    }
    // A Quick Match changes no level ranking.
    settle(
        &store,
        &quick_match("qm-r", at, &[("a", true, 5), ("b", false, 1)]),
        now,
    )
    .await
    .expect("settled");
    let marked: Vec<String> = changed(&store, 100)
        .await
        .expect("marks")
        .into_iter()
        .map(|c| c.board.key())
        .collect();
    assert_eq!(marked.len(), 2, "{marked:?}");
    age_marks(&store).await;
    assert_eq!(
        refreshed_levels(&store, "2027-03-01T12:05:00Z").await,
        ["mahjong-level-7", "mahjong-level-9"]
    );
    assert!(changed(&store, 100).await.expect("marks").is_empty());
    assert!(refreshed_levels(&store, "2027-03-01T12:10:00Z").await.is_empty());
    // A change just now (at the tick's instant): refreshed, and kept marked (the
    // snapshot may predate it).
    let tick = t("2027-03-01T12:15:00Z");
    settle(&store, &completion("r-4", "c", 7, 20_000, at, 0), tick)
        .await
        .expect("settled");
    assert_eq!(
        refreshed_levels(&store, "2027-03-01T12:15:00Z").await,
        ["mahjong-level-7"]
    );
    let kept = changed(&store, 100).await.expect("marks");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].marks.len(), 1);
    // A change committed after the job read the mark (the same account, so the same
    // mark): its delete finds a newer version.
    settle(&store, &completion("r-5", "c", 7, 15_000, at, 0), tick)
        .await
        .expect("settled");
    assert_eq!(clear(&store, &kept[0], i64::MAX).await.expect("clear"), 0);
    age_marks(&store).await;
    assert_eq!(
        refreshed_levels(&store, "2027-03-01T12:20:00Z").await,
        ["mahjong-level-7"]
    );
    assert!(changed(&store, 100).await.expect("marks").is_empty());
    // The page now comes from the level's snapshot, with every change in it.
    let ctx = ApiContext::new(crate::contract::cursor_key());
    let page = api::handle(
        &store,
        &ctx,
        &ApiRequest {
            method: "GET".into(),
            path: "/v1/leaderboards/mahjong-level-7".into(),
            query: Default::default(),
            player: Some("a".into()),
            operator: None,
            raw_query: None,
        },
        t("2027-03-01T12:21:00Z"),
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    // The refresh of the tick at 12:20 (its id: the instant and the store's number, LB-5).
    assert!(
        page.body["snapshot"]
            .as_str()
            .is_some_and(|id| id.starts_with("20270301T122000Z-")),
        "{}",
        page.body
    );
    let order: Vec<&str> = page.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["player_id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(order, ["c", "b", "a"]);
}

fn permute(v: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
    if k == v.len() {
        f(v);
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permute(v, k + 1, f);
        v.swap(k, i);
    }
}

#[macro_export]
macro_rules! mahjong_tests {
    ($make:path) => {
        $crate::mahjong_tests!(@cases $make;
            quick_match_winner_paid_once_on_three_boards,
            quick_match_without_a_winner_pays_nobody,
            mj_9_negative_quick_match_scores_pay_their_winner,
            gm_5_the_record_age_bound_is_the_configured_one,
            level_completions_earn_by_place,
            the_eleventh_fastest_gets_no_time_bonus,
            concurrent_completions_of_a_level_are_placed_in_some_order,
            level_rankings_are_refreshed_only_when_changed,
            arena_prizes_paid_once_with_ties_shared,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::mahjong::$case($make().await).await;
            }
        )*
    };
}
