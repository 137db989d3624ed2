//! Relative standing on both stores (LB-2, LB-4, LB-7): rank of N, top X %, the next
//! better value and the top-100 cut-off on every answer about the caller, checked
//! against the whole board ranked by hand; no extra read on a snapshot.

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_service::api::{self, ApiContext, ApiResponse};
use podium_service::boards::snapshot;
use podium_store::{SettleStore, Store};
use serde_json::Value;

use crate::contract::cursor_key;
use crate::counting::Counted;
use crate::fixtures::{at, rout, seed_balance, seed_entry, tick};
use crate::review::get;

async fn me<S: Store + Clone + 'static>(store: &S, ctx: &ApiContext, player: &str) -> ApiResponse {
    let answer = api::handle(
        store,
        ctx,
        &get("/v1/leaderboards/seega/me", &[("neighbours", "1")], player),
        tick(),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer
}

/// What the standing must say for a caller of value `mine` among `others` (everyone
/// else's values), `of` entries counted.
fn expected(others: &[i64], mine: i64, of: Option<u64>, cutoff: Option<i64>) -> Value {
    let rank = 1 + others.iter().filter(|&&v| v > mine).count() as u64;
    let mut s = serde_json::json!({"rank": rank});
    if let Some(of) = of {
        s["of"] = of.into();
        s["top_percent"] = ((rank * 100).div_ceil(of)).clamp(1, 100).into();
    }
    if let Some(next) = others.iter().copied().filter(|&v| v > mine).min() {
        s["next_better"] =
            serde_json::json!({"value": next, "value_shown": next.to_string(), "gap": next - mine});
    }
    if let Some(c) = cutoff {
        s["top_cutoff"] = serde_json::json!({"top": 100, "value": c, "value_shown": c.to_string(), "gap": (c - mine).max(0)});
    }
    s
}

/// LB-2, LB-4: on a snapshot of 250 players with many ties, every probe's standing is
/// the board ranked by hand: rank of 250 (251 for a player newer than the snapshot),
/// ⌈100 × rank ÷ N⌉ %, the nearest strictly better value (none for the leaders), and
/// the value listed 100th with the gap to it (0 inside the top 100). Around-me reads
/// no more than before the standing was added (at most 5, LB-7).
pub async fn standing_on_a_snapshot_is_the_board_ranked_by_hand<S: Store + Clone + 'static>(store: S) {
    let counted = Counted::new(store);
    let mut values = Vec::new();
    for i in 0..250i64 {
        // 25 values, 10 players each: ties across page boundaries.
        let value = 100 + (i * 7) % 25 * 10;
        seed_balance(&counted, &format!("s{i:03}"), value, 1_000 + i).await;
        values.push((format!("s{i:03}"), value));
    }
    snapshot::write::run(
        &counted,
        &BoardRef::all_time("seega"),
        "standing",
        at(60),
        10,
        None,
        tick(),
    )
    .await
    .expect("snapshot");
    let mut sorted: Vec<i64> = values.iter().map(|(_, v)| *v).collect();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let ctx = ApiContext::new(cursor_key());
    let _warm = me(&counted, &ctx, "s000").await;
    for (player, mine) in values
        .iter()
        .step_by(17)
        .chain(values.iter().filter(|(_, v)| *v == sorted[0]).take(1))
    {
        let others: Vec<i64> = values
            .iter()
            .filter(|(p, _)| p != player)
            .map(|(_, v)| *v)
            .collect();
        // The value placing in the top 100 among the others (the caller's own entry
        // is no other player's, LB-4).
        let mut theirs = others.clone();
        theirs.sort_unstable_by(|a, b| b.cmp(a));
        let (before, _) = counted.counts();
        let answer = me(&counted, &ctx, player).await;
        let reads = counted.counts().0 - before;
        assert!(reads <= 5, "{player}: {reads} reads");
        assert_eq!(
            answer.body["standing"],
            expected(&others, *mine, Some(250), Some(theirs[99])),
            "{player} at {mine}"
        );
        assert_eq!(answer.body["standing"]["rank"], answer.body["me"]["rank"]);
    }
    let leader = values.iter().find(|(_, v)| *v == sorted[0]).expect("a leader");
    let top = me(&counted, &ctx, &leader.0).await;
    assert!(
        top.body["standing"].get("next_better").is_none(),
        "nobody is better than a leader"
    );
    assert_eq!(top.body["standing"]["top_percent"], 1);
    assert_eq!(top.body["standing"]["top_cutoff"]["gap"], 0);

    // A player newer than the snapshot is ranked against it, and counted in N.
    crate::contract::score_match(&counted, &rout("st-1", "newcomer", "s001", at(61)), tick())
        .await
        .expect("scored");
    let live = counted
        .get_balances(Game::Seega, &["newcomer", "s001"])
        .await
        .expect("read");
    let others: Vec<i64> = values
        .iter()
        .filter(|(p, _)| p != "s001")
        .map(|(_, v)| *v)
        .collect();
    // A caller with no entry in the snapshot: the cut-off is the value listed 100th.
    let answer = me(&counted, &ctx, "newcomer").await;
    assert_eq!(
        answer.body["standing"],
        expected(&others, live[0].points, Some(251), Some(sorted[99]))
    );
}

/// LB-7: before a board's first snapshot, the standing gives the rank and the next
/// better value (one more read), but no N, percentile or cut-off (counting a live
/// board would read all of it).
pub async fn standing_on_the_live_board_counts_nothing<S: Store + Clone + 'static>(store: S) {
    let values = [("a", 900), ("b", 700), ("c", 700), ("d", 400), ("e", 0)];
    for (i, (p, v)) in values.iter().enumerate() {
        seed_balance(&store, p, *v, 1_000 + i as i64).await;
    }
    let ctx = ApiContext::new(cursor_key());
    for (p, mine) in values {
        let others: Vec<i64> = values.iter().filter(|(o, _)| *o != p).map(|(_, v)| *v).collect();
        let answer = me(&store, &ctx, p).await;
        assert!(answer.body.get("snapshot").is_none(), "the live board");
        assert_eq!(
            answer.body["standing"],
            expected(&others, mine, None, None),
            "{p}"
        );
    }
}

/// A Seega snapshot of `players` (id, value), pages of `page_size`, then each of
/// `moves` (id, new value) played live after it: what a caller's standing is measured
/// against until the next refresh (LB-4).
async fn snapshot_then_moves<S: Store + Clone + 'static>(
    store: &S,
    players: &[(&str, i64)],
    page_size: u32,
    moves: &[(&str, i64)],
) {
    for (i, (p, v)) in players.iter().enumerate() {
        seed_balance(store, p, *v, 1_000 + i as i64).await;
    }
    snapshot::write::run(
        store,
        &BoardRef::all_time("seega"),
        "before-moves",
        at(60),
        page_size,
        None,
        tick(),
    )
    .await
    .expect("snapshot");
    for (i, (p, v)) in moves.iter().enumerate() {
        seed_balance(store, p, *v, 5_000 + i as i64).await;
    }
}

/// The snapshot values of everyone but `player`: what the caller is ranked against.
fn others(players: &[(&str, i64)], player: &str) -> Vec<i64> {
    players
        .iter()
        .filter(|(p, _)| *p != player)
        .map(|(_, v)| *v)
        .collect()
}

/// LB-4 (review: `next-better-self`): C 622, A 311, B 0, D 0 in the snapshot; then A
/// loses to B (A 188, B 311 live). Until the next refresh A is measured against the
/// others' snapshot values, never A's own 311: rank 2 of 4 (50 %), next better C's 622
/// (gap 434), not "311, gap 123"; the around-me page says the same.
pub async fn a_caller_below_their_snapshot_value_is_measured_against_the_others<
    S: Store + Clone + 'static,
>(
    store: S,
) {
    let players = [("C", 622), ("A", 311), ("B", 0), ("D", 0)];
    snapshot_then_moves(&store, &players, 100, &[("A", 188), ("B", 311)]).await;
    let ctx = ApiContext::new(cursor_key());
    let answer = me(&store, &ctx, "A").await;
    assert_eq!(
        answer.body["standing"],
        expected(&others(&players, "A"), 188, Some(4), None),
        "{}",
        answer.body
    );
    assert_eq!(answer.body["standing"]["next_better"]["value"], 622);
    assert_eq!(answer.body["standing"]["next_better"]["gap"], 434);
    assert_eq!(answer.body["me"]["rank"], 2);
    // B, who climbed past A's old value: ranked against the snapshot, A's 311 included.
    let b = me(&store, &ctx, "B").await;
    assert_eq!(
        b.body["standing"],
        expected(&others(&players, "B"), 311, Some(4), None)
    );
}

/// LB-4: a leader who fell (A 900 → 600; B 700, C 500) is told the real next better
/// player, B's 700 (gap 100), not their own old 900; rank 2 of 3 (67 %).
pub async fn a_fallen_leader_is_told_the_real_next_better_player<S: Store + Clone + 'static>(store: S) {
    let players = [("A", 900), ("B", 700), ("C", 500)];
    snapshot_then_moves(&store, &players, 100, &[("A", 600)]).await;
    let answer = me(&store, &ctx(), "A").await;
    assert_eq!(
        answer.body["standing"],
        expected(&others(&players, "A"), 600, Some(3), None),
        "{}",
        answer.body
    );
    assert_eq!(answer.body["standing"]["next_better"]["value"], 700);
}

/// LB-4: a leader below their own old value (A 900 → 600; B 500) is still the leader:
/// rank 1 of 2, and no value to reach (leaders get none), not their own old 900.
pub async fn a_leader_below_their_old_value_has_nothing_to_reach<S: Store + Clone + 'static>(store: S) {
    let players = [("A", 900), ("B", 500)];
    snapshot_then_moves(&store, &players, 100, &[("A", 600)]).await;
    let answer = me(&store, &ctx(), "A").await;
    assert_eq!(
        answer.body["standing"],
        expected(&others(&players, "A"), 600, Some(2), None),
        "{}",
        answer.body
    );
    assert!(
        answer.body["standing"].get("next_better").is_none(),
        "{}",
        answer.body
    );
    assert_eq!(answer.body["me"]["rank"], 1);
}

/// LB-4, LB-7: pages of one entry (X 900 | A 700 | Z 100); A falls to 650. The page
/// that decides A's rank holds only A's own old 700 above 650: the next better is on
/// the page before, X's 900 (gap 250); rank 2 of 3.
pub async fn the_next_better_is_found_past_the_callers_own_page<S: Store + Clone + 'static>(store: S) {
    let players = [("X", 900), ("A", 700), ("Z", 100)];
    snapshot_then_moves(&store, &players, 1, &[("A", 650)]).await;
    let answer = me(&store, &ctx(), "A").await;
    assert_eq!(
        answer.body["standing"],
        expected(&others(&players, "A"), 650, Some(3), None),
        "{}",
        answer.body
    );
    assert_eq!(answer.body["standing"]["next_better"]["value"], 900);
}

/// LB-4 on `/v1/me/mahjong-rivals` (MJ-20): on the AMR board's snapshot (C 622, A 311,
/// B 0), A's value falls to 188 (days leaving the window): A's place there is rank 2 of
/// 3, next better C's 622, never A's own 311.
pub async fn the_mahjong_profile_measures_a_fallen_caller_against_the_others<S: Store + Clone + 'static>(
    store: S,
) {
    let board = BoardRef::all_time("mahjong-amr");
    let players = [("C", 622), ("A", 311), ("B", 0)];
    for (i, (p, v)) in players.iter().enumerate() {
        seed_entry(&store, &board, p, *v, 1_000 + i as i64).await;
    }
    snapshot::write::run(&store, &board, "before-moves", at(60), 100, None, tick())
        .await
        .expect("snapshot");
    seed_entry(&store, &board, "A", 188, 5_000).await;
    let answer = api::handle(&store, &ctx(), &get("/v1/me/mahjong-rivals", &[], "A"), tick()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let amr = answer.body["boards"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["board"] == "mahjong-amr"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        amr["standing"],
        expected(&others(&players, "A"), 188, Some(3), None),
        "{}",
        answer.body
    );
    assert_eq!(amr["rank"], 2);
}

/// LB-2, LB-4 on the friends view (PF-4): pages of one entry (X 900 | A 700 | Y 500 |
/// Z 100); A falls to 300. A's global rank is 3 (X and Y better), in A's own view and
/// in a friend's: A's older 700, on a page before the one deciding 300, is no rival of
/// A's (it was counted: 4).
pub async fn a_fallen_friends_global_rank_leaves_their_older_entry_out<S: Store + Clone + 'static>(store: S) {
    let players = [("X", 900), ("A", 700), ("Y", 500), ("Z", 100)];
    snapshot_then_moves(&store, &players, 1, &[("A", 300)]).await;
    let ctx = ctx();
    for (caller, friend) in [("A", "Z"), ("Z", "A")] {
        let r = crate::profiles::put(
            &store,
            &ctx,
            "/v1/me/friends",
            caller,
            &serde_json::json!({"friends": [friend]}),
            tick(),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let view = api::handle(
            &store,
            &ctx,
            &get("/v1/leaderboards/seega/friends", &[], caller),
            tick(),
        )
        .await;
        assert_eq!(view.status, 200, "{}", view.body);
        let a = view.body["entries"]
            .as_array()
            .and_then(|e| e.iter().find(|e| e["player_id"] == "A"))
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            (&a["value"], &a["global_rank"]),
            (&300.into(), &3.into()),
            "{caller}: {}",
            view.body
        );
    }
}

fn ctx() -> ApiContext {
    ApiContext::new(cursor_key())
}

/// LB-4, OP-4 (the kind of review fault 7: every figure of a standing leaves the
/// caller's own older entry out): on a snapshot of 110 players (values 10,000 down by
/// 10, pages of 40), a caller who fell from the top 100 (p010: 9,900 → 5) is told the
/// value the 100th *other* player holds (9,000, listed 101st), not the 100th listed
/// (9,010); once a player listed in the top 100 is suspended, the cut-off moves one
/// further down for everyone (8,990), as the page closes up.
pub async fn the_top_cutoff_is_the_hundredth_other_player_shown<S: Store + Clone + 'static>(store: S) {
    let players: Vec<(String, i64)> = (0..110i64)
        .map(|i| (format!("p{i:03}"), 10_000 - 10 * i))
        .collect();
    let named: Vec<(&str, i64)> = players.iter().map(|(p, v)| (p.as_str(), *v)).collect();
    snapshot_then_moves(&store, &named, 40, &[("p010", 5)]).await;
    let cutoff = |answer: &ApiResponse| answer.body["standing"]["top_cutoff"]["value"].clone();
    let fallen = me(&store, &ctx(), "p010").await;
    let standing = &fallen.body["standing"];
    assert_eq!(
        (
            &standing["rank"],
            &standing["of"],
            &standing["next_better"]["value"]
        ),
        (&Value::from(110), &Value::from(110), &Value::from(8_910)),
        "{standing}"
    );
    assert_eq!(cutoff(&fallen), 9_000, "{standing}");
    assert_eq!(
        cutoff(&me(&store, &ctx(), "p050").await),
        9_000,
        "p050 is in the top 100 of the others"
    );
    let suspend = serde_json::json!({"reason": "cut-off check"});
    let answer = crate::moderation::operator_call(
        &store,
        "POST",
        "/v1/operator/players/p003/suspend",
        &[],
        Some("support-1"),
        Some(&suspend),
        tick(),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        cutoff(&me(&store, &ctx(), "p050").await),
        8_990,
        "p003 hidden above the cut-off"
    );
    assert_eq!(cutoff(&me(&store, &ctx(), "p010").await), 8_990);
}

/// Declares one `#[tokio::test]` per standing case for a store made by `$make`.
#[macro_export]
macro_rules! standing_tests {
    ($make:path) => {
        $crate::standing_tests!(@cases $make;
            standing_on_a_snapshot_is_the_board_ranked_by_hand,
            standing_on_the_live_board_counts_nothing,
            a_caller_below_their_snapshot_value_is_measured_against_the_others,
            a_fallen_leader_is_told_the_real_next_better_player,
            a_leader_below_their_old_value_has_nothing_to_reach,
            the_next_better_is_found_past_the_callers_own_page,
            the_mahjong_profile_measures_a_fallen_caller_against_the_others,
            a_fallen_friends_global_rank_leaves_their_older_entry_out,
            the_top_cutoff_is_the_hundredth_other_player_shown,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::standing::$case($make().await).await;
            }
        )*
    };
}
