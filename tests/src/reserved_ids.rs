//! Internal owners (leagues, tournaments, level records) never act as players: every way in refuses their reserved form (GM-5, GM-6).
//!
//! podium keeps state of its own under pseudo-players: a league's filling cohorts and
//! member lists, a tournament, a level's fastest times. They are all made by
//! [`podium_rules::record::ids::internal_owner`] (`@…`), a form that
//! [`podium_rules::record::ids::check_player_id`] refuses wherever a player's id comes
//! in: a caller's identity (every route the app calls, enumerated from the OpenAPI
//! description), a record, a friend list, an operator's action on a player, an export
//! and a deletion.

use bytes::Bytes;
use podium_rules::league::{members_owner, LEAGUES};
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_store::{ErasureStore, Store};
use serde_json::{json, Value};

use crate::contract::{cursor_key, score_match};
use crate::deletion::t;
use crate::fixtures::rout;

const NOW: &str = "2027-03-10T10:00:00Z";

fn request(method: &str, path: &str, player: Option<&str>, operator: Option<&str>) -> ApiRequest {
    ApiRequest {
        method: method.into(),
        path: path.into(),
        query: Default::default(),
        raw_query: None,
        player: player.map(str::to_string),
        operator: operator.map(str::to_string),
    }
}

/// `req` with `body` as its JSON body (none when `body` is null: the route reads none).
async fn send<S: Store + Clone + 'static>(store: &S, req: &ApiRequest, body: Value) -> ApiResponse {
    let (headers, bytes): (&[(&str, &str)], Bytes) = match body {
        Value::Null => (&[], Bytes::new()),
        body => (
            &[("content-type", "application/json")],
            Bytes::from(body.to_string()),
        ),
    };
    api::handle_with_body(store, &ApiContext::new(cursor_key()), req, headers, bytes, t(NOW)).await
}

/// Asserts a 400 whose message starts with `{field} (GM-5)`.
fn refused(answer: &ApiResponse, field: &str, what: &str) {
    assert_eq!(answer.status, 400, "{what}: {}", answer.body);
    let message = answer.body["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!("{field} (GM-5)")),
        "{what}: {}",
        answer.body
    );
}

/// The three players of [`a_cohort`] (one league shard, so one cohort).
fn cohort_players() -> Vec<String> {
    crate::leagues::same_shard("ri-", 3)
}

/// Three players placed in this week's league cohort by their daily bonus; answers
/// (week, cohort, the internal owner of the cohort's member list).
async fn a_cohort<S: Store + Clone + 'static>(store: &S) -> (String, String, String) {
    for p in &cohort_players() {
        let claimed = send(
            store,
            &request("POST", "/v1/games/mahjong-rivals/daily-bonus", Some(p), None),
            Value::Null,
        )
        .await;
        assert_eq!(claimed.status, 200, "{}", claimed.body);
    }
    let first = cohort_players()[0].clone();
    let mine = send(
        store,
        &request("GET", "/v1/leagues/mahjong-league/me", Some(&first), None),
        Value::Null,
    )
    .await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    let week = mine.body["week"].as_str().expect("week").to_string();
    let cohort = mine.body["cohort"]["cohort"]
        .as_str()
        .expect("cohort")
        .to_string();
    let owner = members_owner(&LEAGUES[0], &week, &cohort);
    (week, cohort, owner)
}

/// The cohort still lists its three members, and a member's own league view answers.
async fn cohort_intact<S: Store + Clone + 'static>(store: &S, cohort: &str) {
    let path = format!("/v1/leagues/mahjong-league/cohorts/{cohort}");
    let members = cohort_players();
    let page = send(
        store,
        &request("GET", &path, Some(&members[1]), None),
        Value::Null,
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let mut listed: Vec<&str> = page.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["player_id"].as_str())
        .collect();
    listed.sort_unstable();
    assert_eq!(listed, members, "{}", page.body);
    let mine = send(
        store,
        &request("GET", "/v1/leagues/mahjong-league/me", Some(&members[0]), None),
        Value::Null,
    )
    .await;
    assert_eq!(mine.status, 200, "{}", mine.body);
}

/// A route's path with its parameters filled with values the route accepts.
fn filled(path: &str, cohort: &str) -> String {
    path.replace("{board}", "mahjong-weekly")
        .replace("{league}", "mahjong-league")
        .replace("{cohort}", cohort)
        .replace("{tournament_id}", "cup-1")
        .replace("{arena_id}", "arena-1")
        .replace("{table_id}", "table-1")
        .replace("{match_id}", "match-1")
        .replace("{completion_id}", "completion-1")
        .replace("{message_id}", "message-1")
}

/// GM-5 (fault: internal ids usable as players): a caller whose identity is a
/// league's member list, a filling cohort, a tournament or a level record gets 400
/// naming `caller` and GM-5 on every route the app calls (enumerated from the OpenAPI
/// description, so a new route is checked too); nothing is written, and the cohort
/// and its members' league views stay as they were.
pub async fn an_internal_owner_is_no_caller<S: Store + Clone + 'static>(store: S) {
    let (week, cohort, members) = a_cohort(&store).await;
    let owners = [
        members,
        podium_rules::league::filling_owner(&LEAGUES[0], &week, 0, 0),
        podium_rules::mahjong::tournament_play::tournament_owner("cup-1"),
        podium_rules::mahjong::completion::fastest_owner(7),
    ];
    let app_routes: Vec<(String, String)> = api::routes()
        .into_iter()
        .filter(|(_, path)| {
            !path.starts_with("/v1/operator")
                && !path.starts_with("/v1/ad-callbacks")
                && path != "/v1/openapi.json"
        })
        .collect();
    assert!(app_routes.len() >= 20, "{app_routes:?}");
    for owner in &owners {
        for (method, path) in &app_routes {
            let mut req = request(method, &filled(path, &cohort), Some(owner), None);
            if path == "/v1/me/ledger" {
                req.query.insert("game".into(), "mahjong-rivals".into());
            }
            // A body only where the route reads one (the profile, the friend list).
            let body = match (method.as_str(), path.as_str()) {
                ("PUT", "/v1/me/profile" | "/v1/me/friends") => {
                    json!({"name": "Cohort Ghost", "friends": [cohort_players()[0]]})
                }
                _ => Value::Null,
            };
            refused(
                &send(&store, &req, body).await,
                "caller",
                &format!("{owner} {method} {path}"),
            );
        }
    }
    for owner in &owners {
        let h = store.holdings(owner).await.expect("holdings");
        assert!(
            h.balances.is_empty() && h.entries.is_empty() && h.ledger.is_empty(),
            "{owner}: {h:?}"
        );
    }
    cohort_intact(&store, &cohort).await;
}

/// GM-5: no operator action takes an internal owner for a player: the overview, a
/// correction, a suspension, a restore, a name reset, an export and a deletion (the
/// route and `podium delete-player`'s own call) answer 400 naming `player_id` and
/// GM-5, and the cohort's member list is not erased.
pub async fn no_operator_action_takes_an_internal_owner<S: Store + ErasureStore + Clone + 'static>(store: S) {
    let (_, cohort, members) = a_cohort(&store).await;
    let base = format!("/v1/operator/players/{members}");
    let actions = [
        ("GET", base.clone(), Value::Null),
        (
            "POST",
            format!("{base}/corrections"),
            json!({"correction_id": "c-1", "game": "mahjong-rivals", "points": 10, "reason": "check"}),
        ),
        ("POST", format!("{base}/suspend"), json!({"reason": "check"})),
        ("POST", format!("{base}/restore"), json!({"reason": "check"})),
        ("POST", format!("{base}/name-reset"), json!({"reason": "check"})),
        ("GET", format!("{base}/export"), Value::Null),
        ("POST", format!("{base}/delete"), json!({"reason": "check"})),
    ];
    for (method, path, body) in actions {
        let answer = send(&store, &request(method, &path, None, Some("support-7")), body).await;
        refused(&answer, "player_id", &format!("{method} {path}"));
    }
    let now = t(NOW);
    for even_if_unknown in [false, true] {
        let e =
            podium_service::operators::deletion::delete_known_player(&store, &members, now, even_if_unknown)
                .await
                .expect_err("refused");
        assert!(e.to_string().starts_with("player_id (GM-5)"), "{e}");
    }
    let e = podium_service::operators::export::export_player(&store, &members, now)
        .await
        .expect_err("refused");
    assert!(e.to_string().starts_with("player_id (GM-5)"), "{e}");
    cohort_intact(&store, &cohort).await;
}

/// GM-5: a record naming an internal owner is refused naming the player's field, and
/// a friend list holding one is refused naming its index; nothing is written.
pub async fn no_record_or_friend_list_names_an_internal_owner<S: Store + Clone + 'static>(store: S) {
    let (_, cohort, members) = a_cohort(&store).await;
    let other = cohort_players()[1].clone();
    let record = rout("ri-match-1", &members, &other, t("2027-03-10T09:00:00Z"));
    let e = score_match(&store, &record, t(NOW)).await.expect_err("refused");
    assert!(e.to_string().starts_with("players[0].player_id (GM-5)"), "{e}");
    assert_eq!(
        store
            .get_balances(podium_rules::game::Game::Seega, &[other.as_str()])
            .await
            .expect("read")[0]
            .points,
        0,
        "nothing written"
    );
    let friends = send(
        &store,
        &request("PUT", "/v1/me/friends", Some(&cohort_players()[0]), None),
        json!({"friends": [other, members]}),
    )
    .await;
    refused(&friends, "friends[1]", "friend list");
    cohort_intact(&store, &cohort).await;
}

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! reserved_ids_tests {
    ($make:path) => {
        $crate::reserved_ids_tests!(@cases $make;
            an_internal_owner_is_no_caller,
            no_operator_action_takes_an_internal_owner,
            no_record_or_friend_list_names_an_internal_owner,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::reserved_ids::$case($make().await).await;
            }
        )*
    };
}
