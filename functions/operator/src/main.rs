//! `operator`: support staff's reads (a player's overview, any board's pages) behind
//! API Gateway's JWT authorizer with the `podium/operator` scope; the router refuses a
//! caller whose verified claims lack it (403).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    podium_http::run_function().await
}
