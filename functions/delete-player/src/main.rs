use delete_player::{handle, DeleteRequest};
use lambda_runtime::{run, service_fn, tracing, Error, LambdaEvent};
use podium_service::config;
use podium_store::dynamo::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let table = config::table_name()?;
    let timeouts = config::dynamodb_timeouts()?;
    let store = &podium_store::aws::OnFirstEvent::new(move |aws| {
        DynamoStore::from_sdk_config(&aws, table.clone(), &timeouts)
    });
    run(service_fn(move |event: LambdaEvent<DeleteRequest>| async move {
        Ok::<_, Error>(handle(store.get().await, event.payload).await?)
    }))
    .await
}
