//! The event payloads AWS sends a function, in AWS's documented shapes: an API
//! Gateway HTTP API (payload format 2.0) request with the JWT authorizer's claims,
//! an SQS batch, an EventBridge Scheduler input, a DynamoDB Streams batch.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

/// One HTTP request as API Gateway hands it to the function of its route.
#[derive(Debug, Clone, Default)]
pub struct HttpRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// The route's template, e.g. `/v1/leaderboards/{board}`.
    pub route: String,
    /// The request's path, e.g. `/v1/leaderboards/seega`.
    pub path: String,
    /// The raw query string, without `?`.
    pub query: String,
    /// Headers (names lower-cased by API Gateway).
    pub headers: BTreeMap<String, String>,
    /// The body, as text.
    pub body: Option<String>,
    /// The verified token's claims (`None`: a public route, no authorizer).
    pub claims: Option<Map<String, Value>>,
    /// The scopes the authorizer read from the token.
    pub scopes: Vec<String>,
}

/// The path parameters of `path` under the route template `route`, or `None` when
/// the path does not match it.
pub fn path_parameters(route: &str, path: &str) -> Option<BTreeMap<String, String>> {
    // Segments exactly as sent: `//v1/me` or `/v1/me/` match no route (API Gateway
    // answers them 404 itself).
    let (Some(route), Some(path)) = (route.strip_prefix('/'), path.strip_prefix('/')) else {
        return None;
    };
    let r: Vec<&str> = route.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    if r.len() != p.len() {
        return None;
    }
    let mut out = BTreeMap::new();
    for (r, p) in r.iter().zip(&p) {
        if let Some(name) = r.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            if p.is_empty() {
                return None;
            }
            out.insert(name.to_string(), percent_decode(p));
        } else if r != p {
            return None;
        }
    }
    Some(out)
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// The query string's parameters as API Gateway gives them: repeated names joined
/// with commas, values percent-decoded.
fn query_parameters(query: &str) -> Map<String, Value> {
    let mut out: Map<String, Value> = Map::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (k, v) = (
            percent_decode(&k.replace('+', " ")),
            percent_decode(&v.replace('+', " ")),
        );
        match out.get_mut(&k) {
            Some(Value::String(prev)) => {
                prev.push(',');
                prev.push_str(&v);
            }
            _ => {
                out.insert(k, Value::String(v));
            }
        }
    }
    out
}

/// The API Gateway HTTP API v2 event of `req`.
pub fn http_event(req: &HttpRequest) -> Value {
    let now = chrono::Utc::now();
    let mut event = json!({
        "version": "2.0",
        "routeKey": format!("{} {}", req.method, req.route),
        "rawPath": req.path,
        "rawQueryString": req.query,
        "headers": req.headers,
        "requestContext": {
            "accountId": crate::ACCOUNT,
            "apiId": "local",
            "domainName": "local.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "local",
            "http": {
                "method": req.method,
                "path": req.path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": req.headers.get("user-agent").cloned().unwrap_or_default(),
            },
            "requestId": format!("{:016x}", rand::random::<u64>()),
            "routeKey": format!("{} {}", req.method, req.route),
            "stage": "$default",
            "time": now.format("%d/%b/%Y:%H:%M:%S +0000").to_string(),
            "timeEpoch": now.timestamp_millis(),
        },
        "isBase64Encoded": false,
    });
    if let Some(claims) = &req.claims {
        event["requestContext"]["authorizer"] = json!({"jwt": {"claims": claims, "scopes": req.scopes}});
    }
    if !req.query.is_empty() {
        event["queryStringParameters"] = Value::Object(query_parameters(&req.query));
    }
    if let Some(params) = path_parameters(&req.route, &req.path).filter(|p| !p.is_empty()) {
        event["pathParameters"] = json!(params);
    }
    if let Some(body) = &req.body {
        event["body"] = Value::String(body.clone());
    }
    event
}

/// One SQS message as the event source mapping receives it.
#[derive(Debug, Clone)]
pub struct SqsMessage {
    pub message_id: String,
    pub receipt_handle: String,
    pub body: String,
    pub md5_of_body: String,
    pub receive_count: u32,
    pub sent_ms: i64,
}

/// The SQS event of a batch from the queue `queue_arn`.
pub fn sqs_event(queue_arn: &str, messages: &[SqsMessage]) -> Value {
    let records: Vec<Value> = messages
        .iter()
        .map(|m| {
            json!({
                "messageId": m.message_id,
                "receiptHandle": m.receipt_handle,
                "body": m.body,
                "attributes": {
                    "ApproximateReceiveCount": m.receive_count.to_string(),
                    "SentTimestamp": m.sent_ms.to_string(),
                    "SenderId": "AIDAIENQZJOLO23YVJ4VO",
                    "ApproximateFirstReceiveTimestamp": chrono::Utc::now().timestamp_millis().to_string(),
                },
                "messageAttributes": {},
                "md5OfBody": m.md5_of_body,
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": crate::REGION,
            })
        })
        .collect();
    json!({ "Records": records })
}

/// An EventBridge Scheduler target input: the schedule's `Input` with
/// `<aws.scheduler.scheduled-time>` replaced by `scheduled` (RFC 3339, UTC, seconds).
pub fn scheduler_input(
    input: &str,
    scheduled: chrono::DateTime<chrono::Utc>,
) -> Result<Value, serde_json::Error> {
    let at = scheduled.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    serde_json::from_str(&input.replace("<aws.scheduler.scheduled-time>", &at))
}

/// A DynamoDB Streams batch of `records` (each `{eventID, eventName, dynamodb}`).
pub fn stream_event(stream_arn: &str, records: &[Value]) -> Value {
    let records: Vec<Value> = records
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["eventVersion"] = json!("1.1");
            r["eventSource"] = json!("aws:dynamodb");
            r["awsRegion"] = json!(crate::REGION);
            r["eventSourceARN"] = json!(stream_arn);
            r
        })
        .collect();
    json!({ "Records": records })
}

/// Whether `event` matches an event source mapping's filter `pattern` (the
/// EventBridge pattern syntax's exact-value subset: each leaf is a list of allowed
/// values; nested objects match nested fields).
pub fn matches(pattern: &Value, event: &Value) -> bool {
    match pattern {
        Value::Object(fields) => fields
            .iter()
            .all(|(k, p)| event.get(k).is_some_and(|e| matches(p, e))),
        Value::Array(allowed) => allowed
            .iter()
            .any(|a| match a.get("prefix").and_then(Value::as_str) {
                // Content filtering's prefix matching: `[{"prefix": "SNAP#"}]`.
                Some(prefix) => event.as_str().is_some_and(|e| e.starts_with(prefix)),
                None => a == event,
            }),
        other => other == event,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_follow_the_route_template() {
        let p = path_parameters("/v1/leaderboards/{board}/me", "/v1/leaderboards/seega/me").expect("match");
        assert_eq!(p.get("board").map(String::as_str), Some("seega"));
        assert!(path_parameters("/v1/leaderboards/{board}", "/v1/leaderboards/seega/me").is_none());
        assert!(path_parameters("/v1/me", "/v1/me").expect("match").is_empty());
        assert!(path_parameters("/v1/me/inbox", "/v1/me/inbox/").is_none());
        assert!(path_parameters("/v1/me/inbox", "//v1/me/inbox").is_none());
        let p = path_parameters("/v1/me/inbox/{id}/claim", "/v1/me/inbox/pr%3Amahjong-daily/claim")
            .expect("match");
        assert_eq!(p["id"], "pr:mahjong-daily");
    }

    #[test]
    fn repeated_query_names_are_joined_with_commas() {
        let q = query_parameters("a=1&b=x%20y&a=2");
        assert_eq!(q["a"], "1,2");
        assert_eq!(q["b"], "x y");
    }

    #[test]
    fn filters_match_prefixes() {
        let p: Value = serde_json::from_str(
            r#"{"dynamodb": {"Keys": {"sk": {"S": ["CURRENT"]}, "pk": {"S": [{"prefix": "SNAP#"}]}}}}"#,
        )
        .expect("json");
        let pointer = json!({"dynamodb": {"Keys": {"pk": {"S": "SNAP#seega@all"}, "sk": {"S": "CURRENT"}}}});
        let other = json!({"dynamodb": {"Keys": {"pk": {"S": "RUNS"}, "sk": {"S": "CURRENT"}}}});
        assert!(matches(&p, &pointer));
        assert!(!matches(&p, &other));
    }

    #[test]
    fn filters_match_exact_values() {
        let p: Value =
            serde_json::from_str(r#"{"dynamodb": {"Keys": {"sk": {"S": ["STATE#inbox"]}}}}"#).expect("json");
        let inbox = json!({"dynamodb": {"Keys": {"pk": {"S": "P#a"}, "sk": {"S": "STATE#inbox"}}}});
        let other = json!({"dynamodb": {"Keys": {"pk": {"S": "P#a"}, "sk": {"S": "BAL"}}}});
        assert!(matches(&p, &inbox));
        assert!(!matches(&p, &other));
    }
}
