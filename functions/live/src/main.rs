use lambda_runtime::{run, service_fn, tracing, Error, LambdaEvent};
use podium_gateway::ManagementApi;
use podium_service::config;
use podium_store::dynamo::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let table = config::table_name()?;
    let timeouts = config::dynamodb_timeouts()?;
    let endpoint = config::live_endpoint()?;
    let clients = &podium_store::aws::OnFirstEvent::new(move |aws| {
        (
            DynamoStore::from_sdk_config(&aws, table.clone(), &timeouts),
            ManagementApi::new(&aws, &endpoint),
        )
    });
    run(service_fn(
        move |event: LambdaEvent<serde_json::Value>| async move {
            let (store, gateway) = clients.get().await;
            Ok::<_, Error>(live::handle(store, gateway, &event.payload, chrono::Utc::now()).await)
        },
    ))
    .await
}
