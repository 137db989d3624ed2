//! Messages sent by the commit path (SG-12, GM-3) on both stores: a balance reaching a
//! higher rank sends the player one `rank_up` message in the same commit as the points,
//! whatever the duplicate deliveries; falling back and climbing again by another match
//! is another cause, and another message.

use futures::future::join_all;
use podium_service::api::{self, ApiContext};
use podium_store::Store;
use serde_json::Value;

use crate::contract::{cursor_key, score_match};
use crate::fixtures::{at, now, rout, seed_balance};
use crate::review::get;

async fn rank_ups<S: Store + Clone + 'static>(store: &S, player: &str) -> Vec<Value> {
    let answer = api::handle(
        store,
        &ApiContext::new(cursor_key()),
        &get("/v1/me/inbox", &[], player),
        now(),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["kind"] == "rank_up")
        .cloned()
        .collect()
}

/// SG-12, GM-3: carol at 4,900 wins (+ several hundred): one `rank_up` to sergeant,
/// however many deliveries of that match, four of them at once; her opponent, who
/// fell, gets none. A later win that does not change her rank sends nothing.
pub async fn sg_12_rank_up_is_sent_once_per_cause<S: Store + Clone + 'static>(store: S) {
    seed_balance(&store, "carol", 4_900, 1_000).await;
    seed_balance(&store, "dave", 6_000, 1_000).await;
    let record = rout("m-up", "carol", "dave", at(0));
    let deliveries = join_all((0..4).map(|_| score_match(&store, &record, now()))).await;
    assert!(deliveries.iter().all(Result::is_ok), "{deliveries:?}");
    score_match(&store, &record, now()).await.expect("again");
    let ups = rank_ups(&store, "carol").await;
    assert_eq!(ups.len(), 1, "{ups:?}");
    let m = &ups[0];
    assert_eq!(m["id"], "ru:match:m-up");
    assert_eq!(
        (
            m["rank_up"]["rank_id"].as_str(),
            m["rank_up"]["from_rank_id"].as_str()
        ),
        (Some("sergeant"), Some("member"))
    );
    assert_eq!(m["rank_up"]["badge"], "2 stars");
    let balance = store
        .get_balances(podium_rules::game::Game::Seega, &["carol"])
        .await
        .expect("read")[0]
        .points;
    assert_eq!(
        m["value"].as_i64(),
        Some(balance),
        "the balance the rank was reached with"
    );
    assert!(
        rank_ups(&store, "dave").await.is_empty(),
        "no message for falling"
    );
    score_match(&store, &rout("m-same", "carol", "dave", at(1)), now())
        .await
        .expect("scored");
    assert_eq!(rank_ups(&store, "carol").await.len(), 1, "same rank: nothing new");
}

#[macro_export]
macro_rules! messages_tests {
    ($make:path) => {
        $crate::messages_tests!(@cases $make;
            sg_12_rank_up_is_sent_once_per_cause,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::messages::$case($make().await).await;
            }
        )*
    };
}
