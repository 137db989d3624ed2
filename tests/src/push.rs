//! The live feed's connections (LIVE-1, LIVE-2), on both stores: a player's open
//! connections, the cap that closes the oldest, the two-hour end, suspended and
//! deleted accounts refused, and `watch` replacing what a connection watches, an
//! unknown board refused naming it.

use chrono::{DateTime, Duration, Utc};
use podium_rules::push::{parse_client, ClientMessage, Watched, MAX_CONNECTIONS};
use podium_service::error::ServiceError;
use podium_service::push::connections::{connect, connections_of, disconnect, watch};
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

/// LIVE-2: a watch replaces the last; an unknown board is refused naming it, and
/// nothing changes; a connection not open is not found.
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
    let open = connections_of(&store, "cy", now).await.expect("read");
    assert_eq!(open[0].watching, first, "the refused watch changed nothing");
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
        async fn live_3_the_inbox_since_a_message() {
            $crate::push::the_inbox_since_a_message($make().await).await;
        }
    };
}
