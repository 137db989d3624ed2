//! `overtaken` messages: who passed whom on a board, seen between two of its snapshots
//! (LB-5), sent only where a player cares and never as a flood:
//!
//! - **the top**: every player listed in the first [`TOP`] places of the older
//!   snapshot is told who passed them ([`top_passes`]);
//! - **neighbours**: a player who opted in on a board is told when one of the
//!   [`NEIGHBOURS`] players listed just behind them at the last check is now ahead
//!   ([`neighbour_passes`]);
//! - at most [`MAX_PER_DAY`] `overtaken` messages per player per UTC day (the inbox
//!   drops the others, [`crate::inbox::Inbox::with`]), and one per player per older
//!   snapshot compared from ([`message_id`]).
//!
//! A pass counts only when the passer's new place is better than the passed player's
//! old one (LB-2 listing order): a player who fell by their own loss (a rating going
//! down) is not told that the players they fell behind "passed" them.
//!
//! A pass is play: the passer was behind the passed player when the older snapshot
//! read the board and is ahead now, which only a change of the passer's value (a
//! settlement: a match, a completion, a correction) can do. Moderation moves nobody
//! (OP-4, GM-6, PF-1): a player suspended or deleted since is left out of both sides
//! (the caller passes entries without them), and a player the older snapshot did not
//! list because they were suspended then, and who is listed again after a restore, is
//! compared by the key their entry held when that snapshot read the board
//! ([`HeldThen`]): the place they held then, not "new". A rename changes no key.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::history::HeldKey;
use crate::leaderboard::listing_key;
use crate::message::{Message, MessageKind, Overtaken, Passer};
use crate::snapshot::SnapshotEntry;
use crate::standing::TOP_CUTOFF;

/// The places at the top whose players are told when passed: the first 100 listed
/// (LB-2 listing order; a tie across the 100th place counts its first 100 places).
pub const TOP: u64 = TOP_CUTOFF;

/// A player who opted in hears of passes by the players listed this many places
/// behind them at the last check.
pub const NEIGHBOURS: usize = 3;

/// `overtaken` messages a player gets in one UTC day at most: the inbox's cap
/// ([`crate::inbox::MAX_OVERTAKEN_PER_DAY`]), which drops the others.
pub const MAX_PER_DAY: u32 = crate::inbox::MAX_OVERTAKEN_PER_DAY;

/// Passers a message names (the nearest above the player first).
pub const MAX_LISTED: usize = 3;

/// One player passed between two snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    pub player_id: String,
    /// The LB-2 rank before, and now (`None`: below the entries read now).
    pub rank_before: u64,
    pub rank_after: Option<u64>,
    /// The player's value now (before, when below the entries read now).
    pub value: i64,
    /// Who passed them, nearest above them first.
    pub by: Vec<SnapshotEntry>,
}

fn key(e: &SnapshotEntry) -> (std::cmp::Reverse<i64>, i64, &str) {
    listing_key(e.value, e.reached_at_ms, &e.player_id)
}

/// The keys (value, reached at) that players listed now held when the older snapshot
/// read the board, for players that snapshot does not list among the entries compared:
/// a player absent here had no entry then, or one below those entries.
pub type HeldThen = HashMap<String, HeldKey>;

/// The passes on the top of a board: `before` and `after` are the first entries of the
/// older and newer snapshot in listing order (each a prefix of its snapshot: at least
/// the first [`TOP`] places of `before`, and `after_whole` when `after` is the whole
/// newer snapshot), both without the players hidden now (suspended or deleted). For
/// each player listed in the first [`TOP`] places of `before`: the players now listed
/// ahead of them who were behind them when the older snapshot read the board (listed
/// behind them in `before`; or, not listed there, holding then the key `held_then`
/// gives, or none: new, or below the entries compared), and whose new place beats the
/// player's old one. A player absent from a whole `after` left the board (GM-6) and is
/// told nothing. A player listed again after a restore, whose key `held_then` gives as
/// ahead of the player's then, passed nobody: moderation is not play (OP-4).
pub fn top_passes(
    before: &[SnapshotEntry],
    after: &[SnapshotEntry],
    after_whole: bool,
    held_then: &HeldThen,
) -> Vec<Pass> {
    let position_before = |id: &str| before.iter().position(|e| e.player_id == id);
    // Whether `q` was behind `old` (listed `i`-th in `before`) when the older snapshot read the board.
    let was_behind = |q: &SnapshotEntry, i: usize, old: &SnapshotEntry| match position_before(&q.player_id) {
        Some(j) => j > i,
        None => held_then
            .get(&q.player_id)
            .is_none_or(|then| listing_key(then.value, then.reached_at_ms, &q.player_id) > key(old)),
    };
    let mut out = Vec::new();
    for (i, old) in before.iter().enumerate().take(TOP as usize) {
        let now = after.iter().position(|e| e.player_id == old.player_id);
        if now.is_none() && after_whole {
            continue;
        }
        let ahead = &after[..now.unwrap_or(after.len())];
        let mut by: Vec<SnapshotEntry> = ahead
            .iter()
            .filter(|q| was_behind(q, i, old) && key(q) < key(old))
            .cloned()
            .collect();
        if by.is_empty() {
            continue;
        }
        by.reverse();
        out.push(Pass {
            player_id: old.player_id.clone(),
            rank_before: old.rank,
            rank_after: now.map(|j| after[j].rank),
            value: now.map_or(old.value, |j| after[j].value),
            by,
        });
    }
    out
}

/// The players of `after` whose key when the older snapshot read the board
/// [`top_passes`] needs: those `before` does not list whose key now beats the old key
/// of the last player of `before`'s first [`TOP`] places (no other can pass anyone).
pub fn unlisted_contenders<'a>(before: &[SnapshotEntry], after: &'a [SnapshotEntry]) -> Vec<&'a str> {
    let compared = &before[..before.len().min(TOP as usize)];
    let Some(last) = compared.last() else {
        return Vec::new();
    };
    after
        .iter()
        .filter(|q| key(q) < key(last) && !before.iter().any(|e| e.player_id == q.player_id))
        .map(|q| q.player_id.as_str())
        .collect()
}

/// The passes of a player who opted in: `old`, their entry at the last check, and
/// `mine`, their entry now; `were_behind`, the entries now of the players listed
/// just behind them at the last check, wherever they are now (without those hidden
/// now: suspended or deleted). The passers are those now listed above `mine` whose
/// place beats `old`, nearest above the player first: each was behind at the last
/// check, so only their own play put them ahead (a player a suspension hid then was
/// not listed, and a restore puts nobody among them).
pub fn neighbour_passes(
    old: &SnapshotEntry,
    mine: &SnapshotEntry,
    were_behind: &[SnapshotEntry],
) -> Vec<SnapshotEntry> {
    let mut by: Vec<SnapshotEntry> = were_behind
        .iter()
        .filter(|q| q.player_id != mine.player_id && key(q) < key(old) && key(q) < key(mine))
        .cloned()
        .collect();
    by.sort_by(|a, b| key(b).cmp(&key(a)));
    by
}

/// The id of the `overtaken` message of `board` in `period` compared from snapshot
/// `since`: `ot:{board}:{period}:{since}`. One per player and older snapshot, so a
/// comparison repeated from the same snapshot (a retry, two ticks at once, a tick
/// after a failed one) tells nothing twice.
pub fn message_id(board: &str, period: &str, since: &str) -> String {
    format!("ot:{board}:{period}:{since}")
}

impl Message {
    /// The `overtaken` message of `pass` on `board` in `period`, from snapshot `since`
    /// to snapshot `snapshot`, sent `at`: `rank` and `value` are the player's now, and
    /// it names at most [`MAX_LISTED`] passers (a passer's `rank` is absent when it
    /// was not read: 0 in `pass`).
    pub fn overtaken(
        board: &str,
        period: &str,
        since: &str,
        snapshot: &str,
        pass: &Pass,
        at: DateTime<Utc>,
    ) -> Self {
        Message {
            id: message_id(board, period, since),
            seq: 0,
            kind: MessageKind::Overtaken,
            at,
            board: board.to_string(),
            period: period.to_string(),
            rank: pass.rank_after,
            of: None,
            top_percent: None,
            value: pass.value,
            reward: None,
            league: None,
            rank_up: None,
            team: None,
            overtaken: Some(Overtaken {
                since: since.to_string(),
                snapshot: snapshot.to_string(),
                rank_before: pass.rank_before,
                passed_by: pass.by.len() as u64,
                by: pass
                    .by
                    .iter()
                    .take(MAX_LISTED)
                    .map(|e| Passer {
                        card: Default::default(),
                        player_id: e.player_id.clone(),
                        value: e.value,
                        rank: (e.rank > 0).then_some(e.rank),
                    })
                    .collect(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::Inbox;
    use crate::leaderboard::RankCounter;

    /// A board in listing order from (player, value); all reached at 0.
    fn board(entries: &[(&str, i64)]) -> Vec<SnapshotEntry> {
        let mut c = RankCounter::top();
        entries
            .iter()
            .map(|(p, v)| SnapshotEntry {
                rank: c.next(*v),
                player_id: p.to_string(),
                value: *v,
                reached_at_ms: 0,
                card: Default::default(),
            })
            .collect()
    }

    fn ids(by: &[SnapshotEntry]) -> Vec<&str> {
        by.iter().map(|e| e.player_id.as_str()).collect()
    }

    #[test]
    fn lb_2_top_passes_name_who_passed_whom() {
        let before = board(&[("a", 50), ("b", 40), ("c", 30), ("d", 20)]);
        // d jumps past b and c; a stays.
        let after = board(&[("a", 50), ("d", 45), ("b", 40), ("c", 30)]);
        let passes = top_passes(&before, &after, true, &HeldThen::new());
        assert_eq!(passes.len(), 2);
        assert_eq!(
            (
                passes[0].player_id.as_str(),
                passes[0].rank_before,
                passes[0].rank_after
            ),
            ("b", 2, Some(3))
        );
        assert_eq!(ids(&passes[0].by), ["d"]);
        assert_eq!(
            (passes[1].player_id.as_str(), ids(&passes[1].by)),
            ("c", vec!["d"])
        );
    }

    #[test]
    fn lb_2_a_fall_by_ones_own_loss_is_no_pass() {
        // b's rating fell below c's: c did not move, so nobody passed b.
        let before = board(&[("a", 50), ("b", 40), ("c", 30)]);
        let after = board(&[("a", 50), ("c", 30), ("b", 20)]);
        assert!(top_passes(&before, &after, true, &HeldThen::new()).is_empty());
    }

    #[test]
    fn a_newcomer_and_a_player_below_the_read_window_pass_too() {
        let before = board(&[("a", 50), ("b", 40)]);
        // n is new; b fell below the entries read now (not the whole board).
        let after = board(&[("n", 60), ("a", 50)]);
        let passes = top_passes(&before, &after, false, &HeldThen::new());
        assert_eq!(ids(&passes[0].by), ["n"]);
        let b = &passes[1];
        assert_eq!((b.player_id.as_str(), b.rank_after, b.value), ("b", None, 40));
        assert_eq!(ids(&b.by), ["n"], "a was ahead of b before: not a passer");
        // GM-6: a player absent from the whole newer snapshot left; nothing is sent.
        assert_eq!(top_passes(&before, &after, true, &HeldThen::new()).len(), 1);
    }

    /// OP-4: a player the older snapshot left out while suspended, listed again after a
    /// restore at the key they held then, passes nobody; one who played since the older
    /// snapshot read the board passes those their play took them past, and only those.
    #[test]
    fn op_4_a_restored_player_passes_nobody_by_the_restore() {
        // x (60) was suspended when the older snapshot read the board: not listed.
        let before = board(&[("a", 50), ("b", 40), ("c", 30)]);
        let after = board(&[("x", 60), ("a", 50), ("b", 40), ("c", 30)]);
        assert_eq!(unlisted_contenders(&before, &after), ["x"]);
        let mut then = HeldThen::new();
        then.insert(
            "x".into(),
            HeldKey {
                value: 60,
                reached_at_ms: 0,
            },
        );
        assert!(
            top_passes(&before, &after, true, &then).is_empty(),
            "a restore is not play"
        );
        // x held 35 then (between b and c) and won a match since: x passed a and b only.
        then.insert(
            "x".into(),
            HeldKey {
                value: 35,
                reached_at_ms: 0,
            },
        );
        let passes = top_passes(&before, &after, true, &then);
        let passed: Vec<&str> = passes.iter().map(|p| p.player_id.as_str()).collect();
        assert_eq!(passed, ["a", "b"]);
        assert!(passes.iter().all(|p| ids(&p.by) == ["x"]));
        // Without a key then (no entry, or below the entries compared): new, so ahead of c too.
        assert_eq!(top_passes(&before, &after, true, &HeldThen::new()).len(), 3);
        // A newcomer below the last compared place can pass nobody: not looked up.
        let after = board(&[("a", 50), ("b", 40), ("c", 30), ("n", 20)]);
        assert!(unlisted_contenders(&before, &after).is_empty());
    }

    #[test]
    fn only_the_top_100_are_told() {
        let players: Vec<(String, i64)> = (0..150).map(|i| (format!("p{i:03}"), 1_000 - i)).collect();
        let before_pairs: Vec<(&str, i64)> = players.iter().map(|(p, v)| (p.as_str(), *v)).collect();
        let before = board(&before_pairs);
        // The last player jumps to the top: 149 players are passed, 100 of them told.
        let mut after_pairs = vec![("p149", 2_000)];
        after_pairs.extend(before_pairs[..149].iter().copied());
        let after = board(&after_pairs);
        let passes = top_passes(&before, &after, true, &HeldThen::new());
        assert_eq!(passes.len(), TOP as usize);
        assert!(passes.iter().all(|p| ids(&p.by) == ["p149"]));
    }

    #[test]
    fn neighbours_passes_come_from_those_behind_at_the_last_check() {
        let old = board(&[("me", 30)]).remove(0);
        // x jumped far above, y just above; z is still behind.
        let were_behind = board(&[("x", 400), ("y", 35), ("z", 10)]);
        let by = neighbour_passes(&old, &old, &were_behind);
        assert_eq!(ids(&by), ["y", "x"], "nearest above first, however far");
        // y now level with my old value but reached later is not past me.
        let mut tied = board(&[("y", 30)]);
        tied[0].reached_at_ms = 5;
        assert!(neighbour_passes(&old, &old, &tied).is_empty());
        // I climbed past y meanwhile: y is no passer.
        let mine = board(&[("me", 50)]).remove(0);
        assert_eq!(ids(&neighbour_passes(&old, &mine, &were_behind)), ["x"]);
    }

    #[test]
    fn at_most_max_per_day_overtaken_messages_a_day() {
        let day1: DateTime<Utc> = "2026-12-01T10:00:00Z".parse().expect("instant");
        let day2: DateTime<Utc> = "2026-12-02T00:00:01Z".parse().expect("instant");
        let pass = |by: &str| Pass {
            player_id: "me".into(),
            rank_before: 3,
            rank_after: Some(4),
            value: 10,
            by: board(&[(by, 20)]),
        };
        let mut inbox = Inbox::default();
        for i in 0..(MAX_PER_DAY + 3) {
            inbox = inbox.with(Message::overtaken(
                "seega",
                "all",
                &format!("s{i}"),
                "new",
                &pass("q"),
                day1,
            ));
        }
        assert_eq!(inbox.messages.len(), MAX_PER_DAY as usize);
        inbox = inbox.with(Message::overtaken(
            "seega",
            "all",
            "next-day",
            "new",
            &pass("q"),
            day2,
        ));
        // A late message of the day before is not added (days only move forward).
        let late = inbox.clone().with(Message::overtaken(
            "seega",
            "all",
            "late",
            "new",
            &pass("q"),
            day1,
        ));
        assert_eq!(late, inbox);
        assert_eq!(
            inbox.messages.len(),
            MAX_PER_DAY as usize + 1,
            "a new day counts anew"
        );
        let m = inbox.get("ot:seega:all:next-day").expect("kept");
        let o = m.overtaken.as_ref().expect("overtaken");
        assert_eq!((o.rank_before, o.passed_by, m.rank), (3, 1, Some(4)));
    }

    #[test]
    fn an_inbox_full_of_unclaimed_rewards_takes_no_overtaken_message() {
        let at: DateTime<Utc> = "2026-12-01T10:00:00Z".parse().expect("instant");
        let result = crate::period_reward::PeriodResult {
            player_id: "me".into(),
            rank: 1,
            of: 2,
            top_percent: 50,
            value: 10,
            reward: 5,
            jokers: 0,
        };
        let mut inbox = Inbox::default();
        for i in 0..crate::inbox::MAX_MESSAGES {
            inbox = inbox.with(Message::period_result(
                "mahjong-weekly",
                &format!("p{i}"),
                crate::game::Game::MahjongRivals,
                &result,
                at,
            ));
        }
        let pass = Pass {
            player_id: "me".into(),
            rank_before: 1,
            rank_after: Some(2),
            value: 10,
            by: board(&[("q", 20)]),
        };
        let after = inbox
            .clone()
            .with(Message::overtaken("seega", "all", "s", "t", &pass, at));
        assert_eq!(after, inbox, "not added, not counted");
    }
}
