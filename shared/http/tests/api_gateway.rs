//! The HTTP adapter on real API Gateway HTTP API (payload 2.0) events with a JWT
//! authorizer, over the embedded store.

use std::sync::Arc;

use lambda_http::Request;
use podium_service::api::{self, ApiContext, ApiResponse, AppState};
use podium_service::boards::cursor::CursorKey;
use podium_store::embedded::EmbeddedStore;
use podium_tests::fixtures::seed_balance;
use tower::ServiceExt;

fn request(name: &str) -> Request {
    let path = format!("{}/tests/events/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture");
    lambda_http::request::from_str(&text).expect("an API Gateway v2 event")
}

/// `req` with its query string replaced by `query` (the event's other parts kept).
fn with_query(mut req: Request, query: &str) -> Request {
    let mut parts = req.uri().clone().into_parts();
    parts.path_and_query = Some(
        format!("{}?{query}", req.uri().path())
            .parse()
            .expect("path and query"),
    );
    *req.uri_mut() = lambda_http::http::Uri::from_parts(parts).expect("uri");
    req
}

/// The request through the deployed service: the router built on the first request
/// (identity from the authorizer's claims).
async fn send(store: &EmbeddedStore, req: Request) -> ApiResponse {
    let state = AppState::new(Arc::new(store.clone()), ApiContext::new(CursorKey::random()));
    let Ok(response) = podium_http::on_first_request(state).oneshot(req).await;
    api::read_back(response).await
}

/// One deployed service answers every request of its container with the router its
/// first request built (a clone of the service shares it).
#[tokio::test]
async fn the_router_built_on_the_first_request_answers_the_next() {
    let store = store_with(&[("mallory", 900), ("alice", 500), ("bob", 100)]).await;
    let state = AppState::new(Arc::new(store), ApiContext::new(CursorKey::random()));
    let service = podium_http::on_first_request(state);
    for _ in 0..2 {
        let req = with_query(request("around-me-jwt.json"), "neighbours=1");
        let Ok(response) = service.clone().oneshot(req).await;
        let resp = api::read_back(response).await;
        assert_eq!((resp.status, resp.body["me"]["rank"].as_u64()), (200, Some(2)));
    }
}

async fn store_with(balances: &[(&str, i64)]) -> EmbeddedStore {
    let store = EmbeddedStore::in_memory().expect("store");
    for (i, (player, points)) in balances.iter().enumerate() {
        seed_balance(&store, player, *points, 1_000 + i as i64).await;
    }
    store
}

/// GM-1: the caller is the verified JWT's `sub`; a `player` query parameter is
/// refused (GM-5: no route takes one) and an `x-player-id` header is ignored.
#[tokio::test]
async fn identity_comes_from_the_verified_jwt_only() {
    let req = request("around-me-jwt.json");
    assert_eq!(
        podium_http::verified_identity(&req).player.as_deref(),
        Some("alice")
    );
    assert_eq!(podium_http::verified_identity(&req).operator, None);
    let store = store_with(&[("mallory", 900), ("alice", 500), ("bob", 100)]).await;
    let refused = send(&store, req).await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(refused.body["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("query: unknown parameter `player`")));
    let resp = send(&store, with_query(request("around-me-jwt.json"), "neighbours=1")).await;
    assert_eq!(resp.status, 200);
    let v = resp.body.clone();
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
    let resp = send(&store, request("profile-no-authorizer.json")).await;
    assert_eq!(resp.status, 401);
    assert_eq!(resp.body["error"], "unauthenticated");
}

/// LB-3 over the adapter: a top page with a cursor; a bad limit names the field.
#[tokio::test]
async fn top_page_and_bad_limit() {
    let store = store_with(&[("a", 500), ("b", 400), ("c", 300)]).await;
    let resp = send(&store, request("top-page-jwt.json")).await;
    assert_eq!(resp.status, 200);
    let v = resp.body.clone();
    assert_eq!(v["entries"].as_array().expect("entries").len(), 2);
    assert!(v["next_cursor"].is_string());
    assert_eq!(v["entries"][0]["value_shown"], "500");
    let resp = send(&store, request("top-page-bad-limit.json")).await;
    assert_eq!(resp.status, 400);
    assert!(resp.body["message"]
        .as_str()
        .expect("message")
        .starts_with("limit:"));
}

/// The around-me event, re-aimed at an operator route, with these JWT claims added.
fn operator_request(scope: Option<&str>) -> Request {
    let path = format!("{}/tests/events/around-me-jwt.json", env!("CARGO_MANIFEST_DIR"));
    let mut event: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json");
    event["rawPath"] = "/v1/operator/players/bob".into();
    event["requestContext"]["http"]["path"] = "/v1/operator/players/bob".into();
    event["routeKey"] = "GET /v1/operator/players/{player_id}".into();
    event["rawQueryString"] = "".into();
    if let Some(scope) = scope {
        event["requestContext"]["authorizer"]["jwt"]["claims"]["scope"] = scope.into();
    }
    lambda_http::request::from_str(&event.to_string()).expect("an API Gateway v2 event")
}

/// An operator is a verified `sub` whose `scope` claim holds `podium/operator`; a
/// player without it is refused the operator routes (403), whatever else it holds.
#[tokio::test]
async fn operators_need_the_operator_scope_in_the_verified_claims() {
    let store = store_with(&[("bob", 100)]).await;
    let with = operator_request(Some("openid podium/operator"));
    assert_eq!(
        podium_http::verified_identity(&with).operator.as_deref(),
        Some("alice")
    );
    let resp = send(&store, with).await;
    assert_eq!(resp.status, 200, "{}", resp.body);
    assert_eq!(resp.body["player_id"], "bob");
    for scope in [
        None,
        Some("openid"),
        Some("podium/operators"),
        Some("podium/operator-x"),
    ] {
        let resp = send(&store, operator_request(scope)).await;
        assert_eq!(resp.status, 403, "{scope:?}: {}", resp.body);
    }
}
