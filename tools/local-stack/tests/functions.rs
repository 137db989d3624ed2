//! Every function binary as Lambda runs it: started under a local Runtime API with
//! the environment `template.yaml` gives it (nothing else), on a table made from the
//! template's declaration in DynamoDB Local and queues and an event bus on a local
//! SQS/EventBridge server (moto), and sent the events AWS sends. Each test asserts
//! on what the function answered and on what the store and the queues hold after.
//!
//! Needs `PODIUM_TEST_DYNAMODB_ENDPOINT` and `PODIUM_TEST_MOTO_ENDPOINT` (scripts/test
//! starts both servers) and the function binaries in `PODIUM_FUNCTIONS_DIR` (default
//! `target/debug`; scripts/test builds them). Without them the tests fail: they
//! never skip.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::{Duration, TimeZone, Utc};
use local_stack::resources::Endpoints;
use local_stack::runtime::Answer;
use local_stack::stack::{HttpAnswer, NewVersion, Settings, Stack};
use local_stack::StackError;
use serde_json::{json, Map, Value};

fn endpoint(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} is not set: these tests run against the local servers scripts/test starts (run scripts/test)")
    })
}

fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PODIUM_FUNCTIONS_DIR") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("debug")
}

/// The binaries these tests run are built without optimisations; their timeouts are
/// [`DEBUG_TIMEOUT_SCALE`] times the template's (the test of a timeout itself uses
/// the template's own).
fn settings() -> Settings {
    let mut s = Settings::new(
        bin_dir(),
        Endpoints {
            dynamodb: endpoint("PODIUM_TEST_DYNAMODB_ENDPOINT"),
            moto: endpoint("PODIUM_TEST_MOTO_ENDPOINT"),
        },
    );
    s.timeout_scale = DEBUG_TIMEOUT_SCALE;
    s
}

/// A debug build's first event runs several times slower than a release build's
/// (an operator's overview: 1.1 s on an idle machine, 130 DynamoDB requests).
const DEBUG_TIMEOUT_SCALE: u32 = 3;

async fn start(only: &[&str], parameters: &[(&str, &str)]) -> Stack {
    start_scaled(only, parameters, DEBUG_TIMEOUT_SCALE).await
}

/// [`start`] with the functions' timeouts `scale` times the template's.
async fn start_scaled(only: &[&str], parameters: &[(&str, &str)], scale: u32) -> Stack {
    let mut s = settings();
    s.timeout_scale = scale;
    s.only = Some(only.iter().map(|b| b.to_string()).collect());
    for (k, v) in parameters {
        s.parameters.insert(k.to_string(), v.to_string());
    }
    match Stack::start(s).await {
        Ok(stack) => stack,
        Err(e) => panic!("the stack did not start: {e}"),
    }
}

/// The claims API Gateway's JWT authorizer hands over for a verified token.
fn claims(sub: &str, scope: Option<&str>) -> Option<Map<String, Value>> {
    let mut c = Map::new();
    c.insert("sub".into(), json!(sub));
    c.insert("iss".into(), json!(local_stack::stack::LOCAL_ISSUER));
    c.insert("aud".into(), json!(local_stack::stack::LOCAL_AUDIENCE));
    if let Some(s) = scope {
        c.insert("scope".into(), json!(s));
    }
    Some(c)
}

async fn get(stack: &Stack, path: &str, who: Option<Map<String, Value>>) -> HttpAnswer {
    stack
        .http("GET", path, BTreeMap::new(), None, who)
        .await
        .expect("http")
}

async fn post(
    stack: &Stack,
    path: &str,
    headers: &[(&str, &str)],
    who: Option<Map<String, Value>>,
) -> HttpAnswer {
    let headers = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    stack.http("POST", path, headers, None, who).await.expect("http")
}

/// A Seega match record (the game servers' JSON): `winner` captured every stone.
fn seega(match_id: &str, winner: &str, loser: &str, ended: chrono::DateTime<Utc>) -> String {
    json!({
        "match_id": match_id, "game": "seega",
        "started_at": (ended - Duration::minutes(5)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "ended_at": ended.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "players": [
            {"player_id": winner, "moves": 20, "stones_on_board": 24, "stones_in_hand": 0},
            {"player_id": loser, "moves": 20, "stones_on_board": 0, "stones_in_hand": 0}],
        "stones_placed": 48,
        "outcome": {"result": "win", "winner": winner, "reason": "completed"}
    })
    .to_string()
}

/// `winner`'s Seega win over `loser`, ended `ago` before now, sent to MatchesQueue
/// and scored by score-match (its SQS source polled until the queue is empty).
async fn score(stack: &Stack, match_id: &str, winner: &str, loser: &str, ago: Duration) {
    let record = seega(match_id, winner, loser, Utc::now() - ago);
    stack.send_message("MatchesQueue", &record).await.expect("send");
    drain(stack, "score-match").await;
}

/// Every answer of a batch source names no failed item (`batchItemFailures` empty).
fn assert_no_failures(stack: &Stack, binary: &str, answers: &[Answer]) {
    for a in answers {
        let failures = response(a)["batchItemFailures"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(failures.is_empty(), "{a:?}\n{}", stack.output(binary));
    }
}

fn response(a: &Answer) -> &Value {
    match a {
        Answer::Response(v) => v,
        Answer::Error { error_type, message } => panic!("the function failed: {error_type}: {message}"),
    }
}

/// Polls the function's SQS source until its queue is empty; every answer.
async fn drain(stack: &Stack, binary: &str) -> Vec<Answer> {
    let mut all = Vec::new();
    for _ in 0..20 {
        let got = stack.poll_sqs(binary).await.expect("poll");
        if got.is_empty() {
            break;
        }
        all.extend(got);
    }
    all
}

/// The template gives every function what its binary reads: all eleven start (their
/// init reaches the Runtime API's first poll) with the template's variables resolved
/// and nothing of this process's environment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_function_starts_with_the_template_environment() {
    let stack = match Stack::start(settings()).await {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let mut binaries = stack.binaries();
    binaries.sort();
    assert_eq!(
        binaries,
        [
            "ad-reward",
            "daily-bonus",
            "delete-player",
            "events",
            "leaderboard",
            "live",
            "live-authorizer",
            "operator",
            "player",
            "pre-traffic-hook",
            "score-match",
            "snapshot"
        ]
    );
    let table = stack.table("PodiumTable").expect("table").to_string();
    for b in &binaries {
        let env = stack.environment(b).expect("env");
        assert_eq!(env.get("PODIUM_TABLE"), Some(&table), "{b}");
        assert!(env.get("PODIUM_DYNAMODB_OPERATION_TIMEOUT_MS").is_some(), "{b}");
        assert!(
            !env.contains_key("PODIUM_TEST_DYNAMODB_ENDPOINT"),
            "{b}: the test's own environment leaked"
        );
        assert!(env["AWS_LAMBDA_FUNCTION_NAME"].ends_with(b.as_str()));
    }
    let score = stack.environment("score-match").expect("env");
    assert!(score["DEAD_LETTER_QUEUE_URL"].contains("MatchesDeadLetterQueue"));
    let board = stack.environment("leaderboard").expect("env");
    assert_eq!(
        board["PODIUM_CURSOR_KEY"].len(),
        64,
        "the generated secret, resolved"
    );
    let events = stack.environment("events").expect("env");
    assert_eq!(events["PODIUM_EVENT_BUS"], format!("{}-events", stack.name()));
}

/// A rollout as CodeDeploy runs the template's `DeploymentPreference`: a new version of
/// every function, this build, passes the pre-traffic hook (itself run as Lambda runs
/// it, through the local Lambda and CodeDeploy APIs) and takes the alias. A version that
/// refuses to start (its template lost a variable it needs; a binary that exits) fails
/// the hook: the alias, and with it the traffic, stays on the version before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pre_traffic_hook_passes_this_build_and_fails_a_version_that_refuses_to_start() {
    let stack = match Stack::start(settings()).await {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    for b in stack.binaries() {
        let r = stack.deploy(&b, NewVersion::default()).await.expect("deploy");
        assert_eq!(r.alias_version, 2, "{b}: {r:?}");
        if b == "pre-traffic-hook" {
            assert!(r.hook.is_none(), "the hook is not rolled out through itself");
            continue;
        }
        assert_eq!(r.status.as_deref(), Some("Succeeded"), "{b}: {r:?}");
        let verdict = response(r.hook.as_ref().expect("the hook ran"));
        assert_eq!(verdict["status"], "Succeeded", "{b}: {verdict}");
        assert_eq!(verdict["version"], "2", "{b}: {verdict}");
    }
    let me = get(&stack, "/v1/me", claims("rollout-player", None)).await;
    assert_eq!(me.status, 200, "{}", me.body);

    // The hook run again for an event it reported (Lambda retries an invocation):
    // CodeDeploy refuses the second report, and the first verdict stands; the
    // invocation ends as the first did, not as an error Lambda would retry again.
    let r = stack
        .deploy("leaderboard", NewVersion::default())
        .await
        .expect("deploy");
    let event = json!({"DeploymentId": r.deployment_id, "LifecycleEventHookExecutionId": r.execution_id});
    let again = stack.invoke("pre-traffic-hook", &event).await.expect("invoked");
    assert_eq!(response(&again)["status"], "Succeeded", "{again:?}");
    assert_eq!(stack.alias_version("leaderboard"), Some(r.version));

    // Two versions of `player` that refuse to start, and a `delete-player` that
    // starts but answers its probe otherwise (another function's binary: it cannot
    // read a deletion request).
    let bin = bin_dir();
    let broken = [
        (
            "player",
            NewVersion {
                without: vec!["PODIUM_CURSOR_KEY".into()],
                ..NewVersion::default()
            },
            "Runtime.ExitError",
        ),
        (
            "player",
            NewVersion {
                binary: Some(PathBuf::from("/bin/false")),
                ..NewVersion::default()
            },
            "Runtime.ExitError",
        ),
        (
            "delete-player",
            NewVersion {
                binary: Some(bin.join("snapshot")),
                ..NewVersion::default()
            },
            "a refusal starting \"player_id\" was expected",
        ),
    ];
    for (binary, version, why) in broken {
        let before = stack.alias_version(binary);
        let r = stack.deploy(binary, version).await.expect("deploy");
        assert_eq!(r.status.as_deref(), Some("Failed"), "{binary}: {r:?}");
        assert_eq!(
            r.alias_version,
            before.unwrap_or_default(),
            "the alias stays: {r:?}"
        );
        let verdict = response(r.hook.as_ref().expect("the hook ran"));
        assert_eq!(verdict["status"], "Failed", "{verdict}");
        let reason = verdict["reason"].as_str().unwrap_or_default();
        assert!(reason.contains(why), "{binary}: {reason}");
        let me = get(&stack, "/v1/me", claims("rollout-player", None)).await;
        assert_eq!(me.status, 200, "version 2 still answers: {}", me.body);
    }
}

/// A variable the binary needs, removed from the template: the function fails at
/// start-up, naming it (so template and binary cannot drift apart unnoticed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variable_missing_from_the_template_fails_the_start() {
    let text = std::fs::read_to_string(local_stack::project_template()).expect("template");
    let dir = std::env::temp_dir().join(format!("local-stack-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let cases = [
        (
            "          DEAD_LETTER_QUEUE_URL: !Ref MatchesDeadLetterQueue\n",
            "score-match",
            "DEAD_LETTER_QUEUE_URL",
        ),
        (
            "          PODIUM_EVENT_BUS: !Ref EventBus\n",
            "events",
            "PODIUM_EVENT_BUS",
        ),
        (
            "        PODIUM_TABLE: !Ref PodiumTable\n",
            "leaderboard",
            "PODIUM_TABLE",
        ),
    ];
    for (line, binary, var) in cases {
        assert!(text.contains(line), "template.yaml no longer has {line:?}");
        let path = dir.join(format!("{binary}.yaml"));
        std::fs::write(&path, text.replacen(line, "", 1)).expect("write");
        let mut s = settings();
        s.template = path;
        s.only = Some(vec![binary.to_string()]);
        match Stack::start(s).await {
            Err(StackError::Init { output, .. }) => assert!(output.contains(var), "{binary}: {output}"),
            Err(e) => panic!("{binary}: {e}"),
            Ok(_) => panic!("{binary} started without {var}"),
        }
    }
}

/// An SQS batch from the game servers: a good record, the same record delivered
/// again, a malformed one. The batch reports no failure; the match is scored once;
/// the malformed record is in the real dead-letter queue with its reason (GM-3, GM-5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn score_match_scores_a_batch_once_and_dead_letters_the_malformed() {
    let stack = start(&["score-match", "player"], &[]).await;
    let ended = Utc::now() - Duration::minutes(2);
    let good = seega("lm-1", "lp-1", "lp-2", ended);
    for body in [
        good.as_str(),
        good.as_str(),
        "{\"match_id\": \"lm-bad\", \"game\": \"seega\"}",
    ] {
        stack.send_message("MatchesQueue", body).await.expect("send");
    }
    let answers = drain(&stack, "score-match").await;
    assert!(!answers.is_empty());
    assert_no_failures(&stack, "score-match", &answers);
    let dead = stack.take_messages("MatchesDeadLetterQueue").await.expect("dlq");
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert!(dead[0].contains("lm-bad"), "{}", dead[0]);
    assert!(stack
        .take_messages("MatchesQueue")
        .await
        .expect("queue")
        .is_empty());

    let ledger = get(&stack, "/v1/me/ledger?game=seega", claims("lp-1", None)).await;
    assert_eq!(ledger.status, 200, "{}", ledger.body);
    let entries = ledger.json()["entries"].as_array().cloned().unwrap_or_default();
    let of_match = entries.iter().filter(|e| e.to_string().contains("lm-1")).count();
    assert_eq!(of_match, 1, "scored once: {}", ledger.body);
    let me = get(&stack, "/v1/me", claims("lp-1", None)).await;
    assert_eq!(me.status, 200, "{}", me.body);
}

/// The HTTP functions behind the JWT authorizer: pages of a board and the next
/// cursor's page after a refresh (the schedule's event), the caller's entry with
/// neighbours (LB-3, LB-4); no token: 401 from the authorizer; the public OpenAPI
/// description without one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boards_pages_cursor_and_around_me_after_a_scheduled_refresh() {
    let stack = start(&["score-match", "leaderboard", "snapshot"], &[]).await;
    let ended = Utc::now() - Duration::minutes(10);
    for i in 0..12 {
        let body = seega(
            &format!("bm-{i}"),
            &format!("bp-{i}"),
            &format!("bq-{i}"),
            ended + Duration::seconds(i),
        );
        stack.send_message("MatchesQueue", &body).await.expect("send");
    }
    drain(&stack, "score-match").await;
    let refreshed = stack
        .fire_schedule("snapshot", "RefreshLiveBoards", Utc::now())
        .await
        .expect("refresh");
    response(&refreshed);

    let first = get(&stack, "/v1/leaderboards/seega?limit=5", claims("bp-3", None)).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let page = first.json();
    assert_eq!(page["entries"].as_array().map(Vec::len), Some(5), "{page}");
    let cursor = page["next_cursor"].as_str().expect("a next cursor").to_string();
    let second = get(
        &stack,
        &format!("/v1/leaderboards/seega?limit=5&cursor={}", percent(&cursor)),
        claims("bp-3", None),
    )
    .await;
    assert_eq!(second.status, 200, "{}", second.body);
    let ids = |page: &Value| -> Vec<String> {
        page["entries"]
            .as_array()
            .map(|e| {
                e.iter()
                    .filter_map(|e| e["player_id"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (one, two) = (ids(&page), ids(&second.json()));
    assert_eq!(two.len(), 5, "{}", second.body);
    assert!(
        two.iter().all(|p| !one.contains(p)),
        "the next page goes on: {one:?} {two:?}"
    );
    let tampered = get(
        &stack,
        &format!("/v1/leaderboards/seega?limit=5&cursor={}x", percent(&cursor)),
        claims("bp-3", None),
    )
    .await;
    assert_eq!(tampered.status, 400, "{}", tampered.body);

    let me = get(&stack, "/v1/leaderboards/seega/me", claims("bp-3", None)).await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert!(me.body.contains("bp-3"), "{}", me.body);

    assert_eq!(get(&stack, "/v1/leaderboards/seega", None).await.status, 401);
    let doc = get(&stack, "/v1/openapi.json", None).await;
    assert_eq!(doc.status, 200);
    assert!(doc.json()["paths"].is_object());
    assert_eq!(get(&stack, "/v1/nowhere", claims("bp-3", None)).await.status, 404);
}

/// `s` percent-encoded for a path segment or a query value (the percent-encoding crate).
fn percent(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// The daily bonus with an `Idempotency-Key` twice: one credit, the same answer
/// (MJ-14); the freeze schedule's event after the Bucharest day ends closes it and
/// pays its reward into the inbox (LB-5), claimed once (GM-3); the stream's batch
/// reaches the `events` function, which publishes to the real event bus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daily_bonus_period_close_claim_and_published_events() {
    let rewards = r#"{"mahjong-daily": {"bands": [{"ranks": [1, 1], "points": 500}]}}"#;
    let stack = start(
        &["daily-bonus", "player", "snapshot", "events"],
        &[("PeriodRewards", rewards)],
    )
    .await;
    let player = format!("dp-{:x}", rand_suffix());
    let key = [("Idempotency-Key", "bonus-key-1")];
    let first = post(
        &stack,
        "/v1/games/mahjong-rivals/daily-bonus",
        &key,
        claims(&player, None),
    )
    .await;
    assert_eq!(
        first.status,
        200,
        "{}\n{}",
        first.body,
        stack.output("daily-bonus")
    );
    let again = post(
        &stack,
        "/v1/games/mahjong-rivals/daily-bonus",
        &key,
        claims(&player, None),
    )
    .await;
    assert_eq!(again.status, first.status);
    assert_eq!(again.json(), first.json(), "a repeat gets the first answer");

    // The day of Europe/Bucharest ends; the freeze schedule fires a minute later.
    let bucharest: chrono_tz::Tz = "Europe/Bucharest".parse().expect("zone");
    let today = Utc::now().with_timezone(&bucharest).date_naive();
    let midnight = bucharest
        .from_local_datetime(&(today + chrono::Days::new(1)).and_hms_opt(0, 1, 0).expect("time"))
        .earliest()
        .expect("local time")
        .with_timezone(&Utc);
    let frozen = stack
        .fire_schedule("snapshot", "FreezeBucharestPeriods", midnight)
        .await
        .expect("freeze");
    response(&frozen);

    let inbox = get(&stack, "/v1/me/inbox", claims(&player, None)).await;
    assert_eq!(inbox.status, 200, "{}", inbox.body);
    let id = inbox.json()["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["reward"].is_object()))
        .and_then(|m| m["id"].as_str().map(String::from))
        .unwrap_or_else(|| panic!("a message with a reward: {}", inbox.body));
    let claim_path = format!("/v1/me/inbox/{}/claim", percent(&id));
    let claimed = post(&stack, &claim_path, &[], claims(&player, None)).await;
    assert_eq!(claimed.status, 200, "{}", claimed.body);
    assert_eq!(claimed.json()["points"], 500);
    let repeat = post(&stack, &claim_path, &[], claims(&player, None)).await;
    assert_eq!(repeat.json(), claimed.json(), "claimed once");
    let stranger = post(&stack, &claim_path, &[], claims("someone-else", None)).await;
    assert_eq!(stranger.status, 404);

    // The bus's events, through a rule that copies them to a queue.
    let tap = tap_bus(&stack).await;
    let answers = stack.poll_stream("events").await.expect("stream");
    assert!(!answers.is_empty());
    assert_no_failures(&stack, "events", &answers);
    let published = read_queue(&stack, &tap).await;
    assert!(
        published.iter().any(|e| e.contains(&id) && e.contains(&player)),
        "{published:?}"
    );
}

fn rand_suffix() -> u32 {
    std::process::id() ^ (Utc::now().timestamp_subsec_nanos())
}

/// A rule on the stack's bus sending every event to a new queue; its URL.
async fn tap_bus(stack: &Stack) -> String {
    let c = stack.clients();
    let bus = stack.resources().by_id["EventBus"].reference.clone();
    let name = format!("{}-tap", stack.name());
    let url = c
        .sqs
        .create_queue()
        .queue_name(&name)
        .send()
        .await
        .expect("queue")
        .queue_url
        .expect("url");
    c.eventbridge
        .put_rule()
        .name(&name)
        .event_bus_name(&bus)
        .event_pattern(json!({"source": ["podium"]}).to_string())
        .send()
        .await
        .expect("rule");
    c.eventbridge
        .put_targets()
        .rule(&name)
        .event_bus_name(&bus)
        .targets(
            aws_sdk_eventbridge::types::Target::builder()
                .id("tap")
                .arn(format!(
                    "arn:aws:sqs:{}:{}:{name}",
                    local_stack::REGION,
                    local_stack::ACCOUNT
                ))
                .build()
                .expect("target"),
        )
        .send()
        .await
        .expect("targets");
    url
}

async fn read_queue(stack: &Stack, url: &str) -> Vec<String> {
    let got = stack
        .clients()
        .sqs
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .wait_time_seconds(1)
        .send()
        .await
        .expect("receive");
    got.messages
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| m.body)
        .collect()
}

/// Operator routes: with the `podium/operator` scope the function answers; without
/// it the authorizer refuses (403) before the function is called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operator_routes_need_the_operator_scope() {
    let stack = start(&["score-match", "operator"], &[]).await;
    score(&stack, "om-1", "op-p-1", "op-p-2", Duration::minutes(1)).await;
    let path = "/v1/operator/players/op-p-1";
    let staff = get(&stack, path, claims("support-1", Some("openid podium/operator"))).await;
    assert_eq!(staff.status, 200, "{}\n{}", staff.body, stack.output("operator"));
    let player = get(&stack, path, claims("op-p-1", Some("openid"))).await;
    assert_eq!(player.status, 403, "{}", player.body);
    let board = get(
        &stack,
        "/v1/operator/leaderboards/seega",
        claims("support-1", Some("podium/operator")),
    )
    .await;
    assert_eq!(board.status, 200, "{}", board.body);
}

/// Rewarded-ad callbacks, public routes: a forged Unity signature is refused (403)
/// and writes nothing; an AdMob callback signed with a key the key server publishes
/// is paid once, its repeat answered alike (SG-10).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ad_callbacks_verify_signatures() {
    let keys_url = serve_keys(podium_tests::rewards::admob_keys_json()).await;
    let unity = String::from_utf8_lossy(podium_tests::rewards::UNITY_SECRET).into_owned();
    let stack = start(
        &["score-match", "ad-reward", "player"],
        &[
            ("AdCatalogue", podium_tests::rewards::CATALOGUE),
            ("AdMobKeysUrl", &keys_url),
            ("UnityAdsSecret", &unity),
        ],
    )
    .await;
    score(&stack, "am-1", "ad-p-1", "ad-p-2", Duration::minutes(1)).await;
    let forged = get(
        &stack,
        "/v1/ad-callbacks/unity-ads?productid=3333&sid=ad-p-1&oid=forged-1&hmac=0123456789abcdef",
        None,
    )
    .await;
    assert_eq!(
        forged.status,
        403,
        "{}\n{}",
        forged.body,
        stack.output("ad-reward")
    );

    let query =
        podium_tests::rewards::admob("1111", "txn-local-1", "ad-p-1", Utc::now() - Duration::seconds(5));
    let paid = get(&stack, &format!("/v1/ad-callbacks/admob?{query}"), None).await;
    assert_eq!(paid.status, 200, "{}\n{}", paid.body, stack.output("ad-reward"));
    let again = get(&stack, &format!("/v1/ad-callbacks/admob?{query}"), None).await;
    assert_eq!(again.status, 200, "{}", again.body);
    let ledger = get(&stack, "/v1/me/ledger?game=seega", claims("ad-p-1", None)).await;
    let entries = ledger.json()["entries"].as_array().cloned().unwrap_or_default();
    let ads = entries
        .iter()
        .filter(|e| e.to_string().contains("txn-local-1"))
        .count();
    assert_eq!(ads, 1, "paid once: {}", ledger.body);
}

/// A key server on loopback answering every request with `keys`; its URL.
async fn serve_keys(keys: String) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let keys = keys.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = conn.read(&mut buf).await;
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{keys}",
                    keys.len()
                );
                let _ = conn.write_all(reply.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/admob/reward/verifier-keys.json")
}

/// `delete-player`, invoked directly as operators do (`aws lambda invoke`): the
/// player's points and history are gone afterwards (GM-6), and a repeat finds the
/// deletion done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_player_by_direct_invoke() {
    let stack = start(&["score-match", "player", "delete-player"], &[]).await;
    score(&stack, "dm-1", "del-1", "del-2", Duration::minutes(3)).await;
    let before = get(&stack, "/v1/me/ledger?game=seega", claims("del-1", None)).await;
    assert_eq!(
        before.json()["entries"].as_array().map(Vec::len),
        Some(1),
        "{}",
        before.body
    );

    let answer = stack
        .invoke("delete-player", &json!({"player_id": "del-1"}))
        .await
        .expect("invoke");
    let done = response(&answer).clone();
    assert_eq!(done["ledger_entries"], 1, "{done}");
    let again = stack
        .invoke("delete-player", &json!({"player_id": "del-1"}))
        .await
        .expect("invoke");
    assert_eq!(response(&again)["already_deleted"], true, "{again:?}");
    let after = get(&stack, "/v1/me/ledger?game=seega", claims("del-1", None)).await;
    assert!(
        after.status == 400 && after.body.contains("GM-6"),
        "{} {}",
        after.status,
        after.body
    );
    let bad = stack
        .invoke("delete-player", &json!({"player": 7}))
        .await
        .expect("invoke");
    assert!(matches!(bad, Answer::Error { .. }) || bad != answer, "{bad:?}");
}

/// A function instance that crashes is replaced by a new one at the next
/// invocation, as Lambda starts a new instance: the request that met the crash gets
/// API Gateway's 500, the next one an answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_instance_is_replaced() {
    let stack = start(&["leaderboard"], &[]).await;
    let doc = get(&stack, "/v1/openapi.json", None).await;
    assert_eq!(doc.status, 200);
    let pid = stack.pid("leaderboard").await.expect("pid");
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let met = get(&stack, "/v1/openapi.json", None).await;
    let after = get(&stack, "/v1/openapi.json", None).await;
    assert!(met.status == 500 || met.status == 200, "{}", met.status);
    assert_eq!(after.status, 200, "a new instance answers");
    assert_ne!(stack.pid("leaderboard").await, Some(pid));
}

/// A function instance that stops answering is given until its timeout (10 s, the
/// template's): the request gets API Gateway's 500, the instance is killed (nothing
/// of that invocation can take effect later), and the next request is answered by a
/// new instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_instance_times_out_and_is_replaced() {
    let stack = start_scaled(&["leaderboard"], &[], 1).await;
    let pid = stack.pid("leaderboard").await.expect("pid");
    let stopped = std::process::Command::new("kill")
        .args(["-STOP", &pid.to_string()])
        .status()
        .expect("kill -STOP");
    assert!(stopped.success());
    let hung = get(&stack, "/v1/openapi.json", None).await;
    assert_eq!(hung.status, 500, "{}", hung.body);
    let after = get(&stack, "/v1/openapi.json", None).await;
    assert_eq!(after.status, 200, "a new instance answers");
    assert_ne!(stack.pid("leaderboard").await, Some(pid));
    // The hung process was killed, not left stopped.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let alive = std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .status()
        .expect("kill -0");
    assert!(!alive.success(), "the timed-out instance's process is gone");
}

/// LIVE-1 … LIVE-3 deployed, run locally: the template's WebSocket API under the
/// local gateway, its `$connect` through the `live-authorizer` function (the local
/// identity provider's JWT in `?token=`, verified against its published key set) and
/// the `live` function; a watch answered through the management API; a refresh of the
/// watched board (the snapshot schedule) read from the table's stream by the `events`
/// function and pushed as one `board_changed`; no token and a forged one refused (401).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_feed_under_the_local_websocket_gateway() {
    use futures::{SinkExt, StreamExt};
    use local_stack::gateway::Tokens;
    use local_stack::stack::{LOCAL_AUDIENCE, LOCAL_ISSUER};
    use tokio_tungstenite::tungstenite::Message;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let mut s = settings();
    s.only = Some(
        ["score-match", "snapshot", "events", "live", "live-authorizer"]
            .iter()
            .map(|b| b.to_string())
            .collect(),
    );
    s.with_gateway(addr);
    let stack = std::sync::Arc::new(Stack::start(s).await.expect("the stack starts"));
    let tokens = Tokens::new(LOCAL_ISSUER, LOCAL_AUDIENCE);
    let token = tokens.issue("lv-ana", &[], 600);
    tokio::spawn(local_stack::gateway::serve(listener, stack.clone(), tokens));
    let url = |q: &str| format!("ws://{addr}/live{q}");
    for q in [
        "",
        "?token=not-a-jwt",
        &format!("?token={}x", &token[..token.len() - 1]),
    ] {
        match tokio_tungstenite::connect_async(url(q)).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 401, "{q}"),
            other => panic!("{q}: refused with 401, got {:?}", other.map(|_| ())),
        }
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(url(&format!("?token={token}")))
        .await
        .expect("connected through the authorizer and $connect");
    async fn frame<S>(ws: &mut S) -> Value
    where
        S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
    {
        loop {
            match tokio::time::timeout(std::time::Duration::from_secs(10), ws.next()).await {
                Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(&t).expect("a JSON frame"),
                Ok(Some(Ok(_))) => continue,
                other => panic!("a frame, got {other:?}"),
            }
        }
    }
    ws.send(Message::Text(
        r#"{"action": "watch", "boards": [{"board": "seega"}]}"#.into(),
    ))
    .await
    .expect("send");
    assert_eq!(
        frame(&mut ws).await,
        json!({"type": "watching", "boards": [{"board": "seega", "view": "global"}]})
    );
    let ended = Utc::now() - Duration::minutes(10);
    stack
        .send_message("MatchesQueue", &seega("lv-1", "lv-bob", "lv-cid", ended))
        .await
        .expect("send");
    drain(&stack, "score-match").await;
    response(
        &stack
            .fire_schedule("snapshot", "RefreshLiveBoards", Utc::now())
            .await
            .expect("refresh"),
    );
    let answers = stack.poll_stream("events").await.expect("stream");
    assert_no_failures(&stack, "events", &answers);
    let pushed = frame(&mut ws).await;
    assert_eq!(pushed["type"], "board_changed", "{pushed}");
    assert_eq!(
        (&pushed["board"], &pushed["view"]),
        (&json!("seega"), &json!("global"))
    );
    ws.close(None).await.expect("close");
}
