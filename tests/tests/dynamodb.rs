//! The store contract suite on DynamoDB Local (started by `scripts/test`; these
//! tests fail, never skip, without it).

podium_tests::contract_tests!(podium_tests::fixtures::dynamodb);

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
            .get_item()
            .table_name(table)
            .key("pk", AttributeValue::S(format!("SNAP#seega@all#{id}")))
            .key("sk", AttributeValue::S("PAGE#000000".into()))
            .send()
            .await
            .expect("get");
        out.item
            .expect("page")
            .get(podium_store::dynamo::TTL_ATTRIBUTE)
            .cloned()
    };
    let expected = (as_of.timestamp() + snapshot::REFRESH_RETENTION_SECS).to_string();
    assert_eq!(ttl("refresh-1").await, Some(AttributeValue::N(expected)));
    assert_eq!(ttl("final").await, None);
}
