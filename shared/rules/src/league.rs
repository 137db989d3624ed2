//! Weekly leagues: small divisions ("cohorts") of about [`LeagueDef::cohort_size`]
//! players of the same tier, on a period board's weeks (Mahjong Rivals' week, GM-2).
//!
//! - **Placement.** A player is placed when they first score in a week (their first
//!   credit to the league's weekly board that week), into the cohort of their tier
//!   that is filling in their shard ([`shard_of`]; a tier fills [`LeagueDef::shards`]
//!   cohorts side by side so that placements do not all contend on one item). A
//!   cohort takes `cohort_size` players, then the next one starts.
//! - **Spilling under load** (LB-7). A filling cohort counts the placements it took
//!   in the current second of the server clock; once it took [`BUSY_PER_SECOND`], it
//!   is busy until that second ends ([`busy`]) and the tier's further placements that
//!   second go to one of its [`LeagueDef::spill_shards`] spill shards instead
//!   ([`spill_shard`]; another when that one is busy too). A placement whose commit
//!   was contended while its own cohort is racing ([`racing`]: it took
//!   [`RACING_PER_SECOND`] placements this second) is placed again from a spill shard
//!   too. A quiet tier fills its `shards` cohorts exactly as without spilling; the
//!   Monday 00:00 spike of first points spreads over
//!   `shards + spill_shards` items, each written at most about [`BUSY_PER_SECOND`]
//!   times a second (LB-7's 2,000 records a second, 80 % of them first points of one
//!   tier: about 13 a second on each of 124 spill shards). A busy cohort remembers
//!   that its tier spilled that week ([`Filling::spilled`]). Either way the base
//!   shard's cohort exists first, so the week's close reads a tier's spill shards only
//!   when one of its base shards' cohorts exists.
//! - **The close decides the tier.** A player whose last week is not closed yet when
//!   they first score in a new week (the minutes after midnight before the close, or
//!   an outage of the scheduled job) is not placed then: the week waits in their
//!   membership ([`Membership::pending`]) and the close of their last week, which
//!   records their tier, places them ([`Placement`]). A tier is never predicted, so
//!   the tier a player plays is always the one their last `league_result` announced.
//!   Nobody joins a week that has ended (a late record of an ended week places nobody).
//! - **Standing.** A cohort is ranked like any board (LB-2) by its members' values on
//!   the weekly board: higher first, ties listed by who reached the value first,
//!   then player id.
//! - **Promotion and relegation** when the week ends: the top `promote` of a cohort
//!   move up a tier (not above the top tier), the bottom `relegate` down (not below
//!   the first), each at most a third of the cohort (rounded down), by listing
//!   position. A tier holds until the player's next placement; a player who skips
//!   weeks keeps their tier.
//! - A new player starts in the first tier.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::leaderboard::{listing_order, Standing};

/// A league: its weeks come from `board` (a weekly period board).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeagueDef {
    pub id: &'static str,
    /// The weekly board whose values rank the cohorts.
    pub board: &'static str,
    /// Tier names, lowest first.
    pub tiers: &'static [&'static str],
    pub cohort_size: u32,
    pub promote: u32,
    pub relegate: u32,
    /// Cohorts that fill side by side in each tier.
    pub shards: u32,
    /// Further cohorts per tier that take placements while the `shards` are busy
    /// (see "Spilling under load"): shards `shards … shards + spill_shards − 1`.
    pub spill_shards: u32,
}

/// The leagues podium runs.
pub const LEAGUES: [LeagueDef; 1] = [LeagueDef {
    id: "mahjong-league",
    board: "mahjong-weekly",
    tiers: &["bronze", "silver", "gold", "platinum", "diamond"],
    cohort_size: 30,
    promote: 5,
    relegate: 5,
    shards: 4,
    spill_shards: 124,
}];

/// Placements a filling cohort takes in one second of the server clock before it is
/// busy for the rest of that second (LB-7: about 40 write units a second on its
/// item, a twelfth of half a partition's limit, and few transactions meeting on it).
pub const BUSY_PER_SECOND: u32 = 20;

/// The league named `id`.
pub fn league_def(id: &str) -> Option<&'static LeagueDef> {
    LEAGUES.iter().find(|l| l.id == id)
}

/// The league whose weeks come from `board`, if any.
pub fn league_of_board(board: &str) -> Option<&'static LeagueDef> {
    LEAGUES.iter().find(|l| l.board == board)
}

/// The name of the player's state item for `league`.
pub fn state_name(league: &LeagueDef) -> String {
    format!("league:{}", league.id)
}

/// A player's place in a league (their state item).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Membership {
    /// Their tier (0: the first).
    pub tier: u32,
    /// The week they were last placed in, and the cohort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub week: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort: Option<String>,
    /// Whether `tier` already holds that week's movement (the week was closed).
    #[serde(default)]
    pub closed: bool,
    /// Later weeks the player scored in while `week` was not closed yet, oldest
    /// first: the close of `week` places them in the first of these (week ids sort in
    /// time), at the tier it records, and so on week by week.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
}

/// A placement a settlement other than the player's first points makes: the close of
/// their last week, which recorded their tier, places them in the next week they
/// scored in (the first of [`Membership::pending`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The league's weekly board and the week.
    pub board: String,
    pub week: String,
    pub player_id: String,
    /// Their membership as the close leaves it: the tier to place them at, the
    /// weeks still waiting after `week`.
    pub membership: Membership,
    /// A cohort of a later week (week, cohort id) the player leaves: they were placed
    /// there before their first record of `week` reached podium, so `week`'s close
    /// places them again, at the tier it announces (records that arrive out of order
    /// end as if they had arrived in order).
    pub leaves: Option<(String, String)>,
}

/// The cohort filling in one (week, tier, shard): its number and members so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filling {
    pub number: u32,
    pub members: Vec<String>,
    /// The second (server clock, ms / 1000, UTC) of the last placement here, and the
    /// placements taken in that second ([`busy`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub second: i64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub in_second: u32,
    /// This tier used its spill shards this week because this cohort was busy (set on
    /// a base shard's cohort when it becomes busy; a record for operators, which no
    /// read depends on: the close reads a tier's spill shards whenever a base shard's
    /// cohort exists).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spilled: bool,
}

fn is_zero<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Whether `filling` took [`BUSY_PER_SECOND`] placements in the second of `now_ms`
/// (server clock, ms UTC): a placement then goes to a spill shard.
pub fn busy(filling: &Filling, now_ms: i64) -> bool {
    filling.second == now_ms.div_euclid(1000) && filling.in_second >= BUSY_PER_SECOND
}

/// Placements a filling cohort takes in one second before a placement whose commit
/// was contended goes on to a spill shard ([`racing`]).
pub const RACING_PER_SECOND: u32 = 4;

/// Whether `filling` took [`RACING_PER_SECOND`] placements in the second of `now_ms`
/// (server clock, ms UTC): placements are meeting on it, and one whose commit lost a
/// race goes on to a spill shard rather than queue behind the others (LB-7). A quiet
/// cohort is never racing, so a commit contended on something else, or a race of two,
/// keeps its player in their own shard's cohort.
pub fn racing(filling: &Filling, now_ms: i64) -> bool {
    filling.second == now_ms.div_euclid(1000) && filling.in_second >= RACING_PER_SECOND
}

/// The spill shard (`shards … shards + spill_shards − 1`) `player`'s placement tries
/// at its `probe`-th try (0 first): SHA-256 of their id and the probe.
pub fn spill_shard(league: &LeagueDef, player: &str, probe: u32) -> u32 {
    let d = Sha256::digest(format!("{player}#{probe}").as_bytes());
    league.shards + u32::from_be_bytes([d[0], d[1], d[2], d[3]]) % league.spill_shards.max(1)
}

/// The internal owner (`@{league}:{week}:{tier}:{shard}`, never an account: GM-5,
/// [`crate::record::ids::internal_owner`]) under which the filling cohort of
/// (`week`, `tier`, `shard`) is kept as a state item (so placements are serialised
/// by its version).
pub fn filling_owner(league: &LeagueDef, week: &str, tier: u32, shard: u32) -> String {
    crate::record::ids::internal_owner(&format!("{}:{week}:{tier}:{shard}", league.id))
}

/// The internal owner (`@{league}:{week}:{cohort}`, never an account: GM-5) under
/// which a cohort's member list is kept as a state item.
pub fn members_owner(league: &LeagueDef, week: &str, cohort: &str) -> String {
    crate::record::ids::internal_owner(&format!("{}:{week}:{cohort}", league.id))
}

/// The state item name of a filling cohort.
pub const FILLING_STATE: &str = "league-filling";

/// A cohort's id: `t{tier}-s{shard}-n{number}`.
pub fn cohort_id(tier: u32, shard: u32, number: u32) -> String {
    format!("t{tier}-s{shard}-n{number}")
}

/// The tier of cohort `id`, if it is a cohort id.
pub fn tier_of_cohort(id: &str) -> Option<u32> {
    parse_cohort(id).map(|(tier, _, _)| tier)
}

/// The (tier, shard, number) of cohort `id` (`t{tier}-s{shard}-n{number}`), if it is
/// a cohort id.
pub fn parse_cohort(id: &str) -> Option<(u32, u32, u32)> {
    let rest = id.strip_prefix('t')?;
    let (tier, rest) = rest.split_once("-s")?;
    let (shard, number) = rest.split_once("-n")?;
    let ok = |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
    if !(ok(tier) && ok(shard) && ok(number)) {
        return None;
    }
    Some((tier.parse().ok()?, shard.parse().ok()?, number.parse().ok()?))
}

/// The shard a player fills cohorts in: SHA-256 of their id, modulo `shards`.
pub fn shard_of(player: &str, shards: u32) -> u32 {
    let d = Sha256::digest(player.as_bytes());
    u32::from_be_bytes([d[0], d[1], d[2], d[3]]) % shards.max(1)
}

/// Places `player` in `filling` (their tier and shard's cohort this week) at server
/// clock `now_ms` (ms, UTC): the filling cohort after, and the number of the cohort
/// they joined. The placement counts towards [`busy`]; the one that makes a base
/// shard's cohort busy marks the tier [`Filling::spilled`].
pub fn place(league: &LeagueDef, mut filling: Filling, player: &str, now_ms: i64) -> (Filling, u32) {
    if filling.members.iter().any(|m| m == player) {
        return (filling.clone(), filling.number);
    }
    if filling.members.len() >= league.cohort_size as usize {
        filling.number += 1;
        filling.members.clear();
    }
    let second = now_ms.div_euclid(1000);
    if filling.second == second {
        filling.in_second += 1;
    } else {
        filling.second = second;
        filling.in_second = 1;
    }
    if filling.in_second >= BUSY_PER_SECOND {
        filling.spilled = true;
    }
    filling.members.push(player.to_string());
    let number = filling.number;
    (filling, number)
}

/// What the week's end did to a player's tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Movement {
    Promoted,
    Relegated,
    Stayed,
}

/// One member's result in a closed cohort.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CohortResult {
    pub player_id: String,
    /// LB-2 rank in the cohort, and its listing position (1-based).
    pub rank: u64,
    pub position: u64,
    pub of: u64,
    pub value: i64,
    pub movement: Movement,
    pub tier_before: u32,
    pub tier_after: u32,
}

/// The cohort ranked (LB-2): members' standings in listing order with their ranks.
pub fn ranked(mut standings: Vec<Standing>) -> Vec<(Standing, u64)> {
    standings.sort_by(listing_order);
    let mut out: Vec<(Standing, u64)> = Vec::with_capacity(standings.len());
    for (i, s) in standings.into_iter().enumerate() {
        let rank = match out.last() {
            Some((prev, r)) if prev.value == s.value => *r,
            _ => i as u64 + 1,
        };
        out.push((s, rank));
    }
    out
}

/// The results of a closed cohort of tier `tier`: promotion and relegation by listing
/// position, each at most a third of the cohort.
pub fn close(league: &LeagueDef, tier: u32, standings: Vec<Standing>) -> Vec<CohortResult> {
    let list = ranked(standings);
    let of = list.len() as u64;
    let cap = of / 3;
    let up = u64::from(league.promote).min(cap);
    let down = u64::from(league.relegate).min(cap);
    let top = league.tiers.len().saturating_sub(1) as u32;
    list.into_iter()
        .enumerate()
        .map(|(i, (s, rank))| {
            let position = i as u64 + 1;
            let movement = if position <= up && tier < top {
                Movement::Promoted
            } else if position > of - down && tier > 0 {
                Movement::Relegated
            } else {
                Movement::Stayed
            };
            let tier_after = match movement {
                Movement::Promoted => tier + 1,
                Movement::Relegated => tier - 1,
                Movement::Stayed => tier,
            };
            CohortResult {
                player_id: s.player_id,
                rank,
                position,
                of,
                value: s.value,
                movement,
                tier_before: tier,
                tier_after,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn league() -> LeagueDef {
        LEAGUES[0]
    }

    fn standings(values: &[i64]) -> Vec<Standing> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| Standing {
                player_id: format!("p{i:02}"),
                value: *v,
                reached_at_ms: i as i64,
            })
            .collect()
    }

    /// LB-7: a cohort that took BUSY_PER_SECOND placements in one second is busy for
    /// the rest of that second only, and marks its tier as spilled.
    #[test]
    fn a_cohort_is_busy_for_the_rest_of_a_second_once_it_took_its_share() {
        let mut f = Filling::default();
        for i in 0..BUSY_PER_SECOND {
            assert!(!busy(&f, 5_000), "busy after {i}");
            f = place(&league(), f, &format!("p{i}"), 5_000 + i as i64).0;
        }
        assert!(busy(&f, 5_999));
        assert!(f.spilled);
        assert!(!busy(&f, 6_000), "a new second");
        let (after, _) = place(&league(), f, "late", 6_000);
        assert_eq!((after.second, after.in_second), (6, 1));
        assert!(after.spilled, "the week keeps that its tier spilled");
    }

    /// LB-7: a cohort races once it took RACING_PER_SECOND placements in the current
    /// second; a quiet one (fewer, or in an earlier second) never does.
    #[test]
    fn a_cohort_races_only_while_it_takes_placements_this_second() {
        let mut f = Filling::default();
        for i in 0..RACING_PER_SECOND {
            assert!(!racing(&f, 7_000), "racing after {i}");
            f = place(&league(), f, &format!("p{i}"), 7_000).0;
        }
        assert!(racing(&f, 7_999));
        assert!(!busy(&f, 7_999), "racing before busy");
        assert!(!racing(&f, 8_000), "a new second");
    }

    #[test]
    fn spill_shards_lie_past_the_base_shards_and_differ_by_probe() {
        let l = league();
        let shards: std::collections::BTreeSet<u32> =
            (0..8).map(|probe| spill_shard(&l, "p-0000001", probe)).collect();
        assert!(shards
            .iter()
            .all(|s| (l.shards..l.shards + l.spill_shards).contains(s)));
        assert!(shards.len() > 1);
    }

    #[test]
    fn cohorts_fill_to_their_size_then_the_next_starts() {
        let mut f = Filling::default();
        let mut numbers = Vec::new();
        for i in 0..65 {
            let (next, n) = place(&league(), f, &format!("p{i}"), 0);
            f = next;
            numbers.push(n);
        }
        assert_eq!(numbers.iter().filter(|n| **n == 0).count(), 30);
        assert_eq!(numbers.iter().filter(|n| **n == 1).count(), 30);
        assert_eq!((f.number, f.members.len()), (2, 5));
        let (again, n) = place(&league(), f.clone(), "p64", 0);
        assert_eq!((again, n), (f, 2), "placing twice changes nothing");
    }

    #[test]
    fn top_five_up_bottom_five_down_a_third_at_most() {
        let values: Vec<i64> = (0..30).map(|i| 1_000 - i * 10).collect();
        let r = close(&league(), 2, standings(&values));
        let moves: Vec<Movement> = r.iter().map(|x| x.movement).collect();
        assert!(moves[..5].iter().all(|m| *m == Movement::Promoted));
        assert!(moves[5..25].iter().all(|m| *m == Movement::Stayed));
        assert!(moves[25..].iter().all(|m| *m == Movement::Relegated));
        assert_eq!((r[0].tier_after, r[29].tier_after), (3, 1));
        // A cohort of 4: one up, one down.
        let r = close(&league(), 1, standings(&[40, 30, 20, 10]));
        let moves: Vec<Movement> = r.iter().map(|x| x.movement).collect();
        assert_eq!(
            moves,
            [
                Movement::Promoted,
                Movement::Stayed,
                Movement::Stayed,
                Movement::Relegated
            ]
        );
        // The first tier relegates nobody, the top tier promotes nobody; alone, nothing moves.
        assert!(close(&league(), 0, standings(&values))
            .iter()
            .all(|x| x.movement != Movement::Relegated));
        assert!(close(&league(), 4, standings(&values))
            .iter()
            .all(|x| x.movement != Movement::Promoted));
        assert_eq!(close(&league(), 2, standings(&[5]))[0].movement, Movement::Stayed);
    }

    #[test]
    fn lb_2_ties_share_a_rank_and_list_by_who_reached_first() {
        let mut s = standings(&[50, 70, 70, 10]);
        s[2].reached_at_ms = -1;
        let r = close(&league(), 0, s);
        let ranks: Vec<(&str, u64, u64)> = r
            .iter()
            .map(|x| (x.player_id.as_str(), x.rank, x.position))
            .collect();
        assert_eq!(
            ranks,
            [("p02", 1, 1), ("p01", 1, 2), ("p00", 3, 3), ("p03", 4, 4)]
        );
    }

    #[test]
    fn cohort_ids_round_trip() {
        assert_eq!(tier_of_cohort(&cohort_id(3, 1, 12)), Some(3));
        assert_eq!(parse_cohort(&cohort_id(3, 1, 12)), Some((3, 1, 12)));
        for bad in [
            "",
            "t",
            "t1-s2",
            "t1-s2-n",
            "tx-s1-n1",
            "t1-s1-n1-",
            "t99999999999-s1-n1",
        ] {
            assert_eq!(tier_of_cohort(bad), None, "{bad}");
        }
        assert!(shard_of("p-1", 4) < 4);
    }
}
