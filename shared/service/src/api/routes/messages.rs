//! The inbox, its claims, and `overtaken` follows.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use crate::api::error::ErrorBody;
use crate::api::extract::{Caller, Params, PathId};
use crate::api::state::AppState;
use crate::players::inbox;

use super::respond::*;

/// The query of the inbox (LIVE-3).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct InboxQuery {
    /// The id of the last message the client has (the last one pushed to it): only
    /// the messages the inbox received after it are listed, and `since_found` says
    /// whether that message is still in the inbox (`false`: every message is listed).
    #[param(value_type = Option<String>, example = "ru:match:m-000123")]
    since: Option<String>,
}

/// The caller's inbox, newest first: each closed period's result on the boards that
/// send them, with the reward the board's table pays (LB-5); with `since`, only the
/// messages received after that one (LIVE-3).
#[utoipa::path(
    get,
    path = "/v1/me/inbox",
    tag = "players",
    params(InboxQuery),
    responses(
        (status = 200, description = "The caller's messages, newest first, and how many hold a reward not claimed yet", body = inbox::InboxView,
            example = json!({"player_id": "m-00001", "unclaimed": 1, "messages": [
                {"id": "pr:mahjong-weekly:2026-W48", "seq": 7, "kind": "period_result", "at": "2026-11-30T00:00:05Z",
                 "board": "mahjong-weekly", "period": "2026-W48", "rank": 3, "of": 412, "top_percent": 1, "value": 980,
                 "reward": {"points": 200, "game": "mahjong-rivals"}}]})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_inbox(
    State(state): State<AppState>,
    Caller(player): Caller,
    Params(q): Params<InboxQuery>,
) -> Answer {
    json(&inbox::view_since(state.store.as_ref(), &player, q.since.as_deref()).await?)
}

/// Claims the reward of one of the caller's messages, exactly once (GM-3, LB-5): the
/// points go to the game's balance with a ledger entry (`period-reward`), the Jokers
/// of a defined board's prize to the account's inventory (BD-9, MJ-6); every repeat
/// answers as the first claim.
#[utoipa::path(
    post,
    path = "/v1/me/inbox/{message_id}/claim",
    tag = "players",
    params(("message_id" = String, Path, description = "A message's `id` from the inbox", example = "pr:mahjong-weekly:2026-W48")),
    responses(
        (status = 200, description = "The reward credited, and the balance after it; the same answer for every repeat", body = inbox::ClaimAnswer,
            example = json!({"player_id": "m-00001", "message_id": "pr:mahjong-weekly:2026-W48", "points": 200,
                "game": "mahjong-rivals", "balance_after": 1296, "jokers": 0, "claimed_at": "2026-11-30T08:12:00Z"})),
        (status = 404, description = "No such message of the caller's, or it holds no reward", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: no reward to claim in that message of yours"})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn claim_reward(
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
    let boards = crate::players::overtaken::following(state.store.as_ref(), &player).await?;
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
pub(crate) async fn my_follows(State(state): State<AppState>, Caller(player): Caller) -> Answer {
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
pub(crate) async fn follow(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(board): PathId,
) -> Answer {
    crate::players::overtaken::follow(state.store.as_ref(), &board, &player).await?;
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
pub(crate) async fn unfollow(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(board): PathId,
) -> Answer {
    crate::players::overtaken::unfollow(state.store.as_ref(), &board, &player).await?;
    following(&state, player).await
}
