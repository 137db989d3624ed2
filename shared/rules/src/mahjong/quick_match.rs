//! Quick Match (MJ-7, MJ-8): only the winner gets points.
//!
//! Players are ordered by completion first (a completed board beats any score), then
//! by score. The single best player gets 20 with a completed board, else 15; losers
//! get 0, and so do players tied for first (nobody wins). If every player's score is
//! 0, nobody gets points.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::RuleError;
use crate::game::Game;
use crate::settlement::{balance_change, LedgerSource, Planned, Settlement};

/// The game of Quick Match.
pub const GAME: Game = Game::MahjongRivals;

/// The ledger source of Quick Match points.
pub const SOURCE: &str = "quick-match";

/// A finished Quick Match, as the game server reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuickMatch {
    /// The game server's id for the match: the idempotency key (GM-3).
    pub match_id: String,
    /// When it ended (UTC): the instant its points are dated by (MJ-20).
    pub ended_at: DateTime<Utc>,
    pub players: Vec<QuickMatchPlayer>,
}

/// The answer to a Quick Match, stored with it (GM-3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuickMatchResult {
    pub match_id: String,
    /// When it ended (UTC); absent on results stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
    /// The winner, if anybody won (MJ-7, MJ-8).
    pub winner: Option<String>,
    /// The winner's points: 20, 15, or 0 when nobody won.
    pub points: i64,
    /// The winner's Mahjong Rivals balance afterwards (points); `null` when nobody
    /// won, and for every reader but the winner.
    pub balance_after: Option<i64>,
    /// Every player in the record's order: completion, score, place and points
    /// (MJ-7, MJ-8); empty on results stored before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<QuickMatchStanding>,
}

/// One player's end of a Quick Match as the result shows it (MJ-7, MJ-8).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuickMatchStanding {
    pub player_id: String,
    /// The player's name, avatar and country (PF-5): filled when the app reads it,
    /// empty (so absent) in what is stored.
    #[serde(default, flatten)]
    pub card: crate::profile::Card,
    /// The player cleared the board.
    pub completed: bool,
    /// The round score (MJ-9; may be negative).
    pub score: i64,
    /// 1 + the players ordered before them (completion first, then score, MJ-7);
    /// players tied share a place.
    pub place: u32,
    /// Points won: the winner's 20 or 15, everybody else 0 (MJ-7, MJ-8).
    pub points: i64,
}

/// Every player's standing in `m` (MJ-7): `winner` is the index and points of the
/// winner, if any ([`winner`]).
fn standings(m: &QuickMatch, winner: Option<(usize, i64)>) -> Vec<QuickMatchStanding> {
    let key = |p: &QuickMatchPlayer| (p.completed, p.score);
    m.players
        .iter()
        .enumerate()
        .map(|(i, p)| QuickMatchStanding {
            player_id: p.player_id.clone(),
            card: Default::default(),
            completed: p.completed,
            score: p.score,
            place: 1 + m.players.iter().filter(|o| key(o) > key(p)).count() as u32,
            points: winner.filter(|(w, _)| *w == i).map_or(0, |(_, pts)| pts),
        })
        .collect()
}

/// The `kind` of a Quick Match record (with `game` `mahjong-rivals`).
pub const KIND: &str = "quick-match";

/// A Quick Match record line, as the game server sends it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QuickMatchLine {
    match_id: String,
    game: String,
    kind: String,
    #[serde(deserialize_with = "crate::record::instant::deserialize")]
    ended_at: DateTime<Utc>,
    players: Vec<QuickMatchPlayer>,
}

impl QuickMatch {
    /// Parses and checks one Quick Match record (GM-5): `game` `mahjong-rivals`,
    /// `kind` `quick-match`, ids, 2–4 distinct players (MJ-7; scores of any sign, MJ-9), `ended_at` within the policy's clock skew and record age of `now` (GM-5). Errors name the field.
    pub fn from_json(
        bytes: &[u8],
        now: DateTime<Utc>,
        policy: &crate::record::policy::RecordPolicy,
    ) -> Result<QuickMatch, RuleError> {
        let line: QuickMatchLine = crate::record::lines::parse_line(bytes)?;
        super::records::check_route(&line.game, &line.kind, KIND, "a Quick Match")?;
        crate::record::ids::check_id("match_id", &line.match_id)?;
        for (i, p) in line.players.iter().enumerate() {
            crate::record::ids::check_player_id(&format!("players[{i}].player_id"), &p.player_id)?;
        }
        super::records::check_instant("ended_at", line.ended_at, now, policy)?;
        winner(&line.players)?;
        Ok(QuickMatch {
            match_id: line.match_id,
            ended_at: line.ended_at,
            players: line.players,
        })
    }
}

/// Plans a Quick Match at server clock `now`, given each player's Mahjong Rivals
/// balance (points, in the players' order): the winner's points, ledger entry and
/// the credits of MJ-20; with no winner, only the match's record (so a repeat is
/// still recognised, GM-3). Refuses what [`winner`] refuses, and an empty match id.
pub fn plan(
    m: &QuickMatch,
    balances: &[i64],
    now: DateTime<Utc>,
) -> Result<Planned<QuickMatchResult>, RuleError> {
    if m.match_id.is_empty() {
        return Err(RuleError::new("match_id", "GM-3", "an id is required"));
    }
    let won = winner(&m.players)?;
    let Some((i, points)) = won else {
        return Ok(Planned::Write(Settlement::result_only(QuickMatchResult {
            match_id: m.match_id.clone(),
            ended_at: Some(m.ended_at),
            winner: None,
            points: 0,
            balance_after: None,
            players: standings(m, None),
        })));
    };
    let player = &m.players[i].player_id;
    let before = balances.get(i).copied().unwrap_or(0);
    let (change, entry) = balance_change(
        player,
        GAME,
        before,
        points,
        LedgerSource {
            kind: SOURCE,
            id: &m.match_id,
            rule: "MJ-7",
        },
        m.ended_at,
    );
    let result = QuickMatchResult {
        match_id: m.match_id.clone(),
        ended_at: Some(m.ended_at),
        winner: Some(player.clone()),
        points,
        balance_after: Some(change.after),
        players: standings(m, won),
    };
    Ok(Planned::Write(Settlement {
        result,
        balances: vec![change],
        ledger: vec![entry],
        credits: crate::settlement::credits_for(GAME, player, points, m.ended_at, now),
        claims: Vec::new(),
        states: Vec::new(),
        messages: Vec::new(),
        placements: Vec::new(),
    }))
}

/// Points of a winner with a completed board (MJ-7).
pub const COMPLETED_WIN_POINTS: i64 = 20;

/// Points of a winner without one (MJ-7).
pub const WIN_POINTS: i64 = 15;

/// Players in a Quick Match.
pub const PLAYERS: std::ops::RangeInclusive<usize> = 2..=4;

/// One player's end of a Quick Match, as the game server reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickMatchPlayer {
    pub player_id: String,
    /// The player cleared the board.
    pub completed: bool,
    /// The round score (MJ-9: may be negative, a blocked tile costs 100).
    pub score: i64,
}

/// The winner (index into the players) and their points, or `None` when nobody wins
/// (MJ-7, MJ-8). Scores may be negative (MJ-9): completion first, then the higher
/// score. Refuses 1 or more than 4 players, or a player twice, naming the field (GM-5).
pub fn winner(players: &[QuickMatchPlayer]) -> Result<Option<(usize, i64)>, RuleError> {
    if !PLAYERS.contains(&players.len()) {
        return Err(RuleError::new(
            "players",
            "MJ-7",
            format!("a Quick Match has 2 to 4 players, not {}", players.len()),
        ));
    }
    crate::record::lines::check_once(players.iter().map(|p| p.player_id.as_str()), |i| {
        format!("players[{i}].player_id")
    })?;
    if players.iter().all(|p| p.score == 0) {
        return Ok(None); // MJ-8
    }
    let key = |p: &QuickMatchPlayer| (p.completed, p.score);
    let best = players.iter().map(key).max();
    let mut leaders = players.iter().enumerate().filter(|(_, p)| Some(key(p)) == best);
    match (leaders.next(), leaders.next()) {
        (Some((i, p)), None) => Ok(Some((
            i,
            if p.completed {
                COMPLETED_WIN_POINTS
            } else {
                WIN_POINTS
            },
        ))),
        _ => Ok(None), // tied for first: nobody wins (MJ-7)
    }
}

impl QuickMatchResult {
    /// What this Quick Match, ended at `at`, says about each player for defined boards
    /// (BD-2, BD-12): the points (MJ-7, MJ-8) and the win.
    pub fn facts(&self, at: DateTime<Utc>) -> Vec<crate::board::feed::Fact> {
        self.players
            .iter()
            .map(|p| crate::board::feed::Fact {
                player_id: p.player_id.clone(),
                game: GAME,
                kind: crate::board::feed::ResultKind::QuickMatch,
                at: self.ended_at.unwrap_or(at),
                points: p.points,
                won: self.winner.as_deref() == Some(p.player_id.as_str()),
                rated: true,
                moves: None,
                level: None,
                time_ms: None,
                rating: None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: &str, completed: bool, score: i64) -> QuickMatchPlayer {
        QuickMatchPlayer {
            player_id: id.into(),
            completed,
            score,
        }
    }

    #[test]
    fn mj_7_a_completed_winner_gets_20_an_uncompleted_one_15() {
        assert_eq!(
            winner(&[p("a", true, 900), p("b", false, 700)]),
            Ok(Some((0, 20)))
        );
        assert_eq!(
            winner(&[p("a", false, 300), p("b", false, 700)]),
            Ok(Some((1, 15)))
        );
    }

    #[test]
    fn mj_7_completion_beats_a_higher_score() {
        let players = [p("a", false, 5_000), p("b", true, 1_200), p("c", false, 0)];
        assert_eq!(winner(&players), Ok(Some((1, 20))));
    }

    #[test]
    fn mj_7_tied_first_places_get_nothing() {
        let players = [p("a", false, 800), p("b", false, 800), p("c", false, 100)];
        assert_eq!(winner(&players), Ok(None));
        let players = [p("a", true, 800), p("b", true, 800)];
        assert_eq!(winner(&players), Ok(None));
    }

    /// MJ-9: round scores may be negative (a blocked tile costs 100): the higher score
    /// still wins, after completion (MJ-7); a 0 beside negatives is no MJ-8 case.
    #[test]
    fn mj_7_mj_9_negative_scores_rank_like_any_other() {
        assert_eq!(
            winner(&[p("a", false, -100), p("b", false, -300)]),
            Ok(Some((0, 15)))
        );
        assert_eq!(
            winner(&[p("a", false, -300), p("b", true, -900)]),
            Ok(Some((1, 20)))
        );
        assert_eq!(
            winner(&[p("a", false, 0), p("b", false, -100)]),
            Ok(Some((0, 15)))
        );
        assert_eq!(winner(&[p("a", false, -100), p("b", false, -100)]), Ok(None));
    }

    #[test]
    fn mj_8_all_scores_zero_gives_nobody_anything() {
        let players = [
            p("a", false, 0),
            p("b", false, 0),
            p("c", false, 0),
            p("d", false, 0),
        ];
        assert_eq!(winner(&players), Ok(None));
    }

    #[test]
    fn mj_7_two_to_four_distinct_players() {
        let e = winner(&[p("a", true, 1)]).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("players", "MJ-7"));
        let five: Vec<_> = (0..5).map(|i| p(&format!("p{i}"), false, i)).collect();
        assert_eq!(winner(&five).unwrap_err().field, "players");
        let e = winner(&[p("a", false, 3), p("a", false, 1)]).unwrap_err();
        assert_eq!(e.field, "players[1].player_id");
    }

    #[test]
    fn mj_7_mj_21_the_winner_is_credited_on_the_three_boards_and_nobody_else() {
        let at = DateTime::parse_from_rfc3339("2027-03-01T10:00:00Z")
            .unwrap()
            .to_utc();
        let m = QuickMatch {
            match_id: "qm-1".into(),
            ended_at: at,
            players: vec![p("a", false, 900), p("b", true, 400), p("c", false, 0)],
        };
        let Ok(Planned::Write(s)) = plan(&m, &[5, 7, 0], at) else {
            panic!("planned");
        };
        assert_eq!(s.result.winner.as_deref(), Some("b"));
        assert_eq!((s.result.points, s.result.balance_after), (20, Some(27)));
        assert_eq!(s.balances.len(), 1);
        assert_eq!(s.credits.len(), 3);
        assert!(s.credits.iter().all(|c| c.player_id == "b" && c.points == 20));
    }

    #[test]
    fn mj_8_no_winner_writes_only_the_record() {
        let at = DateTime::parse_from_rfc3339("2027-03-01T10:00:00Z")
            .unwrap()
            .to_utc();
        let m = QuickMatch {
            match_id: "qm-2".into(),
            ended_at: at,
            players: vec![p("a", false, 0), p("b", false, 0)],
        };
        let Ok(Planned::Write(s)) = plan(&m, &[5, 7], at) else {
            panic!("planned");
        };
        assert_eq!((s.result.winner, s.result.points), (None, 0));
        assert!(s.balances.is_empty() && s.ledger.is_empty() && s.credits.is_empty());
    }

    #[test]
    fn gm_5_a_quick_match_record_is_checked_field_by_field() {
        let now = DateTime::parse_from_rfc3339("2027-03-01T10:00:00Z")
            .unwrap()
            .to_utc();
        let line = |players: &str, extra: &str| {
            format!(
                r#"{{"match_id":"qm-1","game":"mahjong-rivals","kind":"quick-match","ended_at":"2027-03-01T09:59:00Z","players":{players}{extra}}}"#
            )
        };
        let two = r#"[{"player_id":"a","completed":true,"score":900},{"player_id":"b","completed":false,"score":0}]"#;
        let m = QuickMatch::from_json(
            line(two, "").as_bytes(),
            now,
            &crate::record::policy::RecordPolicy::default(),
        )
        .expect("valid");
        assert_eq!(m.players.len(), 2);
        let refused = |text: String| {
            QuickMatch::from_json(
                text.as_bytes(),
                now,
                &crate::record::policy::RecordPolicy::default(),
            )
            .unwrap_err()
        };
        assert_eq!(refused(line(two, r#","extra":1"#)).field, "record");
        assert_eq!(
            refused(line(r#"[{"player_id":"a","completed":true,"score":1}]"#, "")).field,
            "players"
        );
        assert_eq!(
            refused(line(r#"[{"player_id":"a","completed":true,"score":1},{"player_id":"b","completed":"no","score":1}]"#, "")).field,
            "players[1].completed"
        );
        assert_eq!(refused(line(two, "").replace("09:59", "10:06")).field, "ended_at");
        let negative = r#"[{"player_id":"a","completed":false,"score":-100},{"player_id":"b","completed":false,"score":-300}]"#;
        let m = QuickMatch::from_json(
            line(negative, "").as_bytes(),
            now,
            &crate::record::policy::RecordPolicy::default(),
        )
        .expect("MJ-9: negative scores");
        assert_eq!(winner(&m.players), Ok(Some((0, WIN_POINTS))));
        assert_eq!(
            refused(line(two, "").replace("quick-match", "level")).field,
            "kind"
        );
    }
}

#[cfg(test)]
mod record_bounds {
    //! GM-5 bounds of every Mahjong record (`super::super::records`), read through a Quick Match.
    use super::*;
    use crate::record::policy::RecordPolicy;
    use chrono::DateTime;

    fn line(ended_at: &str) -> Vec<u8> {
        format!(
            r#"{{"match_id":"qm-1","game":"mahjong-rivals","kind":"quick-match","ended_at":"{ended_at}","players":[{{"player_id":"a","completed":true,"score":1}},{{"player_id":"b","completed":false,"score":0}}]}}"#
        )
        .into_bytes()
    }

    /// GM-5: Mahjong instants are strict RFC 3339, not older than 30 days (so never of
    /// a day the AMR has let go, MJ-20), not before 2020, not ahead beyond the skew.
    #[test]
    fn gm_5_mahjong_instants_are_strict_and_recent() {
        let now = DateTime::parse_from_rfc3339("2027-07-18T12:00:00Z")
            .unwrap()
            .to_utc();
        let policy = RecordPolicy::default();
        let parse = |at: &str| QuickMatch::from_json(&line(at), now, &policy).map_err(|e| (e.field, e.rule));
        assert!(parse("2027-07-18T11:00:00Z").is_ok());
        assert!(parse("2027-06-19T12:00:00Z").is_ok(), "29 days late");
        for bad in [
            "2027-06-17T12:00:00Z",
            "1970-01-01T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "2027-07-18T12:05:01Z",
            "2027-07-18 11:00:00Z",
            "2027-07-18t11:00:00z",
            "+2027-07-18T11:00:00Z",
            "2016-12-31T23:59:60Z",
        ] {
            assert_eq!(parse(bad), Err(("ended_at".to_string(), "GM-5")), "{bad}");
        }
    }

    /// GM-5: the record age is configuration ([`RecordPolicy::max_record_age_days`]):
    /// a record 45 days old is refused by default and accepted at 60 days; the age is
    /// held below the AMR window whatever is configured (MJ-20).
    #[test]
    fn gm_5_the_record_age_is_configuration() {
        let now = DateTime::parse_from_rfc3339("2027-07-18T12:00:00Z")
            .unwrap()
            .to_utc();
        let old = line("2027-06-03T12:00:00Z");
        let e = QuickMatch::from_json(&old, now, &RecordPolicy::default()).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("ended_at", "GM-5"));
        assert!(e.message.contains("30 days"), "{}", e.message);
        let wide = RecordPolicy {
            max_record_age_days: 60,
            ..RecordPolicy::default()
        };
        assert!(QuickMatch::from_json(&old, now, &wide).is_ok());
        let too_wide = RecordPolicy {
            max_record_age_days: 10_000,
            ..RecordPolicy::default()
        };
        let a_year = line("2026-07-17T12:00:00Z");
        assert!(QuickMatch::from_json(&a_year, now, &too_wide).is_err());
    }
}
