//! Review case 5: a DynamoDB endpoint that accepts connections and never answers.
//! Every path fails within the configured timeouts and takes the transient path:
//! the API answers 503, scoring reports the store unavailable (score-match leaves
//! the record for redelivery), the snapshot job fails for its schedule to retry.

use std::time::{Duration, Instant};

use podium_service::api::{self, ApiContext, ApiRequest};
use podium_service::jobs::{self, Job, ScheduledRun};
use podium_tests::contract::{cursor_key, score_match};
use podium_tests::fixtures::{at, dynamodb_at, now, rout, stalled_endpoint};

/// The bound: one operation timeout (800 ms) per store call a request makes in a
/// row, with room for a slow machine.
const BOUND: Duration = Duration::from_secs(5);

fn get(path: &str) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: Default::default(),
        player: Some("p-1".into()),
        operator: None,
        raw_query: None,
    }
}

#[tokio::test]
async fn a_stalled_store_fails_fast_and_transiently() {
    let store = dynamodb_at(&stalled_endpoint(), "podium").await;
    let ctx = ApiContext::new(cursor_key());
    for path in [
        "/v1/me",
        "/v1/me/matches/m-1",
        "/v1/leaderboards/seega",
        "/v1/leaderboards/seega/me",
        "/v1/leaderboards/mahjong-weekly",
    ] {
        let started = Instant::now();
        let answer = api::handle(&store, &ctx, &get(path), chrono::Utc::now()).await;
        let took = started.elapsed();
        assert_eq!(answer.status, 503, "{path}: {}", answer.body);
        assert_eq!(answer.body["error"], "unavailable");
        assert!(took < BOUND, "{path} took {took:?}");
    }
    let started = Instant::now();
    let err = score_match(&store, &rout("m-1", "a", "b", at(0)), now())
        .await
        .expect_err("no store");
    assert!(err.is_unavailable(), "{err:?}");
    assert!(!err.is_permanent(), "left for redelivery");
    assert!(started.elapsed() < BOUND, "{:?}", started.elapsed());
    let started = Instant::now();
    let run = ScheduledRun {
        job: Job::Refresh,
        scheduled_time: at(5),
    };
    assert!(jobs::handle(&store, run, &Default::default()).await.is_err());
    assert!(started.elapsed() < BOUND, "{:?}", started.elapsed());
}
