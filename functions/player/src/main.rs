//! `player`: the caller's profile (balance, SG-12 rank) and the result of one of
//! the caller's finished matches, behind API Gateway's JWT authorizer.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    podium_http::run_function().await
}
