//! One handler per route: take the request's parts, call the core, map the answer.
//! Each is annotated with its OpenAPI operation ([`super::docs`] collects them).

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::period::{Period, PeriodClock};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use super::error::{ApiError, ErrorBody};
use super::extract::{int_param, Authenticated, Caller, OperatorCaller, Params, PathId, PathPair};
use super::AppState;
use crate::boards::{self, DEFAULT_NEIGHBOURS, DEFAULT_PAGE, MAX_NEIGHBOURS, MAX_PAGE};
use crate::cursor::Cursor;
use crate::error::ServiceError;
use crate::inbox;
use crate::leagues;
use crate::point_history;
use crate::rewards::{self, Ads};
use crate::snapshot_reads;

/// The JSON content type.
pub const JSON: &str = "application/json";
/// The plain-text content type (Unity Ads' `1`).
pub const TEXT: &str = "text/plain; charset=utf-8";

type Answer = Result<Response, ApiError>;

/// A JSON body already serialised.
struct JsonBytes(Bytes);

impl IntoResponse for JsonBytes {
    fn into_response(self) -> Response {
        ([(header::CONTENT_TYPE, HeaderValue::from_static(JSON))], self.0).into_response()
    }
}

/// `v` serialised straight to JSON bytes (no intermediate `Value`).
fn json_bytes<T: Serialize + ?Sized>(v: &T) -> Bytes {
    // Serialising the API's own types cannot fail (no maps with non-string keys).
    serde_json::to_vec(v).map(Bytes::from).unwrap_or_default()
}

fn json<T: Serialize + ?Sized>(v: &T) -> Answer {
    Ok(JsonBytes(json_bytes(v)).into_response())
}

/// The query of a board page (LB-3, LB-5).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Entries per page, 1 … 100 (default 50).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100, example = 10)]
    limit: Option<String>,
    /// The `next_cursor` of the previous page: opaque and signed; a cursor of another
    /// board, period or server key is refused.
    #[param(value_type = Option<String>)]
    cursor: Option<String>,
    /// A period id of the board's kind (`all`, `2026-11-30`, `2026-W49`); the current
    /// period by default. A past period is read from its frozen snapshot (LB-5).
    #[param(value_type = Option<String>, example = "all")]
    period: Option<String>,
}

/// The query of an around-me read (LB-4).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AroundQuery {
    /// Entries each side of the caller, 0 … 25 (default 5).
    #[param(value_type = Option<u32>, minimum = 0, maximum = 25, example = 2)]
    neighbours: Option<String>,
    /// A period id of the board's kind; the current period by default.
    #[param(value_type = Option<String>, example = "all")]
    period: Option<String>,
}

/// The query of a point-history page (GM-4).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// The game: `seega`, `dots-and-boxes`, `minesweeper` or `mahjong-rivals`.
    #[param(value_type = String, example = "seega")]
    game: Option<String>,
    /// Entries per page, 1 … 100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100, example = 20)]
    limit: Option<String>,
    /// The `next_cursor` of the previous page: opaque and signed; a cursor of another
    /// player, game or listing is refused.
    #[param(value_type = Option<String>)]
    cursor: Option<String>,
}

/// A board response with its LB-6 period clock as `period`.
#[derive(Serialize)]
struct Clocked<'a, T: Serialize> {
    #[serde(flatten)]
    body: &'a T,
    period: &'a PeriodClock,
}

/// The board named in the path, in `period` (LB-5; the current period by default),
/// with its LB-6 clock.
fn board_in_period(
    board: &str,
    period: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(BoardRef, PeriodClock), ServiceError> {
    let def = boards::board_named(board)?;
    let period = match period {
        Some(id) => Period::parse(def.period, def.zone, id).map_err(|e| ServiceError::BadRequest {
            field: "period",
            message: e.message,
        })?,
        None => def.period_at(now),
    };
    // The requested name: a family's board (a level's time ranking) is named by it.
    Ok((BoardRef::new(board, period.id.clone()), def.clock(&period, now)))
}

/// A ranked page of a board (LB-3): from the current snapshot when the board has one
/// (its top pages rendered once per snapshot), the snapshot a cursor pins, or the
/// live board before the first snapshot.
#[utoipa::path(
    get,
    path = "/v1/leaderboards/{board}",
    tag = "leaderboards",
    params(
        ("board" = String, Path, description = "A board of LB-1 (`seega`, `dots-and-boxes`, `minesweeper`, `mahjong-amr`, `mahjong-weekly`, `mahjong-daily`) or of a family (`mahjong-level-N`, `mahjong-tournament-{id}`)", example = "seega"),
        PageQuery
    ),
    responses(
        (status = 200, description = "A page of the board, best first, with the period clock (LB-3, LB-6)", body = super::docs::LeaderboardPage,
            example = json!({"board": "seega", "as_of": "2026-11-30T17:18:03.477Z", "snapshot": "20261130T171803Z",
                "entries": [{"rank": 1, "player_id": "p-00007", "value": 2161, "value_shown": "2.1K", "rank_id": "member", "badge": "1 star"},
                            {"rank": 2, "player_id": "p-00002", "value": 1550, "value_shown": "1.5K", "rank_id": "member", "badge": "1 star"}],
                "next_cursor": "eyJiIjoic2VlZ2FAYWxsIi…",
                "period": {"period": "all", "kind": "all_time", "zone": "UTC", "start": null, "end": null, "next_reset": null}})),
        (status = 404, description = "No such board", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: board \"chess\""})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn board_page(
    State(state): State<AppState>,
    _: Authenticated,
    PathId(board): PathId,
    Params(q): Params<PageQuery>,
) -> Answer {
    Ok(JsonBytes(page_body(&state, &board, &q).await?).into_response())
}

/// The JSON body of a page of `board` (players' and operators' routes alike).
async fn page_body(state: &AppState, board: &str, q: &PageQuery) -> Result<Bytes, ServiceError> {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let (board, clock) = board_in_period(board, q.period.as_deref(), now)?;
    let limit = int_param(q.limit.as_deref(), "limit", DEFAULT_PAGE, 1, MAX_PAGE)?;
    let cursor = match q.cursor.as_deref() {
        Some(c) => Some(ctx.cursors.open(&board, c)?),
        None => None,
    };
    // The top of the current snapshot, rendered once per snapshot and revision (LB-5;
    // a deletion raises the revision, GM-6).
    let mut render_key = None;
    if cursor.is_none() {
        if let Some(current) = ctx.cache.current(store, &board).await? {
            if let Some(body) = ctx.pages.get(&board, &current.render_key(), limit, &clock) {
                return Ok(body);
            }
            render_key = Some((current.id.clone(), current.render_key()));
        }
    }
    // The current snapshot when there is one, or the snapshot a cursor pins; the live
    // board before the first snapshot.
    if !matches!(cursor, Some(Cursor::Live { .. })) {
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
            return Ok(body);
        }
    }
    let page = boards::top_page(store, &ctx.cursors, &board, limit, cursor, now).await?;
    Ok(json_bytes(&Clocked {
        body: &page,
        period: &clock,
    }))
}

/// The caller's own entry with neighbours (LB-4).
#[utoipa::path(
    get,
    path = "/v1/leaderboards/{board}/me",
    tag = "leaderboards",
    params(
        ("board" = String, Path, description = "A board of LB-1 or of a family", example = "seega"),
        AroundQuery
    ),
    responses(
        (status = 200, description = "The caller's entry and up to N entries each side (LB-4)", body = super::docs::LeaderboardAroundMe,
            example = json!({"board": "seega", "as_of": "2026-11-30T17:18:03.477Z", "snapshot": "20261130T171803Z",
                "me": {"rank": 9, "player_id": "p-00003", "value": 253, "value_shown": "253", "rank_id": "member", "badge": "1 star"},
                "entries": [{"rank": 8, "player_id": "p-00001", "value": 676, "value_shown": "676", "rank_id": "member", "badge": "1 star"},
                            {"rank": 9, "player_id": "p-00003", "value": 253, "value_shown": "253", "rank_id": "member", "badge": "1 star"},
                            {"rank": 10, "player_id": "p-00009", "value": 252, "value_shown": "252", "rank_id": "member", "badge": "1 star"}],
                "standing": {"rank": 9, "of": 1000, "top_percent": 1,
                    "next_better": {"value": 676, "value_shown": "676", "gap": 423},
                    "top_cutoff": {"top": 100, "value": 212, "value_shown": "212", "gap": 0}},
                "period": {"period": "all", "kind": "all_time", "zone": "UTC", "start": null, "end": null, "next_reset": null}})),
        (status = 404, description = "No such board, or the caller has no entry on it", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: no entry of yours on this board"})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn board_me(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(board): PathId,
    Params(q): Params<AroundQuery>,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let (board, clock) = board_in_period(&board, q.period.as_deref(), now)?;
    let n = int_param(
        q.neighbours.as_deref(),
        "neighbours",
        DEFAULT_NEIGHBOURS,
        0,
        MAX_NEIGHBOURS,
    )?;
    let me = match snapshot_reads::around_me(store, &ctx.cache, &board, &player, n, now).await? {
        Some(me) => me,
        None => boards::around_me(store, &board, &player, n, now).await?,
    };
    json(&Clocked {
        body: &me,
        period: &clock,
    })
}

/// The caller's Seega profile: balance and SG-12 rank.
#[utoipa::path(
    get,
    path = "/v1/me",
    tag = "players",
    responses(
        (status = 200, description = "The caller's Seega balance and SG-12 rank", body = boards::Profile,
            example = json!({"player_id": "p-00003", "game": "seega", "balance": 253, "balance_shown": "253", "rank_id": "member",
                "rank_name_ar": "عضو", "rank_name_en": "Member", "badge": "1 star"})),
        (status = 400, description = "The caller's account was deleted (GM-6)", body = ErrorBody,
            example = json!({"error": "invalid", "message": "caller (GM-6): this account was deleted (or the id is reserved for deleted accounts): nothing is served or recorded for it"})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn me(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    json(&boards::profile(state.store.as_ref(), Game::Seega, &player).await?)
}

/// The caller's Mahjong Rivals profile: points, Jokers, trophies and their place on
/// each Mahjong board now (MJ-6, MJ-17, MJ-20).
#[utoipa::path(
    get,
    path = "/v1/me/mahjong-rivals",
    tag = "players",
    responses(
        (status = 200, description = "Points, Jokers, trophies and places (MJ-6, MJ-17, MJ-20)", body = rewards::MahjongProfile,
            example = json!({"player_id": "m-00001", "points": 96, "points_shown": "96", "jokers": 1,
                "boards": [{"board": "mahjong-amr", "period": "all", "rank": 12, "value": 96, "value_shown": "96"},
                           {"board": "mahjong-weekly", "period": "2026-W49", "rank": 3, "value": 24, "value_shown": "24"},
                           {"board": "mahjong-daily", "period": "2026-11-30", "value": 0, "value_shown": "0"}],
                "trophies": [{"tournament_id": "cup-1", "trophy": "cup"}]})),
        (status = 400, description = "The caller's account was deleted (GM-6)", body = ErrorBody,
            example = json!({"error": "invalid", "message": "caller (GM-6): this account was deleted (or the id is reserved for deleted accounts): nothing is served or recorded for it"})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn mahjong_me(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let mut places = Vec::new();
    for def in podium_rules::board::BOARDS
        .iter()
        .filter(|b| b.game == Game::MahjongRivals)
    {
        let board = def.in_period(&def.period_at(now));
        let me = snapshot_reads::place(store, &ctx.cache, &board, &player, now).await?;
        places.push(boards::BoardPlace::new(&board, me));
    }
    json(&rewards::mahjong_profile(store, &player, places).await?)
}

/// One of the caller's finished matches (Seega, Dots and Boxes or Minesweeper).
#[utoipa::path(
    get,
    path = "/v1/me/matches/{match_id}",
    tag = "players",
    params(("match_id" = String, Path, description = "The match id the game server sent", example = "m-000042")),
    responses(
        (status = 200, description = "The match's result document, by game (`game` says which): Seega's points and captures (SG-1 … SG-9), Dots and Boxes' boxes and ratings, Minesweeper's scores, lives and ratings",
            body = serde_json::Value,
            example = json!({"match_id": "m-000042", "game": "seega", "outcome": "win", "players": [{"player_id": "alice", "points": 311, "points_shown": "+311"}, {"player_id": "bob", "points": -120, "points_shown": "-120"}]})),
        (status = 404, description = "No such match of the caller's", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(super) async fn my_match(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&boards::match_result(state.store.as_ref(), &player, &id).await?)
}

/// The caller's point history on one game, newest first (GM-4): why their points changed.
#[utoipa::path(
    get,
    path = "/v1/me/ledger",
    tag = "players",
    params(HistoryQuery),
    responses(
        (status = 200, description = "A page of the caller's ledger entries, newest first (GM-4, SG-7, DISP)", body = point_history::HistoryPage,
            example = json!({"game": "seega", "entries": [
                {"source": "match", "source_id": "m-000042", "rule": "SG-3", "at": "2026-11-30T17:02:11Z",
                 "nominal": -120, "applied": -80, "balance_after": 0, "nominal_shown": "−120", "applied_shown": "−80",
                 "balance_after_shown": "0", "floored": true, "result": "/v1/me/matches/m-000042"},
                {"source": "ad", "source_id": "admob:txn-7", "rule": "SG-10", "at": "2026-11-30T09:15:00Z",
                 "nominal": 40, "applied": 40, "balance_after": 80, "nominal_shown": "+40", "applied_shown": "+40",
                 "balance_after_shown": "80", "floored": false}],
                "next_cursor": "eyJiIjoibGVkZ2VyL3NlZWdh…"})),
        (status = 400, description = "A missing or unknown `game`, a `limit` out of range, or a cursor this API did not issue for this player and game", body = ErrorBody,
            example = json!({"error": "bad_request", "message": "game: required: seega, dots-and-boxes, minesweeper or mahjong-rivals"})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn my_ledger(
    State(state): State<AppState>,
    Caller(player): Caller,
    Params(q): Params<HistoryQuery>,
) -> Answer {
    let game = point_history::game_param(q.game.as_deref())?;
    let limit = int_param(
        q.limit.as_deref(),
        "limit",
        point_history::DEFAULT_HISTORY_PAGE,
        1,
        point_history::MAX_HISTORY_PAGE,
    )?;
    let page = point_history::page(
        state.store.as_ref(),
        &state.ctx.cursors,
        &player,
        game,
        q.cursor.as_deref(),
        limit,
    )
    .await?;
    json(&page)
}

/// The caller's inbox, newest first: each closed period's result on the boards that
/// send them, with the reward the board's table pays (LB-5).
#[utoipa::path(
    get,
    path = "/v1/me/inbox",
    tag = "players",
    responses(
        (status = 200, description = "The caller's messages, newest first, and how many hold a reward not claimed yet", body = inbox::InboxView,
            example = json!({"player_id": "m-00001", "unclaimed": 1, "messages": [
                {"id": "pr:mahjong-weekly:2026-W48", "kind": "period_result", "at": "2026-11-30T00:00:05Z",
                 "board": "mahjong-weekly", "period": "2026-W48", "rank": 3, "of": 412, "top_percent": 1, "value": 980,
                 "reward": {"points": 200, "game": "mahjong-rivals"}}]})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn my_inbox(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    json(&inbox::view(state.store.as_ref(), &player).await?)
}

/// Claims the reward of one of the caller's messages, exactly once (GM-3, LB-5): the
/// points go to the game's balance with a ledger entry (`period-reward`); every repeat
/// answers as the first claim.
#[utoipa::path(
    post,
    path = "/v1/me/inbox/{message_id}/claim",
    tag = "players",
    params(("message_id" = String, Path, description = "A message's `id` from the inbox", example = "pr:mahjong-weekly:2026-W48")),
    responses(
        (status = 200, description = "The reward credited, and the balance after it; the same answer for every repeat", body = inbox::ClaimAnswer,
            example = json!({"player_id": "m-00001", "message_id": "pr:mahjong-weekly:2026-W48", "points": 200,
                "game": "mahjong-rivals", "balance_after": 1296, "claimed_at": "2026-11-30T08:12:00Z"})),
        (status = 404, description = "No such message of the caller's, or it holds no reward", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: no reward to claim in that message of yours"})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn claim_reward(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&inbox::claim(state.store.as_ref(), &player, &id, (state.clock)()).await?)
}

/// The boards on which the caller hears when a neighbour passes them.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Following {
    pub player_id: String,
    /// Boards opted in on (`overtaken` messages for passes by the players listed just
    /// behind the caller; the top 100 hear of passes without opting in).
    pub boards: Vec<&'static str>,
}

async fn following(state: &AppState, player: String) -> Answer {
    let boards = crate::overtaken::following(state.store.as_ref(), &player).await?;
    json(&Following {
        player_id: player,
        boards,
    })
}

/// The boards on which the caller opted in to `overtaken` messages from their
/// neighbours.
#[utoipa::path(
    get,
    path = "/v1/me/follows",
    tag = "players",
    responses(
        (status = 200, description = "The boards the caller opted in on", body = Following,
            example = json!({"player_id": "p-00042", "boards": ["seega"]})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn my_follows(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    following(&state, player).await
}

/// Opts the caller in on a board: when one of the 3 players listed just behind them
/// passes them between two snapshots, an `overtaken` message (at most 5 a day). Safe
/// to repeat.
#[utoipa::path(
    put,
    path = "/v1/me/follows/{board}",
    tag = "players",
    params(("board" = String, Path, description = "A board that sends `overtaken` messages", example = "seega")),
    responses(
        (status = 200, description = "The boards the caller opted in on, this one included", body = Following,
            example = json!({"player_id": "p-00042", "boards": ["seega"]})),
        (status = 404, description = "No such board, or it sends no `overtaken` messages", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: board \"mahjong-level-7\" (boards that send overtaken messages: seega, dots-and-boxes, minesweeper, mahjong-amr, mahjong-weekly, mahjong-daily)"})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn follow(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(board): PathId,
) -> Answer {
    crate::overtaken::follow(state.store.as_ref(), &board, &player).await?;
    following(&state, player).await
}

/// Opts the caller out on a board. Safe to repeat.
#[utoipa::path(
    delete,
    path = "/v1/me/follows/{board}",
    tag = "players",
    params(("board" = String, Path, description = "A board that sends `overtaken` messages", example = "seega")),
    responses(
        (status = 200, description = "The boards the caller still opted in on", body = Following,
            example = json!({"player_id": "p-00042", "boards": []})),
        (status = 404, description = "No such board, or it sends no `overtaken` messages", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: board \"chess\" (boards that send overtaken messages: seega, dots-and-boxes, minesweeper, mahjong-amr, mahjong-weekly, mahjong-daily)"})),
    ),
    security(("jwt" = []))
)]
pub(super) async fn unfollow(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(board): PathId,
) -> Answer {
    crate::overtaken::unfollow(state.store.as_ref(), &board, &player).await?;
    following(&state, player).await
}

/// The query of a league read.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WeekQuery {
    /// The week (`2026-W49`); the current one by default.
    #[param(value_type = Option<String>, example = "2026-W49")]
    week: Option<String>,
}

/// The league named in the path, and the week asked for (the current one by default).
fn league_week(
    league: &str,
    week: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(&'static podium_rules::league::LeagueDef, String), ServiceError> {
    let def = podium_rules::league::league_def(league)
        .ok_or_else(|| ServiceError::NotFound(format!("league {league:?}")))?;
    let board = boards::board_named(def.board)?;
    let week = match week {
        Some(id) => Period::parse(board.period, board.zone, id).map_err(|e| ServiceError::BadRequest {
            field: "week",
            message: e.message,
        })?,
        None => board.period_at(now),
    };
    Ok((def, week.id))
}

/// The caller's league this week: their tier, and their cohort's standings with the
/// promotion and relegation zones once they scored this week.
#[utoipa::path(
    get,
    path = "/v1/leagues/{league}/me",
    tag = "leaderboards",
    params(("league" = String, Path, description = "A league (`mahjong-league`)", example = "mahjong-league")),
    responses(
        (status = 200, description = "The caller's tier and, once placed this week, their cohort", body = leagues::MyLeague,
            example = json!({"league": "mahjong-league", "player_id": "m-00001", "week": "2026-W49", "tier": 1, "tier_name": "silver",
                "cohort": {"league": "mahjong-league", "week": "2026-W49", "cohort": "t1-s2-n0", "tier": 1, "tier_name": "silver",
                    "entries": [{"rank": 1, "player_id": "m-00001", "value": 240, "value_shown": "240", "zone": "promotion"}]}})),
        (status = 404, description = "No such league", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(super) async fn my_league(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(league): PathId,
) -> Answer {
    let (def, week) = league_week(&league, None, (state.clock)())?;
    json(&leagues::mine(state.store.as_ref(), def, &player, &week).await?)
}

/// A cohort's standings in a week, ranked (LB-2), each line with the zone it is in.
#[utoipa::path(
    get,
    path = "/v1/leagues/{league}/cohorts/{cohort}",
    tag = "leaderboards",
    params(
        ("league" = String, Path, description = "A league (`mahjong-league`)", example = "mahjong-league"),
        ("cohort" = String, Path, description = "A cohort id (`t{tier}-s{shard}-n{number}`)", example = "t1-s2-n0"),
        WeekQuery
    ),
    responses(
        (status = 200, description = "The cohort's members ranked by their points this week", body = leagues::CohortView),
        (status = 400, description = "A malformed week", body = ErrorBody),
        (status = 404, description = "No such league or cohort", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(super) async fn league_cohort(
    State(state): State<AppState>,
    _: Authenticated,
    PathPair(league, cohort): PathPair,
    Params(q): Params<WeekQuery>,
) -> Answer {
    let (def, week) = league_week(&league, q.week.as_deref(), (state.clock)())?;
    json(&leagues::cohort(state.store.as_ref(), def, &week, &cohort).await?)
}

/// An Arena's result, for one of its players (MJ-11).
#[utoipa::path(
    get,
    path = "/v1/me/arenas/{arena_id}",
    tag = "mahjong",
    params(("arena_id" = String, Path, description = "The Arena's id", example = "ar-1")),
    responses(
        (status = 200, description = "The Arena's rounds, standings and prizes (MJ-11)", body = serde_json::Value,
            example = json!({"arena_id": "ar-1", "standings": [{"player_id": "alice", "place": 1, "prize": 60}]})),
        (status = 404, description = "No such Arena of the caller's", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(super) async fn my_arena(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&crate::tournaments::arena_result(state.store.as_ref(), &player, &id).await?)
}

/// A tournament table's TP, for one of its players (MJ-13 … MJ-15).
#[utoipa::path(
    get,
    path = "/v1/me/tournament-tables/{table_id}",
    tag = "mahjong",
    params(("table_id" = String, Path, description = "The table's id", example = "tb-1")),
    responses(
        (status = 200, description = "The table's TP by player (MJ-13 … MJ-15)", body = serde_json::Value,
            example = json!({"table_id": "tb-1", "tournament_id": "cup-1", "tp": [["alice", 90], ["bob", 21]]})),
        (status = 404, description = "No such table of the caller's", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(super) async fn my_table(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&crate::tournaments::table_result(state.store.as_ref(), &player, &id).await?)
}

/// A tournament's settings and status; once final, its winners (MJ-12 … MJ-17).
#[utoipa::path(
    get,
    path = "/v1/tournaments/{tournament_id}",
    tag = "mahjong",
    params(("tournament_id" = String, Path, description = "The tournament's id", example = "cup-1")),
    responses(
        (status = 200, description = "Settings, status (`scheduled`, `running`, `cancelled`, `closed`, `final`) and winners (MJ-16)", body = serde_json::Value,
            example = json!({"tournament_id": "cup-1", "status": "final", "winners": [{"place": 1, "player_id": "alice"}]})),
        (status = 404, description = "No such tournament", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(super) async fn tournament(
    State(state): State<AppState>,
    _: Authenticated,
    PathId(id): PathId,
) -> Answer {
    json(&crate::tournaments::tournament(state.store.as_ref(), &id).await?)
}

/// The caller's claim of today's Mahjong Rivals bonus (MJ-18), once per Bucharest day.
#[utoipa::path(
    post,
    path = "/v1/games/mahjong/daily-bonus",
    tag = "mahjong",
    responses(
        (status = 200, description = "Today's bonus: paid now (`claimed_now`), or the earlier claim of today (MJ-18)", body = serde_json::Value,
            example = json!({"day": "2026-11-30", "streak": 3, "points": 30, "jokers": 0, "claimed_now": true})),
        (status = 400, description = "A malformed `Idempotency-Key` (named in the message), the caller's account was deleted (GM-6), or another rule refuses the claim", body = ErrorBody,
            example = json!({"error": "invalid", "message": "caller (GM-6): this account was deleted (or the id is reserved for deleted accounts): nothing is served or recorded for it"})),
        (status = 409, description = "A conflicting claim", body = ErrorBody),
    ),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "The app's id of this claim, the same on every retry of it (1 to 64 of `A-Z a-z 0-9 - _`): a retry after a lost answer or a 5xx on the same Bucharest day is answered as the claim it repeats (`claimed_now` true when that claim paid); a retry after midnight is a claim of the new day. A malformed key is a 400 naming the header", example = "5f0c2a1e-claim-1", pattern = "^[A-Za-z0-9_-]{1,64}$", min_length = 1, max_length = 64),
    ),
    security(("jwt" = []))
)]
pub(super) async fn daily_bonus(
    State(state): State<AppState>,
    Caller(player): Caller,
    headers: HeaderMap,
) -> Answer {
    let key = idempotency_key(&headers)?;
    json(&rewards::claim_daily_bonus(state.store.as_ref(), &player, (state.clock)(), key).await?)
}

/// The longest `Idempotency-Key`, in characters.
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 64;

/// The request's `Idempotency-Key` header, if any. Errors: 400 naming the header when
/// it is repeated, empty, longer than [`MAX_IDEMPOTENCY_KEY_CHARS`] or has characters
/// other than `A-Z a-z 0-9 - _`.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<&str>, ServiceError> {
    let mut values = headers.get_all("idempotency-key").iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let bad = |message: &str| ServiceError::BadRequest {
        field: "Idempotency-Key",
        message: message.to_string(),
    };
    if values.next().is_some() {
        return Err(bad("given more than once"));
    }
    let key = value
        .to_str()
        .map_err(|_| bad("must be 1 to 64 of A-Z a-z 0-9 - _"))?;
    let ok = !key.is_empty()
        && key.len() <= MAX_IDEMPOTENCY_KEY_CHARS
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(Some(key))
    } else {
        Err(bad("must be 1 to 64 of A-Z a-z 0-9 - _"))
    }
}

/// The ad callbacks' configuration, or 404 where they are not answered.
fn ads(state: &AppState) -> Result<&Ads, ApiError> {
    state.ctx.ads.as_deref().ok_or_else(|| {
        ApiError(ServiceError::NotFound(
            "ad callbacks are not answered here".into(),
        ))
    })
}

/// The parameters of an AdMob SSV callback: the signature covers the query string
/// exactly as sent, up to `&signature=`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct AdmobQuery {
    ad_network: Option<String>,
    /// The ad unit: one of podium's rewarded units (SG-10, MJ-19).
    ad_unit: Option<String>,
    custom_data: Option<String>,
    reward_amount: Option<String>,
    reward_item: Option<String>,
    /// Milliseconds since the Unix epoch (UTC).
    timestamp: Option<String>,
    transaction_id: Option<String>,
    /// The player (the app sets it as the SSV user id).
    user_id: Option<String>,
    /// ECDSA P-256 signature, URL-safe base64.
    signature: Option<String>,
    key_id: Option<String>,
}

/// An AdMob server-side verification callback: verified, then paid once per
/// transaction (GM-3, SG-10, MJ-19). No JWT: the signature authenticates it.
#[utoipa::path(
    get,
    path = "/v1/ad-callbacks/admob",
    tag = "ad callbacks",
    params(AdmobQuery),
    responses(
        (status = 200, description = "Paid, or the earlier answer of the same transaction (`duplicate`)", body = serde_json::Value,
            example = json!({"player_id": "alice", "points": 50, "duplicate": false})),
        (status = 403, description = "The signature does not verify, the key is unknown, or the ad unit is not podium's", body = ErrorBody),
        (status = 409, description = "The transaction id was paid with other content (GM-3)", body = ErrorBody),
    )
)]
pub(super) async fn admob_callback(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Answer {
    let ads = ads(&state)?;
    let now = (state.clock)();
    json(&rewards::admob_callback(state.store.as_ref(), ads, raw.as_deref().unwrap_or(""), now).await?)
}

/// A Unity Ads server-to-server callback (HMAC-MD5): answered `1` when paid or paid
/// before (GM-3, SG-10, MJ-19). No JWT: the signature authenticates it.
#[utoipa::path(
    get,
    path = "/v1/ad-callbacks/unity-ads",
    tag = "ad callbacks",
    params(
        ("sid" = Option<String>, Query, description = "The player"),
        ("oid" = Option<String>, Query, description = "The order (transaction) id"),
        ("productid" = Option<String>, Query, description = "The ad unit"),
        ("hmac" = Option<String>, Query, description = "HMAC-MD5 of the other parameters, hex"),
    ),
    responses(
        (status = 200, description = "Paid, or paid before", body = String, content_type = "text/plain", example = "1"),
        (status = 403, description = "The signature does not verify", body = ErrorBody),
        (status = 409, description = "The order id was paid with other content (GM-3)", body = ErrorBody),
    )
)]
pub(super) async fn unity_callback(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Answer {
    let ads = ads(&state)?;
    let now = (state.clock)();
    rewards::unity_callback(state.store.as_ref(), ads, raw.as_deref().unwrap_or(""), now).await?;
    Ok((
        [(header::CONTENT_TYPE, HeaderValue::from_static(TEXT))],
        podium_ads::unity::SUCCESS_BODY,
    )
        .into_response())
}

/// Support's view of one player: balance per game with rank and badge, the ledger
/// (nominal vs applied delta, balance after), the balance over time, their place on
/// every board now, and their recent match results. Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/players/{player_id}",
    tag = "operators",
    params(("player_id" = String, Path, description = "The player's id", example = "alice")),
    responses(
        (status = 200, description = "The player's overview", body = crate::operator::PlayerOverview,
            example = json!({"player_id": "p-00003", "as_of": "2026-11-30T17:18:05.187Z",
                "games": [{"game": "seega", "balance": 253, "balance_shown": "253",
                    "rank": {"rank_id": "member", "rank_name_en": "Member", "rank_name_ar": "عضو", "badge": "1 star"},
                    "ledger": [{"source": "match", "source_id": "sg-42-0000004", "rule": "SG-3", "nominal": -19, "applied": 0, "floored": true, "balance_after": 0, "at": "2026-11-03T07:40:48Z"}],
                    "series": [{"at": "2026-11-03T07:40:48Z", "at_ms": 1793691648000i64, "balance": 0}]}],
                "boards": [{"board": "seega", "period": "all", "rank": 9, "value": 253, "value_shown": "253"}],
                "matches": []})),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody,
            example = json!({"error": "forbidden", "message": "forbidden: operator routes need an operator identity, not a player's"})),
        (status = 404, description = "No such player (no balance and no ledger entry on any game)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(super) async fn operator_player(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    PathId(id): PathId,
) -> Answer {
    let now = (state.clock)();
    json(&crate::operator::player_overview(state.store.as_ref(), &state.ctx.cache, &id, now).await?)
}

/// A page of any board and period, as players see it (LB-3, LB-5). Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/leaderboards/{board}",
    tag = "operators",
    params(
        ("board" = String, Path, description = "A board of LB-1 or of a family", example = "seega"),
        PageQuery
    ),
    responses(
        (status = 200, description = "A page of the board with its period clock", body = super::docs::LeaderboardPage),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such board", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(super) async fn operator_board(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    PathId(board): PathId,
    Params(q): Params<PageQuery>,
) -> Answer {
    Ok(JsonBytes(page_body(&state, &board, &q).await?).into_response())
}

/// This API's OpenAPI 3.1 description.
#[utoipa::path(
    get,
    path = "/v1/openapi.json",
    tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = serde_json::Value))
)]
pub(super) async fn openapi_document() -> Response {
    JsonBytes(super::docs::openapi_json()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{handle, ApiContext, ApiRequest};
    use crate::cursor::CursorKey;
    use podium_rules::record::MatchRecord;
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

    /// Every documented route is routed with its method; another method is 405 with
    /// `Allow`, and an unknown path is 404, each with the error body.
    #[tokio::test]
    async fn every_documented_route_is_routed() {
        let store = EmbeddedStore::in_memory().unwrap();
        let ctx = ApiContext::new(CursorKey::random());
        let now = Utc::now();
        let routes = crate::api::routes();
        assert!(routes.len() >= 12, "{routes:?}");
        for (method, path) in &routes {
            let path = path.replace("{board}", "seega").replace(['{', '}'], "");
            let mut req = get(&path, Some("bob"));
            req.method = method.clone();
            let answer = handle(&store, &ctx, &req, now).await;
            let unrouted = answer.body["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("not found: route"));
            assert!(!unrouted && answer.status != 405, "{method} {path}: {answer:?}");
            req.method = if method == "GET" {
                "PUT".into()
            } else {
                "GET".into()
            };
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
}
