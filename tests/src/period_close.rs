//! Period-close rewards and the inbox on both stores (LB-5, GM-3, MJ-15): freezing a
//! week of `mahjong-weekly` sends each ranked player one `period_result` message with
//! the table's reward (ties split as MJ-15 splits TP); rerunning the freeze, closing
//! concurrently and claiming concurrently never send or pay twice.

use chrono::{DateTime, Utc};
use futures::future::join_all;
use podium_rules::board::{board_def, BoardDef, BoardRef};
use podium_rules::game::Game;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_service::boards::close;
use podium_service::boards::periods;
use podium_service::config::parse_period_rewards;
use podium_service::jobs::{handle, Job, ScheduledRun};
use podium_store::Store;
use serde_json::Value;

use crate::contract::cursor_key;
use crate::review::get;

/// `mahjong-weekly`'s reward table in these tests: 500, 200 for 2nd–3rd, 10 for the top 20 %.
pub(crate) const TABLES: &str = r#"{"mahjong-weekly": {"bands": [
    {"ranks": [1, 1], "points": 500}, {"ranks": [2, 3], "points": 200}, {"top_percent": 20, "points": 10}]}}"#;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

fn weekly() -> &'static BoardDef {
    board_def("mahjong-weekly").expect("registered")
}

/// Week 2026-W48 (Monday 23 – Sunday 29 November, Bucharest).
fn week() -> BoardRef {
    BoardRef::new("mahjong-weekly", "2026-W48")
}

/// 30 players in week 48: m00 and m01 tied at 1,000, then 990, 980, … (and one
/// player's points the week after, who is not ranked in week 48).
pub(crate) async fn seed_week<S: Store>(store: &S) -> Vec<(String, i64)> {
    let mut players = Vec::new();
    for i in 0..30i64 {
        let p = format!("m{i:02}");
        let points = if i == 0 { 1_000 } else { 1_010 - 10 * i };
        periods::credit(
            store,
            weekly(),
            &p,
            points,
            t("2026-11-25T12:00:00Z"),
            t("2026-11-25T12:00:01Z"),
            &format!("w-{p}"),
        )
        .await
        .expect("credit");
        players.push((p, points));
    }
    periods::credit(
        store,
        weekly(),
        "late",
        50,
        t("2026-11-30T09:00:00Z"),
        t("2026-11-30T09:00:01Z"),
        "w-late",
    )
    .await
    .expect("credit");
    players
}

pub(crate) async fn freeze<S: Store>(store: &S, at: &str) {
    let tables = parse_period_rewards(TABLES).expect("tables");
    let run = ScheduledRun {
        job: Job::Freeze,
        scheduled_time: t(at),
    };
    handle(store, run, &tables.into()).await.expect("freeze");
}

async fn call<S: Store + Clone + 'static>(store: &S, req: &ApiRequest, now: &str) -> ApiResponse {
    api::handle(store, &ApiContext::new(cursor_key()), req, t(now)).await
}

fn claim(player: &str, id: &str) -> ApiRequest {
    ApiRequest {
        method: "POST".into(),
        ..get(&format!("/v1/me/inbox/{id}/claim"), &[], player)
    }
}

/// `player`'s inbox, with only its `period_result` messages (the week's league
/// results are checked in [`crate::leagues`]).
async fn inbox<S: Store + Clone + 'static>(store: &S, player: &str) -> Value {
    let answer = call(store, &get("/v1/me/inbox", &[], player), "2026-11-30T10:00:00Z").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let mut body = answer.body;
    if let Some(messages) = body["messages"].as_array_mut() {
        messages.retain(|m| m["kind"] == "period_result");
    }
    body
}

/// LB-5, MJ-15: the freeze after week 48 sends each of its 30 players one message
/// (rank, of 30, top %), with the table's reward: m00 and m01 tied for 1st share
/// 500 + 200 (350 each), 3rd gets 200, 4th–6th (top 20 %) 10, the rest none. Running
/// the freeze again, and closing twice at once, sends nothing more.
pub async fn lb_5_closing_a_week_sends_each_result_once<S: Store + Clone + 'static>(store: S) {
    let players = seed_week(&store).await;
    freeze(&store, "2026-11-29T22:05:00Z").await;
    for (i, (p, points)) in players.iter().enumerate() {
        let body = inbox(&store, p).await;
        let messages = body["messages"].as_array().expect("messages");
        assert_eq!(messages.len(), 1, "{p}: {body}");
        let m = &messages[0];
        assert_eq!(
            (m["id"].as_str(), m["kind"].as_str()),
            (Some("pr:mahjong-weekly:2026-W48"), Some("period_result"))
        );
        let rank = if i < 2 { 1 } else { i as u64 + 1 };
        assert_eq!(
            (m["rank"].as_u64(), m["of"].as_u64(), m["value"].as_i64()),
            (Some(rank), Some(30), Some(*points))
        );
        assert_eq!(m["top_percent"].as_u64(), Some((rank * 100).div_ceil(30)));
        let reward = match i {
            0 | 1 => 350,
            2 => 200,
            3..=5 => 10,
            _ => 0,
        };
        assert_eq!(m["reward"]["points"].as_i64().unwrap_or(0), reward, "{p}");
        assert_eq!(body["unclaimed"].as_u64(), Some(u64::from(reward > 0)));
    }
    assert_eq!(
        inbox(&store, "late").await["messages"],
        serde_json::json!([]),
        "not ranked in week 48"
    );

    // Again, and twice at once: nothing is sent twice.
    freeze(&store, "2026-11-29T22:10:00Z").await;
    let tables = parse_period_rewards(TABLES).expect("tables");
    let table = tables.get("mahjong-weekly");
    let board = week();
    let runs = join_all((0..2).map(|_| {
        close::close(
            &store,
            weekly().game,
            &board,
            table,
            t("2026-11-30T00:00:00Z"),
            Default::default(),
        )
    }))
    .await;
    for r in runs {
        let r = r.expect("close").expect("frozen");
        assert_eq!(
            (r.sent, r.done, r.already_done),
            (0, true, true),
            "closed before: one read"
        );
    }
    // A fresh period (week 49, frozen without the job) closed twice at once: each
    // result sent by one of the two, once.
    for (i, p) in ["n0", "n1", "n2", "n3"].iter().enumerate() {
        periods::credit(
            &store,
            weekly(),
            p,
            10 * (i as i64 + 1),
            t("2026-12-02T12:00:00Z"),
            t("2026-12-02T12:00:01Z"),
            &format!("w49-{p}"),
        )
        .await
        .expect("credit");
    }
    let (w49, _) = periods::freeze_ended(&store, weekly(), t("2026-12-06T22:05:00Z"))
        .await
        .expect("freeze")
        .expect("a weekly board");
    let fresh = weekly().in_period(&w49);
    let runs = join_all((0..2).map(|_| {
        close::close(
            &store,
            weekly().game,
            &fresh,
            table,
            t("2026-12-06T22:05:00Z"),
            Default::default(),
        )
    }))
    .await;
    let reports: Vec<_> = runs
        .into_iter()
        .map(|r| r.expect("close").expect("frozen"))
        .collect();
    let sent: usize = reports.iter().map(|r| r.sent).sum();
    assert_eq!(sent, 5, "n0 … n3 and `late`: {reports:?}");
    for p in ["n0", "n1", "n2", "n3", "late"] {
        let messages = inbox(&store, p).await["messages"].clone();
        assert_eq!(messages.as_array().map(Vec::len), Some(1), "{p}: {messages}");
    }
    for (p, _) in &players {
        assert_eq!(
            inbox(&store, p).await["messages"].as_array().map(Vec::len),
            Some(1),
            "{p}"
        );
    }
}

/// GM-3, LB-5: a reward is claimed once: five claims at once and a retry all answer
/// the same, the balance rises by the reward once, with one ledger entry (rule LB-5);
/// a message without a reward, an unknown id and another player's message are 404s.
pub async fn gm_3_a_reward_is_claimed_once<S: Store + Clone + 'static>(store: S) {
    seed_week(&store).await;
    freeze(&store, "2026-11-29T22:05:00Z").await;
    let id = "pr:mahjong-weekly:2026-W48";
    let before = store
        .get_balances(Game::MahjongRivals, &["m00"])
        .await
        .expect("read")[0]
        .points;
    let claims: Vec<ApiRequest> = (0..5).map(|_| claim("m00", id)).collect();
    let answers = join_all(claims.iter().map(|c| call(&store, c, "2026-11-30T08:00:00Z"))).await;
    for a in &answers {
        assert_eq!(a.status, 200, "{}", a.body);
        assert_eq!(a.body, answers[0].body, "every claim answers as the first");
    }
    assert_eq!(answers[0].body["points"], 350);
    let retry = call(&store, &claim("m00", id), "2026-11-30T09:00:00Z").await;
    assert_eq!(retry.body, answers[0].body, "a later retry too");
    let after = store
        .get_balances(Game::MahjongRivals, &["m00"])
        .await
        .expect("read")[0]
        .points;
    assert_eq!(after, before + 350, "paid once");
    assert_eq!(answers[0].body["balance_after"].as_i64(), Some(after));
    let ledger = store
        .ledger_entries(Game::MahjongRivals, "m00")
        .await
        .expect("ledger");
    let paid: Vec<_> = ledger.iter().filter(|e| e.source == "period-reward").collect();
    assert_eq!(paid.len(), 1);
    assert_eq!(
        (paid[0].source_id.as_str(), paid[0].rule.as_str(), paid[0].applied),
        (id, "LB-5", 350)
    );
    assert_eq!(ledger.iter().map(|e| e.applied).sum::<i64>(), after, "GM-4");
    let body = inbox(&store, "m00").await;
    assert_eq!(body["unclaimed"], 0);
    assert!(body["messages"][0]["reward"]["claimed_at"].is_string());

    for (player, message) in [
        ("m20", id),
        ("m00", "pr:mahjong-weekly:2026-W47"),
        ("nobody", id),
        ("m00", "not%20an%20id"),
        ("m00", "x%2Fy"),
    ] {
        let refused = call(&store, &claim(player, message), "2026-11-30T08:00:00Z").await;
        assert_eq!(refused.status, 404, "{player} {message}: {}", refused.body);
    }
    // Found by attack: a player whose id ends in `:pr` claimed "mahjong-weekly:2026-W48"
    // and got m00's answer (the claim's key joined player and message with `:`).
    let collide = call(
        &store,
        &claim("m00:pr", "mahjong-weekly:2026-W48"),
        "2026-11-30T08:00:00Z",
    )
    .await;
    assert_eq!(collide.status, 404, "{}", collide.body);
    // m01 claims its own; m00's claim did not touch it.
    let other = call(&store, &claim("m01", id), "2026-11-30T08:00:00Z").await;
    assert_eq!((other.status, other.body["points"].as_i64()), (200, Some(350)));
}

#[macro_export]
macro_rules! period_close_tests {
    ($make:path) => {
        $crate::period_close_tests!(@cases $make;
            lb_5_closing_a_week_sends_each_result_once,
            gm_3_a_reward_is_claimed_once,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::period_close::$case($make().await).await;
            }
        )*
    };
}
