use lambda_runtime::{service_fn, tracing, Error, LambdaEvent};
use podium_service::config;
use podium_store::dynamo::DynamoStore;
use snapshot::{handle_within, Budget, ScheduledRun};

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
            // The invocation's own deadline, less the time kept to save and publish:
            // every job stops at a step's end before it, and the next tick resumes.
            let budget = Budget::invocation(event.context.deadline, std::time::SystemTime::now());
            let answer = handle_within(store.get().await, event.payload, settings, budget).await;
            podium_service::telemetry::invocation(started.elapsed());
            Ok::<_, Error>(answer?)
        }),
    )
    .await
}
