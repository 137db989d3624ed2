use events::{handle, EventBridge};
use lambda_runtime::{run, service_fn, tracing, Error, LambdaEvent};
use podium_service::config;

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let bus = config::event_bus()?;
    let sink = &podium_store::aws::OnFirstEvent::new(move |aws| EventBridge::new(&aws, bus.clone()));
    run(service_fn(
        move |event: LambdaEvent<serde_json::Value>| async move {
            Ok::<_, Error>(handle(sink.get().await, &event.payload).await)
        },
    ))
    .await
}
