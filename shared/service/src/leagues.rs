//! Weekly leagues ([`podium_rules::league`]): placing a player in a cohort with their
//! first points of a week, a cohort's standings, the caller's league, and closing a
//! week (promotion, relegation and each member's `league_result` message).
//!
//! Storage (state items, so that every write goes through the settlement commit):
//! a player's [`Membership`] (`league:{league}`); per (week, tier, shard) the cohort
//! filling there ([`Filling`], under the pseudo-player [`filling_owner`]); per cohort
//! its members (under the pseudo-player `{league}:{week}:{cohort}`), written once per
//! member, so its version is its member count.
//!
//! Cost (DynamoDB): placement adds 2 GetItems (membership, filling cohort) and 3 state
//! writes to the commit of a player's first points of the week; while their last week
//! is not closed yet (the minutes after midnight before the freeze), also last week's
//! cohort: 1 GetItem and 1 BatchGetItem. A cohort's standings are 1 GetItem (its
//! members) and 1 BatchGetItem (their weekly entries).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use podium_rules::board::{board_def, BoardRef};
use podium_rules::inbox::Message;
use podium_rules::leaderboard::Standing;
use podium_rules::league::{
    self, cohort_id, filling_owner, shard_of, state_name, CohortResult, Filling, LeagueDef, Membership,
    FILLING_STATE,
};
use podium_rules::period::Period;
use podium_rules::settlement::{Planned, Settlement, StateChange};
use podium_store::{ItemKey, ItemStore, SettleStore, SourceKey, StateWrite};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;
use crate::period_boards::hex_sha256;
use crate::rewards::state_body;
use crate::settle::{settle_all, ReadState, Reads, Source};

/// The state item name of a cohort's members.
pub const MEMBERS_STATE: &str = "league-members";

/// Results settled at a time when a week closes.
pub const IN_FLIGHT: usize = 16;

/// The source kind of a week's result message.
pub const RESULT_KIND: &str = "league-result";

fn corrupt(what: &str, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(podium_store::StoreError::corrupt(what, e.to_string()))
}

fn members_owner(league: &LeagueDef, week: &str, cohort: &str) -> String {
    format!("{}:{week}:{cohort}", league.id)
}

async fn state<S: SettleStore + ?Sized, T: Default + serde::de::DeserializeOwned>(
    store: &S,
    owner: &str,
    name: &str,
) -> Result<(T, u64), ServiceError> {
    match store.get_state(owner, name).await? {
        Some(s) => Ok((
            serde_json::from_str(&s.body).map_err(|e| corrupt(name, e))?,
            s.version,
        )),
        None => Ok((T::default(), 0)),
    }
}

/// The week before `week` of `league`'s board.
fn previous_week(league: &LeagueDef, week: &str) -> Option<String> {
    let def = board_def(league.board)?;
    Period::parse(def.period, def.zone, week)
        .ok()
        .map(|p| p.previous().id)
}

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

/// The player's tier for a placement in `week`: their membership's, moved by their
/// last week's result when that week was the one before and is not closed yet (the
/// same result closing it will record).
async fn tier_for<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    player: &str,
    m: &Membership,
    week: &str,
) -> Result<u32, ServiceError> {
    match (&m.week, &m.cohort) {
        (Some(last), Some(cohort)) if !m.closed && previous_week(league, week).as_deref() == Some(last) => {
            let members = members(store, league, last, cohort).await?;
            let results = league::close(league, m.tier, standings(store, league, last, &members).await?);
            Ok(results
                .iter()
                .find(|r| r.player_id == player)
                .map_or(m.tier, |r| r.tier_after))
        }
        _ => Ok(m.tier),
    }
}

/// The state writes that place `players` in cohorts of the league fed by `board`,
/// if it is a league's weekly board: called by the commit path for players' first
/// points on the board in a week (their entry is new). Players placed already are
/// left out. Several players of one settlement (an Arena's) who fill the same cohort
/// are placed one after another into one write of each item.
pub(crate) async fn placements<S: SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    players: &[&str],
) -> Result<Vec<StateWrite>, ServiceError> {
    let Some(league) = league::league_of_board(&board.board) else {
        return Ok(Vec::new());
    };
    let week = board.period.as_str();
    let mut writes = Vec::new();
    // Filling cohorts read (owner → filling now, version read), and the member lists
    // to write (owner → members, version expected).
    let mut fillings: Vec<(String, (u32, u32), Filling, u64)> = Vec::new();
    let mut lists: Vec<(String, Vec<String>, u64)> = Vec::new();
    for &player in players {
        let (m, m_version): (Membership, u64) = state(store, player, &state_name(league)).await?;
        // Placed this week, or already in a later one (a late record of an older week
        // places nobody back in time). Week ids are zero-padded, so they sort in time.
        if m.week.as_deref().is_some_and(|w| w >= week) {
            continue;
        }
        let tier = tier_for(store, league, player, &m, week).await?;
        let shard = shard_of(player, league.shards);
        let owner = filling_owner(league, week, tier, shard);
        let at = match fillings.iter().position(|(o, _, _, _)| *o == owner) {
            Some(i) => i,
            None => {
                let (f, v): (Filling, u64) = state(store, &owner, FILLING_STATE).await?;
                fillings.push((owner.clone(), (tier, shard), f, v));
                fillings.len() - 1
            }
        };
        let before = fillings[at].2.clone();
        let (after, number) = league::place(league, before.clone(), player);
        let cohort = cohort_id(tier, shard, number);
        let list_owner = members_owner(league, week, &cohort);
        match lists.iter_mut().find(|(o, _, _)| *o == list_owner) {
            Some(list) => list.1 = after.members.clone(),
            None => {
                let expected = if number == before.number { before.writes } else { 0 };
                lists.push((list_owner, after.members.clone(), expected));
            }
        }
        fillings[at].2 = after;
        writes.push(StateWrite {
            player_id: player.to_string(),
            name: state_name(league),
            expected_version: m_version,
            body: json(&Membership {
                tier,
                week: Some(week.to_string()),
                cohort: Some(cohort),
                closed: false,
            }),
        });
    }
    for (owner, members, expected) in &lists {
        writes.push(StateWrite {
            player_id: owner.clone(),
            name: MEMBERS_STATE.to_string(),
            expected_version: *expected,
            body: json(members),
        });
    }
    for (owner, (tier, shard), mut filling, version) in fillings {
        // The filling cohort's member list was written once more by this commit.
        let current = members_owner(league, week, &cohort_id(tier, shard, filling.number));
        if let Some((_, _, expected)) = lists.iter().find(|(o, _, _)| *o == current) {
            filling.writes = expected + 1;
        }
        writes.push(StateWrite {
            player_id: owner,
            name: FILLING_STATE.to_string(),
            expected_version: version,
            body: json(&filling),
        });
    }
    Ok(writes)
}

/// The league's own types as JSON (cannot fail: no maps with non-string keys).
fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
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

/// `cohort`'s standings in `week`, ranked (LB-2), each with its promotion zone.
/// Errors: [`ServiceError::NotFound`] for a cohort with no members.
pub async fn cohort<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    cohort: &str,
) -> Result<CohortView, ServiceError> {
    let not_found = || ServiceError::NotFound(format!("no cohort {cohort:?} in {week}"));
    let tier = league::tier_of_cohort(cohort).ok_or_else(not_found)?;
    let members = members(store, league, week, cohort).await?;
    if members.is_empty() {
        return Err(not_found());
    }
    let results = league::close(league, tier, standings(store, league, week, &members).await?);
    Ok(CohortView {
        league: league.id.to_string(),
        week: week.to_string(),
        cohort: cohort.to_string(),
        tier,
        tier_name: tier_name(league, tier),
        entries: results.iter().map(line).collect(),
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
    /// Their tier (0: the first) and its name; for a player not placed this week, the
    /// tier their next placement will use.
    pub tier: u32,
    pub tier_name: String,
    /// Their cohort this week, once they scored this week.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cohort: Option<CohortView>,
}

/// The caller's league in the current `week`: their tier, and their cohort's standings
/// once placed this week.
pub async fn mine<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    player: &str,
    week: &str,
) -> Result<MyLeague, ServiceError> {
    let (m, _): (Membership, u64) = state(store, player, &state_name(league)).await?;
    let (tier, cohort) = match (&m.week, &m.cohort) {
        (Some(w), Some(c)) if w == week => (m.tier, Some(self::cohort(store, league, week, c).await?)),
        _ => (tier_for(store, league, player, &m, week).await?, None),
    };
    Ok(MyLeague {
        league: league.id.to_string(),
        player_id: player.to_string(),
        week: week.to_string(),
        tier,
        tier_name: tier_name(league, tier),
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
        // The tier holds the week's movement, unless they were placed in a later week
        // meanwhile (that placement already moved it, by the same result).
        if m.week.as_deref() == Some(self.week) && !m.closed {
            let closed = Membership {
                tier: r.tier_after,
                closed: true,
                ..m
            };
            s.states.push(StateChange {
                player_id: player.clone(),
                name: state_name(self.league),
                body: serde_json::to_value(closed).map_err(|e| corrupt("league", e))?,
            });
        }
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
    /// Whether the week was closed before this call (nothing was read or sent).
    pub already_done: bool,
}

/// Closes `league`'s `week` (after it ended): every cohort of every tier and shard
/// ranked by the week's final values, each member sent one `league_result` message
/// with their movement, their tier recorded. Safe to run again and concurrently
/// (each member's result is its own settlement, GM-3).
pub async fn close_week<S: SettleStore + ItemStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    week: &str,
    now: DateTime<Utc>,
) -> Result<WeekReport, ServiceError> {
    let mut report = WeekReport {
        league: league.id.to_string(),
        week: week.to_string(),
        ..WeekReport::default()
    };
    let done_key = ItemKey::new(format!("LEAGUE-CLOSE#{}@{week}", league.id), "DONE");
    if store.get_item(&done_key, true).await?.is_some() {
        report.already_done = true;
        return Ok(report);
    }
    let mut sizes: HashMap<usize, usize> = HashMap::new();
    let mut all: Vec<(String, CohortResult)> = Vec::new();
    for tier in 0..league.tiers.len() as u32 {
        for shard in 0..league.shards {
            let (filling, version): (Filling, u64) =
                state(store, &filling_owner(league, week, tier, shard), FILLING_STATE).await?;
            if version == 0 {
                continue;
            }
            for number in 0..=filling.number {
                let cohort = cohort_id(tier, shard, number);
                let members = members(store, league, week, &cohort).await?;
                let results = league::close(league, tier, standings(store, league, week, &members).await?);
                *sizes.entry(results.len()).or_default() += 1;
                all.extend(results.into_iter().map(|r| (cohort.clone(), r)));
            }
        }
    }
    report.placed = all.len();
    for (_, r) in &all {
        match r.movement {
            league::Movement::Promoted => report.promoted += 1,
            league::Movement::Relegated => report.relegated += 1,
            league::Movement::Stayed => {}
        }
    }
    // Each member's result is its own settlement: [`IN_FLIGHT`] at a time.
    let sources = all.iter().map(|(cohort, result)| WeekResult {
        league,
        week,
        cohort,
        result,
        now,
    });
    let tally = settle_all(store, sources, IN_FLIGHT, now).await?;
    (report.sent, report.skipped) = (tally.applied, tally.skipped);
    report.cohort_sizes = sizes.into_iter().collect();
    // Every result is settled: later ticks need not rank the week again.
    store.put_item_if(&done_key, b"{}", 0).await?;
    Ok(report)
}
