//! The HTTP adapter on real API Gateway HTTP API (payload 2.0) events with a JWT
//! authorizer, over the embedded store.

use lambda_http::{Body, Request};
use podium_service::api::ApiContext;
use podium_service::cursor::CursorKey;
use podium_store::embedded::EmbeddedStore;
use podium_tests::fixtures::seed_balance;
use serde_json::Value;

fn request(name: &str) -> Request {
    let path = format!("{}/tests/events/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture");
    lambda_http::request::from_str(&text).expect("an API Gateway v2 event")
}

fn body(b: &Body) -> Value {
    match b {
        Body::Text(t) => serde_json::from_str(t).expect("json"),
        other => panic!("not text: {other:?}"),
    }
}

async fn store_with(balances: &[(&str, i64)]) -> EmbeddedStore {
    let store = EmbeddedStore::in_memory().expect("store");
    for (i, (player, points)) in balances.iter().enumerate() {
        seed_balance(&store, player, *points, 1_000 + i as i64).await;
    }
    store
}

/// GM-1: the caller is the verified JWT's `sub`; a `player` query parameter and an
/// `x-player-id` header are ignored.
#[tokio::test]
async fn identity_comes_from_the_verified_jwt_only() {
    let req = request("around-me-jwt.json");
    assert_eq!(podium_http::verified_player(&req).as_deref(), Some("alice"));
    let store = store_with(&[("mallory", 900), ("alice", 500), ("bob", 100)]).await;
    let resp = podium_http::handle(&store, &ApiContext::new(CursorKey::random()), req).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/json");
    let v = body(resp.body());
    assert_eq!(v["me"]["player_id"], "alice");
    assert_eq!(v["me"]["rank"], 2);
    let around: Vec<_> = v["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["player_id"].clone())
        .collect();
    assert_eq!(around, ["mallory", "alice", "bob"]);
}

/// No authorizer context (a misconfigured route): 401, whatever headers say.
#[tokio::test]
async fn no_verified_identity_is_401() {
    let store = store_with(&[]).await;
    let resp = podium_http::handle(
        &store,
        &ApiContext::new(CursorKey::random()),
        request("profile-no-authorizer.json"),
    )
    .await;
    assert_eq!(resp.status(), 401);
    assert_eq!(body(resp.body())["error"], "unauthenticated");
}

/// LB-3 over the adapter: a top page with a cursor; a bad limit names the field.
#[tokio::test]
async fn top_page_and_bad_limit() {
    let store = store_with(&[("a", 500), ("b", 400), ("c", 300)]).await;
    let resp = podium_http::handle(
        &store,
        &ApiContext::new(CursorKey::random()),
        request("top-page-jwt.json"),
    )
    .await;
    assert_eq!(resp.status(), 200);
    let v = body(resp.body());
    assert_eq!(v["entries"].as_array().expect("entries").len(), 2);
    assert!(v["next_cursor"].is_string());
    assert_eq!(v["entries"][0]["value_shown"], "500");
    let resp = podium_http::handle(
        &store,
        &ApiContext::new(CursorKey::random()),
        request("top-page-bad-limit.json"),
    )
    .await;
    assert_eq!(resp.status(), 400);
    assert!(body(resp.body())["message"]
        .as_str()
        .expect("message")
        .starts_with("limit:"));
}
