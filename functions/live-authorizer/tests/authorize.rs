//! LIVE-1: the `$connect` authorizer allows a token of the identity provider for its
//! `sub`, and refuses every other: no token, another issuer or audience, expired, a
//! bad signature, a key the issuer does not publish, `alg: none`, a subject that is no
//! player id.

use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use base64::Engine as _;
use jsonwebtoken::{EncodingKey, Header};
use live_authorizer::{authorize, Expected, Fetch, Refusal, Verifier};
use serde_json::{json, Value};

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
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(secret).expect("key")).expect("token")
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
    let mut other_audience = claims("p-1");
    other_audience["aud"] = json!("another-app");
    let unsigned = {
        let h = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"none","kid":"k1"}"#);
        let c = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims("p-1").to_string());
        format!("{h}.{c}.")
    };
    for (what, t) in [
        ("expired", token(expired, "k1", SECRET)),
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
