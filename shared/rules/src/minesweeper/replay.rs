//! Replaying a duel (MS-2 … MS-8): each player's timed actions on their own copy of
//! the shared grid, then the end of the match, the winner and the kind of win.
//!
//! - MS-2: 3 lives; a mine revealed costs one life and 100; lives stop at 0.
//! - MS-3: +10 per safe tile the player opens (a 0 opens its neighbours, and every
//!   tile so opened scores); the starting area scores nothing and opens only its own
//!   tiles (a 0 in it floods nothing); flags score nothing.
//! - MS-4: a chord on a revealed number whose adjacent flags equal it opens all its
//!   unflagged covered neighbours; otherwise it does nothing. Flood fill never opens
//!   a flagged tile.
//! - MS-5: at most 5 minutes; a player without lives (or with every safe tile open)
//!   stops; the match ends when time is up, when both stopped, or when a stopped
//!   player is overtaken.
//! - MS-6, MS-7: the higher score wins; equal scores go to whoever reached the score
//!   first (their last score change), else a draw; the kind of win.
//! - MS-8: an action the board makes impossible is refused: revealing, flagging or
//!   chording where it cannot be (an open tile that is not a chord, a flag on a flag,
//!   unflagging a tile without one, a chord on a covered tile), outside the grid,
//!   after the player stopped, after the match ended, after 5 minutes, or out of
//!   order. **Decision:** revealing a flagged tile is refused too (unflag it first).

use serde::{Deserialize, Serialize};

use super::grid::{neighbours, Grid, Tile, TILES};
use crate::error::RuleError;

/// A match's length (MS-5), in milliseconds.
pub const MATCH_MS: u64 = 5 * 60 * 1000;
/// Lives (MS-2).
pub const LIVES: u32 = 3;
/// Points per safe tile opened (MS-3).
pub const TILE_POINTS: i64 = 10;
/// Points a mine costs (MS-2).
pub const MINE_POINTS: i64 = 100;

/// What a player did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    Reveal,
    Flag,
    Unflag,
    Chord,
}

/// One timed action (ms since the match started).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub at_ms: u64,
    #[serde(rename = "type")]
    pub act: Act,
    pub row: u32,
    pub col: u32,
}

/// One player's replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerReplay {
    /// Points (MS-2, MS-3; may be negative).
    pub score: i64,
    /// Lives left (MS-2).
    pub lives: u32,
    /// Safe tiles this player opened (the starting area not counted).
    pub tiles_opened: u32,
    pub mines_opened: u32,
    /// Whether every safe tile is open.
    pub cleared: bool,
    /// When the score last changed (ms; 0 if never).
    pub last_change_ms: u64,
    /// When the player stopped (no lives, or every safe tile open), if they did.
    pub stopped_ms: Option<u64>,
    /// Each score change: (ms, score after, index of the action).
    #[serde(skip)]
    pub timeline: Vec<(u64, i64, usize)>,
}

/// One player's actions replayed alone (MS-2 … MS-4, MS-8's per-player checks).
/// `field` prefixes errors (`players[1].actions`).
pub fn replay_player(
    grid: &Grid,
    start: &[usize],
    actions: &[Action],
    field: &str,
) -> Result<PlayerReplay, RuleError> {
    let n = TILES as usize;
    let mut open = vec![false; n];
    let mut flag = vec![false; n];
    for &i in start {
        open[i] = true;
    }
    let safe_total = grid.safe_tiles();
    let mut safe_open = start.len() as u32;
    let mut p = PlayerReplay {
        score: 0,
        lives: LIVES,
        tiles_opened: 0,
        mines_opened: 0,
        cleared: false,
        last_change_ms: 0,
        stopped_ms: None,
        timeline: Vec::new(),
    };
    let mut last_at = 0;
    for (k, a) in actions.iter().enumerate() {
        let at = || format!("{field}[{k}]");
        if a.at_ms < last_at {
            return Err(RuleError::new(
                at(),
                "MS-8",
                format!(
                    "at_ms {} is before the previous action's {last_at}: actions are out of order",
                    a.at_ms
                ),
            ));
        }
        last_at = a.at_ms;
        if a.at_ms > MATCH_MS {
            return Err(RuleError::new(
                at(),
                "MS-5",
                format!(
                    "at_ms {} is after the 5 minutes (300000 ms) a duel lasts",
                    a.at_ms
                ),
            ));
        }
        if p.stopped_ms.is_some() {
            return Err(RuleError::new(at(), "MS-5", "after the player stopped"));
        }
        let Some(i) = (Tile {
            row: a.row,
            col: a.col,
        })
        .index() else {
            return Err(RuleError::new(
                at(),
                "MS-8",
                format!(
                    "row {}, col {} is outside the 25 × 10 grid (rows 0–24, cols 0–9)",
                    a.row, a.col
                ),
            ));
        };
        let before = p.score;
        let tile = || format!("row {}, col {}", a.row, a.col);
        let mut to_open: Vec<usize> = Vec::new();
        match a.act {
            Act::Flag if open[i] || flag[i] => {
                return Err(RuleError::new(
                    at(),
                    "MS-8",
                    format!(
                        "{} is {}: flags go on covered, unflagged tiles",
                        tile(),
                        if open[i] { "open" } else { "flagged already" }
                    ),
                ))
            }
            Act::Flag => flag[i] = true,
            Act::Unflag if !flag[i] => {
                return Err(RuleError::new(
                    at(),
                    "MS-8",
                    format!("{} has no flag to take off", tile()),
                ))
            }
            Act::Unflag => flag[i] = false,
            Act::Reveal if open[i] => {
                return Err(RuleError::new(
                    at(),
                    "MS-8",
                    format!("{} is open already", tile()),
                ))
            }
            Act::Reveal if flag[i] => {
                return Err(RuleError::new(
                    at(),
                    "MS-8",
                    format!("{} is flagged: unflag it first", tile()),
                ))
            }
            Act::Reveal => to_open.push(i),
            Act::Chord if !open[i] || grid.is_mine(i) => {
                return Err(RuleError::new(
                    at(),
                    "MS-8",
                    format!("{} is not an open number: a chord is on an open number", tile()),
                ))
            }
            Act::Chord => {
                let flags = neighbours(i).filter(|&j| flag[j]).count();
                if flags == usize::from(grid.count(i)) && flags > 0 {
                    to_open.extend(neighbours(i).filter(|&j| !open[j] && !flag[j]));
                }
            }
        }
        // Open what the action opens; a 0 floods, never through flags (MS-3, MS-4).
        while let Some(j) = to_open.pop() {
            if open[j] || flag[j] {
                continue;
            }
            open[j] = true;
            if grid.is_mine(j) {
                p.mines_opened += 1;
                p.lives = p.lives.saturating_sub(1);
                p.score -= MINE_POINTS;
            } else {
                p.tiles_opened += 1;
                safe_open += 1;
                p.score += TILE_POINTS;
                if grid.count(j) == 0 {
                    to_open.extend(neighbours(j).filter(|&m| !open[m] && !flag[m]));
                }
            }
        }
        if p.score != before {
            p.last_change_ms = a.at_ms;
            p.timeline.push((a.at_ms, p.score, k));
        }
        p.cleared = safe_open >= safe_total;
        if p.lives == 0 || p.cleared {
            p.stopped_ms = Some(a.at_ms);
        }
    }
    Ok(p)
}

/// The kind of a win (MS-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinKind {
    /// The winner opened every safe tile without losing a life.
    Perfect,
    /// The winner had no lives left but kept the higher score.
    MineProof,
    /// The loser lost all three lives.
    Blast,
    Points,
}

/// How the duel ended (MS-5 … MS-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decided {
    /// Player 0 or 1 won, and how.
    Win {
        player: u8,
        kind: WinKind,
    },
    Draw,
}

/// How a duel ended (MS-5).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndKind {
    /// The 5 minutes ran out.
    TimeUp,
    /// Both players stopped (no lives left, or every safe tile open).
    BothStopped,
    /// A player who had stopped was overtaken by the other's score.
    Overtaken,
}

/// When and how a duel ended (MS-5): `at_ms` after its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    pub at_ms: u64,
    pub how: EndKind,
}

/// The score a player had at `t` (ms).
fn score_at(p: &PlayerReplay, t: u64) -> i64 {
    p.timeline
        .iter()
        .take_while(|(at, _, _)| *at <= t)
        .last()
        .map_or(0, |(_, s, _)| *s)
}

/// When the match ended (MS-5): the first of 5 minutes, both players stopped, and a
/// stopped player overtaken (the other's score above theirs).
pub fn end_ms(players: &[PlayerReplay; 2]) -> u64 {
    ending(players).0.at_ms
}

/// [`end_ms`], and when a stopped player was overtaken by an action, that player and
/// action's index: the overtaker's last action (later ones at the same millisecond
/// come after the end too).
fn ending(players: &[PlayerReplay; 2]) -> (Ending, Option<(usize, usize)>) {
    let mut end = MATCH_MS;
    let mut how = EndKind::TimeUp;
    let mut by = None;
    if let (Some(a), Some(b)) = (players[0].stopped_ms, players[1].stopped_ms) {
        if a.max(b) < end {
            end = a.max(b);
            how = EndKind::BothStopped;
        }
    }
    for (s, o) in [(0, 1), (1, 0)] {
        if let Some(stop) = players[s].stopped_ms {
            let stood = players[s].score;
            if let Some((t, _, k)) = players[o]
                .timeline
                .iter()
                .find(|(t, sc, _)| *t >= stop && *sc > stood)
            {
                if *t < end {
                    end = *t;
                    how = EndKind::Overtaken;
                    by = Some((o, *k));
                }
            }
            // Overtaken already when the player stopped.
            if score_at(&players[o], stop) > stood && stop < end {
                end = stop;
                how = EndKind::Overtaken;
                by = None;
            }
        }
    }
    (Ending { at_ms: end, how }, by)
}

/// Replays both players (`start`: the shared starting area) and decides the match
/// (MS-5 … MS-7); an action after the match ended is refused (MS-5). Returns both
/// replays, cut at the end, and the decision.
pub fn decide(
    grid: &Grid,
    start: &[usize],
    actions: [&[Action]; 2],
) -> Result<([PlayerReplay; 2], Decided), RuleError> {
    decide_and_end(grid, start, actions).map(|(players, decided, _)| (players, decided))
}

/// [`decide`], with when and how the match ended (MS-5).
pub fn decide_and_end(
    grid: &Grid,
    start: &[usize],
    actions: [&[Action]; 2],
) -> Result<([PlayerReplay; 2], Decided, Ending), RuleError> {
    let players = [
        replay_player(grid, start, actions[0], "players[0].actions")?,
        replay_player(grid, start, actions[1], "players[1].actions")?,
    ];
    let (ended, by) = ending(&players);
    let end = ended.at_ms;
    for (p, acts) in actions.iter().enumerate() {
        let last = by.filter(|(o, _)| *o == p).map(|(_, k)| k);
        if let Some(k) = acts
            .iter()
            .enumerate()
            .position(|(k, a)| a.at_ms > end || last.is_some_and(|l| k > l))
        {
            return Err(RuleError::new(
                format!("players[{p}].actions[{k}]"),
                "MS-5",
                format!("at {} ms, after the match ended at {end} ms", acts[k].at_ms),
            ));
        }
    }
    let (a, b) = (&players[0], &players[1]);
    let winner = match a.score.cmp(&b.score) {
        std::cmp::Ordering::Greater => Some(0u8),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => match a.last_change_ms.cmp(&b.last_change_ms) {
            std::cmp::Ordering::Less => Some(0),
            std::cmp::Ordering::Greater => Some(1),
            std::cmp::Ordering::Equal => None,
        },
    };
    let decided = match winner {
        None => Decided::Draw,
        Some(w) => {
            let (win, lose) = (&players[w as usize], &players[1 - w as usize]);
            let kind = if win.cleared && win.lives == LIVES {
                WinKind::Perfect
            } else if win.lives == 0 {
                WinKind::MineProof
            } else if lose.lives == 0 {
                WinKind::Blast
            } else {
                WinKind::Points
            };
            Decided::Win { player: w, kind }
        }
    };
    Ok((players, decided, ended))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// 40 mines: rows 20 … 23 entirely; the top 20 rows are safe, and rows 0 … 18 are
    /// zeros except row 19, which touches the mines.
    fn grid() -> Grid {
        let mines: Vec<Tile> = (0..40)
            .map(|k| Tile {
                row: 20 + k / 10,
                col: k % 10,
            })
            .collect();
        Grid::new(&mines, "mines").expect("grid")
    }

    fn act(s: u64, act: Act, row: u32, col: u32) -> Action {
        Action {
            at_ms: s * 1000,
            act,
            row,
            col,
        }
    }

    /// MS-3: revealing a zero floods the zero region and its border: 10 per tile; the
    /// starting area is not scored.
    #[test]
    fn ms_3_a_zero_region_scores_10_a_tile() {
        let g = grid();
        // Rows 0 … 19 (200 safe tiles) open from one reveal; the start (tile 0) excluded.
        let p = replay_player(&g, &[0], &[act(1, Act::Reveal, 5, 5)], "a").expect("legal");
        assert_eq!((p.tiles_opened, p.score), (199, 1990));
        assert_eq!(p.lives, 3);
    }

    /// MS-3 (decision): a 0 in the starting area does not flood: its neighbour (0,1),
    /// also a 0, is still hidden, and revealing it floods the region for the player
    /// (10 a tile, the start tile not counted again).
    #[test]
    fn ms_3_a_zero_in_the_starting_area_does_not_flood() {
        let g = grid();
        let p = replay_player(&g, &[0], &[act(1, Act::Reveal, 0, 1)], "a").expect("(0,1) is still hidden");
        assert_eq!((p.tiles_opened, p.score), (199, 1990));
        // Flagging it is legal too: it was never opened.
        let p = replay_player(&g, &[0], &[act(1, Act::Flag, 0, 1)], "a").expect("hidden");
        assert_eq!((p.tiles_opened, p.score), (0, 0));
    }

    /// A grid with a lone mine field in the corner, for chords.
    fn corner() -> Grid {
        // Mines at (0,1) and (1,0), and 38 more far away on rows 15 … 18.
        let mut mines = vec![Tile { row: 0, col: 1 }, Tile { row: 1, col: 0 }];
        mines.extend((0..38).map(|k| Tile {
            row: 15 + k / 10,
            col: k % 10,
        }));
        Grid::new(&mines, "mines").expect("grid")
    }

    /// MS-4, MS-2: a chord on (1,1), a 2, flagged wrongly at (0,0) and (1,2)... the
    /// count matches, so it opens its other covered neighbours, two of them mines: two
    /// lives and 200.
    #[test]
    fn ms_4_a_chord_over_wrong_flags_costs_two_lives() {
        let g = corner();
        assert_eq!(g.count(11), 2);
        let actions = [
            act(1, Act::Reveal, 1, 1),
            act(2, Act::Flag, 0, 0),
            act(3, Act::Flag, 1, 2),
            act(4, Act::Chord, 1, 1),
        ];
        let p = replay_player(&g, &[], &actions, "a").expect("legal");
        assert_eq!((p.mines_opened, p.lives), (2, 1));
        assert_eq!(p.score, 10 + 10 * i64::from(p.tiles_opened - 1) - 200);
        // A chord whose flags do not match does nothing.
        let one = [
            act(1, Act::Reveal, 1, 1),
            act(2, Act::Flag, 0, 0),
            act(3, Act::Chord, 1, 1),
        ];
        let p = replay_player(&g, &[], &one, "a").expect("legal");
        assert_eq!((p.score, p.tiles_opened), (10, 1));
    }

    /// MS-8: impossible actions are refused with the rule named.
    #[test]
    fn ms_8_impossible_actions_are_refused() {
        let g = corner();
        let e = |acts: &[Action]| replay_player(&g, &[], acts, "a").unwrap_err();
        assert_eq!(
            e(&[act(1, Act::Reveal, 5, 5), act(2, Act::Reveal, 5, 5)]).rule,
            "MS-8"
        );
        assert_eq!(e(&[act(1, Act::Unflag, 5, 5)]).field, "a[0]");
        assert_eq!(e(&[act(1, Act::Reveal, 25, 0)]).rule, "MS-8");
        assert_eq!(e(&[act(301, Act::Reveal, 5, 5)]).rule, "MS-5");
        assert_eq!(
            e(&[act(1, Act::Chord, 5, 5)]).rule,
            "MS-8",
            "a chord on a covered tile"
        );
        let dead = [
            act(1, Act::Reveal, 0, 1),
            act(2, Act::Reveal, 1, 0),
            act(3, Act::Reveal, 15, 0),
            act(4, Act::Reveal, 9, 9),
        ];
        let err = e(&dead);
        assert_eq!(
            (err.field.as_str(), err.rule),
            ("a[3]", "MS-5"),
            "after the player stopped"
        );
    }

    /// MS-5 … MS-7: a player with no lives who still leads at 5:00 wins `mine_proof`;
    /// overtaken, they lose, and the winner's kind is `blast`; equal scores go to who
    /// reached the score first.
    #[test]
    fn ms_7_kinds_of_win() {
        let g = corner();
        // A: 4 numbered safe tiles by the corner mines (+40), then 3 mines (−300):
        // −260, no lives left at 8 s.
        let a_dies = [
            act(1, Act::Reveal, 0, 0),
            act(2, Act::Reveal, 0, 2),
            act(3, Act::Reveal, 2, 0),
            act(4, Act::Reveal, 1, 1),
            act(6, Act::Reveal, 0, 1),
            act(7, Act::Reveal, 1, 0),
            act(8, Act::Reveal, 15, 0),
        ];
        // B opened one numbered tile at 5 s (+10): when A stops, B is ahead, and the
        // match ends; A lost all three lives: `blast`.
        let b = [act(5, Act::Reveal, 14, 0)];
        let (p, d) = decide(&g, &[], [&a_dies, &b]).expect("legal");
        assert_eq!((p[0].score, p[0].lives, p[1].score), (-260, 0, 10));
        assert_eq!(
            d,
            Decided::Win {
                player: 1,
                kind: WinKind::Blast
            }
        );
        // A floods a large region, then loses three lives, still leading B (−100) at
        // 5:00: `mine_proof`.
        let a_leads = [
            act(1, Act::Reveal, 6, 5),
            act(6, Act::Reveal, 0, 1),
            act(7, Act::Reveal, 1, 0),
            act(8, Act::Reveal, 15, 0),
        ];
        let b_low = [act(10, Act::Reveal, 15, 5)];
        let (p, d) = decide(&g, &[], [&a_leads, &b_low]).expect("legal");
        assert!(p[0].score > 0 && p[0].lives == 0, "{:?}", p[0]);
        assert_eq!(
            d,
            Decided::Win {
                player: 0,
                kind: WinKind::MineProof
            }
        );
        // Equal scores: the earlier last change wins (`points`); the same instant draws.
        let x = [act(1, Act::Reveal, 0, 2)];
        let y = [act(2, Act::Reveal, 2, 0)];
        assert_eq!(
            decide(&g, &[], [&x, &y]).expect("legal").1,
            Decided::Win {
                player: 0,
                kind: WinKind::Points
            }
        );
        let y_same = [act(1, Act::Reveal, 2, 0)];
        assert_eq!(decide(&g, &[], [&x, &y_same]).expect("legal").1, Decided::Draw);
        // B overtakes the stopped A at 10 s: B's later actions at that same
        // millisecond come after the end too.
        let a_high = [
            act(1, Act::Reveal, 6, 5),
            act(6, Act::Reveal, 0, 1),
            act(7, Act::Reveal, 1, 0),
            act(8, Act::Reveal, 15, 0),
        ];
        let b_over = [act(10, Act::Reveal, 6, 5), act(10, Act::Reveal, 15, 5)];
        let e = decide(&g, &[], [&a_high, &b_over]).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("players[1].actions[1]", "MS-5"));
        // An action after the match ended (at 8 s, when A stopped behind B).
        let late = [act(5, Act::Reveal, 14, 0), act(20, Act::Reveal, 14, 2)];
        let e = decide(&g, &[], [&a_dies, &late]).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("players[1].actions[1]", "MS-5"));
    }

    proptest! {
        /// MS-2, MS-3: random logs give score = 10 × tiles opened − 100 × mines opened,
        /// and lives = 3 − mines opened, not below 0.
        #[test]
        fn ms_random_logs_keep_score_and_lives(seed in any::<u64>(), n in 1usize..60) {
            let g = corner();
            let mut x = seed | 1;
            let mut actions = Vec::new();
            let mut t = 0u64;
            for _ in 0..n {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                t += 1 + (x >> 60);
                let tile = ((x >> 33) % u64::from(TILES)) as u32;
                let kind = match (x >> 20) % 4 { 0 => Act::Flag, 1 => Act::Chord, _ => Act::Reveal };
                let a = Action { at_ms: t, act: kind, row: tile / 10, col: tile % 10 };
                // Keep only actions the board allows at that point.
                let mut trial = actions.clone();
                trial.push(a);
                if replay_player(&g, &[], &trial, "a").is_ok() {
                    actions = trial;
                }
            }
            let p = replay_player(&g, &[], &actions, "a").expect("legal");
            prop_assert_eq!(p.score, 10 * i64::from(p.tiles_opened) - 100 * i64::from(p.mines_opened));
            prop_assert_eq!(p.lives, LIVES.saturating_sub(p.mines_opened));
        }
    }
}
