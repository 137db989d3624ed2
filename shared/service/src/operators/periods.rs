//! Period operations for operators (LB-5, OP-5): a period's close run again, or an
//! ended period that no tick closed frozen and closed now, with a dry run that shows
//! what would be sent to whom. The close is the tick's own machinery: every result
//! message is a settlement keyed by board, period and player, so a close run again
//! sends only what was never sent, and runs alongside a tick safely.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::period::Period;
use podium_rules::period_reward::RewardTables;
use podium_store::{BoardStore, ItemKey, ItemStore, SettleStore};
use serde::{Deserialize, Serialize};

use crate::budget::Budget;

use super::closable::{self, Closable};
use crate::boards::close;
use crate::error::ServiceError;
use crate::moderation::audit::{self, action, AuditEntry};

pub use super::dry_runs::{ResultLine, MAX_LISTED};

/// What a period operation found or did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PeriodOperation {
    pub board: String,
    pub period: String,
    /// Whether the period was frozen before this call (its final snapshot complete).
    pub was_frozen: bool,
    pub dry_run: bool,
    /// Whether the period is frozen now (its final snapshot complete): a close, and a
    /// dry run, freeze an ended period no tick froze yet, within the request's
    /// budget (false: the freeze goes on at the next request or tick).
    pub frozen: bool,
    /// Players ranked in the final snapshot (0 until it is complete).
    pub ranked: usize,
    /// Results checked: a close's, every ranked one; a dry run's, those looked up so
    /// far (it answers 202 until every one is: the next ticks go on, and asking again
    /// answers where it stands).
    pub checked: usize,
    /// Results sent before, and those a close sends now (or would, in a dry run: of
    /// those checked).
    pub already_sent: usize,
    pub to_send: usize,
    /// The first [`MAX_LISTED`] results, in rank order.
    pub results: Vec<ResultLine>,
    /// Messages this close sent so far (0 in a dry run).
    pub sent: usize,
    /// Whether the close is done (every result sent, the league's week closed); false
    /// in a dry run, and while the action goes on (HTTP 202: the next ticks carry it
    /// on; `GET /v1/operator/jobs` shows it).
    pub done: bool,
}

impl PeriodOperation {
    /// Whether the operation has nothing left to do: a close done, a dry run that
    /// checked every result.
    pub fn finished(&self) -> bool {
        if self.dry_run {
            self.frozen && self.checked >= self.ranked
        } else {
            self.done
        }
    }
}

/// Closes `board`'s ended `period` (freezing it first when no tick did), or with
/// `dry_run` only says what that would send, to whom, to its end
/// ([`close_period_within`] without a bound).
#[allow(clippy::too_many_arguments)]
pub async fn close_period<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    (board, period): (&str, &str),
    dry_run: bool,
    rewards: &RewardTables,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
) -> Result<PeriodOperation, ServiceError> {
    close_period_within(
        store,
        (board, period),
        dry_run,
        rewards,
        (operator, reason),
        now,
        Budget::unbounded(),
        podium_rules::record::policy::DEFAULT_MAX_RECORD_AGE_DAYS,
    )
    .await
}

/// Closes `board`'s ended `period` (freezing it first when no tick did), or with
/// `dry_run` only says what that would send, to whom. An applied close is recorded in
/// the audit trail first (OP-5), then carried out as an action
/// (`ACTION` / `close:{board}@{period}`, [`CloseAction`]) in bounded steps: this call
/// takes what `budget` allows and answers ([`PeriodOperation::done`] false when work
/// is left), and the next ticks carry the rest on ([`carry_on`]); a repeat joins the
/// action under way. Idempotent with the tick's close and with itself (every result
/// is a settlement, GM-3). `reach_days`: how old a record may be
/// (`PODIUM_MAX_RECORD_AGE_DAYS`), how far back the ticks' first catch-up starts.
/// Errors: [`ServiceError::NotFound`] (no such board), `BadRequest` (not a period
/// board, a period not ended), `Invalid` (the period id, the reason), `StateConflict`
/// (a league's week before which one is not closed yet), transient store errors.
#[allow(clippy::too_many_arguments)]
pub async fn close_period_within<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    (board, period): (&str, &str),
    dry_run: bool,
    rewards: &RewardTables,
    (operator, reason): (&str, &str),
    now: DateTime<Utc>,
    budget: Budget,
    reach_days: i64,
) -> Result<PeriodOperation, ServiceError> {
    let reason = podium_rules::operator::check_reason("reason", reason)?;
    let closable = closable::ended(store, board, period, now).await?;
    let bref: BoardRef = closable.board();
    let was_frozen = close::is_frozen(store, &bref).await?;
    if dry_run {
        return dry_run_of(store, &closable, rewards, was_frozen, now, budget).await;
    }
    if let Some((def, p)) = closable.built_in() {
        in_order(store, def, p, now, reach_days).await?;
    }
    // OP-5: recorded before any effect, so a close stopped anywhere has its entry.
    audit::append(
        store,
        &AuditEntry {
            id: audit::fresh_id(&bref.key()),
            at: now,
            operator: operator.to_string(),
            action: action::CLOSE.into(),
            target: bref.key(),
            player_id: None,
            players: Vec::new(),
            reason,
            changes: serde_json::json!({"was_frozen": was_frozen, "action": action_sk(&bref)}),
        },
    )
    .await?;
    let (before, version) = begin(store, &bref, operator, now).await?;
    let mut act = before.clone();
    step(store, &closable, rewards, &mut act, now, budget).await?;
    act.updated_at = now;
    let act = save(store, &bref, &before, act, version).await?;
    Ok(PeriodOperation {
        board: bref.board,
        period: bref.period,
        was_frozen,
        dry_run: false,
        frozen: was_frozen || act.ranked > 0 || act.done,
        ranked: act.ranked,
        checked: act.ranked,
        already_sent: act.settled.saturating_sub(act.sent + act.unapplied),
        to_send: if act.done {
            0
        } else {
            act.ranked.saturating_sub(act.settled)
        },
        results: Vec::new(),
        sent: act.sent,
        done: act.done,
    })
}

/// A league's weeks close in order, each the one decision of its members' next tier
/// (LB-5, Leagues): an operator's close of a week of a league's board is refused (409
/// naming `period`) while an earlier week the ticks close is not closed yet (the
/// first the catch-up would close: after the last one closed, or `reach_days` + 1
/// back before any, as the ticks' first catch-up starts). Other boards' periods
/// close in any order.
async fn in_order<S: ItemStore + ?Sized>(
    store: &S,
    def: &podium_rules::board::BoardDef,
    p: &Period,
    now: DateTime<Utc>,
    reach_days: i64,
) -> Result<(), ServiceError> {
    if podium_rules::league::league_of_board(def.id).is_none() {
        return Ok(());
    }
    let (through, _) = crate::boards::periods::closed_through(store, def).await?;
    let first_due = match through {
        Some(closed) => closed.next(),
        None => def.period_at(now - chrono::Duration::days(reach_days.max(1) + 1)),
    };
    if first_due.id.as_str() < p.id.as_str() {
        return Err(ServiceError::StateConflict {
            field: "period",
            rule: "LB-5",
            message: format!(
                "a league's weeks close in order: {} is not closed yet (the next tick closes it; or close it first)",
                first_due.id
            ),
        });
    }
    Ok(())
}

/// A dry run: what a close would send, to whom (the first [`MAX_LISTED`] results
/// listed; every ranked player's result looked up once, as a dry run carried out in
/// steps, [`super::dry_runs`]).
async fn dry_run_of<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    closable: &Closable,
    rewards: &RewardTables,
    was_frozen: bool,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<PeriodOperation, ServiceError> {
    let bref = closable.board();
    let mut op = PeriodOperation {
        board: bref.board.clone(),
        period: bref.period.clone(),
        was_frozen,
        dry_run: true,
        frozen: was_frozen,
        ranked: 0,
        checked: 0,
        already_sent: 0,
        to_send: 0,
        results: Vec::new(),
        sent: 0,
        done: false,
    };
    if !was_frozen {
        // What a close would send is the final snapshot's: the dry run freezes the
        // ended period first, as the close would (and the ticks will).
        op.frozen = closable.freeze(store, now, budget).await?.complete;
        if !op.frozen {
            return Ok(op);
        }
    }
    let dry = super::dry_runs::run(store, &bref, rewards, now, budget).await?;
    op.ranked = dry.ranked;
    op.checked = dry.checked;
    op.already_sent = dry.already_sent;
    op.to_send = if closable.table(rewards).is_some() {
        dry.checked - dry.already_sent - dry.deleted
    } else {
        0
    };
    op.results = dry.lines;
    Ok(op)
}

/// An operator's close, as its action record holds it (partition key `ACTION`, sort
/// key `close:{board}@{period}`): who asked, when, and how far it has gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CloseAction {
    pub board: String,
    pub period: String,
    /// The operator who asked first (a repeat joins), and when (UTC).
    pub operator: String,
    pub requested_at: DateTime<Utc>,
    /// When a step last moved it (UTC).
    pub updated_at: DateTime<Utc>,
    /// Players ranked in the final snapshot; results settled again so far (in rank
    /// order); of which sent by this action (the others were sent before), and left
    /// out for review.
    pub ranked: usize,
    pub settled: usize,
    pub sent: usize,
    #[serde(default)]
    pub unapplied: usize,
    /// Every result settled again; the whole close done (the league's week too).
    pub results_done: bool,
    pub done: bool,
}

const ACTION_PK: &str = "ACTION";

fn action_sk(board: &BoardRef) -> String {
    format!("close:{}", board.key())
}

fn action_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(ACTION_PK, action_sk(board))
}

fn json_body(a: &CloseAction) -> Vec<u8> {
    serde_json::to_vec(a).unwrap_or_default()
}

fn corrupt(sk: &str, e: serde_json::Error) -> ServiceError {
    ServiceError::Store(podium_store::StoreError::corrupt(format!("{ACTION_PK}/{sk}"), e))
}

async fn read_action<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Option<(CloseAction, u64)>, ServiceError> {
    let key = action_key(board);
    match store.get_item(&key, true).await? {
        Some(item) => Ok(Some((
            serde_json::from_slice(&item.body).map_err(|e| corrupt(&key.sk, e))?,
            item.version,
        ))),
        None => Ok(None),
    }
}

/// The action of closing `board` under way (a repeat joins it), or a new one (none
/// yet, or the last one done before `now`: a close asked again settles every result
/// once more). A done action saved at or after `now` is this request's own close,
/// finished by a request that arrived with it: joined, not begun again (so requests
/// sent at once make one close, whichever finishes first).
async fn begin<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    operator: &str,
    now: DateTime<Utc>,
) -> Result<(CloseAction, u64), ServiceError> {
    let fresh = CloseAction {
        board: board.board.clone(),
        period: board.period.clone(),
        operator: operator.to_string(),
        requested_at: now,
        updated_at: now,
        ranked: 0,
        settled: 0,
        sent: 0,
        unapplied: 0,
        results_done: false,
        done: false,
    };
    for _ in 0..5 {
        let version = match read_action(store, board).await? {
            Some((a, v)) if !a.done || a.updated_at >= now => return Ok((a, v)),
            Some((_, v)) => v,
            None => 0,
        };
        if store
            .put_item_if(&action_key(board), &json_body(&fresh), version)
            .await?
        {
            return Ok((fresh, version + 1));
        }
    }
    Err(ServiceError::Contended { attempts: 5 })
}

/// Saves `act`, stepped by this call from `before` (read at `version`). When another
/// step saved meanwhile (a concurrent request, a tick), what this call sent and how
/// far it got are added to what that one saved, so the record counts every message
/// once, by whichever step sent it; an action begun anew since (the last one done,
/// asked again) stands as it is. The record as saved (after 16 attempts lost to
/// other steps, the last one read: every message was still sent once, only its count
/// may lag). Errors: the store's.
async fn save<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    before: &CloseAction,
    mut act: CloseAction,
    mut version: u64,
) -> Result<CloseAction, ServiceError> {
    let sent = act.sent.saturating_sub(before.sent);
    let unapplied = act.unapplied.saturating_sub(before.unapplied);
    for _ in 0..16 {
        if store
            .put_item_if(&action_key(board), &json_body(&act), version)
            .await?
        {
            return Ok(act);
        }
        let Some((stored, v)) = read_action(store, board).await? else {
            return Ok(act);
        };
        if stored.requested_at != before.requested_at {
            return Ok(stored);
        }
        act = CloseAction {
            sent: stored.sent + sent,
            unapplied: stored.unapplied + unapplied,
            settled: stored.settled.max(act.settled),
            ranked: stored.ranked.max(act.ranked),
            results_done: stored.results_done || act.results_done,
            done: stored.done || act.done,
            updated_at: stored.updated_at.max(act.updated_at),
            ..stored
        };
        version = v;
    }
    Ok(act)
}

/// One step of `act` within `budget`: the freeze (when no tick froze the period),
/// then every result settled again from where it stands, then the league's week;
/// each part resumes where the last step stopped.
#[allow(clippy::too_many_arguments)]
async fn step<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    closable: &Closable,
    rewards: &RewardTables,
    act: &mut CloseAction,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<(), ServiceError> {
    let bref = closable.board();
    let table = closable.table(rewards);
    if !close::is_frozen(store, &bref).await? {
        let frozen = closable.freeze(store, now, budget).await?;
        if !frozen.complete {
            return Ok(());
        }
    }
    if !act.results_done {
        if table.is_some() {
            let game = closable.game();
            let Some(run) =
                close::rerun_within(store, game, &bref, table.as_ref(), now, act.settled, budget).await?
            else {
                return Ok(());
            };
            act.ranked = run.report.ranked;
            act.sent += run.report.sent;
            act.unapplied += run.report.unapplied;
            act.settled = run.next;
            if !run.report.done {
                return Ok(());
            }
        } else {
            // No reward table: no results to send; the count is the final's.
            act.ranked = close::ranked(store, closable.game(), &bref).await?;
        }
        act.results_done = true;
    }
    let league = closable
        .built_in()
        .and_then(|(def, p)| Some((podium_rules::league::league_of_board(def.id)?, p)));
    if let Some((league, p)) = league {
        let week = crate::players::leagues::close_week_within(store, league, &p.id, now, budget).await?;
        if !week.done {
            return Ok(());
        }
    }
    act.done = true;
    Ok(())
}

/// Every operator's close under way or done, by board and period (Queries of 100).
pub async fn actions<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<CloseAction>, ServiceError> {
    crate::engine::listing::all(store, ACTION_PK).await
}

/// Carries every operator's close under way one step on within `budget` (the ticks
/// call it), with `rewards`' tables; how many it moved. Errors: the store's (the
/// others are left to the next tick).
pub async fn carry_on<S: BoardStore + ItemStore + SettleStore + ?Sized>(
    store: &S,
    rewards: &RewardTables,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<usize, ServiceError> {
    let mut moved = 0;
    let under_way: Vec<(CloseAction, u64)> = crate::engine::listing::with_versions(store, ACTION_PK).await?;
    for (mut current, version) in under_way.into_iter().filter(|(a, _)| !a.done) {
        if moved > 0 && budget.expired() {
            break;
        }
        let Some(closable) = closable::named(store, &current.board, &current.period, now).await? else {
            continue;
        };
        let bref = closable.board();
        let before = current.clone();
        step(store, &closable, rewards, &mut current, now, budget).await?;
        current.updated_at = now;
        save(store, &bref, &before, current, version).await?;
        moved += 1;
    }
    Ok(moved)
}
