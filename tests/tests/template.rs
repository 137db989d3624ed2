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

/// The resource blocks of the template: (logical id, its lines).
fn resources(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Resources:") {
            inside = true;
            continue;
        }
        if inside && !line.starts_with(' ') && !line.trim().is_empty() {
            inside = false;
        }
        if !inside {
            continue;
        }
        if let Some(id) = line
            .strip_prefix("  ")
            .filter(|l| !l.starts_with(' ') && !l.starts_with('#'))
        {
            out.push((id.trim_end_matches(':').to_string(), Vec::new()));
        } else if let Some((_, lines)) = out.last_mut() {
            lines.push(line.trim().to_string());
        }
    }
    out
}

/// Least privilege for logs: no function gets the managed AWSLambdaBasicExecutionRole
/// (logs on every group, `*`); each has an explicit role that may write only to the
/// log group its function logs to.
#[test]
fn each_function_logs_only_to_its_own_group() {
    let text = template();
    assert!(!text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|l| l.contains("AWSLambdaBasicExecutionRole")));
    let all = resources(&text);
    let functions: Vec<_> = all
        .iter()
        .filter(|(_, l)| l.iter().any(|l| l == "Type: AWS::Serverless::Function"))
        .collect();
    assert!(functions.len() >= 4);
    for (id, lines) in functions {
        assert!(
            !lines.iter().any(|l| l == "Policies:"),
            "{id}: inline Policies make SAM attach AWSLambdaBasicExecutionRole"
        );
        let role = lines
            .iter()
            .find_map(|l| l.strip_prefix("Role: !GetAtt "))
            .and_then(|r| r.strip_suffix(".Arn"))
            .unwrap_or_else(|| panic!("{id} has no explicit role"));
        let group = lines
            .iter()
            .find_map(|l| l.strip_prefix("LogGroup: !Ref "))
            .unwrap_or_else(|| panic!("{id} names no log group"));
        let (_, role_lines) = all
            .iter()
            .find(|(r, _)| r == role)
            .unwrap_or_else(|| panic!("role {role}"));
        let logs: Vec<&String> = role_lines
            .iter()
            .filter(|l| l.starts_with("Resource:"))
            .filter(|l| l.contains("LogGroup"))
            .collect();
        assert_eq!(
            logs,
            [&format!("Resource: !GetAtt {group}.Arn")],
            "{id}: {role_lines:?}"
        );
        assert!(!role_lines
            .iter()
            .any(|l| l.contains("logs:*") || l.contains("arn:aws:logs:*")));
    }
}

/// Every route the API answers is routed to a function by API Gateway (a route the
/// app calls must not be missing from the deployment).
#[test]
fn every_api_route_is_deployed() {
    let text = template();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for (method, path) in podium_service::api::routes() {
        let found = lines
            .windows(2)
            .any(|w| w[0] == format!("Method: {method}") && w[1] == format!("Path: {path}"));
        assert!(found, "{method} {path} is not in template.yaml");
    }
}

/// Every function has alarms on its errors and its throttles, and the dead-letter
/// queue's depth has one; every alarm notifies the alarm topic.
#[test]
fn every_function_and_the_dead_letter_queue_are_alarmed() {
    let text = template();
    let blocks = resources(&text);
    let functions: Vec<&String> = blocks
        .iter()
        .filter(|(_, lines)| {
            lines
                .iter()
                .any(|l| l.trim() == "Type: AWS::Serverless::Function")
        })
        .map(|(id, _)| id)
        .collect();
    assert!(functions.len() >= 8, "{functions:?}");
    let alarm_on = |metric: &str, target: &str| {
        blocks.iter().any(|(_, lines)| {
            let has = |s: &str| lines.iter().any(|l| l.trim() == s);
            has("Type: AWS::CloudWatch::Alarm")
                && has(&format!("MetricName: {metric}"))
                && has(target)
                && has("- !Ref AlarmTopic")
        })
    };
    for f in functions {
        for metric in ["Errors", "Throttles"] {
            assert!(
                alarm_on(metric, &format!("Value: !Ref {f}")),
                "no {metric} alarm on {f}"
            );
        }
    }
    // podium's own metric: settlements that gave up or failed, on every settling function.
    for f in [
        "ScoreMatchFunction",
        "AdRewardFunction",
        "DailyBonusFunction",
        "SnapshotFunction",
    ] {
        assert!(alarm_on("SettlementsFailed", &format!("Value: !Ref {f}")), "{f}");
    }
    assert!(alarm_on(
        "ApproximateNumberOfMessagesVisible",
        "Value: !GetAtt MatchesDeadLetterQueue.QueueName"
    ));
}
