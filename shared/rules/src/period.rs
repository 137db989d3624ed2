//! Board periods (GM-2, LB-5, LB-6): all-time, the local day and the ISO week of a
//! game's IANA zone, their UTC bounds, and the period clock every board response carries.
//!
//! A day starts at local midnight. Where midnight does not exist (a DST gap at
//! 00:00, as in America/Havana), the day starts at the first local instant that
//! does; where it exists twice, at the first. So a local day can be 23 or 25 hours
//! long, and consecutive periods always tile time: each one's end is the next one's start.

use chrono::{DateTime, Datelike, Days, IsoWeek, NaiveDate, NaiveTime, TimeZone, Utc, Weekday};
use chrono_tz::Tz;
use serde::Serialize;

use crate::error::RuleError;

/// How a board's values are grouped in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodKind {
    /// One period forever: id `all`.
    AllTime,
    /// The local day: id `2026-11-30`.
    Daily,
    /// The ISO week, Monday to Sunday: id `2026-W49` (year of the ISO week-year).
    Weekly,
}

/// How a board's clock runs, as the app is told (LB-6): a period kind, or a rolling
/// window (MJ-20's AMR: one period, whose window moves every local midnight).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    AllTime,
    Daily,
    Weekly,
    Rolling,
    /// A defined board reset by a cron expression in its zone (BD-6).
    Cron,
    /// A defined board's one-off window (BD-6).
    Window,
}

impl From<PeriodKind> for ClockKind {
    fn from(kind: PeriodKind) -> Self {
        match kind {
            PeriodKind::AllTime => ClockKind::AllTime,
            PeriodKind::Daily => ClockKind::Daily,
            PeriodKind::Weekly => ClockKind::Weekly,
        }
    }
}

/// One period of a board, in a zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Period {
    pub kind: PeriodKind,
    /// `all`, `2026-11-30` or `2026-W49`.
    pub id: String,
    /// The zone whose local midnights bound the period.
    pub zone: Tz,
    /// First instant of the period (UTC); `None` for all-time.
    pub start: Option<DateTime<Utc>>,
    /// First instant after the period (UTC, exclusive); `None` for all-time.
    pub end: Option<DateTime<Utc>>,
}

/// The LB-6 period clock: what a board response says about its period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PeriodClock {
    pub period: String,
    pub kind: ClockKind,
    /// IANA zone name, e.g. `Europe/Bucharest`.
    pub zone: String,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
    /// When this board next resets (= `end`); `None` for all-time.
    pub next_reset: Option<DateTime<Utc>>,
    /// For a rolling board (MJ-20's AMR, kind `rolling`, one period `all`): the local
    /// days its window sums, today included; `start`/`end` are then the window's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_days: Option<u32>,
}

/// The UTC instant a local date starts in `zone` (see the module notes on gaps and folds).
pub fn day_start(zone: Tz, date: NaiveDate) -> DateTime<Utc> {
    let midnight = date.and_time(NaiveTime::MIN);
    // A gap is at most a few hours; step forward a minute at a time until local time exists.
    for minutes in 0..=24 * 60 {
        let local = midnight + chrono::Duration::minutes(minutes);
        if let Some(t) = zone.from_local_datetime(&local).earliest() {
            return t.with_timezone(&Utc);
        }
    }
    // Unreachable for real zones: a whole local day cannot be missing. Fall back to UTC midnight.
    Utc.from_utc_datetime(&midnight)
}

/// The local date of an instant in `zone`.
pub fn local_date(zone: Tz, instant: DateTime<Utc>) -> NaiveDate {
    instant.with_timezone(&zone).date_naive()
}

fn week_id(week: IsoWeek) -> String {
    format!("{:04}-W{:02}", week.year(), week.week())
}

/// The years a period id may name (LB-5): podium's data starts in 2020, and ids
/// are four-digit years.
pub const PERIOD_YEARS: std::ops::RangeInclusive<i32> = 2020..=2099;

/// True when `s` is exactly `pattern` with each `9` standing for one ASCII digit.
fn shaped(s: &str, pattern: &str) -> bool {
    s.len() == pattern.len()
        && s.bytes().zip(pattern.bytes()).all(|(c, p)| match p {
            b'9' => c.is_ascii_digit(),
            p => c == p,
        })
}

impl Period {
    /// The period of `kind` in `zone` that contains `instant`.
    pub fn containing(kind: PeriodKind, zone: Tz, instant: DateTime<Utc>) -> Period {
        let date = local_date(zone, instant);
        match kind {
            PeriodKind::AllTime => Period::all_time(zone),
            PeriodKind::Daily => Period::day(zone, date),
            PeriodKind::Weekly => Period::week(zone, date.iso_week()),
        }
    }

    /// The all-time period.
    pub fn all_time(zone: Tz) -> Period {
        Period {
            kind: PeriodKind::AllTime,
            id: "all".to_string(),
            zone,
            start: None,
            end: None,
        }
    }

    fn day(zone: Tz, date: NaiveDate) -> Period {
        let next = date.checked_add_days(Days::new(1)).unwrap_or(date);
        Period {
            kind: PeriodKind::Daily,
            id: date.format("%Y-%m-%d").to_string(),
            zone,
            start: Some(day_start(zone, date)),
            end: Some(day_start(zone, next)),
        }
    }

    fn week(zone: Tz, week: IsoWeek) -> Period {
        let monday = NaiveDate::from_isoywd_opt(week.year(), week.week(), Weekday::Mon).unwrap_or_default();
        let next_monday = monday.checked_add_days(Days::new(7)).unwrap_or(monday);
        Period {
            kind: PeriodKind::Weekly,
            id: week_id(week),
            zone,
            start: Some(day_start(zone, monday)),
            end: Some(day_start(zone, next_monday)),
        }
    }

    /// The period named `id` (LB-5): `all`, or exactly `YYYY-MM-DD` (a real date) or
    /// `YYYY-Www` (a week the ISO year has), the year within [`PERIOD_YEARS`]. Every
    /// other spelling (`999-W01`, `0999-W01`, `-001-W01`, `2026-W1`, `+2026-11-30`) is
    /// refused, so a period has one id. Errors name the `period` parameter.
    pub fn parse(kind: PeriodKind, zone: Tz, id: &str) -> Result<Period, RuleError> {
        let bad = |what: &str| RuleError::new("period", "LB-5", what.to_string());
        let year_ok = |y: i32| {
            if PERIOD_YEARS.contains(&y) {
                Ok(())
            } else {
                Err(bad(&format!(
                    "years {} to {} only",
                    PERIOD_YEARS.start(),
                    PERIOD_YEARS.end()
                )))
            }
        };
        match kind {
            PeriodKind::AllTime if id == "all" => Ok(Period::all_time(zone)),
            PeriodKind::AllTime => Err(bad("this board has the single period `all`")),
            PeriodKind::Daily => {
                let date = Some(id)
                    .filter(|id| shaped(id, "9999-99-99"))
                    .and_then(|id| NaiveDate::parse_from_str(id, "%Y-%m-%d").ok())
                    .ok_or_else(|| {
                        if shaped(id, "9999-99-99") {
                            bad("no such date")
                        } else {
                            bad("a day is named like 2026-11-30")
                        }
                    })?;
                year_ok(date.year())?;
                Ok(Period::day(zone, date))
            }
            PeriodKind::Weekly => {
                let (year, week) = Some(id)
                    .filter(|id| shaped(id, "9999-W99"))
                    .and_then(|id| Some((id[..4].parse::<i32>().ok()?, id[6..].parse::<u32>().ok()?)))
                    .ok_or_else(|| bad("a week is named like 2026-W49"))?;
                year_ok(year)?;
                let monday = NaiveDate::from_isoywd_opt(year, week, Weekday::Mon)
                    .ok_or_else(|| bad("that year has no such ISO week"))?;
                Ok(Period::week(zone, monday.iso_week()))
            }
        }
    }

    /// The period right after this one (all-time: itself).
    pub fn next(&self) -> Period {
        match self.end {
            Some(end) => Period::containing(self.kind, self.zone, end),
            None => self.clone(),
        }
    }

    /// The period right before this one (all-time: itself).
    pub fn previous(&self) -> Period {
        match self.start {
            Some(start) => {
                Period::containing(self.kind, self.zone, start - chrono::Duration::milliseconds(1))
            }
            None => self.clone(),
        }
    }

    /// True when `instant` falls in the period.
    pub fn contains(&self, instant: DateTime<Utc>) -> bool {
        self.start.is_none_or(|s| s <= instant) && self.end.is_none_or(|e| instant < e)
    }

    /// True when the period is over at `now`: its board can be frozen (LB-5).
    pub fn is_over(&self, now: DateTime<Utc>) -> bool {
        self.end.is_some_and(|e| e <= now)
    }

    /// The LB-6 clock for this period.
    pub fn clock(&self) -> PeriodClock {
        PeriodClock {
            period: self.id.clone(),
            kind: self.kind.into(),
            zone: self.zone.name().to_string(),
            start: self.start,
            end: self.end,
            next_reset: self.end,
            window_days: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::{America, Europe, UTC};
    use proptest::prelude::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    /// GM-2: ISO week ids take the ISO week-year.
    #[test]
    fn iso_week_year() {
        let w = |s| Period::containing(PeriodKind::Weekly, UTC, utc(s)).id;
        assert_eq!(w("2025-12-30T12:00:00Z"), "2026-W01");
        assert_eq!(w("2027-01-02T12:00:00Z"), "2026-W53");
        assert_eq!(w("2026-11-30T00:00:00Z"), "2026-W49");
        let w53 = Period::parse(PeriodKind::Weekly, UTC, "2026-W53").unwrap();
        assert_eq!(w53.start, Some(utc("2026-12-28T00:00:00Z")));
        assert_eq!(w53.end, Some(utc("2027-01-04T00:00:00Z")));
        assert!(Period::parse(PeriodKind::Weekly, UTC, "2027-W53").is_err());
        assert!(Period::parse(PeriodKind::Weekly, UTC, "2026-49").is_err());
    }

    /// GM-2 / MJ-20: a Europe/Bucharest week ends at local midnight, 21:00Z once
    /// summer time has started (2027-03-28).
    #[test]
    fn bucharest_week_cutoff() {
        let w = |s| Period::containing(PeriodKind::Weekly, Europe::Bucharest, utc(s));
        assert_eq!(w("2027-03-28T20:59:59.999Z").id, "2027-W12");
        assert_eq!(w("2027-03-28T21:00:00.000Z").id, "2027-W13");
        assert_eq!(
            w("2027-03-28T20:59:59.999Z").end,
            Some(utc("2027-03-28T21:00:00Z"))
        );
        // The week began in winter time: Monday 2027-03-22 00:00 +02:00.
        assert_eq!(
            w("2027-03-28T20:59:59.999Z").start,
            Some(utc("2027-03-21T22:00:00Z"))
        );
    }

    /// GM-2: DST days last 23 and 25 hours.
    #[test]
    fn dst_day_lengths() {
        let len = |z, d| {
            let p = Period::parse(PeriodKind::Daily, z, d).unwrap();
            (p.end.unwrap() - p.start.unwrap()).num_hours()
        };
        assert_eq!(len(Europe::Bucharest, "2027-03-28"), 23);
        assert_eq!(len(Europe::Bucharest, "2027-10-31"), 25);
        assert_eq!(len(Europe::Bucharest, "2027-06-01"), 24);
        // Havana springs forward at midnight: the day starts at 01:00 local.
        let p = Period::parse(PeriodKind::Daily, America::Havana, "2026-03-08").unwrap();
        assert_eq!(p.start, Some(utc("2026-03-08T05:00:00Z")));
        assert_eq!((p.end.unwrap() - p.start.unwrap()).num_hours(), 23);
    }

    #[test]
    fn parse_round_trips_and_refuses() {
        let p = Period::parse(PeriodKind::Daily, UTC, "2026-11-30").unwrap();
        assert_eq!(p.id, "2026-11-30");
        assert_eq!(p.next().id, "2026-12-01");
        assert_eq!(p.previous().id, "2026-11-29");
        for bad in [
            "2026-11-31",
            "2026-1-30",
            "yesterday",
            "",
            "0999-01-01",
            "999-01-01",
            "+2026-11-30",
            "2026-11-30 ",
            "2019-12-31",
            "2100-01-01",
            "２０２６-11-30",
        ] {
            let e = Period::parse(PeriodKind::Daily, UTC, bad).unwrap_err();
            assert_eq!((e.field.as_str(), e.rule), ("period", "LB-5"), "{bad}");
        }
        for bad in [
            "0999-W01",
            "999-W01",
            "-001-W01",
            "2026-W1",
            "2026-W001",
            "2026-w49",
            "2026W49",
            "2019-W01",
            "2100-W01",
            "+026-W49",
            "2026-W00",
            "2026-W54",
            "2027-W53",
            "2026-W+9",
        ] {
            let e = Period::parse(PeriodKind::Weekly, UTC, bad).unwrap_err();
            assert_eq!((e.field.as_str(), e.rule), ("period", "LB-5"), "{bad}");
        }
        for good in ["2020-W01", "2026-W53", "2099-W52"] {
            assert_eq!(Period::parse(PeriodKind::Weekly, UTC, good).unwrap().id, good);
        }
        assert_eq!(
            Period::parse(PeriodKind::AllTime, UTC, "all")
                .unwrap()
                .clock()
                .next_reset,
            None
        );
    }

    proptest! {
        /// Periods tile time in every zone we use: the containing period holds the
        /// instant, the next one starts where it ends, and a day lasts 23 to 25 hours.
        #[test]
        fn periods_tile(secs in 0i64..4_102_444_800, zone in 0usize..4, weekly in any::<bool>()) {
            let zone = [UTC, Europe::Bucharest, America::Havana, America::Santiago][zone];
            let kind = if weekly { PeriodKind::Weekly } else { PeriodKind::Daily };
            let t = DateTime::from_timestamp(secs, 0).unwrap();
            let p = Period::containing(kind, zone, t);
            prop_assert!(p.contains(t), "{p:?} {t}");
            prop_assert_eq!(p.next().start, p.end);
            prop_assert_eq!(p.previous().end, p.start);
            let hours = (p.end.unwrap() - p.start.unwrap()).num_minutes() as f64 / 60.0;
            let (lo, hi) = if weekly { (167.0, 169.0) } else { (23.0, 25.0) };
            prop_assert!((lo..=hi).contains(&hours), "{p:?} lasts {hours} h");
            if PERIOD_YEARS.contains(&p.id[..4].parse::<i32>().unwrap()) {
                prop_assert_eq!(Period::parse(kind, zone, &p.id).unwrap(), p);
            }
        }
    }
}
