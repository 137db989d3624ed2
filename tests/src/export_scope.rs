//! A player's export holds what concerns them, other players only as the role they played (GDPR Art. 15(4), 20(4)).
//!
//! Also the audit trail's reach (OP-5): an approved or rejected record is in the trail
//! of every player it names, and stays there, without the other's id, once one of them
//! is deleted (GM-6); a period's close is found under its board and period.

use chrono::{DateTime, Duration, Utc};
use podium_rules::record::policy::RecordPolicy;
use podium_service::api::ApiContext;
use podium_service::games::incoming::Incoming;
use podium_service::jobs::{handle, Job, ScheduledRun};
use podium_service::moderation::audit::{self, AuditEntry, Trail};
use podium_service::moderation::review::{self, Intake, Verdict};
use podium_store::{SourceKey, Store};
use serde_json::{json, Value};

use crate::contract::{cursor_key, score_match};
use crate::deletion::t;
use crate::fixtures::{rout, seed_balance};
use crate::moderation::operator_call;
use crate::overtaken::{later, refresh};

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! export_scope_tests {
    ($make:path) => {
        $crate::export_scope_tests!(@cases $make;
            an_export_names_no_other_player,
            op5_an_approval_is_in_the_trail_of_every_player_it_names,
            op5_a_period_close_is_filed_under_its_board_and_period,
            an_export_tells_nothing_of_another_players_suspension,
            gm6_op5_a_deleted_players_trail_is_read_by_their_pseudonym,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::export_scope::$case($make().await).await;
            }
        )*
    };
}

/// The subject of the export test: the 6th of the 30 players of week 2026-W48
/// ([`crate::period_close::seed_week`]).
const SUBJECT: &str = "m05";

/// Plausibility checks that hold every Seega match shorter than ten minutes (OP-2).
fn holding_policy() -> RecordPolicy {
    RecordPolicy {
        plausibility: std::sync::Arc::new(
            podium_rules::plausibility::Plausibility::from_json(r#"{"min_duration_ms": {"seega": 600000}}"#)
                .expect("checks"),
        ),
        ..Default::default()
    }
}

/// Offers the Seega rout `id` (`winner` over `loser`, ended at `ended`) under
/// [`holding_policy`] at `now`: held for review.
async fn hold<S: Store + ?Sized>(
    store: &S,
    id: &str,
    winner: &str,
    loser: &str,
    ended: DateTime<Utc>,
    now: DateTime<Utc>,
) {
    let policy = holding_policy();
    let raw = serde_json::to_vec(&rout(id, winner, loser, ended)).expect("json");
    let record = Incoming::from_json(&raw, now, &policy).expect("parses");
    let delivery = format!("test-{:016x}", rand::random::<u64>());
    let intake = review::accept(store, &raw, &record, now, &policy, &delivery)
        .await
        .expect("offered");
    assert!(matches!(intake, Intake::Held { .. }), "{id}: {intake:?}");
}

/// Decides the held Seega match `id` as operator `support-7` at `now`.
async fn decide<S: Store + ?Sized>(store: &S, id: &str, verdict: Verdict, now: DateTime<Utc>) {
    review::decide(
        store,
        ("seega", id),
        verdict,
        ("support-7", "checked against the replay"),
        now,
        &holding_policy(),
    )
    .await
    .expect("decided");
}

/// Every entry of `trail`, newest first.
async fn trail<S: Store + ?Sized>(store: &S, trail: Trail) -> Vec<AuditEntry> {
    let (entries, next) = audit::read(store, &trail, None, audit::MAX_PAGE)
        .await
        .expect("trail");
    assert!(next.is_none(), "one page");
    entries
}

/// Whether `text` names `id` as a whole id (not inside a longer one).
fn names(text: &str, id: &str) -> bool {
    let id_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|');
    text.match_indices(id).any(|(i, _)| {
        text[..i].chars().next_back().is_none_or(|c| !id_char(c))
            && text[i + id.len()..].chars().next().is_none_or(|c| !id_char(c))
    })
}

/// Every object in `v` (with the path to it), for structural checks.
fn objects<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a serde_json::Map<String, Value>)>) {
    match v {
        Value::Object(o) => {
            out.push((path.clone(), o));
            for (k, x) in o {
                objects(x, format!("{path}.{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                objects(x, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The result `key` of the export.
fn result<'a>(export: &'a Value, key: &str) -> &'a Value {
    export["results"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["key"] == key)
        .map(|r| &r["body"])
        .unwrap_or_else(|| panic!("{key} exported: {}", export["results"]))
}

/// GDPR Art. 15(4), 20(4) (review: an export named 29 other players, with their
/// per-match balances and moves): m05 plays a Seega match, a Dots and Boxes match, a
/// Minesweeper duel, a Quick Match (lost), an Arena, a tournament table and a held
/// match an operator approves; is passed on `seega` (an `overtaken` message naming the
/// passer) and passes another player (whose message names m05); ends week 2026-W48
/// 6th of 30 (a period result with a reward) and in a league cohort (a league result,
/// the cohort's record); and names a friend. Their export
/// names no other player anywhere (ids, keys, held records, audit entries,
/// references), holds no other player's balance, moves or values (every row of
/// another player is `{"role": …}`), and keeps m05's own numbers; the friend list, the
/// player's own, is kept as they entered it (PF-4).
pub async fn an_export_names_no_other_player<S: Store + Clone + 'static>(store: S) {
    use podium_service::games::tournaments;
    // Week 2026-W48 of mahjong-weekly, 30 players, frozen and closed with its rewards.
    let week = crate::period_close::seed_week(&store).await;
    let tables = podium_service::config::parse_period_rewards(crate::period_close::TABLES).expect("tables");
    let freeze = ScheduledRun {
        job: Job::Freeze,
        scheduled_time: t("2026-11-29T22:05:00Z"),
    };
    handle(&store, freeze, &tables.into()).await.expect("freeze");
    let mut others: Vec<String> = week
        .iter()
        .map(|(p, _)| p.clone())
        .filter(|p| p != SUBJECT)
        .collect();
    // Seega: m05 is passed by o-passer and passes o-passed between two refreshes.
    for (p, points) in [("o-passed", 2_500), (SUBJECT, 2_300), ("o-passer", 2_200)] {
        seed_balance(&store, p, points, 1_000).await;
    }
    refresh(&store, 1).await;
    let ended = later(1);
    let scored = ended + Duration::seconds(20);
    for (id, winner, loser) in [
        ("sg-s1", SUBJECT, "o-seega"),
        ("sg-p1", "o-passer", "o-seega2"),
        ("sg-p2", "o-passer", "o-seega2"),
    ] {
        score_match(&store, &rout(id, winner, loser, ended), scored)
            .await
            .expect("scored");
    }
    refresh(&store, 2).await;
    // Dots and Boxes and a Minesweeper duel.
    let board = podium_rules::dots_and_boxes::board::Board { width: 3, height: 3 };
    let moves = crate::dots_and_boxes::full_game(&board);
    let replayed = podium_rules::dots_and_boxes::replay::replay(&board, &moves).expect("legal");
    let winner = match podium_rules::dots_and_boxes::replay::outcome(&replayed, None) {
        Some(podium_rules::dots_and_boxes::replay::Outcome::Win(0)) => Some(SUBJECT),
        Some(podium_rules::dots_and_boxes::replay::Outcome::Win(_)) => Some("o-dots"),
        _ => None,
    };
    let dots = crate::dots_and_boxes::line("db-s1", [(SUBJECT, true), ("o-dots", true)], &moves, winner);
    crate::dots_and_boxes::send(&store, &dots).await.expect("dots");
    let mines: Vec<Value> = (0..40)
        .map(|k| json!({"row": 20 + k / 10, "col": k % 10}))
        .collect();
    let duel = json!({
        "match_id": "ms-s1", "game": "minesweeper",
        "started_at": "2027-01-01T10:00:00Z", "ended_at": "2027-01-01T10:05:00Z",
        "mines": mines, "start": [{"row": 0, "col": 0}],
        "players": [
            {"player_id": SUBJECT, "human": true, "actions": [{"at_ms": 12000, "type": "reveal", "row": 5, "col": 5}]},
            {"player_id": "o-mines", "human": true, "actions": [
                {"at_ms": 20000, "type": "reveal", "row": 20, "col": 0},
                {"at_ms": 30000, "type": "reveal", "row": 3, "col": 3}]}
        ],
        "result": {"winner": SUBJECT, "kind": "points"},
    });
    crate::dots_and_boxes::send(&store, duel.to_string().as_bytes())
        .await
        .expect("duel");
    // Mahjong Rivals: a Quick Match o-qm wins, an Arena, a tournament table.
    let qm = crate::deletion::quick_match("qm-s1", "2027-07-18T18:00:00Z", "o-qm", SUBJECT);
    crate::mahjong::settle(&store, &qm, t("2027-07-18T18:01:00Z"))
        .await
        .expect("quick match");
    let arena = crate::mahjong::arena_line(
        "ar-s1",
        ["o-ar1", SUBJECT, "o-ar2", "o-ar3"],
        [[300, 300, 300], [200, 200, 200], [100, 100, 100], [0, 0, 0]],
        [0; 4],
    );
    crate::mahjong::settle(&store, &arena, t("2027-07-18T21:31:00Z"))
        .await
        .expect("arena");
    let now = t("2027-07-14T17:00:00Z");
    tournaments::configure(&store, &crate::tournaments::cup("cup-s1", 2, false), "op-1", now)
        .await
        .expect("configured");
    for (p, at) in [
        (SUBJECT, "2027-07-14T16:00:00Z"),
        ("o-table", "2027-07-14T16:30:00Z"),
    ] {
        crate::tournaments::send(&store, crate::tournaments::registration("cup-s1", p, at), now)
            .await
            .expect("registered");
    }
    tournaments::tick(&store, t("2027-07-14T18:05:00Z"))
        .await
        .expect("start");
    let table = crate::tournaments::table(
        "cup-s1",
        "tb-s1",
        "2027-07-14T18:20:00Z",
        &[(SUBJECT, true, 1200), ("o-table", false, 5)],
    );
    crate::tournaments::send(&store, table, t("2027-07-14T18:30:00Z"))
        .await
        .expect("table");
    for at in ["2027-07-14T19:05:00Z", "2027-07-14T19:10:00Z"] {
        tournaments::tick(&store, t(at)).await.expect("tick");
    }
    // A match held for review, naming m05 and o-held, approved by an operator.
    hold(&store, "sg-held", "o-held", SUBJECT, later(30), later(40)).await;
    decide(&store, "sg-held", Verdict::Approve, later(41)).await;
    // A profile and a friend.
    let ctx = ApiContext::new(cursor_key());
    for (path, body) in [
        ("/v1/me/profile", json!({"name": "Mira", "country": "RO"})),
        ("/v1/me/friends", json!({"friends": ["o-friend"]})),
    ] {
        let answer = crate::profiles::put(&store, &ctx, path, SUBJECT, &body, later(50)).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    }
    others.extend(
        [
            "o-passed", "o-passer", "o-seega", "o-seega2", "o-dots", "o-mines", "o-qm", "o-ar1", "o-ar2",
            "o-ar3", "o-table", "o-held",
        ]
        .map(str::to_string),
    );

    let export = podium_service::operators::export::export_player(&store, SUBJECT, later(60))
        .await
        .expect("exported");
    let mut export = serde_json::to_value(&export).expect("json");
    // The friend list is m05's own (PF-4): kept, and the only place a friend is named.
    assert_eq!(export["friends"], json!(["o-friend"]));
    export["friends"] = json!([]);
    let text = export.to_string();
    for other in others.iter().map(String::as_str).chain(["o-friend"]) {
        assert!(!names(&text, other), "the export names {other}: {text}");
    }
    // No row of another player: every `player_id` is m05's, every role stands alone.
    let mut all = Vec::new();
    objects(&export, String::new(), &mut all);
    for (path, o) in &all {
        if let Some(p) = o.get("player_id") {
            assert!(
                p == SUBJECT || path.starts_with(".audit") || path.starts_with(".held"),
                "{path}: {p}"
            );
        }
        if o.contains_key("role") {
            assert_eq!(o.len(), 1, "{path}: a role carries nothing else: {o:?}");
        }
    }
    let roles = all.iter().filter(|(_, o)| o.contains_key("role")).count();
    assert!(roles >= 15, "others stand as roles: {roles}");

    // m05's own numbers, each game: the Seega match as stored for m05's row.
    let stored = store
        .get_source(&SourceKey::new("match", "sg-s1"))
        .await
        .expect("read")
        .expect("stored");
    let stored: Value = serde_json::from_str(&stored.result).expect("json");
    let seega = result(&export, "match/sg-s1");
    assert_eq!(seega["players"][0], stored["players"][0], "m05's own row, whole");
    assert_eq!(seega["players"][0]["balance_after"], 2_611);
    assert_eq!(seega["players"][1], json!({"role": "opponent"}));
    assert!(stored["players"][1]["balance_after"].is_number() && stored["players"][1]["moves"] == 20);
    let dots = result(&export, "dots-and-boxes/db-s1");
    assert_eq!(dots["players"][0]["player_id"], SUBJECT);
    assert!(dots["players"][0]["boxes"].is_number() && dots["players"][0]["rating_after"].is_number());
    assert_eq!(dots["players"][1], json!({"role": "opponent"}));
    let duel = result(&export, "minesweeper/ms-s1");
    assert_eq!(duel["players"][0]["player_id"], SUBJECT);
    assert!(duel["players"][0]["score"].is_number());
    assert_eq!(duel["players"][1], json!({"role": "opponent"}));
    assert_eq!(duel["decided"]["win"]["player"], 0);
    let qm = result(&export, "quick-match/qm-s1");
    assert_eq!(qm["winner"], "opponent");
    assert_eq!(
        qm["balance_after"],
        Value::Null,
        "the winner's balance is not m05's"
    );
    assert_eq!(qm["points"], Value::Null, "nor the points the win gave them");
    assert_eq!(qm["players"][1]["player_id"], SUBJECT);
    let arena = result(&export, "arena/ar-s1");
    assert_eq!(arena["standings"][1]["player_id"], SUBJECT);
    assert_eq!(arena["standings"][1]["place"], 2);
    assert_eq!(arena["standings"][0], json!({"role": "opponent 1"}));
    let table = result(&export, "tournament-table/tb-s1");
    assert_eq!(table["tp"][0][0], SUBJECT);
    assert_eq!(table["tp"][1], json!({"role": "opponent"}));
    // The week: the period result with its reward, the league result, the cohort.
    let inbox = export["states"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["key"] == "inbox")
        .map(|s| s["body"]["messages"].clone())
        .expect("an inbox");
    let message = |kind: &str| {
        inbox
            .as_array()
            .into_iter()
            .flatten()
            .find(|m| m["kind"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("a {kind} message: {inbox}"))
    };
    let period = message("period_result");
    assert_eq!(
        (&period["rank"], &period["of"]),
        (&json!(6), &json!(30)),
        "{period}"
    );
    assert_eq!(period["reward"]["points"], 10);
    assert_eq!(message("league_result")["period"], "2026-W48");
    let passed = message("overtaken");
    assert_eq!(passed["overtaken"]["by"], json!([{"role": "passer"}]), "{passed}");
    assert_eq!(passed["overtaken"]["passed_by"], 1);
    let cohort = export["results"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["key"].as_str().is_some_and(|k| k.starts_with("league-cohort/")))
        .map(|r| &r["body"])
        .expect("the cohort's record");
    let rows = cohort.as_array().expect("rows");
    assert_eq!(
        rows.iter().filter(|r| r["player_id"] == SUBJECT).count(),
        1,
        "{cohort}"
    );
    assert!(rows.iter().any(|r| r["role"] == "cohort member 1"), "{cohort}");
    // o-passed's message names m05: only m05's own row of it, not o-passed's numbers.
    let mention = export["results"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| {
            r["key"]
                .as_str()
                .is_some_and(|k| k.starts_with("overtaken/") && k.ends_with("/another player"))
        })
        .map(|r| &r["body"])
        .expect("the message m05's pass sent");
    assert_eq!(mention["about_you"][0]["player_id"], SUBJECT, "{mention}");
    assert!(
        mention.get("rank").is_none() && mention.get("overtaken").is_none(),
        "{mention}"
    );
    // The held record and its approval: the other player as the opponent.
    assert_eq!(export["held"][0]["players"], json!(["opponent", SUBJECT]));
    let record: Value =
        serde_json::from_str(export["held"][0]["record"].as_str().expect("text")).expect("json");
    assert_eq!(record["players"][0], json!({"role": "opponent"}));
    assert_eq!(record["players"][1]["player_id"], SUBJECT);
    assert_eq!(
        export["held"][0]["content_hash"], "",
        "the hash of the record as sent could confirm a guess about the opponent"
    );
    let approval = export["audit"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["action"] == "approve")
        .expect("the approval is in m05's trail (OP-5)");
    assert_eq!(approval["players"], json!(["opponent", SUBJECT]));
    assert_eq!(approval["target"], "seega/sg-held");
    // Balances and the ledger are m05's own.
    let seega_balance = store
        .get_balance(podium_rules::game::Game::Seega, SUBJECT)
        .await
        .expect("read")
        .expect("a balance");
    assert!(export["balances"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|b| b["game"] == "seega" && b["points"] == seega_balance.points));
    assert!(export["ledger"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|e| e["player_id"] == SUBJECT));
    assert_eq!(export["profile"]["name"], "Mira");
}

/// OP-5, GM-6: a match held for review names ha and hb; its approval, and the
/// rejection of another of theirs, are in both players' trails (and the operator's
/// entry lists both). Once ha is deleted, hb's trail still holds both actions, naming
/// ha nowhere (the pseudonym instead), and ha's trail is empty.
pub async fn op5_an_approval_is_in_the_trail_of_every_player_it_names<S: Store + Clone + 'static>(store: S) {
    hold(&store, "sg-two", "ha", "hb", later(10), later(20)).await;
    hold(&store, "sg-rej", "hb", "ha", later(11), later(21)).await;
    decide(&store, "sg-two", Verdict::Approve, later(30)).await;
    decide(&store, "sg-rej", Verdict::Reject, later(31)).await;
    for player in ["ha", "hb"] {
        let entries = trail(&store, Trail::Player(player.into())).await;
        let got: Vec<(&str, &str)> = entries
            .iter()
            .map(|e| (e.action.as_str(), e.target.as_str()))
            .collect();
        assert_eq!(
            got,
            [("reject", "seega/sg-rej"), ("approve", "seega/sg-two")],
            "{player}'s trail"
        );
        // Through the route too.
        let answer = operator_call(
            &store,
            "GET",
            "/v1/operator/audit",
            &[("player", player)],
            Some("support-9"),
            None,
            later(32),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(
            answer.body["entries"].as_array().map(Vec::len),
            Some(2),
            "{}",
            answer.body
        );
    }
    let by_operator = trail(&store, Trail::Operator("support-7".into())).await;
    assert_eq!(by_operator.len(), 2, "one entry per action: {by_operator:?}");
    assert_eq!(by_operator[1].players, ["ha", "hb"]);
    assert_eq!(by_operator[1].player_id.as_deref(), Some("ha"));

    podium_service::operators::deletion::delete_player(&store, "ha", later(40))
        .await
        .expect("deleted");
    let alias = podium_service::engine::names::pseudonym("ha");
    assert!(trail(&store, Trail::Player("ha".into())).await.is_empty());
    let kept = trail(&store, Trail::Player("hb".into())).await;
    assert_eq!(kept.len(), 2, "hb keeps the facts: {kept:?}");
    for e in kept
        .iter()
        .chain(&trail(&store, Trail::Operator("support-7".into())).await)
    {
        let text = serde_json::to_string(e).expect("json");
        assert!(!names(&text, "ha"), "{text}");
        assert!(
            e.players.contains(&alias) && e.players.iter().any(|p| p == "hb"),
            "{text}"
        );
    }
}

/// OP-5, LB-5: a period's close is an action on a board: its entry names no player and
/// is found under `board={board}@{period}` (not in a ranked player's trail, whose inbox
/// holds the result naming the board and period); a board or period that does not
/// exist, or two trails at once, are refused naming the field.
pub async fn op5_a_period_close_is_filed_under_its_board_and_period<S: Store + Clone + 'static>(store: S) {
    crate::deletion::seed(&store).await;
    let at = t("2027-07-20T06:00:00Z");
    let close = operator_call(
        &store,
        "POST",
        "/v1/operator/periods/mahjong-daily/2027-07-19/close",
        &[],
        Some("support-7"),
        Some(&json!({"reason": "the tick was off"})),
        at,
    )
    .await;
    assert_eq!(close.status, 200, "{}", close.body);
    assert!(close.body["ranked"].as_u64() >= Some(2), "{}", close.body);
    let read = |q: Vec<(&'static str, &'static str)>| {
        let store = store.clone();
        async move {
            operator_call(
                &store,
                "GET",
                "/v1/operator/audit",
                &q,
                Some("support-9"),
                None,
                at,
            )
            .await
        }
    };
    let on_board = read(vec![("board", "mahjong-daily@2027-07-19")]).await;
    assert_eq!(on_board.status, 200, "{}", on_board.body);
    let entries = on_board.body["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(entries.len(), 1, "{}", on_board.body);
    assert_eq!(entries[0]["action"], "close");
    assert_eq!(entries[0]["target"], "mahjong-daily@2027-07-19");
    assert!(entries[0].get("player_id").is_none() && entries[0].get("players").is_none());
    let other_day = read(vec![("board", "mahjong-daily@2027-07-18")]).await;
    assert_eq!(other_day.body["entries"], json!([]), "{}", other_day.body);
    let bob = read(vec![("player", "bob")]).await;
    assert!(
        bob.body["entries"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|e| e["action"] != "close"),
        "{}",
        bob.body
    );
    for q in [
        vec![("board", "no-such-board@2027-07-19")],
        vec![("board", "mahjong-daily@yesterday")],
        vec![("board", "mahjong-daily")],
    ] {
        let refused = read(q.clone()).await;
        assert_eq!(refused.status, 400, "{q:?}: {}", refused.body);
        assert!(
            refused.body["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("board")),
            "{q:?}: {}",
            refused.body
        );
    }
    let two = read(vec![("board", "mahjong-daily@2027-07-19"), ("player", "bob")]).await;
    assert_eq!(two.status, 400, "{}", two.body);
}

/// GDPR Art. 15(4) (review: the export of a match held while the opponent was
/// suspended named the suspension and the operator's reason for lifting it): the
/// subject's export says only that the match was held before it was scored; the
/// suspended player's own export keeps the cause and the reason (it is theirs).
pub async fn an_export_tells_nothing_of_another_players_suspension<S: Store + Clone + 'static>(store: S) {
    let t0 = t("2027-07-19T06:00:00Z");
    score_match(&store, &rout("ex-first", "ex-a", "ex-b", t0), t0)
        .await
        .expect("scored");
    let suspend = json!({"reason": "cheating report"});
    let path = "/v1/operator/players/ex-b/suspend";
    let answer = operator_call(&store, "POST", path, &[], Some("support-7"), Some(&suspend), t0).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let ended = t0 + Duration::minutes(10);
    let intake = crate::moderation::deliver(&store, "ex-held", ("ex-a", "ex-b"), ended, "d-ex").await;
    assert!(matches!(intake, Intake::Held { .. }), "{intake:?}");
    let restore = json!({"reason": "appeal accepted"});
    let path = "/v1/operator/players/ex-b/restore";
    let at = t0 + Duration::minutes(20);
    let answer = operator_call(&store, "POST", path, &[], Some("support-7"), Some(&restore), at).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let export = |who: &'static str| {
        let store = store.clone();
        async move {
            let e = podium_service::operators::export::export_player(&store, who, at + Duration::minutes(1))
                .await
                .expect("export");
            serde_json::to_value(&e).expect("json")
        }
    };
    let mine = export("ex-a").await;
    let held = &mine["held"][0];
    assert_eq!(held["cause"]["cause"], "held", "{held}");
    assert_eq!(held["cause"]["message"], "held before it was scored");
    assert_eq!(
        held["decision"]["reason"], "",
        "the restore's reason is about ex-b"
    );
    let text = mine.to_string();
    assert!(
        !text.contains("appeal accepted") && !text.contains("suspended"),
        "{text}"
    );
    let theirs = export("ex-b").await;
    assert_eq!(theirs["held"][0]["cause"]["cause"], review::SUSPENDED);
    assert_eq!(theirs["held"][0]["decision"]["reason"], "appeal accepted");
}

/// GM-6, OP-5 (review: a deleted player's trail could not be found): an account that
/// holds only a profile is deleted over the operator route with `even_if_unknown`
/// (without it, 404 naming the option); the trail keeps the facts of the actions on
/// them, and of the deletion, under the pseudonym, read by it
/// (`/v1/operator/audit?player={pseudonym}`), with their reasons erased; nothing is
/// read under the old id.
pub async fn gm6_op5_a_deleted_players_trail_is_read_by_their_pseudonym<S: Store + Clone + 'static>(
    store: S,
) {
    let now = t("2027-07-19T09:00:00Z");
    let profile = serde_json::json!({"name": "Only A Name"});
    let named = crate::profiles::put(
        &store,
        &ApiContext::new(cursor_key()),
        "/v1/me/profile",
        "pn-1",
        &profile,
        now,
    )
    .await;
    assert_eq!(named.status, 200, "{}", named.body);
    let reset = serde_json::json!({"reason": "offensive name"});
    let path = "/v1/operator/players/pn-1/name-reset";
    let answer = operator_call(&store, "POST", path, &[], Some("support-7"), Some(&reset), now).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let path = "/v1/operator/players/pn-1/delete";
    let plain = serde_json::json!({"reason": "account removal requested"});
    let refused = operator_call(&store, "POST", path, &[], Some("support-7"), Some(&plain), now).await;
    assert_eq!(refused.status, 404, "{}", refused.body);
    let ahead = serde_json::json!({"reason": "account removal requested", "even_if_unknown": true});
    let deleted = operator_call(&store, "POST", path, &[], Some("support-7"), Some(&ahead), now).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let alias = podium_service::engine::names::pseudonym("pn-1");
    let trail = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("player", alias.as_str())],
        Some("support-7"),
        None,
        now,
    )
    .await;
    assert_eq!(trail.status, 200, "{}", trail.body);
    let text = trail.body.to_string();
    let actions: Vec<&str> = trail.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert!(
        actions.contains(&"delete") && actions.contains(&"name-reset"),
        "{text}"
    );
    assert!(
        !text.contains("pn-1") && !text.contains("offensive name"),
        "{text}"
    );
    let old = operator_call(
        &store,
        "GET",
        "/v1/operator/audit",
        &[("player", "pn-1")],
        Some("support-7"),
        None,
        now,
    )
    .await;
    assert_eq!(old.body["entries"], serde_json::json!([]), "{}", old.body);
}
