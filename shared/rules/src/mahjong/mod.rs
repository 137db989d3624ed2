//! Mahjong Rivals (MJ-1 … MJ-21, `docs/rules/mahjong.md`). Today: the daily bonus
//! and its doubling (MJ-18, MJ-19); its points count on the AMR, weekly and daily
//! boards (MJ-20, MJ-21).

pub mod daily_bonus;
