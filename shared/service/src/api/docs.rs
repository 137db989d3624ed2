//! The OpenAPI 3.1 description, generated from the handlers' annotations: the routes
//! registered here are both the router's and the document's, so no route can be
//! served undocumented.

use std::sync::OnceLock;

use axum::response::{IntoResponse, Response as HttpResponse};
use bytes::Bytes;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi as Document, RefOr, Response, ResponseBuilder};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ErrorBody;
use super::routes::{
    ads::*, board_definitions::*, boards::*, leagues::*, mahjong::*, me::*, messages::*, moderation::*,
    operator::*, profiles::*, teams::*,
};
use super::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "podium",
        description = "The leaderboard and rewards API of the casual games platform: ranked pages of every board and period, the caller's own standing, profiles, match results, Mahjong Rivals' Arenas and tournaments, the daily bonus and rewarded-ad callbacks. Deployed behind API Gateway with a JWT authorizer; the caller is the token's `sub`. Values are integer points, or milliseconds on a level's time ranking; instants are UTC (RFC 3339).",
        license(name = "Apache-2.0", identifier = "Apache-2.0")
    ),
    servers(
        (url = "/", description = "The host that serves this description: a deployed stack's API, or `podium serve`"),
        (url = "https://{api_id}.execute-api.{region}.amazonaws.com", description = "A deployed stack's HTTP API (its `ApiUrl` output; the `$default` stage has no prefix)",
            variables(
                ("api_id" = (default = "abcdef1234", description = "The HTTP API's id, from the stack's ApiUrl output")),
                ("region" = (default = "eu-central-1", description = "The stack's AWS region"))
            )),
        (url = "http://127.0.0.1:8080", description = "`podium serve` on its default port (development: `Authorization: Dev <player-id>`)")
    ),
    components(schemas(ErrorBody)),
    tags(
        (name = "leaderboards", description = "Ranked pages and the caller's standing (LB-1 … LB-7)"),
        (name = "players", description = "The caller's profiles and match results"),
        (name = "teams", description = "Teams (clans) that rank together on team boards (TM-1 … TM-7)"),
        (name = "mahjong", description = "Mahjong Rivals: Arenas, tournaments, the daily bonus"),
        (name = "ad callbacks", description = "Rewarded-ad callbacks, authenticated by their signatures"),
        (name = "operators", description = "Support staff: a player's overview, any board, corrections and the audit trail (JWT with the `podium/operator` scope)"),
        (name = "meta", description = "This description"),
    )
)]
struct ApiDoc;

/// Every route, once: each group is the handlers of one path. `$with!` receives the
/// list: [`api_router`] documents it, [`serving_router`] only routes it.
macro_rules! every_route {
    ($with:ident) => {
        $with!(
            [board_list],
            [board_join],
            [board_page],
            [board_me],
            [board_friends],
            [my_profile, put_profile],
            [my_friends, put_friends],
            [me],
            [mahjong_me],
            [my_match],
            [my_ledger],
            [my_inbox],
            [claim_reward],
            [my_follows],
            [follow, unfollow],
            [my_league],
            [league_cohort],
            [my_arena],
            [my_completion],
            [my_quick_match],
            [create_team],
            [get_team],
            [join_team],
            [my_team],
            [leave_team],
            [invite_to_team],
            [remove_from_team],
            [pass_team],
            [team_board],
            [operator_team],
            [rename_team],
            [disband_team],
            [my_table],
            [tournament],
            [daily_bonus],
            [daily_bonus_alias],
            [admob_callback],
            [unity_callback],
            [operator_player],
            [operator_board],
            [operator_jobs],
            [post_correction],
            [operator_audit],
            [review_queue],
            [review_decide],
            [export_player],
            [suspend_player],
            [restore_player],
            [close_period],
            [reset_name],
            [delete_player],
            [list_boards, create_board],
            [read_board, update_board],
            [retire_board],
            [list_previews, preview_board],
            [read_preview],
            [openapi_document]
        )
    };
}

/// The routes with their OpenAPI operations (for [`openapi`]).
macro_rules! documented {
    ($([$($handler:ident),+]),* $(,)?) => {
        OpenApiRouter::with_openapi(ApiDoc::openapi()) $(.routes(routes!($($handler),+)))*
    };
}

/// The routes alone: each handler at its annotated path and methods, read from its
/// `utoipa::Path` (`path()` and `methods()` build no schema or operation).
macro_rules! served {
    ($([$($handler:ident),+]),* $(,)?) => {
        axum::Router::new() $($(.route(
            &utoipa_axum::paste! { <[<__path_ $handler>] as utoipa::Path>::path() },
            utoipa_axum::paste! { <[<__path_ $handler>] as utoipa::Path>::methods() }
                .iter()
                .fold(axum::routing::MethodRouter::new(), |r, m| {
                    r.on(utoipa_axum::PathItemExt::to_method_filter(m), $handler)
                }),
        ))+)*
    };
}

/// Every route with its handler and its operation (deprecated aliases among them).
#[allow(deprecated)]
pub(super) fn api_router() -> OpenApiRouter<AppState> {
    every_route!(documented)
}

/// Every route with its handler, without the OpenAPI document: what the router
/// serves. Building the document takes 1.5–2 ms and hundreds of page faults, so a
/// function builds it only when `/v1/openapi.json` is asked for, keeping its cold
/// start near a hello-world function's (`scripts/bench-cold-start`, BENCHMARKS.md).
#[allow(deprecated)]
pub(super) fn serving_router() -> axum::Router<AppState> {
    every_route!(served)
}

/// The OpenAPI 3.1 document of every route.
pub fn openapi() -> Document {
    let mut doc = api_router().split_for_parts().1;
    Refusals.modify(&mut doc);
    doc
}

/// [`openapi`] as JSON, rendered once per process.
pub fn openapi_json() -> Bytes {
    static JSON: OnceLock<Bytes> = OnceLock::new();
    JSON.get_or_init(|| {
        let doc = openapi();
        Bytes::from(doc.to_pretty_json().unwrap_or_default())
    })
    .clone()
}

/// Every route as API Gateway names it (method in capitals, path with
/// `{parameters}`): what `template.yaml` must route to a function.
pub fn routes() -> Vec<(String, String)> {
    let doc = openapi();
    let mut out = Vec::new();
    for (path, item) in &doc.paths.paths {
        let methods = [
            ("GET", &item.get),
            ("POST", &item.post),
            ("PUT", &item.put),
            ("DELETE", &item.delete),
            ("PATCH", &item.patch),
        ];
        for (method, op) in methods {
            if op.is_some() {
                out.push((method.to_string(), path.clone()));
            }
        }
    }
    out
}

/// Adds the refusals every operation can answer, and the JWT scheme.
struct Refusals;

fn refusal(description: &str, kind: &str, message: &str) -> RefOr<Response> {
    RefOr::T(refusal_builder(description, kind, message).build())
}

fn refusal_builder(description: &str, kind: &str, message: &str) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        "application/json",
        ContentBuilder::new()
            .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                "ErrorBody",
            ))))
            .example(Some(serde_json::json!({"error": kind, "message": message})))
            .build(),
    )
}

impl Modify for Refusals {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "jwt",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "Deployed: a JWT that API Gateway's authorizer verifies; the caller is its `sub`. \
                         Operator routes need the `podium/operator` scope. Locally (`podium serve`, development only): \
                         `Authorization: Dev <player-id>`, or `Authorization: Operator <name>`, unverified.",
                    ))
                    .build(),
            ),
        );
        for item in doc.paths.paths.values_mut() {
            for op in [&mut item.get, &mut item.post, &mut item.put, &mut item.delete]
                .into_iter()
                .flatten()
            {
                add_refusals(op);
            }
        }
    }
}

fn add_refusals(op: &mut Operation) {
    use utoipa::openapi::path::ParameterIn;
    let secured = op.security.as_ref().is_some_and(|s| !s.is_empty());
    let params: Vec<utoipa::openapi::path::Parameter> = op
        .parameters
        .clone()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| match p {
            RefOr::T(p) => Some(p),
            RefOr::Ref(_) => None,
        })
        .collect();
    let named = |name: &str| params.iter().any(|p| p.name == name);
    let path_param = params
        .iter()
        .find(|p| matches!(p.parameter_in, ParameterIn::Path))
        .map(|p| p.name.clone());
    // The example a caller of this operation most likely meets.
    let bad_request = if named("limit") {
        "limit: must be a whole number from 1 to 100".to_string()
    } else if named("neighbours") {
        "neighbours: must be a whole number from 0 to 25".to_string()
    } else if let Some(name) = path_param {
        format!("path: Invalid URL: Invalid UTF-8 in `{name}`")
    } else {
        "a parameter is outside what the store accepts".to_string()
    };
    let mut add = |status: &str, r: RefOr<Response>| {
        op.responses.responses.entry(status.to_string()).or_insert(r);
    };
    add(
        "400",
        refusal(
            if secured {
                "A parameter is malformed or not one the route takes (`query: unknown parameter …`), or \
                 the caller's account was deleted (`caller (GM-6)`; also an id of the form reserved for \
                 deleted players' pseudonyms, `deleted-…`), or the caller's id is one of podium's internal \
                 owners (`caller (GM-5)`, `@…`): the message names it (and the rule broken)"
            } else {
                "A parameter is malformed or not one the route takes (`query: unknown parameter …`): the \
                 message names it (and the rule broken)"
            },
            "bad_request",
            &bad_request,
        ),
    );
    if secured {
        add(
            "401",
            refusal(
                "No verified caller on the request",
                "unauthenticated",
                "unauthenticated: no verified player identity",
            ),
        );
        add(
            "403",
            refusal(
                "The caller is suspended (OP-4: `suspended`; nothing is read or written for them until \
                 restored), or a player calling an operator route (`forbidden`)",
                "suspended",
                "suspended (OP-4): a player this concerns is suspended",
            ),
        );
    }
    add(
        "404",
        refusal("Nothing there", "not_found", "not found: route `/v1/nothing`"),
    );
    add(
        "405",
        refusal(
            "The route takes another method (see `Allow`)",
            "method_not_allowed",
            "method not allowed: `PUT` is not a method of this route (see the Allow header)",
        ),
    );
    if op.request_body.is_some() {
        add(
            "413",
            refusal(
                "The body is larger than the route reads (64 KiB)",
                "too_large",
                "body: larger than 65536 bytes",
            ),
        );
    }
    add("500", refusal("The server failed", "store", "internal error"));
    add("503", retry_later());
}

/// The 503 every operation can answer, with its `Retry-After`.
fn retry_later() -> RefOr<Response> {
    let retry_after = utoipa::openapi::HeaderBuilder::new()
        .schema(Some(
            utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::schema::Type::Integer),
        ))
        .description(Some(format!(
            "Seconds to wait before trying again ({})",
            crate::api::error::RETRY_AFTER_SECS
        )))
        .build();
    RefOr::T(
        refusal_builder(
            "The store is not answering or too busy (`unavailable`, `contended`); retry after `Retry-After` seconds",
            "unavailable",
            "the store is not answering; try again shortly",
        )
        .header("Retry-After", retry_after)
        .build(),
    )
}

/// This API's OpenAPI 3.1 description.
#[utoipa::path(
    get,
    path = "/v1/openapi.json",
    tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document (a JSON object: `openapi`, `info`, `paths`, `components`)", body = Object))
)]
pub(super) async fn openapi_document() -> HttpResponse {
    crate::api::routes::respond::JsonBytes(openapi_json()).into_response()
}
