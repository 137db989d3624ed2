//! The metrics a score-match invocation emits, read back from the CloudWatch Embedded
//! Metric Format documents the recorder writes (its own test process: one recorder
//! per process).

use std::sync::Mutex;

use async_trait::async_trait;
use aws_lambda_events::event::sqs::SqsEvent;
use podium_store::embedded::EmbeddedStore;
use score_match::dead_letter::DeadLetters;
use score_match::error::FunctionError;
use score_match::handler::handle;
use serde_json::Value;

fn event(name: &str) -> SqsEvent {
    let path = format!("{}/tests/events/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture");
    serde_json::from_str(&text).expect("an SQS event")
}

#[derive(Default)]
struct Collected(Mutex<Vec<String>>);

#[async_trait]
impl DeadLetters for Collected {
    async fn send(&self, _body: &str, reason: &str) -> Result<(), FunctionError> {
        self.0.lock().expect("lock").push(reason.to_string());
        Ok(())
    }
}

/// The value of `metric` in the EMF document whose dimensions have these values.
fn value(docs: &[Value], metric: &str, dims: &[(&str, &str)]) -> Option<f64> {
    docs.iter()
        .filter(|d| dims.iter().all(|(k, v)| d[*k] == *v))
        .find_map(|d| d[metric].as_f64())
}

/// Applied, duplicate and refused records are counted by kind, outcome and rule, in
/// EMF documents of namespace `podium` with the `Function` dimension.
#[tokio::test]
async fn records_are_counted_by_outcome_and_rule() {
    let collector = podium_http::emf::collector().expect("recorder");
    let store = EmbeddedStore::in_memory().expect("store");
    let dead = Collected::default();
    let now = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
        .expect("instant")
        .to_utc();
    // The same record twice, in two messages (a duplicate delivery), then a malformed one.
    let mut again = event("valid-record.json");
    again.records[0].message_id = Some("another-message".into());
    for e in [event("valid-record.json"), again, event("malformed-record.json")] {
        handle(&store, &dead, e, now, &Default::default()).await;
    }
    let mut out = Vec::new();
    collector.flush(&mut out).expect("flush");
    let docs: Vec<Value> = String::from_utf8(out)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON document a line"))
        .collect();
    assert!(docs
        .iter()
        .all(|d| d["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "podium"));
    assert!(docs.iter().all(|d| d["Function"] == "podium"), "{docs:?}");
    let seega = |outcome| value(&docs, "Records", &[("Kind", "seega"), ("Outcome", outcome)]);
    assert_eq!(seega("applied"), Some(1.0), "{docs:#?}");
    assert_eq!(seega("duplicate"), Some(1.0));
    let refused = dead.0.lock().expect("lock").clone();
    assert_eq!(refused.len(), 1, "{refused:?}");
    let rule_counted = docs.iter().any(|d| {
        d["RecordsRefused"].as_f64() == Some(1.0) && refused[0].contains(d["Rule"].as_str().unwrap_or("?"))
    });
    assert!(rule_counted, "the refusal's rule is a dimension: {docs:#?}");
    assert_eq!(
        value(
            &docs,
            "Settlements",
            &[
                ("Source", podium_service::games::seega::MATCH),
                ("Outcome", "applied")
            ]
        ),
        Some(1.0)
    );
}
