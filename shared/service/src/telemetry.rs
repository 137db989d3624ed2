//! Operational metrics, through the `metrics` facade: the Lambda functions install a
//! CloudWatch Embedded Metric Format recorder (`metrics_cloudwatch_embedded`, one
//! JSON document per invocation on stdout, namespace [`NAMESPACE`], dimension
//! `Function`); elsewhere (the local binary, tests) nothing is installed and recording
//! costs nothing.
//!
//! | metric | unit | dimensions | what |
//! |---|---|---|---|
//! | `Records` | count | `Kind`, `Outcome` | queue records: `applied`, `void`, `duplicate`, `conflict`, `refused`, `retry` |
//! | `RecordsRefused` | count | `Kind`, `Rule` | refused records by the rule they break (GM-5) |
//! | `Settlements` | count | `Source`, `Outcome` | every settlement (matches, ad grants, daily bonuses, prizes): `applied`, `duplicate`, `nothing` (e.g. already granted today), `conflict`, `refused`, `contended`, `failed` |
//! | `SettlementsRefused` | count | `Source`, `Rule` | refusals by rule (SG-10, MJ-18, MJ-19 …) |
//! | `SettlementsFailed` | count | — | settlements that gave up (`contended`) or failed (the store): alarmed |
//! | `SnapshotPagesWritten` | count | — | snapshot pages written (LB-5) |
//! | `SnapshotRuns` | count | `Outcome` | snapshot runs: `complete`, or `partial` (resumed by the next tick) |
//! | `HandlerLatency` | milliseconds | `Route` (HTTP) or none | time to answer one request or invocation |
//! | `Responses` | count | `Route`, `Status` (`2xx` … `5xx`) | HTTP answers |
//!
//! No dimension carries a player id, a match id or a board's period: dimensions stay
//! few (CloudWatch bills each combination), and no personal data reaches the metrics.

use std::time::Duration;

/// The CloudWatch namespace of every metric.
pub const NAMESPACE: &str = "podium";

/// States the units of the metrics (milliseconds for latencies, counts otherwise).
pub fn describe() {
    metrics::describe_histogram!(
        "HandlerLatency",
        metrics::Unit::Milliseconds,
        "time to answer one request or invocation"
    );
    for name in [
        "Records",
        "RecordsRefused",
        "Settlements",
        "SettlementsRefused",
        "SettlementsFailed",
        "SnapshotPagesWritten",
        "SnapshotRuns",
        "Responses",
        "ServerErrors",
    ] {
        metrics::describe_counter!(name, metrics::Unit::Count, "");
    }
}

/// One queue record's outcome (`Kind`: the record's kind or game).
pub fn record(kind: &str, outcome: &'static str) {
    metrics::counter!("Records", "Kind" => kind.to_string(), "Outcome" => outcome).increment(1);
}

/// One queue record refused under `rule` (GM-5).
pub fn record_refused(kind: &str, rule: &'static str) {
    record(kind, "refused");
    metrics::counter!("RecordsRefused", "Kind" => kind.to_string(), "Rule" => rule).increment(1);
}

/// A settlement of `source` (its source kind) ended with `outcome` (`applied`,
/// `duplicate`, `nothing`, `conflict`, `refused`, `contended` or `failed`); a refused
/// one names the rule it broke.
pub fn settlement(source: &str, outcome: &'static str, refused_rule: Option<&'static str>) {
    if let Some(rule) = refused_rule {
        metrics::counter!("SettlementsRefused", "Source" => source.to_string(), "Rule" => rule).increment(1);
    }
    metrics::counter!("Settlements", "Source" => source.to_string(), "Outcome" => outcome).increment(1);
    if matches!(outcome, "contended" | "failed") {
        // One series per function, for an alarm (any source).
        metrics::counter!("SettlementsFailed").increment(1);
    }
}

/// A snapshot run wrote `pages` pages and finished (`complete`) or stopped to resume.
pub fn snapshot_run(pages: u32, complete: bool) {
    metrics::counter!("SnapshotPagesWritten").increment(u64::from(pages));
    let outcome = if complete { "complete" } else { "partial" };
    metrics::counter!("SnapshotRuns", "Outcome" => outcome).increment(1);
}

/// An HTTP answer on `route` (the route's template, never the raw path).
pub fn response(route: &str, status: u16, elapsed: Duration) {
    let class = match status {
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    };
    metrics::counter!("Responses", "Route" => route.to_string(), "Status" => class).increment(1);
    if status >= 500 {
        // The function's 5xx alone (no route): what a rollout's alarm watches.
        metrics::counter!("ServerErrors").increment(1);
    }
    metrics::histogram!("HandlerLatency", "Route" => route.to_string())
        .record(elapsed.as_secs_f64() * 1000.0);
}

/// One invocation of a function that is not HTTP took `elapsed`.
pub fn invocation(elapsed: Duration) {
    metrics::histogram!("HandlerLatency").record(elapsed.as_secs_f64() * 1000.0);
}
