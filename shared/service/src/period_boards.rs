//! Period boards (LB-1, LB-5, MJ-20): points credited in the period of the event's own
//! instant, and each period frozen into a final snapshot once it is over.

use chrono::NaiveDate;
use chrono::{DateTime, Utc};
use podium_rules::board::{BoardDef, BoardRef, BOARDS};
use podium_rules::game::Game;
use podium_rules::period::{Period, PeriodKind};
use podium_rules::settlement::{BoardCredit, Planned, Settlement};
use podium_rules::snapshot::PAGE_SIZE;
use podium_store::{BoardKey, BoardStore, ItemStore, SettleStore, SourceKey};

use crate::error::ServiceError;
use crate::settle::{settle, ReadState, Reads, Settled, Source};
use crate::snapshot::{self, RunReport};

/// The snapshot id of a period's frozen board.
pub const FINAL: &str = "final";

/// How a credit ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credited {
    /// Added to the player's value in that period.
    Added { period: Period },
    /// This source was credited before: nothing changed.
    Duplicate { period: Period },
    /// The event is outside the board's rolling window at `now` (MJ-20): not counted.
    OutsideWindow { period: Period },
}

impl Credited {
    /// The period the points were for.
    pub fn period(&self) -> &Period {
        match self {
            Credited::Added { period }
            | Credited::Duplicate { period }
            | Credited::OutsideWindow { period } => period,
        }
    }
}

/// A credit of `points` (of either sign; a value never goes below 0) to one player's
/// entry on a board in one period, as a settlement of its own: exactly once per
/// (board, period, source id, player).
struct BoardCreditSource<'a> {
    target: &'a BoardRef,
    player_id: &'a str,
    points: i64,
    at: DateTime<Utc>,
    source_id: &'a str,
}

impl Source for BoardCreditSource<'_> {
    type Result = serde_json::Value;

    fn key(&self) -> SourceKey {
        SourceKey::new(
            "credit",
            format!("{}:{}:{}", self.target.key(), self.source_id, self.player_id),
        )
    }

    fn content_hash(&self) -> String {
        hex_sha256(&format!("{}|{}", self.points, self.at.timestamp_millis()))
    }

    fn reads(&self) -> Reads {
        Reads::default()
    }

    fn plan(&self, _read: &ReadState) -> Result<Planned<Self::Result>, ServiceError> {
        let board = podium_rules::board::board_def(&self.target.board)
            .ok_or_else(|| ServiceError::NotFound(format!("board {}", self.target.board)))?;
        let mut s = Settlement::result_only(serde_json::json!({"period": self.target.period}));
        s.credits.push(BoardCredit {
            board: board.id.to_string(),
            period: self.target.period.clone(),
            player_id: self.player_id.to_string(),
            points: self.points,
            at: self.at,
        });
        Ok(Planned::Write(s))
    }

    fn id_field(&self) -> &'static str {
        "source_id"
    }
}

/// SHA-256 (hex) of `s`.
pub(crate) fn hex_sha256(s: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(s.as_bytes()))
}

/// Credits `points` (≥ 0) earned at `at` to `player_id` on `board`, in the period
/// that contains `at` in the board's zone (MJ-20), exactly once per `source_id`; on a
/// rolling board only while `at` is inside its window at `now`.
pub async fn credit<S: SettleStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    player_id: &str,
    points: i64,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
    source_id: &str,
) -> Result<Credited, ServiceError> {
    if points < 0 {
        return Err(ServiceError::BadRequest {
            field: "points",
            message: "period boards only grow".into(),
        });
    }
    let period = board.period_at(at);
    if !board.counts_at(at, now) {
        return Ok(Credited::OutsideWindow { period });
    }
    let target = board.in_period(&period);
    if apply(store, &target, player_id, points, at, source_id).await? {
        Ok(Credited::Added { period })
    } else {
        Ok(Credited::Duplicate { period })
    }
}

/// Credits points a player of `game` earned at `at` to every period board of that
/// game (MJ-20: AMR, weekly, daily), each exactly once per `source_id`.
pub async fn credit_all<S: SettleStore + ?Sized>(
    store: &S,
    game: Game,
    player_id: &str,
    points: i64,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
    source_id: &str,
) -> Result<Vec<(&'static str, Credited)>, ServiceError> {
    let mut out = Vec::new();
    for board in BOARDS.iter().filter(|b| b.game == game && b.id != game.id()) {
        out.push((
            board.id,
            credit(store, board, player_id, points, at, now, source_id).await?,
        ));
    }
    Ok(out)
}

/// Adds `delta` (of either sign) to the entry, once per `source_id`; false when the
/// source was applied before.
async fn apply<S: SettleStore + ?Sized>(
    store: &S,
    target: &BoardRef,
    player_id: &str,
    delta: i64,
    at: DateTime<Utc>,
    source_id: &str,
) -> Result<bool, ServiceError> {
    let source = BoardCreditSource {
        target,
        player_id,
        points: delta,
        at,
        source_id,
    };
    Ok(matches!(settle(store, &source).await?, Settled::Applied(_)))
}

/// Entries one read of the expiring day's board asks for.
const EXPIRY_FETCH: usize = 1_000;

/// MJ-20's daily window maintenance for a rolling board: takes the points of the day
/// that has just left the window (today − 365, from the game's daily board) off every
/// player who had some, exactly once per player and day, so a retried run finishes the
/// work without taking anything twice. Returns the expired day and how many entries
/// this call changed; `None` for a board without a window.
pub async fn expire_window<S: BoardStore + SettleStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    now: DateTime<Utc>,
) -> Result<Option<(NaiveDate, u64)>, ServiceError> {
    let Some(day) = board.expiring_day(now) else {
        return Ok(None);
    };
    let daily = BOARDS
        .iter()
        .find(|d| d.game == board.game && d.period == PeriodKind::Daily)
        .ok_or_else(|| ServiceError::NotFound(format!("a daily board for {}", board.id)))?;
    let day_ref = BoardRef::new(daily.id, day.format("%Y-%m-%d").to_string());
    let target = board.in_period(&board.period_at(now));
    let source = format!("expire-{day}");
    let mut after = None;
    let mut changed = 0;
    loop {
        let rows = store.board_after(&day_ref, after.as_ref(), EXPIRY_FETCH).await?;
        for row in &rows {
            if apply(store, &target, &row.player_id, -row.value, now, &source).await? {
                changed += 1;
            }
        }
        match rows.last() {
            Some(last) if rows.len() == EXPIRY_FETCH => {
                after = Some(BoardKey {
                    value: last.value,
                    reached_at_ms: last.reached_at_ms,
                    player_id: last.player_id.clone(),
                })
            }
            _ => return Ok(Some((day, changed))),
        }
    }
}

/// Freezes the period of `board` that ended last before `now` (LB-5): its final
/// snapshot, ranked as of the period's end. Idempotent: a frozen period is left as it
/// is. `None` for an all-time board.
pub async fn freeze_ended<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    now: DateTime<Utc>,
) -> Result<Option<(Period, RunReport)>, ServiceError> {
    let ended = board.period_at(now).previous();
    let Some(end) = ended.end.filter(|e| *e <= now) else {
        return Ok(None);
    };
    let report = snapshot::run_paged(
        store,
        &board.in_period(&ended),
        FINAL,
        end,
        snapshot::Paging::content_defined(PAGE_SIZE),
        None,
    )
    .await?;
    Ok(Some((ended, report)))
}
