//! The daily bonus (MJ-18) and its doubling (MJ-19), on Romanian time (GM-2).
//!
//! Claimed once a day: day n of a streak gives min(10·n, 100) points; a missed day
//! restarts the streak at day 1; every 10th consecutive day also gives one Joker. The
//! points are Mahjong Rivals account points and count on the AMR, weekly and daily
//! boards in the period of the claim's local date (MJ-20, MJ-21). A rewarded ad whose
//! unit is the doubling adds the day's bonus once more, once a day (MJ-19; the Joker
//! is not doubled: **Decision**, the page doubles the bonus, and a Joker is no bonus
//! point).

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::game::Game;
use crate::settlement::{balance_change, LedgerSource, Planned, Settlement, StateChange};

/// The game of the daily bonus.
pub const GAME: Game = Game::MahjongRivals;

/// The claim kind of the doubling (MJ-19).
pub const DOUBLING_KIND: &str = "bonus-doubling";

/// The state item holding a player's streak.
pub const STREAK_STATE: &str = "mahjong-rivals/bonus-streak";

pub use super::jokers::{Jokers, JOKERS_STATE};

/// The most one day's bonus gives (MJ-18: day 10 and later).
pub const MAX_BONUS: i64 = 100;

/// A player's streak: the last day claimed and how many days in a row it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Streak {
    pub last_day: Option<NaiveDate>,
    pub length: u32,
}

/// Points of day `n` (≥ 1) of a streak (MJ-18): 10, 20, … 100, then 100.
pub fn bonus_points(n: u32) -> i64 {
    (10 * i64::from(n)).min(MAX_BONUS)
}

/// The idempotency id of `player_id`'s claim on `day`: one claim a day (GM-3).
pub fn claim_id(player_id: &str, day: NaiveDate) -> String {
    format!("{player_id}:{day}")
}

/// The answer to a claim, stored with it (GM-3: a repeat gets it back).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BonusResult {
    pub player_id: String,
    /// The local day claimed (Europe/Bucharest).
    pub day: NaiveDate,
    /// Consecutive days, this one included.
    pub streak: u32,
    /// Points granted (MJ-18).
    pub points: i64,
    /// Jokers granted with it (1 every 10th consecutive day).
    pub jokers_granted: u32,
    /// The Joker inventory after it.
    pub jokers: u32,
    /// The Mahjong Rivals balance after it (points).
    pub balance_after: i64,
    /// When the next claim can be made: the next local midnight (UTC).
    pub next_claim_at: DateTime<Utc>,
}

/// What a claim plans from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BonusState {
    pub streak: Streak,
    pub jokers: Jokers,
    /// The player's Mahjong Rivals balance (points; 0 for a new player).
    pub balance: i64,
}

/// Plans `player_id`'s claim at `now` (MJ-18): the settlement of today's bonus
/// (balance and ledger, the streak, Jokers on every 10th day, the credits of
/// MJ-20), or — when today was claimed already — the answer without a write.
pub fn plan(player_id: &str, now: DateTime<Utc>, state: &BonusState) -> Planned<BonusResult> {
    let today = GAME.local_date(now);
    let next_claim_at = crate::period::day_start(GAME.zone(), today + chrono::Days::new(1));
    let continued = state
        .streak
        .last_day
        .is_some_and(|d| d + chrono::Days::new(1) == today);
    if state.streak.last_day == Some(today) {
        let points = bonus_points(state.streak.length);
        return Planned::Nothing(BonusResult {
            player_id: player_id.to_string(),
            day: today,
            streak: state.streak.length,
            points,
            jokers_granted: u32::from(state.streak.length.is_multiple_of(10)),
            jokers: state.jokers.count,
            balance_after: state.balance,
            next_claim_at,
        });
    }
    let length = if continued { state.streak.length + 1 } else { 1 };
    let points = bonus_points(length);
    let jokers_granted = u32::from(length.is_multiple_of(10));
    let jokers = state.jokers.count + jokers_granted;
    let (change, entry) = balance_change(
        player_id,
        GAME,
        state.balance,
        points,
        LedgerSource {
            kind: "bonus",
            id: &claim_id(player_id, today),
            rule: "MJ-18",
        },
        now,
    );
    let result = BonusResult {
        player_id: player_id.to_string(),
        day: today,
        streak: length,
        points,
        jokers_granted,
        jokers,
        balance_after: change.after,
        next_claim_at,
    };
    let mut states = vec![StateChange {
        player_id: player_id.to_string(),
        name: STREAK_STATE.to_string(),
        body: serde_json::json!(Streak {
            last_day: Some(today),
            length,
        }),
    }];
    if jokers_granted > 0 {
        states.push(StateChange {
            player_id: player_id.to_string(),
            name: JOKERS_STATE.to_string(),
            body: serde_json::json!(Jokers { count: jokers }),
        });
    }
    Planned::Write(Settlement {
        balances: vec![change],
        ledger: vec![entry],
        credits: crate::settlement::credits_for(GAME, player_id, points, now, now),
        claims: Vec::new(),
        states,
        messages: Vec::new(),
        placements: Vec::new(),
        result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    /// Claims `days` at 12:00 Bucharest of each, from `state`; the points of each.
    fn run(days: &[&str], mut state: BonusState) -> (Vec<i64>, BonusState) {
        let mut points = Vec::new();
        for d in days {
            let Planned::Write(s) = plan("p", t(&format!("{d}T10:00:00Z")), &state) else {
                panic!("{d} claimed twice");
            };
            points.push(s.result.points);
            state = BonusState {
                streak: Streak {
                    last_day: Some(s.result.day),
                    length: s.result.streak,
                },
                jokers: Jokers {
                    count: s.result.jokers,
                },
                balance: s.result.balance_after,
            };
        }
        (points, state)
    }

    const NEW: BonusState = BonusState {
        streak: Streak {
            last_day: None,
            length: 0,
        },
        jokers: Jokers { count: 0 },
        balance: 0,
    };

    /// MJ-18: days 1 … 12 in a row give 10, 20, … 100, 100, 100 and one Joker on day
    /// 10; a missed day restarts at 10.
    #[test]
    fn mj18_streak_of_twelve_then_a_missed_day() {
        let days: Vec<String> = (1..=12).map(|d| format!("2027-01-{d:02}")).collect();
        let days: Vec<&str> = days.iter().map(String::as_str).collect();
        let (points, state) = run(&days, NEW);
        assert_eq!(points, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 100, 100]);
        assert_eq!(state.jokers.count, 1);
        assert_eq!(state.balance, 750);
        let (points, state) = run(&["2027-01-14"], state);
        assert_eq!((points, state.streak.length), (vec![10], 1));
    }

    /// MJ-18 / GM-2: the day is Bucharest's: 22:30Z on 10 May is 11 May there, and a
    /// second claim that day writes nothing and answers the first.
    #[test]
    fn mj18_days_are_local_and_claimed_once() {
        let Planned::Write(s) = plan("p", t("2027-05-10T22:30:00Z"), &NEW) else {
            panic!("claimed");
        };
        assert_eq!(s.result.day.to_string(), "2027-05-11");
        assert_eq!(s.result.next_claim_at, t("2027-05-11T21:00:00Z"));
        let periods: Vec<_> = s
            .credits
            .iter()
            .map(|c| (c.board.as_str(), c.period.as_str()))
            .collect();
        assert_eq!(
            periods,
            [
                ("mahjong-amr", "all"),
                ("mahjong-weekly", "2027-W19"),
                ("mahjong-daily", "2027-05-11")
            ]
        );
        let after = BonusState {
            streak: Streak {
                last_day: Some(s.result.day),
                length: 1,
            },
            jokers: Jokers::default(),
            balance: 10,
        };
        assert!(
            matches!(plan("p", t("2027-05-11T20:59:59Z"), &after), Planned::Nothing(r) if r.points == 10)
        );
        assert!(
            matches!(plan("p", t("2027-05-11T21:00:00Z"), &after), Planned::Write(s) if s.result.streak == 2)
        );
    }

    /// GM-2: across the DST changes (23- and 25-hour days) and a year boundary, one
    /// claim a local day keeps the streak.
    #[test]
    fn mj18_dst_and_year_boundaries() {
        // Just before and after each local midnight.
        let mut state = NEW;
        for at in [
            "2027-03-26T21:59:00Z", // 27 Mar 23:59 (UTC+2)
            "2027-03-27T22:00:00Z", // 28 Mar 00:00 (UTC+2; the 23-hour day)
            "2027-03-28T21:00:00Z", // 29 Mar 00:00 (UTC+3)
            "2027-10-30T21:00:00Z", // 31 Oct 00:00 (UTC+3; the 25-hour day)
        ] {
            let Planned::Write(s) = plan("p", t(at), &state) else {
                panic!("{at}")
            };
            state = BonusState {
                streak: Streak {
                    last_day: Some(s.result.day),
                    length: s.result.streak,
                },
                jokers: Jokers::default(),
                balance: s.result.balance_after,
            };
        }
        assert_eq!(state.streak.last_day.unwrap().to_string(), "2027-10-31");
        // 31 Oct ends 25 hours after it began, at 22:00Z.
        assert!(matches!(
            plan("p", t("2027-10-31T21:59:59Z"), &state),
            Planned::Nothing(_)
        ));
        assert!(
            matches!(plan("p", t("2027-10-31T22:00:00Z"), &state), Planned::Write(s) if s.result.day.to_string() == "2027-11-01")
        );
        let (_, state) = run(&["2027-12-31"], NEW);
        let (points, _) = run(&["2028-01-01"], state);
        assert_eq!(points, [20], "a streak crosses the year");
    }
}
