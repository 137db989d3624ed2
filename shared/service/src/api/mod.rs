//! The HTTP API: one [`axum`] router for every route, run by `podium serve` on
//! loopback and by the Lambda functions behind API Gateway (`podium-http`), and its
//! OpenAPI 3.1 description generated from the same handlers ([`openapi`], served at
//! `GET /v1/openapi.json`).
//!
//! | route | answer |
//! |---|---|
//! | `GET /v1/leaderboards/{board}?limit=1..100&cursor=C&period=P` | a [`Page`](crate::boards::live::Page) with its period clock (LB-3, LB-6) |
//! | `GET /v1/leaderboards/{board}/me?neighbours=0..25&period=P` | [`AroundMe`](crate::boards::live::AroundMe) (LB-4) |
//! | `GET /v1/me` | the caller's Seega [`Profile`](crate::boards::live::Profile) (SG-12) |
//! | `GET /v1/me/mahjong-rivals` | the caller's [`MahjongProfile`](crate::players::rewards::MahjongProfile) (MJ-6, MJ-17, MJ-20) |
//! | `GET /v1/me/matches/{match_id}` | the caller's [`MatchView`](crate::games::results::MatchView) |
//! | `GET /v1/leagues/{league}/me` | the caller's [`MyLeague`](crate::players::leagues::MyLeague): tier and cohort this week |
//! | `GET /v1/leagues/{league}/cohorts/{cohort}?week=W` | a cohort's [`CohortView`](crate::players::leagues::CohortView) |
//! | `GET /v1/me/inbox` | the caller's [`InboxView`](crate::players::inbox::InboxView): closed periods' results and rewards (LB-5) |
//! | `POST /v1/me/inbox/{message_id}/claim` | the caller claims a message's reward, [`ClaimAnswer`](crate::players::inbox::ClaimAnswer) (GM-3) |
//! | `GET /v1/me/follows` | the boards on which the caller opted in to `overtaken` messages, [`Following`](routes::Following) |
//! | `PUT`, `DELETE /v1/me/follows/{board}` | the caller opts in or out on a board ([`crate::players::overtaken`]) |
//! | `GET /v1/me/ledger?game=G&limit=1..100&cursor=C` | a [`HistoryPage`](crate::players::point_history::HistoryPage) of the caller's ledger, newest first (GM-4) |
//! | `GET /v1/me/arenas/{arena_id}` | an Arena's result for one of its players (MJ-11) |
//! | `GET /v1/me/tournament-tables/{table_id}` | a tournament table's TP for one of its players (MJ-13 … MJ-15) |
//! | `GET /v1/tournaments/{tournament_id}` | a tournament's settings and status; once final, its winners (MJ-16) |
//! | `POST /v1/games/mahjong-rivals/daily-bonus` | the caller's claim of today's bonus, [`BonusAnswer`](crate::players::rewards::BonusAnswer) (MJ-18) |
//! | `GET /v1/ad-callbacks/admob?…` | an AdMob SSV callback (its signature authenticates it) (SG-10, MJ-19) |
//! | `GET /v1/ad-callbacks/unity-ads?…` | a Unity Ads S2S callback (HMAC-MD5), answered `1` |
//! | `GET /v1/operator/players/{player_id}` | support's [`PlayerOverview`](crate::operators::console::PlayerOverview) (operators only) |
//! | `GET /v1/operator/leaderboards/{board}?limit&cursor&period` | any board's page, as players see it (operators only) |
//! | `GET /v1/operator/jobs` | the scheduled jobs' status: refreshes under way, periods closed, results left out for review (operators only) |
//! | `GET /v1/openapi.json` | this API's OpenAPI 3.1 description |
//!
//! The caller is an [`Identity`] that the layer in front of the router puts on the
//! request: the verified JWT's `sub` deployed (GM-1), the development header locally;
//! never a path, query or body value. Errors answer `{"error": KIND, "message": TEXT}`
//! ([`ErrorBody`]) with 400, 401, 403, 404, 405, 409, 500 or 503; a store failure's
//! detail goes to the log, never to the body.

pub mod callers;
mod docs;
mod error;
mod extract;
mod parameters;
mod router;
mod routes;
mod schemas;
mod state;
#[cfg(test)]
mod tests;
pub mod validators;

pub use docs::{openapi, openapi_json, routes};
pub use error::{ApiError, ErrorBody};
pub use extract::Identity;
pub use router::{handle, handle_with_body, handle_with_headers, read_back, router, ApiRequest, ApiResponse};
pub use state::{ApiContext, AppState, Clock};
