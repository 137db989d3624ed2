//! A whole local stack: the template's resources on the local servers, every function
//! (or those chosen) running under its own Runtime API with the template's
//! environment, and the event sources that feed them (API Gateway routes with the JWT
//! authorizer's checks, SQS and DynamoDB Streams event source mappings, schedules,
//! direct invokes).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use aws_sdk_dynamodbstreams::types::{AttributeValue, ShardIteratorType};
use serde_json::{json, Map, Value};
use tokio::sync::Mutex;

use crate::error::StackError;
use crate::events::{self, HttpRequest, SqsMessage};
use crate::function::{Running, Version};
use crate::resources::{self, Clients, Endpoints, Resources};
use crate::runtime::{Answer, Instance, Launch};
use crate::template::{self, EventSource, Function, Template};

/// What a stack is started from.
pub struct Settings {
    /// The template (default: the repository's `template.yaml`).
    pub template: PathBuf,
    /// Where the function binaries are (`target/debug` after `cargo build --workspace --bins`).
    pub bin_dir: PathBuf,
    /// The local servers.
    pub endpoints: Endpoints,
    /// Parameter values over the template's defaults (required ones without a
    /// default must be given; the local stack gives `JwtIssuer` and `JwtAudience`).
    pub parameters: BTreeMap<String, String>,
    /// Start only the functions with these binaries (`None`: all).
    pub only: Option<Vec<String>>,
    /// Echo the functions' output to stderr.
    pub echo: bool,
    /// Every function's timeout (and the 10 s init limit) multiplied by this. The
    /// template's timeouts are set for release builds on Lambda; a build without
    /// optimisations (the test builds, `target/debug`) runs its first event several
    /// times slower, more so on a loaded machine. 1 is Lambda's own limits.
    pub timeout_scale: u32,
    /// `AWS_LAMBDA_LOG_LEVEL` for every function (`debug` shows each SDK request);
    /// `None`: the template's (INFO).
    pub log_level: Option<String>,
    /// Variables set over every function's environment as the template gives it: the
    /// local gateway's URLs where the template names a deployed API's
    /// (`PODIUM_LIVE_ENDPOINT`).
    pub environment: BTreeMap<String, String>,
}

/// The issuer of the tokens the local stack issues (`JwtIssuer`).
pub const LOCAL_ISSUER: &str = "https://local-stack.podium.invalid/";
/// Their audience (`JwtAudience`).
pub const LOCAL_AUDIENCE: &str = "podium-local";

impl Settings {
    /// The repository's template, binaries in `bin_dir`, the local issuer and audience.
    pub fn new(bin_dir: PathBuf, endpoints: Endpoints) -> Settings {
        Settings {
            template: crate::project_template(),
            bin_dir,
            endpoints,
            parameters: BTreeMap::from([
                ("JwtIssuer".to_string(), LOCAL_ISSUER.to_string()),
                ("JwtAudience".to_string(), LOCAL_AUDIENCE.to_string()),
            ]),
            only: None,
            echo: std::env::var_os("LOCAL_STACK_LOGS").is_some(),
            timeout_scale: 1,
            log_level: std::env::var("LOCAL_STACK_LOG_LEVEL")
                .ok()
                .filter(|l| !l.is_empty()),
            environment: BTreeMap::new(),
        }
    }

    /// Points the live feed at the local gateway that will serve on `addr`
    /// ([`crate::gateway::serve`]): the authorizer reads the local identity provider's
    /// keys there (`JwksUrl`), and the functions post pushes to its management API
    /// (`PODIUM_LIVE_ENDPOINT`).
    pub fn with_gateway(&mut self, addr: std::net::SocketAddr) {
        self.parameters
            .insert("JwksUrl".into(), format!("http://{addr}/.well-known/jwks.json"));
        self.environment
            .insert("PODIUM_LIVE_ENDPOINT".into(), format!("http://{addr}/live"));
    }
}

/// An HTTP answer as API Gateway sends it to the client.
#[derive(Debug, Clone)]
pub struct HttpAnswer {
    pub status: u16,
    pub headers: BTreeMap<String, String>,
    pub body: String,
}

impl HttpAnswer {
    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    fn gateway(status: u16, message: &str) -> HttpAnswer {
        HttpAnswer {
            status,
            headers: BTreeMap::from([("content-type".into(), "application/json".into())]),
            body: json!({ "message": message }).to_string(),
        }
    }
}

/// What a new version of a function is made of, over the current template's build:
/// another binary, or the template's environment without some variables (a release
/// whose template forgot one).
#[derive(Debug, Clone, Default)]
pub struct NewVersion {
    /// The binary (default: the function's own).
    pub binary: Option<PathBuf>,
    /// Variables left out of its environment.
    pub without: Vec<String>,
}

/// How a deployment of a new version went.
#[derive(Debug, Clone)]
pub struct Rollout {
    /// CodeDeploy's deployment id (empty when no hook ran).
    pub deployment_id: String,
    /// The hook's lifecycle event execution id (empty when no hook ran).
    pub execution_id: String,
    /// The version published.
    pub version: usize,
    /// The pre-traffic hook's status report (`Succeeded`, `Failed`); `None` when the
    /// function has no hook or the hook reported nothing.
    pub status: Option<String>,
    /// The hook's own answer (its verdict), when one ran.
    pub hook: Option<Answer>,
    /// The version the alias points at after the deployment.
    pub alias_version: usize,
}

/// A running local stack.
pub struct Stack {
    name: String,
    resources: Resources,
    clients: Clients,
    functions: BTreeMap<String, std::sync::Arc<Running>>,
    /// The local Lambda and CodeDeploy APIs (the pre-traffic hook's).
    control: std::sync::Arc<crate::control::Control>,
    control_server: tokio::task::AbortHandle,
    /// Each stream shard's next iterator, as the DynamoDB event source mapping keeps it.
    stream_positions: Mutex<HashMap<String, Option<String>>>,
}

/// The environment Lambda gives `f` (its own variables and the template's), plus
/// the endpoint overrides that point the AWS SDK at the local servers.
fn lambda_environment(
    f: &Function,
    name: &str,
    res: &Resources,
    endpoints: &Endpoints,
) -> Result<BTreeMap<String, String>, StackError> {
    let mut env = BTreeMap::new();
    for (k, v) in &f.environment {
        let value = template::resolve(v, &res.parameters, res)
            .map_err(|e| StackError::Template(format!("{}: {k}: {e}", f.logical_id)))?;
        env.insert(k.clone(), value);
    }
    let day = chrono::Utc::now().format("%Y/%m/%d");
    let lambda = [
        ("AWS_LAMBDA_FUNCTION_NAME", name.to_string()),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", f.memory_mb.to_string()),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST".to_string()),
        ("AWS_LAMBDA_LOG_GROUP_NAME", format!("/aws/lambda/{name}")),
        (
            "AWS_LAMBDA_LOG_STREAM_NAME",
            format!("{day}/[$LATEST]{:032x}", rand::random::<u128>()),
        ),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand".to_string()),
        ("AWS_REGION", crate::REGION.to_string()),
        ("AWS_DEFAULT_REGION", crate::REGION.to_string()),
        ("AWS_ACCESS_KEY_ID", resources::ACCESS_KEY.to_string()),
        ("AWS_SECRET_ACCESS_KEY", resources::SECRET_KEY.to_string()),
        ("AWS_SESSION_TOKEN", "local-session".to_string()),
        ("_HANDLER", "bootstrap".to_string()),
        ("LAMBDA_TASK_ROOT", "/var/task".to_string()),
        ("LAMBDA_RUNTIME_DIR", "/var/runtime".to_string()),
        ("TZ", ":UTC".to_string()),
        ("LANG", "en_US.UTF-8".to_string()),
        ("PATH", "/usr/local/bin:/usr/bin/:/bin:/opt/bin".to_string()),
        // Not Lambda's: the local servers in place of AWS's endpoints.
        ("AWS_ENDPOINT_URL_DYNAMODB", endpoints.dynamodb.clone()),
        ("AWS_ENDPOINT_URL_SQS", endpoints.moto.clone()),
        ("AWS_ENDPOINT_URL_EVENTBRIDGE", endpoints.moto.clone()),
    ];
    for (k, v) in lambda {
        env.insert(k.to_string(), v);
    }
    if let Some(format) = &f.log_format {
        env.insert("AWS_LAMBDA_LOG_FORMAT".into(), format.to_uppercase());
    }
    Ok(env)
}

fn attribute_json(v: &AttributeValue) -> Value {
    use base64::Engine;
    let b64 = |b: &aws_sdk_dynamodbstreams::primitives::Blob| {
        Value::String(base64::engine::general_purpose::STANDARD.encode(b.as_ref()))
    };
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::B(b) => json!({ "B": b64(b) }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::Ss(s) => json!({ "SS": s }),
        AttributeValue::Ns(s) => json!({ "NS": s }),
        AttributeValue::Bs(s) => json!({ "BS": s.iter().map(b64).collect::<Vec<_>>() }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(attribute_json).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": image(m) }),
        _ => json!({ "NULL": true }),
    }
}

fn image(map: &HashMap<String, AttributeValue>) -> Value {
    Value::Object(map.iter().map(|(k, v)| (k.clone(), attribute_json(v))).collect())
}

impl Stack {
    /// Creates the resources and starts the functions; each must reach its first poll
    /// of the Runtime API (its init done), else the start fails with its output.
    pub async fn start(settings: Settings) -> Result<Stack, StackError> {
        let template = Template::load(&settings.template)?;
        let name = format!(
            "{}-{:06x}",
            crate::STACK_PREFIX,
            rand::random::<u32>() & 0xff_ffff
        );
        let mut parameters = BTreeMap::new();
        for (k, default) in template.parameters() {
            match settings.parameters.get(&k).cloned().or(default) {
                Some(v) => {
                    parameters.insert(k, v);
                }
                None => {
                    return Err(StackError::Template(format!(
                        "parameter {k} has no default and no value"
                    )))
                }
            }
        }
        let clients = Clients::new(&settings.endpoints).await;
        let mut resources = resources::create(&clients, &template, &name, parameters).await?;
        let all = template.functions()?;
        // `!Ref` a function: its name; `!GetAtt …Arn`: its ARN.
        for f in &all {
            let function_name = format!("{name}-{}", f.binary);
            let arn = format!(
                "arn:aws:lambda:{}:{}:function:{function_name}",
                crate::REGION,
                crate::ACCOUNT
            );
            resources.by_id.insert(
                f.logical_id.clone(),
                resources::Resource {
                    reference: function_name,
                    attributes: BTreeMap::from([("Arn".to_string(), arn)]),
                },
            );
        }
        let control_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| StackError::Gateway(format!("the local Lambda and CodeDeploy APIs: {e}")))?;
        let control_url = format!(
            "http://{}",
            control_listener
                .local_addr()
                .map_err(|e| StackError::Gateway(e.to_string()))?
        );
        let mut functions = BTreeMap::new();
        for f in all {
            if settings
                .only
                .as_ref()
                .is_some_and(|only| !only.contains(&f.binary))
            {
                continue;
            }
            let function_name = format!("{name}-{}", f.binary);
            let mut env = lambda_environment(&f, &function_name, &resources, &settings.endpoints)?;
            env.insert("AWS_ENDPOINT_URL_LAMBDA".into(), control_url.clone());
            env.insert("AWS_ENDPOINT_URL_CODEDEPLOY".into(), control_url.clone());
            if let Some(level) = &settings.log_level {
                env.insert("AWS_LAMBDA_LOG_LEVEL".into(), level.clone());
            }
            for (k, v) in &settings.environment {
                if env.contains_key(k) {
                    env.insert(k.clone(), v.clone());
                }
            }
            let binary = settings.bin_dir.join(&f.binary);
            let scale = settings.timeout_scale.max(1);
            let timeout = Duration::from_secs(f.timeout_secs) * scale;
            let init_limit = crate::runtime::INIT_LIMIT * scale;
            let instance = Instance::start(Launch {
                name: &function_name,
                binary: &binary,
                env: &env,
                timeout,
                init_limit,
                echo: settings.echo,
            })
            .await?;
            let first = Version {
                binary,
                env: env.clone(),
                instance: tokio::sync::Mutex::new(Some(std::sync::Arc::new(instance))),
            };
            functions.insert(
                f.binary.clone(),
                std::sync::Arc::new(Running {
                    function: f,
                    name: function_name,
                    env,
                    echo: settings.echo,
                    timeout,
                    init_limit,
                    versions: std::sync::Mutex::new(vec![std::sync::Arc::new(first)]),
                    alias: AtomicUsize::new(1),
                    deploying: tokio::sync::Mutex::new(()),
                }),
            );
        }
        for r in functions.values() {
            if let Some(v) = r.version(1) {
                if let Some(i) = v.instance.lock().await.as_ref() {
                    i.ready().await?;
                }
            }
        }
        let control = std::sync::Arc::new(crate::control::Control::new(functions.values().cloned()));
        let control_server = crate::control::serve(control_listener, control.clone());
        Ok(Stack {
            name,
            resources,
            clients,
            functions,
            control,
            control_server,
            stream_positions: Mutex::new(HashMap::new()),
        })
    }

    /// The stack's name (`AWS::StackName`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The local resources, by logical id.
    pub fn resources(&self) -> &Resources {
        &self.resources
    }

    /// Clients of the local servers.
    pub fn clients(&self) -> &Clients {
        &self.clients
    }

    /// The DynamoDB table's name (the first `AWS::DynamoDB::Table`).
    pub fn table(&self, logical_id: &str) -> Option<&str> {
        self.resources.by_id.get(logical_id).map(|r| r.reference.as_str())
    }

    /// The environment the function `binary` was started with.
    pub fn environment(&self, binary: &str) -> Option<&BTreeMap<String, String>> {
        self.functions.get(binary).map(|r| &r.env)
    }

    /// The binaries of the running functions.
    pub fn binaries(&self) -> Vec<String> {
        self.functions.keys().cloned().collect()
    }

    /// Everything the function `binary` printed so far.
    pub fn output(&self, binary: &str) -> String {
        self.functions
            .get(binary)
            .and_then(|r| r.version(r.alias_version()))
            .map(|v| {
                v.instance
                    .try_lock()
                    .ok()
                    .and_then(|i| i.as_ref().map(|i| i.output()))
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }

    /// The process id of the function `binary`'s current instance (the alias's version).
    pub async fn pid(&self, binary: &str) -> Option<u32> {
        let r = self.functions.get(binary)?;
        let v = r.version(r.alias_version())?;
        let i = v.instance.lock().await;
        i.as_ref()?.pid()
    }

    fn running(&self, binary: &str) -> Result<&Running, StackError> {
        self.functions
            .get(binary)
            .map(|r| r.as_ref())
            .ok_or_else(|| StackError::Start {
                function: binary.to_string(),
                problem: "not running on this stack".into(),
            })
    }

    /// The version the alias of `binary` points at (1 until a deployment moves it).
    pub fn alias_version(&self, binary: &str) -> Option<usize> {
        self.functions.get(binary).map(|r| r.alias_version())
    }

    /// Deploys a new version of `binary` as CodeDeploy does with the template's
    /// `DeploymentPreference`: the version is published, then the function's
    /// pre-traffic hook (itself a function of this stack, run as Lambda runs it) is
    /// invoked with a deployment of its own; the hook reads the deployment's AppSpec
    /// and invokes the new version through this stack's Lambda API, then reports its
    /// verdict through its CodeDeploy API. The alias moves to the new version only when
    /// the hook reported `Succeeded` (at once: the local stack shifts no traffic
    /// gradually). A function without a hook (the hook itself) moves at once.
    pub async fn deploy(&self, binary: &str, new: NewVersion) -> Result<Rollout, StackError> {
        let running = self.running(binary)?;
        let _one_at_a_time = running.deploying.lock().await;
        let mut env = running.env.clone();
        for v in &new.without {
            env.remove(v);
        }
        let number = {
            let mut versions = running.versions.lock().unwrap_or_else(|p| p.into_inner());
            let number = versions.len() + 1;
            env.insert("AWS_LAMBDA_FUNCTION_VERSION".into(), number.to_string());
            let built = versions[0].binary.clone();
            versions.push(std::sync::Arc::new(Version {
                binary: new.binary.clone().unwrap_or(built),
                env,
                instance: tokio::sync::Mutex::new(None),
            }));
            number
        };
        let hook = running.function.pre_traffic_hook.as_ref().and_then(|id| {
            self.functions
                .values()
                .find(|r| &r.function.logical_id == id)
                .filter(|h| h.function.logical_id != running.function.logical_id)
        });
        let Some(hook) = hook else {
            running.alias.store(number, Ordering::SeqCst);
            return Ok(Rollout {
                deployment_id: String::new(),
                execution_id: String::new(),
                version: number,
                status: None,
                hook: None,
                alias_version: number,
            });
        };
        let current = running.alias_version();
        let appspec = json!({
            "version": 0.0,
            "Resources": [{ running.function.logical_id.clone(): {
                "Type": "AWS::Lambda::Function",
                "Properties": {
                    "Name": running.name,
                    "Alias": running.alias_name(),
                    "CurrentVersion": current.to_string(),
                    "TargetVersion": number.to_string(),
                }
            }}],
            "Hooks": [{ "BeforeAllowTraffic": hook.name }],
        });
        let (deployment_id, execution_id) = self.control.begin(appspec.to_string());
        let answer = hook
            .invoke(&json!({
                "DeploymentId": deployment_id,
                "LifecycleEventHookExecutionId": execution_id,
            }))
            .await;
        let status = self.control.status(&deployment_id);
        if status.as_deref() == Some("Succeeded") {
            running.alias.store(number, Ordering::SeqCst);
        }
        let hook = match answer {
            Ok(a) => a,
            Err(e) => Answer::Error {
                error_type: "LocalStack.HookFailed".into(),
                message: e.to_string(),
            },
        };
        Ok(Rollout {
            deployment_id,
            execution_id,
            version: number,
            status,
            hook: Some(hook),
            alias_version: running.alias_version(),
        })
    }

    /// A direct invoke of `binary` with `event` (`aws lambda invoke --payload`).
    pub async fn invoke(&self, binary: &str, event: &Value) -> Result<Answer, StackError> {
        self.running(binary)?.invoke(event).await
    }

    /// The function and route template serving `method path`, as API Gateway matches
    /// routes (a route without parameters wins over one with them).
    fn route(&self, method: &str, path: &str) -> Option<(&Running, String, bool, Vec<String>)> {
        let mut best: Option<(&Running, String, bool, Vec<String>, usize)> = None;
        for r in self.functions.values() {
            for (_, source) in &r.function.events {
                let EventSource::HttpApi {
                    method: m,
                    path: route,
                    public,
                    scopes,
                } = source
                else {
                    continue;
                };
                if m != method || events::path_parameters(route, path).is_none() {
                    continue;
                }
                let params = route.matches('{').count();
                if best.as_ref().is_none_or(|b| params < b.4) {
                    best = Some((r, route.clone(), *public, scopes.clone(), params));
                }
            }
        }
        best.map(|(r, route, public, scopes, _)| (r, route, public, scopes))
    }

    /// One HTTP request through the HTTP API: routed by the template's routes, the
    /// JWT authorizer's decision applied (`claims`: the verified token's, `None`
    /// when there is no valid token: 401 on a secured route; a route's scopes missing
    /// from the token: 403), the function's answer mapped back (its failure: 500).
    pub async fn http(
        &self,
        method: &str,
        path_and_query: &str,
        headers: BTreeMap<String, String>,
        body: Option<String>,
        claims: Option<Map<String, Value>>,
    ) -> Result<HttpAnswer, StackError> {
        let (path, query) = path_and_query.split_once('?').unwrap_or((path_and_query, ""));
        let Some((running, route, public, needed)) = self.route(method, path) else {
            return Ok(HttpAnswer::gateway(404, "Not Found"));
        };
        let scopes: Vec<String> = claims
            .as_ref()
            .and_then(|c| c.get("scope").or_else(|| c.get("scp")))
            .and_then(Value::as_str)
            .map(|s| s.split_whitespace().map(String::from).collect())
            .unwrap_or_default();
        if !public {
            if claims.is_none() {
                return Ok(HttpAnswer::gateway(401, "Unauthorized"));
            }
            if !needed.is_empty() && !needed.iter().any(|n| scopes.contains(n)) {
                return Ok(HttpAnswer::gateway(403, "Forbidden"));
            }
        }
        let req = HttpRequest {
            method: method.to_string(),
            route,
            path: path.to_string(),
            query: query.to_string(),
            headers: headers.into_iter().map(|(k, v)| (k.to_lowercase(), v)).collect(),
            body,
            claims: if public { None } else { claims },
            scopes,
        };
        let answer = running.invoke(&events::http_event(&req)).await;
        Ok(match answer {
            Ok(Answer::Response(v)) => http_answer(&v),
            Ok(Answer::Error { error_type, message }) => {
                eprintln!("local-stack: {method} {path}: {error_type}: {message}");
                HttpAnswer::gateway(500, "Internal Server Error")
            }
            Err(e @ (StackError::Timeout { .. } | StackError::Init { .. })) => {
                // API Gateway says no more than this; whoever runs the stack sees why.
                eprintln!("local-stack: {method} {path}: {e}");
                HttpAnswer::gateway(500, "Internal Server Error")
            }
            Err(e) => return Err(e),
        })
    }

    /// Sends `body` to the queue `logical_id`; the message id.
    pub async fn send_message(&self, logical_id: &str, body: &str) -> Result<String, StackError> {
        let url = self.queue_url(logical_id)?;
        let sent = self
            .clients
            .sqs
            .send_message()
            .queue_url(url)
            .message_body(body)
            .send()
            .await
            .map_err(|e| StackError::aws("sqs", e))?;
        Ok(sent.message_id.unwrap_or_default())
    }

    fn queue_url(&self, logical_id: &str) -> Result<String, StackError> {
        self.resources
            .by_id
            .get(logical_id)
            .map(|r| r.reference.clone())
            .ok_or_else(|| StackError::Template(format!("no queue {logical_id}")))
    }

    /// Every message now visible in the queue `logical_id`, received and deleted
    /// (for reading what a function sent there).
    pub async fn take_messages(&self, logical_id: &str) -> Result<Vec<String>, StackError> {
        let url = self.queue_url(logical_id)?;
        let mut out = Vec::new();
        loop {
            let got = self
                .clients
                .sqs
                .receive_message()
                .queue_url(&url)
                .max_number_of_messages(10)
                .wait_time_seconds(0)
                .send()
                .await
                .map_err(|e| StackError::aws("sqs", e))?;
            let messages = got.messages.unwrap_or_default();
            if messages.is_empty() {
                return Ok(out);
            }
            for m in messages {
                if let Some(handle) = &m.receipt_handle {
                    self.clients
                        .sqs
                        .delete_message()
                        .queue_url(&url)
                        .receipt_handle(handle)
                        .send()
                        .await
                        .map_err(|e| StackError::aws("sqs", e))?;
                }
                out.push(m.body.unwrap_or_default());
            }
        }
    }

    /// One poll of every SQS event source of `binary`, as the event source mapping
    /// does it: up to the batch size of messages received, one invocation, then every
    /// message deleted but those the answer names in `batchItemFailures` (all of them
    /// when the invocation failed). The answers; empty when the queues were empty.
    pub async fn poll_sqs(&self, binary: &str) -> Result<Vec<Answer>, StackError> {
        let running = self.running(binary)?;
        let mut answers = Vec::new();
        for (_, source) in &running.function.events {
            let EventSource::Sqs { queue, batch_size } = source else {
                continue;
            };
            let url = self.queue_url(queue)?;
            let arn = self
                .resources
                .by_id
                .get(queue)
                .and_then(|r| r.attributes.get("Arn").cloned())
                .unwrap_or_default();
            let got = self
                .clients
                .sqs
                .receive_message()
                .queue_url(&url)
                .max_number_of_messages((*batch_size).min(10) as i32)
                .visibility_timeout(running.function.timeout_secs as i32 * 6)
                .wait_time_seconds(0)
                .message_system_attribute_names(aws_sdk_sqs::types::MessageSystemAttributeName::All)
                .send()
                .await
                .map_err(|e| StackError::aws("sqs", e))?;
            let messages: Vec<SqsMessage> = got
                .messages
                .unwrap_or_default()
                .into_iter()
                .map(|m| {
                    let attr = |k: aws_sdk_sqs::types::MessageSystemAttributeName| {
                        m.attributes
                            .as_ref()
                            .and_then(|a| a.get(&k).cloned())
                            .unwrap_or_default()
                    };
                    SqsMessage {
                        receive_count: attr(
                            aws_sdk_sqs::types::MessageSystemAttributeName::ApproximateReceiveCount,
                        )
                        .parse()
                        .unwrap_or(1),
                        sent_ms: attr(aws_sdk_sqs::types::MessageSystemAttributeName::SentTimestamp)
                            .parse()
                            .unwrap_or(0),
                        message_id: m.message_id.unwrap_or_default(),
                        receipt_handle: m.receipt_handle.unwrap_or_default(),
                        md5_of_body: m.md5_of_body.unwrap_or_default(),
                        body: m.body.unwrap_or_default(),
                    }
                })
                .collect();
            if messages.is_empty() {
                continue;
            }
            let answer = running.invoke(&events::sqs_event(&arn, &messages)).await?;
            let failed: Vec<String> = match &answer {
                Answer::Response(v) => v
                    .get("batchItemFailures")
                    .and_then(Value::as_array)
                    .map(|f| {
                        f.iter()
                            .filter_map(|i| i.get("itemIdentifier").and_then(Value::as_str).map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
                Answer::Error { .. } => messages.iter().map(|m| m.message_id.clone()).collect(),
            };
            for m in messages.iter().filter(|m| !failed.contains(&m.message_id)) {
                self.clients
                    .sqs
                    .delete_message()
                    .queue_url(&url)
                    .receipt_handle(&m.receipt_handle)
                    .send()
                    .await
                    .map_err(|e| StackError::aws("sqs", e))?;
            }
            answers.push(answer);
        }
        Ok(answers)
    }

    /// The schedule `event` of `binary` fired at `at`: its `Input`, the scheduled
    /// time put in, as EventBridge Scheduler invokes the function.
    pub async fn fire_schedule(
        &self,
        binary: &str,
        event: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Answer, StackError> {
        let running = self.running(binary)?;
        let input = running
            .function
            .events
            .iter()
            .find_map(|(name, s)| match s {
                EventSource::Schedule { input, .. } if name == event => Some(input.clone()),
                _ => None,
            })
            .ok_or_else(|| StackError::Template(format!("{binary} has no schedule {event}")))?;
        let payload = events::scheduler_input(&input, at)
            .map_err(|e| StackError::Template(format!("{binary}.{event}: Input is not JSON: {e}")))?;
        running.invoke(&payload).await
    }

    /// One poll of the DynamoDB Streams event source of `binary`: per shard, the
    /// records after the last one handed over (from the trim horizon at first), those
    /// its filters let through, in batches of its batch size. The position moves past
    /// a batch only when its answer names no failure; a failed batch and everything
    /// after it are given again at the next poll (as the mapping retries). The answers.
    pub async fn poll_stream(&self, binary: &str) -> Result<Vec<Answer>, StackError> {
        let running = self.running(binary)?;
        let Some((filters, batch_size)) = running.function.events.iter().find_map(|(_, s)| match s {
            EventSource::DynamoDb { filters, batch_size } => Some((filters.clone(), *batch_size)),
            _ => None,
        }) else {
            return Err(StackError::Template(format!(
                "{binary} has no DynamoDB event source"
            )));
        };
        let arn = self
            .resources
            .by_id
            .values()
            .find_map(|r| r.attributes.get("StreamArn").cloned())
            .ok_or_else(|| StackError::Template("no table with a stream".into()))?;
        let streams = &self.clients.streams;
        let shards = streams
            .describe_stream()
            .stream_arn(&arn)
            .send()
            .await
            .map_err(|e| StackError::aws("dynamodbstreams", e))?
            .stream_description
            .and_then(|d| d.shards)
            .unwrap_or_default();
        // One poll at a time: positions are read and moved under this lock.
        let mut positions = self.stream_positions.lock().await;
        let mut answers = Vec::new();
        for shard in shards {
            let id = shard.shard_id().unwrap_or_default().to_string();
            let after = positions.get(&id).cloned().flatten();
            let start = streams.get_shard_iterator().stream_arn(&arn).shard_id(&id);
            let start = match &after {
                Some(seq) => start
                    .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                    .sequence_number(seq),
                None => start.shard_iterator_type(ShardIteratorType::TrimHorizon),
            };
            let mut iterator = start
                .send()
                .await
                .map_err(|e| StackError::aws("dynamodbstreams", e))?
                .shard_iterator;
            // (record, its sequence number, whether the filters let it through)
            let mut read: Vec<(Value, String, bool)> = Vec::new();
            while let Some(it) = iterator.clone() {
                let page = streams
                    .get_records()
                    .shard_iterator(it)
                    .send()
                    .await
                    .map_err(|e| StackError::aws("dynamodbstreams", e))?;
                let got = page.records.unwrap_or_default();
                let empty = got.is_empty();
                for r in got {
                    let Some(d) = r.dynamodb else { continue };
                    let seq = d.sequence_number.clone().unwrap_or_default();
                    let mut dynamodb = json!({
                        "ApproximateCreationDateTime": d.approximate_creation_date_time.map(|t| t.secs()).unwrap_or(0),
                        "Keys": d.keys.as_ref().map(image).unwrap_or(Value::Null),
                        "SequenceNumber": seq,
                        "SizeBytes": d.size_bytes.unwrap_or(0),
                        "StreamViewType": d.stream_view_type.map(|v| v.as_str().to_string()).unwrap_or_default(),
                    });
                    if let Some(i) = &d.new_image {
                        dynamodb["NewImage"] = image(i);
                    }
                    if let Some(i) = &d.old_image {
                        dynamodb["OldImage"] = image(i);
                    }
                    let record = json!({
                        "eventID": r.event_id.unwrap_or_default(),
                        "eventName": r.event_name.map(|n| n.as_str().to_string()).unwrap_or_default(),
                        "dynamodb": dynamodb,
                    });
                    let passes = filters.is_empty() || filters.iter().any(|f| events::matches(f, &record));
                    read.push((record, seq, passes));
                }
                iterator = page.next_shard_iterator;
                if empty {
                    break;
                }
            }
            // Hand the passing records over in batches; the position follows success.
            let mut batch: Vec<Value> = Vec::new();
            let mut committed = after.clone();
            let last = read.len();
            for (i, (record, seq, passes)) in read.into_iter().enumerate() {
                if passes {
                    batch.push(record);
                }
                let full = batch.len() >= batch_size.max(1);
                if full || (i + 1 == last) {
                    if !batch.is_empty() {
                        let answer = running.invoke(&events::stream_event(&arn, &batch)).await?;
                        let failed = answer_failures(&answer) > 0;
                        answers.push(answer);
                        batch.clear();
                        if failed {
                            break;
                        }
                    }
                    committed = Some(seq);
                } else if !passes && batch.is_empty() {
                    // Filtered out with nothing pending before it: consumed.
                    committed = Some(seq);
                }
            }
            positions.insert(id, committed);
        }
        Ok(answers)
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.control_server.abort();
    }
}

fn answer_failures(a: &Answer) -> usize {
    match a {
        Answer::Response(v) => v
            .get("batchItemFailures")
            .and_then(Value::as_array)
            .map_or(0, Vec::len),
        Answer::Error { .. } => 1,
    }
}

impl Stack {
    /// Every schedule with a `rate(N minutes|hours)` expression: (binary, event
    /// name, period). `cron(…)` schedules are fired only on demand.
    pub fn rate_schedules(&self) -> Vec<(String, String, Duration)> {
        let mut out = Vec::new();
        for (binary, r) in &self.functions {
            for (name, source) in &r.function.events {
                let EventSource::Schedule { expression, .. } = source else {
                    continue;
                };
                let Ok(expr) = template::resolve(expression, &self.resources.parameters, &self.resources)
                else {
                    continue;
                };
                let Some(inner) = expr.strip_prefix("rate(").and_then(|e| e.strip_suffix(')')) else {
                    continue;
                };
                let mut parts = inner.split_whitespace();
                let (Some(n), Some(unit)) = (parts.next().and_then(|n| n.parse::<u64>().ok()), parts.next())
                else {
                    continue;
                };
                let secs = match unit.trim_end_matches('s') {
                    "minute" => 60,
                    "hour" => 3600,
                    "day" => 86_400,
                    _ => continue,
                };
                out.push((binary.clone(), name.clone(), Duration::from_secs(n * secs)));
            }
        }
        out
    }

    /// The binaries with an SQS event source, and those with a DynamoDB one.
    pub fn polled(&self) -> (Vec<String>, Vec<String>) {
        let has = |f: &dyn Fn(&EventSource) -> bool| -> Vec<String> {
            self.functions
                .iter()
                .filter(|(_, r)| r.function.events.iter().any(|(_, s)| f(s)))
                .map(|(b, _)| b.clone())
                .collect()
        };
        (
            has(&|s| matches!(s, EventSource::Sqs { .. })),
            has(&|s| matches!(s, EventSource::DynamoDb { .. })),
        )
    }
}

/// API Gateway's reading of a payload 2.0 answer: `{statusCode, headers, body,
/// isBase64Encoded, cookies}`; any other JSON is a 200 with that JSON as the body.
fn http_answer(v: &Value) -> HttpAnswer {
    use base64::Engine;
    let Some(status) = v.get("statusCode").and_then(Value::as_u64) else {
        return HttpAnswer {
            status: 200,
            headers: BTreeMap::from([("content-type".into(), "application/json".into())]),
            body: v.to_string(),
        };
    };
    let mut headers: BTreeMap<String, String> = v
        .get("headers")
        .and_then(Value::as_object)
        .map(|h| {
            h.iter()
                .map(|(k, v)| {
                    (
                        k.to_lowercase(),
                        v.as_str().map(String::from).unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(multi)) = v.get("multiValueHeaders") {
        for (k, vals) in multi {
            if let Some(vals) = vals.as_array() {
                let joined: Vec<String> = vals.iter().filter_map(|x| x.as_str().map(String::from)).collect();
                headers.insert(k.to_lowercase(), joined.join(","));
            }
        }
    }
    let raw = v.get("body").and_then(Value::as_str).unwrap_or_default();
    let body = if v.get("isBase64Encoded").and_then(Value::as_bool) == Some(true) {
        base64::engine::general_purpose::STANDARD
            .decode(raw)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    } else {
        raw.to_string()
    };
    HttpAnswer {
        status: status as u16,
        headers,
        body,
    }
}
