//! Weekly leagues ([`podium_rules::league`]): placing a player in a cohort with their
//! first points of a week, a cohort's standings, the caller's league, and closing a
//! week (promotion, relegation and each member's `league_result` message).
//!
//! One decision, taken once: the close of a week records each member's tier from the
//! week's frozen `final` snapshot (the same values its `period_result` messages rank),
//! and nothing predicts it. A player who first scores in a new week while their last
//! week is not closed waits in their membership ([`Membership::pending`]); the close
//! of that week places them, at the tier it records, in the same settlement as their
//! `league_result` ([`podium_rules::league::Placement`]). A closed cohort's standings
//! are read from the close's record of it, never from live entries.
//!
//! Storage (state items, so that every write goes through the settlement commit):
//! a player's [`Membership`] (`league:{league}`); per (week, tier, shard) the cohort
//! filling there ([`Filling`], under the pseudo-player [`filling_owner`]); per cohort
//! its members (under the pseudo-player `{league}:{week}:{cohort}`), written once per
//! member, so its version is its member count.
//!
//! Cost (DynamoDB): placement adds 2 GetItems (membership, filling cohort) and 3 state
//! writes to the commit of a player's first points of the week; while their last week
//! is not closed yet (the minutes after midnight before the freeze), 1 GetItem and 1
//! state write (the week waits in the membership). A cohort's standings are 1 GetItem
//! (the close's record, absent while its week is open), 1 GetItem (the list of
//! suspended players, OP-4), and while the week is open 1 GetItem (its members) and 1
//! BatchGetItem (their weekly entries).

use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::leaderboard::Standing;
use podium_rules::league::{
    self, cohort_id, filling_owner, state_name, CohortResult, Filling, LeagueDef, Membership, Placement,
    FILLING_STATE,
};
use podium_rules::message::Message;
use podium_rules::settlement::{Planned, Settlement, StateChange};
use podium_store::{ItemKey, ItemStore, SettleStore, SourceKey};
use serde::{Deserialize, Serialize};

use crate::boards::snapshot::compact::{id_key, IdKey};
use crate::boards::snapshot::layout::FINAL;
use crate::boards::snapshot::read::each_entry;
use crate::boards::visibility::Hidden;
use crate::engine::names::hex_sha256;
use crate::engine::placement::{corrupt, frozen_key, json, members_owner, state, MEMBERS_STATE};
use crate::engine::settle::settle_all;
use crate::engine::source::{ReadState, Reads, Source};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// Results settled at a time when a week closes.
pub const IN_FLIGHT: usize = 16;

/// The source kind of a week's result message.
pub const RESULT_KIND: &str = "league-result";

/// The members of `cohort` in `week` (in the order they were placed).
pub async fn members<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    cohort: &str,
) -> Result<Vec<String>, ServiceError> {
    Ok(
        state::<_, Vec<String>>(store, &members_owner(league, week, cohort), MEMBERS_STATE)
            .await?
            .0,
    )
}

/// The standings of `members` on the league's weekly board in `week` (members with no
/// entry, such as a deleted player (GM-6), are left out).
pub async fn standings<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    members: &[String],
) -> Result<Vec<Standing>, ServiceError> {
    let board = BoardRef::new(league.board, week);
    let members: Vec<&str> = members.iter().map(String::as_str).collect();
    let entries = store.get_entries(&board, &members).await?;
    Ok(entries
        .into_iter()
        .flatten()
        .map(|b| Standing {
            player_id: b.player_id,
            value: b.points,
            reached_at_ms: b.reached_at_ms,
        })
        .collect())
}

/// One line of a cohort's standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct CohortLine {
    pub rank: u64,
    pub player_id: String,
    /// Points this week on the league's board.
    pub value: i64,
    pub value_shown: String,
    /// Where the line stands if the week ended now: `promotion`, `relegation` or `stay`.
    pub zone: &'static str,
    /// The player's name, avatar and country (PF-5).
    #[serde(flatten)]
    pub card: podium_rules::profile::Card,
}

/// A cohort's standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct CohortView {
    pub league: String,
    pub week: String,
    pub cohort: String,
    pub tier: u32,
    pub tier_name: String,
    pub entries: Vec<CohortLine>,
}

/// `cohort`'s standings in `week`, ranked (LB-2), each with its promotion zone: once
/// the week is closed, as its close recorded them (the frozen week's values, the
/// movements its `league_result` messages announced); before, from the live weekly
/// entries. OP-4: a member suspended now is not shown ([`Hidden`]): before the close
/// the others are ranked and zoned among themselves (as the close, which ranks the
/// frozen week without them, would); once closed, everyone ranked below them moves up
/// one place, each keeping the movement the close announced. Errors:
/// [`ServiceError::NotFound`] for a cohort with no members.
pub async fn cohort<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    cohort: &str,
) -> Result<CohortView, ServiceError> {
    let not_found = || ServiceError::NotFound(format!("no cohort {cohort:?} in {week}"));
    let tier = league::tier_of_cohort(cohort).ok_or_else(not_found)?;
    let recorded = recorded_cohort(store, league, week, cohort).await?;
    let results = match recorded {
        Some(results) => {
            let ids: Vec<&str> = results.iter().map(|r| r.player_id.as_str()).collect();
            let hidden = Hidden::among(store, &ids).await?;
            hidden.closed_up_lines(results, |r| &r.player_id, |r| &mut r.rank)
        }
        None => {
            let members = members(store, league, week, cohort).await?;
            if members.is_empty() {
                return Err(not_found());
            }
            let standings = standings(store, league, week, &members).await?;
            let ids: Vec<&str> = standings.iter().map(|s| s.player_id.as_str()).collect();
            let hidden = Hidden::among(store, &ids).await?;
            league::close(league, tier, hidden.shown(standings, |s| &s.player_id))
        }
    };
    let mut entries: Vec<CohortLine> = results.iter().map(line).collect();
    // PF-5: the members' cards, one batch read.
    crate::profiles::cards::fill(
        store,
        entries.iter_mut().map(|l| (l.player_id.as_str(), &mut l.card)),
    )
    .await?;
    Ok(CohortView {
        league: league.id.to_string(),
        week: week.to_string(),
        cohort: cohort.to_string(),
        tier,
        tier_name: tier_name(league, tier),
        entries,
    })
}

fn tier_name(league: &LeagueDef, tier: u32) -> String {
    league
        .tiers
        .get(tier as usize)
        .copied()
        .unwrap_or("?")
        .to_string()
}

fn line(r: &CohortResult) -> CohortLine {
    CohortLine {
        rank: r.rank,
        player_id: r.player_id.clone(),
        value: r.value,
        value_shown: podium_rules::display::format_points(r.value),
        card: Default::default(),
        zone: match r.movement {
            league::Movement::Promoted => "promotion",
            league::Movement::Relegated => "relegation",
            league::Movement::Stayed => "stay",
        },
    }
}

/// The caller's league now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct MyLeague {
    pub league: String,
    pub player_id: String,
    /// The current week.
    pub week: String,
    /// Their tier (0: the first) and its name: the tier the last close of their weeks
    /// recorded (for a player placed this week, the tier they play in).
    pub tier: u32,
    pub tier_name: String,
    /// The week whose close has yet to decide the tier of their next placement (their
    /// last week, not closed yet): until it runs, `tier` is the tier before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub awaiting_close_of: Option<String>,
    /// Their cohort this week, once they scored this week.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cohort: Option<CohortView>,
}

/// The caller's league in the current `week`: their tier as recorded, and their
/// cohort's standings once placed this week. Nothing is predicted: a player whose last
/// week is not closed yet is told which close decides their tier.
pub async fn mine<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    player: &str,
    week: &str,
) -> Result<MyLeague, ServiceError> {
    let (m, _): (Membership, u64) = state(store, player, &state_name(league)).await?;
    let cohort = match (&m.week, &m.cohort) {
        (Some(w), Some(c)) if w == week => Some(self::cohort(store, league, week, c).await?),
        _ => None,
    };
    let awaiting_close_of = match &m.week {
        Some(w) if !m.closed && w.as_str() < week => Some(w.clone()),
        _ => None,
    };
    Ok(MyLeague {
        league: league.id.to_string(),
        player_id: player.to_string(),
        week: week.to_string(),
        tier: m.tier,
        tier_name: tier_name(league, m.tier),
        awaiting_close_of,
        cohort,
    })
}

/// One member's week result, as a settlement: the message, and their tier recorded.
struct WeekResult<'a> {
    league: &'a LeagueDef,
    week: &'a str,
    cohort: &'a str,
    result: &'a CohortResult,
    now: DateTime<Utc>,
}

impl Source for WeekResult<'_> {
    type Result = Message;

    fn key(&self) -> SourceKey {
        SourceKey::new(
            RESULT_KIND,
            format!("{}@{}:{}", self.league.id, self.week, self.result.player_id),
        )
    }

    fn content_hash(&self) -> String {
        let r = self.result;
        hex_sha256(&format!(
            "{}|{}|{}|{}|{}|{}|{:?}",
            self.key().id,
            self.cohort,
            r.rank,
            r.of,
            r.value,
            r.tier_after,
            r.movement
        ))
    }

    fn reads(&self) -> Reads {
        Reads {
            states: vec![(self.result.player_id.clone(), state_name(self.league))],
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<Message>, ServiceError> {
        let r = self.result;
        let player = &r.player_id;
        let m: Membership = state_body(read, player, &state_name(self.league))?;
        let message = Message::league_result(self.league, self.week, self.cohort, r, self.now);
        // The message joins the inbox in the commit ([`Settlement::messages`]).
        let mut s = Settlement::result_only(message.clone());
        s.messages.push((player.clone(), message));
        // The close records the tier (the one decision); a player who scored in a later
        // week meanwhile waits there and is placed now, at that tier.
        if m.week.as_deref() == Some(self.week) && !m.closed {
            let closed = Membership {
                tier: r.tier_after,
                closed: true,
                ..m
            };
            match closed.pending.first() {
                Some(next) => s.placements.push(Placement {
                    board: self.league.board.to_string(),
                    week: next.clone(),
                    player_id: player.clone(),
                    membership: closed.clone(),
                    leaves: None,
                }),
                None => s.states.push(StateChange {
                    player_id: player.clone(),
                    name: state_name(self.league),
                    body: serde_json::to_value(closed).map_err(|e| corrupt("league", e))?,
                }),
            }
        }
        Ok(Planned::Write(s))
    }

    fn id_field(&self) -> &'static str {
        "player_id"
    }

    fn concerns(&self) -> Option<&str> {
        Some(&self.result.player_id)
    }
}

/// The record that `week`'s freeze begins (once, GM-3).
struct WeekFrozen<'a> {
    league: &'a LeagueDef,
    week: &'a str,
}

impl Source for WeekFrozen<'_> {
    type Result = serde_json::Value;

    fn key(&self) -> SourceKey {
        frozen_key(self.league, self.week)
    }

    fn content_hash(&self) -> String {
        hex_sha256(&self.key().id)
    }

    fn reads(&self) -> Reads {
        Reads::default()
    }

    fn plan(&self, _: &ReadState) -> Result<Planned<Self::Result>, ServiceError> {
        Ok(Planned::Write(Settlement::result_only(
            serde_json::json!({"league": self.league.id, "week": self.week}),
        )))
    }

    fn id_field(&self) -> &'static str {
        "week"
    }
}

/// Records that `league`'s `week` is about to be frozen (the catch-up does, before
/// its freeze): from then on a late first record of the week places nobody, so its
/// cohorts are those the frozen week ranks. Safe to repeat.
pub async fn mark_frozen<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    crate::engine::settle::settle(store, &WeekFrozen { league, week }, now).await?;
    Ok(())
}

/// The source kind of a closed cohort's record: its standings as the close ranked
/// them (the frozen week's values), stored once (GM-3) and read by the cohort view.
pub const COHORT_KIND: &str = "league-cohort";

fn cohort_key(league: &LeagueDef, week: &str, cohort: &str) -> SourceKey {
    SourceKey::new(COHORT_KIND, format!("{}@{week}:{cohort}", league.id))
}

/// A closed cohort's record, as a settlement whose result is its standings (each
/// member it names referenced for GM-6 by the commit path).
struct CohortRecord<'a> {
    league: &'a LeagueDef,
    week: &'a str,
    cohort: &'a str,
    results: &'a [CohortResult],
}

impl Source for CohortRecord<'_> {
    type Result = Vec<CohortResult>;

    fn key(&self) -> SourceKey {
        cohort_key(self.league, self.week, self.cohort)
    }

    fn content_hash(&self) -> String {
        hex_sha256(&json(&self.results))
    }

    fn reads(&self) -> Reads {
        Reads::default()
    }

    fn plan(&self, _: &ReadState) -> Result<Planned<Self::Result>, ServiceError> {
        Ok(Planned::Write(Settlement::result_only(self.results.to_vec())))
    }

    fn id_field(&self) -> &'static str {
        "cohort"
    }
}

/// A closed cohort's standings as its close recorded them; `None` before the close.
async fn recorded_cohort<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    cohort: &str,
) -> Result<Option<Vec<CohortResult>>, ServiceError> {
    let key = cohort_key(league, week, cohort);
    match store.get_source(&key).await? {
        Some(stored) => Ok(Some(
            serde_json::from_str(&stored.result).map_err(|e| corrupt(COHORT_KIND, e))?,
        )),
        None => Ok(None),
    }
}

/// Members a week's close keeps in memory between its join step and its cohorts'
/// closes (about 3 MB); a week with more reads each cohort's members again as it
/// closes it (one GetItem a cohort of up to 30).
const KNOWN_MEMBERS: usize = 100_000;

/// Filling items a week's close reads at once.
const FILLINGS_AT_ONCE: usize = 16;

/// The filling cohorts of `tier` in `week`, by shard: (shard, filling, version; 0
/// when none). The base shards (4 GetItems), and when any of their cohorts exists,
/// the spill shards too (124 more, read [`FILLINGS_AT_ONCE`] at a time): a placement
/// goes to a spill shard only past a base shard's cohort that is busy or racing,
/// which exists then ([`crate::engine::placement`]).
async fn tier_fillings<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    tier: u32,
) -> Result<Vec<(u32, Filling, u64)>, ServiceError> {
    use futures::{StreamExt, TryStreamExt};
    let read = |shards: std::ops::Range<u32>| {
        futures::stream::iter(shards)
            .map(|shard| async move {
                let (filling, version): (Filling, u64) =
                    state(store, &filling_owner(league, week, tier, shard), FILLING_STATE).await?;
                Ok::<_, ServiceError>((shard, filling, version))
            })
            .buffered(FILLINGS_AT_ONCE)
            .try_collect::<Vec<_>>()
    };
    let mut out = read(0..league.shards).await?;
    if out.iter().any(|(_, _, version)| *version > 0) {
        out.extend(read(league.shards..league.shards + league.spill_shards).await?);
    }
    Ok(out)
}

/// The players placed in `week`'s cohorts, by the key of their id, sorted (16 bytes a
/// player), and, when they are at most [`KNOWN_MEMBERS`], every cohort in close order
/// with its members: (tier, cohort id, members). One GetItem per (tier, shard) and
/// per cohort, in order.
async fn week_cohorts<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
) -> Result<(Vec<IdKey>, Option<Vec<(u32, String, Vec<String>)>>), ServiceError> {
    let mut placed = Vec::new();
    let mut known = Some(Vec::new());
    for tier in 0..league.tiers.len() as u32 {
        for (shard, filling, version) in tier_fillings(store, league, week, tier).await? {
            if version == 0 {
                continue;
            }
            for number in 0..=filling.number {
                let cohort = cohort_id(tier, shard, number);
                let members = members(store, league, week, &cohort).await?;
                placed.extend(members.iter().map(|m| id_key(m)));
                if placed.len() > KNOWN_MEMBERS {
                    known = None;
                }
                if let Some(known) = known.as_mut() {
                    known.push((tier, cohort, members));
                }
            }
        }
    }
    placed.sort_unstable();
    Ok((placed, known))
}

/// The frozen values of a week's players, compact: sorted by the key of their id, with
/// their value and the instant they reached it (32 bytes a player, where a map of
/// their ids and standings took about 150).
struct WeekValues(Vec<(IdKey, i64, i64)>);

impl WeekValues {
    /// `player_id`'s frozen (value, reached at, ms), if the week ranks them.
    fn get(&self, player_id: &str) -> Option<(i64, i64)> {
        let key = id_key(player_id);
        let i = self.0.binary_search_by_key(&key, |e| e.0).ok()?;
        Some((self.0[i].1, self.0[i].2))
    }
}

/// The source kind of a late join: a player the frozen week ranks, placed in one of
/// its cohorts by its close (their first record of the week arrived after the
/// week's freeze began, or after their first record of a later week).
pub const JOIN_KIND: &str = "league-late-join";

/// A late join, as a settlement: the player placed in `week` at the tier their
/// membership records. One placed already in a later week whose close has not run
/// (their first record of that week arrived before their first of this one) leaves
/// that week's cohort and waits for this close, which places them there again at the
/// tier it announces: out of order or not, a player plays a week in the tier the
/// week before it announced. Nothing for a player placed in this week, in a later
/// week that has closed, or waiting for an earlier week's close.
struct LateJoin<'a> {
    league: &'a LeagueDef,
    week: &'a str,
    player: &'a str,
}

impl Source for LateJoin<'_> {
    type Result = serde_json::Value;

    fn key(&self) -> SourceKey {
        SourceKey::new(
            JOIN_KIND,
            format!("{}@{}:{}", self.league.id, self.week, self.player),
        )
    }

    fn content_hash(&self) -> String {
        hex_sha256(&self.key().id)
    }

    fn reads(&self) -> Reads {
        Reads {
            states: vec![(self.player.to_string(), state_name(self.league))],
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<Self::Result>, ServiceError> {
        let m: Membership = state_body(read, self.player, &state_name(self.league))?;
        let placed_later = m.week.clone().filter(|w| w.as_str() > self.week && !m.closed);
        let stays = match m.week.as_deref() {
            None => false,
            Some(w) => w == self.week || (w > self.week && m.closed) || (w < self.week && !m.closed),
        };
        if stays {
            return Ok(Planned::Nothing(serde_json::json!({"joined": false})));
        }
        let leaves = placed_later.clone().zip(m.cohort.clone());
        let mut membership = m;
        if let Some(later) = placed_later {
            // They wait for this week's close, as if their records had come in order.
            membership.pending.push(later);
            membership.pending.sort();
            membership.pending.dedup();
        }
        let mut s = Settlement::result_only(serde_json::json!({
            "joined": true,
            "left": leaves.as_ref().map(|(w, c)| format!("{w}:{c}")),
        }));
        s.placements.push(Placement {
            board: self.league.board.to_string(),
            week: self.week.to_string(),
            player_id: self.player.to_string(),
            membership,
            leaves,
        });
        Ok(Planned::Write(s))
    }

    fn id_field(&self) -> &'static str {
        "player_id"
    }
}

/// What closing a league's week did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeekReport {
    pub league: String,
    pub week: String,
    /// Cohort sizes: how many cohorts had each size.
    pub cohort_sizes: std::collections::BTreeMap<usize, usize>,
    pub placed: usize,
    pub promoted: usize,
    pub relegated: usize,
    /// Messages this call wrote (the others were written before).
    pub sent: usize,
    /// Members skipped: deleted since (GM-6).
    pub skipped: usize,
    /// Results that could not be applied, recorded for review
    /// ([`crate::engine::unapplied`]; the close went on without them).
    pub unapplied: usize,
    /// Whether the week was closed before this call (nothing was read or sent).
    pub already_done: bool,
    /// False when the week's final snapshot is not published yet: nothing was done
    /// (the close ranks the frozen week only).
    pub frozen: bool,
    /// Whether every cohort is closed (false: this call stopped at its budget, its
    /// progress saved; the next goes on).
    pub done: bool,
}

/// How far a week's close has gone (`LEAGUE-CLOSE#{league}@{week}` / `PROGRESS`): the
/// late joins are done, and the cohorts closed so far (tier, shard, number: the last
/// one, in that order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Progress {
    #[serde(default)]
    joined: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last: Option<(u32, u32, u32)>,
}

/// Closes `league`'s `week` once its board is frozen (LB-5), to its end
/// ([`close_week_within`] without a budget).
pub async fn close_week<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    now: DateTime<Utc>,
) -> Result<WeekReport, ServiceError> {
    close_week_within(store, league, week, now, crate::budget::Budget::unbounded()).await
}

/// Closes `league`'s `week` once its board is frozen (LB-5): every cohort of every
/// tier and shard ranked by its members' values in the week's `final` snapshot (the
/// values the week's `period_result` messages rank; players deleted before are left
/// out), each cohort's standings recorded once ([`COHORT_KIND`]), each member sent one
/// `league_result` message with their movement and their tier recorded, and placed in
/// the next week they scored in if they wait for it ([`Membership::pending`]). Safe to
/// run again and concurrently (each record and result is its own settlement, GM-3).
/// A week not frozen yet is left alone ([`WeekReport::frozen`] false).
///
/// In steps within `budget`: first the late joins (once), then one cohort at a time
/// (its record, then its members' results), tier by tier, shard by shard, the
/// progress saved after each; a call that stops ([`WeekReport::done`] false) is
/// resumed by the next from the cohort after the last one saved, and one killed
/// mid-cohort has that cohort settled again (its settlements sent before write
/// nothing). Each call reads the frozen week's values once.
pub async fn close_week_within<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    now: DateTime<Utc>,
    budget: crate::budget::Budget,
) -> Result<WeekReport, ServiceError> {
    let mut report = WeekReport {
        league: league.id.to_string(),
        week: week.to_string(),
        frozen: true,
        ..WeekReport::default()
    };
    let pk = format!("LEAGUE-CLOSE#{}@{week}", league.id);
    let done_key = ItemKey::new(pk.clone(), "DONE");
    if store.get_item(&done_key, true).await?.is_some() {
        report.already_done = true;
        report.done = true;
        return Ok(report);
    }
    let board = BoardRef::new(league.board, week);
    // Frozen: the week's final snapshot published (its pointer, not its run state).
    if !crate::boards::close::is_frozen(store, &board).await? {
        report.frozen = false;
        return Ok(report);
    }
    let progress_key = ItemKey::new(pk, "PROGRESS");
    let (mut progress, mut version): (Progress, u64) = match store.get_item(&progress_key, true).await? {
        Some(item) => (
            serde_json::from_slice(&item.body).map_err(|e| corrupt("league close", e))?,
            item.version,
        ),
        None => (Progress::default(), 0),
    };
    let pointer = crate::boards::snapshot::read::current_consistent(store, &board).await?;
    let hidden = |m: &str| pointer.as_ref().is_some_and(|p| p.hides(m));
    // GM-6: a member deleted since (hidden by the pointer, or listed under the
    // pseudonym the deletion wrote) is left out.
    let gone = |m: &str| podium_rules::record::ids::is_reserved_id(m) || hidden(m);
    // Before the join step: the players the week's cohorts place (their keys).
    let cohorts_read = if progress.joined {
        None
    } else {
        Some(week_cohorts(store, league, week).await?)
    };
    // The frozen week's values (the final snapshot read page by page, once), without
    // the players deleted since (the pointer's erasures, GM-6); before the join step,
    // also the ids of the players no cohort lists (what is held is the late ones).
    let mut values = Vec::with_capacity(
        pointer
            .as_ref()
            .map_or(0, |p| usize::try_from(p.entries).unwrap_or(0)),
    );
    let mut late: Vec<String> = Vec::new();
    each_entry(store, &board, FINAL, true, |e| {
        if hidden(&e.player_id) {
            return;
        }
        let key = id_key(&e.player_id);
        values.push((key, e.value, e.reached_at_ms));
        if let Some((placed, _)) = &cohorts_read {
            if !gone(&e.player_id) && placed.binary_search(&key).is_err() {
                late.push(e.player_id);
            }
        }
    })
    .await?;
    values.sort_unstable_by_key(|e| e.0);
    let finals = WeekValues(values);
    let save = |progress: &Progress, version: u64| {
        let body = serde_json::to_vec(progress).unwrap_or_default();
        let key = progress_key.clone();
        async move { store.put_item_if(&key, &body, version).await }
    };
    // The cohorts the join step read, when it changed none of them (no late join):
    // their members need not be read again.
    let mut known: Option<Vec<(u32, String, Vec<String>)>> = None;
    if let Some((_, listed)) = cohorts_read {
        // Every player the frozen week ranks is in its league: one whose first record
        // of the week arrived after the week's freeze began, or after their first
        // record of a later week (so nobody placed them in this one), joins a cohort
        // of their tier now ([`LateJoin`]), before any cohort is closed.
        late.sort_unstable();
        if late.is_empty() {
            known = listed;
        } else {
            // Collected (as below): a lazy map's closure keeps an HTTP handler's future
            // from being proved Send (an operator's close runs it).
            let joins: Vec<LateJoin> = late
                .iter()
                .map(|player| LateJoin { league, week, player })
                .collect();
            let tally = settle_all(store, joins, IN_FLIGHT, now).await?;
            crate::engine::unapplied::record(store, "league-close", &tally.unapplied, now).await?;
        }
        progress.joined = true;
        if save(&progress, version).await? {
            version += 1;
        } else {
            // Another call moved it on: go on from where it stands.
            (progress, version) = reread(store, &progress_key).await?;
        }
    }
    // Every cohort in order (tier, shard, number), with its members when known.
    let cohorts: Vec<(CohortAt, Option<Vec<String>>)> = match known {
        Some(listed) => listed
            .into_iter()
            .filter_map(|(_, cohort, members)| league::parse_cohort(&cohort).map(|at| (at, Some(members))))
            .collect(),
        None => {
            let mut all = Vec::new();
            for tier in 0..league.tiers.len() as u32 {
                for (shard, filling, filled) in tier_fillings(store, league, week, tier).await? {
                    if filled > 0 {
                        all.extend((0..=filling.number).map(|number| ((tier, shard, number), None)));
                    }
                }
            }
            all
        }
    };
    let mut steps = 0;
    for ((tier, shard, number), listed) in cohorts {
        if progress.last.is_some_and(|last| (tier, shard, number) <= last) {
            continue;
        }
        if budget.stops_after(steps) {
            return Ok(report);
        }
        steps += 1;
        let cohort = cohort_id(tier, shard, number);
        let members = match listed {
            Some(members) => members,
            None => members(store, league, week, &cohort).await?,
        };
        close_cohort(
            store,
            league,
            week,
            (tier, &cohort),
            &members,
            (&finals, &gone),
            now,
            &mut report,
        )
        .await?;
        let next = Progress {
            last: Some((tier, shard, number)),
            ..progress.clone()
        };
        if save(&next, version).await? {
            version += 1;
            progress = next;
        } else {
            (progress, version) = reread(store, &progress_key).await?;
        }
    }
    // Every result is settled: later ticks need not rank the week again.
    store.put_item_if(&done_key, b"{}", 0).await?;
    report.done = true;
    Ok(report)
}

/// The close's progress as stored now, and its version.
async fn reread<S: ItemStore + ?Sized>(store: &S, key: &ItemKey) -> Result<(Progress, u64), ServiceError> {
    match store.get_item(key, true).await? {
        Some(item) => Ok((
            serde_json::from_slice(&item.body).map_err(|e| corrupt("league close", e))?,
            item.version,
        )),
        None => Ok((Progress::default(), 0)),
    }
}

/// A cohort's place in a week's close order: (tier, shard, number).
type CohortAt = (u32, u32, u32);

/// Whether a member is left out of the close (deleted since, GM-6).
type Gone<'a> = &'a (dyn Fn(&str) -> bool + Sync);

/// Closes one cohort of tier `tier`: its members ranked by their frozen values (a
/// member the frozen week does not list, whose first record landed as the freeze ran,
/// had nothing in it: 0, listed last; members `gone` are left out), its record
/// settled, then each member's result ([`IN_FLIGHT`] at a time), counted in `report`.
#[allow(clippy::too_many_arguments)]
async fn close_cohort<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    (tier, cohort): (u32, &str),
    members: &[String],
    (finals, gone): (&WeekValues, Gone<'_>),
    now: DateTime<Utc>,
    report: &mut WeekReport,
) -> Result<(), ServiceError> {
    let standings: Vec<Standing> = members
        .iter()
        .filter(|m| !gone(m))
        .map(|m| {
            let (value, reached_at_ms) = finals.get(m).unwrap_or((0, i64::MAX));
            Standing {
                player_id: m.clone(),
                value,
                reached_at_ms,
            }
        })
        .collect();
    let results = league::close(league, tier, standings);
    if results.is_empty() {
        return Ok(());
    }
    *report.cohort_sizes.entry(results.len()).or_default() += 1;
    report.placed += results.len();
    for r in &results {
        match r.movement {
            league::Movement::Promoted => report.promoted += 1,
            league::Movement::Relegated => report.relegated += 1,
            league::Movement::Stayed => {}
        }
    }
    // The cohort's record first (what its view shows from then on), then its
    // members' results.
    let record = CohortRecord {
        league,
        week,
        cohort,
        results: &results,
    };
    let recorded = settle_all(store, [record], 1, now).await?;
    crate::engine::unapplied::record(store, "league-close", &recorded.unapplied, now).await?;
    let sources: Vec<WeekResult> = results
        .iter()
        .map(|result| WeekResult {
            league,
            week,
            cohort,
            result,
            now,
        })
        .collect();
    let tally = settle_all(store, sources, IN_FLIGHT, now).await?;
    crate::engine::unapplied::record(store, "league-close", &tally.unapplied, now).await?;
    report.sent += tally.applied;
    report.skipped += tally.skipped;
    report.unapplied += tally.unapplied.len();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cohort's record references each member (GM-6) and guards each: with the
    /// source, 2 × 30 + 1 items, inside DynamoDB's 100 items of one transaction.
    #[test]
    fn a_cohort_record_fits_one_transaction() {
        for league in &league::LEAGUES {
            assert!(2 * league.cohort_size < 100, "{}", league.id);
        }
    }
}
