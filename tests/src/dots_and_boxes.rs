//! Dots and Boxes on both stores (DB-1 … DB-6, GM-3): a match is replayed, its
//! claimed result checked, and both Elo ratings written once, onto the
//! `dots-and-boxes` board; a record the moves contradict is refused and writes
//! nothing; a game against the CPU is recorded but not rated.

use chrono::{DateTime, Utc};
use podium_rules::dots_and_boxes::board::Board;
use podium_rules::dots_and_boxes::replay::{self, Move, Outcome};
use podium_rules::game::Game;
use podium_rules::record::policy::RecordPolicy;
use podium_service::games::incoming::{settle_incoming, Incoming, Outcome as Settled};
use podium_service::ServiceError;
use podium_store::Store;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

/// Every line of `board` in numbering order, the turn passing as DB-2 says.
pub(crate) fn full_game(board: &Board) -> Vec<Move> {
    let mut moves: Vec<Move> = Vec::new();
    let mut player = 0;
    for line in 0..board.lines() {
        moves.push(Move { player, line });
        let r = replay::replay(board, &moves).expect("legal");
        player = r.to_move.unwrap_or(player);
    }
    moves
}

pub(crate) fn line(id: &str, players: [(&str, bool); 2], moves: &[Move], winner: Option<&str>) -> Vec<u8> {
    serde_json::json!({
        "match_id": id, "game": "dots-and-boxes",
        "started_at": "2027-01-01T10:00:00Z", "ended_at": "2027-01-01T10:09:00Z",
        "board": {"width": 3, "height": 3},
        "players": players.iter().map(|(p, h)| serde_json::json!({"player_id": p, "human": h})).collect::<Vec<_>>(),
        "moves": moves, "result": {"winner": winner},
    })
    .to_string()
    .into_bytes()
}

pub(crate) async fn send<S: Store + ?Sized>(store: &S, bytes: &[u8]) -> Result<Settled, ServiceError> {
    let now = t("2027-01-01T10:10:00Z");
    let policy = RecordPolicy::default();
    let record = Incoming::from_json(bytes, now, &policy)?;
    settle_incoming(
        store,
        &record,
        now,
        &policy,
        &format!("d-{:016x}", rand::random::<u64>()),
    )
    .await
}

async fn rating<S: Store + ?Sized>(store: &S, player: &str) -> Option<i64> {
    store
        .get_balance(Game::DotsAndBoxes, player)
        .await
        .expect("read")
        .map(|b| b.points)
}

/// DB-4, DB-6, GM-3: a complete 3 × 3 game replayed: the winner by the moves goes
/// 1500 → 1516, the loser 1500 → 1484, once; the board lists them; a record claiming
/// the other winner is refused naming `result` and changes nothing; a game against
/// the CPU is recorded, not rated.
pub async fn a_replayed_match_rates_both_players_once<S: Store + Clone + 'static>(store: S) {
    let board = Board { width: 3, height: 3 };
    let moves = full_game(&board);
    let r = replay::replay(&board, &moves).expect("legal");
    let (winner, loser) = match replay::outcome(&r, None) {
        Some(Outcome::Win(0)) => ("da", "db"),
        Some(Outcome::Win(_)) => ("db", "da"),
        other => panic!("this game has a winner, not {other:?}"),
    };
    let cheat = line("dab-0", [("da", true), ("db", true)], &moves, Some(loser));
    match send(&store, &cheat).await {
        Err(ServiceError::Invalid(e)) => assert_eq!((e.field.as_str(), e.rule), ("result", "DB-4")),
        other => panic!("expected DB-4, got {other:?}"),
    }
    assert_eq!(rating(&store, "da").await, None);
    let honest = line("dab-1", [("da", true), ("db", true)], &moves, Some(winner));
    assert_eq!(send(&store, &honest).await.expect("settled"), Settled::Applied);
    assert_eq!(send(&store, &honest).await.expect("again"), Settled::Duplicate);
    assert_eq!(rating(&store, winner).await, Some(1516));
    assert_eq!(rating(&store, loser).await, Some(1484));
    let top = store
        .board_after(
            &podium_rules::board::BoardRef::all_time("dots-and-boxes"),
            None,
            5,
        )
        .await
        .expect("board");
    assert_eq!(
        top.iter()
            .map(|s| (s.player_id.as_str(), s.value))
            .collect::<Vec<_>>(),
        [(winner, 1516), (loser, 1484)]
    );
    let ledger = store
        .ledger_entries(Game::DotsAndBoxes, winner)
        .await
        .expect("ledger");
    assert_eq!(
        (ledger.len(), ledger[0].applied, ledger[0].balance_after),
        (1, 16, 1516)
    );
    // Against the CPU: recorded (a repeat is a duplicate), not rated.
    let cpu = line(
        "dab-2",
        [("da", true), ("cpu", false)],
        &moves,
        Some(if winner == "da" { "da" } else { "cpu" }),
    );
    assert_eq!(send(&store, &cpu).await.expect("settled"), Settled::Applied);
    assert_eq!(send(&store, &cpu).await.expect("again"), Settled::Duplicate);
    assert_eq!(rating(&store, winner).await, Some(1516));
    assert_eq!(rating(&store, "cpu").await, None);
    let view = podium_service::games::results::match_result(&store, winner, "dab-1")
        .await
        .expect("view");
    let podium_service::games::results::MatchView::DotsAndBoxes(v) = view else {
        panic!("a Dots and Boxes match")
    };
    assert_eq!(v.players.iter().map(|p| p.boxes).sum::<u32>(), 9);
    // DB-4: the lines drawn, each player's and all; nobody resigned.
    assert_eq!(v.moves, Some(moves.len() as u32));
    assert_eq!(
        v.players.iter().filter_map(|p| p.moves).sum::<u32>(),
        moves.len() as u32
    );
    assert_eq!(v.resigned, None);
    assert!(
        podium_service::games::results::match_result(&store, "zz", "dab-1")
            .await
            .is_err()
    );
    // Another game's match under the same id: each player sees the match they played.
    assert_eq!(
        send(&store, &duel("dab-1", "ma", "points"))
            .await
            .expect("settled"),
        Settled::Applied
    );
    let theirs = podium_service::games::results::match_result(&store, "ma", "dab-1")
        .await
        .expect("view");
    assert!(matches!(
        theirs,
        podium_service::games::results::MatchView::Minesweeper(_)
    ));
    let mine = podium_service::games::results::match_result(&store, winner, "dab-1")
        .await
        .expect("view");
    assert!(matches!(
        mine,
        podium_service::games::results::MatchView::DotsAndBoxes(_)
    ));
}

/// A duel on a grid whose 40 mines are rows 20 … 23: A reveals a zero at 0:12
/// (flooding rows 0 … 19), B a mine at 0:20 and a zero at 0:30.
pub(crate) fn duel(id: &str, winner: &str, kind: &str) -> Vec<u8> {
    let mines: Vec<serde_json::Value> = (0..40)
        .map(|k| serde_json::json!({"row": 20 + k / 10, "col": k % 10}))
        .collect();
    serde_json::json!({
        "match_id": id, "game": "minesweeper",
        "started_at": "2027-01-01T10:00:00Z", "ended_at": "2027-01-01T10:05:00Z",
        "mines": mines, "start": [{"row": 0, "col": 0}],
        "players": [
            {"player_id": "ma", "human": true, "actions": [{"at_ms": 12000, "type": "reveal", "row": 5, "col": 5}]},
            {"player_id": "mb", "human": true, "actions": [
                {"at_ms": 20000, "type": "reveal", "row": 20, "col": 0},
                {"at_ms": 30000, "type": "reveal", "row": 3, "col": 3}]}
        ],
        "result": {"winner": winner, "kind": kind},
    })
    .to_string()
    .into_bytes()
}

/// MS-3, MS-6 … MS-8, GM-3: a duel replayed: A (1,990) beats B (1,890) on points;
/// both ratings move once (1516 / 1484) onto the `minesweeper` board; a record
/// claiming the other winner, or another kind of win, is refused naming `result`.
pub async fn a_replayed_duel_rates_both_players_once<S: Store + Clone + 'static>(store: S) {
    for (winner, kind) in [("mb", "points"), ("ma", "perfect")] {
        match send(&store, &duel("ms-0", winner, kind)).await {
            Err(ServiceError::Invalid(e)) => assert_eq!((e.field.as_str(), e.rule), ("result", "MS-8")),
            other => panic!("expected MS-8, got {other:?}"),
        }
    }
    // MS-5: an end the actions contradict (before their last, or past the 5 minutes)
    // is refused naming `ended_at`, with the end the actions give.
    for ended in ["2027-01-01T10:00:10Z", "2027-01-01T10:05:01Z"] {
        let mut v: serde_json::Value = serde_json::from_slice(&duel("ms-e", "ma", "points")).unwrap();
        v["ended_at"] = serde_json::json!(ended);
        match send(&store, v.to_string().as_bytes()).await {
            Err(ServiceError::Invalid(e)) => {
                assert_eq!((e.field.as_str(), e.rule), ("ended_at", "MS-5"), "{ended}");
                assert!(e.message.contains("its actions end it at 2027-01-01T10:"), "{e}");
            }
            other => panic!("{ended}: expected MS-5, got {other:?}"),
        }
    }
    let honest = duel("ms-1", "ma", "points");
    assert_eq!(send(&store, &honest).await.expect("settled"), Settled::Applied);
    assert_eq!(send(&store, &honest).await.expect("again"), Settled::Duplicate);
    let rating = |p: &'static str| {
        let store = &store;
        async move {
            store
                .get_balance(Game::Minesweeper, p)
                .await
                .expect("read")
                .map(|b| b.points)
        }
    };
    assert_eq!((rating("ma").await, rating("mb").await), (Some(1516), Some(1484)));
    let top = store
        .board_after(&podium_rules::board::BoardRef::all_time("minesweeper"), None, 5)
        .await
        .expect("board");
    assert_eq!(top.len(), 2);
    assert_eq!(top[0].player_id, "ma");
    // The result, for its players only (MS-7: the kind of win, ratings before and after).
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    let get = |player: &str| podium_service::api::ApiRequest {
        method: "GET".into(),
        path: "/v1/me/matches/ms-1".into(),
        query: Default::default(),
        player: Some(player.into()),
        operator: None,
        raw_query: None,
    };
    let now = t("2027-01-01T10:10:00Z");
    let mine = podium_service::api::handle(&store, &ctx, &get("mb"), now).await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    assert_eq!(mine.body["game"], "minesweeper");
    assert_eq!(mine.body["decided"]["win"]["kind"], "points", "{}", mine.body);
    assert_eq!(mine.body["players"][1]["rating_after"], 1484);
    assert_eq!(mine.body["players"][1]["lives"], 2);
    assert_eq!(
        podium_service::api::handle(&store, &ctx, &get("zz"), now)
            .await
            .status,
        404
    );
}

/// MS-2, MS-5, MS-7: a duel won `mine_proof`, its result in full. A floods rows 0 … 19
/// at 0:12 (+1,990), then hits three mines at 0:20, 0:21 and 0:22 and stops with no
/// lives (1,690); B opens one tile at 0:30 (+10) and hits a mine at 0:40 (−90), and
/// plays on until time is up at 5:00. Each player's tiles, mines, lives, the instant
/// their final score was reached and, for A, when and why they stopped; the end.
pub async fn a_duel_result_shows_its_replay<S: Store + Clone + 'static>(store: S) {
    let mines: Vec<serde_json::Value> = (0..40)
        .map(|k| serde_json::json!({"row": 20 + k / 10, "col": k % 10}))
        .collect();
    let record = serde_json::json!({
        "match_id": "ms-proof", "game": "minesweeper",
        "started_at": "2027-01-01T10:00:00Z", "ended_at": "2027-01-01T10:05:00Z",
        "mines": mines, "start": [{"row": 0, "col": 0}],
        "players": [
            {"player_id": "ma", "human": true, "actions": [
                {"at_ms": 12000, "type": "reveal", "row": 5, "col": 5},
                {"at_ms": 20000, "type": "reveal", "row": 20, "col": 0},
                {"at_ms": 21000, "type": "reveal", "row": 20, "col": 1},
                {"at_ms": 22000, "type": "reveal", "row": 20, "col": 2}]},
            {"player_id": "mb", "human": true, "actions": [
                {"at_ms": 30000, "type": "reveal", "row": 24, "col": 5},
                {"at_ms": 40000, "type": "reveal", "row": 20, "col": 0}]}
        ],
        "result": {"winner": "ma", "kind": "mine_proof"},
    })
    .to_string()
    .into_bytes();
    assert_eq!(send(&store, &record).await.expect("settled"), Settled::Applied);
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    let get = |player: &str| podium_service::api::ApiRequest {
        method: "GET".into(),
        path: "/v1/me/matches/ms-proof".into(),
        query: Default::default(),
        player: Some(player.into()),
        operator: None,
        raw_query: None,
    };
    let now = t("2027-01-01T10:10:00Z");
    let seen = podium_service::api::handle(&store, &ctx, &get("mb"), now).await;
    assert_eq!(seen.status, 200, "{}", seen.body);
    let b = &seen.body;
    assert_eq!(b["decided"]["win"]["kind"], "mine_proof", "{b}");
    assert_eq!(
        b["end"],
        serde_json::json!({"how": "time_up", "at": "2027-01-01T10:05:00Z"}),
        "{b}"
    );
    let winner = &b["players"][0];
    assert_eq!(
        (
            winner["score"].clone(),
            winner["lives"].clone(),
            winner["tiles_opened"].clone(),
            winner["mines_hit"].clone()
        ),
        (1690.into(), 0.into(), 199.into(), 3.into()),
        "{b}"
    );
    assert_eq!(winner["reached_at"], "2027-01-01T10:00:22Z", "{b}");
    assert_eq!(winner["stopped_at"], "2027-01-01T10:00:22Z", "{b}");
    assert_eq!(winner["stopped"], "no_lives", "{b}");
    let loser = &b["players"][1];
    assert_eq!(
        (
            loser["score"].clone(),
            loser["lives"].clone(),
            loser["tiles_opened"].clone(),
            loser["mines_hit"].clone()
        ),
        ((-90).into(), 2.into(), 1.into(), 1.into()),
        "{b}"
    );
    assert_eq!(loser["reached_at"], "2027-01-01T10:00:40Z", "{b}");
    assert!(
        loser.get("stopped_at").is_none() && loser.get("stopped").is_none(),
        "played on: {b}"
    );
    assert_eq!(
        podium_service::api::handle(&store, &ctx, &get("zz"), now)
            .await
            .status,
        404
    );
}

/// MS-5 (issue 47): a duel that ends early (B hits three mines by 0:12 and stops
/// behind A, who flooded at 0:05: a stopped player overtaken) ends at 0:12, and that
/// instant is the record's: an `ended_at` at the nominal 5 minutes is refused naming
/// the end the actions give; the honest record's result, its `end` and both ledger
/// entries name the one instant, 10:00:12.
pub async fn a_duel_ends_when_its_actions_end_it<S: Store + Clone + 'static>(store: S) {
    let mines: Vec<serde_json::Value> = (0..40)
        .map(|k| serde_json::json!({"row": 20 + k / 10, "col": k % 10}))
        .collect();
    let record = |ended: &str| {
        serde_json::json!({
            "match_id": "ms-early", "game": "minesweeper",
            "started_at": "2027-01-01T10:00:00Z", "ended_at": ended,
            "mines": mines, "start": [{"row": 0, "col": 0}],
            "players": [
                {"player_id": "ea", "human": true, "actions": [{"at_ms": 5000, "type": "reveal", "row": 5, "col": 5}]},
                {"player_id": "eb", "human": true, "actions": [
                    {"at_ms": 10000, "type": "reveal", "row": 20, "col": 0},
                    {"at_ms": 11000, "type": "reveal", "row": 20, "col": 1},
                    {"at_ms": 12000, "type": "reveal", "row": 20, "col": 2}]}
            ],
            "result": {"winner": "ea", "kind": "blast"},
        })
        .to_string()
        .into_bytes()
    };
    match send(&store, &record("2027-01-01T10:05:00Z")).await {
        Err(ServiceError::Invalid(e)) => assert_eq!(
            e.to_string(),
            "ended_at (MS-5): 2027-01-01T10:05:00Z is not when the duel ended: its actions end it at \
             2027-01-01T10:00:12Z (0:12.000 after started_at 2027-01-01T10:00:00Z: a stopped player was \
             overtaken); send that instant"
        ),
        other => panic!("expected MS-5, got {other:?}"),
    }
    assert_eq!(
        send(&store, &record("2027-01-01T10:00:12Z"))
            .await
            .expect("settled"),
        Settled::Applied
    );
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    let now = t("2027-01-01T10:10:00Z");
    let result = podium_service::api::handle(
        &store,
        &ctx,
        &podium_service::api::ApiRequest {
            method: "GET".into(),
            path: "/v1/me/matches/ms-early".into(),
            query: Default::default(),
            player: Some("ea".into()),
            operator: None,
            raw_query: None,
        },
        now,
    )
    .await;
    assert_eq!(result.status, 200, "{}", result.body);
    assert_eq!(result.body["ended_at"], "2027-01-01T10:00:12Z", "{}", result.body);
    assert_eq!(
        result.body["end"]["at"], "2027-01-01T10:00:12Z",
        "{}",
        result.body
    );
    for player in ["ea", "eb"] {
        let ledger = store
            .ledger_entries(Game::Minesweeper, player)
            .await
            .expect("ledger");
        assert_eq!(ledger.len(), 1, "{player}");
        assert_eq!(ledger[0].at, t("2027-01-01T10:00:12Z"), "{player}");
    }
    // A duel settled while MS-5 took any end up to the 5 minutes, delivered again: a
    // duplicate answered with its stored result, not a refusal.
    let old_record = String::from_utf8(record("2027-01-01T10:05:00Z"))
        .expect("utf-8")
        .replace("ms-early", "ms-before");
    let duel = podium_rules::minesweeper::record::Duel::from_json(old_record.as_bytes()).expect("parse");
    let hash = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(
            serde_json::to_string(&duel).expect("json").as_bytes(),
        ))
    };
    let stored = store
        .get_source(&podium_store::SourceKey::new("minesweeper", "ms-early"))
        .await
        .expect("read")
        .expect("settled");
    let commit = podium_store::Commit::source_only(
        podium_store::SourceKey::new("minesweeper", "ms-before"),
        hash,
        "before".into(),
        stored.result.clone(),
    );
    assert_eq!(
        store.commit(&commit).await.expect("commit"),
        podium_store::CommitOutcome::Committed
    );
    assert_eq!(
        send(&store, old_record.as_bytes()).await.expect("a duplicate"),
        Settled::Duplicate
    );
}

#[macro_export]
macro_rules! dots_and_boxes_tests {
    ($make:path) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn a_duel_result_shows_its_replay() {
            $crate::dots_and_boxes::a_duel_result_shows_its_replay($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn a_replayed_match_rates_both_players_once() {
            $crate::dots_and_boxes::a_replayed_match_rates_both_players_once($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn a_replayed_duel_rates_both_players_once() {
            $crate::dots_and_boxes::a_replayed_duel_rates_both_players_once($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn a_duel_ends_when_its_actions_end_it() {
            $crate::dots_and_boxes::a_duel_ends_when_its_actions_end_it($make().await).await;
        }
    };
}
