use std::sync::Arc;

use ad_reward::error::FunctionError;
use ad_reward::handler;
use ad_reward::keys::{FetchedKeys, HttpFetch};
use aws_lambda_events::apigw::ApiGatewayV2httpRequest;
use lambda_runtime::{run, service_fn, tracing, Error, LambdaEvent};
use podium_service::api::ApiContext;
use podium_service::config;
use podium_service::cursor::CursorKey;
use podium_service::rewards::{AdmobKeys, Ads, StaticKeys};
use podium_store::dynamo::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let table = config::table_name().map_err(FunctionError::from)?;
    let timeouts = config::dynamodb_timeouts().map_err(FunctionError::from)?;
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
    let ctx = &ApiContext::new(CursorKey::random()).with_ads(ads);
    let aws = podium_store::aws::lambda_sdk_config().await;
    let store = &DynamoStore::from_sdk_config(&aws, table, &timeouts);
    run(service_fn(
        move |event: LambdaEvent<ApiGatewayV2httpRequest>| async move {
            Ok::<_, Error>(handler::handle(store, ctx, event.payload, chrono::Utc::now()).await)
        },
    ))
    .await
}
