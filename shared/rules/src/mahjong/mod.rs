//! Mahjong Rivals (MJ-1 … MJ-21, `docs/rules/mahjong.md`): Single Player levels and
//! their bonuses (MJ-1 … MJ-5), Jokers (MJ-6), Quick Match (MJ-7, MJ-8), round scores
//! (MJ-9, MJ-9a, MJ-10), the Arena (MJ-11), and the daily bonus with its doubling
//! (MJ-18, MJ-19); their points count on the AMR, weekly and daily boards (MJ-20,
//! MJ-21). Places with shared prizes are in [`places`].

pub mod arena;
pub mod completion;
pub mod daily_bonus;
pub mod jokers;
pub mod levels;
pub mod places;
pub mod quick_match;
pub mod records;
pub mod round;
pub mod tournament;
pub mod tournament_play;
