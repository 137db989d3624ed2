//! Seega ranks and badges (SG-12): derived from the balance alone.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::game::Game;
use crate::message::{Message, MessageKind, RankUp};

/// One step of the SG-12 ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rank {
    /// Stable id, e.g. `warrant_officer`.
    pub id: &'static str,
    /// The rank's name in Arabic, as the operator's rules page writes it.
    pub name_ar: &'static str,
    /// The rank's name in English.
    pub name_en: &'static str,
    /// The balance (points) from which the rank holds.
    pub from_points: i64,
    /// The badge, e.g. `1 eagle, 4 stars`.
    pub badge: &'static str,
}

/// The SG-12 ladder, lowest first.
pub const RANKS: [Rank; 12] = [
    rank("member", "عضو", "Member", 0, "1 star"),
    rank("sergeant", "رقيب", "Sergeant", 5_000, "2 stars"),
    rank("warrant_officer", "مساعد", "Warrant Officer", 20_000, "3 stars"),
    rank("lieutenant", "ملازم", "Lieutenant", 100_000, "4 stars"),
    rank(
        "first_lieutenant",
        "ملازم أول",
        "First Lieutenant",
        200_000,
        "5 stars",
    ),
    rank("captain", "نقيب", "Captain", 400_000, "1 eagle, 4 stars"),
    rank("major", "رائد", "Major", 700_000, "2 eagles, 3 stars"),
    rank(
        "lieutenant_colonel",
        "مقدّم",
        "Lieutenant Colonel",
        1_000_000,
        "3 eagles, 2 stars",
    ),
    rank("colonel", "عقيد", "Colonel", 1_500_000, "4 eagles, 1 star"),
    rank("brigadier", "عميد", "Brigadier", 2_000_000, "5 eagles"),
    rank("commander", "قائد", "Commander", 3_000_000, "horse"),
    rank(
        "supreme_commander",
        "قائد أعلى",
        "Supreme Commander",
        5_000_000,
        "crowned lion",
    ),
];

const fn rank(
    id: &'static str,
    name_ar: &'static str,
    name_en: &'static str,
    from_points: i64,
    badge: &'static str,
) -> Rank {
    Rank {
        id,
        name_ar,
        name_en,
        from_points,
        badge,
    }
}

/// The rank a balance (points, ≥ 0 by SG-7) holds by SG-12: the highest step whose
/// threshold the balance has reached. A negative balance, which SG-7 rules out,
/// maps to the lowest step.
pub fn rank_for(balance: i64) -> &'static Rank {
    RANKS
        .iter()
        .rev()
        .find(|r| balance >= r.from_points)
        .unwrap_or(&RANKS[0])
}

impl Message {
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
            seq: 0,
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
            team: None,
            overtaken: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// SG-12: every threshold and the point just below it.
    #[test]
    fn thresholds() {
        for w in RANKS.windows(2) {
            assert_eq!(rank_for(w[1].from_points).id, w[1].id);
            assert_eq!(rank_for(w[1].from_points - 1).id, w[0].id);
        }
        assert_eq!(rank_for(0).id, "member");
        assert_eq!(rank_for(i64::MAX).id, "supreme_commander");
        assert_eq!(rank_for(5_000_000).badge, "crowned lion");
        assert_eq!(rank_for(400_000).name_ar, "نقيب");
    }

    proptest! {
        /// SG-12: rank is monotone in points (follows the balance up and down).
        #[test]
        fn monotone(a in 0i64..10_000_000, b in 0i64..10_000_000) {
            let pos = |p| RANKS.iter().position(|r| r.id == rank_for(p).id).unwrap();
            if a <= b { prop_assert!(pos(a) <= pos(b)); } else { prop_assert!(pos(a) >= pos(b)); }
        }
    }
}
