//! Teams (TM-1 … TM-7): create, read, join, leave, invite, remove, pass, and a team's
//! members by contribution on a team board.

use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::error::ErrorBody;
use crate::api::extract::{Caller, JsonBody, OperatorCaller, Params, PathId, PathPair};
use crate::api::state::AppState;
use crate::teams::{actions, view};

use super::respond::*;

const TEAM_EXAMPLE: &str = r#"{"team_id": "k3m9q2x7p1ab", "name": "Night Owls", "avatar": "a07", "country": "RO", "access": "open", "owner": "p-00003",
  "members": [{"player_id": "p-00003", "card": {"name": "Ionela", "country": "RO"}, "joined_at": "2026-12-07T09:00:00Z"}],
  "member_count": 1, "member_cap": 50, "invites": [], "created_at": "2026-12-07T09:00:00Z"}"#;

fn team_example() -> serde_json::Value {
    serde_json::from_str(TEAM_EXAMPLE).unwrap_or_default()
}

/// A player named in a body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerBody {
    /// A player's id (GM-5).
    pub player_id: String,
}

/// The caller creates a team and is its owner and first member (TM-1 … TM-3).
#[utoipa::path(
    post,
    path = "/v1/teams",
    tag = "teams",
    request_body(content = actions::NewTeam, example = json!({"name": "Night Owls", "avatar": "a07", "country": "RO", "access": "open"})),
    responses(
        (status = 200, description = "The team created", body = view::TeamView, example = team_example),
        (status = 400, description = "A refused field, named with its rule: `name` (PF-1), `avatar` (PF-2), `country` (PF-3), `caller` (TM-2: a member of a team already; TM-3: within the cooldown)", body = ErrorBody,
            example = json!({"error": "invalid", "message": "caller (TM-3): the player left a team at 2026-12-07T05:44:12.429Z: they may join a team from 2026-12-14T05:44:12.429Z (7 days later)"})),
        (status = 403, description = "The caller is suspended (OP-4)", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn create_team(
    State(state): State<AppState>,
    Caller(player): Caller,
    JsonBody(body): JsonBody<actions::NewTeam>,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let team = actions::create(store, &player, body, (&ctx.teams, &ctx.profiles), now).await?;
    json(&view::of(store, team, &player, &ctx.teams).await?)
}

/// A team: its card, owner and members (suspended members hidden, OP-4); its pending
/// invitations to its members only.
#[utoipa::path(
    get,
    path = "/v1/teams/{team_id}",
    tag = "teams",
    params(("team_id" = String, Path, description = "A team's id: 12 characters of `0-9a-z`", example = "k3m9q2x7p1ab")),
    responses(
        (status = 200, description = "The team", body = view::TeamView, example = team_example),
        (status = 404, description = "No such team, or disbanded (TM-5)", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn get_team(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(team): PathId,
) -> Answer {
    json(&view::team(state.store.as_ref(), &team, &player, &state.ctx.teams).await?)
}

/// The caller joins a team (TM-1 … TM-3): an open one, or one that invited them (an
/// invitation accepted). A member already: the team as it is.
#[utoipa::path(
    post,
    path = "/v1/teams/{team_id}/join",
    tag = "teams",
    params(("team_id" = String, Path, description = "A team's id", example = "k3m9q2x7p1ab")),
    responses(
        (status = 200, description = "The team joined", body = view::TeamView, example = team_example),
        (status = 400, description = "Refused, naming `team_id` and the rule: TM-2 (the team is full, or the caller is a member of another), TM-3 (within the cooldown after leaving a team)", body = ErrorBody,
            example = json!({"error": "invalid", "message": "team_id (TM-2): the team is full: 50 members at most"})),
        (status = 403, description = "An invite-only team that has not invited the caller (TM-1), or the caller is suspended (OP-4)", body = ErrorBody,
            example = json!({"error": "forbidden", "message": "forbidden: team_id (TM-1): this team is invite-only: a member's invitation is needed"})),
        (status = 404, description = "No such team, or disbanded", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn join_team(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(team): PathId,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let team = actions::join(store, &player, &team, &ctx.teams, now).await?;
    json(&view::of(store, team, &player, &ctx.teams).await?)
}

/// The caller's team and memberships, when in no team within TM-3's cooldown from
/// when they may join one, and the invitations that still stand (joining accepts one).
#[utoipa::path(
    get,
    path = "/v1/me/team",
    tag = "teams",
    responses(
        (status = 200, description = "The caller's team (absent when in none), memberships (oldest first) and standing invitations", body = view::MyTeam,
            example = json!({"memberships": [{"team_id": "k3m9q2x7p1ab", "joined_at": "2026-12-01T09:00:00Z", "left_at": "2026-12-05T10:00:00Z", "disbanded": false}], "may_join_at": "2026-12-12T10:00:00Z",
                "invitations": [{"team_id": "q8w2e5r7t1yu", "name": "Night Owls", "member_count": 12, "invited_at": "2026-12-06T18:30:00Z"}]})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn my_team(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    let now = (state.clock)();
    json(&view::mine(state.store.as_ref(), &player, &state.ctx.teams, now).await?)
}

/// The caller leaves their team (TM-5: an owner passes ownership to the
/// longest-standing member; the last member disbands the team). Their points until
/// now stay with the team (TM-4); TM-3's cooldown starts.
#[utoipa::path(
    post,
    path = "/v1/me/team/leave",
    tag = "teams",
    responses(
        (status = 200, description = "The caller's memberships after leaving", body = view::MyTeam),
        (status = 404, description = "The caller is in no team", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn leave_team(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    actions::leave(store, &player, &ctx.teams, now).await?;
    json(&view::mine(store, &player, &ctx.teams, now).await?)
}

/// A member invites a player to their team (TM-1); the invited player accepts by
/// joining.
#[utoipa::path(
    post,
    path = "/v1/teams/{team_id}/invites",
    tag = "teams",
    params(("team_id" = String, Path, description = "A team's id", example = "k3m9q2x7p1ab")),
    request_body(content = PlayerBody, example = json!({"player_id": "p-00007"})),
    responses(
        (status = 200, description = "The team with the invitation", body = view::TeamView),
        (status = 400, description = "`player_id` is no player's id (GM-5, GM-6)", body = ErrorBody),
        (status = 403, description = "The caller is no member of the team", body = ErrorBody),
        (status = 404, description = "No such team", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn invite_to_team(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(team): PathId,
    JsonBody(body): JsonBody<PlayerBody>,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let team = actions::invite(store, &player, &team, &body.player_id, now).await?;
    json(&view::of(store, team, &player, &ctx.teams).await?)
}

/// The owner removes a member (TM-5); the member's points until now stay with the
/// team (TM-4) and their cooldown starts (TM-3).
#[utoipa::path(
    post,
    path = "/v1/teams/{team_id}/remove",
    tag = "teams",
    params(("team_id" = String, Path, description = "A team's id", example = "k3m9q2x7p1ab")),
    request_body(content = PlayerBody, example = json!({"player_id": "p-00007"})),
    responses(
        (status = 200, description = "The team without them", body = view::TeamView),
        (status = 400, description = "`player_id` is no player's id, or the owner's own (who leaves instead)", body = ErrorBody),
        (status = 403, description = "The caller is not the team's owner", body = ErrorBody),
        (status = 404, description = "No such team, or no such member", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn remove_from_team(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(team): PathId,
    JsonBody(body): JsonBody<PlayerBody>,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let team = actions::remove(store, &player, &team, &body.player_id, now).await?;
    json(&view::of(store, team, &player, &ctx.teams).await?)
}

/// The owner passes ownership to a member (TM-5).
#[utoipa::path(
    post,
    path = "/v1/teams/{team_id}/owner",
    tag = "teams",
    params(("team_id" = String, Path, description = "A team's id", example = "k3m9q2x7p1ab")),
    request_body(content = PlayerBody, example = json!({"player_id": "p-00007"})),
    responses(
        (status = 200, description = "The team with its new owner", body = view::TeamView),
        (status = 400, description = "`player_id` is no member (TM-5)", body = ErrorBody),
        (status = 403, description = "The caller is not the team's owner", body = ErrorBody),
        (status = 404, description = "No such team", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn pass_team(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(team): PathId,
    JsonBody(body): JsonBody<PlayerBody>,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let team = actions::pass(store, &player, &team, &body.player_id, now).await?;
    json(&view::of(store, team, &player, &ctx.teams).await?)
}

/// The query of a team's contribution list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContributionQuery {
    /// A period id of the board's schedule; the current period by default.
    #[param(value_type = Option<String>, example = "2026-W50")]
    period: Option<String>,
}

/// A team's members ranked by what they brought on a team board in a period (TM-4,
/// TM-7), suspended members hidden and out of the total (OP-4); a member who left
/// keeps the line of what they brought while a member.
#[utoipa::path(
    get,
    path = "/v1/teams/{team_id}/boards/{board}",
    tag = "teams",
    params(
        ("team_id" = String, Path, description = "A team's id", example = "k3m9q2x7p1ab"),
        ("board" = String, Path, description = "A team board's id (a defined board with `teams`, TM-7)", example = "seega-teams-weekly"),
        ContributionQuery,
    ),
    responses(
        (status = 200, description = "The members by contribution, largest first", body = view::ContributionList,
            example = json!({"team_id": "k3m9q2x7p1ab", "board": "seega-teams-weekly", "period": "2026-W50", "total": 900,
                "members": [{"rank": 1, "player_id": "p-00003", "card": {"name": "Ionela"}, "value": 600},
                            {"rank": 2, "player_id": "p-00007", "card": {}, "value": 300}]})),
        (status = 400, description = "A defined board of players (TM-7), or a period the board has none of (BD-6)", body = ErrorBody,
            example = json!({"error": "invalid", "message": "board (TM-7): this board ranks players, not teams"})),
        (status = 404, description = "No such team, or no defined board of that id (a built-in board is none)", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn team_board(
    State(state): State<AppState>,
    _: Caller,
    PathPair(team, board): PathPair,
    Params(q): Params<ContributionQuery>,
) -> Answer {
    let now = (state.clock)();
    json(&view::contributions(state.store.as_ref(), &team, &board, q.period.as_deref(), now).await?)
}

/// An operator's rename of a team (OP-5).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamRenameBody {
    /// Why (3–500 characters), kept in the audit trail.
    pub reason: String,
    /// The new name (PF-1).
    pub name: String,
}

/// Why an operator disbands a team (OP-5).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamDisbandBody {
    /// Why (3–500 characters), kept in the audit trail.
    pub reason: String,
}

/// Renames a team (PF-1's rules for the name): its card on every team board from the
/// next refresh. Operators only; recorded in the audit trail (OP-5).
#[utoipa::path(
    post,
    path = "/v1/operator/teams/{team_id}/rename",
    tag = "operators",
    params(("team_id" = String, Path, description = "A team's id", example = "k3m9q2x7p1ab")),
    request_body(content = TeamRenameBody, example = json!({"reason": "an offensive name reported", "name": "Team 4417"})),
    responses(
        (status = 200, description = "The team renamed", body = view::TeamView),
        (status = 400, description = "A refused name (PF-1) or reason (OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such team, or disbanded", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn rename_team(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PathId(team): PathId,
    JsonBody(body): JsonBody<TeamRenameBody>,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let team = crate::moderation::teams::rename(
        store,
        &ctx.profiles,
        &team,
        &body.name,
        (&operator, &body.reason),
        now,
    )
    .await?;
    json(&view::of(store, team, "", &ctx.teams).await?)
}

/// Disbands a team: it takes no one, its members are released at once (no cooldown,
/// TM-3) and their points until now stay with it (TM-4). Safe to repeat (a rerun
/// finishes an interrupted disbanding). Operators only; recorded in the audit trail
/// (OP-5).
#[utoipa::path(
    post,
    path = "/v1/operator/teams/{team_id}/disband",
    tag = "operators",
    params(("team_id" = String, Path, description = "A team's id", example = "k3m9q2x7p1ab")),
    request_body(content = TeamDisbandBody, example = json!({"reason": "a team trading accounts"})),
    responses(
        (status = 200, description = "The team as disbanded: `disbanded_at` set, its last members listed", body = DisbandedTeam,
            example = json!({"team_id": "k3m9q2x7p1ab", "name": "Night Owls", "members": ["p-00003", "p-00007"], "disbanded_at": "2026-12-07T10:00:00Z"})),
        (status = 400, description = "A refused reason (OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such team", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn disband_team(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PathId(team): PathId,
    JsonBody(body): JsonBody<TeamDisbandBody>,
) -> Answer {
    let now = (state.clock)();
    let team = crate::moderation::teams::disband(state.store.as_ref(), &team, (&operator, &body.reason), now)
        .await?;
    json(&DisbandedTeam {
        members: team.roster.members.iter().map(|(p, _)| p.clone()).collect(),
        team_id: team.team_id,
        name: team.name,
        disbanded_at: team.disbanded_at.unwrap_or(now),
    })
}

/// A team as an operator disbanded it.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct DisbandedTeam {
    pub team_id: String,
    pub name: String,
    /// Its members when disbanded, released.
    pub members: Vec<String>,
    pub disbanded_at: chrono::DateTime<chrono::Utc>,
}

/// The query of an operator's team read.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OperatorTeamQuery {
    /// A team board's id: its members' contributions are listed too.
    #[param(value_type = Option<String>, example = "seega-teams-weekly")]
    board: Option<String>,
    /// A period id of that board; the current period by default.
    #[param(value_type = Option<String>)]
    period: Option<String>,
}

/// A team as the support console shows it.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct OperatorTeam {
    pub team: view::TeamView,
    /// With `board`: the members by contribution in the period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contributions: Option<view::ContributionList>,
}

/// A team as the support console shows it: its members (suspended ones hidden, OP-4),
/// invitations and, with `board`, its members' contributions there. Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/teams/{team_id}",
    tag = "operators",
    params(("team_id" = String, Path, description = "A team's id", example = "k3m9q2x7p1ab"), OperatorTeamQuery),
    responses(
        (status = 200, description = "The team", body = OperatorTeam,
            example = json!({"team": {"team_id": "k3m9q2x7p1ab", "name": "Night Owls", "access": "open", "owner": "p-00003",
                "members": [{"player_id": "p-00003", "card": {"name": "Ionela"}, "joined_at": "2026-12-07T09:00:00Z"}],
                "member_count": 1, "member_cap": 50, "invites": [], "created_at": "2026-12-07T09:00:00Z"},
                "contributions": {"team_id": "k3m9q2x7p1ab", "board": "seega-teams-weekly", "period": "2026-W50", "total": 600,
                "members": [{"rank": 1, "player_id": "p-00003", "card": {"name": "Ionela"}, "value": 600}]}})),
        (status = 400, description = "`board` ranks players (TM-7), or `period` is none of its periods", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such team, or no such defined board", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn operator_team(
    State(state): State<AppState>,
    _: OperatorCaller,
    PathId(team): PathId,
    Params(q): Params<OperatorTeamQuery>,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    if q.board.is_none() && q.period.is_some() {
        return Err(crate::error::ServiceError::BadRequest {
            field: "period",
            message: "a period of the team board named by `board`: give `board` too".into(),
        }
        .into());
    }
    let shown = view::for_operator(store, &team, &ctx.teams).await?;
    let contributions = match q.board.as_deref() {
        Some(board) => Some(view::contributions(store, &team, board, q.period.as_deref(), now).await?),
        None => None,
    };
    json(&OperatorTeam {
        team: shown,
        contributions,
    })
}
