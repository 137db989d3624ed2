use events::{handle, EventBridge, Live};
use lambda_runtime::{run, service_fn, tracing, Error, LambdaEvent};
use podium_service::config;
use podium_service::push::gateway::Pusher;
use podium_store::dynamo::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let bus = config::event_bus()?;
    let table = config::table_name()?;
    let timeouts = config::dynamodb_timeouts()?;
    let endpoint = config::live_endpoint()?;
    let rate = config::live_posts_per_second()?;
    let clients = &podium_store::aws::OnFirstEvent::new(move |aws| {
        let gateway = std::sync::Arc::new(podium_gateway::ManagementApi::new(&aws, &endpoint));
        (
            EventBridge::new(&aws, bus.clone()),
            DynamoStore::from_sdk_config(&aws, table.clone(), &timeouts),
            Pusher::new(gateway).paced(rate),
        )
    });
    run(service_fn(
        move |event: LambdaEvent<serde_json::Value>| async move {
            let (sink, store, pusher) = clients.get().await;
            // Pushes end 5 s before the invocation's deadline (the rest are dropped:
            // at most once, LIVE-4).
            let left = event
                .context
                .deadline()
                .duration_since(std::time::SystemTime::now())
                .unwrap_or_default();
            let deadline =
                tokio::time::Instant::now() + left.saturating_sub(std::time::Duration::from_secs(5));
            let live = Live {
                store,
                pusher,
                deadline: Some(deadline),
            };
            Ok::<_, Error>(handle(sink, Some(&live), &event.payload).await)
        },
    ))
    .await
}
