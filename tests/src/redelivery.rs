//! A record delivered again after its first delivery's transactions were cancelled
//! (GM-3): the redelivery keeps the delivery id (`sqs:{message id}`) and plans again
//! from the versions it reads, so each of its transactions has other items than the
//! first delivery's. It must score once, with the balances the rules compute from what
//! it read, never be refused as a conflict (a dead letter).

use podium_rules::game::Game;
use podium_service::games::seega::{score_delivery, Scored};
use podium_store::{LedgerStore, SettleStore};

use crate::faults::Faulty;
use crate::fixtures::{at, now, rout, seed_balance};

/// GM-3 (review fault 10): a match's first delivery (`sqs:m-1`) has two transactions
/// cancelled for real (a concurrent write moves the winner's balance before each) and
/// then stops; SQS delivers it again under the same id. The redelivery scores it once
/// (`applied`, not a conflict), from the balance it reads: the winner's 100 + 2 × 10
/// moved, + 311; the loser floored at 0 (SG-7); one ledger entry of the match each.
/// `store` must answer a `ClientRequestToken` reused with other items as DynamoDB
/// does (on DynamoDB Local, through the fault layer's token window).
pub async fn a_redelivery_after_cancelled_attempts_scores_once<S: SettleStore + LedgerStore + Clone>(
    store: S,
) {
    seed_balance(&store, "rd-alice", 100, 1_000).await;
    let r = rout("rd-1", "rd-alice", "rd-bob", at(0));
    let policy = Default::default();
    let first = Faulty::new(store.clone()).interrupting_commits("rd-alice", 2);
    let stopped = score_delivery(&first, &r, now(), &policy, "sqs:m-1").await;
    assert!(
        matches!(&stopped, Err(e) if e.is_unavailable()),
        "the first delivery stopped after two cancelled commits: {stopped:?}"
    );
    assert_eq!(
        first.interruptions_left(),
        0,
        "both commits were sent and cancelled"
    );
    let again = score_delivery(&store, &r, now(), &policy, "sqs:m-1").await;
    assert!(matches!(again, Ok(Scored::Applied(_))), "{again:?}");
    let other = score_delivery(&store, &r, now(), &policy, "sqs:m-2").await;
    assert!(matches!(other, Ok(Scored::Duplicate(_))), "{other:?}");
    let b = store
        .get_balances(Game::Seega, &["rd-alice", "rd-bob"])
        .await
        .expect("balances");
    assert_eq!((b[0].points, b[1].points), (120 + 311, 0));
    for p in ["rd-alice", "rd-bob"] {
        let ledger = store.ledger_entries(Game::Seega, p).await.expect("ledger");
        assert_eq!(
            ledger.iter().filter(|e| e.source_id == "rd-1").count(),
            1,
            "{p}: the match once"
        );
    }
}
