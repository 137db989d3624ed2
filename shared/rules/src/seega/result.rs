//! Settling a scored match against the players' balances: the match result the
//! players see (the "+311" screen) and the ledger entries (GM-4).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::display::{format_delta, format_points};
use crate::game::Game;
use crate::message::Message;
use crate::seega::record::ValidMatch;
use crate::seega::{captured_lost, Scoring, Side, VoidReason};
use crate::settlement::{balance_change, LedgerSource, Settlement};

/// A match's settled result, stored once per match id and returned to every
/// later delivery of the same record (GM-3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchResult {
    pub match_id: String,
    pub game: Game,
    /// The instant the match ended (UTC); the result is dated by it.
    pub ended_at: DateTime<Utc>,
    /// `scored`, or `void` with `void_reason` set.
    pub status: MatchStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub void_reason: Option<VoidReason>,
    /// Both players, in the record's order.
    pub players: Vec<PlayerResult>,
}

/// Whether a match changed any balance.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    Scored,
    Void,
}

/// One player's line of a match result.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerResult {
    pub player_id: String,
    /// The player's name, avatar and country (PF-5): filled when the app reads it,
    /// empty (so absent) in what is stored.
    #[serde(default, flatten)]
    pub card: crate::profile::Card,
    /// `win` or `loss`; absent for a void match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    pub captured: u32,
    pub lost: u32,
    pub moves: u32,
    pub minutes: i64,
    /// Nominal points of SG-2/SG-3 (0 for a void match).
    pub points: i64,
    /// Points actually applied after the floor (SG-7).
    pub applied: i64,
    /// The balance after this match (points); absent for a void match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_after: Option<i64>,
    /// `points` as shown (DISP-4), e.g. `+311`.
    pub points_shown: String,
    /// `balance_after` as shown (DISP-1 … DISP-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_shown: Option<String>,
}

/// Settles a scored match against the two players' current balances (points, in the
/// record's player order), applying SG-7's floor to each.
pub fn settle(m: &ValidMatch, scoring: &Scoring, balances_before: [i64; 2]) -> Settlement<MatchResult> {
    match scoring {
        Scoring::Void(reason) => Settlement::result_only(MatchResult {
            match_id: m.match_id.clone(),
            game: m.game,
            ended_at: m.ended_at,
            status: MatchStatus::Void,
            void_reason: Some(*reason),
            players: m
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| PlayerResult {
                    card: Default::default(),
                    player_id: p.player_id.clone(),
                    side: None,
                    captured: captured_lost(m, i).0,
                    lost: captured_lost(m, i).1,
                    moves: p.moves,
                    minutes: m.duration_ms / 60_000,
                    points: 0,
                    applied: 0,
                    balance_after: None,
                    points_shown: format_delta(0),
                    balance_shown: None,
                })
                .collect(),
        }),
        Scoring::Decided(scores) => {
            let mut players = Vec::with_capacity(2);
            let mut balances = Vec::with_capacity(2);
            let mut ledger = Vec::with_capacity(2);
            for (s, before) in scores.iter().zip(balances_before) {
                let (change, entry) = balance_change(
                    &s.player_id,
                    m.game,
                    before,
                    s.points,
                    LedgerSource {
                        kind: "match",
                        id: &m.match_id,
                        rule: match s.side {
                            Side::Win => "SG-2",
                            Side::Loss => "SG-3",
                        },
                    },
                    m.ended_at,
                );
                let (applied, after) = (entry.applied, change.after);
                players.push(PlayerResult {
                    card: Default::default(),
                    player_id: s.player_id.clone(),
                    side: Some(s.side),
                    captured: s.captured,
                    lost: s.lost,
                    moves: s.moves,
                    minutes: s.minutes,
                    points: s.points,
                    applied,
                    balance_after: Some(after),
                    points_shown: format_delta(s.points),
                    balance_shown: Some(format_points(after)),
                });
                balances.push(change);
                ledger.push(entry);
            }
            // SG-12: a player whose balance reached a higher rank is told so.
            let messages = balances
                .iter()
                .filter_map(|c: &crate::settlement::BalanceChange| {
                    Message::rank_up("match", &m.match_id, c.before, c.after, m.ended_at)
                        .map(|msg| (c.player_id.clone(), msg))
                })
                .collect();
            Settlement {
                result: MatchResult {
                    match_id: m.match_id.clone(),
                    game: m.game,
                    ended_at: m.ended_at,
                    status: MatchStatus::Scored,
                    void_reason: None,
                    players,
                },
                balances,
                ledger,
                credits: Vec::new(),
                claims: Vec::new(),
                states: Vec::new(),
                messages,
                placements: Vec::new(),
            }
        }
    }
}

impl MatchResult {
    /// What this result says about each player for defined boards (BD-2, BD-12): the
    /// points applied (SG-2, SG-3, SG-7), the win and the moves; none for a void match.
    pub fn facts(&self) -> Vec<crate::board::feed::Fact> {
        if self.status == MatchStatus::Void {
            return Vec::new();
        }
        self.players
            .iter()
            .map(|p| crate::board::feed::Fact {
                player_id: p.player_id.clone(),
                game: self.game,
                kind: crate::board::feed::ResultKind::Match,
                at: self.ended_at,
                points: p.applied,
                won: p.side == Some(crate::seega::points::Side::Win),
                rated: true,
                moves: Some(p.moves),
                level: None,
                time_ms: None,
                rating: None,
            })
            .collect()
    }
}
