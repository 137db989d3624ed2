//! Request parts as the handlers take them: the verified caller, a path parameter and
//! the query parameters, each refusal an [`ApiError`] naming what was wrong.

use axum::extract::{FromRequestParts, Path, Query};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::error::ServiceError;

/// Who is calling, as the layer in front of the router verified it and put it on the
/// request's extensions: deployed, API Gateway's JWT authorizer (`sub`, and the
/// operator scope for support staff); locally, the development header. A request
/// without it has no identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// The player the caller is (GM-1).
    pub player: Option<String>,
    /// The operator (support staff) the caller is, when verified as one.
    pub operator: Option<String>,
}

/// The verified player making the request, for a route that reads or writes their
/// own data; 401 without one (GM-1); 400 naming `caller` (GM-6) when their account
/// was deleted or the id is of the form reserved for deleted players' pseudonyms, and
/// (GM-5) when it is one of podium's internal owners (`@…`), their tombstone read on
/// every request ([`super::callers`]).
pub struct Caller(pub String);

impl FromRequestParts<super::AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &super::AppState) -> Result<Self, Self::Rejection> {
        Ok(Caller(not_deleted(parts, state, true).await?))
    }
}

/// A verified player, for a route that shows them nothing of their own (a board's
/// page, a cohort, a tournament): as [`Caller`], but a process remembers a caller
/// was not deleted for [`super::callers::NOT_DELETED_TTL`].
pub struct Authenticated;

impl FromRequestParts<super::AppState> for Authenticated {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &super::AppState) -> Result<Self, Self::Rejection> {
        not_deleted(parts, state, false).await?;
        Ok(Authenticated)
    }
}

/// The verified player, checked not deleted (GM-6): their tombstone read now when
/// `every_time`, else at most once per [`super::callers::NOT_DELETED_TTL`].
async fn not_deleted(parts: &Parts, state: &super::AppState, every_time: bool) -> Result<String, ApiError> {
    let player = verified_player(parts)?;
    state
        .ctx
        .callers
        .check(state.store.as_ref(), &player, every_time)
        .await?;
    Ok(player)
}

/// The player the layer in front verified; 401 without one.
fn verified_player(parts: &Parts) -> Result<String, ApiError> {
    parts
        .extensions
        .get::<Identity>()
        .and_then(|i| i.player.as_deref())
        // A malformed id is no identity (401); a reserved form is refused by name in
        // the caller check (400, GM-5 / GM-6).
        .filter(|p| {
            podium_rules::record::ids::player_id_form(p) != podium_rules::record::ids::PlayerIdForm::Malformed
        })
        .map(str::to_string)
        .ok_or(ApiError(ServiceError::Unauthenticated))
}

/// The verified operator (support staff) making the request: 401 without any
/// identity, 403 for a player who is no operator.
pub struct OperatorCaller(#[allow(dead_code)] pub String);

impl<S: Send + Sync> FromRequestParts<S> for OperatorCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let identity = parts.extensions.get::<Identity>().cloned().unwrap_or_default();
        crate::operators::console::require_operator(identity.operator.as_deref(), identity.player.as_deref())
            .map(|name| OperatorCaller(name.to_string()))
            .map_err(ApiError)
    }
}

/// The route's one path parameter, percent-decoded; 400 naming `path` when it is not
/// UTF-8.
pub struct PathId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(id)| PathId(id))
            .map_err(|e| {
                ApiError(ServiceError::BadRequest {
                    field: "path",
                    message: e.body_text(),
                })
            })
    }
}

/// The route's `{player_id}`, percent-decoded and checked as a player's id in the one
/// place that tells the reserved forms apart
/// ([`podium_rules::record::ids::check_player_id`]): 400 naming `player_id` with GM-5
/// for a malformed id or one of podium's internal owners (a league's member list, a
/// tournament), GM-6 for a deleted player's pseudonym. Every operator action on a
/// player takes it, before any body is read.
pub struct PlayerPath(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PlayerPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let PathId(id) = PathId::from_request_parts(parts, state).await?;
        podium_rules::record::ids::check_player_id("player_id", &id).map_err(|e| ApiError(e.into()))?;
        Ok(PlayerPath(id))
    }
}

/// The route's two path parameters, percent-decoded; 400 naming `path` when either
/// is not UTF-8.
pub struct PathPair(pub String, pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathPair {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map(|Path((a, b))| PathPair(a, b))
            .map_err(|e| {
                ApiError(ServiceError::BadRequest {
                    field: "path",
                    message: e.body_text(),
                })
            })
    }
}

/// The query parameters as `T`; 400 naming `query` when the query string does not
/// decode (a parameter given twice, bad percent-encoding).
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| Params(q))
            .map_err(|e| {
                ApiError(ServiceError::BadRequest {
                    field: "query",
                    message: query_message(e.body_text()),
                })
            })
    }
}

/// A query string's refusal as the caller reads it (GM-5): a parameter given twice
/// named in podium's words rather than the parser's; any other refusal as it is.
fn query_message(parser_text: String) -> String {
    match parser_text
        .split("duplicate field `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
    {
        Some(name) => format!("`{name}` is given more than once (GM-5: each parameter at most once)"),
        None => parser_text,
    }
}

/// A whole-number parameter in `min ..= max`, `default` when absent; 400 naming it
/// otherwise.
pub fn int_param(
    raw: Option<&str>,
    field: &'static str,
    default: usize,
    min: usize,
    max: usize,
) -> Result<usize, ServiceError> {
    match raw {
        None => Ok(default),
        Some(raw) => match raw.parse::<usize>() {
            Ok(v) if (min..=max).contains(&v) && raw.bytes().all(|c| c.is_ascii_digit()) => Ok(v),
            _ => Err(ServiceError::BadRequest {
                field,
                message: format!("must be a whole number from {min} to {max}"),
            }),
        },
    }
}

/// The largest request body read, in bytes: a profile or a friend list of
/// [`podium_rules::profile::MAX_FRIENDS`] ids fits many times over.
pub const MAX_BODY: usize = 64 * 1024;

/// The request body as a JSON object read as `T`; 400 naming `body` when it is not a
/// JSON object of that shape (the message names the path inside it), 413 naming
/// `body` when it is larger than [`MAX_BODY`].
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> axum::extract::FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, _: &S) -> Result<Self, Self::Rejection> {
        let bad = |message: String| {
            ApiError(ServiceError::BadRequest {
                field: "body",
                message,
            })
        };
        let bytes = axum::body::to_bytes(req.into_body(), MAX_BODY)
            .await
            .map_err(|_| {
                ApiError(ServiceError::TooLarge {
                    field: "body",
                    limit: MAX_BODY,
                })
            })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(bad("empty: this route reads a JSON object".to_string()));
        }
        // Every body is an object: serde would read a struct from an array of its
        // fields in order (`["reason", true]`), which no route documents.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(bad("this route reads a JSON object (`{…}`)".to_string()));
        }
        let mut de = serde_json::Deserializer::from_slice(&bytes);
        let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let mut path = e.path().to_string();
            let inner = e.into_inner();
            // An unknown key is on the path: name the object that holds it.
            if inner.to_string().starts_with("unknown field ") {
                path = match path.rsplit_once('.') {
                    Some((parent, _)) => parent.to_string(),
                    None => ".".to_string(),
                };
            }
            let at = if path == "." {
                String::new()
            } else {
                format!("at {path}: ")
            };
            bad(format!(
                "{at}{}",
                podium_rules::error::cut(&podium_rules::record::shape::plain_words(&inner.to_string()), 300)
            ))
        })?;
        // One JSON document: anything after it is refused, not ignored.
        de.end()
            .map_err(|e| bad(podium_rules::error::cut(&e.to_string(), 200)))?;
        Ok(JsonBody(value))
    }
}

#[cfg(test)]
mod query_tests {
    /// GM-5: `?limit=5&limit=6` is refused naming the parameter, not in the parser's words.
    #[test]
    fn a_parameter_given_twice_is_named() {
        let text = "Failed to deserialize query string: duplicate field `limit`".to_string();
        assert_eq!(
            super::query_message(text),
            "`limit` is given more than once (GM-5: each parameter at most once)"
        );
        let other = "Failed to deserialize query string: invalid digit found in string".to_string();
        assert_eq!(super::query_message(other.clone()), other);
    }
}
