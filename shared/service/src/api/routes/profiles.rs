//! The caller's profile and friend list (PF-1 … PF-4).

use axum::extract::State;
use podium_rules::profile::ProfileChange;
use serde::Deserialize;

use crate::api::error::ErrorBody;
use crate::api::extract::{Caller, JsonBody};
use crate::api::state::AppState;
use crate::profiles::{edit, friends};

use super::respond::*;

/// A profile change: each field left out is kept, `null` removes it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ProfileChangeBody {
    /// A display name (PF-1): 3–24 characters after NFKC normalisation and trimming;
    /// no control or invisible characters; no blocked term.
    #[schema(nullable, example = "Ionela")]
    name: Option<String>,
    /// An avatar id of the game's set (PF-2).
    #[schema(nullable, example = "a07")]
    avatar: Option<String>,
    /// An ISO 3166-1 alpha-2 code (PF-3), changeable once per configured interval
    /// (30 days by default).
    #[schema(nullable, example = "RO")]
    country: Option<String>,
}

/// A friend list as the app sends it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct FriendsBody {
    /// Player ids (PF-4), at most 200; duplicates and the caller's own id are left out.
    #[schema(example = json!(["p-00002", "p-00007"]))]
    friends: Vec<String>,
}

/// The caller's profile: name, avatar, country (PF-1 … PF-3).
#[utoipa::path(
    get,
    path = "/v1/me/profile",
    tag = "players",
    responses(
        (status = 200, description = "The caller's profile; fields never set are absent", body = edit::ProfileView,
            example = json!({"player_id": "p-00003", "name": "Ionela", "avatar": "a07", "country": "RO"})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_profile(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    let now = (state.clock)();
    json(&edit::get(state.store.as_ref(), &state.ctx.profiles, &player, now).await?)
}

/// Changes the caller's profile (PF-1 … PF-3): fields left out are kept, `null`
/// removes one. Safe to repeat; a refused field changes nothing.
#[utoipa::path(
    put,
    path = "/v1/me/profile",
    tag = "players",
    request_body = ProfileChangeBody,
    responses(
        (status = 200, description = "The profile as stored; every entry the app reads shows it within one snapshot refresh", body = edit::ProfileView,
            example = json!({"player_id": "p-00003", "name": "Ionela", "avatar": "a07", "country": "RO", "country_changeable_from": "2027-01-01T10:00:00Z"})),
        (status = 400, description = "A refused field, named with its rule", body = ErrorBody,
            example = json!({"error": "invalid", "message": "name (PF-1): names are 3–24 characters after normalisation; this one has 2"})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn put_profile(
    State(state): State<AppState>,
    Caller(player): Caller,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Answer {
    let now = (state.clock)();
    let change = ProfileChange::from_json(&body).map_err(crate::error::ServiceError::from)?;
    json(&edit::put(state.store.as_ref(), &state.ctx.profiles, &player, &change, now).await?)
}

/// The caller's friend list (PF-4).
#[utoipa::path(
    get,
    path = "/v1/me/friends",
    tag = "players",
    responses(
        (status = 200, description = "The ids stored (empty when never set)", body = friends::FriendList,
            example = json!({"player_id": "p-00003", "friends": ["p-00002", "p-00007"]})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_friends(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    json(&friends::get(state.store.as_ref(), &player).await?)
}

/// Replaces the caller's friend list (PF-4) with the ids the app got from its
/// platform; a friends view then ranks them (`/v1/leaderboards/{board}/friends`).
#[utoipa::path(
    put,
    path = "/v1/me/friends",
    tag = "players",
    request_body = FriendsBody,
    responses(
        (status = 200, description = "The list as stored", body = friends::FriendList,
            example = json!({"player_id": "p-00003", "friends": ["p-00002", "p-00007"]})),
        (status = 400, description = "Not a list of player ids, or more than 200", body = ErrorBody,
            example = json!({"error": "invalid", "message": "friends[3] (GM-5): ids are 1–128 characters of A–Z, a–z, 0–9, '.', '_', ':', '-', '|'"})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn put_friends(
    State(state): State<AppState>,
    Caller(player): Caller,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Answer {
    let ids = podium_rules::profile::friends_from_json(&body).map_err(crate::error::ServiceError::from)?;
    json(&friends::put(state.store.as_ref(), &player, &ids).await?)
}
