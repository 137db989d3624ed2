//! The replay cost of the replayed games (DB-4, MS-8), per record, next to parsing
//! the same record with `serde_json` alone: a full default Dots and Boxes game (5 × 4,
//! 49 lines) and the longest of 50 generated 5-minute Minesweeper duels. Run:
//! `cargo bench -p podium-tests --bench replays -- --noplot`.

use criterion::{criterion_group, criterion_main, Criterion};
use podium_generate::replayed::{generate, Replayed};
use podium_rules::dots_and_boxes::record::DotsMatch;
use podium_rules::minesweeper::record::Duel;

fn lines(game: Replayed) -> Vec<String> {
    let mut out = Vec::new();
    let end = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
        .expect("instant")
        .to_utc();
    generate(game, 50, 20, 7, end, &mut out).expect("generate");
    String::from_utf8(out)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

fn replays(c: &mut Criterion) {
    let now = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
        .expect("instant")
        .to_utc();
    // A full default game: 49 lines on 5 × 4, nobody resigned.
    let dots = lines(Replayed::DotsAndBoxes)
        .into_iter()
        .find(|l| {
            DotsMatch::from_json(l.as_bytes())
                .is_ok_and(|m| m.moves.len() == 49 && m.result.resigned.is_none() && m.check(now, 0).is_ok())
        })
        .expect("a full default game");
    // The duel with the most actions.
    let duel = lines(Replayed::Minesweeper)
        .into_iter()
        .filter(|l| Duel::from_json(l.as_bytes()).is_ok_and(|d| d.check(now, 0).is_ok()))
        .max_by_key(|l| {
            Duel::from_json(l.as_bytes())
                .map_or(0, |d| d.players.iter().map(|p| p.actions.len()).sum::<usize>())
        })
        .expect("a duel");
    let actions: usize =
        Duel::from_json(duel.as_bytes()).map_or(0, |d| d.players.iter().map(|p| p.actions.len()).sum());
    eprintln!(
        "dots-and-boxes: {} bytes, 49 lines; minesweeper: {} bytes, {actions} actions",
        dots.len(),
        duel.len()
    );
    let mut g = c.benchmark_group("replays");
    g.bench_function("dots_and_boxes/serde_json_value", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(&dots).is_ok())
    });
    g.bench_function("dots_and_boxes/parse_and_replay", |b| {
        b.iter(|| {
            DotsMatch::from_json(dots.as_bytes())
                .and_then(|m| m.check(now, 0))
                .is_ok()
        })
    });
    g.bench_function("minesweeper/serde_json_value", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(&duel).is_ok())
    });
    g.bench_function("minesweeper/parse_and_replay", |b| {
        b.iter(|| {
            Duel::from_json(duel.as_bytes())
                .and_then(|d| d.check(now, 0))
                .is_ok()
        })
    });
    g.finish();
}

criterion_group!(benches, replays);
criterion_main!(benches);
