//! The support console's read model: what an operator (support staff, never a
//! player) sees of one player to answer "why didn't my points change?" without a
//! database shell. Read only; nothing here writes.
//!
//! Routes (the HTTP router calls these functions; all GET, JSON, errors as the rest
//! of the API, `{"error": KIND, "message": TEXT}`):
//!
//! | route | function | answer |
//! |---|---|---|
//! | `GET /v1/operator/players/{player_id}` | [`player_overview`] | [`PlayerOverview`] |
//! | `GET /v1/operator/leaderboards/{board}?period=&limit=&cursor=` | `crate::api` (the same handler code) | the player-facing board page, byte for byte |
//!
//! Both first call [`require_operator`]: 401 without any identity, 403 for a plain
//! player. Locally `podium serve` takes the operator from the development header
//! `Authorization: Operator <name>` (unverified, loopback only). Deployed, the
//! operator is the verified JWT's `sub` when the JWT authorizer's claims carry the
//! operator scope or group (e.g. `scope` containing `podium/operator`, or
//! `cognito:groups` containing `operators`); a token without it is a player (403).
//! The route must also be added to `template.yaml` with that scope required.
//!
//! Reads of one overview (DynamoDB): 4 balance GetItems, 4 ledger Queries, one place
//! per board of [`BOARDS`] (as `/me` on that board with no neighbours) and up to
//! [`MAX_MATCHES`] match results (1 to 3 GetItems each). They are made concurrently:
//! the accounts together, then the places with the profile and the suspension, then
//! the match results 8 at a time, so an overview takes about three round trips and
//! the match results' share, not one per read (130 reads one after another took
//! 1.1 s on DynamoDB Local).

use chrono::{DateTime, Utc};
use futures::future::try_join_all;
use futures::StreamExt;
use podium_rules::board::{board_def, BOARDS};
use podium_rules::display::format_points;
use podium_rules::game::Game;
use podium_rules::seega::rank::rank_for;
use podium_rules::settlement::LedgerEntry;
use podium_store::{BoardStore, ItemStore, LedgerStore, PeriodStore, SettleStore};
use serde::Serialize;

use crate::boards::live::BoardPlace;
use crate::boards::pages::{self, SnapshotCache};
use crate::error::ServiceError;
use crate::games::results::MatchView;

/// The games an overview covers, in the order shown.
pub const GAMES: [Game; 4] = [
    Game::Seega,
    Game::DotsAndBoxes,
    Game::Minesweeper,
    Game::MahjongRivals,
];

/// At most this many match results are read for one overview (the most recent
/// ledger entries of matches first).
pub const MAX_MATCHES: usize = 20;

/// How many match results an overview reads at once.
const MATCH_READS_AT_ONCE: usize = 8;

/// Everything support needs about one player: per game the balance, its SG-12 rank
/// where the game has one, the ledger and the balance over time; the matches they
/// played (from the ledger's source ids); their place on every board now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PlayerOverview {
    pub player_id: String,
    /// Their name, avatar and country (PF-1 … PF-3), each absent when unset.
    pub profile: podium_rules::profile::Card,
    /// The instant the overview was read (UTC): the current periods are those of it.
    pub as_of: DateTime<Utc>,
    /// One per game of [`GAMES`], in that order, whether or not the player has an
    /// account there.
    pub games: Vec<GameOverview>,
    /// The player's place on every board of LB-1 in its current period (no `rank`
    /// where they have no entry yet), in [`BOARDS`] order.
    pub boards: Vec<BoardPlace>,
    /// Results of the matches in their ledger (Seega, Dots and Boxes, Minesweeper), most
    /// recent first, at most [`MAX_MATCHES`]; the same body `/v1/me/matches/{id}`
    /// gives the player.
    #[schema(value_type = Vec<Object>)]
    pub matches: Vec<MatchView>,
    /// The player's suspension (OP-4), while suspended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspension: Option<crate::moderation::suspensions::Suspension>,
}

/// One game's account of the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct GameOverview {
    #[schema(value_type = String, example = "seega")]
    pub game: Game,
    /// The balance (points; for Dots and Boxes and Minesweeper the Elo rating);
    /// `null` when the player has no account on this game.
    pub balance: Option<i64>,
    /// The balance as shown (DISP), `null` with it.
    pub balance_shown: Option<String>,
    /// The SG-12 rank of the balance (Seega only, and only with an account).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<RankView>,
    /// Every ledger entry (GM-4), oldest settled first (by `seq`): each row's
    /// `balance_after` is the next row's starting balance, whatever the events' instants.
    pub ledger: Vec<LedgerRow>,
    /// The balance after each ledger entry, oldest settled first, at the instant it was
    /// settled: the chart's points (what the balance was, and from when).
    pub series: Vec<BalancePoint>,
}

/// A Seega rank (SG-12), as `/v1/me` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct RankView {
    pub rank_id: &'static str,
    pub rank_name_en: &'static str,
    pub rank_name_ar: &'static str,
    pub badge: &'static str,
}

/// One ledger entry as support reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct LedgerRow {
    /// What earned the points: `match`, `ad`, `bonus`, `level`, `quick-match`, `arena`,
    /// `tournament-prize`, `dots-and-boxes`, `minesweeper`, `period-reward`.
    pub source: String,
    /// The source's id (match id, `network:transaction`, `player:day`, …).
    pub source_id: String,
    /// The rule that computed the delta, as the entry records it (as
    /// `/v1/me/ledger` shows it; for entries written before entries recorded it, the
    /// source's rule).
    pub rule: String,
    /// The delta the rule computed (points).
    pub nominal: i64,
    /// The delta applied to the balance (points; differs from `nominal` when the
    /// floor at zero, SG-7, cut it).
    pub applied: i64,
    /// True when `applied` differs from `nominal` (the SG-7 floor).
    pub floored: bool,
    /// The balance after this entry (points).
    pub balance_after: i64,
    /// When the points were earned: the event's instant (UTC). A late record's event
    /// lies before entries settled earlier.
    pub at: DateTime<Utc>,
    /// When the entry was settled (UTC): the balance was `balance_after` from then on;
    /// absent on entries written before it was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled_at: Option<DateTime<Utc>>,
    /// Its place in the settlement order of the balance (the balance's version after
    /// it; 0 on entries written before it was recorded).
    pub seq: u64,
}

/// One point of the balance-over-time chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct BalancePoint {
    /// When the balance took this value: the entry's settlement (UTC), or its event's
    /// instant on an entry written before settlements were recorded.
    pub at: DateTime<Utc>,
    /// The same instant in milliseconds since the Unix epoch (for charts).
    pub at_ms: i64,
    /// The balance after the entry (points).
    pub balance: i64,
}

/// Checks the caller of an operator route: the operator's name when there is one;
/// [`ServiceError::Forbidden`] (403) for a plain player, [`ServiceError::Unauthenticated`]
/// (401) without any identity. `operator` is the verified operator identity (locally
/// the `Authorization: Operator <name>` header), `player` the player identity.
pub fn require_operator<'a>(
    operator: Option<&'a str>,
    player: Option<&str>,
) -> Result<&'a str, ServiceError> {
    match (operator, player) {
        (Some(name), _) if podium_rules::record::ids::is_valid_id(name) => Ok(name),
        (None, Some(_)) => Err(ServiceError::Forbidden(
            "operator routes need an operator identity, not a player's".into(),
        )),
        _ => Err(ServiceError::Unauthenticated),
    }
}

/// The overview of `player_id` at `now` (see [`PlayerOverview`]).
/// [`ServiceError::Invalid`] naming `player_id` when the id is malformed or no account
/// (an internal owner, a pseudonym: GM-5, GM-6); [`ServiceError::NotFound`] when the
/// player has no balance
/// and no ledger entry on any game.
pub async fn player_overview<S>(
    store: &S,
    cache: &SnapshotCache,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<PlayerOverview, ServiceError>
where
    S: BoardStore + SettleStore + ItemStore + PeriodStore + LedgerStore + ?Sized,
{
    let unknown = || ServiceError::NotFound("no such player".to_string());
    // GM-5, GM-6: an internal owner or a pseudonym is refused by name, not looked up.
    podium_rules::record::ids::check_player_id("player_id", player_id)?;
    // Each game's balance and ledger, all at once (8 reads in the time of one).
    let accounts = try_join_all(GAMES.into_iter().map(|game| async move {
        let (balance, entries) = futures::try_join!(
            store.get_balance(game, player_id),
            store.ledger_entries(game, player_id)
        )?;
        Ok::<_, ServiceError>((game, balance.map(|b| b.points), entries))
    }))
    .await?;
    let mut games = Vec::with_capacity(GAMES.len());
    let mut known = false;
    let mut played: Vec<(DateTime<Utc>, String)> = Vec::new();
    for (game, balance, mut entries) in accounts {
        known |= balance.is_some() || !entries.is_empty();
        // GM-4: in settlement order, the order `balance_after` follows (entries written
        // before the order was recorded, seq 0, first by instant).
        entries.sort_by_key(|e| (e.seq, e.at));
        played.extend(
            entries
                .iter()
                .filter(|e| is_match_source(game, &e.source))
                .map(|e| (e.at, e.source_id.clone())),
        );
        games.push(game_overview(game, balance, entries));
    }
    if !known {
        return Err(unknown());
    }
    // The place on every board, the profile and the suspension, all at once.
    let places = try_join_all(BOARDS.iter().map(|def| async move {
        let board = def.in_period(&def.period_at(now));
        let place = pages::place(store, cache, &board, player_id, now).await?;
        Ok::<_, ServiceError>(BoardPlace::new(&board, place))
    }));
    let (boards, profile, suspension) = futures::try_join!(
        places,
        crate::profiles::cards::card(store, player_id),
        crate::moderation::suspensions::of_player(store, player_id)
    )?;
    // Most recent first; one id once (a match id is unique per game, and a player's
    // two games' matches never share an id in practice; the read finds the one they played).
    played.sort_by_key(|p| std::cmp::Reverse(p.0));
    let mut seen = std::collections::HashSet::new();
    played.retain(|(_, id)| seen.insert(id.clone()));
    // Read [`MATCH_READS_AT_ONCE`] at a time, in order; a result not found (aged out,
    // GM-5) is passed over and the next one read.
    let mut results = futures::stream::iter(
        played
            .into_iter()
            .map(|(_, id)| async move { crate::games::results::match_result(store, player_id, &id).await }),
    )
    .buffered(MATCH_READS_AT_ONCE);
    let mut matches = Vec::new();
    while matches.len() < MAX_MATCHES {
        match results.next().await {
            None => break,
            Some(Ok(view)) => matches.push(view),
            Some(Err(ServiceError::NotFound(_))) => {}
            Some(Err(e)) => return Err(e),
        }
    }
    Ok(PlayerOverview {
        player_id: player_id.to_string(),
        profile,
        as_of: now,
        games,
        boards,
        matches,
        suspension,
    })
}

/// Whether a ledger entry of `source` on `game` came from a match whose result
/// [`crate::games::results::match_result`] reads.
fn is_match_source(game: Game, source: &str) -> bool {
    match game {
        Game::Seega => source == crate::games::seega::MATCH,
        Game::DotsAndBoxes => source == podium_rules::dots_and_boxes::record::SOURCE,
        Game::Minesweeper => source == podium_rules::minesweeper::record::SOURCE,
        Game::MahjongRivals => false,
    }
}

/// One game's account from its balance and ledger (sorted oldest first).
fn game_overview(game: Game, balance: Option<i64>, entries: Vec<LedgerEntry>) -> GameOverview {
    let shown = |v: i64| match board_def(game.id()) {
        Some(def) if def.game == game => def.unit.show(v),
        _ => format_points(v),
    };
    let rank = match (game, balance) {
        (Game::Seega, Some(b)) => {
            let r = rank_for(b);
            Some(RankView {
                rank_id: r.id,
                rank_name_en: r.name_en,
                rank_name_ar: r.name_ar,
                badge: r.badge,
            })
        }
        _ => None,
    };
    let series = entries
        .iter()
        .map(|e| {
            let at = e.settled_at.unwrap_or(e.at);
            BalancePoint {
                at,
                at_ms: at.timestamp_millis(),
                balance: e.balance_after,
            }
        })
        .collect();
    let ledger = entries
        .into_iter()
        .map(|e| LedgerRow {
            rule: crate::players::point_history::rule_of_entry(&e),
            floored: e.applied != e.nominal,
            source: e.source,
            source_id: e.source_id,
            nominal: e.nominal,
            applied: e.applied,
            balance_after: e.balance_after,
            at: e.at,
            settled_at: e.settled_at,
            seq: e.seq,
        })
        .collect();
    GameOverview {
        game,
        balance,
        balance_shown: balance.map(shown),
        rank,
        ledger,
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_players_and_nobody() {
        assert_eq!(require_operator(Some("support"), None).ok(), Some("support"));
        assert_eq!(
            require_operator(Some("support"), Some("p-1")).ok(),
            Some("support")
        );
        assert!(matches!(
            require_operator(None, Some("p-1")),
            Err(ServiceError::Forbidden(_))
        ));
        assert!(matches!(
            require_operator(None, None),
            Err(ServiceError::Unauthenticated)
        ));
        assert!(matches!(
            require_operator(Some("bad name!"), None),
            Err(ServiceError::Unauthenticated)
        ));
    }
}
