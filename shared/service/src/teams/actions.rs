//! What players do with teams (TM-1 … TM-5): create, join (an open team, or one that
//! invited them), leave, invite, remove a member and pass ownership. Each is one
//! settlement (source `team`, a key of its own per call) that reads the team's state
//! and the memberships it changes and writes them together at the versions read: 20
//! concurrent joins of a team with 10 places admit exactly 10, and a player is never
//! a member of two teams. Doing again what is done (joining a team one is a member
//! of, inviting a member) writes nothing and answers the team as it is.

use chrono::{DateTime, Utc};
use podium_rules::profile::ProfilePolicy;
use podium_rules::settlement::{Planned, Settlement, StateChange};
use podium_rules::team::{team_key, Access, Memberships, Roster, TeamPolicy, MEMBERSHIPS_STATE, TEAM_STATE};
use podium_store::{SettleStore, SourceKey, Store};
use rand::Rng;
use serde::Deserialize;

use super::{no_team, Team, MAX_INVITES};
use crate::engine::names::hex_sha256;
use crate::engine::settle::settle;
use crate::engine::source::{ReadState, Reads, Source};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// The source kind of a team change.
pub const KIND: &str = "team";

/// A team as a player asks for it (TM-1).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTeam {
    /// PF-1's rules for names (3 to 24 characters that show).
    pub name: String,
    /// An avatar id of the configured set (PF-2).
    #[serde(default)]
    pub avatar: Option<String>,
    /// ISO 3166-1 alpha-2 (PF-3).
    #[serde(default)]
    pub country: Option<String>,
    /// `open` (anyone joins) or `invite_only`.
    pub access: Access,
}

/// One change of a team.
#[derive(Debug, Clone)]
enum Action {
    Create(Team),
    Join,
    /// Leaving; an owner's successor is the longest-standing member not among these
    /// (OP-4: suspended when the caller read the team).
    Leave(Vec<String>),
    /// Inviting a player; `false` for a player hidden when the caller checked (OP-4):
    /// nothing is written (a suspended account takes no write, and a team's
    /// invitation names them in no item), the team answered as it is, as any invite
    /// is, so that the answer tells nobody of a suspension.
    Invite(String, bool),
    Remove(String),
    Pass(String),
    /// An operator's rename (OP-5): the name checked already (PF-1).
    Rename(String),
    /// An operator's disbanding (OP-5): the team takes no one; each member's
    /// membership is ended by [`Action::Disbanded`].
    Disband,
    /// `player`'s membership of a team an operator disbanded, ended at its release
    /// (no cooldown, TM-3).
    Disbanded,
}

/// The `player` of an operator's change: no member, no memberships read.
const OPERATOR: &str = "@operator";

struct Change<'a> {
    team_id: &'a str,
    player: &'a str,
    action: Action,
    /// This call's own key part: every call is a change of its own.
    nonce: String,
    now: DateTime<Utc>,
    policy: TeamPolicy,
}

fn corrupt(key: &str, e: serde_json::Error) -> ServiceError {
    ServiceError::Store(podium_store::StoreError::corrupt(key, e))
}

fn forbidden(message: &str) -> ServiceError {
    ServiceError::Forbidden(message.to_string())
}

fn state(owner: &str, name: &str, body: &impl serde::Serialize) -> Result<StateChange, ServiceError> {
    Ok(StateChange {
        player_id: owner.to_string(),
        name: name.to_string(),
        body: serde_json::to_value(body).map_err(|e| corrupt(owner, e))?,
    })
}

/// What a change's record keeps (GM-3): the team only, so that it names no member
/// (a member list in every record would reference each member from each, GM-6); the
/// caller reads the team as it stands after.
#[derive(Debug, Clone, serde::Serialize, Deserialize)]
struct Changed {
    team_id: String,
}

impl Change<'_> {
    fn unchanged(&self) -> Planned<Changed> {
        Planned::Nothing(Changed {
            team_id: self.team_id.to_string(),
        })
    }

    fn written(
        &self,
        team: Team,
        members: Vec<(&str, Memberships)>,
    ) -> Result<Planned<Changed>, ServiceError> {
        let key = team_key(self.team_id);
        let mut s = Settlement::result_only(Changed {
            team_id: self.team_id.to_string(),
        });
        s.states.push(state(&key, TEAM_STATE, &team)?);
        for (player, m) in members {
            s.states.push(state(player, MEMBERSHIPS_STATE, &m)?);
        }
        Ok(Planned::Write(s))
    }
}

impl Source for Change<'_> {
    type Result = Changed;

    fn key(&self) -> SourceKey {
        SourceKey::new(KIND, format!("{}/{}/{}", self.team_id, self.player, self.nonce))
    }

    fn content_hash(&self) -> String {
        hex_sha256(&self.key().id)
    }

    fn reads(&self) -> Reads {
        let mut states = vec![(team_key(self.team_id), TEAM_STATE.to_string())];
        if self.player != OPERATOR {
            states.push((self.player.to_string(), MEMBERSHIPS_STATE.to_string()));
        }
        match &self.action {
            Action::Remove(member) | Action::Invite(member, true) => {
                states.push((member.clone(), MEMBERSHIPS_STATE.to_string()));
            }
            _ => {}
        }
        Reads {
            states,
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<Changed>, ServiceError> {
        let key = team_key(self.team_id);
        let stored: Option<Team> = match read.state(&key, TEAM_STATE) {
            Some(st) => Some(
                serde_json::from_str::<Team>(&st.body)
                    .map_err(|e| corrupt(&key, e))?
                    .without_deleted(),
            ),
            None => None,
        };
        let mine: Memberships = state_body(read, self.player, MEMBERSHIPS_STATE)?;
        let now_ms = self.now.timestamp_millis();
        let policy = &self.policy;
        if let Action::Create(team) = &self.action {
            if stored.is_some() {
                return Err(ServiceError::StateConflict {
                    field: "team_id",
                    rule: "TM-1",
                    message: "this team exists".into(),
                });
            }
            let mine = mine.joined(self.team_id, now_ms, policy)?;
            return self.written(team.clone(), vec![(self.player, mine)]);
        }
        if let Action::Disbanded = &self.action {
            // The membership of a team disbanded at `at`, if it is still the current one.
            // Ended at its release, not at the disbanding: a result of the member
            // scored in between counted for the team (TM-4), as their membership said.
            let Some(mine) = mine.disbanded(self.team_id, now_ms) else {
                return Ok(self.unchanged());
            };
            let mut s = Settlement::result_only(Changed {
                team_id: self.team_id.to_string(),
            });
            s.states.push(state(self.player, MEMBERSHIPS_STATE, &mine)?);
            return Ok(Planned::Write(s));
        }
        if let (Action::Leave(_), Some(t)) = (&self.action, &stored) {
            if t.disbanded_at.is_some() {
                // A member an interrupted disbanding did not release yet leaves it as
                // the disbanding would have released them (no cooldown, TM-3).
                let Some(mine) = mine.disbanded(self.team_id, now_ms) else {
                    return Err(ServiceError::NotFound("a team of yours".into()));
                };
                let mut s = Settlement::result_only(Changed {
                    team_id: self.team_id.to_string(),
                });
                s.states.push(state(self.player, MEMBERSHIPS_STATE, &mine)?);
                return Ok(Planned::Write(s));
            }
        }
        let mut team = stored
            .filter(Team::is_active)
            .ok_or_else(|| no_team(self.team_id))?;
        let member = team.roster.has(self.player);
        match &self.action {
            Action::Create(_) | Action::Disbanded => unreachable!("answered above"),
            Action::Rename(name) => {
                if team.name == *name {
                    return Ok(self.unchanged());
                }
                team.name = name.clone();
                team.revision += 1;
                self.written(team, Vec::new())
            }
            Action::Disband => {
                team.disbanded_at = Some(self.now);
                team.invites.clear();
                self.written(team, Vec::new())
            }
            Action::Join => {
                if member {
                    return Ok(self.unchanged());
                }
                let invited = team.invites.iter().any(|p| p == self.player);
                if team.access == Access::InviteOnly && !invited {
                    return Err(forbidden(
                        "team_id (TM-1): this team is invite-only: a member's invitation is needed",
                    ));
                }
                let mine = mine.joined(self.team_id, now_ms, policy)?;
                team.roster = team.roster.with(self.player, now_ms, policy)?;
                team.invites.retain(|p| p != self.player);
                self.written(team, vec![(self.player, mine)])
            }
            Action::Leave(passed_over) => {
                if !member {
                    return Err(ServiceError::NotFound("a team of yours".into()));
                }
                let mine = mine.left(now_ms).unwrap_or_default();
                match team.roster.clone().without_passing_over(self.player, passed_over) {
                    Some(r) => team.roster = r,
                    None => {
                        // TM-5: the last member gone, the team is disbanded (its roster
                        // kept as it was: who was in it last).
                        team.invites.clear();
                        team.disbanded_at = Some(self.now);
                    }
                }
                self.written(team, vec![(self.player, mine)])
            }
            Action::Invite(invited, recorded) => {
                if !member {
                    return Err(forbidden("team_id (TM-1): only the team's members invite"));
                }
                if !*recorded || team.roster.has(invited) || team.invites.contains(invited) {
                    return Ok(self.unchanged());
                }
                team.invites.push(invited.clone());
                let over = team.invites.len().saturating_sub(MAX_INVITES);
                team.invites.drain(..over);
                let theirs: Memberships = state_body(read, invited, MEMBERSHIPS_STATE)?;
                let changed = vec![(invited.as_str(), theirs.invited(self.team_id, now_ms))];
                self.written(team, changed)
            }
            Action::Remove(removed) => {
                if team.roster.owner != self.player {
                    return Err(forbidden("team_id (TM-5): only the team's owner removes members"));
                }
                if removed == self.player {
                    return Err(podium_rules::RuleError::new(
                        "player_id",
                        "TM-5",
                        "the owner leaves a team (POST /v1/me/team/leave) rather than removing themselves",
                    )
                    .into());
                }
                if !team.roster.has(removed) {
                    return Err(ServiceError::NotFound(format!(
                        "member {} of this team",
                        podium_rules::error::quoted(removed)
                    )));
                }
                let theirs: Memberships = state_body(read, removed, MEMBERSHIPS_STATE)?;
                let theirs = theirs.left(now_ms).unwrap_or_default();
                if let Some(r) = team.roster.clone().without(removed) {
                    team.roster = r;
                }
                self.written(team, vec![(removed.as_str(), theirs)])
            }
            Action::Pass(to) => {
                if team.roster.owner != self.player {
                    return Err(forbidden(
                        "team_id (TM-5): only the team's owner passes ownership",
                    ));
                }
                if to == self.player {
                    return Err(podium_rules::RuleError::new(
                        "player_id",
                        "TM-5",
                        "the caller owns this team already: name the member to pass it to",
                    )
                    .into());
                }
                team.roster = team.roster.passed_to(to)?;
                self.written(team, Vec::new())
            }
        }
    }

    fn id_field(&self) -> &'static str {
        "team_id"
    }
}

async fn change<S: SettleStore + ?Sized>(
    store: &S,
    team_id: &str,
    player: &str,
    action: Action,
    policy: &TeamPolicy,
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    // Milliseconds, as every instant of a team and a membership.
    let now = DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now);
    let source = Change {
        team_id,
        player,
        action,
        nonce: format!("{:016x}", rand::random::<u64>()),
        now,
        policy: *policy,
    };
    settle(store, &source, now).await?;
    // The team as it stands after (strongly consistent): a leave may have disbanded it.
    super::read(store, team_id).await?.ok_or_else(|| no_team(team_id))
}

/// A new team id (TM-1): 12 random characters of `0-9a-z`.
fn new_team_id() -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut rng = rand::rng();
    (0..podium_rules::team::TEAM_ID_LEN)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// `player` creates team `new` and is its owner and first member (TM-1 … TM-3).
/// Errors: [`ServiceError::Invalid`] naming `name` (PF-1), `avatar` (PF-2),
/// `country` (PF-3) or `team_id` (TM-2: a member of a team already; TM-3: within the
/// cooldown); [`ServiceError::Suspended`] for a suspended caller.
pub async fn create<S: Store + ?Sized>(
    store: &S,
    player: &str,
    new: NewTeam,
    (teams, profiles): (&TeamPolicy, &ProfilePolicy),
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    let name = podium_rules::profile::normalize_name(&new.name, profiles)?;
    let avatar = match new.avatar.as_deref() {
        Some(a) => Some(podium_rules::profile::check_avatar(a, profiles)?),
        None => None,
    };
    let country = match new.country.as_deref() {
        Some(c) => Some(podium_rules::profile::check_country(c)?),
        None => None,
    };
    let team_id = new_team_id();
    // TM-2, TM-3 checked before anything is written (the commit checks them again):
    // a refused creation leaves no card behind.
    crate::engine::defined::memberships_of(store, player)
        .await?
        .joined(&team_id, now.timestamp_millis(), teams)
        .map_err(as_caller)?;
    let team = Team {
        team_id: team_id.clone(),
        name,
        avatar,
        country,
        access: new.access,
        roster: Roster {
            owner: player.to_string(),
            members: vec![(player.to_string(), now.timestamp_millis())],
        },
        invites: Vec::new(),
        // Milliseconds, as every other instant of the team.
        created_at: DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now),
        disbanded_at: None,
        revision: 0,
    };
    // The card first: a team is never listed without it.
    write_card(store, &team, now).await?;
    match change(store, &team_id, player, Action::Create(team), teams, now).await {
        Ok(team) => Ok(team),
        Err(e @ (ServiceError::Invalid(_) | ServiceError::StateConflict { .. })) => {
            // Refused by the commit (a concurrent creation or join of the caller's
            // won): the card names nothing, and goes (an error here leaves it, named
            // by no team and listed nowhere).
            let key = crate::profiles::profile_key(&team_key(&team_id));
            let _ = store.delete_items(&[key]).await;
            Err(match e {
                ServiceError::Invalid(r) if r.field == "team_id" => as_caller(r).into(),
                e => e,
            })
        }
        Err(e) => Err(e),
    }
}

/// A creation's TM-2 or TM-3 refusal named `caller`: it is the caller's membership,
/// not the new team (whose id they never sent), that is refused.
fn as_caller(e: podium_rules::RuleError) -> podium_rules::RuleError {
    podium_rules::RuleError::new("caller", e.rule, e.message)
}

/// Writes `team`'s card as the profile of its key (PF-5): what boards show. The change
/// is recorded first (PF-5: a snapshot run reads the card again rather than reuse the
/// one it listed before).
pub(crate) async fn write_card<S: Store + ?Sized>(
    store: &S,
    team: &Team,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    crate::profiles::record_change(store, &team_key(&team.team_id), now).await?;
    let profile = podium_rules::profile::Profile {
        card: team.card(),
        ..Default::default()
    };
    let body = serde_json::to_vec(&Card {
        profile,
        revision: team.revision,
    })
    .map_err(|e| corrupt(&team.team_id, e))?;
    let key = crate::profiles::profile_key(&team_key(&team.team_id));
    // Written over an older revision only (a conditional write at the version read):
    // of concurrent renames, or a write delayed past a later one, the newest stands.
    for _ in 0..10 {
        let held = store.get_item(&key, true).await?;
        if let Some(item) = &held {
            let stored: Card = serde_json::from_slice(&item.body).map_err(|e| corrupt(&key.pk, e))?;
            if stored.revision > team.revision || (stored.revision == team.revision && item.body == body) {
                return Ok(());
            }
        }
        if store
            .put_item_if(&key, &body, held.map_or(0, |i| i.version))
            .await?
        {
            return Ok(());
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// A team's card as stored: the profile boards read, and the team's revision it shows.
#[derive(serde::Serialize, Deserialize)]
struct Card {
    #[serde(flatten)]
    profile: podium_rules::profile::Profile,
    #[serde(default)]
    revision: u64,
}

/// `player` joins team `team_id` (TM-1 … TM-3): an open team, or one that invited
/// them (accepting the invitation). Already a member: the team as it is. Errors:
/// [`ServiceError::NotFound`] (no such team, or disbanded), [`ServiceError::Forbidden`]
/// (invite-only, not invited), [`ServiceError::Invalid`] naming `team_id` (TM-2: full,
/// or a member of another team; TM-3: within the cooldown).
pub async fn join<S: Store + ?Sized>(
    store: &S,
    player: &str,
    team_id: &str,
    policy: &TeamPolicy,
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    if !podium_rules::team::well_formed_team_id(team_id) {
        return Err(no_team(team_id));
    }
    change(store, team_id, player, Action::Join, policy, now).await
}

/// `player` leaves their team (TM-5: an owner passes ownership to the longest-standing
/// member; the last member disbands it); the team as they left it. Errors:
/// [`ServiceError::NotFound`] when they are in no team.
pub async fn leave<S: Store + ?Sized>(
    store: &S,
    player: &str,
    policy: &TeamPolicy,
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    let mine = crate::engine::defined::memberships_of(store, player).await?;
    let Some(current) = mine.current() else {
        return Err(ServiceError::NotFound("a team of yours".into()));
    };
    let team_id = current.team_id.clone();
    // TM-5, OP-4: an owner's successor is no suspended member (one read of the team
    // and one of its members' guards, an owner's leave only).
    let mut passed_over = Vec::new();
    if let Some(team) = super::read(store, &team_id).await? {
        if team.roster.owner == player {
            let ids: Vec<&str> = team
                .roster
                .members
                .iter()
                .map(|(p, _)| p.as_str())
                .filter(|p| *p != player)
                .collect();
            let hidden = crate::boards::visibility::Hidden::among(store, &ids).await?;
            passed_over = ids
                .into_iter()
                .filter(|p| hidden.hides(p))
                .map(str::to_string)
                .collect();
        }
    }
    change(store, &team_id, player, Action::Leave(passed_over), policy, now).await
}

/// Checks what a member's action names before any read: a team id of podium's shape
/// (404 otherwise: no such team) and, as `player_id`, an account id (GM-5, GM-6).
fn about(team_id: &str, player_id: &str) -> Result<(), ServiceError> {
    if !podium_rules::team::well_formed_team_id(team_id) {
        return Err(no_team(team_id));
    }
    podium_rules::record::ids::check_player_id("player_id", player_id)?;
    Ok(())
}

/// Whether `player_id` is hidden from the teams' views (OP-4: suspended): one read of
/// their guard.
async fn hidden<S: Store + ?Sized>(store: &S, player_id: &str) -> Result<bool, ServiceError> {
    Ok(crate::boards::visibility::Hidden::among(store, &[player_id])
        .await?
        .hides(player_id))
}

/// `player`, a member of `team_id`, invites `invited` (TM-1). Errors:
/// [`ServiceError::Invalid`] naming `player_id` (no account id, GM-5/GM-6),
/// [`ServiceError::Forbidden`] (not a member), [`ServiceError::NotFound`].
pub async fn invite<S: Store + ?Sized>(
    store: &S,
    player: &str,
    team_id: &str,
    invited: &str,
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    about(team_id, invited)?;
    // The invitation joins the invitee's memberships (what they are shown to accept).
    // A suspended player is not invited (OP-4: their account takes no write), and the
    // answer is any invite's: the team's views hide suspended invitees as they hide
    // suspended members.
    let recorded = !hidden(store, invited).await?;
    let action = Action::Invite(invited.to_string(), recorded);
    change(store, team_id, player, action, &TeamPolicy::default(), now).await
}

/// The owner `player` removes `member` from `team_id` (TM-5; the member's cooldown
/// starts, TM-3). Errors: [`ServiceError::Forbidden`] (not the owner),
/// [`ServiceError::NotFound`] (no such team or member), [`ServiceError::BadRequest`]
/// naming `player_id` (the owner themselves).
pub async fn remove<S: Store + ?Sized>(
    store: &S,
    player: &str,
    team_id: &str,
    member: &str,
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    about(team_id, member)?;
    // OP-4: a suspended member is hidden from the team: answered as no member, so the
    // refusal tells nobody of a suspension (their membership stays until restored).
    if hidden(store, member).await? {
        return Err(ServiceError::NotFound(format!(
            "member {} of this team",
            podium_rules::error::quoted(member)
        )));
    }
    let action = Action::Remove(member.to_string());
    change(store, team_id, player, action, &TeamPolicy::default(), now).await
}

/// The owner `player` passes ownership of `team_id` to the member `to` (TM-5).
/// Errors: [`ServiceError::Forbidden`] (not the owner), [`ServiceError::Invalid`]
/// naming `player_id` (not a member), [`ServiceError::NotFound`].
pub async fn pass<S: Store + ?Sized>(
    store: &S,
    player: &str,
    team_id: &str,
    to: &str,
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    about(team_id, to)?;
    // OP-4: a suspended member is hidden from the team: no one to pass it to (refused
    // as any player who is no member, so the refusal tells nobody of a suspension).
    if hidden(store, to).await? {
        return Err(podium_rules::RuleError::new(
            "player_id",
            "TM-5",
            format!(
                "no member {} of this team to pass ownership to",
                podium_rules::error::quoted(to)
            ),
        )
        .into());
    }
    let action = Action::Pass(to.to_string());
    change(store, team_id, player, action, &TeamPolicy::default(), now).await
}

/// An operator renames team `team_id` (PF-1's rules for the name; OP-5: the caller
/// audits it); the team before and after, its card written after (boards show the new
/// name from the next refresh). Errors: [`ServiceError::Invalid`] naming `name`,
/// [`ServiceError::NotFound`].
pub async fn rename_by_operator<S: Store + ?Sized>(
    store: &S,
    team_id: &str,
    name: &str,
    profiles: &ProfilePolicy,
    now: DateTime<Utc>,
) -> Result<(Team, Team), ServiceError> {
    let name = podium_rules::profile::normalize_name(name, profiles)?;
    let before = super::read(store, team_id)
        .await?
        .filter(Team::is_active)
        .ok_or_else(|| no_team(team_id))?;
    let after = change(
        store,
        team_id,
        OPERATOR,
        Action::Rename(name),
        &TeamPolicy::default(),
        now,
    )
    .await?;
    // PF-5: the team boards it stands on are snapshotted again with the new card.
    crate::engine::changes::mark_entry_boards(store, &team_key(team_id), now.timestamp_millis()).await?;
    write_card(store, &after, now).await?;
    Ok((before, after))
}

/// An operator disbands team `team_id` (OP-5: the caller audits it): it takes no one
/// from `now`, and each member's membership ends at its release (one settlement each,
/// so a rerun finishes an interrupted disbanding; a member not released yet may leave
/// it, or is released by the rerun), with no cooldown (TM-3). Their points until then
/// stay with the team (TM-4). Answers the team as disbanded (a
/// team disbanded before: the members it still holds released again, nothing else).
/// Errors: [`ServiceError::NotFound`] (no such team).
pub async fn disband_by_operator<S: Store + ?Sized>(
    store: &S,
    team_id: &str,
    now: DateTime<Utc>,
) -> Result<Team, ServiceError> {
    let stored = super::read(store, team_id)
        .await?
        .ok_or_else(|| no_team(team_id))?;
    let team = match stored.disbanded_at {
        Some(_) => stored,
        None => {
            change(
                store,
                team_id,
                OPERATOR,
                Action::Disband,
                &TeamPolicy::default(),
                now,
            )
            .await?
        }
    };
    for (member, _) in &team.roster.members {
        change(
            store,
            team_id,
            member,
            Action::Disbanded,
            &TeamPolicy::default(),
            now,
        )
        .await?;
    }
    Ok(team)
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_store::embedded::EmbeddedStore;

    fn team(name: &str, revision: u64) -> Team {
        Team {
            team_id: "cardrace0001".into(),
            name: name.into(),
            avatar: None,
            country: None,
            access: Access::Open,
            roster: Roster {
                owner: "o".into(),
                members: vec![("o".into(), 0)],
            },
            invites: Vec::new(),
            created_at: DateTime::<Utc>::UNIX_EPOCH,
            disbanded_at: None,
            revision,
        }
    }

    /// PF-5: a card written late (a rename's write delayed past a later rename's) does
    /// not replace the newer one; the newer one written after an older does; writing
    /// the same card again changes nothing.
    #[tokio::test]
    async fn a_card_written_late_keeps_the_newer_revision() {
        let store = EmbeddedStore::in_memory().expect("a store");
        let now = DateTime::<Utc>::UNIX_EPOCH;
        let name = |store: EmbeddedStore| async move {
            crate::profiles::cards::card(&store, &team_key("cardrace0001"))
                .await
                .expect("a card")
                .name
        };
        write_card(&store, &team("Second Name", 2), now)
            .await
            .expect("written");
        write_card(&store, &team("First Name", 1), now)
            .await
            .expect("answered");
        assert_eq!(name(store.clone()).await.as_deref(), Some("Second Name"));
        write_card(&store, &team("Third Name", 3), now)
            .await
            .expect("written");
        write_card(&store, &team("Third Name", 3), now)
            .await
            .expect("again");
        assert_eq!(name(store.clone()).await.as_deref(), Some("Third Name"));
    }
}
