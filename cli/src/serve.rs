//! `podium serve`: every HTTP route of the API in one process on 127.0.0.1.
//!
//! DEVELOPMENT ONLY identity stand-in: in production API Gateway's JWT authorizer
//! verifies the token and the functions read its `sub`. Locally there is no
//! authorizer, so the caller names itself with `Authorization: Dev <player-id>`,
//! unverified. The server binds to loopback only and says so at start-up.
//! Likewise `Authorization: Operator <name>` names a support operator for the
//! `/v1/operator/…` routes (deployed: the JWT's `podium/operator` scope).
//!
//! It also serves the support console, `GET /console`, and the API explorer,
//! `GET /explorer` (Swagger UI over `/v1/openapi.json`; "Try it out" sends the
//! development identity): their pages, scripts and styles compiled in, and
//! `/console/vendor/<file>`, the third-party assets (uPlot, Swagger UI) installed by
//! `scripts/console-assets`, read from `PODIUM_CONSOLE_ASSETS` (default
//! `console/vendor` under the current directory).

use std::sync::Arc;

use axum::extract::{Path, Request};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use podium_service::api::{self, ApiContext, AppState, Identity};
use podium_store::Store;

use crate::clock::Clock;
use crate::error::CliError;

/// The id after `scheme` in the `Authorization` header, if it is an id (unverified):
/// well-formed, or of a reserved form that the caller check refuses by name (GM-5).
/// Two `Authorization` headers name no one: which of them is meant is not known.
fn dev_header(headers: &HeaderMap, scheme: &str) -> Option<String> {
    use podium_rules::record::ids::{player_id_form, PlayerIdForm};
    let mut all = headers.get_all(axum::http::header::AUTHORIZATION).iter();
    let value = all.next()?.to_str().ok()?;
    if all.next().is_some() {
        return None;
    }
    let id = value.strip_prefix(scheme)?.trim();
    (player_id_form(id) != PlayerIdForm::Malformed).then(|| id.to_string())
}

/// The development identity: `Authorization: Dev <player-id>`, unverified.
pub fn dev_identity(headers: &HeaderMap) -> Option<String> {
    dev_header(headers, "Dev ")
}

/// The development identity of a `/v1/live` request in its query, `?token=Dev%20<id>`
/// (a browser cannot set headers on a WebSocket; deployed, the token is a JWT there).
fn live_token(req: &Request) -> Option<String> {
    if req.uri().path() != "/v1/live" {
        return None;
    }
    // With an Authorization header, the header alone names the caller (two name no
    // one); a query naming `token` more than once names no one either.
    if req.headers().contains_key(axum::http::header::AUTHORIZATION) {
        return None;
    }
    let axum::extract::Query(pairs) =
        axum::extract::Query::<Vec<(String, String)>>::try_from_uri(req.uri()).ok()?;
    let mut tokens = pairs.iter().filter(|(k, _)| k == "token").map(|(_, v)| v);
    let token = tokens.next()?;
    if tokens.next().is_some() {
        return None;
    }
    let mut headers = HeaderMap::new();
    headers.insert(
        axum::http::header::AUTHORIZATION,
        axum::http::HeaderValue::from_str(token).ok()?,
    );
    dev_identity(&headers)
}

/// The development operator identity: `Authorization: Operator <name>`, unverified.
pub fn dev_operator(headers: &HeaderMap) -> Option<String> {
    dev_header(headers, "Operator ")
}

/// The console's own files, compiled into the binary (no build step).
const CONSOLE_HTML: &str = include_str!("../../console/index.html");
const CONSOLE_JS: &str = include_str!("../../console/console.js");
const CONSOLE_CSS: &str = include_str!("../../console/console.css");
/// The API explorer's own files (Swagger UI itself is a vendored asset).
const LIVE_HTML: &str = include_str!("../../console/live.html");
const LIVE_JS: &str = include_str!("../../console/live.js");
const EXPLORER_HTML: &str = include_str!("../../console/explorer.html");
const EXPLORER_JS: &str = include_str!("../../console/explorer.js");
const EXPLORER_CSS: &str = include_str!("../../console/explorer.css");

/// The variable naming the directory of the console's third-party assets.
pub const CONSOLE_ASSETS_VAR: &str = "PODIUM_CONSOLE_ASSETS";

/// A console asset with its content type; the page may run only its own scripts.
fn asset(content_type: &'static str, body: impl Into<axum::body::Body>) -> Response {
    use axum::http::{header, HeaderValue};
    let mut response = Response::new(body.into());
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        ),
    );
    response
}

async fn console_page() -> Response {
    asset("text/html; charset=utf-8", CONSOLE_HTML)
}

async fn console_js() -> Response {
    asset("text/javascript; charset=utf-8", CONSOLE_JS)
}

async fn console_css() -> Response {
    asset("text/css; charset=utf-8", CONSOLE_CSS)
}

async fn live_page() -> Response {
    asset("text/html; charset=utf-8", LIVE_HTML)
}

async fn live_js() -> Response {
    asset("text/javascript; charset=utf-8", LIVE_JS)
}

async fn explorer_page() -> Response {
    asset("text/html; charset=utf-8", EXPLORER_HTML)
}

async fn explorer_js() -> Response {
    asset("text/javascript; charset=utf-8", EXPLORER_JS)
}

async fn explorer_css() -> Response {
    asset("text/css; charset=utf-8", EXPLORER_CSS)
}

/// The content type of a vendored asset by its name; `None` for any other file.
fn vendor_type(file: &str) -> Option<&'static str> {
    let plain = !file.is_empty()
        && !file.starts_with('.')
        && file
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'));
    if !plain {
        return None;
    }
    if file.ends_with(".js") {
        Some("text/javascript; charset=utf-8")
    } else if file.ends_with(".css") {
        Some("text/css; charset=utf-8")
    } else {
        None
    }
}

/// The directory of the console's third-party assets: `PODIUM_CONSOLE_ASSETS`, else
/// `console/vendor` under the current directory.
pub(crate) fn console_assets() -> std::path::PathBuf {
    std::env::var_os(CONSOLE_ASSETS_VAR)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("console/vendor"))
}

/// `/console/vendor/<file>`: a `.js` or `.css` file of the assets directory, else 404.
async fn console_vendor(Path(file): Path<String>) -> Response {
    let not_found = || {
        (
            StatusCode::NOT_FOUND,
            "not installed: run scripts/console-assets\n",
        )
            .into_response()
    };
    let Some(content_type) = vendor_type(&file) else {
        return not_found();
    };
    match tokio::fs::read(console_assets().join(&file)).await {
        Ok(bytes) => asset(content_type, bytes),
        Err(_) => not_found(),
    }
}

/// Whether `host` (a `Host` header's or an origin's host, port and all) names this
/// machine's loopback: `127.0.0.1`, `localhost` or `[::1]`, any port.
fn is_loopback(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port))
            if !name.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) && !host.ends_with(']') =>
        {
            name
        }
        _ => host,
    };
    matches!(
        name.to_ascii_lowercase().as_str(),
        "127.0.0.1" | "localhost" | "[::1]"
    )
}

/// The development server answers this machine only: a request whose `Host` names
/// another (a page on another site whose name was rebound to 127.0.0.1: DNS
/// rebinding) or that carries an `Origin` of another site (a page in the browser of
/// the one who runs it, the live feed's WebSocket included, which a browser opens
/// across sites) is refused with 403 and reaches no route, since the caller is
/// whoever the development header names.
async fn loopback_only(req: Request, next: axum::middleware::Next) -> Response {
    let headers = req.headers();
    let host_ok = headers
        .get(axum::http::header::HOST)
        .map(|h| h.to_str().is_ok_and(is_loopback))
        .unwrap_or(true);
    let origin_ok = headers
        .get(axum::http::header::ORIGIN)
        .map(|o| {
            o.to_str()
                .ok()
                .and_then(|o| o.parse::<axum::http::Uri>().ok())
                .and_then(|u| u.authority().map(|a| is_loopback(a.as_str())))
                .unwrap_or(false)
        })
        .unwrap_or(true);
    if host_ok && origin_ok {
        return next.run(req).await;
    }
    let what = if host_ok { "Origin" } else { "Host" };
    api::ApiError(podium_service::ServiceError::Forbidden(format!(
        "{what}: podium serve answers this machine only (127.0.0.1, localhost or [::1]), \
         never a page of another site: its caller is whoever the development header names"
    )))
    .into_response()
}

/// The router, each request's identity taken from the development header, with the
/// live feed `live` at `/v1/live`.
pub fn app(store: Arc<dyn Store>, ctx: ApiContext, clock: &Clock, live: crate::live::Live) -> axum::Router {
    let console = axum::Router::new()
        .route("/console", get(console_page))
        .route("/console/", get(console_page))
        .route("/console/console.js", get(console_js))
        .route("/console/console.css", get(console_css))
        .route("/console/vendor/{file}", get(console_vendor))
        .route("/console/live", get(live_page))
        .route("/console/live.js", get(live_js))
        .route("/explorer", get(explorer_page))
        .route("/explorer/", get(explorer_page))
        .route("/explorer/explorer.js", get(explorer_js))
        .route("/explorer/explorer.css", get(explorer_css));
    // The test clock's route, with `--test-clock` only (the functions never have it).
    let dev = clock.test().map(|test| {
        let settings = podium_service::jobs::TickSettings {
            rewards: (*ctx.rewards).clone(),
            records: (*ctx.records).clone(),
        };
        crate::dev_clock::routes(
            Arc::clone(&store),
            Arc::clone(&ctx.cache),
            Arc::clone(test),
            settings,
            ctx.refresh,
        )
    });
    let mut state = AppState::new(store, ctx);
    state.clock = clock.for_api();
    let mut api = api::router(state);
    if let Some(test) = clock.test() {
        // While the test clock moves, the API's requests wait for it to arrive.
        let test = Arc::clone(test);
        api = api.layer(axum::middleware::from_fn(
            move |req: Request, next: axum::middleware::Next| {
                let test = Arc::clone(&test);
                async move {
                    let _shared = test.gate.read().await;
                    next.run(req).await
                }
            },
        ));
    }
    let live = axum::Router::new()
        .route(
            "/v1/live",
            get(crate::live::upgrade).fallback(|| async {
                podium_service::api::ApiError(podium_service::ServiceError::MethodNotAllowed {
                    allowed: "GET",
                })
                .into_response()
            }),
        )
        .with_state(live);
    let mut app = axum::Router::new().merge(live);
    if let Some(dev) = dev {
        app = app.merge(dev);
    }
    app.merge(api)
        .merge(console)
        .layer(axum::middleware::from_fn(hint_dev_header))
        .layer(axum::middleware::from_fn(loopback_only))
        .layer(axum::middleware::map_request(|mut req: Request| async move {
            let identity = Identity {
                player: dev_identity(req.headers()).or_else(|| live_token(&req)),
                operator: dev_operator(req.headers()),
            };
            req.extensions_mut().insert(identity);
            req
        }))
}

/// What a 401 adds to its message locally: how `podium serve` is told who calls.
pub const DEV_HEADER_HINT: &str = "podium serve: name the caller with the header \
    `Authorization: Dev <player-id>` (operator routes: `Authorization: Operator <name>`), \
    unverified, local only";

/// What a 401 adds locally for the `Authorization` headers `headers` holds: how to
/// name the caller when there is none ([`DEV_HEADER_HINT`]), or what is wrong with the
/// one sent (malformed, or two of them), so that a typo is not answered as a
/// forgotten header.
fn dev_header_hint(headers: &HeaderMap) -> String {
    let all: Vec<&axum::http::HeaderValue> = headers
        .get_all(axum::http::header::AUTHORIZATION)
        .iter()
        .collect();
    match all.as_slice() {
        [] => DEV_HEADER_HINT.to_string(),
        // Well formed, and still no caller: an operator on a route of a player's own.
        [one] if dev_operator(headers).is_some() => format!(
            "podium serve: the Authorization header {} names an operator; this route answers a \
             player: name one with `Authorization: Dev <player-id>`, unverified, local only",
            podium_rules::error::quoted(&String::from_utf8_lossy(one.as_bytes()))
        ),
        [one] => format!(
            "podium serve: the Authorization header {} is not `Dev <player-id>` or `Operator <name>` \
             with an id of 1 to 128 characters of A-Z a-z 0-9 . _ : - | (GM-5), unverified, local only",
            podium_rules::error::quoted(&String::from_utf8_lossy(one.as_bytes()))
        ),
        many => format!(
            "podium serve: {} Authorization headers name no one: send one, `Authorization: Dev <player-id>` \
             (operator routes: `Authorization: Operator <name>`)",
            many.len()
        ),
    }
}

/// A 401's JSON message with the [`dev_header_hint`] of the request appended (the
/// body keeps its shape).
async fn hint_dev_header(req: Request, next: axum::middleware::Next) -> Response {
    let hint = dev_header_hint(req.headers());
    let response = next.run(req).await;
    if response.status() != StatusCode::UNAUTHORIZED {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return Response::from_parts(parts, axum::body::Body::empty());
    };
    let mut value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => return Response::from_parts(parts, bytes.into()),
    };
    if let Some(message) = value.get("message").and_then(|m| m.as_str()) {
        value["message"] = format!("{message} ({hint})").into();
    }
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, serde_json::to_vec(&value).unwrap_or_default().into())
}

/// Binds 127.0.0.1:`port`, saying what to do when it is taken.
pub async fn bind(port: u16) -> Result<tokio::net::TcpListener, CliError> {
    tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|source| CliError::File {
            path: format!("127.0.0.1:{port} (another server there? pick a port with --port)"),
            source,
        })
}

/// Serves on `listener` until interrupted; `ctx` holds the cursor key
/// (configuration). With `demo`, prints what to open first.
/// `stream`: the embedded store whose change stream feeds the live feed (`None` on
/// DynamoDB: `/v1/live` connects and answers, nothing is pushed).
pub async fn serve(
    listener: tokio::net::TcpListener,
    store: Arc<dyn Store>,
    stream: Option<Arc<podium_store::embedded::EmbeddedStore>>,
    ctx: ApiContext,
    clock: &Clock,
    demo: Option<&crate::demo::Shown>,
) -> Result<(), CliError> {
    let answers_ads = ctx.ads.is_some();
    let live = crate::live::Live::new(store.clone(), Arc::clone(&ctx.cache));
    let live_note = match stream {
        Some(embedded) => {
            tokio::spawn(crate::live::follow(embedded, live.clone()));
            "pushes every inbox message and board change as it is written"
        }
        None => "connects, but pushes nothing on DynamoDB (deployed, the events function pushes; see tools/local-stack)",
    };
    let app = app(store, ctx, clock, live);
    let addr = listener.local_addr()?;
    eprintln!("podium serving on http://{addr}");
    if answers_ads {
        eprintln!("answering ad callbacks (PODIUM_AD_CATALOGUE, PODIUM_ADMOB_KEYS_FILE)");
    } else {
        // Said here, to whoever runs the server, not to callers of the public route.
        eprintln!(
            "not answering ad callbacks (404): set PODIUM_AD_CATALOGUE, with PODIUM_ADMOB_KEYS_FILE \
             or PODIUM_ADMOB_KEYS_URL for AdMob and PODIUM_UNITY_ADS_SECRET for Unity Ads"
        );
    }
    eprintln!(
        "DEVELOPMENT ONLY: the caller is whoever 'Authorization: Dev <player-id>' names, unverified. \
         Deployed, API Gateway's JWT authorizer verifies the token and its 'sub' is the player."
    );
    eprintln!(
        "support console: http://{addr}/console ('Authorization: Operator <name>', unverified, for /v1/operator/...)"
    );
    eprintln!("API explorer: http://{addr}/explorer");
    eprintln!("live feed: ws://{addr}/v1/live?token=Dev%20<player-id> {live_note}");
    if let Some(test) = clock.test() {
        eprintln!(
            "test clock at {}: it moves only on POST http://{addr}/v1/dev/clock {{\"advance\": \"P1D\"}} or {{\"set\": \"<RFC 3339>\"}}",
            test.now().to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
        );
    }
    if let Some(shown) = demo {
        crate::demo::print_urls(
            &addr,
            shown,
            console_assets().join("swagger-ui-bundle.js").exists(),
        );
    }
    axum::serve(listener, app).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/v1/live`'s query names the caller only without an Authorization header, and
    /// only once.
    #[test]
    fn live_token_only_alone_and_once() {
        let req = |uri: &str, header: Option<&str>| {
            let mut b = axum::http::Request::builder().uri(uri);
            if let Some(h) = header {
                b = b.header("authorization", h);
            }
            b.body(axum::body::Body::empty()).expect("request")
        };
        assert_eq!(
            live_token(&req("/v1/live?token=Dev%20ana", None)).as_deref(),
            Some("ana")
        );
        assert_eq!(
            live_token(&req("/v1/live?token=Dev%20ana", Some("Dev bob"))),
            None
        );
        assert_eq!(
            live_token(&req("/v1/live?token=Dev%20ana&token=Dev%20bob", None)),
            None
        );
        assert_eq!(
            live_token(&req("/v1/me?token=Dev%20ana", None)),
            None,
            "the live feed only"
        );
    }

    #[test]
    fn only_this_machine_is_loopback() {
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST",
            "[::1]:8080",
            "[::1]",
        ] {
            assert!(is_loopback(ok), "{ok}");
        }
        for no in [
            "attacker.example",
            "attacker.example:8080",
            "127.0.0.1.nip.io",
            "localhost.evil:80",
            "0.0.0.0:8080",
            "[::2]:80",
            "",
        ] {
            assert!(!is_loopback(no), "{no}");
        }
    }

    #[test]
    fn dev_identity_needs_the_dev_scheme() {
        let mut h = HeaderMap::new();
        assert_eq!(dev_identity(&h), None);
        h.insert("authorization", "Bearer eyJhbGciOi".parse().unwrap());
        assert_eq!(dev_identity(&h), None);
        h.insert("authorization", "Dev p-0001".parse().unwrap());
        assert_eq!(dev_identity(&h).as_deref(), Some("p-0001"));
        h.insert("authorization", "Dev  ".parse().unwrap());
        assert_eq!(dev_identity(&h), None);
        h.insert("authorization", "Dev bad id!".parse().unwrap());
        assert_eq!(dev_identity(&h), None);
        // Two headers: no one (which is meant is not known).
        h.insert("authorization", "Dev p-0001".parse().unwrap());
        h.append("authorization", "Dev p-0002".parse().unwrap());
        assert_eq!(dev_identity(&h), None);
        let mut h = HeaderMap::new();
        h.insert("authorization", "Operator ops-1".parse().unwrap());
        h.append("authorization", "Dev p-0001".parse().unwrap());
        assert_eq!((dev_operator(&h), dev_identity(&h)), (None, None));
    }
    /// A forgotten header, a malformed one and two of them are told apart (the 401's
    /// hint).
    #[test]
    fn a_malformed_identity_is_not_a_missing_one() {
        let mut h = HeaderMap::new();
        assert_eq!(dev_header_hint(&h), DEV_HEADER_HINT);
        h.insert("authorization", "Dev bad id!".parse().unwrap());
        let hint = dev_header_hint(&h);
        assert!(hint.contains("`Dev bad id!` is not `Dev <player-id>`"), "{hint}");
        let mut operator = HeaderMap::new();
        operator.insert(
            axum::http::header::AUTHORIZATION,
            axum::http::HeaderValue::from_static("Operator support"),
        );
        let hint = dev_header_hint(&operator);
        assert!(
            hint.contains("names an operator; this route answers a player"),
            "{hint}"
        );
        h.append("authorization", "Dev p-1".parse().unwrap());
        assert!(dev_header_hint(&h).contains("2 Authorization headers name no one"));
    }

    #[test]
    fn operators_name_themselves_with_the_operator_scheme() {
        let mut h = HeaderMap::new();
        assert_eq!(dev_operator(&h), None);
        h.insert("authorization", "Dev p-0001".parse().unwrap());
        assert_eq!(dev_operator(&h), None);
        h.insert("authorization", "Operator support".parse().unwrap());
        assert_eq!(dev_operator(&h).as_deref(), Some("support"));
        assert_eq!(dev_identity(&h), None, "an operator is no player");
        h.insert("authorization", "Operator <b>".parse().unwrap());
        assert_eq!(dev_operator(&h), None);
    }

    #[test]
    fn only_plain_js_and_css_names_are_vendor_assets() {
        assert!(vendor_type("uPlot.iife.min.js").is_some());
        assert!(vendor_type("uPlot.min.css").is_some());
        for bad in ["", ".env", "../secret.js", "a/b.js", "x.html", "x.js.map"] {
            assert_eq!(vendor_type(bad), None, "{bad}");
        }
    }
}
