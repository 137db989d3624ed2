//! Adapts API Gateway HTTP API requests (payload format 2.0, JWT authorizer) to
//! [`podium_service::api`], and its answers back.
//!
//! The caller's identity is the `sub` claim that API Gateway's JWT authorizer has
//! verified (`requestContext.authorizer.jwt.claims.sub`, GM-1); headers, paths,
//! query strings and bodies are never read for it.

use std::collections::HashMap;

use lambda_http::request::RequestContext;
use lambda_http::{Body, Request, RequestExt, Response};
use podium_service::api::{self, ApiContext, ApiRequest, Rendered};
use podium_store::{BoardStore, ItemStore, LedgerStore, PeriodStore, SettleStore};

/// The verified JWT `sub`, if API Gateway's JWT authorizer put one on the request.
pub fn verified_player(req: &Request) -> Option<String> {
    match req.request_context_ref()? {
        RequestContext::ApiGatewayV2(ctx) => ctx
            .authorizer
            .as_ref()?
            .jwt
            .as_ref()?
            .claims
            .get("sub")
            .filter(|s| !s.is_empty())
            .cloned(),
        _ => None,
    }
}

/// The API's view of a Lambda HTTP request.
pub fn to_api_request(req: &Request) -> ApiRequest {
    let query: HashMap<String, String> = req
        .query_string_parameters_ref()
        .map(|q| q.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
        .unwrap_or_default();
    ApiRequest {
        method: req.method().as_str().to_string(),
        path: req.raw_http_path().to_string(),
        query,
        // lambda_http keeps API Gateway's rawQueryString as the URI's query.
        raw_query: req.uri().query().map(str::to_string),
        player: verified_player(req),
        // Operator routes: the JWT's `sub` with the operator scope or group (not built
        // yet; see podium_service::operator).
        operator: None,
    }
}

/// The Lambda HTTP response for an API answer (JSON body, or plain text).
pub fn to_response(r: Rendered) -> Response<Body> {
    // The API's bodies are UTF-8 (JSON or its plain-text answers).
    let body = match String::from_utf8(r.body.to_vec()) {
        Ok(text) => Body::Text(text),
        Err(e) => Body::Binary(e.into_bytes()),
    };
    let mut response = Response::new(body);
    *response.status_mut() = lambda_http::http::StatusCode::from_u16(r.status)
        .unwrap_or(lambda_http::http::StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        lambda_http::http::header::CONTENT_TYPE,
        lambda_http::http::HeaderValue::from_static(r.content_type),
    );
    if let Some(allow) = r.allow {
        response.headers_mut().insert(
            lambda_http::http::header::ALLOW,
            lambda_http::http::HeaderValue::from_static(allow),
        );
    }
    response
}

/// Handles one request: parse, call the core, map the answer.
pub async fn handle<S: BoardStore + SettleStore + ItemStore + PeriodStore + LedgerStore + ?Sized>(
    store: &S,
    ctx: &ApiContext,
    req: Request,
) -> Response<Body> {
    let api_req = to_api_request(&req);
    to_response(api::respond(store, ctx, &api_req, chrono::Utc::now()).await)
}

/// A whole HTTP function's start-up: tracing, configuration (`PODIUM_TABLE`,
/// `PODIUM_CURSOR_KEY`, the DynamoDB timeouts), one SDK client and store, then the
/// runtime loop. Each HTTP function's `main` calls it.
pub async fn run_function() -> Result<(), lambda_http::Error> {
    use podium_service::config;
    lambda_http::tracing::init_default_subscriber();
    let table = config::table_name()?;
    let timeouts = config::dynamodb_timeouts()?;
    let ctx = &ApiContext::new(config::cursor_key()?);
    let aws = podium_store::aws::lambda_sdk_config().await;
    let store = &podium_store::dynamo::DynamoStore::from_sdk_config(&aws, table, &timeouts);
    lambda_http::run(lambda_http::service_fn(move |req: Request| async move {
        Ok::<_, lambda_http::Error>(handle(store, ctx, req).await)
    }))
    .await
}
