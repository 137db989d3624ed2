//! What a scored match costs the CPU for the boards a game's definitions name (BD-12),
//! apart from the store: for each player's fact, each definition's contribution
//! (BD-2 … BD-5), the period holding it (BD-6: a cron expression read in its zone) and
//! the fold of a new value (BD-5), for 1 and 20 definitions of the game (BD-11's
//! default cap), against scoring the match itself (SG-*).
//!
//! `cargo bench --locked -p podium-tests --bench defined_boards -- --noplot`

use criterion::{criterion_group, criterion_main, Criterion};
use podium_rules::board::definition::Definition;
use podium_rules::board::feed::{Contribution, Fact, ResultKind};
use podium_rules::game::Game;

/// `n` weekly definitions of Seega (Saturday 00:00 Bucharest), of every source and
/// operator the game has, some with a tie-break.
fn definitions(n: usize) -> Vec<Definition> {
    let sources = [
        serde_json::json!({"kind": "points"}),
        serde_json::json!({"kind": "wins"}),
        serde_json::json!({"kind": "matches"}),
    ];
    let operators = ["sum", "best", "count", "max"];
    (0..n)
        .map(|i| {
            let mut v = serde_json::json!({
                "id": format!("seega-board-{i}"), "title": "A Seega board", "game": "seega",
                "source": sources[i % sources.len()], "operator": operators[i % operators.len()],
                "order": "higher_first",
                "schedule": {"kind": "cron", "cron": "0 0 * * SAT", "zone": "Europe/Bucharest"},
            });
            if i % 2 == 0 {
                v["tie_breaks"] = serde_json::json!([{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}]);
            }
            serde_json::from_value(v).expect("a definition")
        })
        .collect()
}

fn facts() -> Vec<Fact> {
    let at = chrono::DateTime::parse_from_rfc3339("2026-12-09T10:00:00Z")
        .expect("instant")
        .to_utc();
    [("ana", 287, true), ("bob", -75, false)]
        .into_iter()
        .map(|(p, points, won)| Fact {
            player_id: p.to_string(),
            game: Game::Seega,
            kind: ResultKind::Match,
            at,
            points,
            won,
            rated: true,
            moves: Some(20),
            level: None,
            time_ms: None,
            rating: None,
        })
        .collect()
}

/// What the feed computes without the store: contribution, period, fold.
fn feed(defs: &[Definition], facts: &[Fact]) -> usize {
    let mut fed = 0;
    for fact in facts {
        for d in defs {
            let Some(c) = d.contribution(fact) else {
                continue;
            };
            let Ok(Some(period)) = d.schedule.period_at(fact.at) else {
                continue;
            };
            let (value, tie_breaks) = match c {
                Contribution::Feed { value, tie_breaks }
                | Contribution::Held {
                    value, tie_breaks, ..
                } => (value, tie_breaks),
            };
            fed += usize::from(d.fold().combine(Some(100), value, &tie_breaks) >= 0) + period.id.len() % 2;
        }
    }
    fed
}

fn defined_boards(c: &mut Criterion) {
    let facts = facts();
    let mut g = c.benchmark_group("defined_boards");
    for n in [1, 20] {
        let defs = definitions(n);
        g.bench_function(format!("feed_a_match_{n}_definitions"), |b| {
            b.iter(|| feed(&defs, &facts))
        });
    }
    let defs = definitions(20);
    g.bench_function("period_at_one_cron", |b| {
        b.iter(|| {
            defs[0]
                .schedule
                .period_at(facts[0].at)
                .ok()
                .flatten()
                .map(|p| p.id.len())
        })
    });
    let text = serde_json::to_vec(&defs).expect("json");
    g.bench_function("decode_20_definitions", |b| {
        b.iter(|| {
            serde_json::from_slice::<Vec<Definition>>(&text)
                .map(|v| v.len())
                .unwrap_or(0)
        })
    });
    g.finish();
}

criterion_group!(benches, defined_boards);
criterion_main!(benches);
