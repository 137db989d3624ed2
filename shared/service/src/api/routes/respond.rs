//! What every handler answers with: JSON bodies serialised once, content types.

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Serialize;

use crate::api::error::ApiError;

/// The JSON content type.
pub const JSON: &str = "application/json";

/// The plain-text content type (Unity Ads' `1`).
pub const TEXT: &str = "text/plain; charset=utf-8";

pub(crate) type Answer = Result<Response, ApiError>;

/// A JSON body already serialised.
pub(crate) struct JsonBytes(pub(crate) Bytes);

impl IntoResponse for JsonBytes {
    fn into_response(self) -> Response {
        ([(header::CONTENT_TYPE, HeaderValue::from_static(JSON))], self.0).into_response()
    }
}

/// `v` serialised straight to JSON bytes (no intermediate `Value`).
pub(crate) fn json_bytes<T: Serialize + ?Sized>(v: &T) -> Bytes {
    // Serialising the API's own types cannot fail (no maps with non-string keys).
    serde_json::to_vec(v).map(Bytes::from).unwrap_or_default()
}

pub(crate) fn json<T: Serialize + ?Sized>(v: &T) -> Answer {
    Ok(JsonBytes(json_bytes(v)).into_response())
}
