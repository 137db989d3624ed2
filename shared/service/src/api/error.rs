//! Refusals as HTTP answers: status by [`ServiceError`] kind, body [`ErrorBody`].

use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use podium_store::StoreError;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ServiceError;

/// Every refusal's body.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"error": "bad_request", "message": "limit: must be a whole number from 1 to 100"}))]
pub struct ErrorBody {
    /// A stable machine-readable kind: `bad_request`, `invalid`, `unauthenticated`,
    /// `forbidden`, `not_found`, `method_not_allowed`, `conflict`, `too_large`,
    /// `contended`, `unavailable` or `store`.
    pub error: String,
    /// What was wrong, naming the parameter or field (and rule) for the caller's own
    /// mistakes; a generic text for the server's.
    pub message: String,
}

/// The `Retry-After` of every 503 (contended, the store not answering), in seconds.
pub const RETRY_AFTER_SECS: &str = "1";

/// A [`ServiceError`] on its way to the caller.
#[derive(Debug)]
pub struct ApiError(pub ServiceError);

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        ApiError(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let e = &self.0;
        let (status, message) = match e {
            ServiceError::BadRequest { .. } | ServiceError::Invalid(_) => (400, e.to_string()),
            ServiceError::Unauthenticated => (401, e.to_string()),
            ServiceError::Forbidden(_) | ServiceError::Suspended { .. } => (403, e.to_string()),
            ServiceError::NotFound(_) => (404, e.to_string()),
            ServiceError::TooLarge { .. } => (413, e.to_string()),
            ServiceError::MethodNotAllowed { .. } => (405, e.to_string()),
            ServiceError::Conflict { .. }
            | ServiceError::StateConflict { .. }
            | ServiceError::OutOfRange { .. } => (409, e.to_string()),
            ServiceError::Contended { .. } => (503, "busy, try again".to_string()),
            ServiceError::Push(_) => (
                503,
                "the live feed is not answering; try again shortly".to_string(),
            ),
            ServiceError::Store(err @ StoreError::Unavailable { operation, .. }) => {
                tracing::warn!(error = %err, "store unavailable");
                let what = if *operation == crate::players::rewards::VERIFIER_KEYS {
                    "the ad network's verifier keys could not be fetched"
                } else {
                    "the store is not answering"
                };
                (503, format!("{what}; try again shortly"))
            }
            ServiceError::Store(err @ StoreError::OutOfLimits(_)) => {
                tracing::warn!(error = %err, "request outside the store's limits");
                (400, "a parameter is outside what the store accepts".to_string())
            }
            ServiceError::Store(err) => {
                tracing::error!(error = %err, "store failure");
                (500, "internal error".to_string())
            }
        };
        let body = ErrorBody {
            error: e.kind().to_string(),
            message,
        };
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, axum::Json(body)).into_response();
        if let ServiceError::MethodNotAllowed { allowed } = e {
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static(allowed));
        }
        if status == StatusCode::SERVICE_UNAVAILABLE {
            // Contention and a store that does not answer pass within moments: the
            // caller is told when to try again (RFC 9110, 10.2.3).
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER_SECS));
        }
        response
    }
}

/// The fallback: no route has this path.
pub(super) async fn unknown_route(uri: Uri) -> ApiError {
    // The path is the caller's own: quoted and cut, never echoed whole.
    ApiError(ServiceError::NotFound(format!(
        "route {}",
        podium_rules::error::quoted(uri.path())
    )))
}

/// The route exists but not for this method. axum sets the `Allow` header.
pub(super) async fn method_not_allowed(method: Method) -> Response {
    let body = ErrorBody {
        error: "method_not_allowed".into(),
        message: format!(
            "method not allowed: {} is not a method of this route (see the Allow header)",
            podium_rules::error::quoted(method.as_str())
        ),
    };
    (StatusCode::METHOD_NOT_ALLOWED, axum::Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn answer(operation: &'static str) -> (u16, serde_json::Value) {
        let e = ServiceError::Store(StoreError::Unavailable {
            operation,
            message: "timed out".into(),
        });
        let response = ApiError(e).into_response();
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.expect("body").to_bytes();
        (status, serde_json::from_slice(&bytes).expect("error body"))
    }

    /// A store that does not answer is a 503 saying so; a failed fetch of AdMob's
    /// verifier keys is a 503 naming the keys, not the store (SG-10).
    #[tokio::test]
    async fn unavailable_names_what_did_not_answer() {
        let (status, body) = answer("GetItem").await;
        assert_eq!(status, 503);
        assert_eq!(body["message"], "the store is not answering; try again shortly");
        let (status, body) = answer(crate::players::rewards::VERIFIER_KEYS).await;
        assert_eq!(status, 503);
        assert_eq!(
            body["message"],
            "the ad network's verifier keys could not be fetched; try again shortly"
        );
        assert_eq!(body["error"], "unavailable");
    }
}
