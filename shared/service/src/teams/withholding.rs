//! A suspended member's points withheld from their teams' entries (OP-4, TM-7): while
//! suspended, each team board entry of a team they brought points to in a period drops
//! by their contribution there (the contribution list already hides them), and a
//! restore gives it back. Each (team, board and period) is one settlement of its own,
//! keyed by the suspension's instant: the team's entry and its contributions written
//! together at the versions read, exactly once whatever the repeats; the board is
//! marked changed first, so its next refresh shows the new total.
//!
//! Found through the player's references (GM-6: each contribution list that names
//! them), which the suspension reads with their partition anyway: no read of its own
//! for a player in no team, and no scan of any board.

use chrono::{DateTime, Utc};
use podium_rules::settlement::{BoardCredit, Planned, Settlement, StateChange};
use podium_rules::team::{team_of_key, Contributions};
use podium_store::{Named, SourceKey, Store};

use crate::engine::names::hex_sha256;
use crate::engine::settle::settle;
use crate::engine::source::{ReadState, Reads, Source};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// The source kind of a withholding or its return.
pub const KIND: &str = "team-withhold";

struct Withhold<'a> {
    /// The team's key (`@team:{id}`) and its contributions' state name.
    team: &'a str,
    name: &'a str,
    player: &'a str,
    /// True: withhold (a suspension); false: give back (a restore).
    withhold: bool,
    /// The suspension's start (UTC): what keys this one.
    since: DateTime<Utc>,
    now: DateTime<Utc>,
}

impl Withhold<'_> {
    /// The board and period of the contributions (`contributions/{board}@{period}`).
    fn board(&self) -> Option<(&str, &str)> {
        self.name.strip_prefix("contributions/")?.split_once('@')
    }
}

impl Source for Withhold<'_> {
    type Result = bool;

    fn key(&self) -> SourceKey {
        let what = if self.withhold { "off" } else { "on" };
        SourceKey::new(
            KIND,
            format!(
                "{}:{}:{}:{}",
                hex_sha256(&format!("{}/{}", self.team, self.name)),
                self.player,
                self.since.timestamp_millis(),
                what
            ),
        )
    }

    fn content_hash(&self) -> String {
        hex_sha256(&self.key().id)
    }

    fn reads(&self) -> Reads {
        Reads {
            states: vec![(self.team.to_string(), self.name.to_string())],
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<bool>, ServiceError> {
        let mut held: Contributions = state_body(read, self.team, self.name)?;
        let listed = held.withheld.iter().any(|p| p == self.player);
        let points = held.of(self.player);
        let Some((board, period)) = self.board() else {
            return Ok(Planned::Nothing(false));
        };
        if listed == self.withhold || points == 0 && !listed {
            return Ok(Planned::Nothing(false));
        }
        if self.withhold {
            held.withheld.push(self.player.to_string());
        } else {
            held.withheld.retain(|p| p != self.player);
        }
        let mut s = Settlement::result_only(true);
        s.credits.push(BoardCredit {
            board: board.to_string(),
            period: period.to_string(),
            player_id: self.team.to_string(),
            points: if self.withhold { -points } else { points },
            at: self.now,
        });
        s.states.push(StateChange {
            player_id: self.team.to_string(),
            name: self.name.to_string(),
            body: serde_json::to_value(&held)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(self.team, e)))?,
        });
        Ok(Planned::Write(s))
    }

    fn id_field(&self) -> &'static str {
        "player_id"
    }
}

/// Withholds (`withhold`) or gives back the points of `player`, suspended since
/// `since`, on every team board entry of a team they brought points to (see the
/// module notes), found among `refs` (the items that name them: their holdings'
/// references, read by the caller with their partition; a player in no team costs no
/// read here). Safe to repeat. Answers how many entries changed. Errors: the store's.
pub async fn apply<S: Store + ?Sized>(
    store: &S,
    player: &str,
    refs: &[Named],
    withhold: bool,
    since: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<usize, ServiceError> {
    let mut changed = 0;
    for named in refs {
        let Named::State { owner, name } = named else {
            continue;
        };
        if team_of_key(owner).is_none() || !name.starts_with("contributions/") {
            continue;
        }
        let source = Withhold {
            team: owner,
            name,
            player,
            withhold,
            since,
            now,
        };
        let Some((board, period)) = source.board() else {
            continue;
        };
        // Marked first: a change that lands is always refreshed (LB-5).
        let board = podium_rules::board::BoardRef::new(board, period);
        let mark = crate::engine::changes::mark_of(&board, owner, now.timestamp_millis());
        crate::engine::changes::raise(store, &mark).await?;
        if *settle(store, &source, now).await?.result() {
            changed += 1;
        }
    }
    Ok(changed)
}
