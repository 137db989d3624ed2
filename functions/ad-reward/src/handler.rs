//! The handler: the API Gateway HTTP API event (payload 2.0) to the API's request,
//! the raw query string taken as received (`rawQueryString`: the AdMob signature
//! covers exactly it), and the API's answer back.

use aws_lambda_events::apigw::{ApiGatewayV2httpRequest, ApiGatewayV2httpResponse};
use aws_lambda_events::encodings::Body;
use aws_lambda_events::http::{HeaderMap, HeaderValue};
use chrono::{DateTime, Utc};
use podium_service::api::{self, ApiContext, ApiRequest, Rendered};
use podium_store::Store;

/// The API's view of the event: method, path and the raw query; no caller identity
/// (the callback routes have no authorizer).
pub fn to_api_request(event: &ApiGatewayV2httpRequest) -> ApiRequest {
    ApiRequest {
        method: event.request_context.http.method.as_str().to_string(),
        path: event.raw_path.clone().unwrap_or_default(),
        query: Default::default(),
        raw_query: event.raw_query_string.clone(),
        player: None,
        operator: None,
    }
}

/// The HTTP API response for an answer: JSON, or the plain text Unity Ads expects.
pub fn to_response(r: Rendered) -> ApiGatewayV2httpResponse {
    let body = String::from_utf8_lossy(&r.body).into_owned();
    let content_type = r.content_type;
    let mut headers = HeaderMap::new();
    headers.insert("content-type", HeaderValue::from_static(content_type));
    if let Some(allow) = r.allow {
        headers.insert("allow", HeaderValue::from_static(allow));
    }
    let mut response = ApiGatewayV2httpResponse::default();
    response.status_code = i64::from(r.status);
    response.headers = headers;
    response.body = Some(Body::Text(body));
    response
}

/// Handles one callback at the server clock `now`.
pub async fn handle<S: Store + ?Sized>(
    store: &S,
    ctx: &ApiContext,
    event: ApiGatewayV2httpRequest,
    now: DateTime<Utc>,
) -> ApiGatewayV2httpResponse {
    let req = to_api_request(&event);
    let answer = api::respond(store, ctx, &req, now).await;
    if answer.status >= 400 {
        // Status and kind only: the query holds player ids.
        let kind = serde_json::from_slice::<serde_json::Value>(&answer.body)
            .ok()
            .and_then(|v| v["error"].as_str().map(str::to_string))
            .unwrap_or_default();
        tracing::warn!(status = answer.status, error = %kind, "callback refused");
    }
    to_response(answer)
}
