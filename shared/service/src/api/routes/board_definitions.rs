//! Operator routes of board definitions (BD-1 … BD-11, OP-5): create, list, read,
//! update and retire a defined board or event, each change audited, or previewed with
//! `dry_run`.

use axum::extract::State;
use podium_rules::board::definition::Definition;
use serde::{Deserialize, Serialize};

use crate::api::error::ErrorBody;
use crate::api::extract::{JsonBody, OperatorCaller, PathId};
use crate::api::state::AppState;
use crate::boards::definitions::{self, Head, Version};
use crate::error::ServiceError;
use crate::operators::board_definitions::{apply, Change, Changed};

use super::respond::*;

/// A definition created or changed by an operator.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DefinitionBody {
    /// Why (3–500 characters), kept in the audit trail (OP-5).
    #[schema(example = "the winter cup")]
    pub reason: String,
    /// Only check and answer what would be written (default false).
    #[serde(default)]
    pub dry_run: bool,
    /// The version this change replaces (an update; BD-10).
    #[serde(default)]
    pub version: Option<u32>,
    /// The definition (BD-1 … BD-9, `docs/rules/boards.md`); an update's `id` is the
    /// path's.
    #[schema(value_type = Object, example = json!({"id": "weekend-seega-wins", "title": "Weekend Seega wins",
        "game": "seega", "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "tie_breaks": [{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}],
        "schedule": {"kind": "window", "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z"}}))]
    pub definition: Definition,
}

/// A definition retired by an operator.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetireBody {
    /// Why (3–500 characters), kept in the audit trail (OP-5).
    pub reason: String,
    #[serde(default)]
    pub dry_run: bool,
    /// The version being retired (BD-10).
    pub version: u32,
}

/// Every definition, and the built-in boards as the definitions they equal.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct DefinitionList {
    pub boards: Vec<Head>,
    /// The built-in boards a definition expresses, read-only (BD-14): `seega`,
    /// `dots-and-boxes`, `minesweeper`, `mahjong-weekly`, `mahjong-daily` and the
    /// level rankings by the first (`mahjong-level-1`; level N's has `best_time`
    /// of level N). A copy under another id is a board of the same ranking.
    #[schema(value_type = Vec<Object>)]
    pub built_in: Vec<podium_rules::board::definition::Definition>,
}

/// One definition: its state and every version, oldest first.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct DefinitionView {
    pub head: Head,
    pub versions: Vec<Version>,
}

/// Creates a board definition (BD-1 … BD-11) as version 1, audited (OP-5); with
/// `dry_run`, checks it and answers what would be written. Operators only.
#[utoipa::path(
    post,
    path = "/v1/operator/boards",
    tag = "operators",
    request_body = DefinitionBody,
    responses(
        (status = 200, description = "Created (or, as a dry run, what would be)", body = Changed),
        (status = 400, description = "A rule the definition breaks, named with its field (BD-*), or a bad reason (OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 409, description = "The id exists (BD-1), or the game feeds its cap of active definitions (BD-11)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn create_board(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    JsonBody(body): JsonBody<DefinitionBody>,
) -> Answer {
    let now = (state.clock)();
    let change = Change::Create(body.definition);
    let who = (operator.as_str(), body.reason.as_str());
    json(
        &apply(
            state.store.as_ref(),
            change,
            who,
            now,
            state.ctx.max_board_definitions,
            body.dry_run,
        )
        .await?,
    )
}

/// Every board definition, retired ones too. Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/boards",
    tag = "operators",
    responses(
        (status = 200, description = "Every definition's state", body = DefinitionList),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn list_boards(State(state): State<AppState>, OperatorCaller(_): OperatorCaller) -> Answer {
    json(&DefinitionList {
        boards: definitions::list(state.store.as_ref()).await?,
        built_in: podium_rules::board::built_in::listed(),
    })
}

/// One board definition with every version (BD-10). Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/boards/{board}",
    tag = "operators",
    params(("board" = String, Path, description = "A defined board's id", example = "weekend-seega-wins")),
    responses(
        (status = 200, description = "The definition and its versions", body = DefinitionView),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such definition", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn read_board(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    PathId(board): PathId,
) -> Answer {
    let store = state.store.as_ref();
    let (head, _) = definitions::read(store, &board)
        .await?
        .ok_or_else(|| definitions::not_found(&board))?;
    json(&DefinitionView {
        head,
        versions: definitions::versions(store, &board).await?,
    })
}

/// Writes a board definition's next version (BD-10): effective at once, or from the
/// next period when it changes the board's history; audited (OP-5); with `dry_run`,
/// answered only. Operators only.
#[utoipa::path(
    put,
    path = "/v1/operator/boards/{board}",
    tag = "operators",
    params(("board" = String, Path, description = "A defined board's id", example = "weekend-seega-wins")),
    request_body = DefinitionBody,
    responses(
        (status = 200, description = "The versions before and after", body = Changed),
        (status = 400, description = "A rule the definition breaks, `version` missing, or the body's id not the path's", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such definition", body = ErrorBody),
        (status = 409, description = "Changed since `version`, retired, or a history change with no next period (BD-10)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn update_board(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PathId(board): PathId,
    JsonBody(body): JsonBody<DefinitionBody>,
) -> Answer {
    let bad = |message: &str| ServiceError::BadRequest {
        field: "definition",
        message: message.to_string(),
    };
    if body.definition.id != board {
        return Err(bad("definition.id must be the path's board").into());
    }
    let version = body.version.ok_or_else(|| ServiceError::BadRequest {
        field: "version",
        message: "the version this update replaces is required (BD-10)".into(),
    })?;
    let now = (state.clock)();
    let change = Change::Update {
        definition: body.definition,
        version,
    };
    let who = (operator.as_str(), body.reason.as_str());
    json(
        &apply(
            state.store.as_ref(),
            change,
            who,
            now,
            state.ctx.max_board_definitions,
            body.dry_run,
        )
        .await?,
    )
}

/// Retires a board definition: nothing feeds it from then on, its versions and
/// archives stay (BD-10); audited (OP-5). Operators only.
#[utoipa::path(
    post,
    path = "/v1/operator/boards/{board}/retire",
    tag = "operators",
    params(("board" = String, Path, description = "A defined board's id", example = "weekend-seega-wins")),
    request_body = RetireBody,
    responses(
        (status = 200, description = "The definition's state after", body = Changed),
        (status = 400, description = "A bad reason (OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such definition", body = ErrorBody),
        (status = 409, description = "Changed since `version`, or retired already (BD-10)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn retire_board(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PathId(board): PathId,
    JsonBody(body): JsonBody<RetireBody>,
) -> Answer {
    let now = (state.clock)();
    let change = Change::Retire {
        id: board,
        version: body.version,
    };
    let who = (operator.as_str(), body.reason.as_str());
    json(
        &apply(
            state.store.as_ref(),
            change,
            who,
            now,
            state.ctx.max_board_definitions,
            body.dry_run,
        )
        .await?,
    )
}

/// A definition to preview against past play (BD-13).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PreviewBody {
    /// The definition as it would be created (BD-1 … BD-9); its schedule's periods are
    /// those the window's results fall in.
    #[schema(value_type = Object, example = json!({"id": "weekend-seega-wins", "title": "Weekend Seega wins",
        "game": "seega", "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "tie_breaks": [{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}],
        "schedule": {"kind": "window", "start": "2026-11-27T22:00:00Z", "end": "2026-11-29T22:00:00Z"},
        "prizes": [{"from": 1, "to": 3, "points": 200}]}))]
    pub definition: Definition,
    /// The past play read: results that happened from `from` (UTC) …
    #[schema(example = "2026-11-27T22:00:00Z")]
    #[serde(deserialize_with = "podium_rules::record::instant::deserialize")]
    pub from: chrono::DateTime<chrono::Utc>,
    /// … until `to` (UTC, excluded; by now, within the last 400 days).
    #[schema(example = "2026-11-29T22:00:00Z")]
    #[serde(deserialize_with = "podium_rules::record::instant::deserialize")]
    pub to: chrono::DateTime<chrono::Utc>,
}

/// Every preview kept.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct PreviewList {
    /// Under way and finished, without their lines.
    pub previews: Vec<crate::operators::previews::Preview>,
}

/// Previews a definition against past play (BD-13): the board it would have produced
/// from the results settled in [from, to), per period its size, its top 20 and its
/// prize cost, before anything is written. Walked for about a second, then by the
/// ticks: an answer without `finished_at` is under way (read it again by its id). A
/// repeat of the same definition and window joins it. Operators only.
#[utoipa::path(
    post,
    path = "/v1/operator/board-previews",
    tag = "operators",
    request_body = PreviewBody,
    responses(
        (status = 200, description = "The preview, finished or under way", body = crate::operators::previews::Preview),
        (status = 400, description = "A rule the definition breaks, or a window not in the past 400 days (BD-13), named with its field", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn preview_board(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    JsonBody(body): JsonBody<PreviewBody>,
) -> Answer {
    let now = (state.clock)();
    json(
        &crate::operators::previews::run(
            state.store.as_ref(),
            body.definition,
            (body.from, body.to),
            now,
            state.ctx.operator_steps.budget(),
            crate::operators::previews::PAGE,
        )
        .await?,
    )
}

/// Every preview kept (finished ones for 24 hours), without their lines. Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/board-previews",
    tag = "operators",
    responses(
        (status = 200, description = "The previews", body = PreviewList),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn list_previews(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
) -> Answer {
    json(&PreviewList {
        previews: crate::operators::previews::list(state.store.as_ref()).await?,
    })
}

/// One preview (BD-13). Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/board-previews/{preview}",
    tag = "operators",
    params(("preview" = String, Path, description = "A preview's id", example = "3f2a9c41d07be5a8c2f1")),
    responses(
        (status = 200, description = "The preview, finished or under way", body = crate::operators::previews::Preview),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such preview (or finished more than 24 hours ago)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn read_preview(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    PathId(preview): PathId,
) -> Answer {
    let found = crate::operators::previews::read(state.store.as_ref(), &preview).await?;
    json(&found.ok_or_else(|| crate::operators::previews::not_found(&preview))?)
}
