//! The delete-player function on its input, over the embedded store (GM-6).

use delete_player::{handle, DeleteRequest};
use podium_store::embedded::EmbeddedStore;
use podium_store::BoardStore;

/// GM-6: the operator's input deletes the player and answers a JSON summary; the
/// same input again answers `already_deleted`.
#[tokio::test]
async fn deletes_once_and_says_so_again() {
    let store = EmbeddedStore::in_memory().expect("store");
    podium_tests::fixtures::seed_balance(&store, "p-1", 500, 1_000).await;
    let input: DeleteRequest = serde_json::from_str(r#"{"player_id": "p-1"}"#).expect("input");
    let report = handle(&store, input.clone()).await.expect("deleted");
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["already_deleted"], false, "{json}");
    assert_eq!(json["balances"], 1, "{json}");
    assert_eq!(json["ledger_entries"], 1, "{json}");
    assert!(store
        .get_balance(podium_rules_game(), "p-1")
        .await
        .expect("read")
        .is_none());
    let again = handle(&store, input).await.expect("again");
    assert!(again.already_deleted);
    assert!(serde_json::from_str::<DeleteRequest>(r#"{"player": "p-1"}"#).is_err());
    let bad = DeleteRequest {
        player_id: "not an id".into(),
        even_if_unknown: false,
    };
    assert!(handle(&store, bad).await.is_err());
    // An id with nothing stored: refused as not found, nothing written, unless asked.
    let unknown: DeleteRequest = serde_json::from_str(r#"{"player_id": "p-typo"}"#).expect("input");
    let refused = handle(&store, unknown).await.expect_err("unknown");
    assert!(
        matches!(refused, podium_service::ServiceError::NotFound(_)),
        "{refused:?}"
    );
    assert!(!podium_service::operators::deletion::is_deleted(&store, "p-typo")
        .await
        .expect("read"));
    let ahead: DeleteRequest =
        serde_json::from_str(r#"{"player_id": "p-typo", "even_if_unknown": true}"#).expect("input");
    assert!(
        !handle(&store, ahead)
            .await
            .expect("blocked ahead")
            .already_deleted
    );
    assert!(podium_service::operators::deletion::is_deleted(&store, "p-typo")
        .await
        .expect("read"));
}

fn podium_rules_game() -> podium_rules::game::Game {
    podium_rules::game::Game::Seega
}
