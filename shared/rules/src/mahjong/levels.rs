//! Single Player levels (MJ-1 … MJ-5): which levels exist, and what a completion earns.
//!
//! A completion earns +10 the first time an account completes the level (MJ-2), and a
//! time bonus by the place its time takes at that moment among the *other* accounts'
//! best times on the level, equal times sharing a place: 1st → +10, 2nd–10th → +5
//! (MJ-3). Each time bonus is given at most once per account and level, at most one
//! per completion, and none after the +10 (MJ-4), so a first completion earns 10, 15
//! or 20; replays for a better time may still earn a time bonus, never the +10 of
//! MJ-2 again (MJ-5).
//!
//! The place needs only how many other accounts are strictly faster, and only
//! whether that is 0, 1–9 or 10 or more: [`Place::from_faster_others`] takes that
//! count capped at [`PLACES_THAT_PAY`], so finding it is a bounded read of the level's
//! ranking, whatever its size.

use serde::{Deserialize, Serialize};

use crate::error::RuleError;

/// Levels 1 … 11,000 exist (MJ-1).
pub const LEVELS: u32 = 11_000;

/// Levels above this exist only in Single Player (MJ-1).
pub const SHARED_LEVELS: u32 = 10_000;

/// Points of a level's first completion (MJ-2).
pub const FIRST_COMPLETION_POINTS: i64 = 10;

/// The time bonus for 1st place (MJ-3).
pub const FIRST_PLACE_POINTS: i64 = 10;

/// The time bonus for 2nd–10th place (MJ-3).
pub const TOP_TEN_POINTS: i64 = 5;

/// Places that earn a time bonus: how many strictly faster other accounts matter.
pub const PLACES_THAT_PAY: u32 = 10;

/// Refuses a level outside 1 … 11,000, naming `field` (MJ-1).
pub fn check_level(field: &str, level: u32) -> Result<u32, RuleError> {
    if (1..=LEVELS).contains(&level) {
        Ok(level)
    } else {
        Err(RuleError::new(
            field,
            "MJ-1",
            format!("levels are 1 to {LEVELS}, not {level}"),
        ))
    }
}

/// Whether a level is HARD: levels divisible by 10 (MJ-1).
pub fn is_hard(level: u32) -> bool {
    level.is_multiple_of(10)
}

/// Whether a level exists only in Single Player: 10,001 … 11,000 (MJ-1).
pub fn single_player_only(level: u32) -> bool {
    level > SHARED_LEVELS
}

/// The place a completion's time takes among the other accounts' best times (MJ-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Nobody else strictly faster (equal times share 1st).
    First,
    /// 1 to 9 others strictly faster: 2nd–10th.
    TopTen,
    /// 10 or more others strictly faster.
    Below,
}

impl Place {
    /// The place from the number of *other* accounts whose best time is strictly
    /// faster (the caller may cap the count at [`PLACES_THAT_PAY`]).
    pub fn from_faster_others(faster: u32) -> Place {
        match faster {
            0 => Place::First,
            n if n < PLACES_THAT_PAY => Place::TopTen,
            _ => Place::Below,
        }
    }
}

/// What an account has had on one level (MJ-4, MJ-5), stored with its best time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LevelState {
    /// Its best time in milliseconds, if it ever completed the level.
    pub best_ms: Option<u64>,
    /// The +5 time bonus was given.
    pub got_top_ten: bool,
    /// The +10 time bonus was given: no time bonus on this level again.
    pub got_first: bool,
}

/// What one completion earns and leaves (points are Mahjong account points).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompletionPoints {
    /// +10 on the account's first completion of the level, else 0 (MJ-2, MJ-5).
    pub first_completion: i64,
    /// +10, +5 or 0 (MJ-3, MJ-4).
    pub time_bonus: i64,
    /// The account's state on the level afterwards (best time improved if faster).
    pub after: LevelState,
}

impl CompletionPoints {
    /// Both together.
    pub fn total(&self) -> i64 {
        self.first_completion + self.time_bonus
    }

    /// Whether the completion improved the account's best time (or set its first).
    pub fn improved(&self, before: &LevelState) -> bool {
        self.after.best_ms != before.best_ms
    }
}

/// What a completion in `time_ms` earns, given the account's state on the level and
/// the place its time takes among the other accounts' best times (MJ-2 … MJ-5).
pub fn complete(before: &LevelState, time_ms: u64, place: Place) -> CompletionPoints {
    let first_completion = if before.best_ms.is_none() {
        FIRST_COMPLETION_POINTS
    } else {
        0
    };
    let mut after = *before;
    let time_bonus = match place {
        _ if before.got_first => 0,
        Place::First => {
            after.got_first = true;
            FIRST_PLACE_POINTS
        }
        Place::TopTen if !before.got_top_ten => {
            after.got_top_ten = true;
            TOP_TEN_POINTS
        }
        Place::TopTen | Place::Below => 0,
    };
    after.best_ms = Some(before.best_ms.map_or(time_ms, |b| b.min(time_ms)));
    CompletionPoints {
        first_completion,
        time_bonus,
        after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MJ-1: the board registry serves a time ranking for every level, and no other.
    #[test]
    fn mj_1_the_registry_knows_every_level() {
        assert_eq!(crate::board::MAHJONG_LEVELS, LEVELS);
    }

    fn fresh() -> LevelState {
        LevelState::default()
    }

    #[test]
    fn mj_1_levels_1_to_11000_exist_and_every_tenth_is_hard() {
        assert_eq!(check_level("level", 1), Ok(1));
        assert_eq!(check_level("level", 11_000), Ok(11_000));
        for bad in [0, 11_001, u32::MAX] {
            let e = check_level("level", bad).unwrap_err();
            assert_eq!((e.field.as_str(), e.rule), ("level", "MJ-1"));
        }
        assert!(is_hard(10) && is_hard(11_000) && !is_hard(11));
        assert!(single_player_only(10_001) && !single_player_only(10_000));
    }

    #[test]
    fn mj_3_place_counts_only_strictly_faster_others() {
        assert_eq!(Place::from_faster_others(0), Place::First);
        assert_eq!(Place::from_faster_others(1), Place::TopTen);
        assert_eq!(Place::from_faster_others(9), Place::TopTen);
        assert_eq!(Place::from_faster_others(10), Place::Below);
        assert_eq!(Place::from_faster_others(100_000), Place::Below);
    }

    #[test]
    fn mj_4_a_first_completion_gives_10_15_or_20() {
        assert_eq!(complete(&fresh(), 60_000, Place::First).total(), 20);
        assert_eq!(complete(&fresh(), 60_000, Place::TopTen).total(), 15);
        assert_eq!(complete(&fresh(), 60_000, Place::Below).total(), 10);
    }

    #[test]
    fn mj_4_mj_5_fourth_then_first_then_nothing_more() {
        // A first completion placing 4th: +10 and +5.
        let first = complete(&fresh(), 90_000, Place::TopTen);
        assert_eq!((first.first_completion, first.time_bonus), (10, 5));
        // A replay placing 4th again: the +5 is not given twice.
        let again = complete(&first.after, 85_000, Place::TopTen);
        assert_eq!(again.total(), 0);
        // A later replay placing 1st: +10 more, no second +10 of MJ-2.
        let best = complete(&again.after, 40_000, Place::First);
        assert_eq!((best.first_completion, best.time_bonus), (0, 10));
        // After the +10, no time bonus on this level ever again.
        for place in [Place::First, Place::TopTen] {
            assert_eq!(complete(&best.after, 30_000, place).total(), 0);
        }
    }

    #[test]
    fn mj_5_replays_keep_the_best_time() {
        let a = complete(&fresh(), 50_000, Place::Below);
        let slower = complete(&a.after, 70_000, Place::Below);
        assert_eq!(slower.after.best_ms, Some(50_000));
        assert!(!slower.improved(&a.after));
        let faster = complete(&slower.after, 45_000, Place::Below);
        assert_eq!(faster.after.best_ms, Some(45_000));
        assert!(faster.improved(&slower.after));
    }

    /// The worked example of `docs/rules/mahjong.md`: level 420 and the others' best
    /// times 1:32, 1:40, 1:40, 1:45, 1:48, 1:50, 1:55, 1:58, 2:01, 2:05, 2:10.
    fn level_420(time_s: u64) -> Place {
        let others = [92, 100, 100, 105, 108, 110, 115, 118, 121, 125, 130];
        let faster = others.iter().filter(|&&o| o < time_s).count() as u32;
        Place::from_faster_others(faster.min(PLACES_THAT_PAY))
    }

    #[test]
    fn mj_2_mj_3_worked_example_first_completions_on_level_420() {
        assert!(is_hard(420));
        for (time_s, points) in [(90, 20), (92, 20), (101, 15), (125, 15), (126, 10)] {
            let c = complete(&fresh(), time_s * 1000, level_420(time_s));
            assert_eq!(c.total(), points, "first completion in {time_s} s");
        }
    }

    #[test]
    fn mj_4_mj_5_worked_example_replays_on_level_420() {
        let mut state = complete(&fresh(), 126_000, level_420(126)).after;
        for (time_s, points) in [(110, 5), (104, 0), (91, 10), (80, 0)] {
            let c = complete(&state, time_s * 1000, level_420(time_s));
            assert_eq!(c.total(), points, "replay in {time_s} s");
            state = c.after;
        }
        assert_eq!(state.best_ms, Some(80_000));
    }
}
