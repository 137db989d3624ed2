//! A finished match's result as its players see it (`GET /v1/me/matches/{id}`): a
//! Seega match, a Dots and Boxes match or a Minesweeper duel, for its players only.

use podium_rules::game::Game;
use podium_rules::seega::result::MatchResult;
use podium_store::{ItemStore, SourceStore};

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
