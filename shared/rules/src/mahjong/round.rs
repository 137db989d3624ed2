//! Round scores (MJ-9, MJ-9a) and the end of a competitive round (MJ-10).
//!
//! A round score is counted anew in every round of a Duel, Arena or tournament and
//! only decides places: it is not account points (MJ-21) and may be negative.
//!
//! - A pair is worth 100; a *decisive* pair (the game server marks it) 300 (MJ-9).
//! - A player's *interval* for a pair is the time since their previous pair (since
//!   the round's start for the first). The first pair sets the record; a later pair
//!   whose interval is strictly shorter than the record is worth 200 and becomes the
//!   record (MJ-9a). A decisive pair is worth 300, never 300 + 200.
//!   **Decision:** a decisive pair's interval still sets or beats the record: it is a
//!   pair; only its worth is fixed at 300.
//! - A click on a blocked tile costs 100 (MJ-9).
//! - A round ends when the first player solves the board, after 5 minutes, after 20
//!   seconds without any pair by anybody, or at the tournament's end (MJ-10); a log
//!   with an event after the end, or out of order, is refused.

use serde::{Deserialize, Serialize};

use crate::error::RuleError;

/// A pair (MJ-9).
pub const PAIR: i64 = 100;
/// A pair whose interval beats the player's record (MJ-9a).
pub const RECORD_PAIR: i64 = 200;
/// A decisive pair (MJ-9).
pub const DECISIVE_PAIR: i64 = 300;
/// A click on a blocked tile (MJ-9).
pub const BLOCKED_CLICK: i64 = -100;

/// The longest a round lasts (MJ-10), in milliseconds from its start.
pub const MAX_ROUND_MS: u64 = 5 * 60 * 1000;
/// A round ends this long after the last pair by anybody (MJ-10), in milliseconds.
pub const IDLE_END_MS: u64 = 20 * 1000;
/// Jokers one round may use (MJ-6).
pub const MAX_JOKERS_PER_ROUND: u32 = crate::mahjong::jokers::MAX_PER_ROUND;

/// One event of a player's round, at milliseconds since the round's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RoundEvent {
    /// A pair removed; `decisive` as the game server marked it (MJ-9).
    Pair {
        at_ms: u64,
        #[serde(default)]
        decisive: bool,
    },
    /// A click on a blocked tile (MJ-9).
    Blocked { at_ms: u64 },
}

impl RoundEvent {
    /// When it happened (ms since the round's start).
    pub fn at_ms(&self) -> u64 {
        match *self {
            RoundEvent::Pair { at_ms, .. } | RoundEvent::Blocked { at_ms } => at_ms,
        }
    }
}

/// One player's log of a round, as the game server reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundLog {
    pub player_id: String,
    /// In the order they happened.
    pub events: Vec<RoundEvent>,
    /// Jokers the player used in the round (MJ-6: at most 2).
    #[serde(default)]
    pub jokers_used: u32,
}

/// A round: every player's log, and when the first player solved the board (ms since
/// the round's start), if anybody did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Round {
    #[serde(default)]
    pub solved_at_ms: Option<u64>,
    pub logs: Vec<RoundLog>,
}

/// The round score of one player's events (MJ-9, MJ-9a), assumed in order.
pub fn score(events: &[RoundEvent]) -> i64 {
    let mut record: Option<u64> = None;
    let mut last_pair_ms = 0;
    let mut total: i64 = 0;
    for e in events {
        match *e {
            RoundEvent::Blocked { .. } => total += BLOCKED_CLICK,
            RoundEvent::Pair { at_ms, decisive } => {
                let interval = at_ms.saturating_sub(last_pair_ms);
                last_pair_ms = at_ms;
                let beats = match record {
                    None => {
                        record = Some(interval);
                        false
                    }
                    Some(r) if interval < r => {
                        record = Some(interval);
                        true
                    }
                    Some(_) => false,
                };
                total += if decisive {
                    DECISIVE_PAIR
                } else if beats {
                    RECORD_PAIR
                } else {
                    PAIR
                };
            }
        }
    }
    total
}

/// When the round ended (MJ-10), in ms since its start: the first of the first
/// solve, [`MAX_ROUND_MS`], `deadline_ms` (the tournament's end, if it falls in the
/// round), and [`IDLE_END_MS`] after the last pair by anybody before then (from the
/// start when nobody paired yet).
pub fn end_ms(round: &Round, deadline_ms: Option<u64>) -> u64 {
    let mut end = MAX_ROUND_MS;
    if let Some(s) = round.solved_at_ms {
        end = end.min(s);
    }
    if let Some(d) = deadline_ms {
        end = end.min(d);
    }
    let mut pairs: Vec<u64> = round
        .logs
        .iter()
        .flat_map(|l| l.events.iter())
        .filter(|e| matches!(e, RoundEvent::Pair { .. }))
        .map(RoundEvent::at_ms)
        .collect();
    pairs.sort_unstable();
    let mut last = 0;
    for at in pairs {
        if at > end || at - last > IDLE_END_MS {
            break;
        }
        last = at;
    }
    end.min(last + IDLE_END_MS)
}

/// Checks a round (MJ-6, MJ-10, GM-5): every log's events in order and none after the
/// round's end ([`end_ms`]), at most [`MAX_JOKERS_PER_ROUND`] Jokers each, and the
/// players `expected` (in any order), each once. `field` prefixes the error's field
/// (`rounds[1]`). Returns the round's end.
pub fn check(
    round: &Round,
    expected: &[&str],
    deadline_ms: Option<u64>,
    field: &str,
) -> Result<u64, RuleError> {
    if round.logs.len() != expected.len()
        || !expected
            .iter()
            .all(|p| round.logs.iter().filter(|l| l.player_id == *p).count() == 1)
    {
        return Err(RuleError::new(
            format!("{field}.logs"),
            "GM-5",
            format!("one log for each of the {} players, and no other", expected.len()),
        ));
    }
    let end = end_ms(round, deadline_ms);
    if let Some(solved) = round.solved_at_ms.filter(|s| *s > end) {
        return Err(RuleError::new(
            format!("{field}.solved_at_ms"),
            "MJ-10",
            format!("at {solved} ms, after the round ended at {end} ms"),
        ));
    }
    for (i, log) in round.logs.iter().enumerate() {
        let at = |j: usize| format!("{field}.logs[{i}].events[{j}]");
        if log.jokers_used > MAX_JOKERS_PER_ROUND {
            return Err(RuleError::new(
                format!("{field}.logs[{i}].jokers_used"),
                "MJ-6",
                format!("at most {MAX_JOKERS_PER_ROUND} Jokers in a round"),
            ));
        }
        for (j, e) in log.events.iter().enumerate() {
            if j > 0 && e.at_ms() < log.events[j - 1].at_ms() {
                return Err(RuleError::new(
                    at(j),
                    "GM-5",
                    format!(
                        "at_ms {} is before the previous event's {}: events are in order",
                        e.at_ms(),
                        log.events[j - 1].at_ms()
                    ),
                ));
            }
            let paired_before = log.events[..j]
                .iter()
                .rev()
                .find(|p| matches!(p, RoundEvent::Pair { .. }))
                .map(RoundEvent::at_ms);
            if matches!(e, RoundEvent::Pair { .. }) && paired_before == Some(e.at_ms()) {
                return Err(RuleError::new(at(j), "GM-5", "two pairs at one instant"));
            }
            if e.at_ms() > end {
                return Err(RuleError::new(
                    at(j),
                    "MJ-10",
                    format!("at {} ms, after the round ended at {end} ms", e.at_ms()),
                ));
            }
        }
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(s: u64) -> RoundEvent {
        RoundEvent::Pair {
            at_ms: s * 1000,
            decisive: false,
        }
    }
    fn decisive(s: u64) -> RoundEvent {
        RoundEvent::Pair {
            at_ms: s * 1000,
            decisive: true,
        }
    }
    fn blocked(s: u64) -> RoundEvent {
        RoundEvent::Blocked { at_ms: s * 1000 }
    }

    /// MJ-9, MJ-9a: the worked example of `docs/rules/mahjong.md`: 800.
    #[test]
    fn mj_9_mj_9a_the_worked_round_scores_800() {
        let events = [pair(8), pair(14), pair(19), pair(24), blocked(27), decisive(30)];
        assert_eq!(score(&events), 800);
    }

    /// MJ-9, MJ-9a: the issue's case: 100 + 200 + 100 + 200 + 300 − 200 = 700; an
    /// interval equal to the record is worth 100.
    #[test]
    fn mj_9a_a_strictly_shorter_interval_beats_the_record() {
        let events = [
            pair(3),
            pair(5),
            pair(9),
            pair(10),
            decisive(12),
            blocked(13),
            blocked(14),
        ];
        assert_eq!(score(&events), 700);
        assert_eq!(score(&[pair(3), pair(6)]), 200, "equal to the record: 100");
        assert_eq!(score(&[]), 0);
        assert_eq!(score(&[blocked(1)]), -100, "round scores may be negative");
    }

    /// MJ-9a, Decision: a decisive pair is worth 300 (not 500) and still moves the record.
    #[test]
    fn mj_9a_a_decisive_pair_is_300_and_moves_the_record() {
        // 5 s (record 5), decisive at 7 s (2 s: record 2, worth 300), 10 s (3 s: 100).
        assert_eq!(score(&[pair(5), decisive(7), pair(10)]), 500);
    }

    fn round(solved: Option<u64>, logs: Vec<(&str, Vec<RoundEvent>)>) -> Round {
        Round {
            solved_at_ms: solved.map(|s| s * 1000),
            logs: logs
                .into_iter()
                .map(|(p, events)| RoundLog {
                    player_id: p.into(),
                    events,
                    jokers_used: 0,
                })
                .collect(),
        }
    }

    /// MJ-10: the round ends at the first solve, after 5 minutes, 20 s after the last
    /// pair by anybody, or at the tournament's end; later events are refused.
    #[test]
    fn mj_10_a_round_ends_at_the_first_of_its_limits() {
        let r = round(
            Some(40),
            vec![("a", vec![pair(10), pair(39)]), ("b", vec![pair(25)])],
        );
        assert_eq!(end_ms(&r, None), 40_000);
        assert_eq!(end_ms(&r, Some(30_000)), 30_000);
        // b's pair at 25 s keeps the round going for a: no 20 s without a pair.
        assert_eq!(check(&r, &["a", "b"], None, "rounds[0]"), Ok(40_000));
        // Nobody solves: 20 s after the last pair (39 s) = 59 s.
        let idle = round(
            None,
            vec![
                ("a", vec![pair(10), pair(39), blocked(58)]),
                ("b", vec![pair(25)]),
            ],
        );
        assert_eq!(end_ms(&idle, None), 59_000);
        assert!(check(&idle, &["a", "b"], None, "r").is_ok());
        // A pair 21 s after the previous one by anybody: the round had ended.
        let late = round(None, vec![("a", vec![pair(10), pair(31)]), ("b", vec![])]);
        let e = check(&late, &["a", "b"], None, "rounds[2]").unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.rule),
            ("rounds[2].logs[0].events[1]", "MJ-10")
        );
        // Five minutes at most.
        let long: Vec<RoundEvent> = (1..=20).map(|i| pair(i * 15)).collect();
        let r = round(None, vec![("a", long)]);
        assert_eq!(end_ms(&r, None), MAX_ROUND_MS);
        assert_eq!(check(&r, &["a"], None, "r").map_err(|e| e.rule), Ok(MAX_ROUND_MS));
        let mut past = round(None, vec![("a", (1..=21).map(|i| pair(i * 15)).collect())]);
        assert_eq!(check(&past, &["a"], None, "r").map_err(|e| e.rule), Err("MJ-10"));
        past.logs[0].events.truncate(20);
        assert!(
            check(&past, &["a"], Some(200_000), "r").is_err(),
            "the tournament ended at 200 s"
        );
    }

    /// MJ-10, GM-5: a solve after the round ended (past 5 minutes, or after 20 s
    /// without pairs), and two pairs of one player at one instant, are refused.
    #[test]
    fn mj_10_a_solve_after_the_end_and_simultaneous_pairs_are_refused() {
        let r = round(Some(1_000_000), vec![("a", vec![pair(10)])]);
        assert_eq!(check(&r, &["a"], None, "r").unwrap_err().field, "r.solved_at_ms");
        let r = round(Some(45), vec![("a", vec![pair(10)])]);
        assert_eq!(
            check(&r, &["a"], None, "r").unwrap_err().rule,
            "MJ-10",
            "idle end at 30 s"
        );
        let r = round(None, vec![("a", vec![pair(10), blocked(10), pair(10)])]);
        let e = check(&r, &["a"], None, "r").unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("r.logs[0].events[2]", "GM-5"));
    }

    /// GM-5, MJ-6: out-of-order logs, missing players and a third Joker are refused.
    #[test]
    fn gm_5_mj_6_bad_logs_are_refused_naming_the_field() {
        let r = round(None, vec![("a", vec![pair(5), pair(3)])]);
        let e = check(&r, &["a"], None, "rounds[0]").unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.rule),
            ("rounds[0].logs[0].events[1]", "GM-5")
        );
        let r = round(None, vec![("a", vec![pair(5)])]);
        assert_eq!(check(&r, &["a", "b"], None, "r").unwrap_err().field, "r.logs");
        let mut r = round(None, vec![("a", vec![pair(5)]), ("a", vec![])]);
        assert_eq!(check(&r, &["a", "b"], None, "r").unwrap_err().field, "r.logs");
        r.logs[1].player_id = "b".into();
        r.logs[1].jokers_used = 3;
        let e = check(&r, &["a", "b"], None, "r").unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("r.logs[1].jokers_used", "MJ-6"));
    }
}
