use lambda_runtime::{service_fn, tracing, Error, LambdaEvent};
use podium_service::config;
use podium_store::dynamo::DynamoStore;
use snapshot::{handle, ScheduledRun};

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let table = config::table_name()?;
    let timeouts = config::dynamodb_timeouts()?;
    let store = &podium_store::aws::OnFirstEvent::new(move |aws| {
        DynamoStore::from_sdk_config(&aws, table.clone(), &timeouts)
    });
    let settings = &config::tick_settings()?;
    let metrics = podium_http::emf::collector()?;
    metrics_cloudwatch_embedded::lambda::service::run(
        metrics,
        service_fn(move |event: LambdaEvent<ScheduledRun>| async move {
            let started = std::time::Instant::now();
            let answer = handle(store.get().await, event.payload, settings).await;
            podium_service::telemetry::invocation(started.elapsed());
            Ok::<_, Error>(answer?)
        }),
    )
    .await
}
