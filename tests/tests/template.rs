//! What cfn-lint cannot check in `template.yaml`: the schedules' time zones (GM-2).

use chrono_tz::Tz;
use podium_rules::board::BOARDS;
use podium_rules::period::PeriodKind;

fn template() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml")).expect("template.yaml")
}

/// Every `ScheduleExpressionTimezone` is an IANA zone, and every period board's zone
/// has a freeze schedule of its own (boards reset at local midnight, GM-2, LB-5).
#[test]
fn schedule_zones_are_iana_and_cover_every_period_board() {
    let text = template();
    let zones: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("ScheduleExpressionTimezone:"))
        .map(str::trim)
        .collect();
    assert!(!zones.is_empty());
    for z in &zones {
        assert!(z.parse::<Tz>().is_ok(), "{z} is not an IANA zone");
    }
    for b in BOARDS.iter().filter(|b| b.period != PeriodKind::AllTime) {
        assert!(
            zones.contains(&b.zone.name()),
            "no schedule in {} for {}",
            b.zone.name(),
            b.id
        );
    }
    assert!(text.contains(r#""job": "freeze""#));
}
