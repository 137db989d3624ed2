//! A change to what a page shows (a card, a suspension, a deletion) reaches every board that shows it at the next refresh (PF-5, OP-4, GM-6).
//!
//! The boards refreshed only when changed (LB-5: a level's time ranking, a tournament's
//! standings) were refreshed only when a value on them changed; a rename, an
//! operator's name reset, a suspension, a restore or a deletion changes what their
//! pages show without changing a value, so each marks every such board the player is
//! on ([`podium_service::engine::changes`]), and the next refresh rewrites it (a new
//! snapshot, so a new entity tag).

use chrono::{DateTime, Utc};
use podium_rules::profile::{ProfileChange, ProfilePolicy};
use podium_service::api::{self, ApiContext, ApiResponse};
use podium_service::jobs::BoardRun;
use podium_store::Store;
use serde_json::{json, Value};

use crate::contract::cursor_key;
use crate::counting::Counted;
use crate::mahjong::{completion, settle};
use crate::moderation::moderate;
use crate::overtaken::{later, try_refresh};
use crate::review::get;

/// Settles `player`'s completion of `level` in `time_ms`, completed at the tests'
/// clock ([`later`]`(0)`) and settled a minute later.
async fn complete<S: Store>(store: &S, player: &str, level: u32, time_ms: u64) {
    let id = format!("cc-{player}-{level}");
    let at = later(0).to_rfc3339();
    settle(store, &completion(&id, player, level, time_ms, &at, 0), later(1))
        .await
        .expect("settled");
}

/// The refresh tick `minutes` after the tests' clock: the boards it snapshotted.
async fn tick<S: Store>(store: &S, minutes: i64) -> Vec<String> {
    let runs: Vec<BoardRun> = try_refresh(store, minutes).await.expect("refresh tick");
    runs.into_iter()
        .filter(|r| r.complete && !r.already_complete)
        .map(|r| r.board)
        .collect()
}

/// `GET {path}` as `player` at `at`, revalidating `etag` when given; the process's
/// cached pointers are forgotten first (they are kept a few seconds, and the tests'
/// clock moves minutes in less).
async fn read<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    path: &str,
    query: &[(&str, &str)],
    player: &str,
    etag: Option<&str>,
    at: DateTime<Utc>,
) -> ApiResponse {
    ctx.cache.forget();
    let req = get(path, query, player);
    match etag {
        Some(tag) => api::handle_with_headers(store, ctx, &req, &[("if-none-match", tag)], at).await,
        None => api::handle(store, ctx, &req, at).await,
    }
}

/// (player, rank, name) of every entry of an answer.
fn listed(body: &Value) -> Vec<(String, u64, Option<String>)> {
    body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or_default().to_string(),
                e["rank"].as_u64().unwrap_or_default(),
                e["name"].as_str().map(str::to_string),
            )
        })
        .collect()
}

const LEVEL_5: &str = "/v1/leaderboards/mahjong-level-5";

/// PF-5, PF-1, PF-3, OP-5, LB-5: on a level's time ranking whose times never change,
/// a rename shows at the next refresh, and the page's old entity tag is answered
/// with the new page (200), not 304; an operator's name reset is gone from the page
/// and from around-me at the next refresh, and a country set lists the player on the
/// country's view of the ranking. A refresh with nothing changed leaves the ranking
/// alone (a quiet board costs nothing).
pub async fn pf_5_a_rename_and_a_name_reset_reach_a_quiet_level_ranking<S: Store + Clone + 'static>(
    store: S,
) {
    let ctx = ApiContext::new(cursor_key());
    complete(&store, "cc-a1", 5, 90_000).await;
    complete(&store, "cc-a2", 5, 95_000).await;
    assert!(tick(&store, 2).await.contains(&"mahjong-level-5".to_string()));
    let first = read(&store, &ctx, LEVEL_5, &[], "cc-a2", None, later(3)).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(
        listed(&first.body),
        [("cc-a1".into(), 1, None), ("cc-a2".into(), 2, None)]
    );
    let old_tag = first.etag.clone().expect("an entity tag");
    assert_eq!(
        read(&store, &ctx, LEVEL_5, &[], "cc-a2", Some(&old_tag), later(3))
            .await
            .status,
        304
    );
    // PF-1: a rename; the next refresh rewrites the ranking, though no time changed.
    let renamed = crate::profiles::put(
        &store,
        &ctx,
        "/v1/me/profile",
        "cc-a1",
        &json!({"name": "Rude Name"}),
        later(4),
    )
    .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert!(
        tick(&store, 5).await.contains(&"mahjong-level-5".to_string()),
        "marked"
    );
    let page = read(&store, &ctx, LEVEL_5, &[], "cc-a2", Some(&old_tag), later(6)).await;
    assert_eq!(
        page.status, 200,
        "the old tag is not the new page's: {}",
        page.body
    );
    assert_eq!(page.body["entries"][0]["name"], "Rude Name", "{}", page.body);
    let renamed_tag = page.etag.clone().expect("an entity tag");
    assert_ne!(renamed_tag, old_tag);
    // Quiet again: the next tick leaves the ranking alone.
    assert!(!tick(&store, 7).await.contains(&"mahjong-level-5".to_string()));
    // OP-5, PF-1: an operator resets the name; gone at the next refresh, everywhere.
    moderate(&store, "cc-a1", "name-reset", later(8)).await;
    assert!(tick(&store, 9).await.contains(&"mahjong-level-5".to_string()));
    let page = read(&store, &ctx, LEVEL_5, &[], "cc-a2", Some(&renamed_tag), later(10)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(
        listed(&page.body),
        [("cc-a1".into(), 1, None), ("cc-a2".into(), 2, None)]
    );
    let around = read(
        &store,
        &ctx,
        &format!("{LEVEL_5}/me"),
        &[("neighbours", "1")],
        "cc-a1",
        None,
        later(10),
    )
    .await;
    assert_eq!(around.status, 200, "{}", around.body);
    assert!(
        listed(&around.body).iter().all(|(_, _, name)| name.is_none()),
        "{}",
        around.body
    );
    assert!(around.body["me"]["name"].is_null(), "{}", around.body);
    // PF-3: a country set: the ranking's view of that country lists the player.
    let moved = crate::profiles::put(
        &store,
        &ctx,
        "/v1/me/profile",
        "cc-a2",
        &json!({"country": "RO"}),
        later(11),
    )
    .await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    assert!(tick(&store, 12).await.contains(&"mahjong-level-5".to_string()));
    let country = read(
        &store,
        &ctx,
        LEVEL_5,
        &[("country", "RO")],
        "cc-a2",
        None,
        later(13),
    )
    .await;
    assert_eq!(country.status, 200, "{}", country.body);
    assert_eq!(listed(&country.body), [("cc-a2".into(), 1, None)]);
}

/// OP-4, GM-6, LB-5: a player suspended from a level's time ranking whose times never
/// change is left out by its next refresh (the ranking is rewritten, the ranks closed
/// up); restored, listed again by the next; deleted, erased by the next. Each change
/// marks the ranking once: the tick after it leaves the ranking alone.
pub async fn op_4_gm_6_a_suspension_and_a_deletion_reach_a_quiet_level_ranking<S: Store + Clone + 'static>(
    store: S,
) {
    let ctx = ApiContext::new(cursor_key());
    for (p, t) in [("cc-b1", 80_000), ("cc-b2", 85_000), ("cc-b3", 90_000)] {
        complete(&store, p, 7, t).await;
    }
    let level = "mahjong-level-7".to_string();
    let path = "/v1/leaderboards/mahjong-level-7";
    assert!(tick(&store, 2).await.contains(&level));
    let ranks =
        |body: &Value| -> Vec<(String, u64)> { listed(body).into_iter().map(|(p, r, _)| (p, r)).collect() };
    let page = read(&store, &ctx, path, &[], "cc-b3", None, later(3)).await;
    let all = vec![
        ("cc-b1".to_string(), 1),
        ("cc-b2".to_string(), 2),
        ("cc-b3".to_string(), 3),
    ];
    assert_eq!(ranks(&page.body), all);
    let tag = page.etag.clone().expect("an entity tag");

    moderate(&store, "cc-b1", "suspend", later(4)).await;
    assert!(tick(&store, 5).await.contains(&level), "the suspension marked it");
    let page = read(&store, &ctx, path, &[], "cc-b3", Some(&tag), later(6)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(
        ranks(&page.body),
        [("cc-b2".to_string(), 1), ("cc-b3".to_string(), 2)]
    );
    assert!(!tick(&store, 7).await.contains(&level), "marked once");

    moderate(&store, "cc-b1", "restore", later(8)).await;
    assert!(tick(&store, 9).await.contains(&level), "the restore marked it");
    let page = read(&store, &ctx, path, &[], "cc-b3", None, later(10)).await;
    assert_eq!(ranks(&page.body), all);

    moderate(&store, "cc-b2", "delete", later(11)).await;
    assert!(tick(&store, 12).await.contains(&level), "the deletion marked it");
    let page = read(&store, &ctx, path, &[], "cc-b3", None, later(13)).await;
    assert_eq!(
        ranks(&page.body),
        [("cc-b1".to_string(), 1), ("cc-b3".to_string(), 2)]
    );
    assert!(!tick(&store, 14).await.contains(&level), "marked once");
}

/// PF-5, LB-5: what a card change's marks cost, counted as DynamoDB bills requests. A
/// rename of a player on no board refreshed when changed reads the profile and makes
/// one Query per family of such boards (levels, tournaments: their entries only);
/// one of a player on 5 level rankings (and on the boards refreshed every tick, which
/// carry no mark) reads one BatchGetItem more (the 5 marks' versions) and writes 5
/// more (a mark each, a write unit each): `N` writes for `N` boards. The next tick
/// rewrites exactly those 5 rankings. A change that changes nothing reads the
/// profile only.
pub async fn pf_5_a_rename_marks_each_quiet_ranking_once_at_a_counted_cost<S: Store + Clone + 'static>(
    store: S,
) {
    let levels = [11, 12, 13, 14, 15];
    for level in levels {
        complete(&store, "cc-c1", level, 60_000 + u64::from(level)).await;
    }
    complete(&store, "cc-c2", 11, 70_000).await;
    crate::fixtures::seed_balance(&store, "cc-c3", 100, 1_000).await;
    tick(&store, 2).await;
    let policy = ProfilePolicy::default();
    let rename = ProfileChange::from_json(&json!({"name": "Counted"})).expect("a change");
    let counted = Counted::new(store.clone());
    let edit = |player: &'static str, minutes: i64| {
        let (counted, policy, rename) = (counted.clone(), policy.clone(), rename.clone());
        async move {
            let before = counted.counts();
            podium_service::profiles::edit::put(&counted, &policy, player, &rename, later(minutes))
                .await
                .expect("renamed");
            let after = counted.counts();
            (after.0 - before.0, after.1 - before.1)
        }
    };
    let n = levels.len() as u64;
    let (reads, writes) = edit("cc-c3", 3).await;
    assert_eq!(
        reads, 2,
        "a player on none: the profile and one Query of their entries"
    );
    assert_eq!(
        edit("cc-c1", 3).await,
        (reads + 1, writes + n),
        "a player on {n} rankings: one BatchGetItem of the marks, one write each"
    );
    assert_eq!(edit("cc-c1", 3).await, (1, 0), "nothing changed: nothing written");
    let mut rewritten: Vec<String> = tick(&store, 4)
        .await
        .into_iter()
        .filter(|b| b.starts_with("mahjong-level-"))
        .collect();
    rewritten.sort();
    let expected: Vec<String> = levels.iter().map(|l| format!("mahjong-level-{l}")).collect();
    assert_eq!(
        rewritten, expected,
        "the player's rankings, each once, and no other"
    );
}

/// PF-1, OP-5 (review: an operator's name reset never reached a frozen period): a
/// week's `final`, never taken again, shows the player's entry without the reset name
/// from the reset on, on its page (the old entity tag answered with the new page),
/// around-me and its country's view; the other players' names stay.
pub async fn pf_1_op_5_a_name_reset_reaches_the_frozen_archives<S: Store + Clone + 'static>(store: S) {
    let ctx = ApiContext::new(crate::contract::cursor_key());
    let t = crate::deletion::t;
    crate::period_close::seed_week(&store).await;
    for (player, name) in [("m01", "Rude Name"), ("m02", "Fine Name")] {
        let named = crate::profiles::put(
            &store,
            &ctx,
            "/v1/me/profile",
            player,
            &json!({"name": name, "country": "RO"}),
            t("2026-11-26T10:00:00Z"),
        )
        .await;
        assert_eq!(named.status, 200, "{}", named.body);
    }
    crate::period_close::freeze(&store, "2026-11-30T10:00:00Z").await;
    let week = [("period", "2026-W48")];
    let in_ro = [("period", "2026-W48"), ("country", "RO")];
    let at = t("2026-11-30T11:00:00Z");
    let name_of = |body: &Value, player: &str| {
        body["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .find(|e| e["player_id"] == player)
            .map(|e| e["name"].clone())
    };
    let before = read(
        &store,
        &ctx,
        "/v1/leaderboards/mahjong-weekly",
        &week,
        "m05",
        None,
        at,
    )
    .await;
    assert_eq!(before.status, 200, "{}", before.body);
    assert_eq!(before.body["snapshot"], "final", "{}", before.body);
    assert_eq!(name_of(&before.body, "m01"), Some(json!("Rude Name")));
    let old_tag = before.etag.clone().expect("an entity tag");
    moderate(&store, "m01", "name-reset", at).await;
    let after = read(
        &store,
        &ctx,
        "/v1/leaderboards/mahjong-weekly",
        &week,
        "m05",
        Some(&old_tag),
        at,
    )
    .await;
    assert_eq!(after.status, 200, "not the old page: {}", after.body);
    assert_eq!(name_of(&after.body, "m01"), Some(Value::Null), "{}", after.body);
    assert_eq!(name_of(&after.body, "m02"), Some(json!("Fine Name")));
    let country = read(
        &store,
        &ctx,
        "/v1/leaderboards/mahjong-weekly",
        &in_ro,
        "m05",
        None,
        at,
    )
    .await;
    assert_eq!(country.status, 200, "{}", country.body);
    assert_eq!(
        name_of(&country.body, "m01"),
        Some(Value::Null),
        "{}",
        country.body
    );
    let around = read(
        &store,
        &ctx,
        "/v1/leaderboards/mahjong-weekly/me",
        &[("period", "2026-W48"), ("neighbours", "1")],
        "m02",
        None,
        at,
    )
    .await;
    assert_eq!(around.status, 200, "{}", around.body);
    assert_eq!(name_of(&around.body, "m01"), Some(Value::Null), "{}", around.body);
    assert_eq!(around.body["me"]["name"], "Fine Name");
}

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! card_changes_tests {
    ($make:path) => {
        $crate::card_changes_tests!(@cases $make;
            pf_5_a_rename_and_a_name_reset_reach_a_quiet_level_ranking,
            op_4_gm_6_a_suspension_and_a_deletion_reach_a_quiet_level_ranking,
            pf_5_a_rename_marks_each_quiet_ranking_once_at_a_counted_cost,
            pf_1_op_5_a_name_reset_reaches_the_frozen_archives,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::card_changes::$case($make().await).await;
            }
        )*
    };
}
