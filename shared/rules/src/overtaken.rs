//! `overtaken` messages: who passed whom on a board, seen between two of its snapshots
//! (LB-5), sent only where a player cares and never as a flood:
//!
//! - **the top**: every player listed in the top [`TOP`] of the older snapshot is told
//!   who passed them ([`top_passes`]);
//! - **neighbours**: a player who opted in on a board is told when one of the
//!   [`NEIGHBOURS`] players listed just behind them at the last check is now ahead
//!   ([`neighbour_passes`]);
//! - at most [`MAX_PER_DAY`] `overtaken` messages per player per UTC day (the inbox
//!   drops the others, [`crate::inbox::Inbox::with`]), and one per player per snapshot.
//!
//! A pass counts only when the passer's new place is better than the passed player's
//! old one (LB-2 listing order): a player who fell by their own loss (a rating going
//! down) is not told that the players they fell behind "passed" them.

use chrono::{DateTime, Utc};

use crate::inbox::{Message, MessageKind, Overtaken, Passer};
use crate::leaderboard::listing_key;
use crate::snapshot::SnapshotEntry;
use crate::standing::TOP_CUTOFF;

/// The places at the top whose players are told when passed: the top 100.
pub const TOP: u64 = TOP_CUTOFF;

/// A player who opted in hears of passes by the players listed this many places
/// behind them at the last check.
pub const NEIGHBOURS: usize = 3;

/// `overtaken` messages a player gets in one UTC day at most.
pub const MAX_PER_DAY: u32 = 5;

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

/// The passes on the top of a board: `before` and `after` are the first entries of the
/// older and newer snapshot in listing order (each a prefix of its snapshot: at least
/// the top [`TOP`] places of `before`, and `after_whole` when `after` is the whole
/// newer snapshot). For each player listed in `before` with rank ≤ [`TOP`]: the
/// players now listed ahead of them who were behind them (or not in `before`, so
/// behind), and whose new place beats the player's old one. A player absent from a
/// whole `after` left the board (GM-6) and is told nothing.
pub fn top_passes(before: &[SnapshotEntry], after: &[SnapshotEntry], after_whole: bool) -> Vec<Pass> {
    let position_before = |id: &str| before.iter().position(|e| e.player_id == id);
    let mut out = Vec::new();
    for (i, old) in before.iter().enumerate().take_while(|(_, e)| e.rank <= TOP) {
        let now = after.iter().position(|e| e.player_id == old.player_id);
        if now.is_none() && after_whole {
            continue;
        }
        let ahead = &after[..now.unwrap_or(after.len())];
        let mut by: Vec<SnapshotEntry> = ahead
            .iter()
            .filter(|q| position_before(&q.player_id).is_none_or(|j| j > i) && key(q) < key(old))
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

/// The passes of a player who opted in: `behind_before`, the ids listed just behind
/// them at the last check, and `old`, their entry then; `ahead_now`, the entries now
/// listed just above them. The passers are those of `ahead_now` who were in
/// `behind_before` and whose new place beats `old`, nearest above the player first.
pub fn neighbour_passes(
    old: &SnapshotEntry,
    behind_before: &[String],
    ahead_now: &[SnapshotEntry],
) -> Vec<SnapshotEntry> {
    let mut by: Vec<SnapshotEntry> = ahead_now
        .iter()
        .filter(|q| behind_before.contains(&q.player_id) && key(q) < key(old))
        .cloned()
        .collect();
    by.sort_by(|a, b| key(b).cmp(&key(a)));
    by
}

/// The id of the `overtaken` message of `board` in `period` seen in snapshot
/// `snapshot`: `ot:{board}:{period}:{snapshot}` (one per player and snapshot).
pub fn message_id(board: &str, period: &str, snapshot: &str) -> String {
    format!("ot:{board}:{period}:{snapshot}")
}

impl Message {
    /// The `overtaken` message of `pass` on `board` in `period`, seen in `snapshot`,
    /// sent `at`: `rank` and `value` are the player's now, and it names at most
    /// [`MAX_LISTED`] passers.
    pub fn overtaken(board: &str, period: &str, snapshot: &str, pass: &Pass, at: DateTime<Utc>) -> Self {
        Message {
            id: message_id(board, period, snapshot),
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
            overtaken: Some(Overtaken {
                snapshot: snapshot.to_string(),
                rank_before: pass.rank_before,
                passed_by: pass.by.len() as u64,
                by: pass
                    .by
                    .iter()
                    .take(MAX_LISTED)
                    .map(|e| Passer {
                        player_id: e.player_id.clone(),
                        value: e.value,
                        rank: e.rank,
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
        let passes = top_passes(&before, &after, true);
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
        assert!(top_passes(&before, &after, true).is_empty());
    }

    #[test]
    fn a_newcomer_and_a_player_below_the_read_window_pass_too() {
        let before = board(&[("a", 50), ("b", 40)]);
        // n is new; b fell below the entries read now (not the whole board).
        let after = board(&[("n", 60), ("a", 50)]);
        let passes = top_passes(&before, &after, false);
        assert_eq!(ids(&passes[0].by), ["n"]);
        let b = &passes[1];
        assert_eq!((b.player_id.as_str(), b.rank_after, b.value), ("b", None, 40));
        assert_eq!(ids(&b.by), ["n"], "a was ahead of b before: not a passer");
        // GM-6: a player absent from the whole newer snapshot left; nothing is sent.
        assert_eq!(top_passes(&before, &after, true).len(), 1);
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
        let passes = top_passes(&before, &after, true);
        assert_eq!(passes.len(), TOP as usize);
        assert!(passes.iter().all(|p| ids(&p.by) == ["p149"]));
    }

    #[test]
    fn neighbours_passes_come_from_those_behind_at_the_last_check() {
        let old = board(&[("me", 30)]).remove(0);
        let behind = vec!["x".to_string(), "y".to_string(), "z".to_string()];
        let ahead = board(&[("w", 90), ("x", 40), ("y", 35)]);
        let by = neighbour_passes(&old, &behind, &ahead);
        assert_eq!(ids(&by), ["y", "x"], "nearest above first; w was never behind");
        // y now level with my old value but reached later is not past me.
        let mut tied = board(&[("y", 30)]);
        tied[0].reached_at_ms = 5;
        assert!(neighbour_passes(&old, &behind, &tied).is_empty());
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
                &pass("q"),
                day1,
            ));
        }
        assert_eq!(inbox.messages.len(), MAX_PER_DAY as usize);
        inbox = inbox.with(Message::overtaken("seega", "all", "next-day", &pass("q"), day2));
        assert_eq!(
            inbox.messages.len(),
            MAX_PER_DAY as usize + 1,
            "a new day counts anew"
        );
        let m = inbox.get("ot:seega:all:next-day").expect("kept");
        let o = m.overtaken.as_ref().expect("overtaken");
        assert_eq!((o.rank_before, o.passed_by, m.rank), (3, 1, Some(4)));
    }
}
