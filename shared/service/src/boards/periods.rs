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

use crate::boards::snapshot::layout::FINAL;
use crate::boards::snapshot::{self, layout::RunReport};
use crate::engine::names::hex_sha256;
use crate::engine::settle::settle;
use crate::engine::source::{ReadState, Reads, Settled, Source};
use crate::error::ServiceError;

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

/// Days of a rolling window one call takes off at most (the oldest first): a call that
/// leaves some says so ([`WindowRun::behind`]) and the next call goes on.
pub const WINDOW_DAYS_PER_TICK: u64 = 31;

/// How far the rolling window maintenance has gone: the last local day whose points it
/// has taken off, and within the next day, the board key of the last entry done.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct ExpiredThrough {
    day: NaiveDate,
    /// The day under way (the one after `day`) and the [`BoardKey::encode`] of its
    /// last entry taken off: a call that stopped at its budget resumes after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    within: Option<(NaiveDate, String)>,
}

/// What one call of [`expire_window`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowRun {
    /// The last day taken off the window (by this call or before).
    pub through: NaiveDate,
    /// Entries this call changed.
    pub changed: u64,
    /// Days that left the window are still to be taken off (this call's bound was
    /// reached, or another call is taking them off now).
    pub behind: bool,
}

/// MJ-20's daily window maintenance for a rolling board: takes the points of every
/// day that has left the window (up to today − 365, from the game's daily board) and
/// was not taken off yet off every player who had some, exactly once per player and
/// day, oldest first, at most [`WINDOW_DAYS_PER_TICK`] days a call and within `budget`
/// (its steps are batches of [`EXPIRY_FETCH`] entries, [`EXPIRY_IN_FLIGHT`] settled at
/// a time): a call that stops saves the last entry it took off, and the next resumes
/// after it; a retried or concurrent call finishes the work without taking anything
/// twice, and days missed (an outage of any length) are made up by the next calls. It
/// keeps its progress in an item (`WINDOW#{board}` / `EXPIRED`, written at the version
/// read); the first call ever starts `lookback_days` before the expiring day (more
/// than a record may be late:
/// [`podium_rules::record::policy::RecordPolicy::max_record_age_days`]). `None` for a
/// board without a window.
pub async fn expire_window<S: BoardStore + SettleStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    now: DateTime<Utc>,
    lookback_days: u64,
    budget: crate::budget::Budget,
) -> Result<Option<WindowRun>, ServiceError> {
    let Some(last) = board.expiring_day(now) else {
        return Ok(None);
    };
    let mark = podium_store::ItemKey::new(format!("WINDOW#{}", board.id), "EXPIRED");
    let (mut state, mut version) = match store.get_item(&mark, true).await? {
        Some(item) => (
            serde_json::from_slice::<ExpiredThrough>(&item.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("WINDOW", e)))?,
            item.version,
        ),
        None => (
            ExpiredThrough {
                day: last - chrono::Days::new(lookback_days.max(1)),
                within: None,
            },
            0,
        ),
    };
    let mut run = WindowRun {
        through: state.day,
        changed: 0,
        behind: false,
    };
    let mut days_left = WINDOW_DAYS_PER_TICK;
    let mut taken = 0u32;
    let mut day = state.day + chrono::Days::new(1);
    while day <= last {
        if days_left == 0 || (state.within.is_none() && budget.stops_after(taken)) {
            run.behind = true;
            break;
        }
        let after = state
            .within
            .as_ref()
            .filter(|(d, _)| *d == day)
            .and_then(|(_, k)| BoardKey::decode(k));
        let (changed, stopped_at) = expire_day(store, board, day, now, after, budget, &mut taken).await?;
        run.changed += changed;
        state = match stopped_at {
            // Out of budget within the day: where it stopped is saved.
            Some(key) => ExpiredThrough {
                day: state.day,
                within: Some((day, key.encode())),
            },
            None => ExpiredThrough { day, within: None },
        };
        let body = serde_json::to_vec(&state).unwrap_or_default();
        if !store.put_item_if(&mark, &body, version).await? {
            // Another call moved the window meanwhile (it took this day off too, each
            // player once): it goes on from where it is.
            run.behind = true;
            break;
        }
        version += 1;
        if state.within.is_some() {
            run.behind = true;
            break;
        }
        run.through = day;
        days_left -= 1;
        day = day + chrono::Days::new(1);
    }
    Ok(Some(run))
}

/// Players of an expiring day whose points are taken off at a time.
pub const EXPIRY_IN_FLIGHT: usize = 16;

/// Takes the points of `day` off the rolling board, once per player, from the entry
/// after `after` on (the whole day when `None`), a batch of [`EXPIRY_FETCH`] entries a
/// step (`taken` counts the steps of the call): the entries changed, and the key of the
/// last entry done when the call's budget stopped it before the day's end.
#[allow(clippy::too_many_arguments)]
async fn expire_day<S: BoardStore + SettleStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    day: NaiveDate,
    now: DateTime<Utc>,
    mut after: Option<BoardKey>,
    budget: crate::budget::Budget,
    taken: &mut u32,
) -> Result<(u64, Option<BoardKey>), ServiceError> {
    use futures::stream::{self, StreamExt, TryStreamExt};
    let daily = BOARDS
        .iter()
        .find(|d| d.game == board.game && d.period == PeriodKind::Daily)
        .ok_or_else(|| ServiceError::NotFound(format!("a daily board for {}", board.id)))?;
    let day_ref = BoardRef::new(daily.id, day.format("%Y-%m-%d").to_string());
    let target = board.in_period(&board.period_at(now));
    let source = format!("expire-{day}");
    let mut changed = 0;
    loop {
        if budget.stops_after(*taken) {
            if let Some(key) = after {
                return Ok((changed, Some(key)));
            }
        }
        *taken += 1;
        let rows = store.board_after(&day_ref, after.as_ref(), EXPIRY_FETCH).await?;
        let done: Vec<bool> = stream::iter(rows.iter())
            .map(|row| expire_entry(store, &target, &row.player_id, row.value, now, &source))
            .buffer_unordered(EXPIRY_IN_FLIGHT)
            .try_collect()
            .await?;
        changed += done.iter().filter(|d| **d).count() as u64;
        match rows.last() {
            Some(last) if rows.len() == EXPIRY_FETCH => {
                after = Some(BoardKey {
                    value: last.value,
                    reached_at_ms: last.reached_at_ms,
                    player_id: last.player_id.clone(),
                })
            }
            _ => return Ok((changed, None)),
        }
    }
}

/// Takes `value` points of an expiring day off `player_id`'s entry on `target`, once
/// (source `source`); true when this call changed it. A deleted player is skipped
/// (GM-6: their entries are gone with them); a suspended one's share is recorded for
/// review (OP-4: their entry cannot be written; one player never stops the window).
async fn expire_entry<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    target: &BoardRef,
    player_id: &str,
    value: i64,
    now: DateTime<Utc>,
    source: &str,
) -> Result<bool, ServiceError> {
    match apply(store, target, player_id, -value, now, now, source).await {
        Ok(applied) => Ok(applied),
        // Taken off before, by a call that stopped or died mid-batch at another instant
        // (the credit's content names its instant): once is once (GM-3).
        Err(ServiceError::Conflict { .. }) => Ok(false),
        Err(ServiceError::Invalid(e)) if e.rule == "GM-6" => Ok(false),
        Err(e @ ServiceError::Suspended { .. }) => {
            let key = BoardCreditSource {
                target,
                player_id,
                points: -value,
                at: now,
                source_id: source,
            }
            .key();
            let left_out = crate::engine::unapplied::Unapplied {
                kind: key.kind,
                id: key.id,
                player: Some(player_id.to_string()),
                error: e.to_string(),
            };
            crate::engine::unapplied::record(store, "window", &[left_out], now).await?;
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Freezes the period of `board` that ended last before `now` (LB-5): its final
/// snapshot, ranked as of the period's end ([`freeze`]). `None` for an all-time board
/// (and before the period's end).
pub async fn freeze_ended<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    now: DateTime<Utc>,
) -> Result<Option<(Period, RunReport)>, ServiceError> {
    let ended = board.period_at(now).previous();
    if !ended.is_over(now) {
        return Ok(None);
    }
    let report = freeze(store, board, &ended, now, crate::budget::Budget::unbounded()).await?;
    Ok(Some((ended, report)))
}

/// Freezes `period` of `board` (LB-5): its final snapshot, ranked as of the period's
/// end, within `budget` (an incomplete report when it ran out: the next call goes
/// on). Idempotent: a frozen period is left as it is; while another call freezes it,
/// a [`RunReport::busy`] report.
pub async fn freeze<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    period: &Period,
    now: DateTime<Utc>,
    budget: crate::budget::Budget,
) -> Result<RunReport, ServiceError> {
    freeze_board(
        store,
        &board.in_period(period),
        period.end.unwrap_or(now),
        now,
        budget,
    )
    .await
}

/// Freezes `board`'s period, which ended at `end` (UTC), into its final snapshot
/// ranked as of then (LB-5; a built-in or a defined board's, BD-9), within `budget`,
/// as [`freeze`] does.
pub async fn freeze_board<S: BoardStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    end: DateTime<Utc>,
    now: DateTime<Utc>,
    budget: crate::budget::Budget,
) -> Result<RunReport, ServiceError> {
    snapshot::write::run_sequenced(
        store,
        board,
        FINAL,
        0,
        end,
        snapshot::layout::Paging::content_defined(PAGE_SIZE),
        budget,
        now,
    )
    .await
}

/// The last period of `board` frozen and closed in order (LB-5), as the period
/// catch-up records it (`PERIODS#{board}` / `CLOSED`: `{"through": "2026-W48"}`,
/// written at the version read), and that version; `None` before its first period.
pub async fn closed_through<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
) -> Result<(Option<Period>, u64), ServiceError> {
    let key = closed_key(board);
    let Some(item) = store.get_item(&key, true).await? else {
        return Ok((None, 0));
    };
    let corrupt = |e: String| ServiceError::Store(podium_store::StoreError::corrupt(&key.pk, e));
    let mark: ClosedThrough = serde_json::from_slice(&item.body).map_err(|e| corrupt(e.to_string()))?;
    let period =
        Period::parse(board.period, board.zone, &mark.through).map_err(|e| corrupt(e.to_string()))?;
    Ok((Some(period), item.version))
}

/// Records `period` as the last of `board` frozen and closed, if the record is still
/// at `version`; false when another call moved it meanwhile.
pub async fn mark_closed<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardDef,
    period: &Period,
    version: u64,
) -> Result<bool, ServiceError> {
    let body = serde_json::to_vec(&ClosedThrough {
        through: period.id.clone(),
    })
    .unwrap_or_default();
    Ok(store.put_item_if(&closed_key(board), &body, version).await?)
}

/// The body of the catch-up's record.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct ClosedThrough {
    through: String,
}

fn closed_key(board: &BoardDef) -> podium_store::ItemKey {
    podium_store::ItemKey::new(format!("PERIODS#{}", board.id), "CLOSED")
}
