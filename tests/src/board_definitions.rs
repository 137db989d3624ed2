//! Board definitions stored and versioned, on both stores (BD-1 … BD-11,
//! `podium_service::boards::definitions`): created, read, listed, updated into new
//! versions effective at once or from the next period, retired; concurrent changes of
//! one definition and concurrent creations past a game's cap lose cleanly.

pub use crate::shipped_boards::built_in_boards_equal_their_shipped_definitions;
use chrono::{DateTime, TimeZone, Utc};
use futures::future::join_all;
use podium_rules::board::definition::{Definition, Operator};
use podium_service::boards::definitions::{self, Head};
use podium_service::error::ServiceError;
use podium_store::Store;
use serde_json::json;

pub(crate) const OPERATOR: &str = "live-ops-1";

fn at(y: i32, mo: u32, d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, 0, 0)
        .single()
        .expect("an instant")
}

/// A weekly Seega points board, Saturday 00:00 to Saturday 00:00 Bucharest.
fn weekly(id: &str) -> Definition {
    serde_json::from_value(json!({
        "id": id,
        "title": "Seega week",
        "game": "seega",
        "source": {"kind": "points"},
        "operator": "sum",
        "order": "higher_first",
        "schedule": {"kind": "cron", "cron": "0 0 * * SAT", "zone": "Europe/Bucharest"},
    }))
    .expect("a definition")
}

fn rule_of(e: &ServiceError) -> &'static str {
    match e {
        ServiceError::StateConflict { rule, .. } => rule,
        ServiceError::Invalid(r) => r.rule,
        other => panic!("not a refusal: {other}"),
    }
}

/// BD-1 … BD-9: a definition is created whole or not at all; its id is taken once.
pub async fn definitions_are_created_once_and_listed<S: Store + ?Sized>(store: &S) {
    let now = at(2026, 12, 6, 12);
    let mut bad = weekly("seega-week");
    bad.prizes = serde_json::from_value(json!([{"from": 2, "to": 1, "points": 5}])).unwrap();
    let e = definitions::create(store, bad, OPERATOR, now, 20, false)
        .await
        .expect_err("refused");
    assert_eq!(
        e.to_string(),
        "prizes[0].to (BD-9): a band is ranks from 1 to 10000, from at most to"
    );
    assert!(
        definitions::list(store).await.unwrap().is_empty(),
        "a refusal writes nothing"
    );
    // A dry run answers what it would write, and writes nothing.
    let (planned, _) = definitions::create(store, weekly("seega-week"), OPERATOR, now, 20, true)
        .await
        .unwrap();
    assert_eq!(planned.version, 1);
    assert!(
        definitions::list(store).await.unwrap().is_empty(),
        "a dry run writes nothing"
    );

    let (head, v1) = definitions::create(store, weekly("seega-week"), OPERATOR, now, 20, false)
        .await
        .unwrap();
    assert_eq!((head.version, v1.version, v1.effective_from), (1, 1, now));
    let again = definitions::create(store, weekly("seega-week"), OPERATOR, now, 20, false)
        .await
        .expect_err("taken");
    assert_eq!(rule_of(&again), "BD-1");
    let (read_head, read_v) = definitions::read(store, "seega-week")
        .await
        .unwrap()
        .expect("stored");
    assert_eq!((read_head, read_v), (head.clone(), v1));
    assert_eq!(definitions::list(store).await.unwrap(), vec![head]);
    assert!(definitions::read(store, "nothing-here").await.unwrap().is_none());
}

/// BD-10: a board changed from sum to best mid-period keeps sum to the period's end
/// and uses best from the next; a title change made meanwhile comes with it; every
/// version stays.
pub async fn an_update_that_changes_history_waits_for_the_next_period<S: Store + ?Sized>(store: &S) {
    let created = at(2026, 12, 1, 9);
    definitions::create(store, weekly("seega-week"), OPERATOR, created, 20, false)
        .await
        .unwrap();
    let wednesday = at(2026, 12, 9, 15);
    let mut best = weekly("seega-week");
    best.operator = Operator::Best;
    let (before, after) = definitions::update(store, best, 1, OPERATOR, wednesday, false)
        .await
        .unwrap();
    assert_eq!(before.definition.operator, Operator::Sum);
    assert_eq!(after.version, 2);
    // Saturday 12 December 00:00 Bucharest.
    assert_eq!(after.effective_from, at(2026, 12, 11, 22));
    let mut retitled = after.definition.clone();
    retitled.title = "Seega week, best match".into();
    let (_, v3) = definitions::update(store, retitled, 2, OPERATOR, wednesday, false)
        .await
        .unwrap();
    // It follows a change still to come (version 2): it takes effect with it, never
    // before (else it would bring best into this period).
    assert_eq!(v3.effective_from, at(2026, 12, 11, 22));
    // The same change as a dry run of version 3: answered, not written.
    let mut dry = v3.definition.clone();
    dry.operator = Operator::Max;
    let (_, v4) = definitions::update(store, dry, 3, OPERATOR, wednesday, true)
        .await
        .unwrap();
    assert_eq!((v4.version, v4.effective_from), (4, at(2026, 12, 11, 22)));
    let versions = definitions::versions(store, "seega-week").await.unwrap();
    let ops: Vec<(u32, Operator)> = versions
        .iter()
        .map(|v| (v.version, v.definition.operator))
        .collect();
    assert_eq!(
        ops,
        vec![(1, Operator::Sum), (2, Operator::Best), (3, Operator::Best)]
    );
    // The list shows the newest version.
    let listed = definitions::list(store).await.unwrap();
    assert_eq!(
        listed
            .iter()
            .map(|h| (h.id.as_str(), h.version))
            .collect::<Vec<_>>(),
        [("seega-week", 3)]
    );

    // A stale version is a conflict; an all-time board's history cannot change.
    let stale = definitions::update(store, weekly("seega-week"), 2, OPERATOR, wednesday, false)
        .await
        .expect_err("stale");
    assert_eq!(rule_of(&stale), "BD-10");
    let mut forever = weekly("seega-forever");
    forever.schedule = serde_json::from_value(json!({"kind": "all_time"})).unwrap();
    definitions::create(store, forever.clone(), OPERATOR, created, 20, false)
        .await
        .unwrap();
    // A window that has not begun has no history yet: a change applies at once; once
    // it has begun, the same change is refused.
    let mut cup = weekly("seega-cup");
    cup.schedule = serde_json::from_value(
        json!({"kind": "window", "start": "2026-12-12T00:00:00Z", "end": "2026-12-14T00:00:00Z"}),
    )
    .unwrap();
    definitions::create(store, cup.clone(), OPERATOR, created, 20, false)
        .await
        .unwrap();
    cup.operator = Operator::Max;
    let (_, early) = definitions::update(store, cup.clone(), 1, OPERATOR, wednesday, false)
        .await
        .unwrap();
    assert_eq!(early.effective_from, wednesday);
    cup.operator = Operator::Min;
    let begun = definitions::update(store, cup, 2, OPERATOR, at(2026, 12, 13, 0), false)
        .await
        .expect_err("begun");
    assert_eq!(rule_of(&begun), "BD-10");
    forever.operator = Operator::Max;
    let e = definitions::update(store, forever, 1, OPERATOR, wednesday, false)
        .await
        .expect_err("no next period");
    assert_eq!(rule_of(&e), "BD-10");
}

/// BD-10: ten operators updating the same version at once: one wins, the others are
/// told it changed, and no version is lost or written twice.
pub async fn concurrent_updates_of_one_version_leave_one_winner<S: Store + ?Sized>(store: &S) {
    let now = at(2026, 12, 6, 12);
    definitions::create(store, weekly("seega-week"), OPERATOR, now, 20, false)
        .await
        .unwrap();
    let tries = (0..10).map(|i| {
        let mut d = weekly("seega-week");
        d.title = format!("title {i}");
        definitions::update(store, d, 1, OPERATOR, now, false)
    });
    let outcomes = join_all(tries).await;
    let won = outcomes.iter().filter(|o| o.is_ok()).count();
    assert_eq!(won, 1, "{outcomes:?}");
    for e in outcomes.iter().filter_map(|o| o.as_ref().err()) {
        assert_eq!(rule_of(e), "BD-10", "{e}");
    }
    let versions = definitions::versions(store, "seega-week").await.unwrap();
    assert_eq!(versions.len(), 2);
    let (head, current) = definitions::read(store, "seega-week").await.unwrap().unwrap();
    assert_eq!((head.version, current.version), (2, 2));
}

/// BD-11: a game feeds at most the cap of active definitions, under concurrent
/// creations too; retiring one frees its place and keeps its versions.
pub async fn a_games_active_definitions_stay_under_the_cap<S: Store + ?Sized>(store: &S) {
    let now = at(2026, 12, 6, 12);
    let tries = (0..8)
        .map(|i| definitions::create(store, weekly(&format!("seega-cup-{i}")), OPERATOR, now, 3, false));
    let outcomes = join_all(tries).await;
    for e in outcomes.iter().filter_map(|o| o.as_ref().err()) {
        assert_eq!(rule_of(e), "BD-11", "{e}");
    }
    let active = |heads: &[Head]| heads.iter().filter(|h| h.retired_at.is_none()).count();
    let heads = definitions::list(store).await.unwrap();
    assert!(active(&heads) <= 3 && active(&heads) >= 1, "{heads:?}");
    // Fill to the cap one by one, then one more is refused.
    for i in 8..16 {
        if active(&definitions::list(store).await.unwrap()) == 3 {
            break;
        }
        definitions::create(store, weekly(&format!("seega-cup-{i}")), OPERATOR, now, 3, false)
            .await
            .unwrap();
    }
    let e = definitions::create(store, weekly("seega-cup-99"), OPERATOR, now, 3, false)
        .await
        .expect_err("capped");
    assert_eq!(rule_of(&e), "BD-11");
    let first = definitions::list(store).await.unwrap().remove(0);
    let retired = definitions::retire(store, &first.id, 1, now, false)
        .await
        .unwrap();
    assert_eq!(retired.retired_at, Some(now));
    assert_eq!(
        rule_of(
            &definitions::retire(store, &first.id, 1, now, false)
                .await
                .expect_err("twice")
        ),
        "BD-10"
    );
    let mut d = weekly(&first.id);
    d.title = "again".into();
    assert_eq!(
        rule_of(
            &definitions::update(store, d, 1, OPERATOR, now, false)
                .await
                .expect_err("retired")
        ),
        "BD-10"
    );
    definitions::create(store, weekly("seega-cup-99"), OPERATOR, now, 3, false)
        .await
        .unwrap();
    assert_eq!(definitions::versions(store, &first.id).await.unwrap().len(), 1);
}

/// OP-5: each change an operator writes is audited once with its before and after; a
/// dry run and a refused change are not; a reason is required.
pub async fn definition_changes_are_audited_with_before_and_after<S: Store + ?Sized>(store: &S) {
    use podium_service::moderation::audit::{self, Trail};
    use podium_service::operators::board_definitions::{apply, Change};
    let now = at(2026, 12, 9, 15);
    let who = (OPERATOR, "the winter cup");
    let e = apply(
        store,
        Change::Create(weekly("seega-week")),
        (OPERATOR, "x"),
        now,
        20,
        false,
    )
    .await
    .expect_err("no reason");
    assert!(e.to_string().starts_with("reason (OP-5)"), "{e}");
    let dry = apply(store, Change::Create(weekly("seega-week")), who, now, 20, true)
        .await
        .unwrap();
    assert!(dry.dry_run && definitions::list(store).await.unwrap().is_empty());
    apply(store, Change::Create(weekly("seega-week")), who, now, 20, false)
        .await
        .unwrap();
    let mut best = weekly("seega-week");
    best.operator = Operator::Best;
    let changed = apply(
        store,
        Change::Update {
            definition: best,
            version: 1,
        },
        who,
        now,
        20,
        false,
    )
    .await
    .unwrap();
    assert_eq!(changed.before.as_ref().map(|v| v.version), Some(1));
    let stale = Change::Update {
        definition: weekly("seega-week"),
        version: 1,
    };
    assert!(apply(store, stale, who, now, 20, false).await.is_err());
    let retire = Change::Retire {
        id: "seega-week".into(),
        version: 2,
    };
    apply(store, retire, who, now, 20, false).await.unwrap();
    let (entries, _) = audit::read(store, &Trail::Operator(OPERATOR.into()), None, 50)
        .await
        .unwrap();
    let mut actions: Vec<&str> = entries.iter().map(|e| e.action.as_str()).collect();
    actions.sort_unstable();
    assert_eq!(actions, vec!["board-create", "board-retire", "board-update"]);
    let update = entries.iter().find(|e| e.action == "board-update").unwrap();
    assert_eq!(update.target, "board-definition/seega-week");
    assert_eq!(update.reason, "the winter cup");
    assert_eq!(update.changes["before"]["definition"]["operator"], "sum");
    assert_eq!(update.changes["after"]["definition"]["operator"], "best");
    assert_eq!(update.changes["after"]["effective_from"], "2026-12-11T22:00:00Z");
    // The definition's own trail holds its three changes.
    let (by_board, _) = audit::read(
        store,
        &Trail::Board("board-definition/seega-week".into()),
        None,
        50,
    )
    .await
    .unwrap();
    assert_eq!(by_board.len(), 3);
}

/// The operator routes (`/v1/operator/boards`): a definition created (a dry run first),
/// read with its versions, updated, retired; a player is refused; a broken rule is a
/// 400 naming its field, a stale version a 409.
pub async fn the_operator_routes_define_a_board<S: Store + Clone + 'static>(store: &S) {
    use crate::moderation::operator_call;
    let now = at(2026, 12, 9, 15);
    let op = Some(OPERATOR);
    let body = |dry_run: bool, version: Option<u32>, definition: &Definition| json!({"reason": "the winter cup", "dry_run": dry_run, "version": version, "definition": definition});
    let d = weekly("seega-week");
    let as_player = operator_call(
        store,
        "POST",
        "/v1/operator/boards",
        &[],
        None,
        Some(&body(false, None, &d)),
        now,
    )
    .await;
    assert_eq!(as_player.status, 403, "{}", as_player.body);
    let dry = operator_call(
        store,
        "POST",
        "/v1/operator/boards",
        &[],
        op,
        Some(&body(true, None, &d)),
        now,
    )
    .await;
    assert_eq!(
        (dry.status, dry.body["dry_run"].clone()),
        (200, json!(true)),
        "{}",
        dry.body
    );
    let listed = operator_call(store, "GET", "/v1/operator/boards", &[], op, None, now).await;
    assert_eq!(listed.body["boards"], json!([]), "a dry run writes nothing");
    // BD-14: the built-in boards are listed as the definitions they equal, read-only.
    let built_in: Vec<&str> = listed.body["built_in"]
        .as_array()
        .expect("built_in")
        .iter()
        .filter_map(|d| d["id"].as_str())
        .collect();
    assert_eq!(
        built_in,
        [
            "seega",
            "dots-and-boxes",
            "minesweeper",
            "mahjong-weekly",
            "mahjong-daily",
            "mahjong-level-1"
        ]
    );
    let seega_def = operator_call(store, "GET", "/v1/operator/boards/seega", &[], op, None, now).await;
    assert_eq!(seega_def.status, 404, "{}", seega_def.body);
    assert!(
        seega_def.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("built_in")),
        "{}",
        seega_def.body
    );
    let made = operator_call(
        store,
        "POST",
        "/v1/operator/boards",
        &[],
        op,
        Some(&body(false, None, &d)),
        now,
    )
    .await;
    assert_eq!(made.status, 200, "{}", made.body);
    assert_eq!(made.body["head"]["version"], 1);
    // The audit trail by the defined board's id: its creation; an unknown id is a 400.
    let trail = operator_call(
        store,
        "GET",
        "/v1/operator/audit",
        &[("board", "seega-week")],
        op,
        None,
        now,
    )
    .await;
    assert_eq!(trail.status, 200, "{}", trail.body);
    assert_eq!(trail.body["entries"][0]["action"], "board-create");
    let none = operator_call(
        store,
        "GET",
        "/v1/operator/audit",
        &[("board", "no-such-cup")],
        op,
        None,
        now,
    )
    .await;
    assert_eq!(none.status, 400, "{}", none.body);

    let mut bad = serde_json::to_value(&d).unwrap();
    bad["id"] = json!("other-week");
    bad["schedule"]["zone"] = json!("Mars/Olympus");
    let refused = operator_call(
        store,
        "POST",
        "/v1/operator/boards",
        &[],
        op,
        Some(&json!({"reason": "the winter cup", "definition": bad})),
        now,
    )
    .await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused.body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("schedule.zone (BD-6)"),
        "{}",
        refused.body
    );

    let mut best = d.clone();
    best.operator = Operator::Best;
    let path = "/v1/operator/boards/seega-week";
    let updated = operator_call(
        store,
        "PUT",
        path,
        &[],
        op,
        Some(&body(false, Some(1), &best)),
        now,
    )
    .await;
    assert_eq!(updated.status, 200, "{}", updated.body);
    assert_eq!(updated.body["after"]["effective_from"], "2026-12-11T22:00:00Z");
    let stale = operator_call(
        store,
        "PUT",
        path,
        &[],
        op,
        Some(&body(false, Some(1), &best)),
        now,
    )
    .await;
    assert_eq!(stale.status, 409, "{}", stale.body);
    let read = operator_call(store, "GET", path, &[], op, None, now).await;
    assert_eq!(
        read.body["versions"].as_array().map(Vec::len),
        Some(2),
        "{}",
        read.body
    );
    let retire = json!({"reason": "the winter cup ended", "version": 2});
    let retired = operator_call(
        store,
        "POST",
        "/v1/operator/boards/seega-week/retire",
        &[],
        op,
        Some(&retire),
        now,
    )
    .await;
    assert_eq!(retired.status, 200, "{}", retired.body);
    assert!(retired.body["head"]["retired_at"].is_string(), "{}", retired.body);
    let missing = operator_call(
        store,
        "GET",
        "/v1/operator/boards/no-such-board",
        &[],
        op,
        None,
        now,
    )
    .await;
    assert_eq!(missing.status, 404, "{}", missing.body);
    // A path no definition can have is never asked of the store: 404, not a store error.
    let long = format!("/v1/operator/boards/{}", "a".repeat(3_000));
    let answer = operator_call(store, "GET", &long, &[], op, None, now).await;
    assert_eq!(answer.status, 404, "{}", answer.body);
    let answer = operator_call(
        store,
        "POST",
        &format!("{long}/retire"),
        &[],
        op,
        Some(&retire),
        now,
    )
    .await;
    assert_eq!(answer.status, 404, "{}", answer.body);
}

/// The cases above as tests on the store `$make` builds.
/// The entries of a defined board in one period, best first, as the store lists them
/// for the one board machinery (LB-2): (rank, player, value, tie-breaks), the stored
/// value's columns read back by the definition's fold (BD-5), ranks as LB-2 counts
/// them (equal stored values share one).
pub(crate) async fn listed<S: Store + ?Sized>(
    store: &S,
    def: &Definition,
    period: &str,
) -> Vec<(u64, String, i64, Vec<i64>)> {
    let board = podium_rules::board::BoardRef::new(def.id.clone(), period);
    let standings = store.board_after(&board, None, 100).await.expect("a board");
    let fold = def.fold();
    let mut counter = podium_rules::leaderboard::RankCounter::top();
    standings
        .into_iter()
        .map(|s| {
            let rank = counter.next(s.value);
            let c = fold.columns(s.value);
            (rank, s.player_id, c.value, c.tie_breaks)
        })
        .collect()
}

pub(crate) fn instant(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("an instant").to_utc()
}

/// Scores a Seega match `id` won by `winner` in `winner_moves` moves (the loser made
/// 20), ended at `ended`, on the server clock 2027-01-01.
pub(crate) async fn seega<S: Store + ?Sized>(
    store: &S,
    id: &str,
    winner: &str,
    loser: &str,
    winner_moves: u32,
    ended: &str,
) {
    let record = crate::fixtures::record(id, winner, loser, 24, 0, 300, winner_moves, 20, instant(ended));
    podium_service::games::seega::score_match(
        store,
        &record,
        crate::fixtures::now(),
        &podium_rules::record::policy::RecordPolicy::default(),
    )
    .await
    .expect("scored");
}

/// BD-2, BD-5, BD-6, BD-12: "Weekend Seega wins", Saturday 00:00 to Monday 00:00
/// Europe/Bucharest: a match just before the window, or at its end, counts nowhere;
/// inside it, each win counts once (a duplicate delivery and a late one too), ties
/// broken by fewer moves, then by who reached the value first.
pub async fn weekend_seega_wins_count_inside_the_window_only<S: Store + ?Sized>(store: &S) {
    play_the_weekend(store, weekend(json!([]))).await;
}

/// "Weekend Seega wins" (Saturday 00:00 to Monday 00:00 Bucharest) paying `prizes`.
fn weekend(prizes: serde_json::Value) -> Definition {
    serde_json::from_value(json!({
        "id": "weekend-seega-wins", "title": "Weekend Seega wins", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "tie_breaks": [{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}],
        "schedule": {"kind": "window", "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z"},
        "prizes": prizes,
    }))
    .expect("a definition")
}

/// Creates `def` on 2026-12-01 and plays its weekend: bob 1st (2 wins in 30 moves),
/// ana and eve 2nd (2 wins in 40 moves each), cy 4th (1 win).
async fn play_the_weekend<S: Store + ?Sized>(store: &S, def: Definition) {
    definitions::create(store, def.clone(), OPERATOR, at(2026, 12, 1, 12), 20, false)
        .await
        .expect("created");
    // Friday 23:59:59.999 in Bucharest, and Monday 00:00: outside.
    seega(store, "ws-before", "ana", "dan", 10, "2026-12-04T21:59:59.999Z").await;
    seega(store, "ws-after", "ana", "dan", 10, "2026-12-06T22:00:00Z").await;
    assert!(
        listed(store, &def, "window").await.is_empty(),
        "nothing inside yet"
    );
    // Inside: ana and bob win twice each (ana in 40 moves, bob in 30), cy once; eve
    // wins twice in 40 moves like ana, but reaches it later.
    seega(store, "ws-1", "ana", "dan", 20, "2026-12-04T22:00:00Z").await;
    seega(store, "ws-2", "bob", "dan", 15, "2026-12-05T09:00:00Z").await;
    seega(store, "ws-3", "cy", "dan", 12, "2026-12-05T10:00:00Z").await;
    seega(store, "ws-4", "ana", "bob", 20, "2026-12-05T11:00:00Z").await;
    seega(store, "ws-5", "eve", "dan", 20, "2026-12-05T12:00:00Z").await;
    seega(store, "ws-5", "eve", "dan", 20, "2026-12-05T12:00:00Z").await; // a duplicate
    seega(store, "ws-6", "eve", "dan", 20, "2026-12-06T12:00:00Z").await;
    // A match of Sunday arriving after Monday's start (the server clock is later still).
    seega(store, "ws-7", "bob", "cy", 15, "2026-12-06T21:59:00Z").await;
    let got = listed(store, &def, "window").await;
    let want: Vec<(u64, String, i64, Vec<i64>)> = vec![
        (1, "bob".into(), 2, vec![30]),
        (2, "ana".into(), 2, vec![40]),
        // Equal on wins and moves: the same rank, ana reached it first (LB-2).
        (2, "eve".into(), 2, vec![40]),
        (4, "cy".into(), 1, vec![12]),
    ];
    assert_eq!(got, want);
    // Losers win nothing here: dan is on no line.
    assert!(got.iter().all(|(_, p, _, _)| p != "dan"));
}

/// `player`'s message of the weekend's result, if any (and how many they have).
async fn weekend_result<S: Store + ?Sized>(store: &S, player: &str) -> (usize, Option<serde_json::Value>) {
    let inbox = podium_service::players::inbox::view(store, player)
        .await
        .expect("an inbox");
    let results: Vec<_> = inbox
        .messages
        .iter()
        .filter(|m| m.board == "weekend-seega-wins")
        .map(|m| serde_json::to_value(m).expect("json"))
        .collect();
    (results.len(), results.first().cloned())
}

/// A tick of `job` at `at`, with no reward tables of the built-in boards.
pub(crate) async fn tick<S: Store + ?Sized>(
    store: &S,
    job: podium_service::jobs::Job,
    at: &str,
) -> podium_service::jobs::TickReport {
    let run = podium_service::jobs::ScheduledRun {
        job,
        scheduled_time: instant(at),
    };
    podium_service::jobs::handle(store, run, &Default::default())
        .await
        .expect("a tick")
}

/// The weekend's period the tick of `report` closed (exactly one).
fn weekend_closed(report: &podium_service::jobs::TickReport) -> Vec<&podium_service::jobs::PeriodClosed> {
    let closed: Vec<_> = report
        .closed
        .iter()
        .filter(|c| c.board == "weekend-seega-wins")
        .collect();
    assert_eq!(closed.len(), 1, "{:?}", report.closed);
    closed
}

/// BD-9, BD-10, LB-5, GM-3: "Weekend Seega wins" pays its top 3 once, when the window
/// has ended: the prize table edited during the event pays (1st: 600 points and 2
/// Jokers; 2nd–3rd: 200, ana and eve tied 2nd both), an edit after the end does not;
/// every ranked player gets their result; a match of the window arriving after the
/// close counts on the entry, not on the results; ticks again send nothing more, and a
/// claim pays once, Jokers included.
pub async fn weekend_seega_wins_pay_the_top_3_once<S: Store + ?Sized>(store: &S) {
    use podium_service::jobs::Job;
    let def = weekend(json!([{"from": 1, "to": 1, "points": 500}, {"from": 2, "to": 3, "points": 200}]));
    play_the_weekend(store, def.clone()).await;
    let edit = |prizes: serde_json::Value| {
        let mut v = serde_json::to_value(&def).unwrap();
        v["prizes"] = prizes;
        serde_json::from_value::<Definition>(v).unwrap()
    };
    // Saturday noon: the table changes (at once, BD-10).
    let during =
        edit(json!([{"from": 1, "to": 1, "points": 600, "jokers": 2}, {"from": 2, "to": 3, "points": 200}]));
    definitions::update(store, during, 1, OPERATOR, instant("2026-12-05T10:00:00Z"), false)
        .await
        .expect("edited during the event");
    // Monday, after the end: an edit that comes too late for the weekend.
    let after = edit(json!([{"from": 1, "to": 4, "points": 9_999}]));
    definitions::update(store, after, 2, OPERATOR, instant("2026-12-07T08:00:00Z"), false)
        .await
        .expect("edited after the end");
    // Before the end (and its minute of grace): nothing is sent.
    tick(store, Job::Freeze, "2026-12-06T21:59:00Z").await;
    assert_eq!(weekend_result(store, "bob").await.0, 0);
    let report = tick(store, Job::Freeze, "2027-01-02T00:00:00Z").await;
    let closed = weekend_closed(&report);
    assert_eq!(closed[0].period, "window");
    // The jobs' status shows it closed.
    let status = podium_service::jobs::status(store).await.unwrap();
    assert!(
        status
            .closed_through
            .iter()
            .any(|c| c.board == "weekend-seega-wins" && c.period.as_deref() == Some("window")),
        "{:?}",
        status.closed_through
    );
    let sent = closed[0].results.as_ref().expect("results sent");
    assert_eq!(
        (sent.ranked, sent.sent, sent.rewarded, sent.reward_points),
        (4, 4, 3, 1_000)
    );
    let want = [
        ("bob", 1, json!({"points": 600, "jokers": 2, "game": "seega"})),
        ("ana", 2, json!({"points": 200, "game": "seega"})),
        ("eve", 2, json!({"points": 200, "game": "seega"})),
        ("cy", 4, serde_json::Value::Null),
    ];
    for (player, rank, reward) in &want {
        let (n, m) = weekend_result(store, player).await;
        let m = m.expect("a result");
        assert_eq!(n, 1, "{player}");
        assert_eq!(m["id"], "pr:weekend-seega-wins:window");
        assert_eq!(
            (m["rank"].as_u64(), m["of"].as_u64()),
            (Some(*rank), Some(4)),
            "{player}"
        );
        // The value shown: wins, its tie-break set aside (BD-5).
        let wins = if *player == "cy" { 1 } else { 2 };
        assert_eq!(m["value"], wins, "{player}");
        assert_eq!(m.get("reward").cloned().unwrap_or_default(), *reward, "{player}");
    }
    assert_eq!(weekend_result(store, "dan").await.0, 0, "not on the board");
    // A match of Sunday evening arrives after the close: cy's entry counts it, the
    // period's results do not change and its final snapshot stays (a refresh tick).
    seega(store, "ws-8", "cy", "dan", 10, "2026-12-06T21:00:00Z").await;
    assert_eq!(
        listed(store, &def, "window")
            .await
            .iter()
            .find(|e| e.1 == "cy")
            .map(|e| e.2),
        Some(2)
    );
    for job in [Job::Refresh, Job::Freeze] {
        tick(store, job, "2027-01-02T00:10:00Z").await;
    }
    let board = podium_rules::board::BoardRef::new("weekend-seega-wins", "window");
    assert!(podium_service::boards::close::is_frozen(store, &board)
        .await
        .unwrap());
    for (player, rank, _) in &want {
        let (n, m) = weekend_result(store, player).await;
        assert_eq!((n, m.unwrap()["rank"].as_u64()), (1, Some(*rank)), "{player}");
    }
    // bob claims: 600 points and 2 Jokers, once.
    let now = instant("2027-01-02T01:00:00Z");
    let first = podium_service::players::inbox::claim(store, "bob", "pr:weekend-seega-wins:window", now)
        .await
        .expect("claimed");
    let again = podium_service::players::inbox::claim(store, "bob", "pr:weekend-seega-wins:window", now)
        .await
        .expect("the same answer");
    assert_eq!(first, again);
    assert_eq!(
        (first.points, first.jokers, first.jokers_after),
        (600, 2, Some(2))
    );
    // ana's claim holds no Jokers: it reads and writes none.
    let ana = podium_service::players::inbox::claim(store, "ana", "pr:weekend-seega-wins:window", now)
        .await
        .expect("claimed");
    assert_eq!((ana.points, ana.jokers, ana.jokers_after), (200, 0, None));
    assert!(store
        .get_state("ana", podium_rules::mahjong::jokers::JOKERS_STATE)
        .await
        .unwrap()
        .is_none());
    let jokers = store
        .get_state("bob", podium_rules::mahjong::jokers::JOKERS_STATE)
        .await
        .unwrap()
        .expect("jokers");
    assert_eq!(jokers.body, r#"{"count":2}"#);
}

/// LB-5, BD-9: a refresh of a defined board's period taken at the very instant it
/// ended (a result just before the end marked it changed) does not keep its final
/// snapshot from being published: the ticks a minute later freeze and pay it.
pub async fn a_refresh_at_the_end_instant_leaves_the_period_its_final<S: Store + ?Sized>(store: &S) {
    use podium_service::jobs::Job;
    let def = weekend(json!([{"from": 1, "to": 1, "points": 500}]));
    play_the_weekend(store, def).await;
    let refreshed = tick(store, Job::Refresh, "2026-12-06T22:00:00Z").await;
    assert!(
        refreshed
            .runs
            .iter()
            .any(|r| r.board == "weekend-seega-wins" && r.period == "window"),
        "the changed period is refreshed at its end: {:?}",
        refreshed.runs
    );
    let report = tick(store, Job::Freeze, "2026-12-06T22:01:00Z").await;
    weekend_closed(&report);
    let board = podium_rules::board::BoardRef::new("weekend-seega-wins", "window");
    assert!(podium_service::boards::close::is_frozen(store, &board)
        .await
        .unwrap());
    let (n, m) = weekend_result(store, "bob").await;
    assert_eq!((n, m.unwrap()["rank"].as_u64()), (1, Some(1)));
}

/// BD-9, BD-10: a close pays the definition as the store holds it at the close, not a
/// copy a process kept from a read just before: a prize table raised seconds before
/// the end is paid, by the operator's close and by the ticks', and a board retired
/// seconds before the end is not closed.
pub async fn a_close_pays_the_definition_written_just_before_the_end<S: Store + ?Sized>(store: &S) {
    use podium_service::jobs::Job;
    use podium_service::operators::periods::close_period;
    let def = weekend(json!([{"from": 1, "to": 1, "points": 300}]));
    play_the_weekend(store, def.clone()).await;
    // A read keeps a copy of version 1 in this process...
    podium_service::boards::defined::resolve(store, "weekend-seega-wins")
        .await
        .expect("read")
        .expect("defined");
    // ... then the table is raised ten seconds before the end.
    let mut raised = def.clone();
    raised.prizes = serde_json::from_value(json!([{"from": 1, "to": 1, "points": 999}])).expect("prizes");
    definitions::update(store, raised, 1, OPERATOR, instant("2026-12-06T21:59:50Z"), false)
        .await
        .expect("raised");
    let who = (OPERATOR, "the weekend's prizes, at once");
    let op = close_period(
        store,
        ("weekend-seega-wins", "window"),
        false,
        &Default::default(),
        who,
        instant("2026-12-06T22:00:10Z"),
    )
    .await
    .expect("closed");
    assert!(op.done, "{op:?}");
    let (_, m) = weekend_result(store, "bob").await;
    assert_eq!(m.expect("a result")["reward"]["points"], 999);
    // Another event, retired ten seconds before its end once a copy was kept: the
    // operator's close is refused, the ticks pay nothing.
    let mut other = weekend(json!([{"from": 1, "to": 1, "points": 300}]));
    other.id = "weekend-seega-wins-2".into();
    definitions::create(store, other, OPERATOR, at(2026, 12, 1, 12), 20, false)
        .await
        .expect("created");
    seega(store, "ws2-1", "ana", "dan", 20, "2026-12-05T10:00:00Z").await;
    podium_service::boards::defined::resolve(store, "weekend-seega-wins-2")
        .await
        .expect("read")
        .expect("defined");
    definitions::retire(
        store,
        "weekend-seega-wins-2",
        1,
        instant("2026-12-06T21:59:50Z"),
        false,
    )
    .await
    .expect("retired");
    let refused = close_period(
        store,
        ("weekend-seega-wins-2", "window"),
        false,
        &Default::default(),
        who,
        instant("2026-12-06T22:00:10Z"),
    )
    .await;
    assert!(
        matches!(refused, Err(ServiceError::StateConflict { field: "board", .. })),
        "{refused:?}"
    );
    tick(store, Job::Freeze, "2026-12-06T22:05:00Z").await;
    let inbox = podium_service::players::inbox::view(store, "ana")
        .await
        .expect("an inbox");
    assert!(
        inbox.messages.iter().all(|m| m.board != "weekend-seega-wins-2"),
        "{:?}",
        inbox.messages
    );
}

/// The operator close's record of `weekend-seega-wins`.
async fn weekend_close_record<S: Store + ?Sized>(
    store: &S,
) -> podium_service::operators::periods::CloseAction {
    podium_service::operators::periods::actions(store)
        .await
        .expect("actions")
        .into_iter()
        .find(|a| a.board == "weekend-seega-wins")
        .expect("the close's record")
}

/// LB-5, OP-5: eight operators close the same ended period at once: each player gets
/// one result, and the close's record counts each message once, whichever request
/// sent it (a request that lost the race to save adds what it sent). A request sent
/// with them that is read only after their close finished joins it rather than
/// closing again (it failed in CI: a late joiner began a new close, sending nothing,
/// and its record replaced the one that had sent every message).
pub async fn concurrent_closes_count_each_message_once<S: Store + ?Sized>(store: &S) {
    let def = weekend(json!([{"from": 1, "to": 3, "points": 100}]));
    play_the_weekend(store, def).await;
    let tables = Default::default();
    let now = instant("2026-12-07T08:00:00Z");
    let answers = join_all((0..8).map(|i| {
        let who = if i % 2 == 0 { "live-ops-1" } else { "live-ops-2" };
        podium_service::operators::periods::close_period(
            store,
            ("weekend-seega-wins", "window"),
            false,
            &tables,
            (who, "the weekend's prizes"),
            now,
        )
    }))
    .await;
    for a in &answers {
        assert!(a.is_ok(), "{a:?}");
    }
    for player in ["bob", "ana", "eve", "cy"] {
        assert_eq!(weekend_result(store, player).await.0, 1, "{player}");
    }
    let act = weekend_close_record(store).await;
    assert_eq!((act.ranked, act.sent, act.done), (4, 4, true), "{act:?}");
    let late = podium_service::operators::periods::close_period(
        store,
        ("weekend-seega-wins", "window"),
        false,
        &tables,
        ("live-ops-3", "the weekend's prizes"),
        now,
    )
    .await
    .expect("joined");
    assert_eq!((late.ranked, late.sent, late.done), (4, 4, true), "{late:?}");
    let act = weekend_close_record(store).await;
    assert_eq!((act.ranked, act.sent, act.done), (4, 4, true), "{act:?}");
}

/// BD-9: a prize table written after the event's window ended is accepted (the
/// versions stay) but the answer says that no period pays it; a change of the title
/// alone says nothing.
pub async fn a_prize_table_written_after_the_end_says_it_is_paid_by_no_period<S: Store + ?Sized>(store: &S) {
    use podium_service::operators::board_definitions::{apply, Change};
    let def = weekend(json!([{"from": 1, "to": 1, "points": 300}]));
    definitions::create(store, def.clone(), OPERATOR, at(2026, 12, 1, 12), 20, false)
        .await
        .expect("created");
    let after_end = instant("2026-12-07T08:00:00Z");
    let update = |definition: Definition, version: u32, reason: &'static str| {
        let change = Change::Update { definition, version };
        apply(store, change, (OPERATOR, reason), after_end, 20, false)
    };
    let mut raised = def.clone();
    raised.prizes = serde_json::from_value(json!([{"from": 1, "to": 1, "points": 900}])).expect("prizes");
    let changed = update(raised.clone(), 1, "a bigger prize")
        .await
        .expect("written");
    assert_eq!(changed.notes.len(), 1, "{:?}", changed.notes);
    assert!(changed.notes[0].starts_with("prizes (BD-9): the window ended at 2026-12-06T22:00:00+00:00"));
    let mut retitled = raised;
    retitled.title = "Weekend Seega wins (ended)".into();
    let changed = update(retitled, 2, "a clearer title").await.expect("written");
    assert!(changed.notes.is_empty(), "{:?}", changed.notes);
}

/// LB-5, BD-9, OP-5: an operator closes a defined board's ended period as a built-in
/// one's: refused before its end; a dry run lists nothing until it is frozen; the
/// close freezes it, sends every ranked player their result with the prizes of the
/// table at the end, once, and is audited under `{board}@{period}`; a dry run then
/// finds every result sent; the ticks' own close and a close run again send nothing
/// more; a board retired before a period's end is not closed (its prizes cancelled).
pub async fn an_operator_closes_a_defined_boards_period<S: Store + Clone + 'static>(store: &S) {
    use podium_service::jobs::Job;
    use podium_service::operators::periods::close_period;
    let def = weekend(json!([{"from": 1, "to": 1, "points": 500}, {"from": 2, "to": 3, "points": 200}]));
    play_the_weekend(store, def.clone()).await;
    let tables = Default::default();
    let who = (OPERATOR, "the weekend's prizes, at once");
    let period = ("weekend-seega-wins", "window");
    let close = |board: (&'static str, &'static str), dry_run: bool, at: &'static str| {
        close_period(store, board, dry_run, &tables, who, instant(at))
    };
    let early = close(period, false, "2026-12-06T21:00:00Z").await;
    assert!(
        matches!(early, Err(ServiceError::BadRequest { field: "period", .. })),
        "{early:?}"
    );
    let unknown = close(("weekend-seega-winz", "window"), false, "2026-12-07T08:00:00Z").await;
    assert!(matches!(unknown, Err(ServiceError::NotFound(_))), "{unknown:?}");
    let bad = close(("weekend-seega-wins", "2026-W49"), false, "2026-12-07T08:00:00Z").await;
    assert!(
        matches!(&bad, Err(ServiceError::Invalid(e)) if e.field == "period" && e.rule == "BD-6"),
        "{bad:?}"
    );
    // Not frozen yet: the dry run freezes it first, as the close would, and lists
    // what the close would send.
    let now = instant("2026-12-07T08:00:00Z");
    let dry = close(period, true, "2026-12-07T08:00:00Z")
        .await
        .expect("a dry run");
    assert_eq!(
        (
            dry.was_frozen,
            dry.frozen,
            dry.ranked,
            dry.results.len(),
            dry.to_send
        ),
        (false, true, 4, 4, 4),
        "{dry:?}"
    );
    assert!(dry.finished());
    let op = close(period, false, "2026-12-07T08:00:00Z")
        .await
        .expect("closed");
    assert!(op.was_frozen && op.frozen && op.done, "{op:?}");
    assert_eq!((op.ranked, op.sent, op.to_send), (4, 4, 0), "{op:?}");
    let want = [
        ("bob", 1, json!({"points": 500, "game": "seega"})),
        ("ana", 2, json!({"points": 200, "game": "seega"})),
        ("eve", 2, json!({"points": 200, "game": "seega"})),
        ("cy", 4, serde_json::Value::Null),
    ];
    for (player, rank, reward) in &want {
        let (n, m) = weekend_result(store, player).await;
        let m = m.expect("a result");
        assert_eq!((n, m["rank"].as_u64()), (1, Some(*rank)), "{player}");
        assert_eq!(m.get("reward").cloned().unwrap_or_default(), *reward, "{player}");
    }
    let trail = podium_service::moderation::audit::Trail::Board("weekend-seega-wins@window".into());
    let (entries, _) = podium_service::moderation::audit::read(store, &trail, None, 10)
        .await
        .expect("the trail");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(
        (entries[0].action.as_str(), entries[0].operator.as_str()),
        ("close", OPERATOR)
    );
    // The same through the routes: the trail by `{board}@{period}`; a period the board
    // has not is refused naming `board`; the close's dry run.
    use crate::moderation::operator_call;
    let audit = |board: &'static str| async move {
        let query = [("board", board)];
        operator_call(
            store,
            "GET",
            "/v1/operator/audit",
            &query,
            Some(OPERATOR),
            None,
            now,
        )
        .await
    };
    let trail = audit("weekend-seega-wins@window").await;
    assert_eq!(
        (trail.status, trail.body["entries"].as_array().map(Vec::len)),
        (200, Some(1)),
        "{}",
        trail.body
    );
    let wrong = audit("weekend-seega-wins@2026-W49").await;
    assert!(
        wrong.status == 400
            && wrong.body["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("board:")),
        "{}",
        wrong.body
    );
    let routed = operator_call(
        store,
        "POST",
        "/v1/operator/periods/weekend-seega-wins/window/close",
        &[],
        Some(OPERATOR),
        Some(&json!({"reason": "checking the weekend", "dry_run": true})),
        now,
    )
    .await;
    assert_eq!(
        (routed.status, routed.body["ranked"].as_u64()),
        (200, Some(4)),
        "{}",
        routed.body
    );
    // Frozen now: the dry run checks every result, each sent.
    let dry = close(period, true, "2026-12-07T09:00:00Z")
        .await
        .expect("a dry run");
    assert_eq!(
        (
            dry.was_frozen,
            dry.ranked,
            dry.checked,
            dry.already_sent,
            dry.to_send
        ),
        (true, 4, 4, 4, 0),
        "{dry:?}"
    );
    let lines: Vec<(&str, u64, i64, bool)> = dry
        .results
        .iter()
        .map(|l| (l.player_id.as_str(), l.rank, l.reward, l.sent))
        .collect();
    assert_eq!(
        lines,
        vec![
            ("bob", 1, 500, true),
            ("ana", 2, 200, true),
            ("eve", 2, 200, true),
            ("cy", 4, 0, true)
        ]
    );
    // The ticks' close of the period, and the operator's close again: nothing more.
    let report = tick(store, Job::Freeze, "2026-12-07T10:00:00Z").await;
    assert!(
        report
            .closed
            .iter()
            .any(|c| c.board == "weekend-seega-wins" && c.results.is_none()),
        "{:?}",
        report.closed
    );
    let again = close(period, false, "2026-12-07T11:00:00Z")
        .await
        .expect("closed again");
    assert_eq!((again.ranked, again.sent, again.done), (4, 0, true), "{again:?}");
    for (player, rank, _) in &want {
        let (n, m) = weekend_result(store, player).await;
        assert_eq!((n, m.unwrap()["rank"].as_u64()), (1, Some(*rank)), "{player}");
    }
    // A weekly board retired on Friday: its week ending Saturday pays nothing (BD-9),
    // so it is not closed; the week before, ended before the retirement, is.
    let mut weekly = weekly("seega-week-points");
    weekly.prizes = def.prizes.clone();
    definitions::create(store, weekly, OPERATOR, at(2026, 11, 1, 12), 20, false)
        .await
        .expect("created");
    definitions::retire(store, "seega-week-points", 1, at(2026, 12, 4, 12), false)
        .await
        .expect("retired");
    let later = instant("2026-12-07T12:00:00Z");
    let retired = close_period(
        store,
        ("seega-week-points", "2026-11-28T00:00"),
        false,
        &tables,
        who,
        later,
    )
    .await;
    assert!(
        matches!(&retired, Err(e @ ServiceError::StateConflict { field: "board", .. }) if rule_of(e) == "BD-9"),
        "{retired:?}"
    );
    let before = close_period(
        store,
        ("seega-week-points", "2026-11-21T00:00"),
        false,
        &tables,
        who,
        later,
    )
    .await
    .expect("closed");
    assert!(before.done, "{before:?}");
}

/// BD-2 (`rating`), DB-6, MS-8: a board of Dots and Boxes ratings, `latest`, lists
/// exactly what the built-in `dots-and-boxes` board lists (the built-in board is this
/// definition); with `max`, each player's highest rating of the period; a match against
/// the CPU (unrated) feeds neither; a source a game does not rate is refused.
pub async fn ratings_feed_a_defined_board_as_the_built_in_one<S: Store + ?Sized>(store: &S) {
    use podium_rules::dots_and_boxes::board::Board;
    use podium_rules::dots_and_boxes::replay::{self, Outcome};
    let rating_board = |id: &str, game: &str, operator: &str| -> Definition {
        serde_json::from_value(json!({
            "id": id, "title": "Ratings", "game": game, "source": {"kind": "rating"},
            "operator": operator, "order": "higher_first", "schedule": {"kind": "all_time"},
        }))
        .expect("a definition")
    };
    let latest = rating_board("dots-rating", "dots-and-boxes", "latest");
    let peak = rating_board("dots-peak", "dots-and-boxes", "max");
    for def in [&latest, &peak] {
        definitions::create(store, def.clone(), OPERATOR, at(2026, 12, 1, 12), 20, false)
            .await
            .expect("created");
    }
    let seega_rating = definitions::create(
        store,
        rating_board("seega-rating", "seega", "latest"),
        OPERATOR,
        at(2026, 12, 1, 12),
        20,
        true,
    )
    .await;
    assert!(
        matches!(&seega_rating, Err(ServiceError::Invalid(r)) if r.field == "source" && r.rule == "BD-2"),
        "{seega_rating:?}"
    );
    let board = Board { width: 3, height: 3 };
    let moves = crate::dots_and_boxes::full_game(&board);
    let r = replay::replay(&board, &moves).expect("legal");
    let (winner, loser) = match replay::outcome(&r, None) {
        Some(Outcome::Win(0)) => ("ra", "rb"),
        _ => ("rb", "ra"),
    };
    // ra and rb play twice (the same winner), then the loser loses to the CPU in the
    // winning seat: unrated.
    for id in ["rt-1", "rt-2"] {
        crate::dots_and_boxes::send(
            store,
            &crate::dots_and_boxes::line(id, [("ra", true), ("rb", true)], &moves, Some(winner)),
        )
        .await
        .expect("rated");
    }
    let cpu_seat = if winner == "ra" {
        [("cpu-1", false), ("rb", true)]
    } else {
        [("ra", true), ("cpu-1", false)]
    };
    crate::dots_and_boxes::send(
        store,
        &crate::dots_and_boxes::line("rt-3", cpu_seat, &moves, Some("cpu-1")),
    )
    .await
    .expect("recorded");
    let built_in = store
        .board_after(
            &podium_rules::board::BoardRef::all_time("dots-and-boxes"),
            None,
            100,
        )
        .await
        .expect("the built-in board");
    let built_in: Vec<(String, i64)> = built_in.into_iter().map(|s| (s.player_id, s.value)).collect();
    let defined: Vec<(String, i64)> = listed(store, &latest, "all")
        .await
        .into_iter()
        .map(|(_, p, v, _)| (p, v))
        .collect();
    assert_eq!(defined, built_in);
    assert_eq!(defined.len(), 2, "{defined:?}");
    // The loser's rating fell twice: their peak is the first match's.
    let peaks = listed(store, &peak, "all").await;
    let loser_latest = defined.iter().find(|(p, _)| p == loser).map(|e| e.1);
    let loser_peak = peaks.iter().find(|e| e.1 == loser).map(|e| e.2);
    assert!(loser_peak > loser_latest, "{peaks:?} {defined:?}");
    assert_eq!(loser_peak, Some(1484));
    let unit = podium_service::boards::catalogue::unit_of(&latest);
    assert_eq!(unit.show(1516), "1516");
}

/// GET `path` through the API as `player`, at 2026-12-06T12:00Z.
async fn read_as<S: Store + Clone + 'static>(
    store: &S,
    player: &str,
    path: &str,
    query: &[(&str, &str)],
) -> podium_service::api::ApiResponse {
    let req = crate::deletion::get(path, player, query);
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    podium_service::api::handle(store, &ctx, &req, instant("2026-12-06T12:00:00Z")).await
}

/// LB-3, LB-4, LB-6, BD-12: the app reads a defined board through the board routes
/// every board has: its page in listing order (the value shown, tie-breaks deciding
/// ranks), its clock (the window), a caller's own standing, and a 404 for no board.
pub async fn a_defined_board_reads_like_any_board<S: Store + Clone + 'static>(store: &S) {
    weekend_seega_wins_count_inside_the_window_only(store).await;
    let page = read_as(
        store,
        "bob",
        "/v1/leaderboards/weekend-seega-wins",
        &[("limit", "2")],
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let rows: Vec<(u64, String, i64, String)> = page.body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["rank"].as_u64().unwrap(),
                e["player_id"].as_str().unwrap().to_string(),
                e["value"].as_i64().unwrap(),
                e["value_shown"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (1, "bob".to_string(), 2, "2".to_string()),
            (2, "ana".to_string(), 2, "2".to_string())
        ]
    );
    // BD-5: each entry carries its tie-breaks' values (bob's 30 moves).
    assert_eq!(page.body["entries"][0]["tie_breaks"], json!([30]));
    assert_eq!(
        page.body["period"],
        json!({"period": "window", "kind": "window", "zone": "UTC",
               "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z", "next_reset": "2026-12-06T22:00:00Z"})
    );
    // The next page, from the cursor: eve (sharing rank 2) and cy.
    let cursor = page.body["next_cursor"].as_str().expect("a cursor").to_string();
    let next = read_as(
        store,
        "bob",
        "/v1/leaderboards/weekend-seega-wins",
        &[("cursor", &cursor)],
    )
    .await;
    assert_eq!(next.status, 200, "{}", next.body);
    let ranks: Vec<(u64, &str)> = next.body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["rank"].as_u64().unwrap(), e["player_id"].as_str().unwrap()))
        .collect();
    assert_eq!(ranks, [(2, "eve"), (4, "cy")]);
    let me = read_as(
        store,
        "cy",
        "/v1/leaderboards/weekend-seega-wins/me",
        &[("neighbours", "1")],
    )
    .await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["me"]["rank"], 4, "{}", me.body);
    assert_eq!(
        me.body["standing"]["next_better"]["gap"], 1,
        "one win behind: {}",
        me.body
    );
    let bad = read_as(
        store,
        "bob",
        "/v1/leaderboards/weekend-seega-wins",
        &[("period", "2026-12-05")],
    )
    .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let none = read_as(store, "bob", "/v1/leaderboards/no-such-event", &[]).await;
    assert_eq!(none.status, 404, "{}", none.body);
    // LB-5: the results marked the board changed; the refresh job snapshots it, and
    // pages come from the snapshot from then on, the same entries at the same ranks.
    assert_eq!(page.body["snapshot"], serde_json::Value::Null, "live before");
    crate::deletion::tick(store, podium_service::jobs::Job::Refresh, "2026-12-06T12:00:00Z").await;
    let snapped = read_as(
        store,
        "bob",
        "/v1/leaderboards/weekend-seega-wins",
        &[("limit", "2")],
    )
    .await;
    assert_eq!(snapped.status, 200, "{}", snapped.body);
    assert!(snapped.body["snapshot"].is_string(), "{}", snapped.body);
    assert_eq!(snapped.body["entries"], page.body["entries"]);
}

/// OP-4, GM-6, PF-1, BD-10 on a defined board, as on a built-in one: a suspended
/// player leaves its pages (those below move up, a player tied with them keeps their
/// rank), a deleted one is gone, a renamed one shows the new name; a retired board's
/// pages and cursors still read.
pub async fn hidden_players_and_a_retired_board_read_as_on_any_board<S: Store + Clone + 'static>(store: &S) {
    weekend_seega_wins_count_inside_the_window_only(store).await;
    let now = instant("2026-12-06T12:00:00Z");
    crate::deletion::tick(store, podium_service::jobs::Job::Refresh, "2026-12-06T12:00:00Z").await;
    podium_service::moderation::suspensions::suspend(
        store,
        "ana",
        ("support-7", "a modified client"),
        30,
        now,
    )
    .await
    .expect("suspended");
    podium_service::operators::deletion::delete_player(store, "cy", now)
        .await
        .expect("deleted");
    let rename =
        podium_rules::profile::ProfileChange::from_json(&json!({"name": "Bobby"})).expect("a change");
    podium_service::profiles::edit::put(store, &Default::default(), "bob", &rename, now)
        .await
        .expect("renamed");
    crate::deletion::tick(store, podium_service::jobs::Job::Refresh, "2026-12-06T12:05:00Z").await;
    let page = read_as(store, "eve", "/v1/leaderboards/weekend-seega-wins", &[]).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let rows: Vec<(u64, &str, Option<&str>)> = page.body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["rank"].as_u64().unwrap(),
                e["player_id"].as_str().unwrap(),
                e["name"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [(1, "bob", Some("Bobby")), (2, "eve", None)],
        "{}",
        page.body
    );
    // Retired: no more results, yet its pages and cursors read as before.
    definitions::retire(store, "weekend-seega-wins", 1, now, false)
        .await
        .expect("retired");
    let first = read_as(
        store,
        "eve",
        "/v1/leaderboards/weekend-seega-wins",
        &[("limit", "1")],
    )
    .await;
    assert_eq!(first.status, 200, "{}", first.body);
    let cursor = first.body["next_cursor"].as_str().expect("a cursor").to_string();
    let next = read_as(
        store,
        "eve",
        "/v1/leaderboards/weekend-seega-wins",
        &[("cursor", &cursor)],
    )
    .await;
    assert_eq!(next.status, 200, "{}", next.body);
    assert_eq!(next.body["entries"][0]["player_id"], "eve");
}

fn by_state(boards: &[serde_json::Value], id: &str) -> String {
    boards
        .iter()
        .find(|b| b["board"] == id)
        .and_then(|b| b["state"].as_str())
        .unwrap_or("not listed")
        .to_string()
}

/// LB-6, BD-12: `GET /v1/boards` lists the built-in boards, then the defined boards
/// live now, coming or ended in the last week, with their clocks and the caller's
/// value; a retired board is not listed.
pub async fn the_app_lists_the_boards_live_and_coming<S: Store + Clone + 'static>(store: &S) {
    weekend_seega_wins_count_inside_the_window_only(store).await;
    let define = |id: &str, start: &str, end: &str| -> Definition {
        serde_json::from_value(json!({
            "id": id, "title": id, "game": "seega", "source": {"kind": "wins"}, "operator": "count",
            "order": "higher_first", "schedule": {"kind": "window", "start": start, "end": end},
        }))
        .expect("a definition")
    };
    let mut next_weekend = define("next-weekend", "2026-12-11T22:00:00Z", "2026-12-13T22:00:00Z");
    next_weekend.prizes =
        serde_json::from_value(json!([{"from": 1, "to": 3, "points": 100}])).expect("prizes");
    for d in [
        next_weekend,
        define("last-weekend", "2026-11-27T22:00:00Z", "2026-11-29T22:00:00Z"),
        define("retired-cup", "2026-12-01T00:00:00Z", "2026-12-31T00:00:00Z"),
    ] {
        definitions::create(store, d, OPERATOR, at(2026, 11, 1, 0), 20, false)
            .await
            .expect("created");
    }
    definitions::retire(store, "retired-cup", 1, at(2026, 12, 2, 0), false)
        .await
        .expect("retired");
    let got = read_as(store, "bob", "/v1/boards", &[]).await;
    assert_eq!(got.status, 200, "{}", got.body);
    let boards = got.body["boards"].as_array().expect("boards");
    let ids: Vec<&str> = boards.iter().map(|b| b["board"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "seega",
            "dots-and-boxes",
            "minesweeper",
            "mahjong-amr",
            "mahjong-weekly",
            "mahjong-daily",
            "last-weekend",
            "next-weekend",
            "weekend-seega-wins"
        ]
    );
    // An event that ended less than a week ago: its final standings stay listed.
    assert_eq!(by_state(boards, "last-weekend"), "ended");
    let by = |id: &str| boards.iter().find(|b| b["board"] == id).expect("listed").clone();
    let weekend = by("weekend-seega-wins");
    assert_eq!(
        (
            weekend["state"].clone(),
            weekend["defined"].clone(),
            weekend["me"].clone()
        ),
        (
            json!("live"),
            json!(true),
            json!({"value": 2, "value_shown": "2"})
        )
    );
    assert_eq!(weekend["period"]["next_reset"], "2026-12-06T22:00:00Z");
    let next = by("next-weekend");
    assert_eq!(
        (next["state"].clone(), next.get("me").cloned()),
        (json!("coming"), None)
    );
    assert_eq!(next["period"]["start"], "2026-12-11T22:00:00Z");
    // What is at stake (BD-9): the prize table in force; none listed where none is paid.
    assert_eq!(
        next["prizes"],
        json!([{"from": 1, "to": 3, "points": 100, "jokers": 0}])
    );
    assert_eq!(weekend.get("prizes"), None);
    // A built-in board lists the caller's value too: bob's Seega balance.
    let balance = store
        .get_balance(podium_rules::game::Game::Seega, "bob")
        .await
        .unwrap()
        .expect("a balance");
    assert_eq!(by("seega")["me"]["value"], balance.points);
    assert_eq!(by("mahjong-weekly").get("me"), None, "no Mahjong points");
}

/// Offers one Mahjong level completion from the match queue at `now` (OP-2's intake).
async fn offer_completion<S: Store + ?Sized>(
    store: &S,
    id: &str,
    player: &str,
    time_ms: u64,
    at: &str,
    now: DateTime<Utc>,
) -> podium_service::moderation::review::Intake {
    let line = crate::mahjong::completion(id, player, 7, time_ms, at, 0);
    let policy = podium_rules::record::policy::RecordPolicy::default();
    let record = podium_service::games::incoming::Incoming::from_json(&line, now, &policy).expect("parses");
    podium_service::moderation::review::accept(store, &line, &record, now, &policy, &format!("d-{id}"))
        .await
        .expect("accepted")
}

/// BD-3, BD-4, BD-7, OP-2, OP-3: "Fastest on level 7" (the best of each player's times,
/// lower first) for one week: a completion faster than the range allows is held for
/// review, counted nowhere (nor on the balance); approved, it is settled once and
/// counts; a repeat delivery changes nothing.
pub async fn fastest_on_level_7_holds_a_time_out_of_range_until_approved<S: Store + ?Sized>(store: &S) {
    use podium_service::moderation::review::{decide, Intake, Verdict};
    let def: Definition = serde_json::from_value(json!({
        "id": "fastest-on-7", "title": "Fastest on level 7", "game": "mahjong-rivals",
        "source": {"kind": "best_time", "level": 7}, "operator": "best", "order": "lower_first",
        "schedule": {"kind": "cron", "cron": "0 0 * * MON", "zone": "Europe/Bucharest"},
        "score_range": [20000, 3600000],
    }))
    .expect("a definition");
    definitions::create(store, def.clone(), OPERATOR, at(2026, 11, 1, 0), 20, false)
        .await
        .expect("created");
    let now = instant("2026-12-06T12:00:00Z");
    let week = "2026-11-30T00:00";
    for (id, player, ms, when) in [
        ("l7-1", "ana", 65_000, "2026-12-01T10:00:00Z"),
        ("l7-2", "ana", 61_000, "2026-12-02T10:00:00Z"),
        ("l7-3", "bob", 70_000, "2026-12-03T10:00:00Z"),
    ] {
        let got = offer_completion(store, id, player, ms, when, now).await;
        assert!(matches!(got, Intake::Settled(_)), "{id}: {got:?}");
    }
    // 5 seconds: under the range's 20 s, held whole.
    let held = offer_completion(store, "l7-4", "cy", 5_000, "2026-12-04T10:00:00Z", now).await;
    assert_eq!(
        held,
        Intake::Held {
            check: "score_range".into(),
            duplicate: false
        }
    );
    let mahjong = podium_rules::game::Game::MahjongRivals;
    assert_eq!(
        store.get_balance(mahjong, "cy").await.unwrap(),
        None,
        "counted nowhere"
    );
    let rows = |r: Vec<(u64, String, i64, Vec<i64>)>| {
        r.into_iter().map(|(k, p, v, _)| (k, p, v)).collect::<Vec<_>>()
    };
    assert_eq!(
        rows(listed(store, &def, week).await),
        [(1, "ana".to_string(), 61_000), (2, "bob".to_string(), 70_000)]
    );
    let again = offer_completion(store, "l7-4", "cy", 5_000, "2026-12-04T10:00:00Z", now).await;
    assert_eq!(
        again,
        Intake::Held {
            check: "score_range".into(),
            duplicate: true
        }
    );
    // Approved (OP-3): settled once, and it counts on the board.
    let policy = podium_rules::record::policy::RecordPolicy::default();
    decide(
        store,
        ("level-completion", "l7-4"),
        Verdict::Approve,
        ("support-7", "checked against the replay"),
        now,
        &policy,
    )
    .await
    .expect("approved");
    assert_eq!(
        rows(listed(store, &def, week).await),
        [
            (1, "cy".to_string(), 5_000),
            (2, "ana".to_string(), 61_000),
            (3, "bob".to_string(), 70_000)
        ]
    );
    assert!(
        store.get_balance(mahjong, "cy").await.unwrap().is_some(),
        "paid once approved"
    );
    let after = offer_completion(store, "l7-4", "cy", 5_000, "2026-12-04T10:00:00Z", now).await;
    assert!(matches!(after, Intake::Settled(_)), "{after:?}");
    assert_eq!(listed(store, &def, week).await.len(), 3);
}

/// BD-7, OP-4: a record held while its player was suspended, which a score range
/// defined since would hold, is not settled by the restore: it waits in the review
/// queue, check `score_range`, counted nowhere.
pub async fn a_record_released_by_a_restore_still_meets_the_score_range<S: Store + ?Sized>(store: &S) {
    use podium_service::moderation::review::{queue, Intake};
    let now = instant("2026-12-06T12:00:00Z");
    let first = offer_completion(store, "rr-1", "cy", 65_000, "2026-12-01T10:00:00Z", now).await;
    assert!(matches!(first, Intake::Settled(_)), "{first:?}");
    podium_service::moderation::suspensions::suspend(
        store,
        "cy",
        ("support-7", "a modified client"),
        30,
        now,
    )
    .await
    .expect("suspended");
    let held = offer_completion(store, "rr-2", "cy", 5_000, "2026-12-02T10:00:00Z", now).await;
    assert_eq!(
        held,
        Intake::Held {
            check: "suspended".into(),
            duplicate: false
        }
    );
    let def: Definition = serde_json::from_value(json!({
        "id": "released-7", "title": "Level 7, ranged", "game": "mahjong-rivals",
        "source": {"kind": "best_time", "level": 7}, "operator": "best", "order": "lower_first",
        "schedule": {"kind": "all_time"}, "score_range": [20000, 3600000],
    }))
    .expect("a definition");
    definitions::create(store, def.clone(), OPERATOR, now, 20, false)
        .await
        .expect("created");
    let policy = podium_rules::record::policy::RecordPolicy::default();
    podium_service::moderation::suspensions::restore(
        store,
        "cy",
        ("support-7", "the report was wrong"),
        now,
        &policy,
    )
    .await
    .expect("restored");
    let (waiting, _) = queue(store, None, 10).await.expect("the queue");
    let found: Vec<(&str, &str)> = waiting
        .iter()
        .map(|h| (h.id.as_str(), h.cause.check.as_str()))
        .collect();
    assert_eq!(found, [("rr-2", "score_range")]);
    assert!(listed(store, &def, "all").await.is_empty(), "counted nowhere");
}

/// BD-3, BD-10, BD-12: a weekly points board changed from sum to best in the middle
/// of a week: the week keeps summing, the next week takes the best; both versions
/// are kept.
pub async fn a_board_changed_from_sum_to_best_changes_from_the_next_period<S: Store + ?Sized>(store: &S) {
    let def = weekly("seega-week-points");
    definitions::create(store, def.clone(), OPERATOR, at(2026, 11, 1, 12), 20, false)
        .await
        .expect("created");
    // The week of Saturday 2026-11-28 00:00 Bucharest.
    seega(store, "wk-1", "ana", "dan", 20, "2026-11-28T10:00:00Z").await;
    let mut best = def.clone();
    best.operator = Operator::Best;
    let (_, v2) = definitions::update(
        store,
        best.clone(),
        1,
        OPERATOR,
        instant("2026-11-30T12:00:00Z"),
        false,
    )
    .await
    .expect("updated");
    assert_eq!(
        v2.effective_from,
        instant("2026-12-04T22:00:00Z"),
        "the next Saturday"
    );
    seega(store, "wk-2", "ana", "dan", 20, "2026-12-01T10:00:00Z").await;
    // Next week: two wins again, now the best of them counts.
    seega(store, "wk-3", "ana", "dan", 20, "2026-12-05T10:00:00Z").await;
    seega(store, "wk-4", "ana", "dan", 20, "2026-12-05T11:00:00Z").await;
    let first = listed(store, &def, "2026-11-28T00:00").await;
    let second = listed(store, &best, "2026-12-05T00:00").await;
    let ana = |rows: &[(u64, String, i64, Vec<i64>)]| rows.iter().find(|r| r.1 == "ana").map(|r| r.2);
    // SG-8's rout: a win of 311 points each.
    assert_eq!(ana(&first), Some(622), "summed");
    assert_eq!(ana(&second), Some(311), "the best");
    let versions = definitions::versions(store, "seega-week-points").await.unwrap();
    assert_eq!(
        versions.iter().map(|v| v.definition.operator).collect::<Vec<_>>(),
        [Operator::Sum, Operator::Best]
    );
}

/// BD-10, BD-12: a retired board is fed no more; what it listed stays.
pub async fn a_retired_board_is_fed_no_more<S: Store + ?Sized>(store: &S) {
    let def: Definition = serde_json::from_value(json!({
        "id": "seega-wins-ever", "title": "Seega wins", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "all_time"},
    }))
    .expect("a definition");
    definitions::create(store, def.clone(), OPERATOR, at(2026, 11, 1, 12), 20, false)
        .await
        .expect("created");
    seega(store, "rt-1", "ana", "dan", 20, "2026-11-28T10:00:00Z").await;
    definitions::retire(store, "seega-wins-ever", 1, at(2026, 11, 29, 0), false)
        .await
        .expect("retired");
    seega(store, "rt-2", "ana", "dan", 20, "2026-11-29T10:00:00Z").await;
    let rows = listed(store, &def, "all").await;
    assert_eq!(rows, vec![(1, "ana".to_string(), 1, vec![])]);
}

/// BD-10, BD-12: changes of two definitions of one game at once both land (each
/// rewrites the game's active list, read again when the other moved it), and the
/// list then holds what both did.
pub async fn changes_of_two_definitions_of_one_game_both_land<S: Store + ?Sized>(store: &S) {
    let now = at(2026, 12, 6, 12);
    for id in ["two-a", "two-b", "two-c"] {
        definitions::create(store, weekly(id), OPERATOR, now, 20, false)
            .await
            .expect("created");
    }
    for round in 0..3 {
        let mut a = weekly("two-a");
        a.title = format!("A, round {round}");
        let (updated, retired) = futures::join!(
            definitions::update(store, a, round + 1, OPERATOR, now, false),
            async {
                if round == 0 {
                    definitions::retire(store, "two-b", 1, now, false)
                        .await
                        .map(|_| ())
                } else {
                    let mut c = weekly("two-c");
                    c.title = format!("C, round {round}");
                    definitions::update(store, c, round, OPERATOR, now, false)
                        .await
                        .map(|_| ())
                }
            }
        );
        updated.expect("A updated");
        retired.expect("the other changed");
    }
    let live = podium_service::engine::defined::in_force(store, "seega")
        .await
        .unwrap();
    let mut ids: Vec<&str> = live.iter().map(|f| f.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["two-a", "two-c"]);
    let a = live.iter().find(|f| f.id == "two-a").unwrap();
    assert_eq!(
        a.versions.last().map(|v| v.definition.title.as_str()),
        Some("A, round 2")
    );
}

/// BD-10, BD-12: a late result meets the version in force at its instant however many
/// versions came since (title changes update the version in place); a board created
/// once its window began counts the window's results that arrive from then on; a
/// window that has ended cannot be created.
pub async fn late_results_meet_the_version_of_their_instant<S: Store + ?Sized>(store: &S) {
    let def: Definition = serde_json::from_value(json!({
        "id": "late-window", "title": "Late window", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "window", "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z"},
    }))
    .expect("a definition");
    // Created on Saturday noon, the window having begun the evening before.
    let created = instant("2026-12-05T12:00:00Z");
    definitions::create(store, def.clone(), OPERATOR, created, 20, false)
        .await
        .expect("created");
    for v in 1..=5 {
        let mut titled = def.clone();
        titled.title = format!("Late window, take {v}");
        definitions::update(store, titled, v, OPERATOR, instant("2026-12-05T13:00:00Z"), false)
            .await
            .expect("retitled");
    }
    // A match of Friday night and one of Saturday morning, both arriving now.
    seega(store, "lw-1", "ana", "dan", 20, "2026-12-04T23:00:00Z").await;
    seega(store, "lw-2", "bob", "dan", 20, "2026-12-05T08:00:00Z").await;
    let rows = listed(store, &def, "window").await;
    assert_eq!(
        rows.iter().map(|r| (r.1.as_str(), r.2)).collect::<Vec<_>>(),
        [("ana", 1), ("bob", 1)]
    );
    let mut ended = def.clone();
    ended.id = "ended-window".into();
    let e = definitions::create(store, ended, OPERATOR, instant("2026-12-07T00:00:00Z"), 20, false)
        .await
        .expect_err("refused");
    assert_eq!(e.to_string(), "schedule.end (BD-6): the window has ended already");
}

/// BD-6, BD-10, LB-6: a schedule changed in the middle of a period: the current
/// period keeps being read, fed and clocked by the schedule in force; a second change
/// meanwhile takes effect with the first, never inside the current period.
pub async fn a_schedule_change_waits_for_the_current_period_to_end<S: Store + Clone + 'static>(store: &S) {
    let def = weekly("week-then-noon");
    definitions::create(store, def.clone(), OPERATOR, at(2026, 11, 1, 0), 20, false)
        .await
        .expect("created");
    let changed_at = instant("2026-12-05T12:00:00Z");
    let mut noon = def.clone();
    noon.schedule =
        serde_json::from_value(json!({"kind": "cron", "cron": "0 12 * * SAT", "zone": "Europe/Bucharest"}))
            .unwrap();
    let (_, v2) = definitions::update(store, noon.clone(), 1, OPERATOR, changed_at, false)
        .await
        .expect("updated");
    let next_saturday = instant("2026-12-11T22:00:00Z");
    assert_eq!(v2.effective_from, next_saturday);
    let mut summed = noon.clone();
    summed.operator = Operator::Best;
    let (_, v3) = definitions::update(store, summed, 2, OPERATOR, changed_at, false)
        .await
        .expect("updated");
    assert_eq!(v3.effective_from, next_saturday, "with the change still to come");
    seega(store, "wn-1", "ana", "dan", 20, "2026-12-05T13:00:00Z").await;
    seega(store, "wn-2", "ana", "dan", 20, "2026-12-05T14:00:00Z").await;
    let rows = listed(store, &def, "2026-12-05T00:00").await;
    assert_eq!(
        rows.first().map(|r| (r.1.as_str(), r.2)),
        Some(("ana", 622)),
        "summed by version 1"
    );
    let page = read_as(store, "ana", "/v1/leaderboards/week-then-noon", &[]).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(page.body["period"]["period"], "2026-12-05T00:00", "{}", page.body);
    assert_eq!(page.body["period"]["next_reset"], "2026-12-11T22:00:00Z");
    assert_eq!(page.body["entries"][0]["value"], 622);
    // The first period of the new schedule began (Saturday noon) before the change
    // took effect (Saturday 00:00 next): it is fed from the change on, and named,
    // read and closed by its start like any other.
    seega(store, "wn-3", "bob", "dan", 20, "2026-12-12T03:00:00Z").await;
    let first = "2026-12-05T12:00";
    let known = podium_service::boards::defined::resolve(store, "week-then-noon")
        .await
        .unwrap()
        .expect("defined");
    let (p, _) = known
        .period(Some(first), instant("2026-12-12T04:00:00Z"))
        .expect("named");
    assert_eq!(p.end, Some(instant("2026-12-12T10:00:00Z")));
    // A period of the old schedule read now: its next reset is the new schedule's.
    let (_, clock) = known
        .period(Some("2026-12-05T00:00"), instant("2026-12-12T04:00:00Z"))
        .expect("named");
    assert_eq!(clock.next_reset, Some(instant("2026-12-12T10:00:00Z")));
    let rows = listed(store, &def, first).await;
    assert_eq!(rows.first().map(|r| r.1.as_str()), Some("bob"), "{rows:?}");
    let op = podium_service::operators::periods::close_period(
        store,
        ("week-then-noon", first),
        false,
        &Default::default(),
        (OPERATOR, "the first noon week"),
        instant("2026-12-12T11:00:00Z"),
    )
    .await
    .expect("closed");
    assert_eq!((op.ranked, op.done), (rows.len(), true), "{op:?}");
}

/// BD-10, BD-9: a schedule change whose first period would begin before it takes
/// effect under the name of a period of the current schedule (daily → weekly on
/// Tuesdays, written on a Wednesday) is refused; written on the Monday, where the new
/// week begins as the day ends, it is taken. Prizes written with a change still to
/// come are paid from that change on, not by the period running when written.
pub async fn a_schedule_change_may_not_take_a_periods_name<S: Store + ?Sized>(store: &S) {
    let daily: Definition = serde_json::from_value(json!({
        "id": "daily-then-weekly", "title": "Days", "game": "seega", "source": {"kind": "wins"},
        "operator": "count", "order": "higher_first",
        "schedule": {"kind": "cron", "cron": "0 0 * * *", "zone": "UTC"},
        "prizes": [{"from": 1, "to": 1, "points": 10}],
    }))
    .expect("a definition");
    definitions::create(store, daily.clone(), OPERATOR, at(2026, 11, 1, 0), 20, false)
        .await
        .expect("created");
    let mut weekly = daily.clone();
    weekly.schedule =
        serde_json::from_value(json!({"kind": "cron", "cron": "0 0 * * TUE", "zone": "UTC"})).unwrap();
    weekly.prizes = serde_json::from_value(json!([{"from": 1, "to": 1, "points": 70}])).unwrap();
    let wednesday = definitions::update(store, weekly.clone(), 1, OPERATOR, at(2026, 12, 2, 12), false).await;
    assert!(
        matches!(&wednesday, Err(ServiceError::StateConflict { field: "definition.schedule", rule: "BD-10", message }) if message.contains("2026-12-01T00:00")),
        "{wednesday:?}"
    );
    let (_, v2) = definitions::update(store, weekly, 1, OPERATOR, at(2026, 12, 7, 12), false)
        .await
        .expect("written on the Monday");
    assert_eq!(v2.effective_from, at(2026, 12, 8, 0));
    let known = podium_service::boards::defined::resolve_fresh(store, "daily-then-weekly")
        .await
        .unwrap()
        .expect("defined");
    // Monday's day pays the daily table; the first week the weekly one.
    let (monday, _) = known
        .period(Some("2026-12-07T00:00"), at(2026, 12, 9, 0))
        .expect("Monday");
    assert_eq!(known.prizes_at_end(&monday)[0].points, 10);
    let (week, _) = known
        .period(Some("2026-12-08T00:00"), at(2026, 12, 9, 0))
        .expect("the first week");
    assert_eq!(week.end, Some(at(2026, 12, 15, 0)));
    assert_eq!(known.prizes_at_end(&week)[0].points, 70);
}

/// BD-6: a board keeps its last `keep_periods` ended periods readable; an older one
/// is a 404 saying so; the current and a future period read.
pub async fn ended_periods_past_keep_periods_are_not_read<S: Store + Clone + 'static>(store: &S) {
    let mut d = weekly("kept-weeks");
    d.keep_periods = 1;
    definitions::create(store, d, OPERATOR, at(2026, 11, 1, 0), 20, false)
        .await
        .expect("created");
    // Read at 2026-12-06T12:00Z: the week of 5 December runs.
    for (period, status) in [
        ("2026-12-05T00:00", 200),
        ("2026-11-28T00:00", 200),
        ("2026-11-21T00:00", 404),
        ("2026-12-12T00:00", 200),
    ] {
        let got = read_as(store, "ana", "/v1/leaderboards/kept-weeks", &[("period", period)]).await;
        assert_eq!(got.status, status, "{period}: {}", got.body);
    }
    let old = read_as(
        store,
        "ana",
        "/v1/leaderboards/kept-weeks",
        &[("period", "2026-11-21T00:00")],
    )
    .await;
    assert!(
        old.body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("keeps its last 1 ended periods"),
        "{}",
        old.body
    );
}

/// BD-6: an hourly board in a zone that sets its clock back keeps its ended periods
/// across the change: the hours before the repeated one, and both repeated ones (named
/// by their offsets), read and close after it.
pub async fn hourly_periods_are_kept_across_a_clock_set_back<S: Store + ?Sized>(store: &S) {
    let mut d = weekly("dst-hours");
    d.schedule =
        serde_json::from_value(json!({"kind": "cron", "cron": "0 * * * *", "zone": "Europe/Bucharest"}))
            .unwrap();
    d.keep_periods = 104;
    definitions::create(store, d, OPERATOR, instant("2027-10-30T00:00:00Z"), 20, false)
        .await
        .expect("created");
    let known = podium_service::boards::defined::resolve(store, "dst-hours")
        .await
        .unwrap()
        .expect("defined");
    let now = instant("2027-10-31T06:00:00Z");
    for id in [
        "2027-10-31T01:00",
        "2027-10-31T02:00",
        "2027-10-31T03:00+03:00",
        "2027-10-31T03:00+02:00",
        "2027-10-31T04:00",
    ] {
        let got = known.period(Some(id), now);
        assert!(got.is_ok(), "{id}: {got:?}");
        let op = podium_service::operators::periods::close_period(
            store,
            ("dst-hours", id),
            true,
            &Default::default(),
            (OPERATOR, "checking an hour"),
            now,
        )
        .await;
        assert!(op.is_ok(), "{id}: {op:?}");
    }
}

/// BD-8: "Romanian Seega cup", players of RO only, who enter by joining (the country
/// checked then), the first 2 to get a value: a result before a player joined, of a
/// player who did not join, or of a third entrant feeds nothing; the entrants keep
/// counting; a joining repeats as the first; a built-in board, no board, another
/// country or none are refused.
pub async fn entry_rules_admit_joined_players_of_listed_countries_first_come<S: Store + Clone + 'static>(
    store: &S,
) {
    let def: Definition = serde_json::from_value(json!({
        "id": "ro-seega-cup", "title": "Romanian Seega cup", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "window", "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z"},
        "entry": {"countries": ["RO"], "max_entrants": 2},
    }))
    .expect("a definition");
    definitions::create(store, def.clone(), OPERATOR, at(2026, 12, 1, 12), 20, false)
        .await
        .expect("created");
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    for (player, country) in [("ana", "RO"), ("bob", "ro"), ("cy", "RO"), ("dan", "FR")] {
        let put = crate::profiles::put(
            store,
            &ctx,
            "/v1/me/profile",
            player,
            &json!({"country": country}),
            at(2026, 12, 2, 9),
        )
        .await;
        assert_eq!(put.status, 200, "{}", put.body);
    }
    let join = |board: &str, player: &str, now: &str| {
        let req = podium_service::api::ApiRequest {
            method: "POST".into(),
            ..crate::review::get(&format!("/v1/boards/{board}/join"), &[], player)
        };
        let (store, ctx, now) = (store.clone(), ctx.clone(), instant(now));
        async move { podium_service::api::handle(&store, &ctx, &req, now).await }
    };
    let refused = join("ro-seega-cup", "dan", "2026-12-05T08:00:00Z").await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(
        refused
            .body
            .to_string()
            .contains("this board takes players of RO; your profile's country is FR"),
        "{}",
        refused.body
    );
    let none = join("ro-seega-cup", "eve", "2026-12-05T08:00:00Z").await;
    assert_eq!(none.status, 409, "{}", none.body);
    assert!(
        none.body.to_string().contains("names no country"),
        "{}",
        none.body
    );
    assert_eq!(join("seega", "ana", "2026-12-05T08:00:00Z").await.status, 409);
    // A defined board every player is on: nothing to join either.
    let mut open = serde_json::to_value(&def).unwrap();
    open["id"] = json!("open-seega-cup");
    open["entry"] = json!({"max_entrants": 100});
    definitions::create(
        store,
        serde_json::from_value(open).unwrap(),
        OPERATOR,
        at(2026, 12, 1, 12),
        20,
        false,
    )
    .await
    .expect("created");
    let open = join("open-seega-cup", "ana", "2026-12-05T08:00:00Z").await;
    assert_eq!(open.status, 409, "{}", open.body);
    assert!(open.body.to_string().contains("nothing to join"), "{}", open.body);
    assert_eq!(
        join("no-such-cup", "ana", "2026-12-05T08:00:00Z").await.status,
        404
    );
    let first = join("ro-seega-cup", "ana", "2026-12-05T08:00:00Z").await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body["joined_at"], "2026-12-05T08:00:00Z");
    let again = join("ro-seega-cup", "ana", "2026-12-05T09:30:00Z").await;
    assert_eq!(
        (again.status, &again.body),
        (200, &first.body),
        "a repeat answers as the first"
    );
    for p in ["bob", "cy"] {
        assert_eq!(join("ro-seega-cup", p, "2026-12-05T08:00:00Z").await.status, 200);
    }
    // Before ana joined: nothing. dan never joined: nothing.
    seega(store, "rc-1", "ana", "dan", 10, "2026-12-05T07:59:00Z").await;
    seega(store, "rc-2", "dan", "ana", 10, "2026-12-05T09:00:00Z").await;
    assert!(listed(store, &def, "window").await.is_empty());
    // ana, then bob take the 2 places; cy's first win finds none left.
    seega(store, "rc-3", "ana", "dan", 10, "2026-12-05T10:00:00Z").await;
    seega(store, "rc-4", "bob", "cy", 10, "2026-12-05T11:00:00Z").await;
    seega(store, "rc-5", "cy", "bob", 10, "2026-12-05T12:00:00Z").await;
    // The entrants keep counting.
    seega(store, "rc-6", "bob", "ana", 10, "2026-12-05T13:00:00Z").await;
    let got: Vec<(String, i64)> = listed(store, &def, "window")
        .await
        .into_iter()
        .map(|(_, p, v, _)| (p, v))
        .collect();
    assert_eq!(got, [("bob".to_string(), 2), ("ana".to_string(), 1)]);
    // The app's list says who joined.
    for (player, joined) in [("ana", true), ("dan", false)] {
        let req = crate::review::get("/v1/boards", &[], player);
        let list = podium_service::api::handle(store, &ctx, &req, instant("2026-12-05T14:00:00Z")).await;
        assert_eq!(list.status, 200, "{}", list.body);
        let cup = list.body["boards"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["board"] == "ro-seega-cup")
            .cloned()
            .expect("listed");
        assert_eq!(
            cup["entry"],
            json!({"join_required": true, "joined": joined, "max_entrants": 2, "countries": ["RO"]}),
            "{player}"
        );
    }
}

/// BD-8, GM-3: 12 first wins settled at once on a board of at most 5 entrants: 5
/// players enter, never more (the period's counter is written with each entry, at
/// the version read), and every match is still scored.
pub async fn max_entrants_hold_under_concurrent_first_results<S: Store + ?Sized>(store: &S) {
    let def: Definition = serde_json::from_value(json!({
        "id": "first-five", "title": "First five", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "window", "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z"},
        "entry": {"max_entrants": 5},
    }))
    .expect("a definition");
    definitions::create(store, def.clone(), OPERATOR, at(2026, 12, 1, 12), 20, false)
        .await
        .expect("created");
    let ids: Vec<(String, String, String)> = (0..12)
        .map(|i| (format!("ff-{i}"), format!("ffw-{i}"), format!("ffl-{i}")))
        .collect();
    join_all(
        ids.iter()
            .map(|(id, w, l)| seega(store, id, w, l, 10, "2026-12-05T10:00:00Z")),
    )
    .await;
    let got = listed(store, &def, "window").await;
    assert_eq!(got.len(), 5, "{got:?}");
    assert!(got.iter().all(|(_, p, v, _)| p.starts_with("ffw-") && *v == 1));
    for (_, w, _) in &ids {
        let balance = store
            .get_balances(podium_rules::game::Game::Seega, &[w])
            .await
            .unwrap();
        assert!(balance[0].points > 0, "{w} scored");
    }
}

/// BD-9, LB-5: a test clock moved over a prize period's end runs a tick right after
/// it (the first refresh instant a minute past the end), not at the move's end: the
/// results are sent at 14:05 for a window ending at 14:00.
pub async fn a_moved_clock_closes_a_prize_period_when_it_ends<S: podium_store::Store + ?Sized>(store: &S) {
    let def: Definition = serde_json::from_value(json!({
        "id": "lunch-sprint", "title": "Lunch sprint", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "window", "start": "2026-12-05T10:00:00Z", "end": "2026-12-05T14:00:00Z"},
        "prizes": [{"from": 1, "to": 1, "points": 50}],
    }))
    .expect("a definition");
    definitions::create(store, def, OPERATOR, at(2026, 12, 1, 12), 20, false)
        .await
        .expect("created");
    seega(store, "ls-1", "ana", "dan", 10, "2026-12-05T11:00:00Z").await;
    let mut instants = Vec::new();
    podium_service::jobs::schedule::run_between(
        store,
        instant("2026-12-05T09:00:00Z"),
        instant("2026-12-05T20:00:00Z"),
        &Default::default(),
        std::time::Duration::from_secs(300),
        |t| instants.push(t),
    )
    .await
    .expect("moved");
    assert_eq!(
        instants,
        [instant("2026-12-05T14:05:00Z"), instant("2026-12-05T20:00:00Z")]
    );
    let inbox = podium_service::players::inbox::view(store, "ana").await.unwrap();
    let m = inbox
        .messages
        .iter()
        .find(|m| m.board == "lunch-sprint")
        .expect("ana's result");
    assert_eq!((m.at, m.rank), (instant("2026-12-05T14:05:00Z"), Some(1)));
    assert_eq!(m.reward.as_ref().map(|r| r.points), Some(50));
}

/// BD-9, LB-5: a board retired after its window ended but within the minute of grace
/// before the ticks' close is still closed by them (its players earned their prizes);
/// one retired before its end is not, and neither stays in its game's list of boards
/// closing once the ticks have seen it.
pub async fn a_board_retired_within_the_grace_is_still_closed<S: podium_store::Store + ?Sized>(store: &S) {
    let def = weekend(json!([{"from": 1, "to": 1, "points": 500}]));
    play_the_weekend(store, def).await;
    let early: Definition = serde_json::from_value(json!({
        "id": "cancelled-cup", "title": "Cancelled cup", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "window", "start": "2026-12-02T00:00:00Z", "end": "2026-12-04T00:00:00Z"},
        "prizes": [{"from": 1, "to": 1, "points": 50}],
    }))
    .expect("a definition");
    definitions::create(store, early, OPERATOR, at(2026, 12, 1, 12), 20, false)
        .await
        .expect("created");
    seega(store, "cc-1", "ana", "dan", 10, "2026-12-02T11:00:00Z").await;
    definitions::retire(store, "cancelled-cup", 1, instant("2026-12-03T21:00:00Z"), false)
        .await
        .expect("retired before its end");
    // 30 s after the weekend's end, before the ticks' close at 22:01.
    definitions::retire(
        store,
        "weekend-seega-wins",
        1,
        instant("2026-12-06T22:00:30Z"),
        false,
    )
    .await
    .expect("retired within the grace");
    let mut instants = Vec::new();
    podium_service::jobs::schedule::run_between(
        store,
        instant("2026-12-06T22:00:30Z"),
        instant("2026-12-06T23:00:00Z"),
        &Default::default(),
        std::time::Duration::from_secs(300),
        |t| instants.push(t),
    )
    .await
    .expect("moved");
    assert_eq!(instants[0], instant("2026-12-06T22:01:00Z"), "{instants:?}");
    let (n, m) = weekend_result(store, "bob").await;
    assert_eq!(n, 1);
    let m = m.expect("bob's result");
    assert_eq!(
        (m["rank"].as_u64(), &m["reward"]["points"]),
        (Some(1), &json!(500))
    );
    let inbox = podium_service::players::inbox::view(store, "ana").await.unwrap();
    assert!(
        !inbox.messages.iter().any(|m| m.board == "cancelled-cup"),
        "its prizes were cancelled"
    );
    let closing: Vec<String> = podium_service::engine::defined::all_in_force(store)
        .await
        .unwrap()
        .into_iter()
        .flat_map(|g| g.closing.into_iter().map(|f| f.id))
        .collect();
    assert!(closing.is_empty(), "{closing:?}");
    // Later ticks send nothing again (a day later: a tick weeks later catches up every
    // built-in board's periods, minutes of the suite, to show the same).
    let report = tick(store, podium_service::jobs::Job::Freeze, "2026-12-07T22:01:00Z").await;
    assert!(
        !report
            .closed
            .iter()
            .any(|c| c.board.ends_with("-cup") || c.board.starts_with("weekend")),
        "{:?}",
        report.closed
    );
    assert_eq!(weekend_result(store, "bob").await.0, 1);
}

/// BD-7, BD-8, BD-12: a score range holds only what its board would take: a time out
/// of range finished outside the board's window, or by a player who has not joined a
/// board players join, is settled as usual (on the balance, on no such board).
pub async fn a_score_range_holds_only_what_its_board_takes<S: Store + ?Sized>(store: &S) {
    use podium_service::moderation::review::Intake;
    for (id, extra) in [
        ("morning-seven", json!({})),
        ("members-seven", json!({"join_required": true})),
    ] {
        let def: Definition = serde_json::from_value(json!({
            "id": id, "title": "Level 7 sprint", "game": "mahjong-rivals",
            "source": {"kind": "best_time", "level": 7}, "operator": "best", "order": "lower_first",
            "schedule": {"kind": "window", "start": "2026-12-05T06:00:00Z",
                "end": if id == "morning-seven" { "2026-12-05T12:00:00Z" } else { "2026-12-07T12:00:00Z" }},
            "score_range": [20000, 3600000],
            "entry": extra,
        }))
        .expect("a definition");
        definitions::create(store, def, OPERATOR, at(2026, 12, 1, 0), 20, false)
            .await
            .expect("created");
    }
    let now = instant("2026-12-06T12:00:00Z");
    // After the morning window, and nobody joined the members' board: settled.
    let got = offer_completion(store, "sr-1", "ana", 5_000, "2026-12-05T13:00:00Z", now).await;
    assert!(matches!(got, Intake::Settled(_)), "{got:?}");
    let mahjong = podium_rules::game::Game::MahjongRivals;
    assert!(
        store.get_balance(mahjong, "ana").await.unwrap().is_some(),
        "on the balance"
    );
    // Inside the morning window: held.
    let got = offer_completion(store, "sr-2", "bob", 5_000, "2026-12-05T07:00:00Z", now).await;
    assert!(matches!(got, Intake::Held { .. }), "{got:?}");
}

/// BD-8, BD-9, GM-3 under faults: a first win whose commit's reply is lost, and one
/// whose commit meets a concurrent change of the winner's balance, each take one place
/// of the period's counter (the retry re-reads it); a third entrant finds none left.
/// The close whose record of the period fails to be written is finished by the next
/// tick, and the winner's prize is sent and paid once.
pub async fn faults_mid_write_count_an_entrant_and_pay_a_prize_once<S: Store + Clone + 'static>(store: &S) {
    use crate::faults::Faulty;
    use podium_service::jobs::Job;
    let def: Definition = serde_json::from_value(json!({
        "id": "faulty-cup", "title": "Faulty cup", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "window", "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z"},
        "entry": {"max_entrants": 2},
        "prizes": [{"from": 1, "to": 1, "points": 50}],
    }))
    .expect("a definition");
    definitions::create(store, def.clone(), OPERATOR, at(2026, 12, 1, 12), 20, false)
        .await
        .expect("created");
    let lost = Faulty::new(store.clone()).losing_replies(1);
    seega(&lost, "fc-1", "ana", "dan", 10, "2026-12-05T10:00:00Z").await;
    seega(&lost, "fc-2", "ana", "dan", 10, "2026-12-05T11:00:00Z").await;
    seega(store, "fc-1", "ana", "dan", 10, "2026-12-05T10:00:00Z").await; // a duplicate
                                                                          // bob's first win meets a concurrent change of his balance, then the delivery
                                                                          // stops (a function timed out); it is delivered again.
    let moved = Faulty::new(store.clone()).interrupting_commits("bob", 1);
    let record = crate::fixtures::record(
        "fc-3",
        "bob",
        "dan",
        24,
        0,
        300,
        10,
        20,
        instant("2026-12-05T12:00:00Z"),
    );
    let policy = podium_rules::record::policy::RecordPolicy::default();
    podium_service::games::seega::score_match(&moved, &record, crate::fixtures::now(), &policy)
        .await
        .expect_err("the delivery stopped");
    assert_eq!(moved.interruptions_left(), 0, "the commit was interrupted once");
    seega(store, "fc-3", "bob", "dan", 10, "2026-12-05T12:00:00Z").await;
    seega(store, "fc-4", "cy", "dan", 10, "2026-12-05T13:00:00Z").await;
    let got: Vec<(String, i64)> = listed(store, &def, "window")
        .await
        .into_iter()
        .map(|(_, p, v, _)| (p, v))
        .collect();
    assert_eq!(got, [("ana".to_string(), 2), ("bob".to_string(), 1)]);
    let (owner, name) = podium_rules::board::definition::entrants_counter("faulty-cup", "window");
    let counter = store.get_state(&owner, &name).await.unwrap().expect("a counter");
    assert_eq!(counter.body, r#"{"count":2}"#);
    // The tick closes the window, but its record of the close is not written.
    let failing = Faulty::new(store.clone()).failing_item_writes("PERIODS#faulty-cup", 1);
    let run = podium_service::jobs::ScheduledRun {
        job: Job::Freeze,
        scheduled_time: instant("2027-01-02T00:00:00Z"),
    };
    let _ = podium_service::jobs::handle(&failing, run, &Default::default()).await;
    tick(store, Job::Freeze, "2027-01-02T00:05:00Z").await;
    tick(store, Job::Freeze, "2027-01-02T00:10:00Z").await;
    let inbox = podium_service::players::inbox::view(store, "ana").await.unwrap();
    let results: Vec<_> = inbox
        .messages
        .iter()
        .filter(|m| m.board == "faulty-cup")
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].reward.as_ref().map(|r| r.points), Some(50));
    let status = podium_service::jobs::status(store).await.unwrap();
    assert!(status
        .closed_through
        .iter()
        .any(|c| c.board == "faulty-cup" && c.period.as_deref() == Some("window")));
}

/// LB-5, BD-6, GM-3: a prize message of a cron period whose local start happens twice
/// (its id carries the offset, `+03:00`) is claimed like any other, once.
pub async fn a_message_id_with_an_offset_is_claimed_once<S: Store + Clone + 'static>(store: &S) {
    use podium_rules::inbox::Inbox;
    use podium_rules::message::Message;
    use podium_rules::period_reward::PeriodResult;
    let result = PeriodResult {
        player_id: "ana".into(),
        rank: 1,
        of: 3,
        top_percent: 34,
        value: 5,
        reward: 40,
        jokers: 1,
    };
    let message = Message::period_result(
        "night-owls",
        "2026-10-25T03:00+03:00",
        podium_rules::game::Game::Seega,
        &result,
        instant("2026-10-25T01:05:00Z"),
    );
    assert_eq!(message.id, "pr:night-owls:2026-10-25T03:00+03:00");
    let inbox = serde_json::to_string(&Inbox {
        messages: vec![message.clone()],
        ..Inbox::default()
    })
    .unwrap();
    crate::overtaken::write_inbox(store, "ana", &inbox).await;
    let now = instant("2026-10-26T09:00:00Z");
    let first = podium_service::players::inbox::claim(store, "ana", &message.id, now)
        .await
        .expect("claimed");
    let again = podium_service::players::inbox::claim(store, "ana", &message.id, now)
        .await
        .expect("the same answer");
    assert_eq!(first, again);
    assert_eq!((first.points, first.jokers, first.jokers_after), (40, 1, Some(1)));
}

#[macro_export]
macro_rules! board_definitions_tests {
    ($make:path) => {
        $crate::board_definitions_tests!(@cases $make;
            definitions_are_created_once_and_listed,
            an_update_that_changes_history_waits_for_the_next_period,
            concurrent_updates_of_one_version_leave_one_winner,
            a_games_active_definitions_stay_under_the_cap,
            definition_changes_are_audited_with_before_and_after,
            the_operator_routes_define_a_board,
            weekend_seega_wins_count_inside_the_window_only,
            weekend_seega_wins_pay_the_top_3_once,
            an_operator_closes_a_defined_boards_period,
            a_refresh_at_the_end_instant_leaves_the_period_its_final,
            a_close_pays_the_definition_written_just_before_the_end,
            hourly_periods_are_kept_across_a_clock_set_back,
            concurrent_closes_count_each_message_once,
            a_prize_table_written_after_the_end_says_it_is_paid_by_no_period,
            a_schedule_change_may_not_take_a_periods_name,
            ratings_feed_a_defined_board_as_the_built_in_one,
            entry_rules_admit_joined_players_of_listed_countries_first_come,
            max_entrants_hold_under_concurrent_first_results,
            a_moved_clock_closes_a_prize_period_when_it_ends,
            a_board_retired_within_the_grace_is_still_closed,
            built_in_boards_equal_their_shipped_definitions,
            a_score_range_holds_only_what_its_board_takes,
            faults_mid_write_count_an_entrant_and_pay_a_prize_once,
            a_message_id_with_an_offset_is_claimed_once,
            a_board_changed_from_sum_to_best_changes_from_the_next_period,
            a_retired_board_is_fed_no_more,
            a_defined_board_reads_like_any_board,
            the_app_lists_the_boards_live_and_coming,
            hidden_players_and_a_retired_board_read_as_on_any_board,
            fastest_on_level_7_holds_a_time_out_of_range_until_approved,
            changes_of_two_definitions_of_one_game_both_land,
            late_results_meet_the_version_of_their_instant,
            a_schedule_change_waits_for_the_current_period_to_end,
            ended_periods_past_keep_periods_are_not_read,
            a_record_released_by_a_restore_still_meets_the_score_range,
        );
    };
    (@cases $make:path; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::board_definitions::$case(&$make().await).await;
            }
        )+
    };
}
