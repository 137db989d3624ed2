//! Measures what each operation costs on DynamoDB (requests and capacity units, as
//! DynamoDB reports them with `ReturnConsumedCapacity: TOTAL`) on a board of
//! `PLAYERS` players plus a tie group of `TIED` players at 0 points, through the
//! same API code the functions run. Run with DynamoDB Local: `scripts/measure-cost`.

use std::collections::HashMap;
use std::time::Instant;

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::Standing;
use podium_rules::mahjong::completion;
use podium_rules::snapshot::PAGE_SIZE;
use podium_service::api::{self, ApiContext, ApiRequest};
use podium_service::boards::cursor::CursorKey;
use podium_service::boards::snapshot;
use podium_store::dynamo::{DynamoStore, UsageSnapshot};
use podium_tests::contract::score_match;
use podium_tests::fixtures::{at, dynamodb, rout, seed_balance};

/// Board size: `PODIUM_COST_PLAYERS` (default 1,000).
fn players() -> usize {
    env_number("PODIUM_COST_PLAYERS", 1_000)
}

/// Accounts on the second measured level: `PODIUM_COST_LEVEL_ACCOUNTS` (default 100,000).
fn level_accounts() -> usize {
    env_number("PODIUM_COST_LEVEL_ACCOUNTS", 100_000)
}

/// Accounts a level's fastest-times item holds (MJ-3: places 1 … 10, and the 11th).
const PLACES: u64 = 11;

/// The tie group's size: `PODIUM_COST_TIED` (default 100,000).
fn tied() -> usize {
    env_number("PODIUM_COST_TIED", 100_000)
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn row(what: &str, before: UsageSnapshot, store: &DynamoStore) {
    let d = store.usage().since(&before);
    println!(
        "| {what} | {} | {:.1} | {:.1} |",
        d.requests,
        d.read_milli_units as f64 / 1000.0,
        d.write_milli_units as f64 / 1000.0
    );
}

fn get(path: &str, query: &[(&str, &str)], player: &str) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
        player: Some(player.into()),
        operator: None,
        raw_query: None,
    }
}

/// Answers one request and prints its cost; the answer's body.
async fn measure(store: &DynamoStore, ctx: &ApiContext, what: &str, req: ApiRequest) -> serde_json::Value {
    let before = store.usage();
    let answer = api::handle(store, ctx, &req, chrono::Utc::now()).await;
    assert_eq!(answer.status, 200, "{what}: {}", answer.body);
    row(what, before, store);
    answer.body
}

#[tokio::main]
async fn main() {
    let store = dynamodb().await;
    let started = Instant::now();
    let n_players = players();
    for i in 0..n_players {
        seed_balance(
            &store,
            &format!("p-{i:05}"),
            ((i * 7_919) % 5_000 + 1) as i64,
            1_000 + i as i64,
        )
        .await;
    }
    let n_tied = tied();
    let group: Vec<Standing> = (0..n_tied)
        .map(|i| Standing {
            player_id: format!("t-{i:06}"),
            value: 0,
            reached_at_ms: 1_000_000 + i as i64,
        })
        .collect();
    store.load_balances(Game::Seega, &group).await.expect("tie group");
    eprintln!(
        "seeded {n_players} players and a tie group of {n_tied} at 0 in {:.1?}",
        started.elapsed()
    );
    let now = at(0);
    let clock = podium_tests::fixtures::now();
    let ctx = ApiContext::new(CursorKey::random());
    let seega = "/v1/leaderboards/seega";
    println!(
        "board of {n_players} players plus {n_tied} tied at 0, {} shards\n",
        podium_store::BOARD_SHARDS
    );
    println!("| operation | requests | read units | write units |");
    println!("|---|---|---|---|");

    let before = store.usage();
    score_match(&store, &rout("m-cost", "p-00001", "p-00002", now), clock)
        .await
        .expect("scored");
    row("score a match (2 existing players)", before, &store);
    let match_price = store.last_price();

    let before = store.usage();
    score_match(&store, &rout("m-cost", "p-00001", "p-00002", now), clock)
        .await
        .expect("duplicate");
    row("the same match again (duplicate)", before, &store);

    let before = store.usage();
    score_match(&store, &rout("m-cost-new", "new-1", "new-2", now), clock)
        .await
        .expect("scored");
    row("score a match (2 new players)", before, &store);

    let before = store.usage();
    let mut void = rout("m-cost-void", "p-00003", "p-00004", now);
    void.outcome = podium_rules::seega::record::Outcome::draw();
    score_match(&store, &void, clock).await.expect("void");
    row("score a void match", before, &store);

    // A Mahjong Quick Match (MJ-7, MJ-20): the winner's balance, ledger and 3 boards.
    let quick = |id: &str| {
        serde_json::json!({"match_id": id, "game": "mahjong-rivals", "kind": "quick-match",
            "ended_at": clock.to_rfc3339(), "players": [
                {"player_id": "qm-a", "completed": true, "score": 900},
                {"player_id": "qm-b", "completed": false, "score": 300}]})
        .to_string()
    };
    let policy = podium_rules::record::policy::RecordPolicy::default();
    // Level completions (MJ-2 … MJ-5): the place is read from the level ranking's
    // fastest 11 only, so it costs the same at 10 and at 100,000 accounts.
    let completion = |id: &str, player: &str, level: u32, time_ms: u64| {
        let line = serde_json::json!({"completion_id": id, "game": "mahjong-rivals",
            "kind": "level-completion", "player_id": player, "level": level,
            "time_ms": time_ms, "completed_at": clock.to_rfc3339(), "jokers_used": 0})
        .to_string();
        podium_service::games::incoming::Incoming::from_json(line.as_bytes(), clock, &policy)
            .expect("a completion")
    };
    for (level, accounts) in [(1u32, 10u64), (2, level_accounts() as u64)] {
        // The 11 fastest complete for real (they make the level's fastest times); the
        // others' best times are loaded onto the ranking directly, slower than those.
        let loaded: Vec<Standing> = (PLACES..accounts)
            .map(|i| Standing {
                player_id: format!("lv-{i}"),
                value: completion::ranking_value(60_000 + i),
                reached_at_ms: clock.timestamp_millis(),
            })
            .collect();
        store
            .load_entries(&completion::level_board(level), &loaded)
            .await
            .expect("level ranking");
        for i in 0..accounts.min(PLACES) {
            let c = completion(
                &format!("seed-{level}-{i}"),
                &format!("lv-{i}"),
                level,
                60_000 + i,
            );
            let delivery = format!("seed-{level}-{i}");
            podium_service::games::incoming::settle_incoming(&store, &c, clock, &policy, &delivery)
                .await
                .expect("seeded");
        }
        let steps = [
            ("first", 90_000, "first completion placing below 10th"),
            ("replay-5", 60_005, "replay placing 2nd-10th (+5)"),
            ("replay-10", 1_000, "replay placing 1st (+10)"),
            ("replay-0", 900, "replay after the +10 (best time only)"),
        ];
        for (step, time_ms, what) in steps {
            let c = completion(&format!("cost-{level}-{step}"), "lv-me", level, time_ms);
            let before = store.usage();
            let delivery = format!("cost-{level}-{step}");
            podium_service::games::incoming::settle_incoming(&store, &c, clock, &policy, &delivery)
                .await
                .expect("settled");
            row(
                &format!("level completion, {accounts} accounts on the level: {what}"),
                before,
                &store,
            );
        }
    }

    // LB-5: the refresh tick finds the changed level rankings from their marks, and
    // snapshots only those.
    let before = store.usage();
    let changed = podium_service::engine::changes::changed(&store, usize::MAX)
        .await
        .expect("marks");
    row(
        &format!(
            "refresh tick: list change marks ({} levels marked)",
            changed.len()
        ),
        before,
        &store,
    );
    for c in &changed {
        let before = store.usage();
        let report = snapshot::write::run_paged(
            &store,
            &c.board,
            &snapshot::layout::id_for(clock),
            clock,
            snapshot::layout::Paging::content_defined(PAGE_SIZE),
            None,
            clock,
        )
        .await
        .expect("level snapshot");
        row(
            &format!(
                "refresh tick: snapshot {} ({} pages, first snapshot)",
                c.board.board, report.pages_total
            ),
            before,
            &store,
        );
    }

    for (id, what) in [
        ("qm-1", "Quick Match (winner's first points, 3 boards)"),
        ("qm-1", "the same Quick Match again (duplicate)"),
        ("qm-2", "Quick Match (winner already on the boards)"),
    ] {
        let record =
            podium_service::games::incoming::Incoming::from_json(quick(id).as_bytes(), clock, &policy)
                .expect("a Quick Match");
        let before = store.usage();
        let delivery = format!("cost-{:016x}", rand::random::<u64>());
        podium_service::games::incoming::settle_incoming(&store, &record, clock, &policy, &delivery)
            .await
            .expect("settled");
        row(what, before, &store);
    }

    // An Arena (MJ-11): 4 players, 3 rounds of 20 pairs each; prizes to 3 of them.
    let arena = {
        let players = ["ar-a", "ar-b", "ar-c", "ar-d"];
        let rounds: Vec<serde_json::Value> = (0..3)
            .map(|_| {
                let logs: Vec<serde_json::Value> = players
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let events: Vec<serde_json::Value> = (1..=(20 - 3 * i as u64))
                            .map(|k| serde_json::json!({"type": "pair", "at_ms": k * 9_000}))
                            .collect();
                        serde_json::json!({"player_id": p, "events": events})
                    })
                    .collect();
                serde_json::json!({"logs": logs})
            })
            .collect();
        serde_json::json!({"arena_id": "ar-cost", "game": "mahjong-rivals", "kind": "arena",
            "ended_at": clock.to_rfc3339(), "players": players, "rounds": rounds})
        .to_string()
    };
    for what in [
        "Arena (3 prizes, 3 boards each)",
        "the same Arena again (duplicate)",
    ] {
        let record = podium_service::games::incoming::Incoming::from_json(arena.as_bytes(), clock, &policy)
            .expect("an Arena");
        let before = store.usage();
        let delivery = format!("cost-{:016x}", rand::random::<u64>());
        podium_service::games::incoming::settle_incoming(&store, &record, clock, &policy, &delivery)
            .await
            .expect("settled");
        row(what, before, &store);
    }

    // A tournament of 100 players with 10 prizes (MJ-12 … MJ-16), paid by the tick.
    let starts = clock + chrono::Duration::hours(1);
    let tour = podium_rules::mahjong::tournament::Tournament {
        tournament_id: "cost-cup".into(),
        starts_at: starts,
        ends_at: starts + chrono::Duration::hours(1),
        min_players: 16,
        multiplier: 2,
        prizes: vec![500, 300, 200, 100, 80, 60, 50, 40, 30, 20],
        champions: false,
    };
    let before = store.usage();
    podium_service::games::tournaments::configure(&store, &tour, "cost", chrono::Utc::now())
        .await
        .expect("configured");
    row("tournament: configure", before, &store);
    let before = store.usage();
    for i in 0..100 {
        let line = serde_json::json!({"game": "mahjong-rivals", "kind": "tournament-registration",
            "tournament_id": "cost-cup", "player_id": format!("tp-{i:03}"),
            "registered_at": (clock + chrono::Duration::seconds(i)).to_rfc3339()})
        .to_string();
        let r = podium_service::games::incoming::Incoming::from_json(
            line.as_bytes(),
            clock + chrono::Duration::minutes(5),
            &policy,
        )
        .expect("registration");
        podium_service::games::incoming::settle_incoming(&store, &r, clock, &policy, &format!("reg-{i}"))
            .await
            .expect("registered");
    }
    row("tournament: 100 registrations (total)", before, &store);
    let tick = |at: chrono::DateTime<chrono::Utc>| {
        let store = &store;
        async move {
            podium_service::games::tournaments::tick(store, at)
                .await
                .expect("tick")
        }
    };
    let before = store.usage();
    tick(starts + chrono::Duration::minutes(2)).await;
    row("tournament tick: start (count 100 registrations)", before, &store);
    let before = store.usage();
    for t in 0..25 {
        let players: Vec<serde_json::Value> = (0..4)
            .map(|k| serde_json::json!({"player_id": format!("tp-{:03}", t * 4 + k), "completed": k == 0, "score": 100 * (4 - k) + t}))
            .collect();
        let line = serde_json::json!({"game": "mahjong-rivals", "kind": "tournament-table", "table_id": format!("cost-t-{t}"),
            "tournament_id": "cost-cup", "ended_at": (starts + chrono::Duration::minutes(30)).to_rfc3339(), "players": players})
        .to_string();
        let at = starts + chrono::Duration::minutes(31);
        let r = podium_service::games::incoming::Incoming::from_json(line.as_bytes(), at, &policy)
            .expect("table");
        podium_service::games::incoming::settle_incoming(&store, &r, at, &policy, &format!("tb-{t}"))
            .await
            .expect("table");
    }
    row("tournament: 25 tables of 4 (total)", before, &store);
    let end = tour.ends_at;
    let before = store.usage();
    tick(end + chrono::Duration::minutes(2)).await;
    row("tournament tick: close", before, &store);
    let before = store.usage();
    let report = tick(end + chrono::Duration::minutes(7)).await;
    assert_eq!(report.iter().map(|r| r.prizes_paid).sum::<u32>(), 10);
    row(
        "tournament tick: fix the 10 winners and pay 10 prizes",
        before,
        &store,
    );
    let before = store.usage();
    tick(end + chrono::Duration::minutes(12)).await;
    row(
        "tournament tick: nothing left (the tournament left the index)",
        before,
        &store,
    );

    // Live board (before the first snapshot); the tie group makes counts long.
    let page = measure(
        &store,
        &ctx,
        "GET /v1/leaderboards/seega (top 50, live)",
        get(seega, &[], "p-00001"),
    )
    .await;
    let cursor = page["next_cursor"].as_str().unwrap_or_default().to_string();
    measure(
        &store,
        &ctx,
        "GET /v1/leaderboards/seega?cursor= (next 50, live)",
        get(seega, &[("cursor", &cursor)], "p-00001"),
    )
    .await;
    measure(
        &store,
        &ctx,
        "GET /v1/leaderboards/seega/me (live, 5 each side)",
        get(&format!("{seega}/me"), &[], "p-00500"),
    )
    .await;
    measure(&store, &ctx, "GET /v1/me", get("/v1/me", &[], "p-00001")).await;
    measure(
        &store,
        &ctx,
        "GET /v1/me/matches/{id}",
        get("/v1/me/matches/m-cost", &[], "p-00001"),
    )
    .await;

    // A player whose key history is cut (more than 8 changes) before the snapshot.
    for round in 0..10 {
        seed_balance(&store, "p-00900", 2_000 + round * 5, 5_000 + round).await;
    }

    // Snapshots (LB-5): materialise, then serve from them.
    let before = store.usage();
    let started = Instant::now();
    let run = snapshot::write::run(
        &store,
        &BoardRef::all_time("seega"),
        "cost",
        clock,
        PAGE_SIZE,
        None,
        clock,
    )
    .await
    .expect("snapshot");
    let d = store.usage().since(&before);
    row(
        &format!(
            "snapshot run: {} pages in {:.1?}",
            run.pages_total,
            started.elapsed()
        ),
        before,
        &store,
    );
    println!(
        "| (write requests per materialised page: {:.3}) | | | |",
        d.write_requests as f64 / f64::from(run.pages_total.max(1))
    );
    // Past its first seconds a snapshot's pages are read eventually consistent.
    tokio::time::sleep(std::time::Duration::from_millis(
        snapshot::layout::FRESH_MS as u64 + 500,
    ))
    .await;
    let page = measure(
        &store,
        &ctx,
        "snapshot top 50, cold cache (pointer)",
        get(seega, &[], "p-00001"),
    )
    .await;
    measure(
        &store,
        &ctx,
        "snapshot top 50, warm cache",
        get(seega, &[], "p-00001"),
    )
    .await;
    let cursor = page["next_cursor"].as_str().unwrap_or_default().to_string();
    let page2 = measure(
        &store,
        &ctx,
        "snapshot next 50 (cursor, crosses into page 2)",
        get(seega, &[("cursor", &cursor)], "p-00001"),
    )
    .await;
    let cursor = page2["next_cursor"].as_str().unwrap_or_default().to_string();
    measure(
        &store,
        &ctx,
        "snapshot next 50 (cursor)",
        get(seega, &[("cursor", &cursor)], "p-00001"),
    )
    .await;
    for probe in ["p-00000", "p-00500"] {
        let body = measure(
            &store,
            &ctx,
            &format!("snapshot around-me {probe}, 5 each side"),
            get(&format!("{seega}/me"), &[], probe),
        )
        .await;
        eprintln!("{probe}: rank {}", body["me"]["rank"]);
    }
    let group_name = |i: usize| format!("t-{i:06}");
    for (label, i) in [
        ("first", 0),
        ("middle", n_tied / 2),
        ("last", n_tied.saturating_sub(1)),
    ] {
        let body = measure(
            &store,
            &ctx,
            &format!("snapshot around-me, {label} of the {n_tied}-player tie group, 25 each side"),
            get(&format!("{seega}/me"), &[("neighbours", "25")], &group_name(i)),
        )
        .await;
        let shown = body["entries"].as_array().map_or(0, Vec::len);
        assert!((26..=51).contains(&shown), "{label}: {shown}");
    }
    // The caller lost points after the snapshot: their older entry is found and set aside.
    score_match(&store, &rout("m-cost-after", "p-00000", "p-00500", now), clock)
        .await
        .expect("scored");
    measure(
        &store,
        &ctx,
        "snapshot around-me after the caller lost since the snapshot",
        get(&format!("{seega}/me"), &[], "p-00500"),
    )
    .await;
    // The player with a cut history climbs: still answered from the snapshot.
    score_match(&store, &rout("m-cost-climb", "p-00900", "p-00600", now), clock)
        .await
        .expect("scored");
    let body = measure(
        &store,
        &ctx,
        "snapshot around-me after the caller (9+ changes) climbed since the snapshot",
        get(&format!("{seega}/me"), &[], "p-00900"),
    )
    .await;
    assert_eq!(body["snapshot"], "cost", "answered from the snapshot");

    // Rewards (SG-10, MJ-18): an ad grant, its duplicate, a second ad the same day,
    // and the daily bonus.
    let rewards = podium_tests::rewards::ctx();
    let now = chrono::Utc::now();
    let ad = |txn: &str| {
        let mut req = get("/v1/ad-callbacks/admob", &[], "p-00001");
        req.player = None;
        req.raw_query = Some(podium_tests::rewards::admob("1111", txn, "p-00001", now));
        req
    };
    let grant = ad("cost-1");
    measure(&store, &rewards, "ad callback: grant (+40, SG-10)", grant.clone()).await;
    measure(
        &store,
        &rewards,
        "ad callback: the same callback again (duplicate)",
        grant,
    )
    .await;
    measure(
        &store,
        &rewards,
        "ad callback: another one the same day (already granted)",
        ad("cost-2"),
    )
    .await;
    let mut claim = get("/v1/games/mahjong-rivals/daily-bonus", &[], "p-00001");
    claim.method = "POST".into();
    measure(
        &store,
        &rewards,
        "daily bonus: claim (MJ-18, 3 boards)",
        claim.clone(),
    )
    .await;
    measure(&store, &rewards, "daily bonus: claimed again the same day", claim).await;

    // Issue 14: the point history, the league the bonus placed p-00001 in, a period
    // closed with a reward table, its inbox and a claim.
    measure(
        &store,
        &ctx,
        "GET /v1/me/ledger?game=seega (20 entries)",
        get("/v1/me/ledger", &[("game", "seega")], "p-00001"),
    )
    .await;
    measure(
        &store,
        &ctx,
        "GET /v1/leagues/mahjong-league/me (placed, cohort of 1)",
        get("/v1/leagues/mahjong-league/me", &[], "p-00001"),
    )
    .await;
    let weekly = podium_rules::board::board_def("mahjong-weekly").expect("registered");
    let past = chrono::DateTime::parse_from_rfc3339("2026-11-25T12:00:00Z")
        .expect("instant")
        .to_utc();
    for i in 0..10 {
        let p = format!("wk-{i:02}");
        let before = store.usage();
        podium_service::boards::periods::credit(&store, weekly, &p, 100 + i, past, past, &format!("wk-{i}"))
            .await
            .expect("credit");
        if i == 0 {
            row("Mahjong points on the weekly board, a player's first of the week (placed in a league cohort)", before, &store);
        }
    }
    let before = store.usage();
    podium_service::boards::periods::credit(&store, weekly, "wk-00", 5, past, past, "wk-again")
        .await
        .expect("credit");
    row(
        "Mahjong points on the weekly board, later in the week",
        before,
        &store,
    );
    let freeze_at = chrono::DateTime::parse_from_rfc3339("2026-11-29T22:05:00Z")
        .expect("instant")
        .to_utc();
    let (period, _) = podium_service::boards::periods::freeze_ended(&store, weekly, freeze_at)
        .await
        .expect("freeze")
        .expect("a weekly board");
    let tables = podium_service::config::parse_period_rewards(
        r#"{"mahjong-weekly": {"bands": [{"ranks": [1, 3], "points": 100}]}}"#,
    )
    .expect("tables");
    let board = weekly.in_period(&period);
    let before = store.usage();
    let closed = podium_service::boards::close::close(
        &store,
        weekly.game,
        &board,
        tables.get("mahjong-weekly"),
        freeze_at,
        Default::default(),
    )
    .await
    .expect("close")
    .expect("frozen");
    row(
        &format!(
            "period close: {} results, {} rewarded (total)",
            closed.ranked, closed.rewarded
        ),
        before,
        &store,
    );
    let before = store.usage();
    podium_service::boards::close::close(
        &store,
        weekly.game,
        &board,
        tables.get("mahjong-weekly"),
        freeze_at,
        Default::default(),
    )
    .await
    .expect("close again");
    row("period close again (nothing to send)", before, &store);
    let before = store.usage();
    let week = podium_service::players::leagues::close_week(
        &store,
        &podium_rules::league::LEAGUES[0],
        &period.id,
        freeze_at,
    )
    .await
    .expect("league week");
    row(
        &format!("league week close: {} members (total)", week.placed),
        before,
        &store,
    );
    // LB-5: every tick starts by catching up on ended periods. The first tick ever
    // looks a record age back (31 days: the week above and its empty neighbours);
    // then a tick with nothing due reads three records (two boards' closes, the AMR's).
    let settings: podium_service::jobs::TickSettings = tables.clone().into();
    let tick = |at: chrono::DateTime<chrono::Utc>| {
        let (store, settings) = (&store, &settings);
        async move {
            let run = podium_service::jobs::ScheduledRun {
                job: podium_service::jobs::Job::Freeze,
                scheduled_time: at,
            };
            podium_service::jobs::handle(store, run, settings)
                .await
                .expect("tick")
        }
    };
    let before = store.usage();
    let caught = tick(freeze_at).await;
    row(
        &format!(
            "tick catch-up, first tick ever: {} periods frozen and closed (a month back; 1 week with 10 players)",
            caught.runs.len()
        ),
        before,
        &store,
    );
    let before = store.usage();
    tick(freeze_at + chrono::Duration::minutes(5)).await;
    row(
        "tick catch-up with nothing due (the closes' and the window's records)",
        before,
        &store,
    );
    // BD-13: a definition previewed against past play walks the table's stored
    // results (a Scan, charged for every item it examines) a page a step.
    let wins: podium_rules::board::definition::Definition = serde_json::from_value(serde_json::json!({
        "id": "preview-seega-wins", "title": "Seega wins", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "all_time"},
    }))
    .expect("a definition");
    let before = store.usage();
    let preview = podium_service::operators::previews::run(
        &store,
        wins,
        (freeze_at - chrono::Duration::days(60), freeze_at),
        freeze_at,
        podium_service::budget::Budget::unbounded(),
        podium_service::operators::previews::PAGE,
    )
    .await
    .expect("a preview");
    row(
        &format!(
            "preview of a Seega wins board over past play: a Scan of the whole table, {} Seega results read, {} wins counted",
            preview.results_read, preview.counted
        ),
        before,
        &store,
    );
    let before = store.usage();
    let day_later = tick(freeze_at + chrono::Duration::days(1)).await;
    row(
        &format!(
            "tick catch-up a day later: {} empty periods frozen and closed (a day)",
            day_later.runs.len()
        ),
        before,
        &store,
    );
    measure(
        &store,
        &ctx,
        "GET /v1/me/inbox (2 messages)",
        get("/v1/me/inbox", &[], "wk-09"),
    )
    .await;
    let mut claim = get("/v1/me/inbox/pr:mahjong-weekly:2026-W48/claim", &[], "wk-09");
    claim.method = "POST".into();
    measure(
        &store,
        &ctx,
        "POST /v1/me/inbox/{id}/claim (a reward)",
        claim.clone(),
    )
    .await;
    measure(&store, &ctx, "the same claim again", claim).await;

    // overtaken (LB-5): the top 100 of `seega`, and one player who opted in.
    let seega_board = BoardRef::all_time("seega");
    // p-00000 ranks 1,001st: checked as a neighbour, not through the top.
    let mut follow = get("/v1/me/follows/seega", &[], "p-00000");
    follow.method = "PUT".into();
    measure(&store, &ctx, "PUT /v1/me/follows/seega (opt in)", follow).await;
    measure(
        &store,
        &ctx,
        "GET /v1/me/follows",
        get("/v1/me/follows", &[], "p-00000"),
    )
    .await;
    let before = store.usage();
    podium_service::players::overtaken::notify(&store, &seega_board, "cost", clock)
        .await
        .expect("notify");
    row(
        "overtaken after a refresh: the board's first notification (1 opted-in player checked)",
        before,
        &store,
    );
    let top = measure(
        &store,
        &ctx,
        "(the top 100, to pick the 100th)",
        get(seega, &[("limit", "100")], "p-00001"),
    )
    .await;
    let hundredth = top["entries"][99]["player_id"]
        .as_str()
        .expect("a 100th")
        .to_string();
    seed_balance(&store, &hundredth, 1_000_000, 9_000).await;
    let later = clock + chrono::Duration::minutes(5);
    snapshot::write::run(&store, &seega_board, "cost-2", later, PAGE_SIZE, None, later)
        .await
        .expect("snapshot");
    let before = store.usage();
    let sent = podium_service::players::overtaken::notify(&store, &seega_board, "cost-2", later)
        .await
        .expect("notify");
    row(
        &format!(
            "overtaken after a refresh: the 100th jumps to 1st ({} messages, {} opted-in player checked)",
            sent.top, sent.checked
        ),
        before,
        &store,
    );
    let before = store.usage();
    podium_service::players::overtaken::notify(&store, &seega_board, "cost-2", later)
        .await
        .expect("notify again");
    row("overtaken again, same snapshot (nothing to send)", before, &store);

    // Issue 25: profiles, friends, country boards, movement, revalidation.
    profiles_and_views(&store, &ctx, later).await;

    // Issue 27: the scored match's writes item by item, by the published pricing.
    print_price("score a match (2 existing players)", &match_price);
}

/// A transaction's price by DynamoDB's published pricing, line by line, with its total.
fn print_price(what: &str, lines: &[podium_store::dynamo::PricedWrite]) {
    println!("\n{what}, by DynamoDB's published on-demand pricing:\n");
    println!("| write | bytes | write request units |");
    println!("|---|---|---|");
    for l in lines {
        println!("| {} | {} | {} |", l.what(), l.bytes, l.units);
    }
    let units: u64 = lines.iter().map(|l| l.units).sum();
    let checks: u64 = lines.iter().map(|l| l.checks).sum();
    println!("| **total** | | **{units}** |");
    println!(
        "\n{checks} condition checks write nothing; if each were billed as a transaction item (2 units) the total would be {}.",
        units + 2 * checks
    );
}

/// Profiles (PF-1 … PF-3) on the `players()` players, 50 countries; a friend list
/// of 150; a refresh that reads every card, ranks 50 country boards and records
/// movement; a country page and around-me; a friends view; 304 revalidations.
async fn profiles_and_views(store: &DynamoStore, ctx: &ApiContext, after: chrono::DateTime<chrono::Utc>) {
    use bytes::Bytes;
    let countries: Vec<&str> = podium_rules::profile::all_countries().take(50).collect();
    let n_players = players();
    // Profile changes are dated on the same clock as the snapshot runs (the cards of
    // players who did not change since the previous snapshot are that snapshot's).
    let now = after;
    let put = |path: &str, player: &str| ApiRequest {
        method: "PUT".into(),
        ..get(path, &[], player)
    };
    for i in 0..n_players {
        let p = format!("p-{i:05}");
        let body =
            serde_json::json!({"name": format!("Player {i}"), "avatar": "a01", "country": countries[i % 50]});
        let before = store.usage();
        let answer = api::handle_with_body(
            store,
            ctx,
            &put("/v1/me/profile", &p),
            &[],
            Bytes::from(body.to_string()),
            now,
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        if i == 0 {
            row(
                "PUT /v1/me/profile (a new profile: name, avatar, country)",
                before,
                store,
            );
        }
    }
    let before = store.usage();
    let rename = serde_json::json!({"name": "Renamed"});
    api::handle_with_body(
        store,
        ctx,
        &put("/v1/me/profile", "p-00001"),
        &[],
        Bytes::from(rename.to_string()),
        now,
    )
    .await;
    row("PUT /v1/me/profile (a rename)", before, store);
    let friends: Vec<String> = (2..152).map(|i| format!("p-{i:05}")).collect();
    let before = store.usage();
    let body = serde_json::json!({ "friends": friends });
    let answer = api::handle_with_body(
        store,
        ctx,
        &put("/v1/me/friends", "p-00001"),
        &[],
        Bytes::from(body.to_string()),
        now,
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    row("PUT /v1/me/friends (150 ids)", before, store);

    let seega_board = BoardRef::all_time("seega");
    let refresh_at = after + chrono::Duration::minutes(5);
    let started = Instant::now();
    let before = store.usage();
    let run = snapshot::write::run(
        store,
        &seega_board,
        "cost-3",
        refresh_at,
        PAGE_SIZE,
        None,
        refresh_at,
    )
    .await
    .expect("snapshot");
    row(
        &format!(
            "snapshot run with cards, 50 country boards and movement: {} pages in {:.1?}",
            run.pages_total,
            started.elapsed()
        ),
        before,
        store,
    );
    tokio::time::sleep(std::time::Duration::from_millis(
        snapshot::layout::FRESH_MS as u64 + 500,
    ))
    .await;
    let ctx = ApiContext::new(CursorKey::random());
    let seega = "/v1/leaderboards/seega";
    let top = measure(
        store,
        &ctx,
        "snapshot top 50 with names and movement, cold cache",
        get(seega, &[], "p-00001"),
    )
    .await;
    assert!(top["entries"][0]["movement"].is_object(), "{}", top["entries"][0]);
    measure(
        store,
        &ctx,
        "snapshot around-me with movement, 5 each side",
        get(&format!("{seega}/me"), &[], "p-00500"),
    )
    .await;
    let country = countries[0];
    measure(
        store,
        &ctx,
        &format!("country page: top 50 of {country}, cold cache"),
        get(seega, &[("country", country)], "p-00000"),
    )
    .await;
    measure(
        store,
        &ctx,
        &format!("country around-me ({country}, 5 each side)"),
        get(&format!("{seega}/me"), &[("country", country)], "p-00000"),
    )
    .await;
    measure(
        store,
        &ctx,
        "GET /v1/leaderboards/seega/friends (150 friends)",
        get(&format!("{seega}/friends"), &[], "p-00001"),
    )
    .await;
    let first = api::handle(store, &ctx, &get(seega, &[], "p-00001"), chrono::Utc::now()).await;
    let etag = first.etag.expect("an ETag");
    let before = store.usage();
    let again = api::handle_with_headers(
        store,
        &ctx,
        &get(seega, &[], "p-00001"),
        &[("if-none-match", &etag)],
        chrono::Utc::now(),
    )
    .await;
    assert_eq!(again.status, 304);
    row(
        "304: GET /v1/leaderboards/seega with If-None-Match",
        before,
        store,
    );
    let me = api::handle(
        store,
        &ctx,
        &get(&format!("{seega}/me"), &[], "p-00500"),
        chrono::Utc::now(),
    )
    .await;
    let etag = me.etag.expect("an ETag");
    let before = store.usage();
    let again = api::handle_with_headers(
        store,
        &ctx,
        &get(&format!("{seega}/me"), &[], "p-00500"),
        &[("if-none-match", &etag)],
        chrono::Utc::now(),
    )
    .await;
    assert_eq!(again.status, 304);
    row(
        "304: GET /v1/leaderboards/seega/me with If-None-Match (caller and live entry read)",
        before,
        store,
    );
}
