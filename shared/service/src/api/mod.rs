//! The HTTP API: one [`axum`] router for every route, run by `podium serve` on
//! loopback and by the Lambda functions behind API Gateway (`podium-http`), and its
//! OpenAPI 3.1 description generated from the same handlers ([`openapi`], served at
//! `GET /v1/openapi.json`).
//!
//! | route | answer |
//! |---|---|
//! | `GET /v1/leaderboards/{board}?limit=1..100&cursor=C&period=P` | a [`Page`](crate::boards::Page) with its period clock (LB-3, LB-6) |
//! | `GET /v1/leaderboards/{board}/me?neighbours=0..25&period=P` | [`AroundMe`](crate::boards::AroundMe) (LB-4) |
//! | `GET /v1/me` | the caller's Seega [`Profile`](crate::boards::Profile) (SG-12) |
//! | `GET /v1/me/mahjong-rivals` | the caller's [`MahjongProfile`](crate::rewards::MahjongProfile) (MJ-6, MJ-17, MJ-20) |
//! | `GET /v1/me/matches/{match_id}` | the caller's [`MatchView`](crate::boards::MatchView) |
//! | `GET /v1/leagues/{league}/me` | the caller's [`MyLeague`](crate::leagues::MyLeague): tier and cohort this week |
//! | `GET /v1/leagues/{league}/cohorts/{cohort}?week=W` | a cohort's [`CohortView`](crate::leagues::CohortView) |
//! | `GET /v1/me/inbox` | the caller's [`InboxView`](crate::inbox::InboxView): closed periods' results and rewards (LB-5) |
//! | `POST /v1/me/inbox/{message_id}/claim` | the caller claims a message's reward, [`ClaimAnswer`](crate::inbox::ClaimAnswer) (GM-3) |
//! | `GET /v1/me/follows` | the boards on which the caller opted in to `overtaken` messages, [`Following`](routes::Following) |
//! | `PUT`, `DELETE /v1/me/follows/{board}` | the caller opts in or out on a board ([`crate::overtaken`]) |
//! | `GET /v1/me/ledger?game=G&limit=1..100&cursor=C` | a [`HistoryPage`](crate::point_history::HistoryPage) of the caller's ledger, newest first (GM-4) |
//! | `GET /v1/me/arenas/{arena_id}` | an Arena's result for one of its players (MJ-11) |
//! | `GET /v1/me/tournament-tables/{table_id}` | a tournament table's TP for one of its players (MJ-13 … MJ-15) |
//! | `GET /v1/tournaments/{tournament_id}` | a tournament's settings and status; once final, its winners (MJ-16) |
//! | `POST /v1/games/mahjong/daily-bonus` | the caller's claim of today's bonus, [`BonusAnswer`](crate::rewards::BonusAnswer) (MJ-18) |
//! | `GET /v1/ad-callbacks/admob?…` | an AdMob SSV callback (its signature authenticates it) (SG-10, MJ-19) |
//! | `GET /v1/ad-callbacks/unity-ads?…` | a Unity Ads S2S callback (HMAC-MD5), answered `1` |
//! | `GET /v1/operator/players/{player_id}` | support's [`PlayerOverview`](crate::operator::PlayerOverview) (operators only) |
//! | `GET /v1/operator/leaderboards/{board}?limit&cursor&period` | any board's page, as players see it (operators only) |
//! | `GET /v1/openapi.json` | this API's OpenAPI 3.1 description |
//!
//! The caller is an [`Identity`] that the layer in front of the router puts on the
//! request: the verified JWT's `sub` deployed (GM-1), the development header locally;
//! never a path, query or body value. Errors answer `{"error": KIND, "message": TEXT}`
//! ([`ErrorBody`]) with 400, 401, 403, 404, 405, 409, 500 or 503; a store failure's
//! detail goes to the log, never to the body.

pub mod callers;
mod docs;
mod error;
mod extract;
mod routes;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use http_body_util::BodyExt;
use podium_store::Store;
use serde_json::Value;
use tower::ServiceExt;

use crate::cursor::CursorKey;
use crate::rendered::RenderedPages;
use crate::rewards::Ads;
use crate::snapshot_reads::SnapshotCache;

pub use docs::{openapi, openapi_json, routes};
pub use error::{ApiError, ErrorBody};
pub use extract::Identity;

/// What every request of one process shares: the snapshot pointer cache, the top
/// pages rendered from the current snapshots, what it knows of its callers' deletions
/// (GM-6), the key that signs and checks page cursors, and (where ad callbacks are
/// answered) the verifier keys and the ad-unit catalogue. Cloning shares them.
#[derive(Clone)]
pub struct ApiContext {
    pub cache: Arc<SnapshotCache>,
    pub pages: Arc<RenderedPages>,
    pub callers: Arc<callers::Callers>,
    pub cursors: CursorKey,
    pub ads: Option<Arc<Ads>>,
}

impl ApiContext {
    pub fn new(cursors: CursorKey) -> Self {
        ApiContext {
            cache: Arc::default(),
            pages: Arc::default(),
            callers: Arc::default(),
            cursors,
            ads: None,
        }
    }

    /// This context, answering ad callbacks with `ads`.
    pub fn with_ads(mut self, ads: Ads) -> Self {
        self.ads = Some(Arc::new(ads));
        self
    }
}

/// The server clock: the instant (UTC) a request is answered at.
pub type Clock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// The router's state: the store, the shared [`ApiContext`] and the clock.
#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub ctx: ApiContext,
    pub clock: Clock,
}

impl AppState {
    /// A state reading the system clock.
    pub fn new(store: Arc<dyn Store>, ctx: ApiContext) -> Self {
        AppState {
            store,
            ctx,
            clock: Arc::new(Utc::now),
        }
    }

    /// This state with its clock fixed at `now` (tests, replays).
    pub fn at(mut self, now: DateTime<Utc>) -> Self {
        self.clock = Arc::new(move || now);
        self
    }
}

/// Every route, unknown routes (404) and other methods (405, with `Allow`), all
/// answering [`ErrorBody`] on refusal. The caller's [`Identity`] must be put on each
/// request by the layer in front (JWT authorizer claims, or the development header).
pub fn router(state: AppState) -> axum::Router {
    static ROUTER: OnceLock<axum::Router<AppState>> = OnceLock::new();
    ROUTER
        .get_or_init(|| docs::api_router().split_for_parts().0)
        .clone()
        .fallback(error::unknown_route)
        .method_not_allowed_fallback(error::method_not_allowed)
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
    let built = builder.body(Body::empty());
    let mut http_req = match built {
        Ok(r) => r,
        Err(e) => {
            return ApiResponse {
                status: 400,
                body: serde_json::json!({"error": "bad_request", "message": e.to_string()}),
                text: None,
                allow: None,
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
    let allow = response
        .headers()
        .get(axum::http::header::ALLOW)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
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
    }
}
