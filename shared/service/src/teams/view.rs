//! What the app shows of teams: a team with its members (cards filled, suspended
//! members hidden, OP-4), the caller's own team and memberships, and a team's members
//! ranked by what they brought on a team board in a period (TM-4, TM-7). Each is a
//! small constant number of reads: a team is one read of its state, one BatchGetItem
//! of its members' cards and one of their guards; a contribution list adds one read.

use chrono::{DateTime, TimeZone, Utc};
use podium_rules::leaderboard::RankCounter;
use podium_rules::profile::Card;
use podium_rules::team::{team_key, Access, Memberships, TeamPolicy};
use podium_store::Store;
use serde::Serialize;

use super::{no_team, Team};
use crate::boards::visibility::Hidden;
use crate::error::ServiceError;

/// A member as a team's page lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Member {
    pub player_id: String,
    pub card: Card,
    /// When they joined (UTC).
    pub joined_at: DateTime<Utc>,
    /// Suspended (OP-4): listed to operators only, who see every member.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub suspended: bool,
}

/// A team as the app shows it (TM-1, TM-2, TM-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TeamView {
    /// 12 characters of `0-9a-z`.
    pub team_id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// `open` or `invite_only`.
    pub access: Access,
    /// The owner (TM-5); absent while they are suspended (OP-4: hidden with them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Members, longest-standing first (suspended members hidden, OP-4).
    pub members: Vec<Member>,
    /// Members in all, the hidden included (TM-2: what the cap counts).
    pub member_count: usize,
    /// The most members it may hold (TM-2).
    pub member_cap: u32,
    /// Players invited and not yet joined: shown to members only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invites: Option<Vec<String>>,
    pub created_at: DateTime<Utc>,
    /// When disbanded (TM-5, OP-5): shown to operators only, with its last members.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disbanded_at: Option<DateTime<Utc>>,
}

fn instant(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms)
        .single()
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
}

/// `team` as `viewer` sees it: members' cards (one BatchGetItem), suspended members
/// hidden (one BatchGetItem of their guards); invitations when `viewer` is a member.
pub async fn of<S: Store + ?Sized>(
    store: &S,
    team: Team,
    viewer: &str,
    policy: &TeamPolicy,
) -> Result<TeamView, ServiceError> {
    let viewer = if team.roster.has(viewer) {
        Viewer::Member
    } else {
        Viewer::Player
    };
    seen_by(store, team, viewer, policy).await
}

/// Who looks at a team: what they are shown of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Viewer {
    /// A player who is no member: its members not suspended (OP-4), no invitations.
    Player,
    /// A member: also its invitations (suspended invitees hidden, OP-4).
    Member,
    /// Support: also its suspended members (marked `suspended`) and its owner
    /// whatever their account.
    Operator,
}

/// `team` as `viewer` is shown it.
async fn seen_by<S: Store + ?Sized>(
    store: &S,
    team: Team,
    viewer: Viewer,
    policy: &TeamPolicy,
) -> Result<TeamView, ServiceError> {
    let operator = viewer == Viewer::Operator;
    let ids: Vec<&str> = team.roster.members.iter().map(|(p, _)| p.as_str()).collect();
    // OP-4: suspended members, and suspended invitees where invitations are shown,
    // are hidden (one read of their guards).
    let shown_invites = viewer != Viewer::Player;
    let named: Vec<&str> = ids
        .iter()
        .copied()
        .chain(team.invites.iter().filter(|_| shown_invites).map(String::as_str))
        .collect();
    let hidden = Hidden::among(store, &named).await?;
    let cards = crate::profiles::cards::cards(store, &ids).await?;
    let members = team
        .roster
        .members
        .iter()
        .filter(|(p, _)| operator || !hidden.hides(p))
        .map(|(p, joined)| Member {
            player_id: p.clone(),
            card: cards.get(p).cloned().unwrap_or_default(),
            joined_at: instant(*joined),
            suspended: hidden.hides(p),
        })
        .collect();
    let owner = Some(team.roster.owner).filter(|o| operator || !hidden.hides(o));
    Ok(TeamView {
        member_count: team.roster.members.len(),
        member_cap: policy.member_cap,
        invites: shown_invites.then(|| {
            team.invites
                .iter()
                .filter(|p| operator || !hidden.hides(p))
                .cloned()
                .collect()
        }),
        team_id: team.team_id,
        name: team.name,
        avatar: team.avatar,
        country: team.country,
        access: team.access,
        owner,
        members,
        created_at: team.created_at,
        disbanded_at: team.disbanded_at,
    })
}

/// Team `team_id` as `viewer` sees it. Errors: [`ServiceError::NotFound`] (no such
/// team, or disbanded).
pub async fn team<S: Store + ?Sized>(
    store: &S,
    team_id: &str,
    viewer: &str,
    policy: &TeamPolicy,
) -> Result<TeamView, ServiceError> {
    let team = super::read(store, team_id)
        .await?
        .filter(Team::is_active)
        .ok_or_else(|| no_team(team_id))?;
    of(store, team, viewer, policy).await
}

/// One membership as the caller's own view lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct MembershipView {
    pub team_id: String,
    pub joined_at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_at: Option<DateTime<Utc>>,
    /// Ended by an operator's disbanding of the team: no cooldown followed (TM-3).
    pub disbanded: bool,
}

/// An invitation the caller may accept by joining (TM-1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct InvitationView {
    pub team_id: String,
    /// The team's name now.
    pub name: String,
    /// Members now (TM-2: a full team refuses the join).
    pub member_count: usize,
    pub invited_at: DateTime<Utc>,
}

/// The caller's team and memberships (`GET /v1/me/team`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct MyTeam {
    /// Their team now; absent when in none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<TeamView>,
    /// Their memberships, oldest first (TM-4: what their points counted for).
    pub memberships: Vec<MembershipView>,
    /// When in no team and within TM-3's cooldown: from when they may join one (UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub may_join_at: Option<DateTime<Utc>>,
    /// Of the player's [`podium_rules::team::MAX_INVITATIONS`] newest invitations,
    /// those that still stand (the team holds it, and has room, TM-2), oldest first:
    /// joining the team accepts one.
    pub invitations: Vec<InvitationView>,
}

/// `player`'s team, memberships and invitations, at `now`: one read of their
/// memberships, then one of their team and the teams that invited them together (a
/// BatchGetItem when there are several; at most
/// [`podium_rules::team::MAX_INVITATIONS`] invitations), and a member's team page.
pub async fn mine<S: Store + ?Sized>(
    store: &S,
    player: &str,
    policy: &TeamPolicy,
    now: DateTime<Utc>,
) -> Result<MyTeam, ServiceError> {
    let held: Memberships = crate::engine::defined::memberships_of(store, player).await?;
    // The caller's team and the teams that invited them, in one read.
    let current = held.current().map(|m| m.team_id.as_str());
    let ids: Vec<&str> = current
        .into_iter()
        .chain(held.invitations.iter().map(|i| i.team_id.as_str()))
        .collect();
    let mut read = super::read_all(store, &ids).await?.into_iter();
    let team = match current.and_then(|_| read.next()).flatten() {
        Some(t) if t.is_active() => Some(of(store, t, player, policy).await?),
        _ => None,
    };
    let last_left = held
        .history
        .last()
        .filter(|m| !m.disbanded)
        .and_then(|m| m.left_ms);
    let may_join_at = match (held.current(), last_left) {
        (None, Some(left)) => Some(instant(left.saturating_add(policy.cooldown_ms))).filter(|t| *t > now),
        _ => None,
    };
    let mut invitations = Vec::new();
    for (i, t) in held.invitations.iter().zip(read) {
        let Some(t) = t else { continue };
        // One the caller could accept now: the team holds it and has room (TM-2; a
        // full team's invitation shows again when a place frees up).
        let room = !t.roster.is_full(policy);
        if t.is_active() && room && t.invites.iter().any(|p| p == player) {
            invitations.push(InvitationView {
                team_id: t.team_id,
                name: t.name,
                member_count: t.roster.members.len(),
                invited_at: instant(i.at_ms),
            });
        }
    }
    Ok(MyTeam {
        team,
        invitations,
        memberships: held
            .history
            .iter()
            .map(|m| MembershipView {
                team_id: m.team_id.clone(),
                joined_at: instant(m.joined_ms),
                left_at: m.left_ms.map(instant),
                disbanded: m.disbanded,
            })
            .collect(),
        may_join_at,
    })
}

/// A member's line on a team's contribution list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ContributionLine {
    /// 1-based; equal contributions share a rank (LB-2).
    pub rank: u64,
    pub player_id: String,
    pub card: Card,
    /// Points (or the board's unit) they brought the team in the period.
    pub value: i64,
}

/// A team's members ranked by what they brought on a team board in one period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ContributionList {
    pub team_id: String,
    pub board: String,
    pub period: String,
    /// The sum of the values listed: the team's total without its hidden members.
    pub total: i64,
    pub members: Vec<ContributionLine>,
}

/// Team `team_id`'s members ranked by what they brought on team board `board` in
/// `period` (the current one by default), suspended members hidden and left out of
/// the total (OP-4); a member who left keeps their line (TM-4). Four reads: the
/// board's definition (kept by the process), the team, the contributions, the
/// members' cards and guards (one BatchGetItem each). Errors:
/// [`ServiceError::NotFound`] (no such team or defined board), 400 naming `board`
/// (TM-7: a board of players) or `period` (BD-6).
pub async fn contributions<S: Store + ?Sized>(
    store: &S,
    team_id: &str,
    board: &str,
    period: Option<&str>,
    now: DateTime<Utc>,
) -> Result<ContributionList, ServiceError> {
    let players_board = || {
        ServiceError::Invalid(podium_rules::RuleError::new(
            "board",
            "TM-7",
            "this board ranks players, not teams",
        ))
    };
    // A built-in board ranks players (its definition is no player's business).
    if podium_rules::board::board_def(board).is_some() {
        return Err(players_board());
    }
    let known = crate::boards::defined::resolve(store, board)
        .await?
        .ok_or_else(|| crate::boards::definitions::not_found(board))?;
    if known.versions.iter().all(|v| v.definition.teams.is_none()) {
        return Err(players_board());
    }
    let (period, _) = known.period(period, now)?;
    if super::read(store, team_id).await?.is_none() {
        return Err(no_team(team_id));
    }
    let at = podium_rules::board::BoardRef::new(board, period.id.clone());
    let name = podium_rules::team::contributions_state(&at.key());
    let key = team_key(team_id);
    let (held, _) = crate::engine::defined::contributions_of(store, &key, &name).await?;
    let ranked = held.ranked();
    let ids: Vec<&str> = ranked.iter().map(|(p, _)| p.as_str()).collect();
    let hidden = Hidden::among(store, &ids).await?;
    let cards = crate::profiles::cards::cards(store, &ids).await?;
    let mut counter = RankCounter::top();
    let mut total = 0i64;
    let mut members = Vec::new();
    // Suspended members hidden (OP-4), and members whose points the team's entry
    // withholds (suspended, or deleted while suspended): the total is the entry's.
    for (p, value) in ranked
        .iter()
        .filter(|(p, _)| !hidden.hides(p) && !held.withheld.contains(p))
    {
        total = total.saturating_add(*value);
        members.push(ContributionLine {
            rank: counter.next(*value),
            player_id: p.clone(),
            card: cards.get(p).cloned().unwrap_or_default(),
            value: *value,
        });
    }
    Ok(ContributionList {
        team_id: team_id.to_string(),
        board: board.to_string(),
        period: period.id,
        total,
        members,
    })
}

/// Whether `board` is a team board (TM-7): its definition (the process's copy) says
/// `teams`. Built-in boards and unknown ids are not.
pub async fn is_team_board<S: Store + ?Sized>(store: &S, board: &str) -> Result<bool, ServiceError> {
    if podium_rules::board::board_def(board).is_some() {
        return Ok(false);
    }
    Ok(crate::boards::defined::resolve(store, board)
        .await?
        .is_some_and(|k| k.versions.iter().any(|v| v.definition.teams.is_some())))
}

/// Whose entry stands for `player` on `board`: on a team board (TM-7) their team's
/// (its key), else their own. The board's definition is the process's copy (no read
/// while kept); a team board adds one read of the caller's memberships. Errors:
/// [`ServiceError::NotFound`] on a team board for a caller in no team.
pub async fn subject<S: Store + ?Sized>(
    store: &S,
    board: &str,
    player: &str,
) -> Result<String, ServiceError> {
    if podium_rules::board::board_def(board).is_some() {
        return Ok(player.to_string());
    }
    let Some(known) = crate::boards::defined::resolve(store, board).await? else {
        return Ok(player.to_string());
    };
    if known.versions.iter().all(|v| v.definition.teams.is_none()) {
        return Ok(player.to_string());
    }
    let held = crate::engine::defined::memberships_of(store, player).await?;
    match held.current() {
        Some(m) => Ok(team_key(&m.team_id)),
        None => Err(ServiceError::NotFound(
            "a team of yours: a team board ranks teams, join one to stand on it".into(),
        )),
    }
}

/// Team `team_id` as operators see it (the support console): every member, the
/// suspended among them marked `suspended` (OP-4 hides them from players, not from
/// support), its owner whatever their account, its invitations; a disbanded team too
/// (with no members left). Errors: [`ServiceError::NotFound`].
pub async fn for_operator<S: Store + ?Sized>(
    store: &S,
    team_id: &str,
    policy: &TeamPolicy,
) -> Result<TeamView, ServiceError> {
    let team = super::read(store, team_id)
        .await?
        .ok_or_else(|| no_team(team_id))?;
    seen_by(store, team, Viewer::Operator, policy).await
}
