//! What the performance work must not change, run on both stores through the HTTP
//! API's code: top pages rendered once per snapshot are the pages a fresh render
//! gives, cost no store request while the snapshot is current, and follow a new
//! snapshot (LB-3, LB-5); settling many records at once gives what settling them one
//! at a time gives (GM-3).

use std::collections::HashMap;
use std::ops::ControlFlow;

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::seega::record::MatchRecord;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_service::boards::snapshot;
use podium_service::engine::keyed::run_keyed;
use podium_service::games::seega::{ordering_keys, score_delivery, Scored};
use podium_service::ServiceError;
use podium_store::{SettleStore, Store};

use crate::contract::{cursor_key, score_match};
use crate::counting::Counted;
use crate::fixtures::{at, now, rout, seed_balance};

fn top(limit: &str) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: "/v1/leaderboards/seega".into(),
        query: HashMap::from([("limit".to_string(), limit.to_string())]),
        player: Some("reader".into()),
        operator: None,
        raw_query: None,
    }
}

async fn call<S: Store + Clone + 'static>(store: &S, ctx: &ApiContext, req: &ApiRequest) -> ApiResponse {
    let answer = api::handle(store, ctx, req, chrono::Utc::now()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer
}

/// LB-5: the top page of a snapshot is rendered once per (board, period, snapshot,
/// limit); later requests are served from it without a store request and equal a
/// fresh render; another limit is its own page; a new snapshot replaces them.
pub async fn top_pages_are_rendered_once_per_snapshot<S: Store + Clone + 'static>(store: S) {
    let counted = Counted::new(store);
    for i in 0..30i64 {
        seed_balance(&counted, &format!("r{i:02}"), 10 * i, 1_000 + i).await;
    }
    let board = BoardRef::all_time("seega");
    snapshot::write::run(&counted, &board, "first", at(60), 7, None, at(60))
        .await
        .expect("snapshot");
    let ctx = ApiContext::new(cursor_key());
    let rendered = call(&counted, &ctx, &top("10")).await;
    assert_eq!(rendered.body["snapshot"], "first");
    let (reads, writes) = counted.counts();
    let again = call(&counted, &ctx, &top("10")).await;
    assert_eq!(
        counted.counts(),
        (reads, writes),
        "served without a store request"
    );
    assert_eq!(again, rendered);
    let fresh = call(&counted, &ApiContext::new(cursor_key()), &top("10")).await;
    assert_eq!(fresh, rendered, "the kept page is what a fresh render gives");
    let five = call(&counted, &ctx, &top("5")).await;
    assert_eq!(five.body["entries"].as_array().map(Vec::len), Some(5));
    assert_eq!(five.body["entries"][0], rendered.body["entries"][0]);

    // r00 climbs to the top; once the next snapshot is current, the page follows it.
    score_match(&counted, &rout("perf-m1", "r00", "r01", at(61)), now())
        .await
        .expect("scored");
    snapshot::write::run(&counted, &board, "second", at(62), 7, None, at(62))
        .await
        .expect("snapshot");
    ctx.cache.forget();
    let moved = call(&counted, &ctx, &top("10")).await;
    assert_eq!(moved.body["snapshot"], "second");
    assert_eq!(moved.body["entries"][0]["player_id"], "r00");
    assert_eq!(
        moved,
        call(&counted, &ApiContext::new(cursor_key()), &top("10")).await
    );
}

/// Declares one `#[tokio::test]` per performance case for a store made by `$make`.
/// Outcomes (by line) and final balances of scoring `lines` in order.
pub type ReplayOutcome = (Vec<String>, Vec<(String, i64)>);

/// The generated lines used by the replay cases: 400 matches among 40 players, with
/// the generator's duplicates, conflicts and refused records (GM-3, GM-5).
pub fn generated_lines() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    podium_generate::seega::generate(400, 40, 7, &mut out).expect("generate");
    out.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn outcome_name(outcome: &Result<Scored, ServiceError>) -> String {
    match outcome {
        Ok(Scored::Applied(r)) => format!("applied {:?} {:?}", r.status, r.players),
        Ok(Scored::Duplicate(r)) => format!("duplicate {:?}", r.players),
        Err(e) => format!("error {e}"),
    }
}

async fn balances<S: Store + ?Sized>(store: &S, players: usize) -> Vec<(String, i64)> {
    let ids: Vec<String> = (0..=players).map(|i| format!("p-{i:05}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    store
        .get_balances(Game::Seega, &refs)
        .await
        .expect("balances")
        .into_iter()
        .map(|b| (b.player_id, b.points))
        .collect()
}

/// Scores `lines` one at a time, in order: what every faster replay must equal.
pub async fn line_by_line<S: SettleStore + ?Sized>(store: &S, lines: &[Vec<u8>]) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let outcome = match MatchRecord::from_json(line) {
            Ok(record) => {
                score_delivery(store, &record, now(), &Default::default(), &format!("line-{n}")).await
            }
            Err(e) => Err(e.into()),
        };
        out.push(outcome_name(&outcome));
    }
    out
}

/// GM-3, LB-2: a replay that settles up to 32 records at once, keeping the file order
/// of records that share a player or a match id ([`run_keyed`]), ends with the outcome
/// of every line, and every balance, exactly as a line-by-line replay on a fresh store.
pub async fn concurrent_settlement_equals_line_by_line<S: Store + Clone + 'static>(store: S) {
    let lines = generated_lines();
    let reference = podium_store::embedded::EmbeddedStore::in_memory().expect("store");
    let expected = line_by_line(&reference, &lines).await;
    let expected_balances = balances(&reference, 40).await;

    let mut got = vec![String::new(); lines.len()];
    let jobs = lines.iter().enumerate().map(|(n, line)| {
        let record = MatchRecord::from_json(line);
        let keys = record.as_ref().map(ordering_keys).unwrap_or_default();
        (keys, (n, record))
    });
    let store = &store;
    run_keyed(
        jobs,
        32,
        |(n, record)| async move {
            let outcome = match record {
                Ok(record) => {
                    score_delivery(store, &record, now(), &Default::default(), &format!("line-{n}")).await
                }
                Err(e) => Err(e.into()),
            };
            (n, outcome_name(&outcome))
        },
        |_, (n, outcome)| {
            got[n] = outcome;
            ControlFlow::Continue(())
        },
    )
    .await;
    assert_eq!(got, expected);
    assert_eq!(balances(store, 40).await, expected_balances);
}

#[macro_export]
macro_rules! performance_tests {
    ($make:path) => {
        $crate::performance_tests!(@cases $make;
            top_pages_are_rendered_once_per_snapshot,
            concurrent_settlement_equals_line_by_line,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::performance::$case($make().await).await;
            }
        )*
    };
}
