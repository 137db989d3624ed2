//! `podium serve`: every HTTP route of the API in one process on 127.0.0.1.
//!
//! DEVELOPMENT ONLY identity stand-in: in production API Gateway's JWT authorizer
//! verifies the token and the functions read its `sub`. Locally there is no
//! authorizer, so the caller names itself with `Authorization: Dev <player-id>`,
//! unverified. The server binds to loopback only and says so at start-up.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::HeaderMap;
use podium_service::api::{self, ApiContext, AppState, Identity};
use podium_store::Store;

use crate::error::CliError;

/// The development identity: `Authorization: Dev <player-id>`, unverified.
pub fn dev_identity(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?;
    let player = value.strip_prefix("Dev ")?.trim();
    podium_rules::record::is_valid_id(player).then(|| player.to_string())
}

/// The router, each request's identity taken from the development header.
pub fn app(store: Arc<dyn Store>, ctx: ApiContext) -> axum::Router {
    api::router(AppState::new(store, ctx)).layer(axum::middleware::map_request(
        |mut req: Request| async move {
            let identity = Identity {
                player: dev_identity(req.headers()),
                operator: None,
            };
            req.extensions_mut().insert(identity);
            req
        },
    ))
}

/// Serves until interrupted; `ctx` holds the cursor key (configuration).
pub async fn serve(store: Arc<dyn Store>, ctx: ApiContext, port: u16) -> Result<(), CliError> {
    let answers_ads = ctx.ads.is_some();
    let app = app(store, ctx);
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
