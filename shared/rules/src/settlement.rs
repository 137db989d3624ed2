//! Settlements (GM-3, GM-4): what one source of points changes, computed by the
//! rules from what was read, and committed by the store in one atomic write. Every
//! source (a match, an ad reward, a daily bonus, a period-board credit) becomes one.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::board::feed::{Fact, ResultKind};
use crate::board::BOARDS;
use crate::game::Game;

/// One change of points (GM-4). A balance equals the sum of its entries' `applied`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    pub player_id: String,
    pub game: Game,
    /// What earned the points: `match`, `ad`, `bonus`, …
    pub source: String,
    /// The source's id (the match id, the ad network's transaction id, …); unique per
    /// (player, game, source).
    pub source_id: String,
    /// When the points were earned (UTC): the event's instant.
    pub at: DateTime<Utc>,
    /// The delta before the floor (points).
    pub nominal: i64,
    /// The delta applied (points; SG-7).
    pub applied: i64,
    /// The balance after this entry (points).
    pub balance_after: i64,
    /// The rule that computed `nominal` (`SG-2`, `MJ-18`, …); empty on entries written
    /// before entries carried it.
    #[serde(default)]
    pub rule: String,
    /// The entry's place in the settlement order of the player's balance on `game`
    /// (GM-4): the balance's version after this entry (1, 2, …), so `balance_after`
    /// follows `seq` whatever the events' instants; 0 on entries written before it was
    /// recorded, and on a planned entry before the commit path numbers it.
    #[serde(default)]
    pub seq: u64,
    /// When the entry was settled (server clock, UTC): the balance was `balance_after`
    /// from then on. `None` on entries written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_at: Option<DateTime<Utc>>,
    /// Why, when a person decided it (an operator's correction, OP-1): shown to the
    /// player in their point history. `None` on entries the rules computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a ledger entry is for (GM-4): the source's kind and id, and the rule id that
/// computed its delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerSource<'a> {
    /// `match`, `ad`, `bonus`, `level`, …
    pub kind: &'a str,
    /// The source's id (unique per player, game and kind).
    pub id: &'a str,
    /// The rule id, e.g. `SG-2` (a win) or `SG-3` (a loss).
    pub rule: &'static str,
}

/// A player's balance change (points) that a settlement asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceChange {
    pub player_id: String,
    pub game: Game,
    /// The balance the change was computed from (points).
    pub before: i64,
    /// The balance after it (points, ≥ 0).
    pub after: i64,
    /// When the event that changed it happened (UTC; LB-2's "reached first").
    pub at: DateTime<Utc>,
}

/// Points credited to one period board (MJ-20, MJ-21): `points` (of either sign; a
/// value never goes below 0) to `player_id` on `board` in `period`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardCredit {
    /// The board's id (LB-1), e.g. `mahjong-weekly`.
    pub board: String,
    /// The period's id, e.g. `2026-W49`.
    pub period: String,
    pub player_id: String,
    pub points: i64,
    /// When the event that earned them happened (UTC).
    pub at: DateTime<Utc>,
}

/// A date-keyed once-a-day claim (SG-10, MJ-18, MJ-19): `kind` of `game` by
/// `player_id` on the local date `day` of the game's zone (GM-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimMark {
    pub player_id: String,
    pub game: Game,
    pub kind: &'static str,
    pub day: NaiveDate,
    /// What the claim records (shown when the day is claimed again).
    pub body: serde_json::Value,
}

/// A player's state item written by the settlement (a streak, an inventory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateChange {
    pub player_id: String,
    /// Which state, e.g. `mahjong-rivals/bonus-streak`.
    pub name: String,
    pub body: serde_json::Value,
}

/// Everything one source changes, and the result its callers see (GM-3: every
/// repeat of the source gets this result back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement<R> {
    pub result: R,
    pub balances: Vec<BalanceChange>,
    pub ledger: Vec<LedgerEntry>,
    pub credits: Vec<BoardCredit>,
    pub claims: Vec<ClaimMark>,
    pub states: Vec<StateChange>,
    /// Messages to players' inboxes (a new SG-12 rank), added in the same commit.
    pub messages: Vec<(String, crate::message::Message)>,
    /// League placements the commit makes besides players' first points of a week
    /// (the close of a week placing its members in the next week they scored in).
    pub placements: Vec<crate::league::Placement>,
}

/// What the rules plan for a source: a settlement to commit, or an answer that
/// writes nothing (a reward already paid that day, nothing to double).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Planned<R> {
    Write(Settlement<R>),
    Nothing(R),
}

impl<R> Settlement<R> {
    /// A settlement that writes nothing but its result (a void match).
    pub fn result_only(result: R) -> Self {
        Settlement {
            result,
            balances: Vec::new(),
            ledger: Vec::new(),
            credits: Vec::new(),
            claims: Vec::new(),
            states: Vec::new(),
            messages: Vec::new(),
            placements: Vec::new(),
        }
    }
}

impl<R> Settlement<R> {
    /// The facts this settlement brings besides its result's (BD-2): one
    /// [`ResultKind::Balance`] per balance it changes (the balance after, at the
    /// event's instant) and one [`ResultKind::Credit`] per credit it makes to the
    /// game's period boards (MJ-20: `credits_for` makes one per board, the same points
    /// at the same instant, taken here once, from the game's first board that is not
    /// rolling).
    pub fn facts(&self) -> Vec<Fact> {
        let plain = |player_id: &str, game: Game, kind: ResultKind, at, points| Fact {
            player_id: player_id.to_string(),
            game,
            kind,
            at,
            points,
            won: false,
            rated: false,
            moves: None,
            level: None,
            time_ms: None,
            rating: None,
        };
        let mut facts: Vec<Fact> = self
            .balances
            .iter()
            .map(|b| plain(&b.player_id, b.game, ResultKind::Balance, b.at, b.after))
            .collect();
        for c in &self.credits {
            let Some(def) = crate::board::board_def(&c.board) else {
                continue;
            };
            // Each credit is made once to every period board of the game in force (a
            // rolling one only while in its window): it is taken from the first board
            // that always has it.
            let first = BOARDS
                .iter()
                .find(|b| b.game == def.game && b.id != def.game.id() && b.window_days.is_none());
            if first.is_some_and(|b| b.id == def.id) {
                facts.push(plain(&c.player_id, def.game, ResultKind::Credit, c.at, c.points));
            }
        }
        facts
    }
}

/// The delta actually applied to a balance (SG-7, GM-4): `max(delta, −balance)`, so
/// the balance never goes below zero. `balance` is in points and is ≥ 0.
pub fn apply_floor(balance: i64, delta: i64) -> i64 {
    delta.max(-balance.max(0))
}

/// A change of `player_id`'s balance on `game` by `nominal` points (floor applied,
/// SG-7) from `before`, with its ledger entry (GM-4) for `source` at `at`.
pub fn balance_change(
    player_id: &str,
    game: Game,
    before: i64,
    nominal: i64,
    source: LedgerSource<'_>,
    at: DateTime<Utc>,
) -> (BalanceChange, LedgerEntry) {
    let applied = apply_floor(before, nominal);
    let after = before.saturating_add(applied);
    (
        BalanceChange {
            player_id: player_id.to_string(),
            game,
            before,
            after,
            at,
        },
        LedgerEntry {
            player_id: player_id.to_string(),
            game,
            source: source.kind.to_string(),
            source_id: source.id.to_string(),
            at,
            nominal,
            applied,
            balance_after: after,
            rule: source.rule.to_string(),
            seq: 0,
            settled_at: None,
            note: None,
        },
    )
}

/// The credits `points` earned by `player_id` on `game` at `at` make on the game's
/// period boards (MJ-20, MJ-21): one per board in the period of the event's local
/// date, a rolling board only while `at` is inside its window at `now`. A game's
/// balance board (`seega`) is its balance itself and gets none.
pub fn credits_for(
    game: Game,
    player_id: &str,
    points: i64,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Vec<BoardCredit> {
    BOARDS
        .iter()
        .filter(|b| b.game == game && b.id != game.id() && b.counts_at(at, now))
        .map(|b| BoardCredit {
            board: b.id.to_string(),
            period: b.period_at(at).id,
            player_id: player_id.to_string(),
            points,
            at,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BD-2: a settlement's balances and period-board credits are facts of their own
    /// kinds, taken by `balance` and `credits` only (a credit once, however many boards
    /// it reaches); `points` takes results only.
    #[test]
    fn bd_2_settlements_bring_balance_and_credit_facts() {
        use crate::board::definition::Source;
        let at = chrono::DateTime::parse_from_rfc3339("2027-05-10T22:30:00Z")
            .unwrap()
            .to_utc();
        let settlement = Settlement {
            balances: vec![BalanceChange {
                player_id: "p".into(),
                game: Game::MahjongRivals,
                before: 10,
                after: 30,
                at,
            }],
            credits: credits_for(Game::MahjongRivals, "p", 20, at, at),
            ..Settlement::result_only(())
        };
        assert_eq!(settlement.credits.len(), 3, "AMR, the week and the day");
        let facts = settlement.facts();
        let kinds: Vec<(ResultKind, i64)> = facts.iter().map(|f| (f.kind, f.points)).collect();
        assert_eq!(kinds, [(ResultKind::Balance, 30), (ResultKind::Credit, 20)]);
        assert_eq!(Source::Balance {}.value_of(&facts[0]), Some(30));
        assert_eq!(Source::Credits {}.value_of(&facts[1]), Some(20));
        assert_eq!(Source::Points {}.value_of(&facts[0]), None);
        assert_eq!(Source::Credits {}.value_of(&facts[0]), None);
    }

    /// MJ-20, MJ-21: Mahjong points credit the AMR, the week and the day of their
    /// local date; Seega's board is its balance.
    #[test]
    fn credits_go_to_the_games_period_boards() {
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        let at = t("2027-05-10T22:30:00Z"); // 2027-05-11 01:30 in Bucharest
        let c = credits_for(Game::MahjongRivals, "p", 20, at, at);
        let got: Vec<_> = c.iter().map(|c| (c.board.as_str(), c.period.as_str())).collect();
        assert_eq!(
            got,
            [
                ("mahjong-amr", "all"),
                ("mahjong-weekly", "2027-W19"),
                ("mahjong-daily", "2027-05-11")
            ]
        );
        assert!(credits_for(Game::Seega, "p", 40, at, at).is_empty());
    }

    /// SG-7: 50 − 123 applies −50; GM-4: the entry says so.
    #[test]
    fn floor_in_the_ledger() {
        let (c, e) = balance_change(
            "p",
            Game::Seega,
            50,
            -123,
            LedgerSource {
                kind: "match",
                id: "m-1",
                rule: "SG-3",
            },
            DateTime::UNIX_EPOCH,
        );
        assert_eq!((c.before, c.after), (50, 0));
        assert_eq!((e.nominal, e.applied, e.balance_after), (-123, -50, 0));
        assert_eq!(apply_floor(10, 40), 40);
    }
}
