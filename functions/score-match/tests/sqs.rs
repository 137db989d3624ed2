//! The SQS handler on real SQS event JSON, over the embedded store.

use std::sync::Mutex;

use async_trait::async_trait;
use aws_lambda_events::event::sqs::SqsEvent;
use podium_rules::game::Game;
use podium_service::games::seega::stored_match;
use podium_store::embedded::EmbeddedStore;
use podium_store::SettleStore;
use podium_tests::faults::Faulty;
use score_match::dead_letter::DeadLetters;
use score_match::error::FunctionError;
use score_match::handler::handle;

/// The server clock in these tests: after every fixture's match.
fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
        .expect("instant")
        .to_utc()
}

fn event(name: &str) -> SqsEvent {
    let path = format!("{}/tests/events/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture");
    serde_json::from_str(&text).expect("an SQS event")
}

/// Collects dead letters in memory.
#[derive(Default)]
struct Collected(Mutex<Vec<(String, String)>>);

#[async_trait]
impl DeadLetters for Collected {
    async fn send(&self, body: &str, reason: &str) -> Result<(), FunctionError> {
        self.0
            .lock()
            .expect("lock")
            .push((body.to_string(), reason.to_string()));
        Ok(())
    }
}

/// An SQS batch whose middle record fails transiently reports only that record.
#[tokio::test]
async fn middle_record_transient_failure_reports_only_it() {
    let store = Faulty::new(EmbeddedStore::in_memory().expect("store")).failing_source("m-flaky");
    let dead = Collected::default();
    let response = handle(
        &store,
        &dead,
        event("batch-middle-transient.json"),
        now(),
        &Default::default(),
    )
    .await;
    let failed: Vec<_> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_str())
        .collect();
    assert_eq!(failed, ["0f6c1d0e-6a4b-4f0e-9c1e-000000000002"]);
    assert!(
        dead.0.lock().expect("lock").is_empty(),
        "a transient failure is not dead-lettered"
    );
    assert!(stored_match(&store.inner, "m-101").await.expect("read").is_some());
    assert!(stored_match(&store.inner, "m-103").await.expect("read").is_some());
    assert!(stored_match(&store.inner, "m-flaky")
        .await
        .expect("read")
        .is_none());
    // The response serialises as Lambda expects it.
    let json = serde_json::to_value(&response).expect("json");
    assert_eq!(
        json["batchItemFailures"][0]["itemIdentifier"],
        "0f6c1d0e-6a4b-4f0e-9c1e-000000000002"
    );
}

/// GM-5 on a warm function: a malformed record is refused with its field named
/// and dead-lettered (not retried); the next record on the same instance is scored.
#[tokio::test]
async fn malformed_then_valid_on_a_warm_function() {
    let store = EmbeddedStore::in_memory().expect("store");
    let dead = Collected::default();
    let first = handle(
        &store,
        &dead,
        event("malformed-record.json"),
        now(),
        &Default::default(),
    )
    .await;
    assert!(first.batch_item_failures.is_empty(), "never retried");
    {
        let letters = dead.0.lock().expect("lock");
        assert_eq!(letters.len(), 1);
        assert!(
            letters[0].1.contains("players[0].stones_on_board"),
            "{}",
            letters[0].1
        );
        assert!(letters[0].1.contains("SG-1"), "{}", letters[0].1);
        assert!(letters[0].0.contains("\"m-201\""), "the original body is kept");
    }
    assert!(
        stored_match(&store, "m-201").await.expect("read").is_none(),
        "nothing written"
    );
    let second = handle(
        &store,
        &dead,
        event("valid-record.json"),
        now(),
        &Default::default(),
    )
    .await;
    assert!(second.batch_item_failures.is_empty());
    let stored = stored_match(&store, "m-202")
        .await
        .expect("read")
        .expect("scored");
    assert_eq!(stored.1.players[0].points, 311);
    assert_eq!(dead.0.lock().expect("lock").len(), 1);
}

/// GM-3: the same batch delivered twice applies each match once.
#[tokio::test]
async fn redelivered_batch_applies_once() {
    let store = EmbeddedStore::in_memory().expect("store");
    let dead = Collected::default();
    for _ in 0..2 {
        let r = handle(
            &store,
            &dead,
            event("valid-record.json"),
            now(),
            &Default::default(),
        )
        .await;
        assert!(r.batch_item_failures.is_empty());
    }
    let b = store.get_balances(Game::Seega, &["p-7"]).await.expect("read");
    assert_eq!(b[0].points, 311);
}

/// A dead-letter queue that refuses every record.
struct Unavailable;

#[async_trait]
impl DeadLetters for Unavailable {
    async fn send(&self, _body: &str, _reason: &str) -> Result<(), FunctionError> {
        Err(FunctionError::DeadLetter(
            "AWS.SimpleQueueService.NonExistentQueue".into(),
        ))
    }
}

/// GM-5 with the dead-letter queue down: the refused record is not lost but left for
/// SQS to redeliver (and, past maxReceiveCount, to redrive), and nothing is written.
#[tokio::test]
async fn refused_record_is_retried_when_the_dead_letter_queue_fails() {
    let store = EmbeddedStore::in_memory().expect("store");
    let response = handle(
        &store,
        &Unavailable,
        event("malformed-record.json"),
        now(),
        &Default::default(),
    )
    .await;
    let failed: Vec<_> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_str())
        .collect();
    assert_eq!(failed, ["0f6c1d0e-6a4b-4f0e-9c1e-000000000001"]);
    assert!(stored_match(&store, "m-201").await.expect("read").is_none());
}

/// The valid record's event with its body changed by `edit`.
fn edited(edit: impl Fn(&mut serde_json::Value)) -> SqsEvent {
    let mut e = event("valid-record.json");
    let body = e.records[0].body.take().expect("body");
    let mut record: serde_json::Value = serde_json::from_str(&body).expect("json");
    edit(&mut record);
    e.records[0].body = Some(record.to_string());
    e
}

/// Review case 9 (GM-5): dead-letter reasons lead with field and rule and quote input
/// cut short, whatever the input's size; an unknown key is named by its parent.
#[tokio::test]
async fn dead_letter_reasons_lead_with_field_and_rule() {
    let store = EmbeddedStore::in_memory().expect("store");
    let cases: Vec<(SqsEvent, &str)> = vec![
        (
            edited(|r| r["game"] = serde_json::json!("g".repeat(5_000))),
            "game (GM-5): `ggg",
        ),
        (
            edited(|r| r[format!("player_email_{}", "x".repeat(100_000))] = serde_json::json!(1)),
            "record (GM-5): unknown field `player_email_",
        ),
        (
            edited(|r| r["players"][0]["stones_on_board"] = serde_json::json!("9".repeat(5_000))),
            "players[0].stones_on_board (GM-5): ",
        ),
    ];
    for (event, start) in cases {
        let dead = Collected::default();
        let r = handle(&store, &dead, event, now(), &Default::default()).await;
        assert!(r.batch_item_failures.is_empty());
        let letters = dead.0.lock().expect("lock");
        let reason = &letters[0].1;
        assert!(reason.starts_with(start), "{reason}");
        assert!(
            reason.chars().count() <= score_match::handler::MAX_REASON_CHARS,
            "{reason}"
        );
        assert!(reason.len() < 600, "{} bytes", reason.len());
    }
}

/// DB-4, MS-8 on the Lambda path: a generated Dots and Boxes match and Minesweeper
/// duel in an SQS batch are replayed and rated, once; a cheating copy (the other
/// player claims the win) goes to the dead-letter queue naming `result`.
#[tokio::test]
async fn replayed_games_through_the_queue() {
    use podium_generate::replayed::{generate, Replayed};
    let store = EmbeddedStore::in_memory().expect("store");
    for (game, rule) in [(Replayed::DotsAndBoxes, "DB-4"), (Replayed::Minesweeper, "MS-8")] {
        let mut out = Vec::new();
        generate(game, 40, 10, 3, now() - chrono::Duration::minutes(1), &mut out).expect("generate");
        let text = String::from_utf8(out).expect("utf-8");
        // A rated record whose claim holds, and a cheating copy under another id.
        let honest = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
            .find(|r| {
                r["players"][1]["human"] == serde_json::json!(true)
                    && r["result"]["winner"].is_string()
                    && podium_service::games::incoming::Incoming::from_json(
                        r.to_string().as_bytes(),
                        now(),
                        &Default::default(),
                    )
                    .is_ok()
            })
            .expect("a rated record");
        let mut cheat = honest.clone();
        cheat["match_id"] = serde_json::json!(format!("{}-x", honest["match_id"].as_str().unwrap_or("")));
        let loser = if honest["result"]["winner"] == honest["players"][0]["player_id"] {
            1
        } else {
            0
        };
        cheat["result"]["winner"] = honest["players"][loser]["player_id"].clone();
        let mut e = event("valid-record.json");
        let mut second = e.records[0].clone();
        e.records[0].body = Some(honest.to_string());
        second.body = Some(cheat.to_string());
        second.message_id = Some("cheat".into());
        e.records.push(second);
        let dead = Collected::default();
        let r = handle(&store, &dead, e, now(), &Default::default()).await;
        assert!(r.batch_item_failures.is_empty());
        let letters = dead.0.lock().expect("lock").clone();
        assert_eq!(letters.len(), 1, "{letters:?}");
        assert!(
            letters[0].1.starts_with(&format!("result ({rule})")),
            "{letters:?}"
        );
        let g = if game == Replayed::DotsAndBoxes {
            Game::DotsAndBoxes
        } else {
            Game::Minesweeper
        };
        let winner = honest["result"]["winner"].as_str().unwrap_or("");
        let rating = store.get_balances(g, &[winner]).await.expect("read")[0].points;
        assert!(rating > 1500, "{winner}: {rating}");
    }
}

/// Issue 45, item 3: a batch of 10 records all naming one hot player (p-7 against 10
/// opponents) settles one record after another in delivery order (records sharing a
/// player are keyed), so none of them meets another and retries: 10 records, 10
/// commit requests, nothing left for redelivery, and p-7's ledger in delivery order.
/// The batch costs 10 settlements one after another, well inside the function's 30 s
/// timeout (`ScoreMatchFunction` in template.yaml: 10 records a batch).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_naming_one_hot_player_settles_in_order_without_retries() {
    use podium_store::LedgerStore;
    let store = podium_tests::counting::Counted::new(EmbeddedStore::in_memory().expect("store"));
    let dead = Collected::default();
    let mut e = event("valid-record.json");
    let template = e.records[0].clone();
    e.records = (0..10)
        .map(|i| {
            let mut r = template.clone();
            let mut body: serde_json::Value =
                serde_json::from_str(r.body.as_deref().expect("body")).expect("json");
            body["match_id"] = format!("m-hot-{i}").into();
            body["ended_at"] = format!("2026-11-30T10:{:02}:00Z", 5 + i).into();
            body["players"][1]["player_id"] = format!("p-opp-{i}").into();
            r.message_id = Some(format!("hot-{i}"));
            r.body = Some(body.to_string());
            r
        })
        .collect();
    let (_, writes_before) = store.counts();
    let r = handle(&store, &dead, e, now(), &Default::default()).await;
    assert!(r.batch_item_failures.is_empty(), "{:?}", r.batch_item_failures);
    assert!(dead.0.lock().expect("lock").is_empty());
    let (_, writes_after) = store.counts();
    assert_eq!(writes_after - writes_before, 10, "one commit a record, no retry");
    let ledger = store
        .inner
        .ledger_entries(Game::Seega, "p-7")
        .await
        .expect("ledger");
    let order: Vec<&str> = ledger.iter().map(|e| e.source_id.as_str()).collect();
    let expected: Vec<String> = (0..10).map(|i| format!("m-hot-{i}")).collect();
    assert_eq!(order, expected);
}
