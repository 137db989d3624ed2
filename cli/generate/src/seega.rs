//! `podium generate`: realistic Seega match records, as JSON lines.
//!
//! Players have a hidden skill; the stronger one usually wins. Matches run 2 to
//! 30 minutes, one after another over the days before 2026-11-30. Mixed in, as a
//! game server fleet produces them:
//! - ~82 % completed games, ~10 % resignations, ~5 % turn timeouts (SG-6, SG-9);
//! - ~2 % ended in placement before 4 stones (void, SG-5) and ~1 % reported draws (void);
//! - ~3 % duplicate deliveries right after the original, ~1 % late retries much
//!   later in the file (GM-3), and ~0.5 % malformed records (GM-5) plus a few
//!   conflicting re-uses of a match id.

use std::io::Write;

use chrono::{DateTime, Duration, TimeZone, Utc};
use podium_rules::seega::record::{EndReason, MatchRecord, Outcome, PlayerRecord};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

/// Writes `matches` matches among `players` players (plus duplicates, late retries
/// and malformed lines) to `out`.
pub fn generate(matches: usize, players: usize, seed: u64, out: &mut impl Write) -> std::io::Result<()> {
    let players = players.max(2);
    let mut rng = StdRng::seed_from_u64(seed);
    let skill: Vec<f64> = (0..players).map(|_| rng.random_range(0.0..1.0)).collect();
    let start = Utc
        .with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .single()
        .unwrap_or_default();
    let span_ms = 29 * 24 * 3600 * 1000i64;
    let mut late: Vec<(usize, String)> = Vec::new();
    for i in 0..matches {
        let at = start + Duration::milliseconds(span_ms * i as i64 / matches.max(1) as i64);
        let record = one_match(&mut rng, &skill, seed, i, at);
        let line = serde_json::to_string(&record).unwrap_or_default();
        writeln!(out, "{line}")?;
        let roll: f64 = rng.random_range(0.0..1.0);
        if roll < 0.03 {
            writeln!(out, "{line}")?;
        } else if roll < 0.04 {
            late.push((i + rng.random_range(50..2_000), line.clone()));
        } else if roll < 0.045 {
            writeln!(out, "{}", malformed(&mut rng, &record))?;
        } else if roll < 0.047 {
            let mut conflicting = record.clone();
            conflicting.players[0].moves += 1;
            writeln!(out, "{}", serde_json::to_string(&conflicting).unwrap_or_default())?;
        }
        late.retain(|(due, line)| {
            if *due == i {
                let _ = writeln!(out, "{line}");
                false
            } else {
                true
            }
        });
    }
    for (_, line) in late {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn one_match(rng: &mut StdRng, skill: &[f64], seed: u64, i: usize, ended: DateTime<Utc>) -> MatchRecord {
    let n = skill.len();
    let a = rng.random_range(0..n);
    let b = (a + rng.random_range(1..n)) % n;
    let p_a = 0.5 + (skill[a] - skill[b]) * 0.45;
    let a_wins = rng.random_range(0.0..1.0) < p_a;
    let (w, l) = if a_wins { (a, b) } else { (b, a) };
    let minutes = rng.random_range(2..30);
    let mut started = ended - Duration::seconds(minutes * 60 + rng.random_range(0..60));
    let moves = |rng: &mut StdRng| rng.random_range(8..60);
    let roll: f64 = rng.random_range(0.0..1.0);
    let (w_rec, l_rec, placed, outcome) = if roll < 0.02 {
        // Abandoned in placement before 4 stones: void (SG-5).
        let placed_w = rng.random_range(0..=2);
        let placed_l = rng.random_range(0..=(3 - placed_w).min(2));
        // A few turns at most (60 s each, SG-9), one move a stone placed.
        started = ended - Duration::seconds(rng.random_range(20..180));
        let w_rec = player(w, placed_w, placed_w, 24 - placed_w);
        let l_rec = player(l, placed_l, placed_l, 24 - placed_l);
        let reason = if rng.random_bool(0.5) {
            EndReason::Resigned
        } else {
            EndReason::TurnTimeout
        };
        (w_rec, l_rec, placed_w + placed_l, win(w, reason))
    } else if roll < 0.04 {
        // Resigned or timed out during placement, after 4 stones: counts (SG-6).
        let placed_w = rng.random_range(2..24);
        let placed_l = rng.random_range(2..24);
        let reason = if rng.random_bool(0.5) {
            EndReason::Resigned
        } else {
            EndReason::TurnTimeout
        };
        started = ended - Duration::seconds(i64::from(placed_w + placed_l) * rng.random_range(5..40));
        (
            player(w, placed_w, placed_w, 24 - placed_w),
            player(l, placed_l, placed_l, 24 - placed_l),
            placed_w + placed_l,
            win(w, reason),
        )
    } else {
        let (reason, w_captured, l_captured) = if roll < 0.05 {
            (None, rng.random_range(6..20), rng.random_range(6..20))
        } else if roll < 0.15 {
            (
                Some(EndReason::Resigned),
                rng.random_range(4..20),
                rng.random_range(0..16),
            )
        } else if roll < 0.20 {
            (
                Some(EndReason::TurnTimeout),
                rng.random_range(2..20),
                rng.random_range(0..18),
            )
        } else {
            (Some(EndReason::Completed), 24, rng.random_range(0..22))
        };
        let w_rec = player(w, moves(rng), 24 - l_captured, 0);
        let l_rec = player(l, moves(rng), 24 - w_captured, 0);
        let outcome = match reason {
            Some(r) => win(w, r),
            None => Outcome::draw(),
        };
        (w_rec, l_rec, 48, outcome)
    };
    let players = if rng.random_bool(0.5) {
        vec![w_rec, l_rec]
    } else {
        vec![l_rec, w_rec]
    };
    MatchRecord {
        match_id: format!("sg-{seed}-{i:07}"),
        game: "seega".into(),
        started_at: started,
        ended_at: ended,
        players,
        stones_placed: placed,
        outcome,
    }
}

fn player_id(i: usize) -> String {
    format!("p-{i:05}")
}

fn player(i: usize, moves: u32, on_board: u32, in_hand: u32) -> PlayerRecord {
    PlayerRecord {
        player_id: player_id(i),
        moves,
        stones_on_board: on_board,
        stones_in_hand: in_hand,
    }
}

fn win(i: usize, reason: EndReason) -> Outcome {
    Outcome::win(player_id(i), reason)
}

/// A copy of `record` broken in one of the ways a buggy server breaks records.
fn malformed(rng: &mut StdRng, record: &MatchRecord) -> String {
    let mut v: Value = serde_json::to_value(record).unwrap_or(Value::Null);
    let id = format!("{}-bad", record.match_id);
    v["match_id"] = Value::String(id);
    match rng.random_range(0..7) {
        0 => {
            if let Some(o) = v.as_object_mut() {
                o.remove("ended_at");
            }
        }
        1 => v["players"][1]["player_id"] = v["players"][0]["player_id"].clone(),
        2 => v["players"][0]["stones_on_board"] = Value::from(31),
        3 => v["outcome"]["winner"] = Value::String("p-99999".into()),
        4 => v["ended_at"] = Value::String("2026-10-01T00:00:00Z".into()),
        5 => v["game"] = Value::String("chess".into()),
        _ => return "{\"match_id\": \"truncated".to_string(),
    }
    v.to_string()
}
