//! A record delivered again after its first delivery's transactions were cancelled
//! (GM-3): the redelivery keeps the delivery id (`sqs:{message id}`) and plans again
//! from the versions it reads, so each of its transactions has other items than the
//! first delivery's. It must score once, with the balances the rules compute from what
//! it read, never be refused as a conflict (a dead letter).

use std::sync::atomic::{AtomicU32, Ordering};

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_service::games::seega::{score_delivery, Scored};
use podium_store::{
    Balance, Claim, Commit, CommitOutcome, LedgerStore, SettleStore, SourceKey, SourceStore, State,
    StoreError, StoredSource,
};

use crate::fixtures::{at, now, rout, seed_balance};

/// `inner`, whose next `cancelled` commits each find `player`'s Seega balance moved by
/// a concurrent write (10 points more) just before they reach the store, which then
/// cancels them for real (the version they condition on moved); after those, the
/// delivery has stopped (a function that timed out): every later commit fails as
/// unavailable, nothing sent.
pub struct Interrupted<S> {
    pub inner: S,
    player: String,
    cancelled: AtomicU32,
}

impl<S> Interrupted<S> {
    pub fn new(inner: S, player: &str, cancelled: u32) -> Self {
        Interrupted {
            inner,
            player: player.to_string(),
            cancelled: AtomicU32::new(cancelled),
        }
    }
}

#[async_trait]
impl<S: SourceStore> SourceStore for Interrupted<S> {
    async fn get_source(&self, key: &SourceKey) -> Result<Option<StoredSource>, StoreError> {
        self.inner.get_source(key).await
    }
}

#[async_trait]
impl<S: SettleStore> SettleStore for Interrupted<S> {
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        self.inner.get_balances(game, players).await
    }
    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.inner.get_entry(board, player_id).await
    }
    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError> {
        self.inner.get_state(player_id, name).await
    }
    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError> {
        self.inner.get_claim(player_id, game, kind, day).await
    }
    async fn account(&self, player_id: &str) -> Result<podium_store::Account, StoreError> {
        self.inner.account(player_id).await
    }
    async fn commit(&self, commit: &Commit) -> Result<CommitOutcome, StoreError> {
        if self
            .cancelled
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_err()
        {
            return Err(StoreError::Unavailable {
                operation: "TransactWriteItems",
                message: "the delivery stopped (injected)".into(),
            });
        }
        let b = &self.inner.get_balances(Game::Seega, &[&self.player]).await?[0];
        seed_balance(&self.inner, &self.player, b.points + 10, b.reached_at_ms + 1).await;
        self.inner.commit(commit).await
    }
}

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
    let first = Interrupted::new(store.clone(), "rd-alice", 2);
    let stopped = score_delivery(&first, &r, now(), &policy, "sqs:m-1").await;
    assert!(
        matches!(&stopped, Err(e) if e.is_unavailable()),
        "the first delivery stopped after two cancelled commits: {stopped:?}"
    );
    assert_eq!(
        first.cancelled.load(Ordering::SeqCst),
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
