use thiserror::Error;

/// What keeps the hook from giving a verdict (a verdict of failure is not an error:
/// it is reported to CodeDeploy like a success).
#[derive(Debug, Error)]
pub enum HookError {
    /// A required variable is missing or malformed (read once, at start-up).
    #[error("{variable}: {problem}")]
    Config { variable: &'static str, problem: String },
    /// The invocation is not CodeDeploy's lifecycle hook event.
    #[error("not a CodeDeploy lifecycle hook event: {0}")]
    Event(String),
    /// CodeDeploy did not answer, or answered what the hook cannot read.
    #[error("CodeDeploy: {0}")]
    CodeDeploy(String),
}
