//! Tournaments (MJ-12 … MJ-17): the operator's settings, table points (TP) by place at
//! a table, the final places, the prize list, and the Champions Tournament's entry
//! rule and trophies.
//!
//! - MJ-12: each tournament sets its schedule, duration, minimum number of players
//!   and prize list; tables have 2 to 4 players. **Decision:** a tournament with fewer
//!   registered players than its minimum at its start is cancelled (as MJ-17 says for
//!   the Champions Tournament): nobody is paid.
//! - MJ-13: TP by place at a table, completion first, then score (the tables below).
//! - MJ-14: a table where every score is 0 gives nobody TP.
//! - MJ-15: tied players share the TP of the places they occupy equally, rounded down;
//!   then the tournament's multiplier (×1 … ×6) applies.
//! - MJ-16: final places by total TP, ties to the earlier registration, then to the
//!   account id; the prize list is paid, as points, once the tournament has ended.
//! - MJ-17: the Champions Tournament takes only accounts with at least 200 points won
//!   as final tournament prizes this week (MJ-20's week); at least 16 registered at
//!   the start or it is cancelled; its winner gets a replica trophy, not the cup.
//!
//! TP are never points (MJ-21): they only rank a tournament.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::places::shares;
use crate::error::RuleError;

/// TP by place at a table whose first-placed player completed the board (MJ-13), by
/// the table's size (2, 3, 4 players).
pub fn tp_completed(players: usize) -> &'static [i64] {
    match players {
        4 => &[40, 20, 10, 0],
        3 => &[30, 15, 0],
        _ => &[20, 0],
    }
}

/// TP by place at a table whose first-placed player did not complete it (MJ-13).
pub fn tp_not_completed(players: usize) -> &'static [i64] {
    match players {
        4 => &[30, 20, 10, 0],
        3 => &[20, 15, 0],
        _ => &[10, 0],
    }
}

/// Players at a table (MJ-12).
pub const TABLE_PLAYERS: std::ops::RangeInclusive<usize> = 2..=4;

/// The multipliers a tournament may set (MJ-15).
pub const MULTIPLIERS: std::ops::RangeInclusive<u32> = 1..=6;

/// Prize points this week an account needs to enter the Champions Tournament (MJ-17).
pub const CHAMPIONS_ENTRY_POINTS: i64 = 200;

/// Players the Champions Tournament needs at its start (MJ-17).
pub const CHAMPIONS_MIN_PLAYERS: u32 = 16;

/// Places a prize list pays at most.
pub const MAX_PRIZES: usize = 100;

/// The largest prize one place may pay (points).
pub const MAX_PRIZE_POINTS: i64 = 1_000_000;

/// A tournament as the operator configures it (MJ-12).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tournament {
    pub tournament_id: String,
    /// When play starts (UTC); registrations close then.
    #[serde(deserialize_with = "crate::record::instant::deserialize")]
    pub starts_at: DateTime<Utc>,
    /// When play ends (UTC): no table result after it counts.
    #[serde(deserialize_with = "crate::record::instant::deserialize")]
    pub ends_at: DateTime<Utc>,
    /// Registered players needed at the start, else cancelled (MJ-12, MJ-17).
    pub min_players: u32,
    /// ×1 … ×6 (MJ-15).
    pub multiplier: u32,
    /// Points by final place, 1st first (MJ-16).
    pub prizes: Vec<i64>,
    /// The Champions Tournament (MJ-17).
    #[serde(default)]
    pub champions: bool,
}

impl Tournament {
    /// Checks the operator's settings, naming the field: an id, `ends_at` after
    /// `starts_at`, at least 2 players (16 for Champions, MJ-17), a multiplier of
    /// ×1 … ×6 (MJ-15), at most [`MAX_PRIZES`] prizes of 0 … [`MAX_PRIZE_POINTS`] points,
    /// a start not before 2020.
    pub fn validate(&self) -> Result<(), RuleError> {
        crate::record::ids::check_id("tournament_id", &self.tournament_id)?;
        if self.starts_at.timestamp() < crate::record::policy::EARLIEST_INSTANT_SECS {
            return Err(RuleError::new(
                "starts_at",
                "MJ-12",
                "before 2020-01-01T00:00:00Z",
            ));
        }
        if self.ends_at <= self.starts_at {
            return Err(RuleError::new(
                "ends_at",
                "MJ-12",
                "a tournament ends after it starts",
            ));
        }
        let least = if self.champions { CHAMPIONS_MIN_PLAYERS } else { 2 };
        if self.min_players < least {
            return Err(RuleError::new(
                "min_players",
                if self.champions { "MJ-17" } else { "MJ-12" },
                format!("at least {least} players"),
            ));
        }
        if !MULTIPLIERS.contains(&self.multiplier) {
            return Err(RuleError::new("multiplier", "MJ-15", "a multiplier is ×1 to ×6"));
        }
        if self.prizes.len() > MAX_PRIZES {
            return Err(RuleError::new(
                "prizes",
                "MJ-16",
                format!("at most {MAX_PRIZES} prizes"),
            ));
        }
        if let Some(i) = self
            .prizes
            .iter()
            .position(|p| !(0..=MAX_PRIZE_POINTS).contains(p))
        {
            return Err(RuleError::new(
                format!("prizes[{i}]"),
                "MJ-16",
                format!("a prize is 0 to {MAX_PRIZE_POINTS} points"),
            ));
        }
        Ok(())
    }

    /// Whether it is cancelled at its start with `registered` players (MJ-12's
    /// Decision, MJ-17).
    pub fn cancelled_with(&self, registered: u64) -> bool {
        registered < u64::from(self.min_players)
    }
}

/// One player's end of a table, as the game server reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablePlayer {
    pub player_id: String,
    /// The player cleared the board.
    pub completed: bool,
    /// The round score (MJ-9; may be negative).
    pub score: i64,
}

/// Each player's TP at a table (MJ-13 … MJ-15), in the players' order: places by
/// completion first, then score; tied players (equal completion and score) share the
/// TP of their places rounded down, then × `multiplier`. Nobody gets TP when every
/// score is 0 (MJ-14). Refuses other than 2–4 players or a player twice (MJ-12, GM-5).
pub fn table_tp(players: &[TablePlayer], multiplier: u32) -> Result<Vec<i64>, RuleError> {
    if !TABLE_PLAYERS.contains(&players.len()) {
        return Err(RuleError::new(
            "players",
            "MJ-12",
            format!("a table has 2 to 4 players, not {}", players.len()),
        ));
    }
    crate::record::lines::check_once(players.iter().map(|p| p.player_id.as_str()), |i| {
        format!("players[{i}].player_id")
    })?;
    if players.iter().all(|p| p.score == 0) {
        return Ok(vec![0; players.len()]); // MJ-14
    }
    let key = |p: &TablePlayer| (p.completed, p.score);
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| key(&players[b]).cmp(&key(&players[a])));
    let table = if players[order[0]].completed {
        tp_completed(players.len())
    } else {
        tp_not_completed(players.len())
    };
    let ordered: Vec<&TablePlayer> = order.iter().map(|&i| &players[i]).collect();
    let shared = shares(&ordered, |a, b| key(a) == key(b), table);
    let mut out = vec![0; players.len()];
    for (rank, &i) in order.iter().enumerate() {
        out[i] = shared[rank] * i64::from(multiplier);
    }
    Ok(out)
}

/// A registered player's standing at the end (MJ-16).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalStanding {
    pub player_id: String,
    /// Total TP.
    pub tp: i64,
    /// When they registered (ms since the Unix epoch, UTC).
    pub registered_at_ms: i64,
}

/// Orders standings into final places (MJ-16): total TP, highest first; then the
/// earlier registration; then the account id.
pub fn final_order(standings: &mut [FinalStanding]) {
    standings.sort_by(|a, b| {
        b.tp.cmp(&a.tp)
            .then(a.registered_at_ms.cmp(&b.registered_at_ms))
            .then_with(|| a.player_id.cmp(&b.player_id))
    });
}

/// What the winner of a tournament keeps on their account (MJ-17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trophy {
    /// The usual cup.
    Cup,
    /// The Champions Tournament's replica trophy, instead of the cup.
    Replica,
}

/// The trophy the winner of `t` gets (MJ-17).
pub fn winners_trophy(t: &Tournament) -> Trophy {
    if t.champions {
        Trophy::Replica
    } else {
        Trophy::Cup
    }
}

/// Checks a Champions Tournament entry (MJ-17): `prize_points` won as final
/// tournament prizes this week must be at least [`CHAMPIONS_ENTRY_POINTS`].
pub fn check_champions_entry(prize_points: i64) -> Result<(), RuleError> {
    if prize_points < CHAMPIONS_ENTRY_POINTS {
        return Err(RuleError::new(
            "player_id",
            "MJ-17",
            format!(
                "the Champions Tournament needs {CHAMPIONS_ENTRY_POINTS} points won as tournament prizes this week; {prize_points} won"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: &str, completed: bool, score: i64) -> TablePlayer {
        TablePlayer {
            player_id: id.into(),
            completed,
            score,
        }
    }

    /// MJ-13 … MJ-15: the worked example: ×3, A completed, B and C tied → 90, 21, 21.
    #[test]
    fn mj_13_mj_15_shares_are_rounded_down_before_the_multiplier() {
        let table = [p("a", true, 1200), p("b", false, 900), p("c", false, 900)];
        assert_eq!(table_tp(&table, 3), Ok(vec![90, 21, 21]));
        // Nobody completed: 20 / 15 / 0 → A 60; B and C ⌊15 ÷ 2⌋ × 3 = 21, not 22.
        let table = [p("a", false, 1200), p("b", false, 900), p("c", false, 900)];
        assert_eq!(table_tp(&table, 3), Ok(vec![60, 21, 21]));
    }

    /// MJ-13: both TP tables, by size, completion before score.
    #[test]
    fn mj_13_tp_by_place() {
        let four = [
            p("a", true, 100),
            p("b", false, 900),
            p("c", false, 500),
            p("d", false, 0),
        ];
        assert_eq!(table_tp(&four, 1), Ok(vec![40, 20, 10, 0]));
        let four = [
            p("a", false, 100),
            p("b", false, 900),
            p("c", false, 500),
            p("d", false, 0),
        ];
        assert_eq!(table_tp(&four, 1), Ok(vec![10, 30, 20, 0]));
        assert_eq!(table_tp(&[p("a", true, 5), p("b", false, 9)], 2), Ok(vec![40, 0]));
        assert_eq!(
            table_tp(&[p("a", false, 5), p("b", false, 9)], 1),
            Ok(vec![0, 10])
        );
    }

    /// MJ-14: an all-zero table gives nobody TP, even a completed board.
    #[test]
    fn mj_14_an_all_zero_table_gives_no_tp() {
        assert_eq!(table_tp(&[p("a", true, 0), p("b", false, 0)], 6), Ok(vec![0, 0]));
    }

    /// MJ-12, GM-5: 1 or 5 players, or a player twice, are refused naming the field.
    #[test]
    fn mj_12_a_table_has_two_to_four_players() {
        assert_eq!(table_tp(&[p("a", true, 1)], 1).unwrap_err().rule, "MJ-12");
        let five: Vec<_> = (0..5).map(|i| p(&format!("p{i}"), false, i)).collect();
        assert_eq!(table_tp(&five, 1).unwrap_err().field, "players");
        let e = table_tp(&[p("a", true, 1), p("a", false, 2)], 1).unwrap_err();
        assert_eq!(e.field, "players[1].player_id");
    }

    /// MJ-16: equal TP go to the earlier registration, then the account id.
    #[test]
    fn mj_16_final_places_break_ties_by_registration() {
        let s = |id: &str, tp, at| FinalStanding {
            player_id: id.into(),
            tp,
            registered_at_ms: at,
        };
        let mut v = vec![s("b", 60, 200), s("a", 60, 300), s("c", 90, 900), s("d", 60, 200)];
        final_order(&mut v);
        let ids: Vec<&str> = v.iter().map(|s| s.player_id.as_str()).collect();
        assert_eq!(ids, ["c", "b", "d", "a"]);
    }

    /// MJ-17: 199 prize points refuse entry, naming the rule; 200 admit; the winner
    /// gets a replica; 15 registered cancel a Champions Tournament.
    #[test]
    fn mj_17_champions_entry_cancellation_and_trophy() {
        assert_eq!(check_champions_entry(199).unwrap_err().rule, "MJ-17");
        assert!(check_champions_entry(200).is_ok());
        let t = Tournament {
            tournament_id: "champions-2027-w29".into(),
            starts_at: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            ends_at: DateTime::from_timestamp(1_800_003_600, 0).unwrap(),
            min_players: 16,
            multiplier: 2,
            prizes: vec![300, 150, 50],
            champions: true,
        };
        assert!(t.validate().is_ok());
        assert!(t.cancelled_with(15));
        assert!(!t.cancelled_with(16));
        assert_eq!(winners_trophy(&t), Trophy::Replica);
        let bad = Tournament {
            min_players: 8,
            ..t.clone()
        };
        assert_eq!(bad.validate().unwrap_err().rule, "MJ-17");
        let bad = Tournament {
            prizes: vec![i64::MAX],
            ..t.clone()
        };
        assert_eq!(bad.validate().unwrap_err().field, "prizes[0]");
        let bad = Tournament {
            starts_at: DateTime::from_timestamp(0, 0).unwrap(),
            ..t.clone()
        };
        assert_eq!(bad.validate().unwrap_err().field, "starts_at");
        let bad = Tournament {
            multiplier: 7,
            ..t.clone()
        };
        assert_eq!(bad.validate().unwrap_err().field, "multiplier");
        let cup = Tournament {
            champions: false,
            ..t
        };
        assert_eq!(winners_trophy(&cup), Trophy::Cup);
    }
}
