//! Fault injection on the DynamoDB wire: an HTTP client for the AWS SDK that wraps
//! the real one and, by a seeded schedule, answers a request as DynamoDB does when it
//! throttles, loses the reply of a request it applied, drops the connection, or
//! cancels a transaction for a conflict. Everything above it (the SDK's retries,
//! podium's store, service and handlers) runs unchanged against DynamoDB Local.
//!
//! Fault kinds ([`Fault`]):
//! - `Throttling` / `ProvisionedThroughputExceeded`: a 400 with DynamoDB's error
//!   type, the request never sent (the SDK retries it with backoff);
//! - `LostReply`: the request is sent and applied, then its reply is thrown away and
//!   the caller sees a timeout (the case exactly-once exists for);
//! - `Dropped`: the connection fails before the request is sent (an I/O error);
//! - `TransactionConflict`: a `TransactWriteItems` cancelled with reason
//!   `TransactionConflict` on its first item, the request never sent;
//! - `TransactionInProgress`: a `TransactWriteItems` refused with
//!   `TransactionInProgressException`, the request never sent.
//!
//! DynamoDB's token window ([`FaultyHttp::keep_tokens`]): DynamoDB keeps a
//! `TransactWriteItems` request's `ClientRequestToken` for 10 minutes after the request
//! completes, whatever became of it, and refuses the token with other items
//! (`IdempotentParameterMismatchException`); DynamoDB Local keeps only the tokens of
//! transactions that committed. With the window on, the layer keeps every token it
//! passes with the request's items and answers a later request that carries one with
//! other items as DynamoDB does, without sending it.
//!
//! The schedule: each request draws from one seeded generator (`rate_per_mille` of
//! requests get a fault, the kind drawn uniformly from the schedule's kinds that
//! apply to the request's operation; a conflict names any one item). Under
//! concurrency, which request gets which fault depends on arrival order; the counts
//! ([`FaultCounts`]) say what was injected.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One kind of injected fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    Throttling,
    ProvisionedThroughputExceeded,
    LostReply,
    Dropped,
    TransactionConflict,
    TransactionInProgress,
}

impl Fault {
    /// Every kind, in a fixed order.
    pub const ALL: [Fault; 6] = [
        Fault::Throttling,
        Fault::ProvisionedThroughputExceeded,
        Fault::LostReply,
        Fault::Dropped,
        Fault::TransactionConflict,
        Fault::TransactionInProgress,
    ];

    /// The kind's name, as the reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Throttling => "throttling",
            Fault::ProvisionedThroughputExceeded => "provisioned-throughput-exceeded",
            Fault::LostReply => "lost-reply",
            Fault::Dropped => "dropped-connection",
            Fault::TransactionConflict => "transaction-conflict",
            Fault::TransactionInProgress => "transaction-in-progress",
        }
    }

    /// Whether this kind applies to an operation (`x-amz-target`'s operation name).
    fn applies_to(self, operation: &str) -> bool {
        match self {
            Fault::TransactionConflict | Fault::TransactionInProgress => operation == "TransactWriteItems",
            _ => true,
        }
    }

    fn index(self) -> usize {
        Fault::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }
}

/// A seeded fault schedule.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub seed: u64,
    /// Faults per 1,000 requests (of the operations a kind applies to).
    pub rate_per_mille: u32,
    /// The kinds drawn from, uniformly.
    pub kinds: Vec<Fault>,
}

/// What the layer saw and did (counts since it was made).
#[derive(Debug, Default)]
pub struct FaultCounts {
    requests: AtomicU64,
    injected: [AtomicU64; 6],
}

impl FaultCounts {
    /// Requests that reached the layer (SDK attempts, retries included).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Faults of `kind` injected.
    pub fn injected(&self, kind: Fault) -> u64 {
        self.injected[kind.index()].load(Ordering::Relaxed)
    }

    /// Faults injected, all kinds.
    pub fn total(&self) -> u64 {
        Fault::ALL.iter().map(|k| self.injected(*k)).sum()
    }

    /// `kind=count` for every kind injected at least once.
    pub fn summary(&self) -> String {
        Fault::ALL
            .iter()
            .filter(|k| self.injected(**k) > 0)
            .map(|k| format!("{}={}", k.name(), self.injected(*k)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

struct State {
    rng: Mutex<StdRng>,
    schedule: Schedule,
    enabled: AtomicBool,
    counts: Arc<FaultCounts>,
    /// DynamoDB's token window: on, and the items each token was sent with.
    keep_tokens: AtomicBool,
    tokens: Mutex<std::collections::HashMap<String, serde_json::Value>>,
}

impl State {
    /// With the token window on: whether `request` (a `TransactWriteItems`) carries a
    /// token sent before with other items (DynamoDB refuses it). A first use is kept.
    fn token_reused(&self, request: &HttpRequest) -> bool {
        if !self.keep_tokens.load(Ordering::Relaxed) {
            return false;
        }
        let Some(body) = request
            .body()
            .bytes()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        else {
            return false;
        };
        let Some(token) = body.get("ClientRequestToken").and_then(|t| t.as_str()) else {
            return false;
        };
        let items = body.get("TransactItems").cloned().unwrap_or_default();
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        match tokens.get(token) {
            // Maps compare by their entries, in any order, as DynamoDB compares them.
            Some(kept) => *kept != items,
            None => {
                tokens.insert(token.to_string(), items);
                false
            }
        }
    }
}

impl State {
    /// The fault for the next request of `operation`, if the schedule draws one, and
    /// a number for the fault's own choices (which item a conflict names).
    fn draw(&self, operation: &str) -> Option<(Fault, u32)> {
        self.counts.requests.fetch_add(1, Ordering::Relaxed);
        if !self.enabled.load(Ordering::Relaxed) {
            return None;
        }
        // Only the kinds that apply to this operation are drawn from, so reads see the
        // schedule's rate of the kinds that apply to them.
        let kinds: Vec<Fault> = self
            .schedule
            .kinds
            .iter()
            .copied()
            .filter(|k| k.applies_to(operation))
            .collect();
        if kinds.is_empty() {
            return None;
        }
        let (roll, pick, choice) = {
            let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
            (
                rng.random_range(0..1_000u32),
                rng.random_range(0..kinds.len()),
                rng.random::<u32>(),
            )
        };
        if roll >= self.schedule.rate_per_mille {
            return None;
        }
        let kind = kinds[pick];
        self.counts.injected[kind.index()].fetch_add(1, Ordering::Relaxed);
        Some((kind, choice))
    }
}

/// The SDK's HTTP client with faults: pass it to `aws_config`'s `http_client`.
#[derive(Clone)]
pub struct FaultyHttp {
    inner: SharedHttpClient,
    state: Arc<State>,
}

impl fmt::Debug for FaultyHttp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FaultyHttp")
            .field("schedule", &self.state.schedule)
            .finish()
    }
}

impl FaultyHttp {
    /// `inner` with faults drawn by `schedule` (enabled from the start).
    pub fn new(inner: SharedHttpClient, schedule: Schedule) -> Self {
        FaultyHttp {
            inner,
            state: Arc::new(State {
                rng: Mutex::new(StdRng::seed_from_u64(schedule.seed)),
                schedule,
                enabled: AtomicBool::new(true),
                counts: Arc::default(),
                keep_tokens: AtomicBool::new(false),
                tokens: Mutex::default(),
            }),
        }
    }

    /// Turns DynamoDB's token window on or off (see the module notes): while on, a
    /// `TransactWriteItems` that carries a token the layer passed before with other
    /// items is answered `IdempotentParameterMismatchException`, not sent.
    pub fn keep_tokens(&self, on: bool) {
        self.state.keep_tokens.store(on, Ordering::Relaxed);
    }

    /// Turns injection on or off (setup and final reads run without faults).
    pub fn set_enabled(&self, on: bool) {
        self.state.enabled.store(on, Ordering::Relaxed);
    }

    /// The counts so far.
    pub fn counts(&self) -> Arc<FaultCounts> {
        self.state.counts.clone()
    }

    /// As the SDK takes it.
    pub fn shared(&self) -> SharedHttpClient {
        SharedHttpClient::new(self.clone())
    }
}

impl HttpClient for FaultyHttp {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(FaultyConnector {
            inner: self.inner.http_connector(settings, components),
            state: self.state.clone(),
        })
    }
}

struct FaultyConnector {
    inner: SharedHttpConnector,
    state: Arc<State>,
}

impl fmt::Debug for FaultyConnector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FaultyConnector")
    }
}

/// The operation of a DynamoDB request (`x-amz-target: DynamoDB_20120810.PutItem`).
fn operation(request: &HttpRequest) -> String {
    request
        .headers()
        .get("x-amz-target")
        .and_then(|t| t.rsplit('.').next())
        .unwrap_or("")
        .to_string()
}

/// DynamoDB's error answer: HTTP 400 with the awsJson 1.0 error body.
fn error_response(error_type: &str, message: &str, extra: Option<(&str, serde_json::Value)>) -> HttpResponse {
    let mut body = serde_json::json!({
        "__type": format!("com.amazonaws.dynamodb.v20120810#{error_type}"),
        "message": message,
    });
    if let Some((k, v)) = extra {
        body[k] = v;
    }
    let mut response = HttpResponse::new(
        400u16
            .try_into()
            .unwrap_or_else(|_| unreachable!("400 is a status code")),
        SdkBody::from(body.to_string()),
    );
    response
        .headers_mut()
        .insert("content-type", "application/x-amz-json-1.0");
    response
}

/// The number of items of a `TransactWriteItems` request body.
fn transaction_items(request: &HttpRequest) -> usize {
    request
        .body()
        .bytes()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        .and_then(|v| v.get("TransactItems").and_then(|i| i.as_array()).map(Vec::len))
        .unwrap_or(1)
}

impl HttpConnector for FaultyConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let op = operation(&request);
        if op == "TransactWriteItems" && self.state.token_reused(&request) {
            return HttpConnectorFuture::ready(Ok(error_response(
                "IdempotentParameterMismatchException",
                "Specified idempotent token was used with different request parameters within the idempotency window",
                None,
            )));
        }
        let Some((fault, choice)) = self.state.draw(&op) else {
            return self.inner.call(request);
        };
        match fault {
            Fault::Throttling => HttpConnectorFuture::ready(Ok(error_response(
                "ThrottlingException",
                "injected: rate of requests exceeds the allowed throughput",
                None,
            ))),
            Fault::ProvisionedThroughputExceeded => HttpConnectorFuture::ready(Ok(error_response(
                "ProvisionedThroughputExceededException",
                "injected: the level of configured provisioned throughput for the table was exceeded",
                None,
            ))),
            Fault::TransactionConflict => {
                // The conflict names one item of the transaction, any of them.
                let n = transaction_items(&request).max(1);
                let at = choice as usize % n;
                let mut reasons = vec![serde_json::json!({"Code": "None"}); n];
                reasons[at] = serde_json::json!({
                    "Code": "TransactionConflict",
                    "Message": "injected: transaction is ongoing for the item",
                });
                let codes = (0..n)
                    .map(|i| if i == at { "TransactionConflict" } else { "None" })
                    .collect::<Vec<_>>()
                    .join(", ");
                HttpConnectorFuture::ready(Ok(error_response(
                    "TransactionCanceledException",
                    &format!("Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"),
                    Some(("CancellationReasons", serde_json::Value::Array(reasons))),
                )))
            }
            Fault::TransactionInProgress => HttpConnectorFuture::ready(Ok(error_response(
                "TransactionInProgressException",
                "injected: the transaction with the given request token is already in progress",
                None,
            ))),
            Fault::Dropped => HttpConnectorFuture::ready(Err(ConnectorError::io(
                "injected: connection reset before the request was sent".into(),
            ))),
            Fault::LostReply => {
                let sent = self.inner.call(request);
                HttpConnectorFuture::new(async move {
                    // DynamoDB receives and applies the request; its reply never arrives.
                    let _applied = sent.await;
                    Err(ConnectorError::timeout(
                        "injected: reply lost after DynamoDB received the request".into(),
                    ))
                })
            }
        }
    }
}
