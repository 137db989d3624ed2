use lambda_runtime::{run, service_fn, tracing, Error, LambdaEvent};
use pre_traffic_hook::aws::{CodeDeploy, Lambda};
use pre_traffic_hook::{check, HookError, HookEvent, ProbedFunctions};

#[tokio::main]
async fn main() -> Result<(), Error> {
    tracing::init_default_subscriber();
    let functions = &ProbedFunctions::parse(&std::env::var("PODIUM_PROBED_FUNCTIONS").map_err(|_| {
        HookError::Config {
            variable: "PODIUM_PROBED_FUNCTIONS",
            problem: "is not set".into(),
        }
    })?)?;
    let clients = &podium_store::aws::OnFirstEvent::new(|aws| (CodeDeploy::new(&aws), Lambda::new(&aws)));
    run(service_fn(move |event: LambdaEvent<HookEvent>| async move {
        let (deployments, versions) = clients.get().await;
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let verdict = check(deployments, versions, functions, &event.payload, &now).await?;
        tracing::info!(
            status = ?verdict.status,
            function = %verdict.function,
            version = %verdict.version,
            reason = %verdict.reason,
            "pre-traffic check"
        );
        Ok::<_, Error>(verdict)
    }))
    .await
}
