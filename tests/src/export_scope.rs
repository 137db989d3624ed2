//! A player's export holds what concerns them, other players only as the role they played (GDPR Art. 15(4), 20(4)).
//!
//! Also the audit trail's reach (OP-5): an approved or rejected record is in the trail
//! of every player it names, and stays there, without the other's id, once one of them
//! is deleted (GM-6); a period's close is found under its board and period.

use chrono::{DateTime, Utc};
use podium_rules::record::policy::RecordPolicy;
use podium_service::games::incoming::Incoming;
use podium_service::moderation::audit::{self, AuditEntry, Trail};
use podium_service::moderation::review::{self, Intake, Verdict};
use podium_store::Store;
use serde_json::json;

use crate::deletion::t;
use crate::fixtures::rout;
use crate::moderation::operator_call;
use crate::overtaken::later;

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! export_scope_tests {
    ($make:path) => {
        $crate::export_scope_tests!(@cases $make;
            op5_an_approval_is_in_the_trail_of_every_player_it_names,
            op5_a_period_close_is_filed_under_its_board_and_period,
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
