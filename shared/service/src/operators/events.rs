//! Inbox messages as events (EventBridge, deployed): every message a settlement adds to
//! a player's inbox ([`podium_rules::inbox`]) becomes one event, read from the table's
//! stream by the `events` function. A message is written once per cause (the
//! settlement's idempotency key), and the stream holds each write once; a stream
//! batch that is retried may publish an event again, so each event carries the
//! message's stable id (`detail.id`, `{player}/{message id}`) for subscribers to drop
//! repeats by.
//!
//! | field | value |
//! |---|---|
//! | `source` | [`SOURCE`] (`podium`) |
//! | `detail-type` | the message kind: `period_result`, `league_result`, `rank_up`, `overtaken` |
//! | `detail` | [`Detail`]: `id`, `player_id`, and the message as `GET /v1/me/inbox` shows it |

use podium_rules::inbox::Inbox;
use podium_rules::message::Message;
use serde::Serialize;

use crate::error::ServiceError;

/// The events' `source`.
pub const SOURCE: &str = "podium";

/// The state item whose changes are events: the inbox.
pub const INBOX_STATE: &str = podium_rules::inbox::STATE;

/// One event to publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The message kind (`overtaken`), the event's `detail-type`.
    pub detail_type: String,
    /// [`Detail`] as JSON.
    pub detail: String,
    /// `{player}/{message id}`: the same for every publication of one message.
    pub id: String,
}

/// An event's `detail`.
#[derive(Debug, Clone, Serialize)]
pub struct Detail<'a> {
    pub id: &'a str,
    pub player_id: &'a str,
    pub message: &'a Message,
}

pub(crate) fn inbox(body: Option<&str>, player_id: &str) -> Result<Inbox, ServiceError> {
    match body {
        None => Ok(Inbox::default()),
        Some(b) => serde_json::from_str(b).map_err(|e| {
            ServiceError::Store(podium_store::StoreError::corrupt(
                format!("inbox of {player_id}"),
                e,
            ))
        }),
    }
}

/// The events of one change of `player_id`'s inbox (bodies before and after, JSON;
/// `None`: absent): one per message in `new_body` that `old_body` does not hold, in
/// the inbox's order. A claim (a message changed, none added) and a removal are no
/// events. An old body that is no inbox counts as empty (every message of the new one
/// is published: repeats, not losses). Errors: a new body that is no inbox (corrupt).
pub fn inbox_events(
    player_id: &str,
    old_body: Option<&str>,
    new_body: Option<&str>,
) -> Result<Vec<Event>, ServiceError> {
    let old = inbox(old_body, player_id).unwrap_or_else(|e| {
        tracing::warn!(error = %e, "the old image of an inbox is unreadable; publishing all of the new one");
        Inbox::default()
    });
    let new = inbox(new_body, player_id)?;
    new.added_since(&old)
        .into_iter()
        .map(|m| {
            let id = format!("{player_id}/{}", m.id);
            let detail = serde_json::to_string(&Detail {
                id: &id,
                player_id,
                message: m,
            })
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("event", e)))?;
            let kind = serde_json::to_value(m.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            Ok(Event {
                detail_type: kind,
                detail,
                id,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::DateTime;

    #[test]
    fn one_event_per_message_added() {
        let at = DateTime::UNIX_EPOCH;
        let a = Message::rank_up("match", "m-1", 4_990, 5_010, at).expect("rank up");
        let b = Message::rank_up("match", "m-2", 19_990, 20_010, at).expect("rank up");
        let one = serde_json::to_string(&Inbox::default().with(a.clone())).expect("json");
        let two = serde_json::to_string(&Inbox::default().with(a).with(b)).expect("json");
        let first = inbox_events("p", None, Some(&one)).expect("events");
        assert_eq!(first.len(), 1);
        assert_eq!(
            (first[0].detail_type.as_str(), first[0].id.as_str()),
            ("rank_up", "p/ru:match:m-1")
        );
        let detail: serde_json::Value = serde_json::from_str(&first[0].detail).expect("detail");
        assert_eq!(detail["message"]["rank_up"]["rank_id"], "sergeant");
        let second = inbox_events("p", Some(&one), Some(&two)).expect("events");
        assert_eq!(
            second.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["p/ru:match:m-2"]
        );
        assert!(inbox_events("p", Some(&two), Some(&two))
            .expect("events")
            .is_empty());
        assert!(
            inbox_events("p", Some(&two), None).expect("events").is_empty(),
            "a deletion"
        );
        assert!(inbox_events("p", None, Some("not json")).is_err());
        let again = inbox_events("p", Some("not json"), Some(&two)).expect("events");
        assert_eq!(again.len(), 2, "an unreadable old image loses nothing");
    }
}
