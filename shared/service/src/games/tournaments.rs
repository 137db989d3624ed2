//! Mahjong Rivals tournaments (MJ-12 … MJ-17) over the one commit path: the operator
//! configures one ([`configure`]); game servers send registrations and table results
//! through the match queue ([`settle_registration`], [`settle_table`]); the scheduled
//! tick ([`tick`]) starts or cancels each tournament at its start, closes it at its
//! end, fixes its winners once, and pays each prize exactly once.
//!
//! Every step is a settlement with its own idempotency key, so a tick that runs twice,
//! or dies half way and runs again, repeats nothing:
//!
//! | step | source key | writes |
//! |---|---|---|
//! | configure | `tournament` / `{id}` | the tournament's state, `open` |
//! | start | `tournament-status` / `{id}:start` | `running` or `cancelled` (fewer than its minimum registered, MJ-12, MJ-17) |
//! | close | `tournament-status` / `{id}:close` | `closing`: no table result counts after it |
//! | final | `tournament-status` / `{id}:final` | `final`: the winners in MJ-16's order, read from the standings board |
//! | prize | `tournament-prize` / `{id}:{place}` | the prize (balance, ledger, MJ-20 boards), the week's prize points, the 1st's trophy |
//!
//! Each status step also writes the tournament's state at the version it read, so two
//! ticks never both move it. The tick finds tournaments through an index item per
//! tournament (`TOURNAMENTS` / `{id}`), written after the configuration and deleted
//! once the tournament is paid or cancelled.

use chrono::{DateTime, Duration, Utc};
use podium_rules::mahjong::tournament::{FinalStanding, Tournament};
use podium_rules::mahjong::tournament_play::{
    self as play, Registered, Registration, Status, Table, TableResult, TournamentState, Trophies,
    WeekPrizes, Winner, WinnerAccount,
};
use podium_rules::settlement::{Planned, Settlement, StateChange};
use podium_store::{BoardKey, BoardStore, ItemKey, ItemStore, SettleStore, SortKeyRange, SourceKey};
use serde::de::DeserializeOwned;

use crate::budget::Budget;
use crate::engine::names::hex_sha256;
use crate::engine::settle::settle_as;
use crate::engine::source::{ReadState, Reads, Settled, Source};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// The partition of the tournaments' index items.
const INDEX_PK: &str = "TOURNAMENTS";

/// Index items one Query reads; the tick pages through them all.
const INDEX_PAGE: usize = 500;

/// After its start, how long a tournament waits before counting its registrations:
/// registrations sent before the start may still be in flight.
pub const START_WAIT: Duration = Duration::seconds(60);

/// After its end, how long before a tournament closes: table results in flight.
pub const CLOSE_WAIT: Duration = Duration::seconds(60);

/// After closing, how long before the winners are read from the standings board:
/// longer than a table result's settlement can take (the function's timeout), plus
/// the board index's propagation.
pub const FINAL_WAIT: Duration = Duration::seconds(90);

fn state_opt<T: DeserializeOwned>(
    read: &ReadState,
    owner: &str,
    name: &str,
) -> Result<Option<T>, ServiceError> {
    read.state(owner, name)
        .map(|s| {
            serde_json::from_str(&s.body).map_err(|e| {
                ServiceError::Store(podium_store::StoreError::corrupt(format!("state {name}"), e))
            })
        })
        .transpose()
}

fn tournament_read(id: &str) -> (String, String) {
    (play::tournament_owner(id), play::TOURNAMENT_STATE.to_string())
}

fn hash_of<T: serde::Serialize>(kind: &str, value: &T) -> String {
    hex_sha256(&format!(
        "{kind}\u{0}{}",
        serde_json::to_string(value).unwrap_or_default()
    ))
}

struct ConfigSource<'a>(&'a Tournament);

impl Source for ConfigSource<'_> {
    type Result = TournamentState;
    fn key(&self) -> SourceKey {
        SourceKey::new(play::KIND_CONFIG, self.0.tournament_id.clone())
    }
    fn content_hash(&self) -> String {
        hash_of(play::KIND_CONFIG, self.0)
    }
    fn reads(&self) -> Reads {
        Reads {
            states: vec![tournament_read(&self.0.tournament_id)],
            ..Reads::default()
        }
    }
    fn plan(&self, _read: &ReadState) -> Result<Planned<TournamentState>, ServiceError> {
        Ok(play::plan_config(self.0)?)
    }
    fn id_field(&self) -> &'static str {
        "tournament_id"
    }
}

/// Configures a tournament (MJ-12), exactly once per id: the same settings again are
/// a duplicate; other settings under the id a [`ServiceError::Conflict`]; invalid
/// ones [`ServiceError::Invalid`] naming the field.
pub async fn configure<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    t: &Tournament,
    delivery: &str,
    now: DateTime<Utc>,
) -> Result<Settled<TournamentState>, ServiceError> {
    let settled = settle_as(store, &ConfigSource(t), delivery, now).await?;
    store
        .put_items(
            &[(ItemKey::new(INDEX_PK, t.tournament_id.clone()), b"{}".to_vec())],
            None,
        )
        .await?;
    Ok(settled)
}

struct RegistrationSource<'a>(&'a Registration);

impl Source for RegistrationSource<'_> {
    type Result = Registered;
    fn key(&self) -> SourceKey {
        SourceKey::new(play::KIND_REGISTRATION, self.0.id())
    }
    fn content_hash(&self) -> String {
        hash_of(play::KIND_REGISTRATION, self.0)
    }

    fn record(&self) -> Option<String> {
        serde_json::to_string(self.0).ok()
    }
    fn reads(&self) -> Reads {
        let r = self.0;
        Reads {
            states: vec![
                tournament_read(&r.tournament_id),
                (
                    r.player_id.clone(),
                    play::prize_week_state(&play::week_of(r.registered_at)),
                ),
            ],
            ..Reads::default()
        }
    }
    fn plan(&self, read: &ReadState) -> Result<Planned<Registered>, ServiceError> {
        let r = self.0;
        let (owner, name) = tournament_read(&r.tournament_id);
        let state: Option<TournamentState> = state_opt(read, &owner, &name)?;
        let week: WeekPrizes = state_body(
            read,
            &r.player_id,
            &play::prize_week_state(&play::week_of(r.registered_at)),
        )?;
        Ok(play::plan_registration(r, state.as_ref(), week)?)
    }
    fn id_field(&self) -> &'static str {
        "player_id"
    }
}

/// Settles a registration exactly once (one per account and tournament). Errors:
/// [`ServiceError::Invalid`] (MJ-12: unknown, closed or started; MJ-17: not enough
/// prize points this week), [`ServiceError::Conflict`], and the transient ones.
pub async fn settle_registration<S: SettleStore + ?Sized>(
    store: &S,
    r: &Registration,
    delivery: &str,
    now: DateTime<Utc>,
) -> Result<Settled<Registered>, ServiceError> {
    settle_as(store, &RegistrationSource(r), delivery, now).await
}

struct TableSource<'a>(&'a Table);

impl Source for TableSource<'_> {
    type Result = TableResult;
    fn key(&self) -> SourceKey {
        SourceKey::new(play::KIND_TABLE, self.0.table_id.clone())
    }
    fn content_hash(&self) -> String {
        hash_of(play::KIND_TABLE, self.0)
    }

    fn record(&self) -> Option<String> {
        serde_json::to_string(self.0).ok()
    }
    fn reads(&self) -> Reads {
        let t = self.0;
        let mut states = vec![tournament_read(&t.tournament_id)];
        states.extend(
            t.players
                .iter()
                .map(|p| (p.player_id.clone(), play::registration_state(&t.tournament_id))),
        );
        Reads {
            states,
            ..Reads::default()
        }
    }
    fn plan(&self, read: &ReadState) -> Result<Planned<TableResult>, ServiceError> {
        let t = self.0;
        let (owner, name) = tournament_read(&t.tournament_id);
        let state: Option<TournamentState> = state_opt(read, &owner, &name)?;
        let registered = t
            .players
            .iter()
            .map(|p| state_opt::<Registered>(read, &p.player_id, &play::registration_state(&t.tournament_id)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(play::plan_table(t, state.as_ref(), &registered)?)
    }
    fn id_field(&self) -> &'static str {
        "table_id"
    }
}

/// Settles a table result exactly once per table id. Errors:
/// [`ServiceError::Invalid`] (MJ-10, MJ-12, MJ-16), [`ServiceError::Conflict`], and
/// the transient ones.
pub async fn settle_table<S: SettleStore + ?Sized>(
    store: &S,
    t: &Table,
    delivery: &str,
    now: DateTime<Utc>,
) -> Result<Settled<TableResult>, ServiceError> {
    settle_as(store, &TableSource(t), delivery, now).await
}

/// One status step of a tournament: from `from` (as read) to `to`.
struct StatusSource<'a> {
    id: &'a str,
    step: &'static str,
    to: TournamentState,
}

impl Source for StatusSource<'_> {
    type Result = TournamentState;
    fn key(&self) -> SourceKey {
        SourceKey::new(play::KIND_STATUS, format!("{}:{}", self.id, self.step))
    }
    fn content_hash(&self) -> String {
        hash_of(play::KIND_STATUS, &self.to)
    }
    fn reads(&self) -> Reads {
        Reads {
            states: vec![tournament_read(self.id)],
            ..Reads::default()
        }
    }
    fn plan(&self, _read: &ReadState) -> Result<Planned<TournamentState>, ServiceError> {
        let mut s = Settlement::result_only(self.to.clone());
        s.states.push(StateChange {
            player_id: play::tournament_owner(self.id),
            name: play::TOURNAMENT_STATE.to_string(),
            body: serde_json::json!(self.to),
        });
        Ok(Planned::Write(s))
    }
    fn id_field(&self) -> &'static str {
        "tournament_id"
    }
    /// Up to 100 winners: each one's prize settlement references the state and the
    /// final step that name them ([`PrizeSource`]), not this one transaction.
    fn references_named(&self) -> bool {
        false
    }
}

struct PrizeSource<'a> {
    t: &'a Tournament,
    w: &'a Winner,
    now: DateTime<Utc>,
}

impl Source for PrizeSource<'_> {
    type Result = play::PrizePaid;
    fn key(&self) -> SourceKey {
        SourceKey::new(
            play::KIND_PRIZE,
            play::prize_id(&self.t.tournament_id, self.w.place),
        )
    }
    fn content_hash(&self) -> String {
        hash_of(play::KIND_PRIZE, self.w)
    }
    fn reads(&self) -> Reads {
        let p = &self.w.player_id;
        Reads {
            balances: vec![(play::GAME, p.clone(), false)],
            states: vec![
                (p.clone(), play::prize_week_state(&play::week_of(self.t.ends_at))),
                (p.clone(), play::TROPHIES_STATE.to_string()),
            ],
            ..Reads::default()
        }
    }
    /// GM-6: the tournament's state and its final step name the winner.
    fn references(&self) -> Vec<podium_store::Reference> {
        let id = &self.t.tournament_id;
        let player_id = self.w.player_id.clone();
        vec![
            podium_store::Reference {
                player_id: player_id.clone(),
                named: podium_store::Named::State {
                    owner: play::tournament_owner(id),
                    name: play::TOURNAMENT_STATE.to_string(),
                },
            },
            podium_store::Reference {
                player_id,
                named: podium_store::Named::Source {
                    kind: play::KIND_STATUS.to_string(),
                    id: format!("{id}:final"),
                },
            },
        ]
    }
    fn plan(&self, read: &ReadState) -> Result<Planned<play::PrizePaid>, ServiceError> {
        let p = &self.w.player_id;
        let account = WinnerAccount {
            balance: read.balance(play::GAME, p).points,
            week_prizes: state_body(read, p, &play::prize_week_state(&play::week_of(self.t.ends_at)))?,
            trophies: state_body::<Trophies>(read, p, play::TROPHIES_STATE)?,
        };
        Ok(play::plan_prize(self.t, self.w, &account, self.now))
    }
    fn id_field(&self) -> &'static str {
        "tournament_id"
    }
}

/// What one tick did to one tournament.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TickReport {
    pub tournament_id: String,
    /// The status steps taken (`start`, `close`, `final`, `cancelled`).
    pub steps: Vec<&'static str>,
    /// Prizes this tick paid (the others were paid before, or are 0).
    pub prizes_paid: u32,
    /// Whether the tournament is done (paid or cancelled) and left the index.
    pub done: bool,
}

/// Moves every tournament along at `now` (the schedule's time): start or cancel
/// after its start, close after its end, fix its winners after closing, pay them.
/// Safe to run twice, and to resume after dying half way. Errors: the first
/// tournament that failed (the others moved, [`tick_within`]).
pub async fn tick<S: SettleStore + BoardStore + ItemStore + ?Sized>(
    store: &S,
    now: DateTime<Utc>,
) -> Result<Vec<TickReport>, ServiceError> {
    match tick_within(store, now, Budget::unbounded()).await {
        (_, Some(e)) => Err(e),
        (moved, None) => Ok(moved),
    }
}

/// [`tick`] within `budget`: the tournaments in id order until its deadline (each
/// one's steps are bounded by its prize places, not its players: a count of its
/// entrants, its top entries, one settlement per prize), the rest left to the next
/// tick; one that fails is left for the next tick while the others move, unless the
/// store does not answer (then nothing more is tried). Returns what moved and the
/// first failure.
pub async fn tick_within<S: SettleStore + BoardStore + ItemStore + ?Sized>(
    store: &S,
    now: DateTime<Utc>,
    budget: Budget,
) -> (Vec<TickReport>, Option<ServiceError>) {
    let mut out = Vec::new();
    let ids = match active(store).await {
        Ok(ids) => ids,
        Err(e) => return (out, Some(e)),
    };
    let mut failed = None;
    for (taken, id) in ids.iter().enumerate() {
        if taken > 0 && budget.expired() {
            break;
        }
        match advance(store, id, now).await {
            Ok(report) => out.push(report),
            Err(e) => {
                tracing::error!(tournament = %id, error = %e, "moving a tournament along failed; the others go on");
                let stop = e.is_unavailable();
                failed.get_or_insert(e);
                if stop {
                    break;
                }
            }
        }
    }
    (out, failed)
}

/// The ids in the index of tournaments not done yet, in id order (a page of
/// [`INDEX_PAGE`] per Query).
async fn active<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<String>, ServiceError> {
    let mut out = Vec::new();
    let mut range = SortKeyRange::All;
    loop {
        let ids = store
            .query_items(INDEX_PK, &range, true, INDEX_PAGE, true)
            .await?;
        let full = ids.len() == INDEX_PAGE;
        for (id, _) in ids {
            range = SortKeyRange::After(id.clone());
            out.push(id);
        }
        if !full {
            return Ok(out);
        }
    }
}

/// Tournament `id`'s stored settings and status, if it is configured.
async fn read_state<S: SettleStore + ?Sized>(
    store: &S,
    id: &str,
) -> Result<Option<TournamentState>, ServiceError> {
    let (owner, name) = tournament_read(id);
    let Some(stored) = store.get_state(&owner, &name).await? else {
        return Ok(None);
    };
    serde_json::from_str(&stored.body)
        .map(Some)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(format!("tournament {id}"), e)))
}

/// The earliest instant after which a [`tick`] would move some tournament along: its
/// start, its end, its final places (each after its wait: [`START_WAIT`],
/// [`CLOSE_WAIT`], [`FINAL_WAIT`]), or at once for one whose prizes or cancellation
/// are still to be settled (`after` itself). `None` when no tournament waits for a tick.
pub async fn next_due<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    after: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, ServiceError> {
    let mut due: Option<DateTime<Utc>> = None;
    for id in active(store).await? {
        let Some(state) = read_state(store, &id).await? else {
            continue;
        };
        let t = &state.tournament;
        let at = match &state.status {
            Status::Open => Some(t.starts_at + START_WAIT),
            Status::Running { .. } => Some(t.ends_at + CLOSE_WAIT),
            Status::Closing { since_ms } => {
                DateTime::from_timestamp_millis(since_ms.saturating_add(FINAL_WAIT.num_milliseconds()))
            }
            Status::Final { .. } | Status::Cancelled { .. } => Some(after),
        };
        if let Some(at) = at.map(|a| a.max(after)) {
            due = Some(due.map_or(at, |d| d.min(at)));
        }
    }
    Ok(due)
}

async fn advance<S: SettleStore + BoardStore + ItemStore + ?Sized>(
    store: &S,
    id: &str,
    now: DateTime<Utc>,
) -> Result<TickReport, ServiceError> {
    let mut report = TickReport {
        tournament_id: id.to_string(),
        steps: Vec::new(),
        prizes_paid: 0,
        done: false,
    };
    // This call's own delivery: what it settles is told apart from what another tick
    // settled (a tick at the same instant of a clock that stands still, a retry), so
    // the report counts only the prizes this call paid. Not a clock reading: two
    // calls never share it.
    let delivery = format!("tick-{}-{:016x}", now.timestamp_millis(), rand::random::<u64>());
    loop {
        let Some(state) = read_state(store, id).await? else {
            return Ok(report);
        };
        let t = state.tournament.clone();
        let (step, status) = match &state.status {
            Status::Open if now >= t.starts_at + START_WAIT => {
                let registered = store
                    .count_before(&play::standings_board(id), &after_every_entry())
                    .await?;
                if t.cancelled_with(registered) {
                    ("start", Status::Cancelled { registered })
                } else {
                    ("start", Status::Running { registered })
                }
            }
            Status::Running { .. } if now >= t.ends_at + CLOSE_WAIT => (
                "close",
                Status::Closing {
                    since_ms: now.timestamp_millis(),
                },
            ),
            Status::Closing { since_ms }
                if now.timestamp_millis() >= since_ms + FINAL_WAIT.num_milliseconds() =>
            {
                let n = t.prizes.len().max(1);
                let top = store.board_after(&play::standings_board(id), None, n).await?;
                let ordered: Vec<FinalStanding> = top
                    .into_iter()
                    .map(|s| FinalStanding {
                        player_id: s.player_id,
                        tp: s.value,
                        registered_at_ms: s.reached_at_ms,
                    })
                    .collect();
                (
                    "final",
                    Status::Final {
                        winners: play::winners(&t, &ordered),
                    },
                )
            }
            Status::Final { winners } => {
                for w in winners {
                    let paid = settle_as(store, &PrizeSource { t: &t, w, now }, &delivery, now).await?;
                    if matches!(paid, Settled::Applied(_)) && w.prize > 0 {
                        report.prizes_paid += 1;
                    }
                }
                store.delete_items(&[ItemKey::new(INDEX_PK, id)]).await?;
                report.done = true;
                return Ok(report);
            }
            Status::Cancelled { .. } => {
                store.delete_items(&[ItemKey::new(INDEX_PK, id)]).await?;
                report.done = true;
                return Ok(report);
            }
            _ => return Ok(report),
        };
        let to = TournamentState {
            tournament: t,
            status,
        };
        // The report names a cancellation; its idempotency key is the start's.
        let shown = if matches!(to.status, Status::Cancelled { .. }) {
            "cancelled"
        } else {
            step
        };
        let source = StatusSource { id, step, to };
        match settle_as(store, &source, &delivery, now).await {
            // Another tick took this step with what it read: go on from the stored state.
            Ok(_) | Err(ServiceError::Conflict { .. }) => {}
            Err(e) => return Err(e),
        }
        report.steps.push(shown);
    }
}

/// A key after every entry of a board of TP ≥ 0 (for counting them all).
fn after_every_entry() -> BoardKey {
    BoardKey {
        value: 0,
        reached_at_ms: i64::MAX,
        player_id: "~".into(),
    }
}

/// An Arena's result (MJ-11), for one of its players only; anyone else gets
/// [`ServiceError::NotFound`], as if it did not exist.
pub async fn arena_result<S: SettleStore + ?Sized>(
    store: &S,
    player_id: &str,
    arena_id: &str,
) -> Result<podium_rules::mahjong::arena::ArenaResult, ServiceError> {
    use podium_rules::mahjong::arena;
    let not_found = || ServiceError::NotFound("no such Arena of yours".into());
    if !podium_rules::record::ids::is_valid_id(arena_id) {
        return Err(not_found());
    }
    let result: arena::ArenaResult =
        crate::games::results::stored(store, &SourceKey::new(arena::KIND, arena_id))
            .await?
            .ok_or_else(not_found)?;
    if result.standings.iter().any(|s| s.player_id == player_id) {
        Ok(result)
    } else {
        Err(not_found())
    }
}

/// A tournament table's TP (MJ-13 … MJ-15), for one of its players only.
pub async fn table_result<S: SettleStore + ?Sized>(
    store: &S,
    player_id: &str,
    table_id: &str,
) -> Result<TableResult, ServiceError> {
    let not_found = || ServiceError::NotFound("no such table of yours".into());
    if !podium_rules::record::ids::is_valid_id(table_id) {
        return Err(not_found());
    }
    let result: TableResult =
        crate::games::results::stored(store, &SourceKey::new(play::KIND_TABLE, table_id))
            .await?
            .ok_or_else(not_found)?;
    if result.tp.iter().any(|(p, _)| p == player_id) {
        Ok(result)
    } else {
        Err(not_found())
    }
}

/// A tournament: its settings and where it stands (open, running, cancelled,
/// closing, or final with its winners, MJ-16). A winner suspended now is not shown
/// (OP-4, [`crate::boards::visibility::Hidden`]); the others keep the place and prize
/// MJ-16 fixed. [`ServiceError::NotFound`] for an unknown id. One read; once final,
/// one more (the winners' guards: who is suspended) and the winners' cards.
pub async fn tournament<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    tournament_id: &str,
) -> Result<TournamentState, ServiceError> {
    let mut state = stored_tournament(store, tournament_id).await?;
    if let Status::Final { winners } = &mut state.status {
        let ids: Vec<&str> = winners.iter().map(|w| w.player_id.as_str()).collect();
        let hidden = crate::boards::visibility::Hidden::among(store, &ids).await?;
        *winners = hidden.shown(std::mem::take(winners), |w| &w.player_id);
        // PF-5: the winners' cards, one batch read.
        crate::profiles::cards::fill(
            store,
            winners.iter_mut().map(|w| (w.player_id.as_str(), &mut w.card)),
        )
        .await?;
    }
    Ok(state)
}

/// True when tournament `id` is configured (one read of its state item): its
/// standings board exists (MJ-16); any other `mahjong-tournament-…` board is no board.
pub async fn exists<S: SettleStore + ?Sized>(store: &S, id: &str) -> Result<bool, ServiceError> {
    Ok(podium_rules::record::ids::is_valid_id(id) && read_state(store, id).await?.is_some())
}

async fn stored_tournament<S: SettleStore + ?Sized>(
    store: &S,
    tournament_id: &str,
) -> Result<TournamentState, ServiceError> {
    let not_found = || {
        ServiceError::NotFound(format!(
            "no such tournament: {}",
            podium_rules::error::quoted(tournament_id)
        ))
    };
    if !podium_rules::record::ids::is_valid_id(tournament_id) {
        return Err(not_found());
    }
    read_state(store, tournament_id).await?.ok_or_else(not_found)
}
