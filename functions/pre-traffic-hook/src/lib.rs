//! The pre-traffic hook of podium's rollouts: CodeDeploy invokes it before it moves a
//! function's `current` alias to a new version (`DeploymentPreference.Hooks.PreTraffic`
//! in template.yaml). It reads which function and version the deployment moves
//! ([`appspec`]), invokes that version with the function's harmless probe
//! ([`probe`]), and reports `Succeeded` or `Failed` to CodeDeploy: a failed check
//! fails the deployment and the alias stays on the version it had.
//!
//! The invocation's own answer is the verdict as JSON (`{"status", "function",
//! "version", "reason"}`). A deployment it cannot read is reported `Failed` too; the
//! invocation fails (an error, not a verdict) only when the report itself could not be
//! made, and CodeDeploy then fails the deployment when the hook's hour runs out.

pub mod appspec;
pub mod aws;
mod error;
pub mod probe;

use std::collections::BTreeMap;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

pub use error::HookError;
use probe::Invocation;

/// CodeDeploy's lifecycle hook event.
#[derive(Debug, Clone, Deserialize)]
pub struct HookEvent {
    #[serde(rename = "DeploymentId")]
    pub deployment_id: String,
    #[serde(rename = "LifecycleEventHookExecutionId")]
    pub execution_id: String,
}

/// A deployment's outcome as reported to CodeDeploy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Status {
    Succeeded,
    Failed,
}

/// The hook's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub status: Status,
    /// The function checked (empty when the deployment could not be read).
    pub function: String,
    /// The version checked.
    pub version: String,
    /// Why it failed; empty when it passed.
    pub reason: String,
}

/// CodeDeploy, as the hook uses it.
#[async_trait]
pub trait Deployments: Send + Sync {
    /// The AppSpec content of deployment `id` (JSON).
    async fn appspec(&self, id: &str) -> Result<String, HookError>;
    /// Reports the hook execution's outcome.
    async fn report(&self, id: &str, execution_id: &str, status: Status) -> Result<(), HookError>;
}

/// Lambda's `Invoke`, as the hook uses it.
#[async_trait]
pub trait Versions: Send + Sync {
    /// Invokes `version` of `function` with `event`, waiting for its answer; `Err`
    /// when Lambda did not run it (the text says why).
    async fn invoke(
        &self,
        function: &str,
        version: &str,
        event: &serde_json::Value,
    ) -> Result<Invocation, String>;
}

/// Which binary each of the stack's functions runs: `PODIUM_PROBED_FUNCTIONS`,
/// `binary=function name` pairs separated by commas.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbedFunctions(BTreeMap<String, String>);

impl ProbedFunctions {
    /// Reads `binary=name,binary=name`. Errors name the malformed pair.
    pub fn parse(text: &str) -> Result<ProbedFunctions, HookError> {
        let mut by_name = BTreeMap::new();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (binary, name) = pair
                .split_once('=')
                .filter(|(b, n)| !b.is_empty() && !n.is_empty())
                .ok_or_else(|| HookError::Config {
                    variable: "PODIUM_PROBED_FUNCTIONS",
                    problem: format!("{pair:?} is not binary=function-name"),
                })?;
            by_name.insert(name.to_string(), binary.to_string());
        }
        if by_name.is_empty() {
            return Err(HookError::Config {
                variable: "PODIUM_PROBED_FUNCTIONS",
                problem: "names no function".into(),
            });
        }
        Ok(ProbedFunctions(by_name))
    }

    /// The binary the function `name` runs.
    pub fn binary(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

/// Checks the version deployment `event` moves to and reports the verdict to
/// CodeDeploy. `now`: the probe tick's time (RFC 3339, UTC).
pub async fn check(
    deployments: &dyn Deployments,
    versions: &dyn Versions,
    functions: &ProbedFunctions,
    event: &HookEvent,
    now: &str,
) -> Result<Verdict, HookError> {
    // A deployment the hook cannot read fails: CodeDeploy would otherwise wait an
    // hour for a report.
    let target = match deployments.appspec(&event.deployment_id).await {
        Ok(content) => appspec::target(&content),
        Err(e) => Err(e.to_string()),
    };
    let verdict = match target {
        Err(reason) => Verdict {
            status: Status::Failed,
            function: String::new(),
            version: String::new(),
            reason,
        },
        Ok(target) => {
            let result = probe_target(versions, functions, &target, now).await;
            Verdict {
                status: if result.is_ok() {
                    Status::Succeeded
                } else {
                    Status::Failed
                },
                function: target.function,
                version: target.target_version,
                reason: result.err().unwrap_or_default(),
            }
        }
    };
    deployments
        .report(&event.deployment_id, &event.execution_id, verdict.status)
        .await?;
    Ok(verdict)
}

async fn probe_target(
    versions: &dyn Versions,
    functions: &ProbedFunctions,
    target: &appspec::Target,
    now: &str,
) -> Result<(), String> {
    let binary = functions
        .binary(&target.function)
        .ok_or_else(|| format!("{} is not one of this stack's functions", target.function))?;
    let probe = probe::for_binary(binary, now).ok_or_else(|| format!("no probe for the binary {binary}"))?;
    let answer = versions
        .invoke(&target.function, &target.target_version, &probe.event)
        .await?;
    probe.expect.check(&answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct OneDeployment {
        appspec: String,
        reported: Mutex<Vec<Status>>,
    }

    #[async_trait]
    impl Deployments for OneDeployment {
        async fn appspec(&self, _: &str) -> Result<String, HookError> {
            Ok(self.appspec.clone())
        }
        async fn report(&self, _: &str, _: &str, status: Status) -> Result<(), HookError> {
            self.reported.lock().unwrap().push(status);
            Ok(())
        }
    }

    struct Answers(Invocation);

    /// A version the check must not invoke.
    struct NeverInvoked;

    #[async_trait]
    impl Versions for NeverInvoked {
        async fn invoke(&self, function: &str, _: &str, _: &serde_json::Value) -> Result<Invocation, String> {
            panic!("{function} was invoked")
        }
    }

    #[async_trait]
    impl Versions for Answers {
        async fn invoke(&self, _: &str, _: &str, _: &serde_json::Value) -> Result<Invocation, String> {
            Ok(self.0.clone())
        }
    }

    fn deployment(name: &str) -> OneDeployment {
        OneDeployment {
            appspec: format!(
                r#"{{"Resources":[{{"F":{{"Type":"AWS::Lambda::Function","Properties":{{"Name":"{name}","Alias":"current","CurrentVersion":"1","TargetVersion":"2"}}}}}}]}}"#
            ),
            reported: Mutex::new(Vec::new()),
        }
    }

    fn event() -> HookEvent {
        HookEvent {
            deployment_id: "d-1".into(),
            execution_id: "e-1".into(),
        }
    }

    #[tokio::test]
    async fn a_passing_probe_is_reported_succeeded_and_a_failing_one_failed() {
        let functions = ProbedFunctions::parse("score-match=stack-score").unwrap();
        let good = Answers(Invocation {
            function_error: None,
            payload: serde_json::json!({"batchItemFailures": []}),
        });
        let d = deployment("stack-score");
        let v = check(&d, &good, &functions, &event(), "2026-12-07T00:00:00Z")
            .await
            .unwrap();
        assert_eq!((v.status, v.version.as_str()), (Status::Succeeded, "2"));
        let broken = Answers(Invocation {
            function_error: Some("Unhandled".into()),
            payload: serde_json::json!({"errorType": "Runtime.ExitError", "errorMessage": "exit status 1"}),
        });
        let v = check(&d, &broken, &functions, &event(), "2026-12-07T00:00:00Z")
            .await
            .unwrap();
        assert_eq!(v.status, Status::Failed);
        assert!(v.reason.contains("Runtime.ExitError"), "{}", v.reason);
        assert_eq!(
            *d.reported.lock().unwrap(),
            vec![Status::Succeeded, Status::Failed]
        );
    }

    struct Unreadable(Mutex<Vec<Status>>);

    #[async_trait]
    impl Deployments for Unreadable {
        async fn appspec(&self, id: &str) -> Result<String, HookError> {
            Err(HookError::CodeDeploy(format!("GetDeployment {id}: AccessDenied")))
        }
        async fn report(&self, _: &str, _: &str, status: Status) -> Result<(), HookError> {
            self.0.lock().unwrap().push(status);
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_deployment_the_hook_cannot_read_is_reported_failed_at_once() {
        let functions = ProbedFunctions::parse("score-match=stack-score").unwrap();
        let d = Unreadable(Mutex::new(Vec::new()));
        let v = check(&d, &NeverInvoked, &functions, &event(), "2026-12-07T00:00:00Z")
            .await
            .unwrap();
        assert_eq!(v.status, Status::Failed);
        assert!(v.reason.contains("AccessDenied"), "{}", v.reason);
        assert_eq!(*d.0.lock().unwrap(), vec![Status::Failed]);
    }

    #[tokio::test]
    async fn a_function_of_another_stack_fails_without_being_invoked() {
        let functions = ProbedFunctions::parse("score-match=stack-score").unwrap();
        let d = deployment("someone-elses");
        let v = check(&d, &NeverInvoked, &functions, &event(), "2026-12-07T00:00:00Z")
            .await
            .unwrap();
        assert_eq!(v.status, Status::Failed);
        assert!(v.reason.contains("not one of this stack's"), "{}", v.reason);
    }

    #[test]
    fn the_function_list_names_a_malformed_pair() {
        let e = ProbedFunctions::parse("score-match=a,broken")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PODIUM_PROBED_FUNCTIONS") && e.contains("broken"),
            "{e}"
        );
        assert!(ProbedFunctions::parse(" ").is_err());
    }
}
