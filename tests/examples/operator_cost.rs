//! Measures what operator actions cost on DynamoDB (requests and capacity units, as
//! DynamoDB reports them with `ReturnConsumedCapacity: TOTAL`) on a Seega board of
//! 1,000 players with a snapshot, through the same API code the operator function
//! runs: a correction, a suspension, a record held, a restore that settles three held
//! records, an approval, an export. Run with DynamoDB Local: `scripts/measure-cost`
//! (after the other costs).

use bytes::Bytes;
use podium_rules::game::Game;
use podium_service::api::{self, ApiContext, ApiRequest};
use podium_service::boards::cursor::CursorKey;
use podium_service::games::incoming::Incoming;
use podium_service::jobs::{handle, Job, ScheduledRun};
use podium_service::moderation::review::accept;
use podium_store::dynamo::{DynamoStore, UsageSnapshot};
use podium_tests::fixtures::{dynamodb, rout, seed_balance, seed_game_balance};
use serde_json::json;

fn row(what: &str, before: UsageSnapshot, store: &DynamoStore) {
    let d = store.usage().since(&before);
    println!(
        "| {what} | {} | {:.1} | {:.1} |",
        d.requests,
        d.read_milli_units as f64 / 1000.0,
        d.write_milli_units as f64 / 1000.0
    );
}

async fn operator(
    store: &DynamoStore,
    ctx: &ApiContext,
    what: &str,
    method: &str,
    path: &str,
    body: Option<serde_json::Value>,
    now: chrono::DateTime<chrono::Utc>,
) -> serde_json::Value {
    let req = ApiRequest {
        method: method.into(),
        path: path.into(),
        operator: Some("support-7".into()),
        ..Default::default()
    };
    let before = store.usage();
    let answer = match body {
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
    };
    assert_eq!(answer.status, 200, "{what}: {}", answer.body);
    row(what, before, store);
    answer.body
}

#[tokio::main]
async fn main() {
    let store = dynamodb().await;
    for i in 0..1_000 {
        seed_balance(
            &store,
            &format!("p-{i:05}"),
            ((i * 7_919) % 5_000 + 1) as i64,
            1_000 + i as i64,
        )
        .await;
    }
    seed_game_balance(&store, Game::MahjongRivals, "p-00010", 100, 1).await;
    let now = podium_tests::fixtures::now();
    handle(
        &store,
        ScheduledRun {
            job: Job::Refresh,
            scheduled_time: now,
        },
        &Default::default(),
    )
    .await
    .expect("a snapshot");
    let policy = podium_rules::record::policy::RecordPolicy {
        plausibility: std::sync::Arc::new(
            podium_rules::plausibility::Plausibility::from_json(
                r#"{"mahjong_level_floor_ms": {"default": 60000}}"#,
            )
            .expect("checks"),
        ),
        ..Default::default()
    };
    let ctx = ApiContext::new(CursorKey::random()).with_records(policy.clone());
    println!("Operator actions: a Seega board of 1,000 players with a snapshot\n");
    println!("| operation | requests | read units | write units |");
    println!("|---|---|---|---|");
    let at = now + chrono::Duration::minutes(1);
    operator(
        &store,
        &ctx,
        "correction (OP-1)",
        "POST",
        "/v1/operator/players/p-00010/corrections",
        Some(json!({"correction_id": "fix-1", "game": "seega", "points": -50, "reason": "a refund"})),
        at,
    )
    .await;
    operator(
        &store,
        &ctx,
        "suspension (OP-4)",
        "POST",
        "/v1/operator/players/p-00010/suspend",
        Some(json!({"reason": "a modified client"})),
        at,
    )
    .await;
    for i in 0..3 {
        let ended = at + chrono::Duration::minutes(i);
        let line =
            serde_json::to_vec(&rout(&format!("held-{i}"), "p-00010", "p-00011", ended)).expect("json");
        let arrived = ended + chrono::Duration::seconds(30);
        let record = Incoming::from_json(&line, arrived, &policy).expect("parses");
        let before = store.usage();
        accept(&store, &line, &record, arrived, &policy, &format!("d-{i}"))
            .await
            .expect("held");
        if i == 0 {
            row("a match naming a suspended player, held", before, &store);
        }
    }
    let day = at + chrono::Duration::days(1);
    operator(
        &store,
        &ctx,
        "restore, 3 held matches settled (OP-4)",
        "POST",
        "/v1/operator/players/p-00010/restore",
        Some(json!({"reason": "the report was wrong"})),
        day,
    )
    .await;
    let fast = json!({"completion_id": "c-1", "game": "mahjong-rivals", "kind": "level-completion",
        "player_id": "p-00010", "level": 3, "time_ms": 1_000, "completed_at": day.to_rfc3339(), "jokers_used": 0})
    .to_string();
    let record = Incoming::from_json(fast.as_bytes(), day, &policy).expect("parses");
    let before = store.usage();
    accept(&store, fast.as_bytes(), &record, day, &policy, "d-c")
        .await
        .expect("held");
    row("a level completion held by a check (OP-2)", before, &store);
    operator(
        &store,
        &ctx,
        "approval of a held level completion (OP-3)",
        "POST",
        "/v1/operator/review/level-completion/c-1",
        Some(json!({"verdict": "approve", "reason": "checked"})),
        day,
    )
    .await;
    let export = operator(
        &store,
        &ctx,
        "export (GDPR)",
        "GET",
        "/v1/operator/players/p-00010/export",
        None,
        day,
    )
    .await;
    println!(
        "\nthe export lists {} ledger entries, {} results, {} audit entries",
        export["ledger"].as_array().map_or(0, Vec::len),
        export["results"].as_array().map_or(0, Vec::len),
        export["audit"].as_array().map_or(0, Vec::len)
    );
}
