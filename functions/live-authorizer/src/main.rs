use lambda_runtime::{run, service_fn, tracing, Error, LambdaEvent};
use live_authorizer::{authorize, Expected, HttpFetch, Verifier};

fn setting(name: &str) -> Result<String, Error> {
    std::env::var(name).map_err(|_| Error::from(format!("{name} is not set")))
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let expected = Expected {
        issuer: setting("PODIUM_JWT_ISSUER")?,
        audiences: setting("PODIUM_JWT_AUDIENCE")?
            .split(',')
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty())
            .collect(),
    };
    let url = expected.jwks_url(&std::env::var("PODIUM_JWKS_URL").unwrap_or_default());
    let verifier = &Verifier::new(HttpFetch::new(url), expected);
    run(service_fn(
        move |event: LambdaEvent<serde_json::Value>| async move {
            authorize(verifier, &event.payload).await.map_err(|refusal| {
                tracing::info!(reason = %refusal, "live connection not authorised");
                // API Gateway answers 401 for exactly this error message.
                Error::from("Unauthorized")
            })
        },
    ))
    .await
}
