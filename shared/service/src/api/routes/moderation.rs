//! Operator actions (the `podium/operator` scope): corrections (OP-1), the review of
//! held records (OP-2, OP-3) and the audit trail (OP-5). The operator is the verified identity (the JWT's `sub`).

use axum::extract::State;
use podium_rules::game::Game;
use podium_rules::operator::Correction;
use serde::Deserialize;

use crate::api::error::ErrorBody;
use crate::api::extract::{JsonBody, OperatorCaller, Params, PathPair, PlayerPath};
use crate::api::state::AppState;
use crate::boards::cursor::Cursor;
use crate::error::ServiceError;
use crate::moderation::audit::{self, AuditEntry, Trail};
use crate::moderation::corrections::{self, CorrectionAnswer};
use crate::moderation::review::{self, HeldRecord, Verdict};

use super::respond::*;

/// A correction as the console sends it (OP-1).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CorrectionBody {
    /// The idempotency key the console chose for this correction (GM-5 id form): sent
    /// again after a lost reply, it applies once.
    #[schema(example = "fix-2026-12-02-0001")]
    pub correction_id: String,
    /// `seega`, `dots-and-boxes`, `minesweeper` or `mahjong-rivals`.
    #[schema(example = "seega")]
    pub game: String,
    /// The signed change (points), not 0, at most 1,000,000 either way.
    #[schema(example = -500)]
    pub points: i64,
    /// Why (3–500 characters): shown to the player in their point history.
    #[schema(example = "points won in a match the server scored twice")]
    pub reason: String,
}

/// Corrects a player's balance on one game (OP-1): a settlement like any other
/// source, floored at zero (SG-7), in the player's point history with its reason,
/// credited to the game's period boards in the periods of its instant, exactly once
/// by its `correction_id`, and recorded in the audit trail (OP-5). Operators only.
#[utoipa::path(
    post,
    path = "/v1/operator/players/{player_id}/corrections",
    tag = "operators",
    params(("player_id" = String, Path, description = "The player's id", example = "alice")),
    request_body = CorrectionBody,
    responses(
        (status = 200, description = "Applied now, or before with this key (`duplicate`)", body = CorrectionAnswer,
            example = json!({"correction_id": "fix-0001", "player_id": "alice", "game": "seega", "nominal": -500, "applied": -300, "balance_after": 0,
                "reason": "points won in a match the server scored twice", "operator": "support-7", "at": "2026-12-02T09:00:00Z", "duplicate": false})),
        (status = 400, description = "A refused field, named with its rule", body = ErrorBody,
            example = json!({"error": "invalid", "message": "points (OP-1): a correction is a whole number of points from −1000000 to 1000000 other than 0, not 0"})),
        (status = 403, description = "The caller is a player, not an operator; or the player is suspended (`suspended`: restore them first)", body = ErrorBody),
        (status = 404, description = "The player has no balance on that game", body = ErrorBody),
        (status = 409, description = "This `correction_id` was used with other content", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn post_correction(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PlayerPath(player_id): PlayerPath,
    JsonBody(body): JsonBody<CorrectionBody>,
) -> Answer {
    let game = Game::from_id(&body.game).ok_or_else(|| ServiceError::BadRequest {
        field: "game",
        message: "not a game podium scores".into(),
    })?;
    let correction = Correction {
        correction_id: body.correction_id,
        player_id,
        game,
        points: body.points,
        reason: body.reason,
    };
    let now = (state.clock)();
    json(&corrections::correct(state.store.as_ref(), correction, &operator, now).await?)
}

/// Whose audit entries to read: exactly one of `player`, `operator`, `day`, `board`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuditQuery {
    /// Entries about this player.
    pub player: Option<String>,
    /// Entries of this operator.
    pub operator: Option<String>,
    /// Entries of this UTC day (`YYYY-MM-DD`), every operator.
    pub day: Option<String>,
    /// Entries on this board in this period (`{board}@{period}`, e.g.
    /// `mahjong-weekly@2026-W48`): its closes, which name no player; or a defined
    /// board's id (`weekend-seega-wins`): its definition's changes (BD-10).
    pub board: Option<String>,
    /// Entries per page (1 … 200; default 50).
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A page of the audit trail, newest first.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub(crate) struct AuditPage {
    pub entries: Vec<AuditEntry>,
    /// Where the next page starts; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The audit trail (OP-5): every operator action about a player (each player a record
/// names finds its approval), by an operator, on a day, or on a board in a period (a
/// close), newest first. Append only; a deleted player's entries keep only the fact
/// of each action (GM-6). Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/audit",
    tag = "operators",
    params(AuditQuery),
    responses(
        (status = 200, description = "A page of entries", body = AuditPage,
            example = json!({"entries": [{"id": "fix-0001", "at": "2026-12-02T09:00:00Z", "operator": "support-7", "action": "correction",
                "target": "alice", "player_id": "alice", "reason": "points won in a match the server scored twice",
                "changes": {"game": "seega", "nominal": -500, "applied": -300, "balance_after": 0}}]})),
        (status = 400, description = "Not exactly one of `player`, `operator`, `day`, `board`; a board and period that do not exist; or a bad cursor", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn operator_audit(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    Params(q): Params<AuditQuery>,
) -> Answer {
    let bad = |field: &'static str, message: &str| ServiceError::BadRequest {
        field,
        message: message.into(),
    };
    let id = |field: &'static str, v: String| {
        if podium_rules::record::ids::is_valid_id(&v) {
            Ok(v)
        } else {
            Err(bad(field, "not an id"))
        }
    };
    let trail = 'trail: {
        match (q.player, q.operator, q.day, q.board) {
            (Some(p), None, None, None) => {
                // An internal owner is refused by name (GM-5); a deleted player's
                // pseudonym is a trail to read (their entries moved there, GM-6).
                if podium_rules::record::ids::player_id_form(&p)
                    == podium_rules::record::ids::PlayerIdForm::Internal
                {
                    podium_rules::record::ids::check_player_id("player", &p).map_err(ServiceError::from)?;
                }
                Trail::Player(id("player", p)?)
            }
            (None, Some(o), None, None) => Trail::Operator(id("operator", o)?),
            (None, None, None, Some(b)) => {
                // A board and one of its periods, as a close's target names them; or a
                // board definition (BD-10), for its changes.
                let Some((board, period)) = b.split_once('@') else {
                    let defined = podium_rules::board::definition::well_formed_id(&b)
                        && crate::boards::definitions::read(state.store.as_ref(), &b)
                            .await?
                            .is_some();
                    if !defined {
                        return Err(bad(
                        "board",
                        "a board and one of its periods, as `{board}@{period}`, or a defined board's id (OP-5)",
                    )
                    .into());
                    }
                    break 'trail Trail::Board(format!("board-definition/{b}"));
                };
                let Some(def) = podium_rules::board::board_def(board) else {
                    // A defined board's close (BD-9), by a period it names.
                    let named = match crate::boards::defined::resolve(state.store.as_ref(), board).await? {
                        Some(known) => known.names_period(period).map_err(|e| e.message),
                        None => Err(format!("no board {}", podium_rules::error::quoted(board))),
                    };
                    if let Err(message) = named {
                        return Err(ServiceError::BadRequest {
                            field: "board",
                            message,
                        }
                        .into());
                    }
                    break 'trail Trail::Board(b);
                };
                if let Err(e) = podium_rules::period::Period::parse(def.period, def.zone, period) {
                    return Err(ServiceError::BadRequest {
                        field: "board",
                        message: format!(
                            "not a period of {}: {}",
                            podium_rules::error::quoted(board),
                            e.message
                        ),
                    }
                    .into());
                }
                Trail::Board(b)
            }
            (None, None, Some(d), None) => {
                // Exactly YYYY-MM-DD (chrono alone takes a sign or a short year).
                let strict = d.len() == 10
                    && d.bytes().enumerate().all(|(i, b)| {
                        if i == 4 || i == 7 {
                            b == b'-'
                        } else {
                            b.is_ascii_digit()
                        }
                    });
                let day = chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d")
                    .ok()
                    .filter(|_| strict);
                Trail::Day(day.ok_or_else(|| bad("day", "a date is YYYY-MM-DD"))?)
            }
            _ => return Err(bad("query", "give exactly one of player, operator, day, board").into()),
        }
    };
    let limit = q.limit.unwrap_or(50);
    if !(1..=audit::MAX_PAGE).contains(&limit) {
        return Err(bad("limit", "from 1 to 200").into());
    }
    let scope = format!("audit:{trail:?}");
    let before = match q
        .cursor
        .as_deref()
        .map(|c| state.ctx.cursors.open_in(&scope, c))
        .transpose()?
    {
        Some(Cursor::Key { key }) => Some(key),
        Some(_) => return Err(crate::boards::cursor::foreign().into()),
        None => None,
    };
    let (entries, next) = audit::read(state.store.as_ref(), &trail, before.as_deref(), limit).await?;
    json(&AuditPage {
        entries,
        next_cursor: next.map(|key| state.ctx.cursors.issue_in(&scope, Cursor::Key { key })),
    })
}

/// Where the review queue is read from.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct QueueQuery {
    /// Records per page (1 … 100; default 50).
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A page of the review queue, oldest first.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub(crate) struct QueuePage {
    pub held: Vec<HeldRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The review queue (OP-2): records held because they broke a plausibility check,
/// counted nowhere until decided, oldest first, each with the check it broke and the
/// record as the game server sent it. Operators only.
#[utoipa::path(
    get,
    path = "/v1/operator/review",
    tag = "operators",
    params(QueueQuery),
    responses(
        (status = 200, description = "A page of held records", body = QueuePage,
            example = json!({"held": [{"kind": "dots-and-boxes", "id": "db-17", "players": ["alice", "bob"], "held_at": "2026-12-02T09:00:00Z",
                "cause": {"cause": "plausibility", "check": "min_duration_ms", "message": "the match lasted 4000 ms; the shortest plausible dots-and-boxes match is 60000 ms"},
                "state": "held", "content_hash": "9f2c…", "record": "{\"match_id\":\"db-17\",…}"}]})),
        (status = 400, description = "A bad limit or cursor", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn review_queue(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    Params(q): Params<QueueQuery>,
) -> Answer {
    let limit = q.limit.unwrap_or(50);
    if !(1..=100).contains(&limit) {
        return Err(ServiceError::BadRequest {
            field: "limit",
            message: "from 1 to 100".into(),
        }
        .into());
    }
    const SCOPE: &str = "review";
    let after = match q
        .cursor
        .as_deref()
        .map(|c| state.ctx.cursors.open_in(SCOPE, c))
        .transpose()?
    {
        Some(Cursor::Key { key }) => Some(key),
        Some(_) => return Err(crate::boards::cursor::foreign().into()),
        None => None,
    };
    let (held, next) = review::queue(state.store.as_ref(), after.as_deref(), limit).await?;
    json(&QueuePage {
        held,
        next_cursor: next.map(|key| state.ctx.cursors.issue_in(SCOPE, Cursor::Key { key })),
    })
}

/// An operator's decision on a held record (OP-3).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DecisionBody {
    /// `approve`: settle it once, credited to the periods of its own instant;
    /// `reject`: never apply it.
    pub verdict: Verdict,
    /// Why (3–500 characters), kept in the audit trail.
    #[schema(example = "replay checked: a fast but fair match")]
    pub reason: String,
}

/// Approves or rejects a held record (OP-3), recorded in the audit trail (OP-5). An
/// approval settles it exactly once, however often it is sent or by how many
/// operators at once; a record's settlement the rules refuse on approval (a player
/// deleted meanwhile) ends `rejected` with the rules' reason. Operators only.
#[utoipa::path(
    post,
    path = "/v1/operator/review/{kind}/{id}",
    tag = "operators",
    params(
        ("kind" = String, Path, description = "The held record's kind", example = "dots-and-boxes"),
        ("id" = String, Path, description = "The held record's id (its match id)", example = "db-17"),
    ),
    request_body = DecisionBody,
    responses(
        (status = 200, description = "The record as decided", body = HeldRecord),
        (status = 400, description = "A refused field (the reason: OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator; or an approval names a suspended player (`suspended`: it settles when sent again after the restore)", body = ErrorBody),
        (status = 404, description = "No such held record", body = ErrorBody),
        (status = 409, description = "It was decided the other way", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn review_decide(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PathPair(kind, id): PathPair,
    JsonBody(body): JsonBody<DecisionBody>,
) -> Answer {
    let now = (state.clock)();
    json(
        &review::decide(
            state.store.as_ref(),
            (&kind, &id),
            body.verdict,
            (&operator, &body.reason),
            now,
            &state.ctx.records,
        )
        .await?,
    )
}

/// Everything podium stores about a player, as one JSON document (GDPR Art. 15 and
/// 20): balances, ledger, period entries, the results their ledger names, claims,
/// the inbox, leagues and other state items, follows, profile, friends, held records,
/// audit entries. Operators only; `podium export-player ID` prints the same.
#[utoipa::path(
    get,
    path = "/v1/operator/players/{player_id}/export",
    tag = "operators",
    params(("player_id" = String, Path, description = "The player's id", example = "alice")),
    responses(
        (status = 200, description = "The player's data", body = crate::operators::export::PlayerExport),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "Nothing is stored about this player", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn export_player(
    State(state): State<AppState>,
    OperatorCaller(_): OperatorCaller,
    PlayerPath(player_id): PlayerPath,
) -> Answer {
    let now = (state.clock)();
    json(&crate::operators::export::export_player(state.store.as_ref(), &player_id, now).await?)
}

/// Why an operator acts (OP-5).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReasonBody {
    /// Why (3–500 characters), kept in the audit trail.
    #[schema(example = "reported for a modified client; under review")]
    pub reason: String,
}

/// Why an operator deletes a player (OP-5), and whether an id nothing is stored
/// under is blocked ahead (GM-6).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeleteBody {
    /// Why (3–500 characters), kept in the audit trail.
    #[schema(example = "account removal requested by the player")]
    pub reason: String,
    /// Delete (block) the id even when nothing is stored under it (a player who only
    /// holds a profile, or an id to block ahead of any record); without it such an id
    /// answers 404, so that a mistyped id is not blocked for good.
    #[serde(default)]
    pub even_if_unknown: bool,
}

/// Suspends a player (OP-4): from now on no read shows them (pages, around-me,
/// standing, cohorts, friends, country views, frozen archives; the ranks below close
/// up), their calls are refused (403) and the records naming them are held, not
/// scored and not lost; nothing of theirs is removed. Restorable for the configured
/// window. Operators only; recorded in the audit trail first, then hidden board by
/// board for about a second: a player on more boards than that answers 202 and the
/// next ticks finish it.
#[utoipa::path(
    post,
    path = "/v1/operator/players/{player_id}/suspend",
    tag = "operators",
    params(("player_id" = String, Path, description = "The player's id", example = "alice")),
    request_body = ReasonBody,
    responses(
        (status = 200, description = "Suspended now, or before (`unchanged`)", body = crate::moderation::suspensions::SuspensionAnswer),
        (status = 202, description = "Suspended (the player's calls are refused, their records held, the audit entry written) and still being hidden from their boards (`done` false): the next ticks finish it, `GET /v1/operator/jobs` shows it; asking again joins it", body = crate::moderation::suspensions::SuspensionAnswer),
        (status = 400, description = "A refused field (the reason: OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "Nothing is stored about the player, or they were deleted", body = ErrorBody),
        (status = 409, description = "OP-4: a restore sent meanwhile lifted this suspension while it was being applied: it held until then, and both are in the audit trail", body = ErrorBody,
            example = json!({"error": "conflict", "message": "player_id (OP-4): conflict: a restore lifted this suspension while it was being applied (both are in the audit trail)"})),
        (status = 503, description = "A restore of an earlier suspension is under way, or the store failed: send it again (a suspension that began is finished by its repeat)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn suspend_player(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PlayerPath(player_id): PlayerPath,
    JsonBody(body): JsonBody<ReasonBody>,
) -> Answer {
    let now = (state.clock)();
    let answer = crate::operators::player_actions::suspend(
        state.store.as_ref(),
        &player_id,
        (&operator, &body.reason),
        state.ctx.restore_days,
        now,
        state.ctx.operator_steps.budget(),
    )
    .await?;
    state.ctx.cache.forget();
    accepted_unless(answer.done, json(&answer))
}

/// Restores a suspended player (OP-4) within the restore window: every read shows
/// them again as before (a live board's from its next refresh), and the records held
/// meanwhile are settled in the order they arrived, each once. Operators only;
/// recorded in the audit trail first, then shown board by board for about a second:
/// a restore that needs longer answers 202 and the next ticks finish it.
#[utoipa::path(
    post,
    path = "/v1/operator/players/{player_id}/restore",
    tag = "operators",
    params(("player_id" = String, Path, description = "The player's id", example = "alice")),
    request_body = ReasonBody,
    responses(
        (status = 200, description = "Restored, with the held records settled", body = crate::moderation::suspensions::SuspensionAnswer),
        (status = 202, description = "Restoring (state `restoring`, `done` false; the audit entry written): the player is being shown again board by board and is still suspended until the next ticks finish it (`GET /v1/operator/jobs`); asking again joins it", body = crate::moderation::suspensions::SuspensionAnswer),
        (status = 400, description = "A refused field (the reason: OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "The player is not suspended", body = ErrorBody),
        (status = 409, description = "Past the restore window: only a deletion ends it", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn restore_player(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PlayerPath(player_id): PlayerPath,
    JsonBody(body): JsonBody<ReasonBody>,
) -> Answer {
    let now = (state.clock)();
    let answer = crate::operators::player_actions::restore(
        state.store.as_ref(),
        &player_id,
        (&operator, &body.reason),
        now,
        &state.ctx.records,
        state.ctx.operator_steps.budget(),
    )
    .await?;
    state.ctx.cache.forget();
    accepted_unless(answer.done, json(&answer))
}

/// A period close an operator runs.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CloseBody {
    /// Why (3–500 characters), kept in the audit trail.
    #[schema(example = "the tick missed the week: the scheduler was disabled")]
    pub reason: String,
    /// Only say what the close would send, to whom (default false).
    #[serde(default)]
    pub dry_run: bool,
}

/// Closes an ended period of a period board (LB-5), built-in or defined (BD-9: the
/// prize table at the period's end): freezes it when no tick did, then
/// sends each ranked player's result with the board's reward exactly once (a close run
/// again sends only what was never sent), and closes the league's week. With
/// `dry_run`, only lists what would be sent, to whom. Operators only; an applied close
/// is recorded in the audit trail before anything is done, then works for about a
/// second: a close (or a dry run, which looks every result up) that needs longer
/// answers 202 and the next ticks carry it on.
#[utoipa::path(
    post,
    path = "/v1/operator/periods/{board}/{period}/close",
    tag = "operators",
    params(
        ("board" = String, Path, description = "A period board, built-in or defined", example = "mahjong-weekly"),
        ("period" = String, Path, description = "An ended period of it", example = "2026-W48"),
    ),
    request_body = CloseBody,
    responses(
        (status = 200, description = "What was (or would be) sent: the close is done, or the dry run checked every result", body = crate::operators::periods::PeriodOperation),
        (status = 202, description = "Accepted and under way (`done` false; a dry run: `checked` below `ranked`): an applied close's audit entry is written, the next ticks carry it on, `GET /v1/operator/jobs` shows it; asking again joins it", body = crate::operators::periods::PeriodOperation),
        (status = 400, description = "Not a period board, a period not ended or malformed, or a bad reason", body = ErrorBody),
        (status = 409, description = "A league's week while an earlier week is not closed yet (weeks close in order, LB-5), or a defined board retired before the period ended (BD-9: its prizes are cancelled)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "No such board, or a defined board's period it no longer keeps (BD-6)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn close_period(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PathPair(board, period): PathPair,
    JsonBody(body): JsonBody<CloseBody>,
) -> Answer {
    let now = (state.clock)();
    let op = crate::operators::periods::close_period_within(
        state.store.as_ref(),
        (&board, &period),
        body.dry_run,
        &state.ctx.rewards,
        (&operator, &body.reason),
        now,
        state.ctx.operator_steps.budget(),
        state.ctx.records.max_record_age_days,
    )
    .await?;
    accepted_unless(op.finished(), json(&op))
}

/// An operator action's answer: 202 (accepted, under way: the next ticks carry it on,
/// `GET /v1/operator/jobs` shows it) unless `done`.
fn accepted_unless(done: bool, answer: Answer) -> Answer {
    let mut answer = answer?;
    if !done {
        *answer.status_mut() = axum::http::StatusCode::ACCEPTED;
    }
    Ok(answer)
}

/// Removes a player's display name (PF-1), their avatar and country kept: every entry
/// shows it gone from the next snapshot refresh. Operators only; recorded in the audit
/// trail.
#[utoipa::path(
    post,
    path = "/v1/operator/players/{player_id}/name-reset",
    tag = "operators",
    params(("player_id" = String, Path, description = "The player's id", example = "alice")),
    request_body = ReasonBody,
    responses(
        (status = 200, description = "The profile as stored now", body = crate::profiles::edit::ProfileView),
        (status = 400, description = "Not a player id, or a refused reason (OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "Nothing is stored under this id, or the player was deleted", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn reset_name(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PlayerPath(player_id): PlayerPath,
    JsonBody(body): JsonBody<ReasonBody>,
) -> Answer {
    let now = (state.clock)();
    json(
        &crate::moderation::names::reset_name(
            state.store.as_ref(),
            &state.ctx.profiles,
            &player_id,
            (&operator, &body.reason),
            now,
        )
        .await?,
    )
}

/// Deletes a player (GM-6): off every board, snapshot and period, the ledger
/// anonymised, their profile, friends and audit entries erased (the trail keeps the
/// fact of each action, under the pseudonym, and of this deletion). Resumable: an
/// interrupted deletion is finished by sending it again. A suspended player can be
/// deleted (the deletion takes over the suspension). Operators only; recorded in the
/// audit trail first, then works for about a second: a deletion that needs longer
/// answers 202 and the next ticks carry it on.
#[utoipa::path(
    post,
    path = "/v1/operator/players/{player_id}/delete",
    tag = "operators",
    params(("player_id" = String, Path, description = "The player's id", example = "alice")),
    request_body = DeleteBody,
    responses(
        (status = 200, description = "What the deletion removed", body = crate::operators::deletion::DeletionReport),
        (status = 202, description = "Deleting (`done` false; the audit entry written, the player refused everywhere): the next ticks finish erasing them from every board and result (`GET /v1/operator/jobs`); asking again joins it", body = crate::operators::deletion::DeletionReport),
        (status = 400, description = "A refused field (the reason: OP-5)", body = ErrorBody),
        (status = 403, description = "The caller is a player, not an operator", body = ErrorBody),
        (status = 404, description = "Nothing is stored under this id (send `even_if_unknown` to block it ahead)", body = ErrorBody),
    ),
    security(("jwt" = ["podium/operator"]))
)]
pub(crate) async fn delete_player(
    State(state): State<AppState>,
    OperatorCaller(operator): OperatorCaller,
    PlayerPath(player_id): PlayerPath,
    JsonBody(body): JsonBody<DeleteBody>,
) -> Answer {
    let now = (state.clock)();
    let report = crate::operators::player_actions::delete(
        state.store.as_ref(),
        &player_id,
        (&operator, &body.reason),
        now,
        body.even_if_unknown,
        state.ctx.operator_steps.budget(),
    )
    .await?;
    state.ctx.cache.forget();
    accepted_unless(report.done, json(&report))
}
