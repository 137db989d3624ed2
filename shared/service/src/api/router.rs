//! The router every entrypoint runs: routes, fallbacks, metrics; and the one-call
//! form of a request for tests and local tools ([`handle`]).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use http_body_util::BodyExt;
use podium_store::Store;
use serde_json::Value;
use tower::ServiceExt;

use crate::api::extract::Identity;
use crate::api::state::{ApiContext, AppState};

/// Every route, unknown routes (404) and other methods (405, with `Allow`), all
/// answering [`ErrorBody`] on refusal. The caller's [`Identity`] must be put on each
/// request by the layer in front (JWT authorizer claims, or the development header).
pub fn router(state: AppState) -> axum::Router {
    static ROUTER: OnceLock<axum::Router<AppState>> = OnceLock::new();
    ROUTER
        .get_or_init(crate::api::docs::serving_router)
        .clone()
        .fallback(crate::api::error::unknown_route)
        .method_not_allowed_fallback(crate::api::error::method_not_allowed)
        .route_layer(axum::middleware::from_fn(crate::api::parameters::only_documented))
        .layer(axum::middleware::from_fn(measured))
        .with_state(state)
}

/// Records each answer's route template, status class and latency ([`crate::telemetry`]).
async fn measured(req: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let started = std::time::Instant::now();
    let response = next.run(req).await;
    crate::telemetry::response(&route, response.status().as_u16(), started.elapsed());
    response
}

/// A request as tests and tools describe it, sent through [`router`] by [`handle`].
#[derive(Debug, Clone, Default)]
pub struct ApiRequest {
    pub method: String,
    /// The path, e.g. `/v1/leaderboards/seega` (percent-encoded where needed).
    pub path: String,
    /// Query parameters, encoded into the URI when `raw_query` is `None`.
    pub query: HashMap<String, String>,
    /// The query string exactly as sent (signed callbacks), instead of `query`.
    pub raw_query: Option<String>,
    /// The verified caller, as the authorizer would put it on the request.
    pub player: Option<String>,
    /// A verified operator (support staff), as the authorizer would put it on the request.
    pub operator: Option<String>,
}

/// An answer read back as JSON, for tests and tools: status and JSON body, or a
/// plain-text body when `text` is set.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiResponse {
    pub status: u16,
    pub body: Value,
    /// A plain-text body instead of `body` (Unity Ads expects `1`).
    pub text: Option<String>,
    /// The `Allow` header of a 405: the method the route takes.
    pub allow: Option<String>,
    /// The `ETag` and `Cache-Control` headers, when sent.
    pub etag: Option<String>,
    pub cache_control: Option<String>,
}

/// Sends `req` through [`router`] over `store` at the instant `now`, and reads the
/// answer back (tests and tools). A path that is no valid URI answers 400.
pub async fn handle<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    req: &ApiRequest,
    now: DateTime<Utc>,
) -> ApiResponse {
    handle_with_headers(store, ctx, req, &[], now).await
}

/// [`handle`], with request `headers` (name, value); a header that is not valid
/// HTTP answers 400.
pub async fn handle_with_headers<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    req: &ApiRequest,
    headers: &[(&str, &str)],
    now: DateTime<Utc>,
) -> ApiResponse {
    handle_with_body(store, ctx, req, headers, Bytes::new(), now).await
}

/// [`handle_with_headers`] with a request body (a JSON document for `PUT`s).
pub async fn handle_with_body<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    req: &ApiRequest,
    headers: &[(&str, &str)],
    body: Bytes,
    now: DateTime<Utc>,
) -> ApiResponse {
    let state = AppState::new(Arc::new(store.clone()), ctx.clone()).at(now);
    let query = match &req.raw_query {
        Some(raw) => raw.clone(),
        None => {
            let mut pairs: Vec<_> = req.query.iter().collect();
            pairs.sort();
            pairs
                .iter()
                .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                .collect::<Vec<_>>()
                .join("&")
        }
    };
    let uri = if query.is_empty() {
        req.path.clone()
    } else {
        format!("{}?{query}", req.path)
    };
    let mut builder = axum::http::Request::builder()
        .method(req.method.as_str())
        .uri(uri);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let built = builder.body(Body::from(body));
    let mut http_req = match built {
        Ok(r) => r,
        Err(e) => {
            return ApiResponse {
                status: 400,
                body: serde_json::json!({"error": "bad_request", "message": e.to_string()}),
                text: None,
                allow: None,
                etag: None,
                cache_control: None,
            }
        }
    };
    http_req.extensions_mut().insert(Identity {
        player: req.player.clone(),
        operator: req.operator.clone(),
    });
    let Ok(response) = router(state).oneshot(http_req).await;
    read_back(response).await
}

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// A router answer read back as [`ApiResponse`].
pub async fn read_back(response: axum::response::Response) -> ApiResponse {
    let status = response.status().as_u16();
    let json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let (allow, etag, cache_control) = {
        let header = |name: axum::http::header::HeaderName| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        (
            header(axum::http::header::ALLOW),
            header(axum::http::header::ETAG),
            header(axum::http::header::CACHE_CONTROL),
        )
    };
    let bytes = response
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_else(|_| Bytes::new());
    let (body, text) = if json {
        (serde_json::from_slice(&bytes).unwrap_or(Value::Null), None)
    } else {
        (Value::Null, Some(String::from_utf8_lossy(&bytes).into_owned()))
    };
    ApiResponse {
        status,
        body,
        text,
        allow,
        etag,
        cache_control,
    }
}
