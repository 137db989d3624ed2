//! The store contract suite on the embedded store.

podium_tests::contract_tests!(podium_tests::fixtures::embedded);
podium_tests::review_tests!(podium_tests::fixtures::embedded);
podium_tests::performance_tests!(podium_tests::fixtures::embedded);
podium_tests::rewards_tests!(podium_tests::fixtures::embedded);

/// GM-3: a replay's group commit on the embedded store (records settled one after
/// another inside shared write transactions, 100 to a batch) ends with the outcome of
/// every line and every balance exactly as a line-by-line replay; a batch dropped
/// before it finishes writes nothing.
#[tokio::test]
async fn batched_settlement_equals_line_by_line() {
    use podium_store::embedded::EmbeddedStore;
    use podium_tests::performance::{generated_lines, line_by_line};

    let lines = generated_lines();
    let reference = EmbeddedStore::in_memory().expect("store");
    let expected = line_by_line(&reference, &lines).await;

    let store = EmbeddedStore::in_memory().expect("store");
    let dropped = store.begin_batch().expect("batch");
    let _ = line_by_line(&dropped, &lines[..50]).await;
    drop(dropped);
    let mut got = Vec::new();
    for chunk in lines.chunks(100) {
        let batch = store.begin_batch().expect("batch");
        got.extend(line_by_line(&batch, chunk).await);
        batch.finish().expect("durable");
    }
    assert_eq!(got, expected, "nothing of the dropped batch was written");
}
podium_tests::mahjong_tests!(podium_tests::fixtures::embedded);
podium_tests::tournament_tests!(podium_tests::fixtures::embedded);
podium_tests::dots_and_boxes_tests!(podium_tests::fixtures::embedded);
podium_tests::operator_tests!(podium_tests::fixtures::embedded);
podium_tests::deletion_tests!(podium_tests::fixtures::embedded);
podium_tests::point_history_tests!(podium_tests::fixtures::embedded);
podium_tests::standing_tests!(podium_tests::fixtures::embedded);
podium_tests::period_close_tests!(podium_tests::fixtures::embedded);
podium_tests::league_tests!(podium_tests::fixtures::embedded);
podium_tests::messages_tests!(podium_tests::fixtures::embedded);
podium_tests::overtaken_tests!(podium_tests::fixtures::embedded);
podium_tests::catch_up_tests!(podium_tests::fixtures::embedded, with_400_days);
podium_tests::commit_items_tests!(podium_tests::fixtures::embedded);
podium_tests::profile_tests!(podium_tests::fixtures::embedded);
podium_tests::caching_tests!(podium_tests::fixtures::embedded);
podium_tests::moderation_tests!(podium_tests::fixtures::embedded);
