//! League memberships a settlement's commit writes ([`podium_rules::league`]): a
//! player's first points of a league's week place them in a cohort in that very
//! commit, and a week's close places the members it decided in their next week. The
//! engine writes them because they must commit with the points; what a league is
//! (cohorts, standings, the close) lives in [`crate::players::leagues`].
//!
//! Cost (DynamoDB): placement adds 2 GetItems (membership, filling cohort) and 3 state
//! writes to the commit of a player's first points of the week (one GetItem more per
//! spill shard tried); while their last week is not closed yet, 1 GetItem and 1 state
//! write (the week waits in the membership).

use podium_rules::board::{board_def, BoardRef};
use podium_rules::league::{
    self, cohort_id, filling_owner, shard_of, state_name, Filling, LeagueDef, Membership, Placement,
    FILLING_STATE,
};
use podium_rules::period::Period;
use podium_store::{SettleStore, SourceKey, StateWrite};
use serde::Serialize;

use crate::error::ServiceError;

/// The state item name of a cohort's members.
pub const MEMBERS_STATE: &str = "league-members";

pub(crate) fn corrupt(what: &str, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(podium_store::StoreError::corrupt(what, e.to_string()))
}

pub(crate) use podium_rules::league::members_owner;

pub(crate) async fn state<S: SettleStore + ?Sized, T: Default + serde::de::DeserializeOwned>(
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

/// `week` of `league`'s board, if it names one.
pub(crate) fn week_period(league: &LeagueDef, week: &str) -> Option<Period> {
    let def = board_def(league.board)?;
    Period::parse(def.period, def.zone, week).ok()
}

/// Who a commit places in a league's week.
#[derive(Debug, Clone)]
pub(crate) enum Placing {
    /// A player's first points on the league's board this week: placed at the tier
    /// their membership records, unless a week of theirs is not closed yet (the week
    /// then waits in their membership, and that close places them) or this week has
    /// ended and its freeze has begun, or the player is placed in a later week already
    /// (then the week's close places them, if the frozen week ranks them:
    /// [`crate::players::leagues`]' late join).
    FirstPoints(String),
    /// Placed by the close of their last week, which decided their tier: the
    /// membership as the close leaves it, and the version read of it.
    Decided { placement: Placement, version: u64 },
}

/// What placing players writes: the state writes, and whom the league's own items
/// now name (player, owner, state name: the cohort's member list and filling), for
/// their references (GM-6).
#[derive(Debug, Default)]
pub(crate) struct Placed {
    pub writes: Vec<StateWrite>,
    pub named: Vec<(String, String, String)>,
}

/// Spill shards a placement tries while the cohorts it finds are busy (each one
/// GetItem more, only while a tier takes more than [`league::BUSY_PER_SECOND`]
/// placements a second in a shard).
const SPILL_PROBES: u32 = 3;

/// The state writes that place `placing` in cohorts of the league fed by `board` (a
/// league's weekly board in one week; none for another board), called by the commit
/// path ([`crate::engine::settle`]) at server clock `now_ms`. Players placed already are left
/// out. Several players of one settlement (an Arena's) who fill the same cohort are
/// placed one after another into one write of each item.
///
/// `contended` counts the earlier plans of this settlement whose commits answered
/// `Contended` (LB-7). From the first, its players are placed from a spill shard
/// ([`league::spill_shard`], most likely a different one each time) instead of their
/// own while their own shard's cohort is racing ([`league::racing`]): that cohort is
/// where placements of the same second meet, and the one that lost the race there
/// goes elsewhere instead of queueing behind it. A quiet cohort keeps its players.
pub(crate) async fn placements<S: SettleStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    placing: &[Placing],
    now_ms: i64,
    contended: u32,
) -> Result<Placed, ServiceError> {
    let Some(league) = league::league_of_board(&board.board) else {
        return Ok(Placed::default());
    };
    let mut named: Vec<(String, String, String)> = Vec::new();
    let week = board.period.as_str();
    // A week that has ended takes late players until its freeze begins (a backlog of
    // its records before the close); the frozen week takes nobody.
    let ended = week_period(league, week)
        .and_then(|p| p.end)
        .is_some_and(|end| end.timestamp_millis() <= now_ms);
    // Read eventually consistent: in the first seconds after midnight every record of
    // the ended week reads this one item (LB-7: 0.5 read units each, under half a
    // partition's limit at 2,000 a second). A freeze begun within the last second may
    // be missed, as a freeze begun between this read and the commit always could be:
    // the week's close places the players its final ranks that no cohort lists.
    let frozen = ended
        && placing.iter().any(|p| matches!(p, Placing::FirstPoints(_)))
        && store
            .get_source_eventually(&frozen_key(league, week))
            .await?
            .is_some();
    let mut writes = Vec::new();
    // Filling cohorts read (owner → filling now, version read), and the member lists
    // to write (owner → members, version expected).
    let mut fillings: Vec<(String, Filling, u64)> = Vec::new();
    let mut passed: Vec<(String, Filling, u64)> = Vec::new();
    let mut lists: Vec<(String, Vec<String>, u64)> = Vec::new();
    for p in placing {
        let (player, m, m_version) = match p {
            Placing::FirstPoints(player) => {
                let (m, v): (Membership, u64) = state(store, player, &state_name(league)).await?;
                // Placed this week, or already in a later one, or waiting for it (a late
                // record of an older week is placed by that week's close, which ranks
                // the frozen week: one decision). Week ids are zero-padded, so they
                // sort in time.
                if m.week.as_deref().is_some_and(|w| w >= week) || m.pending.iter().any(|w| w == week) {
                    continue;
                }
                if frozen {
                    continue;
                }
                if m.week.is_some() && !m.closed {
                    // The close of their last week decides their tier: it places them.
                    let mut waiting = m.clone();
                    waiting.pending.push(week.to_string());
                    waiting.pending.sort();
                    writes.push(StateWrite {
                        player_id: player.clone(),
                        name: state_name(league),
                        expected_version: v,
                        body: json(&waiting),
                    });
                    continue;
                }
                (player.clone(), m, v)
            }
            Placing::Decided { placement, version } => {
                if let Some((later, cohort)) = &placement.leaves {
                    leave(
                        store,
                        league,
                        (later, cohort),
                        &placement.player_id,
                        &mut fillings,
                        &mut lists,
                    )
                    .await?;
                }
                (
                    placement.player_id.clone(),
                    placement.membership.clone(),
                    *version,
                )
            }
        };
        let tier = m.tier.min(league.tiers.len().saturating_sub(1) as u32);
        // The player's shard, or while its cohort is busy this second a spill shard
        // (LB-7; [`league::busy`]): at most SPILL_PROBES of them, then the last one.
        // A busy cohort read on the way is kept apart (`passed`): it is not written.
        // After a lost race, a spill shard instead while the player's own cohort is
        // racing (so it exists: a tier's spill shards are written only when one of its
        // base shards' cohorts exists, and the week's close reads them only then,
        // `tier_fillings`).
        let base = shard_of(&player, league.shards);
        let mut shard = base;
        if contended > 0 {
            let owner = filling_owner(league, week, tier, base);
            let racing = if let Some((_, f, _)) = fillings.iter().find(|(o, _, _)| *o == owner) {
                league::racing(f, now_ms)
            } else {
                let read = filling_read(store, &owner, &mut passed).await?;
                let racing = read.2 > 0 && league::racing(&read.1, now_ms);
                passed.push(read);
                racing
            };
            if racing {
                shard = league::spill_shard(league, &player, SPILL_PROBES + contended);
            }
        }
        let mut probe = 0;
        let at = loop {
            let owner = filling_owner(league, week, tier, shard);
            if let Some(i) = fillings.iter().position(|(o, _, _)| *o == owner) {
                if probe == SPILL_PROBES || !league::busy(&fillings[i].1, now_ms) {
                    break i;
                }
            } else {
                let read = filling_read(store, &owner, &mut passed).await?;
                if probe == SPILL_PROBES || !league::busy(&read.1, now_ms) {
                    fillings.push(read);
                    break fillings.len() - 1;
                }
                passed.push(read);
            }
            shard = league::spill_shard(league, &player, probe);
            probe += 1;
        };
        let owner = fillings[at].0.clone();
        let before = fillings[at].1.clone();
        let (after, number) = league::place(league, before.clone(), &player, now_ms);
        let cohort = cohort_id(tier, shard, number);
        let list_owner = members_owner(league, week, &cohort);
        match lists.iter_mut().find(|(o, _, _)| *o == list_owner) {
            Some(list) => list.1 = after.members.clone(),
            None => {
                // The list's own version, read: a deletion (GM-6) rewrites a member list
                // without the filling item, so no copy of its version can be trusted.
                // One read per player a week; a new cohort's list, or the first
                // member's, is created.
                let expected = if number == before.number && !before.members.is_empty() {
                    store
                        .get_state(&list_owner, MEMBERS_STATE)
                        .await?
                        .map_or(0, |s| s.version)
                } else {
                    0
                };
                lists.push((list_owner.clone(), after.members.clone(), expected));
            }
        }
        fillings[at].1 = after;
        named.push((player.clone(), list_owner.clone(), MEMBERS_STATE.to_string()));
        named.push((player.clone(), owner.clone(), FILLING_STATE.to_string()));
        writes.push(StateWrite {
            player_id: player.clone(),
            name: state_name(league),
            expected_version: m_version,
            body: json(&Membership {
                tier,
                week: Some(week.to_string()),
                cohort: Some(cohort),
                closed: false,
                pending: m.pending.iter().filter(|w| w.as_str() > week).cloned().collect(),
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
    for (owner, filling, version) in fillings {
        writes.push(StateWrite {
            player_id: owner,
            name: FILLING_STATE.to_string(),
            expected_version: version,
            body: json(&filling),
        });
    }
    Ok(Placed { writes, named })
}

/// The filling cohort under `owner` as read: taken out of `passed` (read already by
/// this settlement and not written), else one GetItem. (owner, filling, version).
async fn filling_read<S: SettleStore + ?Sized>(
    store: &S,
    owner: &str,
    passed: &mut Vec<(String, Filling, u64)>,
) -> Result<(String, Filling, u64), ServiceError> {
    if let Some(i) = passed.iter().position(|(o, _, _)| o == owner) {
        return Ok(passed.swap_remove(i));
    }
    let (f, v): (Filling, u64) = state(store, owner, FILLING_STATE).await?;
    Ok((owner.to_string(), f, v))
}

/// Takes `player` out of `cohort` of the later week `week` (its member list and, while
/// it fills, its filling item), into the writes being gathered: they were placed there
/// before their first record of an earlier week arrived, and that week's close places
/// them again ([`Placement::leaves`]). Nothing when they are not there.
async fn leave<S: SettleStore + ?Sized>(
    store: &S,
    league: &LeagueDef,
    (week, cohort): (&str, &str),
    player: &str,
    fillings: &mut Vec<(String, Filling, u64)>,
    lists: &mut Vec<(String, Vec<String>, u64)>,
) -> Result<(), ServiceError> {
    let Some((tier, shard, number)) = league::parse_cohort(cohort) else {
        return Ok(());
    };
    let list_owner = members_owner(league, week, cohort);
    let (mut members, version): (Vec<String>, u64) = state(store, &list_owner, MEMBERS_STATE).await?;
    if members.iter().any(|m| m == player) {
        members.retain(|m| m != player);
        lists.push((list_owner, members, version));
    }
    let owner = filling_owner(league, week, tier, shard);
    let (mut filling, version): (Filling, u64) = state(store, &owner, FILLING_STATE).await?;
    if filling.number == number && filling.members.iter().any(|m| m == player) {
        filling.members.retain(|m| m != player);
        fillings.push((owner, filling, version));
    }
    Ok(())
}

/// The league's own types as JSON (cannot fail: no maps with non-string keys).
pub(crate) fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The source kind of the record that a week's freeze has begun: from then on nobody
/// joins the week (a record of it that late places nobody).
pub const FROZEN_KIND: &str = "league-week-frozen";

pub(crate) fn frozen_key(league: &LeagueDef, week: &str) -> SourceKey {
    SourceKey::new(FROZEN_KIND, format!("{}@{week}", league.id))
}
