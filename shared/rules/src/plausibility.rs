//! Plausibility (OP-2): what a deployment configures as impossible in fair play, per
//! game. A record that breaks a check is *held*: stored with the check it broke, not
//! counted on any balance or board, until an operator approves or rejects it (OP-3).
//! Every check is off unless configured.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::game::Game;

/// The configured checks (JSON, `PODIUM_PLAUSIBILITY`), e.g.
/// `{"min_duration_ms": {"dots-and-boxes": 60000, "minesweeper": 30000},
///   "seega": {"min_ms_per_move": 1500, "max_win_points": 320},
///   "mahjong_level_floor_ms": {"1": 20000, "default": 15000}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plausibility {
    /// The shortest plausible match per game (milliseconds, `ended_at − started_at`),
    /// by game id (`seega`, `dots-and-boxes`, `minesweeper`).
    #[serde(default)]
    pub min_duration_ms: BTreeMap<String, i64>,
    /// Seega's checks.
    #[serde(default)]
    pub seega: SeegaChecks,
    /// The fastest plausible Mahjong Rivals level completion (milliseconds), by level
    /// number, with `default` for levels not listed.
    #[serde(default)]
    pub mahjong_level_floor_ms: BTreeMap<String, u64>,
}

/// Seega's checks: a win whose points its moves and duration cannot have made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeegaChecks {
    /// The least time one move takes (milliseconds): a match whose two players' moves
    /// together need more than its duration is held.
    #[serde(default)]
    pub min_ms_per_move: Option<i64>,
    /// The most points a win can plausibly earn (SG-2): a winner credited more is held.
    #[serde(default)]
    pub max_win_points: Option<i64>,
}

/// What the checks read of a record, as the service finds it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    pub game: Option<Game>,
    /// `ended_at − started_at` (milliseconds), for a match.
    pub duration_ms: Option<i64>,
    /// Moves of all players together, for a Seega match.
    pub moves: Option<u32>,
    /// The winner's points (SG-2), for a decided Seega match.
    pub win_points: Option<i64>,
    /// A level completion's level and time (milliseconds).
    pub level: Option<(u32, u64)>,
}

/// A broken check (OP-2): which, and in words an operator reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Breach {
    /// The check's name: `min_duration_ms`, `seega.min_ms_per_move`,
    /// `seega.max_win_points`, `mahjong_level_floor_ms`.
    pub check: String,
    pub message: String,
}

impl Plausibility {
    /// Whether any check is configured.
    pub fn is_empty(&self) -> bool {
        self == &Plausibility::default()
    }

    /// The first check `f` breaks (OP-2), if any.
    pub fn check(&self, f: &Facts) -> Option<Breach> {
        let breach = |check: &str, message: String| {
            Some(Breach {
                check: check.to_string(),
                message,
            })
        };
        if let (Some(game), Some(d)) = (f.game, f.duration_ms) {
            if let Some(min) = self.min_duration_ms.get(game.id()) {
                if d < *min {
                    return breach(
                        "min_duration_ms",
                        format!(
                            "the match lasted {d} ms; the shortest plausible {} match is {min} ms",
                            game.id()
                        ),
                    );
                }
            }
        }
        if f.game == Some(Game::Seega) {
            if let (Some(per_move), Some(moves), Some(d)) =
                (self.seega.min_ms_per_move, f.moves, f.duration_ms)
            {
                let needed = i64::from(moves).saturating_mul(per_move);
                if needed > d {
                    return breach(
                        "seega.min_ms_per_move",
                        format!("{moves} moves need at least {needed} ms; the match lasted {d} ms"),
                    );
                }
            }
            if let (Some(max), Some(points)) = (self.seega.max_win_points, f.win_points) {
                if points > max {
                    return breach(
                        "seega.max_win_points",
                        format!("the win earns {points} points; at most {max} are plausible"),
                    );
                }
            }
        }
        if let Some((level, time_ms)) = f.level {
            let floor = self
                .mahjong_level_floor_ms
                .get(&level.to_string())
                .or_else(|| self.mahjong_level_floor_ms.get("default"));
            if let Some(floor) = floor {
                if time_ms < *floor {
                    return breach(
                        "mahjong_level_floor_ms",
                        format!(
                            "level {level} completed in {time_ms} ms; the fastest plausible is {floor} ms"
                        ),
                    );
                }
            }
        }
        None
    }

    /// Reads the checks from JSON; the error names what is wrong.
    pub fn from_json(text: &str) -> Result<Plausibility, String> {
        let p: Plausibility = serde_json::from_str(text).map_err(|e| e.to_string())?;
        for id in p.min_duration_ms.keys() {
            if Game::from_id(id).is_none() {
                return Err(format!("min_duration_ms: `{id}` is not a game"));
            }
        }
        for k in p.mahjong_level_floor_ms.keys() {
            if k != "default" && k.parse::<u32>().is_err() {
                return Err(format!(
                    "mahjong_level_floor_ms: `{k}` is neither a level number nor `default`"
                ));
            }
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks() -> Plausibility {
        Plausibility::from_json(
            r#"{"min_duration_ms": {"dots-and-boxes": 60000},
                "seega": {"min_ms_per_move": 1000, "max_win_points": 300},
                "mahjong_level_floor_ms": {"3": 20000, "default": 10000}}"#,
        )
        .expect("parses")
    }

    /// OP-2: each configured check holds what breaks it, and nothing else.
    #[test]
    fn op_2_checks() {
        let p = checks();
        let dots = |d| Facts {
            game: Some(Game::DotsAndBoxes),
            duration_ms: Some(d),
            ..Facts::default()
        };
        assert_eq!(
            p.check(&dots(59_999)).map(|b| b.check),
            Some("min_duration_ms".into())
        );
        assert_eq!(p.check(&dots(60_000)), None);
        let seega = |moves, d, points| Facts {
            game: Some(Game::Seega),
            duration_ms: Some(d),
            moves: Some(moves),
            win_points: Some(points),
            ..Facts::default()
        };
        assert_eq!(
            p.check(&seega(40, 39_000, 200)).map(|b| b.check),
            Some("seega.min_ms_per_move".into())
        );
        assert_eq!(
            p.check(&seega(40, 40_000, 301)).map(|b| b.check),
            Some("seega.max_win_points".into())
        );
        assert_eq!(p.check(&seega(40, 40_000, 300)), None);
        let level = |l, t| Facts {
            level: Some((l, t)),
            ..Facts::default()
        };
        assert!(p.check(&level(3, 19_999)).is_some());
        assert!(p.check(&level(4, 19_999)).is_none(), "default 10 s");
        assert!(p.check(&level(4, 9_999)).is_some());
        assert!(
            Plausibility::default().check(&level(4, 1)).is_none(),
            "off unless configured"
        );
    }

    #[test]
    fn op_2_configuration_errors_name_the_key() {
        assert!(Plausibility::from_json(r#"{"min_duration_ms": {"chess": 1}}"#)
            .unwrap_err()
            .contains("chess"));
        assert!(Plausibility::from_json(r#"{"mahjong_level_floor_ms": {"x": 1}}"#)
            .unwrap_err()
            .contains("x"));
        assert!(Plausibility::from_json(r#"{"nope": 1}"#).is_err());
    }
}
