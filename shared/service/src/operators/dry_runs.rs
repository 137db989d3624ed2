//! A period close's dry run (what a close would send, to whom) that outgrows a request:
//! it looks up every ranked player's result message, a million GetItems at 10^6
//! players. It is carried out like an operator's close: recorded (partition key
//! `ACTION#DRY-RUN`, sort key `{board}@{period}`), stepped for about a second by the
//! request (a chunk of [`close::CHUNK`] results a step, [`IN_FLIGHT`] lookups at a
//! time, the results streamed from the final snapshot), then by every tick until every
//! result is checked. A repeat joins the dry run under way, or answers one finished
//! within [`FRESH_FOR_MINUTES`]; an older one is begun again (what was sent may have
//! changed). It writes nothing but its own record, and is not audited (OP-5: it
//! changes nothing).

use chrono::{DateTime, Duration, Utc};
use podium_rules::board::BoardRef;
use podium_rules::period_reward::RewardTables;
use podium_store::{ItemKey, ItemStore, SettleStore};
use serde::{Deserialize, Serialize};

use crate::boards::close;
use crate::boards::final_results::FinalResults;
use crate::budget::Budget;
use crate::error::ServiceError;

const PK: &str = "ACTION#DRY-RUN";

/// The most result lines a dry run lists.
pub const MAX_LISTED: usize = 1_000;

/// One player's result of the period, and whether it was sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResultLine {
    pub player_id: String,
    /// LB-2 rank, of `of` ranked.
    pub rank: u64,
    pub of: u64,
    /// The value the period ended with (stored units: points, or milliseconds).
    pub value: i64,
    /// The reward (points; 0 for none).
    pub reward: i64,
    /// The Jokers (MJ-6) paid with it (a defined board's prize, BD-9; 0 for none).
    #[serde(default)]
    pub jokers: u64,
    /// Whether the result message was sent before (a close sends it at most once).
    pub sent: bool,
}

/// Result messages looked up at a time.
pub const IN_FLIGHT: usize = 16;

/// How long a finished dry run is answered to a repeat (minutes).
pub const FRESH_FOR_MINUTES: i64 = 10;

/// A dry run, as its record holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DryRun {
    pub board: String,
    pub period: String,
    /// When it was asked, last stepped and finished (UTC).
    pub requested_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<DateTime<Utc>>,
    /// Players ranked; results checked so far (in rank order), of which sent before,
    /// and of which to players deleted since (GM-6: sent nothing, not listed).
    pub ranked: usize,
    pub checked: usize,
    pub already_sent: usize,
    #[serde(default)]
    pub deleted: usize,
    /// The first [`MAX_LISTED`] results (left out of the jobs' status).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<ResultLine>,
    /// The players (id hashes) it leaves out, fixed when it began (OP-4), so that its
    /// steps count one ranking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub left_out: Option<Vec<String>>,
}

fn key(board: &BoardRef) -> ItemKey {
    ItemKey::new(PK, board.key())
}

fn body(d: &DryRun) -> Vec<u8> {
    serde_json::to_vec(d).unwrap_or_default()
}

/// The dry run of `board`'s frozen period (paid by `rewards`' table) joined or begun at
/// `now`, stepped within `budget`, and saved. Errors: the store's.
pub async fn run<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    rewards: &RewardTables,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<DryRun, ServiceError> {
    let k = key(board);
    let (mut dry, version) = match store.get_item(&k, true).await? {
        Some(item) => {
            let d: DryRun = serde_json::from_slice(&item.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(&k.sk, e)))?;
            // A finished dry run that found results to send may be overtaken by any
            // close since (the ticks' or an operator's): it is begun again; one that
            // found every result sent stays true (a result once sent stays sent).
            let left_to_send = d.checked > d.already_sent + d.deleted;
            let stale = d
                .finished_at
                .is_some_and(|f| left_to_send || now - f > Duration::minutes(FRESH_FOR_MINUTES));
            if stale {
                (fresh(board, now), item.version)
            } else {
                (d, item.version)
            }
        }
        None => (fresh(board, now), 0),
    };
    if dry.finished_at.is_none() {
        step(store, &mut dry, rewards, now, budget).await?;
        // Lost to a tick that stepped it meanwhile: its record stands, the next call
        // reads it.
        store.put_item_if(&k, &body(&dry), version).await?;
    }
    Ok(dry)
}

fn fresh(board: &BoardRef, now: DateTime<Utc>) -> DryRun {
    DryRun {
        board: board.board.clone(),
        period: board.period.clone(),
        requested_at: now,
        updated_at: now,
        finished_at: None,
        ranked: 0,
        checked: 0,
        already_sent: 0,
        deleted: 0,
        lines: Vec::new(),
        left_out: None,
    }
}

/// Checks `dry`'s next results within `budget` (a chunk of [`close::CHUNK`] a step).
async fn step<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    dry: &mut DryRun,
    rewards: &RewardTables,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<(), ServiceError> {
    let Some(closable) = super::closable::named(store, &dry.board, &dry.period, now).await? else {
        dry.finished_at = Some(now);
        return Ok(());
    };
    let board = closable.board();
    let table = closable.table(rewards);
    let table = table.as_ref();
    let left_out = match dry.left_out.clone() {
        Some(l) => l,
        None => close::left_out(store, &board).await?,
    };
    dry.left_out = Some(left_out.clone());
    let mut results = FinalResults::open(store, closable.game(), &board, table, &left_out).await?;
    // GM-6: a player deleted since the freeze keeps their place (the period's ranks
    // stand) but is sent nothing: neither listed nor counted to send.
    let pointer = crate::boards::snapshot::read::current_consistent(store, &board).await?;
    let deleted = |id: &str| pointer.as_ref().is_some_and(|p| p.hides(id));
    dry.ranked = results.of;
    results.skip(store, dry.checked).await?;
    let mut taken = 0;
    while !results.exhausted() {
        if budget.stops_after(taken) {
            dry.updated_at = now;
            return Ok(());
        }
        taken += 1;
        let chunk = results.next(store, close::CHUNK).await?;
        let mut sent: Vec<bool> = Vec::with_capacity(chunk.len());
        for group in chunk.chunks(IN_FLIGHT) {
            let found = futures::future::try_join_all(
                group
                    .iter()
                    .map(|r| close::was_sent(store, &board, table.is_some(), &r.player_id)),
            )
            .await?;
            sent.extend(found);
        }
        for (r, sent) in chunk.iter().zip(sent) {
            if deleted(&r.player_id) {
                dry.deleted += 1;
                continue;
            }
            dry.already_sent += usize::from(sent);
            if dry.lines.len() < MAX_LISTED {
                dry.lines.push(ResultLine {
                    player_id: r.player_id.clone(),
                    rank: r.rank,
                    of: r.of,
                    value: r.value,
                    reward: r.reward,
                    jokers: r.jokers,
                    sent,
                });
            }
        }
        dry.checked += chunk.len();
    }
    dry.updated_at = now;
    dry.finished_at = Some(now);
    Ok(())
}

/// GM-6: removes every dry run that lists `player_id` (a repeat begins it again).
/// Errors: the store's.
pub async fn forget_player<S: ItemStore + ?Sized>(store: &S, player_id: &str) -> Result<(), ServiceError> {
    let all: Vec<DryRun> = crate::engine::listing::all(store, PK).await?;
    let keys: Vec<ItemKey> = all
        .iter()
        .filter(|d| d.lines.iter().any(|l| l.player_id == player_id))
        .map(|d| key(&BoardRef::new(d.board.clone(), d.period.clone())))
        .collect();
    store.delete_items(&keys).await?;
    Ok(())
}

/// Every dry run under way or finished (Queries of 100), without their lines.
pub async fn list<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<DryRun>, ServiceError> {
    let mut all: Vec<DryRun> = crate::engine::listing::all(store, PK).await?;
    for d in &mut all {
        d.lines.clear();
        d.left_out = None;
    }
    Ok(all)
}

/// Carries every dry run under way one step on within `budget` (the ticks call it),
/// with `rewards`' tables; removes those finished more than [`FRESH_FOR_MINUTES`] ago.
/// How many it moved. Errors: the store's.
pub async fn carry_on<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    rewards: &RewardTables,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<usize, ServiceError> {
    let mut moved = 0;
    let all: Vec<(DryRun, u64)> = crate::engine::listing::with_versions(store, PK).await?;
    for (mut dry, version) in all {
        let board = BoardRef::new(dry.board.clone(), dry.period.clone());
        if let Some(f) = dry.finished_at {
            if now - f > Duration::minutes(FRESH_FOR_MINUTES) {
                store.delete_item_if(&key(&board), version).await?;
            }
            continue;
        }
        if moved > 0 && budget.expired() {
            break;
        }
        step(store, &mut dry, rewards, now, budget).await?;
        store.put_item_if(&key(&board), &body(&dry), version).await?;
        moved += 1;
    }
    Ok(moved)
}
