//! Closing a period (LB-5): once a period board's period is frozen, every player of its
//! final snapshot gets a `period_result` message (final rank, of N, top X %) in their
//! inbox, with the reward the board's table pays for their place
//! ([`podium_rules::period_reward`]), collected later by a claim ([`crate::players::inbox`]).
//!
//! Each message is a settlement of its own (source `period-result`, idempotency key
//! `{board}@{period}:{player}`) that writes the player's inbox state, so a message is
//! sent exactly once whatever the retries, reruns or concurrent runs. The run is
//! resumable: it records how many results it settled (chunks of [`CHUNK`]) and a rerun
//! starts there; a finished run records it and is not redone.

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::inbox::{self, Inbox};
use podium_rules::message::Message;
use podium_rules::period_reward::{PeriodResult, RewardTable};
use podium_rules::settlement::{Planned, Settlement};
use podium_store::{ItemKey, ItemStore, SettleStore, SourceKey};
use serde::{Deserialize, Serialize};

use crate::boards::final_results::FinalResults;
use crate::boards::snapshot;
use crate::boards::snapshot::layout::FINAL;
use crate::engine::names::hex_sha256;
use crate::engine::settle::settle_all;
use crate::engine::source::{ReadState, Reads, Source};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// The source kind of a period's result message.
pub const KIND: &str = "period-result";

/// The job named in the records of results a close could not apply.
pub const CLOSE_JOB: &str = "period-close";

/// Results settled between two progress records.
pub const CHUNK: usize = 256;

/// Results settled at a time.
pub const IN_FLIGHT: usize = 16;

/// One player's result of a closed period, as a settlement.
struct ResultMessage<'a> {
    board: &'a BoardRef,
    game: Game,
    result: &'a PeriodResult,
    /// On a team board (TM-7): the team whose result this member's share is, and what
    /// the member brought it.
    team: Option<(&'a str, i64)>,
    now: DateTime<Utc>,
}

impl Source for ResultMessage<'_> {
    type Result = Message;

    fn key(&self) -> SourceKey {
        match self.team {
            // A member who moved teams in the period has a share of each.
            Some((team, _)) => share_key(self.board, &self.result.player_id, team),
            None => result_key(self.board, &self.result.player_id),
        }
    }

    fn content_hash(&self) -> String {
        let r = self.result;
        hex_sha256(&format!(
            "{}|{}|{}|{}|{}|{}|{}",
            self.board.key(),
            r.player_id,
            r.rank,
            r.of,
            r.value,
            r.reward,
            r.jokers
        ))
    }

    fn reads(&self) -> Reads {
        // A reward reads the inbox it joins and the balance it may be paid into
        // (LB-5: an inbox full of rewards has it paid at once); a result without one
        // reads nothing.
        if !self.result.rewarded() {
            return Reads::default();
        }
        let player = &self.result.player_id;
        let mut reads = crate::boards::reward::reward_reads(player, self.game, self.result.jokers > 0);
        reads.states.push((player.clone(), inbox::STATE.to_string()));
        reads
    }

    /// The message joins the inbox in the commit ([`Settlement::messages`]); its
    /// reward is paid at once when the inbox holds [`inbox::MAX_UNCLAIMED`] waiting.
    fn plan(&self, read: &ReadState) -> Result<Planned<Message>, ServiceError> {
        let player = &self.result.player_id;
        let mut message = Message::period_result(
            &self.board.board,
            &self.board.period,
            self.game,
            self.result,
            self.now,
        );
        if let Some((team, contribution)) = self.team {
            message = message.of_team(team, contribution);
        }
        let mut paid = None;
        if self.result.rewarded() {
            let held: Inbox = state_body(read, player, inbox::STATE)?;
            if held.pays_at_once(&message.id) {
                if let Some((m, reward)) = message.clone().paid(self.now) {
                    (message, paid) = (m, Some(reward));
                }
            }
        }
        let mut s = Settlement::result_only(message.clone());
        if let Some(reward) = paid {
            // LB-5: paid into the balance (and the Jokers, BD-9) as a claim would, in
            // this commit.
            crate::boards::reward::pay(read, player, &reward, &message.id, self.now, &mut s)?;
        }
        s.messages.push((player.clone(), message));
        Ok(Planned::Write(s))
    }

    fn id_field(&self) -> &'static str {
        "player_id"
    }

    fn concerns(&self) -> Option<&str> {
        Some(&self.result.player_id)
    }
}

/// How far a close got (the progress item's body).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Progress {
    /// Results settled, in listing order.
    settled: usize,
    done: bool,
    /// The players the close leaves out (OP-4: suspended when it was first run), as
    /// id hashes ([`crate::engine::names::id_hash`]); decided once, before any result
    /// is sent, and kept (a restore later does not change the period's results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    left_out: Option<Vec<String>>,
}

fn progress_key(board: &BoardRef) -> ItemKey {
    ItemKey::new(format!("CLOSE#{}", board.key()), "PROGRESS")
}

async fn read_progress<S: ItemStore + ?Sized>(
    store: &S,
    key: &ItemKey,
) -> Result<(Progress, u64), ServiceError> {
    match store.get_item(key, true).await? {
        Some(item) => Ok((
            serde_json::from_slice(&item.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(&key.pk, e)))?,
            item.version,
        )),
        None => Ok((Progress::default(), 0)),
    }
}

/// What one call of [`close`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CloseReport {
    pub board: String,
    pub period: String,
    /// Players ranked in the frozen snapshot.
    pub ranked: usize,
    /// Messages this call wrote (others were written before, or their player deleted).
    pub sent: usize,
    /// Results this call went through with a reward (sent now or before), and the
    /// points they offer: summed over a close's calls, the period's.
    pub rewarded: usize,
    pub reward_points: i64,
    /// Results skipped because the player was deleted (GM-6).
    pub skipped: usize,
    /// Results that could not be applied, recorded for review
    /// ([`crate::engine::unapplied`]; the close went on without them).
    pub unapplied: usize,
    /// Whether the period is closed: every result settled.
    pub done: bool,
    /// Whether it was closed before this call.
    pub already_done: bool,
}

/// The results of `board`'s frozen period (LB-2 ranks over its final snapshot, with
/// `table`'s rewards), in listing order, without the players the close leaves out
/// (OP-4: those suspended when it was first run, or now if it has not run; the ranks
/// below them close up). Holds them all: for a dry run's listing and tools; a close
/// streams them ([`FinalResults`]).
pub async fn final_results<S: ItemStore + ?Sized>(
    store: &S,
    game: Game,
    board: &BoardRef,
    table: Option<&RewardTable>,
) -> Result<Vec<PeriodResult>, ServiceError> {
    let mut stream = stream_of(store, game, board, table).await?;
    stream.next(store, usize::MAX).await
}

/// How many players `board`'s frozen period ranks (its final's entries less those the
/// close leaves out): the final's directory only.
pub async fn ranked<S: ItemStore + ?Sized>(
    store: &S,
    game: Game,
    board: &BoardRef,
) -> Result<usize, ServiceError> {
    Ok(stream_of(store, game, board, None).await?.of)
}

/// The results of `board`'s frozen period as a stream, leaving out whom the close
/// leaves out ([`left_out`]).
async fn stream_of<'a, S: ItemStore + ?Sized>(
    store: &S,
    game: Game,
    board: &'a BoardRef,
    table: Option<&'a RewardTable>,
) -> Result<FinalResults<'a>, ServiceError> {
    FinalResults::open(store, game, board, table, &left_out(store, board).await?).await
}

/// The players (id hashes) `board`'s close leaves out: decided by its first run, or
/// those suspended now if it has not run (OP-4). Reads only.
pub async fn left_out<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Vec<String>, ServiceError> {
    let (progress, _) = read_progress(store, &progress_key(board)).await?;
    match progress.left_out {
        Some(l) => Ok(l),
        None => suspended_now(store, board).await,
    }
}

/// The players suspended now on `board`'s frozen period (its pointer's hidden
/// entries), as id hashes.
async fn suspended_now<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<Vec<String>, ServiceError> {
    Ok(snapshot::read::current_consistent(store, board)
        .await?
        .map(|p| {
            p.erased
                .iter()
                .filter(|e| e.suspended)
                .map(|e| e.hash.clone())
                .collect()
        })
        .unwrap_or_default())
}

/// The close's progress with the players it leaves out decided: recorded by the
/// first run (conditionally: concurrent runs agree), read by the others.
async fn decided<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
) -> Result<(Progress, u64), ServiceError> {
    let key = progress_key(board);
    for _ in 0..10 {
        let (mut progress, version) = read_progress(store, &key).await?;
        if progress.left_out.is_some() || progress.done {
            return Ok((progress, version));
        }
        progress.left_out = Some(suspended_now(store, board).await?);
        let body = serde_json::to_vec(&progress).unwrap_or_default();
        if store.put_item_if(&key, &body, version).await? {
            return Ok((progress, version + 1));
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}

/// Whether `board`'s period is frozen (LB-5): its `CURRENT` pointer is the final
/// snapshot, the one readers of the period, the next period's movement and the close
/// all read (one strongly consistent read). Not the run state: a final recorded
/// complete whose publication was lost is not frozen until it is published.
pub async fn is_frozen<S: ItemStore + ?Sized>(store: &S, board: &BoardRef) -> Result<bool, ServiceError> {
    Ok(snapshot::read::current_consistent(store, board)
        .await?
        .is_some_and(|p| p.id == FINAL))
}

/// The idempotency key of `player_id`'s result message of `board`'s period.
pub fn result_key(board: &BoardRef, player_id: &str) -> SourceKey {
    SourceKey::new(KIND, format!("{}:{player_id}", board.key()))
}

/// The idempotency key of `player_id`'s share of team `team_id`'s result of `board`'s
/// period (TM-7: a member who moved teams in the period has a share of each).
fn share_key(board: &BoardRef, player_id: &str, team_id: &str) -> SourceKey {
    SourceKey::new(KIND, format!("{}:{player_id}:{team_id}", board.key()))
}

/// The item keeping team `team_id`'s shares of `board`'s period, once decided.
fn shares_key(board: &BoardRef, team_id: &str) -> ItemKey {
    ItemKey::new(format!("TEAMSHARES#{}", board.key()), team_id)
}

/// Whether the result of entry `entrant` of `board`'s closed period was sent: the
/// player's message, or on a team board (TM-7) every share of the team's result as
/// first decided (none decided: not sent). Never, without a reward table (`rewarded`
/// false: a close sends nothing then). One read a player; a team's, one and one a
/// member. Errors: the store's.
pub async fn was_sent<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    rewarded: bool,
    entrant: &str,
) -> Result<bool, ServiceError> {
    if !rewarded {
        return Ok(false);
    }
    let Some(team) = podium_rules::team::team_of_key(entrant) else {
        return Ok(store.get_source(&result_key(board, entrant)).await?.is_some());
    };
    let key = shares_key(board, team);
    let Some(item) = store.get_item(&key, true).await? else {
        return Ok(false);
    };
    let decided: Decided = serde_json::from_slice(&item.body)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(&key.pk, e)))?;
    for (member, ..) in &decided.members {
        if store.get_source(&share_key(board, member, team)).await?.is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Settles `results` (a chunk of the period's, [`IN_FLIGHT`] at a time), counted in
/// `report`. One player's result that cannot be applied stops nobody's: it is recorded
/// for review ([`crate::engine::unapplied`]) before the caller's progress moves past it.
async fn send<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    game: Game,
    board: &BoardRef,
    results: &[PeriodResult],
    now: DateTime<Utc>,
    report: &mut CloseReport,
) -> Result<(), ServiceError> {
    let shares = team_shares(store, board, results).await?;
    let sources: Vec<ResultMessage> = match &shares {
        Some(shares) => shares
            .iter()
            .map(|(team, contribution, result)| ResultMessage {
                board,
                game,
                result,
                team: Some((team.as_str(), *contribution)),
                now,
            })
            .collect(),
        None => results
            .iter()
            .map(|result| ResultMessage {
                board,
                game,
                result,
                team: None,
                now,
            })
            .collect(),
    };
    report.rewarded += results.iter().filter(|r| r.rewarded()).count();
    report.reward_points += results.iter().map(|r| r.reward).sum::<i64>();
    let tally = settle_all(store, sources, IN_FLIGHT, now).await?;
    crate::engine::unapplied::record(store, CLOSE_JOB, &tally.unapplied, now).await?;
    report.sent += tally.applied;
    report.skipped += tally.skipped;
    report.unapplied += tally.unapplied.len();
    Ok(())
}

/// A member's share of a ranked team's result (TM-6, TM-7): the team, what the member
/// brought it, and their result (the team's rank and value, their part of its prize).
type Share = (String, i64, PeriodResult);

/// The shares of one team's result, as first decided (`TEAMSHARES#{board}@{period}` /
/// `{team_id}`): written once, so every later close of the period (a rerun, an
/// operator's close again, a restore since) sends the same parts and never more than
/// the prize.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Decided {
    /// (member, contribution, points, Jokers).
    members: Vec<(String, i64, i64, u64)>,
}

/// On a team board (TM-7), each ranked team's result as its members' shares: every
/// member who brought it points in the period (and was not suspended when its shares
/// were first decided, OP-4) gets the team's rank and value with their part of its
/// reward and Jokers, split as the version of the board in force at the period's end
/// says (TM-6). Decided once per team and kept: two reads (the team's contributions,
/// its contributors' guards) and one write the first time, one read after. `None`: a
/// board of players.
async fn team_shares<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    results: &[PeriodResult],
) -> Result<Option<Vec<Share>>, ServiceError> {
    use podium_rules::team::{contributions_state, split, team_of_key, Split};
    if !results.iter().any(|r| team_of_key(&r.player_id).is_some()) {
        return Ok(None);
    }
    let how = crate::boards::defined::resolve(store, &board.board)
        .await?
        .and_then(|known| known.split_at_end(&board.period))
        .unwrap_or(Split::Equal {});
    let name = contributions_state(&board.key());
    let corrupt =
        |key: &str, e: serde_json::Error| ServiceError::Store(podium_store::StoreError::corrupt(key, e));
    let mut out = Vec::new();
    for r in results {
        let Some(team) = team_of_key(&r.player_id) else {
            continue;
        };
        let key = shares_key(board, team);
        let decided = match store.get_item(&key, true).await? {
            Some(item) => serde_json::from_slice::<Decided>(&item.body).map_err(|e| corrupt(&key.pk, e))?,
            None => {
                let (held, _) = crate::engine::defined::contributions_of(store, &r.player_id, &name).await?;
                let ids: Vec<&str> = held.members.iter().map(|(p, _)| p.as_str()).collect();
                let hidden = crate::boards::visibility::Hidden::among(store, &ids).await?;
                let shown: Vec<(String, i64)> = held
                    .members
                    .iter()
                    .filter(|(p, v)| {
                        *v > 0 && !hidden.hides(p) && !podium_rules::record::ids::is_reserved_id(p)
                    })
                    .cloned()
                    .collect();
                let points = split(r.reward, &shown, how);
                let jokers = split(i64::try_from(r.jokers).unwrap_or(i64::MAX), &shown, how);
                let part = |parts: &[(String, i64)], p: &str| {
                    parts.iter().find(|(q, _)| q == p).map_or(0, |(_, v)| *v)
                };
                let decided = Decided {
                    members: shown
                        .iter()
                        .map(|(p, c)| {
                            (
                                p.clone(),
                                *c,
                                part(&points, p),
                                u64::try_from(part(&jokers, p)).unwrap_or(0),
                            )
                        })
                        .collect(),
                };
                let body = serde_json::to_vec(&decided).map_err(|e| corrupt(&key.pk, e))?;
                if store.put_item_if(&key, &body, 0).await? {
                    decided
                } else {
                    // Decided by a concurrent close meanwhile: its parts stand.
                    let item = store
                        .get_item(&key, true)
                        .await?
                        .ok_or(ServiceError::Contended { attempts: 1 })?;
                    serde_json::from_slice::<Decided>(&item.body).map_err(|e| corrupt(&key.pk, e))?
                }
            }
        };
        for (player, contribution, points, jokers) in decided.members {
            out.push((
                team.to_string(),
                contribution,
                PeriodResult {
                    player_id: player,
                    reward: points,
                    jokers,
                    ..r.clone()
                },
            ));
        }
    }
    Ok(Some(out))
}

/// Runs `board`'s close again, whatever its record says: every result settled once
/// more (those sent before are duplicates and write nothing, GM-3), then recorded as
/// done. `Ok(None)`: the period is not frozen.
pub async fn rerun<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    game: Game,
    board: &BoardRef,
    table: Option<&RewardTable>,
    now: DateTime<Utc>,
) -> Result<Option<CloseReport>, ServiceError> {
    let Some(run) = rerun_within(
        store,
        game,
        board,
        table,
        now,
        0,
        crate::budget::Budget::unbounded(),
    )
    .await?
    else {
        return Ok(None);
    };
    Ok(Some(run.report))
}

/// How far a rerun of a close went ([`rerun_within`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rerun {
    /// What this call sent (its `done`: every result settled again).
    pub report: CloseReport,
    /// The results settled so far, in rank order: where the next call goes on.
    pub next: usize,
}

/// [`rerun`] from the `from`-th result on, within `budget` (chunks of [`CHUNK`]
/// results are its steps): the report of this call and where the next goes on; the
/// close is recorded done once the last result is settled. `Ok(None)`: the period is
/// not frozen.
pub async fn rerun_within<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    game: Game,
    board: &BoardRef,
    table: Option<&RewardTable>,
    now: DateTime<Utc>,
    from: usize,
    budget: crate::budget::Budget,
) -> Result<Option<Rerun>, ServiceError> {
    if !is_frozen(store, board).await? {
        return Ok(None);
    }
    decided(store, board).await?;
    let mut results = stream_of(store, game, board, table).await?;
    results.skip(store, from).await?;
    let mut report = CloseReport {
        board: board.board.clone(),
        period: board.period.clone(),
        ranked: results.of,
        ..CloseReport::default()
    };
    let mut next = from.min(results.of);
    let mut chunks = 0;
    while !results.exhausted() {
        if budget.stops_after(chunks) {
            return Ok(Some(Rerun { report, next }));
        }
        chunks += 1;
        let chunk = results.next(store, CHUNK).await?;
        if chunk.is_empty() {
            break;
        }
        send(store, game, board, &chunk, now, &mut report).await?;
        next += chunk.len();
    }
    let key = progress_key(board);
    let (prior, version) = read_progress(store, &key).await?;
    let done = Progress {
        settled: next,
        done: true,
        left_out: prior.left_out,
    };
    store
        .put_item_if(&key, &serde_json::to_vec(&done).unwrap_or_default(), version)
        .await?;
    report.done = true;
    Ok(Some(Rerun { report, next }))
}

/// Closes `board` (of `game`) in its period, if it is frozen ([`is_frozen`]: its final
/// snapshot published): sends every ranked player their result, with `table`'s
/// reward, and records the close done only after the last result is settled. Safe to
/// run again and to run concurrently (each message is its own settlement); resumes
/// where a failed or stopped run stopped. Within `budget`: chunks of [`CHUNK`]
/// results are its steps, and none begins after its deadline (the report then says
/// `done: false`, the progress saved). `Ok(None)`: the period is not frozen yet.
pub async fn close<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    game: Game,
    board: &BoardRef,
    table: Option<&RewardTable>,
    now: DateTime<Utc>,
    budget: crate::budget::Budget,
) -> Result<Option<CloseReport>, ServiceError> {
    if !is_frozen(store, board).await? {
        return Ok(None);
    }
    let key = progress_key(board);
    let (mut progress, mut version) = decided(store, board).await?;
    if progress.done {
        // Closed before: nothing to read or send (one read per tick).
        return Ok(Some(CloseReport {
            board: board.board.clone(),
            period: board.period.clone(),
            done: true,
            already_done: true,
            ..CloseReport::default()
        }));
    }
    let left_out = progress.left_out.clone().unwrap_or_default();
    let mut results = FinalResults::open(store, game, board, table, &left_out).await?;
    results.skip(store, progress.settled).await?;
    let mut report = CloseReport {
        board: board.board.clone(),
        period: board.period.clone(),
        ranked: results.of,
        already_done: progress.done,
        done: progress.done,
        ..CloseReport::default()
    };
    let mut chunks = 0;
    while !progress.done {
        if budget.stops_after(chunks) {
            // Out of time: the progress is saved; the next call goes on from it.
            return Ok(Some(report));
        }
        chunks += 1;
        let chunk = results.next(store, CHUNK).await?;
        send(store, game, board, &chunk, now, &mut report).await?;
        let end = progress.settled + chunk.len();
        let next = Progress {
            settled: end,
            done: results.exhausted(),
            left_out: progress.left_out.clone(),
        };
        let body = serde_json::to_vec(&next).unwrap_or_default();
        if store.put_item_if(&key, &body, version).await? {
            version += 1;
            progress = next;
        } else {
            // Another run moved it on: go on from where it stands.
            (progress, version) = read_progress(store, &key).await?;
            results = FinalResults::open(store, game, board, table, &left_out).await?;
            results.skip(store, progress.settled).await?;
        }
    }
    report.done = true;
    Ok(Some(report))
}
