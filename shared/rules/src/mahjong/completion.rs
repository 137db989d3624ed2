//! Settling a Single Player level completion (MJ-2 … MJ-6, MJ-20, MJ-21): what the
//! game server reports, and the settlement it becomes.
//!
//! One completion is one source of points (idempotency key: its `completion_id`). It
//! spends the Jokers it used (MJ-6), earns the first-completion and time bonuses of
//! [`levels::complete`] (MJ-2 … MJ-5), moves the account's best time on the level,
//! and credits every counted point to the AMR, weekly and daily boards in the period
//! of the completion's local date (MJ-20, MJ-21), all in one settlement.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::jokers::{Jokers, JOKERS_STATE};
use super::levels::{self, LevelState, Place};
use crate::error::RuleError;
use crate::game::Game;
use crate::settlement::{balance_change, Planned, Settlement, StateChange};

/// The game of Single Player.
pub const GAME: Game = Game::MahjongRivals;

/// The ledger source of a completion's points.
pub const SOURCE: &str = "level";

/// The state item of an account's standing on `level`: its best time and bonuses.
pub fn level_state_name(level: u32) -> String {
    format!("mahjong-rivals/level/{level}")
}

/// A completed level, as the game server reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelCompletion {
    /// The game server's id for this completion: the idempotency key (GM-3).
    pub completion_id: String,
    pub player_id: String,
    /// 1 … 11,000 (MJ-1).
    pub level: u32,
    /// The completion's time in milliseconds.
    pub time_ms: u64,
    /// When the level was completed (UTC).
    pub at: DateTime<Utc>,
    /// Jokers used (MJ-6: at most 2).
    pub jokers_used: u32,
}

/// What a completion plans from (read strongly consistent before planning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CompletionState {
    /// The account's standing on the level.
    pub level: LevelState,
    pub jokers: Jokers,
    /// The account's Mahjong Rivals balance (points).
    pub balance: i64,
    /// Other accounts whose best time on the level is strictly faster than this
    /// completion's, counted up to [`levels::PLACES_THAT_PAY`] (MJ-3).
    pub faster_others: u32,
}

/// The answer to a completion, stored with it (GM-3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionResult {
    pub completion_id: String,
    pub player_id: String,
    pub level: u32,
    pub time_ms: u64,
    /// +10 on the first completion, else 0 (MJ-2).
    pub first_completion: i64,
    /// +10, +5 or 0 (MJ-3, MJ-4).
    pub time_bonus: i64,
    /// The account's best time on the level afterwards (ms).
    pub best_ms: u64,
    /// Jokers held afterwards (MJ-6).
    pub jokers: u32,
    /// The Mahjong Rivals balance afterwards (points).
    pub balance_after: i64,
}

/// Checks a completion's own fields (GM-5): the level (MJ-1), a positive time, at
/// most 2 Jokers (MJ-6), non-empty ids.
pub fn validate(c: &LevelCompletion) -> Result<(), RuleError> {
    if c.completion_id.is_empty() {
        return Err(RuleError::new("completion_id", "GM-3", "an id is required"));
    }
    if c.player_id.is_empty() {
        return Err(RuleError::new("player_id", "GM-5", "an account id is required"));
    }
    levels::check_level("level", c.level)?;
    if c.time_ms == 0 {
        return Err(RuleError::new("time_ms", "MJ-3", "a completion takes some time"));
    }
    Jokers { count: u32::MAX }.spend("jokers_used", c.jokers_used)?;
    Ok(())
}

/// Plans a validated completion at server clock `now`: the Jokers spent, the points
/// earned (balance, ledger and the credits of MJ-20), the level state. Refuses
/// Jokers the account does not hold (MJ-6); nothing is written then.
pub fn plan(
    c: &LevelCompletion,
    state: &CompletionState,
    now: DateTime<Utc>,
) -> Result<Planned<CompletionResult>, RuleError> {
    let jokers = state.jokers.spend("jokers_used", c.jokers_used)?;
    let earned = levels::complete(
        &state.level,
        c.time_ms,
        Place::from_faster_others(state.faster_others),
    );
    let points = earned.total();
    let mut settlement = Settlement::result_only(());
    let mut balance_after = state.balance;
    if points > 0 {
        let (change, entry) = balance_change(
            &c.player_id,
            GAME,
            state.balance,
            points,
            SOURCE,
            &c.completion_id,
            c.at,
        );
        balance_after = change.after;
        settlement.balances.push(change);
        settlement.ledger.push(entry);
        settlement.credits = crate::board::credits_for(GAME, &c.player_id, points, c.at, now);
    }
    if earned.after != state.level {
        settlement.states.push(StateChange {
            player_id: c.player_id.clone(),
            name: level_state_name(c.level),
            body: serde_json::json!(earned.after),
        });
    }
    if c.jokers_used > 0 {
        settlement.states.push(StateChange {
            player_id: c.player_id.clone(),
            name: JOKERS_STATE.to_string(),
            body: serde_json::json!(jokers),
        });
    }
    let result = CompletionResult {
        completion_id: c.completion_id.clone(),
        player_id: c.player_id.clone(),
        level: c.level,
        time_ms: c.time_ms,
        first_completion: earned.first_completion,
        time_bonus: earned.time_bonus,
        best_ms: earned.after.best_ms.unwrap_or(c.time_ms),
        jokers: jokers.count,
        balance_after,
    };
    Ok(Planned::Write(Settlement {
        result,
        balances: settlement.balances,
        ledger: settlement.ledger,
        credits: settlement.credits,
        claims: Vec::new(),
        states: settlement.states,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn completion(level: u32, time_ms: u64, at: &str, jokers_used: u32) -> LevelCompletion {
        LevelCompletion {
            completion_id: "c-1".into(),
            player_id: "a".into(),
            level,
            time_ms,
            at: t(at),
            jokers_used,
        }
    }

    fn settled(p: Result<Planned<CompletionResult>, RuleError>) -> Settlement<CompletionResult> {
        match p.expect("planned") {
            Planned::Write(s) => s,
            Planned::Nothing(_) => panic!("a completion always writes"),
        }
    }

    #[test]
    fn mj_2_mj_3_a_first_completion_placing_first_earns_20_on_three_boards() {
        let c = completion(7, 61_000, "2027-03-01T10:00:00Z", 0);
        let s = settled(plan(&c, &CompletionState::default(), t("2027-03-01T10:00:05Z")));
        assert_eq!((s.result.first_completion, s.result.time_bonus), (10, 10));
        assert_eq!(s.result.balance_after, 20);
        assert_eq!(s.ledger.len(), 1);
        assert_eq!(s.ledger[0].applied, 20);
        let boards: Vec<&str> = s.credits.iter().map(|c| c.board).collect();
        assert_eq!(boards.len(), 3, "{boards:?}");
        assert!(s.credits.iter().all(|c| c.points == 20));
        assert_eq!(s.states.len(), 1, "the level state, no Jokers spent");
    }

    #[test]
    fn mj_20_a_completion_counts_in_the_period_of_its_bucharest_date() {
        // 21:30 UTC on 18 July 2027 is 00:30 on the 19th in Bucharest (+03:00).
        let c = completion(7, 61_000, "2027-07-18T21:30:00Z", 0);
        let s = settled(plan(&c, &CompletionState::default(), t("2027-07-18T21:30:01Z")));
        let period = |board: &str| {
            s.credits
                .iter()
                .find(|c| c.board == board)
                .map(|c| c.period.clone())
                .unwrap_or_default()
        };
        assert_eq!(period("mahjong-daily"), "2027-07-19");
        assert_eq!(period("mahjong-weekly"), "2027-W29");
    }

    #[test]
    fn mj_6_jokers_are_spent_and_refused_beyond_the_inventory() {
        let state = CompletionState {
            jokers: Jokers { count: 1 },
            faster_others: 10,
            ..Default::default()
        };
        let e = plan(
            &completion(7, 61_000, "2027-03-01T10:00:00Z", 2),
            &state,
            t("2027-03-01T10:00:01Z"),
        )
        .unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("jokers_used", "MJ-6"));
        let s = settled(plan(
            &completion(7, 61_000, "2027-03-01T10:00:00Z", 1),
            &state,
            t("2027-03-01T10:00:01Z"),
        ));
        assert_eq!(s.result.jokers, 0);
        assert!(s.states.iter().any(|st| st.name == JOKERS_STATE));
        assert_eq!(
            s.result.balance_after, 10,
            "11th place: the first completion only"
        );
    }

    #[test]
    fn mj_1_mj_6_validation_names_the_field() {
        for (c, field, rule) in [
            (completion(0, 1, "2027-03-01T10:00:00Z", 0), "level", "MJ-1"),
            (completion(11_001, 1, "2027-03-01T10:00:00Z", 0), "level", "MJ-1"),
            (completion(5, 1, "2027-03-01T10:00:00Z", 3), "jokers_used", "MJ-6"),
            (completion(5, 0, "2027-03-01T10:00:00Z", 0), "time_ms", "MJ-3"),
        ] {
            let e = validate(&c).unwrap_err();
            assert_eq!((e.field.as_str(), e.rule), (field, rule));
        }
        assert!(validate(&completion(11_000, 1, "2027-03-01T10:00:00Z", 2)).is_ok());
    }

    #[test]
    fn mj_4_a_replay_after_the_first_place_earns_nothing_and_writes_only_its_best_time() {
        let state = CompletionState {
            level: LevelState {
                best_ms: Some(50_000),
                got_top_ten: false,
                got_first: true,
            },
            balance: 40,
            ..Default::default()
        };
        let s = settled(plan(
            &completion(7, 45_000, "2027-03-01T10:00:00Z", 0),
            &state,
            t("2027-03-01T10:00:01Z"),
        ));
        assert!(s.balances.is_empty() && s.ledger.is_empty() && s.credits.is_empty());
        assert_eq!(s.result.best_ms, 45_000);
        assert_eq!(s.result.balance_after, 40);
    }
}
