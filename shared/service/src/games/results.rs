//! A finished match's result as its players see it, for its players only (anyone
//! else gets 404, as if it did not exist): a Seega match, a Dots and Boxes match or a
//! Minesweeper duel (`GET /v1/me/matches/{id}`), a level completion
//! (`GET /v1/me/level-completions/{id}`) and a Quick Match
//! (`GET /v1/me/quick-matches/{id}`).

use podium_rules::game::Game;
use podium_rules::mahjong::completion::{self, CompletionResult};
use podium_rules::mahjong::quick_match::{self, QuickMatchResult};
use podium_rules::seega::result::MatchResult;
use podium_store::{ItemStore, SourceKey, SourceStore};
use serde::de::DeserializeOwned;

use crate::profiles::cards::fill;
use serde::Serialize;

use crate::error::ServiceError;

/// A finished match's result as its players see it: a Seega match, a Dots and Boxes
/// match (boxes, ratings before and after) or a Minesweeper duel (scores, lives, the
/// kind of win, ratings), each with its `game`.
#[derive(utoipa::ToSchema, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum MatchView {
    Seega(MatchResult),
    DotsAndBoxes(podium_rules::dots_and_boxes::record::DotsResult),
    Minesweeper(podium_rules::minesweeper::record::DuelResult),
}

/// A finished match's result, for one of its two players only; anyone else gets
/// [`ServiceError::NotFound`], as if the match did not exist. One read for a Seega
/// match, up to three for the others (each game keeps its own match ids).
pub async fn match_result<S: SourceStore + ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    match_id: &str,
) -> Result<MatchView, ServiceError> {
    let mut view = stored_result(store, player_id, match_id).await?;
    // PF-5: each player's card, one batch read.
    match &mut view {
        MatchView::Seega(r) => {
            fill(
                store,
                r.players.iter_mut().map(|p| (p.player_id.as_str(), &mut p.card)),
            )
            .await?
        }
        MatchView::DotsAndBoxes(r) => {
            fill(
                store,
                r.players.iter_mut().map(|p| (p.player_id.as_str(), &mut p.card)),
            )
            .await?
        }
        MatchView::Minesweeper(r) => {
            fill(
                store,
                r.players.iter_mut().map(|p| (p.player_id.as_str(), &mut p.card)),
            )
            .await?
        }
    }
    Ok(view)
}

/// The stored result of the caller's match `match_id`, as [`match_result`] finds it.
async fn stored_result<S: SourceStore + ?Sized>(
    store: &S,
    player_id: &str,
    match_id: &str,
) -> Result<MatchView, ServiceError> {
    let not_found = || ServiceError::NotFound("no such match of yours".to_string());
    if !podium_rules::record::ids::is_valid_id(match_id) {
        return Err(not_found());
    }
    // Each game keeps its own match ids: the caller's match is the one they played.
    if let Some((_, result)) = crate::games::seega::stored_match(store, match_id).await? {
        if result.players.iter().any(|p| p.player_id == player_id) {
            return Ok(MatchView::Seega(result));
        }
    }
    let read = |game: Game| async move {
        let key = podium_store::SourceKey::new(game.id(), match_id);
        store.get_source(&key).await.map(|s| s.map(|s| s.result))
    };
    let corrupt = |e| ServiceError::Store(podium_store::StoreError::corrupt(format!("match {match_id}"), e));
    if let Some(text) = read(Game::DotsAndBoxes).await? {
        let r: podium_rules::dots_and_boxes::record::DotsResult =
            serde_json::from_str(&text).map_err(corrupt)?;
        if r.players.iter().any(|p| p.player_id == player_id) {
            return Ok(MatchView::DotsAndBoxes(r));
        }
    }
    if let Some(text) = read(Game::Minesweeper).await? {
        let r: podium_rules::minesweeper::record::DuelResult =
            serde_json::from_str(&text).map_err(corrupt)?;
        if r.players.iter().any(|p| p.player_id == player_id) {
            return Ok(MatchView::Minesweeper(r));
        }
    }
    Err(not_found())
}

/// A settled source's result document, if it was settled.
pub(crate) async fn stored<S: SourceStore + ?Sized, T: DeserializeOwned>(
    store: &S,
    key: &SourceKey,
) -> Result<Option<T>, ServiceError> {
    let Some(found) = store.get_source(key).await? else {
        return Ok(None);
    };
    serde_json::from_str(&found.result).map(Some).map_err(|e| {
        ServiceError::Store(podium_store::StoreError::corrupt(
            format!("{}/{}", key.kind, key.id),
            e,
        ))
    })
}

/// A level completion's result as its player sees it: the stored result (time, place
/// among the other accounts' best times at that moment, each bonus, MJ-2 … MJ-5) with
/// the points it paid and, bonus by bonus, the rule that paid them.
#[derive(utoipa::ToSchema, Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompletionView {
    #[serde(flatten)]
    pub result: CompletionResult,
    /// Points the completion paid: `first_completion` + `time_bonus`.
    pub points: i64,
    /// What paid them: `{"rule": "MJ-2", "points": 10}` for a first completion,
    /// `{"rule": "MJ-3", "points": 10 or 5}` for a time bonus (MJ-4: one per game).
    pub bonuses: Vec<Bonus>,
}

/// One bonus a level completion paid.
#[derive(utoipa::ToSchema, Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bonus {
    pub rule: &'static str,
    pub points: i64,
}

/// A level completion's result (MJ-2 … MJ-5), for its player only: anyone else gets
/// [`ServiceError::NotFound`]. One read.
pub async fn completion_result<S: SourceStore + ?Sized>(
    store: &S,
    player_id: &str,
    completion_id: &str,
) -> Result<CompletionView, ServiceError> {
    let not_found = || ServiceError::NotFound("no such level completion of yours".to_string());
    if !podium_rules::record::ids::is_valid_id(completion_id) {
        return Err(not_found());
    }
    let result: CompletionResult = stored(store, &SourceKey::new(completion::KIND, completion_id))
        .await?
        .filter(|r: &CompletionResult| r.player_id == player_id)
        .ok_or_else(not_found)?;
    let bonuses: Vec<Bonus> = [("MJ-2", result.first_completion), ("MJ-3", result.time_bonus)]
        .into_iter()
        .filter(|(_, points)| *points > 0)
        .map(|(rule, points)| Bonus { rule, points })
        .collect();
    Ok(CompletionView {
        points: result.first_completion + result.time_bonus,
        bonuses,
        result,
    })
}

/// A Quick Match's result (MJ-7, MJ-8), for its players only: every player's
/// completion, score, place and points, with their cards (PF-5); `balance_after`
/// (the winner's balance afterwards) for the winner only. Anyone else gets
/// [`ServiceError::NotFound`]; so does a match stored before its players were kept
/// in its result. Two reads.
pub async fn quick_match_result<S: SourceStore + ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    match_id: &str,
) -> Result<QuickMatchResult, ServiceError> {
    let not_found = || ServiceError::NotFound("no such Quick Match of yours".to_string());
    if !podium_rules::record::ids::is_valid_id(match_id) {
        return Err(not_found());
    }
    let mut result: QuickMatchResult = stored(store, &SourceKey::new(quick_match::KIND, match_id))
        .await?
        .filter(|r: &QuickMatchResult| r.players.iter().any(|p| p.player_id == player_id))
        .ok_or_else(not_found)?;
    // `balance_after` is the winner's: shown to the winner only, never to the others.
    if result.winner.as_deref() != Some(player_id) {
        result.balance_after = None;
    }
    fill(
        store,
        result
            .players
            .iter_mut()
            .map(|p| (p.player_id.as_str(), &mut p.card)),
    )
    .await?;
    Ok(result)
}
