//! `podium generate --game dots-and-boxes|minesweeper`: realistic replayable
//! matches, as JSON lines, over the 28 days up to `end` (ids carry the seed and `end`).
//!
//! Dots and Boxes: mostly the default 5 × 4 board; players take a box when one is
//! open (stronger ones more often), else draw any line; ~10 % against the CPU, ~5 %
//! resigned. Minesweeper: 40 random mines, a starting tile, each player revealing
//! (stronger ones flag mines first and avoid them) for up to 5 minutes. Mixed in, as a
//! fleet produces them: ~3 % duplicate deliveries, ~1 % cheating records (a claimed
//! winner the moves contradict), ~0.5 % malformed (a repeated line or action).

use std::io::Write;

use chrono::{DateTime, Duration, Utc};
use podium_rules::dots_and_boxes::board::Board;
use podium_rules::dots_and_boxes::replay::{self, Move, Outcome};
use podium_rules::minesweeper::grid::{Grid, Tile, COLS, MINES, TILES};
use podium_rules::minesweeper::replay::{self as duel, Act, Action, Decided};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// Which game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replayed {
    DotsAndBoxes,
    Minesweeper,
}

/// Writes `matches` matches among `players` accounts (plus duplicates, cheating and
/// malformed records) to `out`.
pub fn generate(
    game: Replayed,
    matches: usize,
    players: usize,
    seed: u64,
    end: DateTime<Utc>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let players = players.max(2);
    let mut rng = StdRng::seed_from_u64(seed ^ 0xd075);
    let skill: Vec<f64> = (0..players).map(|_| rng.random_range(0.0..1.0)).collect();
    let span_ms = 28 * 24 * 3600 * 1000i64;
    let start = end - Duration::milliseconds(span_ms);
    let tag = format!("{seed}-{}", end.format("%Y%m%dT%H%M"));
    for i in 0..matches {
        let ended = start + Duration::milliseconds(span_ms * (i as i64 + 1) / matches.max(1) as i64);
        let (a, b) = loop {
            let (a, b) = (rng.random_range(0..players), rng.random_range(0..players));
            if a != b {
                break (a, b);
            }
        };
        let mut record = match game {
            Replayed::DotsAndBoxes => dots(&mut rng, &skill, [a, b], &format!("db-{tag}-{i:07}"), ended),
            Replayed::Minesweeper => {
                minesweeper(&mut rng, &skill, [a, b], &format!("ms-{tag}-{i:07}"), ended)
            }
        };
        let roll: f64 = rng.random_range(0.0..1.0);
        if roll < 0.01 {
            // Cheating: the other player claims the win.
            let other = if record["result"]["winner"] == json!(player_id(a)) {
                b
            } else {
                a
            };
            record["result"]["winner"] = json!(player_id(other));
            if game == Replayed::Minesweeper {
                record["result"]["kind"] = json!("points");
            }
        } else if roll < 0.015 {
            // Malformed: a line or action repeated.
            let list = match game {
                Replayed::DotsAndBoxes => record.get_mut("moves"),
                Replayed::Minesweeper => record.pointer_mut("/players/0/actions"),
            };
            if let Some(list) = list.and_then(Value::as_array_mut) {
                if let Some(first) = list.first().cloned() {
                    list.push(first);
                }
            }
        }
        writeln!(out, "{record}")?;
        if (0.015..0.045).contains(&roll) {
            writeln!(out, "{record}")?;
        }
    }
    Ok(())
}

fn player_id(i: usize) -> String {
    format!("r-{i:05}")
}

fn secs(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A Dots and Boxes game between accounts `seats`.
fn dots(rng: &mut StdRng, skill: &[f64], seats: [usize; 2], id: &str, ended: DateTime<Utc>) -> Value {
    let board = if rng.random_range(0.0..1.0) < 0.8 {
        Board::default()
    } else {
        Board {
            width: rng.random_range(3..=5),
            height: rng.random_range(3..=5),
        }
    };
    let cpu = rng.random_range(0.0..1.0) < 0.1;
    let mut moves: Vec<Move> = Vec::new();
    let mut drawn = vec![false; board.lines() as usize];
    let mut player = rng.random_range(0..=1u8);
    let resign_at = (rng.random_range(0.0..1.0) < 0.05).then(|| rng.random_range(5..board.lines() as usize));
    let mut resigned = None;
    while moves.len() < board.lines() as usize {
        if resign_at == Some(moves.len()) {
            resigned = Some(player);
            break;
        }
        let free: Vec<u32> = (0..board.lines()).filter(|l| !drawn[*l as usize]).collect();
        // A line that completes a box, if the player sees one.
        let closing = free.iter().copied().find(|&l| {
            board
                .boxes_of(l)
                .any(|b| board.sides(b).iter().filter(|s| !drawn[**s as usize]).count() == 1)
        });
        let line = match closing {
            Some(l) if rng.random_range(0.0..1.0) < 0.5 + 0.5 * skill[seats[player as usize]] => l,
            _ => free[rng.random_range(0..free.len())],
        };
        drawn[line as usize] = true;
        moves.push(Move { player, line });
        let r = replay::replay(&board, &moves).expect("a legal line");
        player = r.to_move.unwrap_or(player);
    }
    let r = replay::replay(&board, &moves).expect("legal");
    let winner = match replay::outcome(&r, resigned) {
        Some(Outcome::Win(p)) => Some(player_id(seats[p as usize])),
        _ => None,
    };
    let start = ended - Duration::minutes(10);
    json!({"match_id": id, "game": "dots-and-boxes", "started_at": secs(start), "ended_at": secs(ended),
        "board": board,
        "players": [{"player_id": player_id(seats[0]), "human": true}, {"player_id": player_id(seats[1]), "human": !cpu}],
        "moves": moves,
        "result": {"winner": winner, "resigned": resigned.map(|p| player_id(seats[p as usize]))}})
}

/// A Minesweeper duel between accounts `seats`.
fn minesweeper(rng: &mut StdRng, skill: &[f64], seats: [usize; 2], id: &str, ended: DateTime<Utc>) -> Value {
    let mut mines: Vec<usize> = Vec::with_capacity(MINES);
    while mines.len() < MINES {
        let t = rng.random_range(0..TILES as usize);
        if !mines.contains(&t) {
            mines.push(t);
        }
    }
    let tile = |i: usize| Tile {
        row: i as u32 / COLS,
        col: i as u32 % COLS,
    };
    let mine_tiles: Vec<Tile> = mines.iter().map(|&i| tile(i)).collect();
    let grid = Grid::new(&mine_tiles, "mines").expect("40 mines");
    let start_tile = (0..TILES as usize).find(|i| !grid.is_mine(*i)).unwrap_or(0);
    let mut logs: Vec<Vec<Action>> = Vec::new();
    for &p in &seats {
        let mut actions: Vec<Action> = Vec::new();
        let mut t = 0u64;
        while t < duel::MATCH_MS - 20_000 && actions.len() < 80 {
            t += rng.random_range(1_000..(4_000 + (8_000.0 * (1.0 - skill[p])) as u64));
            let i = rng.random_range(0..TILES as usize);
            // Stronger players recognise a mine more often, and flag it instead.
            let act = if grid.is_mine(i) && rng.random_range(0.0..1.0) < 0.6 + 0.35 * skill[p] {
                Act::Flag
            } else {
                Act::Reveal
            };
            let a = Action {
                at_ms: t,
                act,
                row: i as u32 / COLS,
                col: i as u32 % COLS,
            };
            actions.push(a);
            if duel::replay_player(&grid, &[start_tile], &actions, "a").is_err() {
                actions.pop();
            }
        }
        logs.push(actions);
    }
    // Cut what comes after the match's end (a stopped player overtaken, MS-5).
    let (_, decided, ending) = loop {
        match duel::decide_and_end(&grid, &[start_tile], [&logs[0], &logs[1]]) {
            Ok(done) => break done,
            Err(_) => {
                let players = [
                    duel::replay_player(&grid, &[start_tile], &logs[0], "a").expect("legal"),
                    duel::replay_player(&grid, &[start_tile], &logs[1], "b").expect("legal"),
                ];
                let end = duel::end_ms(&players);
                for log in logs.iter_mut() {
                    log.retain(|a| a.at_ms <= end);
                }
            }
        }
    };
    let (winner, kind) = match decided {
        Decided::Win { player, kind } => (Some(player_id(seats[player as usize])), Some(kind)),
        Decided::Draw => (None, None),
    };
    // MS-5: the record's end is its actions' (the 5 minutes, both stopped, or a
    // stopped player overtaken), to the millisecond.
    let start = ended - Duration::minutes(5);
    let end = start + Duration::milliseconds(i64::try_from(ending.at_ms).unwrap_or(0));
    json!({"match_id": id, "game": "minesweeper", "started_at": secs(start),
        "ended_at": end.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        "mines": mine_tiles, "start": [tile(start_tile)],
        "players": [
            {"player_id": player_id(seats[0]), "human": true, "actions": logs[0]},
            {"player_id": player_id(seats[1]), "human": true, "actions": logs[1]}],
        "result": {"winner": winner, "kind": kind}})
}
