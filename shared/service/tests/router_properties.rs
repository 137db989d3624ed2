//! Property tests (fuzzing, issue 13) of the HTTP router on arbitrary requests:
//! methods, paths (broken percent-escapes), queries, identities, and (through
//! `api::router` directly) arbitrary headers (`Authorization` in every form,
//! content types, huge values) and request bodies on the POST route and others.
//!
//! Property: no client input produces a 5xx, and every refusal is the
//! `{"error", "message"}` body, its message bounded (input is never echoed whole); a
//! 400's message names the parameter or field it refuses (`field: …` or
//! `field (rule): …`).
//!
//! The test command runs a smoke run (a few hundred cases, seconds in a debug build).
//! The long run: `PROPTEST_CASES=1000000 cargo test --release -p podium-service --test
//! router_properties -- --nocapture`, or `scripts/fuzz-long`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue};
use podium_service::api::{self, ApiContext, ApiRequest, AppState, Identity};
use podium_service::boards::cursor::CursorKey;
use podium_store::embedded::EmbeddedStore;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tower::ServiceExt;

#[path = "../../testing/fuzz.rs"]
mod fuzz;
use fuzz::fuzz;

/// One runtime, store and context for every case (state builds up, as in a server).
fn shared() -> &'static (tokio::runtime::Runtime, EmbeddedStore, ApiContext) {
    static SHARED: OnceLock<(tokio::runtime::Runtime, EmbeddedStore, ApiContext)> = OnceLock::new();
    SHARED.get_or_init(|| {
        (
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime"),
            EmbeddedStore::in_memory().expect("store"),
            ApiContext::new(CursorKey::random()),
        )
    })
}

fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
        .expect("instant")
        .to_utc()
}

/// The refusal property: the error body, a bounded message, and a 400 naming its
/// parameter or field first.
fn check_answer(answer: &api::ApiResponse, method: &str, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(answer.status < 500, "{method} {what}: {answer:?}");
    if answer.status >= 400 && method != "HEAD" {
        let kind = answer.body["error"].as_str();
        let message = answer.body["message"].as_str().unwrap_or_default();
        prop_assert!(
            kind.is_some() && !message.is_empty(),
            "{method} {what}: {answer:?}"
        );
        prop_assert!(message.len() < 1_000, "{:?}", answer.body);
        if answer.status == 400 {
            let head = message.split_once(": ").map_or("", |(head, _)| head);
            let field = head.split_once(" (").map_or(head, |(field, _)| field);
            prop_assert!(
                !field.is_empty()
                    && field.len() <= 64
                    && field
                        .bytes()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"_.[]".contains(&c)),
                "a 400 naming no field: {method} {what}: {answer:?}"
            );
        }
    }
    Ok(())
}

/// Path segments: route words, ids, odd characters, percent-escapes (valid or not).
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "v1",
            "leaderboards",
            "seega",
            "mahjong-weekly",
            "mahjong-level-7",
            "me",
            "matches",
            "arenas",
            "tournaments",
            "tournament-tables",
            "operator",
            "players",
            "games",
            "mahjong",
            "daily-bonus",
            "ad-callbacks",
            "admob",
            "unity-ads",
            "openapi.json",
            "..",
            ".",
            "",
        ])
        .prop_map(str::to_string),
        "[a-zA-Z0-9._~:@!$&'()*+,;=-]{1,40}",
        "(%[0-9A-Fa-f]{2}){1,6}",
        "%[G-Zg-z%]{0,2}",
        "[\\PC]{1,8}".prop_map(|s| percent_encoding::utf8_percent_encode(
            &s,
            percent_encoding::NON_ALPHANUMERIC
        )
        .to_string()),
        "[a-z]{300,2000}",
    ]
}

fn query() -> impl Strategy<Value = Option<String>> {
    let key = prop::sample::select(vec![
        "limit",
        "cursor",
        "period",
        "neighbours",
        "signature",
        "key_id",
        "user_id",
        "x",
    ]);
    let value = prop_oneof![
        "[0-9]{0,25}",
        "-?[0-9]{1,5}",
        "[A-Za-z0-9_-]{0,200}",
        "(%[0-9A-Fa-f]{2}){0,4}",
        "20[0-9]{2}-W[0-9]{1,2}",
        "20[0-9]{2}-[0-9]{2}-[0-9]{2}",
    ];
    prop::option::of(prop::collection::vec((key, value), 0..5).prop_map(|pairs| {
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }))
}

fn request() -> impl Strategy<Value = ApiRequest> {
    (
        prop::sample::select(vec![
            "GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE", "X-ODD",
        ]),
        prop::collection::vec(segment(), 0..6),
        query(),
        prop::option::of(prop_oneof!["[a-z0-9-]{1,12}", "[\\PC]{0,20}"]),
        prop::option::of(prop_oneof!["[a-z0-9-]{1,12}", "[\\PC]{0,20}"]),
    )
        .prop_map(|(method, segments, raw_query, player, operator)| ApiRequest {
            method: method.to_string(),
            path: format!("/{}", segments.join("/")),
            query: HashMap::new(),
            raw_query,
            player,
            operator,
        })
}

/// LB-3, GM-5: whatever the method, path, query and identity, the answer is not a
/// 5xx, and a refusal is the error body naming its kind, with a bounded message.
#[test]
fn no_request_gets_a_server_error() {
    fuzz("router, methods, paths, queries", 2_000, request(), |req| {
        let (runtime, store, ctx) = shared();
        let answer = runtime.block_on(api::handle(store, ctx, &req, now()));
        check_answer(
            &answer,
            &req.method,
            &format!("{} ?{:?}", req.path, req.raw_query),
        )
    });
}

/// Header names: the ones podium or a proxy could read, and arbitrary ones.
fn header_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "authorization",
            "content-type",
            "content-length",
            "content-encoding",
            "transfer-encoding",
            "accept",
            "accept-encoding",
            "host",
            "cookie",
            "expect",
            "range",
            "if-none-match",
            "x-forwarded-for",
            "x-forwarded-proto",
            "x-amzn-trace-id",
            "x-request-id",
            "origin",
        ])
        .prop_map(str::to_string),
        "[a-z0-9!#$%&'*+.^_`|~-]{1,40}",
    ]
}

/// Header values: `Authorization` in every form, content types, numbers, bytes a
/// header may carry (visible ASCII and obs-text), huge values.
fn header_value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop_oneof![
            "(Dev|Operator|Bearer|Basic|dev|DEV|Digest) [a-z0-9-]{0,20}",
            "(Dev|Operator|Bearer) \\PC{0,20}",
            "(Dev|Operator)  ?[a-z]{1,8} [a-z]{1,8}",
            "Bearer [A-Za-z0-9_-]{10,40}\\.[A-Za-z0-9_-]{10,80}\\.[A-Za-z0-9_-]{0,40}",
            "(application/json|text/plain|application/x-www-form-urlencoded|multipart/form-data; boundary=[a-z]{1,10}|application/json; charset=(utf-8|latin1)|\\*/\\*|;;;|)",
            "-?[0-9]{1,25}",
            "(gzip|deflate|br|chunked|identity|100-continue|bytes=0-[0-9]{1,5})",
        ]
        .prop_map(String::into_bytes),
        prop::collection::vec(prop_oneof![0x20u8..0x7f, 0x80u8..=0xff, Just(b'\t')], 0..200),
        (1usize..200_000).prop_map(|n| b"Dev ".iter().copied().chain(std::iter::repeat_n(b'a', n)).collect()),
    ]
}

/// Request bodies: none, JSON, arbitrary bytes, huge ones.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        prop_oneof![
            Just("{}".to_string()),
            Just("null".to_string()),
            "\\{\"(player_id|day|points|streak|jokers)\": ?(-?[0-9]{1,25}|\"[a-z0-9-]{0,20}\"|null|true|\\[\\])\\}",
            "\\PC{0,100}",
        ]
        .prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..400),
        (1usize..2_000_000).prop_map(|n| vec![b'{'; n]),
    ]
}

/// Method, URI, headers (name, value bytes), body and verified player.
type RawRequest = (String, String, Vec<(String, Vec<u8>)>, Vec<u8>, Option<String>);

/// A request with arbitrary headers and body, mostly to the POST route.
fn request_with_headers() -> impl Strategy<Value = RawRequest> {
    (
        prop::sample::select(vec![
            "POST", "POST", "POST", "GET", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH",
        ]),
        prop_oneof![
            4 => Just("/v1/games/mahjong-rivals/daily-bonus".to_string()),
            1 => prop::sample::select(vec![
                "/v1/me",
                "/v1/me/mahjong-rivals",
                "/v1/leaderboards/seega",
                "/v1/leaderboards/seega/me",
                "/v1/me/matches/m-1",
                "/v1/tournaments/t-1",
                "/v1/ad-callbacks/admob?ad_unit=1&signature=x&key_id=1",
                "/v1/ad-callbacks/unity-ads?sid=p&hmac=00",
                "/v1/operator/players/p-1",
                "/v1/openapi.json",
                "/v1/nowhere",
            ])
            .prop_map(str::to_string),
        ],
        prop::collection::vec((header_name(), header_value()), 0..6),
        body(),
        prop::option::of(prop_oneof!["[a-z0-9-]{1,12}", "\\PC{0,20}", "[a-z]{200,300}"]),
    )
        .prop_map(|(method, path, headers, body, player)| (method.to_string(), path, headers, body, player))
}

/// GM-1, GM-5: whatever headers (identity is only ever the verified one on the
/// request, never a header) and body a request carries, the answer is not a 5xx,
/// and a refusal is the error body with a bounded message naming its field.
#[test]
fn no_headers_or_body_get_a_server_error() {
    fuzz(
        "router, headers and bodies",
        2_000,
        request_with_headers(),
        |(method, path, headers, body, player)| {
            let (runtime, store, ctx) = shared();
            let mut builder = axum::http::Request::builder()
                .method(method.as_str())
                .uri(path.as_str());
            let mut shown = Vec::new();
            for (name, value) in &headers {
                if let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_bytes(value),
                ) {
                    shown.push(format!("{name}: {} bytes", value.len()));
                    builder = builder.header(name, value);
                }
            }
            let Ok(mut req) = builder.body(Body::from(body.clone())) else {
                return Ok(());
            };
            req.extensions_mut().insert(Identity {
                player: player.clone(),
                operator: None,
            });
            let state = AppState::new(Arc::new(store.clone()), ctx.clone()).at(now());
            let answer = runtime.block_on(async {
                let Ok(response) = api::router(state).oneshot(req).await;
                api::read_back(response).await
            });
            check_answer(
                &answer,
                &method,
                &format!("{path} {shown:?} body of {} bytes, player {player:?}", body.len()),
            )
        },
    );
}
