//! Mahjong Rivals: Arenas, tournament tables, tournaments, the daily bonus (MJ-11 … MJ-18).

use axum::extract::State;
use axum::http::HeaderMap;

use crate::api::error::ErrorBody;
use crate::api::extract::{Authenticated, Caller, PathId};
use crate::api::state::AppState;
use crate::error::ServiceError;
use crate::players::rewards::{self};

use super::respond::*;

/// An Arena's result, for one of its players (MJ-11).
#[utoipa::path(
    get,
    path = "/v1/me/arenas/{arena_id}",
    tag = "mahjong",
    params(("arena_id" = String, Path, description = "The Arena's id", example = "ar-1")),
    responses(
        (status = 200, description = "The Arena's rounds, standings and prizes (MJ-11)", body = podium_rules::mahjong::arena::ArenaResult,
            example = json!({"arena_id": "ar-1", "ended_at": "2026-11-16T05:26:53Z", "standings": [
                {"player_id": "alice", "round_scores": [7600, 7800, 7400], "total": 22800, "place": 1, "prize": 80, "balance_after": 160},
                {"player_id": "bob", "round_scores": [4400, 4500, 4300], "total": 13200, "place": 2, "prize": 40, "balance_after": 100},
                {"player_id": "carol", "round_scores": [4100, 3900, 3400], "total": 11400, "place": 3, "prize": 20, "balance_after": 20},
                {"player_id": "dave", "round_scores": [2900, 2900, 2800], "total": 8600, "place": 4, "prize": 0, "balance_after": null}]})),
        (status = 404, description = "No such Arena of the caller's", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_arena(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&crate::games::tournaments::arena_result(state.store.as_ref(), &player, &id).await?)
}

/// A level completion's result, for its player (MJ-2 … MJ-5).
#[utoipa::path(
    get,
    path = "/v1/me/level-completions/{completion_id}",
    tag = "mahjong",
    params(("completion_id" = String, Path, description = "The completion's id", example = "lc-1")),
    responses(
        (status = 200, description = "The time, its place among the other accounts' best times at that moment (1 … 10; absent below), and the bonuses it paid (MJ-2 … MJ-5)", body = crate::games::results::CompletionView,
            example = json!({"completion_id": "lc-1", "player_id": "alice", "level": 7, "time_ms": 104000,
                "completed_at": "2027-03-18T10:00:00Z", "place": 4, "first_completion": 10, "time_bonus": 5,
                "best_ms": 104000, "jokers": 0, "balance_after": 15, "points": 15,
                "bonuses": [{"rule": "MJ-2", "points": 10}, {"rule": "MJ-3", "points": 5}]})),
        (status = 404, description = "No such level completion of the caller's", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_completion(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&crate::games::results::completion_result(state.store.as_ref(), &player, &id).await?)
}

/// A Quick Match's result, for one of its players (MJ-7, MJ-8).
#[utoipa::path(
    get,
    path = "/v1/me/quick-matches/{match_id}",
    tag = "mahjong",
    params(("match_id" = String, Path, description = "The Quick Match's id", example = "qm-1")),
    responses(
        (status = 200, description = "Every player's completion, score, place and points (MJ-7, MJ-8)", body = podium_rules::mahjong::quick_match::QuickMatchResult,
            example = json!({"match_id": "qm-1", "ended_at": "2027-03-18T10:00:00Z", "winner": null, "points": 0, "balance_after": null,
                "players": [{"player_id": "alice", "completed": true, "score": 900, "place": 1, "points": 0},
                            {"player_id": "bob", "completed": true, "score": 900, "place": 1, "points": 0}]})),
        (status = 404, description = "No such Quick Match of the caller's", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_quick_match(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&crate::games::results::quick_match_result(state.store.as_ref(), &player, &id).await?)
}

/// A tournament table's TP, for one of its players (MJ-13 … MJ-15).
#[utoipa::path(
    get,
    path = "/v1/me/tournament-tables/{table_id}",
    tag = "mahjong",
    params(("table_id" = String, Path, description = "The table's id", example = "tb-1")),
    responses(
        (status = 200, description = "The table's TP by player (MJ-13 … MJ-15)", body = podium_rules::mahjong::tournament_play::TableResult,
            example = json!({"table_id": "tb-1", "tournament_id": "cup-1", "tp": [["alice", 90], ["bob", 21]]})),
        (status = 404, description = "No such table of the caller's", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_table(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(id): PathId,
) -> Answer {
    json(&crate::games::tournaments::table_result(state.store.as_ref(), &player, &id).await?)
}

/// A tournament's settings and status; once final, its winners (MJ-12 … MJ-17).
#[utoipa::path(
    get,
    path = "/v1/tournaments/{tournament_id}",
    tag = "mahjong",
    params(("tournament_id" = String, Path, description = "The tournament's id", example = "cup-1")),
    responses(
        (status = 200, description = "Its settings (`tournament`) and where it stands, `status`: `open` (taking registrations, then table results), `running` (started with `registered` players), `cancelled` (fewer than its minimum at its start, `registered`), `closing` (ended at `since_ms`, its final places read after a wait) or `final` with its `winners` (MJ-16; a winner suspended now is left out, the others keep their places, OP-4)", body = crate::api::schemas::TournamentState,
            example = json!({"tournament": {"tournament_id": "cup-1", "starts_at": "2027-07-14T18:00:00Z", "ends_at": "2027-07-14T19:00:00Z",
                "min_players": 8, "multiplier": 3, "prizes": [500, 200, 100], "champions": false},
                "status": "final", "winners": [{"place": 1, "player_id": "alice", "name": "Alice", "tp": 2100, "prize": 500}]})),
        (status = 404, description = "No such tournament", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn tournament(
    State(state): State<AppState>,
    _: Authenticated,
    PathId(id): PathId,
) -> Answer {
    json(&crate::games::tournaments::tournament(state.store.as_ref(), &id).await?)
}

/// The caller's claim of today's Mahjong Rivals bonus (MJ-18), once per Bucharest day.
#[utoipa::path(
    post,
    path = "/v1/games/mahjong-rivals/daily-bonus",
    tag = "mahjong",
    responses(
        (status = 200, description = "Today's bonus: paid now (`claimed_now`), or the earlier claim of today (MJ-18)", body = crate::players::rewards::BonusAnswer,
            example = json!({"player_id": "m-00001", "day": "2026-11-30", "streak": 3, "points": 30, "jokers_granted": 0,
                "jokers": 0, "balance_after": 1296, "next_claim_at": "2026-11-30T22:00:00Z", "claimed_now": true})),
        (status = 400, description = "A malformed `Idempotency-Key` (named in the message), the caller's account was deleted (GM-6), or another rule refuses the claim", body = ErrorBody,
            example = json!({"error": "invalid", "message": "caller (GM-6): this account was deleted (or the id is reserved for deleted accounts): nothing is served or recorded for it"})),
        (status = 409, description = "A conflicting claim", body = ErrorBody),
    ),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "The app's id of this claim, the same on every retry of it (1 to 64 of `A-Z a-z 0-9 - _`): a retry after a lost answer or a 5xx on the same Bucharest day is answered as the claim it repeats (`claimed_now` true when that claim paid); a retry after midnight is a claim of the new day. A malformed key is a 400 naming the header", example = "5f0c2a1e-claim-1", pattern = "^[A-Za-z0-9_-]{1,64}$", min_length = 1, max_length = 64),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn daily_bonus(
    State(state): State<AppState>,
    Caller(player): Caller,
    headers: HeaderMap,
) -> Answer {
    let key = idempotency_key(&headers)?;
    json(&rewards::claim_daily_bonus(state.store.as_ref(), &player, (state.clock)(), key).await?)
}

/// The same claim under the route's first name, `mahjong` (GM-5: every other surface
/// names the game `mahjong-rivals`): kept as a deprecated alias, answered exactly as
/// [`daily_bonus`].
#[utoipa::path(
    post,
    path = "/v1/games/mahjong/daily-bonus",
    operation_id = "daily_bonus_alias",
    tag = "mahjong",
    responses(
        (status = 200, description = "Today's bonus: paid now (`claimed_now`), or the earlier claim of today (MJ-18)", body = crate::players::rewards::BonusAnswer,
            example = json!({"player_id": "m-00001", "day": "2026-11-30", "streak": 3, "points": 30, "jokers_granted": 0,
                "jokers": 0, "balance_after": 1296, "next_claim_at": "2026-11-30T22:00:00Z", "claimed_now": true})),
        (status = 400, description = "A malformed `Idempotency-Key` (named in the message), the caller's account was deleted (GM-6), or another rule refuses the claim", body = ErrorBody,
            example = json!({"error": "invalid", "message": "caller (GM-6): this account was deleted (or the id is reserved for deleted accounts): nothing is served or recorded for it"})),
        (status = 409, description = "A conflicting claim", body = ErrorBody),
    ),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "The app's id of this claim, the same on every retry of it (1 to 64 of `A-Z a-z 0-9 - _`): a retry after a lost answer or a 5xx on the same Bucharest day is answered as the claim it repeats (`claimed_now` true when that claim paid); a retry after midnight is a claim of the new day. A malformed key is a 400 naming the header", example = "5f0c2a1e-claim-1", pattern = "^[A-Za-z0-9_-]{1,64}$", min_length = 1, max_length = 64),
    ),
    security(("jwt" = [])),
    description = "Deprecated alias of `POST /v1/games/mahjong-rivals/daily-bonus` (the game's id everywhere else): the same claim, the same answer.",
)]
#[deprecated = "use POST /v1/games/mahjong-rivals/daily-bonus"]
pub(crate) async fn daily_bonus_alias(state: State<AppState>, caller: Caller, headers: HeaderMap) -> Answer {
    daily_bonus(state, caller, headers).await
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
