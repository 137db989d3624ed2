//! Elo ratings of the two-player games (DB-6, MS-8): every account starts at 1500;
//! K = 32; a draw counts half-way between a win and a loss; computed by the
//! `skillratings` library; the stored rating is an integer, rounded half away from
//! zero after every rated game. Only games between two humans are rated.

use serde::{Deserialize, Serialize};
use skillratings::elo::{elo, EloConfig, EloRating};
use skillratings::Outcomes;

/// A new account's rating (DB-6, MS-8).
pub const START: i64 = 1500;

/// The K-factor (DB-6, MS-8).
pub const K: f64 = 32.0;

/// How a rated game ended for its first player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Score {
    Win,
    Draw,
    Loss,
}

/// The two players' ratings after a game that ended `result` for the first, from
/// `a` and `b` before (integers; DB-6, MS-8).
pub fn rated(a: i64, b: i64, result: Score) -> (i64, i64) {
    let outcome = match result {
        Score::Win => Outcomes::WIN,
        Score::Draw => Outcomes::DRAW,
        Score::Loss => Outcomes::LOSS,
    };
    let (ra, rb) = elo(
        &EloRating { rating: a as f64 },
        &EloRating { rating: b as f64 },
        &outcome,
        &EloConfig { k: K },
    );
    // f64::round rounds half away from zero.
    (ra.rating.round() as i64, rb.rating.round() as i64)
}

/// The settlement of a rated game (DB-6, MS-8): `result` with both players'
/// ratings changed by `score` as balance changes of `game`, each with its ledger entry
/// (`source`, `match_id`, dated `at`). A player not rated yet starts at [`START`].
/// `record(result, i, before, after)` writes player `i`'s ratings into the result.
#[allow(clippy::too_many_arguments)]
pub fn settlement<R: Clone>(
    game: crate::game::Game,
    source: &str,
    match_id: &str,
    at: chrono::DateTime<chrono::Utc>,
    players: [&str; 2],
    ratings: [Option<i64>; 2],
    score: Score,
    mut result: R,
    mut record: impl FnMut(&mut R, usize, i64, i64),
) -> crate::settlement::Settlement<R> {
    let before = ratings.map(|r| r.unwrap_or(START));
    let (a, b) = rated(before[0], before[1], score);
    let mut s = crate::settlement::Settlement::result_only(result.clone());
    for (i, after) in [a, b].into_iter().enumerate() {
        let (change, entry) = crate::settlement::balance_change(
            players[i],
            game,
            before[i],
            after - before[i],
            crate::settlement::LedgerSource {
                kind: source,
                id: match_id,
                rule: if game == crate::game::Game::Minesweeper {
                    "MS-8"
                } else {
                    "DB-6"
                },
            },
            at,
        );
        record(&mut result, i, before[i], change.after);
        s.balances.push(change);
        s.ledger.push(entry);
    }
    s.result = result;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DB-6, MS-8: the worked examples: 1500 beats 1500 → 1516 / 1484; their
    /// rematch drawn → 1515 / 1485; a draw at 1500 changes nothing; a draw between
    /// 1600 and 1400 → 1592 / 1408.
    #[test]
    fn db_6_ms_8_elo_worked_examples() {
        assert_eq!(rated(START, START, Score::Win), (1516, 1484));
        assert_eq!(rated(1516, 1484, Score::Draw), (1515, 1485));
        assert_eq!(rated(START, START, Score::Draw), (1500, 1500));
        assert_eq!(rated(1600, 1400, Score::Draw), (1592, 1408));
        assert_eq!(rated(START, START, Score::Loss), (1484, 1516));
    }
}
