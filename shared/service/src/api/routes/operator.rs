//! Operator routes (the `podium/operator` scope): a player's overview, any board.

use axum::extract::State;
use axum::response::IntoResponse;

use crate::api::error::ErrorBody;
use crate::api::extract::{OperatorCaller, Params, PathId, PlayerPath};
use crate::api::state::AppState;

use super::boards::{page_body, PageQuery};
use super::respond::*;

/// Support's view of one player: balance per game with rank and badge, the ledger
/// (nominal vs applied delta, balance after), the balance over time, their place on
/// every board now, and their recent match results. Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/players/{player_id}",
    tag = "operators",
    params(("player_id" = String, Path, description = "The player's id", example = "alice")),
    responses(
        (status = 200, description = "The player's overview", body = crate::operators::console::PlayerOverview,
            example = json!({"player_id": "p-00003", "as_of": "2026-11-30T17:18:05.187Z",
                "games": [{"game": "seega", "balance": 253, "balance_shown": "253",
                    "rank": {"rank_id": "member", "rank_name_en": "Member", "rank_name_ar": "عضو", "badge": "1 star"},
                    "ledger": [{"source": "match", "source_id": "sg-42-0000004", "rule": "SG-3", "nominal": -19, "applied": 0, "floored": true, "balance_after": 0, "at": "2026-11-03T07:40:48Z",
                        "settled_at": "2026-11-03T07:40:49.118Z", "seq": 3}],
                    "series": [{"at": "2026-11-03T07:40:48Z", "at_ms": 1793691648000i64, "balance": 0}]}],
                "boards": [{"board": "seega", "period": "all", "rank": 9, "value": 253, "value_shown": "253",
                    "standing": {"rank": 9, "of": 1000, "top_percent": 1, "next_better": {"value": 676, "value_shown": "676", "gap": 423},
                        "top_cutoff": {"top": 100, "value": 212, "value_shown": "212", "gap": 0}}}],
                "matches": [], "profile": {"player_id": "p-00003", "name": "Ionela", "avatar": "a07", "country": "RO"}})),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody,
            example = json!({"error": "forbidden", "message": "forbidden: operator routes need an operator identity, not a player's"})),
        (status = 404, description = "No such player (no balance and no ledger entry on any game)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn operator_player(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    PlayerPath(id): PlayerPath,
) -> Answer {
    let now = (state.clock)();
    json(&crate::operators::console::player_overview(state.store.as_ref(), &state.ctx.cache, &id, now).await?)
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
        (status = 200, description = "A page of the board with its period clock", body = crate::api::schemas::LeaderboardPage),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such board", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn operator_board(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    PathId(board): PathId,
    Params(q): Params<PageQuery>,
) -> Answer {
    Ok(JsonBytes(page_body(&state, &board, &q).await?).into_response())
}

/// The scheduled jobs' status (LB-5): the refreshes under way (begun and not published
/// yet: the next ticks resume them), each period board's last period closed in order,
/// and the results a job could not apply and left out for review (mend the cause,
/// then rerun the close: `POST /v1/operator/periods/{board}/{period}/close`).
/// Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/jobs",
    tag = "operators",
    responses(
        (status = 200, description = "The jobs' status", body = crate::jobs::JobsStatus,
            example = json!({"refreshes": [{"board": "seega", "period": "all", "id": "r-20261201T100000Z-41",
                    "seq": 41, "as_of": "2026-12-01T10:00:00Z", "pages": 3}],
                "closed_through": [{"board": "mahjong-weekly", "period": "2026-W48"}, {"board": "mahjong-daily", "period": "2026-11-30"}],
                "unapplied": [{"kind": "period-result", "id": "mahjong-daily@2026-11-25:p-00003", "player": "p-00003",
                    "error": "dynamodb TransactWriteItems refused: ValidationException", "job": "period-close", "at": "2026-11-25T22:05:00Z"}],
                "actions": [], "player_actions": [], "dry_runs": []})),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn operator_jobs(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
) -> Answer {
    json(&crate::jobs::status(state.store.as_ref()).await?)
}
