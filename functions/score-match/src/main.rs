use lambda_runtime::{service_fn, tracing, Error, LambdaEvent};
use podium_service::config;
use podium_store::dynamo::DynamoStore;
use score_match::dead_letter::SqsDeadLetters;
use score_match::error::FunctionError;
use score_match::handler;

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let table = config::table_name().map_err(FunctionError::from)?;
    let dlq_url = config::dead_letter_queue_url().map_err(FunctionError::from)?;
    let timeouts = config::dynamodb_timeouts().map_err(FunctionError::from)?;
    let policy = &config::record_policy().map_err(FunctionError::from)?;
    let aws = podium_store::aws::lambda_sdk_config().await;
    let store = DynamoStore::from_sdk_config(&aws, table, &timeouts);
    let dead_letters = SqsDeadLetters::new(aws, dlq_url);
    let (store, dead_letters) = (&store, &dead_letters);
    let metrics = podium_http::emf::collector()?;
    metrics_cloudwatch_embedded::lambda::service::run(
        metrics,
        service_fn(move |event: LambdaEvent<_>| async move {
            let started = std::time::Instant::now();
            let answer =
                handler::handle(store, dead_letters, event.payload, chrono::Utc::now(), policy).await;
            podium_service::telemetry::invocation(started.elapsed());
            Ok::<_, Error>(answer)
        }),
    )
    .await
}
