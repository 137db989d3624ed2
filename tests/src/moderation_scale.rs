//! Suspensions at scale, on both stores (OP-4): no item holds every suspended player,
//! so any number of suspensions hold, operators acting at once on different players
//! all succeed, and a read costs what it did before the first suspension.

use podium_rules::board::BoardRef;
use podium_service::api::ApiResponse;
use podium_service::jobs::Job;
use podium_store::{Account, BoardKey, ItemKey, Store};
use serde_json::Value;

use crate::counting::Counted;
use crate::deletion::{t, tick};
use crate::fixtures::seed_balance;
use crate::moderation::{operator_call, read_as};

const WHY: (&str, &str) = ("support-7", "a modified client");

/// The player ids a page or around-me answer lists, in order, with their ranks.
fn listed(answer: &ApiResponse) -> Vec<(String, u64)> {
    answer.body["entries"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .map(|e| {
                    (
                        e["player_id"].as_str().unwrap_or_default().to_string(),
                        e["rank"].as_u64().unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `players` on the Seega board, the first the highest, reached at 2027-07-19 04:00 UTC.
async fn seed_players<S: Store + ?Sized>(store: &S, players: &[String]) {
    let at = t("2027-07-19T04:00:00Z").timestamp_millis();
    for (i, p) in players.iter().enumerate() {
        seed_balance(store, p, 10_000 - 10 * i as i64, at).await;
    }
}

/// OP-4: a suspension whose index write fails (throttled) has written its guard: the
/// player is suspended (their calls refused) but not yet left out of the board, and
/// the call answers 503; its repeat finishes it (indexed, the next refresh leaves them
/// out, the ranks below closed up).
pub async fn a_suspension_whose_index_write_fails_is_finished_by_its_repeat<S: Store + Clone + 'static>(
    store: S,
) {
    use podium_service::boards::suspended::ids_on;
    use podium_service::moderation::suspensions::suspend;
    let players: Vec<String> = ["alice", "bob", "carol"].map(String::from).to_vec();
    seed_players(&store, &players).await;
    let at = t("2027-07-19T06:00:00Z");
    let board = BoardRef::all_time("seega");
    let faulty = crate::faults::Faulty::new(store.clone()).failing_item_writes("SUSPENDED#", 1);
    let failed = suspend(&faulty, "bob", WHY, 30, at).await;
    assert!(
        matches!(&failed, Err(e) if e.is_unavailable()),
        "the index write failed: {failed:?}"
    );
    assert_eq!(store.account("bob").await.expect("account"), Account::Suspended);
    assert!(!ids_on(&store, &board).await.expect("index").contains("bob"));
    let done = suspend(&store, "bob", WHY, 30, at).await.expect("finished");
    assert!(done.unchanged && done.done, "{done:?}");
    assert!(ids_on(&store, &board).await.expect("index").contains("bob"));
    tick(&store, Job::Refresh, "2027-07-19T06:01:00Z").await;
    let page = read_as(&store, "carol", "/v1/leaderboards/seega", &[], at).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(
        listed(&page),
        vec![("alice".to_string(), 1), ("carol".to_string(), 2)]
    );
}

/// OP-4: 20 operators suspend 20 players of one board at once (the board with a
/// snapshot, so each suspension also writes its pointer): every call answers 200,
/// done; the next refresh lists only the 4 others, ranked 1 to 4.
pub async fn twenty_suspensions_at_once_all_succeed<S: Store + Clone + 'static>(store: S) {
    let players: Vec<String> = (0..24).map(|i| format!("p{i:02}")).collect();
    seed_players(&store, &players).await;
    tick(&store, Job::Refresh, "2027-07-19T05:00:00Z").await;
    let at = t("2027-07-19T06:00:00Z");
    let body = serde_json::json!({"reason": "a modified client"});
    let answers: Vec<ApiResponse> = futures::future::join_all(players[..20].iter().map(|p| {
        let (store, body, path) = (
            store.clone(),
            body.clone(),
            format!("/v1/operator/players/{p}/suspend"),
        );
        async move { operator_call(&store, "POST", &path, &[], Some("support-7"), Some(&body), at).await }
    }))
    .await;
    for (p, a) in players.iter().zip(&answers) {
        assert_eq!(a.status, 200, "{p}: {}", a.body);
        assert_eq!(a.body["done"], Value::Bool(true), "{p}: {}", a.body);
    }
    for p in &players[..20] {
        assert_eq!(
            store.account(p).await.expect("account"),
            Account::Suspended,
            "{p}"
        );
    }
    tick(&store, Job::Refresh, "2027-07-19T06:01:00Z").await;
    let page = read_as(&store, "p23", "/v1/leaderboards/seega", &[], at).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let expected: Vec<(String, u64)> = players[20..]
        .iter()
        .enumerate()
        .map(|(i, p)| (p.clone(), i as u64 + 1))
        .collect();
    assert_eq!(listed(&page), expected);
}

/// OP-4 at scale: `n` players suspended (their guards and their lines in the Seega
/// board's index, written as suspensions write them, ranked below everyone on the
/// board) hold, past the 5,900 that one 400 KB item held. A live page and around-me
/// read (before the board's first snapshot) cost the same requests as before them; one
/// more suspension through the API succeeds, and the next refresh leaves it out and
/// pages from the snapshot rank the others closed up.
pub async fn suspensions_past_one_item_hold<S: Store + Clone + 'static>(store: S, n: usize) {
    use podium_service::boards::suspended::partition;
    let players: Vec<String> = ["alice", "bob", "carol", "dave"].map(String::from).to_vec();
    seed_players(&store, &players).await;
    let at = t("2027-07-19T06:00:00Z");
    let board = BoardRef::all_time("seega");
    let reads: [(&str, &[(&str, &str)]); 2] = [
        ("/v1/leaderboards/seega", &[("limit", "3")]),
        ("/v1/leaderboards/seega/me", &[("neighbours", "2")]),
    ];
    let cost = |store: S| async move {
        let mut out = Vec::new();
        for (path, q) in reads {
            let counted = Counted::new(store.clone());
            let answer = read_as(&counted, "carol", path, q, at).await;
            assert_eq!(answer.status, 200, "{path}: {}", answer.body);
            out.push((path, counted.counts(), listed(&answer)));
        }
        out
    };
    let before = cost(store.clone()).await;
    let pk = partition(&board);
    let mut items: Vec<(ItemKey, Vec<u8>)> = Vec::with_capacity(2 * n);
    for i in 0..n {
        let id = format!("suspended-{i:06}");
        let key = BoardKey {
            value: 0,
            reached_at_ms: i as i64,
            player_id: id.clone(),
        };
        items.push((
            ItemKey::new(pk.clone(), key.encode()),
            serde_json::to_vec(&serde_json::json!({"player_id": id})).expect("json"),
        ));
        items.push((
            podium_store::tombstone_key(&id),
            serde_json::to_vec(&serde_json::json!({"state": "suspended"})).expect("json"),
        ));
    }
    store.put_items(&items, None).await.expect("suspensions written");
    assert_eq!(
        cost(store.clone()).await,
        before,
        "the same requests, the same answers"
    );
    // Asserts the 200.
    crate::moderation::moderate(&store, "bob", "suspend", at).await;
    tick(&store, Job::Refresh, "2027-07-19T06:01:00Z").await;
    let page = read_as(&store, "carol", "/v1/leaderboards/seega", &[], at).await;
    assert_eq!(
        listed(&page),
        vec![
            ("alice".to_string(), 1),
            ("carol".to_string(), 2),
            ("dave".to_string(), 3)
        ]
    );
    let me = read_as(&store, "dave", "/v1/leaderboards/seega/me", &[], at).await;
    assert_eq!(me.body["me"]["rank"], 3, "{}", me.body);
}

/// OP-4, LB-2, LB-3 on a live board (no snapshot yet): with p01 and p03 suspended,
/// pages of 2 from the top skip them across the cursor (the board's index read over
/// each page's rows, rows read again for those it hid), ranks closed up: p00 1, p02 2,
/// then p04 3, p05 4; p04's around-me ranks them alike, its 2 neighbours above read
/// from the board (p03, p02) shown without p03 (a live around-me does not read more
/// neighbours for those it hides).
pub async fn a_live_board_skips_suspended_players_across_pages<S: Store + Clone + 'static>(store: S) {
    let players: Vec<String> = (0..6).map(|i| format!("p{i:02}")).collect();
    seed_players(&store, &players).await;
    let at = t("2027-07-19T06:00:00Z");
    for p in ["p01", "p03"] {
        crate::moderation::moderate(&store, p, "suspend", at).await;
    }
    let first = read_as(&store, "p05", "/v1/leaderboards/seega", &[("limit", "2")], at).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(first.body["snapshot"].is_null(), "a live page: {}", first.body);
    assert_eq!(
        listed(&first),
        vec![("p00".to_string(), 1), ("p02".to_string(), 2)]
    );
    let cursor = first.body["next_cursor"].as_str().expect("a cursor").to_string();
    let second = read_as(
        &store,
        "p05",
        "/v1/leaderboards/seega",
        &[("limit", "2"), ("cursor", &cursor)],
        at,
    )
    .await;
    assert_eq!(second.status, 200, "{}", second.body);
    assert_eq!(
        listed(&second),
        vec![("p04".to_string(), 3), ("p05".to_string(), 4)]
    );
    let me = read_as(
        &store,
        "p04",
        "/v1/leaderboards/seega/me",
        &[("neighbours", "2")],
        at,
    )
    .await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["me"]["rank"], 3, "{}", me.body);
    assert_eq!(
        listed(&me),
        vec![
            ("p02".to_string(), 2),
            ("p04".to_string(), 3),
            ("p05".to_string(), 4)
        ]
    );
}

/// OP-4: a refresh pointer carries a suspension's erasure only while a snapshot taken
/// before it may still be read (a day) or the run may have read the board before the
/// player was indexed; after that the runs leave the player out themselves and the
/// pointer no longer names them, so pointers do not grow with every suspension held.
pub async fn a_refresh_pointer_drops_a_suspension_after_a_day<S: Store + Clone + 'static>(store: S) {
    use podium_service::boards::snapshot::read::current_consistent;
    let players: Vec<String> = ["alice", "bob", "carol"].map(String::from).to_vec();
    seed_players(&store, &players).await;
    tick(&store, Job::Refresh, "2027-07-19T05:00:00Z").await;
    let at = t("2027-07-19T06:00:00Z");
    crate::moderation::moderate(&store, "bob", "suspend", at).await;
    let board = BoardRef::all_time("seega");
    let bob = podium_service::engine::names::id_hash("bob");
    let carries = |store: S| {
        let (board, bob) = (board.clone(), bob.clone());
        async move {
            let p = current_consistent(&store, &board)
                .await
                .expect("read")
                .expect("a pointer");
            p.erased.iter().any(|e| e.suspended && e.hash == bob)
        }
    };
    assert!(
        carries(store.clone()).await,
        "hidden from the snapshot taken before"
    );
    // Seega's board is refreshed when changed: alice scores, so each tick takes it.
    seed_balance(&store, "alice", 20_000, at.timestamp_millis()).await;
    tick(&store, Job::Refresh, "2027-07-19T06:05:00Z").await;
    assert!(carries(store.clone()).await, "carried within the day");
    seed_balance(&store, "alice", 30_000, at.timestamp_millis()).await;
    tick(&store, Job::Refresh, "2027-07-20T07:00:00Z").await;
    assert!(!carries(store.clone()).await, "dropped after the day");
    let later = t("2027-07-20T07:01:00Z");
    let page = read_as(&store, "carol", "/v1/leaderboards/seega", &[], later).await;
    assert_eq!(
        listed(&page),
        vec![("alice".to_string(), 1), ("carol".to_string(), 2)],
        "still left out, by the run itself"
    );
}

/// Runs each case that holds on any number of players against a fresh store from
/// `$make` ([`suspensions_past_one_item_hold`] is called by each suite with its own
/// number).
#[macro_export]
macro_rules! moderation_scale_tests {
    ($make:path) => {
        $crate::moderation_scale_tests!(@cases $make;
            a_suspension_whose_index_write_fails_is_finished_by_its_repeat,
            twenty_suspensions_at_once_all_succeed,
            a_live_board_skips_suspended_players_across_pages,
            a_refresh_pointer_drops_a_suspension_after_a_day,
        );
    };
    (@cases $make:path; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::moderation_scale::$case($make().await).await;
            }
        )+
    };
}
