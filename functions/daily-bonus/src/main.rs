//! `daily-bonus`: `POST /v1/games/mahjong-rivals/daily-bonus`, the caller's claim of today's
//! Mahjong Rivals bonus (MJ-18), once a day, behind API Gateway's JWT authorizer.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    podium_http::run_function().await
}
