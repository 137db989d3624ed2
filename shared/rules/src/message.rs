//! The messages podium sends a player (a closed period's result with its reward, a
//! league week's result, a Seega rank reached, being overtaken): what a settlement
//! carries to the inbox ([`crate::inbox`] keeps them, with its caps).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::game::Game;
use crate::league::{CohortResult, LeagueDef, Movement};
use crate::period_reward::PeriodResult;
use crate::standing::top_percent;

/// What a message says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum MessageKind {
    /// A period closed: the player's final rank, percentile and reward (LB-5).
    PeriodResult,
    /// A league's week closed: the player's rank in their cohort and whether they
    /// were promoted or relegated ([`crate::league`]).
    LeagueResult,
    /// The player's balance reached a higher SG-12 rank (a new badge).
    RankUp,
    /// Other players passed the player on a board between two snapshots (rules:
    /// `overtaken`).
    Overtaken,
}

/// One message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Message {
    /// Unique per cause: `pr:{board}:{period}` (a period's result), `lr:{league}:{week}` (a
    /// league week's result), `ru:{source kind}:{source id}` (a new SG-12 rank),
    /// `ot:{board}:{period}:{since}` (passes seen comparing from snapshot `since`).
    pub id: String,
    /// Its place in the order the inbox received its messages (1, 2, 3, …; LIVE-3):
    /// given when it is added, never reused. `at` is when what it tells of happened,
    /// which may be earlier than a message received before it (a match that arrived
    /// late); a client that reconnects reads what it missed by this order
    /// (`GET /v1/me/inbox?since=ID`). 0 for a message received before it was kept.
    #[serde(default)]
    pub seq: u64,
    pub kind: MessageKind,
    /// When it was sent (UTC).
    pub at: DateTime<Utc>,
    /// The board (`mahjong-weekly`), league (`mahjong-league`) or `seega` it is about,
    /// and the period (`2026-W48`; `all` for a rank).
    pub board: String,
    pub period: String,
    /// The LB-2 rank: final (results), or now (`overtaken`); `of` entries and top
    /// `top_percent` % on results only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_percent: Option<u32>,
    /// The value the period ended with, or the balance reached (points).
    pub value: i64,
    /// The reward, when the board's table pays one for this place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<Reward>,
    /// A league result's cohort and movement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub league: Option<LeagueOutcome>,
    /// A rank-up's new rank, and the rank left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_up: Option<RankUp>,
    /// Who passed the player, and the rank before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overtaken: Option<Overtaken>,
    /// A team board's result (TM-6, TM-7): the team whose rank and value this is, and
    /// what the member brought it in the period; `reward` is their share of its prize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<TeamShare>,
}

/// Who passed the player between two snapshots of a board (rules: `overtaken`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Overtaken {
    /// The older snapshot compared from, and the newer one the passes were seen in
    /// (the message's `rank` and `value` are the player's there; no `rank`: below the
    /// places read).
    pub since: String,
    pub snapshot: String,
    /// The player's LB-2 rank in the snapshot before.
    pub rank_before: u64,
    /// How many players passed them, and the first of them (nearest above the
    /// player first, at most 3).
    pub passed_by: u64,
    pub by: Vec<Passer>,
}

/// A player who passed: their id and value (points or rating) and LB-2 rank now
/// (absent when not read: a neighbour who climbed far above).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Passer {
    pub player_id: String,
    /// The player's name, avatar and country (PF-5): filled when the app reads it,
    /// empty (so absent) in what is stored.
    #[serde(default, flatten)]
    pub card: crate::profile::Card,
    pub value: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
}

/// A new SG-12 rank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankUp {
    /// The rank reached: id, names and badge (SG-12).
    pub rank_id: String,
    pub name_en: String,
    pub name_ar: String,
    pub badge: String,
    /// The rank left.
    pub from_rank_id: String,
}

/// What a league's week did for the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LeagueOutcome {
    pub cohort: String,
    pub movement: Movement,
    pub tier_before: u32,
    pub tier_after: u32,
    /// The name of `tier_after`.
    pub tier_name: String,
}

/// A reward waiting in a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Reward {
    /// Points, credited to `game`'s balance when claimed.
    pub points: i64,
    /// Mahjong Rivals Jokers (MJ-6), added to the account's inventory when claimed (a
    /// defined board's prize, BD-9); absent for none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub jokers: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "mahjong-rivals"))]
    pub game: Game,
    /// When it was claimed (UTC); absent while it waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_at: Option<DateTime<Utc>>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The id of the message of `board`'s result in `period`.
pub fn period_result_id(board: &str, period: &str) -> String {
    format!("pr:{board}:{period}")
}

/// A member's share of a team's result (TM-6, TM-7), in a `period_result` message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TeamShare {
    pub team_id: String,
    /// What the member brought the team in the period (the board's unit).
    pub contribution: i64,
}

impl Message {
    /// This `period_result` as `team_id`'s result shared with a member who brought it
    /// `contribution` (TM-6): its id names the team (`pr:{board}:{period}:{team_id}`),
    /// so a member who brought points to two teams in one period has both.
    pub fn of_team(mut self, team_id: &str, contribution: i64) -> Self {
        self.id = format!("{}:{team_id}", self.id);
        self.team = Some(TeamShare {
            team_id: team_id.to_string(),
            contribution,
        });
        self
    }
}

impl Message {
    /// The message of a closed period's `result` on `board` of `game`, sent `at`.
    pub fn period_result(
        board: &str,
        period: &str,
        game: Game,
        result: &PeriodResult,
        at: DateTime<Utc>,
    ) -> Self {
        Message {
            id: period_result_id(board, period),
            seq: 0,
            kind: MessageKind::PeriodResult,
            at,
            board: board.to_string(),
            period: period.to_string(),
            rank: Some(result.rank),
            of: Some(result.of),
            top_percent: Some(result.top_percent),
            value: result.value,
            reward: (result.reward > 0 || result.jokers > 0).then_some(Reward {
                points: result.reward,
                jokers: result.jokers,
                game,
                claimed_at: None,
            }),
            league: None,
            rank_up: None,
            team: None,
            overtaken: None,
        }
    }

    /// The message of `league`'s `week` closed: `result` in `cohort`, sent `at`. Its id
    /// is `lr:{league}:{week}`.
    pub fn league_result(
        league: &LeagueDef,
        week: &str,
        cohort: &str,
        result: &CohortResult,
        at: DateTime<Utc>,
    ) -> Self {
        Message {
            id: format!("lr:{}:{week}", league.id),
            seq: 0,
            kind: MessageKind::LeagueResult,
            at,
            board: league.id.to_string(),
            period: week.to_string(),
            rank: Some(result.rank),
            of: Some(result.of),
            top_percent: Some(top_percent(result.rank, result.of)),
            value: result.value,
            reward: None,
            rank_up: None,
            team: None,
            overtaken: None,
            league: Some(LeagueOutcome {
                cohort: cohort.to_string(),
                movement: result.movement,
                tier_before: result.tier_before,
                tier_after: result.tier_after,
                tier_name: league
                    .tiers
                    .get(result.tier_after as usize)
                    .copied()
                    .unwrap_or("?")
                    .to_string(),
            }),
        }
    }

    /// Whether it holds a reward not claimed yet.
    pub fn unclaimed(&self) -> bool {
        self.reward.as_ref().is_some_and(|r| r.claimed_at.is_none())
    }

    /// This message with its reward paid at `now` (as if claimed then), and the
    /// reward; `None` when it holds no unclaimed reward.
    pub fn paid(mut self, now: DateTime<Utc>) -> Option<(Self, Reward)> {
        let reward = self.reward.as_mut().filter(|r| r.claimed_at.is_none())?;
        reward.claimed_at = Some(now);
        let paid = reward.clone();
        Some((self, paid))
    }
}
