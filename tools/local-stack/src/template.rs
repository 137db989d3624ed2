//! `template.yaml` read as CloudFormation reads it: parameters with their defaults,
//! the SAM `Globals`, each `AWS::Serverless::Function` with its binary, memory,
//! timeout, environment and event sources, and the intrinsic functions (`!Ref`,
//! `!GetAtt`, `!Sub`, and `{{resolve:secretsmanager:…}}` dynamic references) resolved
//! against the local resources. Nothing here knows podium's own variables: a function
//! gets exactly what the template gives it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_norway::{Mapping, Value};

use crate::error::StackError;

/// The parsed template.
#[derive(Debug, Clone)]
pub struct Template {
    root: Value,
}

/// One `AWS::Serverless::Function`.
#[derive(Debug, Clone)]
pub struct Function {
    /// Its logical id, e.g. `ScoreMatchFunction`.
    pub logical_id: String,
    /// `Metadata.BuildProperties.Binary`: the cargo binary SAM builds for it.
    pub binary: String,
    /// Memory in MB (`MemorySize`, else the globals', else Lambda's 128).
    pub memory_mb: u64,
    /// Timeout in seconds (`Timeout`, else the globals', else Lambda's 3).
    pub timeout_secs: u64,
    /// `LoggingConfig.LogFormat` (`JSON` or `Text`).
    pub log_format: Option<String>,
    /// The environment: the globals' variables overlaid with the function's, unresolved.
    pub environment: BTreeMap<String, Value>,
    /// Its event sources, by event name.
    pub events: Vec<(String, EventSource)>,
    /// `AutoPublishAlias` (the function's, else the globals'): the alias the event
    /// sources call, moved to each new version.
    pub alias: Option<String>,
    /// `DeploymentPreference.Hooks.PreTraffic` (the function's, else the globals'): the
    /// logical id of the function that checks a new version before the alias moves to
    /// it; `None` when the function's preference says `Enabled: false`.
    pub pre_traffic_hook: Option<String>,
}

/// An event source of a function, as the template declares it.
#[derive(Debug, Clone)]
pub enum EventSource {
    /// An HTTP API route: `method` and `path` (`/v1/leaderboards/{board}`); `public`
    /// when its authorizer is `NONE`; the scopes the JWT must carry.
    HttpApi {
        method: String,
        path: String,
        public: bool,
        scopes: Vec<String>,
    },
    /// An SQS event source: the queue's logical id and the batch size.
    Sqs { queue: String, batch_size: usize },
    /// An EventBridge Scheduler schedule: its expression (`rate(…)`, `cron(…)`,
    /// unresolved) and its `Input` (JSON text).
    Schedule { expression: Value, input: String },
    /// A DynamoDB Streams event source: its filter patterns (JSON) and batch size.
    DynamoDb {
        filters: Vec<serde_json::Value>,
        batch_size: usize,
    },
}

/// What a logical id stands for on the local stack.
pub trait Resolve {
    /// `!Ref logical_id`, or `None` when the local stack has no such resource.
    fn reference(&self, logical_id: &str) -> Option<String>;
    /// `!GetAtt logical_id.attribute`.
    fn attribute(&self, logical_id: &str, attribute: &str) -> Option<String>;
    /// A `{{resolve:secretsmanager:ID:SecretString}}` dynamic reference's value.
    fn secret(&self, id: &str) -> Option<String>;
    /// `AWS::StackName`.
    fn stack_name(&self) -> String;
}

fn key<'a>(map: &'a Value, name: &str) -> Option<&'a Value> {
    map.as_mapping().and_then(|m: &Mapping| m.get(name))
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn number(v: Option<&Value>) -> Option<u64> {
    v.and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
}

impl Template {
    /// Reads and parses `path`.
    pub fn load(path: &Path) -> Result<Template, StackError> {
        let raw = std::fs::read_to_string(path)
            .map_err(|e| StackError::Template(format!("{}: {e}", path.display())))?;
        Template::parse(&raw)
    }

    /// Parses a template's text.
    pub fn parse(raw: &str) -> Result<Template, StackError> {
        let root: Value =
            serde_norway::from_str(raw).map_err(|e| StackError::Template(format!("not YAML: {e}")))?;
        Ok(Template { root })
    }

    /// `Parameters`: each name with its `Default` (as text), if any.
    pub fn parameters(&self) -> BTreeMap<String, Option<String>> {
        let mut out = BTreeMap::new();
        if let Some(Value::Mapping(params)) = key(&self.root, "Parameters") {
            for (name, spec) in params {
                if let Some(name) = name.as_str() {
                    out.insert(name.to_string(), key(spec, "Default").and_then(text));
                }
            }
        }
        out
    }

    /// The resources: (logical id, `Type`, `Properties`).
    pub fn resources(&self) -> Vec<(String, String, Value)> {
        let mut out = Vec::new();
        if let Some(Value::Mapping(resources)) = key(&self.root, "Resources") {
            for (id, spec) in resources {
                let (Some(id), Some(kind)) = (id.as_str(), key(spec, "Type").and_then(Value::as_str)) else {
                    continue;
                };
                let props = key(spec, "Properties").cloned().unwrap_or(Value::Null);
                out.push((id.to_string(), kind.to_string(), props));
            }
        }
        out
    }

    /// The `Properties` of the resource `logical_id`.
    pub fn properties(&self, logical_id: &str) -> Option<Value> {
        self.resources()
            .into_iter()
            .find(|(id, _, _)| id == logical_id)
            .map(|(_, _, props)| props)
    }

    /// Every `AWS::Serverless::Function`, in the template's order.
    pub fn functions(&self) -> Result<Vec<Function>, StackError> {
        let globals = key(&self.root, "Globals").and_then(|g| key(g, "Function"));
        let global_env = globals
            .and_then(|g| key(g, "Environment"))
            .and_then(|e| key(e, "Variables"));
        let mut out = Vec::new();
        let Some(Value::Mapping(resources)) = key(&self.root, "Resources") else {
            return Ok(out);
        };
        for (id, spec) in resources {
            if key(spec, "Type").and_then(Value::as_str) != Some("AWS::Serverless::Function") {
                continue;
            }
            let id = id.as_str().unwrap_or_default().to_string();
            let binary = key(spec, "Metadata")
                .and_then(|m| key(m, "BuildProperties"))
                .and_then(|b| key(b, "Binary"))
                .and_then(Value::as_str)
                .ok_or_else(|| StackError::Template(format!("{id}: no Metadata.BuildProperties.Binary")))?
                .to_string();
            let props = key(spec, "Properties").cloned().unwrap_or(Value::Null);
            let global = |name: &str| globals.and_then(|g| key(g, name));
            let mut environment = BTreeMap::new();
            for vars in [
                global_env,
                key(&props, "Environment").and_then(|e| key(e, "Variables")),
            ]
            .into_iter()
            .flatten()
            {
                if let Value::Mapping(vars) = vars {
                    for (name, value) in vars {
                        if let Some(name) = name.as_str() {
                            environment.insert(name.to_string(), value.clone());
                        }
                    }
                }
            }
            let mut events = Vec::new();
            if let Some(Value::Mapping(evs)) = key(&props, "Events") {
                for (name, ev) in evs {
                    let name = name.as_str().unwrap_or_default().to_string();
                    if let Some(source) = event_source(&id, &name, ev)? {
                        events.push((name, source));
                    }
                }
            }
            // A number, or `!Ref` a parameter: its default (the local stack's value).
            let param_default = |v: Option<&Value>| match v {
                Some(Value::Tagged(t)) if t.tag == "!Ref" => text(&t.value)
                    .and_then(|name| self.parameters().remove(&name).flatten())
                    .and_then(|d| d.parse().ok()),
                other => number(other),
            };
            let preference = |name: &str| {
                key(&props, "DeploymentPreference")
                    .and_then(|d| key(d, name))
                    .or_else(|| global("DeploymentPreference").and_then(|d| key(d, name)))
            };
            let enabled = !matches!(preference("Enabled"), Some(Value::Bool(false)));
            let pre_traffic_hook = preference("Hooks")
                .and_then(|h| key(h, "PreTraffic"))
                .and_then(|h| match h {
                    Value::Tagged(t) if t.tag == "!Ref" => text(&t.value),
                    _ => None,
                })
                .filter(|_| enabled);
            let alias = key(&props, "AutoPublishAlias")
                .or(global("AutoPublishAlias"))
                .and_then(text);
            out.push(Function {
                alias,
                pre_traffic_hook,
                memory_mb: param_default(key(&props, "MemorySize"))
                    .or(param_default(global("MemorySize")))
                    .unwrap_or(128),
                timeout_secs: number(key(&props, "Timeout"))
                    .or(number(global("Timeout")))
                    .unwrap_or(3),
                log_format: key(&props, "LoggingConfig")
                    .and_then(|l| key(l, "LogFormat"))
                    .and_then(text),
                logical_id: id,
                binary,
                environment,
                events,
            });
        }
        Ok(out)
    }
}

fn event_source(function: &str, name: &str, ev: &Value) -> Result<Option<EventSource>, StackError> {
    let props = key(ev, "Properties").cloned().unwrap_or(Value::Null);
    let field = |f: &str| key(&props, f);
    let bad = |what: &str| StackError::Template(format!("{function}.Events.{name}: {what}"));
    Ok(match key(ev, "Type").and_then(Value::as_str) {
        Some("HttpApi") => {
            let auth = field("Auth");
            Some(EventSource::HttpApi {
                method: field("Method")
                    .and_then(text)
                    .ok_or_else(|| bad("no Method"))?
                    .to_uppercase(),
                path: field("Path").and_then(text).ok_or_else(|| bad("no Path"))?,
                public: auth.and_then(|a| key(a, "Authorizer")).and_then(Value::as_str) == Some("NONE"),
                scopes: auth
                    .and_then(|a| key(a, "AuthorizationScopes"))
                    .and_then(Value::as_sequence)
                    .map(|s| s.iter().filter_map(text).collect())
                    .unwrap_or_default(),
            })
        }
        Some("SQS") => Some(EventSource::Sqs {
            queue: logical_target(field("Queue")).ok_or_else(|| bad("Queue is not !GetAtt X.Arn"))?,
            batch_size: number(field("BatchSize")).unwrap_or(10) as usize,
        }),
        Some("ScheduleV2") | Some("Schedule") => Some(EventSource::Schedule {
            expression: field("ScheduleExpression").cloned().unwrap_or(Value::Null),
            input: field("Input").and_then(text).unwrap_or_else(|| "{}".into()),
        }),
        Some("DynamoDB") => {
            let mut filters = Vec::new();
            if let Some(list) = field("FilterCriteria")
                .and_then(|f| key(f, "Filters"))
                .and_then(Value::as_sequence)
            {
                for f in list {
                    let raw = key(f, "Pattern")
                        .and_then(Value::as_str)
                        .ok_or_else(|| bad("a filter has no Pattern"))?;
                    filters
                        .push(serde_json::from_str(raw).map_err(|e| bad(&format!("filter pattern: {e}")))?);
                }
            }
            Some(EventSource::DynamoDb {
                filters,
                batch_size: number(field("BatchSize")).unwrap_or(100) as usize,
            })
        }
        _ => None,
    })
}

/// `!GetAtt X.Arn` (or `!Ref X`): the logical id `X`.
fn logical_target(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Tagged(t) => {
            let s = text(&t.value)?;
            Some(s.split('.').next()?.to_string())
        }
        _ => None,
    }
}

/// `value` with every intrinsic function resolved: the text a deployed function sees.
pub fn resolve(
    value: &Value,
    params: &BTreeMap<String, String>,
    res: &dyn Resolve,
) -> Result<String, StackError> {
    let unknown = |what: String| StackError::Template(format!("{what}: not known to the local stack"));
    let reference = |name: &str| -> Result<String, StackError> {
        if let Some(v) = params.get(name) {
            return Ok(v.clone());
        }
        match name {
            "AWS::StackName" => Ok(res.stack_name()),
            "AWS::Region" => Ok(crate::REGION.to_string()),
            "AWS::AccountId" => Ok(crate::ACCOUNT.to_string()),
            "AWS::URLSuffix" => Ok("amazonaws.com".to_string()),
            _ => res.reference(name).ok_or_else(|| unknown(format!("!Ref {name}"))),
        }
    };
    let get_att = |path: &str| -> Result<String, StackError> {
        let (id, attr) = path
            .split_once('.')
            .ok_or_else(|| StackError::Template(format!("!GetAtt {path}: no attribute")))?;
        res.attribute(id, attr)
            .ok_or_else(|| unknown(format!("!GetAtt {path}")))
    };
    let resolved = match value {
        // `!Join [SEP, LIST]`: a list of values, or a list parameter (a
        // CommaDelimitedList's value is its items joined by commas).
        Value::Tagged(t) if t.tag == "!Join" => {
            let parts = t.value.as_sequence().filter(|p| p.len() == 2);
            let (sep, list) = match parts {
                Some(p) => (text(&p[0]).unwrap_or_default(), &p[1]),
                None => return Err(StackError::Template("!Join: not [separator, list]".into())),
            };
            let items: Vec<String> = match list {
                Value::Sequence(items) => items
                    .iter()
                    .map(|v| resolve(v, params, res))
                    .collect::<Result<_, _>>()?,
                other => resolve(other, params, res)?
                    .split(',')
                    .map(str::to_string)
                    .collect(),
            };
            items.join(&sep)
        }
        Value::Tagged(t) => {
            let arg = text(&t.value)
                .ok_or_else(|| StackError::Template(format!("{} with a non-scalar argument", t.tag)))?;
            match t.tag.to_string().as_str() {
                "!Ref" => reference(&arg)?,
                "!GetAtt" => get_att(&arg)?,
                "!Sub" => substitute(&arg, &reference, &get_att)?,
                other => {
                    return Err(StackError::Template(format!(
                        "{other}: not supported by the local stack"
                    )))
                }
            }
        }
        other => text(other).ok_or_else(|| StackError::Template(format!("{other:?}: not a scalar")))?,
    };
    dynamic_references(&resolved, res)
}

/// `${Name}` and `${Name.Attribute}` of a `!Sub` string replaced (`${!x}` is a literal `${x}`).
fn substitute(
    s: &str,
    reference: &dyn Fn(&str) -> Result<String, StackError>,
    get_att: &dyn Fn(&str) -> Result<String, StackError>,
) -> Result<String, StackError> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| StackError::Template(format!("!Sub {s}: unclosed ${{")))?;
        let name = &after[..end];
        if let Some(literal) = name.strip_prefix('!') {
            out.push_str("${");
            out.push_str(literal);
            out.push('}');
        } else if name.contains('.') && !name.starts_with("AWS::") {
            out.push_str(&get_att(name)?);
        } else {
            out.push_str(&reference(name)?);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `{{resolve:secretsmanager:ID:SecretString}}` replaced by the secret's value.
fn dynamic_references(s: &str, res: &dyn Resolve) -> Result<String, StackError> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("{{resolve:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| StackError::Template(format!("{s}: unclosed dynamic reference")))?;
        let parts: Vec<&str> = after[..end].split(':').collect();
        match parts.as_slice() {
            ["resolve", "secretsmanager", id, "SecretString"] => {
                out.push_str(&res.secret(id).ok_or_else(|| {
                    StackError::Template(format!("secret {id}: not known to the local stack"))
                })?)
            }
            _ => {
                return Err(StackError::Template(format!(
                    "{{{{{}}}}}: not supported",
                    &after[..end]
                )))
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Local;
    impl Resolve for Local {
        fn reference(&self, id: &str) -> Option<String> {
            (id == "Table").then(|| "t1".to_string())
        }
        fn attribute(&self, id: &str, attr: &str) -> Option<String> {
            Some(format!("arn:{id}:{attr}"))
        }
        fn secret(&self, id: &str) -> Option<String> {
            (id == "t1").then(|| "s3cret".to_string())
        }
        fn stack_name(&self) -> String {
            "stack".into()
        }
    }

    #[test]
    fn a_memory_size_may_name_a_parameter() {
        let t = Template::parse(
            "Parameters:\n  M:\n    Type: Number\n    Default: 1024\nResources:\n  F:\n    Type: AWS::Serverless::Function\n    Metadata:\n      BuildProperties:\n        Binary: f\n    Properties:\n      MemorySize: !Ref M\n",
        )
        .expect("parse");
        let f = t.functions().expect("functions");
        assert_eq!(f[0].memory_mb, 1024);
    }

    #[test]
    fn intrinsics_resolve() {
        let t = Template::parse(
            "Parameters:\n  P:\n    Type: Number\n    Default: 5\nResources: {}\nx: !Ref Table\ny: !Sub 'rate(${P} minutes) ${Table.Arn} ${AWS::StackName} ${!Literal}'\nz: !Sub '{{resolve:secretsmanager:${Table}:SecretString}}'\n",
        )
        .expect("parse");
        let params: BTreeMap<String, String> = t
            .parameters()
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        let get = |k: &str| resolve(key(&t.root, k).expect("key"), &params, &Local).expect("resolve");
        assert_eq!(get("x"), "t1");
        assert_eq!(get("y"), "rate(5 minutes) arn:Table:Arn stack ${Literal}");
        assert_eq!(get("z"), "s3cret");
        let unknown = resolve(
            &serde_norway::from_str("!Ref Nope").expect("yaml"),
            &params,
            &Local,
        );
        assert!(unknown.unwrap_err().to_string().contains("!Ref Nope"));
    }

    #[test]
    fn the_project_template_declares_every_function_with_a_binary() {
        let t = Template::load(&crate::project_template()).expect("template.yaml");
        let functions = t.functions().expect("functions");
        assert!(functions.len() >= 9);
        assert!(functions
            .iter()
            .all(|f| !f.binary.is_empty() && f.timeout_secs > 0));
    }
}

/// The project's template as `sam build` reads it with the Makefile: every function
/// is built by `make build-<LogicalId>`, which copies the binary named by the logical
/// id (`ScoreMatchFunction` → `score-match`); every function crate has its function;
/// every function but the hook is rolled out through the hook.
#[cfg(test)]
mod project {
    use super::*;

    fn kebab(logical_id: &str) -> String {
        let stem = logical_id.strip_suffix("Function").unwrap_or(logical_id);
        let mut out = String::new();
        for (i, c) in stem.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    #[test]
    fn every_function_is_the_makefile_build_of_its_crate_behind_the_hook() {
        let template = Template::load(&crate::project_template()).expect("template.yaml");
        let Some(Value::Mapping(resources)) = key(&template.root, "Resources") else {
            panic!("no Resources");
        };
        let functions = template.functions().expect("functions");
        for f in &functions {
            let spec = resources.get(f.logical_id.as_str()).expect("resource");
            let method = key(spec, "Metadata")
                .and_then(|m| key(m, "BuildMethod"))
                .and_then(text);
            assert_eq!(method.as_deref(), Some("makefile"), "{}", f.logical_id);
            assert_eq!(
                f.binary,
                kebab(&f.logical_id),
                "the Makefile copies the binary its logical id names"
            );
            assert_eq!(f.alias.as_deref(), Some("current"), "{}", f.logical_id);
            if f.binary == "pre-traffic-hook" {
                assert_eq!(
                    f.pre_traffic_hook, None,
                    "the hook is not rolled out through itself"
                );
            } else {
                assert_eq!(
                    f.pre_traffic_hook.as_deref(),
                    Some("PreTrafficHookFunction"),
                    "{}",
                    f.logical_id
                );
            }
        }
        let mut binaries: Vec<String> = functions.iter().map(|f| f.binary.clone()).collect();
        binaries.sort();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../functions");
        let mut crates: Vec<String> = std::fs::read_dir(&dir)
            .expect("functions/")
            .filter_map(Result::ok)
            .filter(|e| e.path().join("Cargo.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        crates.sort();
        assert_eq!(binaries, crates, "one function a crate of functions/");
    }

    /// The hook may invoke the versions of exactly the functions it probes, and it
    /// probes every function rolled out through it (a function added to one list but
    /// not the other would pass locally, where IAM is not enforced, and fail in AWS).
    #[test]
    fn the_hook_may_invoke_every_function_it_probes() {
        let template = Template::load(&crate::project_template()).expect("template.yaml");
        let functions = template.functions().expect("functions");
        let hook = functions
            .iter()
            .find(|f| f.binary == "pre-traffic-hook")
            .expect("the hook");
        let Some(Value::Tagged(probed)) = hook.environment.get("PODIUM_PROBED_FUNCTIONS") else {
            panic!("PODIUM_PROBED_FUNCTIONS is not a !Sub");
        };
        let probed = text(&probed.value).unwrap_or_default();
        let resources = key(&template.root, "Resources").expect("Resources");
        let role = serde_norway::to_string(key(resources, "PreTrafficHookRole").expect("the hook's role"))
            .expect("yaml");
        for f in functions.iter().filter(|f| f.pre_traffic_hook.is_some()) {
            let pair = format!("{}=${{{}}}", f.binary, f.logical_id);
            assert!(
                probed.split(',').any(|p| p == pair),
                "{pair} missing from PODIUM_PROBED_FUNCTIONS"
            );
            let arn = format!("${{{}.Arn}}:*", f.logical_id);
            assert!(role.contains(&arn), "PreTrafficHookRole may not invoke {arn}");
        }
        assert_eq!(
            probed.split(',').count(),
            functions.iter().filter(|f| f.pre_traffic_hook.is_some()).count(),
            "the hook probes only functions rolled out through it"
        );
    }
}
