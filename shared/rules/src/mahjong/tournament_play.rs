//! A tournament's life as settlements (MJ-12 … MJ-17): the operator's configuration,
//! registrations, table results, and the prizes paid when it has ended. Pure: the
//! service reads what each plan takes and commits what it returns.
//!
//! Stored shapes: the tournament's [`TournamentState`] is a state item of the owner
//! [`tournament_owner`] (`@mahjong-tournament-{id}`, no account); each registration a
//! state item of the account ([`registration_state`]) and an entry of 0 TP on the
//! standings board ([`standings_board`]) at the registration's instant, which every
//! TP credit keeps, so the board lists MJ-16's final order.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::tournament::{self, FinalStanding, TablePlayer, Tournament, Trophy};
use crate::board::BoardRef;
use crate::error::RuleError;
use crate::game::Game;
use crate::settlement::{balance_change, BoardCredit, LedgerSource, Planned, Settlement, StateChange};

/// The game of tournaments.
pub const GAME: Game = Game::MahjongRivals;

/// The `kind` of a registration record.
pub const KIND_REGISTRATION: &str = "tournament-registration";
/// The `kind` of a table result record.
pub const KIND_TABLE: &str = "tournament-table";
/// The source kind of a tournament's configuration.
pub const KIND_CONFIG: &str = "tournament";
/// The source kind (and ledger source) of a final prize (MJ-16).
pub const KIND_PRIZE: &str = "tournament-prize";
/// The source kind of a tournament's status changes.
pub const KIND_STATUS: &str = "tournament-status";

/// The state item of a tournament.
pub const TOURNAMENT_STATE: &str = "mahjong-rivals/tournament";
/// The state item of an account's trophies (MJ-17).
pub const TROPHIES_STATE: &str = "mahjong-rivals/trophies";

/// The internal owner of a tournament's state item (`@mahjong-tournament-{id}`, never
/// an account: GM-5, [`crate::record::ids::internal_owner`]).
pub fn tournament_owner(tournament_id: &str) -> String {
    crate::record::ids::internal_owner(&["mahjong-tournament-", tournament_id].concat())
}

/// A tournament's standings board: total TP, highest first (MJ-16).
pub fn standings_board(tournament_id: &str) -> BoardRef {
    BoardRef::all_time(format!("mahjong-tournament-{tournament_id}"))
}

/// The account's state item of its registration for a tournament.
pub fn registration_state(tournament_id: &str) -> String {
    format!("mahjong-rivals/tournament/{tournament_id}")
}

/// The account's state item of the prize points it won in a week (MJ-17, MJ-20's week).
pub fn prize_week_state(week: &str) -> String {
    format!("mahjong-rivals/tournament-prizes/{week}")
}

/// The MJ-20 week (Bucharest) of an instant: `2027-W29`.
pub fn week_of(at: DateTime<Utc>) -> String {
    crate::period::Period::containing(crate::period::PeriodKind::Weekly, GAME.zone(), at).id
}

/// Where a tournament stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// Taking registrations (before its start), then table results.
    Open,
    /// Started with enough players.
    Running { registered: u64 },
    /// Fewer registered than its minimum at its start: nobody is paid (MJ-12, MJ-17).
    Cancelled { registered: u64 },
    /// Ended; no more table results; its final places are read after a wait.
    Closing { since_ms: i64 },
    /// The final places that win something, fixed once (MJ-16); their prizes are
    /// paid, each exactly once.
    Final { winners: Vec<Winner> },
}

/// A final place that wins a prize or the trophy (MJ-16, MJ-17).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = TournamentWinner))]
pub struct Winner {
    /// 1-based; no ties (MJ-16).
    pub place: u32,
    pub player_id: String,
    /// The player's name, avatar and country (PF-5): filled when the app reads it,
    /// empty (so absent) in what is stored.
    #[serde(default, flatten)]
    pub card: crate::profile::Card,
    pub tp: i64,
    /// Points.
    pub prize: i64,
}

/// A tournament as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentState {
    pub tournament: Tournament,
    #[serde(flatten)]
    pub status: Status,
}

/// An account's registration, as stored (its instant decides MJ-16's ties).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registered {
    pub registered_at_ms: i64,
}

/// An account's prize points of one week (MJ-17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WeekPrizes {
    pub points: i64,
}

/// An account's trophies (MJ-17).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Trophies {
    pub trophies: Vec<TrophyWon>,
}

/// One trophy: which tournament, and which kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrophyWon {
    pub tournament_id: String,
    pub trophy: Trophy,
}

/// Plans a tournament's configuration (MJ-12): its state, open.
pub fn plan_config(t: &Tournament) -> Result<Planned<TournamentState>, RuleError> {
    t.validate()?;
    let state = TournamentState {
        tournament: t.clone(),
        status: Status::Open,
    };
    let mut s = Settlement::result_only(state.clone());
    s.states.push(StateChange {
        player_id: tournament_owner(&t.tournament_id),
        name: TOURNAMENT_STATE.to_string(),
        body: serde_json::json!(state),
    });
    Ok(Planned::Write(s))
}

/// A registration, as the game server reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registration {
    pub tournament_id: String,
    pub player_id: String,
    pub registered_at: DateTime<Utc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistrationLine {
    game: String,
    kind: String,
    tournament_id: String,
    player_id: String,
    #[serde(deserialize_with = "crate::record::instant::deserialize")]
    registered_at: DateTime<Utc>,
}

impl Registration {
    /// Parses and checks a registration record (GM-5), naming the field.
    pub fn from_json(
        bytes: &[u8],
        now: DateTime<Utc>,
        policy: &crate::record::policy::RecordPolicy,
    ) -> Result<Registration, RuleError> {
        let line: RegistrationLine = crate::record::lines::parse_line(bytes)?;
        super::records::check_route(
            &line.game,
            &line.kind,
            KIND_REGISTRATION,
            "a tournament registration",
        )?;
        crate::record::ids::check_id("tournament_id", &line.tournament_id)?;
        crate::record::ids::check_player_id("player_id", &line.player_id)?;
        super::records::check_instant("registered_at", line.registered_at, now, policy)?;
        Ok(Registration {
            tournament_id: line.tournament_id,
            player_id: line.player_id,
            registered_at: line.registered_at,
        })
    }

    /// Its idempotency key's id: one registration per account and tournament
    /// (`/` occurs in no id, so no two pairs give the same key).
    pub fn id(&self) -> String {
        format!("{}/{}", self.tournament_id, self.player_id)
    }
}

/// Plans a registration: refused for an unknown tournament, one that no longer takes
/// registrations or has started (MJ-12), or a Champions Tournament without 200 prize
/// points this week (`week_prizes`, MJ-17). Writes the account's registration and its
/// 0-TP entry on the standings board at the registration's instant.
pub fn plan_registration(
    r: &Registration,
    state: Option<&TournamentState>,
    week_prizes: WeekPrizes,
) -> Result<Planned<Registered>, RuleError> {
    let t = open(state, "tournament_id")?;
    if let Some(TournamentState {
        status: Status::Running { .. },
        ..
    }) = state
    {
        // Its registrations were counted at the start (MJ-12, MJ-17): none after.
        return Err(RuleError::new(
            "tournament_id",
            "MJ-12",
            "the tournament has started: registrations are closed",
        ));
    }
    if r.registered_at >= t.starts_at {
        return Err(RuleError::new(
            "registered_at",
            "MJ-12",
            format!(
                "{} is not before the start, {}: registrations close when the tournament starts",
                crate::record::policy::shown(r.registered_at),
                crate::record::policy::shown(t.starts_at)
            ),
        ));
    }
    if t.champions {
        tournament::check_champions_entry(week_prizes.points)?;
    }
    let registered = Registered {
        registered_at_ms: r.registered_at.timestamp_millis(),
    };
    let mut s = Settlement::result_only(registered);
    s.states.push(StateChange {
        player_id: r.player_id.clone(),
        name: registration_state(&r.tournament_id),
        body: serde_json::json!(registered),
    });
    s.credits.push(BoardCredit {
        board: standings_board(&r.tournament_id).board,
        period: "all".into(),
        player_id: r.player_id.clone(),
        points: 0,
        at: r.registered_at,
    });
    Ok(Planned::Write(s))
}

/// The tournament of an open (or running) state, else the refusal naming `field`.
fn open<'a>(state: Option<&'a TournamentState>, field: &str) -> Result<&'a Tournament, RuleError> {
    match state {
        None => Err(RuleError::new(
            field,
            "MJ-12",
            "no such tournament: an operator configures it first (`podium tournament FILE`)",
        )),
        Some(TournamentState {
            tournament,
            status: Status::Open | Status::Running { .. },
        }) => Ok(tournament),
        Some(TournamentState {
            status: Status::Cancelled { .. },
            ..
        }) => Err(RuleError::new(field, "MJ-12", "the tournament was cancelled")),
        Some(_) => Err(RuleError::new(field, "MJ-16", "the tournament has ended")),
    }
}

/// A table's result, as the game server reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub table_id: String,
    pub tournament_id: String,
    pub ended_at: DateTime<Utc>,
    pub players: Vec<TablePlayer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableLine {
    table_id: String,
    game: String,
    kind: String,
    tournament_id: String,
    #[serde(deserialize_with = "crate::record::instant::deserialize")]
    ended_at: DateTime<Utc>,
    players: Vec<TablePlayer>,
}

impl Table {
    /// Parses and checks a table result record (GM-5; MJ-12: 2–4 distinct players),
    /// naming the field.
    pub fn from_json(
        bytes: &[u8],
        now: DateTime<Utc>,
        policy: &crate::record::policy::RecordPolicy,
    ) -> Result<Table, RuleError> {
        let line: TableLine = crate::record::lines::parse_line(bytes)?;
        super::records::check_route(&line.game, &line.kind, KIND_TABLE, "a tournament table")?;
        crate::record::ids::check_id("table_id", &line.table_id)?;
        crate::record::ids::check_id("tournament_id", &line.tournament_id)?;
        for (i, p) in line.players.iter().enumerate() {
            crate::record::ids::check_player_id(&format!("players[{i}].player_id"), &p.player_id)?;
        }
        super::records::check_instant("ended_at", line.ended_at, now, policy)?;
        tournament::table_tp(&line.players, 1)?;
        Ok(Table {
            table_id: line.table_id,
            tournament_id: line.tournament_id,
            ended_at: line.ended_at,
            players: line.players,
        })
    }
}

/// The answer to a table result: each player's TP (after the multiplier).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableResult {
    pub table_id: String,
    pub tournament_id: String,
    /// (account, TP), in the table's order: each a pair `["alice", 90]`.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Vec<serde_json::Value>>, example = json!([["alice", 90], ["bob", 21]])))]
    pub tp: Vec<(String, i64)>,
}

/// Plans a table result (MJ-13 … MJ-15): refused for an unknown, cancelled or ended
/// tournament, a table that ended outside the tournament's play (MJ-10, MJ-12), or
/// an account not registered (`registered`, in the players' order). Credits each
/// player's TP to the standings board at their registration's instant (TP are not
/// points, MJ-21).
pub fn plan_table(
    t: &Table,
    state: Option<&TournamentState>,
    registered: &[Option<Registered>],
) -> Result<Planned<TableResult>, RuleError> {
    let tour = open(state, "tournament_id")?;
    if t.ended_at < tour.starts_at || t.ended_at > tour.ends_at {
        return Err(RuleError::new(
            "ended_at",
            "MJ-10",
            format!(
                "{} is not between the tournament's start, {}, and end, {}: a table counts only then",
                crate::record::policy::shown(t.ended_at),
                crate::record::policy::shown(tour.starts_at),
                crate::record::policy::shown(tour.ends_at)
            ),
        ));
    }
    let tp = tournament::table_tp(&t.players, tour.multiplier)?;
    let mut s = Settlement::result_only(TableResult {
        table_id: t.table_id.clone(),
        tournament_id: t.tournament_id.clone(),
        tp: Vec::new(),
    });
    for (i, (p, tp)) in t.players.iter().zip(tp).enumerate() {
        let Some(reg) = registered.get(i).copied().flatten() else {
            return Err(RuleError::new(
                format!("players[{i}].player_id"),
                "MJ-12",
                format!(
                    "{} is not registered for {}",
                    crate::error::quoted(&p.player_id),
                    crate::error::quoted(&t.tournament_id)
                ),
            ));
        };
        s.result.tp.push((p.player_id.clone(), tp));
        if tp > 0 {
            s.credits.push(BoardCredit {
                board: standings_board(&t.tournament_id).board,
                period: "all".into(),
                player_id: p.player_id.clone(),
                points: tp,
                at: DateTime::from_timestamp_millis(reg.registered_at_ms).unwrap_or(t.ended_at),
            });
        }
    }
    Ok(Planned::Write(s))
}

/// The winners of a finished tournament from its standings in MJ-16's order (as the
/// standings board lists them): a place for each prize, and the 1st for the trophy.
pub fn winners(t: &Tournament, ordered: &[FinalStanding]) -> Vec<Winner> {
    ordered
        .iter()
        .take(t.prizes.len().max(1))
        .enumerate()
        .map(|(i, s)| Winner {
            card: Default::default(),
            place: i as u32 + 1,
            player_id: s.player_id.clone(),
            tp: s.tp,
            prize: t.prizes.get(i).copied().unwrap_or(0),
        })
        .collect()
}

/// What paying one winner needs: their balance, this week's prize points, trophies.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WinnerAccount {
    pub balance: i64,
    pub week_prizes: WeekPrizes,
    pub trophies: Trophies,
}

/// The answer to a paid place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrizePaid {
    pub tournament_id: String,
    pub place: u32,
    pub player_id: String,
    pub prize: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trophy: Option<Trophy>,
    pub balance_after: i64,
}

/// The source id of a place's prize: exactly once per tournament and place.
pub fn prize_id(tournament_id: &str, place: u32) -> String {
    format!("{tournament_id}:{place}")
}

/// Plans paying `w` of `t` (MJ-16, MJ-17), dated at the tournament's end: the prize
/// as points (balance, ledger, the boards of MJ-20, MJ-21), the week's prize points
/// it adds (MJ-17), and for the 1st place the trophy.
pub fn plan_prize(
    t: &Tournament,
    w: &Winner,
    account: &WinnerAccount,
    now: DateTime<Utc>,
) -> Planned<PrizePaid> {
    let id = prize_id(&t.tournament_id, w.place);
    let at = t.ends_at;
    let (change, entry) = balance_change(
        &w.player_id,
        GAME,
        account.balance,
        w.prize,
        LedgerSource {
            kind: KIND_PRIZE,
            id: &id,
            rule: "MJ-16",
        },
        at,
    );
    let trophy = (w.place == 1).then(|| tournament::winners_trophy(t));
    let mut s = Settlement::result_only(PrizePaid {
        tournament_id: t.tournament_id.clone(),
        place: w.place,
        player_id: w.player_id.clone(),
        prize: w.prize,
        trophy,
        balance_after: change.after,
    });
    if w.prize > 0 {
        s.balances.push(change);
        s.ledger.push(entry);
        s.credits = crate::settlement::credits_for(GAME, &w.player_id, w.prize, at, now);
        s.states.push(StateChange {
            player_id: w.player_id.clone(),
            name: prize_week_state(&week_of(at)),
            body: serde_json::json!(WeekPrizes {
                points: account.week_prizes.points.saturating_add(w.prize)
            }),
        });
    }
    if let Some(trophy) = trophy {
        let mut trophies = account.trophies.clone();
        trophies.trophies.push(TrophyWon {
            tournament_id: t.tournament_id.clone(),
            trophy,
        });
        s.states.push(StateChange {
            player_id: w.player_id.clone(),
            name: TROPHIES_STATE.to_string(),
            body: serde_json::json!(trophies),
        });
    }
    Planned::Write(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn tour(champions: bool) -> Tournament {
        Tournament {
            tournament_id: "cup-1".into(),
            starts_at: t("2027-07-14T18:00:00Z"),
            ends_at: t("2027-07-14T19:00:00Z"),
            min_players: if champions { 16 } else { 2 },
            multiplier: 3,
            prizes: vec![100, 50],
            champions,
        }
    }

    fn state(champions: bool) -> TournamentState {
        TournamentState {
            tournament: tour(champions),
            status: Status::Open,
        }
    }

    fn reg(at: &str) -> Registration {
        Registration {
            tournament_id: "cup-1".into(),
            player_id: "a".into(),
            registered_at: t(at),
        }
    }

    /// MJ-12, MJ-16: a registration writes the account's instant and a 0-TP entry at
    /// that instant; after the start, or for an unknown or ended tournament, refused.
    #[test]
    fn mj_12_registrations_close_at_the_start() {
        let Ok(Planned::Write(s)) = plan_registration(
            &reg("2027-07-14T17:00:00Z"),
            Some(&state(false)),
            WeekPrizes::default(),
        ) else {
            panic!("planned")
        };
        assert_eq!(s.credits[0].points, 0);
        assert_eq!(s.credits[0].board, "mahjong-tournament-cup-1");
        assert_eq!(s.states[0].name, "mahjong-rivals/tournament/cup-1");
        let e = plan_registration(
            &reg("2027-07-14T18:00:00Z"),
            Some(&state(false)),
            WeekPrizes::default(),
        )
        .unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("registered_at", "MJ-12"));
        let e = plan_registration(&reg("2027-07-14T17:00:00Z"), None, WeekPrizes::default()).unwrap_err();
        assert_eq!(e.field, "tournament_id");
        let ended = TournamentState {
            status: Status::Closing { since_ms: 0 },
            ..state(false)
        };
        assert_eq!(
            plan_registration(&reg("2027-07-14T17:00:00Z"), Some(&ended), WeekPrizes::default())
                .unwrap_err()
                .rule,
            "MJ-16"
        );
    }

    /// MJ-12: once the tournament has started (its registrations counted), a
    /// registration claiming an earlier instant is refused all the same; registration
    /// keys of ids with `:` do not collide.
    #[test]
    fn mj_12_no_registration_once_running() {
        let running = TournamentState {
            status: Status::Running { registered: 2 },
            ..state(false)
        };
        let e = plan_registration(
            &reg("2027-07-14T17:00:00Z"),
            Some(&running),
            WeekPrizes::default(),
        )
        .unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("tournament_id", "MJ-12"));
        let key = |t: &str, p: &str| {
            Registration {
                tournament_id: t.into(),
                player_id: p.into(),
                registered_at: t_("2027-07-14T17:00:00Z"),
            }
            .id()
        };
        assert_ne!(key("a", "b:c"), key("a:b", "c"));
    }

    fn t_(s: &str) -> DateTime<Utc> {
        t(s)
    }

    /// MJ-17: 199 prize points this week refuse a Champions registration; 200 admit.
    #[test]
    fn mj_17_champions_registration_needs_200_prize_points() {
        let r = reg("2027-07-14T17:00:00Z");
        let e = plan_registration(&r, Some(&state(true)), WeekPrizes { points: 199 }).unwrap_err();
        assert_eq!(e.rule, "MJ-17");
        assert!(plan_registration(&r, Some(&state(true)), WeekPrizes { points: 200 }).is_ok());
    }

    /// MJ-13 … MJ-15, MJ-21: a table's TP credit the standings at each registration's
    /// instant, never points; an unregistered account or a table after the end is refused.
    #[test]
    fn mj_13_a_table_credits_tp_at_the_registration_instant() {
        let table = Table {
            table_id: "tb-1".into(),
            tournament_id: "cup-1".into(),
            ended_at: t("2027-07-14T18:30:00Z"),
            players: vec![
                TablePlayer {
                    player_id: "a".into(),
                    completed: true,
                    score: 1200,
                },
                TablePlayer {
                    player_id: "b".into(),
                    completed: false,
                    score: 900,
                },
                TablePlayer {
                    player_id: "c".into(),
                    completed: false,
                    score: 900,
                },
            ],
        };
        let r = |ms| Some(Registered { registered_at_ms: ms });
        let Ok(Planned::Write(s)) = plan_table(&table, Some(&state(false)), &[r(1), r(2), r(3)]) else {
            panic!("planned")
        };
        assert_eq!(
            s.result.tp,
            [("a".into(), 90), ("b".into(), 21), ("c".into(), 21)]
        );
        assert!(s.balances.is_empty() && s.ledger.is_empty(), "TP are not points");
        assert_eq!(s.credits[1].at.timestamp_millis(), 2);
        let e = plan_table(&table, Some(&state(false)), &[r(1), None, r(3)]).unwrap_err();
        assert_eq!(e.field, "players[1].player_id");
        let late = Table {
            ended_at: t("2027-07-14T19:00:01Z"),
            ..table
        };
        assert_eq!(
            plan_table(&late, Some(&state(false)), &[r(1), r(2), r(3)])
                .unwrap_err()
                .rule,
            "MJ-10"
        );
    }

    /// MJ-16, MJ-17: the winners get the prize list in order; the 1st also the trophy
    /// (a replica in the Champions Tournament); the week's prize points grow.
    #[test]
    fn mj_16_mj_17_prizes_and_trophies() {
        let s = |id: &str, tp| FinalStanding {
            player_id: id.into(),
            tp,
            registered_at_ms: 0,
        };
        let w = winners(&tour(true), &[s("a", 90), s("b", 60), s("c", 30)]);
        assert_eq!(w.len(), 2);
        assert_eq!((w[1].player_id.as_str(), w[1].prize), ("b", 50));
        let account = WinnerAccount {
            balance: 5,
            week_prizes: WeekPrizes { points: 150 },
            ..Default::default()
        };
        let Planned::Write(p) = plan_prize(&tour(true), &w[0], &account, t("2027-07-14T19:10:00Z")) else {
            panic!("planned")
        };
        assert_eq!(p.result.trophy, Some(Trophy::Replica));
        assert_eq!(p.result.balance_after, 105);
        assert_eq!(p.ledger[0].source, KIND_PRIZE);
        assert!(p
            .states
            .iter()
            .any(|st| st.name == "mahjong-rivals/tournament-prizes/2027-W28"
                && st.body == serde_json::json!({"points": 250})));
        let Planned::Write(p) = plan_prize(&tour(false), &w[1], &account, t("2027-07-14T19:10:00Z")) else {
            panic!("planned")
        };
        assert_eq!(p.result.trophy, None);
    }
}
