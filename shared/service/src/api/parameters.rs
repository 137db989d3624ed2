//! The query parameters each route takes are the ones its OpenAPI description lists
//! (GM-5): a parameter a route does not take is refused with 400 naming it and the
//! ones the route takes, never ignored (a misspelt `limt=5` would otherwise answer a
//! page of the default size without a word). Checked in one layer for every route,
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

/// (method in capitals, route template) → the query parameters it takes, sorted.
fn taken() -> &'static HashMap<(String, String), Vec<String>> {
    static TAKEN: OnceLock<HashMap<(String, String), Vec<String>>> = OnceLock::new();
    TAKEN.get_or_init(|| {
        let doc = super::docs::openapi();
        let mut out = HashMap::new();
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
                let mut names: Vec<String> = op
                    .parameters
                    .iter()
                    .flatten()
                    .chain(item.parameters.iter().flatten())
                    .filter_map(|p| match p {
                        RefOr::T(p) if matches!(p.parameter_in, ParameterIn::Query) => Some(p.name.clone()),
                        _ => None,
                    })
                    .collect();
                names.sort_unstable();
                names.dedup();
                out.insert((method.to_string(), path.clone()), names);
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

/// The layer: a request naming a query parameter its route does not take answers
/// 400 naming `query`, the parameter, and the ones the route takes.
pub(super) async fn only_documented(req: Request, next: Next) -> Response {
    let (Some(query), Some(route)) = (req.uri().query(), req.extensions().get::<MatchedPath>()) else {
        return next.run(req).await;
    };
    let route = route.as_str();
    if query.is_empty() || route.starts_with(SIGNED_QUERY_PREFIX) {
        return next.run(req).await;
    }
    let Some(names) = taken().get(&(req.method().as_str().to_string(), route.to_string())) else {
        return next.run(req).await;
    };
    match first_unknown(req.uri(), names) {
        None => next.run(req).await,
        Some(unknown) => {
            let takes = if names.is_empty() {
                "this route takes no query parameters".to_string()
            } else {
                format!("this route takes: {}", names.join(", "))
            };
            ApiError(ServiceError::BadRequest {
                field: "query",
                message: format!(
                    "unknown parameter {}; {takes}",
                    podium_rules::error::quoted(&unknown)
                ),
            })
            .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gm5_every_documented_route_has_its_parameters() {
        let pages = &taken()[&("GET".to_string(), "/v1/leaderboards/{board}".to_string())];
        for p in ["limit", "cursor", "period"] {
            assert!(pages.iter().any(|n| n == p), "{pages:?}");
        }
        assert!(taken()[&("GET".to_string(), "/v1/me".to_string())].is_empty());
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
