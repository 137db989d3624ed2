//! The local HTTP API: every request on a loopback port goes through
//! [`Stack::http`](crate::stack::Stack::http) after the JWT authorizer's check. The
//! local stack is its own identity provider: it issues HS256 tokens ([`Tokens`]) with
//! the template's `JwtIssuer` and `JwtAudience`, and accepts only those (signature,
//! issuer, audience, expiry verified, as API Gateway verifies a deployed token
//! against the issuer's keys).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{json, Map, Value};

use crate::error::StackError;
use crate::stack::Stack;

/// The id of the local identity provider's key (`kid`).
const KEY_ID: &str = "local-stack";

/// The local identity provider's key, issuer and audience.
#[derive(Clone)]
pub struct Tokens {
    secret: Vec<u8>,
    issuer: String,
    audience: String,
}

impl Tokens {
    /// A fresh random key for `issuer` and `audience`.
    pub fn new(issuer: &str, audience: &str) -> Tokens {
        Tokens {
            secret: (0..32).map(|_| rand::random::<u8>()).collect(),
            issuer: issuer.to_string(),
            audience: audience.to_string(),
        }
    }

    /// A token for the player `sub` with `scopes` (space-separated in `scope`),
    /// valid for `ttl_secs` seconds.
    pub fn issue(&self, sub: &str, scopes: &[&str], ttl_secs: i64) -> String {
        let now = chrono::Utc::now().timestamp();
        let mut claims = json!({
            "iss": self.issuer, "aud": self.audience, "sub": sub,
            "iat": now, "exp": now + ttl_secs, "token_use": "access",
        });
        if !scopes.is_empty() {
            claims["scope"] = json!(scopes.join(" "));
        }
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(KEY_ID.into());
        EncodingKey::from_secret(&self.secret)
            .and_then(|key| jsonwebtoken::encode(&header, &claims, &key))
            .unwrap_or_default()
    }

    /// The key set the tokens verify with, as an identity provider publishes it at
    /// `/.well-known/jwks.json` (here a symmetric key: local only), for the live feed's
    /// authorizer function.
    pub fn jwks(&self) -> Value {
        use base64::Engine as _;
        let k = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&self.secret);
        json!({"keys": [{"kty": "oct", "kid": KEY_ID, "alg": "HS256", "use": "sig", "k": k}]})
    }

    /// The claims of `token` (with or without `Bearer `) when its signature, issuer,
    /// audience and expiry hold, as API Gateway hands them to the function: each
    /// claim a string.
    pub fn verify(&self, token: &str) -> Option<Map<String, Value>> {
        let token = token.strip_prefix("Bearer ").unwrap_or(token).trim();
        let mut v = Validation::new(Algorithm::HS256);
        // API Gateway checks exp and nbf as they stand: no leeway.
        v.leeway = 0;
        v.validate_nbf = true;
        v.set_issuer(&[&self.issuer]);
        v.set_audience(&[&self.audience]);
        v.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let key = DecodingKey::from_secret(&self.secret).ok()?;
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &v).ok()?;
        Some(
            data.claims
                .into_iter()
                .map(|(k, v)| {
                    let s = match v {
                        Value::String(s) => s,
                        Value::Array(a) => format!(
                            "[{}]",
                            a.iter()
                                .map(|x| x.as_str().map(String::from).unwrap_or_else(|| x.to_string()))
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                        other => other.to_string(),
                    };
                    (k, Value::String(s))
                })
                .collect(),
        )
    }
}

#[derive(Clone)]
struct Gateway {
    stack: Arc<Stack>,
    tokens: Tokens,
}

/// The largest request a function can be given: Lambda's 6 MB invocation payload
/// (API Gateway refuses larger ones with 413).
const MAX_BODY: usize = 6 * 1024 * 1024;

async fn handle(State(gw): State<Gateway>, req: Request) -> Response {
    let method = req.method().as_str().to_string();
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    let mut headers = BTreeMap::new();
    for (k, v) in req.headers() {
        if let Ok(v) = v.to_str() {
            headers
                .entry(k.as_str().to_lowercase())
                .and_modify(|prev: &mut String| {
                    prev.push(',');
                    prev.push_str(v);
                })
                .or_insert_with(|| v.to_string());
        }
    }
    let claims = headers.get("authorization").and_then(|t| gw.tokens.verify(t));
    let body = match to_bytes(req.into_body(), MAX_BODY).await {
        Ok(b) if b.is_empty() => None,
        Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                "{\"message\":\"Request Entity Too Large\"}",
            )
                .into_response()
        }
    };
    match gw.stack.http(&method, &path, headers, body, claims).await {
        Ok(answer) => {
            let mut response = Response::new(Body::from(answer.body));
            *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::BAD_GATEWAY);
            for (k, v) in answer.headers {
                if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::from_str(&v)) {
                    response.headers_mut().insert(k, v);
                }
            }
            response
        }
        Err(e) => {
            eprintln!("local-stack: {e}");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "{\"message\":\"Internal Server Error\"}",
            )
                .into_response()
        }
    }
}

/// Serves the HTTP API of `stack` on `listener` until the process ends, with the
/// live feed's WebSocket API at `/live` ([`crate::websocket`]) and the local identity
/// provider's key set at `/.well-known/jwks.json`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    stack: Arc<Stack>,
    tokens: Tokens,
) -> Result<(), StackError> {
    let jwks = tokens.jwks();
    let live = crate::websocket::WebSocketApi {
        stack: stack.clone(),
        connections: Default::default(),
    };
    let websocket = axum::Router::new()
        .route("/live", axum::routing::get(crate::websocket::connect))
        .route(
            "/live/@connections/{id}",
            axum::routing::post(crate::websocket::post_to_connection)
                .delete(crate::websocket::delete_connection),
        )
        .with_state(live);
    let app = axum::Router::new()
        .route(
            "/.well-known/jwks.json",
            axum::routing::get(move || async move { axum::Json(jwks) }),
        )
        .merge(websocket)
        .fallback(handle)
        .with_state(Gateway { stack, tokens });
    axum::serve(listener, app)
        .await
        .map_err(|e| StackError::Gateway(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_verify_signature_issuer_audience_and_expiry() {
        let t = Tokens::new("https://issuer.example/", "aud");
        let ok = t.issue("p-1", &["podium/operator"], 60);
        let claims = t.verify(&format!("Bearer {ok}")).expect("valid");
        assert_eq!(claims["sub"], "p-1");
        assert_eq!(claims["scope"], "podium/operator");
        assert!(t.verify(&t.issue("p-1", &[], -120)).is_none(), "expired");
        let other = Tokens::new("https://issuer.example/", "aud");
        assert!(t.verify(&other.issue("p-1", &[], 60)).is_none(), "another key");
        let wrong_aud = Tokens {
            audience: "other".into(),
            ..t.clone()
        };
        assert!(
            t.verify(&wrong_aud.issue("p-1", &[], 60)).is_none(),
            "another audience"
        );
    }
}
