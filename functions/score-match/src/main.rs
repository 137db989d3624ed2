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
    let clients = &podium_store::aws::OnFirstEvent::new(move |aws| {
        let store = DynamoStore::from_sdk_config(&aws, table.clone(), &timeouts);
        (store, SqsDeadLetters::new(aws, dlq_url.clone()))
    });
    let metrics = podium_http::emf::collector()?;
    metrics_cloudwatch_embedded::lambda::service::run(
        metrics,
        service_fn(move |event: LambdaEvent<_>| async move {
            let started = std::time::Instant::now();
            let (store, dead_letters) = clients.get().await;
            let answer =
                handler::handle(store, dead_letters, event.payload, chrono::Utc::now(), policy).await;
            podium_service::telemetry::invocation(started.elapsed());
            Ok::<_, Error>(answer)
        }),
    )
    .await
}
