//! Teams (clans) of players that rank together (rules TM-1 … TM-6, docs/rules/teams.md):
//! who may join and when, whose points count for a team, and how a team's prize is
//! split among its members. Pure: the service keeps the teams and memberships in the
//! store and settles the points.
//!
//! - TM-1: a team has a name (PF-1's rules), an avatar (PF-2), a country (PF-3), and
//!   is open (anyone joins) or invite-only (an invitation is needed).
//! - TM-2: a team holds at most [`TeamPolicy::member_cap`] members (default
//!   [`DEFAULT_MEMBER_CAP`]); a player is a member of one team at a time.
//! - TM-3: a player who left a team (or was removed) joins another only after
//!   [`TeamPolicy::cooldown_ms`] (default [`DEFAULT_COOLDOWN_DAYS`] days): no hopping
//!   to a winning team at the end of a week.
//! - TM-4: the points a member earns count for the team from the instant they joined
//!   until the instant they left, by the instant of what earned them (a match's end):
//!   points before joining or after leaving never count ([`Memberships::team_at`]).
//! - TM-5: the owner removes members and passes ownership; an owner who leaves passes
//!   it to the longest-standing member, and a team left by its last member is
//!   disbanded.
//! - TM-6: a team's prize is split among the members who contributed in the period,
//!   equally or by contribution with a floor ([`split`]): integer points, the
//!   remainder to the largest contributions first, so the parts add up to the prize.

use serde::{Deserialize, Serialize};

use crate::error::{quoted, RuleError};

/// Members a team holds at most by default (TM-2).
pub const DEFAULT_MEMBER_CAP: u32 = 50;

/// Days after leaving a team before joining another, by default (TM-3).
pub const DEFAULT_COOLDOWN_DAYS: i64 = 7;

/// Memberships a player's history keeps (the oldest go first; TM-4 needs only the
/// ones that can still be credited: records are at most GM-5's age).
pub const MAX_HISTORY: usize = 20;

/// The configured limits (TM-2, TM-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamPolicy {
    pub member_cap: u32,
    /// Milliseconds between leaving a team and joining another.
    pub cooldown_ms: i64,
}

impl Default for TeamPolicy {
    fn default() -> Self {
        TeamPolicy {
            member_cap: DEFAULT_MEMBER_CAP,
            cooldown_ms: DEFAULT_COOLDOWN_DAYS * 24 * 60 * 60 * 1000,
        }
    }
}

/// Who may join (TM-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Access {
    Open,
    InviteOnly,
}

/// One membership of a player: the team, and the instants it began and (when over)
/// ended, in milliseconds since the Unix epoch (UTC).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Membership {
    pub team_id: String,
    pub joined_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_ms: Option<i64>,
    /// Ended because an operator disbanded the team (OP-5): no cooldown follows (TM-3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disbanded: bool,
}

/// A player's memberships, oldest first: at most one without an end (the current).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memberships {
    #[serde(default)]
    pub history: Vec<Membership>,
    /// Invitations to teams (TM-1), oldest first, at most [`MAX_INVITATIONS`]: what
    /// the player is shown to accept. The team's own list decides whether one still
    /// stands (a team keeps an invitation until the player joins it, or drops it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invitations: Vec<Invitation>,
}

/// An invitation the player received: the team, and when (ms, UTC).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invitation {
    pub team_id: String,
    pub at_ms: i64,
}

/// Invitations a player's memberships keep (the oldest go first).
pub const MAX_INVITATIONS: usize = 10;

impl Memberships {
    /// These memberships with an invitation to `team_id` at `now_ms` (one a team: a
    /// repeat keeps the first).
    pub fn invited(mut self, team_id: &str, now_ms: i64) -> Self {
        if self.invitations.iter().any(|i| i.team_id == team_id) {
            return self;
        }
        self.invitations.push(Invitation {
            team_id: team_id.to_string(),
            at_ms: now_ms,
        });
        let over = self.invitations.len().saturating_sub(MAX_INVITATIONS);
        self.invitations.drain(..over);
        self
    }

    /// The team the player is a member of now, if any.
    pub fn current(&self) -> Option<&Membership> {
        self.history.last().filter(|m| m.left_ms.is_none())
    }

    /// The team whose points an event of the player at `at_ms` counts for (TM-4): the
    /// membership that had begun at `at_ms` and not yet ended (a membership's own
    /// instants: joined included, left excluded).
    pub fn team_at(&self, at_ms: i64) -> Option<&str> {
        self.history
            .iter()
            .rev()
            .find(|m| m.joined_ms <= at_ms && m.left_ms.is_none_or(|left| at_ms < left))
            .map(|m| m.team_id.as_str())
    }

    /// These memberships with the player joining `team_id` at `now_ms`. Refused
    /// (TM-2) when they are a member of a team already, and (TM-3) within the
    /// cooldown of the last team they left; errors name `team_id`.
    pub fn joined(mut self, team_id: &str, now_ms: i64, policy: &TeamPolicy) -> Result<Self, RuleError> {
        if let Some(m) = self.current() {
            let message = if m.team_id == team_id {
                "the player is a member of this team already".to_string()
            } else {
                format!(
                    "the player is a member of team {}: leave it first",
                    quoted(&m.team_id)
                )
            };
            return Err(RuleError::new("team_id", "TM-2", message));
        }
        if let Some(left) = self
            .history
            .last()
            .filter(|m| !m.disbanded)
            .and_then(|m| m.left_ms)
        {
            let free_ms = left.saturating_add(policy.cooldown_ms);
            if now_ms < free_ms {
                let at = |ms: i64| {
                    chrono::DateTime::from_timestamp_millis(ms)
                        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
                        .unwrap_or_default()
                };
                return Err(RuleError::new(
                    "team_id",
                    "TM-3",
                    format!(
                        "the player left a team at {}: they may join a team from {} ({} days later)",
                        at(left),
                        at(free_ms),
                        policy.cooldown_ms / 86_400_000
                    ),
                ));
            }
        }
        self.invitations.retain(|i| i.team_id != team_id);
        self.history.push(Membership {
            team_id: team_id.to_string(),
            joined_ms: now_ms,
            left_ms: None,
            disbanded: false,
        });
        while self.history.len() > MAX_HISTORY {
            self.history.remove(0);
        }
        Ok(self)
    }

    /// These memberships with the current one ended at `now_ms` (leaving, or removed
    /// by the owner); `None` when the player is in no team.
    pub fn left(mut self, now_ms: i64) -> Option<Self> {
        let m = self.history.last_mut().filter(|m| m.left_ms.is_none())?;
        // A membership never ends before it began (a clock set back).
        m.left_ms = Some(now_ms.max(m.joined_ms));
        Some(self)
    }

    /// These memberships with the current one in `team_id` ended at `now_ms` because
    /// an operator disbanded the team (no cooldown follows, TM-3); `None` when the
    /// player's current team is another (or none).
    pub fn disbanded(mut self, team_id: &str, now_ms: i64) -> Option<Self> {
        let m = self
            .history
            .last_mut()
            .filter(|m| m.left_ms.is_none() && m.team_id == team_id)?;
        m.left_ms = Some(now_ms.max(m.joined_ms));
        m.disbanded = true;
        Some(self)
    }
}

/// A team's member list as the team item keeps it (TM-2, TM-5): the owner and the
/// members by when they joined.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roster {
    pub owner: String,
    /// Members (the owner included), oldest first, with when they joined (ms, UTC).
    pub members: Vec<(String, i64)>,
}

impl Roster {
    /// Whether `player` is a member.
    pub fn has(&self, player: &str) -> bool {
        self.members.iter().any(|(p, _)| p == player)
    }

    /// Whether the team takes no one more (TM-2: at its cap).
    pub fn is_full(&self, policy: &TeamPolicy) -> bool {
        self.members.len() >= policy.member_cap as usize
    }

    /// This roster with `player` added at `now_ms`: refused when full (TM-2).
    pub fn with(mut self, player: &str, now_ms: i64, policy: &TeamPolicy) -> Result<Self, RuleError> {
        if self.has(player) {
            return Ok(self);
        }
        if self.is_full(policy) {
            return Err(RuleError::new(
                "team_id",
                "TM-2",
                format!("the team is full: {} members at most", policy.member_cap),
            ));
        }
        self.members.push((player.to_string(), now_ms));
        Ok(self)
    }

    /// This roster without `player` (TM-5): an owner who leaves passes ownership to
    /// the longest-standing member; `None` when nobody is left (the team is
    /// disbanded).
    pub fn without(self, player: &str) -> Option<Self> {
        self.without_passing_over(player, &[])
    }

    /// [`Roster::without`], an owner who leaves passing ownership to the
    /// longest-standing member not in `passed_over` (OP-4: a suspended member is
    /// nobody to pass it to), or, all of them passed over, to the longest-standing.
    pub fn without_passing_over(mut self, player: &str, passed_over: &[String]) -> Option<Self> {
        self.members.retain(|(p, _)| p != player);
        let first = self.members.first()?.0.clone();
        if self.owner == player {
            self.owner = self
                .members
                .iter()
                .find(|(p, _)| !passed_over.contains(p))
                .map_or(first, |(p, _)| p.clone());
        }
        Some(self)
    }

    /// This roster owned by `to`, a member (TM-5); errors name `player_id`.
    pub fn passed_to(mut self, to: &str) -> Result<Self, RuleError> {
        if !self.has(to) {
            return Err(RuleError::new(
                "player_id",
                "TM-5",
                format!("no member {} of this team to pass ownership to", quoted(to)),
            ));
        }
        self.owner = to.to_string();
        Ok(self)
    }
}

/// How a team's prize is split among its members (TM-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Split {
    /// The same to each member who contributed.
    Equal {},
    /// In proportion to each contribution, each member who contributed getting at
    /// least `floor_percent` % of an equal share.
    ByContribution { floor_percent: u32 },
}

/// `prize` points split among `contributions` (player, points contributed; only
/// positive contributions take part) as `split` says (TM-6). Integer points: each part
/// rounded down, the points left over given one by one to the largest contributions
/// first (then the lower player id), so the parts add up to the prize exactly. No
/// contributor: nothing is paid.
pub fn split(prize: i64, contributions: &[(String, i64)], how: Split) -> Vec<(String, i64)> {
    let mut takers: Vec<(&str, i64)> = contributions
        .iter()
        .filter(|(_, c)| *c > 0)
        .map(|(p, c)| (p.as_str(), *c))
        .collect();
    if takers.is_empty() || prize <= 0 {
        return Vec::new();
    }
    takers.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let n = takers.len() as i128;
    let prize128 = i128::from(prize);
    let mut parts: Vec<i128> = match how {
        Split::Equal {} => vec![prize128 / n; takers.len()],
        Split::ByContribution { floor_percent } => {
            // Each gets the floor (a percentage of an equal share), and the rest is
            // shared in proportion to the contributions.
            let floor = prize128 * i128::from(floor_percent.min(100)) / 100 / n;
            let rest = prize128 - floor * n;
            let total: i128 = takers.iter().map(|(_, c)| i128::from(*c)).sum();
            takers
                .iter()
                .map(|(_, c)| floor + rest * i128::from(*c) / total)
                .collect()
        }
    };
    let mut left = prize128 - parts.iter().sum::<i128>();
    let mut i = 0;
    while left > 0 {
        parts[i % takers.len()] += 1;
        left -= 1;
        i += 1;
    }
    takers
        .iter()
        .zip(parts)
        .map(|((p, _), part)| (p.to_string(), i64::try_from(part).unwrap_or(i64::MAX)))
        .collect()
}

/// What makes a defined board a team board (TM-7): how each ranked team's prize is
/// split among its members (TM-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamBoard {
    pub split: Split,
}

/// The prefix of a team's key where a player's id would stand (an entry on a team
/// board, the owner of the team's state): an internal owner (`@team:{id}`), so no
/// player id can be a team's.
pub const TEAM_KEY_PREFIX: &str = "@team:";

/// The key of team `team_id` (see [`TEAM_KEY_PREFIX`]).
pub fn team_key(team_id: &str) -> String {
    [TEAM_KEY_PREFIX, team_id].concat()
}

/// The team id a team key stands for; `None` for a player's id.
pub fn team_of_key(key: &str) -> Option<&str> {
    key.strip_prefix(TEAM_KEY_PREFIX)
}

/// The player state that holds a player's memberships ([`Memberships`]).
pub const MEMBERSHIPS_STATE: &str = "teams";

/// The state of the team (owner [`team_key`]) that holds it.
pub const TEAM_STATE: &str = "team";

/// The state of the team (owner [`team_key`]) that holds its members' contributions
/// ([`Contributions`]) on a team board in one period, named by its key
/// (`{board}@{period}`, as `BoardRef::key` writes it).
pub fn contributions_state(board_key: &str) -> String {
    format!("contributions/{board_key}")
}

/// Characters of a team id (TM-1): podium makes them, 12 of `0-9a-z`.
pub const TEAM_ID_LEN: usize = 12;

/// Whether `id` has the shape of a team id podium makes (TM-1): a store is never asked
/// for one of another shape.
pub fn well_formed_team_id(id: &str) -> bool {
    id.len() == TEAM_ID_LEN && id.bytes().all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
}

/// What each member brought a team on one team board in one period (TM-4, TM-7):
/// points by player id. The team's entry is their sum.
///
/// Stored as `{"members": [[player, points], …]}` in player order: a list of pairs,
/// where a deletion (GM-6) finds and replaces an id.
/// The most contributors a team counts on one team board in one period (TM-4): a
/// further member's results bring the team nothing that period. It bounds the
/// contributions item (one DynamoDB item of at most 400 KB: 1,200 ids of 128
/// characters with their points, and as many withheld, stay under 350 KB); the member
/// cap (TM-2) is at most 1,000.
pub const MAX_CONTRIBUTORS: usize = 1_200;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contributions {
    #[serde(default)]
    pub members: Vec<(String, i64)>,
    /// Members whose points the team's entry leaves out while they are suspended
    /// (OP-4): the entry is the total less theirs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<String>,
}

impl Contributions {
    /// The team's total (points).
    pub fn total(&self) -> i64 {
        self.members.iter().fold(0i64, |a, (_, v)| a.saturating_add(*v))
    }

    /// What `player` brought (points; 0 when nothing).
    pub fn of(&self, player: &str) -> i64 {
        self.members
            .iter()
            .find(|(p, _)| p == player)
            .map_or(0, |(_, v)| *v)
    }

    /// Whether `player`'s points may count (TM-4): a contributor already, or a new one
    /// while the list holds fewer than [`MAX_CONTRIBUTORS`].
    pub fn admits(&self, player: &str) -> bool {
        self.members.len() < MAX_CONTRIBUTORS
            || self
                .members
                .binary_search_by(|(p, _)| p.as_str().cmp(player))
                .is_ok()
    }

    /// `points` more from `player` (TM-4: only what a result earned, so never below 0).
    pub fn add(&mut self, player: &str, points: i64) {
        match self.members.binary_search_by(|(p, _)| p.as_str().cmp(player)) {
            Ok(i) => self.members[i].1 = self.members[i].1.saturating_add(points.max(0)),
            Err(i) => self.members.insert(i, (player.to_string(), points.max(0))),
        }
    }

    /// The members by contribution, largest first (then the lower id).
    pub fn ranked(&self) -> Vec<(String, i64)> {
        let mut out: Vec<(String, i64)> = self.members.iter().map(|(p, v)| (p.clone(), *v)).collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000;

    /// TM-4: a team counts at most MAX_CONTRIBUTORS contributors in a period; one
    /// already counted goes on counting.
    #[test]
    fn tm_4_contributors_are_bounded() {
        let mut c = Contributions::default();
        for i in 0..MAX_CONTRIBUTORS {
            let p = format!("p-{i:05}");
            assert!(c.admits(&p));
            c.add(&p, 1);
        }
        assert!(!c.admits("p-99999"), "one more contributor");
        assert!(c.admits("p-00007"), "a contributor already");
        let long = |i: usize| format!("{i:0>128}");
        let mut worst = Contributions::default();
        for i in 0..MAX_CONTRIBUTORS {
            worst.add(&long(i), i64::MAX / 2);
            worst.withheld.push(long(i));
        }
        let bytes = serde_json::to_vec(&worst).expect("json").len();
        assert!(bytes < 350_000, "{bytes} bytes: under DynamoDB's 400 KB item");
    }

    /// TM-4: points count for the team of the membership their instant falls in.
    #[test]
    fn tm_4_points_count_while_a_member() {
        let policy = TeamPolicy::default();
        let m = Memberships::default()
            .joined("t-red", 3 * DAY, &policy)
            .expect("joined");
        assert_eq!(m.team_at(2 * DAY), None, "before joining");
        assert_eq!(m.team_at(3 * DAY), Some("t-red"), "from the instant they joined");
        let m = m.left(5 * DAY).expect("left");
        assert_eq!(m.team_at(5 * DAY - 1), Some("t-red"), "until they left");
        assert_eq!(m.team_at(5 * DAY), None, "not after");
        let m = m.joined("t-blue", 12 * DAY, &policy).expect("after the cooldown");
        assert_eq!(
            m.team_at(4 * DAY),
            Some("t-red"),
            "a late record still counts for the team it was earned in"
        );
        assert_eq!(m.team_at(13 * DAY), Some("t-blue"));
    }

    /// TM-2, TM-3: one team at a time; no joining within the cooldown.
    #[test]
    fn tm_2_tm_3_one_team_and_the_cooldown() {
        let policy = TeamPolicy::default();
        let m = Memberships::default()
            .joined("t-red", 0, &policy)
            .expect("joined");
        let e = m
            .clone()
            .joined("t-blue", DAY, &policy)
            .expect_err("a member already");
        assert_eq!((e.field.as_str(), e.rule), ("team_id", "TM-2"));
        assert!(e.message.contains("t-red"), "{}", e.message);
        let m = m.left(DAY).expect("left");
        let e = m
            .clone()
            .joined("t-blue", 7 * DAY, &policy)
            .expect_err("within the cooldown");
        assert_eq!(e.rule, "TM-3");
        assert!(
            e.message
                .contains("may join a team from 1970-01-09T00:00:00.000Z"),
            "{}",
            e.message
        );
        assert!(m.clone().joined("t-blue", 8 * DAY, &policy).is_ok(), "at its end");
        assert!(m.left(9 * DAY).is_none(), "in no team: nothing to leave");
    }

    /// TM-2: a team is full at its cap; TM-5: ownership passes to the longest-standing
    /// member, and a team left by all is disbanded.
    #[test]
    fn tm_2_tm_5_the_roster() {
        let policy = TeamPolicy {
            member_cap: 3,
            ..TeamPolicy::default()
        };
        let r = Roster {
            owner: "ana".into(),
            members: vec![("ana".into(), 0)],
        };
        let r = r.with("bob", 1, &policy).expect("room");
        assert!(!r.is_full(&policy));
        let r = r.with("cy", 2, &policy).expect("room");
        assert!(r.is_full(&policy));
        let e = r.clone().with("dan", 3, &policy).expect_err("full");
        assert_eq!(
            (e.rule, e.message.as_str()),
            ("TM-2", "the team is full: 3 members at most")
        );
        assert_eq!(
            r.clone().with("bob", 4, &policy).expect("again").members.len(),
            3,
            "a member again changes nothing"
        );
        let passed = r
            .clone()
            .without_passing_over("ana", &["bob".to_string()])
            .expect("bob and cy left");
        assert_eq!(passed.owner, "cy", "bob passed over (suspended, OP-4)");
        let all_passed = r
            .clone()
            .without_passing_over("ana", &["bob".to_string(), "cy".to_string()])
            .expect("bob and cy left");
        assert_eq!(all_passed.owner, "bob", "all passed over: the longest-standing");
        let r = r.without("ana").expect("bob and cy left");
        assert_eq!(r.owner, "bob", "the longest-standing member");
        assert!(r.clone().passed_to("zed").is_err());
        assert_eq!(r.clone().passed_to("cy").expect("passed").owner, "cy");
        assert!(
            r.without("bob").and_then(|r| r.without("cy")).is_none(),
            "disbanded"
        );
    }

    /// TM-6: the parts add up to the prize, the remainder to the largest contributions
    /// first; the floor gives each contributor a share; no contribution, no part.
    #[test]
    fn tm_6_splits_add_up() {
        let c = |v: &[(&str, i64)]| v.iter().map(|(p, c)| (p.to_string(), *c)).collect::<Vec<_>>();
        let team = c(&[("ana", 600), ("bob", 300), ("cy", 100), ("idle", 0)]);
        assert_eq!(
            split(100, &team, Split::Equal {}),
            vec![
                ("ana".to_string(), 34),
                ("bob".to_string(), 33),
                ("cy".to_string(), 33)
            ]
        );
        assert_eq!(
            split(1_000, &team, Split::ByContribution { floor_percent: 0 }),
            vec![
                ("ana".to_string(), 600),
                ("bob".to_string(), 300),
                ("cy".to_string(), 100)
            ]
        );
        // A floor of 50 % of an equal share (166): 500 shared by 166 each, 500 more
        // by contribution.
        let floored = split(1_000, &team, Split::ByContribution { floor_percent: 50 });
        assert_eq!(floored.iter().map(|(_, p)| p).sum::<i64>(), 1_000);
        assert_eq!(
            floored,
            vec![
                ("ana".to_string(), 468),
                ("bob".to_string(), 316),
                ("cy".to_string(), 216)
            ],
            "docs/rules/teams.md's example"
        );
        assert!(floored.iter().all(|(_, p)| *p >= 166), "{floored:?}");
        assert!(split(100, &c(&[("idle", 0)]), Split::Equal {}).is_empty());
        assert!(split(0, &team, Split::Equal {}).is_empty());
        let odd = split(7, &c(&[("b", 5), ("a", 5), ("c", 5)]), Split::Equal {});
        assert_eq!(
            odd,
            vec![("a".to_string(), 3), ("b".to_string(), 2), ("c".to_string(), 2)],
            "ties by id"
        );
    }
}
