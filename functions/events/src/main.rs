use events::{handle, EventBridge};
use lambda_runtime::{run, service_fn, tracing, Error, LambdaEvent};
use podium_service::config;

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let bus = config::event_bus()?;
    let aws = podium_store::aws::lambda_sdk_config().await;
    let sink = &EventBridge::new(&aws, bus);
    run(service_fn(
        move |event: LambdaEvent<serde_json::Value>| async move {
            Ok::<_, Error>(handle(sink, &event.payload).await)
        },
    ))
    .await
}
