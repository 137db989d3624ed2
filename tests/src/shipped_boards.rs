//! BD-14: the built-in boards are the definitions podium ships. A definition created
//! from each (under its own id) and fed by the one machinery of defined boards ranks
//! the same players with the same values as the built-in board, whatever changed
//! their points: matches, rated matches, level completions, Quick Matches, a rewarded
//! ad, the daily bonus and an operator's correction.

use chrono::{DateTime, Utc};
use podium_rules::board::built_in::shipped;
use podium_rules::board::definition::Definition;
use podium_rules::board::{board_def, BoardRef};
use podium_service::api;
use podium_service::boards::definitions;
use podium_store::Store;
use serde_json::json;

use crate::board_definitions::{instant, listed, seega, OPERATOR};

/// The built-in boards compared, each in the period its results fall in.
const COMPARED: [(&str, &str); 6] = [
    ("seega", "all"),
    ("dots-and-boxes", "all"),
    ("minesweeper", "all"),
    ("mahjong-weekly", "2026-W49"),
    ("mahjong-daily", "2026-12-03"),
    ("mahjong-level-7", "all"),
];

/// The copy of built-in board `id`: its shipped definition under `as-{id}`.
fn copy_of(id: &str) -> Definition {
    let def = shipped(id).expect("a shipped definition");
    Definition {
        id: format!("as-{id}"),
        ..def
    }
}

/// The built-in board's listing: (player, value) in listing order.
async fn built_in<S: Store + ?Sized>(store: &S, id: &str, period: &str) -> Vec<(String, i64)> {
    let order = board_def(id).expect("built in").order;
    store
        .board_after(&BoardRef::new(id, period), None, 100)
        .await
        .expect("the built-in board")
        .into_iter()
        .map(|s| (s.player_id, order.value_of(s.value)))
        .collect()
}

fn at(s: &str) -> DateTime<Utc> {
    instant(s)
}

/// BD-14 (LB-1, BD-2, BD-3, BD-6, BD-12): every built-in board a definition expresses
/// equals, entry for entry, its shipped definition fed by the results and changes of
/// points that feed the built-in one.
pub async fn built_in_boards_equal_their_shipped_definitions<S: Store + Clone + 'static>(store: &S) {
    for (id, _) in COMPARED {
        definitions::create(
            store,
            copy_of(id),
            OPERATOR,
            at("2026-12-01T12:00:00Z"),
            20,
            false,
        )
        .await
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    }
    // Seega: two matches, a rewarded ad, a correction.
    seega(store, "sb-1", "ana", "dan", 10, "2026-12-02T10:00:00Z").await;
    seega(store, "sb-2", "dan", "bob", 12, "2026-12-02T11:00:00Z").await;
    let ctx = crate::rewards::ctx();
    let ad_at = at("2026-12-03T09:00:00Z");
    let raw = crate::rewards::admob("1111", "sb-ad-1", "bob", ad_at);
    let ad = api::handle(
        store,
        &ctx,
        &crate::rewards::callback("/v1/ad-callbacks/admob", &raw),
        ad_at,
    )
    .await;
    assert_eq!(ad.status, 200, "{}", ad.body);
    let correction = |id: &str, game: &str, points: i64| json!({"correction_id": id, "game": game, "points": points, "reason": "a support case"});
    let fixed = crate::moderation::operator_call(
        store,
        "POST",
        "/v1/operator/players/dan/corrections",
        &[],
        Some("support-7"),
        Some(&correction("sb-fix-1", "seega", -7)),
        at("2026-12-03T10:00:00Z"),
    )
    .await;
    assert_eq!(fixed.status, 200, "{}", fixed.body);
    // Dots and Boxes: a rated match (its balance is the rating, DB-6); a Minesweeper
    // duel (MS-8).
    use podium_rules::dots_and_boxes::replay::{self, Outcome};
    let board = podium_rules::dots_and_boxes::board::Board { width: 3, height: 3 };
    let moves = crate::dots_and_boxes::full_game(&board);
    let r = replay::replay(&board, &moves).expect("legal");
    let winner = match replay::outcome(&r, None) {
        Some(Outcome::Win(0)) => "ra",
        _ => "rb",
    };
    for (line, what) in [
        (
            crate::dots_and_boxes::line("sb-d1", [("ra", true), ("rb", true)], &moves, Some(winner)),
            "rated",
        ),
        (crate::dots_and_boxes::duel("sb-m1", "ma", "points"), "a duel"),
    ] {
        crate::dots_and_boxes::send(store, &line).await.expect(what);
    }
    // Mahjong Rivals: level 7 twice (mia faster), a Quick Match, the daily bonus, a
    // correction.
    let now = at("2026-12-03T12:00:00Z");
    for (id, player, ms, when) in [
        ("sb-c1", "max", 95_000, "2026-12-03T08:00:00Z"),
        ("sb-c2", "mia", 61_000, "2026-12-03T08:30:00Z"),
        ("sb-c3", "max", 90_000, "2026-12-03T09:00:00Z"),
    ] {
        crate::mahjong::settle(
            store,
            &crate::mahjong::completion(id, player, 7, ms, when, 0),
            now,
        )
        .await
        .expect("a completion");
    }
    let quick = crate::mahjong::quick_match(
        "sb-q1",
        "2026-12-03T10:00:00Z",
        &[("mia", true, 800), ("max", true, 500)],
    );
    crate::mahjong::settle(store, &quick, now)
        .await
        .expect("a Quick Match");
    let bonus = api::handle(store, &ctx, &crate::rewards::bonus_claim("max"), now).await;
    assert_eq!(bonus.status, 200, "{}", bonus.body);
    let fixed = crate::moderation::operator_call(
        store,
        "POST",
        "/v1/operator/players/mia/corrections",
        &[],
        Some("support-7"),
        Some(&correction("sb-fix-2", "mahjong-rivals", 25)),
        now,
    )
    .await;
    assert_eq!(fixed.status, 200, "{}", fixed.body);
    for (id, period) in COMPARED {
        let want = built_in(store, id, period).await;
        let got: Vec<(String, i64)> = listed(store, &copy_of(id), period)
            .await
            .into_iter()
            .map(|(_, p, v, _)| (p, v))
            .collect();
        assert!(!want.is_empty(), "{id}@{period} has entries");
        assert_eq!(got, want, "{id}@{period}");
    }
    // LB-5: each period is frozen when it ends, the copy's as the built-in's; a late
    // Quick Match of 3 December counts on the entries, and on neither final page.
    crate::board_definitions::tick(store, podium_service::jobs::Job::Freeze, "2026-12-08T00:00:00Z").await;
    let late = crate::mahjong::quick_match(
        "sb-q2",
        "2026-12-03T11:00:00Z",
        &[("zed", true, 900), ("max", true, 100)],
    );
    crate::mahjong::settle(store, &late, at("2026-12-08T00:30:00Z"))
        .await
        .expect("a late Quick Match");
    let page = |board: String, period: &str| {
        let req = crate::deletion::get(&format!("/v1/leaderboards/{board}"), "mia", &[("period", period)]);
        async move {
            let ctx = api::ApiContext::new(crate::contract::cursor_key());
            let page = api::handle(store, &ctx, &req, at("2026-12-08T01:00:00Z")).await;
            assert_eq!(page.status, 200, "{}", page.body);
            assert_eq!(page.body["snapshot"], "final", "{board}: {}", page.body);
            let entries: Vec<(String, i64)> = page.body["entries"]
                .as_array()
                .expect("entries")
                .iter()
                .map(|e| {
                    (
                        e["player_id"].as_str().unwrap_or_default().to_string(),
                        e["value"].as_i64().unwrap_or(-1),
                    )
                })
                .collect();
            entries
        }
    };
    for (id, period) in [("mahjong-daily", "2026-12-03"), ("mahjong-weekly", "2026-W49")] {
        let built_in = page(id.to_string(), period).await;
        let copy = page(format!("as-{id}"), period).await;
        assert!(!built_in.iter().any(|(p, _)| p == "zed"), "{built_in:?}");
        assert_eq!(copy, built_in, "{id}@{period}");
    }
}
