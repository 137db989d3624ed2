//! What the hook sends each podium function's new version, and what it must answer.
//! Every probe is harmless: it writes nothing, and the answer it expects proves the
//! version started (its configuration read, its handler reached) and answers its kind
//! of event as the released version does.
//!
//! | binary | event | passes when |
//! |---|---|---|
//! | `leaderboard` | HTTP API `GET /v1/openapi.json` | 200, an OpenAPI document |
//! | `player`, `daily-bonus`, `operator` | HTTP API request on a secured route, no verified claims | 401 |
//! | `ad-reward` | HTTP API `GET /v1/ad-callbacks/admob`, no signature | 403 |
//! | `score-match`, `events` | a batch of no records (SQS; DynamoDB Streams) | no failed item |
//! | `snapshot` | a `probe` tick | a tick report (an object with its fields) |
//! | `delete-player` | a deletion of the empty id | refused by its validation, naming `player_id` |
//! | `live` | a WebSocket `$default` message without the authorizer's principal | 401 |
//! | `live-authorizer` | a `$connect` request without a token | refused `Unauthorized` |

use serde_json::{json, Value};

/// How a version answered an invocation (Lambda's `Invoke`).
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// `X-Amz-Function-Error` (`Unhandled`) when the function failed.
    pub function_error: Option<String>,
    /// The answer (or the error's `{errorType, errorMessage}`), as JSON; `Null` when
    /// it is not JSON.
    pub payload: Value,
}

/// What a probe's answer must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// An API Gateway proxy answer with this `statusCode`.
    Status(u16),
    /// A batch answer whose `batchItemFailures` is empty (or absent).
    NoFailures,
    /// A JSON object holding these fields (a job's report).
    Object(&'static [&'static str]),
    /// An error the function's own handler returned: an `errorType` not Lambda's
    /// (`Runtime.*`, `Sandbox.*`, `Function.*`), whose message starts with this (a
    /// panic's or a deserialisation error's does not).
    Refusal(&'static str),
}

/// One probe: the event, and what the answer must be.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub event: Value,
    pub expect: Expect,
}

/// An API Gateway HTTP API (payload 2.0) request with no authorizer claims.
fn http(method: &str, route: &str, path: &str) -> Value {
    json!({
        "version": "2.0",
        "routeKey": format!("{method} {route}"),
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"host": "pre-traffic-hook.invalid", "user-agent": "podium-pre-traffic-hook"},
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "pre-traffic-hook",
            "domainName": "pre-traffic-hook.invalid",
            "domainPrefix": "pre-traffic-hook",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "podium-pre-traffic-hook"
            },
            "requestId": "pre-traffic-hook",
            "routeKey": format!("{method} {route}"),
            "stage": "$default",
            "time": "01/Jan/2026:00:00:00 +0000",
            "timeEpoch": 1_767_225_600_000_i64
        },
        "isBase64Encoded": false
    })
}

/// How `delete-player` refuses the empty id (its validation, before any read).
pub const DELETE_REFUSAL: &str = "player_id";

/// The probe of the function running `binary`; `None` for a binary this hook does not
/// know (its deployment fails: a function added to the template needs a probe here).
/// `now`: the probe tick's scheduled time (RFC 3339).
pub fn for_binary(binary: &str, now: &str) -> Option<Probe> {
    let (event, expect) = match binary {
        "leaderboard" => (
            http("GET", "/v1/openapi.json", "/v1/openapi.json"),
            Expect::Status(200),
        ),
        "player" => (http("GET", "/v1/me", "/v1/me"), Expect::Status(401)),
        "daily-bonus" => (
            http(
                "POST",
                "/v1/games/mahjong-rivals/daily-bonus",
                "/v1/games/mahjong-rivals/daily-bonus",
            ),
            Expect::Status(401),
        ),
        "operator" => (
            http("GET", "/v1/operator/jobs", "/v1/operator/jobs"),
            Expect::Status(401),
        ),
        // No signature: refused before any key is fetched.
        "ad-reward" => (
            http("GET", "/v1/ad-callbacks/admob", "/v1/ad-callbacks/admob"),
            Expect::Status(403),
        ),
        "score-match" | "events" => (json!({"Records": []}), Expect::NoFailures),
        "snapshot" => (
            json!({"job": "probe", "scheduled_time": now}),
            Expect::Object(&["runs", "closed", "actions_moved"]),
        ),
        "delete-player" => (json!({"player_id": ""}), Expect::Refusal(DELETE_REFUSAL)),
        "live" => (
            json!({"requestContext": {"routeKey": "$default", "connectionId": "pre-traffic-hook", "eventType": "MESSAGE"}, "body": "{\"action\":\"ping\"}"}),
            Expect::Status(401),
        ),
        "live-authorizer" => (
            json!({"type": "REQUEST", "methodArn": "arn:aws:execute-api:us-east-1:000000000000:pre-traffic-hook/live/$connect", "queryStringParameters": {}, "requestContext": {"routeKey": "$connect", "eventType": "CONNECT"}}),
            Expect::Refusal("Unauthorized"),
        ),
        _ => return None,
    };
    Some(Probe { event, expect })
}

impl Expect {
    /// `Ok` when `answer` is what was expected; else what was wrong with it.
    pub fn check(self, answer: &Invocation) -> Result<(), String> {
        let p = &answer.payload;
        let error_type = p.get("errorType").and_then(Value::as_str).unwrap_or_default();
        let message = p.get("errorMessage").and_then(Value::as_str).unwrap_or_default();
        if answer.function_error.is_some() {
            let lambdas_own = ["Runtime.", "Sandbox.", "Function."]
                .iter()
                .any(|prefix| error_type.starts_with(prefix));
            return match self {
                Expect::Refusal(start)
                    if !lambdas_own && !error_type.is_empty() && message.starts_with(start) =>
                {
                    Ok(())
                }
                Expect::Refusal(start) => Err(format!(
                    "failed: {error_type}: {message} (a refusal starting {start:?} was expected)"
                )),
                _ => Err(format!("failed: {error_type}: {message}")),
            };
        }
        let status = p.get("statusCode").and_then(Value::as_u64);
        match self {
            Expect::Status(want) if status == Some(u64::from(want)) => Ok(()),
            Expect::Status(want) => Err(format!("answered status {status:?}, not {want}")),
            Expect::NoFailures => match p.get("batchItemFailures").and_then(Value::as_array) {
                Some(f) if !f.is_empty() => Err(format!("{} items failed", f.len())),
                _ if p.is_object() => Ok(()),
                _ => Err(format!("answered {p}, not a batch answer")),
            },
            Expect::Object(fields) => match fields.iter().find(|f| p.get(**f).is_none()) {
                None if p.is_object() => Ok(()),
                missing => Err(format!(
                    "answered {p}, without {:?}",
                    missing.copied().unwrap_or_default()
                )),
            },
            Expect::Refusal(start) => Err(format!(
                "answered {p}, where a refusal starting {start:?} was expected"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(function_error: bool, payload: Value) -> Invocation {
        Invocation {
            function_error: function_error.then(|| "Unhandled".to_string()),
            payload,
        }
    }

    #[test]
    fn a_version_that_did_not_start_fails_every_probe() {
        let crashed = answer(
            true,
            json!({"errorType": "Runtime.ExitError", "errorMessage": "exit status 1"}),
        );
        for expect in [
            Expect::Status(200),
            Expect::NoFailures,
            Expect::Object(&["runs"]),
            Expect::Refusal("player_id"),
        ] {
            let e = expect.check(&crashed).unwrap_err();
            assert!(e.contains("Runtime.ExitError"), "{e}");
        }
    }

    #[test]
    fn each_expectation_takes_its_answer_and_refuses_others() {
        assert!(Expect::Status(401)
            .check(&answer(false, json!({"statusCode": 401})))
            .is_ok());
        assert!(Expect::Status(401)
            .check(&answer(false, json!({"statusCode": 500})))
            .is_err());
        assert!(Expect::Object(&["runs"])
            .check(&answer(false, json!({"runs": []})))
            .is_ok());
        assert!(Expect::Object(&["runs"])
            .check(&answer(false, json!(null)))
            .is_err());
        assert!(Expect::Object(&["runs"])
            .check(&answer(false, json!({"other": 1})))
            .is_err());
        assert!(Expect::NoFailures
            .check(&answer(false, json!({"batchItemFailures": []})))
            .is_ok());
        assert!(Expect::NoFailures
            .check(&answer(
                false,
                json!({"batchItemFailures": [{"itemIdentifier": "1"}]})
            ))
            .is_err());
        let refused = answer(true, json!({"errorType": "&str", "errorMessage": "Unauthorized"}));
        assert!(Expect::Refusal("Unauthorized").check(&refused).is_ok());
        assert!(Expect::Refusal("Forbidden").check(&refused).is_err());
        assert!(Expect::Refusal("Unauthorized")
            .check(&answer(false, json!({})))
            .is_err());
        // A panic, or Lambda's own error, is not the refusal.
        let panicked = answer(
            true,
            json!({"errorType": "&alloc::boxed::Box<dyn core::any::Any>", "errorMessage": "Lambda panicked: store"}),
        );
        assert!(Expect::Refusal("player_id").check(&panicked).is_err());
        let timed_out = answer(
            true,
            json!({"errorType": "Sandbox.Timedout", "errorMessage": "Unauthorized"}),
        );
        assert!(Expect::Refusal("Unauthorized").check(&timed_out).is_err());
    }

    #[test]
    fn every_function_of_the_template_has_a_probe() {
        for b in [
            "score-match",
            "leaderboard",
            "operator",
            "player",
            "ad-reward",
            "daily-bonus",
            "snapshot",
            "delete-player",
            "events",
            "live",
            "live-authorizer",
        ] {
            assert!(for_binary(b, "2026-12-07T00:00:00Z").is_some(), "{b}");
        }
        assert!(for_binary("unknown", "2026-12-07T00:00:00Z").is_none());
    }
}
