//! What a settlement's commit writes, item by item, on both stores: the write cost of
//! the common sources is held here, so that a feature cannot raise it unnoticed. GM-6's
//! references ([`podium_store::Reference`]) cost nothing where the ledger already finds
//! the player (a paid match, a Quick Match's winner), one small item per player a
//! result names without paying them (a void match, an Arena's 4th place), and two per
//! league placement (once per player and week).

use podium_store::{Commit, Named, Store};

use crate::contract::score_match;
use crate::faults::Faulty;
use crate::fixtures::{now, rout, seed_balance};

fn refs_of(c: &Commit) -> Vec<(&str, &Named)> {
    c.refs.iter().map(|r| (r.player_id.as_str(), &r.named)).collect()
}

/// The commits of a paid Seega match, a void one, a Quick Match and an Arena.
pub async fn gm_6_references_cost_nothing_where_the_ledger_finds_the_player<S: Store + Clone + 'static>(
    store: S,
) {
    let captured = Faulty::new(store);
    seed_balance(&captured, "ci-a", 100, 1_000).await;
    seed_balance(&captured, "ci-b", 100, 1_000).await;
    score_match(
        &captured,
        &rout("ci-m1", "ci-a", "ci-b", crate::fixtures::at(1)),
        now(),
    )
    .await
    .expect("scored");
    let paid = captured.last_commit().expect("a commit");
    // The source, 2 balances, 2 ledger entries, 2 guards: as before references.
    assert_eq!((paid.items(), paid.refs.len()), (7, 0), "{:?}", refs_of(&paid));

    let mut void = rout("ci-void", "ci-c", "ci-d", crate::fixtures::at(2));
    void.players[0].stones_on_board = 2;
    void.players[0].stones_in_hand = 22;
    void.players[1].stones_on_board = 1;
    void.players[1].stones_in_hand = 23;
    void.stones_placed = 3;
    score_match(&captured, &void, now()).await.expect("void");
    let c = captured.last_commit().expect("a commit");
    let named = Named::Source {
        kind: "match".into(),
        id: "ci-void".into(),
    };
    assert_eq!(refs_of(&c), [("ci-c", &named), ("ci-d", &named)]);
    // The source, 2 references, 2 guards.
    assert_eq!(c.items(), 5);

    let at = "2027-07-18T21:30:00Z";
    let line = serde_json::json!({
        "match_id": "ci-qm", "game": "mahjong-rivals", "kind": "quick-match", "ended_at": at,
        "players": [
            {"player_id": "ci-w", "completed": true, "score": 900},
            {"player_id": "ci-l", "completed": false, "score": -100},
        ],
    })
    .to_string();
    crate::mahjong::settle(
        &captured,
        line.as_bytes(),
        crate::mahjong::t("2027-07-18T21:31:00Z"),
    )
    .await
    .expect("quick match");
    let qm = captured.last_commit().expect("a commit");
    // The winner is in the ledger: no reference to the match. Their first points of
    // the week place them in a league cohort, whose member list and filling name them:
    // two references, once per player and week. The loser is named by the result
    // (every player's place, MJ-7) and nowhere in the ledger: one reference to it.
    assert!(
        qm.refs.iter().all(|r| (r.player_id == "ci-w"
            && matches!(&r.named, Named::State { owner, .. } if owner.starts_with("@mahjong-league:")))
            || (r.player_id == "ci-l"
                && matches!(&r.named, Named::Source { kind, id } if kind == "quick-match" && id == "ci-qm"))),
        "{:?}",
        refs_of(&qm)
    );
    assert_eq!(qm.refs.len(), 3);

    let arena = crate::mahjong::arena_line(
        "ci-ar",
        ["ci-1", "ci-2", "ci-3", "ci-4"],
        [[300, 300, 300], [200, 200, 200], [100, 100, 100], [0, 0, 0]],
        [0; 4],
    );
    crate::mahjong::settle(&captured, &arena, crate::mahjong::t("2027-07-18T21:31:00Z"))
        .await
        .expect("arena");
    let ar = captured.last_commit().expect("a commit");
    let named = Named::Source {
        kind: "arena".into(),
        id: "ci-ar".into(),
    };
    let sources: Vec<(&str, &Named)> = refs_of(&ar)
        .into_iter()
        .filter(|(_, n)| matches!(n, Named::Source { .. }))
        .collect();
    assert_eq!(sources, [("ci-4", &named)], "only the 4th, paid nothing");
    assert_eq!(
        ar.refs.len(),
        1 + 2 * 3,
        "and the three prize winners' placements"
    );
}

#[macro_export]
macro_rules! commit_items_tests {
    ($make:path) => {
        $crate::commit_items_tests!(@cases $make;
            gm_6_references_cost_nothing_where_the_ledger_finds_the_player,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::commit_items::$case($make().await).await;
            }
        )*
    };
}
