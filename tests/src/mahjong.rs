//! Mahjong Rivals records through the queue's entry point on both stores (MJ-7, MJ-8,
//! MJ-20, MJ-21, GM-3): a Quick Match's winner is paid once, on the balance and the
//! AMR, weekly and daily boards of the match's Bucharest date; a repeat changes
//! nothing; other content under the same id is a conflict.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::record::RecordPolicy;
use podium_service::incoming::{settle_incoming, Incoming, Outcome};
use podium_service::ServiceError;
use podium_store::Store;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

fn quick_match(id: &str, ended_at: &str, players: &[(&str, bool, i64)]) -> Vec<u8> {
    let players: Vec<serde_json::Value> = players
        .iter()
        .map(|(p, completed, score)| serde_json::json!({"player_id": p, "completed": completed, "score": score}))
        .collect();
    serde_json::json!({
        "match_id": id, "game": "mahjong-rivals", "kind": "quick-match",
        "ended_at": ended_at, "players": players,
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
    // Each call is another delivery (the same delivery again counts as applied).
    let delivery = format!("test-{:016x}", rand::random::<u64>());
    settle_incoming(store, &record, now, &policy, &delivery).await
}

async fn value<S: Store + ?Sized>(store: &S, board: &str, period: &str, player: &str) -> i64 {
    store
        .period_entry(&BoardRef::new(board, period), player)
        .await
        .expect("entry")
        .map_or(0, |b| b.points)
}

/// MJ-7, MJ-20: the completed winner gets 20 on the balance and on the three boards
/// in the periods of 19 July 2027 (00:30 in Bucharest), not the UTC date; a repeat
/// is a duplicate that changes nothing (GM-3); other content is a conflict.
pub async fn quick_match_winner_paid_once_on_three_boards<S: Store + 'static>(store: S) {
    let now = t("2027-07-18T21:31:00Z");
    let line = quick_match(
        "qm-1",
        "2027-07-18T21:30:00Z",
        &[("ana", true, 800), ("bo", false, 2_000)],
    );
    assert_eq!(
        settle(&store, &line, now).await.expect("settled"),
        Outcome::Applied
    );
    assert_eq!(
        settle(&store, &line, now).await.expect("settled"),
        Outcome::Duplicate
    );
    let balance = store.get_balance(Game::MahjongRivals, "ana").await.expect("read");
    assert_eq!(balance.map(|b| b.points), Some(20));
    assert_eq!(
        store.get_balance(Game::MahjongRivals, "bo").await.expect("read"),
        None
    );
    assert_eq!(value(&store, "mahjong-daily", "2027-07-19", "ana").await, 20);
    assert_eq!(value(&store, "mahjong-daily", "2027-07-18", "ana").await, 0);
    assert_eq!(value(&store, "mahjong-weekly", "2027-W29", "ana").await, 20);
    assert_eq!(value(&store, "mahjong-amr", "all", "ana").await, 20);
    let other = quick_match(
        "qm-1",
        "2027-07-18T21:30:00Z",
        &[("ana", false, 800), ("bo", false, 900)],
    );
    assert!(matches!(
        settle(&store, &other, now).await,
        Err(ServiceError::Conflict { .. })
    ));
    let ledger = store
        .ledger_entries(Game::MahjongRivals, "ana")
        .await
        .expect("ledger");
    assert_eq!(ledger.len(), 1, "one ledger entry (GM-4)");
}

/// MJ-7, MJ-8: tied first places and an all-zero match pay nobody, but are recorded
/// (a repeat is a duplicate); a bad record is refused naming its field (GM-5).
pub async fn quick_match_without_a_winner_pays_nobody<S: Store + 'static>(store: S) {
    let now = t("2027-03-01T12:00:00Z");
    let tied = quick_match(
        "qm-t",
        "2027-03-01T11:00:00Z",
        &[("a", false, 700), ("b", false, 700), ("c", false, 10)],
    );
    let zero = quick_match(
        "qm-z",
        "2027-03-01T11:00:00Z",
        &[("a", false, 0), ("b", false, 0)],
    );
    for line in [&tied, &zero] {
        assert_eq!(
            settle(&store, line, now).await.expect("settled"),
            Outcome::Applied
        );
        assert_eq!(
            settle(&store, line, now).await.expect("settled"),
            Outcome::Duplicate
        );
    }
    for p in ["a", "b", "c"] {
        assert_eq!(
            store.get_balance(Game::MahjongRivals, p).await.expect("read"),
            None
        );
    }
    let one = quick_match("qm-1p", "2027-03-01T11:00:00Z", &[("a", true, 10)]);
    match settle(&store, &one, now).await {
        Err(ServiceError::Invalid(e)) => assert_eq!((e.field.as_str(), e.rule), ("players", "MJ-7")),
        other => panic!("{other:?}"),
    }
}

#[macro_export]
macro_rules! mahjong_tests {
    ($make:path) => {
        $crate::mahjong_tests!(@cases $make;
            quick_match_winner_paid_once_on_three_boards,
            quick_match_without_a_winner_pays_nobody,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::mahjong::$case($make().await).await;
            }
        )*
    };
}
