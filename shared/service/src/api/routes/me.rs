//! The caller's own reads: profiles, a match's result, point history (GM-4, SG-12).

use axum::extract::State;
use podium_rules::game::Game;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::error::ErrorBody;
use crate::api::extract::{int_param, Caller, Params, PathId};
use crate::api::state::AppState;
use crate::boards::live::{self};
use crate::boards::pages;
use crate::players::point_history;
use crate::players::rewards::{self};

use super::respond::*;

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

/// The caller's Seega profile: balance and SG-12 rank.
#[utoipa::path(
    get,
    path = "/v1/me",
    tag = "players",
    responses(
        (status = 200, description = "The caller's Seega balance and SG-12 rank", body = live::Profile,
            example = json!({"player_id": "p-00003", "game": "seega", "balance": 253, "balance_shown": "253", "rank_id": "member",
                "rank_name_ar": "عضو", "rank_name_en": "Member", "badge": "1 star"})),
        (status = 400, description = "The caller's account was deleted (GM-6)", body = ErrorBody,
            example = json!({"error": "invalid", "message": "caller (GM-6): this account was deleted (or the id is reserved for deleted accounts): nothing is served or recorded for it"})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn me(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    json(&live::profile(state.store.as_ref(), Game::Seega, &player).await?)
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
                "boards": [{"board": "mahjong-amr", "period": "all", "rank": 12, "value": 96, "value_shown": "96",
                            "standing": {"rank": 12, "of": 40, "top_percent": 30, "next_better": {"value": 110, "value_shown": "110", "gap": 14}}},
                           {"board": "mahjong-weekly", "period": "2026-W49", "rank": 3, "value": 24, "value_shown": "24",
                            "standing": {"rank": 3, "of": 12, "top_percent": 25, "next_better": {"value": 31, "value_shown": "31", "gap": 7}}},
                           {"board": "mahjong-daily", "period": "2026-11-30", "value": 0, "value_shown": "0"}],
                "trophies": [{"tournament_id": "cup-1", "trophy": "cup"}]})),
        (status = 400, description = "The caller's account was deleted (GM-6)", body = ErrorBody,
            example = json!({"error": "invalid", "message": "caller (GM-6): this account was deleted (or the id is reserved for deleted accounts): nothing is served or recorded for it"})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn mahjong_me(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let mut places = Vec::new();
    for def in podium_rules::board::BOARDS
        .iter()
        .filter(|b| b.game == Game::MahjongRivals)
    {
        let board = def.in_period(&def.period_at(now));
        let me = pages::place(store, &ctx.cache, &board, &player, now).await?;
        places.push(live::BoardPlace::new(&board, me));
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
            body = crate::games::results::MatchView,
            example = json!({"match_id": "m-000042", "game": "seega", "ended_at": "2026-11-30T17:02:11Z", "status": "scored",
                "players": [
                    {"player_id": "alice", "name": "Alice", "avatar": "a03", "country": "RO", "side": "win", "captured": 24, "lost": 0, "moves": 20, "minutes": 5, "points": 311,
                     "applied": 311, "balance_after": 1567, "points_shown": "+311", "balance_shown": "1.5K"},
                    {"player_id": "bob", "name": "Bob", "avatar": "a11", "country": "FR", "side": "loss", "captured": 0, "lost": 24, "moves": 20, "minutes": 5, "points": -120,
                     "applied": -80, "balance_after": 0, "points_shown": "−120", "balance_shown": "0"}]})),
        (status = 404, description = "No such match of the caller's", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_match(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&crate::games::results::match_result(state.store.as_ref(), &player, &id).await?)
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
                 "settled_at": "2026-11-30T17:02:12.031Z", "seq": 7, "nominal": -120, "applied": -80, "balance_after": 0, "nominal_shown": "−120", "applied_shown": "−80",
                 "balance_after_shown": "0", "floored": true, "result": "/v1/me/matches/m-000042"},
                {"source": "ad", "source_id": "admob:txn-7", "rule": "SG-10", "at": "2026-11-30T09:15:00Z",
                 "settled_at": "2026-11-30T09:15:00.412Z", "seq": 6, "nominal": 40, "applied": 40, "balance_after": 80, "nominal_shown": "+40", "applied_shown": "+40",
                 "balance_after_shown": "80", "floored": false}],
                "next_cursor": "eyJiIjoibGVkZ2VyL3NlZWdh…"})),
        (status = 400, description = "A missing or unknown `game`, a `limit` out of range, or a cursor this API did not issue for this player and game", body = ErrorBody,
            example = json!({"error": "bad_request", "message": "game: required: seega, dots-and-boxes, minesweeper or mahjong-rivals"})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_ledger(
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
