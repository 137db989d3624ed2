//! Rewarded-ad callbacks (SG-10, MJ-19), authenticated by their signatures.

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue};
use axum::response::IntoResponse;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::error::{ApiError, ErrorBody};
use crate::api::state::AppState;
use crate::error::ServiceError;
use crate::players::rewards::{self, Ads};

use super::respond::*;

/// The ad callbacks' configuration, or 404 where they are not answered.
fn ads(state: &AppState) -> Result<&Ads, ApiError> {
    state.ctx.ads.as_deref().ok_or_else(|| {
        ApiError(ServiceError::NotFound(
            "ad callbacks are not answered here".into(),
        ))
    })
}

/// The parameters of an AdMob SSV callback: the signature covers the query string
/// exactly as sent, up to `&signature=`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct AdmobQuery {
    ad_network: Option<String>,
    /// The ad unit: one of podium's rewarded units (SG-10, MJ-19).
    ad_unit: Option<String>,
    custom_data: Option<String>,
    reward_amount: Option<String>,
    reward_item: Option<String>,
    /// Milliseconds since the Unix epoch (UTC).
    timestamp: Option<String>,
    transaction_id: Option<String>,
    /// The player (the app sets it as the SSV user id).
    user_id: Option<String>,
    /// ECDSA P-256 signature, URL-safe base64.
    signature: Option<String>,
    key_id: Option<String>,
}

/// An AdMob server-side verification callback: verified, then paid once per
/// transaction (GM-3, SG-10, MJ-19). No JWT: the signature authenticates it.
#[utoipa::path(
    get,
    path = "/v1/ad-callbacks/admob",
    tag = "ad callbacks",
    params(AdmobQuery),
    responses(
        (status = 200, description = "Paid, or the earlier answer of the same transaction (`duplicate`)", body = crate::players::rewards::AdAnswer,
            example = json!({"status": "granted", "network": "admob", "transaction_id": "123456789", "player_id": "alice",
                "game": "seega", "day": "2026-11-30", "points": 40, "balance_after": 540, "duplicate": false})),
        (status = 403, description = "The signature does not verify, the key is unknown, or the ad unit is not podium's", body = ErrorBody),
        (status = 409, description = "The transaction id was paid with other content (GM-3)", body = ErrorBody),
    )
)]
pub(crate) async fn admob_callback(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Answer {
    let ads = ads(&state)?;
    let now = (state.clock)();
    json(&rewards::admob_callback(state.store.as_ref(), ads, raw.as_deref().unwrap_or(""), now).await?)
}

/// A Unity Ads server-to-server callback (HMAC-MD5): answered `1` when paid or paid
/// before (GM-3, SG-10, MJ-19). No JWT: the signature authenticates it.
#[utoipa::path(
    get,
    path = "/v1/ad-callbacks/unity-ads",
    tag = "ad callbacks",
    params(
        ("sid" = Option<String>, Query, description = "The player"),
        ("oid" = Option<String>, Query, description = "The order (transaction) id"),
        ("productid" = Option<String>, Query, description = "The ad unit"),
        ("hmac" = Option<String>, Query, description = "HMAC-MD5 of the other parameters, hex"),
    ),
    responses(
        (status = 200, description = "Paid, or paid before", body = String, content_type = "text/plain", example = "1"),
        (status = 403, description = "The signature does not verify", body = ErrorBody),
        (status = 409, description = "The order id was paid with other content (GM-3)", body = ErrorBody),
    )
)]
pub(crate) async fn unity_callback(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Answer {
    let ads = ads(&state)?;
    let now = (state.clock)();
    rewards::unity_callback(state.store.as_ref(), ads, raw.as_deref().unwrap_or(""), now).await?;
    Ok((
        [(header::CONTENT_TYPE, HeaderValue::from_static(TEXT))],
        podium_ads::unity::SUCCESS_BODY,
    )
        .into_response())
}
