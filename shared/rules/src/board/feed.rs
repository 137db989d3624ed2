//! What settled results feed defined boards (BD-2 … BD-5, BD-12): each result's
//! [`Fact`]s (one per player), the value a definition takes from a fact, and a
//! player's entry as one stored value that lists in the board's order and then its
//! tie-breaks' ([`Fold`]), so the one board machinery (higher stored values first,
//! equal values sharing a rank, then who reached it first, LB-2) ranks a defined board
//! with no code of its own.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::definition::{Definition, Direction, Operator, Source};
use crate::game::Game;

/// Which kind of result a fact comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultKind {
    /// A two-player match: Seega, Dots and Boxes, the Minesweeper duel.
    Match,
    /// A Mahjong Rivals level completion (MJ-2).
    LevelCompletion,
    /// A Mahjong Rivals Arena round (MJ-11).
    Arena,
    /// A Mahjong Rivals Quick Match (MJ-7).
    QuickMatch,
    /// Not a result: a change of the player's balance in the game by any source
    /// (GM-4: a result, a rewarded ad, a daily bonus, a correction, a claimed
    /// reward); `points` is the balance after it.
    Balance,
    /// Not a result: points credited to the game's period boards (MJ-20, MJ-21: by
    /// a result, a rewarded ad, a daily bonus, a tournament prize or a correction,
    /// never by a claimed period reward); `points` is the credit.
    Credit,
}

impl ResultKind {
    /// Whether the fact is a result's own (a match, a completion, an Arena round, a
    /// Quick Match), not a change of points that follows from any source.
    pub fn is_result(self) -> bool {
        !matches!(self, ResultKind::Balance | ResultKind::Credit)
    }
}

/// What one settled result says about one player (BD-2): the values every source
/// of a definition is taken from. A void match has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    pub player_id: String,
    pub game: Game,
    pub kind: ResultKind,
    /// When the result happened (UTC): the period it counts in (BD-6).
    pub at: DateTime<Utc>,
    /// The points (or rating points) the result earned the player, as applied to
    /// their balance (GM-4): negative for a loss.
    pub points: i64,
    /// Whether the player won (a match or Quick Match; false for other kinds).
    pub won: bool,
    /// Whether the match was rated (DB-6, MS-8); true where a game rates every match.
    pub rated: bool,
    /// The moves the player made (Seega, Dots and Boxes).
    pub moves: Option<u32>,
    /// The level completed (MJ-1), on a level completion.
    pub level: Option<u32>,
    /// The completion's time in milliseconds (MJ-3), on a level completion.
    pub time_ms: Option<u64>,
    /// The player's rating after the match (DB-6, MS-8), on a rated match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
}

impl Fact {
    /// A player's fact of a rated two-player match (Dots and Boxes DB-6, the
    /// Minesweeper duel MS-8): the rating points it moved them by as `points` (0 when
    /// unrated), the rating it left them with, and whether they won.
    pub fn of_rated_match(
        player_id: &str,
        game: Game,
        at: DateTime<Utc>,
        rating: (Option<i64>, Option<i64>),
        won: bool,
        rated: bool,
        moves: Option<u32>,
    ) -> Fact {
        let (before, after) = rating;
        Fact {
            player_id: player_id.to_string(),
            game,
            kind: ResultKind::Match,
            at,
            points: after.zip(before).map_or(0, |(a, b)| a - b),
            won,
            rated,
            moves,
            level: None,
            time_ms: None,
            rating: after.filter(|_| rated),
        }
    }
}

impl Source {
    /// The value `fact` gives this source (BD-2), or `None` when the source does not
    /// take it (another kind of result, a loss for `wins`, another level, an unrated
    /// match when only rated ones count).
    pub fn value_of(&self, fact: &Fact) -> Option<i64> {
        let matchlike = matches!(fact.kind, ResultKind::Match | ResultKind::QuickMatch);
        match self {
            Source::Points {} => fact.kind.is_result().then_some(fact.points),
            Source::Balance {} => (fact.kind == ResultKind::Balance).then_some(fact.points),
            Source::Credits {} => (fact.kind == ResultKind::Credit).then_some(fact.points),
            Source::Wins { rated_only } => {
                (matchlike && fact.won && (fact.rated || !rated_only)).then_some(1)
            }
            Source::Matches { rated_only } => (matchlike && (fact.rated || !rated_only)).then_some(1),
            Source::LevelCompletions { level } => (fact.kind == ResultKind::LevelCompletion
                && level.is_none_or(|l| fact.level == Some(l)))
            .then_some(1),
            Source::BestTime { level } => {
                if fact.kind == ResultKind::LevelCompletion && fact.level == Some(*level) {
                    fact.time_ms.map(|t| i64::try_from(t).unwrap_or(i64::MAX))
                } else {
                    None
                }
            }
            Source::ArenaPoints {} => (fact.kind == ResultKind::Arena).then_some(fact.points),
            Source::QuickMatchPoints {} => (fact.kind == ResultKind::QuickMatch).then_some(fact.points),
            Source::Moves {} => fact.moves.map(i64::from),
            Source::Rating {} => fact.rating,
        }
    }
}

/// What one fact brings to a defined board (BD-12): the value of its source and of
/// each tie-break's, or a hold when the value is outside the score range (BD-7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contribution {
    /// Values to combine into the player's entry: the source's, then each tie-break's
    /// (0 where the fact has none, such as moves of a Quick Match).
    Feed { value: i64, tie_breaks: Vec<i64> },
    /// The value is outside `[min, max]`: held for review (BD-7, OP-2), not counted
    /// unless an operator approved the result (then fed as [`Contribution::Feed`]).
    Held {
        value: i64,
        range: [i64; 2],
        tie_breaks: Vec<i64>,
    },
}

impl Definition {
    /// What `fact` brings to this board (BD-12), or `None` when it feeds nothing here
    /// (another game, a source that does not take it).
    pub fn contribution(&self, fact: &Fact) -> Option<Contribution> {
        if fact.game.id() != self.game {
            return None;
        }
        let value = self.source.value_of(fact)?;
        let tie_breaks = self
            .tie_breaks
            .iter()
            .map(|t| t.source.value_of(fact).unwrap_or(0))
            .collect();
        if let Some([min, max]) = self.score_range {
            if value < min || value > max {
                return Some(Contribution::Held {
                    value,
                    range: [min, max],
                    tie_breaks,
                });
            }
        }
        Some(Contribution::Feed { value, tie_breaks })
    }

    /// How this board stores its entries (BD-5, BD-12).
    pub fn fold(&self) -> Fold {
        Fold {
            order: self.order,
            operator: self.operator,
            tie_breaks: self.tie_breaks.iter().map(|t| (t.operator, t.order)).collect(),
        }
    }
}

/// The span of one tie-break column in a stored value: a tie-break's value is held
/// as 0 … `TIE_BREAK_SPAN` − 1 (BD-5), a higher one as the highest.
pub const TIE_BREAK_SPAN: i64 = 1_000_000;

/// A player's entry on a defined board as one stored value (BD-5, BD-12): the
/// board's value in its order, then each tie-break in its own, as digits of one
/// number (each tie-break six decimal digits), so that a higher stored value lists
/// first exactly when the value, and then each tie-break, is better.
///
/// Bounds: a value is 0 … [`Fold::value_ceiling`] (a lower one is 0, a higher one the
/// ceiling): 9,223,372,036,854,775,806 with no tie-break, 9,223,372,036,853 with
/// one, 9,223,371 with two; a tie-break 0 … 999,999.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    pub order: Direction,
    pub operator: Operator,
    pub tie_breaks: Vec<(Operator, Direction)>,
}

/// The columns of one entry: its value and its tie-breaks' (BD-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    pub value: i64,
    pub tie_breaks: Vec<i64>,
}

impl Fold {
    fn span(&self) -> i64 {
        let mut span: i64 = 1;
        for _ in &self.tie_breaks {
            span = span.saturating_mul(TIE_BREAK_SPAN);
        }
        span
    }

    /// The highest value this board holds (see the type's bounds).
    pub fn value_ceiling(&self) -> i64 {
        i64::MAX / self.span() - 1
    }

    /// The stored value of `columns`: higher lists first (LB-2).
    pub fn stored(&self, columns: &Columns) -> i64 {
        let ceiling = self.value_ceiling();
        let value = columns.value.clamp(0, ceiling);
        let mut stored = match self.order {
            Direction::HigherFirst => value,
            Direction::LowerFirst => ceiling - value,
        };
        for (i, (_, order)) in self.tie_breaks.iter().enumerate() {
            let t = columns
                .tie_breaks
                .get(i)
                .copied()
                .unwrap_or(0)
                .clamp(0, TIE_BREAK_SPAN - 1);
            let t = match order {
                Direction::HigherFirst => t,
                Direction::LowerFirst => TIE_BREAK_SPAN - 1 - t,
            };
            stored = stored * TIE_BREAK_SPAN + t;
        }
        stored
    }

    /// The columns a stored value holds (the inverse of [`Fold::stored`] within the
    /// bounds).
    pub fn columns(&self, stored: i64) -> Columns {
        let mut rest = stored.max(0);
        let mut tie_breaks = vec![0; self.tie_breaks.len()];
        for (i, (_, order)) in self.tie_breaks.iter().enumerate().rev() {
            let t = rest % TIE_BREAK_SPAN;
            rest /= TIE_BREAK_SPAN;
            tie_breaks[i] = match order {
                Direction::HigherFirst => t,
                Direction::LowerFirst => TIE_BREAK_SPAN - 1 - t,
            };
        }
        let ceiling = self.value_ceiling();
        let value = match self.order {
            Direction::HigherFirst => rest,
            Direction::LowerFirst => ceiling - rest.min(ceiling),
        };
        Columns { value, tie_breaks }
    }

    /// The stored value after one more result (BD-3, BD-5): each column combined by its
    /// own operator with what is stored (`None`: the player's first result of the
    /// period), then folded. Values never go below 0 (LB-2).
    pub fn combine(&self, stored: Option<i64>, value: i64, tie_breaks: &[i64]) -> i64 {
        let current = stored.map(|s| self.columns(s));
        let columns = Columns {
            value: self
                .operator
                .combine(self.order, current.as_ref().map(|c| c.value), value),
            tie_breaks: self
                .tie_breaks
                .iter()
                .enumerate()
                .map(|(i, (operator, order))| {
                    operator.combine(
                        *order,
                        current.as_ref().map(|c| c.tie_breaks[i]),
                        tie_breaks.get(i).copied().unwrap_or(0),
                    )
                })
                .collect(),
        };
        self.stored(&columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::definition::TieBreak;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn fact(kind: ResultKind, won: bool) -> Fact {
        Fact {
            player_id: "p".into(),
            game: Game::Seega,
            kind,
            at: t("2026-12-05T10:00:00Z"),
            points: -12,
            won,
            rated: true,
            moves: Some(31),
            level: None,
            time_ms: None,
            rating: None,
        }
    }

    /// BD-2: each source takes what it names from a fact.
    #[test]
    fn sources_take_their_values() {
        let win = fact(ResultKind::Match, true);
        let loss = fact(ResultKind::Match, false);
        assert_eq!(Source::Wins { rated_only: false }.value_of(&win), Some(1));
        assert_eq!(Source::Wins { rated_only: false }.value_of(&loss), None);
        assert_eq!(Source::Matches { rated_only: false }.value_of(&loss), Some(1));
        let unrated = Fact {
            rated: false,
            ..win.clone()
        };
        assert_eq!(Source::Wins { rated_only: true }.value_of(&unrated), None);
        assert_eq!(Source::Points {}.value_of(&loss), Some(-12));
        assert_eq!(Source::Moves {}.value_of(&win), Some(31));
        let level = Fact {
            game: Game::MahjongRivals,
            kind: ResultKind::LevelCompletion,
            level: Some(7),
            time_ms: Some(61_000),
            moves: None,
            ..win.clone()
        };
        assert_eq!(Source::BestTime { level: 7 }.value_of(&level), Some(61_000));
        assert_eq!(Source::BestTime { level: 8 }.value_of(&level), None);
        assert_eq!(Source::LevelCompletions { level: None }.value_of(&level), Some(1));
        assert_eq!(Source::LevelCompletions { level: Some(8) }.value_of(&level), None);
        assert_eq!(Source::ArenaPoints {}.value_of(&level), None);
        assert_eq!(Source::Wins { rated_only: false }.value_of(&level), None);
        // DB-6, MS-8: a rated match's rating after it; none for an unrated one.
        let rated = Fact::of_rated_match(
            "p",
            Game::DotsAndBoxes,
            win.at,
            (Some(1500), Some(1516)),
            true,
            true,
            None,
        );
        assert_eq!(
            (
                Source::Rating {}.value_of(&rated),
                Source::Points {}.value_of(&rated)
            ),
            (Some(1516), Some(16))
        );
        let unrated = Fact::of_rated_match("p", Game::DotsAndBoxes, win.at, (None, None), true, false, None);
        assert_eq!(Source::Rating {}.value_of(&unrated), None);
        assert_eq!(Source::Rating {}.value_of(&win), None);
    }

    /// BD-5: most wins first, then fewest moves; each column combined on its own.
    #[test]
    fn tie_breaks_list_in_their_own_direction() {
        let fold = Fold {
            order: Direction::HigherFirst,
            operator: Operator::Count,
            tie_breaks: vec![(Operator::Sum, Direction::LowerFirst)],
        };
        let a = fold.combine(fold.combine(None, 1, &[40]).into(), 1, &[30]);
        assert_eq!(
            fold.columns(a),
            Columns {
                value: 2,
                tie_breaks: vec![70]
            }
        );
        let b = fold.combine(None, 1, &[20]);
        let c = fold.combine(fold.combine(None, 1, &[50]).into(), 1, &[10]);
        // Two wins beat one; of two wins each, 60 moves beat 70.
        assert!(a > b);
        assert!(c > a);
        assert_eq!(
            fold.columns(c),
            Columns {
                value: 2,
                tie_breaks: vec![60]
            }
        );
    }

    /// MJ-3 through BD-3: the best of lower-first times is the lowest; stored values
    /// list it first and give it back.
    #[test]
    fn best_time_is_the_lowest() {
        let fold = Fold {
            order: Direction::LowerFirst,
            operator: Operator::Best,
            tie_breaks: Vec::new(),
        };
        let s = fold.combine(Some(fold.combine(None, 65_000, &[])), 61_000, &[]);
        assert_eq!(fold.columns(s).value, 61_000);
        assert!(fold.combine(None, 61_000, &[]) > fold.combine(None, 61_001, &[]));
        assert_eq!(fold.columns(fold.combine(Some(s), 70_000, &[])).value, 61_000);
    }

    /// BD-5 bounds: each column clamps into its span and round-trips inside it.
    #[test]
    fn columns_round_trip_inside_their_bounds() {
        let fold = Fold {
            order: Direction::HigherFirst,
            operator: Operator::Sum,
            tie_breaks: vec![
                (Operator::Sum, Direction::LowerFirst),
                (Operator::Max, Direction::HigherFirst),
            ],
        };
        assert_eq!(fold.value_ceiling(), 9_223_371);
        for (v, t1, t2) in [(0, 0, 0), (9_223_371, 999_999, 999_999), (17, 3, 900_000)] {
            let c = Columns {
                value: v,
                tie_breaks: vec![t1, t2],
            };
            assert_eq!(fold.columns(fold.stored(&c)), c);
        }
        let over = Columns {
            value: i64::MAX,
            tie_breaks: vec![-5, 5_000_000],
        };
        assert_eq!(
            fold.columns(fold.stored(&over)),
            Columns {
                value: 9_223_371,
                tie_breaks: vec![0, 999_999]
            }
        );
        let none = Fold {
            order: Direction::HigherFirst,
            operator: Operator::Sum,
            tie_breaks: Vec::new(),
        };
        assert_eq!(none.value_ceiling(), i64::MAX - 1);
        // LB-2: a sum never stores below 0.
        assert_eq!(none.combine(Some(5), -12, &[]), 0);
    }

    /// BD-7: a value outside the score range is held, not fed.
    #[test]
    fn a_value_outside_the_range_is_held() {
        let mut d: Definition = serde_json::from_value(serde_json::json!({
            "id": "fastest-seven", "title": "Fastest on level 7", "game": "mahjong-rivals",
            "source": {"kind": "best_time", "level": 7}, "operator": "best", "order": "lower_first",
            "schedule": {"kind": "all_time"}, "score_range": [20000, 3600000]
        }))
        .unwrap();
        let f = Fact {
            game: Game::MahjongRivals,
            kind: ResultKind::LevelCompletion,
            level: Some(7),
            time_ms: Some(5_000),
            moves: None,
            ..fact(ResultKind::LevelCompletion, false)
        };
        assert_eq!(
            d.contribution(&f),
            Some(Contribution::Held {
                value: 5_000,
                range: [20_000, 3_600_000],
                tie_breaks: vec![]
            })
        );
        d.score_range = None;
        d.tie_breaks = vec![TieBreak {
            source: Source::Moves {},
            operator: Operator::Sum,
            order: Direction::LowerFirst,
        }];
        assert_eq!(
            d.contribution(&f),
            Some(Contribution::Feed {
                value: 5_000,
                tie_breaks: vec![0]
            })
        );
        let seega = fact(ResultKind::Match, true);
        assert_eq!(d.contribution(&seega), None, "another game");
    }
}
