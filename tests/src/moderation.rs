//! Operators who act, on both stores (OP-1 … OP-5): corrections settled exactly once
//! and shown with their reason, every action in the audit trail, operator routes
//! refused to app callers.

use std::collections::HashMap;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_store::Store;
use serde_json::{json, Value};

use crate::contract::cursor_key;
use crate::fixtures::{seed_balance, seed_game_balance, tick};
use crate::review::{get, ranks};
use podium_service::games::incoming::{Incoming, Outcome};
use podium_service::moderation::review::{accept, Intake};

/// `POST /v1/operator/players/{player}/{action}` (suspend, restore, name-reset, …) by
/// an operator with a reason, at `at`; asserts it answered 200.
pub async fn moderate<S: Store + Clone + 'static>(store: &S, player: &str, action: &str, at: DateTime<Utc>) {
    let answer = operator_call(
        store,
        "POST",
        &format!("/v1/operator/players/{player}/{action}"),
        &[],
        Some("support-1"),
        Some(&serde_json::json!({"reason": "a moderation test"})),
        at,
    )
    .await;
    assert_eq!(answer.status, 200, "{action} {player}: {}", answer.body);
}

/// An operator's request that works to its end before answering (within a minute):
/// the 800 ms a deployed request works ([`podium_service::budget::StepLimit::REQUEST`])
/// is a machine's speed, and a test asks for answers that do not depend on it (the
/// tests of actions answered before their end set a number of steps).
pub const WHOLE: podium_service::budget::StepLimit = podium_service::budget::StepLimit {
    time: std::time::Duration::from_secs(60),
    steps: None,
};

/// `method path` with `body` as operator `operator` (or as player `player`).
pub async fn operator_call<S: Store + Clone + 'static>(
    store: &S,
    method: &str,
    path: &str,
    query: &[(&str, &str)],
    operator: Option<&str>,
    body: Option<&Value>,
    now: DateTime<Utc>,
) -> ApiResponse {
    operator_call_in(
        &ApiContext::new(cursor_key()).with_operator_steps(WHOLE),
        store,
        method,
        path,
        query,
        operator,
        body,
        now,
    )
    .await
}

/// [`operator_call`] in the API context `ctx` (its reward tables, its operator steps).
#[allow(clippy::too_many_arguments)]
pub async fn operator_call_in<S: Store + Clone + 'static>(
    ctx: &ApiContext,
    store: &S,
    method: &str,
    path: &str,
    query: &[(&str, &str)],
    operator: Option<&str>,
    body: Option<&Value>,
    now: DateTime<Utc>,
) -> ApiResponse {
    let req = ApiRequest {
        method: method.into(),
        path: path.into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
        player: operator.is_none().then(|| "mallory".to_string()),
        operator: operator.map(str::to_string),
        raw_query: None,
    };
    match body {
        Some(b) => {
            api::handle_with_body(
                store,
                ctx,
                &req,
                &[("content-type", "application/json")],
                Bytes::from(b.to_string()),
                now,
            )
            .await
        }
        None => api::handle(store, ctx, &req, now).await,
    }
}

async fn correction<S: Store + Clone + 'static>(store: &S, player: &str, body: &Value) -> ApiResponse {
    operator_call(
        store,
        "POST",
        &format!("/v1/operator/players/{player}/corrections"),
        &[],
        Some("support-7"),
        Some(body),
        tick(),
    )
    .await
}

/// OP-1 with SG-7, GM-3, GM-4, OP-5: a correction of −500 on a 300 balance applies
/// −300, shows nominal, applied and its reason in the player's point history, applies
/// once when sent twice, is a conflict with other content under the same key, and is
/// one entry of the audit trail. App callers are refused.
pub async fn a_correction_is_a_settlement_with_its_reason<S: Store + Clone + 'static>(store: S) {
    seed_balance(&store, "alice", 300, 1).await;
    let body = json!({"correction_id": "fix-1", "game": "seega", "points": -500,
        "reason": "points won in a match the server scored twice"});
    let first = correction(&store, "alice", &body).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(
        (
            &first.body["nominal"],
            &first.body["applied"],
            &first.body["balance_after"],
            &first.body["duplicate"]
        ),
        (&json!(-500), &json!(-300), &json!(0), &json!(false))
    );
    let again = correction(&store, "alice", &body).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["duplicate"], json!(true));
    assert_eq!(again.body["at"], first.body["at"], "the first result");
    let balance = store.get_balances(Game::Seega, &["alice"]).await.expect("read");
    assert_eq!(balance[0].points, 0, "applied once");
    let other = json!({"correction_id": "fix-1", "game": "seega", "points": -400, "reason": "other"});
    assert_eq!(correction(&store, "alice", &other).await.status, 409);

    // The player sees it, with its reason.
    let ctx = ApiContext::new(cursor_key());
    let ledger = api::handle(
        &store,
        &ctx,
        &get("/v1/me/ledger", &[("game", "seega")], "alice"),
        tick(),
    )
    .await;
    assert_eq!(ledger.status, 200, "{}", ledger.body);
    let newest = &ledger.body["entries"][0];
    assert_eq!(newest["source"], "correction");
    assert_eq!(newest["rule"], "OP-1");
    assert_eq!(
        (&newest["nominal"], &newest["applied"]),
        (&json!(-500), &json!(-300))
    );
    assert_eq!(newest["reason"], "points won in a match the server scored twice");
    assert_eq!(
        ledger.body["entries"].as_array().map(Vec::len),
        Some(2),
        "seed and one correction"
    );

    // Refusals name the field and write nothing.
    for (bad, field) in [
        (
            json!({"correction_id": "fix-2", "game": "seega", "points": 0, "reason": "zero"}),
            "points",
        ),
        (
            json!({"correction_id": "fix-2", "game": "chess", "points": 5, "reason": "wrong game"}),
            "game",
        ),
        (
            json!({"correction_id": "fix-2", "game": "seega", "points": 5, "reason": "x"}),
            "reason",
        ),
        (
            json!({"correction_id": "fix 2", "game": "seega", "points": 5, "reason": "bad key"}),
            "correction_id",
        ),
    ] {
        let answer = correction(&store, "alice", &bad).await;
        assert_eq!(answer.status, 400, "{bad}: {}", answer.body);
        assert!(
            answer.body["message"]
                .as_str()
                .unwrap_or_default()
                .starts_with(field),
            "names {field}: {}",
            answer.body
        );
    }
    let nobody = json!({"correction_id": "fix-3", "game": "seega", "points": 5, "reason": "no such player"});
    assert_eq!(correction(&store, "nobody", &nobody).await.status, 404);

    // An app caller cannot correct, nor read the trail.
    let as_player = operator_call(
        &store,
        "POST",
        "/v1/operator/players/alice/corrections",
        &[],
        None,
        Some(&body),
        tick(),
    )
    .await;
    assert_eq!(as_player.status, 403, "{}", as_player.body);
    let trail_as_player = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("player", "alice")],
        None,
        None,
        tick(),
    )
    .await;
    assert_eq!(trail_as_player.status, 403);

    // One audit entry, whoever reads it: by player, by operator.
    for q in [("player", "alice"), ("operator", "support-7")] {
        let trail = operator_call(
            &store,
            "GET",
            "/v1/operator/audit",
            &[q],
            Some("support-8"),
            None,
            tick(),
        )
        .await;
        assert_eq!(trail.status, 200, "{}", trail.body);
        let entries = trail.body["entries"].as_array().cloned().unwrap_or_default();
        assert_eq!(entries.len(), 1, "{q:?}: {}", trail.body);
        assert_eq!(entries[0]["action"], "correction");
        assert_eq!(entries[0]["operator"], "support-7");
        assert_eq!(entries[0]["changes"]["applied"], json!(-300));
    }
}

/// OP-1, MJ-20: a Mahjong correction credits the period boards of its instant.
pub async fn a_mahjong_correction_credits_its_periods<S: Store + Clone + 'static>(store: S) {
    seed_game_balance(&store, Game::MahjongRivals, "bob", 100, 1).await;
    let body = json!({"correction_id": "fix-m", "game": "mahjong-rivals", "points": 40, "reason": "a lost level completion"});
    let answer = correction(&store, "bob", &body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let at: DateTime<Utc> = serde_json::from_value(answer.body["at"].clone()).expect("at");
    let week = podium_rules::board::board_def("mahjong-weekly")
        .expect("board")
        .period_at(at)
        .id;
    let entry = store
        .period_entry(&BoardRef::new("mahjong-weekly", week), "bob")
        .await
        .expect("read")
        .expect("credited");
    assert_eq!(entry.points, 40);
}

fn completion(i: usize) -> Vec<u8> {
    json!({
        "completion_id": format!("c-{i:02}"), "game": "mahjong-rivals", "kind": "level-completion",
        "player_id": format!("p-{i:02}"), "level": i + 1, "time_ms": 1_000,
        "completed_at": "2026-12-29T10:00:00Z", "jokers_used": 0,
    })
    .to_string()
    .into_bytes()
}

fn floor_policy() -> podium_rules::record::policy::RecordPolicy {
    podium_rules::record::policy::RecordPolicy {
        plausibility: std::sync::Arc::new(
            podium_rules::plausibility::Plausibility::from_json(
                r#"{"mahjong_level_floor_ms": {"default": 60000}}"#,
            )
            .expect("checks"),
        ),
        ..Default::default()
    }
}

async fn offer<S: Store + ?Sized>(store: &S, line: &[u8], now: DateTime<Utc>) -> Intake {
    let policy = floor_policy();
    let record = Incoming::from_json(line, now, &policy).expect("parses");
    let delivery = format!("test-{:016x}", rand::random::<u64>());
    accept(store, line, &record, now, &policy, &delivery)
        .await
        .expect("accepted")
}

async fn decide_call<S: Store + Clone + 'static>(
    store: &S,
    id: &str,
    verdict: &str,
    now: DateTime<Utc>,
) -> ApiResponse {
    let ctx = ApiContext::new(cursor_key()).with_records(floor_policy());
    let req = ApiRequest {
        method: "POST".into(),
        path: format!("/v1/operator/review/level-completion/{id}"),
        operator: Some("support-7".into()),
        ..Default::default()
    };
    let body = json!({"verdict": verdict, "reason": "checked against the replay"});
    api::handle_with_body(
        store,
        &ctx,
        &req,
        &[("content-type", "application/json")],
        Bytes::from(body.to_string()),
        now,
    )
    .await
}

/// OP-2, OP-3, GM-3: 50 level completions faster than the configured floor, 10 of
/// them delivered twice, are 50 held records counted nowhere; 30 approved are settled
/// once each (5 approvals of one at once apply it once), credited to the day of their
/// own instant; 20 rejected are never applied, not even when delivered again.
pub async fn implausible_records_are_held_for_review<S: Store + Clone + 'static>(store: S) {
    let now = crate::fixtures::now();
    for i in 0..50 {
        let first = offer(&store, &completion(i), now).await;
        assert_eq!(
            first,
            Intake::Held {
                check: "mahjong_level_floor_ms".into(),
                duplicate: false
            }
        );
        if i % 5 == 0 {
            assert!(matches!(
                offer(&store, &completion(i), now).await,
                Intake::Held { duplicate: true, .. }
            ));
        }
    }
    let p = |i: usize| format!("p-{i:02}");
    for i in 0..50 {
        assert!(
            store
                .get_balance(Game::MahjongRivals, &p(i))
                .await
                .expect("read")
                .is_none(),
            "not counted"
        );
    }
    let queue = operator_call(
        &store,
        "GET",
        "/v1/operator/review",
        &[("limit", "100")],
        Some("support-7"),
        None,
        now,
    )
    .await;
    assert_eq!(queue.status, 200, "{}", queue.body);
    let held = queue.body["held"].as_array().cloned().unwrap_or_default();
    assert_eq!(held.len(), 50, "one held record each, duplicates included");
    assert_eq!(held[0]["cause"]["check"], "mahjong_level_floor_ms");
    assert!(held[0]["record"].as_str().unwrap_or_default().contains("c-00"));
    let as_player = operator_call(&store, "GET", "/v1/operator/review", &[], None, None, now).await;
    assert_eq!(as_player.status, 403);

    // A day later: 5 operators approve c-00 at once; 29 more approved, 20 rejected.
    let later = now + chrono::Duration::days(1);
    let together =
        futures::future::join_all((0..5).map(|_| decide_call(&store, "c-00", "approve", later))).await;
    for answer in &together {
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.body["state"], "approved");
    }
    for i in 1..50 {
        let verdict = if i < 30 { "approve" } else { "reject" };
        let answer = decide_call(&store, &format!("c-{i:02}"), verdict, later).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    assert_eq!(
        decide_call(&store, "c-40", "approve", later).await.status,
        409,
        "rejected stays rejected"
    );
    assert_eq!(decide_call(&store, "c-99", "approve", later).await.status, 404);
    // A rejected record delivered again is not applied.
    assert_eq!(
        offer(&store, &completion(40), later).await,
        Intake::Settled(Outcome::Duplicate)
    );

    let day = podium_rules::board::board_def("mahjong-daily")
        .expect("board")
        .period_at(
            DateTime::parse_from_rfc3339("2026-12-29T10:00:00Z")
                .expect("instant")
                .to_utc(),
        );
    for i in 0..50 {
        let ledger = store
            .ledger_entries(Game::MahjongRivals, &p(i))
            .await
            .expect("ledger");
        let credited = store
            .period_entry(&BoardRef::new("mahjong-daily", day.id.clone()), &p(i))
            .await
            .expect("entry");
        if i < 30 {
            assert_eq!(ledger.len(), 1, "{}: settled once", p(i));
            let balance = store
                .get_balance(Game::MahjongRivals, &p(i))
                .await
                .expect("read")
                .expect("balance");
            assert_eq!(balance.points, ledger[0].balance_after);
            assert_eq!(
                credited.map(|e| e.points),
                Some(ledger[0].applied),
                "{}: the day of its instant",
                p(i)
            );
        } else {
            assert!(ledger.is_empty(), "{}: never applied", p(i));
            assert!(credited.is_none());
        }
    }
    let rest = operator_call(
        &store,
        "GET",
        "/v1/operator/review",
        &[],
        Some("support-7"),
        None,
        later,
    )
    .await;
    assert_eq!(
        rest.body["held"].as_array().map(Vec::len),
        Some(0),
        "the queue is empty"
    );
    let trail = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("operator", "support-7")],
        Some("support-7"),
        None,
        later,
    )
    .await;
    assert_eq!(
        trail.body["entries"].as_array().map(Vec::len),
        Some(50),
        "one entry per decided record: {}",
        trail.body
    );
}

/// GDPR Art. 15/20: after a season of play (Seega matches, Mahjong Quick Matches, a
/// frozen day, a profile, friends, a follow, a correction, a held record), the export
/// lists every item of the player's partition (compared with a scan of it), the result
/// of every source their ledger names, and what is stored about them elsewhere.
pub async fn an_export_lists_everything_stored_about_the_player<S: Store + Clone + 'static>(store: S) {
    crate::deletion::seed(&store).await;
    let at = crate::deletion::t("2027-07-19T06:00:00Z");
    let ctx = ApiContext::new(cursor_key()).with_profiles(podium_rules::profile::ProfilePolicy::default());
    for (path, body) in [
        ("/v1/me/profile", json!({"name": "Alice", "country": "RO"})),
        ("/v1/me/friends", json!({"friends": ["bob", "carol"]})),
    ] {
        let answer = crate::profiles::put(&store, &ctx, path, "alice", &body, at).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    }
    let follow = ApiRequest {
        method: "PUT".into(),
        ..get("/v1/me/follows/seega", &[], "alice")
    };
    assert_eq!(api::handle(&store, &ctx, &follow, at).await.status, 200);
    let fix =
        json!({"correction_id": "fix-exp", "game": "seega", "points": 25, "reason": "a goodwill credit"});
    assert_eq!(correction(&store, "alice", &fix).await.status, 200);
    let fast = json!({"completion_id": "c-exp", "game": "mahjong-rivals", "kind": "level-completion",
        "player_id": "alice", "level": 2, "time_ms": 1_000, "completed_at": "2027-07-19T05:59:00Z", "jokers_used": 0})
    .to_string();
    assert!(matches!(
        offer(&store, fast.as_bytes(), at).await,
        Intake::Held { .. }
    ));

    let answer = operator_call(
        &store,
        "GET",
        "/v1/operator/players/alice/export",
        &[],
        Some("support-7"),
        None,
        at,
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let export = &answer.body;
    // The partition, scanned: every item is in the export, each once.
    let scan = store.holdings("alice").await.expect("scan");
    let len = |k: &str| export[k].as_array().map_or(0, Vec::len);
    assert_eq!(len("balances"), scan.balances.len());
    assert_eq!(len("entries"), scan.entries.len());
    assert_eq!(len("ledger"), scan.ledger.len());
    assert_eq!(len("claims"), scan.claims);
    assert_eq!(len("states"), scan.states);
    assert_eq!(len("references"), scan.refs.len());
    assert!(
        scan.balances.len() >= 2 && scan.entries.len() >= 3 && scan.ledger.len() >= 4,
        "a season: {scan:?}"
    );
    for board in &scan.entries {
        assert!(
            export["entries"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|e| e["board"] == board.board.as_str() && e["period"] == board.period.as_str()),
            "{board:?} listed"
        );
    }
    // The result of every source the ledger names.
    let results: Vec<String> = export["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["key"].as_str().map(str::to_string))
        .collect();
    for e in &scan.ledger {
        assert!(
            results.iter().any(|k| k.ends_with(&format!("/{}", e.source_id))),
            "{} {} in {results:?}",
            e.source,
            e.source_id
        );
    }
    assert_eq!(export["profile"]["name"], "Alice");
    assert_eq!(export["friends"], json!(["bob", "carol"]));
    assert_eq!(export["follows"], json!(["seega"]));
    assert_eq!(export["held"][0]["id"], "c-exp");
    assert_eq!(export["audit"][0]["action"], "correction");
    let nobody = operator_call(
        &store,
        "GET",
        "/v1/operator/players/nobody/export",
        &[],
        Some("support-7"),
        None,
        at,
    )
    .await;
    assert_eq!(nobody.status, 404);
    let as_player = operator_call(
        &store,
        "GET",
        "/v1/operator/players/alice/export",
        &[],
        None,
        None,
        at,
    )
    .await;
    assert_eq!(as_player.status, 403);
}

/// `GET path?q` as `player` at `at`, through the API's router.
pub(crate) async fn read_as<S: Store + Clone + 'static>(
    store: &S,
    player: &str,
    path: &str,
    q: &[(&str, &str)],
    at: DateTime<Utc>,
) -> ApiResponse {
    let ctx = ApiContext::new(cursor_key());
    api::handle(store, &ctx, &get(path, q, player), at).await
}

/// OP-4: a top player suspended is absent at once from the top page, their
/// neighbour's around-me (ranks closed up), a frozen day's archive and the week's
/// board; their calls are refused and their next three records held, not scored.
/// Restored a day later: the archive reads as before, the three records are settled
/// once each in the order they arrived, and every balance equals its ledger.
pub async fn a_suspension_hides_holds_and_restores<S: Store + Clone + 'static>(store: S) {
    use crate::deletion::{t, tick};
    use podium_service::jobs::Job;
    crate::deletion::seed(&store).await;
    let at = t("2027-07-19T06:00:00Z");
    let reads: [(&str, &[(&str, &str)]); 4] = [
        ("/v1/leaderboards/seega", &[]),
        ("/v1/leaderboards/mahjong-daily", &[("period", "2027-07-18")]),
        ("/v1/leaderboards/mahjong-weekly", &[]),
        ("/v1/leaderboards/seega/me", &[("neighbours", "5")]),
    ];
    let mut before = Vec::new();
    for (path, q) in reads {
        let r = read_as(&store, "carol", path, q, at).await;
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        before.push(ranks(&r.body));
    }
    for (i, b) in before.iter().enumerate().take(3) {
        assert!(
            b.iter().any(|(p, _)| p == "bob"),
            "read {i} lists bob first: {b:?}"
        );
    }
    let suspended = operator_call(
        &store,
        "POST",
        "/v1/operator/players/bob/suspend",
        &[],
        Some("support-7"),
        Some(&json!({"reason": "reported for a modified client"})),
        at,
    )
    .await;
    assert_eq!(suspended.status, 200, "{}", suspended.body);
    assert_eq!(suspended.body["state"], "suspended");

    // At once: absent everywhere, the ranks below closed up.
    let later = at + chrono::Duration::seconds(1);
    for (i, (path, q)) in reads.iter().enumerate() {
        let r = read_as(&store, "carol", path, q, later).await;
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        let now = ranks(&r.body);
        assert!(
            !now.iter().any(|(p, _)| p == "bob"),
            "{path}: bob hidden: {now:?}"
        );
        let bob_rank = before[i].iter().find(|(p, _)| p == "bob").map(|(_, r)| *r);
        for (p, rank) in &now {
            let was = before[i]
                .iter()
                .find(|(q, _)| q == p)
                .map(|(_, r)| *r)
                .unwrap_or_else(|| panic!("{path}: {p} listed before"));
            let closed = u64::from(bob_rank.is_some_and(|b| b < was));
            assert_eq!(*rank, was - closed, "{path}: {p} was {was}, bob {bob_rank:?}");
        }
    }
    let mine = read_as(&store, "carol", "/v1/leaderboards/seega/me", &[], later).await;
    assert_eq!(
        mine.body["standing"]["rank"], mine.body["me"]["rank"],
        "{}",
        mine.body
    );
    assert_eq!(
        mine.body["standing"]["of"],
        json!(4),
        "bob not counted: {}",
        mine.body
    );
    assert_eq!(
        read_as(&store, "bob", "/v1/me", &[], later).await.status,
        403,
        "bob's own calls are refused"
    );

    // Three records naming bob are held, not scored.
    let balance = |p: &'static str| {
        let store = store.clone();
        async move {
            store
                .get_balance(Game::Seega, p)
                .await
                .expect("read")
                .map_or(0, |b| b.points)
        }
    };
    let (bob0, carol0) = (balance("bob").await, balance("carol").await);
    for (i, (w, l)) in [("bob", "carol"), ("carol", "bob"), ("bob", "dave")]
        .iter()
        .enumerate()
    {
        let ended = t("2027-07-19T06:10:00Z") + chrono::Duration::minutes(i as i64);
        let intake = deliver(&store, &format!("held-{i}"), (w, l), ended, &format!("d-{i}")).await;
        assert_eq!(
            intake,
            Intake::Held {
                check: "suspended".into(),
                duplicate: false
            }
        );
    }
    assert_eq!(
        (balance("bob").await, balance("carol").await),
        (bob0, carol0),
        "nothing scored"
    );
    tick(&store, Job::Refresh, "2027-07-19T06:30:00Z").await;
    let during = read_as(
        &store,
        "carol",
        "/v1/leaderboards/seega",
        &[],
        t("2027-07-19T06:31:00Z"),
    )
    .await;
    assert!(
        !ids_of(&during.body).contains(&"bob".to_string()),
        "left out of a new snapshot"
    );

    // Restored a day later.
    let next_day = t("2027-07-20T06:00:00Z");
    let restored = operator_call(
        &store,
        "POST",
        "/v1/operator/players/bob/restore",
        &[],
        Some("support-8"),
        Some(&json!({"reason": "the report was wrong"})),
        next_day,
    )
    .await;
    assert_eq!(restored.status, 200, "{}", restored.body);
    assert_eq!(restored.body["released"], json!(3));
    let archive = read_as(&store, "carol", reads[1].0, reads[1].1, next_day).await;
    assert_eq!(ranks(&archive.body), before[1], "the frozen day reads as before");
    tick(&store, Job::Refresh, "2027-07-20T06:05:00Z").await;
    let page = read_as(
        &store,
        "carol",
        "/v1/leaderboards/seega",
        &[],
        t("2027-07-20T06:06:00Z"),
    )
    .await;
    let mut shown = ids_of(&page.body);
    let mut was: Vec<String> = before[0].iter().map(|(p, _)| p.clone()).collect();
    shown.sort();
    was.sort();
    assert_eq!(shown, was, "everyone listed again");
    assert_eq!(read_as(&store, "bob", "/v1/me", &[], next_day).await.status, 200);
    // Settled once each, in the order they arrived; balances equal their ledgers.
    let ledger = store.ledger_entries(Game::Seega, "bob").await.expect("ledger");
    let held: Vec<&str> = ledger
        .iter()
        .filter(|e| e.source_id.starts_with("held-"))
        .map(|e| e.source_id.as_str())
        .collect();
    assert_eq!(held, ["held-0", "held-1", "held-2"]);
    for p in ["bob", "carol", "dave"] {
        let entries = store.ledger_entries(Game::Seega, p).await.expect("ledger");
        let sum: i64 = entries.iter().map(|e| e.applied).sum();
        assert_eq!(balance(p).await, sum, "{p}: the balance is the sum of the ledger");
    }
    // A repeat changes nothing; the trail has both actions.
    let again = operator_call(
        &store,
        "POST",
        "/v1/operator/players/bob/restore",
        &[],
        Some("support-8"),
        Some(&json!({"reason": "the report was wrong"})),
        next_day,
    )
    .await;
    assert_eq!(again.status, 404, "not suspended any more");
    let trail = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("player", "bob")],
        Some("support-7"),
        None,
        next_day,
    )
    .await;
    let actions: Vec<&str> = trail.body["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert_eq!(actions, ["restore", "suspend"]);
}

fn ids_of(page: &Value) -> Vec<String> {
    ranks(page).into_iter().map(|(p, _)| p).collect()
}

async fn close_call<S: Store + Clone + 'static>(
    store: &S,
    board: &str,
    period: &str,
    dry_run: bool,
    at: DateTime<Utc>,
) -> ApiResponse {
    let tables = podium_service::config::parse_period_rewards(
        r#"{"mahjong-daily": {"bands": [{"ranks": [1, 1], "points": 50}, {"top_percent": 100, "points": 5}]}}"#,
    )
    .expect("tables");
    let ctx = ApiContext::new(cursor_key()).with_rewards(tables);
    let req = ApiRequest {
        method: "POST".into(),
        path: format!("/v1/operator/periods/{board}/{period}/close"),
        operator: Some("support-7".into()),
        ..Default::default()
    };
    let body = json!({"reason": "the tick missed this day", "dry_run": dry_run});
    api::handle_with_body(
        store,
        &ctx,
        &req,
        &[("content-type", "application/json")],
        Bytes::from(body.to_string()),
        at,
    )
    .await
}

/// LB-5, GM-3, OP-5: an ended day no tick froze is frozen and closed by an operator
/// (a dry run first says what would be sent, to whom, and sends nothing); run again,
/// it sends nothing more; a frozen day closed before without rewards is run again and
/// sends only what was never sent. Each applied close is in the audit trail.
pub async fn an_operator_closes_a_missed_period_once<S: Store + Clone + 'static>(store: S) {
    use crate::deletion::t;
    crate::deletion::seed(&store).await;
    let at = t("2027-07-20T06:00:00Z");
    // 19 July (Bucharest): ended, never frozen.
    let dry = close_call(&store, "mahjong-daily", "2027-07-19", true, at).await;
    assert_eq!(dry.status, 200, "{}", dry.body);
    assert_eq!(
        (&dry.body["was_frozen"], &dry.body["sent"]),
        (&json!(false), &json!(0))
    );
    let applied = close_call(&store, "mahjong-daily", "2027-07-19", false, at).await;
    assert_eq!(applied.status, 200, "{}", applied.body);
    let ranked = applied.body["ranked"].as_u64().expect("ranked");
    assert!(ranked >= 2, "{}", applied.body);
    assert_eq!(applied.body["sent"].as_u64(), Some(ranked), "one result each");
    let again = close_call(
        &store,
        "mahjong-daily",
        "2027-07-19",
        false,
        at + chrono::Duration::seconds(1),
    )
    .await;
    assert_eq!(
        (&again.body["was_frozen"], &again.body["sent"]),
        (&json!(true), &json!(0))
    );
    assert_eq!(again.body["already_sent"].as_u64(), Some(ranked));
    let dry_again = close_call(&store, "mahjong-daily", "2027-07-19", true, at).await;
    assert_eq!(dry_again.body["to_send"], json!(0));
    assert!(dry_again.body["results"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|r| r["sent"] == json!(true)));
    // 18 July, frozen by the tick without a reward table then: this run sends them.
    let rerun = close_call(&store, "mahjong-daily", "2027-07-18", false, at).await;
    assert_eq!(rerun.status, 200, "{}", rerun.body);
    assert_eq!(rerun.body["was_frozen"], json!(true));
    assert_eq!(rerun.body["sent"], rerun.body["ranked"]);
    // Each player's inbox holds one result of each day.
    let inbox = read_as(&store, "bob", "/v1/me/inbox", &[], at).await;
    let days: Vec<String> = inbox.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["kind"] == "period_result")
        .filter_map(|m| m["period"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        days.iter().filter(|d| d.as_str() == "2027-07-19").count(),
        1,
        "{}",
        inbox.body
    );
    // Refusals name the field; the trail has the two applied closes of the 19th and the one of the 18th.
    assert_eq!(
        close_call(&store, "mahjong-amr", "all", false, at).await.status,
        400
    );
    assert_eq!(
        close_call(&store, "mahjong-daily", "2027-07-20", false, at)
            .await
            .status,
        400
    );
    assert_eq!(
        close_call(&store, "mahjong-daily", "yesterday", false, at)
            .await
            .status,
        400
    );
    let trail = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("operator", "support-7")],
        Some("support-7"),
        None,
        at,
    )
    .await;
    let closes = trail.body["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["action"] == "close")
        .count();
    assert_eq!(closes, 3);
}

/// OP-5, GM-6: a name reset and a deletion are audited; the deletion erases what the
/// trail says about the player and keeps the fact of each action, under the pseudonym.
pub async fn a_deletion_keeps_only_the_fact_in_the_trail<S: Store + Clone + 'static>(store: S) {
    seed_balance(&store, "alice", 300, 1).await;
    let at = tick();
    let ctx = ApiContext::new(cursor_key());
    let named = crate::profiles::put(
        &store,
        &ctx,
        "/v1/me/profile",
        "alice",
        &json!({"name": "Alice Rude"}),
        at,
    )
    .await;
    assert_eq!(named.status, 200, "{}", named.body);
    let reset = operator_call(
        &store,
        "POST",
        "/v1/operator/players/alice/name-reset",
        &[],
        Some("support-7"),
        Some(&json!({"reason": "an offensive name"})),
        tick(),
    )
    .await;
    assert_eq!(reset.status, 200, "{}", reset.body);
    assert!(reset.body.get("name").is_none(), "{}", reset.body);
    let fix =
        json!({"correction_id": "fix-d", "game": "seega", "points": 10, "reason": "goodwill for alice"});
    assert_eq!(correction(&store, "alice", &fix).await.status, 200);
    let trail = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("player", "alice")],
        Some("support-7"),
        None,
        tick(),
    )
    .await;
    assert_eq!(trail.body["entries"].as_array().map(Vec::len), Some(2));
    assert_eq!(trail.body["entries"][1]["changes"]["name_was"], "Alice Rude");
    let deleted = operator_call(
        &store,
        "POST",
        "/v1/operator/players/alice/delete",
        &[],
        Some("support-8"),
        Some(&json!({"reason": "the player asked (GDPR Art. 17)"})),
        tick(),
    )
    .await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let pseudonym = deleted.body["pseudonym"].as_str().expect("pseudonym").to_string();
    let about = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("player", "alice")],
        Some("support-7"),
        None,
        tick(),
    )
    .await;
    assert_eq!(
        about.body["entries"].as_array().map(Vec::len),
        Some(0),
        "erased: {}",
        about.body
    );
    for op in ["support-7", "support-8"] {
        let kept = operator_call(
            &store,
            "GET",
            "/v1/operator/audit",
            &[("operator", op)],
            Some("support-7"),
            None,
            tick(),
        )
        .await;
        for e in kept.body["entries"].as_array().into_iter().flatten() {
            assert_eq!(e["target"], pseudonym.as_str(), "{e}");
            assert!(
                !e.to_string().contains("alice") && !e.to_string().contains("Alice"),
                "nothing of her: {e}"
            );
        }
    }
    let kept = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("operator", "support-8")],
        Some("support-7"),
        None,
        tick(),
    )
    .await;
    assert_eq!(kept.body["entries"][0]["action"], "delete");
    assert_eq!(
        kept.body["entries"][0]["reason"],
        "the player asked (GDPR Art. 17)"
    );
}

/// OP-4: a suspension that stops midway (a snapshot pointer's write fails) is finished
/// by sending it again: the player is hidden, listed once, and audited once.
pub async fn an_interrupted_suspension_is_finished_by_its_repeat<S: Store + Clone + 'static>(store: S) {
    crate::deletion::seed(&store).await;
    let at = crate::deletion::t("2027-07-19T06:00:00Z");
    let faulty = crate::faults::Faulty::new(store.clone()).failing_item_writes("SNAP#", 1);
    let first = podium_service::moderation::suspensions::suspend(
        &faulty,
        "bob",
        ("support-7", "a modified client"),
        30,
        at,
    )
    .await;
    assert!(first.is_err(), "the pointer write failed");
    let again = podium_service::moderation::suspensions::suspend(
        &store,
        "bob",
        ("support-7", "a modified client"),
        30,
        at,
    )
    .await
    .expect("finished");
    assert!(again.unchanged);
    assert!(!again.suspension.expect("suspension").hidden_from.is_empty());
    let page = read_as(&store, "carol", "/v1/leaderboards/seega", &[], at).await;
    assert!(!ids_of(&page.body).contains(&"bob".to_string()), "{}", page.body);
    let trail = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("player", "bob")],
        Some("support-7"),
        None,
        at,
    )
    .await;
    assert_eq!(trail.body["entries"].as_array().map(Vec::len), Some(1));
}

/// Delivers the Seega match `id` (`winner` beats `loser`, ended at `ended`) from the
/// queue as delivery `delivery`, 30 s after it ended: what the intake answers.
pub(crate) async fn deliver<S: Store + Clone + 'static>(
    store: &S,
    id: &str,
    (winner, loser): (&str, &str),
    ended: DateTime<Utc>,
    delivery: &str,
) -> Intake {
    let policy = podium_rules::record::policy::RecordPolicy::default();
    let line = serde_json::to_vec(&crate::fixtures::rout(id, winner, loser, ended)).expect("json");
    let arrived = ended + chrono::Duration::seconds(30);
    let record = Incoming::from_json(&line, arrived, &policy).expect("parses");
    accept(store, &line, &record, arrived, &policy, delivery)
        .await
        .expect("accepted")
}

/// The review queue, read by an operator at `at`, lists nothing.
async fn review_queue_is_empty<S: Store + Clone + 'static>(store: &S, at: DateTime<Utc>) {
    let queue = operator_call(
        store,
        "GET",
        "/v1/operator/review",
        &[],
        Some("support-7"),
        None,
        at,
    )
    .await;
    assert_eq!(
        queue.body["held"].as_array().map(Vec::len),
        Some(0),
        "{}",
        queue.body
    );
}

/// The balance of `player` on `game`, checked equal to the sum of their ledger.
async fn balance_is_its_ledger<S: Store + ?Sized>(store: &S, game: Game, player: &str) -> i64 {
    let entries = store.ledger_entries(game, player).await.expect("ledger");
    let sum: i64 = entries.iter().map(|e| e.applied).sum();
    let balance = store
        .get_balance(game, player)
        .await
        .expect("read")
        .map_or(0, |b| b.points);
    assert_eq!(balance, sum, "{player}: the balance is the sum of the ledger");
    balance
}

/// The audit trail of `q` (one page of up to 200, newest first).
/// The actions of `player`'s audit trail at `at`, newest first.
async fn actions_of<S: Store + Clone + 'static>(store: &S, player: &str, at: DateTime<Utc>) -> Vec<String> {
    trail_of(store, ("player", player), at)
        .await
        .iter()
        .filter_map(|e| e["action"].as_str().map(str::to_string))
        .collect()
}

async fn trail_of<S: Store + Clone + 'static>(store: &S, q: (&str, &str), at: DateTime<Utc>) -> Vec<Value> {
    let trail = operator_call(
        store,
        "GET",
        "/v1/operator/audit",
        &[q, ("limit", "200")],
        Some("support-9"),
        None,
        at,
    )
    .await;
    assert_eq!(trail.status, 200, "{}", trail.body);
    trail.body["entries"].as_array().cloned().unwrap_or_default()
}

/// OP-1, GM-3, OP-5: a correction whose commit fails, then one whose commit is applied
/// but its reply lost, then sent again by two operators five times at once, is applied
/// exactly once: the balance moves once and equals its ledger, every answer is the
/// first result, and the trail holds one entry, of the operator who made it.
pub async fn an_interrupted_correction_applies_once_on_its_repeat<S: Store + Clone + 'static>(store: S) {
    use podium_rules::operator::Correction;
    use podium_service::moderation::corrections::correct;
    seed_balance(&store, "alice", 300, 1).await;
    let fix = || Correction {
        correction_id: "fix-int".into(),
        player_id: "alice".into(),
        game: Game::Seega,
        points: 120,
        reason: "a match scored with the wrong rules".into(),
    };
    let at = tick();
    // The commit fails: nothing is written.
    let failing = crate::faults::Faulty::new(store.clone()).failing_source("fix-int");
    assert!(correct(&failing, fix(), "support-7", at).await.is_err());
    assert_eq!(balance_is_its_ledger(&store, Game::Seega, "alice").await, 300);
    assert!(trail_of(&store, ("player", "alice"), at).await.is_empty());
    // The commit is applied, its reply lost.
    let lossy = crate::faults::Faulty::new(store.clone()).losing_replies(1);
    let lost = correct(&lossy, fix(), "support-7", tick()).await;
    assert_eq!(balance_is_its_ledger(&store, Game::Seega, "alice").await, 420);
    // Sent again, five times at once, by two operators; and once through the API.
    let later = tick() + chrono::Duration::seconds(5);
    let again = futures::future::join_all((0..5).map(|i| {
        let op = if i % 2 == 0 { "support-7" } else { "support-8" };
        correct(&store, fix(), op, later)
    }))
    .await;
    let first = match lost {
        Ok(answer) => answer.result,
        Err(_) => again[0].as_ref().expect("repeated").result.clone(),
    };
    for answer in again {
        let answer = answer.expect("repeated");
        assert!(answer.duplicate, "applied before: {answer:?}");
        assert_eq!(answer.result, first, "the first result");
    }
    let body = json!({"correction_id": "fix-int", "game": "seega", "points": 120,
        "reason": "a match scored with the wrong rules"});
    let via_api = correction(&store, "alice", &body).await;
    assert_eq!(via_api.status, 200, "{}", via_api.body);
    assert_eq!(via_api.body["duplicate"], json!(true));
    assert_eq!(via_api.body["balance_after"], json!(420));
    assert_eq!(balance_is_its_ledger(&store, Game::Seega, "alice").await, 420);
    let corrections: Vec<_> = store
        .ledger_entries(Game::Seega, "alice")
        .await
        .expect("ledger")
        .into_iter()
        .filter(|e| e.source == "correction")
        .collect();
    assert_eq!(corrections.len(), 1, "applied once: {corrections:?}");
    assert_eq!(corrections[0].applied, 120);
    let entries = trail_of(&store, ("player", "alice"), later).await;
    assert_eq!(entries.len(), 1, "one audit entry: {entries:?}");
    assert_eq!(entries[0]["action"], "correction");
    assert_eq!(entries[0]["operator"], "support-7", "the operator who made it");
    assert_eq!(entries[0]["changes"]["applied"], json!(120));
    assert!(trail_of(&store, ("operator", "support-8"), later)
        .await
        .is_empty());
}

/// OP-3, GM-3, OP-5: an approval whose settlement fails leaves the record approving
/// (a rejection is then refused); one whose commit is applied but its reply lost, then
/// three operators approving at once, settle it exactly once: one ledger entry, the
/// balance its ledger, the day of its own instant credited once, the queue empty, one
/// audit entry.
pub async fn an_interrupted_approval_settles_once_on_its_repeat<S: Store + Clone + 'static>(store: S) {
    use podium_service::moderation::review::{self as held, HeldState, Verdict};
    let now = crate::fixtures::now();
    assert!(matches!(
        offer(&store, &completion(3), now).await,
        Intake::Held { duplicate: false, .. }
    ));
    let later = now + chrono::Duration::days(1);
    let policy = floor_policy();
    let who = ("support-7", "checked against the replay");
    // The settlement's commit fails: the record is left approving, nothing applied.
    let failing = crate::faults::Faulty::new(store.clone()).failing_source("c-03");
    assert!(held::decide(
        &failing,
        ("level-completion", "c-03"),
        Verdict::Approve,
        who,
        later,
        &policy
    )
    .await
    .is_err());
    let record = held::get(&store, "level-completion", "c-03")
        .await
        .expect("read")
        .expect("held");
    assert_eq!(record.state, HeldState::Approving);
    assert!(store
        .ledger_entries(Game::MahjongRivals, "p-03")
        .await
        .expect("ledger")
        .is_empty());
    assert_eq!(
        decide_call(&store, "c-03", "reject", later).await.status,
        409,
        "the approval stands"
    );
    // The commit is applied, its reply lost.
    let lossy = crate::faults::Faulty::new(store.clone()).losing_replies(1);
    let _ = held::decide(
        &lossy,
        ("level-completion", "c-03"),
        Verdict::Approve,
        who,
        later + chrono::Duration::minutes(1),
        &policy,
    )
    .await;
    // Three operators approve it at once.
    let answers = futures::future::join_all(
        (0..3).map(|_| decide_call(&store, "c-03", "approve", later + chrono::Duration::minutes(2))),
    )
    .await;
    for answer in &answers {
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.body["state"], "approved", "{}", answer.body);
    }
    let ledger = store
        .ledger_entries(Game::MahjongRivals, "p-03")
        .await
        .expect("ledger");
    assert_eq!(ledger.len(), 1, "settled once: {ledger:?}");
    balance_is_its_ledger(&store, Game::MahjongRivals, "p-03").await;
    let day = podium_rules::board::board_def("mahjong-daily")
        .expect("board")
        .period_at(
            DateTime::parse_from_rfc3339("2026-12-29T10:00:00Z")
                .expect("instant")
                .to_utc(),
        );
    let credited = store
        .period_entry(&BoardRef::new("mahjong-daily", day.id.clone()), "p-03")
        .await
        .expect("entry");
    assert_eq!(
        credited.map(|e| e.points),
        Some(ledger[0].applied),
        "credited once"
    );
    review_queue_is_empty(&store, later).await;
    let entries = trail_of(&store, ("player", "p-03"), later).await;
    assert_eq!(entries.len(), 1, "one audit entry: {entries:?}");
    assert_eq!(entries[0]["action"], "approve");
}

/// OP-4, OP-5, GM-3: a restore that stops while settling the held records (the second
/// one's commit fails) is finished by sending it again: bob is shown and served again,
/// his three held records are settled once each in the order they arrived, every
/// balance equals its ledger, and the trail holds one suspension and one restore.
pub async fn an_interrupted_restore_is_finished_by_its_repeat<S: Store + Clone + 'static>(store: S) {
    use crate::deletion::{t, tick};
    use podium_service::jobs::Job;
    use podium_service::moderation::review::{self as held, HeldState};
    use podium_service::moderation::suspensions::restore;
    seeded_with_bob_suspended(&store).await;
    let policy = podium_rules::record::policy::RecordPolicy::default();
    for (i, (w, l)) in [("bob", "carol"), ("carol", "bob"), ("bob", "dave")]
        .iter()
        .enumerate()
    {
        let ended = t("2027-07-19T06:10:00Z") + chrono::Duration::minutes(i as i64);
        let intake = deliver(&store, &format!("held-{i}"), (w, l), ended, &format!("d-{i}")).await;
        assert!(matches!(intake, Intake::Held { .. }), "{intake:?}");
    }
    let next_day = t("2027-07-20T06:00:00Z");
    // The restore stops at the second held record.
    let failing = crate::faults::Faulty::new(store.clone()).failing_source("held-1");
    assert!(restore(
        &failing,
        "bob",
        ("support-8", "the report was wrong"),
        next_day,
        &policy
    )
    .await
    .is_err());
    // Sent again: finished.
    let again = operator_call(
        &store,
        "POST",
        "/v1/operator/players/bob/restore",
        &[],
        Some("support-8"),
        Some(&json!({"reason": "the report was wrong"})),
        next_day + chrono::Duration::minutes(1),
    )
    .await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(read_as(&store, "bob", "/v1/me", &[], next_day).await.status, 200);
    tick(&store, Job::Refresh, "2027-07-20T06:05:00Z").await;
    let page = read_as(
        &store,
        "carol",
        "/v1/leaderboards/seega",
        &[],
        t("2027-07-20T06:06:00Z"),
    )
    .await;
    assert!(ids_of(&page.body).contains(&"bob".to_string()), "{}", page.body);
    let order: Vec<String> = store
        .ledger_entries(Game::Seega, "bob")
        .await
        .expect("ledger")
        .into_iter()
        .filter(|e| e.source_id.starts_with("held-"))
        .map(|e| e.source_id)
        .collect();
    assert_eq!(
        order,
        ["held-0", "held-1", "held-2"],
        "once each, in arrival order"
    );
    for p in ["bob", "carol", "dave"] {
        balance_is_its_ledger(&store, Game::Seega, p).await;
    }
    for i in 0..3 {
        let h = held::get(&store, "seega", &format!("held-{i}"))
            .await
            .expect("read")
            .expect("held");
        assert_eq!(h.state, HeldState::Approved, "held-{i}");
    }
    let actions = actions_of(&store, "bob", next_day).await;
    assert_eq!(actions, ["restore", "suspend"], "the restore is audited once");
    // OP-5: the restore is its own entry, not the suspension's id again.
    let ids: Vec<Value> = trail_of(&store, ("player", "bob"), next_day)
        .await
        .iter()
        .map(|e| e["id"].clone())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1], "{ids:?}");
}

/// LB-5, GM-3, OP-5: a close whose freeze stops at its first snapshot write, then one
/// whose result message to bob fails, then two at once, send each ranked player's
/// result exactly once (one `period_result` of the day each, the balances their
/// ledgers); the trail holds one close per call, each written before the call did
/// anything (a close that stopped has its entry too, OP-5).
pub async fn an_interrupted_period_close_sends_each_result_once<S: Store + Clone + 'static>(store: S) {
    use crate::deletion::t;
    crate::deletion::seed(&store).await;
    let at = t("2027-07-20T06:00:00Z");
    let stalled = crate::faults::Faulty::new(store.clone()).failing_item_writes("SNAP#", 1);
    let first = close_call(&stalled, "mahjong-daily", "2027-07-19", false, at).await;
    assert_eq!(first.status, 503, "{}", first.body);
    let failing = crate::faults::Faulty::new(store.clone()).failing_source("mahjong-daily@2027-07-19:bob");
    let second = close_call(
        &failing,
        "mahjong-daily",
        "2027-07-19",
        false,
        at + chrono::Duration::seconds(1),
    )
    .await;
    assert_eq!(second.status, 503, "{}", second.body);
    let later = at + chrono::Duration::seconds(2);
    let (a, b) = futures::future::join(
        close_call(&store, "mahjong-daily", "2027-07-19", false, later),
        close_call(&store, "mahjong-daily", "2027-07-19", false, later),
    )
    .await;
    let (mut ok, mut calls) = (0, 4);
    for answer in [&a, &b] {
        assert!(
            answer.status == 200 || answer.status == 503,
            "{}: {}",
            answer.status,
            answer.body
        );
        ok += usize::from(answer.status == 200);
    }
    if ok == 0 {
        let c = close_call(&store, "mahjong-daily", "2027-07-19", false, later).await;
        assert_eq!(c.status, 200, "{}", c.body);
        calls += 1;
    }
    let done = close_call(&store, "mahjong-daily", "2027-07-19", true, later).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert_eq!(done.body["to_send"], json!(0), "{}", done.body);
    let ranked: Vec<String> = done.body["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["player_id"].as_str().map(str::to_string))
        .collect();
    assert!(ranked.contains(&"bob".to_string()), "{}", done.body);
    for p in &ranked {
        let inbox = read_as(&store, p, "/v1/me/inbox", &[], later).await;
        let n = inbox.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["kind"] == "period_result" && m["period"] == "2027-07-19")
            .count();
        assert_eq!(n, 1, "{p}: one result: {}", inbox.body);
        balance_is_its_ledger(&store, Game::MahjongRivals, p).await;
    }
    let closes = trail_of(&store, ("operator", "support-7"), later)
        .await
        .iter()
        .filter(|e| e["action"] == "close")
        .count();
    assert_eq!(closes, calls, "one entry per close asked for");
}

/// OP-4, OP-5: a suspension that stops midway (bob hidden from the frozen 18 July
/// archive, the weekly board's pointer write failing before the suspension records
/// where it hid him) and is then restored rather than repeated shows bob again
/// everywhere: the frozen day at once, as before, and the live board from its next
/// refresh; the trail holds the suspension (it held) and the restore.
pub async fn a_restore_after_an_interrupted_suspension_shows_the_player_everywhere<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    use crate::deletion::{t, tick};
    use podium_service::jobs::Job;
    use podium_service::moderation::suspensions::suspend;
    crate::deletion::seed(&store).await;
    let at = t("2027-07-19T06:00:00Z");
    let later = at + chrono::Duration::minutes(1);
    let (path, q): (&str, &[(&str, &str)]) = ("/v1/leaderboards/mahjong-daily", &[("period", "2027-07-18")]);
    let before = read_as(&store, "carol", path, q, at).await;
    assert!(
        ids_of(&before.body).contains(&"bob".to_string()),
        "{}",
        before.body
    );
    let faulty = crate::faults::Faulty::new(store.clone()).failing_item_writes("SNAP#mahjong-weekly", 1);
    let first = suspend(&faulty, "bob", ("support-7", "a modified client"), 30, at).await;
    assert!(first.is_err(), "the weekly pointer's write failed");
    let during = read_as(&store, "carol", path, q, at).await;
    assert!(
        !ids_of(&during.body).contains(&"bob".to_string()),
        "hidden from the archive before the failure: {}",
        during.body
    );
    // The operator restores him instead of repeating the suspension.
    let restored = operator_call(
        &store,
        "POST",
        "/v1/operator/players/bob/restore",
        &[],
        Some("support-8"),
        Some(&json!({"reason": "suspended by mistake"})),
        later,
    )
    .await;
    assert_eq!(restored.status, 200, "{}", restored.body);
    // OP-5: the suspension held from its first write (bob's calls refused) until the
    // restore: both are in the trail, though the suspending call failed midway.
    let actions = actions_of(&store, "bob", later).await;
    assert_eq!(actions, ["restore", "suspend"], "both actions audited");
    assert_eq!(read_as(&store, "bob", "/v1/me", &[], later).await.status, 200);
    let after = read_as(&store, "carol", path, q, later).await;
    assert_eq!(
        ranks(&after.body),
        ranks(&before.body),
        "the frozen day reads as before"
    );
    tick(&store, Job::Refresh, "2027-07-19T06:10:00Z").await;
    let page = read_as(
        &store,
        "carol",
        "/v1/leaderboards/seega",
        &[],
        t("2027-07-19T06:11:00Z"),
    )
    .await;
    assert!(ids_of(&page.body).contains(&"bob".to_string()), "{}", page.body);
}

/// OP-2, GM-3: a record settled before a plausibility check was configured, delivered
/// again afterwards (a queue retry), is a duplicate: not held and not in the review
/// queue, where it would read as counted nowhere while it is on the balance.
pub async fn a_settled_record_delivered_again_is_not_held<S: Store + Clone + 'static>(store: S) {
    let now = crate::fixtures::now();
    let line = completion(7);
    let plain = podium_rules::record::policy::RecordPolicy::default();
    let record = Incoming::from_json(&line, now, &plain).expect("parses");
    assert_eq!(
        accept(&store, &line, &record, now, &plain, "first")
            .await
            .expect("settled"),
        Intake::Settled(Outcome::Applied)
    );
    let again = offer(&store, &line, now + chrono::Duration::minutes(1)).await;
    assert_eq!(again, Intake::Settled(Outcome::Duplicate));
    review_queue_is_empty(&store, now).await;
}

/// OP-3, OP-4: a record held because bob is suspended, approved while he still is
/// (refused: 403 `suspended`), is settled once when he is restored, like the other
/// records held meanwhile, and not left `approving` out of every queue.
pub async fn an_approval_refused_for_a_suspension_is_settled_by_the_restore<S: Store + Clone + 'static>(
    store: S,
) {
    use crate::deletion::t;
    use podium_service::moderation::review::{self as held, HeldState};
    seeded_with_bob_suspended(&store).await;
    let ended = t("2027-07-19T06:10:00Z");
    let arrived = ended + chrono::Duration::seconds(30);
    let intake = deliver(&store, "held-a", ("bob", "carol"), ended, "d-a").await;
    assert!(matches!(intake, Intake::Held { .. }), "{intake:?}");
    let ctx = ApiContext::new(cursor_key());
    let req = ApiRequest {
        method: "POST".into(),
        path: "/v1/operator/review/seega/held-a".into(),
        operator: Some("support-7".into()),
        ..Default::default()
    };
    let approve = api::handle_with_body(
        &store,
        &ctx,
        &req,
        &[("content-type", "application/json")],
        Bytes::from(json!({"verdict": "approve", "reason": "a fair match"}).to_string()),
        arrived + chrono::Duration::minutes(1),
    )
    .await;
    assert_eq!(approve.status, 403, "{}", approve.body);
    let restored = operator_call(
        &store,
        "POST",
        "/v1/operator/players/bob/restore",
        &[],
        Some("support-8"),
        Some(&json!({"reason": "the report was wrong"})),
        t("2027-07-20T06:00:00Z"),
    )
    .await;
    assert_eq!(restored.status, 200, "{}", restored.body);
    let h = held::get(&store, "seega", "held-a")
        .await
        .expect("read")
        .expect("held");
    assert_eq!(h.state, HeldState::Approved, "{h:?}");
    let settled = store
        .ledger_entries(Game::Seega, "bob")
        .await
        .expect("ledger")
        .into_iter()
        .filter(|e| e.source_id == "held-a")
        .count();
    assert_eq!(settled, 1, "settled once by the restore");
    balance_is_its_ledger(&store, Game::Seega, "bob").await;
}

/// Runs each moderation case against a fresh store from `$make`.
#[macro_export]
macro_rules! moderation_tests {
    ($make:path) => {
        $crate::moderation_tests!(@cases $make;
            a_correction_is_a_settlement_with_its_reason,
            a_mahjong_correction_credits_its_periods,
            implausible_records_are_held_for_review,
            an_export_lists_everything_stored_about_the_player,
            a_suspension_hides_holds_and_restores,
            an_operator_closes_a_missed_period_once,
            a_deletion_keeps_only_the_fact_in_the_trail,
            an_interrupted_suspension_is_finished_by_its_repeat,
            an_interrupted_correction_applies_once_on_its_repeat,
            an_interrupted_approval_settles_once_on_its_repeat,
            an_interrupted_restore_is_finished_by_its_repeat,
            an_interrupted_period_close_sends_each_result_once,
            a_restore_after_an_interrupted_suspension_shows_the_player_everywhere,
            a_settled_record_delivered_again_is_not_held,
            an_approval_refused_for_a_suspension_is_settled_by_the_restore,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::moderation::$case($make().await).await;
            }
        )*
    };
}

/// The deletion tests' players, then Bob suspended (OP-4) by `support-7` at
/// 2027-07-19T06:00Z with a 30-day restore window.
async fn seeded_with_bob_suspended<S: Store + Clone + 'static>(store: &S) {
    crate::deletion::seed(store).await;
    let at = crate::deletion::t("2027-07-19T06:00:00Z");
    podium_service::moderation::suspensions::suspend(
        store,
        "bob",
        ("support-7", "reported for a modified client"),
        30,
        at,
    )
    .await
    .expect("suspended");
}
