//! Moderation (suspensions, restores, deletions, name changes) never sends play messages (overtaken, rank-ups).
//!
//! `overtaken` messages are derived from two snapshots of a board, and a snapshot
//! changes by moderation too: a suspended player is left out of it, a restored one
//! listed again, a deleted one erased, a renamed one shown by another name. Only play
//! (a settlement that changed a value: a match, a completion, a correction) passes
//! anyone (LB-5, OP-4, GM-6, PF-1).

use chrono::Duration;
use podium_store::Store;
use serde_json::{json, Value};

use crate::contract::score_match;
use crate::fixtures::{rout, seed_balance};
use crate::moderation::moderate;
use crate::overtaken::{call, follows, later, passers, refresh};
use crate::review::get;

/// The players of these tests: `mm000` … `mm119`, at 10,000, 9,990, … 8,810 Seega points.
fn player(i: usize) -> String {
    format!("mm{i:03}")
}

const PLAYERS: usize = 120;

async fn seed_board<S: Store>(store: &S) {
    for i in 0..PLAYERS {
        seed_balance(store, &player(i), 10_000 - 10 * i as i64, 1_000 + i as i64).await;
    }
}

/// The play messages (`overtaken`, `rank_up`) in `player`'s inbox, oldest first.
async fn play_messages<S: Store + Clone + 'static>(store: &S, player: &str) -> Vec<Value> {
    let answer = call(store, get("/v1/me/inbox", &[], player)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let mut out: Vec<Value> = answer.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["kind"] == "overtaken" || m["kind"] == "rank_up")
        .cloned()
        .collect();
    out.reverse();
    out
}

/// Asserts that no player of the board (but the deleted ones, `gone`) holds a play
/// message, after `what`.
async fn nobody_told<S: Store + Clone + 'static>(store: &S, gone: &[String], what: &str) {
    for i in 0..PLAYERS {
        if gone.contains(&player(i)) {
            continue;
        }
        let got = play_messages(store, &player(i)).await;
        assert!(got.is_empty(), "{what}: {} was sent {got:?}", player(i));
    }
}

/// The player ids and ranks of the Seega board's first `limit` entries.
async fn top<S: Store + Clone + 'static>(store: &S, limit: usize) -> Vec<(String, u64)> {
    let limit = limit.to_string();
    let answer = call(
        store,
        get("/v1/leaderboards/seega", &[("limit", &limit)], "mm119"),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body["entries"].is_array(), "{}", answer.body);
    crate::review::ranks(&answer.body)
}

/// OP-4, LB-5: the top player and the player just behind an opted-in one are
/// suspended, the board refreshed, both restored, the board refreshed twice: nobody
/// is told they were overtaken (neither the top 100 by the restored top player
/// listed again above them, nor the opted-in player by their restored neighbour), and
/// nobody gets a rank message; the restored players stand where they stood.
pub async fn op_4_a_suspension_and_its_restore_send_no_play_message<S: Store + Clone + 'static>(store: S) {
    seed_board(&store).await;
    assert_eq!(follows(&store, "PUT", "seega", &player(110)).await.status, 200);
    refresh(&store, 1).await;
    let before = top(&store, 3).await;
    assert_eq!(before[0], (player(0), 1));
    for p in [player(0), player(111)] {
        moderate(&store, &p, "suspend", later(2)).await;
    }
    refresh(&store, 3).await;
    assert_eq!(top(&store, 1).await[0].0, player(1), "hidden while suspended");
    for p in [player(0), player(111)] {
        moderate(&store, &p, "restore", later(4)).await;
    }
    refresh(&store, 5).await;
    refresh(&store, 6).await;
    assert_eq!(top(&store, 3).await, before, "listed again where they stood");
    nobody_told(&store, &[], "a suspension and its restore").await;
}

/// GM-6, PF-1, OP-4, LB-5: the top player renamed, then reset by an operator, the
/// second one deleted, and the player just behind an opted-in one deleted, each with
/// a refresh after: nobody is told they were overtaken, nobody gets a rank message,
/// though everyone below the deleted player moved up.
pub async fn gm_6_pf_1_a_deletion_and_a_rename_send_no_play_message<S: Store + Clone + 'static>(store: S) {
    seed_board(&store).await;
    assert_eq!(follows(&store, "PUT", "seega", &player(110)).await.status, 200);
    refresh(&store, 1).await;
    let renamed = crate::profiles::put(
        &store,
        &podium_service::api::ApiContext::new(crate::contract::cursor_key()),
        "/v1/me/profile",
        &player(0),
        &json!({"name": "Top Player", "avatar": "a03", "country": "RO"}),
        later(2),
    )
    .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    refresh(&store, 3).await;
    moderate(&store, &player(0), "name-reset", later(4)).await;
    moderate(&store, &player(1), "delete", later(4)).await;
    moderate(&store, &player(111), "delete", later(4)).await;
    refresh(&store, 5).await;
    refresh(&store, 6).await;
    let now = top(&store, 3).await;
    assert_eq!(now, [(player(0), 1), (player(2), 2), (player(3), 3)]);
    nobody_told(
        &store,
        &[player(1), player(111)],
        "a rename, a name reset and deletions",
    )
    .await;
}

/// LB-5, OP-4: in one interval between two refreshes, a player left out of the older
/// snapshot while suspended (the 20th, 9,810 points) is restored and then wins a match
/// (+311: 10,121), and the 31st (9,700) wins one too (10,011): the 19 players above
/// the restored one's old place are told both passed them (nearest above first), the
/// 10 between the two old places that the 31st alone passed them, and nobody else is
/// told anything: the restore itself passed nobody.
pub async fn lb_5_play_after_a_restore_is_told_and_the_restore_is_not<S: Store + Clone + 'static>(store: S) {
    seed_board(&store).await;
    refresh(&store, 1).await;
    let (restored, climber) = (player(19), player(30));
    moderate(&store, &restored, "suspend", later(2)).await;
    refresh(&store, 3).await;
    moderate(&store, &restored, "restore", later(4)).await;
    // Both matches after the restore, against players far below (SG-7: their floor).
    let played = later(4) + Duration::seconds(30);
    for (id, winner, loser) in [("mm-m1", &restored, "mm-new-1"), ("mm-m2", &climber, "mm-new-2")] {
        score_match(&store, &rout(id, winner, loser, later(4)), played)
            .await
            .expect("scored");
    }
    refresh(&store, 5).await;
    let order: Vec<String> = top(&store, 3).await.into_iter().map(|(p, _)| p).collect();
    assert_eq!(order, [restored.clone(), climber.clone(), player(0)]);
    for i in 0..PLAYERS {
        let p = player(i);
        let told: Vec<Vec<String>> = play_messages(&store, &p)
            .await
            .iter()
            .filter(|m| m["kind"] == "overtaken")
            .map(passers)
            .collect();
        let expected: Vec<Vec<String>> = match i {
            0..=18 => vec![vec![climber.clone(), restored.clone()]],
            20..=29 => vec![vec![climber.clone()]],
            _ => Vec::new(),
        };
        assert_eq!(told, expected, "{p}");
    }
}

/// `player`'s rank and movement since the previous snapshot on the Seega board's first page.
async fn shown<S: Store + Clone + 'static>(store: &S, player: &str) -> (u64, Option<i64>) {
    let answer = call(store, get("/v1/leaderboards/seega", &[("limit", "20")], "mm119")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let entry = answer.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["player_id"] == player)
        .cloned()
        .unwrap_or_else(|| panic!("{player} listed: {}", answer.body));
    (
        entry["rank"].as_u64().unwrap_or_default(),
        entry["movement"]["since_previous"].as_i64(),
    )
}

/// OP-4, PF-5, LB-2: a movement arrow counts the places a shown rank moved since the
/// previous snapshot, each place once, and no message claims anyone played: the 6th
/// shows +1 as soon as the top player is suspended (5th now), nothing more at the next
/// refresh; −1 at the refresh after the restore (6th again), nothing more at the one
/// after. Over the whole cycle the arrows add up to nothing, and nobody is told they
/// were overtaken.
pub async fn op_4_movement_counts_each_place_moderation_moved_once<S: Store + Clone + 'static>(store: S) {
    seed_board(&store).await;
    refresh(&store, 1).await;
    refresh(&store, 2).await;
    let sixth = player(5);
    assert_eq!(shown(&store, &sixth).await, (6, Some(0)), "nothing moved");
    moderate(&store, &player(0), "suspend", later(3)).await;
    assert_eq!(
        shown(&store, &sixth).await,
        (5, Some(1)),
        "the place shown at once"
    );
    refresh(&store, 4).await;
    assert_eq!(shown(&store, &sixth).await, (5, Some(0)), "counted once");
    moderate(&store, &player(0), "restore", later(5)).await;
    refresh(&store, 6).await;
    assert_eq!(shown(&store, &sixth).await, (6, Some(-1)), "listed again above");
    refresh(&store, 7).await;
    assert_eq!(shown(&store, &sixth).await, (6, Some(0)), "counted once");
    nobody_told(&store, &[], "a suspension and its restore, with movement").await;
}

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
/// OP-4, LB-5: the players an opted-in player hears of come through the one read path
/// of what is hidden. After `mm110`'s check (its neighbours behind: `mm111` …), `mm111`
/// scores past them and is suspended, and `mm101` passes the opted-in `mm100`, who is
/// suspended: at the next refreshes `mm110` is told of no suspended passer and the
/// suspended `mm100` is told nothing (their inbox read after a restore).
pub async fn op_4_a_suspended_neighbour_passes_nobody_and_a_suspended_player_hears_nothing<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    seed_board(&store).await;
    for p in [player(110), player(100)] {
        assert_eq!(follows(&store, "PUT", "seega", &p).await.status, 200);
    }
    refresh(&store, 1).await;
    seed_balance(&store, &player(111), 9_999, 5_000).await;
    seed_balance(&store, &player(101), 9_998, 5_001).await;
    for p in [player(111), player(100)] {
        moderate(&store, &p, "suspend", later(2)).await;
    }
    refresh(&store, 3).await;
    refresh(&store, 4).await;
    // Restored, so that their inbox can be read (a restore tells nobody anything).
    moderate(&store, &player(100), "restore", later(5)).await;
    for p in [player(110), player(100)] {
        let got = play_messages(&store, &p).await;
        assert!(got.is_empty(), "{p} was sent {got:?}");
    }
}

#[macro_export]
macro_rules! moderation_messages_tests {
    ($make:path) => {
        $crate::moderation_messages_tests!(@cases $make;
            op_4_a_suspension_and_its_restore_send_no_play_message,
            gm_6_pf_1_a_deletion_and_a_rename_send_no_play_message,
            lb_5_play_after_a_restore_is_told_and_the_restore_is_not,
            op_4_movement_counts_each_place_moderation_moved_once,
            op_4_a_suspended_neighbour_passes_nobody_and_a_suspended_player_hears_nothing,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::moderation_messages::$case($make().await).await;
            }
        )*
    };
}
