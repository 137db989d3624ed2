//! A local Lambda Runtime API and one function process under it, as Lambda runs a
//! function instance: the binary polls `GET /2018-06-01/runtime/invocation/next`,
//! gets one event at a time with the `Lambda-Runtime-*` headers, and posts its answer
//! to `…/invocation/{request id}/response` or `…/error`; a failure before the first
//! poll is an init error (the process exits, or posts `…/init/error`). Invocations of
//! one instance never overlap.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};

use crate::error::StackError;

/// How a function answered one invocation.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The body it posted to `…/response`, as JSON.
    Response(Value),
    /// The error it posted to `…/error` (`errorType`, `errorMessage`).
    Error { error_type: String, message: String },
}

struct Invocation {
    id: String,
    event: Bytes,
    deadline_ms: i64,
}

/// Lambda's limit on a function's init phase (start to first poll).
pub const INIT_LIMIT: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Shared {
    waiting: HashMap<String, oneshot::Sender<Answer>>,
    /// The last invocation the function took from `…/next` (invocations of an
    /// instance run one at a time): whether a timed-out one was taken tells a slow
    /// handler from a function that stopped polling.
    taken: Option<String>,
    init_error: Option<String>,
    /// The function has polled for an event at least once (its init is done).
    polled: bool,
}

#[derive(Clone)]
struct ApiState {
    next: Arc<tokio::sync::Mutex<mpsc::Receiver<Invocation>>>,
    shared: Arc<Mutex<Shared>>,
    arn: String,
}

/// Output lines a function printed (stdout and stderr), the last ones kept.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<String>>>);

impl Output {
    const KEEP: usize = 200;

    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == Self::KEEP {
            lines.remove(0);
        }
        lines.push(line);
    }

    fn text(&self) -> String {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).join("\n")
    }
}

/// One function instance: its process and the Runtime API it polls.
pub struct Instance {
    name: String,
    timeout: Duration,
    init_limit: Duration,
    invoke: tokio::sync::Mutex<mpsc::Sender<Invocation>>,
    shared: Arc<Mutex<Shared>>,
    exited: watch::Receiver<Option<String>>,
    output: Output,
    /// Taken (None) once the process was killed after a timed-out invocation, as
    /// Lambda ends such an instance: this instance answers no more.
    killer: Mutex<Option<oneshot::Sender<()>>>,
    pid: Option<u32>,
    _server: tokio::task::AbortHandle,
}

impl Drop for Instance {
    fn drop(&mut self) {
        self._server.abort();
    }
}

/// What starting an instance needs.
pub struct Launch<'a> {
    /// The function's name (`AWS_LAMBDA_FUNCTION_NAME`).
    pub name: &'a str,
    /// The binary.
    pub binary: &'a Path,
    /// The whole environment, but for `AWS_LAMBDA_RUNTIME_API` (added here).
    pub env: &'a BTreeMap<String, String>,
    /// The function's timeout.
    pub timeout: Duration,
    /// How long its init may take, to the first poll ([`INIT_LIMIT`] on Lambda).
    pub init_limit: Duration,
    /// Echo the function's output to this process's stderr.
    pub echo: bool,
}

impl Instance {
    /// Starts the Runtime API on a free loopback port and the binary under it, with
    /// `env` and nothing else of this process's environment.
    pub async fn start(launch: Launch<'_>) -> Result<Instance, StackError> {
        let start_err = |problem: String| StackError::Start {
            function: launch.name.to_string(),
            problem,
        };
        if !launch.binary.is_file() {
            return Err(start_err(format!(
                "no binary at {} (build the functions first: cargo build --workspace --bins)",
                launch.binary.display()
            )));
        }
        let (tx, rx) = mpsc::channel::<Invocation>(1);
        let shared = Arc::new(Mutex::new(Shared::default()));
        let state = ApiState {
            next: Arc::new(tokio::sync::Mutex::new(rx)),
            shared: shared.clone(),
            arn: format!(
                "arn:aws:lambda:{}:{}:function:{}",
                crate::REGION,
                crate::ACCOUNT,
                launch.name
            ),
        };
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next))
            .route("/2018-06-01/runtime/invocation/{id}/response", post(response))
            .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| start_err(format!("runtime API: {e}")))?;
        let addr = listener.local_addr().map_err(|e| start_err(e.to_string()))?;
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        })
        .abort_handle();

        let mut child = tokio::process::Command::new(launch.binary)
            .env_clear()
            .envs(launch.env)
            .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| start_err(format!("{}: {e}", launch.binary.display())))?;
        let output = Output::default();
        let pid = child.id();
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        {
            let (output, name, echo) = (output.clone(), launch.name.to_string(), launch.echo);
            tokio::spawn(async move {
                let mut lines = BufReader::new(stream).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    if echo {
                        eprintln!("[{name}] {line}");
                    }
                    output.push(line);
                }
            });
        }
        let (exit_tx, exited) = watch::channel(None);
        let (kill, kill_rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            tokio::select! {
                status = child.wait() => {
                    let status = status.map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
                    let _ = exit_tx.send(Some(status));
                }
                _ = kill_rx => {
                    let _ = child.kill().await;
                }
            }
        });
        Ok(Instance {
            name: launch.name.to_string(),
            timeout: launch.timeout,
            init_limit: launch.init_limit,
            invoke: tokio::sync::Mutex::new(tx),
            shared,
            exited,
            output,
            killer: Mutex::new(Some(kill)),
            pid,
            _server: server,
        })
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The process id of the function's process.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Everything the function printed so far (its last lines).
    pub fn output(&self) -> String {
        self.output.text()
    }

    /// Whether this instance can take no more invocations: it exited, posted an init
    /// error, or was killed after a timeout (a new instance must take its place).
    pub fn is_dead(&self) -> bool {
        self.failed().is_some()
    }

    /// Ends the process (Lambda ends an instance whose invocation timed out).
    fn kill(&self) {
        if let Some(k) = self.killer.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = k.send(());
        }
    }

    fn failed(&self) -> Option<StackError> {
        let init = self
            .shared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .init_error
            .clone();
        let exit = self.exited.borrow().clone();
        let timed_out = self.killer.lock().unwrap_or_else(|p| p.into_inner()).is_none();
        let status = match (init, exit) {
            (Some(e), _) => format!("init error: {e}"),
            (None, Some(s)) => format!("exited: {s}"),
            (None, None) if timed_out => "killed after a timed-out invocation".to_string(),
            (None, None) => return None,
        };
        Some(StackError::Init {
            function: self.name.clone(),
            status,
            output: self.output(),
        })
    }

    /// Waits until the function polls for its first event (its init is done), or
    /// fails at start-up; at most its init limit (Lambda's: [`INIT_LIMIT`]).
    pub async fn ready(&self) -> Result<(), StackError> {
        let until = tokio::time::Instant::now() + self.init_limit;
        loop {
            if let Some(e) = self.failed() {
                return Err(e);
            }
            if self.shared.lock().unwrap_or_else(|p| p.into_inner()).polled {
                return Ok(());
            }
            if tokio::time::Instant::now() >= until {
                return Err(StackError::Init {
                    function: self.name.clone(),
                    status: format!(
                        "no poll of the Runtime API within {} s",
                        self.init_limit.as_secs()
                    ),
                    output: self.output(),
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sends `event` as one invocation and waits for the answer, at most the
    /// function's timeout from the moment it is sent (the hand-off included).
    /// Invocations of one instance run one after another. On a timeout the process is
    /// killed, as Lambda ends such an instance: nothing of that invocation can take
    /// effect later, and the instance answers no more ([`Instance::is_dead`]).
    pub async fn invoke(&self, event: &Value) -> Result<Answer, StackError> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let id = format!("{:032x}", rand::random::<u128>());
        let timed_out = || {
            self.kill();
            let taken = self
                .shared
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .taken
                .as_deref()
                == Some(id.as_str());
            StackError::Timeout {
                function: self.name.clone(),
                secs: self.timeout.as_secs(),
                taken,
                output: self.output(),
            }
        };
        let sender = tokio::select! {
            s = self.invoke.lock() => s,
            _ = tokio::time::sleep_until(deadline) => return Err(timed_out()),
        };
        if let Some(e) = self.failed() {
            return Err(e);
        }
        let (answer_tx, answer_rx) = oneshot::channel();
        self.shared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .waiting
            .insert(id.clone(), answer_tx);
        let forget = || {
            self.shared
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .waiting
                .remove(&id);
        };
        let invocation = Invocation {
            id: id.clone(),
            event: Bytes::from(serde_json::to_vec(event).unwrap_or_default()),
            deadline_ms: chrono::Utc::now().timestamp_millis() + self.timeout.as_millis() as i64,
        };
        let mut exited = self.exited.clone();
        let outcome = tokio::select! {
            sent = sender.send(invocation) => match sent {
                Ok(()) => tokio::select! {
                    answer = answer_rx => answer.ok(),
                    _ = exited.changed() => None,
                    _ = tokio::time::sleep_until(deadline) => {
                        forget();
                        return Err(timed_out());
                    }
                },
                Err(_) => None,
            },
            _ = exited.changed() => None,
            _ = tokio::time::sleep_until(deadline) => {
                forget();
                return Err(timed_out());
            }
        };
        forget();
        match outcome {
            Some(answer) => Ok(answer),
            None => Err(self.failed().unwrap_or(StackError::Init {
                function: self.name.clone(),
                status: "stopped answering".into(),
                output: self.output(),
            })),
        }
    }
}

async fn next(State(state): State<ApiState>) -> Response {
    state.shared.lock().unwrap_or_else(|p| p.into_inner()).polled = true;
    let mut rx = state.next.lock().await;
    let Some(inv) = rx.recv().await else {
        return StatusCode::GONE.into_response();
    };
    state.shared.lock().unwrap_or_else(|p| p.into_inner()).taken = Some(inv.id.clone());
    let mut headers = HeaderMap::new();
    let mut put = |name: &'static str, value: String| {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    };
    put("lambda-runtime-aws-request-id", inv.id.clone());
    put("lambda-runtime-deadline-ms", inv.deadline_ms.to_string());
    put("lambda-runtime-invoked-function-arn", state.arn.clone());
    put(
        "lambda-runtime-trace-id",
        format!(
            "Root=1-{:08x}-{};Parent={:016x};Sampled=0",
            chrono::Utc::now().timestamp(),
            &inv.id[..24],
            rand::random::<u64>()
        ),
    );
    put("content-type", "application/json".into());
    (StatusCode::OK, headers, inv.event).into_response()
}

fn deliver(state: &ApiState, id: &str, answer: Answer) -> StatusCode {
    let waiting = state
        .shared
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .waiting
        .remove(id);
    match waiting {
        Some(tx) => {
            let _ = tx.send(answer);
            StatusCode::ACCEPTED
        }
        None => StatusCode::BAD_REQUEST,
    }
}

async fn response(State(state): State<ApiState>, UrlPath(id): UrlPath<String>, body: Bytes) -> StatusCode {
    let value = serde_json::from_slice(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    deliver(&state, &id, Answer::Response(value))
}

fn error_of(body: &Bytes) -> (String, String) {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let field = |f: &str| v.get(f).and_then(Value::as_str).unwrap_or_default().to_string();
    (field("errorType"), field("errorMessage"))
}

async fn error(State(state): State<ApiState>, UrlPath(id): UrlPath<String>, body: Bytes) -> StatusCode {
    let (error_type, message) = error_of(&body);
    deliver(&state, &id, Answer::Error { error_type, message })
}

/// An init error, valid only before the first poll (Lambda answers 403 after it).
async fn init_error(State(state): State<ApiState>, body: Bytes) -> StatusCode {
    let (kind, message) = error_of(&body);
    let mut shared = state.shared.lock().unwrap_or_else(|p| p.into_inner());
    if shared.polled {
        return StatusCode::FORBIDDEN;
    }
    shared.init_error = Some(format!("{kind}: {message}"));
    StatusCode::ACCEPTED
}
