//! Teams (clans, TM-1 … TM-7): players who rank together on team boards.
//!
//! - **Where a team lives.** Its state `team` under its key `@team:{id}` (an internal
//!   owner, [`podium_rules::team::team_key`]): name, avatar, country, access, the
//!   roster (owner and members by when they joined) and the pending invitations. Its
//!   card (name, avatar, country) is also the profile of its key, so every board
//!   machinery that shows a player's card shows a team's on a team board.
//! - **Memberships.** Each player's state `teams` ([`podium_rules::team::Memberships`]):
//!   their teams with when they joined and left, what TM-3's cooldown and TM-4's
//!   crediting read.
//! - **Every change is one settlement** ([`actions`]): the team's state and each
//!   player's memberships it changes, written together at the versions read (GM-3's
//!   commit path), so concurrent joins never pass the cap, a player is never in two
//!   teams, and a deleted player (GM-6) or a suspended one (OP-4) is refused by the
//!   commit's guard.
//! - **Team boards** are defined boards with `teams` (TM-7, BD-12): scored results
//!   feed them in their own commit ([`crate::engine::defined`]); their pages, cursors,
//!   snapshots and country views are the boards' own. A team's page of members by
//!   contribution is [`view::contributions`].
//! - **A suspended member** (OP-4) is hidden from the team's pages and their points
//!   withheld from its entries until restored ([`withholding`]).
//!
//! Uses [`crate::engine`] (settlements), [`crate::profiles`] (cards) and
//! [`crate::boards`] (who is hidden, defined boards).

pub mod actions;
pub mod view;
pub mod withholding;

use chrono::{DateTime, Utc};
use podium_rules::team::{Access, Roster};
use serde::{Deserialize, Serialize};

/// A team as its state holds it (TM-1, TM-2, TM-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Team {
    pub team_id: String,
    /// PF-1's rules.
    pub name: String,
    /// An avatar id of the configured set (PF-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    /// ISO 3166-1 alpha-2 (PF-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    pub access: Access,
    pub roster: Roster,
    /// Players invited and not yet joined, oldest first (at most [`MAX_INVITES`]).
    #[serde(default)]
    pub invites: Vec<String>,
    pub created_at: DateTime<Utc>,
    /// When its last member left (TM-5): a disbanded team takes no one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disbanded_at: Option<DateTime<Utc>>,
    /// Its card's revision: raised by every rename, so that a card written late (a
    /// delayed write, concurrent renames) never replaces a newer one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revision: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Pending invitations a team keeps (the oldest go first).
pub const MAX_INVITES: usize = 100;

impl Team {
    /// Whether the team stands (TM-5): not disbanded, and with a member. A team whose
    /// every member was deleted (GM-6: [`Team::without_deleted`] took them out) stands
    /// no more than one its last member left: no one can join it, act for it or see it.
    pub fn is_active(&self) -> bool {
        self.disbanded_at.is_none() && !self.roster.members.is_empty()
    }

    /// The team's card (PF-5) as boards show it.
    pub fn card(&self) -> podium_rules::profile::Card {
        podium_rules::profile::Card {
            name: Some(self.name.clone()),
            avatar: self.avatar.clone(),
            country: self.country.clone(),
        }
    }

    /// This team without deleted players' pseudonyms (GM-6: a deletion replaced their
    /// id): they are no members and hold no invitation; an owner deleted passes
    /// ownership on (TM-5).
    pub(crate) fn without_deleted(mut self) -> Self {
        use podium_rules::record::ids::is_reserved_id;
        self.invites.retain(|p| !is_reserved_id(p));
        let gone: Vec<String> = self
            .roster
            .members
            .iter()
            .filter(|(p, _)| is_reserved_id(p))
            .map(|(p, _)| p.clone())
            .collect();
        for p in gone {
            match self.roster.clone().without(&p) {
                Some(r) => self.roster = r,
                None => {
                    self.roster.members.clear();
                }
            }
        }
        self
    }
}

/// 404 naming the team.
pub(crate) fn no_team(team_id: &str) -> crate::error::ServiceError {
    crate::error::ServiceError::NotFound(format!("team {}", podium_rules::error::quoted(team_id)))
}

/// The team `team_id` as stored (strongly consistent), if it exists; a malformed id
/// is none (no read).
pub async fn read<S: podium_store::SettleStore + ?Sized>(
    store: &S,
    team_id: &str,
) -> Result<Option<Team>, crate::error::ServiceError> {
    Ok(read_all(store, &[team_id]).await?.pop().flatten())
}

/// The teams `team_ids` as stored (strongly consistent), in the order asked (`None`:
/// no such team, or a malformed id, which is not read): one GetItem for one, one
/// BatchGetItem for several.
pub async fn read_all<S: podium_store::SettleStore + ?Sized>(
    store: &S,
    team_ids: &[&str],
) -> Result<Vec<Option<Team>>, crate::error::ServiceError> {
    let keys: Vec<String> = team_ids
        .iter()
        .filter(|t| podium_rules::team::well_formed_team_id(t))
        .map(|t| podium_rules::team::team_key(t))
        .collect();
    let asked: Vec<(&str, &str)> = keys
        .iter()
        .map(|k| (k.as_str(), podium_rules::team::TEAM_STATE))
        .collect();
    let mut found = store.get_states(&asked).await?.into_iter().zip(keys.iter());
    let mut teams = Vec::with_capacity(team_ids.len());
    for team_id in team_ids {
        if !podium_rules::team::well_formed_team_id(team_id) {
            teams.push(None);
            continue;
        }
        let team = match found.next() {
            Some((Some(st), key)) => Some(
                serde_json::from_str::<Team>(&st.body)
                    .map_err(|e| {
                        crate::error::ServiceError::Store(podium_store::StoreError::corrupt(key, e))
                    })?
                    .without_deleted(),
            ),
            _ => None,
        };
        teams.push(team);
    }
    Ok(teams)
}
