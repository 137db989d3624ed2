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
use crate::board::BoardRef;
use crate::error::RuleError;
use crate::game::Game;
use crate::settlement::{balance_change, LedgerSource, Planned, Settlement, StateChange};

/// The game of Single Player.
pub const GAME: Game = Game::MahjongRivals;

/// The ledger source of a completion's points.
pub const SOURCE: &str = "level";

/// The `kind` of a level completion record (with `game` `mahjong-rivals`).
pub const KIND: &str = "level-completion";

/// Completion times are under 24 hours (ms): the ceiling of a level's time ranking
/// ([`crate::board::MAHJONG_LEVEL`], [`crate::board::Order::LowerFirst`]), which
/// lists faster first, equal times sharing a place, then who reached it first.
pub const TIME_CEILING_MS: u64 = 86_400_000;

/// The prefix of the per-level time ranking boards: `mahjong-level-420`.
pub const LEVEL_BOARD_PREFIX: &str = "mahjong-level-";

/// The time ranking of `level` (LB-1): one all-time board per level.
pub fn level_board(level: u32) -> BoardRef {
    BoardRef::all_time(format!("{LEVEL_BOARD_PREFIX}{level}"))
}

/// The stored value a best time of `time_ms` has on a level's time ranking (its
/// registry order, [`crate::board::Order::stored`]).
pub fn ranking_value(time_ms: u64) -> i64 {
    crate::board::MAHJONG_LEVEL
        .order
        .stored(i64::try_from(time_ms).unwrap_or(i64::MAX))
}

/// The best time (ms) a stored value on a level's time ranking stands for.
pub fn time_of(value: i64) -> u64 {
    u64::try_from(crate::board::MAHJONG_LEVEL.order.value_of(value)).unwrap_or(0)
}

/// The state item that holds a level's fastest best times ([`Fastest`]), under the
/// owner [`fastest_owner`].
pub const FASTEST_STATE: &str = "mahjong-rivals/fastest";

/// The internal owner of a level's [`Fastest`] item: `@mahjong-level-420` (never an
/// account: GM-5, [`crate::record::ids::internal_owner`]).
pub fn fastest_owner(level: u32) -> String {
    crate::record::ids::internal_owner(&format!("{LEVEL_BOARD_PREFIX}{level}"))
}

/// A level's fastest best times: what the place of a completion depends on (MJ-3),
/// kept in one versioned item that every completion whose place or time matters
/// reads strongly consistent and writes in its own settlement, so two completions of
/// one level can never both be placed against a ranking without the other.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Fastest {
    /// (account, best time in ms), fastest first, at most `PLACES_THAT_PAY + 1`.
    pub times: Vec<(String, u64)>,
}

impl Fastest {
    /// How many accounts other than `player_id` have a best time strictly faster
    /// than `time_ms`, capped at [`levels::PLACES_THAT_PAY`] (MJ-3).
    pub fn faster_others(&self, player_id: &str, time_ms: u64) -> u32 {
        let n = self
            .times
            .iter()
            .filter(|(p, t)| p != player_id && *t < time_ms)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX).min(levels::PLACES_THAT_PAY)
    }

    /// The list with `player_id`'s best time set to `best_ms` (only ever faster).
    pub fn with(&self, player_id: &str, best_ms: u64) -> Fastest {
        let mut times: Vec<(String, u64)> = self
            .times
            .iter()
            .filter(|(p, _)| p != player_id)
            .cloned()
            .collect();
        let at = times.partition_point(|(_, t)| *t <= best_ms);
        times.insert(at, (player_id.to_string(), best_ms));
        times.truncate(levels::PLACES_THAT_PAY as usize + 1);
        Fastest { times }
    }
}

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
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompletionState {
    /// The account's standing on the level.
    pub level: LevelState,
    pub jokers: Jokers,
    /// The account's Mahjong Rivals balance (points).
    pub balance: i64,
    /// The level's fastest best times (MJ-3).
    pub fastest: Fastest,
}

/// The answer to a completion, stored with it (GM-3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionResult {
    pub completion_id: String,
    pub player_id: String,
    pub level: u32,
    pub time_ms: u64,
    /// When the level was completed (UTC); absent on results stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
    /// The time's place among the other accounts' best times on the level at that
    /// moment (MJ-3: 1 + those strictly faster; equal times share a place), 1 … 10;
    /// absent below the 10th place (and on results stored before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<u32>,
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

/// A level completion record line, as the game server sends it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompletionLine {
    completion_id: String,
    game: String,
    kind: String,
    player_id: String,
    level: u32,
    time_ms: u64,
    #[serde(deserialize_with = "crate::record::instant::deserialize")]
    completed_at: DateTime<Utc>,
    jokers_used: u32,
}

impl LevelCompletion {
    /// Parses and checks one level completion record (GM-5): `game`
    /// `mahjong-rivals`, `kind` `level-completion`, ids, the fields of [`validate`],
    /// `completed_at` within the policy's clock skew and record age of `now` (GM-5). Errors name the field.
    pub fn from_json(
        bytes: &[u8],
        now: DateTime<Utc>,
        policy: &crate::record::policy::RecordPolicy,
    ) -> Result<LevelCompletion, RuleError> {
        let line: CompletionLine = crate::record::lines::parse_line(bytes)?;
        super::records::check_route(&line.game, &line.kind, KIND, "a level completion")?;
        crate::record::ids::check_id("completion_id", &line.completion_id)?;
        crate::record::ids::check_player_id("player_id", &line.player_id)?;
        super::records::check_instant("completed_at", line.completed_at, now, policy)?;
        let c = LevelCompletion {
            completion_id: line.completion_id,
            player_id: line.player_id,
            level: line.level,
            time_ms: line.time_ms,
            at: line.completed_at,
            jokers_used: line.jokers_used,
        };
        validate(&c)?;
        Ok(c)
    }
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
    if c.time_ms == 0 || c.time_ms >= TIME_CEILING_MS {
        return Err(RuleError::new(
            "time_ms",
            "MJ-3",
            "a completion takes more than 0 ms and less than 24 hours",
        ));
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
    let faster = state.fastest.faster_others(&c.player_id, c.time_ms);
    let place = Place::from_faster_others(faster);
    let earned = levels::complete(&state.level, c.time_ms, place);
    let points = earned.total();
    let mut settlement = Settlement::result_only(());
    let mut balance_after = state.balance;
    if points > 0 {
        let (change, entry) = balance_change(
            &c.player_id,
            GAME,
            state.balance,
            points,
            LedgerSource {
                kind: SOURCE,
                id: &c.completion_id,
                rule: if earned.time_bonus > 0 { "MJ-3" } else { "MJ-2" },
            },
            c.at,
        );
        balance_after = change.after;
        settlement.balances.push(change);
        settlement.ledger.push(entry);
        settlement.credits = crate::settlement::credits_for(GAME, &c.player_id, points, c.at, now);
    }
    // The fastest times are written whenever they change or the place paid off: a
    // concurrent completion of the level then fails its condition and is placed again.
    let fastest = match earned.after.best_ms {
        Some(best) => state.fastest.with(&c.player_id, best),
        None => state.fastest.clone(),
    };
    if fastest != state.fastest || place != Place::Below {
        settlement.states.push(StateChange {
            player_id: fastest_owner(c.level),
            name: FASTEST_STATE.to_string(),
            body: serde_json::json!(fastest),
        });
    }
    if let Some(best) = earned.after.best_ms.filter(|b| Some(*b) != state.level.best_ms) {
        // The account's best time moved: its entry on the level's ranking moves by
        // the difference (the first completion enters it).
        let points = ranking_value(best) - state.level.best_ms.map_or(0, ranking_value);
        settlement.credits.push(crate::settlement::BoardCredit {
            board: level_board(c.level).board,
            period: level_board(c.level).period,
            player_id: c.player_id.clone(),
            points,
            at: c.at,
        });
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
        completed_at: Some(c.at),
        place: (place != Place::Below).then_some(faster + 1),
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
        messages: Vec::new(),
        placements: Vec::new(),
    }))
}

impl CompletionResult {
    /// What this completion, at `at`, says for defined boards (BD-2, BD-12): the
    /// level, the time and the points it earned (MJ-2 … MJ-4).
    pub fn facts(&self, at: DateTime<Utc>) -> Vec<crate::board::feed::Fact> {
        vec![crate::board::feed::Fact {
            player_id: self.player_id.clone(),
            game: GAME,
            kind: crate::board::feed::ResultKind::LevelCompletion,
            at: self.completed_at.unwrap_or(at),
            points: self.first_completion + self.time_bonus,
            won: false,
            rated: true,
            moves: None,
            level: Some(self.level),
            time_ms: Some(self.time_ms),
            rating: None,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MJ-3: the level rankings' order holds times under the completion ceiling.
    #[test]
    fn mj_3_the_level_rankings_ceiling_is_the_completions() {
        assert_eq!(
            crate::board::MAHJONG_LEVEL.order,
            crate::board::Order::LowerFirst {
                ceiling: TIME_CEILING_MS as i64
            }
        );
    }

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
        let boards: Vec<&str> = s.credits.iter().map(|c| c.board.as_str()).collect();
        assert_eq!(boards.len(), 4, "{boards:?}");
        let ranking = s
            .credits
            .iter()
            .find(|c| c.board == "mahjong-level-7")
            .expect("ranking");
        assert_eq!(time_of(ranking.points), 61_000, "enters the level's time ranking");
        assert!(s
            .credits
            .iter()
            .filter(|c| c.board != "mahjong-level-7")
            .all(|c| c.points == 20));
        let names: Vec<&str> = s.states.iter().map(|st| st.name.as_str()).collect();
        assert_eq!(
            names,
            ["mahjong-rivals/fastest", "mahjong-rivals/level/7"],
            "the level's fastest times and the account's level state; no Jokers spent"
        );
        assert_eq!(s.states[0].player_id, "@mahjong-level-7");
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
            fastest: Fastest {
                times: (0..10).map(|i| (format!("f{i}"), 1_000 + i)).collect(),
            },
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
        assert!(s.balances.is_empty() && s.ledger.is_empty());
        // Only the time ranking moves, by the 5 s gained.
        assert_eq!(s.credits.len(), 1);
        assert_eq!(
            (s.credits[0].board.as_str(), s.credits[0].points),
            ("mahjong-level-7", 5_000)
        );
        assert_eq!(s.result.best_ms, 45_000);
        assert_eq!(s.result.balance_after, 40);
    }

    #[test]
    fn mj_3_faster_others_counts_strictly_faster_other_accounts_up_to_ten() {
        let fastest = Fastest::default()
            .with("me", 40_000)
            .with("b", 50_000)
            .with("c", 60_000)
            .with("d", 60_000);
        assert_eq!(
            fastest.faster_others("me", 50_000),
            0,
            "equal shares 1st; own best not counted"
        );
        assert_eq!(fastest.faster_others("me", 55_000), 1);
        assert_eq!(
            fastest.faster_others("x", 45_000),
            1,
            "another account's 40 s counts"
        );
        let many = (0..20u64).fold(Fastest::default(), |f, i| f.with(&format!("p{i}"), 1_000 + i));
        assert_eq!(many.times.len(), 11, "only the fastest 11 are kept");
        assert_eq!(many.faster_others("me", 99_000), 10);
        // A best time only moves up; the list stays sorted.
        let moved = many.with("p19", 500);
        assert_eq!(moved.times[0], ("p19".to_string(), 500));
    }

    #[test]
    fn gm_5_a_completion_record_is_checked_field_by_field() {
        let now = t("2027-03-01T10:00:00Z");
        let line = r#"{"completion_id":"c-1","game":"mahjong-rivals","kind":"level-completion","player_id":"a","level":420,"time_ms":61000,"completed_at":"2027-03-01T09:59:00Z","jokers_used":1}"#;
        let c = LevelCompletion::from_json(
            line.as_bytes(),
            now,
            &crate::record::policy::RecordPolicy::default(),
        )
        .expect("valid");
        assert_eq!((c.level, c.time_ms, c.jokers_used), (420, 61_000, 1));
        let refused = |text: String| {
            LevelCompletion::from_json(
                text.as_bytes(),
                now,
                &crate::record::policy::RecordPolicy::default(),
            )
            .unwrap_err()
        };
        assert_eq!(refused(line.replace("420", "0")).field, "level");
        assert_eq!(refused(line.replace("420", "11001")).rule, "MJ-1");
        assert_eq!(
            refused(line.replace(r#""jokers_used":1"#, r#""jokers_used":3"#)).field,
            "jokers_used"
        );
        assert_eq!(refused(line.replace("61000", "0")).field, "time_ms");
        assert_eq!(refused(line.replace("09:59", "10:06")).field, "completed_at");
        assert_eq!(
            refused(line.replace(r#","jokers_used":1"#, "")).field,
            "jokers_used"
        );
    }
}
