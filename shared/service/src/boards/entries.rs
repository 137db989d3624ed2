//! A player's entry on a board (LB-1): their balance on a game's balance board, their
//! points in the period on a period board. The one place that knows which is which, for
//! every view that reads entries by player.

use podium_rules::board::{board_def, BoardRef};
use podium_rules::game::Game;
use podium_store::{Balance, SettleStore};

use crate::error::ServiceError;

/// The entries of `players` on `board` (`None`: no entry; its balance on a game's
/// balance board), strongly consistent, in batches of 100 (one BatchGetItem each).
pub(crate) async fn entries_of<S: SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    players: &[&str],
) -> Result<Vec<Option<Balance>>, ServiceError> {
    let mut out = Vec::with_capacity(players.len());
    for chunk in players.chunks(100) {
        match balance_game(board) {
            Some(game) => out.extend(
                store
                    .get_balances(game, chunk)
                    .await?
                    .into_iter()
                    .map(|b| (b.version > 0).then_some(b)),
            ),
            None => out.extend(store.get_entries(board, chunk).await?),
        }
    }
    Ok(out)
}

/// The game whose balances `board` lists: a game's balance board (`seega`,
/// `dots-and-boxes`, `minesweeper`) is its balances; `None` for a period board.
pub(crate) fn balance_game(board: &BoardRef) -> Option<Game> {
    board_def(&board.board)
        .filter(|d| d.id == d.game.id())
        .map(|d| d.game)
}
