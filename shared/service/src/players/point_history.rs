//! A player's point history (GM-4): their ledger entries of one game, newest settled first,
//! a page at a time behind an opaque cursor. The answer to "why did my points
//! change?": each entry names its source, the rule that computed it, the delta before
//! and after the SG-7 floor, and the balance after, with the values as shown (DISP).
//!
//! Cost (DynamoDB): one Query of the `ledger` GSI a page, reading `limit + 1` entries
//! (eventually consistent: an entry committed a moment ago may show on the next read).

use chrono::{DateTime, Utc};
use podium_rules::display::{format_balance, format_delta};
use podium_rules::game::Game;
use podium_rules::settlement::LedgerEntry;
use podium_store::{LedgerPosition, LedgerStore};
use serde::Serialize;

use crate::boards::cursor::{Cursor, CursorKey};
use crate::error::ServiceError;

/// Default and largest history page (entries).
pub const DEFAULT_HISTORY_PAGE: usize = 20;
pub const MAX_HISTORY_PAGE: usize = 100;

/// One change of the caller's points (GM-4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct HistoryEntry {
    /// What earned or cost the points: `match` (Seega), `dots-and-boxes`,
    /// `minesweeper`, `ad`, `bonus`, `level`, `quick-match`, `arena`,
    /// `tournament-prize`, `period-reward`, `correction` (an operator's, OP-1).
    pub source: String,
    /// The source's id: a match id, `{network}:{transaction id}`, `{player}:{day}`, ….
    pub source_id: String,
    /// The rule that computed `nominal` (`SG-2` a Seega win, `SG-3` a loss, `SG-10`,
    /// `MJ-18`, `LB-5`, …); on entries written before entries recorded it, the
    /// source's rules (`SG-2/SG-3`), as the support console shows them.
    pub rule: String,
    /// When the points were earned (UTC): the event's instant. A record that arrived
    /// late has an instant before entries listed after it.
    pub at: DateTime<Utc>,
    /// When the entry was settled (UTC): the balance was `balance_after` from then on.
    /// Absent on entries written before it was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled_at: Option<DateTime<Utc>>,
    /// Its place in the settlement order of the balance (1, 2, …: the balance's
    /// version after it; 0 on entries written before it was recorded). Entries are
    /// listed by it, so each `balance_after` is where the next newer entry started.
    pub seq: u64,
    /// The delta the rule computed (points; a rating's change for the rated games).
    pub nominal: i64,
    /// The delta applied after the SG-7 floor at zero (points).
    pub applied: i64,
    /// The balance after this entry (points).
    pub balance_after: i64,
    /// `nominal`, `applied` and `balance_after` as shown (DISP-1 … DISP-4).
    pub nominal_shown: String,
    pub applied_shown: String,
    pub balance_after_shown: String,
    /// Whether the SG-7 floor cut the delta (`applied` ≠ `nominal`).
    pub floored: bool,
    /// Where the source's result is read, when the API serves it (a Seega, Dots and
    /// Boxes or Minesweeper match's result, an Arena's): a path of this API.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why, when an operator decided it (a correction, OP-1): their reason, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl HistoryEntry {
    /// The entry as the caller sees it.
    pub fn of(e: &LedgerEntry) -> Self {
        HistoryEntry {
            source: e.source.clone(),
            source_id: e.source_id.clone(),
            rule: rule_of_entry(e),
            at: e.at,
            settled_at: e.settled_at,
            seq: e.seq,
            nominal: e.nominal,
            applied: e.applied,
            balance_after: e.balance_after,
            nominal_shown: format_delta(e.nominal),
            applied_shown: format_delta(e.applied),
            balance_after_shown: format_balance(e.game, e.balance_after),
            floored: e.applied != e.nominal,
            result: result_path(e),
            reason: e.note.clone(),
        }
    }
}

/// The rule `e` records, or for an entry written before entries recorded it, its
/// source's rules ([`crate::players::point_history::rule_of`]).
pub fn rule_of_entry(e: &LedgerEntry) -> String {
    if e.rule.is_empty() {
        crate::players::point_history::rule_of(e.game, &e.source).to_string()
    } else {
        e.rule.clone()
    }
}

/// The API path of `e`'s source result, for the sources whose result the caller can read.
fn result_path(e: &LedgerEntry) -> Option<String> {
    use podium_rules::{dots_and_boxes, mahjong, minesweeper};
    match e.source.as_str() {
        "match" | dots_and_boxes::record::SOURCE | minesweeper::record::SOURCE => {
            Some(format!("/v1/me/matches/{}", e.source_id))
        }
        mahjong::arena::KIND => Some(format!("/v1/me/arenas/{}", e.source_id)),
        mahjong::completion::SOURCE => Some(format!("/v1/me/level-completions/{}", e.source_id)),
        mahjong::quick_match::SOURCE => Some(format!("/v1/me/quick-matches/{}", e.source_id)),
        _ => None,
    }
}

/// A page of the caller's point history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct HistoryPage {
    /// The game's id (`seega`, `dots-and-boxes`, `minesweeper`, `mahjong-rivals`).
    pub game: String,
    /// Newest settled first (by `seq`, then source, then source id, all descending):
    /// each entry's `balance_after` is what the entry listed before it started from.
    pub entries: Vec<HistoryEntry>,
    /// Pass as `cursor` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
}

/// The cursor scope of `player_id`'s history of `game`: a cursor opens only there.
fn scope(game: Game, player_id: &str) -> String {
    format!("ledger/{}/{player_id}", game.id())
}

/// `game` named by the `game` query parameter. Errors: 400 naming `game`.
pub fn game_param(game: Option<&str>) -> Result<Game, ServiceError> {
    let bad = |message: String| ServiceError::BadRequest {
        field: "game",
        message,
    };
    let id =
        game.ok_or_else(|| bad("required: seega, dots-and-boxes, minesweeper or mahjong-rivals".into()))?;
    Game::from_id(id)
        .ok_or_else(|| bad("not a game: seega, dots-and-boxes, minesweeper or mahjong-rivals".into()))
}

/// Up to `limit` (1 … [`MAX_HISTORY_PAGE`]) of `player_id`'s entries on `game`,
/// newest first, from the newest or after `cursor` (a `next_cursor` this API issued
/// for this player and game; anything else is a 400 naming `cursor`). One
/// [`LedgerStore::ledger_page`] read.
pub async fn page<S: LedgerStore + ?Sized>(
    store: &S,
    cursors: &CursorKey,
    player_id: &str,
    game: Game,
    cursor: Option<&str>,
    limit: usize,
) -> Result<HistoryPage, ServiceError> {
    let scope = scope(game, player_id);
    let after = match cursor.map(|c| cursors.open_in(&scope, c)).transpose()? {
        Some(Cursor::Ledger {
            seq,
            source,
            source_id,
        }) => Some(LedgerPosition {
            seq,
            source,
            source_id,
        }),
        Some(_) => return Err(crate::boards::cursor::foreign()),
        None => None,
    };
    let mut rows = store
        .ledger_page(game, player_id, after.as_ref(), limit + 1)
        .await?;
    let more = rows.len() > limit;
    rows.truncate(limit);
    let next_cursor = match rows.last() {
        Some(last) if more => {
            let at = LedgerPosition::of(last);
            Some(cursors.issue_in(
                &scope,
                Cursor::Ledger {
                    seq: at.seq,
                    source: at.source,
                    source_id: at.source_id,
                },
            ))
        }
        _ => None,
    };
    Ok(HistoryPage {
        game: game.id().to_string(),
        entries: rows.iter().map(HistoryEntry::of).collect(),
        next_cursor,
    })
}

/// The rules behind a ledger entry of `source` on `game` that does not record its
/// rule (written before entries did; the rules pages in `docs/rules/` explain each).
/// `GM-4` for a source it does not know.
pub fn rule_of(game: Game, source: &str) -> &'static str {
    use podium_rules::mahjong::{arena, completion, quick_match, tournament_play};
    match (game, source) {
        (Game::Seega, crate::games::seega::MATCH) => "SG-2/SG-3",
        (Game::Seega, crate::players::rewards::AD) => "SG-10",
        (Game::MahjongRivals, crate::players::rewards::AD) => "MJ-19",
        (Game::MahjongRivals, crate::players::rewards::BONUS) => "MJ-18",
        (Game::MahjongRivals, s) if s == completion::SOURCE => "MJ-2/MJ-3",
        (Game::MahjongRivals, s) if s == quick_match::SOURCE => "MJ-7",
        (Game::MahjongRivals, s) if s == arena::KIND => "MJ-11",
        (Game::MahjongRivals, s) if s == tournament_play::KIND_PRIZE => "MJ-16",
        (_, crate::players::inbox::LEDGER_SOURCE) => podium_rules::period_reward::RULE,
        (Game::DotsAndBoxes, _) => "DB-6",
        (Game::Minesweeper, _) => "MS-8",
        _ => "GM-4",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_by_source() {
        assert_eq!(rule_of(Game::Seega, "match"), "SG-2/SG-3");
        assert_eq!(rule_of(Game::Seega, "ad"), "SG-10");
        assert_eq!(rule_of(Game::MahjongRivals, "bonus"), "MJ-18");
        assert_eq!(rule_of(Game::MahjongRivals, "level"), "MJ-2/MJ-3");
        assert_eq!(rule_of(Game::Minesweeper, "minesweeper"), "MS-8");
        assert_eq!(rule_of(Game::MahjongRivals, "period-reward"), "LB-5");
        assert_eq!(rule_of(Game::Seega, "other"), "GM-4");
    }
}
