//! The AppSpec of a Lambda deployment, as CodeDeploy's `GetDeployment` returns it:
//! which function's alias moves, from which version to which.
//!
//! ```text
//! {"version": 0.0, "Resources": [{"ScoreMatchFunction": {"Type": "AWS::Lambda::Function",
//!   "Properties": {"Name": "podium-prod-ScoreMatchFunction-1A2B", "Alias": "current",
//!   "CurrentVersion": "7", "TargetVersion": "8"}}}]}
//! ```

use serde::Deserialize;
use serde_json::Value;

/// The alias a deployment moves and the version it moves it to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The function's name (not its ARN).
    pub function: String,
    /// The alias (`current`).
    pub alias: String,
    /// The version the alias points at now (absent on a function's first deployment).
    pub current_version: Option<String>,
    /// The new version: the one to check.
    pub target_version: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Properties {
    name: String,
    alias: String,
    #[serde(default)]
    current_version: Option<Value>,
    target_version: Value,
}

fn version(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The first `AWS::Lambda::Function` resource of `content` (AppSpec JSON). Errors name
/// what is missing, and refuse a `TargetVersion` that is no published version (digits:
/// not an alias, not `$LATEST`, whose code may be other than the deployment's) or that
/// is the `CurrentVersion` (probing it would check the old code).
pub fn target(content: &str) -> Result<Target, String> {
    let spec: Value = serde_json::from_str(content).map_err(|e| format!("AppSpec is not JSON: {e}"))?;
    let resources = spec
        .get("Resources")
        .and_then(Value::as_array)
        .ok_or("AppSpec has no Resources list")?;
    let function = resources
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|r| r.values())
        .find(|r| r.get("Type").and_then(Value::as_str) == Some("AWS::Lambda::Function"))
        .ok_or("AppSpec names no AWS::Lambda::Function")?;
    let p: Properties = serde_json::from_value(function.get("Properties").cloned().unwrap_or_default())
        .map_err(|e| format!("AppSpec function Properties: {e}"))?;
    let target_version = version(&p.target_version).ok_or("AppSpec TargetVersion is empty")?;
    if !target_version.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "AppSpec TargetVersion `{}` is no published version number",
            target_version.chars().take(40).collect::<String>()
        ));
    }
    let current_version = p.current_version.as_ref().and_then(version);
    if current_version.as_deref() == Some(target_version.as_str()) {
        return Err(format!(
            "AppSpec TargetVersion {target_version} is the CurrentVersion"
        ));
    }
    Ok(Target {
        function: p.name,
        alias: p.alias,
        current_version,
        target_version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_function_and_both_versions() {
        let t = target(r#"{"version":0.0,"Resources":[{"ScoreMatchFunction":{"Type":"AWS::Lambda::Function","Properties":{"Name":"podium-ScoreMatch-1","Alias":"current","CurrentVersion":"7","TargetVersion":8}}}]}"#).unwrap();
        assert_eq!(
            t,
            Target {
                function: "podium-ScoreMatch-1".into(),
                alias: "current".into(),
                current_version: Some("7".into()),
                target_version: "8".into(),
            }
        );
    }

    #[test]
    fn says_what_is_missing() {
        assert!(target("nope").unwrap_err().contains("not JSON"));
        assert!(target(r#"{"Resources":[]}"#)
            .unwrap_err()
            .contains("no AWS::Lambda::Function"));
        let e = target(r#"{"Resources":[{"F":{"Type":"AWS::Lambda::Function","Properties":{"Name":"f","Alias":"current","TargetVersion":""}}}]}"#).unwrap_err();
        assert!(e.contains("TargetVersion"), "{e}");
        let spec = |current: &str, target: &str| {
            format!(
                r#"{{"Resources":[{{"F":{{"Type":"AWS::Lambda::Function","Properties":{{"Name":"f","Alias":"current","CurrentVersion":"{current}","TargetVersion":"{target}"}}}}}}]}}"#
            )
        };
        for (current, to) in [("7", "current"), ("7", "$LATEST"), ("7", "7"), ("7", "-8")] {
            let e = target(&spec(current, to)).unwrap_err();
            assert!(e.contains("TargetVersion"), "{to}: {e}");
        }
        assert!(target(&spec("7", "8")).is_ok());
    }
}
