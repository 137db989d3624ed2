//! A player's inbox: the messages podium sends them (a closed period's result with its
//! reward), kept as one state item of the player's and changed only by settlements,
//! so each message is written exactly once per cause and a reward is claimed once.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::game::Game;
use crate::league::{CohortResult, LeagueDef, Movement};
use crate::period_reward::PeriodResult;
use crate::seega::rank::rank_for;
use crate::standing::top_percent;

/// The state item that holds a player's inbox.
pub const STATE: &str = "inbox";

/// Messages an inbox keeps: beyond it, the oldest without an unclaimed reward go
/// first (an unclaimed reward is never dropped).
pub const MAX_MESSAGES: usize = 100;

/// A player's inbox, oldest message first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inbox {
    #[serde(default)]
    pub messages: Vec<Message>,
    /// The UTC day of the last `overtaken` message added, and how many were added
    /// that day: at most [`crate::overtaken::MAX_PER_DAY`] a day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overtaken_day: Option<NaiveDate>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub overtaken_today: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

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
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "mahjong-rivals"))]
    pub game: Game,
    /// When it was claimed (UTC); absent while it waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_at: Option<DateTime<Utc>>,
}

/// The id of the message of `board`'s result in `period`.
pub fn period_result_id(board: &str, period: &str) -> String {
    format!("pr:{board}:{period}")
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
            kind: MessageKind::PeriodResult,
            at,
            board: board.to_string(),
            period: period.to_string(),
            rank: Some(result.rank),
            of: Some(result.of),
            top_percent: Some(result.top_percent),
            value: result.value,
            reward: (result.reward > 0).then_some(Reward {
                points: result.reward,
                game,
                claimed_at: None,
            }),
            league: None,
            rank_up: None,
            overtaken: None,
        }
    }

    /// The message of a Seega balance moving from `before` to `after` points by the
    /// source `source_kind`/`source_id` at `at`, when it reached a higher SG-12 rank:
    /// id `ru:{source kind}:{source id}`, `board` `seega`, `value` the balance.
    pub fn rank_up(
        source_kind: &str,
        source_id: &str,
        before: i64,
        after: i64,
        at: DateTime<Utc>,
    ) -> Option<Self> {
        let (from, to) = (rank_for(before), rank_for(after));
        (to.from_points > from.from_points).then(|| Message {
            id: format!("ru:{source_kind}:{source_id}"),
            kind: MessageKind::RankUp,
            at,
            board: Game::Seega.id().to_string(),
            period: "all".to_string(),
            rank: None,
            of: None,
            top_percent: None,
            value: after,
            reward: None,
            league: None,
            rank_up: Some(RankUp {
                rank_id: to.id.to_string(),
                name_en: to.name_en.to_string(),
                name_ar: to.name_ar.to_string(),
                badge: to.badge.to_string(),
                from_rank_id: from.id.to_string(),
            }),
            overtaken: None,
        })
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
}

impl Inbox {
    /// The message `id`, if kept.
    pub fn get(&self, id: &str) -> Option<&Message> {
        self.messages.iter().find(|m| m.id == id)
    }

    /// This inbox with `message` added (a message of the same id is left as it is),
    /// trimmed to [`MAX_MESSAGES`]. An `overtaken` message is not added beyond
    /// [`crate::overtaken::MAX_PER_DAY`] on its UTC day, nor when dated before the day
    /// last counted (days only move forward), nor when the inbox is full of unclaimed
    /// rewards (it would be trimmed at once): the inbox is then unchanged.
    pub fn with(self, message: Message) -> Self {
        if self.get(&message.id).is_some() {
            return self;
        }
        if message.kind == MessageKind::Overtaken {
            let day = message.at.date_naive();
            let count = match self.overtaken_day {
                Some(last) if day < last => return self,
                Some(last) if day == last => self.overtaken_today,
                _ => 0,
            };
            if count >= crate::overtaken::MAX_PER_DAY {
                return self;
            }
            let id = message.id.clone();
            let mut next = self.clone().added(message);
            if next.get(&id).is_none() {
                return self;
            }
            next.overtaken_day = Some(day);
            next.overtaken_today = count + 1;
            return next;
        }
        self.added(message)
    }

    /// This inbox with `message` added, trimmed to [`MAX_MESSAGES`].
    fn added(mut self, message: Message) -> Self {
        self.messages.push(message);
        while self.messages.len() > MAX_MESSAGES {
            match self.messages.iter().position(|m| !m.unclaimed()) {
                Some(i) => {
                    self.messages.remove(i);
                }
                None => break,
            }
        }
        self
    }

    /// This inbox with message `id`'s reward claimed at `now`, and the reward; `None`
    /// when there is no such message or it holds no unclaimed reward.
    pub fn claimed(mut self, id: &str, now: DateTime<Utc>) -> Option<(Self, Reward)> {
        let m = self.messages.iter_mut().find(|m| m.id == id && m.unclaimed())?;
        let reward = m.reward.as_mut()?;
        reward.claimed_at = Some(now);
        let paid = reward.clone();
        Some((self, paid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(reward: i64) -> PeriodResult {
        PeriodResult {
            player_id: "p".into(),
            rank: 3,
            of: 40,
            top_percent: 8,
            value: 120,
            reward,
        }
    }

    #[test]
    fn one_message_per_cause_and_a_reward_claimed_once() {
        let at = DateTime::UNIX_EPOCH;
        let m = Message::period_result(
            "mahjong-weekly",
            "2026-W48",
            Game::MahjongRivals,
            &result(100),
            at,
        );
        let inbox = Inbox::default().with(m.clone()).with(m.clone());
        assert_eq!(inbox.messages.len(), 1);
        let (inbox, reward) = inbox.claimed(&m.id, at).expect("claimable");
        assert_eq!(reward.points, 100);
        assert!(inbox.clone().claimed(&m.id, at).is_none(), "claimed once");
        assert!(inbox.claimed("pr:other:1", at).is_none());
        let none = Message::period_result("mahjong-daily", "2026-11-30", Game::MahjongRivals, &result(0), at);
        assert!(none.reward.is_none() && !none.unclaimed());
    }

    /// SG-12: a message when the balance reaches a higher rank, none otherwise.
    #[test]
    fn sg_12_rank_up_only_upwards() {
        let at = DateTime::UNIX_EPOCH;
        let up = Message::rank_up("match", "m-1", 4_990, 5_010, at).expect("sergeant");
        let r = up.rank_up.expect("rank");
        assert_eq!(
            (r.rank_id.as_str(), r.from_rank_id.as_str(), up.value),
            ("sergeant", "member", 5_010)
        );
        assert_eq!(up.id, "ru:match:m-1");
        assert!(
            Message::rank_up("match", "m-2", 5_010, 4_990, at).is_none(),
            "down is no message"
        );
        assert!(
            Message::rank_up("match", "m-3", 5_000, 19_999, at).is_none(),
            "same rank"
        );
        assert!(Message::rank_up("match", "m-4", 0, 5_000_000, at).is_some());
    }

    #[test]
    fn trimming_never_drops_an_unclaimed_reward() {
        let at = DateTime::UNIX_EPOCH;
        let mut inbox = Inbox::default().with(Message::period_result(
            "b",
            "keep",
            Game::MahjongRivals,
            &result(5),
            at,
        ));
        for i in 0..(MAX_MESSAGES + 20) {
            inbox = inbox.with(Message::period_result(
                "b",
                &format!("p{i}"),
                Game::MahjongRivals,
                &result(0),
                at,
            ));
        }
        assert_eq!(inbox.messages.len(), MAX_MESSAGES);
        assert!(inbox.get("pr:b:keep").is_some());
        assert!(
            inbox.get("pr:b:p0").is_none(),
            "the oldest plain message went first"
        );
    }
}
