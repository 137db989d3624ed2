//! The store contract suite on DynamoDB Local (started by `scripts/test`; these
//! tests fail, never skip, without it).

podium_tests::contract_tests!(podium_tests::fixtures::dynamodb);
podium_tests::review_tests!(podium_tests::fixtures::dynamodb);

/// Refresh snapshots' pages carry the TTL attribute (a day after `as_of`); a frozen
/// period's `final` pages never expire.
#[tokio::test]
async fn refresh_pages_expire_final_pages_do_not() {
    use aws_sdk_dynamodb::types::AttributeValue;
    use podium_rules::board::BoardRef;
    use podium_service::snapshot;

    let store = podium_tests::fixtures::dynamodb().await;
    podium_tests::fixtures::seed_balance(&store, "p1", 10, 1_000).await;
    let board = BoardRef::all_time("seega");
    let as_of = podium_tests::fixtures::at(0);
    snapshot::run(&store, &board, "refresh-1", as_of, 100, None)
        .await
        .expect("refresh");
    snapshot::run(&store, &board, "final", as_of, 100, None)
        .await
        .expect("final");
    let (client, table) = store.client_and_table();
    let ttl = |id: &'static str| async move {
        let out = client
            .query()
            .table_name(table)
            .key_condition_expression("pk = :p")
            .expression_attribute_values(":p", AttributeValue::S(format!("SNAP#seega@all#{id}")))
            .limit(1)
            .send()
            .await
            .expect("query");
        out.items()
            .first()
            .expect("page")
            .get(podium_store::dynamo::TTL_ATTRIBUTE)
            .cloned()
    };
    let expected = (as_of.timestamp() + snapshot::REFRESH_RETENTION_SECS).to_string();
    assert_eq!(ttl("refresh-1").await, Some(AttributeValue::N(expected)));
    assert_eq!(ttl("final").await, None);
}

/// GM-3 (review case 6): a transaction sent again unchanged, as after a lost reply,
/// is answered as the original success (its ClientRequestToken), writing nothing more.
#[tokio::test]
async fn a_resent_commit_is_the_original_success() {
    use podium_service::score::Scored;
    use podium_store::{CommitOutcome, LedgerStore, MatchCommit, ScoreStore};

    let store = podium_tests::fixtures::dynamodb().await;
    podium_tests::fixtures::seed_balance(&store, "alice", 100, 1_000).await;
    // Plan a commit as the scorer does, then send it twice.
    let r = podium_tests::fixtures::rout("m-token", "alice", "bob", podium_tests::fixtures::at(0));
    let capture = Capture::new(&store);
    let scored = podium_tests::contract::score_match(&capture, &r, podium_tests::fixtures::now())
        .await
        .expect("scored");
    assert!(matches!(scored, Scored::Applied(_)));
    let commit: MatchCommit = capture.last().expect("a commit was sent");
    assert_eq!(
        store.commit_match(&commit).await.expect("resend"),
        CommitOutcome::Committed
    );
    assert_eq!(
        store
            .ledger_entries(podium_rules::game::Game::Seega, "alice")
            .await
            .expect("ledger")
            .len(),
        2,
        "seed and match, once each"
    );
    let b = store
        .get_balances(podium_rules::game::Game::Seega, &["alice"])
        .await
        .expect("read");
    assert_eq!(b[0].points, 411, "applied once");
}

/// Passes through to a store and keeps the last commit sent.
struct Capture<'a> {
    inner: &'a podium_store::dynamo::DynamoStore,
    last: std::sync::Mutex<Option<podium_store::MatchCommit>>,
}

impl<'a> Capture<'a> {
    fn new(inner: &'a podium_store::dynamo::DynamoStore) -> Self {
        Capture {
            inner,
            last: std::sync::Mutex::new(None),
        }
    }
    fn last(&self) -> Option<podium_store::MatchCommit> {
        self.last.lock().expect("lock").clone()
    }
}

#[async_trait::async_trait]
impl podium_store::ResultStore for Capture<'_> {
    async fn get_match(
        &self,
        id: &str,
    ) -> Result<Option<podium_store::StoredMatch>, podium_store::StoreError> {
        self.inner.get_match(id).await
    }
}

#[async_trait::async_trait]
impl podium_store::ScoreStore for Capture<'_> {
    async fn get_balances(
        &self,
        game: podium_rules::game::Game,
        players: &[&str],
    ) -> Result<Vec<podium_store::Balance>, podium_store::StoreError> {
        self.inner.get_balances(game, players).await
    }
    async fn commit_match(
        &self,
        commit: &podium_store::MatchCommit,
    ) -> Result<podium_store::CommitOutcome, podium_store::StoreError> {
        *self.last.lock().expect("lock") = Some(commit.clone());
        self.inner.commit_match(commit).await
    }
}
