//! `leaderboard`: ranked pages of a board (LB-3) and the caller's own entry with
//! neighbours (LB-4), behind API Gateway's JWT authorizer.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    podium_http::run_function().await
}
