//! Weekly leagues: the caller's league and a cohort's standings.

use axum::extract::State;
use chrono::{DateTime, Utc};
use podium_rules::period::Period;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::error::ErrorBody;
use crate::api::extract::{Authenticated, Caller, Params, PathId, PathPair};
use crate::api::state::AppState;
use crate::boards::live::{self};
use crate::error::ServiceError;
use crate::players::leagues;

use super::respond::*;

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
    let board = live::board_named(def.board)?;
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
pub(crate) async fn my_league(
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
        (status = 200, description = "The cohort's members ranked by their points this week (a member suspended now left out, the ranks below closed up, OP-4)", body = leagues::CohortView),
        (status = 400, description = "A malformed week", body = ErrorBody),
        (status = 404, description = "No such league or cohort", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn league_cohort(
    State(state): State<AppState>,
    _: Authenticated,
    PathPair(league, cohort): PathPair,
    Params(q): Params<WeekQuery>,
) -> Answer {
    let (def, week) = league_week(&league, q.week.as_deref(), (state.clock)())?;
    json(&leagues::cohort(state.store.as_ref(), def, &week, &cohort).await?)
}
