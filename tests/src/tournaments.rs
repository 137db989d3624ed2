//! Mahjong Rivals tournaments on both stores (MJ-12 … MJ-17, GM-3): configured once,
//! registrations closing at the start, table TP credited to the standings board,
//! cancelled below the minimum, and the prizes paid exactly once by the scheduled
//! tick, also when it runs twice or dies half way.

use chrono::{DateTime, Duration, Utc};
use podium_rules::game::Game;
use podium_rules::mahjong::tournament::{Tournament, Trophy};
use podium_rules::mahjong::tournament_play::{self as play, Status, Trophies};
use podium_rules::record::policy::RecordPolicy;
use podium_service::games::incoming::{settle_incoming, Incoming, Outcome};
use podium_service::games::tournaments::{configure, tick};
use podium_service::ServiceError;
use podium_store::{ErasureStore, Store};

use crate::faults::Faulty;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

pub(crate) fn cup(id: &str, min_players: u32, champions: bool) -> Tournament {
    Tournament {
        tournament_id: id.into(),
        starts_at: t("2027-07-14T18:00:00Z"),
        ends_at: t("2027-07-14T19:00:00Z"),
        min_players,
        multiplier: 3,
        prizes: vec![100, 50, 20],
        champions,
    }
}

pub(crate) async fn send<S: Store + ?Sized>(
    store: &S,
    line: serde_json::Value,
    now: DateTime<Utc>,
) -> Result<Outcome, ServiceError> {
    let policy = RecordPolicy::default();
    let bytes = line.to_string().into_bytes();
    let record = Incoming::from_json(&bytes, now, &policy)?;
    let delivery = format!("test-{:016x}", rand::random::<u64>());
    settle_incoming(store, &record, now, &policy, &delivery).await
}

pub(crate) fn registration(tid: &str, player: &str, at: &str) -> serde_json::Value {
    serde_json::json!({"game": "mahjong-rivals", "kind": "tournament-registration",
        "tournament_id": tid, "player_id": player, "registered_at": at})
}

pub(crate) fn table(tid: &str, id: &str, at: &str, players: &[(&str, bool, i64)]) -> serde_json::Value {
    let players: Vec<_> = players
        .iter()
        .map(|(p, c, s)| serde_json::json!({"player_id": p, "completed": c, "score": s}))
        .collect();
    serde_json::json!({"game": "mahjong-rivals", "kind": "tournament-table", "table_id": id,
        "tournament_id": tid, "ended_at": at, "players": players})
}

async fn balance<S: Store + ?Sized>(store: &S, player: &str) -> i64 {
    store
        .get_balance(Game::MahjongRivals, player)
        .await
        .expect("read")
        .map_or(0, |b| b.points)
}

async fn status<S: Store + ?Sized>(store: &S, tid: &str) -> Status {
    let s = store
        .get_state(&play::tournament_owner(tid), play::TOURNAMENT_STATE)
        .await
        .expect("read")
        .expect("configured");
    serde_json::from_str::<play::TournamentState>(&s.body)
        .expect("state")
        .status
}

/// MJ-12 … MJ-16, GM-3: a tournament from configuration to prizes. Tied TP go to the
/// earlier registration (MJ-16); an all-zero table gives no TP (MJ-14); a late
/// registration and a table after the end are refused; the tick run twice, and a tick
/// that died after paying the 1st prize run again, pay every prize exactly once.
pub async fn a_tournament_pays_its_prizes_exactly_once<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-07-14T17:00:00Z");
    configure(&store, &cup("cup-1", 2, false), "op-1", now)
        .await
        .expect("configured");
    // The same settings again: a duplicate; other settings: a conflict.
    configure(&store, &cup("cup-1", 2, false), "op-2", now)
        .await
        .expect("again");
    assert!(matches!(
        configure(&store, &cup("cup-1", 3, false), "op-3", now).await,
        Err(ServiceError::Conflict { .. })
    ));
    for (p, at) in [
        ("b", "2027-07-14T16:00:00Z"),
        ("a", "2027-07-14T16:30:00Z"),
        ("c", "2027-07-14T16:40:00Z"),
        ("d", "2027-07-14T16:50:00Z"),
    ] {
        assert_eq!(
            send(&store, registration("cup-1", p, at), now)
                .await
                .expect("registered"),
            Outcome::Applied
        );
    }
    let late = send(
        &store,
        registration("cup-1", "e", "2027-07-14T18:00:00Z"),
        t("2027-07-14T18:01:00Z"),
    )
    .await;
    assert!(matches!(late, Err(ServiceError::Invalid(e)) if e.rule == "MJ-12" && e.field == "registered_at"));
    // The tick at the start: running with 4 registered.
    let at_start = t("2027-07-14T18:05:00Z");
    tick(&store, at_start).await.expect("tick");
    assert_eq!(status(&store, "cup-1").await, Status::Running { registered: 4 });
    let during = t("2027-07-14T18:30:00Z");
    // a and b tie (both completed, 1,200): (30 + 15) ÷ 2 = 22, × 3 = 66 each.
    send(
        &store,
        table(
            "cup-1",
            "tb-1",
            "2027-07-14T18:20:00Z",
            &[("a", true, 1200), ("b", true, 1200), ("c", false, 5)],
        ),
        during,
    )
    .await
    .expect("table");
    // Nobody completed: 10 / 0, × 3: c 30.
    send(
        &store,
        table(
            "cup-1",
            "tb-2",
            "2027-07-14T18:25:00Z",
            &[("c", false, 100), ("d", false, 50)],
        ),
        during,
    )
    .await
    .expect("table");
    // All zero: no TP (MJ-14).
    send(
        &store,
        table(
            "cup-1",
            "tb-3",
            "2027-07-14T18:28:00Z",
            &[("c", false, 0), ("d", true, 0)],
        ),
        during,
    )
    .await
    .expect("table");
    let unregistered = send(
        &store,
        table(
            "cup-1",
            "tb-4",
            "2027-07-14T18:29:00Z",
            &[("a", true, 9), ("zz", false, 1)],
        ),
        during,
    )
    .await;
    assert!(matches!(unregistered, Err(ServiceError::Invalid(e)) if e.field == "players[1].player_id"));
    let board = play::standings_board("cup-1");
    let standings: Vec<(String, i64)> = store
        .board_after(&board, None, 10)
        .await
        .expect("standings")
        .into_iter()
        .map(|s| (s.player_id, s.value))
        .collect();
    assert_eq!(
        standings,
        [
            ("b".into(), 66),
            ("a".into(), 66),
            ("c".into(), 30),
            ("d".into(), 0)
        ],
        "TP, then the earlier registration (MJ-16)"
    );
    assert_eq!(balance(&store, "a").await, 0, "TP are not points (MJ-21)");
    // The end: closing, then after the wait the winners; the 2nd prize's commit fails
    // (the tick dies half way, after the 1st).
    let closing = t("2027-07-14T19:05:00Z");
    tick(&store, closing).await.expect("close");
    assert!(matches!(status(&store, "cup-1").await, Status::Closing { .. }));
    let after_end = send(
        &store,
        table(
            "cup-1",
            "tb-5",
            "2027-07-14T18:59:00Z",
            &[("c", true, 900), ("d", false, 1)],
        ),
        closing,
    )
    .await;
    assert!(matches!(after_end, Err(ServiceError::Invalid(e)) if e.rule == "MJ-16"));
    let faulty = Faulty::new(store).failing_source(&play::prize_id("cup-1", 2));
    let paying = t("2027-07-14T19:10:00Z");
    assert!(tick(&faulty, paying).await.is_err(), "died paying the 2nd prize");
    let store = faulty.inner;
    assert_eq!(balance(&store, "b").await, 100);
    assert_eq!(balance(&store, "a").await, 0);
    // Run again, twice: every prize once. The resume runs at the very instant of the
    // tick that died (a clock that stands still): it reports only the prizes it paid
    // itself, not the 1st, which the dead tick paid.
    let reports = tick(&store, paying).await.expect("resume");
    assert_eq!(reports[0].prizes_paid, 2);
    assert!(reports[0].done);
    tick(&store, paying + Duration::minutes(10)).await.expect("again");
    for (p, prize) in [("b", 100), ("a", 50), ("c", 20), ("d", 0)] {
        assert_eq!(balance(&store, p).await, prize, "{p}");
    }
    // The prize is points, on the week's board of the tournament's end (MJ-20, MJ-21).
    let weekly = podium_rules::board::BoardRef::new("mahjong-weekly", "2027-W28");
    assert_eq!(
        store
            .period_entry(&weekly, "a")
            .await
            .expect("entry")
            .map(|e| e.points),
        Some(50)
    );
    let ledger = store
        .ledger_entries(Game::MahjongRivals, "b")
        .await
        .expect("ledger");
    assert_eq!(ledger.len(), 1);
    assert_eq!(ledger[0].source, play::KIND_PRIZE);
    let trophies = store
        .get_state("b", play::TROPHIES_STATE)
        .await
        .expect("read")
        .expect("b won");
    let trophies: Trophies = serde_json::from_str(&trophies.body).expect("trophies");
    assert_eq!(trophies.trophies.len(), 1);
    assert_eq!(trophies.trophies[0].trophy, Trophy::Cup);
    // Over HTTP: the standings board in MJ-16's order (LB-2 ranks: equal TP share
    // one), and the winner's trophy on their Mahjong profile.
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    let get = |path: &str| podium_service::api::ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: Default::default(),
        player: Some("b".into()),
        operator: None,
        raw_query: None,
    };
    let page = podium_service::api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/mahjong-tournament-cup-1"),
        paying,
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let rows: Vec<(String, u64)> = page.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or("").to_string(),
                e["rank"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [("b".into(), 1), ("a".into(), 1), ("c".into(), 3), ("d".into(), 4)]
    );
    let me = podium_service::api::handle(&store, &ctx, &get("/v1/me/mahjong-rivals"), paying).await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["trophies"][0]["trophy"], "cup", "{}", me.body);
    assert_eq!(me.body["points"], 100);
    let cup = podium_service::api::handle(&store, &ctx, &get("/v1/tournaments/cup-1"), paying).await;
    assert_eq!(cup.status, 200, "{}", cup.body);
    assert_eq!(cup.body["status"], "final", "{}", cup.body);
    assert_eq!(cup.body["winners"][1]["player_id"], "a");
    let mine = podium_service::api::handle(&store, &ctx, &get("/v1/me/tournament-tables/tb-1"), paying).await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    assert_eq!(mine.body["tp"][1], serde_json::json!(["b", 66]));
    let other =
        podium_service::api::handle(&store, &ctx, &get("/v1/me/tournament-tables/tb-2"), paying).await;
    assert_eq!(other.status, 404, "b did not play tb-2");
}

/// MJ-17: a Champions Tournament refuses an account with 199 prize points this week
/// and admits one with 200; with 15 registered at its start it is cancelled and
/// nobody is paid.
pub async fn a_champions_tournament_needs_200_prize_points_and_16_players<S: Store + Clone + 'static>(
    store: S,
) {
    let now = t("2027-07-14T17:00:00Z");
    // Prize points this week come from an earlier tournament's prizes: pay 199 and 200.
    let mut earlier = cup("weekly-1", 2, false);
    earlier.starts_at = t("2027-07-13T18:00:00Z");
    earlier.ends_at = t("2027-07-13T19:00:00Z");
    earlier.prizes = vec![200, 199];
    configure(&store, &earlier, "op-1", now)
        .await
        .expect("configured");
    let before = t("2027-07-13T17:00:00Z");
    send(
        &store,
        registration("weekly-1", "rich", "2027-07-13T16:00:00Z"),
        before,
    )
    .await
    .expect("registered");
    send(
        &store,
        registration("weekly-1", "close", "2027-07-13T16:10:00Z"),
        before,
    )
    .await
    .expect("registered");
    tick(&store, t("2027-07-13T18:05:00Z")).await.expect("start");
    send(
        &store,
        table(
            "weekly-1",
            "w-1",
            "2027-07-13T18:30:00Z",
            &[("rich", true, 10), ("close", false, 5)],
        ),
        t("2027-07-13T18:31:00Z"),
    )
    .await
    .expect("table");
    tick(&store, t("2027-07-13T19:05:00Z")).await.expect("close");
    tick(&store, t("2027-07-13T19:10:00Z")).await.expect("pay");
    assert_eq!(balance(&store, "rich").await, 200);
    assert_eq!(balance(&store, "close").await, 199);
    let champions = cup("champions-1", 16, true);
    configure(&store, &champions, "op-2", now)
        .await
        .expect("configured");
    let refused = send(
        &store,
        registration("champions-1", "close", "2027-07-14T16:00:00Z"),
        now,
    )
    .await;
    assert!(matches!(refused, Err(ServiceError::Invalid(e)) if e.rule == "MJ-17"));
    send(
        &store,
        registration("champions-1", "rich", "2027-07-14T16:00:00Z"),
        now,
    )
    .await
    .expect("200 prize points: admitted");
    // 15 registered at the start: cancelled (the others need no prize points here:
    // they are registered directly, as the game server would after its own check).
    for i in 0..14 {
        let p = format!("c-{i:02}");
        let week = play::prize_week_state(&play::week_of(t("2027-07-14T16:00:00Z")));
        let seed = podium_store::Commit {
            source: podium_store::SourceKey::new("seed", format!("seed-{p}")),
            content_hash: "seed".into(),
            attempt: "seed".into(),
            plan: 0,
            result: "{}".into(),
            fields: None,
            claims: Vec::new(),
            balances: Vec::new(),
            entries: Vec::new(),
            states: vec![podium_store::StateWrite {
                player_id: p.clone(),
                name: week,
                expected_version: 0,
                body: r#"{"points":200}"#.into(),
            }],
            ledger: Vec::new(),
            marks: Vec::new(),
            refs: Vec::new(),
            named: Vec::new(),
        };
        store.commit(&seed).await.expect("seed");
        send(
            &store,
            registration("champions-1", &p, "2027-07-14T16:30:00Z"),
            now,
        )
        .await
        .expect("registered");
    }
    let reports = tick(&store, t("2027-07-14T18:05:00Z")).await.expect("start");
    assert!(reports
        .iter()
        .any(|r| r.tournament_id == "champions-1" && r.steps == ["cancelled"] && r.done));
    assert_eq!(
        status(&store, "champions-1").await,
        Status::Cancelled { registered: 15 }
    );
    tick(&store, t("2027-07-14T19:10:00Z")).await.expect("later");
    assert_eq!(balance(&store, "rich").await, 200, "nothing paid");
}

/// MJ-16, GM-6: a tournament of 100 winners (the most prizes it may have) fixes
/// them in one transaction (the winners are referenced by their own prize
/// settlements, not by the final step), pays each once, and a deleted winner is
/// anonymised in the winners list.
pub async fn a_tournament_of_100_winners_is_final_in_one_transaction<
    S: Store + ErasureStore + Clone + 'static,
>(
    store: S,
) {
    let mut cfg = cup("cup-100", 2, false);
    cfg.prizes = vec![1; 100];
    let now = t("2027-07-14T17:00:00Z");
    configure(&store, &cfg, "op-100", now).await.expect("configured");
    for i in 0..100 {
        send(
            &store,
            registration("cup-100", &format!("h{i:03}"), "2027-07-14T16:00:00Z"),
            now,
        )
        .await
        .expect("registered");
    }
    for at in [
        "2027-07-14T18:05:00Z",
        "2027-07-14T19:05:00Z",
        "2027-07-14T19:10:00Z",
    ] {
        tick(&store, t(at)).await.expect("tick");
    }
    assert!(matches!(status(&store, "cup-100").await, Status::Final { .. }));
    assert_eq!(balance(&store, "h042").await, 1, "paid once");
    podium_service::operators::deletion::delete_player(&store, "h042", t("2027-07-15T10:00:00Z"))
        .await
        .expect("deleted");
    let s = store
        .get_state(&play::tournament_owner("cup-100"), play::TOURNAMENT_STATE)
        .await
        .expect("read")
        .expect("state");
    assert!(!s.body.contains("\"h042\""), "{}", s.body);
    assert!(s.body.contains(&podium_service::engine::names::pseudonym("h042")));
}

/// MJ-12, MJ-16: the schedule run over an afternoon (what `POST /v1/dev/clock` runs)
/// moves a tournament at the first refresh after each step falls due: started at
/// 18:05 (its start 18:00 + 1 min), closed at 19:05 (its end + 1 min), its final places
/// fixed and its prizes paid at 19:10 (the close + 90 s), each once; no refresh tick
/// runs where nothing is due, and a second run over a later span finds nothing to do.
pub async fn the_schedule_moves_a_tournament_at_its_steps<S: Store + Clone + 'static>(store: S) {
    use podium_service::jobs::{schedule, Job, TickSettings};
    let now = t("2027-07-14T17:00:00Z");
    configure(&store, &cup("cup-s", 2, false), "op-1", now)
        .await
        .expect("configured");
    for (p, at) in [("a", "2027-07-14T16:00:00Z"), ("b", "2027-07-14T16:30:00Z")] {
        send(&store, registration("cup-s", p, at), now)
            .await
            .expect("registered");
    }
    let during = t("2027-07-14T18:30:00Z");
    send(
        &store,
        table(
            "cup-s",
            "tb-s",
            "2027-07-14T18:20:00Z",
            &[("a", true, 1200), ("b", false, 5)],
        ),
        during,
    )
    .await
    .expect("table");
    let settings = TickSettings::default();
    let every = std::time::Duration::from_secs(300);
    let mut seen = Vec::new();
    let ticks = schedule::run_between(&store, now, t("2027-07-14T20:00:00Z"), &settings, every, |at| {
        seen.push(at)
    })
    .await
    .expect("ran");
    let steps: Vec<(String, Vec<&str>)> = ticks
        .iter()
        .filter(|k| k.job == Job::Refresh)
        .flat_map(|k| {
            k.report
                .tournaments
                .iter()
                .filter(|r| r.tournament_id == "cup-s")
                .map(move |r| (k.scheduled_time.to_rfc3339(), r.steps.clone()))
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("2027-07-14T18:05:00+00:00".to_string(), vec!["start"]),
            ("2027-07-14T19:05:00+00:00".to_string(), vec!["close"]),
            ("2027-07-14T19:10:00+00:00".to_string(), vec!["final"]),
        ]
    );
    assert!(matches!(status(&store, "cup-s").await, Status::Final { .. }));
    assert!(balance(&store, "a").await > 0, "a's prize was paid");
    // The clock was at each tick's instant in turn: the steps', then the end.
    assert_eq!(
        seen,
        [
            t("2027-07-14T18:05:00Z"),
            t("2027-07-14T19:05:00Z"),
            t("2027-07-14T19:10:00Z"),
            t("2027-07-14T20:00:00Z")
        ]
    );
    let paid = balance(&store, "a").await;
    schedule::run_between(
        &store,
        t("2027-07-14T20:00:00Z"),
        t("2027-07-14T21:00:00Z"),
        &settings,
        every,
        |_| {},
    )
    .await
    .expect("ran again");
    assert_eq!(balance(&store, "a").await, paid, "nothing paid twice");
}

#[macro_export]
macro_rules! tournament_tests {
    ($make:path) => {
        $crate::tournament_tests!(@cases $make;
            a_tournament_pays_its_prizes_exactly_once,
            a_champions_tournament_needs_200_prize_points_and_16_players,
            a_tournament_of_100_winners_is_final_in_one_transaction,
            the_schedule_moves_a_tournament_at_its_steps,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::tournaments::$case($make().await).await;
            }
        )*
    };
}
