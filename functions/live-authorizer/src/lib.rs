//! `live-authorizer`: the live feed's `$connect` authorizer (LIVE-1), a Lambda REQUEST
//! authorizer of the WebSocket API. A browser cannot set headers on a WebSocket, so
//! the token comes in the query, `?token=<JWT>`. It is verified as the HTTP API's JWT
//! authorizer verifies the same identity provider's tokens: the signature against the
//! issuer's published keys (JWKS, `PODIUM_JWKS_URL`, default
//! `{issuer}/.well-known/jwks.json`), the issuer (`PODIUM_JWT_ISSUER`), the audience
//! (one of `PODIUM_JWT_AUDIENCE`, comma-separated, in `aud` or, for access tokens
//! without one, `client_id`), the expiry and a not-before, both without leeway. The token's `sub` is the player (an id of GM-5's form):
//! the policy allows the connection with it as `principalId`, which the `live`
//! function reads. Anything else is `Unauthorized` (API Gateway answers 401).
//!
//! The key set is fetched on first use and kept [`MAX_AGE`]; a token naming a key id
//! it lacks fetches it again, at most once a [`MIN_REFETCH`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{json, Value};
use tokio::sync::Mutex;

/// The longest a fetched key set is trusted.
pub const MAX_AGE: Duration = Duration::from_secs(3600);

/// The shortest pause between two fetches for unknown key ids.
pub const MIN_REFETCH: Duration = Duration::from_secs(60);

/// Why a connection is not authorised (the answer is `Unauthorized` whatever it is;
/// the reason is logged, never the token).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("no token in the query (`?token=`)")]
    NoToken,
    #[error("the token is malformed or its signature, issuer, audience or expiry does not hold: {0}")]
    Token(String),
    #[error("the token names a key the issuer does not publish")]
    UnknownKey,
    #[error("the token's subject is no player id (GM-5)")]
    Subject,
    #[error("the issuer's keys could not be fetched: {0}")]
    Keys(String),
}

/// Where the key set comes from.
#[async_trait]
pub trait Fetch: Send + Sync {
    /// The published key set (JWKS JSON).
    async fn fetch(&self) -> Result<Vec<u8>, String>;
}

/// An HTTPS GET of the key set's URL (connect 2 s, whole request 5 s); the client is
/// built on the first fetch.
pub struct HttpFetch {
    client: tokio::sync::OnceCell<reqwest::Client>,
    url: String,
}

impl HttpFetch {
    pub fn new(url: String) -> Self {
        HttpFetch {
            client: tokio::sync::OnceCell::new(),
            url,
        }
    }
}

#[async_trait]
impl Fetch for HttpFetch {
    async fn fetch(&self) -> Result<Vec<u8>, String> {
        let client = self
            .client
            .get_or_try_init(|| async {
                let _ = rustls::crypto::ring::default_provider().install_default();
                reqwest::Client::builder()
                    .connect_timeout(Duration::from_secs(2))
                    .timeout(Duration::from_secs(5))
                    .build()
                    .map_err(|e| e.to_string())
            })
            .await?;
        let response = client.get(&self.url).send().await.map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status()));
        }
        Ok(response.bytes().await.map_err(|e| e.to_string())?.to_vec())
    }
}

struct Cached {
    keys: Arc<JwkSet>,
    fetched: Instant,
}

/// What a token must hold besides a valid signature.
#[derive(Debug, Clone)]
pub struct Expected {
    pub issuer: String,
    /// The audiences accepted (any of them).
    pub audiences: Vec<String>,
}

impl Expected {
    /// Where the issuer publishes its keys: `jwks_url`, or when empty
    /// `{issuer}/.well-known/jwks.json` (Amazon Cognito's).
    pub fn jwks_url(&self, jwks_url: &str) -> String {
        if jwks_url.is_empty() {
            format!("{}/.well-known/jwks.json", self.issuer.trim_end_matches('/'))
        } else {
            jwks_url.to_string()
        }
    }
}

/// Verifies tokens against the issuer's key set.
pub struct Verifier<F> {
    fetch: F,
    expected: Expected,
    cached: Mutex<Option<Cached>>,
    last_fetch: Mutex<Option<Instant>>,
}

impl<F: Fetch> Verifier<F> {
    pub fn new(fetch: F, expected: Expected) -> Self {
        Verifier {
            fetch,
            expected,
            cached: Mutex::new(None),
            last_fetch: Mutex::new(None),
        }
    }

    async fn keys(&self, refetch: bool) -> Result<Arc<JwkSet>, Refusal> {
        {
            let cached = self.cached.lock().await;
            if let Some(c) = cached.as_ref() {
                let fresh = c.fetched.elapsed() < MAX_AGE;
                let may_refetch = self
                    .last_fetch
                    .lock()
                    .await
                    .is_none_or(|t| t.elapsed() >= MIN_REFETCH);
                if fresh && !(refetch && may_refetch) {
                    return Ok(Arc::clone(&c.keys));
                }
            }
        }
        *self.last_fetch.lock().await = Some(Instant::now());
        let bytes = self.fetch.fetch().await.map_err(Refusal::Keys)?;
        let keys: JwkSet = serde_json::from_slice(&bytes).map_err(|e| Refusal::Keys(e.to_string()))?;
        let keys = Arc::new(keys);
        *self.cached.lock().await = Some(Cached {
            keys: Arc::clone(&keys),
            fetched: Instant::now(),
        });
        Ok(keys)
    }

    /// The player `token` names (its `sub`) when it holds (see the module notes).
    pub async fn player(&self, token: &str) -> Result<String, Refusal> {
        let token = token.strip_prefix("Bearer ").unwrap_or(token).trim();
        if token.is_empty() {
            return Err(Refusal::NoToken);
        }
        let header = jsonwebtoken::decode_header(token).map_err(|e| Refusal::Token(e.to_string()))?;
        let mut keys = self.keys(false).await?;
        let find = |keys: &JwkSet| match &header.kid {
            Some(kid) => keys.find(kid).cloned(),
            None if keys.keys.len() == 1 => keys.keys.first().cloned(),
            None => None,
        };
        let jwk = match find(&keys) {
            Some(k) => k,
            None => {
                keys = self.keys(true).await?;
                find(&keys).ok_or(Refusal::UnknownKey)?
            }
        };
        // The key's own family decides which algorithms it verifies (an RSA key never
        // verifies an HS256 token).
        let key = DecodingKey::from_jwk(&jwk).map_err(|e| Refusal::Token(e.to_string()))?;
        let alg = header.alg;
        if matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
            && !matches!(jwk.algorithm, jsonwebtoken::jwk::AlgorithmParameters::OctetKey(_))
        {
            return Err(Refusal::Token("an HMAC token for a public key".into()));
        }
        let mut validation = Validation::new(alg);
        // As the HTTP API's JWT authorizer: `exp` and `nbf` as they stand, no leeway
        // (the library's default would take a token a minute past its expiry).
        validation.leeway = 0;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.expected.issuer]);
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        let data = jsonwebtoken::decode::<Value>(token, &key, &validation)
            .map_err(|e| Refusal::Token(e.to_string()))?;
        let claims = data.claims;
        let accepted = |a: Option<&str>| a.is_some_and(|a| self.expected.audiences.iter().any(|x| x == a));
        let in_aud = match claims.get("aud") {
            Some(Value::String(a)) => accepted(Some(a)),
            Some(Value::Array(all)) => all.iter().any(|a| accepted(a.as_str())),
            _ => accepted(claims.get("client_id").and_then(Value::as_str)),
        };
        if !in_aud {
            return Err(Refusal::Token("the audience does not hold".into()));
        }
        let sub = claims.get("sub").and_then(Value::as_str).unwrap_or_default();
        podium_rules::record::ids::check_player_id("sub", sub).map_err(|_| Refusal::Subject)?;
        Ok(sub.to_string())
    }
}

/// The authorizer's answer to `event` (a WebSocket REQUEST authorizer event): the
/// policy allowing `methodArn` for the token's player, or `Err` (API Gateway: 401).
pub async fn authorize<F: Fetch>(verifier: &Verifier<F>, event: &Value) -> Result<Value, Refusal> {
    let token = event
        .get("queryStringParameters")
        .and_then(|q| q.get("token"))
        .and_then(Value::as_str)
        .ok_or(Refusal::NoToken)?;
    let player = verifier.player(token).await?;
    let arn = event.get("methodArn").and_then(Value::as_str).unwrap_or("*");
    Ok(json!({
        "principalId": player,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": arn}]
        },
        "context": {"sub": player}
    }))
}

#[cfg(test)]
mod tests {
    // LIVE-1: the `$connect` authorizer allows a token of the identity provider for its
    // `sub`, and refuses every other: no token, another issuer or audience, expired, a
    // bad signature, a key the issuer does not publish, `alg: none`, a subject that is no
    // player id.
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use base64::Engine as _;
    use jsonwebtoken::{EncodingKey, Header};
    use serde_json::json;

    const SECRET: &[u8] = b"a local identity provider's key, 32+ bytes";

    struct Published(AtomicUsize);

    #[async_trait]
    impl Fetch for Published {
        async fn fetch(&self) -> Result<Vec<u8>, String> {
            self.0.fetch_add(1, Ordering::Relaxed);
            let k = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(SECRET);
            Ok(
                json!({"keys": [{"kty": "oct", "kid": "k1", "alg": "HS256", "k": k}]})
                    .to_string()
                    .into_bytes(),
            )
        }
    }

    fn verifier() -> Verifier<Published> {
        Verifier::new(
            Published(AtomicUsize::new(0)),
            Expected {
                issuer: "https://id.example".into(),
                audiences: vec!["podium-operators".into(), "podium-app".into()],
            },
        )
    }

    fn token(claims: Value, kid: &str, secret: &[u8]) -> String {
        let mut header = Header::new(jsonwebtoken::Algorithm::HS256);
        header.kid = Some(kid.into());
        jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(secret).expect("key"))
            .expect("token")
    }

    fn claims(sub: &str) -> Value {
        let now = chrono::Utc::now().timestamp();
        json!({"iss": "https://id.example", "aud": "podium-app", "sub": sub, "iat": now, "exp": now + 600})
    }

    fn event(token: &str) -> Value {
        json!({"type": "REQUEST", "methodArn": "arn:aws:execute-api:eu-west-1:1:api/live/$connect",
               "queryStringParameters": {"token": token}})
    }

    #[tokio::test]
    async fn live_1_a_valid_token_connects_its_subject() {
        let v = verifier();
        let answer = authorize(&v, &event(&token(claims("p-00042"), "k1", SECRET)))
            .await
            .expect("allowed");
        assert_eq!(answer["principalId"], "p-00042");
        assert_eq!(answer["policyDocument"]["Statement"][0]["Effect"], "Allow");
        assert_eq!(
            answer["policyDocument"]["Statement"][0]["Resource"],
            "arn:aws:execute-api:eu-west-1:1:api/live/$connect"
        );
        // An access token without `aud`: its `client_id` is the audience.
        let mut access = claims("p-00042");
        access.as_object_mut().expect("object").remove("aud");
        access["client_id"] = json!("podium-app");
        assert!(authorize(&v, &event(&token(access, "k1", SECRET))).await.is_ok());
    }

    #[tokio::test]
    async fn live_1_every_other_token_is_refused() {
        let v = verifier();
        let mut expired = claims("p-1");
        expired["exp"] = json!(chrono::Utc::now().timestamp() - 3600);
        let mut other_issuer = claims("p-1");
        other_issuer["iss"] = json!("https://evil.example");
        let mut just_expired = claims("p-1");
        just_expired["exp"] = json!(chrono::Utc::now().timestamp() - 5);
        let mut not_yet = claims("p-1");
        not_yet["nbf"] = json!(chrono::Utc::now().timestamp() + 3600);
        let mut other_audience = claims("p-1");
        other_audience["aud"] = json!("another-app");
        let unsigned = {
            let h = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"none","kid":"k1"}"#);
            let c = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims("p-1").to_string());
            format!("{h}.{c}.")
        };
        for (what, t) in [
            ("expired", token(expired, "k1", SECRET)),
            ("expired 5 s ago", token(just_expired, "k1", SECRET)),
            ("not valid before an hour from now", token(not_yet, "k1", SECRET)),
            ("another issuer", token(other_issuer, "k1", SECRET)),
            ("another audience", token(other_audience, "k1", SECRET)),
            (
                "a bad signature",
                token(claims("p-1"), "k1", b"another key, also 32 bytes long!!"),
            ),
            ("alg none", unsigned),
            ("not a token", "Dev p-1".to_string()),
            (
                "a subject that is no player id",
                token(claims("bad id!"), "k1", SECRET),
            ),
        ] {
            assert!(authorize(&v, &event(&t)).await.is_err(), "{what}");
        }
        assert!(matches!(
            authorize(&v, &json!({"type": "REQUEST"})).await,
            Err(Refusal::NoToken)
        ));
        assert!(matches!(
            authorize(&v, &event(&token(claims("p-1"), "k9", SECRET))).await,
            Err(Refusal::UnknownKey)
        ));
    }
}
