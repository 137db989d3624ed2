//! The Lambda adapters: metrics in CloudWatch's Embedded Metric Format for every
//! function ([`emf`]), and [`podium_service::api::router`] behind API Gateway (HTTP API, payload format
//! 2.0, JWT authorizer) through `lambda_http`, which hands the router each request
//! as an `http::Request` with API Gateway's request context among its extensions.
//!
//! The caller's identity is what API Gateway's JWT authorizer has verified
//! (`requestContext.authorizer.jwt.claims`): the player is the `sub` claim (GM-1); an
//! operator is a `sub` whose `scope` claim holds [`OPERATOR_SCOPE`]. Headers, paths,
//! query strings and bodies are never read for it.

use std::sync::Arc;

use axum::extract::Request;
use lambda_http::request::RequestContext;
use podium_service::api::{self, ApiContext, AppState, Identity};

pub mod emf;

/// The OAuth scope that makes a verified caller an operator (support staff).
pub const OPERATOR_SCOPE: &str = "podium/operator";

/// The identity API Gateway's JWT authorizer verified on this request, if any.
pub fn verified_identity<B>(req: &lambda_http::http::Request<B>) -> Identity {
    let Some(RequestContext::ApiGatewayV2(ctx)) = req.extensions().get::<RequestContext>() else {
        return Identity::default();
    };
    let Some(claims) = ctx
        .authorizer
        .as_ref()
        .and_then(|a| a.jwt.as_ref())
        .map(|jwt| &jwt.claims)
    else {
        return Identity::default();
    };
    let sub = claims.get("sub").filter(|s| !s.is_empty()).cloned();
    let operator = claims
        .get("scope")
        .is_some_and(|scopes| scopes.split_whitespace().any(|s| s == OPERATOR_SCOPE))
        .then(|| sub.clone())
        .flatten();
    Identity {
        player: sub,
        operator,
    }
}

/// The router with the verified identity put on every request.
pub fn app(state: AppState) -> axum::Router {
    api::router(state).layer(axum::middleware::map_request(|mut req: Request| async move {
        let identity = verified_identity(&req);
        req.extensions_mut().insert(identity);
        req
    }))
}

/// A whole HTTP function's start-up: tracing, configuration (`PODIUM_TABLE`,
/// `PODIUM_CURSOR_KEY`, the DynamoDB timeouts), one SDK client and store, then the
/// runtime loop over the router. Each HTTP function's `main` calls it.
pub async fn run_function() -> Result<(), lambda_http::Error> {
    lambda_http::tracing::init_default_subscriber();
    let ctx = ApiContext::new(podium_service::config::cursor_key()?);
    run_with(ctx).await
}

/// [`run_function`] after tracing is set up, with a context of the caller's (the
/// ad-callback function adds its verifier keys and ad-unit catalogue).
pub async fn run_with(ctx: ApiContext) -> Result<(), lambda_http::Error> {
    use podium_service::config;
    let ctx = ctx
        .with_profiles(config::profile_policy()?)
        .with_refresh(config::snapshot_refresh()?)
        .with_records(config::record_policy()?)
        .with_restore_days(config::restore_days()?)
        .with_max_board_definitions(config::max_board_definitions()?)
        .with_teams(config::team_policy()?)
        .with_rewards(config::period_rewards()?)
        .with_read_cache(config::read_cache_entries(
            podium_service::boards::snapshot::read::MEMO_DEFAULT_ENTRIES,
        )?);
    let table = config::table_name()?;
    let timeouts = config::dynamodb_timeouts()?;
    // The SDK configuration, the store's client and the router are made on the first
    // request, not before the first poll of the Runtime API (a cold start waits for
    // everything done before it); the settings above are read (and refused) before.
    let router = Arc::new(podium_store::aws::OnFirstEvent::new(move |aws| {
        let store = podium_store::dynamo::DynamoStore::from_sdk_config(&aws, table.clone(), &timeouts);
        app(AppState::new(Arc::new(store), ctx.clone()))
    }));
    let metrics = emf::collector()?;
    metrics_cloudwatch_embedded::lambda::service::run_http(metrics, on_first_event(router)).await
}

/// The service of a function: every request answered by the router `router` makes
/// on the first one ([`podium_store::aws::OnFirstEvent`]).
pub fn on_first_event(
    router: Arc<podium_store::aws::OnFirstEvent<axum::Router>>,
) -> impl lambda_http::Service<
    lambda_http::Request,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl std::future::Future<Output = Result<axum::response::Response, std::convert::Infallible>> + Send,
> + Clone {
    use lambda_http::tower::ServiceExt;
    lambda_http::service_fn(move |req: lambda_http::Request| {
        let router = Arc::clone(&router);
        async move { router.get().await.clone().oneshot(req).await }
    })
}

/// [`app`] built when the first request comes, not before the function's first poll
/// of the Runtime API: a cold start waits for everything done before that poll. The
/// service answers every request with the one router.
pub fn on_first_request(
    state: AppState,
) -> impl lambda_http::Service<
    lambda_http::Request,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl std::future::Future<Output = Result<axum::response::Response, std::convert::Infallible>> + Send,
> + Clone {
    use lambda_http::tower::ServiceExt;
    let router: Arc<std::sync::OnceLock<axum::Router>> = Arc::default();
    lambda_http::service_fn(move |req: lambda_http::Request| {
        let router = router.get_or_init(|| app(state.clone())).clone();
        router.oneshot(req)
    })
}
