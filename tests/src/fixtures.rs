//! Builders and stores for tests.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use aws_smithy_runtime_api::client::http::SharedHttpClient;
use chrono::{DateTime, Duration, TimeZone, Utc};
use podium_rules::game::Game;
use podium_rules::seega::record::{EndReason, MatchRecord, Outcome, PlayerRecord};
use podium_rules::settlement::LedgerEntry;
use podium_store::dynamo::DynamoStore;
use podium_store::embedded::EmbeddedStore;
use podium_store::{BalanceWrite, Commit, CommitOutcome, SettleStore, SourceKey};

/// The variable that points the DynamoDB tests at DynamoDB Local. `scripts/test`
/// starts DynamoDB Local and sets it; without it the DynamoDB tests fail (never skip).
pub const DYNAMODB_ENDPOINT_VAR: &str = "PODIUM_TEST_DYNAMODB_ENDPOINT";

/// The server clock of the contract tests: 2027-01-01T00:00:00Z, after every match they score.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

static TICKS: AtomicI64 = AtomicI64::new(0);

/// A server clock for tests that interleave writes and snapshot runs: [`now`] plus
/// one millisecond more on every call (process-wide), so that what a test does later
/// is dated later, as on a real server.
pub fn tick() -> DateTime<Utc> {
    now() + Duration::milliseconds(1 + TICKS.fetch_add(1, Ordering::Relaxed))
}

/// 2026-11-30T10:00:00Z plus `minutes`.
pub fn at(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0)
        .single()
        .unwrap_or_default()
        + Duration::minutes(minutes)
}

/// A finished Seega match, every stone placed (48): `winner` captured
/// `winner_captured`, `loser` captured `loser_captured`; the match took `secs` seconds
/// and ended at `ended`.
#[allow(clippy::too_many_arguments)]
pub fn record(
    match_id: &str,
    winner: &str,
    loser: &str,
    winner_captured: u32,
    loser_captured: u32,
    secs: i64,
    winner_moves: u32,
    loser_moves: u32,
    ended: DateTime<Utc>,
) -> MatchRecord {
    MatchRecord {
        match_id: match_id.into(),
        game: "seega".into(),
        started_at: ended - Duration::seconds(secs),
        ended_at: ended,
        players: vec![
            PlayerRecord {
                player_id: winner.into(),
                moves: winner_moves,
                stones_on_board: 24 - loser_captured,
                stones_in_hand: 0,
            },
            PlayerRecord {
                player_id: loser.into(),
                moves: loser_moves,
                stones_on_board: 24 - winner_captured,
                stones_in_hand: 0,
            },
        ],
        stones_placed: 48,
        outcome: Outcome::win(winner, EndReason::Completed),
    }
}

/// SG-8's first row: 5 minutes, 20 moves each, winner captured 24, loser 0:
/// winner +311, loser −123.
pub fn rout(match_id: &str, winner: &str, loser: &str, ended: DateTime<Utc>) -> MatchRecord {
    record(match_id, winner, loser, 24, 0, 300, 20, 20, ended)
}

/// SG-8's second row: winner captured 24, loser 12: winner +287, loser −75.
pub fn close_loss(match_id: &str, winner: &str, loser: &str, ended: DateTime<Utc>) -> MatchRecord {
    record(match_id, winner, loser, 24, 12, 300, 20, 20, ended)
}

static SEEDS: AtomicU64 = AtomicU64::new(0);

/// Sets `player`'s Seega balance to `points`, reached at `reached_at_ms`, through the
/// store's own atomic commit (a ledger entry of source `seed` keeps GM-4 true).
pub async fn seed_balance<S: SettleStore + ?Sized>(store: &S, player: &str, points: i64, reached_at_ms: i64) {
    seed_game_balance(store, Game::Seega, player, points, reached_at_ms).await
}

/// Sets `player`'s balance on `game` to `points`, as [`seed_balance`] does.
pub async fn seed_game_balance<S: SettleStore + ?Sized>(
    store: &S,
    game: Game,
    player: &str,
    points: i64,
    reached_at_ms: i64,
) {
    let n = SEEDS.fetch_add(1, Ordering::Relaxed);
    let current = store.get_balances(game, &[player]).await.expect("read balance");
    let before = current[0].points;
    let seed_id = format!("seed-{player}-{n}-{:08x}", rand::random::<u32>());
    let when = DateTime::from_timestamp_millis(reached_at_ms).unwrap_or_default();
    let commit = Commit {
        source: SourceKey::new("seed", seed_id.clone()),
        content_hash: seed_id.clone(),
        attempt: format!("seed-{:016x}", rand::random::<u64>()),
        plan: 0,
        result: "{}".into(),
        fields: None,
        claims: Vec::new(),
        balances: vec![BalanceWrite {
            player_id: player.into(),
            game,
            expected_version: current[0].version,
            points,
            reached_at_ms,
            history: current[0].history_after(points, reached_at_ms, tick().timestamp_millis()),
            must_exist: false,
        }],
        entries: Vec::new(),
        states: Vec::new(),
        marks: Vec::new(),
        refs: Vec::new(),
        named: Vec::new(),
        ledger: vec![LedgerEntry {
            player_id: player.into(),
            game,
            source: "seed".into(),
            source_id: seed_id,
            at: when,
            nominal: points - before,
            applied: points - before,
            balance_after: points,
            rule: String::new(),
            seq: current[0].version + 1,
            settled_at: Some(when),
            note: None,
        }],
    };
    assert_eq!(
        store.commit(&commit).await.expect("seed"),
        CommitOutcome::Committed
    );
}

/// Sets `player`'s entry on the period board `board` (a Mahjong board: MJ-20) to
/// `value`, reached at `reached_at_ms`, through the store's own atomic commit, its key
/// history kept as a settlement keeps it (so readers find the older keys a snapshot
/// may hold).
pub async fn seed_entry<S: SettleStore + ?Sized>(
    store: &S,
    board: &podium_rules::board::BoardRef,
    player: &str,
    value: i64,
    reached_at_ms: i64,
) {
    let n = SEEDS.fetch_add(1, Ordering::Relaxed);
    let current = store.get_entry(board, player).await.expect("read entry");
    let game = podium_store::board_game(board);
    let current = current.unwrap_or_else(|| podium_store::Balance::absent(game, player));
    let seed_id = format!("seed-{player}-{n}-{:08x}", rand::random::<u32>());
    let commit = Commit {
        entries: vec![podium_store::EntryWrite {
            board: board.clone(),
            player_id: player.into(),
            expected_version: current.version,
            value,
            reached_at_ms,
            history: current.history_after(value, reached_at_ms, tick().timestamp_millis()),
        }],
        ..Commit::source_only(
            SourceKey::new("seed", seed_id.clone()),
            seed_id,
            format!("seed-{:016x}", rand::random::<u64>()),
            "{}".into(),
        )
    };
    assert_eq!(
        store.commit(&commit).await.expect("seed"),
        CommitOutcome::Committed
    );
}

/// A fresh embedded store in memory.
pub async fn embedded() -> EmbeddedStore {
    EmbeddedStore::in_memory().expect("in-memory store")
}

static TABLES: AtomicU64 = AtomicU64::new(0);

/// The DynamoDB Local endpoint of this test run (from [`DYNAMODB_ENDPOINT_VAR`]).
/// Panics, failing the test, when it is not set: these tests never skip.
pub fn dynamodb_endpoint() -> String {
    std::env::var(DYNAMODB_ENDPOINT_VAR).unwrap_or_else(|_| {
        panic!(
            "{DYNAMODB_ENDPOINT_VAR} is not set: the DynamoDB tests run against DynamoDB Local, \
             which scripts/test installs and starts (run `scripts/test`)"
        )
    })
}

/// The variable naming more DynamoDB Local servers, comma-separated (optional):
/// `scripts/test` starts two, so that the suite's tables are spread over both (one
/// DynamoDB Local serves its requests largely one at a time).
pub const DYNAMODB_ENDPOINTS_VAR: &str = "PODIUM_TEST_DYNAMODB_ENDPOINTS";

/// The DynamoDB Local server of the `n`th table this process creates: those of
/// [`DYNAMODB_ENDPOINTS_VAR`] in turn, or [`dynamodb_endpoint`].
fn endpoint_for(n: u64) -> String {
    let all: Vec<String> = std::env::var(DYNAMODB_ENDPOINTS_VAR)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_string)
        .collect();
    match all.len() {
        0 => dynamodb_endpoint(),
        len => all[(n % len as u64) as usize].clone(),
    }
}

/// The DynamoDB Local server that holds `table`, a table of [`dynamodb`] (named
/// `podium-test-{process}-{n}`).
pub fn endpoint_of(table: &str) -> String {
    let n = table.rsplit('-').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    endpoint_for(n)
}

/// The SDK configuration for DynamoDB Local at `endpoint`, its requests sent by `http`.
pub async fn local_config(endpoint: &str, http: SharedHttpClient) -> aws_config::SdkConfig {
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .http_client(http)
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "local",
            "local",
            None,
            None,
            "dynamodb-local",
        ))
        .load()
        .await
}

/// A fresh table on DynamoDB Local (one per test), with [`local_timeouts`]. Panics,
/// failing the test, when DynamoDB Local is not configured: these tests never skip.
pub async fn dynamodb() -> DynamoStore {
    dynamodb_table(false).await
}

/// [`dynamodb`], the table with its stream (new and old images), as deployed.
pub async fn dynamodb_streaming() -> DynamoStore {
    dynamodb_table(true).await
}

/// The timeouts of the suite's stores on DynamoDB Local, as docs/walk-through.md gives
/// them for local runs (10 s an attempt, 30 s a request): the emulator answers in tens
/// of milliseconds when idle but takes seconds on a busy 2-core machine (its JVM
/// warming, the whole test command at once), where the deployed defaults (1.5 s,
/// 4 s) would turn a slow answer into an outage and fail a test that is not about
/// outages. Tests of timeouts and lost replies choose their own
/// ([`dynamodb_through`], [`dynamodb_at`]).
pub fn local_timeouts() -> podium_store::dynamo::Timeouts {
    podium_store::dynamo::Timeouts {
        attempt: std::time::Duration::from_secs(10),
        operation: std::time::Duration::from_secs(30),
        ..Default::default()
    }
}

async fn dynamodb_table(stream: bool) -> DynamoStore {
    let table = format!(
        "podium-test-{}-{}",
        std::process::id(),
        TABLES.fetch_add(1, Ordering::Relaxed)
    );
    let config = local_config(&endpoint_of(&table), podium_store::aws::new_https_client()).await;
    // Created with more patience still: a DynamoDB Local just started (its JVM not
    // yet warm) may take many seconds over a first CreateTable.
    let patient = podium_store::dynamo::Timeouts {
        attempt: std::time::Duration::from_secs(30),
        operation: std::time::Duration::from_secs(60),
        ..Default::default()
    };
    let creator = DynamoStore::from_sdk_config(&config, table.clone(), &patient);
    let created = match stream {
        true => creator.ensure_streaming_table().await,
        false => creator.ensure_table().await,
    };
    created.expect("create table on DynamoDB Local");
    DynamoStore::from_sdk_config(&config, table, &local_timeouts())
}

/// A fresh table on DynamoDB Local, created over a clean connection, and a store on
/// it whose every request goes through `http` (a fault layer), with the default
/// timeouts and `sdk_attempts` attempts per request (the default is 3; 1 hands every
/// fault to podium's own retries).
pub async fn dynamodb_through(http: SharedHttpClient, sdk_attempts: u32) -> DynamoStore {
    let clean = dynamodb().await;
    let (_, table) = clean.client_and_table();
    let config = local_config(&endpoint_of(table), http).await;
    let timeouts = podium_store::dynamo::Timeouts {
        max_attempts: sdk_attempts,
        ..Default::default()
    };
    DynamoStore::from_sdk_config(&config, table, &timeouts)
}

/// An endpoint that accepts connections and never answers (a stalled store):
/// `http://127.0.0.1:PORT`. The listener lives as long as the test process.
pub fn stalled_endpoint() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            match conn {
                Ok(stream) => held.push(stream),
                Err(_) => return,
            }
        }
    });
    format!("http://{addr}")
}

/// A DynamoDB store at `endpoint` with short timeouts (connect 300 ms, attempt
/// 300 ms, operation 800 ms, 2 attempts).
pub async fn dynamodb_at(endpoint: &str, table: &str) -> DynamoStore {
    let config = local_config(endpoint, podium_store::aws::new_https_client()).await;
    let timeouts = podium_store::dynamo::Timeouts {
        connect: std::time::Duration::from_millis(300),
        attempt: std::time::Duration::from_millis(300),
        operation: std::time::Duration::from_millis(800),
        max_attempts: 2,
    };
    DynamoStore::from_sdk_config(&config, table, &timeouts)
}

/// `changes` balance changes of the synthetic Seega board of `players` players
/// (`podium_generate::synthetic::standings`): each a random player gaining or losing up
/// to `delta` points (never below 0), reached at `at` + its index in milliseconds. What
/// a snapshot refresh's cost is measured after (`examples/snapshot_cost.rs`, the
/// refresh test of the embedded suite).
pub async fn change_balances<S: SettleStore + ?Sized>(
    store: &S,
    rng: &mut impl rand::Rng,
    players: u64,
    changes: u64,
    delta: i64,
    at: DateTime<Utc>,
) {
    for c in 0..changes {
        let player = format!("p-{:07}", rng.random_range(0..players));
        let now = store
            .get_balances(Game::Seega, &[player.as_str()])
            .await
            .expect("balance")[0]
            .points;
        let points = (now + rng.random_range(-delta..=delta)).max(0);
        seed_balance(store, &player, points, at.timestamp_millis() + c as i64).await;
    }
}
