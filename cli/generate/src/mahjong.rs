//! `podium generate --game mahjong`: realistic Mahjong Rivals records, as JSON lines.
//!
//! Accounts have a hidden skill: stronger ones finish levels faster and win Quick
//! Matches and Arenas more often. Records run over the 28 days up to `end` (so the
//! current week's and day's boards have some), and their ids carry the seed and `end`
//! (`lc-42-20261130T1405-0000001`): a file generated later adds new records. Mixed in:
//! - ~70 % level completions (MJ-2 … MJ-5) on levels 1 … 60, so that many accounts
//!   share a level and compete for its 10 paying places, with replays for a better
//!   time; ~1 % report a Joker the account does not hold (refused, MJ-6);
//! - ~25 % Quick Matches of 2 to 4 accounts (MJ-7), some without a winner (ties, all
//!   zero: MJ-8);
//! - ~5 % Arenas of 4 accounts and 3 rounds of pair logs (MJ-9 … MJ-11);
//! - ~3 % duplicate deliveries, ~0.5 % malformed records (GM-5), a few conflicting
//!   re-uses of an id (GM-3).

use std::io::Write;

use chrono::{DateTime, Duration, Utc};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// Writes `records` records among `players` accounts (plus duplicates, conflicts and
/// malformed lines) to `out`, dated over the 28 days up to `end`; ids carry `seed`
/// and `end` (to the minute).
pub fn generate(
    records: usize,
    players: usize,
    seed: u64,
    end: DateTime<Utc>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let players = players.max(4);
    let mut rng = StdRng::seed_from_u64(seed);
    let skill: Vec<f64> = (0..players).map(|_| rng.random_range(0.0..1.0)).collect();
    let span_ms = 28 * 24 * 3600 * 1000i64;
    let start = end - Duration::milliseconds(span_ms);
    let tag = format!("{seed}-{}", end.format("%Y%m%dT%H%M"));
    for i in 0..records {
        let at = start + Duration::milliseconds(span_ms * (i as i64 + 1) / records.max(1) as i64);
        let at = at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let kind: f64 = rng.random_range(0.0..1.0);
        let mut record = if kind < 0.05 {
            arena(&mut rng, &skill, &format!("ar-{tag}-{i:07}"), &at)
        } else if kind < 0.75 {
            let p = rng.random_range(0..players);
            let level = rng.random_range(1..=60u32);
            // 30 s for the best, up to 5 minutes for the weakest, with some luck.
            let time_ms = (30_000.0 + 270_000.0 * (1.0 - skill[p]) * rng.random_range(0.6..1.4)) as u64;
            let jokers = u32::from(rng.random_range(0.0..1.0) < 0.01);
            json!({"completion_id": format!("lc-{tag}-{i:07}"), "game": "mahjong-rivals",
                "kind": "level-completion", "player_id": player_id(p), "level": level,
                "time_ms": time_ms, "completed_at": at, "jokers_used": jokers})
        } else {
            let n = rng.random_range(2..=4usize);
            let mut seats: Vec<usize> = Vec::with_capacity(n);
            while seats.len() < n {
                let p = rng.random_range(0..players);
                if !seats.contains(&p) {
                    seats.push(p);
                }
            }
            let all_zero = rng.random_range(0.0..1.0) < 0.02;
            let seats: Vec<Value> = seats
                .iter()
                .map(|&p| {
                    let completed = !all_zero && rng.random_range(0.0..1.0) < 0.2 + 0.6 * skill[p];
                    let score = if all_zero {
                        0
                    } else {
                        (rng.random_range(0..20) * 100) as i64
                    };
                    json!({"player_id": player_id(p), "completed": completed, "score": score})
                })
                .collect();
            json!({"match_id": format!("qm-{tag}-{i:07}"), "game": "mahjong-rivals",
                "kind": "quick-match", "ended_at": at, "players": seats})
        };
        writeln!(out, "{record}")?;
        let roll: f64 = rng.random_range(0.0..1.0);
        if roll < 0.03 {
            writeln!(out, "{record}")?;
        } else if roll < 0.035 {
            if let Some(o) = record.as_object_mut() {
                o.remove(if o.contains_key("level") {
                    "level"
                } else {
                    "players"
                });
            }
            writeln!(out, "{record}")?;
        } else if roll < 0.037 && record.get("jokers_used") != Some(&json!(1)) {
            // A conflicting re-use of the id (GM-3); not of a record refused for its Jokers.
            if let Some(t) = record.get("time_ms").and_then(Value::as_u64) {
                record["time_ms"] = json!(t + 1);
            } else {
                record["ended_at"] = json!(start.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
            }
            writeln!(out, "{record}")?;
        }
    }
    Ok(())
}

/// An Arena of 4 distinct accounts: in each round every account pairs tiles every 2 to
/// 12 s (stronger ones faster and longer), for at most 4 minutes (MJ-9 … MJ-11).
fn arena(rng: &mut StdRng, skill: &[f64], id: &str, at: &str) -> Value {
    let mut seats: Vec<usize> = Vec::with_capacity(4);
    while seats.len() < 4 {
        let p = rng.random_range(0..skill.len());
        if !seats.contains(&p) {
            seats.push(p);
        }
    }
    let rounds: Vec<Value> = (0..3)
        .map(|_| {
            let logs: Vec<Value> = seats
                .iter()
                .map(|&p| {
                    let mut t = 0u64;
                    let mut events = Vec::new();
                    while t < 200_000 {
                        t += (2_000.0 + 10_000.0 * (1.0 - skill[p]) * rng.random_range(0.5..1.0)) as u64;
                        if rng.random_range(0.0..1.0) < 0.05 {
                            events.push(json!({"type": "blocked", "at_ms": t - 500}));
                        }
                        events.push(json!({"type": "pair", "at_ms": t, "decisive": rng.random_range(0.0..1.0) < 0.03}));
                    }
                    json!({"player_id": player_id(p), "events": events})
                })
                .collect();
            json!({"logs": logs})
        })
        .collect();
    let players: Vec<String> = seats.iter().map(|&p| player_id(p)).collect();
    json!({"arena_id": id, "game": "mahjong-rivals", "kind": "arena", "ended_at": at,
        "players": players, "rounds": rounds})
}

/// A small tournament three days before `end` (MJ-12 … MJ-16): its settings, for the
/// operator's `podium tournament`, and its records for the queue: 12 accounts
/// registering in the hour before its start, then 3 rounds of 3 tables of 4.
pub fn tournament(
    players: usize,
    seed: u64,
    end: DateTime<Utc>,
    out: &mut impl Write,
) -> std::io::Result<podium_rules::mahjong::tournament::Tournament> {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x7011);
    let players = players.max(12);
    let skill: Vec<f64> = (0..players).map(|_| rng.random_range(0.0..1.0)).collect();
    let tag = format!("{seed}-{}", end.format("%Y%m%dT%H%M"));
    let starts = end - Duration::days(3);
    let t = podium_rules::mahjong::tournament::Tournament {
        tournament_id: format!("cup-{tag}"),
        starts_at: starts,
        ends_at: starts + Duration::hours(1),
        min_players: 8,
        multiplier: 2,
        prizes: vec![100, 50, 25],
        champions: false,
    };
    let secs = |d: DateTime<Utc>| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut entrants: Vec<usize> = Vec::with_capacity(12);
    while entrants.len() < 12 {
        let p = rng.random_range(0..players);
        if !entrants.contains(&p) {
            entrants.push(p);
        }
    }
    for (i, &p) in entrants.iter().enumerate() {
        let at = starts - Duration::minutes(60 - 4 * i as i64);
        writeln!(
            out,
            "{}",
            json!({"game": "mahjong-rivals", "kind": "tournament-registration", "tournament_id": t.tournament_id,
                "player_id": player_id(p), "registered_at": secs(at)})
        )?;
    }
    for round in 0..3 {
        // Seats by a permutation of the entrants (steps coprime with 12): other tables
        // every round.
        let step = [1, 5, 7][round];
        let seats: Vec<usize> = (0..12).map(|i| entrants[(i * step + round) % 12]).collect();
        for (table, four) in seats.chunks(4).enumerate() {
            let rows: Vec<Value> = four
                .iter()
                .map(|&p| {
                    let completed = rng.random_range(0.0..1.0) < 0.2 + 0.6 * skill[p];
                    let score = (rng.random_range(0..20) * 100) as i64;
                    json!({"player_id": player_id(p), "completed": completed, "score": score})
                })
                .collect();
            let at = starts + Duration::minutes(15 * (round as i64 + 1));
            writeln!(
                out,
                "{}",
                json!({"game": "mahjong-rivals", "kind": "tournament-table",
                    "table_id": format!("{}-r{round}-t{table}", t.tournament_id), "tournament_id": t.tournament_id,
                    "ended_at": secs(at), "players": rows})
            )?;
        }
    }
    Ok(t)
}

fn player_id(i: usize) -> String {
    format!("m-{i:05}")
}
