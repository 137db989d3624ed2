//! The local stack's one error type.

use thiserror::Error;

/// What can go wrong starting or driving the local stack.
#[derive(Debug, Error)]
pub enum StackError {
    /// `template.yaml` cannot be read, or declares what the local stack cannot emulate.
    #[error("template: {0}")]
    Template(String),
    /// A function binary is missing or could not be started.
    #[error("function {function}: {problem}")]
    Start { function: String, problem: String },
    /// A function exited, or posted an init error, before answering.
    #[error("function {function} failed at start-up ({status}); its output:\n{output}")]
    Init {
        function: String,
        status: String,
        output: String,
    },
    /// A function did not answer within its timeout; `taken`: whether it had taken
    /// the event from the Runtime API (false: it never polled for it).
    #[error("function {function} timed out after {secs} s ({}); its output:\n{output}",
        if *taken { "it had taken the event" } else { "it never took the event from the Runtime API" })]
    Timeout {
        function: String,
        secs: u64,
        taken: bool,
        output: String,
    },
    /// DynamoDB Local or the SQS/EventBridge server refused a request.
    #[error("{service}: {problem}")]
    Aws { service: &'static str, problem: String },
    /// The local API Gateway or its listener.
    #[error("gateway: {0}")]
    Gateway(String),
}

impl StackError {
    /// An AWS SDK error from `service`, with the SDK's whole message.
    pub fn aws(service: &'static str, e: impl std::error::Error) -> StackError {
        let mut problem = e.to_string();
        let mut source = e.source();
        while let Some(s) = source {
            problem.push_str(": ");
            problem.push_str(&s.to_string());
            source = s.source();
        }
        StackError::Aws { service, problem }
    }
}
