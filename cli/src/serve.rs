//! `podium serve`: every HTTP route of the API in one process on 127.0.0.1.
//!
//! DEVELOPMENT ONLY identity stand-in: in production API Gateway's JWT authorizer
//! verifies the token and the functions read its `sub`. Locally there is no
//! authorizer, so the caller names itself with `Authorization: Dev <player-id>`,
//! unverified. The server binds to loopback only and says so at start-up.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use podium_service::api::{self, ApiContext, ApiRequest};
use podium_store::Store;

use crate::error::CliError;

/// The development identity: `Authorization: Dev <player-id>`, unverified.
pub fn dev_identity(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?;
    let player = value.strip_prefix("Dev ")?.trim();
    podium_rules::record::is_valid_id(player).then(|| player.to_string())
}

/// What every request of the local server shares.
#[derive(Clone)]
struct Shared {
    store: Arc<dyn Store>,
    ctx: Arc<ApiContext>,
}

async fn any_route(
    State(shared): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let req = ApiRequest {
        method: method.as_str().to_string(),
        path: uri.path().to_string(),
        query,
        raw_query: uri.query().map(str::to_string),
        player: dev_identity(&headers),
    };
    let answer = api::respond(shared.store.as_ref(), &shared.ctx, &req, chrono::Utc::now()).await;
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (
        status,
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static(answer.content_type),
        )],
        answer.body,
    )
        .into_response();
    if let Some(allow) = answer.allow {
        response.headers_mut().insert(
            axum::http::header::ALLOW,
            axum::http::HeaderValue::from_static(allow),
        );
    }
    response
}

/// Serves until interrupted; `ctx` holds the cursor key (configuration).
pub async fn serve(store: Arc<dyn Store>, ctx: ApiContext, port: u16) -> Result<(), CliError> {
    let shared = Shared {
        store,
        ctx: Arc::new(ctx),
    };
    let answers_ads = shared.ctx.ads.is_some();
    let app = axum::Router::new().fallback(any_route).with_state(shared);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|source| CliError::File {
            path: format!("127.0.0.1:{port} (another server there? pick a port with --port)"),
            source,
        })?;
    let addr = listener.local_addr()?;
    eprintln!("podium serving on http://{addr}");
    if answers_ads {
        eprintln!("answering ad callbacks (PODIUM_AD_CATALOGUE, PODIUM_ADMOB_KEYS_FILE)");
    }
    eprintln!(
        "DEVELOPMENT ONLY: the caller is whoever 'Authorization: Dev <player-id>' names, unverified. \
         Deployed, API Gateway's JWT authorizer verifies the token and its 'sub' is the player."
    );
    axum::serve(listener, app).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_identity_needs_the_dev_scheme() {
        let mut h = HeaderMap::new();
        assert_eq!(dev_identity(&h), None);
        h.insert("authorization", "Bearer eyJhbGciOi".parse().unwrap());
        assert_eq!(dev_identity(&h), None);
        h.insert("authorization", "Dev p-0001".parse().unwrap());
        assert_eq!(dev_identity(&h).as_deref(), Some("p-0001"));
        h.insert("authorization", "Dev  ".parse().unwrap());
        assert_eq!(dev_identity(&h), None);
        h.insert("authorization", "Dev bad id!".parse().unwrap());
        assert_eq!(dev_identity(&h), None);
    }
}
