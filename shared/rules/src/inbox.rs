//! A player's inbox: the messages podium sends them (a closed period's result with its
//! reward), kept as one state item of the player's and changed only by settlements,
//! so each message is written exactly once per cause and a reward is claimed once.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::message::Message;
use crate::message::MessageKind;
use crate::message::Reward;

/// The state item that holds a player's inbox.
pub const STATE: &str = "inbox";

/// Messages an inbox keeps: beyond it, the oldest without an unclaimed reward go
/// first (an unclaimed reward is never dropped).
pub const MAX_MESSAGES: usize = 100;

/// Unclaimed rewards an inbox holds at most (LB-5): a reward that finds this many
/// waiting is paid into the balance at once, as if claimed ([`Inbox::pays_at_once`]),
/// so that an inbox never outgrows its item (DynamoDB's 400 KB) and no reward is
/// lost: closes that race may leave a few more.
pub const MAX_UNCLAIMED: usize = 50;

/// `overtaken` messages an inbox takes in one UTC day at most (the others are
/// dropped; [`crate::overtaken`] sends them).
pub const MAX_OVERTAKEN_PER_DAY: u32 = 5;

/// A player's inbox, oldest message first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inbox {
    #[serde(default)]
    pub messages: Vec<Message>,
    /// The UTC day of the last `overtaken` message added, and how many were added
    /// that day: at most [`MAX_OVERTAKEN_PER_DAY`] a day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overtaken_day: Option<NaiveDate>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub overtaken_today: u32,
    /// The `seq` of the last message added (LIVE-3): the next is one more. Kept when
    /// that message leaves the inbox, so a number is never given twice.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub last_seq: u64,
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Inbox {
    /// The message `id`, if kept.
    pub fn get(&self, id: &str) -> Option<&Message> {
        self.messages.iter().find(|m| m.id == id)
    }

    /// This inbox with `message` added (a message of the same id is left as it is),
    /// trimmed to [`MAX_MESSAGES`]. An `overtaken` message is not added beyond
    /// [`MAX_OVERTAKEN_PER_DAY`] on its UTC day, nor when dated before the day
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
            if count >= MAX_OVERTAKEN_PER_DAY {
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

    /// This inbox with `message` added as the next in arrival order (its `seq`),
    /// trimmed to [`MAX_MESSAGES`].
    fn added(mut self, mut message: Message) -> Self {
        // An inbox kept before `seq` was: its messages count as 1, 2, … in the order held.
        if self.last_seq == 0 {
            for (i, m) in self.messages.iter_mut().enumerate() {
                m.seq = i as u64 + 1;
            }
            self.last_seq = self.messages.len() as u64;
        }
        self.last_seq += 1;
        message.seq = self.last_seq;
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

    /// The messages received after message `since` (LIVE-3), in arrival order; `None`
    /// when `since` is no longer in the inbox (trimmed: the client may have missed
    /// some, and should read the whole inbox).
    pub fn after(&self, since: &str) -> Option<Vec<&Message>> {
        let last = self.get(since)?.seq;
        let mut newer: Vec<&Message> = self.messages.iter().filter(|m| m.seq > last).collect();
        newer.sort_by_key(|m| m.seq);
        Some(newer)
    }

    /// The messages this inbox holds that `before` (the same inbox earlier) did not:
    /// those added since, in arrival order (LIVE-3, the events published).
    pub fn added_since<'a>(&'a self, before: &Inbox) -> Vec<&'a Message> {
        let mut added: Vec<&Message> = self
            .messages
            .iter()
            .filter(|m| before.get(&m.id).is_none())
            .collect();
        added.sort_by_key(|m| m.seq);
        added
    }

    /// Whether a new reward message `id` is paid at once rather than left to claim
    /// (LB-5): the inbox holds [`MAX_UNCLAIMED`] unclaimed rewards or more, and not
    /// this message already.
    pub fn pays_at_once(&self, id: &str) -> bool {
        self.get(id).is_none() && self.messages.iter().filter(|m| m.unclaimed()).count() >= MAX_UNCLAIMED
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
    use crate::game::Game;
    use crate::period_reward::PeriodResult;

    fn result(reward: i64) -> PeriodResult {
        PeriodResult {
            player_id: "p".into(),
            rank: 3,
            of: 40,
            top_percent: 8,
            value: 120,
            reward,
            jokers: 0,
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

    /// LIVE-3: messages are numbered in the order received, not by `at`: a message
    /// received later about an earlier event is still after the ones before it.
    #[test]
    fn live_3_arrival_order_not_event_order() {
        let day = |d: i64| DateTime::UNIX_EPOCH + chrono::Duration::days(d);
        let a = Message::rank_up("match", "m-1", 4_990, 5_010, day(10)).expect("rank up");
        let late = Message::rank_up("match", "m-0", 19_990, 20_010, day(2)).expect("rank up");
        let inbox = Inbox::default().with(a.clone()).with(late.clone());
        assert_eq!(
            inbox
                .messages
                .iter()
                .map(|m| (m.id.as_str(), m.seq))
                .collect::<Vec<_>>(),
            [("ru:match:m-1", 1), ("ru:match:m-0", 2)]
        );
        let after = inbox.after(&a.id).expect("held");
        assert_eq!(
            after.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
            [late.id.as_str()]
        );
        assert!(inbox.after(&late.id).expect("held").is_empty());
        assert!(inbox.after("ru:match:gone").is_none());
        let again = inbox.clone().with(a);
        assert_eq!(again, inbox, "a message already held keeps its number");
    }

    /// An inbox kept before messages were numbered numbers them in the order held,
    /// then goes on from there; a number is not given twice after trimming.
    #[test]
    fn live_3_numbers_go_on_from_an_old_inbox_and_past_trimming() {
        let at = DateTime::UNIX_EPOCH;
        let mut old = Inbox::default();
        for i in 0..3 {
            let mut m = Message::period_result("b", &format!("p{i}"), Game::MahjongRivals, &result(0), at);
            m.seq = 0;
            old.messages.push(m);
        }
        let json = serde_json::to_string(&old).expect("json");
        assert!(!json.contains("last_seq"));
        let next = old.with(Message::period_result(
            "b",
            "p3",
            Game::MahjongRivals,
            &result(0),
            at,
        ));
        assert_eq!(
            next.messages.iter().map(|m| m.seq).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        let mut inbox = next;
        for i in 4..(MAX_MESSAGES + 10) {
            inbox = inbox.with(Message::period_result(
                "b",
                &format!("p{i}"),
                Game::MahjongRivals,
                &result(0),
                at,
            ));
        }
        assert_eq!(inbox.last_seq, (MAX_MESSAGES + 10) as u64);
        assert_eq!(inbox.messages[0].seq, 11, "the oldest ten were trimmed");
    }

    #[test]
    fn an_inbox_full_of_rewards_has_the_next_paid_at_once() {
        let at = DateTime::UNIX_EPOCH;
        let mut inbox = Inbox::default();
        for i in 0..MAX_UNCLAIMED {
            let id = format!("p{i}");
            assert!(!inbox.pays_at_once(&format!("pr:b:{id}")), "{i}");
            inbox = inbox.with(Message::period_result(
                "b",
                &id,
                Game::MahjongRivals,
                &result(5),
                at,
            ));
        }
        assert!(inbox.pays_at_once("pr:b:next"));
        assert!(
            !inbox.pays_at_once("pr:b:p0"),
            "a message it holds is not paid again"
        );
        let (claimed, _) = inbox.clone().claimed("pr:b:p0", at).expect("claimed");
        assert!(
            !claimed.pays_at_once("pr:b:next"),
            "room again once one is claimed"
        );
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
