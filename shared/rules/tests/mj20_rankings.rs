//! MJ-20, MJ-21 as a property: for random histories of at least 10,000 counted
//! events over more than a year, crossing DST changes and 29 February 2028, every
//! AMR, weekly and daily value kept the way the service keeps it (each event's
//! credits when it arrives, possibly late; each local midnight taking the day that
//! left the AMR window off) equals a brute-force sum over the ledger, computed with
//! chrono-tz directly.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Datelike, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Europe::Bucharest;
use podium_rules::board::board_def;
use podium_rules::game::Game;
use podium_rules::period::day_start;
use podium_rules::settlement::credits_for;
use proptest::prelude::*;

/// One counted event: player, instant, points, and how late it arrives (seconds).
type Event = (u8, i64, i64, i64);

const PLAYERS: u8 = 20;
/// 1 December 2027 … about 16 months: DST in March and October 2028, 29 Feb 2028.
const SPAN_SECS: i64 = 486 * 86_400;
const LATE_SECS: i64 = 2 * 86_400;

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2027, 12, 1, 0, 0, 0).unwrap()
}

fn local_date(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&Bucharest).date_naive()
}

/// The brute force at `now`: each board's value per (period, player) from the
/// ledger of events arrived by then.
fn brute_force(
    ledger: &[(String, DateTime<Utc>, i64)],
    now: DateTime<Utc>,
) -> BTreeMap<(String, String, String), i64> {
    let today = local_date(now);
    let first = today - Days::new(364);
    let mut out = BTreeMap::new();
    for (player, at, points) in ledger {
        let day = local_date(*at);
        let week = day.iso_week();
        let keys = [
            ("mahjong-daily".to_string(), day.format("%Y-%m-%d").to_string()),
            (
                "mahjong-weekly".to_string(),
                format!("{:04}-W{:02}", week.year(), week.week()),
            ),
        ];
        for (board, period) in keys {
            *out.entry((board, period, player.clone())).or_insert(0) += points;
        }
        if first <= day && day <= today {
            *out.entry(("mahjong-amr".into(), "all".into(), player.clone()))
                .or_insert(0) += points;
        }
    }
    out.retain(|_, v| *v != 0);
    out
}

fn check(events: Vec<Event>) {
    let amr = board_def("mahjong-amr").expect("AMR board");
    let mut arrivals: Vec<(DateTime<Utc>, String, DateTime<Utc>, i64)> = events
        .into_iter()
        .map(|(p, offset, points, late)| {
            let at = start() + chrono::Duration::seconds(offset);
            (at + chrono::Duration::seconds(late), format!("p{p}"), at, points)
        })
        .collect();
    arrivals.sort();
    let mut kept: BTreeMap<(String, String, String), i64> = BTreeMap::new();
    // What each player has on the AMR from each local day (to take off when it leaves).
    let mut amr_days: HashMap<(String, NaiveDate), i64> = HashMap::new();
    let mut ledger = Vec::new();
    let mut next_midnight = day_start(Bucharest, local_date(start()) + Days::new(1));
    for (n, (arrival, player, at, points)) in arrivals.into_iter().enumerate() {
        // Every local midnight before this arrival moves the AMR window.
        while next_midnight <= arrival {
            if let Some(gone) = amr.expiring_day(next_midnight) {
                let players: Vec<String> = amr_days
                    .keys()
                    .filter(|(_, d)| *d == gone)
                    .map(|(p, _)| p.clone())
                    .collect();
                for p in players {
                    let points = amr_days.remove(&(p.clone(), gone)).unwrap_or(0);
                    *kept.entry(("mahjong-amr".into(), "all".into(), p)).or_insert(0) -= points;
                }
            }
            next_midnight = day_start(Bucharest, local_date(next_midnight) + Days::new(1));
        }
        for c in credits_for(Game::MahjongRivals, &player, points, at, arrival) {
            if c.board == "mahjong-amr" {
                *amr_days.entry((player.clone(), local_date(at))).or_insert(0) += points;
            }
            *kept
                .entry((c.board.to_string(), c.period, player.clone()))
                .or_insert(0) += points;
        }
        ledger.push((player, at, points));
        if n % 1_000 == 999 {
            let mut now_kept = kept.clone();
            now_kept.retain(|_, v| *v != 0);
            assert_eq!(now_kept, brute_force(&ledger, arrival), "after {} events", n + 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, ..ProptestConfig::default() })]

    #[test]
    fn mj_20_amr_weekly_and_daily_equal_a_brute_force_over_the_ledger(
        events in prop::collection::vec(
            (0..PLAYERS, 0..SPAN_SECS, 1..=100i64, 0..LATE_SECS),
            10_000..10_200,
        )
    ) {
        check(events);
    }
}
