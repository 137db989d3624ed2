//! The handlers through the router: status, body and headers of each route.

use crate::api::{handle, ApiContext, ApiRequest};
use crate::boards::cursor::Cursor;
use crate::boards::cursor::CursorKey;
use crate::error::ServiceError;
use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::seega::record::MatchRecord;
use podium_store::embedded::EmbeddedStore;
use std::collections::HashMap;

fn get(path: &str, player: Option<&str>) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: HashMap::new(),
        player: player.map(str::to_string),
        raw_query: None,
        operator: None,
    }
}

#[tokio::test]
async fn routes_decode_ids_and_refuse_other_methods() {
    let store = EmbeddedStore::in_memory().unwrap();
    let cache = ApiContext::new(CursorKey::random());
    let record = serde_json::json!({
        "match_id": "m:colon.1", "game": "seega",
        "started_at": "2026-11-30T10:00:00Z", "ended_at": "2026-11-30T10:05:00Z",
        "players": [
            {"player_id": "auth0|alice", "moves": 20, "stones_on_board": 24, "stones_in_hand": 0},
            {"player_id": "bob", "moves": 20, "stones_on_board": 0, "stones_in_hand": 0}],
        "stones_placed": 48, "outcome": {"result": "win", "winner": "auth0|alice", "reason": "completed"}
    });
    let record = MatchRecord::from_json(record.to_string().as_bytes()).unwrap();
    let now = DateTime::parse_from_rfc3339("2027-01-01T00:00:00Z")
        .unwrap()
        .to_utc();
    crate::games::seega::score_match(&store, &record, now, &Default::default())
        .await
        .unwrap();
    let ok = handle(
        &store,
        &cache,
        &get("/v1/me/matches/m%3Acolon.1", Some("auth0|alice")),
        now,
    )
    .await;
    assert_eq!(ok.status, 200, "{:?}", ok.body);
    assert_eq!(ok.body["players"][0]["points_shown"], "+311");
    let mut post = get("/v1/me", Some("bob"));
    post.method = "POST".into();
    assert_eq!(handle(&store, &cache, &post, now).await.status, 405);
    assert_eq!(
        handle(&store, &cache, &get("/v1/nothing", Some("bob")), now)
            .await
            .status,
        404
    );
    assert_eq!(
        handle(&store, &cache, &get("/v1/me", Some("bad id!")), now)
            .await
            .status,
        401
    );
    assert_eq!(
        handle(&store, &cache, &get("/v1/leaderboards/chess", Some("bob")), now)
            .await
            .status,
        404
    );
}

/// LB-5 / LB-6: a past period is readable by its id from its frozen snapshot, and
/// every board response carries its period clock.
#[tokio::test]
async fn past_periods_by_id_with_their_clock() {
    let store = EmbeddedStore::in_memory().unwrap();
    let cache = ApiContext::new(CursorKey::random());
    let weekly = podium_rules::board::board_def("mahjong-weekly").unwrap();
    let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
    crate::boards::periods::credit(
        &store,
        weekly,
        "alice",
        30,
        at("2027-01-02T12:00:00Z"),
        at("2027-01-05T00:00:00Z"),
        "b1",
    )
    .await
    .unwrap();
    crate::boards::periods::credit(
        &store,
        weekly,
        "bob",
        10,
        at("2027-01-02T13:00:00Z"),
        at("2027-01-05T00:00:00Z"),
        "b2",
    )
    .await
    .unwrap();
    crate::boards::periods::freeze_ended(&store, weekly, at("2027-01-05T00:00:00Z"))
        .await
        .unwrap();
    let now = at("2027-01-05T00:00:00Z");
    let mut req = get("/v1/leaderboards/mahjong-weekly", Some("bob"));
    req.query.insert("period".into(), "2026-W53".into());
    let page = handle(&store, &cache, &req, now).await;
    assert_eq!(page.status, 200, "{:?}", page.body);
    assert_eq!(page.body["snapshot"], "final");
    assert_eq!(page.body["entries"][0]["player_id"], "alice");
    assert!(
        page.body["entries"][0].get("badge").is_none(),
        "badges are Seega's"
    );
    assert_eq!(page.body["period"]["period"], "2026-W53");
    assert_eq!(page.body["period"]["zone"], "Europe/Bucharest");
    assert_eq!(page.body["period"]["end"], "2027-01-03T22:00:00Z");
    req.path = "/v1/leaderboards/mahjong-weekly/me".into();
    let me = handle(&store, &cache, &req, now).await;
    assert_eq!(
        (me.body["me"]["rank"].as_u64(), me.body["snapshot"].as_str()),
        (Some(2), Some("final"))
    );
    // The current week: nothing yet, the live board, and its clock.
    let current = handle(
        &store,
        &cache,
        &get("/v1/leaderboards/mahjong-weekly", Some("bob")),
        now,
    )
    .await;
    assert_eq!(current.body["period"]["period"], "2027-W01");
    assert_eq!(current.body["entries"].as_array().map(Vec::len), Some(0));
    req.path = "/v1/leaderboards/mahjong-weekly".into();
    req.query.insert("period".into(), "2026-W54".into());
    let bad = handle(&store, &cache, &req, now).await;
    assert_eq!(bad.status, 400);
    assert!(bad.body["message"].as_str().unwrap().starts_with("period:"));
}

/// A cursor of a snapshot that no longer exists is refused, naming the parameter;
/// negative points never reach a period board.
#[tokio::test]
async fn gone_snapshots_and_negative_credits_are_refused() {
    let store = EmbeddedStore::in_memory().unwrap();
    let cache = ApiContext::new(CursorKey::random());
    let now = DateTime::parse_from_rfc3339("2027-01-05T00:00:00Z")
        .unwrap()
        .to_utc();
    let gone = Cursor::Snapshot {
        snapshot: "20200101T000000Z".into(),
        page: podium_store::BoardKey::first_of_value(10).encode(),
        offset: 50,
        position: 50,
        page_size: 100,
        entries: 500,
        as_of_ms: 0,
    };
    let mut req = get("/v1/leaderboards/seega", Some("bob"));
    req.query.insert(
        "cursor".into(),
        cache.cursors.issue(&BoardRef::all_time("seega"), gone),
    );
    let answer = handle(&store, &cache, &req, now).await;
    assert_eq!(answer.status, 400);
    assert!(answer.body["message"].as_str().unwrap().starts_with("cursor:"));
    let weekly = podium_rules::board::board_def("mahjong-weekly").unwrap();
    let err = crate::boards::periods::credit(&store, weekly, "bob", -5, now, now, "s-1")
        .await
        .unwrap_err();
    assert!(
        matches!(err, ServiceError::BadRequest { field: "points", .. }),
        "{err:?}"
    );
}

/// Every documented route is routed with its method; another method is 405 with
/// `Allow`, and an unknown path is 404, each with the error body.
#[tokio::test]
async fn every_documented_route_is_routed() {
    let store = EmbeddedStore::in_memory().unwrap();
    let ctx = ApiContext::new(CursorKey::random());
    let now = Utc::now();
    let routes = crate::api::routes();
    assert!(routes.len() >= 12, "{routes:?}");
    for (method, template) in &routes {
        let path = template.replace("{board}", "seega").replace(['{', '}'], "");
        let mut req = get(&path, Some("bob"));
        req.method = method.clone();
        let answer = handle(&store, &ctx, &req, now).await;
        let unrouted = answer.body["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("not found: route"));
        assert!(!unrouted && answer.status != 405, "{method} {path}: {answer:?}");
        // A method the path does not take.
        let taken: Vec<&str> = routes
            .iter()
            .filter(|(_, p)| p == template)
            .map(|(m, _)| m.as_str())
            .collect();
        req.method = ["PATCH", "DELETE", "POST", "PUT", "GET"]
            .into_iter()
            .find(|m| !taken.contains(m))
            .unwrap_or("PATCH")
            .into();
        let other = handle(&store, &ctx, &req, now).await;
        assert_eq!(other.status, 405, "{path}");
        assert_eq!(other.body["error"], "method_not_allowed");
        assert!(
            other
                .allow
                .as_deref()
                .is_some_and(|a| a.contains(method.as_str())),
            "{other:?}"
        );
    }
}

/// The test clock is `podium serve --test-clock`'s alone: the router every Lambda
/// function serves has no such route (404 for any method, as an unknown path), and the
/// OpenAPI document names none.
#[tokio::test]
async fn the_deployed_router_has_no_test_clock() {
    let store = EmbeddedStore::in_memory().unwrap();
    let ctx = ApiContext::new(CursorKey::random());
    for method in ["GET", "POST"] {
        let mut req = get("/v1/dev/clock", Some("bob"));
        req.method = method.into();
        let answer = handle(&store, &ctx, &req, Utc::now()).await;
        assert_eq!(answer.status, 404, "{method}: {answer:?}");
    }
    assert!(crate::api::routes()
        .iter()
        .all(|(_, p)| !p.starts_with("/v1/dev")));
}

/// A fresh store, an API context and the instant the refusal cases below run at.
fn refusal_case() -> (EmbeddedStore, ApiContext, DateTime<Utc>) {
    let now = DateTime::parse_from_rfc3339("2027-01-01T00:00:00Z")
        .unwrap()
        .to_utc();
    (
        EmbeddedStore::in_memory().unwrap(),
        ApiContext::new(CursorKey::random()),
        now,
    )
}

/// `method path` by `bob` with `body` as its JSON body.
async fn with_body(
    (store, ctx, now): &(EmbeddedStore, ApiContext, DateTime<Utc>),
    method: &str,
    path: &str,
    body: impl Into<bytes::Bytes>,
) -> crate::api::ApiResponse {
    let mut req = get(path, Some("bob"));
    req.method = method.into();
    crate::api::handle_with_body(
        store,
        ctx,
        &req,
        &[("content-type", "application/json")],
        body.into(),
        *now,
    )
    .await
}

/// GM-5: a query parameter the route does not take is refused naming it (and the
/// ones the route takes), before the route reads anything; a documented one passes.
#[tokio::test]
async fn gm5_a_parameter_the_route_does_not_take_is_refused() {
    let (store, ctx, now) = refusal_case();
    let mut misspelt = get("/v1/leaderboards/seega", Some("bob"));
    misspelt.query.insert("limt".into(), "5".into());
    let answer = handle(&store, &ctx, &misspelt, now).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    let message = answer.body["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("query: unknown parameter `limt`") && message.contains("limit"),
        "{message}"
    );
    let mut none_taken = get("/v1/me", Some("bob"));
    none_taken.query.insert("game".into(), "seega".into());
    let answer = handle(&store, &ctx, &none_taken, now).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(answer.body["message"]
        .as_str()
        .unwrap_or_default()
        .contains("takes no query parameters"));
    let mut documented = get("/v1/leaderboards/seega", Some("bob"));
    documented.query.insert("limit".into(), "5".into());
    assert_eq!(handle(&store, &ctx, &documented, now).await.status, 200);
}

/// A body over the 64 KiB the routes read is a 413 naming `body` (`too_large`), not a
/// 400; nothing is written.
#[tokio::test]
async fn a_body_over_the_cap_is_413() {
    let case = refusal_case();
    let big = format!(
        r#"{{"name": "{}"}}"#,
        "a".repeat(crate::api::extract::MAX_BODY + 1)
    );
    let answer = with_body(&case, "PUT", "/v1/me/profile", big).await;
    assert_eq!(answer.status, 413, "{}", answer.body);
    assert_eq!(answer.body["error"], "too_large");
    assert!(answer.body["message"]
        .as_str()
        .unwrap_or_default()
        .starts_with("body:"));
    let (store, ctx, now) = &case;
    let profile = handle(store, ctx, &get("/v1/me/profile", Some("bob")), *now).await;
    assert!(
        !profile.body.to_string().contains("aaaaaaaa"),
        "nothing written: {}",
        profile.body
    );
}

/// Every 503 (contended, the store not answering) tells the caller when to try again.
#[test]
fn every_503_carries_retry_after() {
    use axum::response::IntoResponse;
    for e in [
        ServiceError::Contended { attempts: 25 },
        ServiceError::Store(podium_store::StoreError::Unavailable {
            operation: "GetItem",
            message: "timeout".into(),
        }),
    ] {
        let response = crate::api::ApiError(e).into_response();
        assert_eq!(response.status(), 503);
        assert_eq!(
            response
                .headers()
                .get(axum::http::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok()),
            Some(crate::api::error::RETRY_AFTER_SECS)
        );
    }
}

/// GM-5: a body sent to a route that reads none (the daily bonus, a follow) is
/// refused naming `body`, not ignored (over the 64 KiB cap, 413); the route is not
/// run. An empty object is no body.
#[tokio::test]
async fn gm5_a_body_the_route_does_not_take_is_refused() {
    let case = refusal_case();
    for (method, path) in [
        ("POST", "/v1/games/mahjong-rivals/daily-bonus"),
        ("PUT", "/v1/me/follows/seega"),
    ] {
        let big = with_body(
            &case,
            method,
            path,
            format!(r#"{{"pad": "{}"}}"#, "a".repeat(70_000)),
        )
        .await;
        assert_eq!(big.status, 413, "{path}: {}", big.body);
        let forged = with_body(&case, method, path, &br#"{"player_id": "mallory"}"#[..]).await;
        assert_eq!(forged.status, 400, "{path}: {}", forged.body);
        assert!(
            forged.body["message"]
                .as_str()
                .unwrap_or_default()
                .starts_with("body: this route reads no body"),
            "{path}: {}",
            forged.body
        );
    }
    let empty_object = with_body(&case, "POST", "/v1/games/mahjong-rivals/daily-bonus", &b"{}"[..]).await;
    assert_eq!(
        empty_object.status, 200,
        "no claim was made before: {}",
        empty_object.body
    );
}

/// An empty body where a route reads one is named as such (not a parser's "EOF").
#[tokio::test]
async fn an_empty_body_is_named() {
    let answer = with_body(&refusal_case(), "PUT", "/v1/me/profile", &b" "[..]).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert_eq!(
        answer.body["message"],
        "body: empty: this route reads a JSON object"
    );
}

/// OP-5: the audit trail's refusals name what to fix: no filter names the query, a
/// board that does not exist or a period that is not the board's names `board`, an
/// internal owner as the player is GM-5's.
#[tokio::test]
async fn op5_audit_refusals_name_what_to_fix() {
    let (store, ctx, now) = refusal_case();
    let audit = |query: &[(&str, &str)]| ApiRequest {
        method: "GET".into(),
        path: "/v1/operator/audit".into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        raw_query: None,
        player: None,
        operator: Some("support-1".into()),
    };
    for (query, starts) in [
        (&[][..], "query: give exactly one of"),
        (
            &[("board", "mahjong-weekly")][..],
            "board: a board and one of its periods",
        ),
        (&[("board", "nosuch@2026-W48")][..], "board: no board `nosuch`"),
        (
            &[("board", "mahjong-weekly@2026-12-01")][..],
            "board: not a period of `mahjong-weekly`",
        ),
        (
            &[("player", "@mahjong-league:2026-W48:t0-s0-n0")][..],
            "player (GM-5)",
        ),
    ] {
        let answer = handle(&store, &ctx, &audit(query), now).await;
        assert_eq!(answer.status, 400, "{query:?}: {}", answer.body);
        let message = answer.body["message"].as_str().unwrap_or_default();
        assert!(message.starts_with(starts), "{query:?}: {message}");
    }
    let ok = handle(&store, &ctx, &audit(&[("board", "mahjong-weekly@2026-W48")]), now).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
}

/// GM-5 (issue 47): one game id on every surface. The daily bonus is claimed at
/// `/v1/games/mahjong-rivals/daily-bonus`; its first route, `/v1/games/mahjong/…`, is
/// a deprecated alias that makes the same claim and gives the same answer.
#[tokio::test]
async fn the_daily_bonus_alias_is_the_same_claim() {
    let case = refusal_case();
    let first = with_body(&case, "POST", "/v1/games/mahjong-rivals/daily-bonus", &b""[..]).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body["claimed_now"], true);
    let again = with_body(&case, "POST", "/v1/games/mahjong/daily-bonus", &b""[..]).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(
        again.body["claimed_now"], false,
        "the alias answers today's claim"
    );
    assert_eq!(again.body["day"], first.body["day"]);
    assert_eq!(again.body["balance_after"], first.body["balance_after"]);
}
