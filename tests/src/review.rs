//! Regression cases of the review findings, run on both stores through the HTTP API's
//! code: forged cursors (LB-3), the caller's older snapshot entry (LB-2, LB-4),
//! around-me in tie groups (LB-7), and every parameter checked before the store sees
//! it (GM-5).

use std::collections::HashMap;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{listing_order, Standing};
use podium_rules::snapshot::SnapshotEntry;
use podium_service::api::{self, ApiContext, ApiRequest, ApiResponse};
use podium_service::boards::snapshot;
use podium_store::{SortKeyRange, Store};
use serde_json::Value;

use crate::contract::{cursor_key, score_match};
use crate::counting::Counted;
use crate::fixtures::{at, now, record, rout, seed_balance};

/// A GET of `path` with `query` by the verified caller `player`.
pub fn get(path: &str, query: &[(&str, &str)], player: &str) -> ApiRequest {
    ApiRequest {
        method: "GET".into(),
        path: path.into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
        player: Some(player.into()),
        operator: None,
        raw_query: None,
    }
}

/// A GET of `path` with `query` by the operator `support-1`.
pub fn operator_get(path: &str, query: &[(&str, &str)]) -> ApiRequest {
    ApiRequest {
        operator: Some("support-1".into()),
        player: None,
        ..get(path, query, "nobody")
    }
}

async fn call<S: Store + Clone + 'static>(store: &S, ctx: &ApiContext, req: ApiRequest) -> ApiResponse {
    api::handle(store, ctx, &req, crate::fixtures::tick()).await
}

/// The (player id, rank) of every entry a board answer lists, in order.
pub(crate) fn ranks(body: &Value) -> Vec<(String, u64)> {
    body["entries"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["player_id"].as_str().unwrap_or_default().to_string(),
                        e["rank"].as_u64().unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn refused_naming(answer: &ApiResponse, field: &str) -> bool {
    answer.status == 400
        && answer.body["message"]
            .as_str()
            .is_some_and(|m| m.starts_with(&format!("{field}:")))
}

/// Review case 1 (LB-3): 5 winners at 311 and 5 losers at 0, no snapshot. The walk
/// in pages of 3 ranks 1, 1, 1 | 1, 1, 6 | 6, 6, 6 | 6; a cursor with its rank state
/// edited, re-signed with another key, moved to another board or period, or made up,
/// is a 400 naming `cursor`.
pub async fn forged_cursors_are_refused<S: Store + Clone + 'static>(store: S) {
    for i in 0..5 {
        score_match(
            &store,
            &rout(&format!("b08-{i}"), &format!("p-t{i}"), &format!("p-l{i}"), at(i)),
            crate::fixtures::tick(),
        )
        .await
        .expect("scored");
    }
    let ctx = ApiContext::new(cursor_key());
    let seega = "/v1/leaderboards/seega";
    let mut walked = Vec::new();
    let mut cursor: Option<String> = None;
    let mut first_cursor = None;
    loop {
        let mut q = vec![("limit", "3")];
        if let Some(c) = &cursor {
            q.push(("cursor", c.as_str()));
        }
        let page = call(&store, &ctx, get(seega, &q, "p-t0")).await;
        assert_eq!(page.status, 200, "{}", page.body);
        walked.push(ranks(&page.body).into_iter().map(|(_, r)| r).collect::<Vec<_>>());
        match page.body["next_cursor"].as_str() {
            Some(c) => {
                first_cursor.get_or_insert_with(|| c.to_string());
                cursor = Some(c.to_string());
            }
            None => break,
        }
    }
    assert_eq!(walked, [vec![1, 1, 1], vec![1, 1, 6], vec![6, 6, 6], vec![6]]);
    let issued = first_cursor.expect("a second page");
    // Edit the rank state of the issued cursor in every way the review tried.
    let raw = URL_SAFE_NO_PAD.decode(&issued).expect("base64url");
    let (payload, tag) = raw.split_at(raw.len() - 16);
    let mut forged = Vec::new();
    for (field, value) in [("p", 100), ("r", 100), ("v", 1_000_000), ("p", 0), ("r", 0)] {
        let mut json: Value = serde_json::from_slice(payload).expect("json");
        json["c"][field] = Value::from(value);
        let body = serde_json::to_vec(&json).expect("json");
        forged.push(URL_SAFE_NO_PAD.encode([body.as_slice(), tag].concat()));
        forged.push(URL_SAFE_NO_PAD.encode(&body));
        forged.push(URL_SAFE_NO_PAD.encode(serde_json::to_vec(&json["c"]).expect("json")));
    }
    let other_key =
        podium_service::boards::cursor::CursorKey::new(b"a key the API never had, 32 bytes!!").expect("key");
    let opened = cursor_key()
        .open(&BoardRef::all_time("seega"), &issued)
        .expect("issued");
    forged.push(other_key.issue(&BoardRef::all_time("seega"), opened.clone()));
    forged.push(cursor_key().issue(&BoardRef::all_time("mahjong-amr"), opened.clone()));
    forged.push(cursor_key().issue(&BoardRef::new("seega", "2026-W49"), opened));
    forged.extend(
        [
            "",
            "x",
            "eyJiIjoic2VlZ2FAYWxsIn0",
            "%%%",
            &"A".repeat(2_000),
            &issued[..issued.len() - 1],
        ]
        .map(str::to_string),
    );
    for f in &forged {
        let answer = call(&store, &ctx, get(seega, &[("limit", "3"), ("cursor", f)], "p-t0")).await;
        assert!(
            refused_naming(&answer, "cursor"),
            "{f}: {} {}",
            answer.status,
            answer.body
        );
    }
    // A cursor of one period is refused on another.
    let weekly = "/v1/leaderboards/mahjong-weekly";
    let other_period = cursor_key().issue(
        &BoardRef::new("mahjong-weekly", "2026-W48"),
        podium_service::boards::cursor::Cursor::Live {
            after: podium_store::BoardKey::first_of_value(5).encode(),
            position: 1,
            value: 5,
            rank: 1,
        },
    );
    let answer = call(
        &store,
        &ctx,
        get(
            weekly,
            &[("period", "2026-W49"), ("cursor", &other_period)],
            "p-t0",
        ),
    )
    .await;
    assert!(refused_naming(&answer, "cursor"), "{}", answer.body);
    // The same holds for snapshot cursors.
    snapshot::write::run(
        &store,
        &BoardRef::all_time("seega"),
        "f",
        at(60),
        2,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("snapshot");
    let ctx = ApiContext::new(cursor_key());
    let page = call(&store, &ctx, get(seega, &[("limit", "3")], "p-t0")).await;
    let issued = page.body["next_cursor"].as_str().expect("cursor").to_string();
    let raw = URL_SAFE_NO_PAD.decode(&issued).expect("base64url");
    let (payload, tag) = raw.split_at(raw.len() - 16);
    for (field, value) in [("o", 0), ("e", 1_000), ("n", 1)] {
        let mut json: Value = serde_json::from_slice(payload).expect("json");
        json["c"][field] = Value::from(value);
        let body = serde_json::to_vec(&json).expect("json");
        let f = URL_SAFE_NO_PAD.encode([body.as_slice(), tag].concat());
        let answer = call(&store, &ctx, get(seega, &[("cursor", &f)], "p-t0")).await;
        assert!(refused_naming(&answer, "cursor"), "{field}: {}", answer.body);
    }
    let next = call(
        &store,
        &ctx,
        get(seega, &[("limit", "3"), ("cursor", &issued)], "p-t0"),
    )
    .await;
    assert_eq!(
        ranks(&next.body).into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
        [1, 1, 6]
    );
}

/// The snapshot's entries in listing order.
async fn snapshot_entries<S: Store + ?Sized>(store: &S, id: &str) -> Vec<SnapshotEntry> {
    snapshot::read::pages(
        store,
        &BoardRef::all_time("seega"),
        id,
        SortKeyRange::All,
        true,
        10_000,
        true,
    )
    .await
    .expect("pages")
    .into_iter()
    .flat_map(|p| p.entries)
    .collect()
}

/// What around-me must answer: every other player's snapshot entry and the caller's
/// live one, ranked by LB-2, `n` each side of the caller.
fn expected_window(entries: &[SnapshotEntry], me: &Standing, n: usize) -> (u64, Vec<(String, u64)>) {
    let mut view: Vec<Standing> = entries
        .iter()
        .filter(|e| e.player_id != me.player_id)
        .map(|e| Standing {
            player_id: e.player_id.clone(),
            value: e.value,
            reached_at_ms: e.reached_at_ms,
        })
        .collect();
    view.push(me.clone());
    view.sort_by(listing_order);
    let rank = |v: i64| 1 + view.iter().filter(|o| o.value > v).count() as u64;
    let at = view.iter().position(|e| e.player_id == me.player_id).expect("me");
    let window = view[at.saturating_sub(n)..(at + n + 1).min(view.len())]
        .iter()
        .map(|e| (e.player_id.clone(), rank(e.value)))
        .collect();
    (rank(me.value), window)
}

async fn check_every_window<S: Store + Clone + 'static>(
    store: &S,
    ctx: &ApiContext,
    id: &str,
    players: &[String],
    n: usize,
) {
    let entries = snapshot_entries(store, id).await;
    let n_text = n.to_string();
    for p in players {
        let live = store
            .get_balance(podium_rules::game::Game::Seega, p)
            .await
            .expect("read")
            .expect("balance");
        let me = Standing {
            player_id: p.clone(),
            value: live.points,
            reached_at_ms: live.reached_at_ms,
        };
        let answer = call(
            store,
            ctx,
            get("/v1/leaderboards/seega/me", &[("neighbours", &n_text)], p),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.body["snapshot"], id);
        let (rank, window) = expected_window(&entries, &me, n);
        assert_eq!(answer.body["me"]["rank"].as_u64(), Some(rank), "{p}");
        assert_eq!(ranks(&answer.body), window, "around {p}");
    }
}

/// Review case 2 (LB-2, LB-4): p-11 beats p-d (263 and 0); snapshot; p-11 then loses
/// (−123 → 140): p-11 is 1st and p-d 2nd. Then, on a board of 40 in pages of 3, every
/// player's window after wins and losses since the snapshot (their older entry above,
/// below, inside or outside the window, in another page or the same) equals the
/// snapshot ranked with the caller's live value in place of their older one.
pub async fn around_me_sets_the_callers_older_entry_aside<S: Store + Clone + 'static>(store: S) {
    let ctx = ApiContext::new(cursor_key());
    score_match(
        &store,
        &record("b12-m4", "p-11", "p-d", 16, 8, 300, 20, 20, at(0)),
        crate::fixtures::tick(),
    )
    .await
    .expect("m4");
    snapshot::write::run(
        &store,
        &BoardRef::all_time("seega"),
        "s2",
        at(30),
        100,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("snapshot");
    score_match(
        &store,
        &record("b12-m5", "p-c", "p-11", 24, 0, 300, 1_000, 20, at(35)),
        crate::fixtures::tick(),
    )
    .await
    .expect("m5");
    let answer = call(
        &store,
        &ctx,
        get("/v1/leaderboards/seega/me", &[("neighbours", "5")], "p-11"),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["me"]["rank"], 1);
    assert_eq!(answer.body["me"]["value"], 140);
    assert_eq!(
        ranks(&answer.body),
        [("p-11".to_string(), 1), ("p-d".to_string(), 2)]
    );

    // The general case: a board in small pages, and moves after the snapshot.
    let players: Vec<String> = (0..40).map(|i| format!("g{i:02}")).collect();
    for (i, p) in players.iter().enumerate() {
        seed_balance(
            &store,
            p,
            ((i * 37) % 11) as i64 * 100,
            5_000 + (i as i64 * 13) % 7,
        )
        .await;
    }
    snapshot::write::run(
        &store,
        &BoardRef::all_time("seega"),
        "s3",
        at(40),
        3,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("snapshot");
    // Wins and losses after it, some players moving twice (two older keys).
    for (m, (w, l)) in [
        (0, 39),
        (5, 12),
        (12, 5),
        (20, 21),
        (30, 2),
        (2, 30),
        (7, 8),
        (8, 7),
        (33, 3),
    ]
    .iter()
    .enumerate()
    {
        score_match(
            &store,
            &record(
                &format!("g-m{m}"),
                &players[*w],
                &players[*l],
                24,
                0,
                300,
                20,
                20,
                at(41 + m as i64),
            ),
            crate::fixtures::tick(),
        )
        .await
        .expect("scored");
    }
    let ctx = ApiContext::new(cursor_key());
    for n in [0, 1, 2, 5] {
        check_every_window(&store, &ctx, "s3", &players, n).await;
    }
}

/// Review case 3 (LB-7): 300 players tied at 311 and 300 at 0, snapshot pages of 10
/// (each group spans 30 pages): the caller's rank and 5 neighbours each side cost at
/// most 5 reads for the first, middle and last of either group, the same for a caller
/// who moved since the snapshot, and every window is right.
pub async fn around_me_reads_stay_few_in_tie_groups<S: Store + Clone + 'static>(store: S) {
    let counted = Counted::new(store);
    let mut players = Vec::new();
    for i in 0..600i64 {
        let p = format!("t{i:03}");
        let value = if i < 300 { 311 } else { 0 };
        seed_balance(&counted, &p, value, 10_000 + i).await;
        players.push(p);
    }
    snapshot::write::run(
        &counted,
        &BoardRef::all_time("seega"),
        "ties",
        at(60),
        10,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("snapshot");
    // t150 (middle of the 311 group) loses after the snapshot: its older entry sits
    // 15 pages above its live one.
    score_match(
        &counted,
        &rout("ties-m1", "t450", "t150", at(61)),
        crate::fixtures::tick(),
    )
    .await
    .expect("scored");
    let ctx = ApiContext::new(cursor_key());
    let probes = ["t000", "t150", "t299", "t300", "t450", "t599"];
    // Warm the pointer cache.
    call(&counted, &ctx, get("/v1/leaderboards/seega", &[], "t000")).await;
    for p in probes {
        let (before, _) = counted.counts();
        let answer = call(
            &counted,
            &ctx,
            get("/v1/leaderboards/seega/me", &[("neighbours", "5")], p),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let reads = counted.counts().0 - before;
        assert!(reads <= 5, "{p}: {reads} reads");
    }
    check_every_window(&counted, &ctx, "ties", &probes.map(str::to_string), 5).await;
    let _ = players;
}

/// LB-7, a warm process: once a server (or a warm Lambda container) has read a
/// snapshot's pages and directory chunks, it keeps them decoded (they never change
/// once published), so around-me and the caller's standing cost two point reads (the
/// caller's account, OP-4, and live entry) and a cursor page one (the account),
/// whatever the caller's depth; every answer stays the one a cold reader gives.
pub async fn a_warm_process_reads_only_the_callers_entry<S: Store + Clone + 'static>(store: S) {
    let counted = Counted::new(store);
    for i in 0..600i64 {
        seed_balance(&counted, &format!("w{i:03}"), 1_000 - i / 3, 10_000 + i).await;
    }
    snapshot::write::run(
        &counted,
        &BoardRef::all_time("seega"),
        "warm",
        at(60),
        // Pages of 2: 300 pages, so the directory has a second chunk (LB-7).
        2,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("snapshot");
    // w450 gains after the snapshot: its older entry sits pages below its live one.
    score_match(
        &counted,
        &rout("warm-m1", "w450", "w010", at(61)),
        crate::fixtures::tick(),
    )
    .await
    .expect("scored");
    let ctx = ApiContext::new(cursor_key());
    let probes = ["w000", "w010", "w299", "w450", "w599"];
    // A walk of the whole board, from the top, keeping each page's cursor.
    let walk = |ctx: ApiContext| {
        let counted = counted.clone();
        async move {
            let mut pages = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let mut q = vec![("limit", "25")];
                if let Some(c) = &cursor {
                    q.push(("cursor", c.as_str()));
                }
                let page = call(&counted, &ctx, get("/v1/leaderboards/seega", &q, "w000")).await;
                assert_eq!(page.status, 200, "{}", page.body);
                cursor = page.body["next_cursor"].as_str().map(str::to_string);
                pages.push((cursor.clone(), page.body["entries"].clone()));
                if cursor.is_none() {
                    return pages;
                }
            }
        }
    };
    let cold_walk = walk(ApiContext::new(cursor_key())).await;
    let mut cold = Vec::new();
    for p in probes {
        for n in ["5", "0"] {
            // A fresh process each: nothing read before.
            let fresh = ApiContext::new(cursor_key());
            let a = call(
                &counted,
                &fresh,
                get("/v1/leaderboards/seega/me", &[("neighbours", n)], p),
            )
            .await;
            assert_eq!(a.status, 200, "{}", a.body);
            // LB-4: every caller is counted once among the snapshot's 600 entries,
            // w450 too, whose older entry is pages below the pages around its live one.
            assert_eq!(a.body["standing"]["of"], 600, "{p}, neighbours={n}: {}", a.body);
            cold.push(a.body);
        }
    }
    // Warm: one process reads every page and the caller's surroundings once, then
    // the same reads again.
    walk(ctx.clone()).await;
    for p in probes {
        call(
            &counted,
            &ctx,
            get("/v1/leaderboards/seega/me", &[("neighbours", "5")], p),
        )
        .await;
    }
    let mut warm = Vec::new();
    for p in probes {
        for n in ["5", "0"] {
            let (before, _) = counted.counts();
            let a = call(
                &counted,
                &ctx,
                get("/v1/leaderboards/seega/me", &[("neighbours", n)], p),
            )
            .await;
            let reads = counted.counts().0 - before;
            assert_eq!(a.status, 200, "{}", a.body);
            assert!(reads <= 2, "{p}, neighbours={n}: {reads} reads warm");
            warm.push(a.body);
        }
    }
    assert_eq!(warm, cold, "a warm answer differs from the cold one");
    for (cursor, _) in &cold_walk {
        let Some(cursor) = cursor else { continue };
        let (before, _) = counted.counts();
        let page = call(
            &counted,
            &ctx,
            get(
                "/v1/leaderboards/seega",
                &[("limit", "25"), ("cursor", cursor)],
                "w000",
            ),
        )
        .await;
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(counted.counts().0 - before <= 1, "a warm cursor page read a page");
    }
    // The walk itself, warm, lists the same pages.
    let warm_walk = walk(ctx.clone()).await;
    assert_eq!(warm_walk, cold_walk);
}

/// Review case 4 (GM-5): every parameter in range answers 200 on the live board and on
/// a snapshot (neighbours 0 … 25, limit 1 … 100; the caller alone with neighbours=0),
/// and every parameter out of range or malformed is a 400 naming it, never a 5xx.
pub async fn parameters_are_checked_before_the_store<S: Store + Clone + 'static>(store: S) {
    let ctx = ApiContext::new(cursor_key());
    score_match(
        &store,
        &rout("b08-0", "p-t3", "p-l3", at(0)),
        crate::fixtures::tick(),
    )
    .await
    .expect("scored");
    for snapshot_taken in [false, true] {
        if snapshot_taken {
            snapshot::write::run(
                &store,
                &BoardRef::all_time("seega"),
                "params",
                at(60),
                100,
                None,
                crate::fixtures::tick(),
            )
            .await
            .expect("snapshot");
        }
        let alone = call(
            &store,
            &ctx,
            get("/v1/leaderboards/seega/me", &[("neighbours", "0")], "p-l3"),
        )
        .await;
        assert_eq!(alone.status, 200, "{}", alone.body);
        assert_eq!(ranks(&alone.body), [("p-l3".to_string(), 2)]);
        for n in ["0", "1", "24", "25"] {
            let a = call(
                &store,
                &ctx,
                get("/v1/leaderboards/seega/me", &[("neighbours", n)], "p-l3"),
            )
            .await;
            assert_eq!(a.status, 200, "neighbours={n}: {}", a.body);
        }
        for limit in ["1", "2", "99", "100"] {
            let a = call(
                &store,
                &ctx,
                get("/v1/leaderboards/seega", &[("limit", limit)], "p-l3"),
            )
            .await;
            assert_eq!(a.status, 200, "limit={limit}: {}", a.body);
        }
        for (field, value) in [
            ("limit", "0"),
            ("limit", "101"),
            ("limit", "-1"),
            ("limit", ""),
            ("limit", "1e2"),
            ("limit", "18446744073709551616"),
            ("neighbours", "26"),
            ("neighbours", "-1"),
            ("neighbours", "0x1"),
        ] {
            let path = if field == "limit" {
                "/v1/leaderboards/seega"
            } else {
                "/v1/leaderboards/seega/me"
            };
            let a = call(&store, &ctx, get(path, &[(field, value)], "p-l3")).await;
            assert!(
                refused_naming(&a, field),
                "{field}={value}: {} {}",
                a.status,
                a.body
            );
        }
        // Review case 7: period ids have one canonical spelling.
        for period in [
            "0999-W01",
            "-001-W01",
            "999-W01",
            "2026-W1",
            "2026-w49",
            "2100-W01",
            "2026-02-30",
            "all ",
        ] {
            for path in [
                "/v1/leaderboards/mahjong-weekly",
                "/v1/leaderboards/mahjong-daily",
                "/v1/leaderboards/seega/me",
            ] {
                let a = call(&store, &ctx, get(path, &[("period", period)], "p-l3")).await;
                assert!(refused_naming(&a, "period"), "{path}?period={period}: {}", a.body);
            }
        }
        // Paths and identities no store key can hold are answered without a read.
        let long = "m".repeat(5_000);
        for path in [
            format!("/v1/me/matches/{long}"),
            "/v1/me/matches/a%23b".to_string(),
            format!("/v1/leaderboards/{long}"),
            "/v1/leaderboards/seega%40all".to_string(),
        ] {
            let a = call(&store, &ctx, get(&path, &[], "p-l3")).await;
            assert_eq!(a.status, 404, "{path}: {}", a.body);
        }
        for who in [long.as_str(), "a@example.com", "p#1", ""] {
            let a = call(&store, &ctx, get("/v1/me", &[], who)).await;
            assert_eq!(a.status, 401, "{who}: {}", a.body);
        }
    }
}

/// Review (second round) F1, F2: a player whose history was cut (more than 8 changes)
/// and who wins once after a snapshot, or who changed several times just before it,
/// is still answered from the snapshot, right, in a few reads.
pub async fn around_me_after_many_changes_stays_on_the_snapshot<S: Store + Clone + 'static>(store: S) {
    let counted = Counted::new(store);
    let players: Vec<String> = (0..60).map(|i| format!("m{i:02}")).collect();
    for (i, p) in players.iter().enumerate() {
        seed_balance(&counted, p, 1_000 + (i as i64 % 7) * 100, 2_000 + i as i64).await;
    }
    // m00 and m01 change twelve times before the snapshot (their histories are cut).
    for round in 0..12 {
        for p in ["m00", "m01"] {
            seed_balance(&counted, p, 1_000 + round * 10, 3_000 + round).await;
        }
    }
    snapshot::write::run(
        &counted,
        &BoardRef::all_time("seega"),
        "many",
        at(60),
        5,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("snapshot");
    // m00 wins (moves up, pages away); m01 loses (moves down).
    score_match(
        &counted,
        &rout("many-1", "m00", "m30", at(61)),
        crate::fixtures::tick(),
    )
    .await
    .expect("scored");
    score_match(
        &counted,
        &rout("many-2", "m40", "m01", at(62)),
        crate::fixtures::tick(),
    )
    .await
    .expect("scored");
    let ctx = ApiContext::new(cursor_key());
    call(&counted, &ctx, get("/v1/leaderboards/seega", &[], "m00")).await;
    for p in ["m00", "m01", "m30", "m40"] {
        let (before, _) = counted.counts();
        let answer = call(
            &counted,
            &ctx,
            get("/v1/leaderboards/seega/me", &[("neighbours", "2")], p),
        )
        .await;
        let reads = counted.counts().0 - before;
        assert_eq!(
            answer.body["snapshot"], "many",
            "{p} answered from the snapshot: {}",
            answer.body
        );
        assert!(reads <= 5, "{p}: {reads} reads");
    }
    check_every_window(&counted, &ctx, "many", &players, 2).await;
}

/// Review (second round) F3: a run resumed after the board moved lists nobody twice
/// (a player met again is kept where first met) and its walk meets each listed
/// player once; around-me stays right for the movers.
pub async fn a_resumed_run_lists_nobody_twice<S: Store + Clone + 'static>(store: S) {
    let players: Vec<String> = (0..30).map(|i| format!("r{i:02}")).collect();
    for (i, p) in players.iter().enumerate() {
        seed_balance(&store, p, 3_000 - i as i64 * 100, 1_000 + i as i64).await;
    }
    let board = BoardRef::all_time("seega");
    let first = snapshot::write::run(
        &store,
        &board,
        "resumed",
        at(60),
        5,
        Some(2),
        crate::fixtures::tick(),
    )
    .await
    .expect("two pages");
    assert!(!first.complete);
    // r02 (already listed) drops to the bottom; r25 (not listed yet) rises to the top.
    seed_balance(&store, "r02", 50, 5_000).await;
    seed_balance(&store, "r25", 2_950, 5_001).await;
    snapshot::write::run(
        &store,
        &board,
        "resumed",
        at(60),
        5,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("resumed");
    let entries = snapshot_entries(&store, "resumed").await;
    let mut ids: Vec<&str> = entries.iter().map(|e| e.player_id.as_str()).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "nobody twice");
    // Ranks follow the listed values (LB-2).
    for w in entries.windows(2) {
        assert!(w[0].value >= w[1].value);
        assert!(
            w[1].rank
                == if w[0].value == w[1].value {
                    w[0].rank
                } else {
                    1 + entries
                        .iter()
                        .position(|e| e.player_id == w[1].player_id)
                        .unwrap() as u64
                }
        );
    }
    let ctx = ApiContext::new(cursor_key());
    let mut walked = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut q = vec![("limit", "7")];
        if let Some(c) = &cursor {
            q.push(("cursor", c.as_str()));
        }
        let page = call(&store, &ctx, get("/v1/leaderboards/seega", &q, "r00")).await;
        walked.extend(ranks(&page.body).into_iter().map(|(p, _)| p));
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(walked.len(), entries.len());
    check_every_window(&store, &ctx, "resumed", &players, 2).await;
}

/// Review (second round) F8: a cursor whose next page expired in between is refused
/// (the snapshot is gone), never a page further on.
pub async fn a_cursor_never_skips_a_page<S: Store + Clone + 'static>(store: S) {
    for i in 0..20 {
        seed_balance(&store, &format!("c{i:02}"), 2_000 - i * 10, 1_000 + i).await;
    }
    let board = BoardRef::all_time("seega");
    snapshot::write::run(&store, &board, "gap", at(60), 5, None, crate::fixtures::tick())
        .await
        .expect("snapshot");
    let ctx = ApiContext::new(cursor_key());
    let page = call(
        &store,
        &ctx,
        get("/v1/leaderboards/seega", &[("limit", "5")], "c00"),
    )
    .await;
    let cursor = page.body["next_cursor"].as_str().expect("cursor").to_string();
    // Page 1 (positions 5 … 9) disappears, as a TTL would take it.
    let pages = snapshot::read::pages(&store, &board, "gap", SortKeyRange::All, true, 10, true)
        .await
        .expect("pages");
    let second = &pages[1];
    store
        .delete_items(&[snapshot::read::body_key_of(&board, second)])
        .await
        .expect("delete");
    let next = call(
        &store,
        &ctx,
        get(
            "/v1/leaderboards/seega",
            &[("limit", "5"), ("cursor", &cursor)],
            "c00",
        ),
    )
    .await;
    assert!(refused_naming(&next, "cursor"), "{} {}", next.status, next.body);
    // A longer page that would span the gap stops before it.
    let page = call(
        &store,
        &ctx,
        get("/v1/leaderboards/seega", &[("limit", "12")], "c00"),
    )
    .await;
    assert_eq!(ranks(&page.body).len(), 5, "{}", page.body);
}

/// LB-2, LB-3, LB-4, LB-5: content-defined pages are shared between
/// snapshots. A refresh after a few balance changes writes only the bodies of the
/// pages those players left and entered; the walk, the ranks and every window stay
/// exact on the shared pages; every body a directory lists outlives it; a frozen
/// snapshot reuses only bodies kept for good, and a refresh after it reuses those.
pub async fn content_defined_pages_are_shared<S: Store + Clone + 'static>(store: S) {
    use snapshot::layout::{Paging, REFRESH_RETENTION_SECS};
    use snapshot::read::Directory;
    let players: Vec<String> = (0..120).map(|i| format!("q{i:03}")).collect();
    for (i, p) in players.iter().enumerate() {
        // Pairs of equal values: ties across page boundaries.
        seed_balance(&store, p, 9_000 - (i as i64 / 2) * 50, 1_000 + i as i64).await;
    }
    let board = BoardRef::all_time("seega");
    let paging = Paging::content_defined(6);
    let first = snapshot::write::run_paged(
        &store,
        &board,
        "c1",
        at(60),
        paging,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("first");
    assert!(first.complete && first.pages_total > 5, "{first:?}");
    assert_eq!(first.bodies_written, first.pages_total, "nothing to share yet");
    // Three small moves (within a few places) since the first snapshot.
    for (p, delta) in [("q010", 60), ("q051", -70), ("q100", 120)] {
        let live = store
            .get_balance(podium_rules::game::Game::Seega, p)
            .await
            .expect("read")
            .expect("balance");
        seed_balance(&store, p, live.points + delta, 5_000).await;
    }
    let second = snapshot::write::run_paged(
        &store,
        &board,
        "c2",
        at(65),
        paging,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("second");
    assert!(
        second.bodies_written <= 9 && second.bodies_written < second.pages_total / 2,
        "{second:?}"
    );
    let entries = snapshot_entries(&store, "c2").await;
    assert_eq!(entries.len(), players.len());
    for (i, e) in entries.iter().enumerate() {
        let better = entries.iter().filter(|o| o.value > e.value).count() as u64;
        assert_eq!(e.rank, better + 1, "{i}: {e:?}");
    }
    // A walk with cursors meets every player once, in listing order.
    let ctx = ApiContext::new(cursor_key());
    let mut walked = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut q = vec![("limit", "7")];
        if let Some(c) = &cursor {
            q.push(("cursor", c.as_str()));
        }
        let page = call(&store, &ctx, get("/v1/leaderboards/seega", &q, "q000")).await;
        walked.extend(ranks(&page.body));
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let listed: Vec<(String, u64)> = entries.iter().map(|e| (e.player_id.clone(), e.rank)).collect();
    assert_eq!(walked, listed);
    check_every_window(&store, &ctx, "c2", &players, 2).await;
    // Every body c2 lists outlives c2's directory.
    let mut dir = Directory::pinned(&store, &board, "c2", None, true);
    let kept_until = at(65).timestamp() + REFRESH_RETENTION_SECS;
    for n in 0..second.pages_total {
        let e = dir.listed(n).await.expect("read").expect("listed");
        assert!(e.expires_at.is_some_and(|x| x >= kept_until), "{n}: {e:?}");
    }
    // A frozen snapshot keeps its pages for good: it shares none with refreshes…
    let frozen = snapshot::write::run_paged(
        &store,
        &board,
        "final",
        at(70),
        paging,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("final");
    assert_eq!(frozen.bodies_written, frozen.pages_total);
    // …and a refresh after it shares all of its pages.
    let after = snapshot::write::run_paged(
        &store,
        &board,
        "c3",
        at(75),
        paging,
        None,
        crate::fixtures::tick(),
    )
    .await
    .expect("third");
    assert_eq!((after.bodies_written, after.pages_total), (0, frozen.pages_total));
}

/// Review (second round) F4: both sends of a commit lose their reply; the delivery's
/// retry (the same SQS message, the same replayed line) finds its own write and
/// counts it as applied, not as a duplicate; another delivery is the duplicate.
pub async fn a_delivery_retried_after_lost_replies_is_applied<S: Store + Clone + 'static>(store: S) {
    use podium_service::games::seega::{score_delivery, Scored};
    let flaky = crate::faults::Faulty::new(store).losing_replies(2);
    let r = rout("lost-twice", "alice", "bob", at(0));
    let policy = Default::default();
    let first = score_delivery(&flaky, &r, now(), &policy, "sqs:m-1").await;
    assert!(matches!(&first, Err(e) if e.is_unavailable()), "{first:?}");
    let retry = score_delivery(&flaky, &r, now(), &policy, "sqs:m-1")
        .await
        .expect("retry");
    assert!(matches!(retry, Scored::Applied(_)), "{retry:?}");
    let other = score_delivery(&flaky, &r, now(), &policy, "sqs:m-2")
        .await
        .expect("other");
    assert!(matches!(other, Scored::Duplicate(_)), "{other:?}");
    assert_eq!(
        flaky
            .inner
            .get_balances(podium_rules::game::Game::Seega, &["alice"])
            .await
            .expect("read")[0]
            .points,
        311
    );
}

/// Declares one `#[tokio::test]` per review case for a store made by `$make`.
#[macro_export]
macro_rules! review_tests {
    ($make:path) => {
        $crate::review_tests!(@cases $make;
            forged_cursors_are_refused,
            around_me_sets_the_callers_older_entry_aside,
            around_me_reads_stay_few_in_tie_groups,
            a_warm_process_reads_only_the_callers_entry,
            parameters_are_checked_before_the_store,
            around_me_after_many_changes_stays_on_the_snapshot,
            a_resumed_run_lists_nobody_twice,
            a_cursor_never_skips_a_page,
            content_defined_pages_are_shared,
            a_delivery_retried_after_lost_replies_is_applied,
        );
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::review::$case($make().await).await;
            }
        )*
    };
}
