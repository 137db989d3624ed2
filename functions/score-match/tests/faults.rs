//! Proof under faults (GM-3, GM-4, GM-5, SG-7): a generated file of Seega records
//! (duplicate deliveries, late retries, conflicting re-uses of a match id, malformed
//! lines, a small population so that concurrent batches share players) is delivered
//! to the score-match handler as SQS would: batches of 10, several batches at once,
//! every record the handler leaves for redelivery sent again. The handler's DynamoDB
//! client runs through a seeded fault layer ([`podium_tests::dynamodb_faults`]) in
//! front of DynamoDB Local; balance reads run alongside. The history is then checked
//! against the rules' sequential model ([`podium_tests::history`]).
//!
//! The test command runs a short schedule of each fault kind and a 5,000-record mix.
//! Longer runs: `PODIUM_FAULT_RECORDS=20000 PODIUM_FAULT_SEEDS=1,2,3 cargo test
//! --release -p score-match --test faults` (BENCHMARKS.md).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use podium_rules::game::Game;
use podium_rules::record::policy::RecordPolicy;
use podium_store::Store;
use podium_tests::dynamodb_faults::{Fault, FaultyHttp, Schedule};
use podium_tests::history::{check, model, Delivered, History, Report};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use score_match::dead_letter::DeadLetters;
use score_match::error::FunctionError;
use score_match::handler::{handle_outcomes, RecordOutcome};

/// The server clock of these runs: after every generated match.
fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
        .expect("instant")
        .to_utc()
}

/// Redeliveries of one record before the run calls it lost.
const MAX_DELIVERIES: usize = 60;
/// Records per SQS batch (the function's batch size).
const BATCH: usize = 10;

/// Dead letters, accepted (the dead-letter queue is not under test here).
struct Accepted;

#[async_trait]
impl DeadLetters for Accepted {
    async fn send(&self, _body: &str, _reason: &str) -> Result<(), FunctionError> {
        Ok(())
    }
}

/// The generated file: `records` matches among `players` players, about 5 % more
/// lines (duplicates, late retries, malformed and conflicting lines).
fn generated(records: usize, players: usize, seed: u64) -> Vec<String> {
    let mut out = Vec::new();
    podium_generate::seega::generate(records, players, seed, &mut out).expect("generate");
    String::from_utf8(out)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn seeds(default: u64) -> Vec<u64> {
    std::env::var("PODIUM_FAULT_SEEDS")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .filter(|v: &Vec<u64>| !v.is_empty())
        .unwrap_or_else(|| vec![default])
}

struct Queue {
    pending: VecDeque<usize>,
    in_flight: usize,
}

/// Delivers `lines` to the handler over `store` with `concurrency` batches at once,
/// redelivering what it leaves, while a reader reads balances; returns the history.
/// `timeouts_per_mille` of the batches (seeded by `seed`) time out after the handler
/// settled them: the function's answer never reaches SQS, which redelivers the whole
/// batch. Returns the history and the number of such timeouts.
async fn deliver<S: Store + 'static>(
    store: Arc<S>,
    lines: Arc<Vec<String>>,
    concurrency: usize,
    players: usize,
    timeouts_per_mille: u32,
    seed: u64,
) -> (Arc<History>, u64) {
    let history = Arc::new(History::new(lines.len()));
    let rng = Arc::new(Mutex::new(StdRng::seed_from_u64(seed ^ 0x7417)));
    let timeouts = Arc::new(AtomicU64::new(0));
    let queue = Arc::new(Mutex::new(Queue {
        pending: (0..lines.len()).collect(),
        in_flight: 0,
    }));
    let done = Arc::new(AtomicBool::new(false));
    // The reader runs as a task of its own; the batches run in this task (the
    // handler's futures borrow across awaits in ways `tokio::spawn` cannot take).
    let reader = {
        let (store, history, done) = (store.clone(), history.clone(), done.clone());
        tokio::spawn(async move {
            let mut i = 0usize;
            while !done.load(Ordering::Relaxed) {
                let player = format!("p-{:05}", i % players.max(1));
                i = i.wrapping_add(7);
                if let Ok(b) = store.get_balance(Game::Seega, &player).await {
                    history.read(&player, b.map_or(0, |b| b.points));
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
    };
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (store, lines, history, queue) =
                (store.clone(), lines.clone(), history.clone(), queue.clone());
            let (rng, timeouts) = (rng.clone(), timeouts.clone());
            async move {
                let policy = RecordPolicy::default();
                loop {
                    let batch: Vec<usize> = {
                        let mut q = queue.lock().expect("queue");
                        if q.pending.is_empty() && q.in_flight == 0 {
                            return;
                        }
                        let n = q.pending.len().min(BATCH);
                        let batch: Vec<usize> = q.pending.drain(..n).collect();
                        q.in_flight += batch.len();
                        batch
                    };
                    if batch.is_empty() {
                        tokio::time::sleep(Duration::from_millis(2)).await;
                        continue;
                    }
                    let mut event = SqsEvent::default();
                    event.records = batch
                        .iter()
                        .map(|&i| {
                            let mut m = SqsMessage::default();
                            // SQS keeps a message's id across redeliveries.
                            m.message_id = Some(format!("msg-{i}"));
                            m.body = Some(lines[i].clone());
                            m
                        })
                        .collect();
                    let outcomes = handle_outcomes(&*store, &Accepted, &event, now(), &policy).await;
                    // The function timed out after settling the batch: SQS saw no
                    // answer and redelivers every record of it.
                    let timed_out = rng.lock().expect("rng").random_range(0..1_000u32) < timeouts_per_mille;
                    if timed_out {
                        timeouts.fetch_add(1, Ordering::Relaxed);
                    }
                    let mut again = Vec::new();
                    for (&i, outcome) in batch.iter().zip(outcomes) {
                        let outcome = if timed_out { RecordOutcome::Retry } else { outcome };
                        let d = match outcome {
                            RecordOutcome::Applied => Delivered::Applied,
                            RecordOutcome::Duplicate => Delivered::Duplicate,
                            RecordOutcome::DeadLettered(reason) => Delivered::Refused(reason),
                            RecordOutcome::Retry => Delivered::Retry,
                            RecordOutcome::Held(check) => panic!("no check is configured, yet held: {check}"),
                        };
                        history.delivered(i, d.clone());
                        if d == Delivered::Retry && history.attempts_of(i) < MAX_DELIVERIES {
                            again.push(i);
                        }
                    }
                    let mut q = queue.lock().expect("queue");
                    q.in_flight -= batch.len();
                    // Redelivered after the visibility timeout: behind what is queued.
                    q.pending.extend(again);
                }
            }
        })
        .collect();
    futures::future::join_all(workers).await;
    done.store(true, Ordering::Relaxed);
    reader.await.expect("reader");
    let timeouts = timeouts.load(Ordering::Relaxed);
    (history, timeouts)
}

/// How a run's DynamoDB client retries.
#[derive(Clone, Copy)]
enum Sdk {
    /// As deployed: the SDK's standard retries (3 attempts) absorb most faults.
    Deployed,
    /// One attempt: every fault reaches podium's own retries and SQS redelivery.
    NoRetries,
}

impl Sdk {
    fn attempts(self) -> u32 {
        match self {
            Sdk::Deployed => 3,
            Sdk::NoRetries => 1,
        }
    }
}

/// One history-checked run on DynamoDB Local under `kinds` at `rate_per_mille`.
/// `function_timeouts` per 1,000 batches time out after settling (the whole batch redelivered).
async fn run_under(
    kinds: &[Fault],
    rate_per_mille: u32,
    function_timeouts: u32,
    records: usize,
    seed: u64,
    sdk: Sdk,
) -> Report {
    let players = (records / 25).clamp(10, 400);
    let lines = Arc::new(generated(records, players, seed));
    let http = FaultyHttp::new(
        podium_store::aws::new_https_client(),
        Schedule {
            seed,
            rate_per_mille,
            kinds: kinds.to_vec(),
        },
    );
    // DynamoDB's token window: a ClientRequestToken sent again with other items is
    // refused, whatever became of its first request (DynamoDB Local forgets cancelled ones).
    http.keep_tokens(true);
    let store = Arc::new(podium_tests::fixtures::dynamodb_through(http.shared(), sdk.attempts()).await);
    let started = Instant::now();
    let (history, timeouts) =
        deliver(store.clone(), lines.clone(), 8, players, function_timeouts, seed).await;
    let took = started.elapsed();
    // The final state is read without faults.
    http.set_enabled(false);
    let counts = http.counts();
    let models = model(&lines, now(), &RecordPolicy::default());
    let result = check(&*store, &models, &history).await;
    let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
    match result {
        Ok(report) => {
            eprintln!(
                "faults {names:?} at {rate_per_mille}/1000, SDK attempts {}, function timeouts {timeouts} (at {function_timeouts}/1000 batches), seed {seed}: {} lines, {} deliveries, {} requests, {} faults ({}), in {:.1} s; {report:?}",
                sdk.attempts(),
                lines.len(),
                history.deliveries(),
                counts.requests(),
                counts.total(),
                counts.summary(),
                took.as_secs_f64()
            );
            assert!(
                counts.total() > 0 || rate_per_mille == 0,
                "the schedule injected no fault"
            );
            // Only where the rate makes a timeout certain: a mix's 30 per 1,000 of
            // about a hundred batches may draw none.
            assert!(timeouts > 0 || function_timeouts < 100, "no batch timed out");
            for kind in kinds {
                assert!(counts.injected(*kind) > 0, "no {} was injected", kind.name());
            }
            report
        }
        Err(violations) => panic!(
            "faults {names:?}, seed {seed}: {} violations:\n{}",
            violations.len(),
            violations.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
        ),
    }
}

async fn each_seed(
    kinds: &[Fault],
    rate: u32,
    function_timeouts: u32,
    records: usize,
    default_seed: u64,
    sdk: Sdk,
) {
    let records = env_usize("PODIUM_FAULT_RECORDS", records);
    for seed in seeds(default_seed) {
        let report = run_under(kinds, rate, function_timeouts, records, seed, sdk).await;
        // The default sizes' files hold refused and duplicate lines; a small
        // PODIUM_FAULT_RECORDS may hold none.
        assert!(report.applied > 0, "{report:?}");
        if report.lines >= 1_000 {
            assert!(report.refused > 0 && report.duplicates > 0, "{report:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_throttling_nothing_is_lost_or_doubled() {
    each_seed(
        &[Fault::Throttling, Fault::ProvisionedThroughputExceeded],
        200,
        0,
        1_000,
        11,
        Sdk::NoRetries,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_lost_replies_nothing_is_lost_or_doubled() {
    each_seed(&[Fault::LostReply], 150, 0, 1_000, 12, Sdk::NoRetries).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_dropped_connections_nothing_is_lost_or_doubled() {
    each_seed(&[Fault::Dropped], 150, 0, 1_000, 13, Sdk::NoRetries).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_transaction_conflicts_nothing_is_lost_or_doubled() {
    each_seed(
        &[Fault::TransactionConflict, Fault::TransactionInProgress],
        300,
        0,
        1_000,
        14,
        Sdk::NoRetries,
    )
    .await;
}

/// The function times out after settling a batch (its answer lost; SQS redelivers
/// the whole batch, records it applied included), 1 batch in 5.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_function_timeouts_after_commit_nothing_is_lost_or_doubled() {
    each_seed(&[], 0, 200, 1_000, 19, Sdk::NoRetries).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_a_mix_of_faults_3000_records_nothing_is_lost_or_doubled() {
    each_seed(&Fault::ALL, 120, 30, 3_000, 15, Sdk::Deployed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_a_mix_of_faults_without_sdk_retries_nothing_is_lost_or_doubled() {
    each_seed(&Fault::ALL, 100, 30, 1_000, 17, Sdk::NoRetries).await;
}

/// The same history check on the embedded store (no wire to fault): concurrent
/// batches sharing players.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_the_embedded_store_nothing_is_lost_or_doubled() {
    let records = env_usize("PODIUM_FAULT_RECORDS", 2_000);
    let players = (records / 25).clamp(10, 400);
    let lines = Arc::new(generated(records, players, 16));
    let store = Arc::new(podium_tests::fixtures::embedded().await);
    let (history, _) = deliver(store.clone(), lines.clone(), 8, players, 0, 16).await;
    let models = model(&lines, now(), &RecordPolicy::default());
    if let Err(v) = check(&*store, &models, &history).await {
        panic!("{} violations:\n{}", v.len(), v.join("\n"));
    }
}

/// The scoring soak: the handler takes the generated file in 20 concurrent batches
/// against DynamoDB Local (no faults), history-checked. `PODIUM_SOAK_RECORDS` sizes
/// it (the test command: 1,200 matches; BENCHMARKS.md: the long run).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn scoring_soak_20_concurrent_batches_nothing_is_lost_or_doubled() {
    let records = env_usize("PODIUM_SOAK_RECORDS", 1_200);
    let players = (records / 25).clamp(10, 2_000);
    let lines = Arc::new(generated(records, players, 18));
    let store = Arc::new(podium_tests::fixtures::dynamodb().await);
    let started = Instant::now();
    let (history, _) = deliver(store.clone(), lines.clone(), 20, players, 0, 18).await;
    let took = started.elapsed();
    let models = model(&lines, now(), &RecordPolicy::default());
    match check(&*store, &models, &history).await {
        Ok(report) => eprintln!(
            "soak: {} lines in 20 concurrent batches of {BATCH}, {} deliveries in {:.1} s ({:.0} lines/s); {report:?}",
            lines.len(),
            history.deliveries(),
            took.as_secs_f64(),
            lines.len() as f64 / took.as_secs_f64()
        ),
        Err(v) => panic!("{} violations:\n{}", v.len(), v.join("\n")),
    }
}
