//! LIVE-1, LIVE-2: the `live` function's routes on DynamoDB, as API Gateway's
//! WebSocket API invokes them: `$connect` stores the authorizer's player's connection
//! (a suspended account refused, 403), `$default` answers `watch` and `ping` by
//! posting a frame back (an unknown board refused naming it), `$disconnect` deletes
//! it; an event without the authorizer's principal is refused (401).

use chrono::Utc;
use podium_service::push::connections::connections_of;
use podium_tests::push::RecordingGateway;
use serde_json::{json, Value};

fn event(route: &str, connection: &str, player: Option<&str>, body: Option<&str>) -> Value {
    let mut e = json!({"requestContext": {"routeKey": route, "connectionId": connection,
        "eventType": route.trim_start_matches('$').to_uppercase(), "stage": "live",
        "domainName": "abc.execute-api.eu-west-1.amazonaws.com"}});
    if let Some(p) = player {
        e["requestContext"]["authorizer"] = json!({"principalId": p, "sub": p});
    }
    if let Some(b) = body {
        e["body"] = json!(b);
    }
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn live_routes_on_dynamodb() {
    let store = podium_tests::fixtures::dynamodb().await;
    let gateway = RecordingGateway::default();
    let now = Utc::now();
    let answer = live::handle(
        &store,
        &gateway,
        &event("$connect", "Zx1=", Some("ana"), None),
        now,
    )
    .await;
    assert_eq!(answer, json!({"statusCode": 200}));
    assert_eq!(connections_of(&store, "ana", now).await.expect("read").len(), 1);
    let no_principal = live::handle(&store, &gateway, &event("$connect", "Zx2=", None, None), now).await;
    assert_eq!(no_principal, json!({"statusCode": 401}));
    let watch = r#"{"action": "watch", "boards": [{"board": "seega"}]}"#;
    let answer = live::handle(
        &store,
        &gateway,
        &event("$default", "Zx1=", Some("ana"), Some(watch)),
        now,
    )
    .await;
    assert_eq!(answer, json!({"statusCode": 200}));
    let unknown = r#"{"action": "watch", "boards": [{"board": "chess"}]}"#;
    live::handle(
        &store,
        &gateway,
        &event("$default", "Zx1=", Some("ana"), Some(unknown)),
        now,
    )
    .await;
    live::handle(
        &store,
        &gateway,
        &event("$default", "Zx1=", Some("ana"), Some("{\"action\": \"ping\"}")),
        now,
    )
    .await;
    let frames = gateway.to("Zx1=");
    assert_eq!(
        frames[0],
        json!({"type": "watching", "boards": [{"board": "seega", "view": "global"}]})
    );
    assert_eq!(frames[1]["type"], "error");
    assert!(
        frames[1]["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("boards[0].board (LIVE-2): no board `chess`"),
        "{}",
        frames[1]
    );
    assert_eq!(frames[2], json!({"type": "pong"}));
    let answer = live::handle(
        &store,
        &gateway,
        &event("$disconnect", "Zx1=", Some("ana"), None),
        now,
    )
    .await;
    assert_eq!(answer, json!({"statusCode": 200}));
    assert!(connections_of(&store, "ana", now).await.expect("read").is_empty());
    // A suspended account (OP-4) cannot connect.
    podium_tests::fixtures::seed_balance(&store, "bob", 100, now.timestamp_millis()).await;
    podium_service::moderation::suspensions::suspend(
        &store,
        "bob",
        ("support-1", "a modified client"),
        30,
        now,
    )
    .await
    .expect("suspended");
    let refused = live::handle(
        &store,
        &gateway,
        &event("$connect", "Zx3=", Some("bob"), None),
        now,
    )
    .await;
    assert_eq!(refused, json!({"statusCode": 403}));
}
