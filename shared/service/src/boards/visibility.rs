//! Whom a read that lists players shows (OP-4; GM-6 through a snapshot's pointer),
//! and the ranks it shows them at: one read path for every such view.
//!
//! Every view that lists players (board pages, around-me and standing, friends,
//! country views, frozen archives, league cohorts, the players an `overtaken` message
//! names, tournament winners) decides whom it shows through one [`Hidden`], obtained
//! once per request, and makes its lines through it: a board entry
//! ([`crate::boards::live::Entry`]) is made only from a [`Line`], which only a
//! [`Hidden`] gives. A view built from live data reads who is suspended among the
//! players it lists ([`Hidden::among`], their guards) or on the board it reads
//! ([`Hidden::on_board`], the board's index); a view of a snapshot reads whom its
//! pointer hides ([`Hidden::in_snapshot`], no read: the pointer came with the page), so
//! that a page built from a snapshot depends on its pointer alone (kept and
//! revalidated by it, LB-5). How a suspension reaches the pointers:
//! [`crate::boards::hidden`].

use std::collections::HashSet;
use std::sync::Arc;

use podium_rules::leaderboard::{RankCounter, Standing};
use podium_store::ItemStore;

use crate::boards::snapshot::layout::{HiddenRanks, Published};
use crate::error::ServiceError;

/// Whom one read leaves out of what it lists (OP-4; GM-6 through a snapshot's
/// pointer), and how the ranks of the players it shows close up: the one way a view
/// that lists players decides whom it shows (see the module notes).
///
/// - [`Hidden::among`] and [`Hidden::on_board`]: the players suspended now, among
///   those a view lists (friends, league cohorts, the inbox, tournament winners) or on
///   the board it reads live ([`crate::boards::suspended`]). Ranks are counted among
///   the players shown ([`Hidden::ranked`]).
/// - [`Hidden::in_snapshot`]: the players a snapshot's pointer hides (deleted, GM-6;
///   suspended, OP-4), with the snapshot ranks of the suspended ones, which close up
///   the ranks below them ([`Hidden::listed`]).
/// - Both ([`Hidden::and_snapshot`]): live values ranked against a snapshot (friends).
#[derive(Debug, Clone, Default)]
pub struct Hidden {
    /// Suspended now (among the players asked about, or on the board read).
    suspended: HashSet<String>,
    /// The pointer whose erasures hide players from the snapshot read.
    pointer: Option<Arc<Published>>,
    /// The snapshot ranks of the players hidden from the snapshot read, ascending.
    ranks: HiddenRanks,
}

impl Hidden {
    /// `suspended` hidden, as read by the caller (OP-4): no read.
    pub fn of(suspended: impl IntoIterator<Item = String>) -> Self {
        Hidden {
            suspended: suspended.into_iter().collect(),
            ..Hidden::default()
        }
    }

    /// Which of `players` are suspended now (OP-4): their guards, one strongly
    /// consistent BatchGetItem per 100 ([`crate::boards::suspended::among`]); a view
    /// must ask about every player it may list. Errors: the store's.
    pub async fn among<S: ItemStore + ?Sized>(store: &S, players: &[&str]) -> Result<Self, ServiceError> {
        Ok(Hidden {
            suspended: crate::boards::suspended::among(store, players).await?,
            ..Hidden::default()
        })
    }

    /// The players suspended now on `board` (OP-4) ranked after board key `after`
    /// (from the top when `None`) and at or before `through` ([`BoardKey::encode`]),
    /// as its index lists them ([`crate::boards::suspended::between`]), with their
    /// board keys in listing order. Errors: the store's.
    ///
    /// [`BoardKey::encode`]: podium_store::BoardKey::encode
    pub async fn on_board<S: ItemStore + ?Sized>(
        store: &S,
        board: &podium_rules::board::BoardRef,
        after: Option<&str>,
        through: &str,
    ) -> Result<(Self, Vec<podium_store::BoardKey>), ServiceError> {
        let keys: Vec<podium_store::BoardKey> =
            crate::boards::suspended::between(store, board, after, through).await?;
        Ok((
            Hidden {
                suspended: keys.iter().map(|k| k.player_id.clone()).collect(),
                ..Hidden::default()
            },
            keys,
        ))
    }

    /// The players `pointer` (a board's current pointer) hides from its snapshot
    /// `snapshot` (its own, or an older one a cursor pins): those deleted since
    /// (GM-6) and those suspended (OP-4), the ranks below the latter closed up. No
    /// pointer (a board without a snapshot): nobody. No read.
    pub fn in_snapshot(pointer: Option<&Arc<Published>>, snapshot: &str) -> Self {
        Hidden::default().and_snapshot(pointer, snapshot)
    }

    /// These players and those `pointer` hides from its snapshot `snapshot` (see
    /// [`Hidden::in_snapshot`]).
    pub fn and_snapshot(self, pointer: Option<&Arc<Published>>, snapshot: &str) -> Self {
        Hidden {
            ranks: pointer.map(|p| p.hidden_ranks(snapshot)).unwrap_or_default(),
            pointer: pointer.cloned(),
            ..self
        }
    }

    /// The card a view shows for `player_id`, whose card in the snapshot read is
    /// `card`: without its name when an operator reset it since the snapshot was
    /// frozen ([`Published::card_shown`]; PF-1, OP-5), else as read.
    pub fn card(&self, player_id: &str, card: &podium_rules::profile::Card) -> podium_rules::profile::Card {
        match &self.pointer {
            Some(p) => p.card_shown(player_id, card),
            None => card.clone(),
        }
    }

    /// The value that places in the top [`podium_rules::standing::TOP_CUTOFF`] for
    /// `player_id` on the snapshot of `p` (LB-4), counted among the others this read
    /// shows: the snapshot's entry at the cut-off, moved down past the caller's own
    /// older entry (snapshot rank `own_rank`) and the players left out (OP-4) when they
    /// are ranked at or above it. `None` when the others shown are no more than the
    /// cut-off, or more are left out above it than
    /// [`crate::boards::snapshot::layout::CUTOFF_SPARE`] entries cover.
    pub fn top_cutoff(&self, p: &Published, player_id: &str, own_rank: Option<u64>) -> Option<i64> {
        use podium_rules::standing::TOP_CUTOFF;
        let at = p.top_cutoff?;
        let mut owed = self.ranks.ranks().iter().filter(|&&r| r <= TOP_CUTOFF).count()
            + usize::from(own_rank.is_some_and(|r| r <= TOP_CUTOFF));
        if owed == 0 {
            return Some(at);
        }
        for (value, id) in &p.cutoff_next {
            if id == player_id || self.hides(id) {
                continue;
            }
            owed -= 1;
            if owed == 0 {
                return Some(*value);
            }
        }
        None
    }

    /// Whether `player_id` is left out.
    pub fn hides(&self, player_id: &str) -> bool {
        self.suspended.contains(player_id) || self.pointer.as_ref().is_some_and(|p| p.hides(player_id))
    }

    /// How many players suspended now (as [`Hidden::among`] or [`Hidden::on_board`]
    /// read them; none for a snapshot's).
    pub fn suspended_count(&self) -> usize {
        self.suspended.len()
    }

    /// The snapshot ranks of the players hidden from the snapshot read, ascending.
    pub fn ranks(&self) -> &HiddenRanks {
        &self.ranks
    }

    /// How many places snapshot rank `rank` closes up: the hidden players ranked
    /// strictly better there (LB-2: a player tied with one keeps their rank).
    pub fn closed_up(&self, rank: u64) -> u64 {
        self.ranks.closed_up(rank)
    }

    /// `standings` in listing order (LB-2), those hidden left out, the others ranked
    /// among themselves by `counter` (from the top, or resumed after a cursor).
    pub fn ranked(
        &self,
        standings: impl IntoIterator<Item = Standing>,
        counter: &mut RankCounter,
    ) -> Vec<Line> {
        standings
            .into_iter()
            .filter(|s| !self.hides(&s.player_id))
            .map(|standing| {
                let rank = counter.next(standing.value);
                Line { standing, rank }
            })
            .collect()
    }

    /// The line of a snapshot entry placed at `rank`, its own rank in the snapshot
    /// being `snapshot_rank` (the same on a page; around-me places the caller's live
    /// value among the entries): `None` when hidden, else at `rank` closed up below
    /// the players hidden above `snapshot_rank`.
    pub fn listed(&self, standing: Standing, rank: u64, snapshot_rank: u64) -> Option<Line> {
        if self.hides(&standing.player_id) {
            return None;
        }
        Some(Line {
            rank: rank.saturating_sub(self.closed_up(snapshot_rank)),
            standing,
        })
    }

    /// The caller's own line at `rank` (already closed up): shown to them whatever
    /// this read hides. A suspended caller is refused before any read (OP-4, 403);
    /// an operator's overview of a player shows the player their place.
    pub fn own(&self, standing: Standing, rank: u64) -> Line {
        Line { standing, rank }
    }

    /// `items` without those whose player (`id`) is hidden, in their order.
    pub fn shown<T>(&self, mut items: Vec<T>, id: impl Fn(&T) -> &str) -> Vec<T> {
        if !self.suspended.is_empty() || self.pointer.is_some() {
            items.retain(|item| !self.hides(id(item)));
        }
        items
    }

    /// `items` (ranked lines, e.g. a closed league cohort as recorded) without those
    /// whose player (`id`) is hidden, every other rank (`rank`) closed up by the
    /// hidden ones ranked strictly better (LB-2, OP-4).
    pub fn closed_up_lines<T>(
        &self,
        items: Vec<T>,
        id: impl Fn(&T) -> &str,
        mut rank: impl FnMut(&mut T) -> &mut u64,
    ) -> Vec<T> {
        let (mut gone, mut kept): (Vec<T>, Vec<T>) = items.into_iter().partition(|item| self.hides(id(item)));
        let mut above: Vec<u64> = gone.iter_mut().map(|item| *rank(item)).collect();
        above.sort_unstable();
        for item in &mut kept {
            let r = rank(item);
            *r -= above.partition_point(|&h| h < *r) as u64;
        }
        kept
    }
}

/// A player's line that a [`Hidden`] let through, at the rank it shows: what a board
/// entry is made of ([`crate::boards::live::entry`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    standing: Standing,
    rank: u64,
}

impl Line {
    /// The standing and the rank shown.
    pub fn into_parts(self) -> (Standing, u64) {
        (self.standing, self.rank)
    }

    /// The player's id.
    pub fn player_id(&self) -> &str {
        &self.standing.player_id
    }

    /// The standing shown.
    pub fn standing(&self) -> &Standing {
        &self.standing
    }
}
