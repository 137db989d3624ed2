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
    if apply(store, &target, player_id, points, at, now, source_id).await? {
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
    now: DateTime<Utc>,
    source_id: &str,
) -> Result<bool, ServiceError> {
    let source = BoardCreditSource {
        target,
        player_id,
        points: delta,
        at,
        source_id,
    };
    Ok(matches!(settle(store, &source, now).await?, Settled::Applied(_)))
}

/// Entries one read of the expiring day's board asks for.
const EXPIRY_FETCH: usize = 1_000;

/// How many days back the window maintenance looks on its first run (after that it
/// goes on from the last day it finished): more than a record may be late
/// ([`podium_rules::mahjong::records::MAX_RECORD_AGE_DAYS`]).
pub const EXPIRY_CATCH_UP_DAYS: u64 = 31;

/// The last local day whose points the rolling window maintenance has taken off.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct ExpiredThrough {
    day: NaiveDate,
}

/// MJ-20's daily window maintenance for a rolling board: takes the points of every
/// day that has left the window (up to today − 365, from the game's daily board) and
/// was not taken off yet off every player who had some, exactly once per player and
/// day, so a retried run finishes the work without taking anything twice, and a run
/// missed for a day (an outage) is made up by the next. It keeps the last day done in
/// an item (`WINDOW#{board}` / `EXPIRED`, written at the version read). Returns the
/// last expired day and how many entries this call changed; `None` for a board
/// without a window.
pub async fn expire_window<S: BoardStore + SettleStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    now: DateTime<Utc>,
) -> Result<Option<(NaiveDate, u64)>, ServiceError> {
    let Some(last) = board.expiring_day(now) else {
        return Ok(None);
    };
    let mark = podium_store::ItemKey::new(format!("WINDOW#{}", board.id), "EXPIRED");
    let (done, mut version) = match store.get_item(&mark, true).await? {
        Some(item) => {
            let through: ExpiredThrough = serde_json::from_slice(&item.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("WINDOW", e)))?;
            (Some(through.day), item.version)
        }
        None => (None, 0),
    };
    let first = match done {
        Some(d) => d + chrono::Days::new(1),
        None => last - chrono::Days::new(EXPIRY_CATCH_UP_DAYS),
    };
    let mut changed = 0;
    let mut day = first;
    while day <= last {
        changed += expire_day(store, board, day, now).await?;
        let body = serde_json::to_vec(&ExpiredThrough { day }).unwrap_or_default();
        if !store.put_item_if(&mark, &body, version).await? {
            // Another run moved the window meanwhile: it goes on from where it is.
            return Err(ServiceError::Contended { attempts: 1 });
        }
        version += 1;
        day = day + chrono::Days::new(1);
    }
    Ok(Some((last, changed)))
}

/// Takes the points of `day` off the rolling board, once per player.
async fn expire_day<S: BoardStore + SettleStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    day: NaiveDate,
    now: DateTime<Utc>,
) -> Result<u64, ServiceError> {
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
            if apply(store, &target, &row.player_id, -row.value, now, now, &source).await? {
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
            _ => return Ok(changed),
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
        now,
    )
    .await?;
    Ok(Some((ended, report)))
}
