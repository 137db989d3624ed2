//! The mobile app's HTTP API, independent of how requests arrive (API Gateway
//! through `lambda_http`, or the local server). The caller is the verified JWT's
//! `sub` (GM-1), never a path, query or body value.
//!
//! | route | answer |
//! |---|---|
//! | `GET /v1/leaderboards/{board}?limit=1..100&cursor=C` | a [`Page`](crate::boards::Page) (LB-3) |
//! | `GET /v1/leaderboards/{board}/me?neighbours=0..25` | [`AroundMe`](crate::boards::AroundMe) (LB-4) |
//! | `GET /v1/me` | the caller's Seega [`Profile`](crate::boards::Profile) (SG-12) |
//! | `GET /v1/me/arenas/{arena_id}` | an Arena's result for one of its players (MJ-11) |
//! | `GET /v1/me/tournament-tables/{table_id}` | a tournament table's TP for one of its players (MJ-13 … MJ-15) |
//! | `GET /v1/tournaments/{tournament_id}` | a tournament's settings and status; once final, its winners (MJ-16) |
//! | `GET /v1/me/mahjong-rivals` | the caller's Mahjong Rivals [`MahjongProfile`](crate::rewards::MahjongProfile): points, Jokers, trophies, place on each board (MJ-6, MJ-17, MJ-20) |
//! | `GET /v1/me/matches/{match_id}` | the caller's [`MatchResult`](podium_rules::seega::result::MatchResult) |
//! | `POST /v1/games/mahjong/daily-bonus` | the caller's claim of today's bonus, [`BonusAnswer`](crate::rewards::BonusAnswer) (MJ-18) |
//! | `GET /v1/ad-callbacks/admob?…` | an AdMob SSV callback (no JWT: its signature authenticates it), [`AdAnswer`](crate::rewards::AdAnswer) (SG-10, MJ-19) |
//! | `GET /v1/ad-callbacks/unity-ads?…` | a Unity Ads S2S callback (HMAC-MD5), answered `1` |
//!
//! Errors answer `{"error": KIND, "message": TEXT}` with 400, 401, 403, 404, 405, 409
//! or 500/503; a store failure's detail goes to the log, never to the body.

use std::collections::HashMap;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use percent_encoding::percent_decode_str;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::period::{Period, PeriodClock};
use podium_store::{BoardStore, ItemStore, PeriodStore, SettleStore, StoreError};
use serde::Serialize;
use serde_json::Value;

use crate::boards::{self, DEFAULT_NEIGHBOURS, DEFAULT_PAGE, MAX_NEIGHBOURS, MAX_PAGE};
use crate::cursor::{Cursor, CursorKey};
use crate::error::ServiceError;
use crate::rendered::RenderedPages;
use crate::rewards::{self, Ads};
use crate::snapshot_reads::{self, SnapshotCache};

/// What every request of one process shares: the snapshot pointer cache, the top
/// pages rendered from the current snapshots, the key that signs and checks page
/// cursors, and (where ad callbacks are answered) the verifier keys and the ad-unit
/// catalogue.
pub struct ApiContext {
    pub cache: SnapshotCache,
    pub pages: RenderedPages,
    pub cursors: CursorKey,
    pub ads: Option<Ads>,
}

impl ApiContext {
    pub fn new(cursors: CursorKey) -> Self {
        ApiContext {
            cache: SnapshotCache::default(),
            pages: RenderedPages::default(),
            cursors,
            ads: None,
        }
    }

    /// This context, answering ad callbacks with `ads`.
    pub fn with_ads(mut self, ads: Ads) -> Self {
        self.ads = Some(ads);
        self
    }
}

/// A request as the API sees it.
#[derive(Debug, Clone, Default)]
pub struct ApiRequest {
    pub method: String,
    /// The path without stage prefix, e.g. `/v1/leaderboards/seega`.
    pub path: String,
    /// Query parameters (the last value of a name given twice).
    pub query: HashMap<String, String>,
    /// The query string exactly as received (API Gateway's `rawQueryString`), for
    /// callbacks whose signature covers it.
    pub raw_query: Option<String>,
    /// The verified JWT's `sub`; `None` when no verified identity came with the request.
    pub player: Option<String>,
}

/// An answer ready to send: status, content type and the body's bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub status: u16,
    /// `application/json`, or `text/plain; charset=utf-8` for Unity Ads' `1`.
    pub content_type: &'static str,
    pub body: Bytes,
    /// The `Allow` header of a 405: the method the route takes.
    pub allow: Option<&'static str>,
}

/// The JSON content type.
pub const JSON: &str = "application/json";
/// The plain-text content type.
pub const TEXT: &str = "text/plain; charset=utf-8";

/// An answer read back as JSON, for tests and tools: status and JSON body, or a
/// plain-text body when `text` is set.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiResponse {
    pub status: u16,
    pub body: Value,
    /// A plain-text body instead of `body` (Unity Ads expects `1`).
    pub text: Option<String>,
    /// The `Allow` header of a 405: the method the route takes.
    pub allow: Option<&'static str>,
}

impl From<Rendered> for ApiResponse {
    fn from(r: Rendered) -> Self {
        let (body, text) = if r.content_type == JSON {
            (serde_json::from_slice(&r.body).unwrap_or(Value::Null), None)
        } else {
            (Value::Null, Some(String::from_utf8_lossy(&r.body).into_owned()))
        };
        ApiResponse {
            status: r.status,
            body,
            text,
            allow: r.allow,
        }
    }
}

/// What a route answers: a JSON body already serialised, or plain text.
enum Reply {
    Json(Bytes),
    Text(String),
}

/// `v` serialised straight to JSON bytes (no intermediate `Value`).
fn json_bytes<T: Serialize + ?Sized>(v: &T) -> Bytes {
    // Serialising the API's own types cannot fail (no maps with non-string keys).
    serde_json::to_vec(v).map(Bytes::from).unwrap_or_default()
}

fn json<T: Serialize + ?Sized>(v: &T) -> Reply {
    Reply::Json(json_bytes(v))
}

/// Answers one request from the current snapshot when the board has one, else the
/// live board; `now` is the read instant reported as `as_of` for live reads.
pub async fn respond<S: BoardStore + SettleStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    ctx: &ApiContext,
    req: &ApiRequest,
    now: DateTime<Utc>,
) -> Rendered {
    match route(store, ctx, req, now).await {
        Ok(Reply::Json(body)) => Rendered {
            status: 200,
            content_type: JSON,
            body,
            allow: None,
        },
        Ok(Reply::Text(text)) => Rendered {
            status: 200,
            content_type: TEXT,
            body: Bytes::from(text),
            allow: None,
        },
        Err(e) => error_response(&e),
    }
}

/// [`respond`], its answer read back as JSON (tests and tools).
pub async fn handle<S: BoardStore + SettleStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    ctx: &ApiContext,
    req: &ApiRequest,
    now: DateTime<Utc>,
) -> ApiResponse {
    respond(store, ctx, req, now).await.into()
}

/// The response for an error: status by kind; the message only for the caller's own mistakes.
pub fn error_response(e: &ServiceError) -> Rendered {
    let (status, message) = match e {
        ServiceError::BadRequest { .. } | ServiceError::Invalid(_) => (400, e.to_string()),
        ServiceError::Unauthenticated => (401, e.to_string()),
        ServiceError::Forbidden(_) => (403, e.to_string()),
        ServiceError::NotFound(_) => (404, e.to_string()),
        ServiceError::MethodNotAllowed { .. } => (405, e.to_string()),
        ServiceError::Conflict { .. } => (409, e.to_string()),
        ServiceError::Contended { .. } => (503, "busy, try again".to_string()),
        ServiceError::Store(err @ StoreError::Unavailable { .. }) => {
            tracing::warn!(error = %err, "store unavailable");
            (503, "the store is not answering; try again shortly".to_string())
        }
        ServiceError::Store(err @ StoreError::OutOfLimits(_)) => {
            tracing::warn!(error = %err, "request outside the store's limits");
            (400, "a parameter is outside what the store accepts".to_string())
        }
        ServiceError::Store(err) => {
            tracing::error!(error = %err, "store failure");
            (500, "internal error".to_string())
        }
    };
    #[derive(Serialize)]
    struct Refusal<'a> {
        error: &'a str,
        message: &'a str,
    }
    Rendered {
        status,
        content_type: JSON,
        body: json_bytes(&Refusal {
            error: e.kind(),
            message: &message,
        }),
        allow: match e {
            ServiceError::MethodNotAllowed { allowed } => Some(allowed),
            _ => None,
        },
    }
}

/// The routes, with the method each takes.
enum Route<'a> {
    Board(&'a str),
    BoardMe(&'a str),
    Me,
    MahjongMe,
    MyMatch(&'a str),
    MyArena(&'a str),
    MyTable(&'a str),
    Tournament(&'a str),
    DailyBonus,
    AdmobCallback,
    UnityCallback,
}

impl Route<'_> {
    fn method(&self) -> &'static str {
        match self {
            Route::DailyBonus => "POST",
            _ => "GET",
        }
    }
}

/// Every route this API answers, as API Gateway names it (method, path with
/// `{parameters}`): what `template.yaml` must route to a function.
pub const ROUTES: [(&str, &str); 11] = [
    ("GET", "/v1/leaderboards/{board}"),
    ("GET", "/v1/leaderboards/{board}/me"),
    ("GET", "/v1/me"),
    ("GET", "/v1/me/mahjong-rivals"),
    ("GET", "/v1/me/matches/{match_id}"),
    ("GET", "/v1/me/arenas/{arena_id}"),
    ("GET", "/v1/me/tournament-tables/{table_id}"),
    ("GET", "/v1/tournaments/{tournament_id}"),
    ("POST", "/v1/games/mahjong/daily-bonus"),
    ("GET", "/v1/ad-callbacks/admob"),
    ("GET", "/v1/ad-callbacks/unity-ads"),
];

fn route_of<'a>(segments: &[&'a str]) -> Option<Route<'a>> {
    Some(match segments {
        ["v1", "leaderboards", board] => Route::Board(board),
        ["v1", "leaderboards", board, "me"] => Route::BoardMe(board),
        ["v1", "me"] => Route::Me,
        ["v1", "me", "mahjong-rivals"] => Route::MahjongMe,
        ["v1", "me", "matches", id] => Route::MyMatch(id),
        ["v1", "me", "arenas", id] => Route::MyArena(id),
        ["v1", "me", "tournament-tables", id] => Route::MyTable(id),
        ["v1", "tournaments", id] => Route::Tournament(id),
        ["v1", "games", "mahjong", "daily-bonus"] => Route::DailyBonus,
        ["v1", "ad-callbacks", "admob"] => Route::AdmobCallback,
        ["v1", "ad-callbacks", "unity-ads"] => Route::UnityCallback,
        _ => return None,
    })
}

async fn route<S: BoardStore + SettleStore + ItemStore + PeriodStore + ?Sized>(
    store: &S,
    ctx: &ApiContext,
    req: &ApiRequest,
    now: DateTime<Utc>,
) -> Result<Reply, ServiceError> {
    let decoded: Vec<String> = req
        .path
        .trim_matches('/')
        .split('/')
        .map(|s| percent_decode_str(s).decode_utf8_lossy().into_owned())
        .collect();
    let segments: Vec<&str> = decoded.iter().map(String::as_str).collect();
    let Some(route) = route_of(&segments) else {
        return Err(ServiceError::NotFound(format!("route {}", req.path)));
    };
    if req.method != route.method() {
        return Err(ServiceError::MethodNotAllowed {
            allowed: route.method(),
        });
    }
    // Ad callbacks authenticate themselves by their signature.
    let ads = || {
        ctx.ads
            .as_ref()
            .ok_or_else(|| ServiceError::NotFound("ad callbacks are not answered here".into()))
    };
    let raw_query = req.raw_query.as_deref().unwrap_or("");
    let caller = || {
        req.player
            .as_deref()
            .filter(|p| podium_rules::record::is_valid_id(p))
            .ok_or(ServiceError::Unauthenticated)
    };
    Ok(match route {
        Route::AdmobCallback => json(&rewards::admob_callback(store, ads()?, raw_query, now).await?),
        Route::UnityCallback => {
            rewards::unity_callback(store, ads()?, raw_query, now).await?;
            return Ok(Reply::Text(podium_ads::unity::SUCCESS_BODY.to_string()));
        }
        Route::Board(board) => {
            caller()?;
            let (board, clock) = board_in_period(req, board, now)?;
            let limit = int_param(req, "limit", DEFAULT_PAGE, 1, MAX_PAGE)?;
            let cursor = match req.query.get("cursor") {
                Some(c) => Some(ctx.cursors.open(&board, c)?),
                None => None,
            };
            // The top of the current snapshot, rendered once per snapshot and revision
            // (LB-5; a deletion raises the revision, GM-6).
            let mut render_key = None;
            if cursor.is_none() {
                if let Some(current) = ctx.cache.current(store, &board).await? {
                    if let Some(body) = ctx.pages.get(&board, &current.render_key(), limit, &clock) {
                        return Ok(Reply::Json(body));
                    }
                    render_key = Some((current.id.clone(), current.render_key()));
                }
            }
            // The current snapshot when there is one, or the snapshot a cursor pins;
            // the live board before the first snapshot.
            let live = matches!(cursor, Some(Cursor::Live { .. }));
            if !live {
                let top = cursor.is_none();
                if let Some(page) = snapshot_reads::top_page(
                    store,
                    &ctx.cache,
                    &ctx.cursors,
                    &board,
                    limit,
                    cursor.clone(),
                    now,
                )
                .await?
                {
                    let body = json_bytes(&Clocked {
                        body: &page,
                        period: &clock,
                    });
                    if let (true, Some(snapshot)) = (top, page.snapshot.as_deref()) {
                        if let Some((_, key)) = render_key.as_ref().filter(|(id, _)| id == snapshot) {
                            ctx.pages.put(&board, key, limit, &clock, body.clone());
                        }
                    }
                    return Ok(Reply::Json(body));
                }
            }
            let page = boards::top_page(store, &ctx.cursors, &board, limit, cursor, now).await?;
            json(&Clocked {
                body: &page,
                period: &clock,
            })
        }
        Route::BoardMe(board) => {
            let player = caller()?;
            let (board, clock) = board_in_period(req, board, now)?;
            let n = int_param(req, "neighbours", DEFAULT_NEIGHBOURS, 0, MAX_NEIGHBOURS)?;
            let me = match snapshot_reads::around_me(store, &ctx.cache, &board, player, n, now).await? {
                Some(me) => me,
                None => boards::around_me(store, &board, player, n, now).await?,
            };
            json(&Clocked {
                body: &me,
                period: &clock,
            })
        }
        Route::Me => json(&boards::profile(store, Game::Seega, caller()?).await?),
        Route::MahjongMe => {
            let player = caller()?;
            let mut places = Vec::new();
            for def in podium_rules::board::BOARDS
                .iter()
                .filter(|b| b.game == Game::MahjongRivals)
            {
                let board = def.in_period(&def.period_at(now));
                let me = match snapshot_reads::around_me(store, &ctx.cache, &board, player, 0, now).await {
                    Ok(Some(me)) => Some(me),
                    Ok(None) | Err(ServiceError::NotFound(_)) => {
                        match boards::around_me(store, &board, player, 0, now).await {
                            Ok(me) => Some(me),
                            Err(ServiceError::NotFound(_)) => None,
                            Err(e) => return Err(e),
                        }
                    }
                    Err(e) => return Err(e),
                };
                places.push(boards::BoardPlace::new(&board, me.map(|m| m.me)));
            }
            json(&rewards::mahjong_profile(store, player, places).await?)
        }
        Route::MyMatch(id) => json(&boards::match_result(store, caller()?, id).await?),
        Route::MyArena(id) => json(&crate::tournaments::arena_result(store, caller()?, id).await?),
        Route::MyTable(id) => json(&crate::tournaments::table_result(store, caller()?, id).await?),
        Route::Tournament(id) => {
            caller()?;
            json(&crate::tournaments::tournament(store, id).await?)
        }
        Route::DailyBonus => json(&rewards::claim_daily_bonus(store, caller()?, now).await?),
    })
}

/// The board named in the path, in the period of the `period` parameter (LB-5; the
/// current period by default), with its LB-6 clock.
fn board_in_period(
    req: &ApiRequest,
    board: &str,
    now: DateTime<Utc>,
) -> Result<(BoardRef, PeriodClock), ServiceError> {
    let def = boards::board_named(board)?;
    let period = match req.query.get("period") {
        Some(id) => Period::parse(def.period, def.zone, id).map_err(|e| ServiceError::BadRequest {
            field: "period",
            message: e.message,
        })?,
        None => def.period_at(now),
    };
    // The requested name: a family's board (a level's time ranking) is named by it.
    Ok((BoardRef::new(board, period.id.clone()), def.clock(&period, now)))
}

/// A board response with its LB-6 period clock as `period`.
#[derive(Serialize)]
struct Clocked<'a, T: Serialize> {
    #[serde(flatten)]
    body: &'a T,
    period: &'a PeriodClock,
}

fn int_param(
    req: &ApiRequest,
    field: &'static str,
    default: usize,
    min: usize,
    max: usize,
) -> Result<usize, ServiceError> {
    match req.query.get(field) {
        None => Ok(default),
        Some(raw) => match raw.parse::<usize>() {
            Ok(v) if (min..=max).contains(&v) && raw.bytes().all(|c| c.is_ascii_digit()) => Ok(v),
            _ => Err(ServiceError::BadRequest {
                field,
                message: format!("must be a whole number from {min} to {max}"),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_rules::record::MatchRecord;
    use podium_store::embedded::EmbeddedStore;

    fn get(path: &str, player: Option<&str>) -> ApiRequest {
        ApiRequest {
            method: "GET".into(),
            path: path.into(),
            query: HashMap::new(),
            player: player.map(str::to_string),
            raw_query: None,
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
        crate::score::score_match(&store, &record, now, &Default::default())
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
        crate::period_boards::credit(
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
        crate::period_boards::credit(
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
        crate::period_boards::freeze_ended(&store, weekly, at("2027-01-05T00:00:00Z"))
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
        let err = crate::period_boards::credit(&store, weekly, "bob", -5, now, now, "s-1")
            .await
            .unwrap_err();
        assert!(
            matches!(err, ServiceError::BadRequest { field: "points", .. }),
            "{err:?}"
        );
    }

    /// Every route of [`ROUTES`] is answered, with its method.
    #[test]
    fn every_listed_route_resolves() {
        for (method, path) in ROUTES {
            let segments: Vec<&str> = path
                .trim_matches('/')
                .split('/')
                .map(|s| if s.starts_with('{') { "x" } else { s })
                .collect();
            let route = route_of(&segments).unwrap_or_else(|| panic!("{path} is not routed"));
            assert_eq!(route.method(), method, "{path}");
        }
    }
}
