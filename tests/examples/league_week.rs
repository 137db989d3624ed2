//! Weeks of a simulated Mahjong Rivals population through `mahjong-league` on DynamoDB
//! Local: players earn points on `mahjong-weekly` (1 to 5 credits each, 16 at a time),
//! the week is frozen and closed; printed per week: cohort sizes, promotions,
//! relegations, and the requests and capacity units of the credits (with the
//! placements in their commits) and of the close.
//!
//! `scripts/league-week` runs it (`PODIUM_LEAGUE_PLAYERS`, default 10,000;
//! `PODIUM_LEAGUE_WEEKS`, default 2; `PODIUM_LEAGUE_RETURN_PERCENT`, default 80: the
//! share of players who play again the next week).

use chrono::{DateTime, Duration, Utc};
use futures::stream::{self, StreamExt};
use podium_rules::board::board_def;
use podium_rules::league::LEAGUES;
use podium_service::boards::periods;
use podium_service::players::leagues;
use podium_store::dynamo::{DynamoStore, UsageSnapshot};
use rand::{Rng, SeedableRng};

/// Points, and when they were earned.
type Credit = (i64, DateTime<Utc>);

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn cost(label: &str, before: UsageSnapshot, store: &DynamoStore) {
    let d = store.usage().since(&before);
    println!(
        "| {label} | {} | {:.1} | {:.1} |",
        d.requests,
        d.read_milli_units as f64 / 1000.0,
        d.write_milli_units as f64 / 1000.0
    );
}

#[tokio::main]
async fn main() {
    let players = env_number("PODIUM_LEAGUE_PLAYERS", 10_000);
    let weeks = env_number("PODIUM_LEAGUE_WEEKS", 2);
    let back = env_number("PODIUM_LEAGUE_RETURN_PERCENT", 80);
    let store = podium_tests::fixtures::dynamodb().await;
    let weekly = board_def("mahjong-weekly").expect("registered");
    let league = &LEAGUES[0];
    let mut rng = rand::rngs::StdRng::seed_from_u64(14);
    // Monday 2026-11-23, noon in Bucharest (week 2026-W48).
    let first_monday = DateTime::parse_from_rfc3339("2026-11-23T10:00:00Z")
        .expect("instant")
        .to_utc();
    println!("{players} players, {weeks} weeks, {back}% return each week");
    for week_no in 0..weeks {
        let monday = first_monday + Duration::weeks(week_no as i64);
        let mut plan: Vec<(String, Vec<Credit>)> = Vec::new();
        for i in 0..players {
            if week_no > 0 && rng.random_range(0..100) >= back {
                continue;
            }
            let credits = (0..rng.random_range(1..=5))
                .map(|_| {
                    (
                        rng.random_range(5..=120),
                        monday + Duration::minutes(rng.random_range(0..6 * 24 * 60)),
                    )
                })
                .collect();
            plan.push((format!("lw-{i:05}"), credits));
        }
        let credits: usize = plan.iter().map(|(_, c)| c.len()).sum();
        let started = std::time::Instant::now();
        let before = store.usage();
        stream::iter(
            plan.iter()
                .flat_map(|(p, cs)| cs.iter().enumerate().map(move |(k, c)| (p, k, c))),
        )
        .for_each_concurrent(16, |(p, k, (points, at))| {
            let store = &store;
            async move {
                periods::credit(
                    store,
                    weekly,
                    p,
                    *points,
                    *at,
                    *at,
                    &format!("lw-{week_no}-{p}-{k}"),
                )
                .await
                .expect("credit");
            }
        })
        .await;
        let week = weekly.period_at(monday).id;
        println!(
            "\n## {week}: {} players, {credits} credits in {:.0} s\n\n| what | requests | read units | write units |\n|---|---|---|---|",
            plan.len(),
            started.elapsed().as_secs_f64()
        );
        cost(
            &format!("{credits} credits (with {} placements)", plan.len()),
            before,
            &store,
        );
        let end = monday + Duration::days(7);
        let before = store.usage();
        let (period, _) = periods::freeze_ended(&store, weekly, end)
            .await
            .expect("freeze")
            .expect("a weekly board");
        assert_eq!(period.id, week);
        cost("freeze the week's board (final snapshot)", before, &store);
        let before = store.usage();
        let report = leagues::close_week(&store, league, &week, end)
            .await
            .expect("close");
        cost(
            &format!("close the league week ({} results)", report.placed),
            before,
            &store,
        );
        let before = store.usage();
        let again = leagues::close_week(&store, league, &week, end)
            .await
            .expect("close again");
        cost("close it again (nothing sent)", before, &store);
        assert_eq!(again.sent, 0);
        println!(
            "\ncohort sizes (size: cohorts): {:?}\nplaced {}, promoted {}, relegated {}, messages {}",
            report.cohort_sizes, report.placed, report.promoted, report.relegated, report.sent
        );
        let mut tiers = std::collections::BTreeMap::new();
        for (size, n) in &report.cohort_sizes {
            *tiers.entry(*size >= 30).or_insert(0usize) += n;
        }
        println!(
            "full cohorts {}, others {}",
            tiers.get(&true).unwrap_or(&0),
            tiers.get(&false).unwrap_or(&0)
        );
    }
}
