//! A board that does not exist answers 404 naming it on every route that reads one
//! (its page, around-me, the friends view, an operator's page), never 200 with no
//! entries; a board that exists but is empty answers 200 (LB-1, MJ-1, MJ-16).

use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_store::Store;

use crate::contract::cursor_key;
use crate::deletion::t;

async fn read<S: Store + Clone + 'static>(store: &S, path: &str, operator: bool) -> ApiResponse {
    let req = ApiRequest {
        method: "GET".into(),
        path: path.into(),
        player: (!operator).then(|| "ub-1".to_string()),
        operator: operator.then(|| "support-7".to_string()),
        ..Default::default()
    };
    api::handle(
        store,
        &ApiContext::new(cursor_key()),
        &req,
        t("2027-07-14T17:00:00Z"),
    )
    .await
}

/// MJ-16: the standings of a tournament nobody configured are no board: its page,
/// around-me, friends view and operator page answer 404 naming the board, as do a
/// level outside 1–11,000 (0 and 11,001) and an unknown name; once the tournament is
/// configured, its empty standings' page and friends view answer 200, as do a level
/// of MJ-1 with no completion yet.
pub async fn an_unknown_board_is_404_on_every_route<S: Store + Clone + 'static>(store: S) {
    let routes = |board: &str| {
        [
            (format!("/v1/leaderboards/{board}"), false),
            (format!("/v1/leaderboards/{board}/me"), false),
            (format!("/v1/leaderboards/{board}/friends"), false),
            (format!("/v1/operator/leaderboards/{board}"), true),
        ]
    };
    for board in [
        "mahjong-tournament-no-such-cup",
        "mahjong-level-0",
        "mahjong-level-11001",
        "chess",
    ] {
        for (path, operator) in routes(board) {
            let answer = read(&store, &path, operator).await;
            assert_eq!(answer.status, 404, "{path}: {}", answer.body);
            let message = answer.body["message"].as_str().unwrap_or_default();
            assert!(message.contains(board), "{path}: {message}");
        }
    }
    podium_service::games::tournaments::configure(
        &store,
        &crate::tournaments::cup("ub-cup", 2, false),
        "ub-config",
        t("2027-07-14T12:00:00Z"),
    )
    .await
    .expect("configured");
    for board in ["mahjong-tournament-ub-cup", "mahjong-level-999"] {
        let page = read(&store, &format!("/v1/leaderboards/{board}"), false).await;
        assert_eq!(page.status, 200, "{board}: {}", page.body);
        assert_eq!(page.body["entries"], serde_json::json!([]), "{board}");
        let friends = read(&store, &format!("/v1/leaderboards/{board}/friends"), false).await;
        assert_eq!(friends.status, 200, "{board}: {}", friends.body);
    }
}

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! unknown_boards_tests {
    ($make:path) => {
        $crate::unknown_boards_tests!(@cases $make; an_unknown_board_is_404_on_every_route,);
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::unknown_boards::$case($make().await).await;
            }
        )*
    };
}
