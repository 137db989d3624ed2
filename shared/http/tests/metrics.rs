//! The HTTP metrics the deployed router emits (`Responses`, `HandlerLatency` by route
//! template), read back from the Embedded Metric Format documents (its own test
//! process: one recorder per process).

use std::sync::Arc;

use axum::body::Body;
use podium_service::api::{ApiContext, AppState};
use podium_service::boards::cursor::CursorKey;
use podium_store::embedded::EmbeddedStore;
use serde_json::Value;
use tower::ServiceExt;

/// Answers are counted by route template (never the raw path, which holds ids) and
/// status class, and their latency recorded in milliseconds by route.
#[tokio::test]
async fn responses_are_counted_by_route_template_and_status_class() {
    let collector = podium_http::emf::collector().expect("recorder");
    let store = EmbeddedStore::in_memory().expect("store");
    let state = AppState::new(Arc::new(store), ApiContext::new(CursorKey::random()));
    for uri in ["/v1/openapi.json", "/v1/me/matches/m-secret-id", "/v1/nothing"] {
        let req = axum::http::Request::get(uri)
            .body(Body::empty())
            .expect("request");
        let _ = podium_http::app(state.clone()).oneshot(req).await;
    }
    // A 5xx is also counted without its route: each HTTP function's rollback alarm
    // (template.yaml, `<Function>ServerErrorsAlarm`) watches this one metric.
    podium_service::telemetry::response("/v1/me", 503, std::time::Duration::ZERO);
    let mut out = Vec::new();
    collector.flush(&mut out).expect("flush");
    let text = String::from_utf8(out).expect("utf-8");
    assert!(
        !text.contains("m-secret-id"),
        "no raw path in the metrics: {text}"
    );
    let docs: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON document a line"))
        .collect();
    let responses = |route: &str, status: &str| {
        docs.iter()
            .filter(|d| d["Route"] == route && d["Status"] == status)
            .find_map(|d| d["Responses"].as_f64())
    };
    assert_eq!(responses("/v1/openapi.json", "2xx"), Some(1.0), "{docs:#?}");
    assert_eq!(
        responses("/v1/me/matches/{match_id}", "4xx"),
        Some(1.0),
        "{docs:#?}"
    );
    assert_eq!(responses("unmatched", "4xx"), Some(1.0), "{docs:#?}");
    let server_errors: Vec<&Value> = docs.iter().filter(|d| d.get("ServerErrors").is_some()).collect();
    assert_eq!(server_errors.len(), 1, "{docs:#?}");
    assert_eq!(server_errors[0]["ServerErrors"].as_f64(), Some(1.0));
    assert!(
        server_errors[0].get("Route").is_none(),
        "no route dimension: {docs:#?}"
    );
    let latency = docs
        .iter()
        .find(|d| d["Route"] == "/v1/openapi.json" && d.get("HandlerLatency").is_some())
        .expect("latency recorded");
    let units = latency["_aws"]["CloudWatchMetrics"][0]["Metrics"].to_string();
    assert!(units.contains("Milliseconds"), "{units}");
}
