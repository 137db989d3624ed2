//! Daily rewards on both stores, through the HTTP API's code (SG-10, MJ-18, MJ-19,
//! GM-3): signed ad callbacks paid once a day and exactly once, refused unless
//! verified, and the Mahjong daily bonus with its streak, Jokers and doubling.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use futures::future::join_all;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use podium_ads::catalogue::Catalogue;
use podium_ads::keys::KeySet;
use podium_ads::{query, unity};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_service::players::rewards::{Ads, StaticKeys};
use podium_store::Store;
use serde_json::Value;

use crate::contract::cursor_key;
use crate::fixtures::{seed_balance, seed_game_balance};

/// The ad units of these tests: Seega's daily reward, Mahjong's doubling, a Unity unit.
pub const CATALOGUE: &str = r#"{"units": {
    "admob:1111": {"reward": "daily_points", "game": "seega", "points": 40},
    "admob:2222": {"reward": "bonus_doubling", "game": "mahjong-rivals"},
    "unity-ads:3333": {"reward": "daily_points", "game": "seega", "points": 40}}}"#;

/// The Unity Ads S2S secret of these tests.
pub const UNITY_SECRET: &[u8] = b"unity-test-secret";

/// The signing key of these tests' callbacks (key id 7), made at test time.
fn signing_key() -> SigningKey {
    SigningKey::from_slice(&[42u8; 32]).expect("key")
}

/// The verifier keys of these tests' callbacks, as AdMob publishes its own
/// (`{"keys": [{"keyId": 7, "base64": …}]}`).
pub fn admob_keys_json() -> String {
    let der = p256::pkcs8::EncodePublicKey::to_public_key_der(signing_key().verifying_key()).expect("der");
    serde_json::json!({"keys": [{"keyId": 7, "base64": base64::engine::general_purpose::STANDARD.encode(der.as_bytes())}]})
        .to_string()
}

/// An API context that answers ad callbacks with the test key and catalogue.
pub fn ctx() -> ApiContext {
    let keys = KeySet::from_json(admob_keys_json().as_bytes()).expect("keys");
    ApiContext::new(cursor_key()).with_ads(Ads {
        admob_keys: Arc::new(StaticKeys(keys)),
        catalogue: Catalogue::from_json(CATALOGUE).expect("catalogue"),
        policy: Default::default(),
        unity_secret: Some(UNITY_SECRET.into()),
    })
}

/// An AdMob callback's raw query, signed now with the test key.
pub fn admob(unit: &str, txn: &str, user: &str, at: DateTime<Utc>) -> String {
    let raw = format!(
        "ad_network=5450213213286189855&ad_unit={unit}&custom_data=%7B%22a%22%3A%221%262%22%7D&reward_amount=999&reward_item=points&timestamp={}&transaction_id={txn}&user_id={user}",
        at.timestamp_millis()
    );
    let content = query::percent_decode(&raw).expect("decode");
    let sig: Signature = signing_key().sign(&content);
    format!(
        "{raw}&signature={}&key_id=7",
        URL_SAFE_NO_PAD.encode(sig.to_der().as_bytes())
    )
}

/// A signed ad callback's request to `path`, its query exactly `raw_query`.
pub fn callback(path: &str, raw_query: &str) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: Default::default(),
        raw_query: Some(raw_query.into()),
        player: None,
        operator: None,
    }
}

async fn send<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    raw: &str,
    now: DateTime<Utc>,
) -> ApiResponse {
    api::handle(store, ctx, &callback("/v1/ad-callbacks/admob", raw), now).await
}

async fn claim<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    player: &str,
    now: DateTime<Utc>,
) -> ApiResponse {
    api::handle(store, ctx, &bonus_claim(player), now).await
}

/// `player`'s claim of today's Mahjong Rivals bonus.
pub fn bonus_claim(player: &str) -> ApiRequest {
    ApiRequest {
        method: "POST".into(),
        path: "/v1/games/mahjong-rivals/daily-bonus".into(),
        query: Default::default(),
        raw_query: None,
        player: Some(player.into()),
        operator: None,
    }
}

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("instant").to_utc()
}

async fn balance<S: Store + ?Sized>(store: &S, game: Game, player: &str) -> i64 {
    store.get_balances(game, &[player]).await.expect("read")[0].points
}

/// GM-4: the balance equals the sum of its ledger, each source once.
async fn ledger_agrees<S: Store + ?Sized>(store: &S, game: Game, player: &str) -> usize {
    let entries = store.ledger_entries(game, player).await.expect("ledger");
    let sum: i64 = entries.iter().map(|e| e.applied).sum();
    assert_eq!(sum, balance(store, game, player).await, "GM-4 for {player}");
    let mut ids: Vec<_> = entries.iter().map(|e| (&e.source, &e.source_id)).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), entries.len(), "no ledger entry twice");
    entries.len()
}

/// SG-10 / GM-3: 50 concurrent callbacks with distinct transaction ids for one player
/// and day → one grant; one callback delivered 10 times → one grant, ten 200s; the
/// same callback again the next day → nothing more.
pub async fn ad_reward_once_a_day_exactly_once<S: Store + Clone + 'static>(store: S) {
    let store = Arc::new(store);
    let ctx = Arc::new(ctx());
    seed_balance(store.as_ref(), "p-ad", 10, 1_000).await;
    let now = t("2027-05-10T12:00:00Z");
    let sends = (0..50).map(|i| {
        let (store, ctx) = (Arc::clone(&store), Arc::clone(&ctx));
        let raw = admob("1111", &format!("txn-{i:03}"), "p-ad", now - Duration::minutes(1));
        tokio::spawn(async move { send(store.as_ref(), &ctx, &raw, now).await })
    });
    let answers: Vec<ApiResponse> = join_all(sends)
        .await
        .into_iter()
        .map(|r| r.expect("task"))
        .collect();
    assert!(
        answers.iter().all(|a| a.status == 200),
        "{:?}",
        answers.iter().find(|a| a.status != 200)
    );
    let granted = answers.iter().filter(|a| a.body["status"] == "granted").count();
    assert_eq!(granted, 1);
    assert_eq!(
        answers
            .iter()
            .filter(|a| a.body["status"] == "already_granted_today")
            .count(),
        49
    );
    assert_eq!(balance(store.as_ref(), Game::Seega, "p-ad").await, 50);
    // One callback delivered 10 times at once, on the next day.
    let next = now + Duration::days(1);
    let raw = admob("1111", "txn-tomorrow", "p-ad", next);
    let sends = (0..10).map(|_| {
        let (store, ctx, raw) = (Arc::clone(&store), Arc::clone(&ctx), raw.clone());
        tokio::spawn(async move { send(store.as_ref(), &ctx, &raw, next).await })
    });
    let answers: Vec<ApiResponse> = join_all(sends)
        .await
        .into_iter()
        .map(|r| r.expect("task"))
        .collect();
    assert!(answers
        .iter()
        .all(|a| a.status == 200 && a.body["status"] == "granted"));
    assert_eq!(answers.iter().filter(|a| a.body["duplicate"] == false).count(), 1);
    assert!(
        answers.iter().all(|a| a.body["balance_after"] == 90),
        "everyone sees the first result"
    );
    // The same callback replayed a day later: its first result, nothing paid.
    let again = send(store.as_ref(), &ctx, &raw, next + Duration::days(1)).await;
    assert_eq!(
        (again.status, again.body["duplicate"].clone()),
        (200, Value::Bool(true))
    );
    assert_eq!(balance(store.as_ref(), Game::Seega, "p-ad").await, 90);
    assert_eq!(ledger_agrees(store.as_ref(), Game::Seega, "p-ad").await, 3);
    // A fresh callback that is older than a day is refused, naming the timestamp.
    let stale = send(
        store.as_ref(),
        &ctx,
        &admob("1111", "txn-stale", "p-ad", next - Duration::hours(25)),
        next,
    )
    .await;
    assert_eq!(stale.status, 400, "{}", stale.body);
    assert!(stale.body["message"]
        .as_str()
        .unwrap_or_default()
        .starts_with("timestamp (SG-10)"));
}

/// SG-10: tampered parameters, an unknown key, bad and missing signatures, a parameter
/// after `key_id`, a foreign ad unit → 403 and nothing written; a player podium does
/// not know → 400 naming `user_id`.
pub async fn forged_ad_callbacks_write_nothing<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    seed_balance(&store, "p-f", 10, 1_000).await;
    let now = t("2027-05-10T12:00:00Z");
    let good = admob("1111", "txn-f", "p-f", now);
    let foreign = admob("9999", "txn-f2", "p-f", now);
    let cases = vec![
        good.replace("txn-f", "txn-g"),
        good.replace("user_id=p-f", "user_id=p-g"),
        good.replace("reward_amount=999", "reward_amount=1000"),
        good.replace("&key_id=7", "&key_id=8"),
        good.replace("&key_id=7", "&key_id=7&extra=1"),
        good.split("&signature=").next().unwrap_or_default().to_string(),
        format!(
            "{}&signature=AAAA&key_id=7",
            good.split("&signature=").next().unwrap_or_default()
        ),
        format!(
            "{}&signature=&key_id=7",
            good.split("&signature=").next().unwrap_or_default()
        ),
        foreign,
        String::new(),
        "%%%".into(),
        "a".repeat(10_000),
    ];
    for raw in &cases {
        let a = send(&store, &ctx, raw, now).await;
        assert!(matches!(a.status, 400 | 403), "{raw}: {} {}", a.status, a.body);
    }
    for raw in &cases[..9] {
        assert_eq!(send(&store, &ctx, raw, now).await.status, 403, "{raw}");
    }
    assert_eq!(balance(&store, Game::Seega, "p-f").await, 10);
    assert_eq!(
        ledger_agrees(&store, Game::Seega, "p-f").await,
        1,
        "the seed alone"
    );
    let unknown = send(&store, &ctx, &admob("1111", "txn-u", "nobody", now), now).await;
    assert_eq!(unknown.status, 400);
    assert!(unknown.body["message"]
        .as_str()
        .unwrap_or_default()
        .starts_with("user_id (SG-10)"));
    assert!(store.get_balances(Game::Seega, &["nobody"]).await.expect("read")[0].version == 0);
    // The unsigned route without a catalogue answers nothing.
    let bare = ApiContext::new(cursor_key());
    assert_eq!(send(&store, &bare, &good, now).await.status, 404);
    // The good one, at last: granted.
    assert_eq!(send(&store, &ctx, &good, now).await.body["status"], "granted");
    // A Unity Ads callback: HMAC-MD5, answered `1`.
    let unity_raw = "productid=3333&sid=p-f&oid=u-1";
    let signed_text = unity::signed_text(&query::params(unity_raw).expect("params"));
    let tag = unity::sign(UNITY_SECRET, &signed_text);
    let u = api::handle(
        &store,
        &ctx,
        &callback("/v1/ad-callbacks/unity-ads", &format!("{unity_raw}&hmac={tag}")),
        now,
    )
    .await;
    assert_eq!((u.status, u.text.as_deref()), (200, Some("1")));
    let forged = api::handle(
        &store,
        &ctx,
        &callback(
            "/v1/ad-callbacks/unity-ads",
            &format!("{}&hmac={tag}", unity_raw.replace("p-f", "p-x")),
        ),
        now,
    )
    .await;
    assert_eq!(forged.status, 403);
    assert_eq!(
        balance(&store, Game::Seega, "p-f").await,
        50,
        "one grant that day"
    );
}

/// GM-3 (SG-10's lost reply): the first attempt commits (10 → 50) but its reply is
/// lost; the answer is the first result (granted, 50), not an error and not 90.
pub async fn a_lost_reply_gets_the_first_result<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    let flaky = crate::faults::Faulty::new(store).losing_replies(1);
    seed_balance(&flaky.inner, "p-l", 10, 1_000).await;
    let now = t("2027-05-10T12:00:00Z");
    let raw = admob("1111", "txn-lost", "p-l", now);
    let a = send(&flaky, &ctx, &raw, now).await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        (a.body["status"].clone(), a.body["balance_after"].clone()),
        ("granted".into(), 50.into())
    );
    assert_eq!(a.body["duplicate"], false);
    let again = send(&flaky, &ctx, &raw, now).await;
    assert_eq!(
        (
            again.body["balance_after"].clone(),
            again.body["duplicate"].clone()
        ),
        (50.into(), true.into())
    );
    assert_eq!(balance(&flaky.inner, Game::Seega, "p-l").await, 50);
    // The resend cancelled with reasons [ConditionalCheckFailed on the claim, None, …]
    // (as outside DynamoDB's idempotency window): still the first result.
    for reasons in [
        &["None", "ConditionalCheckFailed", "None", "None"][..],
        &[
            "ConditionalCheckFailed",
            "ConditionalCheckFailed",
            "ConditionalCheckFailed",
            "None",
        ][..],
    ] {
        let store = crate::faults::Faulty::new(crate::fixtures::embedded().await)
            .losing_replies(1)
            .cancelling_the_resend(reasons);
        seed_balance(&store.inner, "p-l", 10, 1_000).await;
        let a = send(&store, &ctx, &raw, now).await;
        assert_eq!(a.status, 200, "{reasons:?}: {}", a.body);
        assert_eq!(
            (a.body["status"].clone(), a.body["balance_after"].clone()),
            ("granted".into(), 50.into())
        );
        assert_eq!(balance(&store.inner, Game::Seega, "p-l").await, 50, "{reasons:?}");
    }
}

/// MJ-18 through the API: days 1 … 12 in a row (10, 20, … 100, 100, 100; one Joker on
/// day 10), a second claim the same day answers the first, a missed day restarts at
/// 10; the points land on the AMR, weekly and daily boards of the claim's local date.
pub async fn daily_bonus_streak<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    let mut points = Vec::new();
    for d in 1..=12 {
        // 23:30 UTC: already the next day in Bucharest.
        let now = t(&format!("2026-12-{d:02}T23:30:00Z"));
        let a = claim(&store, &ctx, "p-b", now).await;
        assert_eq!(a.status, 200, "{}", a.body);
        assert_eq!(a.body["claimed_now"], true);
        assert_eq!(a.body["day"], format!("2026-12-{:02}", d + 1));
        points.push(a.body["points"].as_i64().unwrap_or_default());
        if d == 10 {
            assert_eq!(
                (a.body["jokers_granted"].clone(), a.body["jokers"].clone()),
                (1.into(), 1.into())
            );
        }
        let twice = claim(&store, &ctx, "p-b", now + Duration::minutes(5)).await;
        assert_eq!(twice.body["claimed_now"], false);
        assert_eq!(twice.body["points"], a.body["points"]);
    }
    assert_eq!(points, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 100, 100]);
    assert_eq!(balance(&store, Game::MahjongRivals, "p-b").await, 750);
    let missed = claim(&store, &ctx, "p-b", t("2026-12-15T10:00:00Z")).await;
    assert_eq!(
        (missed.body["streak"].clone(), missed.body["points"].clone()),
        (1.into(), 10.into())
    );
    assert_eq!(ledger_agrees(&store, Game::MahjongRivals, "p-b").await, 13);
    // MJ-20/MJ-21: the day's board and the week's.
    let day = store
        .period_entry(&BoardRef::new("mahjong-daily", "2026-12-11"), "p-b")
        .await
        .expect("read")
        .expect("entry");
    assert_eq!(day.points, 100);
    let week = store
        .period_entry(&BoardRef::new("mahjong-weekly", "2026-W50"), "p-b")
        .await
        .expect("read")
        .expect("entry");
    assert_eq!(
        week.points,
        60 + 70 + 80 + 90 + 100 + 100 + 100,
        "7 … 13 December"
    );
    // Concurrent claims of one day: one claim.
    let store = Arc::new(store);
    let ctx = Arc::new(ctx);
    let now = t("2026-12-20T09:00:00Z");
    let claims = (0..20).map(|_| {
        let (store, ctx) = (Arc::clone(&store), Arc::clone(&ctx));
        tokio::spawn(async move { claim(store.as_ref(), &ctx, "p-c", now).await })
    });
    let answers: Vec<ApiResponse> = join_all(claims)
        .await
        .into_iter()
        .map(|r| r.expect("task"))
        .collect();
    assert_eq!(
        answers.iter().filter(|a| a.body["claimed_now"] == true).count(),
        1
    );
    assert_eq!(balance(store.as_ref(), Game::MahjongRivals, "p-c").await, 10);
}

/// SG-10 / MJ-19 / GM-2: one callback signed 2027-05-10T22:30Z pays Seega for
/// 2027-05-10 (UTC); a doubling unit doubles the bonus claimed on 2027-05-11
/// (Bucharest, 01:30 local), and before that claim grants nothing and says why.
pub async fn reward_days_follow_each_games_zone<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    let at = t("2027-05-10T22:30:00Z");
    seed_balance(&store, "p-z", 0, 1_000).await;
    let seega = send(&store, &ctx, &admob("1111", "z-1", "p-z", at), at).await;
    assert_eq!(
        (seega.body["day"].clone(), seega.body["points"].clone()),
        ("2027-05-10".into(), 40.into())
    );
    seed_game_balance(&store, Game::MahjongRivals, "p-z", 5, 1_000).await;
    let early = send(&store, &ctx, &admob("2222", "z-2", "p-z", at), at).await;
    assert_eq!(early.status, 200, "{}", early.body);
    assert_eq!(
        (early.body["status"].clone(), early.body["day"].clone()),
        ("nothing_to_double".into(), "2027-05-11".into())
    );
    let bonus = claim(&store, &ctx, "p-z", at - Duration::minutes(30)).await;
    assert_eq!(bonus.body["day"], "2027-05-11");
    let doubled = send(&store, &ctx, &admob("2222", "z-3", "p-z", at), at).await;
    assert_eq!(
        (doubled.body["status"].clone(), doubled.body["points"].clone()),
        ("granted".into(), 10.into())
    );
    assert_eq!(balance(&store, Game::MahjongRivals, "p-z").await, 5 + 10 + 10);
    let twice = send(&store, &ctx, &admob("2222", "z-4", "p-z", at), at).await;
    assert_eq!(twice.body["status"], "already_granted_today");
    let day = store
        .period_entry(&BoardRef::new("mahjong-daily", "2027-05-11"), "p-z")
        .await
        .expect("read")
        .expect("entry");
    assert_eq!(day.points, 20, "the bonus and its doubling (MJ-21)");
    ledger_agrees(&store, Game::MahjongRivals, "p-z").await;
    // Days around the Bucharest DST changes and the year's end.
    for (at, day) in [
        ("2027-03-27T21:59:59Z", "2027-03-27"),
        ("2027-03-27T22:00:00Z", "2027-03-28"),
        ("2027-10-30T20:59:59Z", "2027-10-30"),
        ("2027-10-30T21:00:00Z", "2027-10-31"),
        ("2027-10-31T21:59:59Z", "2027-10-31"),
        ("2027-10-31T22:00:00Z", "2027-11-01"),
        ("2027-12-31T21:59:59Z", "2027-12-31"),
        ("2027-12-31T22:00:00Z", "2028-01-01"),
    ] {
        let a = claim(&store, &ctx, &format!("p-dst-{}", at.replace(':', "")), t(at)).await;
        assert_eq!(a.body["day"], day, "{at}");
    }
}

/// Declares one `#[tokio::test]` per rewards case for a store made by `$make`.
/// Found by attack (GM-6): a callback that would grant nothing (a doubling with no
/// bonus to double) for a deleted player is refused naming GM-6 like any other: an
/// answer that writes nothing checks the players' tombstones too.
pub async fn gm6_a_callback_granting_nothing_refuses_a_deleted_player<
    S: Store + podium_store::ErasureStore + Clone + 'static,
>(
    store: S,
) {
    let ctx = ctx();
    let at = t("2027-05-10T22:30:00Z");
    seed_game_balance(&store, Game::MahjongRivals, "p-gone", 5, 1_000).await;
    podium_service::operators::deletion::delete_player(&store, "p-gone", at)
        .await
        .expect("deleted");
    let answer = send(&store, &ctx, &admob("2222", "gone-1", "p-gone", at), at).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(
        answer.body["message"].as_str().unwrap_or("").contains("(GM-6)"),
        "{}",
        answer.body
    );
}

#[macro_export]
macro_rules! rewards_tests {
    ($make:path) => {
        $crate::rewards_tests!(@cases $make;
            ad_reward_once_a_day_exactly_once,
            forged_ad_callbacks_write_nothing,
            a_lost_reply_gets_the_first_result,
            daily_bonus_streak,
            reward_days_follow_each_games_zone,
            gm6_a_callback_granting_nothing_refuses_a_deleted_player,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::rewards::$case($make().await).await;
            }
        )*
    };
}
