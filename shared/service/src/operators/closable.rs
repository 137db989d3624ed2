//! The board and ended period an operator's close or its dry run names (LB-5, BD-9):
//! a built-in period board's period, or a defined board's, paid by the prize table of
//! its end. Both close through one machinery (the freeze into the final snapshot, then
//! every ranked player's result settled once, [`crate::boards::close`]); only a
//! built-in league's week has more to close.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use podium_rules::board::definition::DefinedPeriod;
use podium_rules::board::{board_def, BoardDef, BoardRef};
use podium_rules::game::Game;
use podium_rules::period::{Period, PeriodKind};
use podium_rules::period_reward::{RewardTable, RewardTables};
use podium_store::{BoardStore, ItemStore};

use crate::boards::defined::Known;
use crate::boards::snapshot::layout::RunReport;
use crate::budget::Budget;
use crate::error::ServiceError;

/// A board's ended period an operator may close.
pub(crate) enum Closable {
    /// A built-in period board's period (LB-1).
    BuiltIn { def: &'static BoardDef, period: Period },
    /// A defined board's period (BD-6) and the game it is of.
    Defined {
        known: Arc<Known>,
        game: Game,
        period: DefinedPeriod,
    },
}

impl Closable {
    /// The board and period (`{board}@{period}` keys).
    pub(crate) fn board(&self) -> BoardRef {
        match self {
            Closable::BuiltIn { def, period } => def.in_period(period),
            Closable::Defined { known, period, .. } => {
                BoardRef::new(known.head.id.clone(), period.id.clone())
            }
        }
    }

    /// The game whose players it ranks (how its ties share prizes, LB-5).
    pub(crate) fn game(&self) -> Game {
        match self {
            Closable::BuiltIn { def, .. } => def.game,
            Closable::Defined { game, .. } => *game,
        }
    }

    /// The reward table the period pays: a built-in board's configured one, a defined
    /// board's prizes at the period's end (BD-9); `None`: no results are sent.
    pub(crate) fn table(&self, rewards: &RewardTables) -> Option<RewardTable> {
        match self {
            Closable::BuiltIn { def, .. } => rewards.get(def.id).cloned(),
            Closable::Defined { known, period, .. } => {
                let prizes = known.prizes_at_end(period);
                (!prizes.is_empty()).then(|| RewardTable::of_prizes(prizes))
            }
        }
    }

    /// The built-in board, for what only a built-in board has (a league's week).
    pub(crate) fn built_in(&self) -> Option<(&'static BoardDef, &Period)> {
        match self {
            Closable::BuiltIn { def, period } => Some((def, period)),
            Closable::Defined { .. } => None,
        }
    }

    /// Freezes the period into its final snapshot within `budget` (LB-5), as the ticks
    /// do ([`crate::boards::periods::freeze_board`]).
    pub(crate) async fn freeze<S: BoardStore + ItemStore + ?Sized>(
        &self,
        store: &S,
        now: DateTime<Utc>,
        budget: Budget,
    ) -> Result<RunReport, ServiceError> {
        let end = match self {
            Closable::BuiltIn { period, .. } => period.end,
            Closable::Defined { period, .. } => period.end,
        };
        crate::boards::periods::freeze_board(store, &self.board(), end.unwrap_or(now), now, budget).await
    }
}

/// The board named `board` and its ended period named `period`, as an operator asks to
/// close it at `now`. Errors: [`ServiceError::NotFound`] (no such board, or a defined
/// board's period no longer kept, BD-6), `BadRequest` naming `board` (an all-time or
/// rolling board) or `period` (malformed, or not ended), `StateConflict` naming
/// `board` (BD-9: a defined board retired before the period ended, whose prizes are
/// cancelled), transient store errors.
pub(crate) async fn ended<S: ItemStore + ?Sized>(
    store: &S,
    board: &str,
    period: &str,
    now: DateTime<Utc>,
) -> Result<Closable, ServiceError> {
    find(store, board, period, now, true).await
}

/// [`ended`], a defined board read afresh (`fresh`: what a request decides on) or
/// from this process's copy (a step of an action under way, which was decided).
async fn find<S: ItemStore + ?Sized>(
    store: &S,
    board: &str,
    period: &str,
    now: DateTime<Utc>,
    fresh: bool,
) -> Result<Closable, ServiceError> {
    let no_period = || ServiceError::BadRequest {
        field: "board",
        message: "an all-time or rolling board has no period to close (LB-5)".into(),
    };
    let not_ended = || ServiceError::BadRequest {
        field: "period",
        message: "the period has not ended: it is closed once it has (LB-5, BD-9)".into(),
    };
    if let Some(def) = board_def(board) {
        if def.period == PeriodKind::AllTime || def.window_days.is_some() {
            return Err(no_period());
        }
        let p = Period::parse(def.period, def.zone, period)?;
        if !p.is_over(now) {
            return Err(not_ended());
        }
        return Ok(Closable::BuiltIn { def, period: p });
    }
    // Read now, not from this process's copy: a retirement or a prize table written
    // just before the end counts (BD-9).
    let known = if fresh {
        crate::boards::defined::resolve_fresh(store, board).await?
    } else {
        crate::boards::defined::resolve(store, board).await?
    };
    let known = known.ok_or_else(|| crate::boards::definitions::not_found(board))?;
    let (p, _) = known.period(Some(period), now)?;
    let Some(end) = p.end else {
        return Err(no_period());
    };
    if end > now {
        return Err(not_ended());
    }
    if known.retired_before_end(&p) {
        return Err(ServiceError::StateConflict {
            field: "board",
            rule: "BD-9",
            message: format!(
                "`{board}` was retired before period `{}` ended: its prizes are cancelled, so it is not closed",
                p.id
            ),
        });
    }
    let game = game_of(&known)?;
    Ok(Closable::Defined {
        known,
        game,
        period: p,
    })
}

/// The board and period an action under way names (a close or a dry run the ticks
/// carry on), as [`ended`] finds it; `None` when it names none any more (a defined
/// board's period no longer kept, a board retired meanwhile). Errors: the store's.
pub(crate) async fn named<S: ItemStore + ?Sized>(
    store: &S,
    board: &str,
    period: &str,
    now: DateTime<Utc>,
) -> Result<Option<Closable>, ServiceError> {
    match find(store, board, period, now, false).await {
        Ok(c) => Ok(Some(c)),
        Err(e @ ServiceError::Store(_)) => Err(e),
        Err(_) => Ok(None),
    }
}

fn game_of(known: &Known) -> Result<Game, ServiceError> {
    Game::ALL
        .into_iter()
        .find(|g| g.id() == known.head.game)
        .ok_or_else(|| {
            ServiceError::Store(podium_store::StoreError::corrupt(
                format!("BOARDDEF#{}", known.head.id),
                format!("no game `{}`", known.head.game),
            ))
        })
}
