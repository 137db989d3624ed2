//! Connections of the live feed (LIVE-1, LIVE-2): one item a connection under its
//! player, `LIVE#{player}` / `CONN#{connection id}`, its body the connection's start,
//! end and watched boards (JSON), written with the end as its expiry (DynamoDB's TTL
//! deletes it within days; every read leaves out a connection past its end, so the
//! embedded store, which keeps it, answers the same).
//!
//! Costs (DynamoDB): a connect is one Query of the player's connections and one
//! PutItem (and a DeleteItem per connection closed past the cap); a watch is the same
//! Query and one PutItem; a disconnect one DeleteItem; the connections to push to, one
//! Query.

use chrono::{DateTime, Utc};
use podium_rules::error::{quoted, RuleError};
use podium_rules::push::{Watched, CONNECTION_TTL_SECS, MAX_CONNECTIONS};
use podium_store::{Account, ItemKey, ItemStore, SettleStore, SortKeyRange};

use crate::error::ServiceError;

const PREFIX: &str = "CONN#";

pub use super::connection::Connection;

fn pk(player_id: &str) -> String {
    format!("LIVE#{player_id}")
}

fn key(player_id: &str, connection_id: &str) -> ItemKey {
    ItemKey::new(pk(player_id), format!("{PREFIX}{connection_id}"))
}

/// A connection id as API Gateway gives it (`L0SM9cOFvHcCIhw=`): 1 to 128 characters
/// of `A–Z a–z 0–9 = + / _ -`. Anything else is refused (GM-5) before it reaches a key.
fn check_connection_id(id: &str) -> Result<(), ServiceError> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'=' | b'+' | b'/' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(ServiceError::Invalid(RuleError::new(
            "connection_id",
            "GM-5",
            "1 to 128 characters of A–Z a–z 0–9 = + / _ -",
        )))
    }
}

/// Every connection item of the player (open or past its end), oldest first.
async fn all_of<S: ItemStore + ?Sized>(store: &S, player_id: &str) -> Result<Vec<Connection>, ServiceError> {
    let items = store
        .query_items(&pk(player_id), &SortKeyRange::All, true, 1_000, true)
        .await?;
    let mut out: Vec<Connection> = items
        .into_iter()
        .filter(|(sk, _)| sk.starts_with(PREFIX))
        .filter_map(|(_, item)| serde_json::from_slice::<Connection>(&item.body).ok())
        .collect();
    out.sort_by_key(|c| (c.connected_at_ms, c.connection_id.clone()));
    Ok(out)
}

/// The player's open connections (LIVE-1), oldest first: those past their end left out.
pub async fn connections_of<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<Vec<Connection>, ServiceError> {
    let now_ms = now.timestamp_millis();
    Ok(all_of(store, player_id)
        .await?
        .into_iter()
        .filter(|c| c.ends_at_ms > now_ms)
        .collect())
}

/// Opens a connection for `player_id` (LIVE-1), at `now`, for at most
/// [`CONNECTION_TTL_SECS`]. Refused with [`ServiceError::Forbidden`] for a suspended or
/// deleted account (and an id of a reserved form: GM-5, GM-6). Returns the ids of the
/// connections closed to stay within [`MAX_CONNECTIONS`] (the oldest): the gateway
/// closes them.
pub async fn connect<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    player_id: &str,
    connection_id: &str,
    now: DateTime<Utc>,
) -> Result<Vec<String>, ServiceError> {
    podium_rules::record::ids::check_player_id("caller", player_id)?;
    check_connection_id(connection_id)?;
    match store.account(player_id).await? {
        Account::Active => {}
        Account::Suspended => return Err(ServiceError::Forbidden("this account is suspended (OP-4)".into())),
        Account::Deleted => return Err(ServiceError::Forbidden("this account was deleted (GM-6)".into())),
    }
    let now_ms = now.timestamp_millis();
    let (open, ended): (Vec<Connection>, Vec<Connection>) = all_of(store, player_id)
        .await?
        .into_iter()
        .filter(|c| c.connection_id != connection_id)
        .partition(|c| c.ends_at_ms > now_ms);
    let excess = (open.len() + 1).saturating_sub(MAX_CONNECTIONS);
    let closed: Vec<String> = open
        .iter()
        .take(excess)
        .map(|c| c.connection_id.clone())
        .collect();
    // The oldest past the cap, and those past their end (the embedded store keeps them),
    // with their watches.
    let gone: Vec<&Connection> = open.iter().take(excess).chain(ended.iter()).collect();
    for c in &gone {
        super::watchers::remove(store, c).await?;
    }
    let keys: Vec<ItemKey> = gone.iter().map(|c| key(player_id, &c.connection_id)).collect();
    if !keys.is_empty() {
        store.delete_items(&keys).await?;
    }
    let connection = Connection {
        connection_id: connection_id.to_string(),
        player_id: player_id.to_string(),
        connected_at_ms: now_ms,
        ends_at_ms: now_ms + CONNECTION_TTL_SECS * 1000,
        watching: Vec::new(),
    };
    write(store, &connection).await?;
    // Connects of one player at once each saw the others' items missing: after the
    // write, every one of them sees all, and each closes those past the cap (the same
    // oldest, whichever does). A suspension or deletion that landed meanwhile (its
    // stream record may have found this connection not yet written) undoes this one.
    let mut closed = closed;
    let now_open = connections_of(store, player_id, now).await?;
    let excess = now_open.len().saturating_sub(MAX_CONNECTIONS);
    let mut refused = false;
    for c in now_open.iter().take(excess) {
        if c.connection_id == connection_id {
            // Older than the others by its id (connected in the same millisecond).
            refused = true;
            store.delete_items(&[key(player_id, connection_id)]).await?;
            continue;
        }
        super::watchers::remove(store, c).await?;
        store.delete_items(&[key(player_id, &c.connection_id)]).await?;
        if !closed.contains(&c.connection_id) {
            closed.push(c.connection_id.clone());
        }
    }
    if refused {
        return Err(ServiceError::Forbidden(format!(
            "more than {MAX_CONNECTIONS} connections of this player opened at once (LIVE-1)"
        )));
    }
    match store.account(player_id).await? {
        Account::Active => Ok(closed),
        other => {
            store.delete_items(&[key(player_id, connection_id)]).await?;
            Err(ServiceError::Forbidden(match other {
                Account::Suspended => "this account is suspended (OP-4)".into(),
                _ => "this account was deleted (GM-6)".into(),
            }))
        }
    }
}

async fn write<S: ItemStore + ?Sized>(store: &S, c: &Connection) -> Result<(), ServiceError> {
    let body = serde_json::to_vec(c)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("connection", e)))?;
    store
        .put_items(
            &[(key(&c.player_id, &c.connection_id), body)],
            Some(c.ends_at_ms.div_euclid(1000) + 1),
        )
        .await?;
    Ok(())
}

/// Closes a connection (LIVE-1): its item and its watches deleted (one GetItem, then
/// the deletes); a connection already gone is no error.
pub async fn disconnect<S: ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    connection_id: &str,
) -> Result<(), ServiceError> {
    check_connection_id(connection_id)?;
    let key = key(player_id, connection_id);
    if let Some(item) = store.get_item(&key, true).await? {
        if let Ok(c) = serde_json::from_slice::<Connection>(&item.body) {
            super::watchers::remove(store, &c).await?;
        }
    }
    store.delete_items(&[key]).await?;
    Ok(())
}

/// Replaces what a connection watches (LIVE-2) with `boards`, already parsed by
/// [`podium_rules::push::parse_client`]. Every board must exist (a board of LB-1, a
/// level ranking or tournament standings, or a defined board): an unknown one is
/// refused naming `boards[i].board`, and nothing changes. [`ServiceError::NotFound`]
/// when the connection is not open. Returns the boards now watched.
pub async fn watch<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    player_id: &str,
    connection_id: &str,
    boards: Vec<Watched>,
    now: DateTime<Utc>,
) -> Result<Vec<Watched>, ServiceError> {
    check_connection_id(connection_id)?;
    for (i, w) in boards.iter().enumerate() {
        let built_in = podium_rules::board::board_def(&w.board);
        let defined = match built_in {
            Some(_) => None,
            None => crate::boards::defined::resolve(store, &w.board).await?,
        };
        // A tournament's standings exist once the tournament is configured (MJ-16).
        let tournament = match w.board.strip_prefix("mahjong-tournament-") {
            Some(id) if built_in.is_some() => crate::games::tournaments::exists(store, id).await?,
            _ => true,
        };
        let known = (built_in.is_some() && tournament) || defined.is_some();
        if !known {
            return Err(ServiceError::Invalid(RuleError::new(
                format!("boards[{i}].board"),
                "LIVE-2",
                format!(
                    "no board {}: watch a board `GET /v1/leaderboards` lists",
                    quoted(&w.board)
                ),
            )));
        }
        // A period and a country the boards' routes would refuse are refused here too:
        // a watch of them would never be told anything.
        if let Some(period) = &w.period {
            let refusal = match (built_in, &defined) {
                (Some(def), _) => podium_rules::period::Period::parse(def.period, def.zone, period)
                    .err()
                    .map(|e| e.message),
                (None, Some(d)) => d.period(Some(period), now).err().map(|e| match e {
                    ServiceError::BadRequest { message, .. } => message,
                    ServiceError::Invalid(e) => e.message,
                    other => other.to_string(),
                }),
                (None, None) => None,
            };
            if let Some(message) = refusal {
                return Err(ServiceError::Invalid(RuleError::new(
                    format!("boards[{i}].period"),
                    "LIVE-2",
                    message,
                )));
            }
        }
        if let Some(country) = &w.country {
            if let Err(e) = podium_rules::profile::check_country(country) {
                return Err(ServiceError::Invalid(RuleError::new(
                    format!("boards[{i}].country"),
                    "LIVE-2",
                    e.message,
                )));
            }
        }
    }
    let open = connections_of(store, player_id, now).await?;
    let Some(mut connection) = open.into_iter().find(|c| c.connection_id == connection_id) else {
        return Err(ServiceError::NotFound(
            "this connection is not open (LIVE-1)".into(),
        ));
    };
    let before = std::mem::replace(&mut connection.watching, boards);
    write(store, &connection).await?;
    super::watchers::replace(store, &connection, &before).await?;
    Ok(connection.watching)
}
