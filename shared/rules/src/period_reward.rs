//! Period-close rewards (LB-5): a board may carry a reward table, paid once per
//! (board, period, player) from the period's frozen snapshot. A table is a list of
//! bands, checked in order, the first that holds a place paying it: a range of ranks
//! (`{"ranks": [2, 10], "points": 100}`) or a percentile (`{"top_percent": 10,
//! "points": 20}`: places whose ⌈100 × place ÷ N⌉ is at most 10, see
//! [`crate::standing::top_percent`]).
//!
//! Ties: on Mahjong Rivals' boards, players with equal values share the rewards of the
//! places they occupy, split equally and rounded down (as MJ-11 and MJ-15 split Arena
//! prizes and TP). On other boards equal values share one rank (LB-2), and each is
//! paid the reward of that rank.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::board::{BoardDef, Unit, BOARDS};
use crate::error::RuleError;
use crate::game::Game;
use crate::period::PeriodKind;
use crate::standing::top_percent;

/// The largest reward of one band (points).
pub const MAX_REWARD: i64 = 1_000_000;

/// The rule id of period-close rewards in the ledger.
pub const RULE: &str = "LB-5";

/// The ledger source of a period reward paid into a balance (claimed, or paid at
/// once into an inbox full of rewards: [`crate::inbox::MAX_UNCLAIMED`]).
pub const LEDGER_SOURCE: &str = "period-reward";

/// One band of a reward table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Band {
    /// Places `ranks[0]` … `ranks[1]` (1-based, inclusive).
    Ranks {
        ranks: [u64; 2],
        points: i64,
        /// Mahjong Rivals Jokers (MJ-6) paid with the points (a defined board's prize
        /// table, BD-9); 0 when absent.
        #[serde(default, skip_serializing_if = "is_zero")]
        jokers: u64,
    },
    /// Places in the top `top_percent` % (1 … 100).
    Percent {
        top_percent: u32,
        points: i64,
        #[serde(default, skip_serializing_if = "is_zero")]
        jokers: u64,
    },
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Band {
    fn points(&self) -> i64 {
        match self {
            Band::Ranks { points, .. } | Band::Percent { points, .. } => *points,
        }
    }

    fn jokers(&self) -> u64 {
        match self {
            Band::Ranks { jokers, .. } | Band::Percent { jokers, .. } => *jokers,
        }
    }

    fn holds(&self, place: u64, of: u64) -> bool {
        match self {
            Band::Ranks {
                ranks: [from, to], ..
            } => (*from..=*to).contains(&place),
            Band::Percent { top_percent: pct, .. } => top_percent(place, of) <= *pct,
        }
    }
}

/// A board's reward table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewardTable {
    pub bands: Vec<Band>,
}

impl RewardTable {
    /// The reward (points) of 1-based `place` among `of` entries: the first band that holds it.
    pub fn place_reward(&self, place: u64, of: u64) -> i64 {
        self.bands
            .iter()
            .find(|b| b.holds(place, of))
            .map_or(0, Band::points)
    }

    /// The Jokers (MJ-6) of 1-based `place` among `of` entries: the first band that
    /// holds it.
    pub fn place_jokers(&self, place: u64, of: u64) -> u64 {
        self.bands
            .iter()
            .find(|b| b.holds(place, of))
            .map_or(0, Band::jokers)
    }

    /// The table of a defined board's prize bands (BD-9): each band's ranks paid its
    /// points and Jokers.
    pub fn of_prizes(prizes: &[crate::board::definition::Prize]) -> Self {
        RewardTable {
            bands: prizes
                .iter()
                .map(|p| Band::Ranks {
                    ranks: [u64::from(p.from), u64::from(p.to)],
                    points: i64::try_from(p.points).unwrap_or(MAX_REWARD),
                    jokers: p.jokers,
                })
                .collect(),
        }
    }

    /// Checks the table of `board`. Errors name the band and what is wrong: a board
    /// whose values are not points (a time ranking, a rating), a range that is empty
    /// or starts at 0, a percentage outside 1 … 100, points outside 0 … [`MAX_REWARD`].
    pub fn check(&self, board: &str) -> Result<(), RuleError> {
        let field = |i: usize| format!("{board}.bands[{i}]");
        if !closing_boards().any(|d| d.id == board) {
            return Err(RuleError::new(
                board,
                RULE,
                "rewards are paid when a period of points closes: on mahjong-weekly or mahjong-daily",
            ));
        }
        if self.bands.is_empty() {
            return Err(RuleError::new(
                board,
                RULE,
                "a reward table needs at least one band",
            ));
        }
        for (i, b) in self.bands.iter().enumerate() {
            if !(0..=MAX_REWARD).contains(&b.points()) || b.jokers() > MAX_REWARD as u64 {
                return Err(RuleError::new(
                    field(i),
                    RULE,
                    format!("points and jokers must be 0 … {MAX_REWARD}"),
                ));
            }
            match b {
                Band::Ranks {
                    ranks: [from, to], ..
                } if *from == 0 || from > to => {
                    return Err(RuleError::new(
                        field(i),
                        RULE,
                        "ranks must be [first, last] with 1 ≤ first ≤ last",
                    ))
                }
                Band::Percent { top_percent, .. } if !(1..=100).contains(top_percent) => {
                    return Err(RuleError::new(field(i), RULE, "top_percent must be 1 … 100"))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The boards a reward table may be set on: period boards of points (their periods close).
pub fn closing_boards() -> impl Iterator<Item = &'static BoardDef> {
    BOARDS.iter().filter(|d| {
        d.unit == Unit::Points
            && d.window_days.is_none()
            && matches!(d.period, PeriodKind::Daily | PeriodKind::Weekly)
    })
}

/// The games whose balances period rewards are paid into (one per [`closing_boards`] game).
pub fn paying_games() -> Vec<Game> {
    closing_boards().fold(Vec::new(), |mut games, d| {
        if !games.contains(&d.game) {
            games.push(d.game);
        }
        games
    })
}

/// Reward tables by board id.
pub type RewardTables = BTreeMap<String, RewardTable>;

/// Reward tables from their JSON (`{"mahjong-weekly": {"bands": […]}, …}`), each
/// checked ([`RewardTable::check`]). Errors name what is wrong: the JSON, a board
/// given twice, or the band (`mahjong-weekly.bands[1] (LB-5): …`).
pub fn parse_tables(text: &str) -> Result<RewardTables, String> {
    let entries: Entries = serde_json::from_str(text).map_err(|e| format!("is not reward tables: {e}"))?;
    let mut tables = RewardTables::new();
    for (board, value) in entries.0 {
        if tables.contains_key(&board) {
            return Err(format!("{board} (LB-5): given twice"));
        }
        let shape = || format!("{board} (LB-5): expected {{\"bands\": [...]}} and nothing else");
        let serde_json::Value::Object(mut fields) = value else {
            return Err(shape());
        };
        let bands = match fields.remove("bands") {
            Some(serde_json::Value::Array(bands)) if fields.is_empty() => bands,
            _ => return Err(shape()),
        };
        let bands = bands
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                serde_json::from_value::<Band>(b).map_err(|_| {
                    format!(
                        "{board}.bands[{i}] (LB-5): expected {{\"ranks\": [first, last], \"points\": N}} or {{\"top_percent\": X, \"points\": N}}, in integers"
                    )
                })
            })
            .collect::<Result<Vec<Band>, String>>()?;
        let table = RewardTable { bands };
        table.check(&board).map_err(|e| e.to_string())?;
        tables.insert(board, table);
    }
    Ok(tables)
}

/// A JSON object's members in order, duplicates kept (to refuse them).
struct Entries(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of reward tables by board id")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// One ranked player's result of a closed period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodResult {
    pub player_id: String,
    /// LB-2 rank.
    pub rank: u64,
    /// Entries ranked (the frozen snapshot's count).
    pub of: u64,
    /// ⌈100 × rank ÷ of⌉.
    pub top_percent: u32,
    /// The stored value the period ended with.
    pub value: i64,
    /// The reward (points; 0 for none).
    pub reward: i64,
    /// The Jokers (MJ-6) paid with it (a defined board's prize, BD-9; 0 for none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub jokers: u64,
}

impl PeriodResult {
    /// Whether the result pays anything (points or Jokers).
    pub fn rewarded(&self) -> bool {
        self.reward > 0 || self.jokers > 0
    }
}

/// The results of one closed period from its frozen `entries` (player id and stored
/// value, in LB-2 listing order, all of them): ranks, percentiles and rewards, ties
/// split when `split_ties` (Mahjong Rivals, MJ-11/MJ-15) or paid by their shared rank.
pub fn results(
    table: Option<&RewardTable>,
    split_ties: bool,
    entries: &[(String, i64)],
) -> Vec<PeriodResult> {
    let mut ranker = Ranker::new(table, split_ties, entries.len() as u64);
    let mut out = Vec::with_capacity(entries.len());
    for (player, value) in entries {
        ranker.push(player.clone(), *value, &mut out);
    }
    ranker.finish(&mut out);
    out
}

/// [`results`] as the entries stream in (LB-2 listing order, `of` of them in all): a
/// closed period ranked page by page, holding one group of tied entries at a time.
/// Each [`Ranker::push`] may complete the group before it (its results appended to
/// `out`); [`Ranker::finish`] completes the last.
#[derive(Debug, Clone)]
pub struct Ranker<'a> {
    table: Option<&'a RewardTable>,
    split_ties: bool,
    of: u64,
    /// Entries ranked before the group held.
    before: u64,
    group: Vec<(String, i64)>,
}

impl<'a> Ranker<'a> {
    /// A ranker of `of` entries paid by `table` (none: no rewards).
    pub fn new(table: Option<&'a RewardTable>, split_ties: bool, of: u64) -> Self {
        Ranker {
            table,
            split_ties,
            of,
            before: 0,
            group: Vec::new(),
        }
    }

    /// The next entry, in listing order.
    pub fn push(&mut self, player: String, value: i64, out: &mut Vec<PeriodResult>) {
        if self.group.first().is_some_and(|(_, v)| *v != value) {
            self.flush(out);
        }
        self.group.push((player, value));
    }

    /// No more entries: the last group's results.
    pub fn finish(&mut self, out: &mut Vec<PeriodResult>) {
        self.flush(out);
    }

    fn flush(&mut self, out: &mut Vec<PeriodResult>) {
        if self.group.is_empty() {
            return;
        }
        let (start, end) = (self.before, self.before + self.group.len() as u64);
        let rank = start + 1;
        let of = self.of;
        let reward = match self.table {
            None => 0,
            Some(t) if self.split_ties => {
                let total: i64 = (rank..=end).map(|p| t.place_reward(p, of)).sum();
                total / (end - start) as i64
            }
            Some(t) => t.place_reward(rank, of),
        };
        let jokers = match self.table {
            None => 0,
            Some(t) if self.split_ties => {
                let total: u64 = (rank..=end).map(|p| t.place_jokers(p, of)).sum();
                total / (end - start)
            }
            Some(t) => t.place_jokers(rank, of),
        };
        for (player_id, value) in self.group.drain(..) {
            out.push(PeriodResult {
                player_id,
                rank,
                of,
                top_percent: top_percent(rank, of),
                value,
                reward,
                jokers,
            });
        }
        self.before = end;
    }
}

/// Whether `game`'s boards split tied rewards (MJ-11, MJ-15: Mahjong Rivals).
pub fn splits_ties(game: Game) -> bool {
    game == Game::MahjongRivals
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> RewardTable {
        serde_json::from_str(
            r#"{"bands": [{"ranks": [1, 1], "points": 500}, {"ranks": [2, 3], "points": 200},
                          {"top_percent": 50, "points": 10}]}"#,
        )
        .expect("table")
    }

    fn entries(values: &[i64]) -> Vec<(String, i64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("p{i}"), *v))
            .collect()
    }

    /// Bands in order; the first that holds a place pays it.
    #[test]
    fn lb_5_bands_by_rank_and_percentile() {
        let t = table();
        let paid: Vec<i64> = (1..=10).map(|p| t.place_reward(p, 10)).collect();
        assert_eq!(paid, [500, 200, 200, 10, 10, 0, 0, 0, 0, 0]);
        t.check("mahjong-weekly").expect("valid");
    }

    /// MJ-11/MJ-15 splitting on Mahjong boards: two tied for 1st share 500 + 200;
    /// three tied for 3rd–5th share 200 + 10 + 10, rounded down.
    #[test]
    fn mj_15_ties_share_the_places_they_occupy() {
        let r = results(
            Some(&table()),
            true,
            &entries(&[90, 90, 70, 70, 70, 10, 9, 8, 7, 6]),
        );
        let rewards: Vec<(u64, i64)> = r.iter().map(|x| (x.rank, x.reward)).collect();
        assert_eq!(rewards[..5], [(1, 350), (1, 350), (3, 73), (3, 73), (3, 73)]);
        assert_eq!(rewards[5], (6, 0));
        assert!(r.iter().all(|x| x.of == 10));
    }

    /// LB-2 on other boards: equal values share one rank and that rank's reward.
    #[test]
    fn lb_2_ties_share_a_rank_elsewhere() {
        let r = results(Some(&table()), false, &entries(&[90, 90, 70, 70, 70, 10]));
        let rewards: Vec<(u64, i64)> = r.iter().map(|x| (x.rank, x.reward)).collect();
        assert_eq!(
            rewards,
            [(1, 500), (1, 500), (3, 200), (3, 200), (3, 200), (6, 0)]
        );
        assert_eq!(r[5].top_percent, 100);
    }

    /// Configuration errors name the board and band.
    #[test]
    fn tables_parse_with_errors_naming_the_band() {
        let ok = parse_tables(r#"{"mahjong-weekly": {"bands": [{"ranks": [1, 1], "points": 5}]}}"#)
            .expect("valid");
        assert_eq!(ok["mahjong-weekly"].place_reward(1, 1), 5);
        let bad = |json: &str| parse_tables(json).expect_err("refused");
        let twice = r#"{"mahjong-weekly": {"bands": [{"ranks": [1, 1], "points": 5}]},
                        "mahjong-weekly": {"bands": [{"ranks": [1, 1], "points": 9}]}}"#;
        assert!(bad(twice).contains("given twice"));
        for band in [
            r#"{"ranks": [1, 1], "top_percent": 5, "points": 1}"#,
            r#"{"ranks": [1, 1], "points": 1e3}"#,
            r#"{"rank": [1, 1], "points": 1}"#,
        ] {
            let e = bad(&format!(
                r#"{{"mahjong-daily": {{"bands": [{{"ranks": [1, 1], "points": 1}}, {band}]}}}}"#
            ));
            assert!(e.starts_with("mahjong-daily.bands[1] (LB-5)"), "{e}");
        }
        assert!(bad(r#"{"mahjong-daily": {"bands": [], "extra": 1}}"#).contains("nothing else"));
        assert!(bad(r#"[1]"#).contains("is not reward tables"));
        assert!(bad(r#"{"seega": {"bands": [{"ranks": [1, 1], "points": 1}]}}"#)
            .contains("period of points closes"));
    }

    #[test]
    fn bad_tables_name_the_band() {
        let bad = |json: &str, board: &str| {
            serde_json::from_str::<RewardTable>(json)
                .map_err(|e| e.to_string())
                .and_then(|t| t.check(board).map_err(|e| e.to_string()))
                .expect_err("refused")
        };
        let w = "mahjong-weekly";
        assert!(bad(r#"{"bands": [{"ranks": [0, 3], "points": 1}]}"#, w).contains("mahjong-weekly.bands[0]"));
        assert!(bad(r#"{"bands": [{"ranks": [3, 2], "points": 1}]}"#, w).contains("bands[0]"));
        assert!(bad(r#"{"bands": [{"top_percent": 0, "points": 1}]}"#, w).contains("top_percent"));
        assert!(bad(r#"{"bands": [{"ranks": [1, 1], "points": -5}]}"#, w).contains("points"));
        for board in ["seega", "minesweeper", "mahjong-amr", "mahjong-level-3", "chess"] {
            assert!(bad(r#"{"bands": [{"ranks": [1, 1], "points": 5}]}"#, board)
                .contains("period of points closes"));
        }
        assert!(bad(r#"{"bands": []}"#, w).contains("at least one"));
        assert!(bad(r#"{"bands": [{"ranks": [1, 1]}]}"#, w).contains("did not match"));
    }
}
