//! The metrics recorder of every Lambda function: CloudWatch Embedded Metric Format
//! documents on stdout, flushed after each invocation, namespace
//! [`podium_service::telemetry::NAMESPACE`], dimension `Function` (the function's
//! name), a `ColdStart` count and the request id as a property. What is recorded is
//! listed in [`podium_service::telemetry`].

use metrics_cloudwatch_embedded::Collector;

/// Installs the recorder (once per process) and describes the metrics' units.
pub fn collector() -> Result<&'static Collector, lambda_http::Error> {
    let collector = metrics_cloudwatch_embedded::Builder::new()
        .cloudwatch_namespace(podium_service::telemetry::NAMESPACE)
        .with_dimension("Function", podium_service::config::function_name())
        .lambda_cold_start_metric("ColdStart")
        .with_lambda_request_id("RequestId")
        .init()
        .map_err(|e| format!("metrics recorder: {e}"))?;
    podium_service::telemetry::describe();
    Ok(collector)
}
