//! The smallest `lambda_runtime` function: answers every event with "hello".

use lambda_runtime::{run, service_fn, Error, LambdaEvent};

#[tokio::main]
async fn main() -> Result<(), Error> {
    run(service_fn(|_event: LambdaEvent<serde_json::Value>| async {
        Ok::<_, Error>(serde_json::json!("hello"))
    }))
    .await
}
