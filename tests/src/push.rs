//! The live feed's connections (LIVE-1, LIVE-2), on both stores: a player's open
//! connections, the cap that closes the oldest, the two-hour end, suspended and
//! deleted accounts refused, and `watch` replacing what a connection watches, an
//! unknown board refused naming it.

use chrono::{DateTime, Duration, Utc};
use podium_rules::push::{parse_client, ClientMessage, Watched, MAX_CONNECTIONS};
use podium_service::error::ServiceError;
use podium_service::push::connections::{connect, connections_of, disconnect, watch};
use podium_service::push::feed::on_change;
use podium_service::push::gateway::{Delivery, Gateway, Pusher};
use podium_store::stream::{Change, ItemImages, StateImages};
use podium_store::Store;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .expect("instant")
        .with_timezone(&Utc)
}

fn boards(json: &str) -> Vec<Watched> {
    match parse_client(json).expect("a client message") {
        ClientMessage::Watch { boards } => boards,
        other => panic!("a watch, got {other:?}"),
    }
}

/// LIVE-1: connections open and close; the sixth closes the oldest; a connection past
/// its two hours is no longer open (and is removed by the next connect).
pub async fn connections_open_close_and_end<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T10:00:00Z");
    for i in 0..MAX_CONNECTIONS {
        let closed = connect(
            &store,
            "ana",
            &format!("c{i}="),
            now + Duration::seconds(i as i64),
        )
        .await
        .expect("connect");
        assert!(closed.is_empty(), "{closed:?}");
    }
    let closed = connect(&store, "ana", "c5=", now + Duration::seconds(10))
        .await
        .expect("connect");
    assert_eq!(closed, vec!["c0=".to_string()], "the oldest is closed");
    let open = connections_of(&store, "ana", now + Duration::seconds(11))
        .await
        .expect("read");
    assert_eq!(
        open.iter().map(|c| c.connection_id.as_str()).collect::<Vec<_>>(),
        vec!["c1=", "c2=", "c3=", "c4=", "c5="]
    );
    // The same connection id again (a retried $connect) is one connection.
    assert!(connect(&store, "ana", "c5=", now + Duration::seconds(12))
        .await
        .expect("again")
        .is_empty());
    assert_eq!(
        connections_of(&store, "ana", now + Duration::seconds(13))
            .await
            .expect("read")
            .len(),
        5
    );
    disconnect(&store, "ana", "c3=").await.expect("disconnect");
    disconnect(&store, "ana", "c3=")
        .await
        .expect("a second disconnect is no error");
    assert_eq!(
        connections_of(&store, "ana", now + Duration::seconds(14))
            .await
            .expect("read")
            .len(),
        4
    );
    // Two hours later every one has ended; a new connect removes them.
    let later = now + Duration::hours(2) + Duration::seconds(30);
    assert!(connections_of(&store, "ana", later)
        .await
        .expect("read")
        .is_empty());
    assert!(connect(&store, "ana", "d0=", later)
        .await
        .expect("connect")
        .is_empty());
    assert_eq!(connections_of(&store, "ana", later).await.expect("read").len(), 1);
    // Another player's connections are theirs.
    assert!(connections_of(&store, "bo", later)
        .await
        .expect("read")
        .is_empty());
    // A connection id outside API Gateway's alphabet is refused before any key.
    assert!(matches!(
        connect(&store, "ana", "a#b", later).await,
        Err(ServiceError::Invalid(e)) if e.field == "connection_id"
    ));
}

/// LIVE-1: a suspended or deleted account cannot connect; a reserved id neither.
pub async fn hidden_accounts_cannot_connect<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T10:00:00Z");
    crate::fixtures::seed_balance(&store, "sus", 100, now.timestamp_millis()).await;
    podium_service::moderation::suspensions::suspend(
        &store,
        "sus",
        ("support-1", "a modified client"),
        30,
        now,
    )
    .await
    .expect("suspended");
    assert!(matches!(
        connect(&store, "sus", "s0=", now).await,
        Err(ServiceError::Forbidden(m)) if m.contains("suspended")
    ));
    crate::fixtures::seed_balance(&store, "gone", 100, now.timestamp_millis()).await;
    podium_service::operators::deletion::delete_player(&store, "gone", now)
        .await
        .expect("deleted");
    assert!(matches!(
        connect(&store, "gone", "g0=", now).await,
        Err(ServiceError::Forbidden(m)) if m.contains("deleted")
    ));
    assert!(connect(&store, "deleted-0123456789abcdef", "x0=", now)
        .await
        .is_err());
}

/// LIVE-1: connections of one player opened all at once stay within the cap: after
/// every connect has answered, at most 5 are open.
pub async fn connections_at_once_stay_within_the_cap<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T10:00:00Z");
    let connects = (0..12).map(|i| {
        let store = store.clone();
        async move { connect(&store, "rush", &format!("r{i:02}="), now).await }
    });
    let answers = futures::future::join_all(connects).await;
    assert!(
        answers
            .iter()
            .all(|a| matches!(a, Ok(_) | Err(ServiceError::Forbidden(_)))),
        "{answers:?}"
    );
    let open = connections_of(&store, "rush", now).await.expect("read");
    assert!(open.len() <= MAX_CONNECTIONS, "{} open", open.len());
    assert!(!open.is_empty());
}

/// LIVE-2: a watch replaces the last; an unknown board, a period the board does not
/// have and a country that is none are refused naming the field, and nothing changes;
/// a connection not open is not found.
pub async fn a_watch_names_existing_boards<S: Store + Clone + 'static>(store: S) {
    let now = t("2027-03-01T10:00:00Z");
    connect(&store, "cy", "w0=", now).await.expect("connect");
    let first = watch(
        &store,
        "cy",
        "w0=",
        boards(r#"{"action": "watch", "boards": [{"board": "seega"}, {"board": "mahjong-weekly", "view": "friends"}]}"#),
        now,
    )
    .await
    .expect("watched");
    assert_eq!(first.len(), 2);
    match watch(
        &store,
        "cy",
        "w0=",
        boards(r#"{"action": "watch", "boards": [{"board": "seega"}, {"board": "chess"}]}"#),
        now,
    )
    .await
    {
        Err(ServiceError::Invalid(e)) => assert_eq!(
            e.to_string(),
            "boards[1].board (LIVE-2): no board `chess`: watch a board `GET /v1/leaderboards` lists"
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
    // A period or a country the boards' routes refuse is refused here too (a watch of
    // it would never hear anything).
    for (json, refusal) in [
        (
            r#"{"action": "watch", "boards": [{"board": "mahjong-daily", "period": "2026-W49"}]}"#,
            "boards[0].period (LIVE-2): a day is named like 2026-11-30",
        ),
        (
            r#"{"action": "watch", "boards": [{"board": "seega"}, {"board": "seega", "period": "2026-12-06"}]}"#,
            "boards[1].period (LIVE-2): this board has the single period `all`",
        ),
        (
            r#"{"action": "watch", "boards": [{"board": "seega", "view": "country", "country": "ZZ"}]}"#,
            "boards[0].country (LIVE-2): `ZZ` is no ISO 3166-1 alpha-2 country code",
        ),
    ] {
        match watch(&store, "cy", "w0=", boards(json), now).await {
            Err(ServiceError::Invalid(e)) => assert_eq!(e.to_string(), refusal),
            other => panic!("{json}: expected a refusal, got {other:?}"),
        }
    }
    let open = connections_of(&store, "cy", now).await.expect("read");
    assert_eq!(open[0].watching, first, "the refused watches changed nothing");
    let second = watch(
        &store,
        "cy",
        "w0=",
        boards(r#"{"action": "watch", "boards": [{"board": "mahjong-level-7"}]}"#),
        now,
    )
    .await
    .expect("watched");
    assert_eq!(
        connections_of(&store, "cy", now).await.expect("read")[0].watching,
        second
    );
    assert!(matches!(
        watch(&store, "cy", "nope=", Vec::new(), now).await,
        Err(ServiceError::NotFound(_))
    ));
}

/// LIVE-3: a client that reconnects reads what it missed by `since`: the messages
/// the inbox received after the last it has, in arrival order (a match that arrived
/// late, dated before that message, is still listed); `since_found: false` (and every
/// message) when that one left the inbox.
pub async fn the_inbox_since_a_message<S: Store + Clone + 'static>(store: S) {
    use crate::fixtures::{at, now, rout, seed_balance};
    use podium_service::players::inbox::view_since;
    seed_balance(&store, "carol", 4_900, 1_000).await;
    seed_balance(&store, "dave", 6_000, 1_000).await;
    crate::contract::score_match(&store, &rout("m-up", "carol", "dave", at(60)), now())
        .await
        .expect("scored: a rank-up message (SG-12)");
    let all = view_since(&store, "carol", None).await.expect("inbox");
    assert_eq!((all.since_found, all.messages.len()), (None, 1));
    let had = all.messages[0].clone();
    assert_eq!(had.seq, 1);
    // Disconnected: two more arrive, the first about a match an hour before `had`.
    seed_balance(&store, "carol", 19_900, 2_000).await;
    crate::contract::score_match(&store, &rout("m-late", "carol", "dave", at(0)), now())
        .await
        .expect("scored late: a rank-up dated before the first");
    seed_balance(&store, "carol", 99_900, 3_000).await;
    crate::contract::score_match(&store, &rout("m-next", "carol", "dave", at(90)), now())
        .await
        .expect("scored: a third rank-up");
    let missed = view_since(&store, "carol", Some(&had.id)).await.expect("inbox");
    let mut ids: Vec<(&str, u64)> = missed.messages.iter().map(|m| (m.id.as_str(), m.seq)).collect();
    ids.sort_by_key(|(_, seq)| *seq);
    assert_eq!(
        (ids, missed.since_found),
        (vec![("ru:match:m-late", 2), ("ru:match:m-next", 3)], Some(true)),
        "exactly the two received after it, the late one included"
    );
    let newest = missed
        .messages
        .iter()
        .max_by_key(|m| m.seq)
        .expect("one")
        .id
        .clone();
    let nothing = view_since(&store, "carol", Some(&newest)).await.expect("inbox");
    assert_eq!((nothing.messages.len(), nothing.since_found), (0, Some(true)));
    let lost = view_since(&store, "carol", Some("ot:seega:all:gone"))
        .await
        .expect("inbox");
    assert_eq!(
        (lost.messages.len(), lost.since_found),
        (3, Some(false)),
        "every message"
    );
    assert_eq!(lost.unclaimed, all.unclaimed);
}

/// A gateway that records what is posted, with connections marked gone (API
/// Gateway's 410).
#[derive(Default)]
pub struct RecordingGateway {
    pub posted: std::sync::Mutex<Vec<(String, serde_json::Value)>>,
    pub gone: std::sync::Mutex<Vec<String>>,
    pub closed: std::sync::Mutex<Vec<String>>,
}

impl RecordingGateway {
    /// The frames posted to `connection`, in order.
    pub fn to(&self, connection: &str) -> Vec<serde_json::Value> {
        self.posted
            .lock()
            .expect("lock")
            .iter()
            .filter(|(c, _)| c == connection)
            .map(|(_, v)| v.clone())
            .collect()
    }
}

#[async_trait::async_trait]
impl Gateway for RecordingGateway {
    async fn post(&self, connection_id: &str, data: &str) -> Result<Delivery, ServiceError> {
        if self.gone.lock().expect("lock").iter().any(|c| c == connection_id) {
            return Ok(Delivery::Gone);
        }
        let v = serde_json::from_str(data).expect("a JSON frame");
        self.posted
            .lock()
            .expect("lock")
            .push((connection_id.to_string(), v));
        Ok(Delivery::Sent)
    }

    async fn close(&self, connection_id: &str) -> Result<Delivery, ServiceError> {
        self.closed.lock().expect("lock").push(connection_id.to_string());
        Ok(Delivery::Sent)
    }
}

/// The change of `player`'s inbox that `act` makes, as the stream carries it.
async fn inbox_change<S: Store, F: std::future::Future<Output = ()>>(
    store: &S,
    player: &str,
    act: F,
) -> Change {
    let body = |s: Option<podium_store::State>| s.map(|s| s.body);
    let old = body(store.get_state(player, "inbox").await.expect("read"));
    act.await;
    let new = body(store.get_state(player, "inbox").await.expect("read"));
    Change::State(StateImages {
        player_id: player.to_string(),
        name: "inbox".to_string(),
        old_body: old,
        new_body: new,
    })
}

/// LIVE-3: a message added to an inbox is pushed to each of the player's open
/// connections, exactly as `GET /v1/me/inbox` serves it; a player with no connection
/// has it in the inbox only; a gone connection (410) is deleted and not posted to
/// again.
pub async fn inbox_messages_are_pushed<S: Store + Clone + 'static>(store: S) {
    use crate::fixtures::{at, now, rout, seed_balance};
    use podium_service::players::inbox::view;
    let gateway = std::sync::Arc::new(RecordingGateway::default());
    let pusher = Pusher::new(gateway.clone());
    seed_balance(&store, "carol", 4_900, 1_000).await;
    seed_balance(&store, "erin", 4_900, 1_000).await;
    seed_balance(&store, "dave", 6_000, 1_000).await;
    let t0 = now();
    connect(&store, "carol", "phone=", t0).await.expect("connect");
    connect(&store, "carol", "tablet=", t0).await.expect("connect");
    let change = inbox_change(&store, "carol", async {
        crate::contract::score_match(&store, &rout("m-push", "carol", "dave", at(0)), now())
            .await
            .expect("scored: a rank-up (SG-12)");
    })
    .await;
    let sent = on_change(&store, &pusher, &change, t0).await.expect("pushed");
    assert_eq!((sent.sent, sent.dropped, sent.gone), (2, 0, 0));
    let inbox = view(&store, "carol").await.expect("inbox");
    let served = serde_json::to_value(&inbox.messages[0]).expect("json");
    for c in ["phone=", "tablet="] {
        assert_eq!(
            gateway.to(c),
            vec![serde_json::json!({"type": "message", "message": served})],
            "{c}: the message as the inbox serves it"
        );
    }
    // Not connected: the inbox only.
    let change = inbox_change(&store, "erin", async {
        crate::contract::score_match(&store, &rout("m-erin", "erin", "dave", at(1)), now())
            .await
            .expect("scored");
    })
    .await;
    let sent = on_change(&store, &pusher, &change, t0).await.expect("pushed");
    assert_eq!(sent.sent, 0);
    assert_eq!(view(&store, "erin").await.expect("inbox").messages.len(), 1);
    // The tablet is gone (410): deleted, never posted to again.
    gateway.gone.lock().expect("lock").push("tablet=".into());
    seed_balance(&store, "carol", 19_900, 2_000).await;
    let change = inbox_change(&store, "carol", async {
        crate::contract::score_match(&store, &rout("m-push-2", "carol", "dave", at(2)), now())
            .await
            .expect("scored: a second rank-up");
    })
    .await;
    let sent = on_change(&store, &pusher, &change, t0).await.expect("pushed");
    assert_eq!((sent.sent, sent.gone), (1, 1));
    let open = connections_of(&store, "carol", t0).await.expect("read");
    assert_eq!(
        open.iter().map(|c| c.connection_id.as_str()).collect::<Vec<_>>(),
        ["phone="]
    );
    let sent = on_change(&store, &pusher, &change, t0)
        .await
        .expect("pushed again");
    assert_eq!(
        (sent.sent, sent.gone),
        (1, 0),
        "the gone tablet is not tried again"
    );
    assert_eq!(gateway.to("tablet=").len(), 1);
}

/// LIVE-4: a connection gets at most 10 pushes a second; past it the pushes are
/// dropped and the client told once that it lags, with the last message it got.
pub async fn pushes_past_the_rate_cap_are_dropped<S: Store + Clone + 'static>(store: S) {
    use podium_rules::push::ServerMessage;
    let gateway = std::sync::Arc::new(RecordingGateway::default());
    let pusher = Pusher::new(gateway.clone());
    let t0 = t("2027-03-01T10:00:00Z");
    connect(&store, "ana", "busy=", t0).await.expect("connect");
    let connection = connections_of(&store, "ana", t0).await.expect("read").remove(0);
    for i in 0..12 {
        let message = ServerMessage::Message {
            message: Box::new(
                podium_rules::message::Message::rank_up("match", &format!("m-{i}"), 4_990, 5_010, t0)
                    .expect("a message"),
            ),
        };
        pusher
            .push(&store, &connection, &message, t0)
            .await
            .expect("push");
    }
    let frames = gateway.to("busy=");
    assert_eq!(frames.len(), 11, "ten, then one lagging notice");
    assert_eq!(
        frames[10],
        serde_json::json!({"type": "lagging", "since": "ru:match:m-9"})
    );
    // A tenth of a second later, one more push has budget again.
    let later = t0 + Duration::milliseconds(100);
    let message = ServerMessage::Message {
        message: Box::new(
            podium_rules::message::Message::rank_up("match", "m-12", 4_990, 5_010, t0).expect("a message"),
        ),
    };
    pusher
        .push(&store, &connection, &message, later)
        .await
        .expect("push");
    assert_eq!(gateway.to("busy=").len(), 12);
}

/// LIVE-3: a refresh that changes a watched board's pages sends each connection
/// watching it (global view, current period) one `board_changed` with the new
/// snapshot, once even when it watches the board twice in one view; a refresh that
/// changes nothing sends none; a country view of the board is not told of the board's
/// own pointer.
pub async fn a_refresh_that_changes_a_watched_board_notifies<S: Store + Clone + 'static>(store: S) {
    use crate::fixtures::{at, now, rout, seed_balance};
    use crate::overtaken::refresh;
    use podium_service::boards::snapshot::layout::current_key;
    let gateway = std::sync::Arc::new(RecordingGateway::default());
    let pusher = Pusher::new(gateway.clone());
    seed_balance(&store, "ana", 1_000, 1_000).await;
    seed_balance(&store, "bob", 900, 1_000).await;
    refresh(&store, 1).await;
    let t0 = now();
    for (c, json) in [
        ("top=", r#"{"action": "watch", "boards": [{"board": "seega"}]}"#),
        (
            "ro=",
            r#"{"action": "watch", "boards": [{"board": "seega", "view": "country", "country": "RO"}]}"#,
        ),
        (
            "twice=",
            r#"{"action": "watch", "boards": [{"board": "seega"}, {"board": "seega", "period": "all"}]}"#,
        ),
    ] {
        connect(&store, "watcher", c, t0).await.expect("connect");
        watch(&store, "watcher", c, boards(json), t0)
            .await
            .expect("watch");
    }
    let key = current_key(&podium_rules::board::BoardRef::new(
        "seega".to_string(),
        "all".to_string(),
    ));
    let pointer = |store: S| {
        let key = key.clone();
        async move {
            store
                .get_item(&key, true)
                .await
                .expect("read")
                .map(|i| String::from_utf8(i.body).expect("text"))
        }
    };
    let change = |old: Option<String>, new: Option<String>| {
        Change::Item(ItemImages {
            pk: "SNAP#seega@all".into(),
            sk: "CURRENT".into(),
            old_body: old,
            new_body: new,
        })
    };
    let before = pointer(store.clone()).await;
    crate::contract::score_match(&store, &rout("m-board", "bob", "ana", at(0)), now())
        .await
        .expect("scored");
    refresh(&store, 2).await;
    let after = pointer(store.clone()).await;
    assert_ne!(before, after, "a new pointer");
    let sent = on_change(&store, &pusher, &change(before, after.clone()), t0)
        .await
        .expect("pushed");
    assert_eq!(sent.sent, 2, "top= and twice=, once each");
    assert_eq!(
        gateway.to("twice=").len(),
        1,
        "one notice for a board watched twice in one view"
    );
    let published: serde_json::Value =
        serde_json::from_str(after.as_deref().expect("pointer")).expect("json");
    let frames = gateway.to("top=");
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["type"], "board_changed");
    assert_eq!(
        (&frames[0]["board"], &frames[0]["period"], &frames[0]["view"]),
        (
            &serde_json::json!("seega"),
            &serde_json::json!("all"),
            &serde_json::json!("global")
        )
    );
    assert_eq!(frames[0]["snapshot"], published["id"], "the new snapshot");
    assert!(gateway.to("ro=").is_empty());
    // A refresh that changed nothing: a new pointer, the same pages.
    refresh(&store, 3).await;
    let same = pointer(store.clone()).await;
    let sent = on_change(&store, &pusher, &change(after, same), t0)
        .await
        .expect("pushed");
    assert_eq!(sent.sent, 0, "no page changed");
    // A disconnected watcher is no longer told.
    disconnect(&store, "watcher", "top=").await.expect("disconnect");
    let watchers = podium_service::push::watchers::of_board(&store, "seega", t0.timestamp_millis())
        .await
        .expect("read");
    assert_eq!(
        watchers
            .iter()
            .map(|w| w.connection_id.as_str())
            .collect::<Vec<_>>()
            .len(),
        2
    );
    assert!(watchers.iter().all(|w| w.connection_id != "top="));
}

/// LIVE-4 deployed: a paced pusher posts at most its rate; pushes with no slot before
/// the deadline are dropped (at most once), not late.
pub async fn a_paced_pusher_drops_what_misses_its_deadline<S: Store + Clone + 'static>(store: S) {
    use podium_rules::push::ServerMessage;
    let gateway = std::sync::Arc::new(RecordingGateway::default());
    let pusher = Pusher::new(gateway.clone()).paced(100);
    let t0 = t("2027-03-01T10:00:00Z");
    let mut open = Vec::new();
    for i in 0..20 {
        let id = format!("p{i}=");
        connect(&store, &format!("pace-{i}"), &id, t0)
            .await
            .expect("connect");
        open.push(
            connections_of(&store, &format!("pace-{i}"), t0)
                .await
                .expect("read")
                .remove(0),
        );
    }
    let notice = ServerMessage::Pong;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(45);
    let mut sent = 0;
    for c in &open {
        if pusher
            .push_until(&store, c, &notice, t0, Some(deadline))
            .await
            .expect("push")
            == podium_service::push::gateway::Pushed::Sent
        {
            sent += 1;
        }
    }
    // Slots 10 ms apart from the first push: at most 5 before the deadline (fewer when
    // this machine is slow), the others dropped.
    assert!(
        (1..=5).contains(&sent),
        "100 a second for 45 ms: at most 5, got {sent}"
    );
    assert_eq!(gateway.posted.lock().expect("lock").len(), sent);
}

/// LIVE-1: a player suspended (OP-4) or deleted (GM-6) is disconnected: the stream's
/// record of their guard closes their connections and deletes them; a restore (the
/// guard removed) closes nothing.
pub async fn a_suspended_player_is_disconnected<S: Store + Clone + 'static>(store: S) {
    let gateway = std::sync::Arc::new(RecordingGateway::default());
    let pusher = Pusher::new(gateway.clone());
    let t0 = t("2027-03-01T10:00:00Z");
    connect(&store, "ana", "a1=", t0).await.expect("connect");
    connect(&store, "ana", "a2=", t0).await.expect("connect");
    connect(&store, "bob", "b1=", t0).await.expect("connect");
    let guard = |player: &str, body: Option<&str>| {
        Change::Item(ItemImages {
            pk: format!("DELETED#{player}"),
            sk: "TOMBSTONE".into(),
            old_body: None,
            new_body: body.map(str::to_string),
        })
    };
    let restored = on_change(&store, &pusher, &guard("bob", None), t0)
        .await
        .expect("pushed");
    assert_eq!(restored.gone, 0);
    let sent = on_change(
        &store,
        &pusher,
        &guard("ana", Some(r#"{"state": "suspended"}"#)),
        t0,
    )
    .await
    .expect("pushed");
    assert_eq!(sent.gone, 2);
    let mut closed = gateway.closed.lock().expect("lock").clone();
    closed.sort();
    assert_eq!(closed, ["a1=", "a2="]);
    assert!(connections_of(&store, "ana", t0).await.expect("read").is_empty());
    assert_eq!(connections_of(&store, "bob", t0).await.expect("read").len(), 1);
    let deleted = on_change(
        &store,
        &pusher,
        &guard("bob", Some(r#"{"pseudonym": "p-1"}"#)),
        t0,
    )
    .await
    .expect("pushed");
    assert_eq!(deleted.gone, 1, "a deletion's guard too");
}

/// The live feed's DynamoDB requests, held (docs/api.md, "Live feed"): what a connect,
/// a watch, a disconnect and an inbox change cost in reads (Get, Query) and writes.
pub async fn the_live_feeds_requests_are_held<S: Store + Clone + 'static>(store: S) {
    let counted = crate::counting::Counted::new(store.clone());
    let now = t("2027-03-01T10:00:00Z");
    let before = counted.counts();
    connect(&counted, "costly", "k1=", now).await.expect("connect");
    let after_connect = counted.counts();
    watch(
        &counted,
        "costly",
        "k1=",
        boards(r#"{"action": "watch", "boards": [{"board": "seega"}, {"board": "mahjong-weekly", "view": "friends"}]}"#),
        now,
    )
    .await
    .expect("watch");
    let after_watch = counted.counts();
    disconnect(&counted, "costly", "k1=").await.expect("disconnect");
    let after_disconnect = counted.counts();
    let gateway = std::sync::Arc::new(RecordingGateway::default());
    let pusher = Pusher::new(gateway);
    let change = Change::State(StateImages {
        player_id: "costly".into(),
        name: "inbox".into(),
        old_body: None,
        new_body: Some(
            serde_json::to_string(
                &podium_rules::inbox::Inbox::default().with(
                    podium_rules::message::Message::rank_up("match", "m-c", 4_990, 5_010, now)
                        .expect("a message"),
                ),
            )
            .expect("json"),
        ),
    });
    on_change(&counted, &pusher, &change, now).await.expect("pushed");
    let after_push = counted.counts();
    let diff = |a: (u64, u64), b: (u64, u64)| (b.0 - a.0, b.1 - a.1);
    assert_eq!(
        (
            diff(before, after_connect),
            diff(after_connect, after_watch),
            diff(after_watch, after_disconnect),
            diff(after_disconnect, after_push),
        ),
        // (reads, writes): a connect reads the guard, the player's connections, and
        // both again after its write; a watch reads the connections and writes the
        // connection and its 2 watcher items; a disconnect reads the connection and
        // deletes it and its watches; a message for a player with no connection is
        // one Query.
        ((4, 1), (1, 2), (1, 2), (1, 0)),
    );
}

#[macro_export]
macro_rules! push_tests {
    ($make:path) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_1_connections_open_close_and_end() {
            $crate::push::connections_open_close_and_end($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_1_hidden_accounts_cannot_connect() {
            $crate::push::hidden_accounts_cannot_connect($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_2_a_watch_names_existing_boards() {
            $crate::push::a_watch_names_existing_boards($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_3_inbox_messages_are_pushed() {
            $crate::push::inbox_messages_are_pushed($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_4_pushes_past_the_rate_cap_are_dropped() {
            $crate::push::pushes_past_the_rate_cap_are_dropped($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_3_a_refresh_that_changes_a_watched_board_notifies() {
            $crate::push::a_refresh_that_changes_a_watched_board_notifies($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_4_a_paced_pusher_drops_what_misses_its_deadline() {
            $crate::push::a_paced_pusher_drops_what_misses_its_deadline($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_1_connections_at_once_stay_within_the_cap() {
            $crate::push::connections_at_once_stay_within_the_cap($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_the_live_feeds_requests_are_held() {
            $crate::push::the_live_feeds_requests_are_held($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_1_a_suspended_player_is_disconnected() {
            $crate::push::a_suspended_player_is_disconnected($make().await).await;
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn live_3_the_inbox_since_a_message() {
            $crate::push::the_inbox_since_a_message($make().await).await;
        }
    };
}
