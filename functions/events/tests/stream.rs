//! The `events` function against the real stream of a DynamoDB Local table: messages
//! written by settlements (a `rank_up` delivered three times, `overtaken` after two
//! refreshes) are read back from DynamoDB Streams and published as one event each,
//! with the message's id; a publication that fails is retried from the failed record,
//! and nothing is lost or sent twice.

use std::sync::Mutex;

use base64::Engine as _;

use async_trait::async_trait;
use aws_sdk_dynamodbstreams::types::{AttributeValue, ShardIteratorType};
use chrono::Duration;
use events::{handle, FunctionError, Live, Publish};
use podium_service::jobs::{self, Job, ScheduledRun};
use podium_service::operators::events::Event;
use podium_store::dynamo::DynamoStore;
use podium_store::SettleStore;
use podium_tests::contract::score_match;
use podium_tests::fixtures::{at, dynamodb_streaming, endpoint_of, local_config, now, rout, seed_balance};
use serde_json::{json, Value};

/// Collects what it is given; the publication numbered `fail_at` (0-based) fails.
#[derive(Default)]
struct Collected {
    events: Mutex<Vec<Event>>,
    calls: Mutex<usize>,
    fail_at: Option<usize>,
}

#[async_trait]
impl Publish for Collected {
    async fn publish(&self, events: &[Event]) -> Result<usize, FunctionError> {
        let call = {
            let mut calls = self.calls.lock().expect("lock");
            *calls += 1;
            *calls - 1
        };
        if self.fail_at == Some(call) {
            // EventBridge rejected them (throttled).
            return Ok(events.len());
        }
        self.events.lock().expect("lock").extend(events.iter().cloned());
        Ok(0)
    }
}

impl Collected {
    fn ids(&self) -> Vec<String> {
        self.events
            .lock()
            .expect("lock")
            .iter()
            .map(|e| e.id.clone())
            .collect()
    }
}

fn attribute(v: &AttributeValue) -> Value {
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::B(b) => json!({ "B": base64::engine::general_purpose::STANDARD.encode(b.as_ref()) }),
        _ => json!({ "NULL": true }),
    }
}

fn image(map: &std::collections::HashMap<String, AttributeValue>) -> Value {
    Value::Object(map.iter().map(|(k, v)| (k.clone(), attribute(v))).collect())
}

/// Every record of the table's stream, as the Lambda event's `Records` hold them.
async fn stream_records(store: &DynamoStore) -> Vec<Value> {
    let (client, table) = store.client_and_table();
    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .expect("describe table");
    let arn = described
        .table()
        .and_then(|t| t.latest_stream_arn())
        .expect("the table has a stream")
        .to_string();
    let config = local_config(&endpoint_of(table), podium_store::aws::new_https_client()).await;
    let streams = aws_sdk_dynamodbstreams::Client::new(&config);
    let shards = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .expect("describe stream")
        .stream_description
        .map(|d| d.shards.unwrap_or_default())
        .unwrap_or_default();
    let mut out = Vec::new();
    for shard in shards {
        let mut iterator = streams
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard.shard_id().unwrap_or_default())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .expect("iterator")
            .shard_iterator;
        while let Some(it) = iterator {
            let page = streams
                .get_records()
                .shard_iterator(it)
                .send()
                .await
                .expect("records");
            let records = page.records.unwrap_or_default();
            if records.is_empty() {
                break;
            }
            for r in records {
                let Some(d) = r.dynamodb else { continue };
                let mut dynamodb = json!({
                    "Keys": image(d.keys.as_ref().expect("keys")),
                    "SequenceNumber": d.sequence_number.clone().unwrap_or_default(),
                });
                if let Some(i) = &d.new_image {
                    dynamodb["NewImage"] = image(i);
                }
                if let Some(i) = &d.old_image {
                    dynamodb["OldImage"] = image(i);
                }
                out.push(
                    json!({"eventName": r.event_name.map(|n| n.as_str().to_string()), "dynamodb": dynamodb}),
                );
            }
            iterator = page.next_shard_iterator;
        }
    }
    out
}

/// The ids of every message in the players' inboxes, as the events name them.
async fn message_ids(store: &DynamoStore, players: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for p in players {
        if let Some(state) = store.get_state(p, "inbox").await.expect("inbox") {
            let inbox: podium_rules::inbox::Inbox = serde_json::from_str(&state.body).expect("inbox body");
            out.extend(inbox.messages.iter().map(|m| format!("{p}/{}", m.id)));
        }
    }
    out.sort();
    out
}

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_inbox_message_is_published_once_from_the_stream() {
    let store = dynamodb_streaming().await;
    // SG-12: carol crosses into sergeant; the match is delivered three times.
    seed_balance(&store, "carol", 4_900, 1_000).await;
    seed_balance(&store, "dave", 6_000, 1_000).await;
    let record = rout("m-up", "carol", "dave", at(0));
    futures::future::join_all((0..3).map(|_| score_match(&store, &record, now()))).await;
    // LB-5: five players, then the last passes two of them between two refreshes.
    let mut players: Vec<String> = vec!["carol".into(), "dave".into()];
    for i in 0..5 {
        let p = format!("ev{i}");
        seed_balance(&store, &p, 1_000 - 10 * i, 2_000).await;
        players.push(p);
    }
    let refresh = |minutes: i64| {
        let store = &store;
        async move {
            let run = ScheduledRun {
                job: Job::Refresh,
                scheduled_time: now() + Duration::minutes(minutes),
            };
            jobs::handle(store, run, &Default::default())
                .await
                .expect("refresh");
        }
    };
    refresh(10).await;
    seed_balance(&store, "ev4", 985, 3_000).await;
    refresh(11).await;
    let expected = message_ids(&store, &players).await;
    assert!(
        expected.contains(&"carol/ru:match:m-up".to_string()),
        "{expected:?}"
    );
    assert_eq!(
        expected.iter().filter(|id| id.contains("/ot:seega:")).count(),
        2,
        "{expected:?}"
    );

    let records = stream_records(&store).await;
    let event = json!({ "Records": records });
    let sink = Collected::default();
    let answer = handle(&sink, None::<&Live<'_, DynamoStore>>, &event).await;
    assert!(answer.batch_item_failures.is_empty(), "{answer:?}");
    assert_eq!(sorted(sink.ids()), expected, "one event per message");

    // A rejected publication: the answer names its record; the retry from there
    // repeats only that record's events.
    let failing = Collected {
        fail_at: Some(1),
        ..Default::default()
    };
    let answer = handle(&failing, None::<&Live<'_, DynamoStore>>, &event).await;
    let failed = answer.batch_item_failures[0]
        .item_identifier
        .clone()
        .expect("a sequence number");
    let from = records
        .iter()
        .position(|r| r["dynamodb"]["SequenceNumber"] == failed.as_str())
        .expect("the failed record");
    let retry = handle(
        &failing,
        None::<&Live<'_, DynamoStore>>,
        &json!({ "Records": records[from..] }),
    )
    .await;
    assert!(retry.batch_item_failures.is_empty(), "{retry:?}");
    assert_eq!(sorted(failing.ids()), expected, "nothing lost, nothing twice");
}

/// LIVE-3 deployed: the same stream records, handed to the function with the live
/// feed, push each inbox message to its player's open connection and one
/// `board_changed` to the connection watching Seega; a player suspended is
/// disconnected by their guard's record (LIVE-1).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_stream_feeds_the_live_feed() {
    use podium_service::push::connections::{connect, connections_of, watch};
    use podium_service::push::gateway::Pusher;
    let store = dynamodb_streaming().await;
    let wall = chrono::Utc::now();
    seed_balance(&store, "carol", 4_900, 1_000).await;
    seed_balance(&store, "dave", 6_000, 1_000).await;
    connect(&store, "carol", "carol-1=", wall).await.expect("connect");
    let boards =
        match podium_rules::push::parse_client(r#"{"action": "watch", "boards": [{"board": "seega"}]}"#) {
            Ok(podium_rules::push::ClientMessage::Watch { boards }) => boards,
            other => panic!("a watch: {other:?}"),
        };
    watch(&store, "carol", "carol-1=", boards, wall)
        .await
        .expect("watch");
    score_match(&store, &rout("m-live", "carol", "dave", at(0)), now())
        .await
        .expect("scored: a rank-up");
    let run = ScheduledRun {
        job: Job::Refresh,
        scheduled_time: now() + Duration::minutes(10),
    };
    jobs::handle(&store, run, &Default::default())
        .await
        .expect("refresh");
    podium_service::moderation::suspensions::suspend(
        &store,
        "carol",
        ("support-1", "a modified client"),
        30,
        now(),
    )
    .await
    .expect("suspended");
    let gateway = std::sync::Arc::new(podium_tests::push::RecordingGateway::default());
    let pusher = Pusher::new(gateway.clone());
    let live = Live {
        store: &store,
        pusher: &pusher,
        deadline: None,
    };
    let answer = handle(
        &Collected::default(),
        Some(&live),
        &json!({ "Records": stream_records(&store).await }),
    )
    .await;
    assert!(answer.batch_item_failures.is_empty(), "{answer:?}");
    let frames = gateway.to("carol-1=");
    let kinds: Vec<&str> = frames.iter().filter_map(|f| f["type"].as_str()).collect();
    assert_eq!(kinds, ["message", "board_changed"], "{frames:?}");
    assert_eq!(frames[0]["message"]["id"], "ru:match:m-live");
    assert_eq!(frames[1]["board"], "seega");
    assert_eq!(
        *gateway.closed.lock().expect("lock"),
        ["carol-1="],
        "suspended: closed"
    );
    assert!(connections_of(&store, "carol", wall)
        .await
        .expect("read")
        .is_empty());
}
