//! The store contract suite: every case runs against the embedded store and
//! against DynamoDB Local (`tests/tests/embedded.rs`, `tests/tests/dynamodb.rs`)
//! through the same service code the functions use.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use futures::future::join_all;
use podium_rules::board::{board_def, BoardDef, BoardRef};
use podium_rules::game::Game;
use podium_rules::leaderboard::{listing_order, RankCounter, Standing};
use podium_rules::record::policy::RecordPolicy;
use podium_rules::seega::record::MatchRecord;
use podium_rules::seega::result::{MatchResult, MatchStatus};
use podium_rules::snapshot::{rank_against, SnapshotPage};
use podium_service::boards::cursor::CursorKey;
use podium_service::boards::live::{around_me, profile, Page};
use podium_service::boards::pages::{self, SnapshotCache};
use podium_service::boards::periods::{self, Credited};
use podium_service::boards::snapshot;
use podium_service::games::results::match_result;
use podium_service::games::seega::Scored;
use podium_service::ServiceError;
use podium_store::{BoardKey, ItemKey, SettleStore, SortKeyRange, Store};

use crate::fixtures::{at, close_loss, now, record, rout, seed_balance};

const SEEGA: Game = Game::Seega;

/// The key the contract cases sign cursors with.
pub fn cursor_key() -> CursorKey {
    CursorKey::new(b"contract-suite-cursor-key-0123456789").expect("long enough")
}

/// Scores one record under the default policy.
pub async fn score_match<S: SettleStore + ?Sized>(
    store: &S,
    record: &MatchRecord,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Scored, ServiceError> {
    podium_service::games::seega::score_match(store, record, now, &RecordPolicy::default()).await
}

/// A page of the live board, from the top or at a cursor it issued.
async fn top_page<S: Store + ?Sized>(
    store: &S,
    board: &BoardRef,
    limit: usize,
    cursor: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Page, ServiceError> {
    let cursor = cursor.map(|c| cursor_key().open(board, c)).transpose()?;
    podium_service::boards::live::top_page(store, &cursor_key(), board, limit, cursor, now).await
}

/// A page of the current snapshot, from the top or at a cursor it issued.
async fn snapshot_page<S: Store + ?Sized>(
    store: &S,
    cache: &SnapshotCache,
    board: &BoardRef,
    limit: usize,
    cursor: Option<&str>,
) -> Result<Option<Page>, ServiceError> {
    let cursor = cursor.map(|c| cursor_key().open(board, c)).transpose()?;
    pages::top_page(
        store,
        cache,
        &cursor_key(),
        board,
        limit,
        cursor,
        chrono::Utc::now(),
    )
    .await
}

/// Every page of snapshot `id`, in order.
async fn all_pages<S: Store + ?Sized>(store: &S, board: &BoardRef, id: &str) -> Vec<SnapshotPage> {
    snapshot::read::pages(store, board, id, SortKeyRange::All, true, 10_000, true)
        .await
        .expect("pages")
}

fn seega_board() -> podium_rules::board::BoardRef {
    podium_rules::board::BoardRef::all_time("seega")
}

async fn balance<S: Store + ?Sized>(store: &S, player: &str) -> i64 {
    store.get_balances(SEEGA, &[player]).await.expect("balance")[0].points
}

/// GM-4: the balance equals the sum of the player's applied deltas.
async fn assert_ledger_matches_balance<S: Store + ?Sized>(store: &S, player: &str) {
    let entries = store.ledger_entries(SEEGA, player).await.expect("ledger");
    let sum: i64 = entries.iter().map(|e| e.applied).sum();
    assert_eq!(
        sum,
        balance(store, player).await,
        "GM-4 for {player}: {entries:?}"
    );
}

/// `SettleStore::get_states`: several state items in one read answer in the order
/// asked, an absent one as `None` and a key asked twice twice, each as `get_state`
/// reads it (DynamoDB: one BatchGetItem).
pub async fn get_states_answer_in_the_order_asked<S: Store>(store: S) {
    use podium_rules::team::{team_key, MEMBERSHIPS_STATE, TEAM_STATE};
    let new: podium_service::teams::actions::NewTeam =
        serde_json::from_value(serde_json::json!({"name": "State Readers", "access": "open"}))
            .expect("a team");
    let team = podium_service::teams::actions::create(
        &store,
        "gs-own",
        new,
        (&Default::default(), &Default::default()),
        crate::fixtures::now(),
    )
    .await
    .expect("a team");
    let key = team_key(&team.team_id);
    let asked = [
        ("gs-own", MEMBERSHIPS_STATE),
        ("gs-nobody", MEMBERSHIPS_STATE),
        (key.as_str(), TEAM_STATE),
        ("gs-own", MEMBERSHIPS_STATE),
    ];
    let found = store.get_states(&asked).await.expect("states");
    assert_eq!(found.len(), asked.len());
    for ((player, name), got) in asked.iter().zip(&found) {
        let one = store.get_state(player, name).await.expect("a state");
        assert_eq!(got, &one, "{player} {name}");
    }
    assert!(found[0].is_some() && found[1].is_none() && found[2].is_some());
    assert!(store.get_states(&[]).await.expect("none").is_empty());
}

/// GM-3: the same match delivered 20 times at once is applied once, and every
/// delivery is answered with the first result.
pub async fn concurrent_duplicates_apply_once<S: Store + 'static>(store: S) {
    let store = Arc::new(store);
    let r = rout("m-dup", "alice", "bob", at(0));
    let deliveries = (0..20).map(|_| {
        let (store, r) = (Arc::clone(&store), r.clone());
        tokio::spawn(async move { score_match(store.as_ref(), &r, now()).await })
    });
    let outcomes: Vec<Scored> = join_all(deliveries)
        .await
        .into_iter()
        .map(|j| j.expect("task").expect("scored"))
        .collect();
    let applied = outcomes
        .iter()
        .filter(|o| matches!(o, Scored::Applied(_)))
        .count();
    assert_eq!(applied, 1, "exactly one delivery applies the match");
    let first = outcomes[0].result().clone();
    assert!(
        outcomes.iter().all(|o| *o.result() == first),
        "every delivery gets the first result"
    );
    assert_eq!(balance(store.as_ref(), "alice").await, 311);
    assert_eq!(balance(store.as_ref(), "bob").await, 0);
    assert_eq!(
        store.ledger_entries(SEEGA, "alice").await.expect("ledger").len(),
        1
    );
    assert_ledger_matches_balance(store.as_ref(), "alice").await;
}

/// GM-3 (review case 6): a commit whose reply was lost is sent again unchanged and
/// reported as applied by this call (not as a duplicate); a later delivery is the
/// duplicate; the balance is not doubled.
pub async fn lost_reply_retry_does_not_double<S: Store>(store: S) {
    let flaky = crate::faults::Faulty::new(store).losing_replies(1);
    let r = rout("m-lost", "alice", "bob", at(0));
    let first = score_match(&flaky, &r, now()).await.expect("applied");
    assert!(
        matches!(first, Scored::Applied(_)),
        "counted as applied: {first:?}"
    );
    let retry = score_match(&flaky, &r, now()).await.expect("retry");
    assert!(matches!(retry, Scored::Duplicate(_)), "{retry:?}");
    assert_eq!(retry.result().players[0].points, 311);
    assert_eq!(balance(&flaky.inner, "alice").await, 311, "not doubled");
    assert_ledger_matches_balance(&flaky.inner, "alice").await;
}

fn applied_of(result: &MatchResult, player: &str) -> i64 {
    result
        .players
        .iter()
        .find(|p| p.player_id == player)
        .expect("player")
        .applied
}

/// SG-7: a player at 50 who loses a match worth −123 ends at 0; the ledger keeps
/// nominal −123 and applied −50.
pub async fn floor_at_zero<S: Store>(store: S) {
    seed_balance(&store, "carol", 50, 1_000).await;
    let scored = score_match(&store, &rout("m-floor", "dave", "carol", at(0)), now())
        .await
        .expect("scored");
    assert_eq!(applied_of(scored.result(), "carol"), -50);
    assert_eq!(balance(&store, "carol").await, 0);
    let entries = store.ledger_entries(SEEGA, "carol").await.expect("ledger");
    let e = entries.iter().find(|e| e.source_id == "m-floor").expect("entry");
    assert_eq!((e.nominal, e.applied, e.balance_after), (-123, -50, 0));
    assert_ledger_matches_balance(&store, "carol").await;
}

/// SG-7 under concurrency: two −123 losses of a player at 50 scored at once end at
/// 0, one applied −50 and the other 0; no lost update.
pub async fn floor_two_concurrent_losses<S: Store + 'static>(store: S) {
    let store = Arc::new(store);
    seed_balance(store.as_ref(), "carol", 50, 1_000).await;
    let matches = [
        rout("m-l1", "dave", "carol", at(0)),
        rout("m-l2", "erin", "carol", at(1)),
    ];
    let tasks = matches.into_iter().map(|r| {
        let store = Arc::clone(&store);
        tokio::spawn(async move { score_match(store.as_ref(), &r, now()).await })
    });
    let mut applied: Vec<i64> = join_all(tasks)
        .await
        .into_iter()
        .map(|j| applied_of(j.expect("task").expect("scored").result(), "carol"))
        .collect();
    applied.sort();
    assert_eq!(applied, [-50, 0]);
    assert_eq!(balance(store.as_ref(), "carol").await, 0);
    assert_eq!(
        balance(store.as_ref(), "dave").await + balance(store.as_ref(), "erin").await,
        622
    );
    assert_ledger_matches_balance(store.as_ref(), "carol").await;
}

/// SG-7 for a new player: a first match lost by −75 leaves balance 0, nominal −75,
/// applied 0, and the player is listed on the board at 0 (LB-2).
pub async fn new_player_first_loss<S: Store>(store: S) {
    let scored = score_match(&store, &close_loss("m-new", "frank", "gina", at(0)), now())
        .await
        .expect("scored");
    let gina = scored
        .result()
        .players
        .iter()
        .find(|p| p.player_id == "gina")
        .expect("gina");
    assert_eq!((gina.points, gina.applied, gina.balance_after), (-75, 0, Some(0)));
    assert_eq!(gina.points_shown, "\u{2212}75");
    assert_eq!(balance(&store, "gina").await, 0);
    let e = &store.ledger_entries(SEEGA, "gina").await.expect("ledger")[0];
    assert_eq!((e.nominal, e.applied, e.balance_after), (-75, 0, 0));
    let page = top_page(&store, &seega_board(), 10, None, at(1))
        .await
        .expect("page");
    let listed: Vec<_> = page
        .entries
        .iter()
        .map(|e| (e.player_id.as_str(), e.value, e.rank))
        .collect();
    assert_eq!(listed, [("frank", 287, 1), ("gina", 0, 2)]);
}

/// GM-3: the same match id with other content is a conflict and writes nothing.
pub async fn conflict_writes_nothing<S: Store>(store: S) {
    score_match(&store, &rout("m-c", "alice", "bob", at(0)), now())
        .await
        .expect("first");
    let mut other = rout("m-c", "alice", "bob", at(0));
    other.players[0].moves += 1;
    let err = score_match(&store, &other, now()).await.expect_err("conflict");
    assert!(matches!(err, ServiceError::Conflict { .. }), "{err:?}");
    // GM-3 (issue 47): the conflict names when the record was settled and its first
    // field that differs, from what the store kept with the result.
    let settled = podium_rules::record::policy::shown(now());
    assert_eq!(
        err.to_string(),
        format!(
            "match_id (GM-3): conflict: `m-c` was already settled at {settled} with different \
             content: `players[0]` differs (a settled record is final: another match needs its own id)"
        )
    );
    assert_eq!(balance(&store, "alice").await, 311);
    assert_eq!(
        store.ledger_entries(SEEGA, "alice").await.expect("ledger").len(),
        1
    );
    // Same content, reformatted on the wire: a duplicate, not a conflict.
    let json = serde_json::to_string_pretty(&rout("m-c", "alice", "bob", at(0))).expect("json");
    let reparsed = podium_rules::seega::record::MatchRecord::from_json(json.as_bytes()).expect("parse");
    assert!(matches!(
        score_match(&store, &reparsed, now()).await,
        Ok(Scored::Duplicate(_))
    ));
}

/// GM-5: a refused record writes nothing.
pub async fn invalid_record_writes_nothing<S: Store>(store: S) {
    let mut r = rout("m-bad", "alice", "bob", at(0));
    r.players[1].player_id = "alice".into();
    let err = score_match(&store, &r, now()).await.expect_err("refused");
    match err {
        ServiceError::Invalid(e) => assert_eq!((e.field.as_str(), e.rule), ("players[1].player_id", "GM-5")),
        other => panic!("{other:?}"),
    }
    assert!(podium_service::games::seega::stored_match(&store, "m-bad")
        .await
        .expect("read")
        .is_none());
    assert!(store.get_balance(SEEGA, "alice").await.expect("read").is_none());
}

/// SG-5: a void match is recorded once, changes no balance and lists no one.
pub async fn void_match_changes_nothing<S: Store>(store: S) {
    let mut r = rout("m-void", "alice", "bob", at(0));
    r.players[0].stones_on_board = 2;
    r.players[0].stones_in_hand = 22;
    r.players[1].stones_on_board = 1;
    r.players[1].stones_in_hand = 23;
    r.stones_placed = 3;
    let scored = score_match(&store, &r, now()).await.expect("void");
    assert_eq!(scored.result().status, MatchStatus::Void);
    assert!(matches!(
        score_match(&store, &r, now()).await,
        Ok(Scored::Duplicate(_))
    ));
    assert!(store.get_balance(SEEGA, "alice").await.expect("read").is_none());
    assert!(top_page(&store, &seega_board(), 10, None, at(1))
        .await
        .expect("page")
        .entries
        .is_empty());
}

/// LB-2: A 101, B 100, C 100, D 99, B at 100 before C → ranks 1, 2, 2, 4 in that order,
/// the same in the page and in around-me.
pub async fn ties_share_rank<S: Store>(store: S) {
    seed_balance(&store, "C", 100, 5_000).await;
    seed_balance(&store, "D", 99, 1_000).await;
    seed_balance(&store, "A", 101, 9_000).await;
    seed_balance(&store, "B", 100, 3_000).await;
    let page = top_page(&store, &seega_board(), 10, None, at(0))
        .await
        .expect("page");
    let got: Vec<_> = page
        .entries
        .iter()
        .map(|e| (e.player_id.as_str(), e.rank))
        .collect();
    assert_eq!(got, [("A", 1), ("B", 2), ("C", 2), ("D", 4)]);
    let me = around_me(&store, &seega_board(), "C", 5, at(0))
        .await
        .expect("around me");
    assert_eq!(me.me.rank, 2);
    let got: Vec<_> = me
        .entries
        .iter()
        .map(|e| (e.player_id.as_str(), e.rank))
        .collect();
    assert_eq!(got, [("A", 1), ("B", 2), ("C", 2), ("D", 4)]);
    let me = around_me(&store, &seega_board(), "D", 1, at(0))
        .await
        .expect("around me");
    let got: Vec<_> = me
        .entries
        .iter()
        .map(|e| (e.player_id.as_str(), e.rank))
        .collect();
    assert_eq!(got, [("C", 2), ("D", 4)]);
}

/// LB-3: page size 2 over 500, 400, 400, 400, 300 → pages (1, 2), (2, 2), (5).
pub async fn pages_carry_ranks<S: Store>(store: S) {
    for (i, (p, v)) in [("p1", 500), ("p2", 400), ("p3", 400), ("p4", 400), ("p5", 300)]
        .iter()
        .enumerate()
    {
        seed_balance(&store, p, *v, 1_000 + i as i64).await;
    }
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = top_page(&store, &seega_board(), 2, cursor.as_deref(), at(0))
            .await
            .expect("page");
        pages.push(page.entries.iter().map(|e| e.rank).collect::<Vec<_>>());
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(pages, [vec![1, 2], vec![2, 2], vec![5]]);
}

/// LB-3 / LB-2: a walk through every page meets every player exactly once, with
/// ranks equal to 1 + the count of strictly better values; around-me agrees.
pub async fn walk_meets_everyone_once<S: Store>(store: S) {
    let expected_ranks = seed_players(&store, 37).await;
    let mut walked = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = top_page(&store, &seega_board(), 5, cursor.as_deref(), at(0))
            .await
            .expect("page");
        walked.extend(page.entries.iter().map(|e| (e.player_id.clone(), e.rank)));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(walked, expected_ranks);
    let unique: HashSet<_> = walked.iter().map(|(p, _)| p).collect();
    assert_eq!(unique.len(), 37);
    let ranks: BTreeMap<_, _> = expected_ranks.iter().cloned().collect();
    for probe in ["w00", "w13", "w36"] {
        let me = around_me(&store, &seega_board(), probe, 3, at(0))
            .await
            .expect("around me");
        assert_eq!(me.me.rank, ranks[probe]);
        let at_me = expected_ranks
            .iter()
            .position(|(p, _)| p == probe)
            .expect("listed");
        let lo = at_me.saturating_sub(3);
        let hi = (at_me + 4).min(expected_ranks.len());
        let got: Vec<_> = me.entries.iter().map(|e| (e.player_id.clone(), e.rank)).collect();
        assert_eq!(got, expected_ranks[lo..hi].to_vec(), "around {probe}");
    }
    assert_eq!(
        store
            .count_before(&seega_board(), &BoardKey::first_of_value(i64::MAX))
            .await
            .expect("count"),
        0
    );
}

/// The "+311" screen: a finished match's result is readable by its two players only.
pub async fn match_result_for_its_players_only<S: Store>(store: S) {
    score_match(&store, &rout("m-r", "alice", "bob", at(0)), now())
        .await
        .expect("scored");
    let podium_service::games::results::MatchView::Seega(r) =
        match_result(&store, "alice", "m-r").await.expect("alice sees it")
    else {
        panic!("a Seega match")
    };
    assert_eq!(r.players[0].points_shown, "+311");
    assert_eq!(r.players[1].points_shown, "\u{2212}123");
    assert!(match_result(&store, "bob", "m-r").await.is_ok());
    assert!(matches!(
        match_result(&store, "mallory", "m-r").await,
        Err(ServiceError::NotFound(_))
    ));
    assert!(matches!(
        match_result(&store, "alice", "m-none").await,
        Err(ServiceError::NotFound(_))
    ));
    let p = profile(&store, SEEGA, "alice").await.expect("profile");
    assert_eq!(
        (p.balance, p.rank_id, p.rank_name_en, p.badge),
        (311, "member", "Member", "1 star")
    );
    let p = profile(&store, SEEGA, "nobody").await.expect("profile");
    assert_eq!(p.balance, 0);
}

/// GM-4 and SG-7 under load: many matches among few players, scored concurrently,
/// leave every balance ≥ 0 and equal to the sum of its applied deltas, with one
/// ledger entry per player per match.
pub async fn concurrent_matches_keep_the_ledger<S: Store + 'static>(store: S) {
    let store = Arc::new(store);
    let players = ["q0", "q1", "q2", "q3", "q4"];
    let tasks = (0..40).map(|i| {
        let store = Arc::clone(&store);
        let (w, l) = (players[i % 5], players[(i * 3 + 1) % 5]);
        let (w, l) = if w == l { (w, players[(i + 2) % 5]) } else { (w, l) };
        let r = if i % 3 == 0 {
            close_loss(&format!("m-{i}"), w, l, at(i as i64))
        } else {
            record(
                &format!("m-{i}"),
                w,
                l,
                10 + (i % 14) as u32,
                24,
                600,
                5,
                40,
                at(i as i64),
            )
        };
        tokio::spawn(async move { score_match(store.as_ref(), &r, now()).await })
    });
    for t in join_all(tasks).await {
        t.expect("task").expect("scored");
    }
    let mut entries = 0;
    for p in players {
        assert!(balance(store.as_ref(), p).await >= 0);
        assert_ledger_matches_balance(store.as_ref(), p).await;
        entries += store.ledger_entries(SEEGA, p).await.expect("ledger").len();
    }
    assert_eq!(entries, 80);
}

/// Conditional item writes: create only if absent, update only at the version read.
pub async fn item_writes_are_conditional<S: Store>(store: S) {
    let key = ItemKey::new("T#1", "X");
    assert!(store.get_item(&key, true).await.expect("read").is_none());
    assert!(store.put_item_if(&key, b"one", 0).await.expect("create"));
    assert!(!store.put_item_if(&key, b"again", 0).await.expect("create twice"));
    assert!(!store.put_item_if(&key, b"stale", 2).await.expect("wrong version"));
    assert!(store.put_item_if(&key, b"two", 1).await.expect("update"));
    let item = store.get_item(&key, true).await.expect("read").expect("item");
    assert_eq!((item.body.as_slice(), item.version), (b"two".as_slice(), 2));
    let many: Vec<_> = (0..60)
        .map(|i| (ItemKey::new("T#2", format!("P#{i:03}")), vec![i as u8; 3000]))
        .collect();
    store.put_items(&many, None).await.expect("batch");
    let last = store
        .get_item(&ItemKey::new("T#2", "P#059"), false)
        .await
        .expect("read")
        .expect("item");
    assert_eq!(last.body, vec![59u8; 3000]);
}

async fn seed_players<S: Store>(store: &S, n: i64) -> Vec<(String, u64)> {
    let mut expected = Vec::new();
    for i in 0..n {
        let value = (i * 7919) % 9 * 10; // many ties, across page boundaries
        seed_balance(store, &format!("w{i:02}"), value, 1_000 + (i * 31) % 17).await;
        expected.push(Standing {
            player_id: format!("w{i:02}"),
            value,
            reached_at_ms: 1_000 + (i * 31) % 17,
        });
    }
    expected.sort_by(listing_order);
    let mut counter = RankCounter::top();
    expected
        .iter()
        .map(|s| (s.player_id.clone(), counter.next(s.value)))
        .collect()
}

/// LB-5: a snapshot run that wrote 3 of 5 pages and died, retried twice, leaves
/// exactly one complete snapshot of 5 pages; a completed snapshot is never redone.
pub async fn snapshot_resumes_and_completes_once<S: Store>(store: S) {
    seed_players(&store, 10).await;
    let as_of = at(60);
    let first = snapshot::write::run(&store, &seega_board(), "s1", as_of, 2, Some(3), as_of)
        .await
        .expect("first run");
    assert_eq!((first.pages_written, first.complete), (3, false));
    assert!(
        snapshot::read::current(&store, &seega_board())
            .await
            .expect("read")
            .is_none(),
        "not published yet"
    );
    let second = snapshot::write::run(&store, &seega_board(), "s1", as_of, 2, None, as_of)
        .await
        .expect("retry");
    assert_eq!(
        (second.pages_written, second.pages_total, second.complete),
        (2, 5, true)
    );
    // The board moves on; a third call of the same run changes nothing.
    score_match(&store, &rout("m-late", "w01", "w02", at(61)), now())
        .await
        .expect("scored");
    let third = snapshot::write::run(&store, &seega_board(), "s1", as_of, 2, None, as_of)
        .await
        .expect("again");
    assert!(third.already_complete && third.pages_written == 0);
    let current = snapshot::read::current(&store, &seega_board())
        .await
        .expect("read")
        .expect("published");
    assert_eq!(
        (current.id.as_str(), current.pages, current.entries),
        ("s1", 5, 10)
    );
    assert_eq!(current.first_page.as_ref().map(|p| p.entries.len()), Some(2));
    let pages = all_pages(&store, &seega_board(), "s1").await;
    assert_eq!(pages.len(), 5);
    for (n, page) in pages.iter().enumerate() {
        assert_eq!((page.number as usize, page.entries.len()), (n, 2));
    }
    assert!(
        snapshot::read::run_state(&store, &seega_board(), "s1")
            .await
            .expect("read")
            .expect("state")
            .complete
    );
    // An older run finishing later does not replace the newer current snapshot.
    snapshot::write::run(&store, &seega_board(), "s2", at(120), 2, None, at(120))
        .await
        .expect("newer");
    snapshot::write::run(&store, &seega_board(), "s0", at(30), 2, None, at(30))
        .await
        .expect("older");
    assert_eq!(
        snapshot::read::current(&store, &seega_board())
            .await
            .expect("read")
            .expect("current")
            .id,
        "s2"
    );
}

/// LB-3 / LB-7 on snapshots: a walk through every page meets every player once with
/// LB-2 ranks (ties across page boundaries), and one page read ranks any value.
pub async fn snapshot_walk_and_ranks<S: Store>(store: S) {
    let expected = seed_players(&store, 37).await;
    let report = snapshot::write::run(&store, &seega_board(), "w", at(60), 5, None, at(60))
        .await
        .expect("run");
    assert_eq!(report.pages_total, 8);
    let walked: Vec<_> = all_pages(&store, &seega_board(), "w")
        .await
        .into_iter()
        .flat_map(|p| p.entries)
        .map(|e| (e.player_id, e.rank))
        .collect();
    assert_eq!(walked, expected);
    for (player, rank) in &expected {
        let value = store
            .get_balance(SEEGA, player)
            .await
            .expect("read")
            .expect("balance")
            .points;
        // Through the directory read by Query, and through the pointer's chunk 0.
        let board = seega_board();
        let page = snapshot::read::Directory::pinned(&store, &board, "w", None, false)
            .page_deciding(value)
            .await
            .expect("read");
        assert_eq!(rank_against(page.as_deref(), value), *rank, "{player}");
        let current = snapshot::read::current(&store, &board)
            .await
            .expect("read")
            .expect("published");
        let page = snapshot::read::Directory::new(&store, &board, &current, false)
            .page_deciding(value)
            .await
            .expect("read");
        assert_eq!(rank_against(page.as_deref(), value), *rank, "{player}");
    }
}

/// Two runs of the same snapshot at once: one complete snapshot, pages intact.
pub async fn concurrent_snapshot_runs<S: Store + 'static>(store: S) {
    let store = Arc::new(store);
    let expected = seed_players(store.as_ref(), 23).await;
    let runs = (0..2).map(|_| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            for _ in 0..500 {
                match snapshot::write::run(store.as_ref(), &seega_board(), "c", at(60), 2, Some(2), at(60))
                    .await
                {
                    Ok(r) if r.complete => return,
                    // The other run holds the lease: back off a little.
                    Ok(r) if r.busy => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
                    Ok(_) => continue,
                    Err(e) => panic!("{e:?}"),
                }
            }
            panic!("never completed");
        })
    });
    for r in join_all(runs).await {
        r.expect("task");
    }
    let current = snapshot::read::current(store.as_ref(), &seega_board())
        .await
        .expect("read")
        .expect("published");
    assert_eq!((current.pages, current.entries), (12, 23));
    let walked: Vec<_> = all_pages(store.as_ref(), &seega_board(), "c")
        .await
        .into_iter()
        .flat_map(|p| p.entries)
        .map(|e| (e.player_id, e.rank))
        .collect();
    assert_eq!(walked, expected);
}

/// LB-3 / LB-4 / LB-5 from snapshots: a page walk stays in one snapshot while the
/// live board moves (every player once, LB-2 ranks), and around-me ranks the caller's
/// live value against it.
pub async fn pages_served_from_the_snapshot<S: Store>(store: S) {
    let expected = seed_players(&store, 37).await;
    snapshot::write::run(&store, &seega_board(), "p", at(60), 100, None, at(60))
        .await
        .expect("run");
    let cache = SnapshotCache::default();
    let mut walked = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = snapshot_page(&store, &cache, &seega_board(), 5, cursor.as_deref())
            .await
            .expect("page")
            .expect("a snapshot");
        assert_eq!((page.as_of, page.snapshot.as_deref()), (at(60), Some("p")));
        walked.extend(page.entries.iter().map(|e| (e.player_id.clone(), e.rank)));
        if walked.len() == 10 {
            // The live board moves mid-walk; the walk does not.
            score_match(&store, &rout("m-mid", "w36", "w00", at(61)), now())
                .await
                .expect("scored");
        }
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(walked, expected);
    let me = pages::around_me(&store, &cache, &seega_board(), "w13", 2, chrono::Utc::now())
        .await
        .expect("around me")
        .expect("a snapshot");
    let rank_of = |p: &str| {
        expected
            .iter()
            .find(|(q, _)| q == p)
            .map(|(_, r)| *r)
            .expect("listed")
    };
    assert_eq!(me.me.rank, rank_of("w13"));
    assert!(me.entries.len() <= 5 && me.entries.iter().any(|e| e.player_id == "w13"));
    // w36 won 311 after the snapshot: ranked by its live value, first.
    let w36 = pages::around_me(&store, &cache, &seega_board(), "w36", 1, chrono::Utc::now())
        .await
        .expect("me")
        .expect("snap");
    assert_eq!(w36.me.rank, 1);
}

fn utc(s: &str) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

fn weekly() -> &'static BoardDef {
    board_def("mahjong-weekly").expect("registered")
}

/// Credits `points` earned at `at` (RFC 3339) to `player` on the weekly board.
async fn credit_weekly<S: Store>(store: &S, player: &str, points: i64, at: &str, source: &str) -> Credited {
    periods::credit(store, weekly(), player, points, utc(at), now(), source)
        .await
        .expect("credit")
}

/// GM-2 / MJ-20: points land in the period of the event's instant (ISO week-year),
/// once per source; an ended week is frozen and readable by its id (LB-5).
pub async fn period_credits_land_in_the_event_period<S: Store>(store: S) {
    let w01 = credit_weekly(&store, "p1", 10, "2025-12-30T12:00:00Z", "b-1").await;
    let w53 = credit_weekly(&store, "p1", 5, "2027-01-02T12:00:00Z", "b-2").await;
    let again = credit_weekly(&store, "p1", 5, "2027-01-02T12:00:00Z", "b-2").await;
    let period_of = |c: &Credited| c.period().id.clone();
    assert_eq!(
        (period_of(&w01), period_of(&w53)),
        ("2026-W01".to_string(), "2026-W53".to_string())
    );
    assert!(matches!(again, Credited::Duplicate { .. }));
    credit_weekly(&store, "p2", 7, "2027-01-03T21:59:59.999Z", "b-3").await;
    let w53_ref = BoardRef::new("mahjong-weekly", "2026-W53");
    assert_eq!(
        store
            .period_entry(&w53_ref, "p1")
            .await
            .expect("read")
            .expect("entry")
            .points,
        5
    );
    // The week ends at Monday 00:00 in Bucharest: 2027-01-03T22:00Z.
    let before_end = periods::freeze_ended(&store, weekly(), utc("2027-01-03T21:59:00Z"))
        .await
        .expect("freeze");
    assert_ne!(
        before_end.map(|(p, _)| p.id),
        Some("2026-W53".to_string()),
        "W53 is not over yet"
    );
    let (period, report) = periods::freeze_ended(&store, weekly(), utc("2027-01-05T00:00:00Z"))
        .await
        .expect("freeze")
        .expect("a weekly board");
    assert_eq!((period.id.as_str(), report.complete), ("2026-W53", true));
    let frozen = snapshot::read::current(&store, &w53_ref)
        .await
        .expect("read")
        .expect("frozen");
    assert_eq!(
        (frozen.id.as_str(), frozen.entries, frozen.as_of),
        ("final", 2, utc("2027-01-03T22:00:00Z"))
    );
    let top: Vec<_> = frozen
        .first_page
        .expect("page")
        .entries
        .iter()
        .map(|e| (e.player_id.clone(), e.value, e.rank))
        .collect();
    assert_eq!(top, [("p2".to_string(), 7, 1), ("p1".to_string(), 5, 2)]);
    // A late credit for W53 changes the live period board, never the frozen snapshot.
    credit_weekly(&store, "p1", 50, "2027-01-03T10:00:00Z", "b-late").await;
    let again = periods::freeze_ended(&store, weekly(), utc("2027-01-05T00:00:00Z"))
        .await
        .expect("freeze")
        .expect("weekly");
    assert!(again.1.already_complete);
    let frozen = snapshot::read::current(&store, &w53_ref)
        .await
        .expect("read")
        .expect("frozen");
    assert_eq!(frozen.first_page.expect("page").entries[0].player_id, "p2");
}

/// GM-2: a Europe/Bucharest weekly board with cutoff 2027-03-28T21:00:00Z (the day
/// summer time starts): 20:59:59.999Z counts for 2027-W12, 21:00:00.000Z for 2027-W13.
pub async fn bucharest_week_cutoff<S: Store>(store: S) {
    let last = credit_weekly(&store, "p1", 3, "2027-03-28T20:59:59.999Z", "x-1").await;
    let first = credit_weekly(&store, "p1", 4, "2027-03-28T21:00:00.000Z", "x-2").await;
    match (last, first) {
        (Credited::Added { period: a, .. }, Credited::Added { period: b, .. }) => {
            assert_eq!((a.id.as_str(), b.id.as_str()), ("2027-W12", "2027-W13"));
            assert_eq!(a.end, Some(utc("2027-03-28T21:00:00Z")));
        }
        other => panic!("{other:?}"),
    }
    let (period, _) = periods::freeze_ended(&store, weekly(), utc("2027-03-28T21:00:00Z"))
        .await
        .expect("freeze")
        .expect("weekly");
    assert_eq!(period.id, "2027-W12");
    let frozen = snapshot::read::current(&store, &BoardRef::new("mahjong-weekly", "2027-W12"))
        .await
        .expect("read")
        .expect("frozen");
    assert_eq!(frozen.first_page.expect("page").entries[0].value, 3);
}

/// Exactly once under concurrency: ten sources credited at once all count, once each.
pub async fn concurrent_credits_all_count<S: Store + 'static>(store: S) {
    let store = Arc::new(store);
    let tasks = (0..10).map(|i| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let at = utc("2026-11-30T12:00:00Z");
            periods::credit(
                store.as_ref(),
                weekly(),
                "p1",
                i + 1,
                at,
                now(),
                &format!("s-{i}"),
            )
            .await
        })
    });
    for t in join_all(tasks).await {
        t.expect("task").expect("credit");
    }
    let entry = store
        .period_entry(&BoardRef::new("mahjong-weekly", "2026-W49"), "p1")
        .await
        .expect("read");
    assert_eq!(entry.map(|e| e.points), Some(55));
}

/// MJ-20: AMR sums the last 365 local days; the day that leaves the window comes off
/// every player once, however often the maintenance runs; a late point for a day
/// outside the window does not count.
pub async fn amr_window_moves<S: Store>(store: S) {
    let amr = board_def("mahjong-amr").expect("amr");
    let amr_ref = BoardRef::all_time("mahjong-amr");
    let d = utc("2026-12-01T10:00:00Z");
    let next = utc("2026-12-02T10:00:00Z");
    for (player, points, at, source) in [("p1", 10, d, "q-1"), ("p2", 4, d, "q-2"), ("p1", 6, next, "q-3")] {
        let credited = periods::credit_all(&store, Game::MahjongRivals, player, points, at, at, source)
            .await
            .expect("credit");
        assert_eq!(credited.len(), 3);
    }
    let value = |p: &'static str| {
        let (store, amr_ref) = (&store, &amr_ref);
        async move {
            store
                .period_entry(amr_ref, p)
                .await
                .expect("read")
                .map(|e| e.points)
        }
    };
    assert_eq!((value("p1").await, value("p2").await), (Some(16), Some(4)));
    // The day before 2026-12-01 leaves: nothing of ours changes.
    let (day, changed) = expire(&store, amr, utc("2027-11-30T10:00:00Z"))
        .await
        .expect("expire")
        .expect("rolling");
    assert_eq!((day.to_string(), changed), ("2026-11-30".to_string(), 0));
    // Bucharest midnight of 2027-12-01 (22:00Z the day before): 2026-12-01 leaves.
    let midnight = utc("2027-11-30T22:00:30Z");
    for expected in [2, 0] {
        let (day, changed) = expire(&store, amr, midnight)
            .await
            .expect("expire")
            .expect("rolling");
        assert_eq!((day.to_string(), changed), ("2026-12-01".to_string(), expected));
    }
    assert_eq!((value("p1").await, value("p2").await), (Some(6), Some(0)));
    let late = periods::credit(&store, amr, "p1", 100, d, midnight, "q-late")
        .await
        .expect("late");
    assert!(matches!(late, Credited::OutsideWindow { .. }));
    assert_eq!(value("p1").await, Some(6));
}

/// The window maintenance of `amr` at `now` (looking 31 days back on its first run):
/// the last day taken off the window and the entries this call changed.
async fn expire<S: Store>(
    store: &S,
    amr: &podium_rules::board::BoardDef,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<(chrono::NaiveDate, u64)>, ServiceError> {
    Ok(
        periods::expire_window(store, amr, now, 31, podium_service::budget::Budget::unbounded())
            .await?
            .map(|w| (w.through, w.changed)),
    )
}

/// MJ-20: a point dated just past local midnight by a game server's clock counts on
/// the AMR (from its day on) and leaves with its day, taking nothing else; a window
/// maintenance missed for days (an outage) takes every missed day off on its next run.
pub async fn amr_window_counts_early_points_and_catches_up<S: Store>(store: S) {
    let amr = board_def("mahjong-amr").expect("amr");
    let amr_ref = BoardRef::all_time("mahjong-amr");
    let credit =
        |player: &'static str, points: i64, at: &'static str, now: &'static str, source: &'static str| {
            let store = &store;
            async move {
                periods::credit_all(
                    store,
                    Game::MahjongRivals,
                    player,
                    points,
                    utc(at),
                    utc(now),
                    source,
                )
                .await
                .expect("credit")
            }
        };
    let value = |p: &'static str| {
        let (store, amr_ref) = (&store, &amr_ref);
        async move {
            store
                .period_entry(amr_ref, p)
                .await
                .expect("read")
                .map_or(0, |e| e.points)
        }
    };
    // 00:01 on 21 December in Bucharest, sent at 23:58 on the 20th: it counts.
    let early = credit("s-1", 20, "2026-12-20T22:01:00Z", "2026-12-20T21:58:00Z", "e-1").await;
    assert_eq!(early.len(), 3);
    assert!(
        early.iter().all(|(_, c)| matches!(c, Credited::Added { .. })),
        "{early:?}"
    );
    credit("s-1", 20, "2027-06-01T10:00:00Z", "2027-06-01T10:01:00Z", "e-2").await;
    for (day, source) in [
        ("2026-12-01T10:00:00Z", "q-1"),
        ("2026-12-02T10:00:00Z", "q-2"),
        ("2026-12-03T10:00:00Z", "q-3"),
    ] {
        credit("q-1", 10, day, day, source).await;
    }
    assert_eq!((value("s-1").await, value("q-1").await), (40, 30));
    // The first maintenance runs only when 2026-12-03 leaves: the two days before go too.
    let (day, changed) = expire(&store, amr, utc("2027-12-03T10:00:00Z"))
        .await
        .expect("expire")
        .expect("rolling");
    assert_eq!((day.to_string(), changed), ("2026-12-03".to_string(), 3));
    assert_eq!(value("q-1").await, 0);
    // 2026-12-21 leaves: only its 20 go; June's stay.
    let (day, changed) = expire(&store, amr, utc("2027-12-21T10:00:00Z"))
        .await
        .expect("expire")
        .expect("rolling");
    assert_eq!((day.to_string(), changed), ("2026-12-21".to_string(), 1));
    assert_eq!(value("s-1").await, 20);
}

/// LB-2 / LB-4 from a snapshot: every player's around-me window lists the same players
/// in the same order, with the same ranks, as the page walk (ties included).
pub async fn snapshot_around_me_matches_the_pages<S: Store>(store: S) {
    let expected = seed_players(&store, 37).await;
    snapshot::write::run(&store, &seega_board(), "a", at(60), 5, None, at(60))
        .await
        .expect("run");
    let cache = SnapshotCache::default();
    for (i, (player, _)) in expected.iter().enumerate() {
        let me = pages::around_me(&store, &cache, &seega_board(), player, 2, chrono::Utc::now())
            .await
            .expect("around me")
            .expect("a snapshot");
        let got: Vec<_> = me.entries.iter().map(|e| (e.player_id.clone(), e.rank)).collect();
        let window = expected[i.saturating_sub(2)..(i + 3).min(expected.len())].to_vec();
        assert_eq!(got, window, "around {player}");
    }
}

/// Declares one `#[tokio::test]` per contract case for a store made by `$make`.
#[macro_export]
macro_rules! contract_tests {
    ($make:path) => {
        $crate::contract_tests!(@cases $make;
            concurrent_duplicates_apply_once,
            lost_reply_retry_does_not_double,
            floor_at_zero,
            floor_two_concurrent_losses,
            new_player_first_loss,
            conflict_writes_nothing,
            invalid_record_writes_nothing,
            void_match_changes_nothing,
            ties_share_rank,
            pages_carry_ranks,
            walk_meets_everyone_once,
            match_result_for_its_players_only,
            concurrent_matches_keep_the_ledger,
            item_writes_are_conditional,
            snapshot_resumes_and_completes_once,
            snapshot_walk_and_ranks,
            concurrent_snapshot_runs,
            pages_served_from_the_snapshot,
            period_credits_land_in_the_event_period,
            bucharest_week_cutoff,
            concurrent_credits_all_count,
            amr_window_moves,
            amr_window_counts_early_points_and_catches_up,
            snapshot_around_me_matches_the_pages,
            get_states_answer_in_the_order_asked,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::contract::$case($make().await).await;
            }
        )*
    };
}
