//! The support console's read model on both stores: a player's overview (balances,
//! SG-12 rank, ledger with nominal and applied deltas, balance series, matches,
//! places on the boards, live and from a snapshot), and the operator routes' identity
//! checks (401 without any, 403 for a player) and 404 for an unknown player.

use std::collections::HashMap;

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::seega::rank::rank_for;
use podium_service::api::{self, ApiContext, ApiRequest};
use podium_service::boards::pages::SnapshotCache;
use podium_service::boards::snapshot;
use podium_service::operators::console::{self, PlayerOverview};
use podium_service::ServiceError;
use podium_store::Store;

use crate::contract::{cursor_key, score_match};
use crate::counting::Counted;
use crate::fixtures::{at, close_loss, now, rout};

/// o-alice beats o-bob 24–0 (+311 / −123, floored to 0: SG-7), then o-bob beats
/// o-alice 24–12 (+287 / −75).
async fn two_matches<S: Store + ?Sized>(store: &S) {
    score_match(store, &rout("o-1", "o-alice", "o-bob", at(0)), now())
        .await
        .expect("scored");
    score_match(store, &close_loss("o-2", "o-bob", "o-alice", at(10)), now())
        .await
        .expect("scored");
}

fn get(path: &str, player: Option<&str>, operator: Option<&str>) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: HashMap::new(),
        raw_query: None,
        player: player.map(str::to_string),
        operator: operator.map(str::to_string),
    }
}

fn seega(o: &PlayerOverview) -> &console::GameOverview {
    o.games.iter().find(|g| g.game == Game::Seega).expect("seega")
}

fn seega_place(o: &PlayerOverview) -> Option<u64> {
    o.boards
        .iter()
        .find(|b| b.board == "seega")
        .expect("the seega board")
        .rank
}

/// The overview's values follow from the ledger: balance, SG-12 rank and badge, the
/// ledger rows (nominal vs applied, balance after, instant, rule), the series, the
/// matches newest first and the place on every board, from the live board and then
/// from a snapshot.
pub async fn overview_values<S: Store + Clone + 'static>(store: S) {
    two_matches(&store).await;
    let cache = SnapshotCache::default();
    let alice = console::player_overview(&store, &cache, "o-alice", now())
        .await
        .expect("overview");
    assert_eq!(alice.player_id, "o-alice");
    assert_eq!(
        alice.games.iter().map(|g| g.game).collect::<Vec<_>>(),
        console::GAMES.to_vec()
    );
    let s = seega(&alice);
    assert_eq!(s.balance, Some(236));
    assert_eq!(s.balance_shown.as_deref(), Some("236"));
    let rank = s.rank.as_ref().expect("Seega has SG-12 ranks");
    assert_eq!(
        (rank.rank_id, rank.badge),
        (rank_for(236).id, rank_for(236).badge)
    );
    let rows: Vec<_> = s
        .ledger
        .iter()
        .map(|e| {
            (
                e.source.as_str(),
                e.source_id.as_str(),
                e.rule.as_str(),
                e.nominal,
                e.applied,
                e.balance_after,
                e.at,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("match", "o-1", "SG-2", 311, 311, 311, at(0)),
            ("match", "o-2", "SG-3", -75, -75, 236, at(10)),
        ]
    );
    // The series: the balance after each entry at the instant it was settled (both
    // matches were settled at the tests' server clock), in settlement order.
    assert_eq!(
        s.series.iter().map(|p| (p.at_ms, p.balance)).collect::<Vec<_>>(),
        vec![(now().timestamp_millis(), 311), (now().timestamp_millis(), 236)]
    );
    assert_eq!(
        s.ledger.iter().map(|r| (r.seq, r.settled_at)).collect::<Vec<_>>(),
        vec![(1, Some(now())), (2, Some(now()))]
    );
    let mahjong = alice
        .games
        .iter()
        .find(|g| g.game == Game::MahjongRivals)
        .expect("mahjong");
    assert_eq!((mahjong.balance, mahjong.ledger.len()), (None, 0));
    assert!(mahjong.rank.is_none(), "SG-12 ranks are Seega's");
    let matches = serde_json::to_value(&alice.matches).expect("json");
    assert_eq!(matches[0]["match_id"], "o-2");
    assert_eq!(matches[1]["match_id"], "o-1");
    assert_eq!(matches.as_array().map(Vec::len), Some(2));
    assert_eq!(seega_place(&alice), Some(2), "287 (o-bob) is above 236");
    assert_eq!(alice.boards.len(), podium_rules::board::BOARDS.len());
    assert!(alice
        .boards
        .iter()
        .filter(|b| b.board != "seega")
        .all(|b| b.rank.is_none()));

    // o-bob's first loss was cut by the floor: nominal −123, applied 0 (SG-7).
    let bob = console::player_overview(&store, &cache, "o-bob", now())
        .await
        .expect("overview");
    let first = &seega(&bob).ledger[0];
    assert_eq!(
        (first.nominal, first.applied, first.balance_after, first.floored),
        (-123, 0, 0, true)
    );
    assert_eq!(seega(&bob).balance, Some(287));
    assert_eq!(seega_place(&bob), Some(1));

    // From a snapshot, the same places.
    snapshot::write::run(
        &store,
        &BoardRef::all_time("seega"),
        "op",
        at(60),
        100,
        None,
        at(60),
    )
    .await
    .expect("snapshot");
    let cache = SnapshotCache::default();
    let alice = console::player_overview(&store, &cache, "o-alice", now())
        .await
        .expect("overview");
    assert_eq!(seega_place(&alice), Some(2));
    // What an overview costs, counted (reads as DynamoDB requests, on a cold cache):
    // a change must not raise it unnoticed.
    let counted = Counted::new(store.clone());
    let cold = SnapshotCache::default();
    console::player_overview(&counted, &cold, "o-alice", now())
        .await
        .expect("overview");
    assert_eq!(
        counted.counts(),
        (OVERVIEW_READS, 0),
        "reads, writes of one overview"
    );
}

/// Requests one operator overview of a player with two matches makes, on a cold
/// snapshot cache: each of the four games' balance and ledger (8), the place on
/// each of the six boards (12: the board's pointer and the player's live entry; the
/// snapshot's first page travels with its pointer), the profile card and the
/// suspension (2), and each match's result (4: the record and its players' cards,
/// one batch read).
const OVERVIEW_READS: u64 = 26;

/// The operator routes: 401 without any identity, 403 for a plain player, 404 for
/// an unknown or malformed player id; the board route answers the player-facing
/// page's body.
pub async fn operator_routes_check_the_caller<S: Store + Clone + 'static>(store: S) {
    two_matches(&store).await;
    let ctx = ApiContext::new(cursor_key());
    let player = "/v1/operator/players/o-alice";
    let board = "/v1/operator/leaderboards/seega";
    for path in [player, board] {
        let none = api::handle(&store, &ctx, &get(path, None, None), now()).await;
        assert_eq!(
            (none.status, none.body["error"].as_str()),
            (401, Some("unauthenticated"))
        );
        let plain = api::handle(&store, &ctx, &get(path, Some("o-alice"), None), now()).await;
        assert_eq!(
            (plain.status, plain.body["error"].as_str()),
            (403, Some("forbidden"))
        );
    }
    let ok = api::handle(&store, &ctx, &get(player, None, Some("support")), now()).await;
    assert_eq!(ok.status, 200, "{:?}", ok.body);
    assert_eq!(ok.body["games"][0]["game"], "seega");
    assert_eq!(ok.body["games"][0]["balance"], 236);
    assert_eq!(ok.body["games"][0]["ledger"][1]["applied"], -75);
    let missing = api::handle(
        &store,
        &ctx,
        &get("/v1/operator/players/o-nobody", None, Some("support")),
        now(),
    )
    .await;
    assert_eq!(
        (missing.status, missing.body["error"].as_str()),
        (404, Some("not_found"))
    );
    // GM-5: an id no player can have is refused by name, not looked up.
    let malformed = api::handle(
        &store,
        &ctx,
        &get("/v1/operator/players/bad%20id!", None, Some("support")),
        now(),
    )
    .await;
    assert_eq!(
        (malformed.status, malformed.body["error"].as_str()),
        (400, Some("invalid"))
    );
    assert!(malformed.body["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("player_id (GM-5)")));
    let err = console::player_overview(&store, &ctx.cache, "o-nobody", now())
        .await
        .expect_err("unknown");
    assert!(matches!(err, ServiceError::NotFound(_)), "{err:?}");

    let page = api::handle(&store, &ctx, &get(board, None, Some("support")), now()).await;
    let theirs = api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/seega", Some("o-alice"), None),
        now(),
    )
    .await;
    assert_eq!(page.status, 200, "{:?}", page.body);
    assert_eq!(page.body, theirs.body, "the same page as the players'");
    assert_eq!(page.body["entries"][0]["player_id"], "o-bob");
    assert_eq!(page.body["entries"][1]["rank"], 2);
}

#[macro_export]
macro_rules! operator_tests {
    ($make:path) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn operator_overview_values() {
            $crate::operator::overview_values($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn operator_routes_check_the_caller() {
            $crate::operator::operator_routes_check_the_caller($make().await).await;
        }
    };
}
