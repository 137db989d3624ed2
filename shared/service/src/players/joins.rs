//! Joining a defined board (BD-8): `POST /v1/boards/{board}/join`. On a board players
//! enter by joining (`join_required`, or a list of countries), a player's results
//! count from their joining on ([`crate::engine::defined`] reads it when a result
//! feeds the board); a board with countries admits only players whose profile names
//! one of them, checked here.
//!
//! A joining is a settlement (source `board-join`, idempotency key `{board}/{player}`)
//! that writes the player's state `board-join/{board}` (`{"joined_at": …}`): joining
//! again, or twice at once, answers as the first and writes nothing (GM-3); a deleted
//! player cannot join (GM-6: the commit's guard).

use chrono::{DateTime, Utc};
use podium_rules::board::definition::{join_state, Joined, Schedule};
use podium_rules::settlement::{Planned, Settlement, StateChange};
use podium_store::{SourceKey, Store};
use serde::{Deserialize, Serialize};

use crate::engine::names::hex_sha256;
use crate::engine::settle::settle;
use crate::engine::source::{ReadState, Reads, Source};
use crate::error::ServiceError;

/// The source kind of a joining.
pub const KIND: &str = "board-join";

/// The answer to a joining: the same for every repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct JoinAnswer {
    pub board: String,
    pub player_id: String,
    /// From when the caller's results count on the board (UTC): results of matches
    /// that ended before do not.
    pub joined_at: DateTime<Utc>,
}

struct Join<'a> {
    board: &'a str,
    player: &'a str,
    now: DateTime<Utc>,
}

impl Source for Join<'_> {
    type Result = JoinAnswer;

    fn key(&self) -> SourceKey {
        // `/` is in no board id nor player id: the key names one (board, player).
        SourceKey::new(KIND, format!("{}/{}", self.board, self.player))
    }

    fn content_hash(&self) -> String {
        hex_sha256(&self.key().id)
    }

    fn reads(&self) -> Reads {
        Reads {
            states: vec![(self.player.to_string(), join_state(self.board))],
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<JoinAnswer>, ServiceError> {
        let name = join_state(self.board);
        let before: Option<Joined> = match read.state(self.player, &name) {
            Some(s) => Some(
                serde_json::from_str(&s.body)
                    .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(self.player, e)))?,
            ),
            None => None,
        };
        let joined = before.clone().unwrap_or(Joined { joined_at: self.now });
        let mut s = Settlement::result_only(JoinAnswer {
            board: self.board.to_string(),
            player_id: self.player.to_string(),
            joined_at: joined.joined_at,
        });
        if before.is_none() {
            s.states.push(StateChange {
                player_id: self.player.to_string(),
                name,
                body: serde_json::to_value(&joined)
                    .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(self.player, e)))?,
            });
        }
        Ok(Planned::Write(s))
    }

    fn id_field(&self) -> &'static str {
        "board"
    }

    fn repeats_are_common(&self) -> bool {
        true
    }
}

fn refused(field: &'static str, message: impl Into<String>) -> ServiceError {
    ServiceError::StateConflict {
        field,
        rule: "BD-8",
        message: message.into(),
    }
}

/// `player` joins defined board `board` at `now`, exactly once (GM-3): every repeat
/// answers as the first (also once the board is retired or its window ended).
/// Errors: [`ServiceError::NotFound`] for no defined board of that id;
/// [`ServiceError::StateConflict`] (409, BD-8) for a built-in board or a defined one
/// players do not join (every player is on it), a retired board, a window that has
/// ended, or a board whose countries do not include the caller's profile's
/// (`country`).
pub async fn join<S: Store + ?Sized>(
    store: &S,
    player: &str,
    board: &str,
    now: DateTime<Utc>,
) -> Result<JoinAnswer, ServiceError> {
    if podium_rules::board::board_def(board).is_some() {
        return Err(refused(
            "board",
            "a built-in board takes every player: there is nothing to join",
        ));
    }
    let known = crate::boards::defined::resolve(store, board)
        .await?
        .ok_or_else(|| crate::boards::definitions::not_found(board))?;
    // Joined before: the first answer stands, whatever changed since.
    let source = Join { board, player, now };
    if store.get_state(player, &join_state(board)).await?.is_some() {
        return Ok(settle(store, &source, now).await?.result().clone());
    }
    if known.head.retired_at.is_some() {
        return Err(refused(
            "board",
            "this board is retired: it takes no one any more",
        ));
    }
    let definition = &known.in_force_at(now).definition;
    if let Schedule::Window { end, .. } = definition.schedule {
        if end <= now {
            return Err(refused("board", "this event has ended"));
        }
    }
    let entry = &definition.entry;
    if !entry.requires_join() {
        return Err(refused(
            "board",
            "this board counts every player's results: there is nothing to join",
        ));
    }
    if !entry.countries.is_empty() {
        let country = crate::profiles::cards::card(store, player).await?.country;
        if !entry.admits(country.as_deref()) {
            let named = match &country {
                Some(c) => format!("your profile's country is {c}"),
                None => "your profile names no country (PUT /v1/me/profile sets it)".to_string(),
            };
            return Err(refused(
                "country",
                format!(
                    "this board takes players of {}; {named}",
                    entry.countries.join(", ")
                ),
            ));
        }
    }
    Ok(settle(store, &source, now).await?.result().clone())
}
