//! Every read that lists players hides a suspended player through one read path (OP-4):
//! the routes that list players are taken from the API's own OpenAPI description, each
//! is read before and after `bob` is suspended (he is listed on every one of them
//! first), and must then leave him out with the ranks below him closed up (LB-2), and
//! show him again as before once he is restored. Cases of their own: a league cohort
//! (open and closed week), a friends view on a board without a snapshot, the players an
//! `overtaken` message names, a tournament's winners.

use chrono::{DateTime, Duration, Utc};
use podium_rules::game::Game;
use podium_rules::league::{self, LEAGUES};
use podium_service::api::{self, ApiContext, ApiResponse};
use podium_service::boards::periods;
use podium_service::jobs::Job;
use podium_store::Store;
use serde_json::{json, Value};

use crate::contract::cursor_key;
use crate::deletion::{t, tick};
use crate::fixtures::{seed_balance, seed_game_balance};
use crate::moderation::moderate;
use crate::review::get;
use crate::tournaments::{cup, registration, send, table};

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! hidden_views_tests {
    ($make:path) => {
        $crate::hidden_views_tests!(@cases $make;
            op4_every_route_that_lists_players_hides_a_suspended_player,
            op4_a_league_cohort_hides_a_suspended_member_and_closes_up,
            op4_a_friends_view_without_a_snapshot_hides_a_suspended_friend,
            op4_an_overtaken_message_names_no_suspended_passer,
            op4_a_suspended_tournament_winner_is_not_shown,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::hidden_views::$case($make().await).await;
            }
        )*
    };
}

/// The player suspended, first on every list; `erin` fills league cohorts in his shard.
const BOB: &str = "bob";
const ERIN: &str = "erin";
/// The reader: RO like bob and dave, bob and dave her friends.
const CAROL: &str = "carol";
const DAVE: &str = "dave";
/// The tournament bob wins, carol second, dave third (MJ-16).
const CUP: &str = "hv-cup";
/// The reads: Monday 19 July 2027 in week 2027-W29 (no refresh yet this week).
const READ: &str = "2027-07-19T06:00:00Z";

/// `bob`'s league cohorts: of week 2027-W28 (closed by the freeze) and 2027-W29 (open).
struct Seeded {
    cohort_w28: String,
    cohort_w29: String,
    /// Carol's team (bob and dave its other members) on the team board `hv-teams`.
    team: String,
}

/// What the reads list, set up from nothing:
/// - tournament `hv-cup` on 14 July: bob, carol, dave its winners (places 1, 2, 3);
/// - profiles: bob, carol, dave in RO; carol's friends bob and dave;
/// - Seega and Dots and Boxes balances, refreshed twice on Sunday 18 July: between the
///   two, bob passes carol on Seega (her `overtaken` message names him alone), bob and
///   dave pass her on Dots and Boxes (it names both);
/// - Mahjong points on 18 July (the day's board, frozen with week 2027-W28 at
///   Bucharest midnight, the league's week closed) and on 19 July (week 2027-W29, no
///   snapshot yet: its board, friends view and cohorts read live): bob first each day;
///   bob and erin share a league shard, so a cohort each week.
async fn seed<S: Store + Clone + 'static>(store: &S) -> Seeded {
    // The tournament (MJ-12 … MJ-16).
    let cup = cup(CUP, 2, false);
    podium_service::games::tournaments::configure(store, &cup, "op-1", t("2027-07-14T17:00:00Z"))
        .await
        .expect("configured");
    for (p, at) in [
        (BOB, "2027-07-14T16:00:00Z"),
        (CAROL, "2027-07-14T16:30:00Z"),
        (DAVE, "2027-07-14T16:40:00Z"),
    ] {
        send(store, registration(CUP, p, at), t("2027-07-14T17:00:00Z"))
            .await
            .expect("registered");
    }
    let cup_tick = |at: &'static str| async move {
        podium_service::games::tournaments::tick(store, t(at))
            .await
            .expect("tournament tick")
    };
    cup_tick("2027-07-14T18:05:00Z").await;
    send(
        store,
        table(
            CUP,
            "hv-tb-1",
            "2027-07-14T18:20:00Z",
            &[(BOB, true, 1500), (CAROL, true, 1200), (DAVE, false, 100)],
        ),
        t("2027-07-14T18:30:00Z"),
    )
    .await
    .expect("table");
    for at in [
        "2027-07-14T19:05:00Z",
        "2027-07-14T19:10:00Z",
        "2027-07-14T19:15:00Z",
    ] {
        cup_tick(at).await;
    }
    // Profiles (PF-3) and carol's friends (PF-4).
    let ctx = ApiContext::new(cursor_key());
    let at = t("2027-07-18T08:00:00Z");
    for p in [BOB, CAROL, DAVE] {
        let r = crate::profiles::put(store, &ctx, "/v1/me/profile", p, &json!({"country": "RO"}), at).await;
        assert_eq!(r.status, 200, "{p}: {}", r.body);
    }
    let r = crate::profiles::put(
        store,
        &ctx,
        "/v1/me/friends",
        CAROL,
        &json!({"friends": [BOB, DAVE]}),
        at,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Balances, then Mahjong points of 18 July (Bucharest), then two refreshes with
    // bob (and on Dots and Boxes dave) passing carol between them.
    let ms = |s: &str| t(s).timestamp_millis();
    for (p, seega, dots) in [
        (CAROL, 1300, 1300),
        (BOB, 1200, 1200),
        (DAVE, 1100, 1100),
        (ERIN, 1000, 1000),
    ] {
        seed_balance(store, p, seega, ms("2027-07-18T08:30:00Z")).await;
        seed_game_balance(store, Game::DotsAndBoxes, p, dots, ms("2027-07-18T08:30:00Z")).await;
    }
    credit_day(
        store,
        "2027-07-18T09:00:00Z",
        &[(BOB, 500), (CAROL, 400), (DAVE, 300), (ERIN, 200)],
    )
    .await;
    tick(store, Job::Refresh, "2027-07-18T10:00:00Z").await;
    seed_balance(store, BOB, 1500, ms("2027-07-18T10:10:00Z")).await;
    seed_game_balance(store, Game::DotsAndBoxes, BOB, 1500, ms("2027-07-18T10:10:00Z")).await;
    seed_game_balance(store, Game::DotsAndBoxes, DAVE, 1400, ms("2027-07-18T10:11:00Z")).await;
    tick(store, Job::Refresh, "2027-07-18T10:30:00Z").await;
    // Bucharest midnight: 18 July and week 2027-W28 frozen, the league's week closed.
    tick(store, Job::Freeze, "2027-07-18T21:05:00Z").await;
    // TM-7: a team board of Mahjong credits; carol's team, with bob and dave.
    let teams: podium_rules::board::definition::Definition = serde_json::from_value(json!({
        "id": "hv-teams", "title": "Teams of the week", "game": "mahjong-rivals",
        "source": {"kind": "credits"}, "operator": "sum", "order": "higher_first",
        "schedule": {"kind": "weekly", "zone": "Europe/Bucharest"},
        "teams": {"split": {"kind": "equal"}},
    }))
    .expect("a team board");
    podium_service::boards::definitions::create(store, teams, "op-1", t("2027-07-18T21:10:00Z"), 20, false)
        .await
        .expect("created");
    let new: podium_service::teams::actions::NewTeam =
        serde_json::from_value(json!({"name": "Hidden Views", "access": "open"})).expect("a team");
    let policy = podium_rules::team::TeamPolicy::default();
    let team = podium_service::teams::actions::create(
        store,
        CAROL,
        new,
        (&policy, &Default::default()),
        t("2027-07-18T21:10:00Z"),
    )
    .await
    .expect("a team")
    .team_id;
    for p in [BOB, DAVE] {
        podium_service::teams::actions::join(store, p, &team, &policy, t("2027-07-18T21:11:00Z"))
            .await
            .expect("joined");
    }
    // Week 2027-W29, read live.
    credit_day(
        store,
        "2027-07-19T05:00:00Z",
        &[(BOB, 90), (ERIN, 70), (CAROL, 60), (DAVE, 50)],
    )
    .await;
    assert_eq!(
        league::shard_of(BOB, LEAGUES[0].shards),
        league::shard_of(ERIN, LEAGUES[0].shards),
        "bob and erin fill cohorts in one shard"
    );
    let cohort_of = |week: &'static str| async move {
        let m: league::Membership = match store
            .get_state(BOB, &league::state_name(&LEAGUES[0]))
            .await
            .expect("read")
        {
            Some(s) => serde_json::from_str(&s.body).expect("membership"),
            None => league::Membership::default(),
        };
        (m.week.as_deref() == Some(week)).then(|| m.cohort.expect("placed"))
    };
    let cohort_w29 = cohort_of("2027-W29").await.expect("bob placed in 2027-W29");
    // Bob's cohort of the closed week: its recorded standings name him.
    let cohort_w28 = podium_rules::league::cohort_id(0, league::shard_of(BOB, LEAGUES[0].shards), 0);
    Seeded {
        cohort_w28,
        cohort_w29,
        team,
    }
}

/// Credits each (player, points) to every Mahjong period board (MJ-20) at `at`.
async fn credit_day<S: Store>(store: &S, at: &str, points: &[(&str, i64)]) {
    for (p, n) in points {
        periods::credit_all(
            store,
            Game::MahjongRivals,
            p,
            *n,
            t(at),
            t(at),
            &format!("hv-{p}-{at}"),
        )
        .await
        .expect("credited");
    }
}

/// Who reads: a player (their own id) or an operator.
#[derive(Clone, Copy)]
enum As {
    Player(&'static str),
    Operator,
}

/// One read of a route that lists players.
struct Probe {
    /// The route, as the OpenAPI description names it.
    route: &'static str,
    path: String,
    query: Vec<(&'static str, String)>,
    caller: As,
    /// Where its lines are, for a body the description does not detail (else the
    /// description's own paths).
    lines: Option<&'static str>,
    /// Whether its `rank` and `global_rank` close up below a hidden player (LB-2,
    /// OP-4); else every other line stays as it was (a tournament's places, the ranks
    /// a message recorded).
    closes_up: bool,
}

fn probe(route: &'static str, path: impl Into<String>, query: &[(&'static str, &str)], caller: As) -> Probe {
    Probe {
        route,
        path: path.into(),
        query: query.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        caller,
        lines: None,
        closes_up: true,
    }
}

/// Every read of a route that lists players, each listing bob before his suspension.
fn probes(s: &Seeded) -> Vec<Probe> {
    let board = "/v1/leaderboards/{board}";
    let me = "/v1/leaderboards/{board}/me";
    let friends = "/v1/leaderboards/{board}/friends";
    let cohort = "/v1/leagues/{league}/cohorts/{cohort}";
    let c = As::Player(CAROL);
    vec![
        // Snapshot pages: the board, a country view, frozen archives, the rolling AMR,
        // a tournament's standings.
        probe(board, "/v1/leaderboards/seega", &[], c),
        probe(board, "/v1/leaderboards/seega", &[("country", "RO")], c),
        probe(board, "/v1/leaderboards/dots-and-boxes", &[], c),
        probe(
            board,
            "/v1/leaderboards/mahjong-daily",
            &[("period", "2027-07-18")],
            c,
        ),
        probe(
            board,
            "/v1/leaderboards/mahjong-weekly",
            &[("period", "2027-W28")],
            c,
        ),
        probe(board, "/v1/leaderboards/mahjong-amr", &[], c),
        probe(
            board,
            format!("/v1/leaderboards/mahjong-tournament-{CUP}"),
            &[],
            c,
        ),
        // The live board before its first snapshot of the week.
        probe(board, "/v1/leaderboards/mahjong-weekly", &[], c),
        // Around-me and standing: from a snapshot, a country's, the live board.
        probe(me, "/v1/leaderboards/seega/me", &[("neighbours", "5")], c),
        probe(
            me,
            "/v1/leaderboards/seega/me",
            &[("neighbours", "5"), ("country", "RO")],
            c,
        ),
        probe(
            me,
            "/v1/leaderboards/mahjong-weekly/me",
            &[("neighbours", "5")],
            c,
        ),
        // Friends: with a snapshot, without one yet.
        probe(friends, "/v1/leaderboards/seega/friends", &[], c),
        probe(friends, "/v1/leaderboards/mahjong-weekly/friends", &[], c),
        // League cohorts: the open week (live), the closed one (as recorded), and the
        // caller's league (erin shares bob's cohort).
        probe(
            cohort,
            format!("/v1/leagues/mahjong-league/cohorts/{}", s.cohort_w29),
            &[],
            c,
        ),
        probe(
            cohort,
            format!("/v1/leagues/mahjong-league/cohorts/{}", s.cohort_w28),
            &[("week", "2027-W28")],
            c,
        ),
        probe(
            "/v1/leagues/{league}/me",
            "/v1/leagues/mahjong-league/me",
            &[],
            As::Player(ERIN),
        ),
        // The players carol's `overtaken` messages name (ranks as the messages recorded them).
        Probe {
            closes_up: false,
            ..probe("/v1/me/inbox", "/v1/me/inbox", &[], c)
        },
        // A tournament's winners keep the places MJ-16 fixed.
        Probe {
            lines: Some(".winners[]"),
            closes_up: false,
            ..probe(
                "/v1/tournaments/{tournament_id}",
                format!("/v1/tournaments/{CUP}"),
                &[],
                c,
            )
        },
        // A team's members, the caller's team, and members by contribution (TM-7).
        Probe {
            lines: Some(".team.members[]"),
            closes_up: false,
            ..probe("/v1/me/team", "/v1/me/team", &[], c)
        },
        Probe {
            closes_up: false,
            ..probe("/v1/teams/{team_id}", format!("/v1/teams/{}", s.team), &[], c)
        },
        probe(
            "/v1/teams/{team_id}/boards/{board}",
            format!("/v1/teams/{}/boards/hv-teams", s.team),
            &[],
            c,
        ),
        // Operators read a board as players see it.
        probe(
            "/v1/operator/leaderboards/{board}",
            "/v1/operator/leaderboards/seega",
            &[],
            As::Operator,
        ),
    ]
}

/// GET routes that list players and show a suspended player on purpose, with why.
const NOT_HIDING: [(&str, &str); 9] = [
    (
        "/v1/operator/teams/{team_id}",
        "operators: a team's every member and its owner, the suspended marked `suspended` (support acts on them); its contributions are the team's entry, the withheld left out",
    ),
    (
        "/v1/me/matches/{match_id}",
        "the result of a match the caller played, for its players only: it names whom they played",
    ),
    (
        "/v1/me/arenas/{arena_id}",
        "the result of an Arena the caller played, for its players only",
    ),
    (
        "/v1/me/quick-matches/{match_id}",
        "the result of a Quick Match the caller played, for its players only",
    ),
    (
        "/v1/operator/audit",
        "operators: the audit trail names every player an action concerns (OP-5)",
    ),
    (
        "/v1/operator/players/{player_id}/export",
        "operators: everything stored about one player (GDPR)",
    ),
    (
        "/v1/operator/jobs",
        "operators: the jobs' status names the player of each action under way (a suspension in progress among them)",
    ),
    (
        "/v1/operator/board-previews/{preview}",
        "operators: a definition's preview (BD-13) leaves out the players suspended when it ran; it is kept 10 minutes for repeats, then run again",
    ),
    (
        "/v1/operator/board-previews",
        "operators: the previews listed without their lines",
    ),
];

/// GET routes whose body the description leaves open and that list no player.
const OPAQUE_LISTING_NOBODY: [&str; 2] = ["/v1/openapi.json", "/v1/ad-callbacks/unity-ads"];

/// The schema `s` refers to, followed through `$ref`s into `components`.
fn resolve<'a>(doc: &'a Value, mut s: &'a Value) -> &'a Value {
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or_default();
        s = &doc["components"]["schemas"][name];
    }
    s
}

/// Whether schema `s` describes an object with a `player_id` (a player's line).
fn is_player_line(doc: &Value, s: &Value, depth: usize) -> bool {
    let s = resolve(doc, s);
    if depth > 12 {
        return false;
    }
    s["properties"].get("player_id").is_some()
        || ["allOf", "oneOf", "anyOf"].iter().any(|k| {
            s[k].as_array()
                .into_iter()
                .flatten()
                .any(|x| is_player_line(doc, x, depth + 1))
        })
}

/// The paths (`.entries[]`, `.messages[].overtaken.by[]`) at which schema `s` lists
/// players' lines.
fn listing_paths(doc: &Value, s: &Value, at: &str, depth: usize, out: &mut Vec<String>) {
    let s = resolve(doc, s);
    if depth > 16 {
        return;
    }
    if let Some(items) = s.get("items") {
        let here = format!("{at}[]");
        if is_player_line(doc, items, 0) && !out.contains(&here) {
            out.push(here.clone());
        }
        listing_paths(doc, items, &here, depth + 1, out);
    }
    for k in ["allOf", "oneOf", "anyOf"] {
        for x in s[k].as_array().into_iter().flatten() {
            listing_paths(doc, x, at, depth + 1, out);
        }
    }
    for (name, p) in s["properties"].as_object().into_iter().flatten() {
        listing_paths(doc, p, &format!("{at}.{name}"), depth + 1, out);
    }
}

/// Whether schema `s` leaves the body open (no properties, items or alternatives).
fn opaque(doc: &Value, s: &Value) -> bool {
    let s = resolve(doc, s);
    ["properties", "items", "allOf", "oneOf", "anyOf"]
        .iter()
        .all(|k| s.get(k).is_none())
}

/// Every GET route of the API's OpenAPI description whose answer lists players (its
/// paths of players' lines), or leaves its body open (no paths): route → paths.
fn routes_that_may_list_players() -> Vec<(String, Vec<String>)> {
    let doc: Value = serde_json::from_slice(&api::openapi_json()).expect("the description is JSON");
    let mut out = Vec::new();
    for (route, item) in doc["paths"].as_object().expect("paths") {
        let Some(op) = item.get("get") else { continue };
        let ok = &op["responses"]["200"]["content"];
        let mut paths = Vec::new();
        let mut open = false;
        for content in ok.as_object().into_iter().flatten().map(|(_, c)| c) {
            listing_paths(&doc, &content["schema"], "", 0, &mut paths);
            open |= opaque(&doc, &content["schema"]);
        }
        if !paths.is_empty() || open {
            out.push((route.clone(), paths));
        }
    }
    out
}

/// The objects at `path` (`.a[].b.c[]`) of `body`.
fn at_path<'a>(body: &'a Value, path: &str) -> Vec<&'a Value> {
    let mut here = vec![body];
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        let (name, each) = match seg.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (seg, false),
        };
        here = here
            .into_iter()
            .map(|v| if name.is_empty() { v } else { &v[name] })
            .flat_map(|v| match each {
                true => v.as_array().map(|a| a.iter().collect()).unwrap_or_default(),
                false => vec![v],
            })
            .filter(|v| !v.is_null())
            .collect();
    }
    here
}

/// One line as compared: the player and the ranks it shows (`rank`, `global_rank`,
/// a winner's `place`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shown {
    player: String,
    rank: Option<u64>,
    global_rank: Option<u64>,
    place: Option<u64>,
}

/// Every line `body` shows at `paths`, and the caller's own line (`me`) when there is one.
fn lines(body: &Value, paths: &[String]) -> Vec<Shown> {
    let mut found: Vec<&Value> = paths.iter().flat_map(|p| at_path(body, p)).collect();
    if body["me"].is_object() {
        found.push(&body["me"]);
    }
    found
        .into_iter()
        .map(|l| Shown {
            player: l["player_id"].as_str().unwrap_or_default().to_string(),
            rank: l["rank"].as_u64(),
            global_rank: l["global_rank"].as_u64(),
            place: l["place"].as_u64(),
        })
        .collect()
}

async fn read<S: Store + Clone + 'static>(store: &S, p: &Probe, at: DateTime<Utc>) -> ApiResponse {
    let query: Vec<(&str, &str)> = p.query.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let req = match p.caller {
        As::Player(who) => get(&p.path, &query, who),
        As::Operator => crate::review::operator_get(&p.path, &query),
    };
    api::handle(store, &ApiContext::new(cursor_key()), &req, at).await
}

/// Whether the concrete `path` is an instance of the `route` template.
fn instance_of(path: &str, route: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (path.split('/').collect(), route.split('/').collect());
    a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| x == y || (y.starts_with('{') && y.ends_with('}') && !x.is_empty()))
}

/// What a line shows once the player of `hidden` (their line before) is left out:
/// every rank strictly below theirs one place higher (LB-2: a tie keeps its rank).
fn closed_up(line: &Shown, hidden: &Shown) -> Shown {
    let up =
        |mine: Option<u64>, theirs: Option<u64>| mine.map(|r| r - u64::from(theirs.is_some_and(|h| h < r)));
    Shown {
        rank: up(line.rank, hidden.rank),
        global_rank: up(line.global_rank, hidden.global_rank),
        ..line.clone()
    }
}

/// OP-4, LB-2: the GET routes of the OpenAPI description that list players are each
/// read (or named, with why they show a suspended player: a match's own result, an
/// operator's trail), so that a new route that lists players fails here until it is.
/// Every read lists bob; suspended, he is on none of them, everyone ranked below him
/// one place higher (ranks among friends and global ranks alike), a tournament's other
/// winners keep their places, carol's message that named only him is gone; his own
/// reads are refused (403). Restored, every read shows what it showed before.
pub async fn op4_every_route_that_lists_players_hides_a_suspended_player<S: Store + Clone + 'static>(
    store: S,
) {
    let seeded = seed(&store).await;
    let probes = probes(&seeded);
    let listing = routes_that_may_list_players();
    let documented: Vec<String> = api::routes()
        .into_iter()
        .filter(|(m, _)| m == "GET")
        .map(|(_, r)| r)
        .collect();
    for (route, paths) in &listing {
        let read = probes.iter().any(|p| p.route == route.as_str());
        let named =
            NOT_HIDING.iter().any(|(r, _)| r == route) || OPAQUE_LISTING_NOBODY.contains(&route.as_str());
        assert!(
            read || named,
            "GET {route} lists players ({paths:?}, or its body is open) but is neither read here nor named as showing them"
        );
    }
    for p in &probes {
        assert!(
            documented.contains(&p.route.to_string()),
            "{} is a documented GET route",
            p.route
        );
        assert!(
            instance_of(&p.path, p.route),
            "{} is an instance of {}",
            p.path,
            p.route
        );
    }
    for (r, _) in NOT_HIDING {
        assert!(
            documented.contains(&r.to_string()),
            "{r} is a documented GET route"
        );
    }
    let paths_of = |p: &Probe| -> Vec<String> {
        match p.lines {
            Some(l) => vec![l.to_string()],
            None => listing
                .iter()
                .find(|(r, _)| r == p.route)
                .map(|(_, paths)| paths.clone())
                .unwrap_or_default(),
        }
    };
    let at = t(READ);
    let mut before = Vec::new();
    for p in &probes {
        let r = read(&store, p, at).await;
        assert_eq!(r.status, 200, "{} {:?}: {}", p.path, p.query, r.body);
        let shown = lines(&r.body, &paths_of(p));
        assert!(
            shown.iter().any(|l| l.player == BOB),
            "{} {:?} lists bob before: {}",
            p.path,
            p.query,
            r.body
        );
        before.push(shown);
    }

    moderate(&store, BOB, "suspend", at + Duration::seconds(1)).await;
    let during = at + Duration::seconds(2);
    for (p, was) in probes.iter().zip(&before) {
        let r = read(&store, p, during).await;
        assert_eq!(r.status, 200, "{} {:?}: {}", p.path, p.query, r.body);
        let now = lines(&r.body, &paths_of(p));
        let (his, others): (Vec<Shown>, Vec<Shown>) = was.iter().cloned().partition(|l| l.player == BOB);
        let expected: Vec<Shown> = match p.closes_up {
            true => others.iter().map(|l| closed_up(l, &his[0])).collect(),
            false => others,
        };
        assert_eq!(
            now, expected,
            "{} {:?}: bob hidden, ranks closed up: {}",
            p.path, p.query, r.body
        );
    }
    for path in ["/v1/me", "/v1/leagues/mahjong-league/me", "/v1/me/inbox"] {
        let r = api::handle(
            &store,
            &ApiContext::new(cursor_key()),
            &get(path, &[], BOB),
            during,
        )
        .await;
        assert_eq!(r.status, 403, "{path}: bob's own reads are refused: {}", r.body);
    }

    moderate(&store, BOB, "restore", at + Duration::seconds(3)).await;
    let after = at + Duration::seconds(4);
    for (p, was) in probes.iter().zip(&before) {
        let r = read(&store, p, after).await;
        assert_eq!(r.status, 200, "{} {:?}: {}", p.path, p.query, r.body);
        assert_eq!(
            &lines(&r.body, &paths_of(p)),
            was,
            "{} {:?}: as before",
            p.path,
            p.query
        );
    }
}

/// The (player, rank, zone) lines of a cohort view.
fn cohort_lines(body: &Value) -> Vec<(String, u64, String)> {
    body["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or_default().to_string(),
                e["rank"].as_u64().unwrap_or_default(),
                e["zone"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

async fn read_as<S: Store + Clone + 'static>(
    store: &S,
    who: &str,
    path: &str,
    q: &[(&str, &str)],
    at: DateTime<Utc>,
) -> Value {
    let r = crate::moderation::read_as(store, who, path, q, at).await;
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.body
}

/// OP-4, LB-2: bob is first in his league cohort of the open week (read live) and of
/// the closed one (as its close recorded it), erin second. Suspended, neither shows
/// him, after a refresh and a day later too: erin is first, each with the zone it
/// had; erin's own league view agrees. Restored, both read as before.
pub async fn op4_a_league_cohort_hides_a_suspended_member_and_closes_up<S: Store + Clone + 'static>(
    store: S,
) {
    let seeded = seed(&store).await;
    let open = format!("/v1/leagues/mahjong-league/cohorts/{}", seeded.cohort_w29);
    let closed = format!("/v1/leagues/mahjong-league/cohorts/{}", seeded.cohort_w28);
    let reads = |at: DateTime<Utc>| {
        let (store, open, closed) = (store.clone(), open.clone(), closed.clone());
        async move {
            (
                cohort_lines(&read_as(&store, CAROL, &open, &[], at).await),
                cohort_lines(&read_as(&store, CAROL, &closed, &[("week", "2027-W28")], at).await),
                cohort_lines(
                    &read_as(&store, ERIN, "/v1/leagues/mahjong-league/me", &[], at).await["cohort"],
                ),
            )
        }
    };
    let at = t(READ);
    let before = reads(at).await;
    let ids = |l: &[(String, u64, String)]| l.iter().map(|(p, r, _)| (p.clone(), *r)).collect::<Vec<_>>();
    let bob_first = vec![(BOB.to_string(), 1), (ERIN.to_string(), 2)];
    assert_eq!(ids(&before.0), bob_first, "the open week");
    assert_eq!(ids(&before.1), bob_first, "the closed week");
    assert_eq!(before.2, before.0, "erin's league shows her cohort");

    moderate(&store, BOB, "suspend", at + Duration::seconds(1)).await;
    let erin_alone = |l: &[(String, u64, String)], was: &[(String, u64, String)]| {
        let erin = was
            .iter()
            .find(|(p, _, _)| p == ERIN)
            .expect("erin listed")
            .2
            .clone();
        assert_eq!(l, [(ERIN.to_string(), 1, erin)], "bob hidden, erin first");
    };
    tick(&store, Job::Refresh, "2027-07-19T06:05:00Z").await;
    for when in [t("2027-07-19T06:06:00Z"), t("2027-07-20T06:06:00Z")] {
        let (o, c, mine) = reads(when).await;
        // The open week ranks and zones the cohort without him (as its close will).
        assert_eq!(
            o,
            [(ERIN.to_string(), 1, "stay".to_string())],
            "the open week at {when}"
        );
        erin_alone(&c, &before.1);
        assert_eq!(mine, o, "erin's league at {when}");
    }
    moderate(&store, BOB, "restore", t("2027-07-20T06:07:00Z")).await;
    let again = reads(t("2027-07-20T06:08:00Z")).await;
    assert_eq!(again, before, "restored: as before");
}

/// The (player, rank, no entry) lines of a friends view.
fn friend_lines(body: &Value) -> Vec<(String, u64, bool)> {
    body["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or_default().to_string(),
                e["rank"].as_u64().unwrap_or_default(),
                e["no_entry"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

/// OP-4, PF-4: week 2027-W29's board has no snapshot yet; carol's friends view of it
/// lists bob first (read live). Suspended, bob is not shown and carol and dave move up
/// one place; on Seega (a snapshot) alike, with their global ranks closed up.
pub async fn op4_a_friends_view_without_a_snapshot_hides_a_suspended_friend<S: Store + Clone + 'static>(
    store: S,
) {
    seed(&store).await;
    let at = t(READ);
    let weekly = read_as(&store, CAROL, "/v1/leaderboards/mahjong-weekly/friends", &[], at).await;
    assert!(weekly["snapshot"].is_null(), "no snapshot yet: {weekly}");
    assert_eq!(
        friend_lines(&weekly),
        [
            (BOB.to_string(), 1, false),
            (CAROL.to_string(), 2, false),
            (DAVE.to_string(), 3, false)
        ]
    );
    moderate(&store, BOB, "suspend", at + Duration::seconds(1)).await;
    let later = at + Duration::seconds(2);
    let weekly = read_as(
        &store,
        CAROL,
        "/v1/leaderboards/mahjong-weekly/friends",
        &[],
        later,
    )
    .await;
    assert_eq!(
        friend_lines(&weekly),
        [(CAROL.to_string(), 1, false), (DAVE.to_string(), 2, false)],
        "{weekly}"
    );
    assert_eq!(weekly["me"]["rank"], json!(1));
    let seega = read_as(&store, CAROL, "/v1/leaderboards/seega/friends", &[], later).await;
    let globals: Vec<(String, u64)> = seega["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or_default().to_string(),
                e["global_rank"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        globals,
        [(CAROL.to_string(), 1), (DAVE.to_string(), 2)],
        "{seega}"
    );
}

/// carol's `overtaken` messages of `board`, as (passed_by, the players named).
fn passes(inbox: &Value, board: &str) -> Vec<(u64, Vec<String>)> {
    inbox["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["kind"] == "overtaken" && m["board"] == board)
        .map(|m| {
            let by = m["overtaken"]["by"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| p["player_id"].as_str().unwrap_or_default().to_string())
                .collect();
            (m["overtaken"]["passed_by"].as_u64().unwrap_or_default(), by)
        })
        .collect()
}

/// OP-4: carol was passed by bob alone on Seega, by dave and bob on Dots and Boxes
/// (nearest above her first).
/// While bob is suspended her inbox names him nowhere: the Seega message, which named
/// only him, is not shown; the Dots and Boxes one names dave, passed by 1. Restored,
/// both read as before.
pub async fn op4_an_overtaken_message_names_no_suspended_passer<S: Store + Clone + 'static>(store: S) {
    seed(&store).await;
    let at = t(READ);
    let inbox = read_as(&store, CAROL, "/v1/me/inbox", &[], at).await;
    assert_eq!(passes(&inbox, "seega"), [(1, vec![BOB.to_string()])], "{inbox}");
    assert_eq!(
        passes(&inbox, "dots-and-boxes"),
        [(2, vec![DAVE.to_string(), BOB.to_string()])],
        "{inbox}"
    );
    moderate(&store, BOB, "suspend", at + Duration::seconds(1)).await;
    let during = read_as(&store, CAROL, "/v1/me/inbox", &[], at + Duration::seconds(2)).await;
    assert_eq!(passes(&during, "seega"), [], "{during}");
    assert_eq!(
        passes(&during, "dots-and-boxes"),
        [(1, vec![DAVE.to_string()])],
        "{during}"
    );
    moderate(&store, BOB, "restore", at + Duration::seconds(3)).await;
    let after = read_as(&store, CAROL, "/v1/me/inbox", &[], at + Duration::seconds(4)).await;
    assert_eq!(after, inbox, "restored: as before");
}

/// OP-4, MJ-16: bob won `hv-cup`, carol second, dave third. While bob is suspended
/// the tournament shows carol and dave with the places and prizes MJ-16 fixed, bob
/// nowhere; restored, all three.
pub async fn op4_a_suspended_tournament_winner_is_not_shown<S: Store + Clone + 'static>(store: S) {
    seed(&store).await;
    let path = format!("/v1/tournaments/{CUP}");
    let winners = |body: &Value| -> Vec<(String, u64, i64)> {
        body["winners"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|w| {
                (
                    w["player_id"].as_str().unwrap_or_default().to_string(),
                    w["place"].as_u64().unwrap_or_default(),
                    w["prize"].as_i64().unwrap_or_default(),
                )
            })
            .collect()
    };
    let at = t(READ);
    let before = read_as(&store, CAROL, &path, &[], at).await;
    assert_eq!(before["status"], "final", "{before}");
    let all = winners(&before);
    assert_eq!(
        all.iter()
            .map(|(p, place, _)| (p.as_str(), *place))
            .collect::<Vec<_>>(),
        [(BOB, 1), (CAROL, 2), (DAVE, 3)],
        "{before}"
    );
    moderate(&store, BOB, "suspend", at + Duration::seconds(1)).await;
    let during = read_as(&store, CAROL, &path, &[], at + Duration::seconds(2)).await;
    assert_eq!(winners(&during), all[1..].to_vec(), "{during}");
    moderate(&store, BOB, "restore", at + Duration::seconds(3)).await;
    let after = read_as(&store, CAROL, &path, &[], at + Duration::seconds(4)).await;
    assert_eq!(winners(&after), all, "{after}");
}
