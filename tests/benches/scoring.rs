//! The scoring core (parse, validate, score; no I/O) on the generated file's lines,
//! against a bare `serde_json::from_str::<serde_json::Value>` of the same lines.
//! `scripts/bench-scoring` runs it and prints the ratio next to its goal (≥ 0.75).
//! `parse_only` and `content_hash` break the scoring time down.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use podium_rules::seega::record::MatchRecord;
use podium_rules::seega::score;

fn lines() -> Vec<String> {
    let mut out = Vec::new();
    podium_generate::seega::generate(10_000, 1_000, 42, &mut out).expect("generate");
    String::from_utf8(out)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

fn scoring(c: &mut Criterion) {
    let lines = lines();
    let now = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
        .expect("instant")
        .to_utc();
    let mut g = c.benchmark_group("scoring");
    g.throughput(Throughput::Elements(lines.len() as u64));
    g.bench_function("serde_json_value", |b| {
        b.iter(|| {
            let mut ok = 0usize;
            for l in &lines {
                ok += usize::from(serde_json::from_str::<serde_json::Value>(l).is_ok());
            }
            ok
        })
    });
    g.bench_function("parse_validate_score", |b| {
        b.iter(|| {
            let mut scored = 0usize;
            for l in &lines {
                if let Ok(m) = MatchRecord::from_json(l.as_bytes()).and_then(|r| r.validate(now)) {
                    scored += usize::from(matches!(score(&m), podium_rules::seega::Scoring::Decided(_)));
                }
            }
            scored
        })
    });
    let records: Vec<MatchRecord> = lines
        .iter()
        .filter_map(|l| MatchRecord::from_json(l.as_bytes()).ok())
        .collect();
    g.bench_function("content_hash", |b| {
        b.iter(|| records.iter().map(|r| r.content_hash().len()).sum::<usize>())
    });
    g.bench_function("parse_only", |b| {
        b.iter(|| {
            lines
                .iter()
                .filter(|l| MatchRecord::from_json(l.as_bytes()).is_ok())
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, scoring);
criterion_main!(benches);
