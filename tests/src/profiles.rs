//! Profiles and friends on both stores (PF-1 … PF-5, LB-2, GM-6): names checked and
//! shown on every entry the app reads, friend lists ranked among themselves in a
//! constant number of batch reads.

use bytes::Bytes;
use chrono::{DateTime, Duration, Utc};
use futures::StreamExt;
use podium_rules::board::{board_def, BoardRef};
use podium_rules::profile::ProfilePolicy;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_service::boards::{periods, snapshot};
use podium_service::operators::deletion::delete_player;
use podium_store::{ErasureStore, Store};
use serde_json::{json, Value};

use crate::contract::cursor_key;
use crate::counting::Counted;
use crate::fixtures::{now, seed_balance, tick};
use crate::review::get;

/// A context whose blocklist holds `badword`.
fn ctx() -> ApiContext {
    ApiContext::new(cursor_key()).with_profiles(ProfilePolicy::new(
        &["badword"],
        (1..=24).map(|i| format!("a{i:02}")).collect(),
        30,
    ))
}

fn put_req(path: &str, player: &str) -> ApiRequest {
    ApiRequest {
        method: "PUT".into(),
        path: path.into(),
        player: Some(player.into()),
        ..Default::default()
    }
}

/// `PUT path` with `body` as `player` at `now`.
pub async fn put<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    path: &str,
    player: &str,
    body: &Value,
    now: DateTime<Utc>,
) -> ApiResponse {
    api::handle_with_body(
        store,
        ctx,
        &put_req(path, player),
        &[("content-type", "application/json")],
        Bytes::from(body.to_string()),
        now,
    )
    .await
}

async fn read<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    path: &str,
    q: &[(&str, &str)],
    player: &str,
) -> ApiResponse {
    let answer = api::handle(store, ctx, &get(path, q, player), tick()).await;
    assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    answer
}

fn refused(answer: &ApiResponse, field: &str) {
    assert_eq!(answer.status, 400, "{}", answer.body);
    let message = answer.body["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!("{field} (PF-")),
        "names {field}: {message}"
    );
}

/// PF-1 … PF-3 at the API: a profile is set and read back normalised; a blocked
/// name, a 2-character name, a name of zero-width characters and a 25-character
/// name are refused naming `name` and change nothing; a second change of country
/// within the interval is refused naming `country`, and allowed after it.
pub async fn profiles_are_checked_and_kept<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    let now = tick();
    let set = put(
        &store,
        &ctx,
        "/v1/me/profile",
        "pf-1",
        &json!({"name": "  Ｉｏｎｅｌａ  ", "avatar": "a07", "country": "ro"}),
        now,
    )
    .await;
    assert_eq!(set.status, 200, "{}", set.body);
    let expected = json!({"player_id": "pf-1", "name": "Ionela", "avatar": "a07", "country": "RO"});
    assert_eq!(set.body, expected);
    assert_eq!(
        read(&store, &ctx, "/v1/me/profile", &[], "pf-1").await.body,
        expected
    );
    for bad in [
        "BadWord",
        "ab",
        "\u{200B}\u{200B}\u{200B}\u{200B}",
        "abcdefghijklmnopqrstuvwxy",
    ] {
        refused(
            &put(&store, &ctx, "/v1/me/profile", "pf-1", &json!({"name": bad}), now).await,
            "name",
        );
    }
    refused(
        &put(
            &store,
            &ctx,
            "/v1/me/profile",
            "pf-1",
            &json!({"avatar": "a99"}),
            now,
        )
        .await,
        "avatar",
    );
    refused(
        &put(
            &store,
            &ctx,
            "/v1/me/profile",
            "pf-1",
            &json!({"country": "XX"}),
            now,
        )
        .await,
        "country",
    );
    let shape = put(&store, &ctx, "/v1/me/profile", "pf-1", &json!({"nick": "x"}), now).await;
    assert_eq!(shape.status, 400, "{}", shape.body);
    let not_json = api::handle_with_body(
        &store,
        &ctx,
        &put_req("/v1/me/profile", "pf-1"),
        &[],
        Bytes::from_static(b"{name"),
        now,
    )
    .await;
    assert_eq!(not_json.status, 400, "{}", not_json.body);
    // One JSON document: trailing bytes are refused, not ignored.
    let trailing = api::handle_with_body(
        &store,
        &ctx,
        &put_req("/v1/me/profile", "pf-1"),
        &[],
        Bytes::from_static(br#"{"name": "Xyzzy"}{"name": "Other"} junk"#),
        now,
    )
    .await;
    assert_eq!(trailing.status, 400, "{}", trailing.body);
    assert_eq!(
        read(&store, &ctx, "/v1/me/profile", &[], "pf-1").await.body,
        expected,
        "nothing refused was written"
    );
    // PF-3: the first setting was free; one change, then none for 30 days.
    let fr = put(
        &store,
        &ctx,
        "/v1/me/profile",
        "pf-1",
        &json!({"country": "FR"}),
        now,
    )
    .await;
    assert_eq!(fr.status, 200, "{}", fr.body);
    assert!(fr.body["country_changeable_from"].is_string(), "{}", fr.body);
    refused(
        &put(
            &store,
            &ctx,
            "/v1/me/profile",
            "pf-1",
            &json!({"country": "DE"}),
            now + Duration::days(29),
        )
        .await,
        "country",
    );
    let later = put(
        &store,
        &ctx,
        "/v1/me/profile",
        "pf-1",
        &json!({"country": "DE", "avatar": null}),
        now + Duration::days(31),
    )
    .await;
    assert_eq!(later.status, 200, "{}", later.body);
    assert_eq!(later.body["avatar"], Value::Null, "removed: {}", later.body);
    assert_eq!(
        (later.body["name"].as_str(), later.body["country"].as_str()),
        (Some("Ionela"), Some("DE"))
    );
    // 30 concurrent renames of one player: every one answered 200 (conditional
    // writes retried), the last written kept.
    let names: Vec<Value> = (0..30)
        .map(|i| json!({"name": format!("Racer {i:02}")}))
        .collect();
    // Each on a task of its own (in parallel on the runtime's threads, as a server's
    // connections are).
    let answers: Vec<ApiResponse> = futures::future::join_all(names.iter().cloned().map(|n| {
        let (store, ctx) = (store.clone(), ctx.clone());
        tokio::spawn(async move { put(&store, &ctx, "/v1/me/profile", "pf-3", &n, now).await })
    }))
    .await
    .into_iter()
    .map(|joined| joined.expect("the task ran"))
    .collect();
    assert!(
        answers.iter().all(|a| a.status == 200),
        "{:?}",
        answers.iter().map(|a| a.status).collect::<Vec<_>>()
    );
    let kept = read(&store, &ctx, "/v1/me/profile", &[], "pf-3").await;
    assert!(
        kept.body["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("Racer ")),
        "{}",
        kept.body
    );
    // Concurrent changes of different fields: both kept (conditional writes).
    let (first, avatar) = (json!({"name": "First"}), json!({"avatar": "a03"}));
    let (a, b) = tokio::join!(
        put(&store, &ctx, "/v1/me/profile", "pf-2", &first, now),
        put(&store, &ctx, "/v1/me/profile", "pf-2", &avatar, now),
    );
    assert_eq!((a.status, b.status), (200, 200));
    assert_eq!(
        read(&store, &ctx, "/v1/me/profile", &[], "pf-2").await.body,
        json!({"player_id": "pf-2", "name": "First", "avatar": "a03"})
    );
}

fn names(body: &Value) -> Vec<(String, Option<String>)> {
    body["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or_default().to_string(),
                e["name"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn name_of(body: &Value, player: &str) -> Option<String> {
    names(body)
        .into_iter()
        .find(|(p, _)| p == player)
        .and_then(|(_, n)| n)
}

/// PF-5: a rename is shown on the top page, around-me, a league cohort and a friends
/// view after the next refresh (the top page keeps the old name until then), and a
/// deleted player's profile is erased with everything else (GM-6).
pub async fn a_rename_shows_everywhere_after_the_next_refresh<S: Store + ErasureStore + Clone + 'static>(
    store: S,
) {
    let ctx = ctx();
    let now = tick();
    for (i, p) in ["nm-1", "nm-2", "nm-3"].iter().enumerate() {
        seed_balance(&store, p, 100 - i as i64, 1_000).await;
        let r = put(
            &store,
            &ctx,
            "/v1/me/profile",
            p,
            &json!({"name": format!("Old {p}"), "country": "RO"}),
            now,
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let board = BoardRef::all_time("seega");
    snapshot::write::run(&store, &board, "r1", now, 10, None, now)
        .await
        .expect("snapshot");
    ctx.cache.forget();
    let top = read(&store, &ctx, "/v1/leaderboards/seega", &[], "nm-1").await;
    assert_eq!(
        name_of(&top.body, "nm-2").as_deref(),
        Some("Old nm-2"),
        "{}",
        top.body
    );
    assert_eq!(top.body["entries"][0]["country"], "RO");
    // The league: nm-2 scores this week and is placed in a cohort.
    let weekly = board_def("mahjong-weekly").expect("registered");
    periods::credit(&store, weekly, "nm-2", 5, now, now, "pf-week")
        .await
        .expect("credit");
    let put_friends = put(
        &store,
        &ctx,
        "/v1/me/friends",
        "nm-1",
        &json!({"friends": ["nm-2"]}),
        now,
    )
    .await;
    assert_eq!(put_friends.status, 200, "{}", put_friends.body);

    let renamed = put(
        &store,
        &ctx,
        "/v1/me/profile",
        "nm-2",
        &json!({"name": "New name"}),
        now,
    )
    .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    let before = read(&store, &ctx, "/v1/leaderboards/seega", &[], "nm-1").await;
    assert_eq!(
        name_of(&before.body, "nm-2").as_deref(),
        Some("Old nm-2"),
        "the snapshot's names until the refresh"
    );
    snapshot::write::run(&store, &board, "r2", now + Duration::minutes(5), 10, None, now)
        .await
        .expect("refresh");
    ctx.cache.forget();
    let top = read(&store, &ctx, "/v1/leaderboards/seega", &[], "nm-1").await;
    assert_eq!(
        name_of(&top.body, "nm-2").as_deref(),
        Some("New name"),
        "{}",
        top.body
    );
    let around = read(
        &store,
        &ctx,
        "/v1/leaderboards/seega/me",
        &[("neighbours", "2")],
        "nm-1",
    )
    .await;
    assert_eq!(
        name_of(&around.body, "nm-2").as_deref(),
        Some("New name"),
        "{}",
        around.body
    );
    assert_eq!(around.body["me"]["name"], "Old nm-1");
    // PF-5: a refresh with no profile changed since the last reads no card; the
    // cards come from the previous snapshot's pages (server clocks half an hour on,
    // past the changes above).
    let counted = Counted::new(store.clone());
    // (Within one UTC hour of the clock: one hour's changes read each time.)
    let (t1, t2, t3) = (
        now + Duration::minutes(20),
        now + Duration::minutes(35),
        now + Duration::minutes(50),
    );
    snapshot::write::run(&counted, &board, "r2a", t1, 10, None, t1)
        .await
        .expect("refresh");
    let before = counted.counts().0;
    snapshot::write::run(&counted, &board, "r2b", t2, 10, None, t2)
        .await
        .expect("refresh");
    let quiet = counted.counts().0 - before;
    let before = counted.counts().0;
    put(
        &store,
        &ctx,
        "/v1/me/profile",
        "nm-3",
        &json!({"avatar": "a05"}),
        t2 + Duration::minutes(1),
    )
    .await;
    snapshot::write::run(&counted, &board, "r2c", t3, 10, None, t3)
        .await
        .expect("refresh");
    let one_change = counted.counts().0 - before;
    assert_eq!(
        one_change,
        quiet + 1,
        "one card read for the one player who changed"
    );
    let mine = read(&store, &ctx, "/v1/leaderboards/seega/me", &[], "nm-2").await;
    assert_eq!(mine.body["me"]["name"], "New name", "{}", mine.body);
    // A player newer than the snapshot who asks among their country sees their name.
    seed_balance(&store, "nm-4", 50, 2_000).await;
    put(
        &store,
        &ctx,
        "/v1/me/profile",
        "nm-4",
        &json!({"name": "Newcomer", "country": "RO"}),
        now,
    )
    .await;
    let newcomer = read(
        &store,
        &ctx,
        "/v1/leaderboards/seega/me",
        &[("country", "RO")],
        "nm-4",
    )
    .await;
    assert_eq!(newcomer.body["me"]["name"], "Newcomer", "{}", newcomer.body);
    let league = api::handle(
        &store,
        &ctx,
        &get("/v1/leagues/mahjong-league/me", &[], "nm-2"),
        now,
    )
    .await;
    assert_eq!(league.status, 200, "{}", league.body);
    assert_eq!(
        name_of(&league.body["cohort"], "nm-2").as_deref(),
        Some("New name"),
        "{}",
        league.body
    );
    let friends = read(&store, &ctx, "/v1/leaderboards/seega/friends", &[], "nm-1").await;
    assert_eq!(
        name_of(&friends.body, "nm-2").as_deref(),
        Some("New name"),
        "{}",
        friends.body
    );

    // GM-6: the profile and the friend list go with the player.
    delete_player(&store, "nm-1", now).await.expect("deleted");
    for key in podium_service::profiles::keys_of("nm-1") {
        assert!(
            store.get_item(&key, true).await.expect("read").is_none(),
            "{key:?} erased"
        );
    }
}

/// PF-4, LB-2: a caller with 150 friends, 20 of them without an entry and 3 deleted,
/// sees themselves and the 127 others ranked among themselves with shared ranks,
/// each with their global rank from the snapshot; the view costs at most 7 requests
/// (1 friend list, 2 entry batches, 2 profile batches, ≤ 2 page batches); nobody
/// reads another player's list.
pub async fn friends_are_ranked_among_themselves<S: Store + ErasureStore + Clone + 'static>(store: S) {
    let ctx = ctx();
    let now = tick();
    let friends: Vec<String> = (0..150).map(|i| format!("fr-{i:03}")).collect();
    let mut everyone: Vec<(String, i64)> = Vec::new();
    for (i, f) in friends.iter().enumerate() {
        if i % 7 == 3 && everyone.len() < 200 && i < 140 {
            continue; // 20 friends without an entry
        }
        let value = 100 + (i as i64 % 10) * 5; // ties
        seed_balance(&store, f, value, 1_000 + i as i64).await;
        everyone.push((f.clone(), value));
    }
    for i in 0..40 {
        let p = format!("st-{i:02}");
        let value = 90 + i * 3;
        seed_balance(&store, &p, value, 2_000).await;
        everyone.push((p, value));
    }
    seed_balance(&store, "fr-me", 121, 500).await;
    everyone.push(("fr-me".into(), 121));
    let no_entry = friends
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 7 == 3 && *i < 140)
        .count();
    assert_eq!(no_entry, 20);
    let set = put(
        &store,
        &ctx,
        "/v1/me/friends",
        "fr-me",
        &json!({"friends": friends}),
        now,
    )
    .await;
    assert_eq!(set.status, 200, "{}", set.body);
    let board = BoardRef::all_time("seega");
    snapshot::write::run(&store, &board, "fr", now, 10, None, now)
        .await
        .expect("snapshot");
    let deleted = ["fr-000", "fr-001", "fr-002"];
    for d in deleted {
        delete_player(&store, d, now).await.expect("deleted");
    }
    let deleted_values: Vec<i64> = everyone
        .iter()
        .filter(|(p, _)| deleted.contains(&p.as_str()))
        .map(|(_, v)| *v)
        .collect();
    everyone.retain(|(p, _)| !deleted.contains(&p.as_str()));
    let counted = Counted::new(store.clone());
    let ctx = self::ctx();
    // The pointer is cached per process, as pages are.
    let _ = api::handle(
        &counted,
        &ctx,
        &get("/v1/leaderboards/seega", &[("limit", "1")], "fr-me"),
        now,
    )
    .await;
    let (r0, _) = counted.counts();
    let view = api::handle(
        &counted,
        &ctx,
        &get("/v1/leaderboards/seega/friends", &[], "fr-me"),
        now,
    )
    .await;
    let (r1, _) = counted.counts();
    assert_eq!(view.status, 200, "{}", view.body);
    // The caller's deletion check is one read of the request, not the view's; the
    // friends' guards (OP-4) are 2 BatchGetItems for 151 players.
    assert!(r1 - r0 <= 9, "{} requests", r1 - r0);
    let lines = view.body["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(lines.len(), 150 - 20 - 3 + 1, "the others and the caller");
    let in_view: Vec<(String, i64)> = everyone
        .iter()
        .filter(|(p, _)| p.starts_with("fr-"))
        .cloned()
        .collect();
    for line in &lines {
        let v = line["value"].as_i64().unwrap_or_default();
        let rank = 1 + in_view.iter().filter(|(_, w)| *w > v).count() as u64;
        assert_eq!(line["rank"], rank, "LB-2 among friends: {line}");
        let global = 1 + everyone.iter().filter(|(_, w)| *w > v).count() as u64;
        // Deleted players still count in the snapshot's ranks until the next refresh.
        let global_at_snapshot = global + deleted_values.iter().filter(|&&w| w > v).count() as u64;
        let got = line["global_rank"].as_u64().unwrap_or_default();
        assert!(
            got == global || got == global_at_snapshot,
            "global rank {got} vs {global}: {line}"
        );
    }
    assert_eq!(view.body["me"]["player_id"], "fr-me");
    assert!(lines
        .iter()
        .all(|l| !deleted.contains(&l["player_id"].as_str().unwrap_or_default())));
    // Nobody reads another player's list: the route answers the caller's own.
    let other = read(&store, &ctx, "/v1/me/friends", &[], "fr-010").await;
    assert_eq!(other.body, json!({"player_id": "fr-010", "friends": []}));
    // Too many, or a bad id: refused, naming the field, nothing written.
    let many: Vec<String> = (0..201).map(|i| format!("x-{i}")).collect();
    let r = put(
        &store,
        &ctx,
        "/v1/me/friends",
        "fr-me",
        &json!({"friends": many}),
        now,
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    let r = put(
        &store,
        &ctx,
        "/v1/me/friends",
        "fr-me",
        &json!({"friends": ["ok", "bad#id"]}),
        now,
    )
    .await;
    assert!(
        r.body["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("friends[1]"),
        "{}",
        r.body
    );
    for (body, field) in [
        (json!(["a"]), "body: this route reads a JSON object"),
        (json!({"friends": "a"}), "friends (PF-4)"),
        (json!({"friends": ["a"], "more": 1}), "body (PF-4)"),
    ] {
        let r = put(&store, &ctx, "/v1/me/friends", "fr-me", &body, now).await;
        assert!(
            r.body["message"].as_str().unwrap_or_default().starts_with(field),
            "{body}: {}",
            r.body
        );
    }
    let kept = read(&store, &ctx, "/v1/me/friends", &[], "fr-me").await;
    assert_eq!(kept.body["friends"].as_array().map(Vec::len), Some(150));
    // A caller with no entry is listed last, `no_entry`, whatever the board.
    let level = read(
        &store,
        &ctx,
        "/v1/leaderboards/mahjong-level-1/friends",
        &[],
        "fr-me",
    )
    .await;
    assert_eq!(level.body["me"]["no_entry"], true, "{}", level.body);
    assert_eq!(level.body["me"]["value_shown"], "–");
}

/// The whole board `everyone` (player, value, reached at) of `country`, ranked by
/// LB-2 (listing order, shared ranks).
fn ranked_by_hand(everyone: &[(String, i64, i64, &str)], country: &str) -> Vec<(String, u64)> {
    let mut mine: Vec<&(String, i64, i64, &str)> = everyone.iter().filter(|e| e.3 == country).collect();
    mine.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
    let mut out = Vec::new();
    let mut prev: Option<(i64, u64)> = None;
    for (i, e) in mine.iter().enumerate() {
        let rank = match prev {
            Some((v, r)) if v == e.1 => r,
            _ => i as u64 + 1,
        };
        prev = Some((e.1, rank));
        out.push((e.0.clone(), rank));
    }
    out
}

/// Every entry of `path`'s pages with the query `q`, walked by cursor (37 a page).
async fn walk_entries<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    path: &str,
    q: &[(&str, &str)],
) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut query: Vec<(&str, &str)> = q.to_vec();
        query.push(("limit", "37"));
        if let Some(c) = cursor.as_deref() {
            query.push(("cursor", c));
        }
        let page = read(store, ctx, path, &query, "walker").await;
        out.extend(page.body["entries"].as_array().into_iter().flatten().cloned());
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return out,
        }
    }
}

/// Every (player, rank) of the `seega` board's pages with the query `q`.
async fn walk<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    q: &[(&str, &str)],
) -> Vec<(String, u64)> {
    walk_entries(store, ctx, "/v1/leaderboards/seega", q)
        .await
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or_default().to_string(),
                e["rank"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

/// PF-3, LB-2, LB-4: 1,000 players over 5 countries, snapshotted in calls of 30
/// pages (the run saved and resumed 4 times): each country board, walked by cursor,
/// is the global board filtered and re-ranked; around-me at a country's top and
/// bottom; a caller of another country is refused; a frozen week has country pages.
pub async fn country_boards_are_the_board_filtered_and_re_ranked<
    S: Store + ErasureStore + Clone + 'static,
>(
    store: S,
) {
    let ctx = ctx();
    let now = tick();
    let policy = ProfilePolicy::default();
    let countries = ["RO", "FR", "DE", "EG", "BR"];
    let mut everyone: Vec<(String, i64, i64, &str)> = Vec::new();
    let work: Vec<(String, i64, i64, &str)> = (0..1_000)
        .map(|i| {
            let p = format!("c{i:04}");
            // Skewed countries, many ties.
            let cc = countries[(i * i + i / 7) % 5];
            (p, 50 + (i as i64 * 37) % 61, 1_000 + (i as i64 % 13), cc)
        })
        .collect();
    let store_ref = &store;
    let policy_ref = &policy;
    futures::stream::iter(work.iter().cloned())
        .map(|(p, v, t, cc)| async move {
            seed_balance(store_ref, &p, v, t).await;
            let change = podium_rules::profile::ProfileChange {
                country: podium_rules::profile::Change::Set(cc.into()),
                ..Default::default()
            };
            podium_service::profiles::edit::put(store_ref, policy_ref, &p, &change, now)
                .await
                .expect("profile");
        })
        .buffer_unordered(16)
        .collect::<Vec<()>>()
        .await;
    everyone.extend(work);
    let board = BoardRef::all_time("seega");
    let paging = snapshot::layout::Paging::content_defined(8);
    let first = snapshot::write::run_paged(&store, &board, "cc", now, paging, Some(30), now)
        .await
        .expect("snapshot");
    assert!(!first.complete);
    // A call that dies after writing a country's chunk but before saving its progress:
    // its lease is left behind and the chunk is not counted (the next call deletes it).
    let key = snapshot::layout::run_key(&board, "cc");
    let item = store
        .get_item(&key, true)
        .await
        .expect("read")
        .expect("run state");
    let mut state: snapshot::layout::RunState = serde_json::from_slice(&item.body).expect("state");
    state.lease = Some(snapshot::layout::Lease {
        owner: "dead".into(),
        until_ms: 0,
        ends_ms: None,
    });
    assert!(store
        .put_item_if(&key, &serde_json::to_vec(&state).expect("json"), item.version)
        .await
        .expect("write"));
    let ro = snapshot::country::country_board(&board, "RO");
    let orphan = podium_store::ItemKey::new(
        snapshot::layout::dir_pk(&ro, "cc"),
        snapshot::layout::chunk_sk("9999999999999999999#zz"),
    );
    store
        .put_items(
            &[(orphan.clone(), snapshot::codec::encode_chunk(9_999, &[]))],
            None,
        )
        .await
        .expect("orphan chunk");
    let mut calls = 1;
    loop {
        calls += 1;
        let report = snapshot::write::run_paged(&store, &board, "cc", now, paging, Some(30), now)
            .await
            .expect("snapshot");
        if report.complete {
            break;
        }
    }
    assert!(
        store.get_item(&orphan, true).await.expect("read").is_none(),
        "the dead call's chunk deleted"
    );
    assert!(calls >= 4, "the run was resumed: {calls} calls");
    for cc in countries {
        let expected = ranked_by_hand(&everyone, cc);
        assert!(expected.len() > 100, "{cc}: {}", expected.len());
        let got = walk(&store, &ctx, &[("country", cc)]).await;
        assert_eq!(got, expected, "{cc}: the board filtered and re-ranked");
        // Around-me at the country's edges.
        for (player, rank) in [expected.first(), expected.last()].into_iter().flatten() {
            let me = read(
                &store,
                &ctx,
                "/v1/leaderboards/seega/me",
                &[("country", cc), ("neighbours", "2")],
                player,
            )
            .await;
            assert_eq!(me.body["me"]["rank"], *rank, "{cc} {player}: {}", me.body);
            assert_eq!(me.body["me"]["country"], cc);
            assert_eq!(
                me.body["entries"].as_array().map(Vec::len),
                Some(3),
                "{}",
                me.body
            );
            assert_eq!(me.body["standing"]["of"], expected.len(), "{}", me.body);
        }
    }
    let stranger = api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/seega/me", &[("country", "RO")], "c0001"),
        now,
    )
    .await;
    let c0001 = everyone.iter().find(|e| e.0 == "c0001").map(|e| e.3);
    assert_eq!(
        stranger.status,
        if c0001 == Some("RO") { 200 } else { 404 },
        "{}",
        stranger.body
    );
    let bad = api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/seega", &[("country", "XX")], "c0001"),
        now,
    )
    .await;
    assert!(
        bad.body["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("country (PF-3)"),
        "{}",
        bad.body
    );
    let nobody = read(
        &store,
        &ctx,
        "/v1/leaderboards/seega",
        &[("country", "JP")],
        "c0001",
    )
    .await;
    assert_eq!(nobody.body["entries"], json!([]), "no player of JP");

    // A frozen week: its final snapshot has country pages too.
    let weekly = board_def("mahjong-weekly").expect("registered");
    let week_start = DateTime::parse_from_rfc3339("2026-11-24T10:00:00Z")
        .expect("instant")
        .to_utc();
    for (i, (p, _, _, _)) in everyone.iter().take(60).enumerate() {
        periods::credit(
            &store,
            weekly,
            p,
            1 + (i as i64 % 9),
            week_start,
            week_start,
            &format!("wk-{p}"),
        )
        .await
        .expect("credit");
    }
    let period = weekly.period_at(week_start);
    periods::freeze(&store, weekly, &period, now, Default::default())
        .await
        .expect("frozen");
    let page = read(
        &store,
        &ctx,
        "/v1/leaderboards/mahjong-weekly",
        &[
            ("period", period.id.as_str()),
            ("country", "RO"),
            ("limit", "100"),
        ],
        "c0001",
    )
    .await;
    assert_eq!(page.body["snapshot"], "final", "{}", page.body);
    let ro: Vec<&str> = everyone
        .iter()
        .take(60)
        .filter(|e| e.3 == "RO")
        .map(|e| e.0.as_str())
        .collect();
    let listed: Vec<&str> = page.body["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["player_id"].as_str())
        .collect();
    let mut expected: Vec<&str> = ro.clone();
    expected.sort_unstable();
    let mut got = listed.clone();
    got.sort_unstable();
    assert_eq!(got, expected, "the frozen week's RO players: {}", page.body);
    assert_eq!(page.body["entries"][0]["rank"], 1);
}

/// PF-5: on a weekly board, a player who was 9th in last week's final and is 3rd now
/// sees +6 since the final, on their standing and on the page; after the next
/// refresh, where they climbed to 2nd, +1 since the previous snapshot. Around-me reads
/// one movement item more than before.
pub async fn movement_since_the_final_and_the_previous_snapshot<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    let weekly = board_def("mahjong-weekly").expect("registered");
    let t = |s: &str| DateTime::parse_from_rfc3339(s).expect("instant").to_utc();
    let (last_week, this_week) = (t("2026-11-24T10:00:00Z"), t("2026-12-01T10:00:00Z"));
    // Last week: mv-08 is 9th of 12.
    for i in 0..12i64 {
        let p = format!("mv-{i:02}");
        periods::credit(
            &store,
            weekly,
            &p,
            100 - i * 5,
            last_week,
            last_week,
            &format!("lw-{p}"),
        )
        .await
        .expect("credit");
    }
    // 120 more players below them, in another order each week: pages enough for
    // several movement blocks.
    let filler = |i: i64, week: i64| 1 + (i * week) % 50;
    for i in 0..120i64 {
        let p = format!("mf-{i:03}");
        periods::credit(
            &store,
            weekly,
            &p,
            filler(i, 7),
            last_week,
            last_week,
            &format!("lw-{p}"),
        )
        .await
        .expect("credit");
        periods::credit(
            &store,
            weekly,
            &p,
            filler(i, 11),
            this_week,
            this_week,
            &format!("tw-{p}"),
        )
        .await
        .expect("credit");
    }
    let final_period = weekly.period_at(last_week);
    periods::freeze(&store, weekly, &final_period, this_week, Default::default())
        .await
        .expect("frozen");
    // This week: mv-08 is 3rd; others as before.
    for i in 0..12i64 {
        let p = format!("mv-{i:02}");
        let points = if i == 8 { 91 } else { 100 - i * 5 };
        periods::credit(
            &store,
            weekly,
            &p,
            points,
            this_week,
            this_week,
            &format!("tw-{p}"),
        )
        .await
        .expect("credit");
    }
    let period = weekly.period_at(this_week);
    let board = weekly.in_period(&period);
    let at = this_week + Duration::minutes(1);
    snapshot::write::run_paged(
        &store,
        &board,
        "w1",
        at,
        snapshot::layout::Paging::content_defined(4),
        None,
        at,
    )
    .await
    .expect("snapshot");
    ctx.cache.forget();
    let counted = Counted::new(store.clone());
    let me = api::handle(
        &counted,
        &ctx,
        &get(
            "/v1/leaderboards/mahjong-weekly/me",
            &[("neighbours", "1")],
            "mv-08",
        ),
        at,
    )
    .await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["me"]["rank"], 3, "{}", me.body);
    assert_eq!(
        me.body["movement"],
        json!({"previous_final": {"of": final_period.id, "rank": 9, "rank_change": 6}}),
        "{}",
        me.body
    );
    assert_eq!(me.body["me"]["movement"], json!({"since_final": 6}));
    // The caller's tombstone, the pointer, the live entry, and the one movement item.
    assert_eq!(counted.counts().0, 4, "one read for movement");
    // Every entry of every page: its final rank (LB-2 over last week) − its rank now.
    let last: Vec<(String, i64)> = (0..12i64)
        .map(|i| (format!("mv-{i:02}"), 100 - i * 5))
        .chain((0..120i64).map(|i| (format!("mf-{i:03}"), filler(i, 7))))
        .collect();
    let final_rank = |p: &str| {
        let v = last
            .iter()
            .find(|(q, _)| q == p)
            .map(|(_, v)| *v)
            .unwrap_or_default();
        1 + last.iter().filter(|(_, w)| *w > v).count() as i64
    };
    let entries = walk_entries(
        &store,
        &ctx,
        "/v1/leaderboards/mahjong-weekly",
        &[("period", period.id.as_str())],
    )
    .await;
    for e in &entries {
        let p = e["player_id"].as_str().unwrap_or_default();
        let change = final_rank(p) - e["rank"].as_i64().unwrap_or_default();
        assert_eq!(e["movement"]["since_final"], change, "{e}");
    }
    let seen = entries.len();
    assert_eq!(seen, 132);
    // The next refresh: mv-08 climbs to 2nd.
    periods::credit(&store, weekly, "mv-08", 5, this_week, this_week, "tw-more")
        .await
        .expect("credit");
    let later = at + Duration::minutes(5);
    snapshot::write::run_paged(
        &store,
        &board,
        "w2",
        later,
        snapshot::layout::Paging::content_defined(4),
        None,
        later,
    )
    .await
    .expect("refresh");
    ctx.cache.forget();
    let me = api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/mahjong-weekly/me", &[], "mv-08"),
        later,
    )
    .await;
    assert_eq!(me.body["me"]["rank"], 2, "{}", me.body);
    assert_eq!(
        me.body["movement"]["previous_snapshot"],
        json!({"of": "w1", "rank": 3, "rank_change": 1})
    );
    assert_eq!(me.body["movement"]["previous_final"]["rank_change"], 7);
}

/// OP-4, GM-6, LB-2: after a player above is suspended, a page and the caller's own
/// standing show the same movement against the same closed-up rank, and the next
/// refresh does not count the place the suspension gave again.
pub async fn movement_after_a_suspension_is_counted_once<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    let weekly = board_def("mahjong-weekly").expect("registered");
    let t = |s: &str| DateTime::parse_from_rfc3339(s).expect("instant").to_utc();
    let this_week = t("2026-12-01T10:00:00Z");
    let period = weekly.period_at(this_week);
    let board = weekly.in_period(&period);
    // ms-00 … ms-11 at 100, 95, … 45 points: ms-08 is 9th.
    for i in 0..12i64 {
        let p = format!("ms-{i:02}");
        periods::credit(
            &store,
            weekly,
            &p,
            100 - i * 5,
            this_week,
            this_week,
            &format!("a-{p}"),
        )
        .await
        .expect("credit");
    }
    let snap = |id: &'static str, at: DateTime<Utc>| {
        let (store, board) = (store.clone(), board.clone());
        async move {
            snapshot::write::run(&store, &board, id, at, 50, None, at)
                .await
                .expect("snapshot");
        }
    };
    let s1 = this_week + Duration::minutes(1);
    snap("s1", s1).await;
    // ms-08 climbs to 7th (72 points, between ms-05's 75 and ms-06's 70).
    periods::credit(&store, weekly, "ms-08", 12, this_week, this_week, "b-ms-08")
        .await
        .expect("credit");
    let s2 = s1 + Duration::minutes(5);
    snap("s2", s2).await;
    // ms-00, first, is suspended: everyone below closes up one place.
    let later = s2 + Duration::minutes(1);
    podium_service::moderation::suspensions::suspend(&store, "ms-00", ("support-1", "a test"), 30, later)
        .await
        .expect("suspended");
    ctx.cache.forget();
    let page = api::handle(
        &store,
        &ctx,
        &get(
            "/v1/leaderboards/mahjong-weekly",
            &[("period", period.id.as_str())],
            "ms-08",
        ),
        later,
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let listed = page.body["entries"]
        .as_array()
        .and_then(|es| es.iter().find(|e| e["player_id"] == "ms-08").cloned())
        .expect("ms-08 listed");
    assert_eq!(listed["rank"], 6, "{listed}");
    let me = api::handle(
        &store,
        &ctx,
        &get(
            "/v1/leaderboards/mahjong-weekly/me",
            &[("neighbours", "2")],
            "ms-08",
        ),
        later,
    )
    .await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["me"]["rank"], 6, "{}", me.body);
    assert_eq!(me.body["me"]["movement"], listed["movement"], "{}", me.body);
    assert_eq!(listed["movement"], json!({"since_previous": 3}), "{listed}");
    assert_eq!(
        me.body["movement"]["previous_snapshot"],
        json!({"of": "s1", "rank": 9, "rank_change": 3}),
        "{}",
        me.body
    );
    // Every neighbour shows what the page shows for them.
    for e in me.body["entries"].as_array().expect("entries") {
        let on_page = page.body["entries"]
            .as_array()
            .and_then(|es| es.iter().find(|p| p["player_id"] == e["player_id"]).cloned())
            .expect("on the page");
        assert_eq!(
            (&e["rank"], &e["movement"]),
            (&on_page["rank"], &on_page["movement"]),
            "{e}"
        );
    }
    // The next refresh, nothing else changed: no movement since s2.
    let s3 = later + Duration::minutes(5);
    snap("s3", s3).await;
    ctx.cache.forget();
    let me = api::handle(
        &store,
        &ctx,
        &get("/v1/leaderboards/mahjong-weekly/me", &[], "ms-08"),
        s3,
    )
    .await;
    assert_eq!(me.body["me"]["rank"], 6, "{}", me.body);
    assert_eq!(
        me.body["movement"]["previous_snapshot"],
        json!({"of": "s2", "rank": 6, "rank_change": 0}),
        "{}",
        me.body
    );
}

/// OP-4, LB-2: on the all-time board a caller whose live value fell past a suspended
/// player since the snapshot, and their neighbours, are shown ranks 1, 2, 3, … with
/// nobody twice: the caller placed at their live value, each neighbour closed up by
/// its own snapshot rank.
pub async fn around_me_after_a_fall_past_a_suspended_player<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    let t = |s: &str| DateTime::parse_from_rfc3339(s).expect("instant").to_utc();
    let at = t("2026-12-01T10:00:00Z");
    // sa-00 … sa-11 at 1000, 950, … 450 points: sa-02 3rd, sa-04 5th.
    for i in 0..12i64 {
        seed_balance(
            &store,
            &format!("sa-{i:02}"),
            1000 - i * 50,
            at.timestamp_millis(),
        )
        .await;
    }
    snapshot::write::run(&store, &BoardRef::all_time("seega"), "a1", at, 50, None, at)
        .await
        .expect("snapshot");
    let later = at + Duration::minutes(1);
    podium_service::moderation::suspensions::suspend(&store, "sa-04", ("support-1", "a test"), 30, later)
        .await
        .expect("suspended");
    // sa-02 falls to 780 (behind sa-00, sa-01, sa-03: 4th shown), then to 720
    // (behind sa-05 too: 5th shown).
    for (points, nth) in [(780, 4), (720, 5)] {
        let me = fall_and_look(&store, &ctx, "sa-02", points, 3, later).await;
        let ranks: Vec<i64> = me.body["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| e["rank"].as_i64().unwrap_or_default())
            .collect();
        let first = ranks.first().copied().unwrap_or_default();
        let expected: Vec<i64> = (first..first + ranks.len() as i64).collect();
        assert_eq!(ranks, expected, "{}", me.body);
        assert_eq!(me.body["me"]["rank"], nth, "{}", me.body);
        assert_eq!(me.body["standing"]["rank"], nth, "{}", me.body);
    }
}

/// OP-4, LB-2: as [`around_me_after_a_fall_past_a_suspended_player`], with pages of
/// two entries, so that the caller's own snapshot entry (3rd) lies on a page the
/// around-me does not read; the caller lands right below the suspended player (11th in
/// the snapshot), who is not counted above them.
pub async fn around_me_with_the_own_entry_on_a_page_not_read<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    // sc-00 … sc-29 at 1000, 970, … 130 points: sc-02 3rd (page 1), sc-10 11th. Each
    // balance's key history is dated by the server clock (`tick`), so the snapshot is
    // taken after the seeds and the fall after the snapshot: the history tells around-me
    // which of the caller's keys the snapshot holds.
    for i in 0..30i64 {
        seed_balance(
            &store,
            &format!("sc-{i:02}"),
            1000 - i * 30,
            now().timestamp_millis(),
        )
        .await;
    }
    let at = tick();
    snapshot::write::run(&store, &BoardRef::all_time("seega"), "c1", at, 2, None, at)
        .await
        .expect("snapshot");
    let later = at + Duration::minutes(1);
    podium_service::moderation::suspensions::suspend(&store, "sc-10", ("support-1", "a test"), 30, later)
        .await
        .expect("suspended");
    // sc-02 falls to 690: below sc-10 (700, hidden) and above sc-11 (670). Shown above
    // the caller: sc-00, sc-01, sc-03 … sc-09, nine players: 10th.
    let me = fall_and_look(&store, &ctx, "sc-02", 690, 1, later).await;
    let shown: Vec<(String, i64)> = me.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap_or_default().to_string(),
                e["rank"].as_i64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("sc-09".to_string(), 9),
            ("sc-02".to_string(), 10),
            ("sc-11".to_string(), 11)
        ],
        "{}",
        me.body
    );
    assert_eq!(me.body["me"]["rank"], 10, "{}", me.body);
    assert_eq!(me.body["standing"]["rank"], 10, "{}", me.body);
}

/// Sets `player`'s Seega balance to `points` at `at` and reads their around-me with
/// `neighbours` each side (the pointer cache forgotten first): a 200, checked.
async fn fall_and_look<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    player: &str,
    points: i64,
    neighbours: u32,
    at: DateTime<Utc>,
) -> ApiResponse {
    seed_balance(store, player, points, at.timestamp_millis()).await;
    ctx.cache.forget();
    let n = neighbours.to_string();
    let me = api::handle(
        store,
        ctx,
        &get("/v1/leaderboards/seega/me", &[("neighbours", n.as_str())], player),
        at,
    )
    .await;
    assert_eq!(me.status, 200, "{}", me.body);
    me
}

/// PF-1, GM-5: a profile write whose conditional write the store refuses midway
/// (throttled after the change was recorded) answers 503 and changes nothing; the
/// retry writes it whole, and a refresh then shows it (the extra change record
/// costs one card read, nothing else).
pub async fn a_profile_write_failing_midway_changes_nothing<S: Store + Clone + 'static>(store: S) {
    let ctx = ctx();
    let now = tick();
    let set = put(
        &store,
        &ctx,
        "/v1/me/profile",
        "fw-1",
        &json!({"name": "Before"}),
        now,
    )
    .await;
    assert_eq!(set.status, 200, "{}", set.body);
    let faulty = crate::faults::Faulty::new(store.clone()).failing_item_writes("PROFILE#fw-1", 1);
    let failed = put(
        &faulty,
        &ctx,
        "/v1/me/profile",
        "fw-1",
        &json!({"name": "After"}),
        now,
    )
    .await;
    assert_eq!(failed.status, 503, "{}", failed.body);
    assert_eq!(
        read(&store, &ctx, "/v1/me/profile", &[], "fw-1").await.body["name"],
        "Before"
    );
    let retried = put(
        &faulty,
        &ctx,
        "/v1/me/profile",
        "fw-1",
        &json!({"name": "After"}),
        now,
    )
    .await;
    assert_eq!(retried.status, 200, "{}", retried.body);
    assert_eq!(
        read(&store, &ctx, "/v1/me/profile", &[], "fw-1").await.body["name"],
        "After"
    );
}

#[macro_export]
macro_rules! profile_tests {
    ($make:path) => {
        $crate::profile_tests!(@cases $make;
            profiles_are_checked_and_kept,
            a_rename_shows_everywhere_after_the_next_refresh,
            friends_are_ranked_among_themselves,
            country_boards_are_the_board_filtered_and_re_ranked,
            movement_since_the_final_and_the_previous_snapshot,
            movement_after_a_suspension_is_counted_once,
            around_me_after_a_fall_past_a_suspended_player,
            around_me_with_the_own_entry_on_a_page_not_read,
            a_profile_write_failing_midway_changes_nothing,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::profiles::$case($make().await).await;
            }
        )*
    };
}
