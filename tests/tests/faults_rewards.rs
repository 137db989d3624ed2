//! Rewards under DynamoDB faults (SG-10, MJ-18, GM-3, GM-4): signed ad callbacks and
//! daily-bonus claims go through the HTTP API's code to a DynamoDB store whose
//! client runs through the seeded fault layer ([`podium_tests::dynamodb_faults`]),
//! without SDK retries, so every fault reaches podium. Each player watches several
//! ads a day, each callback is delivered twice at once, each bonus is claimed three
//! times at once; callers retry a 5xx as ad networks and the app do. The model (the
//! rules alone): one ad reward of 40 points per player and day (SG-10), the bonus
//! streak 10, 20, 30, … (MJ-18), every delivery of one callback answered alike,
//! every ledger summing to its balance with each source once (GM-4).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use futures::future::join_all;
use podium_rules::game::Game;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_store::dynamo::DynamoStore;
use podium_store::{BoardStore, LedgerStore};
use podium_tests::dynamodb_faults::{Fault, FaultyHttp, Schedule};
use podium_tests::fixtures::seed_balance;
use podium_tests::rewards::{admob, ctx};
use serde_json::Value;

const PLAYERS: usize = 30;
/// Each player's Seega balance before the run (points).
const SEEDED: i64 = 100;
const DAYS: i64 = 4;
const VIEWS_PER_DAY: usize = 3;
/// Attempts of one call before the caller gives up (and the test fails).
const MAX_ATTEMPTS: usize = 60;

fn day_noon(day: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2027-05-10T10:00:00Z")
        .expect("instant")
        .to_utc()
        + Duration::days(day)
}

/// Sends `req` until it is answered with anything but a 5xx (as a retrying caller),
/// every retry with the same `headers` (the app's `Idempotency-Key`).
async fn until_answered(
    store: &DynamoStore,
    ctx: &ApiContext,
    req: &ApiRequest,
    headers: &[(&str, &str)],
    now: DateTime<Utc>,
) -> (ApiResponse, usize) {
    for attempt in 1..=MAX_ATTEMPTS {
        let r = api::handle_with_headers(store, ctx, req, headers, now).await;
        if r.status < 500 {
            return (r, attempt);
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    panic!(
        "{} {} still 5xx after {MAX_ATTEMPTS} attempts",
        req.method, req.path
    );
}

fn callback(raw: &str) -> ApiRequest {
    podium_tests::rewards::callback("/v1/ad-callbacks/admob", raw)
}

fn bonus(player: &str) -> ApiRequest {
    podium_tests::rewards::bonus_claim(player)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ad_rewards_and_daily_bonuses_under_a_mix_of_faults_are_paid_exactly_once() {
    let http = FaultyHttp::new(
        podium_store::aws::new_https_client(),
        Schedule {
            seed: 21,
            rate_per_mille: 150,
            kinds: Fault::ALL.to_vec(),
        },
    );
    let store = Arc::new(podium_tests::fixtures::dynamodb_through(http.shared(), 1).await);
    let ctx = ctx();
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("fr-{i:03}")).collect();
    // Seega accounts exist before their ad rewards (SG-10); set up without faults.
    http.set_enabled(false);
    for p in &players {
        seed_balance(&*store, p, SEEDED, day_noon(-1).timestamp_millis()).await;
    }
    http.set_enabled(true);
    let mut retries = 0usize;
    let mut bonus_balances_seen: BTreeMap<String, HashSet<i64>> = BTreeMap::new();

    for day in 0..DAYS {
        let noon = day_noon(day);
        // Every player's views of the day, each callback delivered twice at once, and
        // three claims of the day's bonus at once.
        let mut calls = Vec::new();
        for p in &players {
            for v in 0..VIEWS_PER_DAY {
                let viewed = noon + Duration::minutes(v as i64);
                let raw = admob("1111", &format!("t-{p}-{day}-{v}"), p, viewed);
                for _ in 0..2 {
                    calls.push((p.clone(), Some(raw.clone()), viewed + Duration::seconds(30)));
                }
            }
            for _ in 0..3 {
                calls.push((p.clone(), None, noon));
            }
        }
        let answers = join_all(calls.iter().enumerate().map(|(n, (p, raw, at))| {
            let (store, ctx) = (store.clone(), &ctx);
            async move {
                let req = match raw {
                    Some(raw) => callback(raw),
                    None => bonus(p),
                };
                // Each of the app's claims carries a key of its own, kept across retries.
                let key = format!("claim-{day}-{n}");
                let headers: Vec<(&str, &str)> = match raw {
                    None => vec![("Idempotency-Key", key.as_str())],
                    Some(_) => Vec::new(),
                };
                let (r, attempts) = until_answered(&store, ctx, &req, &headers, *at).await;
                (p.clone(), raw.clone(), r, attempts)
            }
        }))
        .await;

        // Per transaction: both deliveries answered alike; of a paid one, one delivery is
        // the first answer and the other a duplicate.
        let mut by_txn: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        // Per player, the transactions answered `granted` (by either delivery).
        let mut granted: BTreeMap<String, HashSet<String>> = BTreeMap::new();
        let mut claimed_now: BTreeMap<String, usize> = BTreeMap::new();
        for (p, raw, r, attempts) in &answers {
            retries += attempts - 1;
            assert_eq!(r.status, 200, "{p} day {day}: {}", r.body);
            match raw {
                Some(_) => {
                    let txn = r.body["transaction_id"]
                        .as_str()
                        .expect("transaction_id")
                        .to_string();
                    if r.body["status"] == "granted" {
                        granted.entry(p.clone()).or_default().insert(txn.clone());
                    }
                    by_txn.entry(txn).or_default().push(r.body.clone());
                }
                None => {
                    if r.body["claimed_now"] == true {
                        *claimed_now.entry(p.clone()).or_default() += 1;
                    }
                    let streak = day + 1;
                    assert_eq!(
                        r.body["streak"], streak,
                        "{p} day {day}: MJ-18 streak: {}",
                        r.body
                    );
                    assert_eq!(
                        r.body["points"],
                        10 * streak,
                        "{p} day {day}: MJ-18 points: {}",
                        r.body
                    );
                    bonus_balances_seen
                        .entry(p.clone())
                        .or_default()
                        .insert(r.body["balance_after"].as_i64().expect("balance_after"));
                }
            }
        }
        for (txn, bodies) in &by_txn {
            let strip = |b: &Value| {
                let mut b = b.clone();
                b.as_object_mut().map(|o| o.remove("duplicate"));
                b
            };
            assert!(
                bodies.windows(2).all(|w| strip(&w[0]) == strip(&w[1])),
                "{txn}: deliveries answered differently: {bodies:?}"
            );
            // At most one first answer: when the paying call's reply was lost (a 5xx
            // to the network), its retry and the other delivery both find the grant
            // stored and answer `duplicate: true`; the transaction id is the only key
            // a callback has, so a retry cannot be told from a duplicate delivery.
            if bodies[0]["status"] == "granted" {
                let first = bodies.iter().filter(|b| b["duplicate"] == false).count();
                assert!(first <= 1, "{txn}: GM-3: one first answer: {bodies:?}");
            }
        }
        for p in &players {
            assert_eq!(
                granted.get(p).map_or(0, HashSet::len),
                1,
                "{p} day {day}: SG-10: one ad reward a day"
            );
            assert_eq!(
                claimed_now.get(p).copied().unwrap_or(0),
                1,
                "{p} day {day}: MJ-18: one bonus claim a day"
            );
        }
        // A later claim of the day without an Idempotency-Key: today's claim, again.
        let later = join_all(players.iter().map(|p| {
            let (store, ctx) = (store.clone(), &ctx);
            async move { until_answered(&store, ctx, &bonus(p), &[], noon + Duration::minutes(5)).await }
        }))
        .await;
        for (p, (r, attempts)) in players.iter().zip(later) {
            retries += attempts - 1;
            assert_eq!(r.status, 200, "{p} day {day}: {}", r.body);
            assert_eq!(
                r.body["claimed_now"], false,
                "{p} day {day}: MJ-18: claimed already"
            );
            assert_eq!(r.body["streak"], day + 1, "{p} day {day}: {}", r.body);
        }
    }

    // The final state, read without faults, against the model.
    http.set_enabled(false);
    let bonus_total: i64 = (1..=DAYS).map(|k| 10 * k).sum();
    for p in &players {
        let seega = store
            .get_balance(Game::Seega, p)
            .await
            .expect("read")
            .map_or(0, |b| b.points);
        assert_eq!(seega, SEEDED + 40 * DAYS, "{p}: SG-10: 40 points a day");
        let mahjong = store
            .get_balance(Game::MahjongRivals, p)
            .await
            .expect("read")
            .map_or(0, |b| b.points);
        assert_eq!(mahjong, bonus_total, "{p}: MJ-18: 10 + 20 + …");
        for (game, balance, entries) in [
            (Game::Seega, seega, DAYS + 1),
            (Game::MahjongRivals, mahjong, DAYS),
        ] {
            let ledger = store.ledger_entries(game, p).await.expect("ledger");
            assert_eq!(
                ledger.len() as i64,
                entries,
                "{p} {game:?}: one ledger entry a day (and the seed)"
            );
            assert_eq!(
                ledger.iter().map(|e| e.applied).sum::<i64>(),
                balance,
                "{p} {game:?}: GM-4"
            );
            let ids: HashSet<_> = ledger.iter().map(|e| (&e.source, &e.source_id)).collect();
            assert_eq!(
                ids.len(),
                ledger.len(),
                "{p} {game:?}: a source twice in the ledger"
            );
        }
        // Every balance a bonus answer showed is one the model passes through.
        let states: HashSet<i64> = (1..=DAYS).map(|d| (1..=d).map(|k| 10 * k).sum()).collect();
        for seen in &bonus_balances_seen[p] {
            assert!(
                states.contains(seen),
                "{p}: a bonus answer showed {seen} points, never a balance"
            );
        }
    }
    let counts = http.counts();
    eprintln!(
        "rewards under faults: {} players × {DAYS} days, {} requests, {} faults ({}), {retries} caller retries",
        PLAYERS,
        counts.requests(),
        counts.total(),
        counts.summary()
    );
    assert!(counts.total() > 0, "the schedule injected no fault");
}

/// Regression (the run above found it): a bonus claim whose commit landed but whose
/// answer was lost twice (a 503 to the app) was answered `claimed_now: false` on the
/// app's retry, as if another claim had paid. With the claim's `Idempotency-Key`,
/// the retry is answered as the claim it repeats.
#[tokio::test]
async fn a_bonus_claim_retried_after_its_reply_was_lost_is_answered_as_claimed_now() {
    let store = podium_tests::faults::Faulty::new(podium_tests::fixtures::embedded().await)
        .losing_replies(podium_service::engine::settle::MAX_SENDS);
    let ctx = ctx();
    let noon = day_noon(0);
    let key = [("Idempotency-Key", "app-claim-1")];
    let first = api::handle_with_headers(&store, &ctx, &bonus("lr-1"), &key, noon).await;
    assert_eq!(first.status, 503, "the reply was lost: {}", first.body);
    let retry = api::handle_with_headers(&store, &ctx, &bonus("lr-1"), &key, noon).await;
    assert_eq!(retry.status, 200, "{}", retry.body);
    assert_eq!(
        retry.body["claimed_now"], true,
        "the retry repeats the claim that paid"
    );
    assert_eq!(retry.body["points"], 10);
    // Another claim (another key, or none) is today's claim again.
    let other = api::handle_with_headers(
        &store,
        &ctx,
        &bonus("lr-1"),
        &[("Idempotency-Key", "app-claim-2")],
        noon,
    )
    .await;
    assert_eq!(other.body["claimed_now"], false);
    let keyless = api::handle(&store, &ctx, &bonus("lr-1"), noon).await;
    assert_eq!(keyless.body["claimed_now"], false);
    assert_eq!(
        store
            .inner
            .get_balance(Game::MahjongRivals, "lr-1")
            .await
            .expect("read")
            .map(|b| b.points),
        Some(10),
        "MJ-18: paid once"
    );
}

/// A malformed `Idempotency-Key` is refused naming the header, and nothing is claimed.
#[tokio::test]
async fn a_malformed_idempotency_key_is_refused_naming_the_header() {
    let store = podium_tests::fixtures::embedded().await;
    let ctx = ctx();
    let long = "k".repeat(65);
    for bad in ["", "has space", "semi;colon", long.as_str()] {
        let r = api::handle_with_headers(
            &store,
            &ctx,
            &bonus("ik-1"),
            &[("Idempotency-Key", bad)],
            day_noon(0),
        )
        .await;
        assert_eq!(r.status, 400, "{bad:?}: {}", r.body);
        assert!(
            r.body["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("Idempotency-Key"),
            "{bad:?}: {}",
            r.body
        );
    }
    let twice = api::handle_with_headers(
        &store,
        &ctx,
        &bonus("ik-1"),
        &[("Idempotency-Key", "a"), ("Idempotency-Key", "b")],
        day_noon(0),
    )
    .await;
    assert_eq!(twice.status, 400, "{}", twice.body);
    assert_eq!(
        store
            .get_balance(Game::MahjongRivals, "ik-1")
            .await
            .expect("read"),
        None
    );
}
