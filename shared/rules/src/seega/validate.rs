//! A Seega match record validated (GM-5, SG-1 … SG-9 preconditions): ids, instants,
//! players, moves and stones, the outcome; into a [`ValidMatch`].

use chrono::{DateTime, Utc};

use super::record::{MatchRecord, ResultKind, ValidMatch, ValidOutcome, MAX_MOVES, STONES_PER_PLAYER};
use crate::error::{quoted, RuleError};
use crate::game::Game;
use crate::record::ids::check_id;
use crate::record::ids::check_player_id;
use crate::record::policy::earliest_instant;
use crate::record::policy::RecordPolicy;
use crate::record::policy::MAX_DURATION_MS;

impl MatchRecord {
    /// [`validate_with`](Self::validate_with) under the default [`RecordPolicy`].
    pub fn validate(&self, now: DateTime<Utc>) -> Result<ValidMatch, RuleError> {
        self.validate_with(now, &RecordPolicy::default())
    }

    /// Checks every field against the rules (GM-5, SG-1, SG-4) and returns the match in
    /// its validated form; `now` is the server's clock (UTC). Besides the games' rules:
    /// `started_at` not before 2020-01-01T00:00:00Z, `ended_at` not before `started_at`,
    /// at most 24 hours after it, and at most `policy.max_clock_skew_ms` after `now`.
    /// Errors name the first offending field and the rule.
    pub fn validate_with(&self, now: DateTime<Utc>, policy: &RecordPolicy) -> Result<ValidMatch, RuleError> {
        check_id("match_id", &self.match_id)?;
        let game = Game::from_id(&self.game).ok_or_else(|| crate::game::not_scored(&quoted(&self.game)))?;
        if game != Game::Seega {
            return Err(RuleError::new(
                "game",
                "GM-5",
                format!(
                    "matches of {} are not scored by this service yet",
                    quoted(&self.game)
                ),
            ));
        }
        if self.started_at < earliest_instant() {
            return Err(RuleError::new(
                "started_at",
                "GM-5",
                "before 2020-01-01T00:00:00Z",
            ));
        }
        if self.ended_at < self.started_at {
            return Err(crate::record::policy::ended_before_start(
                self.ended_at,
                self.started_at,
            ));
        }
        let duration = self.ended_at - self.started_at;
        if duration > chrono::Duration::milliseconds(MAX_DURATION_MS) {
            return Err(crate::record::policy::too_long(self.ended_at, self.started_at));
        }
        if self.ended_at > now + chrono::Duration::milliseconds(policy.max_clock_skew_ms.max(0)) {
            return Err(crate::record::policy::ahead_of_clock(
                "ended_at",
                self.ended_at,
                now,
                policy.max_clock_skew_ms,
            ));
        }
        let duration_ms = duration.num_milliseconds();
        let [a, b] = match self.players.as_slice() {
            [a, b] => [a, b],
            other => {
                return Err(RuleError::new(
                    "players",
                    "GM-5",
                    format!("a Seega match has exactly 2 players, got {}", other.len()),
                ))
            }
        };
        for (i, p) in [a, b].into_iter().enumerate() {
            check_player_id(&format!("players[{i}].player_id"), &p.player_id)?;
            if p.moves > MAX_MOVES {
                return Err(RuleError::new(
                    format!("players[{i}].moves"),
                    "SG-4",
                    format!("{} moves is over the limit of {MAX_MOVES}", p.moves),
                ));
            }
            if p.stones_on_board > STONES_PER_PLAYER {
                return Err(RuleError::new(
                    format!("players[{i}].stones_on_board"),
                    "SG-1",
                    format!(
                        "{} stones is more than the {STONES_PER_PLAYER} a player has",
                        p.stones_on_board
                    ),
                ));
            }
            if p.stones_in_hand > STONES_PER_PLAYER {
                return Err(RuleError::new(
                    format!("players[{i}].stones_in_hand"),
                    "SG-1",
                    format!(
                        "{} stones is more than the {STONES_PER_PLAYER} a player has",
                        p.stones_in_hand
                    ),
                ));
            }
            if p.stones_on_board + p.stones_in_hand > STONES_PER_PLAYER {
                return Err(RuleError::new(
                    format!("players[{i}].stones_on_board"),
                    "SG-1",
                    format!(
                        "{} on the board plus {} in hand is more than the {STONES_PER_PLAYER} a player has",
                        p.stones_on_board, p.stones_in_hand
                    ),
                ));
            }
        }
        // Captures happen only once every stone is placed: while stones are in hand,
        // each player's stones are all on the board or in hand (SG-1, SG-6).
        if a.stones_in_hand + b.stones_in_hand > 0 {
            for (i, p) in [a, b].into_iter().enumerate() {
                if p.stones_on_board + p.stones_in_hand != STONES_PER_PLAYER {
                    return Err(RuleError::new(
                        format!("players[{i}].stones_on_board"),
                        "SG-1",
                        "stones are still in hand, so none can have been captured: on board plus in hand must be 24",
                    ));
                }
            }
        }
        if a.player_id == b.player_id {
            return Err(RuleError::new(
                "players[1].player_id",
                "GM-5",
                format!("player {} appears twice", quoted(&a.player_id)),
            ));
        }
        // Stones leave a hand only by being placed, so the total placed is fixed by the hands.
        let placed_by_hands = 2 * STONES_PER_PLAYER - a.stones_in_hand - b.stones_in_hand;
        if self.stones_placed != placed_by_hands {
            return Err(RuleError::new(
                "stones_placed",
                "SG-1",
                format!(
                    "{} stones placed, but the hands say {placed_by_hands} (48 minus the stones in hand)",
                    self.stones_placed
                ),
            ));
        }
        let outcome = match (&self.outcome.result, &self.outcome.winner, self.outcome.reason) {
            (ResultKind::Draw, None, None) => ValidOutcome::Draw,
            (ResultKind::Draw, Some(_), _) => {
                return Err(RuleError::new("outcome.winner", "GM-5", "a draw has no winner"))
            }
            (ResultKind::Draw, None, Some(_)) => {
                return Err(RuleError::new(
                    "outcome.reason",
                    "GM-5",
                    "a draw has no end reason",
                ))
            }
            (ResultKind::Win, None, _) => {
                return Err(RuleError::new("outcome.winner", "GM-5", "a win names its winner"))
            }
            (ResultKind::Win, Some(_), None) => {
                return Err(RuleError::new(
                    "outcome.reason",
                    "GM-5",
                    "a win names its end reason: `completed`, `resigned` or `turn_timeout`",
                ))
            }
            (ResultKind::Win, Some(winner), Some(reason)) => {
                let winner = if *winner == a.player_id {
                    0
                } else if *winner == b.player_id {
                    1
                } else {
                    return Err(RuleError::new(
                        "outcome.winner",
                        "GM-5",
                        // Quoted only when it could be an id (never an e-mail address).
                        if crate::record::ids::is_valid_id(winner) {
                            format!("winner {} is not one of the match's players", quoted(winner))
                        } else {
                            "the winner is not one of the match's players (nor an id)".to_string()
                        },
                    ));
                };
                ValidOutcome::Win { winner, reason }
            }
        };
        Ok(ValidMatch {
            match_id: self.match_id.clone(),
            game,
            started_at: self.started_at,
            ended_at: self.ended_at,
            duration_ms,
            players: [a.clone(), b.clone()],
            stones_placed: self.stones_placed,
            outcome,
            content_hash: self.content_hash(),
        })
    }
}
