//! The store contract suite on DynamoDB Local (started by `scripts/test`; these
//! tests fail, never skip, without it).

podium_tests::contract_tests!(podium_tests::fixtures::dynamodb);
podium_tests::review_tests!(podium_tests::fixtures::dynamodb);
podium_tests::performance_tests!(podium_tests::fixtures::dynamodb);
podium_tests::rewards_tests!(podium_tests::fixtures::dynamodb);
podium_tests::mahjong_tests!(podium_tests::fixtures::dynamodb);
podium_tests::tournament_tests!(podium_tests::fixtures::dynamodb);
podium_tests::dots_and_boxes_tests!(podium_tests::fixtures::dynamodb);
podium_tests::operator_tests!(podium_tests::fixtures::dynamodb);
podium_tests::deletion_tests!(podium_tests::fixtures::dynamodb);

/// Refresh snapshots' pages carry the TTL attribute (a day after `as_of`); a frozen
/// period's `final` pages never expire.
#[tokio::test]
async fn refresh_pages_expire_final_pages_do_not() {
    use aws_sdk_dynamodb::types::AttributeValue;
    use podium_rules::board::BoardRef;
    use podium_service::boards::snapshot;

    let store = podium_tests::fixtures::dynamodb().await;
    podium_tests::fixtures::seed_balance(&store, "p1", 10, 1_000).await;
    let board = BoardRef::all_time("seega");
    let as_of = podium_tests::fixtures::at(0);
    snapshot::write::run(&store, &board, "refresh-1", as_of, 100, None, as_of)
        .await
        .expect("refresh");
    snapshot::write::run(&store, &board, "final", as_of, 100, None, as_of)
        .await
        .expect("final");
    let (client, table) = store.client_and_table();
    let ttl = |id: &'static str| async move {
        let out = client
            .query()
            .table_name(table)
            .key_condition_expression("pk = :p")
            .expression_attribute_values(":p", AttributeValue::S(format!("SNAP#seega@all#{id}")))
            .limit(1)
            .send()
            .await
            .expect("query");
        out.items()
            .first()
            .expect("page")
            .get(podium_store::dynamo::TTL_ATTRIBUTE)
            .cloned()
    };
    let expected = (as_of.timestamp() + snapshot::layout::REFRESH_RETENTION_SECS).to_string();
    assert_eq!(ttl("refresh-1").await, Some(AttributeValue::N(expected)));
    assert_eq!(ttl("final").await, None);
}

/// GM-3 (review case 6): a transaction sent again unchanged, as after a lost reply,
/// is answered as the original success (its ClientRequestToken), writing nothing more.
#[tokio::test]
async fn a_resent_commit_is_the_original_success() {
    use podium_service::games::seega::Scored;
    use podium_store::{CommitOutcome, LedgerStore, SettleStore};

    let store = podium_tests::fixtures::dynamodb().await;
    podium_tests::fixtures::seed_balance(&store, "alice", 100, 1_000).await;
    let r = podium_tests::fixtures::rout("m-token", "alice", "bob", podium_tests::fixtures::at(0));
    let capture = podium_tests::faults::Faulty::new(store.clone());
    let scored = podium_tests::contract::score_match(&capture, &r, podium_tests::fixtures::now())
        .await
        .expect("scored");
    assert!(matches!(scored, Scored::Applied(_)));
    let commit = capture.last_commit().expect("a commit was sent");
    assert_eq!(
        store.commit(&commit).await.expect("resend"),
        CommitOutcome::Committed
    );
    assert_eq!(
        store
            .ledger_entries(podium_rules::game::Game::Seega, "alice")
            .await
            .expect("ledger")
            .len(),
        2,
        "seed and match, once each"
    );
    let b = store
        .get_balances(podium_rules::game::Game::Seega, &["alice"])
        .await
        .expect("read");
    assert_eq!(b[0].points, 411, "applied once");
}

/// GM-3 (review fault 10): DynamoDB keeps a transaction's `ClientRequestToken` for 10
/// minutes whatever became of it, and refuses it with other items; DynamoDB Local
/// forgets the tokens of cancelled transactions, so the fault layer's token window
/// answers as DynamoDB does. A match whose first delivery's two transactions were
/// cancelled for real is scored once when delivered again under the same id, never
/// refused as a conflict.
#[tokio::test]
async fn a_redelivery_after_cancelled_attempts_scores_once() {
    use podium_tests::dynamodb_faults::{FaultyHttp, Schedule};

    let http = FaultyHttp::new(
        podium_store::aws::new_https_client(),
        Schedule {
            seed: 10,
            rate_per_mille: 0,
            kinds: Vec::new(),
        },
    );
    http.keep_tokens(true);
    let store = podium_tests::fixtures::dynamodb_through(http.shared(), 3).await;
    podium_tests::redelivery::a_redelivery_after_cancelled_attempts_scores_once(store).await;
}
podium_tests::point_history_tests!(podium_tests::fixtures::dynamodb);
podium_tests::standing_tests!(podium_tests::fixtures::dynamodb);
podium_tests::profile_tests!(podium_tests::fixtures::dynamodb);
podium_tests::caching_tests!(podium_tests::fixtures::dynamodb);
podium_tests::moderation_tests!(podium_tests::fixtures::dynamodb);
podium_tests::moderation_scale_tests!(podium_tests::fixtures::dynamodb);
podium_tests::board_definitions_tests!(podium_tests::fixtures::dynamodb);
podium_tests::teams_tests!(podium_tests::fixtures::dynamodb);
podium_tests::previews_tests!(podium_tests::fixtures::dynamodb);

/// OP-4: 6,000 suspensions hold (past the 5,900 one item held), reads cost what they did.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn suspensions_past_one_item_hold() {
    podium_tests::moderation_scale::suspensions_past_one_item_hold(
        podium_tests::fixtures::dynamodb().await,
        6_000,
    )
    .await;
}
podium_tests::period_close_tests!(podium_tests::fixtures::dynamodb);
podium_tests::league_tests!(podium_tests::fixtures::dynamodb);
podium_tests::messages_tests!(podium_tests::fixtures::dynamodb);
podium_tests::overtaken_tests!(podium_tests::fixtures::dynamodb);
podium_tests::catch_up_tests!(podium_tests::fixtures::dynamodb);
podium_tests::commit_items_tests!(podium_tests::fixtures::dynamodb);

/// Issue 27's write budget (GM-3, SG-2): a Seega match between two existing players is
/// one transaction of at most 12 write request units by DynamoDB's published pricing
/// (the match record carrying both ledger entries, two balances, their board GSI
/// entries moved, the two carried entries' GSI entries), counted item by item from
/// the items sent; and both entries read back as the players' ledgers.
#[tokio::test]
async fn a_scored_match_writes_at_most_twelve_units() {
    use podium_rules::game::Game;
    use podium_store::LedgerStore;

    let store = podium_tests::fixtures::dynamodb().await;
    podium_tests::fixtures::seed_balance(&store, "u-alice", 100, 1_000).await;
    podium_tests::fixtures::seed_balance(&store, "u-bob", 100, 1_000).await;
    let before = store.usage();
    let r = podium_tests::fixtures::rout("m-units", "u-alice", "u-bob", podium_tests::fixtures::at(0));
    podium_tests::contract::score_match(&store, &r, podium_tests::fixtures::now())
        .await
        .expect("scored");
    let used = store.usage().since(&before);
    let lines = store.last_price();
    let units: u64 = lines.iter().map(|l| l.units).sum();
    assert_eq!(used.write_requests, 1, "one transaction");
    assert_eq!(used.published_write_units, units);
    assert!(units <= 12, "{units} write units: {lines:#?}");
    assert!(
        !lines.iter().any(|l| l.what().starts_with("ledger item")),
        "no ledger item of its own: {lines:#?}"
    );
    for p in ["u-alice", "u-bob"] {
        let all = store.ledger_entries(Game::Seega, p).await.expect("ledger");
        let page = store.ledger_page(Game::Seega, p, None, 10).await.expect("page");
        assert_eq!(all.iter().filter(|e| e.source_id == "m-units").count(), 1, "{p}");
        assert_eq!(page.iter().filter(|e| e.source_id == "m-units").count(), 1, "{p}");
    }
}
/// BD-12, issue 46's cost: each board a game's definitions name adds, to a scored
/// match's one transaction, each player's entry on it (put in the transaction) and its
/// board GSI entry; a match of a game with no definition writes what it wrote before
/// (held at 12 units above). Counted item by item by DynamoDB's published pricing.
#[tokio::test]
async fn each_defined_board_adds_its_entries_to_a_scored_match() {
    use podium_rules::board::definition::Definition;
    use podium_service::boards::definitions;

    let store = podium_tests::fixtures::dynamodb().await;
    let units = |lines: &[podium_store::dynamo::PricedWrite]| lines.iter().map(|l| l.units).sum::<u64>();
    for p in ["u-ana", "u-bob"] {
        podium_tests::fixtures::seed_balance(&store, p, 100, 1_000).await;
    }
    let score =
        |id: &str, n: i64| podium_tests::fixtures::rout(id, "u-ana", "u-bob", podium_tests::fixtures::at(n));
    podium_tests::contract::score_match(&store, &score("m-plain", 0), podium_tests::fixtures::now())
        .await
        .expect("scored");
    let plain = units(&store.last_price());
    let define = |id: &str, source: serde_json::Value| -> Definition {
        serde_json::from_value(serde_json::json!({
            "id": id, "title": id, "game": "seega", "source": source,
            "operator": "sum", "order": "higher_first", "schedule": {"kind": "all_time"},
        }))
        .expect("a definition")
    };
    let created = chrono::DateTime::parse_from_rfc3339("2026-11-01T00:00:00Z")
        .unwrap()
        .to_utc();
    for (id, source) in [
        ("seega-points-ever", serde_json::json!({"kind": "points"})),
        ("seega-matches-ever", serde_json::json!({"kind": "matches"})),
    ] {
        let before = store.usage();
        definitions::create(&store, define(id, source), "live-ops", created, 20, false)
            .await
            .expect("created");
        // A definition writes nothing per player (issue 46): its own items only.
        let used = store.usage().since(&before);
        println!(
            "create {id}: {} requests, {} read units, {} write units (DynamoDB Local)",
            used.requests,
            used.read_milli_units as f64 / 1000.0,
            used.write_milli_units as f64 / 1000.0
        );
        assert_eq!(used.write_requests, 1, "one transaction");
    }
    // New entries on both boards for both players, then entries that exist.
    let mut lines = Vec::new();
    for (id, n) in [("m-first", 1), ("m-again", 2)] {
        let before = store.usage();
        podium_tests::contract::score_match(&store, &score(id, n), podium_tests::fixtures::now())
            .await
            .expect("scored");
        let used = store.usage().since(&before);
        assert_eq!(used.write_requests, 1, "one transaction");
        println!(
            "{id}: {} requests, {} read units",
            used.requests,
            used.read_milli_units as f64 / 1000.0
        );
        lines.push(store.last_price());
    }
    for (what, l) in ["new entries", "existing entries"].iter().zip(&lines) {
        let entries: Vec<_> = l.iter().filter(|p| p.item == "period entry").collect();
        let marks: Vec<_> = l.iter().filter(|p| p.item == "change mark").collect();
        let extra = units(l) - plain;
        assert_eq!(
            extra,
            entries.iter().chain(&marks).map(|p| p.units).sum::<u64>(),
            "{what}: {l:#?}"
        );
        assert_eq!(marks.len(), 2, "one change mark a board: {l:#?}");
        // Two boards × two players.
        assert!(
            entries
                .iter()
                .filter(|p| p.write == podium_store::dynamo::Write::Put)
                .count()
                == 4,
            "{what}: {l:#?}"
        );
        println!("{what}: {plain} + {extra} write units");
    }
    // A new entry: 2 units in the transaction, 1 its GSI entry; one that exists: its
    // GSI key moves (2); and the board's change mark, 2. So 8 to 10 units a board for
    // a two-player match (docs/costs.md).
    assert_eq!(units(&lines[0]) - plain, 2 * (2 * 3 + 2), "new: {:#?}", lines[0]);
    assert_eq!(
        units(&lines[1]) - plain,
        2 * (2 * 4 + 2),
        "existing: {:#?}",
        lines[1]
    );
}
/// TM-7, issue 49's cost: a scored match of a player in a team adds to its one
/// transaction the team's entry on each team board it feeds (put, with its board GSI
/// entry), the team's contributions in the period (one state item), the board's change
/// mark and, the first time a member brings points there, a reference (GM-6); a match
/// of two players in no team writes exactly what a match writes with no team board
/// (one memberships read a player more). Counted item by item by DynamoDB's published
/// pricing (docs/costs.md).
#[tokio::test]
async fn a_team_member_adds_the_teams_entry_and_contributions_to_a_match() {
    use podium_rules::board::definition::Definition;
    use podium_service::boards::definitions;

    let store = podium_tests::fixtures::dynamodb().await;
    let units = |lines: &[podium_store::dynamo::PricedWrite]| lines.iter().map(|l| l.units).sum::<u64>();
    for p in ["u-ana", "u-bob", "u-cy", "u-dan"] {
        podium_tests::fixtures::seed_balance(&store, p, 100, 1_000).await;
    }
    let score = |id: &str, w: &str, l: &str, n: i64| {
        podium_tests::fixtures::rout(id, w, l, podium_tests::fixtures::at(n))
    };
    let now = podium_tests::fixtures::now();
    let before = store.usage();
    podium_tests::contract::score_match(&store, &score("m-t0", "u-cy", "u-dan", 0), now)
        .await
        .expect("scored");
    let used = store.usage().since(&before);
    let plain = units(&store.last_price());
    println!(
        "m-t0 (no team board): {} requests, {} read units, {plain} write units",
        used.requests,
        used.read_milli_units as f64 / 1000.0
    );
    let created = chrono::DateTime::parse_from_rfc3339("2026-11-01T00:00:00Z")
        .unwrap()
        .to_utc();
    let board: Definition = serde_json::from_value(serde_json::json!({
        "id": "seega-teams-weekly", "title": "Seega teams", "game": "seega", "source": {"kind": "points"},
        "operator": "sum", "order": "higher_first", "schedule": {"kind": "weekly", "zone": "UTC"},
        "teams": {"split": {"kind": "equal"}},
    }))
    .expect("a definition");
    definitions::create(&store, board, "live-ops", created, 20, false)
        .await
        .expect("created");
    let new: podium_service::teams::actions::NewTeam =
        serde_json::from_value(serde_json::json!({"name": "Night Owls", "access": "open"})).expect("a team");
    podium_service::teams::actions::create(
        &store,
        "u-ana",
        new,
        (&Default::default(), &Default::default()),
        podium_tests::fixtures::at(-60),
    )
    .await
    .expect("a team");
    // Two players in no team: what a match writes with no team board.
    let mut seen = Vec::new();
    for (id, w, l, n) in [
        ("m-t1", "u-cy", "u-dan", 1),
        ("m-t2", "u-ana", "u-bob", 2),
        ("m-t3", "u-ana", "u-bob", 3),
    ] {
        let before = store.usage();
        podium_tests::contract::score_match(&store, &score(id, w, l, n), now)
            .await
            .expect("scored");
        let used = store.usage().since(&before);
        assert_eq!(used.write_requests, 1, "one transaction");
        let lines = store.last_price();
        println!(
            "{id}: {} requests, {} read units, {} write units (plain {plain})",
            used.requests,
            used.read_milli_units as f64 / 1000.0,
            units(&lines)
        );
        seen.push(lines);
    }
    assert_eq!(units(&seen[0]), plain, "no team, no more: {:#?}", seen[0]);
    for (i, lines) in seen[1..].iter().enumerate() {
        let extra = units(lines) - plain;
        let team: Vec<_> = lines
            .iter()
            .filter(|p| matches!(p.item, "period entry" | "change mark" | "state" | "reference"))
            .collect();
        assert_eq!(extra, team.iter().map(|p| p.units).sum::<u64>(), "{lines:#?}");
        assert_eq!(
            team.iter().filter(|p| p.item == "state").count(),
            1,
            "the contributions: {lines:#?}"
        );
        assert_eq!(
            team.iter().filter(|p| p.item == "reference").count(),
            usize::from(i == 0),
            "a reference the first time only: {lines:#?}"
        );
        println!("a team member's match: {plain} + {extra} write units");
        assert!(extra <= 9, "{extra}: {lines:#?}");
    }
}
/// TM-1 … TM-5, issue 49's cost: the requests each change of a team and `GET
/// /v1/me/team` send to DynamoDB (docs/costs.md, "Teams"), and the write units of a
/// team's contributions item with 50 contributors, measured by the published pricing.
#[tokio::test]
async fn team_changes_cost_what_is_measured() {
    use podium_rules::board::definition::Definition;
    use podium_rules::team::TeamPolicy;
    use podium_service::boards::definitions;
    use podium_service::teams::{actions, view};

    let store = podium_tests::fixtures::dynamodb().await;
    let policy = TeamPolicy::default();
    let at = podium_tests::fixtures::at;
    let mut costs: Vec<(&str, u64, u64)> = Vec::new();
    macro_rules! cost {
        ($name:expr, $call:expr) => {{
            let before = store.usage();
            let out = $call.await.expect($name);
            let used = store.usage().since(&before);
            costs.push(($name, used.requests, used.write_requests));
            out
        }};
    }
    let new: actions::NewTeam =
        serde_json::from_value(serde_json::json!({"name": "Night Owls", "access": "open"})).expect("a team");
    let t = cost!(
        "create",
        actions::create(&store, "c-own", new, (&policy, &Default::default()), at(-600))
    )
    .team_id;
    cost!("join", actions::join(&store, "c-m1", &t, &policy, at(-590)));
    cost!("invite", actions::invite(&store, "c-own", &t, "c-inv", at(-580)));
    cost!(
        "GET /v1/me/team (one invitation)",
        view::mine(&store, "c-inv", &policy, at(-575))
    );
    cost!("leave", actions::leave(&store, "c-m1", &policy, at(-570)));
    actions::join(&store, "c-m2", &t, &policy, at(-560))
        .await
        .expect("joined");
    actions::join(&store, "c-m3", &t, &policy, at(-560))
        .await
        .expect("joined");
    cost!("pass", actions::pass(&store, "c-own", &t, "c-m2", at(-550)));
    cost!("remove", actions::remove(&store, "c-m2", &t, "c-own", at(-540)));
    cost!(
        "leave (the owner)",
        actions::leave(&store, "c-m2", &policy, at(-530))
    );
    let other: actions::NewTeam =
        serde_json::from_value(serde_json::json!({"name": "Early Birds", "access": "open"})).expect("a team");
    let o = actions::create(&store, "c-oth", other, (&policy, &Default::default()), at(-525))
        .await
        .expect("a team")
        .team_id;
    actions::invite(&store, "c-oth", &o, "c-m3", at(-522))
        .await
        .expect("invited");
    cost!(
        "GET /v1/me/team (a member, one invitation)",
        view::mine(&store, "c-m3", &policy, at(-520))
    );
    for (name, requests, writes) in &costs {
        println!("{name}: {requests} requests, {writes} write requests");
    }
    let measured: Vec<(&str, u64, u64)> = vec![
        ("create", 8, 4),
        ("join", 3, 1),
        ("invite", 4, 1),
        ("GET /v1/me/team (one invitation)", 2, 0),
        ("leave", 5, 1),
        ("pass", 4, 1),
        ("remove", 4, 1),
        ("leave (the owner)", 6, 1),
        ("GET /v1/me/team (a member, one invitation)", 4, 0),
    ];
    assert_eq!(costs, measured, "docs/costs.md, Teams");

    // A team of 50 contributors on a team board: the contributions item's write units
    // in the 50th member's match.
    let board: Definition = serde_json::from_value(serde_json::json!({
        "id": "seega-teams-weekly", "title": "Seega teams", "game": "seega", "source": {"kind": "points"},
        "operator": "sum", "order": "higher_first", "schedule": {"kind": "weekly", "zone": "UTC"},
        "teams": {"split": {"kind": "equal"}},
    }))
    .expect("a definition");
    definitions::create(&store, board, "live-ops", at(-1_000), 20, false)
        .await
        .expect("created");
    let new: actions::NewTeam =
        serde_json::from_value(serde_json::json!({"name": "Fifty Strong", "access": "open"}))
            .expect("a team");
    // Ids of 20 characters, as docs/costs.md counts them.
    let members: Vec<String> = (0..50).map(|i| format!("f-member-{i:011}")).collect();
    let big = actions::create(&store, &members[0], new, (&policy, &Default::default()), at(-500))
        .await
        .expect("a team")
        .team_id;
    for m in &members[1..] {
        actions::join(&store, m, &big, &policy, at(-490))
            .await
            .expect("joined");
    }
    let mut line = None;
    for (i, m) in members.iter().enumerate() {
        let record = podium_tests::fixtures::rout(&format!("f-match-{i}"), m, "f-rival", at(i as i64));
        podium_tests::contract::score_match(&store, &record, podium_tests::fixtures::now())
            .await
            .expect("scored");
        line = store.last_price().into_iter().find(|p| p.item == "state");
    }
    let line = line.expect("the contributions written");
    let list = view::contributions(&store, &big, "seega-teams-weekly", None, at(100))
        .await
        .expect("contributions");
    assert_eq!(list.members.len(), 50, "{list:?}");
    println!(
        "contributions of 50: {} bytes, {} write units",
        line.bytes, line.units
    );
    assert!(line.units <= 4, "{line:?}");
}
/// BD-8's cost: on a board players enter by joining, with `max_entrants`, a scored
/// match reads each player's joining (a GetItem each) and, for a new entrant, the
/// period's counter, which it writes in the same transaction (one state item); an
/// entrant already counted writes no counter, and a player who did not join no entry.
#[tokio::test]
async fn entry_rules_add_a_read_a_player_and_one_counter_write() {
    use podium_rules::board::definition::Definition;
    use podium_service::boards::definitions;

    let store = podium_tests::fixtures::dynamodb().await;
    for p in ["u-ana", "u-bob"] {
        podium_tests::fixtures::seed_balance(&store, p, 100, 1_000).await;
    }
    let created = chrono::DateTime::parse_from_rfc3339("2026-11-01T00:00:00Z")
        .unwrap()
        .to_utc();
    let cup: Definition = serde_json::from_value(serde_json::json!({
        "id": "seega-cup", "title": "Seega cup", "game": "seega", "source": {"kind": "points"},
        "operator": "sum", "order": "higher_first",
        "schedule": {"kind": "window", "start": "2026-11-15T00:00:00Z", "end": "2026-12-15T00:00:00Z"},
        "entry": {"join_required": true, "max_entrants": 10},
    }))
    .expect("a definition");
    definitions::create(&store, cup, "live-ops", created, 20, false)
        .await
        .expect("created");
    podium_service::players::joins::join(&store, "u-ana", "seega-cup", podium_tests::fixtures::at(-60))
        .await
        .expect("joined");
    // A match of two players who did not join: no entry, no counter; it also has this
    // process read (and keep) the game's definitions, so the two below compare alike.
    for p in ["u-cy", "u-dan"] {
        podium_tests::fixtures::seed_balance(&store, p, 100, 1_000).await;
    }
    let warm = podium_tests::fixtures::rout("m-cup-0", "u-cy", "u-dan", podium_tests::fixtures::at(0));
    podium_tests::contract::score_match(&store, &warm, podium_tests::fixtures::now())
        .await
        .expect("scored");
    assert!(!store.last_price().iter().any(|p| p.item == "period entry"));
    let mut seen = Vec::new();
    for (id, n) in [("m-cup-1", 1), ("m-cup-2", 2)] {
        let before = store.usage();
        let r = podium_tests::fixtures::rout(id, "u-ana", "u-bob", podium_tests::fixtures::at(n));
        podium_tests::contract::score_match(&store, &r, podium_tests::fixtures::now())
            .await
            .expect("scored");
        let used = store.usage().since(&before);
        assert_eq!(used.write_requests, 1, "one transaction");
        let lines = store.last_price();
        let entries = lines
            .iter()
            .filter(|p| p.item == "period entry" && p.write == podium_store::dynamo::Write::Put)
            .count();
        let counters = lines.iter().filter(|p| p.item == "state").count();
        println!(
            "{id}: {} requests, entries {entries}, counter writes {counters}",
            used.requests
        );
        seen.push((entries, counters, used.requests));
    }
    // ana's first value takes a place (the counter written); bob never joined.
    assert_eq!((seen[0].0, seen[0].1), (1, 1), "{seen:?}");
    // ana again: counted already, no counter write.
    assert_eq!((seen[1].0, seen[1].1), (1, 0), "{seen:?}");
    // The second match reads no counter: one request fewer.
    assert_eq!(seen[0].2, seen[1].2 + 1, "{seen:?}");
}
podium_tests::card_changes_tests!(podium_tests::fixtures::dynamodb);
podium_tests::export_scope_tests!(podium_tests::fixtures::dynamodb);
podium_tests::hidden_views_tests!(podium_tests::fixtures::dynamodb);
podium_tests::moderation_messages_tests!(podium_tests::fixtures::dynamodb);
podium_tests::publication_tests!(podium_tests::fixtures::dynamodb);
podium_tests::reserved_ids_tests!(podium_tests::fixtures::dynamodb);
podium_tests::unknown_boards_tests!(podium_tests::fixtures::dynamodb);
podium_tests::job_steps_tests!(podium_tests::fixtures::dynamodb);

/// LB-7: a short trace of the fleet at 2,000 records a second (the league spike of
/// Monday 00:00 in it) with 1,000 reads a second: no partition key of the table or a
/// GSI passes half of DynamoDB's per-partition limits in any second (heat by the
/// published pricing, `podium_store::dynamo::heat`); nothing lost or doubled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lb_7_no_partition_key_passes_half_its_limit_at_2000_a_second() {
    podium_tests::lb7::lb_7_no_partition_key_passes_half_its_limit_at_2000_a_second(
        podium_tests::fixtures::dynamodb().await,
    )
    .await;
}
podium_tests::push_tests!(podium_tests::fixtures::dynamodb);

fn live_event(route: &str, connection: &str, player: Option<&str>, body: Option<&str>) -> serde_json::Value {
    let mut e = serde_json::json!({"requestContext": {"routeKey": route, "connectionId": connection,
        "eventType": route.trim_start_matches('$').to_uppercase(), "stage": "live",
        "domainName": "abc.execute-api.eu-west-1.amazonaws.com"}});
    if let Some(p) = player {
        e["requestContext"]["authorizer"] = serde_json::json!({"principalId": p, "sub": p});
    }
    if let Some(b) = body {
        e["body"] = serde_json::json!(b);
    }
    e
}

/// LIVE-1, LIVE-2: the `live` function's routes on DynamoDB, as API Gateway's
/// WebSocket API invokes them: `$connect` stores the authorizer's player's connection
/// (a suspended account refused, 403), `$default` answers `watch` and `ping` by
/// posting a frame back (an unknown board refused naming it), `$disconnect` deletes
/// it; an event without the authorizer's principal is refused (401).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn live_function_routes_on_dynamodb() {
    let store = podium_tests::fixtures::dynamodb().await;
    let gateway = podium_tests::push::RecordingGateway::default();
    let now = chrono::Utc::now();
    let answer = live::handle(
        &store,
        &gateway,
        &live_event("$connect", "Zx1=", Some("ana"), None),
        now,
    )
    .await;
    assert_eq!(answer, serde_json::json!({"statusCode": 200}));
    assert_eq!(
        podium_service::push::connections::connections_of(&store, "ana", now)
            .await
            .expect("read")
            .len(),
        1
    );
    let no_principal = live::handle(&store, &gateway, &live_event("$connect", "Zx2=", None, None), now).await;
    assert_eq!(no_principal, serde_json::json!({"statusCode": 401}));
    let watch = r#"{"action": "watch", "boards": [{"board": "seega"}]}"#;
    let answer = live::handle(
        &store,
        &gateway,
        &live_event("$default", "Zx1=", Some("ana"), Some(watch)),
        now,
    )
    .await;
    assert_eq!(answer, serde_json::json!({"statusCode": 200}));
    let unknown = r#"{"action": "watch", "boards": [{"board": "chess"}]}"#;
    live::handle(
        &store,
        &gateway,
        &live_event("$default", "Zx1=", Some("ana"), Some(unknown)),
        now,
    )
    .await;
    live::handle(
        &store,
        &gateway,
        &live_event("$default", "Zx1=", Some("ana"), Some("{\"action\": \"ping\"}")),
        now,
    )
    .await;
    let frames = gateway.to("Zx1=");
    assert_eq!(
        frames[0],
        serde_json::json!({"type": "watching", "boards": [{"board": "seega", "view": "global"}]})
    );
    assert_eq!(frames[1]["type"], "error");
    assert!(
        frames[1]["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("boards[0].board (LIVE-2): no board `chess`"),
        "{}",
        frames[1]
    );
    assert_eq!(frames[2], serde_json::json!({"type": "pong"}));
    let answer = live::handle(
        &store,
        &gateway,
        &live_event("$disconnect", "Zx1=", Some("ana"), None),
        now,
    )
    .await;
    assert_eq!(answer, serde_json::json!({"statusCode": 200}));
    assert!(
        podium_service::push::connections::connections_of(&store, "ana", now)
            .await
            .expect("read")
            .is_empty()
    );
    // A suspended account (OP-4) cannot connect.
    podium_tests::fixtures::seed_balance(&store, "bob", 100, now.timestamp_millis()).await;
    podium_service::moderation::suspensions::suspend(
        &store,
        "bob",
        ("support-1", "a modified client"),
        30,
        now,
    )
    .await
    .expect("suspended");
    let refused = live::handle(
        &store,
        &gateway,
        &live_event("$connect", "Zx3=", Some("bob"), None),
        now,
    )
    .await;
    assert_eq!(refused, serde_json::json!({"statusCode": 403}));
}
