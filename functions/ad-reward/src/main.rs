use std::sync::Arc;

use ad_reward::error::FunctionError;
use ad_reward::keys::{FetchedKeys, HttpFetch};
use lambda_runtime::{tracing, Error};
use podium_service::api::ApiContext;
use podium_service::boards::cursor::CursorKey;
use podium_service::config;
use podium_service::players::rewards::{AdmobKeys, Ads, StaticKeys};

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let catalogue = config::ad_catalogue()
        .map_err(FunctionError::from)?
        .ok_or(FunctionError::Config(config::ConfigError {
            name: "PODIUM_AD_CATALOGUE",
            problem: "is not set".into(),
        }))?;
    let admob_keys: Arc<dyn AdmobKeys> = match config::admob_keys_file().map_err(FunctionError::from)? {
        Some(keys) => Arc::new(StaticKeys(keys)),
        None => Arc::new(FetchedKeys::new(HttpFetch::new(config::admob_keys_url()))),
    };
    let ads = Ads {
        admob_keys,
        catalogue,
        policy: config::ad_policy().map_err(FunctionError::from)?,
        unity_secret: config::unity_ads_secret(),
    };
    // This function serves no board: its cursor key signs nothing.
    let ctx = ApiContext::new(CursorKey::random()).with_ads(ads);
    podium_http::run_with(ctx).await
}
