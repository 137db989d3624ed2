//! Teams (TM-1 … TM-7, docs/rules/teams.md) on both stores: memberships and their
//! refusals, team boards fed in each result's own commit and matched against the
//! ledger, the close paying each ranked team's members once, hidden and deleted
//! members.

use std::collections::BTreeMap;
use std::sync::Arc;

use podium_rules::board::definition::Definition;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::team::{team_key, Access, TeamPolicy};
use podium_service::boards::definitions;
use podium_service::teams::{actions, view};
use podium_service::ServiceError;
use podium_store::Store;
use serde_json::json;

use crate::board_definitions::{instant, seega, tick, OPERATOR};

/// A weekly (ISO weeks, UTC) team board of Seega points paying `prizes`, split by
/// contribution with a floor of 50 %.
fn team_board(prizes: serde_json::Value) -> Definition {
    serde_json::from_value(json!({
        "id": "seega-teams-weekly", "title": "Seega teams", "game": "seega",
        "source": {"kind": "points"}, "operator": "sum", "order": "higher_first",
        "schedule": {"kind": "weekly", "zone": "UTC"},
        "prizes": prizes,
        "teams": {"split": {"kind": "by_contribution", "floor_percent": 50}},
    }))
    .expect("a definition")
}

const WEEK: &str = "2026-W49";

async fn create<S: Store + ?Sized>(store: &S, owner: &str, name: &str, at: &str) -> String {
    let new: actions::NewTeam =
        serde_json::from_value(json!({"name": name, "access": "open", "country": "RO"})).expect("a team");
    let team = actions::create(
        store,
        owner,
        new,
        (&TeamPolicy::default(), &Default::default()),
        instant(at),
    )
    .await
    .expect("created");
    assert_eq!(team.access, Access::Open);
    team.team_id
}

async fn join<S: Store + ?Sized>(store: &S, player: &str, team: &str, at: &str) -> Result<(), ServiceError> {
    actions::join(store, player, team, &TeamPolicy::default(), instant(at))
        .await
        .map(|_| ())
}

async fn leave<S: Store + ?Sized>(store: &S, player: &str, at: &str) -> Result<(), ServiceError> {
    actions::leave(store, player, &TeamPolicy::default(), instant(at))
        .await
        .map(|_| ())
}

/// OP-4: `player` suspended by support at `at` (for 30 days).
async fn suspend<S: Store + ?Sized>(store: &S, player: &str, at: &str) {
    podium_service::moderation::suspensions::suspend(
        store,
        player,
        ("support-7", "a modified client"),
        30,
        instant(at),
    )
    .await
    .expect("suspended");
}

fn rule_of(e: &ServiceError) -> (&'static str, &str) {
    match e {
        ServiceError::Invalid(r) => (r.rule, r.field.as_str()),
        other => panic!("not a refusal: {other:?}"),
    }
}

/// The team board's entries in `WEEK`: team id → value.
async fn board_values<S: Store + ?Sized>(store: &S) -> BTreeMap<String, i64> {
    let board = BoardRef::new("seega-teams-weekly", WEEK);
    store
        .board_after(&board, None, 100)
        .await
        .expect("a board")
        .into_iter()
        .map(|s| {
            let team = podium_rules::team::team_of_key(&s.player_id).expect("a team's entry");
            (team.to_string(), s.value)
        })
        .collect()
}

/// What the ledger says each team's members brought in `WEEK` (TM-4): every positive
/// applied change of a match whose instant falls in a membership of theirs.
async fn from_the_ledger<S: Store + ?Sized>(
    store: &S,
    players: &[&str],
) -> BTreeMap<String, BTreeMap<String, i64>> {
    let (start, end) = (instant("2026-11-30T00:00:00Z"), instant("2026-12-07T00:00:00Z"));
    let mut out: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for p in players {
        let held = view::mine(store, p, &TeamPolicy::default(), instant("2026-12-07T00:00:00Z"))
            .await
            .expect("memberships");
        for e in store.ledger_entries(Game::Seega, p).await.expect("a ledger") {
            if e.source != "match" || e.applied <= 0 || e.at < start || e.at >= end {
                continue;
            }
            let team = held
                .memberships
                .iter()
                .find(|m| m.joined_at <= e.at && m.left_at.is_none_or(|left| e.at < left));
            if let Some(m) = team {
                *out.entry(m.team_id.clone())
                    .or_default()
                    .entry(p.to_string())
                    .or_default() += e.applied;
            }
        }
    }
    out
}

/// TM-3, TM-4, TM-7: three teams over a week. d1 joins A on Wednesday (only their
/// points from then count), b2 leaves B on Friday (their points until then stay with
/// B) and is refused joining C within the cooldown; a loss takes nothing from a team;
/// a player in no team feeds no team board. The week's team board and each team's
/// contribution list match the ledger.
pub async fn three_teams_over_a_week_match_the_ledger<S: Store + ?Sized>(store: &S) {
    definitions::create(
        store,
        team_board(json!([])),
        OPERATOR,
        instant("2026-11-29T00:00:00Z"),
        20,
        false,
    )
    .await
    .expect("a team board");
    let a = create(store, "a1", "Alpha Wolves", "2026-11-29T10:00:00Z").await;
    let b = create(store, "b1", "Beta Bears", "2026-11-29T10:00:00Z").await;
    let c = create(store, "c1", "Gamma Owls", "2026-11-29T10:00:00Z").await;
    join(store, "a2", &a, "2026-11-29T11:00:00Z")
        .await
        .expect("a2 joins A");
    join(store, "b2", &b, "2026-11-29T11:00:00Z")
        .await
        .expect("b2 joins B");
    // Monday and Tuesday.
    seega(store, "tw-1", "a1", "x1", 20, "2026-11-30T09:00:00Z").await;
    seega(store, "tw-2", "b2", "x1", 20, "2026-11-30T10:00:00Z").await;
    seega(store, "tw-3", "d1", "x1", 20, "2026-12-01T10:00:00Z").await; // before joining
    seega(store, "tw-4", "c1", "a2", 20, "2026-12-01T11:00:00Z").await; // a2's loss
                                                                        // Wednesday: d1 joins A.
    join(store, "d1", &a, "2026-12-02T12:00:00Z")
        .await
        .expect("d1 joins A");
    seega(store, "tw-5", "d1", "x2", 20, "2026-12-03T10:00:00Z").await;
    seega(store, "tw-6", "b2", "c1", 20, "2026-12-03T11:00:00Z").await;
    // Friday: b2 leaves B; Saturday they win again (for nobody), and may not join C.
    leave(store, "b2", "2026-12-04T12:00:00Z")
        .await
        .expect("b2 leaves");
    seega(store, "tw-7", "b2", "x2", 20, "2026-12-05T10:00:00Z").await;
    let refused = join(store, "b2", &c, "2026-12-05T11:00:00Z")
        .await
        .expect_err("cooldown");
    assert_eq!(rule_of(&refused), ("TM-3", "team_id"), "{refused}");
    // A late match of Thursday, settled after b2 left: it counts for B (TM-4).
    seega(store, "tw-8", "b2", "x1", 20, "2026-12-03T20:00:00Z").await;
    // A match of two players in no team, and one of a member against a non-member.
    seega(store, "tw-9", "x1", "x2", 20, "2026-12-06T10:00:00Z").await;
    seega(store, "tw-10", "a1", "c1", 20, "2026-12-06T11:00:00Z").await;

    let players = ["a1", "a2", "b1", "b2", "c1", "d1", "x1", "x2"];
    let want = from_the_ledger(store, &players).await;
    let board = board_values(store).await;
    let totals: BTreeMap<String, i64> = want.iter().map(|(t, m)| (t.clone(), m.values().sum())).collect();
    assert_eq!(board, totals, "the team board is the ledger's sum");
    assert!(!want[&a].contains_key("a2"), "a loss takes nothing");
    assert_eq!(want[&a].len(), 2, "a1 and d1 (from Wednesday): {want:?}");
    assert!(
        want[&b].contains_key("b2"),
        "b2's points until Friday stay with B"
    );
    for (team, members) in &want {
        let list = view::contributions(
            store,
            team,
            "seega-teams-weekly",
            Some(WEEK),
            instant("2026-12-07T00:00:00Z"),
        )
        .await
        .expect("a contribution list");
        let got: BTreeMap<String, i64> = list
            .members
            .iter()
            .map(|l| (l.player_id.clone(), l.value))
            .collect();
        assert_eq!(&got, members, "{team}");
        assert_eq!(list.total, totals[team]);
        assert!(list.members.windows(2).all(|w| w[0].value >= w[1].value));
    }
    // Only teams are on the board (`board_values` reads every entry as a team's), and
    // a team's entry shows its card.
    let cards = podium_service::profiles::cards::cards(store, &[&team_key(&a)])
        .await
        .expect("cards");
    assert_eq!(cards[&team_key(&a)].name.as_deref(), Some("Alpha Wolves"));
    // The caller's standing on the team board is their team's.
    assert_eq!(
        view::subject(store, "seega-teams-weekly", "d1")
            .await
            .expect("a team"),
        team_key(&a)
    );
    assert!(matches!(
        view::subject(store, "seega-teams-weekly", "x1").await,
        Err(ServiceError::NotFound(_))
    ));
    assert_eq!(view::subject(store, "seega", "d1").await.expect("self"), "d1");
    // The app's list of boards says it ranks teams, with the caller's team's value.
    let listed = podium_service::boards::catalogue::list(store, "d1", instant("2026-12-06T12:00:00Z"))
        .await
        .expect("the catalogue");
    let l = listed
        .boards
        .iter()
        .find(|b| b.board == "seega-teams-weekly")
        .expect("listed");
    assert!(l.teams);
    assert_eq!(l.me.as_ref().map(|m| m.value), Some(totals[&a]));
    // BD-13: the board's preview over the week ranks the same teams with the same
    // values (each result as its player's team's at its instant).
    let preview = podium_service::operators::previews::run(
        store,
        team_board(json!([])),
        (instant("2026-11-30T00:00:00Z"), instant("2026-12-07T00:00:00Z")),
        instant("2026-12-07T01:00:00Z"),
        podium_service::budget::Budget::unbounded(),
        1_000,
    )
    .await
    .expect("a preview");
    assert!(preview.finished_at.is_some(), "{preview:?}");
    let week = preview
        .periods
        .iter()
        .find(|p| p.period == WEEK)
        .expect("the week");
    let previewed: BTreeMap<String, i64> = week
        .top
        .iter()
        .map(|l| {
            let team = podium_rules::team::team_of_key(&l.player_id).expect("a team's line");
            (team.to_string(), l.value)
        })
        .collect();
    assert_eq!(previewed, totals, "the preview is the board");
}

/// TM-2: the 51st member is refused naming `team_id` and TM-2; 20 concurrent joins of
/// a team with 10 places left admit exactly 10; a member of a team joins no other.
pub async fn the_cap_holds_under_concurrent_joins<S: Store + Clone + 'static>(store: &S) {
    let full = create(store, "cap-0", "Full House", "2026-11-29T10:00:00Z").await;
    for i in 1..50 {
        join(store, &format!("cap-{i}"), &full, "2026-11-29T11:00:00Z")
            .await
            .expect("a place");
    }
    let refused = join(store, "cap-50", &full, "2026-11-29T12:00:00Z")
        .await
        .expect_err("full");
    assert_eq!(rule_of(&refused), ("TM-2", "team_id"), "{refused}");
    let two = create(store, "cap-99", "Second Team", "2026-11-29T10:00:00Z").await;
    let again = join(store, "cap-1", &two, "2026-11-29T12:00:00Z")
        .await
        .expect_err("one team");
    assert_eq!(rule_of(&again).0, "TM-2");

    let rush = create(store, "rush-0", "Rush Hour", "2026-11-29T10:00:00Z").await;
    for i in 1..40 {
        join(store, &format!("rush-{i}"), &rush, "2026-11-29T11:00:00Z")
            .await
            .expect("a place");
    }
    let store = Arc::new(store.clone());
    let tasks = (0..20).map(|i| {
        let (store, rush) = (store.clone(), rush.clone());
        tokio::spawn(async move {
            join(
                store.as_ref(),
                &format!("late-{i}"),
                &rush,
                "2026-11-29T13:00:00Z",
            )
            .await
        })
    });
    let outcomes = futures::future::join_all(tasks).await;
    let mut admitted = 0;
    for o in outcomes {
        match o.expect("a task") {
            Ok(()) => admitted += 1,
            Err(e) => assert_eq!(rule_of(&e).0, "TM-2", "{e}"),
        }
    }
    assert_eq!(admitted, 10);
    let team = view::team(store.as_ref(), &rush, "rush-0", &TeamPolicy::default())
        .await
        .expect("the team");
    assert_eq!((team.member_count, team.members.len()), (50, 50));
}

/// TM-6, TM-7, BD-9, GM-3: the week's close pays each contributor of the top 3 teams
/// their share once (split by contribution with a floor), every contributor of a
/// ranked team gets the team's result (naming the team); a member who brought points
/// to two teams (released by an operator's disbanding) gets both teams' results; a
/// member suspended at the close gets nothing, and a close run again after their
/// restore pays nothing more; ticks again pay nothing more.
pub async fn the_close_pays_the_top_teams_members_once<S: Store + ?Sized>(store: &S) {
    use podium_service::jobs::Job;
    let prizes = json!([{"from": 1, "to": 1, "points": 1000}, {"from": 2, "to": 3, "points": 300}]);
    let def = team_board(prizes);
    definitions::create(
        store,
        def.clone(),
        OPERATOR,
        instant("2026-11-29T00:00:00Z"),
        20,
        false,
    )
    .await
    .expect("a team board");
    let mut teams = Vec::new();
    for (i, name) in ["Red Kites", "Blue Jays", "Green Finches", "Grey Crows"]
        .iter()
        .enumerate()
    {
        let team = create(store, &format!("o{i}"), name, "2026-11-29T10:00:00Z").await;
        join(store, &format!("m{i}"), &team, "2026-11-29T10:30:00Z")
            .await
            .expect("joined");
        teams.push(team);
    }
    // sw wins once for Grey; Grey is disbanded by an operator (sw and m3 released);
    // sw joins Green at once and wins twice for it.
    join(store, "sw", &teams[3], "2026-11-29T10:40:00Z")
        .await
        .expect("joined");
    seega(store, "tc-sw-1", "sw", "nobody", 20, "2026-11-30T09:00:00Z").await;
    podium_service::moderation::teams::disband(
        store,
        &teams[3],
        ("support-7", "merging teams"),
        instant("2026-11-30T12:00:00Z"),
    )
    .await
    .expect("disbanded");
    join(store, "sw", &teams[2], "2026-11-30T13:00:00Z")
        .await
        .expect("no cooldown");
    seega(store, "tc-sw-2", "sw", "nobody", 20, "2026-12-01T09:00:00Z").await;
    seega(store, "tc-sw-3", "sw", "nobody", 20, "2026-12-01T09:30:00Z").await;
    // Red: o0 5 wins, m0 1 (6; 5 while m0 is suspended); Green: o2 2 and sw 2 (4);
    // Blue: o1 2, m1 1 (3); Grey: sw 1.
    let wins = [("o0", 5), ("m0", 1), ("o1", 2), ("m1", 1), ("o2", 2)];
    let mut n = 0;
    for (p, k) in wins {
        for _ in 0..k {
            n += 1;
            seega(
                store,
                &format!("tc-{n}"),
                p,
                "nobody",
                20,
                &format!("2026-12-0{}T10:00:00Z", 1 + n % 5),
            )
            .await;
        }
    }
    let board = board_values(store).await;
    let mut ranked: Vec<(&String, &i64)> = board.iter().collect();
    ranked.sort_by(|x, y| y.1.cmp(x.1));
    let order: Vec<&String> = ranked.iter().map(|(t, _)| *t).collect();
    assert_eq!(order, [&teams[0], &teams[2], &teams[1], &teams[3]]);
    // m0 is suspended when the week closes.
    suspend(store, "m0", "2026-12-06T23:00:00Z").await;
    for _ in 0..2 {
        tick(store, Job::Freeze, "2026-12-07T00:05:00Z").await;
    }
    let inbox = |p: &'static str| async move {
        podium_service::players::inbox::view(store, p)
            .await
            .expect("an inbox")
            .messages
            .into_iter()
            .filter(|m| m.board == "seega-teams-weekly")
            .map(|m| serde_json::to_value(m).expect("json"))
            .collect::<Vec<_>>()
    };
    let reward = |m: &serde_json::Value| m["reward"]["points"].as_i64().unwrap_or(0);
    let check = |(i, rank, prize): (usize, u64, i64)| {
        let teams = &teams;
        async move {
            let list = view::contributions(
                store,
                &teams[i],
                "seega-teams-weekly",
                Some(WEEK),
                instant("2026-12-07T01:00:00Z"),
            )
            .await
            .expect("contributions");
            let shares: Vec<(String, i64)> = list
                .members
                .iter()
                .map(|l| (l.player_id.clone(), l.value))
                .collect();
            let want = podium_rules::team::split(
                prize,
                &shares,
                podium_rules::team::Split::ByContribution { floor_percent: 50 },
            );
            let mut paid = 0;
            for (p, part) in want {
                let p: &'static str = Box::leak(p.into_boxed_str());
                let got: Vec<_> = inbox(p)
                    .await
                    .into_iter()
                    .filter(|m| m["team"]["team_id"] == teams[i].as_str())
                    .collect();
                assert_eq!(got.len(), 1, "{p}: once");
                assert_eq!(reward(&got[0]), part, "{p}");
                assert_eq!(got[0]["rank"].as_u64(), Some(rank), "{p}");
                assert_eq!(got[0]["id"], format!("pr:seega-teams-weekly:{WEEK}:{}", teams[i]));
                paid += part;
            }
            assert_eq!(paid, prize, "the parts add up to the prize");
        }
    };
    // Each team's prize split among its contributors (TM-6), the rank the team's; m0,
    // suspended, is left out of Red's.
    for t in [(0usize, 1u64, 1000i64), (2, 2, 300), (1, 3, 300)] {
        check(t).await;
    }
    assert!(inbox("m0").await.is_empty(), "suspended at the close");
    // sw has Grey's result (4th, no reward) and Green's share; m3 and o3 brought Grey
    // nothing (m3's win came after the disbanding).
    let sw = inbox("sw").await;
    assert_eq!(sw.len(), 2, "{sw:?}");
    let grey: Vec<_> = sw
        .iter()
        .filter(|m| m["team"]["team_id"] == teams[3].as_str())
        .collect();
    assert_eq!((reward(grey[0]), grey[0]["rank"].as_u64()), (0, Some(4)));
    assert!(inbox("o3").await.is_empty() && inbox("m3").await.is_empty());
    // m0 restored, the close run again: the shares were decided once, nothing more is paid.
    podium_service::moderation::suspensions::restore(
        store,
        "m0",
        ("support-7", "the report was wrong"),
        instant("2026-12-07T02:00:00Z"),
        &Default::default(),
    )
    .await
    .expect("restored");
    let table = podium_rules::period_reward::RewardTable::of_prizes(&def.prizes);
    let again = podium_service::boards::close::rerun(
        store,
        Game::Seega,
        &BoardRef::new("seega-teams-weekly", WEEK),
        Some(&table),
        instant("2026-12-07T03:00:00Z"),
    )
    .await
    .expect("closed again")
    .expect("frozen");
    assert_eq!(again.sent, 0, "{again:?}");
    assert!(inbox("m0").await.is_empty());
    let o0 = inbox("o0").await;
    assert_eq!(
        (o0.len(), reward(&o0[0])),
        (1, 1000),
        "Red's prize, as decided at the close"
    );
    // OP-5: the close's dry run finds every ranked team's prizes sent (its shares
    // decided and each member's message in their inbox), and sends nothing.
    let dry = podium_service::operators::periods::close_period(
        store,
        ("seega-teams-weekly", WEEK),
        true,
        &Default::default(),
        (OPERATOR, "checking the week's prizes"),
        instant("2026-12-07T04:00:00Z"),
    )
    .await
    .expect("a dry run");
    assert_eq!((dry.ranked, dry.already_sent, dry.to_send), (4, 4, 0), "{dry:?}");
}

/// OP-4, GM-6: a suspended member leaves the contribution list, its total and the
/// team board's entry until restored; a deleted member's id appears nowhere in the team's items, the team's
/// board total as it was.
pub async fn hidden_and_deleted_members<S: Store + ?Sized>(store: &S) {
    definitions::create(
        store,
        team_board(json!([])),
        OPERATOR,
        instant("2026-11-29T00:00:00Z"),
        20,
        false,
    )
    .await
    .expect("a team board");
    let t = create(store, "h-own", "Hidden Hands", "2026-11-29T10:00:00Z").await;
    for p in ["h-sus", "h-del"] {
        join(store, p, &t, "2026-11-29T11:00:00Z").await.expect("joined");
    }
    seega(store, "hd-1", "h-own", "nobody", 20, "2026-12-01T10:00:00Z").await;
    seega(store, "hd-2", "h-sus", "nobody", 20, "2026-12-01T11:00:00Z").await;
    seega(store, "hd-3", "h-del", "nobody", 20, "2026-12-01T12:00:00Z").await;
    let tr = &t;
    let list = |now: &'static str| async move {
        view::contributions(store, tr, "seega-teams-weekly", Some(WEEK), instant(now))
            .await
            .expect("contributions")
    };
    let before = list("2026-12-02T00:00:00Z").await;
    assert_eq!(before.members.len(), 3);
    let sus = before
        .members
        .iter()
        .find(|l| l.player_id == "h-sus")
        .map(|l| l.value)
        .unwrap_or(0);
    let now = instant("2026-12-02T00:00:00Z");
    podium_service::moderation::suspensions::suspend(
        store,
        "h-sus",
        ("support-7", "a modified client"),
        30,
        now,
    )
    .await
    .expect("suspended");
    let during = list("2026-12-02T00:00:00Z").await;
    assert!(during.members.iter().all(|l| l.player_id != "h-sus"));
    assert_eq!(during.total, before.total - sus);
    // The team board's entry drops by theirs too, once however often it is repeated.
    assert_eq!(board_values(store).await[&t], before.total - sus);
    podium_service::moderation::suspensions::suspend(
        store,
        "h-sus",
        ("support-7", "a modified client"),
        30,
        now,
    )
    .await
    .expect("suspended again");
    assert_eq!(board_values(store).await[&t], before.total - sus);
    // No one passes ownership to a hidden member (refused as for a non-member).
    let refused = actions::pass(store, "h-own", &t, "h-sus", now)
        .await
        .expect_err("hidden");
    assert_eq!(rule_of(&refused), ("TM-5", "player_id"));
    let shown = view::team(store, &t, "h-own", &TeamPolicy::default())
        .await
        .expect("the team");
    assert!(shown.members.iter().all(|m| m.player_id != "h-sus"));
    podium_service::moderation::suspensions::restore(
        store,
        "h-sus",
        ("support-7", "the report was wrong"),
        instant("2026-12-02T01:00:00Z"),
        &Default::default(),
    )
    .await
    .expect("restored");
    assert_eq!(list("2026-12-02T02:00:00Z").await.total, before.total);
    assert_eq!(
        board_values(store).await[&t],
        before.total,
        "given back on the restore"
    );

    let board_before = board_values(store).await;
    podium_service::operators::deletion::delete_player(store, "h-del", instant("2026-12-03T00:00:00Z"))
        .await
        .expect("deleted");
    assert_eq!(
        board_values(store).await,
        board_before,
        "the team's total as it was"
    );
    let key = team_key(&t);
    for name in [
        podium_rules::team::TEAM_STATE.to_string(),
        podium_rules::team::contributions_state(&BoardRef::new("seega-teams-weekly", WEEK).key()),
    ] {
        let body = store
            .get_state(&key, &name)
            .await
            .expect("read")
            .expect("the state")
            .body;
        assert!(!body.contains("h-del"), "{name}: {body}");
    }
    let after = list("2026-12-03T01:00:00Z").await;
    assert!(after.members.iter().all(|l| !l.player_id.contains("h-del")));
    let team = view::team(store, &t, "h-own", &TeamPolicy::default())
        .await
        .expect("the team");
    assert_eq!(team.member_count, 2, "the deleted member left the roster");
}

/// TM-5, GM-6: a team whose only member is deleted stands no more, as if they had
/// left: no one sees it or joins it (404), so no team is left without an owner who
/// can act for it (found by an attack pass: the team answered with a pseudonym for
/// owner, no members, and took new members no one could then manage).
pub async fn a_team_whose_only_member_is_deleted_stands_no_more<S: Store + ?Sized>(store: &S) {
    let t = create(store, "solo-own", "Solo Act", "2026-11-29T10:00:00Z").await;
    podium_service::operators::deletion::delete_player(store, "solo-own", instant("2026-11-30T00:00:00Z"))
        .await
        .expect("deleted");
    let seen = view::team(store, &t, "solo-new", &TeamPolicy::default()).await;
    assert!(matches!(seen, Err(ServiceError::NotFound(_))), "{seen:?}");
    let joined = join(store, "solo-new", &t, "2026-11-30T01:00:00Z").await;
    assert!(matches!(joined, Err(ServiceError::NotFound(_))), "{joined:?}");
}

/// OP-5, TM-1, TM-5: an operator renames a team (its card and the audit trail say so)
/// and disbands it: its members are released at once (no cooldown, TM-3), the team
/// takes no one, its board total stays; a player's export holds their team history.
pub async fn operators_rename_and_disband_a_team<S: Store + Clone + 'static>(store: &S) {
    use podium_service::moderation::audit::{read, Trail};
    definitions::create(
        store,
        team_board(json!([])),
        OPERATOR,
        instant("2026-11-29T00:00:00Z"),
        20,
        false,
    )
    .await
    .expect("a team board");
    let t = create(store, "op-own", "Rude Name Here", "2026-11-29T10:00:00Z").await;
    join(store, "op-mem", &t, "2026-11-29T11:00:00Z")
        .await
        .expect("joined");
    // Scored on a server clock of its own instant (not the fixtures' late one), so
    // the refresh below clears the board's change marks: only the rename's own mark
    // can have the board taken again (PF-5).
    let record = crate::fixtures::record(
        "op-1",
        "op-mem",
        "nobody",
        24,
        0,
        300,
        20,
        20,
        instant("2026-12-01T10:00:00Z"),
    );
    podium_service::games::seega::score_match(
        store,
        &record,
        instant("2026-12-01T10:00:00Z"),
        &podium_rules::record::policy::RecordPolicy::default(),
    )
    .await
    .expect("scored");
    let now = instant("2026-12-02T00:00:00Z");
    // The board's snapshot lists the team by its card, and a member stands as it.
    tick(store, podium_service::jobs::Job::Refresh, "2026-12-01T23:00:00Z").await;
    let page = |path: &'static str| async move {
        let req = crate::deletion::get(path, "op-mem", &[("period", WEEK)]);
        let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
        let answer = podium_service::api::handle(store, &ctx, &req, instant("2026-12-02T01:00:00Z")).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        answer.body
    };
    let listed = page("/v1/leaderboards/seega-teams-weekly").await;
    assert_eq!(listed["entries"][0]["player_id"], team_key(&t));
    assert_eq!(listed["entries"][0]["name"], "Rude Name Here");
    let me = page("/v1/leaderboards/seega-teams-weekly/me").await;
    assert_eq!(me["me"]["player_id"], team_key(&t));
    let renamed = podium_service::moderation::teams::rename(
        store,
        &Default::default(),
        &t,
        "Team 4417",
        ("support-7", "an offensive name reported"),
        now,
    )
    .await
    .expect("renamed");
    assert_eq!(renamed.name, "Team 4417");
    let cards = podium_service::profiles::cards::cards(store, &[&team_key(&t)])
        .await
        .expect("cards");
    assert_eq!(cards[&team_key(&t)].name.as_deref(), Some("Team 4417"));
    // PF-5: the next refresh takes the board again with the new card.
    tick(store, podium_service::jobs::Job::Refresh, "2026-12-02T00:30:00Z").await;
    let listed = page("/v1/leaderboards/seega-teams-weekly").await;
    assert_eq!(listed["entries"][0]["name"], "Team 4417", "{listed}");
    let refused = podium_service::moderation::teams::rename(
        store,
        &Default::default(),
        &t,
        "x",
        ("support-7", "again"),
        now,
    )
    .await
    .expect_err("a name of one character");
    assert_eq!(rule_of(&refused), ("PF-1", "name"));
    let total = board_values(store).await[&t];
    let disbanded =
        podium_service::moderation::teams::disband(store, &t, ("support-7", "trading accounts"), now)
            .await
            .expect("disbanded");
    assert!(disbanded.disbanded_at.is_some());
    // Again: nothing more, and still answered.
    podium_service::moderation::teams::disband(store, &t, ("support-7", "trading accounts"), now)
        .await
        .expect("disbanded again");
    let (trail, _) = read(store, &Trail::Operator("support-7".into()), None, 10)
        .await
        .expect("the trail");
    let actions: Vec<&str> = trail.iter().map(|e| e.action.as_str()).collect();
    assert!(
        actions.contains(&"team-rename") && actions.contains(&"team-disband"),
        "{actions:?}"
    );
    assert!(matches!(
        view::team(store, &t, "op-own", &TeamPolicy::default()).await,
        Err(ServiceError::NotFound(_))
    ));
    assert!(matches!(
        join(store, "op-new", &t, "2026-12-02T01:00:00Z").await,
        Err(ServiceError::NotFound(_))
    ));
    for p in ["op-own", "op-mem"] {
        let mine = view::mine(store, p, &TeamPolicy::default(), now)
            .await
            .expect("mine");
        assert!(mine.team.is_none() && mine.may_join_at.is_none(), "{p}: {mine:?}");
    }
    let other = create(store, "op-mem", "Fresh Start", "2026-12-02T01:00:00Z").await;
    assert_ne!(
        other, t,
        "released at once: no cooldown after an operator's disbanding"
    );
    assert_eq!(
        board_values(store).await[&t],
        total,
        "the disbanded team's points stay"
    );
    // GDPR: the member's export holds their team history.
    let export = podium_service::operators::export::export_player(store, "op-mem", now)
        .await
        .expect("an export");
    let text = serde_json::to_string(&export).expect("json");
    assert!(text.contains(&t) && text.contains(&other), "{text}");
}

/// One request through the API's router at `at`: `method path` with `body` (JSON), as
/// `caller` (a player, or `Operator …`).
async fn call<S: Store + Clone + 'static>(
    store: &S,
    (method, path): (&str, &str),
    caller: &str,
    query: &[(&str, &str)],
    body: Option<serde_json::Value>,
    at: &str,
) -> podium_service::api::ApiResponse {
    let (player, operator) = match caller.strip_prefix("Operator ") {
        Some(op) => (None, Some(op.to_string())),
        None => (Some(caller.to_string()), None),
    };
    let req = podium_service::api::ApiRequest {
        method: method.into(),
        path: path.into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        player,
        operator,
        raw_query: None,
    };
    let ctx = podium_service::api::ApiContext::new(crate::contract::cursor_key());
    match body {
        Some(b) => {
            podium_service::api::handle_with_body(
                store,
                &ctx,
                &req,
                &[("content-type", "application/json")],
                bytes::Bytes::from(b.to_string()),
                instant(at),
            )
            .await
        }
        None => podium_service::api::handle(store, &ctx, &req, instant(at)).await,
    }
}

/// The team routes answer as docs/api.md says, refusals naming their field and rule:
/// an invite-only team without an invitation (403 `team_id (TM-1)`), a creation by a
/// member of a team (400 `caller (TM-2)`), a team board's friends view (400 `board
/// (TM-7)`), an operator's `period` without `board` (400); the last member out
/// disbands the team (404 from then on), its roster kept for operators.
pub async fn team_routes_answer_as_documented<S: Store + Clone + 'static>(store: &S) {
    definitions::create(
        store,
        team_board(json!([])),
        OPERATOR,
        instant("2026-11-29T00:00:00Z"),
        20,
        false,
    )
    .await
    .expect("a team board");
    let at = "2026-12-01T10:00:00Z";
    let made = call(
        store,
        ("POST", "/v1/teams"),
        "rt-own",
        &[],
        Some(json!({"name": "Route Testers", "access": "invite_only", "country": "ro"})),
        at,
    )
    .await;
    assert_eq!(made.status, 200, "{}", made.body);
    assert_eq!(
        (made.body["country"].as_str(), made.body["access"].as_str()),
        (Some("RO"), Some("invite_only"))
    );
    let t = made.body["team_id"].as_str().expect("an id").to_string();
    let join_path = format!("/v1/teams/{t}/join");
    let uninvited = call(store, ("POST", &join_path), "rt-guest", &[], None, at).await;
    assert_eq!(uninvited.status, 403, "{}", uninvited.body);
    assert!(
        uninvited.body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("team_id (TM-1)"),
        "{}",
        uninvited.body
    );
    let invite_path = format!("/v1/teams/{t}/invites");
    let invited = call(
        store,
        ("POST", &invite_path),
        "rt-own",
        &[],
        Some(json!({"player_id": "rt-guest"})),
        at,
    )
    .await;
    assert_eq!(invited.body["invites"], json!(["rt-guest"]));
    let joined = call(store, ("POST", &join_path), "rt-guest", &[], None, at).await;
    assert_eq!(
        (joined.status, joined.body["member_count"].as_u64()),
        (200, Some(2)),
        "{}",
        joined.body
    );
    let again = call(
        store,
        ("POST", "/v1/teams"),
        "rt-guest",
        &[],
        Some(json!({"name": "Second Team", "access": "open"})),
        at,
    )
    .await;
    assert_eq!(again.status, 400);
    assert!(
        again.body["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("caller (TM-2)"),
        "{}",
        again.body
    );
    let friends = call(
        store,
        ("GET", "/v1/leaderboards/seega-teams-weekly/friends"),
        "rt-guest",
        &[],
        None,
        at,
    )
    .await;
    assert_eq!(friends.status, 400);
    assert!(
        friends.body["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("board (TM-7)"),
        "{}",
        friends.body
    );
    let op_path = format!("/v1/operator/teams/{t}");
    let no_board = call(
        store,
        ("GET", &op_path),
        "Operator ops",
        &[("period", WEEK)],
        None,
        at,
    )
    .await;
    assert_eq!(no_board.status, 400, "{}", no_board.body);
    let pass_path = format!("/v1/teams/{t}/owner");
    let passed = call(
        store,
        ("POST", &pass_path),
        "rt-own",
        &[],
        Some(json!({"player_id": "rt-guest"})),
        at,
    )
    .await;
    assert_eq!(passed.body["owner"], "rt-guest");
    for p in ["rt-own", "rt-guest"] {
        let left = call(store, ("POST", "/v1/me/team/leave"), p, &[], None, at).await;
        assert_eq!(left.status, 200, "{}", left.body);
        assert!(
            left.body.get("team").is_none() && left.body["may_join_at"].is_string(),
            "{}",
            left.body
        );
    }
    let gone = call(store, ("GET", &format!("/v1/teams/{t}")), "rt-own", &[], None, at).await;
    assert_eq!(gone.status, 404);
    let kept = call(store, ("GET", &op_path), "Operator ops", &[], None, at).await;
    assert_eq!(kept.status, 200, "{}", kept.body);
    assert!(kept.body["team"]["disbanded_at"].is_string(), "{}", kept.body);
    assert_eq!(
        kept.body["team"]["owner"], "rt-guest",
        "its roster as it was: {}",
        kept.body
    );
    // A player who only ever had a team is someone an operator can suspend (OP-4).
    podium_service::moderation::suspensions::suspend(
        store,
        "rt-own",
        ("support-7", "an offensive team"),
        30,
        instant(at),
    )
    .await
    .expect("suspended");
}

/// TM-2, TM-5, OP-4, PF-5: what races and suspensions leave settles to one answer:
/// six concurrent creations by one player make one team, the others refused naming
/// `caller` (TM-2); six concurrent renames leave the card boards show equal to the
/// team's name; an owner who leaves passes ownership over a suspended member to the
/// next longest-standing one.
pub async fn races_settle_to_one_answer<S: Store + Clone + 'static>(store: &S) {
    let shared = Arc::new(store.clone());
    let creations = (0..6).map(|i| {
        let store = shared.clone();
        tokio::spawn(async move {
            let new: actions::NewTeam =
                serde_json::from_value(json!({"name": format!("Racers {i}"), "access": "open"}))
                    .expect("a team");
            actions::create(
                store.as_ref(),
                "race-own",
                new,
                (&TeamPolicy::default(), &Default::default()),
                instant("2026-11-29T10:00:00Z"),
            )
            .await
        })
    });
    let mut made = Vec::new();
    for outcome in futures::future::join_all(creations).await {
        match outcome.expect("a task") {
            Ok(team) => made.push(team.team_id),
            Err(e) => assert_eq!(rule_of(&e), ("TM-2", "caller"), "{e}"),
        }
    }
    assert_eq!(made.len(), 1, "{made:?}");
    let t = made.remove(0);
    // A creation the commit refused removed its card: of the teams whose card was
    // written at that instant (PF-5's change records), only the one made has one.
    let at = instant("2026-11-29T10:00:00Z").timestamp_millis();
    let written = podium_service::profiles::changed_between(store, at, at)
        .await
        .expect("the change records")
        .expect("within their retention");
    let teams: Vec<&str> = written
        .iter()
        .filter(|p| podium_rules::team::team_of_key(p).is_some())
        .map(String::as_str)
        .collect();
    let cards = podium_service::profiles::cards::cards(store, &teams)
        .await
        .expect("cards");
    assert_eq!(
        cards.keys().cloned().collect::<Vec<_>>(),
        [team_key(&t)],
        "{written:?}"
    );

    let renames = (0..6).map(|i| {
        let (store, t) = (shared.clone(), t.clone());
        tokio::spawn(async move {
            podium_service::moderation::teams::rename(
                store.as_ref(),
                &Default::default(),
                &t,
                &format!("Renamed {i}"),
                ("support-7", "a reported name"),
                instant("2026-11-30T10:00:00Z"),
            )
            .await
        })
    });
    for outcome in futures::future::join_all(renames).await {
        outcome.expect("a task").expect("renamed");
    }
    let name = view::team(store, &t, "race-own", &TeamPolicy::default())
        .await
        .expect("the team")
        .name;
    let cards = podium_service::profiles::cards::cards(store, &[&team_key(&t)])
        .await
        .expect("cards");
    assert_eq!(cards[&team_key(&t)].name.as_deref(), Some(name.as_str()));

    for p in ["race-sus", "race-next"] {
        join(store, p, &t, "2026-11-30T11:00:00Z").await.expect("joined");
    }
    suspend(store, "race-sus", "2026-11-30T12:00:00Z").await;
    leave(store, "race-own", "2026-11-30T13:00:00Z")
        .await
        .expect("left");
    let after = view::team(store, &t, "race-next", &TeamPolicy::default())
        .await
        .expect("the team");
    assert_eq!(after.owner.as_deref(), Some("race-next"));
}

/// TM-3, OP-5: an operator's disbanding stopped after its first member's release
/// (a function killed mid-way) leaves the others members of a team that takes no
/// one; each may leave it at once, with no cooldown (they join another team at once),
/// and the disbanding run again finishes what is left.
pub async fn an_interrupted_disbanding_is_left_or_finished<S: Store + Clone + 'static>(store: &S) {
    let t = create(store, "ds-own", "Soon Gone", "2026-11-29T10:00:00Z").await;
    for p in ["ds-1", "ds-2"] {
        join(store, p, &t, "2026-11-29T11:00:00Z").await.expect("joined");
    }
    let other = create(store, "ds-other", "Still Here", "2026-11-29T10:00:00Z").await;
    // The disbanding's own commit, then the owner's release; then the call stops.
    let stopping = crate::faults::Faulty::new(store.clone()).stopping_after_commits(2);
    let stopped = actions::disband_by_operator(&stopping, &t, instant("2026-11-30T12:00:00Z")).await;
    assert!(matches!(&stopped, Err(e) if e.is_unavailable()), "{stopped:?}");
    let mine = |p: &'static str| async move {
        view::mine(store, p, &TeamPolicy::default(), instant("2026-11-30T13:00:00Z"))
            .await
            .expect("mine")
    };
    assert!(mine("ds-own").await.team.is_none(), "the owner was released");
    // ds-1 leaves the disbanded team and joins another at once.
    leave(store, "ds-1", "2026-11-30T13:00:00Z").await.expect("left");
    assert!(mine("ds-1").await.may_join_at.is_none(), "no cooldown");
    join(store, "ds-1", &other, "2026-11-30T13:05:00Z")
        .await
        .expect("no cooldown after an operator's disbanding");
    // The disbanding run again releases ds-2 and leaves ds-1 in their new team.
    actions::disband_by_operator(store, &t, instant("2026-11-30T14:00:00Z"))
        .await
        .expect("finished");
    assert!(mine("ds-2").await.team.is_none() && mine("ds-2").await.may_join_at.is_none());
    assert_eq!(mine("ds-1").await.team.map(|t| t.team_id), Some(other.clone()));
    // A member of no team leaving is told so.
    let none = leave(store, "ds-2", "2026-11-30T15:00:00Z").await;
    assert!(matches!(none, Err(ServiceError::NotFound(_))), "{none:?}");
}

/// TM-4: a record dated after it is scored (a game server's clock ahead, within
/// GM-5's skew) counts for the team its player was in when it was scored, even when
/// their memberships already say otherwise for its stated instant (written by a
/// process whose clock runs ahead of the scoring one).
pub async fn a_record_dated_ahead_counts_as_of_its_scoring<S: Store + ?Sized>(store: &S) {
    definitions::create(
        store,
        team_board(json!([])),
        OPERATOR,
        instant("2026-11-29T00:00:00Z"),
        20,
        false,
    )
    .await
    .expect("a team board");
    let t = create(store, "da-own", "Ahead of Time", "2026-11-29T10:00:00Z").await;
    join(store, "da-1", &t, "2026-12-01T10:00:00Z")
        .await
        .expect("joined");
    // da-1 leaves at 12:03 by a clock a few minutes ahead of the scoring process's.
    leave(store, "da-1", "2026-12-01T12:03:00Z").await.expect("left");
    // A win dated 12:04, scored at 12:01 (its server's clock 3 minutes ahead): as of
    // its scoring da-1 was a member, so it counts for the team.
    let record = crate::fixtures::record(
        "da-1-win",
        "da-1",
        "nobody",
        24,
        0,
        300,
        20,
        20,
        instant("2026-12-01T12:04:00Z"),
    );
    podium_service::games::seega::score_match(
        store,
        &record,
        instant("2026-12-01T12:01:00Z"),
        &podium_rules::record::policy::RecordPolicy::default(),
    )
    .await
    .expect("scored");
    let list = view::contributions(
        store,
        &t,
        "seega-teams-weekly",
        Some(WEEK),
        instant("2026-12-02T00:00:00Z"),
    )
    .await
    .expect("contributions");
    let da1: Vec<i64> = list
        .members
        .iter()
        .filter(|l| l.player_id == "da-1")
        .map(|l| l.value)
        .collect();
    assert_eq!(da1.len(), 1, "{list:?}");
    assert!(da1[0] > 0, "{list:?}");
    assert_eq!(board_values(store).await.get(&t), Some(&list.total));
}

/// TM-1: an invited player is shown the invitation (`GET /v1/me/team`) until they
/// accept it by joining; one of a full team (TM-2) or one the team no longer holds
/// (it is disbanded) is not shown.
pub async fn an_invitation_reaches_the_invited_player<S: Store + ?Sized>(store: &S) {
    let policy = TeamPolicy::default();
    let new: actions::NewTeam =
        serde_json::from_value(json!({"name": "By Invitation", "access": "invite_only"})).expect("a team");
    let t = actions::create(
        store,
        "inv-own",
        new,
        (&policy, &Default::default()),
        instant("2026-11-29T10:00:00Z"),
    )
    .await
    .expect("created")
    .team_id;
    let other = create(store, "inv-other", "Other Team", "2026-11-29T10:00:00Z").await;
    for team in [&t, &other] {
        let by = if *team == t { "inv-own" } else { "inv-other" };
        actions::invite(store, by, team, "inv-guest", instant("2026-11-29T11:00:00Z"))
            .await
            .expect("invited");
    }
    let mine = view::mine(store, "inv-guest", &policy, instant("2026-11-29T12:00:00Z"))
        .await
        .expect("mine");
    let shown: Vec<(&str, &str)> = mine
        .invitations
        .iter()
        .map(|i| (i.team_id.as_str(), i.name.as_str()))
        .collect();
    assert_eq!(
        shown,
        [(t.as_str(), "By Invitation"), (other.as_str(), "Other Team")]
    );
    // TM-2: a full team's invitation is not shown (joining would be refused); with a
    // cap of one member, both teams are full.
    let full = TeamPolicy {
        member_cap: 1,
        ..policy
    };
    let mine = view::mine(store, "inv-guest", &full, instant("2026-11-29T12:00:00Z"))
        .await
        .expect("mine");
    assert!(mine.invitations.is_empty(), "{:?}", mine.invitations);
    podium_service::moderation::teams::disband(
        store,
        &other,
        ("support-7", "a test of invitations"),
        instant("2026-11-29T12:00:00Z"),
    )
    .await
    .expect("disbanded");
    join(store, "inv-guest", &t, "2026-11-29T13:00:00Z")
        .await
        .expect("accepted");
    let mine = view::mine(store, "inv-guest", &policy, instant("2026-11-29T14:00:00Z"))
        .await
        .expect("mine");
    assert!(mine.invitations.is_empty(), "{:?}", mine.invitations);
    assert_eq!(mine.team.map(|t| t.team_id), Some(t.clone()));
    // OP-4: inviting a suspended player answers as any invite and writes nothing; no
    // view shows them invited, so the answer tells nobody of the suspension.
    crate::fixtures::seed_balance(store, "inv-sus", 100, 1_000).await;
    suspend(store, "inv-sus", "2026-11-29T14:00:00Z").await;
    let answered = actions::invite(store, "inv-own", &t, "inv-sus", instant("2026-11-29T15:00:00Z"))
        .await
        .expect("answered as any invite");
    assert!(!answered.invites.iter().any(|p| p == "inv-sus"), "{answered:?}");
    let seen = view::team(store, &t, "inv-own", &policy).await.expect("the team");
    assert!(
        !seen.invites.unwrap_or_default().iter().any(|p| p == "inv-sus"),
        "not shown"
    );
}

#[macro_export]
macro_rules! teams_tests {
    ($make:path) => {
        mod teams {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn three_teams_over_a_week_match_the_ledger() {
                $crate::teams::three_teams_over_a_week_match_the_ledger(&$make().await).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn the_cap_holds_under_concurrent_joins() {
                $crate::teams::the_cap_holds_under_concurrent_joins(&$make().await).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn the_close_pays_the_top_teams_members_once() {
                $crate::teams::the_close_pays_the_top_teams_members_once(&$make().await).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn operators_rename_and_disband_a_team() {
                $crate::teams::operators_rename_and_disband_a_team(&$make().await).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn team_routes_answer_as_documented() {
                $crate::teams::team_routes_answer_as_documented(&$make().await).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn an_invitation_reaches_the_invited_player() {
                $crate::teams::an_invitation_reaches_the_invited_player(&$make().await).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn races_settle_to_one_answer() {
                $crate::teams::races_settle_to_one_answer(&$make().await).await;
            }
            #[tokio::test]
            async fn an_interrupted_disbanding_is_left_or_finished() {
                $crate::teams::an_interrupted_disbanding_is_left_or_finished(&$make().await).await;
            }
            #[tokio::test]
            async fn a_record_dated_ahead_counts_as_of_its_scoring() {
                $crate::teams::a_record_dated_ahead_counts_as_of_its_scoring(&$make().await).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn hidden_and_deleted_members() {
                $crate::teams::hidden_and_deleted_members(&$make().await).await;
            }
            #[tokio::test]
            async fn a_team_whose_only_member_is_deleted_stands_no_more() {
                $crate::teams::a_team_whose_only_member_is_deleted_stands_no_more(&$make().await).await;
            }
        }
    };
}
