//! The query parameters each route takes are the ones its OpenAPI description lists,
//! and only a route described with a request body reads one (GM-5): a parameter a
//! route does not take is refused with 400 naming it and the ones the route takes,
//! and a body sent to a route that reads none with 400 naming `body` (nothing, `{}`
//! and `null` are no body; over the 64 KiB cap, 413), never ignored
//! (a misspelt `limt=5` would otherwise answer a page of the default size without a
//! word). Checked in one layer for every route,
//! from the same description the clients are generated from, so the server and its
//! description cannot disagree on what a route reads.
//!
//! The ad networks' callbacks are left out: their query is signed whole and the
//! networks add parameters of their own ([`crate::players::rewards`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::extract::{MatchedPath, Query, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::RefOr;

use super::error::ApiError;
use crate::error::ServiceError;

/// The routes whose query is signed by an ad network and taken whole.
const SIGNED_QUERY_PREFIX: &str = "/v1/ad-callbacks/";

/// What one operation takes besides its path: its query parameters (sorted) and
/// whether it reads a body.
struct Takes {
    query: Vec<String>,
    body: bool,
}

/// What the operation `method` (in capitals) of the route template `route` takes;
/// `None` for a route the description does not list. No allocation per call.
fn takes(method: &str, route: &str) -> Option<&'static Takes> {
    taken()
        .get(route)?
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, t)| t)
}

/// Route template → its operations (method in capitals) and what each takes.
fn taken() -> &'static HashMap<String, Vec<(&'static str, Takes)>> {
    static TAKEN: OnceLock<HashMap<String, Vec<(&'static str, Takes)>>> = OnceLock::new();
    TAKEN.get_or_init(|| {
        let doc = super::docs::openapi();
        let mut out: HashMap<String, Vec<(&'static str, Takes)>> = HashMap::new();
        for (path, item) in &doc.paths.paths {
            let ops: [(&str, &Option<Operation>); 5] = [
                ("GET", &item.get),
                ("POST", &item.post),
                ("PUT", &item.put),
                ("DELETE", &item.delete),
                ("PATCH", &item.patch),
            ];
            for (method, op) in ops {
                let Some(op) = op else { continue };
                let mut query: Vec<String> = op
                    .parameters
                    .iter()
                    .flatten()
                    .chain(item.parameters.iter().flatten())
                    .filter_map(|p| match p {
                        RefOr::T(p) if matches!(p.parameter_in, ParameterIn::Query) => Some(p.name.clone()),
                        _ => None,
                    })
                    .collect();
                query.sort_unstable();
                query.dedup();
                let body = op.request_body.is_some();
                out.entry(path.clone())
                    .or_default()
                    .push((method, Takes { query, body }));
            }
        }
        out
    })
}

/// The first query parameter of `uri` that is not in `names`, percent-decoded; `None`
/// when every one is (a query that does not decode is left to the route's own
/// extractor, which names it).
fn first_unknown(uri: &axum::http::Uri, names: &[String]) -> Option<String> {
    let Query(pairs) = Query::<Vec<(String, String)>>::try_from_uri(uri).ok()?;
    pairs
        .into_iter()
        .map(|(k, _)| k)
        .find(|k| names.binary_search_by(|n| n.as_str().cmp(k)).is_err())
        .map(|k| podium_rules::error::cut(&k, 40))
}

/// True when `req` carries a body: a length above zero, or one sent in chunks.
fn has_body(req: &Request) -> bool {
    use axum::body::HttpBody;
    req.body().size_hint().lower() > 0 || req.headers().contains_key(axum::http::header::TRANSFER_ENCODING)
}

fn refused(field: &'static str, message: String) -> Response {
    ApiError(ServiceError::BadRequest { field, message }).into_response()
}

/// The layer: a request naming a query parameter its route does not take answers
/// 400 naming `query`, the parameter, and the ones the route takes; a body sent to a
/// route that reads none answers 400 naming `body`.
pub(super) async fn only_documented(req: Request, next: Next) -> Response {
    let Some(route) = req.extensions().get::<MatchedPath>() else {
        return next.run(req).await;
    };
    let route = route.as_str();
    if route.starts_with(SIGNED_QUERY_PREFIX) {
        return next.run(req).await;
    }
    let Some(takes) = takes(req.method().as_str(), route) else {
        return next.run(req).await;
    };
    if let Some(unknown) = req
        .uri()
        .query()
        .and_then(|_| first_unknown(req.uri(), &takes.query))
    {
        let names = &takes.query;
        let route_takes = if names.is_empty() {
            "this route takes no query parameters".to_string()
        } else {
            format!("this route takes: {}", names.join(", "))
        };
        return refused(
            "query",
            format!(
                "unknown parameter {}; {route_takes}",
                podium_rules::error::quoted(&unknown)
            ),
        );
    }
    if !takes.body && has_body(&req) {
        // Read (at most the cap every route has): nothing, `{}` or `null` is no body;
        // anything else is input the route would ignore.
        let (parts, body) = req.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, super::extract::MAX_BODY).await else {
            return ApiError(ServiceError::TooLarge {
                field: "body",
                limit: super::extract::MAX_BODY,
            })
            .into_response();
        };
        if !matches!(bytes.trim_ascii(), b"" | b"{}" | b"null") {
            return refused("body", "this route reads no body; send none".to_string());
        }
        return next
            .run(Request::from_parts(parts, axum::body::Body::from(bytes)))
            .await;
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gm5_every_documented_route_has_its_parameters() {
        let pages = &takes("GET", "/v1/leaderboards/{board}")
            .expect("documented")
            .query;
        for p in ["limit", "cursor", "period"] {
            assert!(pages.iter().any(|n| n == p), "{pages:?}");
        }
        assert!(takes("GET", "/v1/me").expect("documented").query.is_empty());
        assert!(takes("PUT", "/v1/me/profile").expect("documented").body);
        assert!(
            !takes("POST", "/v1/games/mahjong-rivals/daily-bonus")
                .expect("documented")
                .body
        );
    }

    #[test]
    fn gm5_an_unknown_parameter_is_named() {
        let names = vec!["cursor".to_string(), "limit".to_string()];
        let uri = |q: &str| format!("/v1/x?{q}").parse::<axum::http::Uri>().expect("uri");
        assert_eq!(first_unknown(&uri("limit=5&cursor=x"), &names), None);
        assert_eq!(
            first_unknown(&uri("limit=5&limt=3"), &names).as_deref(),
            Some("limt")
        );
        assert_eq!(
            first_unknown(&uri("l%69mit=5"), &names),
            None,
            "decoded before compared"
        );
    }
}
