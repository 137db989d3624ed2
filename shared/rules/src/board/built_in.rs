//! The built-in boards of LB-1 as the definitions they equal (BD-14): shipped with
//! podium, read-only, listed with the live-ops team's own definitions so that every
//! board is described in one language. A definition created from one of these (under
//! its own id) ranks the same players with the same values in the same order as the
//! built-in board, result for result (held by a test on both stores).
//!
//! What a definition does not express: the rolling window of `mahjong-amr` (MJ-20,
//! 365 local days that move every midnight) and the per-tournament standings
//! (`mahjong-tournament-{id}`, MJ-16), created by the tournaments themselves. The
//! built-in period boards' rewards are the period reward tables (LB-5), not a
//! definition's prizes.

use super::definition::{Definition, Direction, Entry, Operator, Schedule, Source, MAX_KEEP_PERIODS};
use super::{board_def, BoardDef};
use crate::game::Game;

/// The built-in board `id` as a definition: `seega`, `dots-and-boxes`, `minesweeper`,
/// `mahjong-weekly`, `mahjong-daily` and each level's time ranking (`mahjong-level-7`);
/// `None` for any other id (`mahjong-amr` and the tournaments included).
pub fn shipped(id: &str) -> Option<Definition> {
    let def: &BoardDef = board_def(id)?;
    let zone = def.zone.name().to_string();
    let (title, source, operator, order, schedule) = match def.id {
        "seega" | "dots-and-boxes" | "minesweeper" => (
            match def.game {
                Game::Seega => "Seega points",
                Game::DotsAndBoxes => "Dots and Boxes rating",
                _ => "Minesweeper duel rating",
            }
            .to_string(),
            Source::Balance {},
            Operator::Latest,
            Direction::HigherFirst,
            Schedule::AllTime,
        ),
        "mahjong-weekly" => (
            "Mahjong Rivals week".to_string(),
            Source::Credits {},
            Operator::Sum,
            Direction::HigherFirst,
            Schedule::Weekly { zone },
        ),
        "mahjong-daily" => (
            "Mahjong Rivals day".to_string(),
            Source::Credits {},
            Operator::Sum,
            Direction::HigherFirst,
            Schedule::Daily { zone },
        ),
        "mahjong-level" => {
            let level: u32 = id.strip_prefix("mahjong-level-")?.parse().ok()?;
            (
                format!("Mahjong Rivals level {level}: best time"),
                Source::BestTime { level },
                Operator::Best,
                Direction::LowerFirst,
                Schedule::AllTime,
            )
        }
        _ => return None,
    };
    Some(Definition {
        id: id.to_string(),
        title,
        game: def.game.id().to_string(),
        source,
        operator,
        order,
        tie_breaks: Vec::new(),
        schedule,
        keep_periods: MAX_KEEP_PERIODS,
        score_range: None,
        entry: Entry::default(),
        prizes: Vec::new(),
        teams: None,
    })
}

/// Every built-in board a definition expresses, in LB-1's order, the level rankings
/// by their first (`mahjong-level-1`; each level's is [`shipped`] with its number).
pub fn listed() -> Vec<Definition> {
    super::BOARDS
        .iter()
        .map(|b| b.id)
        .chain(["mahjong-level-1"])
        .filter_map(shipped)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Order, Unit};
    use crate::period::PeriodKind;

    /// BD-14: each shipped definition checks (BD-1 … BD-9 but the reserved id) and
    /// agrees with its built-in board on game, zone, periods, order and unit.
    #[test]
    fn bd_14_shipped_definitions_agree_with_the_registry() {
        let all = listed();
        let ids: Vec<&str> = all.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "seega",
                "dots-and-boxes",
                "minesweeper",
                "mahjong-weekly",
                "mahjong-daily",
                "mahjong-level-1"
            ]
        );
        for d in all.iter().chain(shipped("mahjong-level-11000").iter()) {
            let b = board_def(&d.id).expect("a built-in board");
            let copy = Definition {
                id: format!("copy-of-{}", d.id).chars().take(40).collect(),
                ..d.clone()
            };
            assert_eq!(copy.check().map(|g| g.id()), Ok(b.game.id()), "{}", d.id);
            assert_eq!(d.unit(), b.unit, "{}", d.id);
            let lower = matches!(b.order, Order::LowerFirst { .. });
            assert_eq!(d.order == Direction::LowerFirst, lower, "{}", d.id);
            let (kind, zone) = match &d.schedule {
                Schedule::AllTime => (PeriodKind::AllTime, None),
                Schedule::Daily { zone } => (PeriodKind::Daily, Some(zone.as_str())),
                Schedule::Weekly { zone } => (PeriodKind::Weekly, Some(zone.as_str())),
                other => panic!("{other:?}"),
            };
            assert_eq!(kind, b.period, "{}", d.id);
            if let Some(zone) = zone {
                assert_eq!(zone, b.zone.name(), "{}", d.id);
            }
        }
        assert_eq!(
            shipped("mahjong-level-11000").map(|d| d.source),
            Some(Source::BestTime { level: 11_000 })
        );
        assert!(
            shipped("mahjong-amr").is_none(),
            "a rolling window is no schedule"
        );
        assert!(shipped("mahjong-tournament-spring-cup").is_none());
        assert!(shipped("chess").is_none());
        assert_eq!(shipped("dots-and-boxes").map(|d| d.unit()), Some(Unit::Rating));
    }

    /// BD-6: a weekly and a daily schedule name their periods as the built-in boards
    /// do, in their zone.
    #[test]
    fn bd_6_daily_and_weekly_periods_are_named_as_built_in_ones() {
        let t = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        let at = t("2027-05-10T22:30:00Z"); // 2027-05-11 01:30 in Bucharest
        let week = shipped("mahjong-weekly").unwrap().schedule;
        let day = shipped("mahjong-daily").unwrap().schedule;
        let w = week.period_at(at).unwrap().unwrap();
        assert_eq!(w.id, board_def("mahjong-weekly").unwrap().period_at(at).id);
        assert_eq!(w.id, "2027-W19");
        assert_eq!(w.start, Some(t("2027-05-09T21:00:00Z")));
        let d = day.period_at(at).unwrap().unwrap();
        assert_eq!(d.id, "2027-05-11");
        assert_eq!(day.period_named("2027-05-11"), Ok(d));
        assert_eq!(week.period_named("2027-W19"), Ok(w));
        let bad = day.period_named("2027-W19").expect_err("not a day");
        assert_eq!((bad.field.as_str(), bad.rule), ("period", "BD-6"));
        let clock = day.clock(&day.period_at(at).unwrap().unwrap(), at);
        assert_eq!(clock.next_reset, Some(t("2027-05-11T21:00:00Z")));
        assert_eq!(clock.kind, crate::period::ClockKind::Daily);
    }
}
