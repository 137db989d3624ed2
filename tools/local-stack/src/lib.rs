//! podium's Lambda functions run as Lambda runs them, on this machine.
//!
//! Each function binary is started under a local Lambda Runtime API ([`runtime`]:
//! `GET /2018-06-01/runtime/invocation/next`, `POST …/{id}/response`, `…/{id}/error`,
//! `…/init/error`) with exactly the environment Lambda gives it: the variables
//! `template.yaml` sets for it ([`template`], intrinsic functions resolved against the
//! local resources), Lambda's own (`AWS_LAMBDA_*`, `AWS_REGION`, credentials) and the
//! endpoint overrides that point the AWS SDK at the local servers
//! (`AWS_ENDPOINT_URL_DYNAMODB`, `_SQS`, `_EVENTBRIDGE`). Nothing else reaches it.
//!
//! [`stack::Stack`] creates what the template declares on DynamoDB Local (the table,
//! with its keys, GSIs, stream and TTL) and on a local SQS/EventBridge server (`moto`
//! in server mode: the queues, the event bus), and feeds the functions the events
//! AWS would send ([`events`]): API Gateway HTTP API v2 requests carrying the JWT
//! authorizer's claims, SQS batches, EventBridge Scheduler inputs, DynamoDB Streams
//! batches, direct invokes. [`gateway`] serves the HTTP API on a local port in front
//! of them, verifying tokens the way the JWT authorizer does (issuer, audience,
//! expiry, scopes). The `local-stack` binary runs it all until stopped.

pub mod control;
pub mod error;
pub mod events;
pub mod function;
pub mod gateway;
pub mod resources;
pub mod runtime;
pub mod stack;
pub mod template;
pub mod websocket;

pub use error::StackError;

/// The prefix of every local stack's name (`AWS::StackName`): `podium-local-<hex>`.
pub const STACK_PREFIX: &str = "podium-local";
/// The region every local resource and function is in.
pub const REGION: &str = "us-east-1";
/// The account id of local ARNs (moto's default).
pub const ACCOUNT: &str = "123456789012";

/// The repository's `template.yaml`.
pub fn project_template() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../template.yaml")
}
