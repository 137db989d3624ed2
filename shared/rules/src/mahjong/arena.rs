//! The Arena (MJ-11): 4 players, 3 rounds; final places by the sum of the round
//! scores (MJ-9, MJ-9a); prizes 80 / 40 / 20 / 0 points, players with equal sums
//! sharing the prizes of the places they occupy, split equally and rounded down
//! (MJ-11's Decision). Prizes are account points: they go to the balance and ledger
//! and count on the AMR, weekly and daily boards of the Arena's Bucharest date
//! (MJ-20, MJ-21). Jokers the rounds used are spent from each account (MJ-6).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::jokers::{Jokers, JOKERS_STATE};
use super::places::{places, shares};
use super::round::{self, Round};
use crate::error::RuleError;
use crate::game::Game;
use crate::settlement::{balance_change, LedgerSource, Planned, Settlement, StateChange};

/// The game of the Arena.
pub const GAME: Game = Game::MahjongRivals;

/// The `kind` of an Arena record (with `game` `mahjong-rivals`), and the ledger
/// source of its prizes.
pub const KIND: &str = "arena";

/// Players in an Arena (MJ-11).
pub const PLAYERS: usize = 4;

/// Rounds in an Arena (MJ-11).
pub const ROUNDS: usize = 3;

/// Prizes by place (MJ-11), in points.
pub const PRIZES: [i64; PLAYERS] = [80, 40, 20, 0];

/// A finished Arena, as the game server reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arena {
    /// The game server's id for the Arena: the idempotency key (GM-3).
    pub arena_id: String,
    /// When it ended (UTC): the instant its prizes are dated by (MJ-20).
    pub ended_at: DateTime<Utc>,
    /// The 4 accounts, each once.
    pub players: Vec<String>,
    /// The 3 rounds, each with one log per player.
    pub rounds: Vec<Round>,
}

/// One player's end of an Arena.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaStanding {
    pub player_id: String,
    /// Round scores, round by round (MJ-9).
    pub round_scores: Vec<i64>,
    /// Their sum.
    pub total: i64,
    /// 1-based; tied players share the best place of their run.
    pub place: u32,
    /// Points won (MJ-11).
    pub prize: i64,
    /// The Mahjong Rivals balance afterwards (points); `None` when no prize.
    pub balance_after: Option<i64>,
}

/// The answer to an Arena, stored with it (GM-3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaResult {
    pub arena_id: String,
    /// When the Arena ended, as its record states (UTC): the instant it counts at on
    /// defined boards (BD-6). Absent on results stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
    /// Best first; tied players in account-id order.
    pub standings: Vec<ArenaStanding>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArenaLine {
    arena_id: String,
    game: String,
    kind: String,
    #[serde(deserialize_with = "crate::record::instant::deserialize")]
    ended_at: DateTime<Utc>,
    players: Vec<String>,
    rounds: Vec<Round>,
}

impl Arena {
    /// Parses and checks one Arena record (GM-5): `game` `mahjong-rivals`, `kind`
    /// `arena`, ids, 4 distinct players, 3 rounds each with one valid log per player
    /// ([`round::check`]: MJ-6, MJ-10), `ended_at` within the policy's clock skew and record age of `now` (GM-5).
    /// Errors name the field.
    pub fn from_json(
        bytes: &[u8],
        now: DateTime<Utc>,
        policy: &crate::record::policy::RecordPolicy,
    ) -> Result<Arena, RuleError> {
        let line: ArenaLine = crate::record::lines::parse_line(bytes)?;
        super::records::check_route(&line.game, &line.kind, KIND, "an Arena")?;
        crate::record::ids::check_id("arena_id", &line.arena_id)?;
        super::records::check_instant("ended_at", line.ended_at, now, policy)?;
        let a = Arena {
            arena_id: line.arena_id,
            ended_at: line.ended_at,
            players: line.players,
            rounds: line.rounds,
        };
        validate(&a)?;
        Ok(a)
    }
}

/// Checks an Arena's players and rounds (MJ-11, MJ-6, MJ-10, GM-5), naming the field.
pub fn validate(a: &Arena) -> Result<(), RuleError> {
    if a.players.len() != PLAYERS {
        return Err(RuleError::new(
            "players",
            "MJ-11",
            format!("an Arena has {PLAYERS} players, not {}", a.players.len()),
        ));
    }
    for (i, p) in a.players.iter().enumerate() {
        crate::record::ids::check_player_id(&format!("players[{i}]"), p)?;
    }
    crate::record::lines::check_once(a.players.iter().map(String::as_str), |i| format!("players[{i}]"))?;
    if a.rounds.len() != ROUNDS {
        return Err(RuleError::new(
            "rounds",
            "MJ-11",
            format!("an Arena has {ROUNDS} rounds, not {}", a.rounds.len()),
        ));
    }
    let players: Vec<&str> = a.players.iter().map(String::as_str).collect();
    for (r, rd) in a.rounds.iter().enumerate() {
        round::check(rd, &players, None, &format!("rounds[{r}]"))?;
    }
    Ok(())
}

/// The standings of a valid Arena (MJ-9, MJ-11): sums, places and prizes, best
/// first (tied players by account id); no balances yet.
pub fn standings(a: &Arena) -> Vec<ArenaStanding> {
    let mut rows: Vec<ArenaStanding> = a
        .players
        .iter()
        .map(|p| {
            let round_scores: Vec<i64> = a
                .rounds
                .iter()
                .map(|rd| {
                    rd.logs
                        .iter()
                        .find(|l| &l.player_id == p)
                        .map_or(0, |l| round::score(&l.events))
                })
                .collect();
            ArenaStanding {
                player_id: p.clone(),
                total: round_scores.iter().sum(),
                round_scores,
                place: 0,
                prize: 0,
                balance_after: None,
            }
        })
        .collect();
    rows.sort_by(|x, y| y.total.cmp(&x.total).then_with(|| x.player_id.cmp(&y.player_id)));
    let tied = |x: &ArenaStanding, y: &ArenaStanding| x.total == y.total;
    let prizes = shares(&rows, tied, &PRIZES);
    let placed = places(&rows, tied);
    for ((row, prize), place) in rows.iter_mut().zip(prizes).zip(placed) {
        row.prize = prize;
        row.place = place;
    }
    rows
}

/// What settling an Arena needs to know of its players, in the Arena's player order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ArenaAccounts {
    /// Mahjong Rivals balances (points).
    pub balances: Vec<i64>,
    /// Joker inventories (MJ-6).
    pub jokers: Vec<Jokers>,
}

/// Plans a valid Arena at server clock `now`: each prize to its winner's balance and
/// ledger and the boards of MJ-20 (MJ-21), and each account's Jokers spent (MJ-6).
/// Refuses Jokers an account does not hold, naming the field; then nothing is paid.
pub fn plan(
    a: &Arena,
    accounts: &ArenaAccounts,
    now: DateTime<Utc>,
) -> Result<Planned<ArenaResult>, RuleError> {
    let mut settlement = Settlement::result_only(ArenaResult {
        arena_id: a.arena_id.clone(),
        ended_at: Some(a.ended_at),
        standings: Vec::new(),
    });
    for (i, p) in a.players.iter().enumerate() {
        let mut held = accounts.jokers.get(i).copied().unwrap_or_default();
        let mut used = 0;
        for (r, rd) in a.rounds.iter().enumerate() {
            for (l, log) in rd.logs.iter().enumerate().filter(|(_, l)| &l.player_id == p) {
                held = held.spend(&format!("rounds[{r}].logs[{l}].jokers_used"), log.jokers_used)?;
                used += log.jokers_used;
            }
        }
        if used > 0 {
            settlement.states.push(StateChange {
                player_id: p.clone(),
                name: JOKERS_STATE.to_string(),
                body: serde_json::json!(held),
            });
        }
    }
    let mut rows = standings(a);
    for row in rows.iter_mut().filter(|r| r.prize > 0) {
        let i = a.players.iter().position(|p| p == &row.player_id).unwrap_or(0);
        let before = accounts.balances.get(i).copied().unwrap_or(0);
        let (change, entry) = balance_change(
            &row.player_id,
            GAME,
            before,
            row.prize,
            LedgerSource {
                kind: KIND,
                id: &a.arena_id,
                rule: "MJ-11",
            },
            a.ended_at,
        );
        row.balance_after = Some(change.after);
        settlement.balances.push(change);
        settlement.ledger.push(entry);
        settlement.credits.extend(crate::settlement::credits_for(
            GAME,
            &row.player_id,
            row.prize,
            a.ended_at,
            now,
        ));
    }
    settlement.result.standings = rows;
    Ok(Planned::Write(settlement))
}

impl ArenaResult {
    /// What this Arena, ended at `at`, says about each player for defined boards
    /// (BD-2, BD-12): the prize points (MJ-11).
    pub fn facts(&self, at: DateTime<Utc>) -> Vec<crate::board::feed::Fact> {
        self.standings
            .iter()
            .map(|s| crate::board::feed::Fact {
                player_id: s.player_id.clone(),
                game: GAME,
                kind: crate::board::feed::ResultKind::Arena,
                at,
                points: s.prize,
                won: false,
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
    use crate::mahjong::round::{RoundEvent, RoundLog};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    /// An Arena whose players' round scores are `scores[player][round]`, each made of
    /// plain pairs 10 s apart (100 each) and blocked clicks.
    fn arena(scores: [[i64; 3]; 4]) -> Arena {
        let players: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let rounds = (0..ROUNDS)
            .map(|r| Round {
                solved_at_ms: None,
                logs: players
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let n = (scores[i][r] / 100) as u64;
                        RoundLog {
                            player_id: p.clone(),
                            events: (1..=n)
                                .map(|k| RoundEvent::Pair {
                                    at_ms: k * 10_000,
                                    decisive: false,
                                })
                                .collect(),
                            jokers_used: 0,
                        }
                    })
                    .collect(),
            })
            .collect();
        Arena {
            arena_id: "ar-1".into(),
            ended_at: t("2027-07-18T21:30:00Z"),
            players,
            rounds,
        }
    }

    fn prizes(a: &Arena) -> Vec<(String, i64)> {
        let mut s: Vec<_> = standings(a).into_iter().map(|s| (s.player_id, s.prize)).collect();
        s.sort();
        s
    }

    /// MJ-11: the cases: [500, 500, 300, 100] → 60, 60, 20, 0; three tied
    /// first [400, 400, 400, 100] → 46 each; two tied third [500, 400, 200, 200] → 10 each.
    #[test]
    fn mj_11_prizes_with_ties() {
        let a = arena([[200, 200, 100], [100, 300, 100], [100, 100, 100], [0, 100, 0]]);
        assert_eq!(
            prizes(&a),
            [
                ("a".into(), 60),
                ("b".into(), 60),
                ("c".into(), 20),
                ("d".into(), 0)
            ]
        );
        let a = arena([[200, 200, 0], [400, 0, 0], [0, 0, 400], [100, 0, 0]]);
        assert_eq!(
            prizes(&a),
            [
                ("a".into(), 46),
                ("b".into(), 46),
                ("c".into(), 46),
                ("d".into(), 0)
            ]
        );
        let a = arena([[500, 0, 0], [0, 400, 0], [0, 0, 200], [100, 100, 0]]);
        assert_eq!(
            prizes(&a),
            [
                ("a".into(), 80),
                ("b".into(), 40),
                ("c".into(), 10),
                ("d".into(), 10)
            ]
        );
        let s = standings(&a);
        assert_eq!(s.iter().map(|s| s.place).collect::<Vec<_>>(), [1, 2, 3, 3]);
        assert_eq!(s[0].round_scores, [500, 0, 0]);
    }

    /// MJ-11, MJ-20, MJ-21: prizes are points on the balance, ledger and the three
    /// boards of the Arena's Bucharest date; nobody with 0 is paid.
    #[test]
    fn mj_11_mj_21_prizes_are_points_on_the_boards() {
        let a = arena([[500, 0, 0], [0, 400, 0], [0, 0, 200], [0, 0, 100]]);
        let accounts = ArenaAccounts {
            balances: vec![5, 0, 0, 0],
            jokers: vec![Jokers::default(); 4],
        };
        let Ok(Planned::Write(s)) = plan(&a, &accounts, a.ended_at) else {
            panic!("planned")
        };
        assert_eq!(s.balances.len(), 3, "d won 0: no balance change");
        assert_eq!((s.balances[0].player_id.as_str(), s.balances[0].after), ("a", 85));
        assert_eq!(s.ledger.len(), 3);
        assert!(s
            .credits
            .iter()
            .any(|c| c.board == "mahjong-daily" && c.period == "2027-07-19"));
        assert_eq!(s.credits.len(), 9);
        assert_eq!(s.result.standings[0].balance_after, Some(85));
    }

    /// MJ-6: Jokers used in the rounds are spent; more than held is refused, naming
    /// the round's log.
    #[test]
    fn mj_6_arena_jokers_are_spent() {
        let mut a = arena([[100, 100, 100], [0, 0, 0], [0, 0, 0], [0, 0, 0]]);
        a.rounds[0].logs[0].jokers_used = 2;
        a.rounds[2].logs[0].jokers_used = 1;
        let mut accounts = ArenaAccounts {
            balances: vec![0; 4],
            jokers: vec![
                Jokers { count: 3 },
                Jokers::default(),
                Jokers::default(),
                Jokers::default(),
            ],
        };
        let Ok(Planned::Write(s)) = plan(&a, &accounts, a.ended_at) else {
            panic!("planned")
        };
        assert_eq!(s.states.len(), 1);
        assert_eq!(s.states[0].body, serde_json::json!({"count": 0}));
        accounts.jokers[0] = Jokers { count: 2 };
        let e = plan(&a, &accounts, a.ended_at).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.rule),
            ("rounds[2].logs[0].jokers_used", "MJ-6")
        );
    }

    /// MJ-11, GM-5: an Arena of 3 players, 2 rounds or a repeated player is refused.
    #[test]
    fn mj_11_shape_is_checked() {
        let mut a = arena([[100, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]);
        assert!(validate(&a).is_ok());
        a.rounds.pop();
        assert_eq!(validate(&a).unwrap_err().field, "rounds");
        let mut a = arena([[100, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]);
        a.players[3] = "a".into();
        assert_eq!(validate(&a).unwrap_err().field, "players[3]");
        let mut a = arena([[100, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]);
        a.players.pop();
        assert_eq!(validate(&a).unwrap_err().rule, "MJ-11");
    }
}
