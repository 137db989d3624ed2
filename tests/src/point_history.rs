//! The point history (`GET /v1/me/ledger`, GM-4) on both stores, through the HTTP
//! API's code: every ledger entry listed once, newest first, across pages; rule ids,
//! the SG-7 floor and the DISP values as the rules give them; cursors bound to their
//! player and game; an erased player's history moved whole to their pseudonym (GM-6).

use podium_rules::game::Game;
use podium_rules::settlement::LedgerEntry;
use podium_service::api::{self, ApiRequest, ApiResponse};
use podium_store::{ErasureStore, LedgerPosition, Store};
use serde_json::Value;

use crate::contract::score_match;
use crate::fixtures::{at, now, rout, seed_balance};
use crate::rewards::{admob, callback, ctx};

fn history(player: &str, query: &[(&str, &str)]) -> ApiRequest {
    get_as(player, "/v1/me/ledger", query)
}

fn get_as(player: &str, path: &str, query: &[(&str, &str)]) -> ApiRequest {
    crate::review::get(path, query, player)
}

async fn get<S: Store + Clone + 'static>(store: &S, req: &ApiRequest) -> ApiResponse {
    api::handle(store, &ctx(), req, now()).await
}

/// Every page of `player`'s history of `game`, `limit` at a time.
async fn walk<S: Store + Clone + 'static>(store: &S, player: &str, game: &str, limit: usize) -> Vec<Value> {
    let limit = limit.to_string();
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1_000 {
        let mut q = vec![("game", game), ("limit", limit.as_str())];
        if let Some(c) = cursor.as_deref() {
            q.push(("cursor", c));
        }
        let page = get(store, &history(player, &q)).await;
        assert_eq!(page.status, 200, "{}", page.body);
        let entries = page.body["entries"].as_array().expect("entries").clone();
        assert!(
            entries.len() <= limit.parse().unwrap_or(0),
            "a page holds at most `limit`"
        );
        out.extend(entries);
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return out,
        }
    }
    panic!("the walk did not end");
}

/// Newest settled first (settlement order, then source, then source id, descending),
/// as the history lists.
fn newest_first(mut entries: Vec<LedgerEntry>) -> Vec<LedgerEntry> {
    entries.sort_by_key(|e| std::cmp::Reverse(LedgerPosition::of(e).index_key(e.game)));
    entries
}

/// GM-4, SG-2, SG-3, SG-7, SG-10, DISP-4: a walk of the caller's history in pages of
/// 3 meets every ledger entry exactly once, newest first; each names its rule, shows
/// its deltas by DISP, says when the floor cut it, and links a match to its result
/// (which the caller can open); the applied deltas sum to the balance.
pub async fn gm_4_history_lists_every_entry_newest_first_once<S: Store + Clone + 'static>(store: S) {
    seed_balance(&store, "carol", 50, 1_000).await;
    seed_balance(&store, "dave", 10, 1_000).await;
    for i in 0..4 {
        let (w, l) = if i % 2 == 0 {
            ("dave", "carol")
        } else {
            ("carol", "dave")
        };
        score_match(&store, &rout(&format!("m-h{i}"), w, l, at(i)), now())
            .await
            .expect("scored");
    }
    let paid = get(
        &store,
        &callback("/v1/ad-callbacks/admob", &admob("1111", "txn-h1", "carol", now())),
    )
    .await;
    assert_eq!(paid.status, 200, "{}", paid.body);

    let stored = newest_first(store.ledger_entries(Game::Seega, "carol").await.expect("ledger"));
    assert_eq!(stored.len(), 6, "the seed, four matches, one ad");
    for limit in [1, 3, 6, 100] {
        let walked = walk(&store, "carol", "seega", limit).await;
        let ids: Vec<(&str, &str)> = walked
            .iter()
            .map(|e| {
                (
                    e["source"].as_str().unwrap_or(""),
                    e["source_id"].as_str().unwrap_or(""),
                )
            })
            .collect();
        let expected: Vec<(&str, &str)> = stored
            .iter()
            .map(|e| (e.source.as_str(), e.source_id.as_str()))
            .collect();
        assert_eq!(ids, expected, "limit {limit}: every entry once, newest first");
    }
    let walked = walk(&store, "carol", "seega", 3).await;
    let sum: i64 = walked.iter().map(|e| e["applied"].as_i64().unwrap_or(0)).sum();
    let balance = store.get_balances(Game::Seega, &["carol"]).await.expect("read")[0].points;
    assert_eq!(sum, balance, "GM-4: the applied deltas sum to the balance");
    assert_eq!(
        walked[0]["balance_after"].as_i64(),
        Some(balance),
        "the newest entry ends at the balance"
    );

    let by_id = |id: &str| {
        walked
            .iter()
            .find(|e| e["source_id"] == id)
            .expect("listed")
            .clone()
    };
    let loss = by_id("m-h0");
    assert_eq!(loss["rule"], "SG-3");
    assert_eq!(
        (loss["nominal"].as_i64(), loss["applied"].as_i64()),
        (Some(-123), Some(-50))
    );
    assert_eq!(loss["floored"], true, "SG-7 cut it");
    assert_eq!(
        (loss["nominal_shown"].as_str(), loss["applied_shown"].as_str()),
        (Some("−123"), Some("−50"))
    );
    assert_eq!(loss["result"], "/v1/me/matches/m-h0");
    let win = by_id("m-h1");
    assert_eq!(
        (win["rule"].as_str(), win["floored"].as_bool()),
        (Some("SG-2"), Some(false))
    );
    let opened = get(
        &store,
        &get_as("carol", win["result"].as_str().unwrap_or(""), &[]),
    )
    .await;
    assert_eq!(opened.status, 200, "the linked result opens: {}", opened.body);
    let ad = by_id("admob:txn-h1");
    assert_eq!(
        (ad["source"].as_str(), ad["rule"].as_str()),
        (Some("ad"), Some("SG-10"))
    );
    assert_eq!(ad["applied_shown"], "+40");
    assert!(ad.get("result").is_none(), "an ad has no result to link");
    let seed = walked
        .iter()
        .find(|e| e["source"] == "seed")
        .expect("the seed listed");
    assert_eq!(
        seed["rule"], "GM-4",
        "an entry without a rule: its source's (unknown here)"
    );

    // Another game's history is its own; a player with none gets an empty page.
    let other = get(&store, &history("carol", &[("game", "mahjong-rivals")])).await;
    assert_eq!(other.status, 200);
    assert_eq!(other.body["entries"], serde_json::json!([]));
    assert!(other.body["next_cursor"].is_null());
}

/// LB-3's cursor rules, for the history: a cursor opens only for the player and game
/// it was issued to, unaltered; a board's cursor is refused; a missing or unknown
/// game and an out-of-range limit are 400s naming the parameter. Nothing is a 5xx.
pub async fn history_cursors_are_bound_to_their_player_and_game<S: Store + Clone + 'static>(store: S) {
    seed_balance(&store, "carol", 500, 1_000).await;
    for i in 0..3 {
        score_match(&store, &rout(&format!("m-c{i}"), "carol", "dave", at(i)), now())
            .await
            .expect("scored");
    }
    let first = get(&store, &history("carol", &[("game", "seega"), ("limit", "1")])).await;
    let cursor = first.body["next_cursor"]
        .as_str()
        .expect("more pages")
        .to_string();
    let refused = |r: &ApiResponse, field: &str| {
        assert_eq!(r.status, 400, "{}", r.body);
        assert!(
            r.body["message"].as_str().unwrap_or("").starts_with(field),
            "names {field}: {}",
            r.body
        );
    };
    // dave played the same matches: carol's cursor is not his.
    let theirs = get(
        &store,
        &history("dave", &[("game", "seega"), ("cursor", &cursor)]),
    )
    .await;
    refused(&theirs, "cursor");
    let other_game = get(
        &store,
        &history("carol", &[("game", "minesweeper"), ("cursor", &cursor)]),
    )
    .await;
    refused(&other_game, "cursor");
    let mut altered = cursor.clone();
    altered.replace_range(5..6, if &cursor[5..6] == "A" { "B" } else { "A" });
    refused(
        &get(
            &store,
            &history("carol", &[("game", "seega"), ("cursor", &altered)]),
        )
        .await,
        "cursor",
    );
    let board = get(
        &store,
        &get_as("carol", "/v1/leaderboards/seega", &[("limit", "1")]),
    )
    .await;
    let board_cursor = board.body["next_cursor"]
        .as_str()
        .expect("a board cursor")
        .to_string();
    refused(
        &get(
            &store,
            &history("carol", &[("game", "seega"), ("cursor", &board_cursor)]),
        )
        .await,
        "cursor",
    );
    refused(&get(&store, &history("carol", &[])).await, "game");
    refused(
        &get(&store, &history("carol", &[("game", "chess")])).await,
        "game",
    );
    for limit in ["0", "101", "-1", "x"] {
        refused(
            &get(&store, &history("carol", &[("game", "seega"), ("limit", limit)])).await,
            "limit",
        );
    }
    let anonymous = ApiRequest {
        player: None,
        ..history("carol", &[("game", "seega")])
    };
    assert_eq!(get(&store, &anonymous).await.status, 401);
    // The cursor still opens for its owner.
    let next = get(
        &store,
        &history("carol", &[("game", "seega"), ("cursor", &cursor)]),
    )
    .await;
    assert_eq!(next.status, 200);
    assert_eq!(
        next.body["entries"].as_array().map(Vec::len),
        Some(3),
        "the rest: three of the four"
    );
}

/// GM-6: erasing a player moves their whole history to the pseudonym, in the same
/// order; the player's own history is empty afterwards, and erasing again changes nothing.
pub async fn gm_6_erasure_moves_the_history<S: Store + ErasureStore + Clone + 'static>(store: S) {
    seed_balance(&store, "erin", 300, 1_000).await;
    for i in 0..3 {
        score_match(&store, &rout(&format!("m-e{i}"), "erin", "dave", at(i)), now())
            .await
            .expect("scored");
    }
    let before = store
        .ledger_page(Game::Seega, "erin", None, 100)
        .await
        .expect("page");
    assert_eq!(before.len(), 4);
    for _ in 0..2 {
        store.erase_holdings("erin", "anon-1").await.expect("erased");
    }
    assert!(store
        .ledger_page(Game::Seega, "erin", None, 100)
        .await
        .expect("page")
        .is_empty());
    let moved = store
        .ledger_page(Game::Seega, "anon-1", None, 100)
        .await
        .expect("page");
    let ids = |v: &[LedgerEntry]| v.iter().map(|e| e.source_id.clone()).collect::<Vec<_>>();
    let renamed: Vec<String> = ids(&before)
        .iter()
        .map(|id| id.replace("erin", "anon-1"))
        .collect();
    assert_eq!(
        ids(&moved),
        renamed,
        "the same entries in the same order (ids naming erin renamed)"
    );
    assert!(moved.iter().all(|e| e.player_id == "anon-1"));
    assert!(
        store
            .ledger_page(Game::Seega, "anon-1", None, 0)
            .await
            .expect("page")
            .is_empty(),
        "limit 0 reads nothing"
    );
}

/// GM-4, SG-7 (review round 3, fault 8): records that arrive late, dated before
/// entries settled earlier, are listed where they were settled: the history and the
/// console's ledger read in one order, each entry's `balance_after` minus its `applied`
/// is the previous entry's `balance_after` (no sawtooth), both instants are shown, and
/// the console's series follows the balance as it was, in settlement order.
pub async fn gm_4_late_records_read_in_settlement_order<S: Store + Clone + 'static>(store: S) {
    seed_balance(&store, "lena", 10, 1_000).await;
    // On time: a win at 30, a loss at 40; then, late, a loss dated 5 (floored: SG-7)
    // and a win dated 0.
    score_match(&store, &rout("m-l30", "lena", "dave", at(30)), now())
        .await
        .expect("scored");
    score_match(&store, &rout("m-l40", "dave", "lena", at(40)), now())
        .await
        .expect("scored");
    for _ in 0..2 {
        score_match(&store, &rout("m-l05", "dave", "lena", at(5)), now())
            .await
            .expect("scored");
        score_match(&store, &rout("m-l05b", "dave", "lena", at(6)), now())
            .await
            .expect("scored");
    }
    score_match(&store, &rout("m-l00", "lena", "dave", at(0)), now())
        .await
        .expect("scored");
    let walked = walk(&store, "lena", "seega", 2).await;
    let ids: Vec<&str> = walked
        .iter()
        .map(|e| e["source_id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        &ids[..5],
        ["m-l00", "m-l05b", "m-l05", "m-l40", "m-l30"],
        "newest settled first, whatever the events' instants"
    );
    let balance = store.get_balances(Game::Seega, &["lena"]).await.expect("read")[0].points;
    assert_eq!(walked[0]["balance_after"].as_i64(), Some(balance));
    for pair in walked.windows(2) {
        let (newer, older) = (&pair[0], &pair[1]);
        assert_eq!(
            newer["balance_after"].as_i64().unwrap_or(0) - newer["applied"].as_i64().unwrap_or(0),
            older["balance_after"].as_i64().unwrap_or(-1),
            "each entry starts where the one settled before it ended: {newer} after {older}"
        );
        assert!(newer["seq"].as_u64() > older["seq"].as_u64(), "{newer} {older}");
        assert!(
            newer["settled_at"].as_str() >= older["settled_at"].as_str(),
            "{newer} {older}"
        );
    }
    let late = walked
        .iter()
        .find(|e| e["source_id"] == "m-l05b")
        .expect("listed");
    assert_eq!(late["floored"], true, "the second late loss hit the floor (SG-7)");
    assert!(
        late["at"].as_str() < walked[3]["at"].as_str(),
        "it happened before m-l40"
    );

    // The console's read model: the same order, oldest settled first, and a series
    // that only goes where the ledger went.
    let cache = podium_service::boards::pages::SnapshotCache::default();
    let o = podium_service::operators::console::player_overview(&store, &cache, "lena", now())
        .await
        .expect("overview");
    let g = o.games.iter().find(|g| g.game == Game::Seega).expect("seega");
    let rows: Vec<&str> = g.ledger.iter().map(|r| r.source_id.as_str()).collect();
    let mut expected: Vec<&str> = ids.clone();
    expected.reverse();
    assert_eq!(rows, expected);
    for (pair, points) in g.ledger.windows(2).zip(g.series.windows(2)) {
        assert_eq!(pair[1].balance_after - pair[1].applied, pair[0].balance_after);
        assert!(
            points[1].at_ms >= points[0].at_ms,
            "the series moves forward in time"
        );
    }
    assert_eq!(
        g.series.iter().map(|p| p.balance).collect::<Vec<_>>(),
        g.ledger.iter().map(|r| r.balance_after).collect::<Vec<_>>()
    );
}

#[macro_export]
macro_rules! point_history_tests {
    ($make:path) => {
        $crate::point_history_tests!(@cases $make;
            gm_4_history_lists_every_entry_newest_first_once,
            history_cursors_are_bound_to_their_player_and_game,
            gm_6_erasure_moves_the_history,
            gm_4_late_records_read_in_settlement_order,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::point_history::$case($make().await).await;
            }
        )*
    };
}
