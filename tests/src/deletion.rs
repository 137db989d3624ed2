//! Deleting a player (GM-6) on both stores: afterwards no read shows them (top pages
//! of current and frozen snapshots, cursor walks, a neighbour's around-me, live
//! boards), their own requests answer 400 (GM-6), their opponents' results stay correct under
//! a pseudonym, every remaining ledger still sums to its balance, deleting again is
//! idempotent, an interrupted deletion resumes, and later records naming them are
//! refused naming GM-6, writing nothing.

use chrono::{DateTime, Utc};
use podium_rules::game::Game;
use podium_rules::record::policy::RecordPolicy;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_service::engine::names::pseudonym;
use podium_service::games::incoming::{settle_incoming, Incoming, Outcome};
use podium_service::jobs::{handle, Job, ScheduledRun};
use podium_service::operators::deletion::{delete_player, Tombstone, DELETING};
use podium_service::ServiceError;
use podium_store::{tombstone_key, ErasureStore, SourceKey, Store};

use crate::contract::{cursor_key, score_match};
use crate::fixtures::{rout, seed_balance};

pub(crate) fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

pub(crate) fn quick_match(id: &str, ended_at: &str, winner: &str, loser: &str) -> Vec<u8> {
    serde_json::json!({
        "match_id": id, "game": "mahjong-rivals", "kind": "quick-match",
        "ended_at": ended_at,
        "players": [
            {"player_id": winner, "completed": true, "score": 900},
            {"player_id": loser, "completed": false, "score": 400},
        ],
    })
    .to_string()
    .into_bytes()
}

async fn settle<S: Store + ?Sized>(
    store: &S,
    line: &[u8],
    now: DateTime<Utc>,
) -> Result<Outcome, ServiceError> {
    let policy = RecordPolicy::default();
    let record = Incoming::from_json(line, now, &policy)?;
    let delivery = format!("test-{:016x}", rand::random::<u64>());
    settle_incoming(store, &record, now, &policy, &delivery).await
}

/// `GET path?query` as `player` (the test files' one such request).
pub(crate) fn get(path: &str, player: &str, query: &[(&str, &str)]) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        player: Some(player.into()),
        raw_query: None,
        operator: None,
    }
}

pub(crate) fn ids(page: &ApiResponse) -> Vec<String> {
    page.body["entries"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| e["player_id"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) async fn tick<S: Store + ?Sized>(store: &S, job: Job, at: &str) {
    let runs = handle(
        store,
        ScheduledRun {
            job,
            scheduled_time: t(at),
        },
        &Default::default(),
    )
    .await
    .expect("snapshot tick")
    .runs;
    assert!(runs.iter().all(|r| r.complete), "{runs:?}");
}

/// The players, their matches and snapshots: `bob` plays Seega (against alice,
/// carol, dave) and Mahjong on 18 July (a daily period frozen since) and 19 July.
const PLAYERS: [&str; 5] = ["alice", "bob", "carol", "dave", "erin"];
const NOW: &str = "2027-07-19T06:00:00Z";

pub(crate) async fn seed<S: Store + ?Sized>(store: &S) {
    for (i, p) in PLAYERS.iter().enumerate() {
        seed_balance(store, p, 1_000 + 100 * i as i64, 1_000).await;
    }
    for (id, w, l, at) in [
        ("m-1", "alice", "bob", "2027-07-19T04:00:00Z"),
        ("m-2", "bob", "carol", "2027-07-19T04:10:00Z"),
        ("m-3", "dave", "bob", "2027-07-19T04:20:00Z"),
        ("m-4", "erin", "carol", "2027-07-19T04:30:00Z"),
    ] {
        score_match(
            store,
            &rout(id, w, l, t(at)),
            t(at) + chrono::Duration::minutes(1),
        )
        .await
        .expect("scored");
    }
    // 18 July in Bucharest (UTC+3), then its daily period frozen, then 19 July.
    for (id, at, w, l) in [
        ("qm-1", "2027-07-18T18:00:00Z", "bob", "alice"),
        ("qm-2", "2027-07-18T18:10:00Z", "carol", "dave"),
        ("qm-3", "2027-07-18T18:20:00Z", "erin", "bob"),
    ] {
        let line = quick_match(id, at, w, l);
        assert_eq!(
            settle(store, &line, t(at) + chrono::Duration::minutes(1))
                .await
                .expect("settled"),
            Outcome::Applied
        );
    }
    tick(store, Job::Freeze, "2027-07-18T21:05:00Z").await;
    for (id, at, w, l) in [
        ("qm-4", "2027-07-19T05:00:00Z", "bob", "carol"),
        ("qm-5", "2027-07-19T05:10:00Z", "alice", "erin"),
    ] {
        let line = quick_match(id, at, w, l);
        assert_eq!(
            settle(store, &line, t(at) + chrono::Duration::minutes(1))
                .await
                .expect("settled"),
            Outcome::Applied
        );
    }
    tick(store, Job::Refresh, "2027-07-19T05:30:00Z").await;
}

/// Every board read a player could appear on: (board, query).
const BOARD_READS: [(&str, &[(&str, &str)]); 5] = [
    ("seega", &[]),
    ("mahjong-amr", &[]),
    ("mahjong-weekly", &[]),
    ("mahjong-daily", &[]),
    ("mahjong-daily", &[("period", "2027-07-18")]),
];

/// Every entry of a board, walked one entry a page through the API's cursors.
async fn walk<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    board: &str,
    query: &[(&str, &str)],
) -> Vec<String> {
    let path = format!("/v1/leaderboards/{board}");
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut q: Vec<(&str, &str)> = query.to_vec();
        q.push(("limit", "1"));
        if let Some(c) = cursor.as_deref() {
            q.push(("cursor", c));
        }
        let page = api::handle(store, ctx, &get(&path, "alice", &q), t(NOW)).await;
        assert_eq!(page.status, 200, "{board}: {}", page.body);
        out.extend(ids(&page));
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return out,
        }
    }
    panic!("{board}: the walk does not end");
}

/// GM-6: after `bob` is deleted no read shows him (every board's top page from the
/// current snapshot, a frozen past period's, cursor walks, alice's around-me), his
/// own reads answer 400 (GM-6), alice still sees their match with a pseudonym in his place,
/// every remaining ledger sums to its balance, and deleting again changes nothing.
pub async fn gm6_deleted_player_absent_from_every_read<S: Store + ErasureStore + Clone + 'static>(store: S) {
    seed(&store).await;
    let ctx = ApiContext::new(cursor_key());
    // Before: bob is on every board (and the top pages are rendered and kept).
    for (board, query) in BOARD_READS {
        let page = api::handle(
            &store,
            &ctx,
            &get(&format!("/v1/leaderboards/{board}"), "alice", query),
            t(NOW),
        )
        .await;
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(
            page.body["snapshot"].is_string(),
            "{board} from a snapshot: {}",
            page.body
        );
        assert!(
            ids(&page).contains(&"bob".to_string()),
            "{board} {query:?}: {}",
            page.body
        );
    }
    let walk_before = walk(&store, &ctx, "seega", &[]).await;
    assert_eq!(walk_before.len(), PLAYERS.len());

    let mut bob_had = Vec::new();
    for game in [Game::Seega, Game::MahjongRivals] {
        bob_had.push(store.get_balances(game, &["bob"]).await.expect("balance")[0].points);
    }
    let report = delete_player(&store, "bob", t(NOW)).await.expect("deleted");
    assert!(!report.already_deleted && !report.resumed, "{report:?}");
    assert_eq!(report.pseudonym, pseudonym("bob"));
    assert_eq!(report.balances, 2, "Seega and Mahjong: {report:?}");
    assert!(report.entries >= 5, "weekly ×2, daily ×2, AMR: {report:?}");
    assert!(report.snapshots.len() >= 5, "{report:?}");
    assert!(report.results >= 5, "m-1..m-3, qm-1, qm-3, qm-4: {report:?}");

    // The pointer cache's TTL passes (other processes: within CACHE_TTL); the
    // rendered top pages of the same snapshots must not be served again.
    ctx.cache.forget();
    for (board, query) in BOARD_READS {
        let path = format!("/v1/leaderboards/{board}");
        for limit in ["50", "2"] {
            let mut q = query.to_vec();
            q.push(("limit", limit));
            let page = api::handle(&store, &ctx, &get(&path, "alice", &q), t(NOW)).await;
            assert_eq!(page.status, 200, "{}", page.body);
            assert!(
                !ids(&page).contains(&"bob".to_string()),
                "{board} {q:?}: {}",
                page.body
            );
            assert!(!ids(&page).is_empty(), "{board} {q:?}: {}", page.body);
        }
        let walked = walk(&store, &ctx, board, query).await;
        assert!(!walked.contains(&"bob".to_string()), "{board}: {walked:?}");
        let mut unique = walked.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), walked.len(), "{board}: each once: {walked:?}");
    }
    let walked = walk(&store, &ctx, "seega", &[]).await;
    let expected: Vec<String> = walk_before.into_iter().filter(|p| p != "bob").collect();
    assert_eq!(walked, expected, "the others, in the snapshot's order");
    // A neighbour's around-me, from the snapshot.
    for (board, query) in BOARD_READS.iter().take(4) {
        let me = api::handle(
            &store,
            &ctx,
            &get(
                &format!("/v1/leaderboards/{board}/me"),
                "alice",
                &[("neighbours", "5")]
                    .iter()
                    .chain(query.iter())
                    .copied()
                    .collect::<Vec<_>>(),
            ),
            t(NOW),
        )
        .await;
        assert_eq!(me.status, 200, "{board}: {}", me.body);
        assert!(!ids(&me).contains(&"bob".to_string()), "{board}: {}", me.body);
        assert!(ids(&me).contains(&"alice".to_string()), "{board}: {}", me.body);
    }
    // bob's own reads: 400 naming the caller and GM-6, not 5xx.
    for (path, query) in [
        ("/v1/me", &[][..]),
        ("/v1/me/mahjong-rivals", &[][..]),
        ("/v1/leaderboards/seega/me", &[][..]),
        (
            "/v1/leaderboards/mahjong-daily/me",
            &[("period", "2027-07-18")][..],
        ),
        ("/v1/me/matches/m-1", &[][..]),
    ] {
        let r = api::handle(&store, &ctx, &get(path, "bob", query), t(NOW)).await;
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert!(
            r.body["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("caller (GM-6)"),
            "{path}: {}",
            r.body
        );
    }
    // alice's result of m-1 is unchanged but for bob's id.
    let m = api::handle(&store, &ctx, &get("/v1/me/matches/m-1", "alice", &[]), t(NOW)).await;
    assert_eq!(m.status, 200, "{}", m.body);
    let text = m.body.to_string();
    assert!(!text.contains("\"bob\""), "{text}");
    assert_eq!(m.body["players"][0]["player_id"], "alice", "{text}");
    assert_eq!(m.body["players"][0]["points_shown"], "+311", "{text}");
    assert_eq!(m.body["players"][1]["player_id"], pseudonym("bob"), "{text}");
    // Every remaining ledger sums to its balance (GM-4); bob's is the pseudonym's.
    for p in PLAYERS.iter().filter(|p| **p != "bob") {
        for game in [Game::Seega, Game::MahjongRivals] {
            let sum: i64 = store
                .ledger_entries(game, p)
                .await
                .expect("ledger")
                .iter()
                .map(|e| e.applied)
                .sum();
            let balance = store.get_balances(game, &[p]).await.expect("balance")[0].points;
            assert_eq!(sum, balance, "{p} on {}", game.id());
        }
    }
    for (game, had) in [Game::Seega, Game::MahjongRivals].into_iter().zip(bob_had) {
        assert!(store
            .ledger_entries(game, "bob")
            .await
            .expect("ledger")
            .is_empty());
        let moved = store
            .ledger_entries(game, &pseudonym("bob"))
            .await
            .expect("ledger");
        assert!(!moved.is_empty());
        assert!(moved.iter().all(|e| e.player_id == pseudonym("bob")));
        let sum: i64 = moved.iter().map(|e| e.applied).sum();
        assert_eq!(sum, had, "the moved ledger still sums to what bob had");
    }
    // Deleting again: nothing to do.
    let again = delete_player(&store, "bob", t(NOW)).await.expect("idempotent");
    assert!(again.already_deleted, "{again:?}");
    // A walk of the old snapshot, started before the next refresh: its pointer is
    // replaced, and the new one still names bob as erased, so the rest of the old
    // snapshot leaves him out too.
    let first = api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/seega", "alice", &[("limit", "1")]),
        t(NOW),
    )
    .await;
    let pinned = first.body["next_cursor"].as_str().expect("a cursor").to_string();
    let old_snapshot = first.body["snapshot"].clone();
    // The next refresh re-ranks the boards without him.
    tick(&store, Job::Refresh, "2027-07-19T06:05:00Z").await;
    ctx.cache.forget();
    let mut rest = ids(&first);
    let mut cursor = Some(pinned);
    while let Some(c) = cursor.take() {
        let page = api::handle(
            &store,
            &ctx,
            &get(
                "/v1/leaderboards/seega",
                "alice",
                &[("limit", "1"), ("cursor", &c)],
            ),
            t(NOW),
        )
        .await;
        assert_eq!(page.status, 200, "{}", page.body);
        assert_eq!(page.body["snapshot"], old_snapshot, "{}", page.body);
        rest.extend(ids(&page));
        cursor = page.body["next_cursor"].as_str().map(str::to_string);
    }
    assert_eq!(rest, expected, "the old snapshot, without bob");
    let page = api::handle(&store, &ctx, &get("/v1/leaderboards/seega", "alice", &[]), t(NOW)).await;
    assert!(!ids(&page).contains(&"bob".to_string()), "{}", page.body);
    let ranks: Vec<u64> = page.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["rank"].as_u64())
        .collect();
    assert_eq!(ranks, (1..=4).collect::<Vec<u64>>(), "{}", page.body);
}

/// GM-6: records naming a deleted player are refused naming the field and GM-6, and
/// write nothing (a Seega match, a void one, a Mahjong Quick Match, a daily bonus).
pub async fn gm6_records_naming_a_deleted_player_are_refused<S: Store + ErasureStore + Clone + 'static>(
    store: S,
) {
    seed(&store).await;
    delete_player(&store, "bob", t(NOW)).await.expect("deleted");
    let alice_before = store.get_balances(Game::Seega, &["alice"]).await.expect("read")[0].clone();
    let at = t("2027-07-19T05:50:00Z");
    let refused = score_match(&store, &rout("m-9", "alice", "bob", at), t(NOW)).await;
    match refused {
        Err(ServiceError::Invalid(e)) => {
            assert_eq!(
                (e.field.as_str(), e.rule),
                ("players[1].player_id", "GM-6"),
                "{e}"
            );
        }
        other => panic!("refused naming GM-6, got {other:?}"),
    }
    let refused = score_match(&store, &rout("m-10", "bob", "alice", at), t(NOW)).await;
    assert!(
        matches!(&refused, Err(ServiceError::Invalid(e)) if e.rule == "GM-6" && e.field == "players[0].player_id"),
        "{refused:?}"
    );
    // The pseudonym is no account either: nobody scores as it.
    let alias = podium_service::engine::names::pseudonym("bob");
    let refused = score_match(&store, &rout("m-11", &alias, "alice", at), t(NOW)).await;
    assert!(
        matches!(&refused, Err(ServiceError::Invalid(e)) if e.rule == "GM-6" && e.field == "players[0].player_id"),
        "{refused:?}"
    );
    assert_eq!(
        store
            .get_source(&SourceKey::new("match", "m-9"))
            .await
            .expect("read"),
        None
    );
    assert_eq!(
        store.get_balances(Game::Seega, &["alice"]).await.expect("read")[0],
        alice_before
    );
    assert!(store
        .get_balance(Game::Seega, "bob")
        .await
        .expect("read")
        .is_none());
    // A Mahjong Quick Match through the queue's entry point.
    let line = quick_match("qm-9", "2027-07-19T05:50:00Z", "carol", "bob");
    let refused = settle(&store, &line, t(NOW)).await;
    assert!(
        matches!(&refused, Err(ServiceError::Invalid(e)) if e.rule == "GM-6" && e.field == "players[1].player_id"),
        "{refused:?}"
    );
    assert_eq!(
        store
            .get_source(&SourceKey::new("quick-match", "qm-9"))
            .await
            .expect("read"),
        None
    );
    // The daily bonus, through the API: 400 naming GM-6, nothing written.
    let ctx = ApiContext::new(cursor_key());
    let mut req = get("/v1/games/mahjong-rivals/daily-bonus", "bob", &[]);
    req.method = "POST".into();
    let r = api::handle(&store, &ctx, &req, t(NOW)).await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body["message"].as_str().unwrap_or("").contains("GM-6"),
        "{}",
        r.body
    );
    assert!(store
        .get_balance(Game::MahjongRivals, "bob")
        .await
        .expect("read")
        .is_none());
    let holdings = podium_store::ErasureStore::holdings(&store, "bob")
        .await
        .expect("holdings");
    assert!(holdings.is_empty(), "{holdings:?}");
}

/// GM-6: a deletion interrupted after its tombstone (state `deleting`) already
/// refuses new records, and running it again finishes it.
pub async fn gm6_interrupted_deletion_resumes<S: Store + ErasureStore + Clone + 'static>(store: S) {
    seed(&store).await;
    let tomb = Tombstone {
        state: DELETING.into(),
        started_at: Some(t(NOW)),
        ..Tombstone::default()
    };
    let body = serde_json::to_vec(&tomb).expect("json");
    assert!(store
        .put_item_if(&tombstone_key("bob"), &body, 0)
        .await
        .expect("tombstone"));
    let before = store.get_balance(Game::Seega, "bob").await.expect("read");
    let refused = score_match(
        &store,
        &rout("m-8", "bob", "carol", t("2027-07-19T05:50:00Z")),
        t(NOW),
    )
    .await;
    assert!(
        matches!(&refused, Err(ServiceError::Invalid(e)) if e.rule == "GM-6"),
        "{refused:?}"
    );
    assert_eq!(store.get_balance(Game::Seega, "bob").await.expect("read"), before);
    let report = delete_player(&store, "bob", t(NOW)).await.expect("resumed");
    assert!(report.resumed && !report.already_deleted, "{report:?}");
    assert_eq!(report.balances, 2, "{report:?}");
    assert!(store
        .get_balance(Game::Seega, "bob")
        .await
        .expect("read")
        .is_none());
    let ctx = ApiContext::new(cursor_key());
    let page = api::handle(&store, &ctx, &get("/v1/leaderboards/seega", "alice", &[]), t(NOW)).await;
    assert!(!ids(&page).contains(&"bob".to_string()), "{}", page.body);
}

/// GM-6 under a race: matches naming the player commit while the deletion runs. Each
/// is either applied before the tombstone (and then erased with the rest) or refused
/// naming GM-6; afterwards the player is on no live board and the store keeps nothing
/// under them, and every other ledger still sums to its balance.
pub async fn gm6_records_racing_the_deletion_leave_nothing<S: Store + ErasureStore + Clone + 'static>(
    store: S,
) {
    for p in ["bob", "o-0", "o-1", "o-2", "o-3"] {
        seed_balance(&store, p, 5_000, 1_000).await;
    }
    let at = t("2027-07-19T05:00:00Z");
    let mut tasks = Vec::new();
    for i in 0..24 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let other = format!("o-{}", i % 4);
            let (w, l) = if i % 2 == 0 {
                ("bob", other.as_str())
            } else {
                (other.as_str(), "bob")
            };
            let r = rout(&format!("race-{i}"), w, l, at + chrono::Duration::seconds(i));
            score_match(&store, &r, t(NOW)).await
        }));
    }
    let deleting = {
        let store = store.clone();
        tokio::spawn(async move { delete_player(&store, "bob", t(NOW)).await })
    };
    let mut applied = 0;
    for task in tasks {
        match task.await.expect("task") {
            Ok(_) => applied += 1,
            Err(ServiceError::Invalid(e)) => assert_eq!(e.rule, "GM-6", "{e}"),
            Err(e) => panic!("neither applied nor refused under GM-6: {e:?}"),
        }
    }
    let report = deleting.await.expect("task").expect("deleted");
    assert!(!report.already_deleted);
    // Whatever the interleaving, bob is gone from the live board and the store.
    let board = podium_rules::board::BoardRef::all_time("seega");
    let listed = store.board_after(&board, None, 100).await.expect("board");
    assert!(!listed.iter().any(|s| s.player_id == "bob"), "{listed:?}");
    assert_eq!(listed.len(), 4, "{listed:?}");
    let holdings = store.holdings("bob").await.expect("holdings");
    assert!(holdings.is_empty(), "{holdings:?} ({applied} applied)");
    for p in ["o-0", "o-1", "o-2", "o-3"] {
        let sum: i64 = store
            .ledger_entries(Game::Seega, p)
            .await
            .expect("ledger")
            .iter()
            .map(|e| e.applied)
            .sum();
        let balance = store.get_balances(Game::Seega, &[p]).await.expect("balance")[0].points;
        assert_eq!(sum, balance, "{p}");
    }
}

/// GM-6: a deletion while a board has no snapshot yet (its first run may have read
/// the player's entries already) is kept for the board's first snapshot: the page it
/// publishes leaves the player out.
pub async fn gm6_erasure_before_the_first_snapshot_is_kept<S: Store + Clone + 'static>(store: S) {
    for (i, p) in ["ann", "ben", "cat"].iter().enumerate() {
        seed_balance(&store, p, 300 - 100 * i as i64, 1_000 + i as i64).await;
    }
    let board = podium_rules::board::BoardRef::all_time("seega");
    // The run has read "ben" before the deletion removed the entry: modelled by
    // erasing before the run, with the entry still on the board.
    let marked = podium_service::boards::snapshot::write::erase_player(&store, &board, "ben", t(NOW))
        .await
        .expect("erase");
    assert!(!marked, "no pointer to mark yet");
    podium_service::boards::snapshot::write::run(&store, &board, "first", t(NOW), 10, None, t(NOW))
        .await
        .expect("snapshot");
    let ctx = ApiContext::new(cursor_key());
    let page = api::handle(&store, &ctx, &get("/v1/leaderboards/seega", "ann", &[]), t(NOW)).await;
    assert_eq!(page.body["snapshot"], "first", "{}", page.body);
    let shown: Vec<&str> = page.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["player_id"].as_str())
        .collect();
    assert_eq!(shown, ["ann", "cat"], "{}", page.body);
}

/// The seeded board's first page for alice (limit 1), then bob deleted: the page's
/// cursor and the context that issued it.
async fn cursor_then_bob_deleted<S: Store + ErasureStore + Clone + 'static>(
    store: &S,
) -> (ApiContext, String) {
    seed(store).await;
    let ctx = ApiContext::new(cursor_key());
    let first = api::handle(
        store,
        &ctx,
        &get("/v1/leaderboards/seega", "alice", &[("limit", "1")]),
        t(NOW),
    )
    .await;
    assert_eq!(first.status, 200, "{}", first.body);
    let cursor = first.body["next_cursor"].as_str().expect("a cursor").to_string();
    delete_player(store, "bob", t(NOW)).await.expect("deleted");
    (ctx, cursor)
}

/// The next page after `cursor` (limit 5) read by alice at `at`, the pointer cache cold.
async fn page_after<S: Store + ErasureStore + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    cursor: &str,
    at: &str,
) -> ApiResponse {
    ctx.cache.forget();
    api::handle(
        store,
        ctx,
        &get(
            "/v1/leaderboards/seega",
            "alice",
            &[("limit", "5"), ("cursor", cursor)],
        ),
        t(at),
    )
    .await
}

/// Found by attack (GM-6): a cursor into a refresh snapshot taken before a deletion
/// is refused once that snapshot is older than its retention (its erasures are not
/// kept longer), instead of showing the deleted player from pages a lazy TTL left.
pub async fn gm6_an_old_cursor_never_shows_a_deleted_player<S: Store + ErasureStore + Clone + 'static>(
    store: S,
) {
    let (ctx, cursor) = cursor_then_bob_deleted(&store).await;
    for at in ["2027-07-20T05:35:00Z", "2027-07-20T05:40:00Z"] {
        tick(&store, Job::Refresh, at).await;
    }
    let later = page_after(&store, &ctx, &cursor, "2027-07-20T05:41:00Z").await;
    assert_eq!(later.status, 400, "{}", later.body);
    assert!(
        later.body["message"].as_str().unwrap_or("").starts_with("cursor"),
        "{}",
        later.body
    );
    assert!(!later.body.to_string().contains("\"bob\""));
}

/// The other half of the retention rule (GM-6, LB-4): a cursor into the *current*
/// snapshot stays good however old that snapshot is (a refresh job that stopped for
/// days must not break page two), and the current pointer's erasures still hide a
/// player deleted after the cursor was issued.
pub async fn gm6_a_cursor_into_the_current_snapshot_outlives_its_retention<
    S: Store + ErasureStore + Clone + 'static,
>(
    store: S,
) {
    let (ctx, cursor) = cursor_then_bob_deleted(&store).await;
    // Three days on, no refresh ran in between.
    let later = page_after(&store, &ctx, &cursor, "2027-07-22T06:00:00Z").await;
    assert_eq!(later.status, 200, "{}", later.body);
    assert!(
        !later.body["entries"].as_array().expect("entries").is_empty(),
        "{}",
        later.body
    );
    assert!(!later.body.to_string().contains("\"bob\""), "{}", later.body);
}

/// GM-6 with LB-3's rendered cursor pages: a page a cursor reaches, rendered once and
/// kept for every caller, is not served after a deletion of a player it shows (the
/// deletion raises the pointer's revision, which names the kept body).
pub async fn gm6_a_cursor_page_rendered_before_a_deletion_is_not_served_after<
    S: Store + ErasureStore + Clone + 'static,
>(
    store: S,
) {
    seed(&store).await;
    let ctx = ApiContext::new(cursor_key());
    let read = |who: &'static str, q: Vec<(&'static str, String)>| {
        let (store, ctx) = (store.clone(), &ctx);
        async move {
            let q: Vec<(&str, &str)> = q.iter().map(|(k, v)| (*k, v.as_str())).collect();
            api::handle(&store, ctx, &get("/v1/leaderboards/seega", who, &q), t(NOW)).await
        }
    };
    let first = read("alice", vec![("limit", "1".into())]).await;
    let cursor = first.body["next_cursor"].as_str().expect("a cursor").to_string();
    let q = vec![("limit", "5".to_string()), ("cursor", cursor)];
    let before = read("alice", q.clone()).await;
    assert_eq!(before.status, 200, "{}", before.body);
    assert!(before.body.to_string().contains("\"bob\""), "{}", before.body);
    // The same page for another caller: the same body (rendered once).
    assert_eq!(read("carol", q.clone()).await.body, before.body);
    delete_player(&store, "bob", t(NOW)).await.expect("deleted");
    ctx.cache.forget();
    let after = read("alice", q).await;
    assert_eq!(after.status, 200, "{}", after.body);
    assert!(!after.body.to_string().contains("\"bob\""), "{}", after.body);
}

/// A source keyed by one player (it writes their state) whose result names another.
struct KeyedByOneNamingAnother;

impl podium_service::engine::source::Source for KeyedByOneNamingAnother {
    type Result = serde_json::Value;
    fn key(&self) -> SourceKey {
        SourceKey::new("test-message", "board@p#s1/ka-1")
    }
    fn content_hash(&self) -> String {
        "h".into()
    }
    fn reads(&self) -> podium_service::engine::source::Reads {
        Default::default()
    }
    fn plan(
        &self,
        _: &podium_service::engine::source::ReadState,
    ) -> Result<podium_rules::settlement::Planned<serde_json::Value>, ServiceError> {
        let mut s = podium_rules::settlement::Settlement::result_only(
            serde_json::json!({"by": [{"player_id": "kb-1", "value": 3}]}),
        );
        s.states.push(podium_rules::settlement::StateChange {
            player_id: "ka-1".into(),
            name: "test-seen".into(),
            body: serde_json::json!({"seen": 1}),
        });
        Ok(podium_rules::settlement::Planned::Write(s))
    }
    fn id_field(&self) -> &'static str {
        "id"
    }
}

/// Found by attack (GM-6): a source keyed by one player and naming another (an
/// `overtaken` message naming its passer) is renamed when the first is deleted; the
/// second's deletion still finds it under its new key and anonymises it.
pub async fn gm6_chained_deletions_find_a_renamed_source<S: Store + ErasureStore + Clone + 'static>(
    store: S,
) {
    podium_service::engine::settle::settle(&store, &KeyedByOneNamingAnother, t(NOW))
        .await
        .expect("settled");
    delete_player(&store, "ka-1", t(NOW)).await.expect("first");
    let moved = SourceKey::new("test-message", format!("board@p#s1/{}", pseudonym("ka-1")));
    let before = store.get_source(&moved).await.expect("read").expect("renamed");
    assert!(before.result.contains("\"kb-1\""), "{}", before.result);
    delete_player(&store, "kb-1", t(NOW)).await.expect("second");
    let after = store
        .get_source(&moved)
        .await
        .expect("read")
        .expect("still there");
    assert!(!after.result.contains("\"kb-1\""), "{}", after.result);
    assert!(after.result.contains(&pseudonym("kb-1")), "{}", after.result);
}

/// Every string in `v` (keys and values), for "does this document name the id".
fn mentions(v: &serde_json::Value, id: &str) -> bool {
    match v {
        serde_json::Value::String(s) => s == id || s.split([':', '/']).any(|p| p == id),
        serde_json::Value::Array(a) => a.iter().any(|x| mentions(x, id)),
        serde_json::Value::Object(o) => o.iter().any(|(k, x)| k == id || mentions(x, id)),
        _ => false,
    }
}

/// GM-6 (review round 3, fault 2: `deletion-results/`): a deletion finds every stored
/// item that names the player, not only what their ledger names: an Arena where they
/// placed 4th (prize 0), a tournament's registration, a table's TP and the
/// tournament's winners, an unrated Dots and Boxes match against the CPU, a void Seega
/// match, and their league cohort's member list. Afterwards the co-players' reads
/// show the pseudonym in their place, and no stored item of them names the id.
pub async fn gm6_deletion_finds_every_item_that_names_the_player<
    S: Store + ErasureStore + Clone + 'static,
>(
    store: S,
) {
    use podium_service::games::tournaments;
    // An Arena: zed 4th, paid nothing.
    let arena = crate::mahjong::arena_line(
        "ar-del",
        ["za", "zb", "zc", "zed"],
        [[300, 300, 300], [200, 200, 200], [100, 100, 100], [0, 0, 0]],
        [0; 4],
    );
    crate::mahjong::settle(&store, &arena, t("2027-07-18T21:31:00Z"))
        .await
        .expect("arena");
    // A tournament: zed registers, earns TP at a table, wins; za registers too.
    let now = t("2027-07-14T17:00:00Z");
    tournaments::configure(&store, &crate::tournaments::cup("cup-del", 2, false), "op-1", now)
        .await
        .expect("configured");
    for (p, at) in [("zed", "2027-07-14T16:00:00Z"), ("za", "2027-07-14T16:30:00Z")] {
        crate::tournaments::send(&store, crate::tournaments::registration("cup-del", p, at), now)
            .await
            .expect("registered");
    }
    tournaments::tick(&store, t("2027-07-14T18:05:00Z"))
        .await
        .expect("start");
    crate::tournaments::send(
        &store,
        crate::tournaments::table(
            "cup-del",
            "tb-del",
            "2027-07-14T18:20:00Z",
            &[("zed", true, 1200), ("za", false, 5)],
        ),
        t("2027-07-14T18:30:00Z"),
    )
    .await
    .expect("table");
    for at in ["2027-07-14T19:05:00Z", "2027-07-14T19:10:00Z"] {
        tournaments::tick(&store, t(at)).await.expect("tick");
    }
    // An unrated Dots and Boxes match against the CPU, and a void Seega match.
    let board = podium_rules::dots_and_boxes::board::Board { width: 3, height: 3 };
    let moves = crate::dots_and_boxes::full_game(&board);
    let replayed = podium_rules::dots_and_boxes::replay::replay(&board, &moves).expect("legal");
    let winner = match podium_rules::dots_and_boxes::replay::outcome(&replayed, None) {
        Some(podium_rules::dots_and_boxes::replay::Outcome::Win(0)) => Some("zed"),
        Some(podium_rules::dots_and_boxes::replay::Outcome::Win(_)) => Some("cpu-del"),
        _ => None,
    };
    let dots = crate::dots_and_boxes::line("db-del", [("zed", true), ("cpu-del", false)], &moves, winner);
    crate::dots_and_boxes::send(&store, &dots)
        .await
        .expect("unrated match");
    let mut void = rout("sg-void", "zed", "zv", t("2027-07-19T04:00:00Z"));
    void.players[0].stones_on_board = 2;
    void.players[0].stones_in_hand = 22;
    void.players[1].stones_on_board = 1;
    void.players[1].stones_in_hand = 23;
    void.stones_placed = 3;
    score_match(&store, &void, t(NOW)).await.expect("void");
    // A league cohort: zed's and zc's first points of week 2027-W29.
    let weekly = podium_rules::board::board_def("mahjong-weekly").expect("registered");
    for p in ["zed", "zc"] {
        podium_service::boards::periods::credit(
            &store,
            weekly,
            p,
            10,
            t("2027-07-19T05:00:00Z"),
            t("2027-07-19T05:00:00Z"),
            &format!("lg-{p}"),
        )
        .await
        .expect("credit");
    }
    let membership: podium_rules::league::Membership = serde_json::from_str(
        &store
            .get_state(
                "zed",
                &podium_rules::league::state_name(&podium_rules::league::LEAGUES[0]),
            )
            .await
            .expect("read")
            .expect("placed")
            .body,
    )
    .expect("membership");
    // zed's prize of week 28 placed them there; week 29 waits for week 28's close.
    let (week, cohort) = (
        membership.week.expect("a week"),
        membership.cohort.expect("a cohort"),
    );
    let before =
        podium_service::players::leagues::members(&store, &podium_rules::league::LEAGUES[0], &week, &cohort)
            .await
            .expect("members");
    assert!(before.contains(&"zed".to_string()), "{week} {cohort}: {before:?}");

    let report = delete_player(&store, "zed", t(NOW)).await.expect("deleted");
    assert!(report.results >= 6, "{report:?}");
    let alias = pseudonym("zed");
    let ctx = ApiContext::new(cursor_key());
    for (path, reader) in [
        ("/v1/me/arenas/ar-del", "za"),
        ("/v1/me/tournament-tables/tb-del", "za"),
        ("/v1/tournaments/cup-del", "za"),
        ("/v1/me/matches/sg-void", "zv"),
    ] {
        let r = api::handle(&store, &ctx, &get(path, reader, &[]), t(NOW)).await;
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        assert!(!mentions(&r.body, "zed"), "{path} still names zed: {}", r.body);
        assert!(
            mentions(&r.body, &alias),
            "{path} shows the pseudonym: {}",
            r.body
        );
    }
    // The stored items themselves.
    for (kind, id) in [
        ("arena", "ar-del".to_string()),
        ("tournament-table", "tb-del".to_string()),
        ("dots-and-boxes", "db-del".to_string()),
        ("match", "sg-void".to_string()),
        ("tournament-status", "cup-del:final".to_string()),
        ("tournament-registration", format!("cup-del/{alias}")),
    ] {
        let stored = store
            .get_source(&SourceKey::new(kind, id.clone()))
            .await
            .expect("read")
            .unwrap_or_else(|| panic!("{kind}/{id} is stored"));
        let doc: serde_json::Value = serde_json::from_str(&stored.result).expect("json");
        assert!(!mentions(&doc, "zed"), "{kind}/{id}: {doc}");
    }
    assert!(
        store
            .get_source(&SourceKey::new("tournament-registration", "cup-del/zed"))
            .await
            .expect("read")
            .is_none(),
        "the registration is no longer keyed by the id"
    );
    let winners = store
        .get_state(
            &podium_rules::mahjong::tournament_play::tournament_owner("cup-del"),
            podium_rules::mahjong::tournament_play::TOURNAMENT_STATE,
        )
        .await
        .expect("read")
        .expect("state");
    assert!(!winners.body.contains("\"zed\""), "{}", winners.body);
    let members =
        podium_service::players::leagues::members(&store, &podium_rules::league::LEAGUES[0], &week, &cohort)
            .await
            .expect("members");
    assert!(
        !members.contains(&"zed".to_string()) && members.contains(&alias),
        "{members:?}"
    );
    assert!(store.holdings("zed").await.expect("holdings").is_empty());
}

/// GM-6 (review round 3, fault 3: `deleted-identity/`): after dz-1 claimed today's
/// bonus and was deleted, every route answers dz-1 400 naming `caller` and GM-6,
/// the repeated claim included (no pseudonym, no balance); a caller whose identity
/// is the pseudonym, or any id of its reserved form, gets the same and reads nothing
/// of the erased ledger; a record naming the reserved form is refused; nothing is a 5xx.
pub async fn gm6_a_deleted_identity_and_its_pseudonym_are_refused<
    S: Store + ErasureStore + Clone + 'static,
>(
    store: S,
) {
    let ctx = ApiContext::new(cursor_key());
    let today = t("2027-07-19T09:00:00Z");
    let claim = |player: &str| ApiRequest {
        method: "POST".into(),
        ..get("/v1/games/mahjong-rivals/daily-bonus", player, &[])
    };
    let first = api::handle(&store, &ctx, &claim("dz-1"), today).await;
    assert_eq!(first.status, 200, "{}", first.body);
    delete_player(&store, "dz-1", today).await.expect("deleted");
    let alias = pseudonym("dz-1");
    let refused = |r: &ApiResponse, what: &str| {
        assert_eq!(r.status, 400, "{what}: {}", r.body);
        assert_eq!(r.body["error"], "invalid", "{what}: {}", r.body);
        let message = r.body["message"].as_str().unwrap_or("");
        assert!(message.starts_with("caller (GM-6)"), "{what}: {}", r.body);
        let text = r.body.to_string();
        assert!(
            !text.contains(&alias) && !text.contains("balance"),
            "{what}: {text}"
        );
    };
    // The same ApiContext remembered dz-1 as not deleted a moment ago: a write reads
    // the tombstone whatever it remembers, and reads learn it too.
    for caller in ["dz-1", alias.as_str(), "deleted-0000000000000000", "deleted-x"] {
        refused(&api::handle(&store, &ctx, &claim(caller), today).await, caller);
        refused(&api::handle(&store, &ctx, &claim(caller), today).await, caller);
        for (path, query) in [
            ("/v1/me", &[][..]),
            ("/v1/me/ledger", &[("game", "mahjong-rivals")][..]),
            ("/v1/me/mahjong-rivals", &[][..]),
            ("/v1/me/inbox", &[][..]),
            ("/v1/leaderboards/mahjong-amr", &[][..]),
            ("/v1/leaderboards/mahjong-amr/me", &[][..]),
            ("/v1/leagues/mahjong-league/me", &[][..]),
            ("/v1/me/follows", &[][..]),
        ] {
            let fresh = ApiContext::new(cursor_key());
            for c in [&ctx, &fresh] {
                let r = api::handle(&store, c, &get(path, caller, query), today).await;
                refused(&r, &format!("{caller} {path}"));
            }
        }
    }
    // The pseudonym's partition holds the moved ledger; no caller reads it.
    assert!(!store
        .ledger_entries(Game::MahjongRivals, &alias)
        .await
        .expect("ledger")
        .is_empty());
    // Records may not name the reserved form either.
    let line = quick_match(
        "qm-alias",
        "2027-07-19T08:00:00Z",
        "deleted-0123456789abcdef",
        "dz-2",
    );
    match settle(&store, &line, today).await {
        Err(ServiceError::Invalid(e)) => {
            assert_eq!(
                (e.field.as_str(), e.rule),
                ("players[0].player_id", "GM-6"),
                "{e}"
            )
        }
        other => panic!("refused naming GM-6: {other:?}"),
    }
}

/// GM-6, PF-5 (review: profile change records kept a deleted player's id for up to
/// two days): pc-1 changes their profile twice and pc-2 once; the snapshot runs' record
/// of changes lists both. Deleting pc-1 erases pc-1's records at once (every one,
/// whatever its age), pc-2's stay; deleting again finds nothing left.
pub async fn gm6_a_deletion_erases_the_players_profile_changes<S: Store + ErasureStore + Clone + 'static>(
    store: S,
) {
    let ctx = ApiContext::new(cursor_key());
    let start = crate::fixtures::now();
    for (player, name, at) in [
        ("pc-1", "First Name", start),
        ("pc-2", "Other Player", start + chrono::Duration::minutes(1)),
        ("pc-1", "Second Name", start + chrono::Duration::hours(30)),
    ] {
        let answer = crate::profiles::put(
            &store,
            &ctx,
            "/v1/me/profile",
            player,
            &serde_json::json!({"name": name}),
            at,
        )
        .await;
        assert_eq!(answer.status, 200, "{player}: {}", answer.body);
    }
    let end = start + chrono::Duration::hours(31);
    let changed = |store: S| async move {
        let mut found = podium_service::profiles::changed_between(
            &store,
            start.timestamp_millis(),
            end.timestamp_millis(),
        )
        .await
        .expect("read")
        .expect("within the retention")
        .into_iter()
        .collect::<Vec<_>>();
        found.sort();
        found
    };
    assert_eq!(changed(store.clone()).await, ["pc-1", "pc-2"]);
    delete_player(&store, "pc-1", end).await.expect("deleted");
    assert_eq!(
        changed(store.clone()).await,
        ["pc-2"],
        "pc-1's records are erased at once"
    );
    // Each hour's records, read directly: none names pc-1.
    let mut hour = start;
    while hour <= end {
        let pk = format!("PROFILECHANGES#{}", hour.format("%Y%m%d%H"));
        for (sk, _) in store
            .query_items(&pk, &podium_store::SortKeyRange::All, true, 1_000, true)
            .await
            .expect("read")
        {
            assert!(!sk.ends_with("#pc-1"), "{pk} {sk}");
        }
        hour += chrono::Duration::hours(1);
    }
    assert!(store
        .query_items(
            "PROFILECHANGED#pc-1",
            &podium_store::SortKeyRange::All,
            true,
            10,
            true
        )
        .await
        .expect("read")
        .is_empty());
    assert_eq!(
        podium_service::profiles::erase_changes(&store, "pc-1")
            .await
            .expect("again"),
        0
    );
}

#[macro_export]
macro_rules! deletion_tests {
    ($make:path) => {
        $crate::deletion_tests!(@cases $make;
            gm6_deleted_player_absent_from_every_read,
            gm6_records_naming_a_deleted_player_are_refused,
            gm6_interrupted_deletion_resumes,
            gm6_records_racing_the_deletion_leave_nothing,
            gm6_erasure_before_the_first_snapshot_is_kept,
            gm6_deletion_finds_every_item_that_names_the_player,
            gm6_a_deleted_identity_and_its_pseudonym_are_refused,
            gm6_an_old_cursor_never_shows_a_deleted_player,
            gm6_a_cursor_into_the_current_snapshot_outlives_its_retention,
            gm6_a_cursor_page_rendered_before_a_deletion_is_not_served_after,
            gm6_chained_deletions_find_a_renamed_source,
            gm6_a_deletion_erases_the_players_profile_changes,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::deletion::$case($make().await).await;
            }
        )*
    };
}
