//! Property tests of the HTTP router on arbitrary requests (a short smoke run in the
//! test command; `PROPTEST_CASES=N` for a longer one): no client input produces a 5xx,
//! and every refusal is the `{"error", "message"}` body, its message bounded (input is
//! never echoed whole).

use std::collections::HashMap;

use podium_service::api::{self, ApiContext, ApiRequest};
use podium_service::cursor::CursorKey;
use podium_store::embedded::EmbeddedStore;
use proptest::prelude::*;

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

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// LB-3, GM-5: whatever the method, path, query and identity, the answer is not a
    /// 5xx, and a refusal is the error body naming its kind, with a bounded message.
    #[test]
    fn no_request_gets_a_server_error(req in request()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let store = EmbeddedStore::in_memory().expect("store");
        let ctx = ApiContext::new(CursorKey::random());
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z").expect("instant").to_utc();
        let answer = runtime.block_on(api::handle(&store, &ctx, &req, now));
        prop_assert!(answer.status < 500, "{} {} ?{:?}: {:?}", req.method, req.path, req.raw_query, answer);
        if answer.status >= 400 && req.method != "HEAD" {
            let kind = answer.body["error"].as_str();
            let message = answer.body["message"].as_str();
            prop_assert!(kind.is_some() && message.is_some(), "{} {}: {:?}", req.method, req.path, answer);
            prop_assert!(message.map_or(0, str::len) < 1_000, "{:?}", answer.body);
        }
    }
}
