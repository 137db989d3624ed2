//! Country boards (PF-3, LB-2): each snapshot of a board also ranks every country's
//! players among themselves, in the same pass that reads the board and the cards
//! (no write per scored match; the country is the profile's when the run reads it).
//!
//! A country board is the board under a derived period, `{period}~{CC}`
//! ([`country_board`]): its snapshots are ordinary snapshots (pages, directory,
//! pointer; the same readers, cursors, around-me and standing), written by the run of
//! the board itself through one [`Sink`] per country. A country's pages are cut like
//! the board's (content-defined), and also wherever the run saves its progress (every
//! [`super::layout::CHUNK_PAGES`] pages of the board), where each sink writes its
//! new page bodies and one directory chunk; the run state keeps each country's
//! [`SinkState`] with the board's, so a resumed run goes on with both.

use std::collections::HashMap;

use podium_rules::board::BoardRef;
use podium_rules::leaderboard::{RankCounter, Standing};
use podium_rules::profile::Card;
use podium_rules::snapshot::SnapshotPage;
use podium_store::{BoardKey, ItemKey, ItemStore};

use super::codec::{encode_body, encode_chunk, page_id, ranked};
use super::layout::*;
use crate::error::ServiceError;

/// What joins a board's period to a country in a country board's period.
pub const SEPARATOR: char = '~';

/// The board of `base`'s players of `country` (an ISO 3166-1 alpha-2 code).
pub fn country_board(base: &BoardRef, country: &str) -> BoardRef {
    BoardRef::new(base.board.clone(), format!("{}{SEPARATOR}{country}", base.period))
}

/// The board a country board derives from, and its country (`None` for a board
/// that is none).
pub fn split(board: &BoardRef) -> (BoardRef, Option<&str>) {
    match board.period.split_once(SEPARATOR) {
        Some((period, country)) => (BoardRef::new(board.board.clone(), period), Some(country)),
        None => (board.clone(), None),
    }
}

/// A page cut from a run's rows: its directory entry (expiry not set yet), its body,
/// its entries ranked, and its last entry's encoded key, value and rank.
pub(crate) struct CutPage {
    pub entry: DirEntry,
    pub body: Vec<u8>,
    pub entries: Vec<podium_rules::snapshot::SnapshotEntry>,
    pub tail: (String, i64, u64),
}

/// The page of `rows` (listing order, each with its card) that follows `position`
/// entries, the last of them `last` (key, value, rank); `None` for no rows.
pub(crate) fn cut(
    rows: Vec<(Standing, Card)>,
    position: u64,
    last: Option<&(String, i64, u64)>,
) -> Option<CutPage> {
    let first = rows.first()?;
    let mut counter = match last {
        Some((_, v, r)) => RankCounter::resume(position, *v, *r),
        None => RankCounter::top(),
    };
    let first_rank = counter.next(first.0.value);
    let last_rank = rows
        .iter()
        .skip(1)
        .fold(first_rank, |_, (s, _)| counter.next(s.value));
    let key_of = |s: &Standing| {
        BoardKey {
            value: s.value,
            reached_at_ms: s.reached_at_ms,
            player_id: s.player_id.clone(),
        }
        .encode()
    };
    let (standings, cards): (Vec<Standing>, Vec<Card>) = rows.iter().cloned().unzip();
    let body = encode_body(&standings, &cards);
    let tail = rows.last().map(|(s, _)| (key_of(s), s.value, last_rank))?;
    let entry = DirEntry {
        key: key_of(&first.0),
        page: page_id(&body),
        position,
        rank: first_rank,
        len: rows.len() as u32,
        expires_at: None,
    };
    let entries = ranked(position, first_rank, rows);
    Some(CutPage {
        entry,
        body,
        entries,
        tail,
    })
}

/// One country's part of a run: the rows of its page being cut, the pages cut since
/// the last save, and what the country's current snapshot stores already.
pub(crate) struct Sink {
    pub board: BoardRef,
    pub state: SinkState,
    rows: Vec<(Standing, Card)>,
    listed: Vec<DirEntry>,
    bodies: Vec<(ItemKey, Vec<u8>)>,
    stored: HashMap<String, Option<i64>>,
    /// Page 0 and directory chunk 0, when this call wrote them.
    pub first_page: Option<SnapshotPage>,
    pub first_chunk: Option<Vec<DirEntry>>,
}

impl Sink {
    /// The sink of `country_board`, resuming `state`, reusing the bodies `stored`.
    pub fn new(board: BoardRef, state: SinkState, stored: HashMap<String, Option<i64>>) -> Self {
        Sink {
            board,
            state,
            rows: Vec::new(),
            listed: Vec::new(),
            bodies: Vec::new(),
            stored,
            first_page: None,
            first_chunk: None,
        }
    }

    /// Adds the next of the country's entries (listing order); a page ends where
    /// `paging` ends it.
    pub fn push(
        &mut self,
        row: Standing,
        card: Card,
        paging: &Paging,
        needed: Option<i64>,
        fresh: Option<i64>,
    ) {
        let ends = paging.ends_after(&row.player_id, self.rows.len() + 1);
        self.rows.push((row, card));
        if ends {
            self.cut_page(needed, fresh);
        }
    }

    /// Cuts the rows held into a page (none when there are none).
    fn cut_page(&mut self, needed: Option<i64>, fresh: Option<i64>) {
        let rows = std::mem::take(&mut self.rows);
        let Some(CutPage {
            mut entry,
            body,
            entries,
            tail,
        }) = cut(rows, self.state.position, self.state.last.as_ref())
        else {
            return;
        };
        entry.expires_at = match self.stored.get(&entry.page) {
            Some(e) if outlives(*e, needed) => *e,
            _ => {
                self.bodies.push((body_key(&self.board, &entry.page), body));
                self.stored.insert(entry.page.clone(), fresh);
                fresh
            }
        };
        if self.state.pages_written == 0 {
            self.first_page = Some(SnapshotPage {
                number: 0,
                first_position: 0,
                entries,
            });
        }
        self.state.position += u64::from(entry.len);
        self.state.pages_written += 1;
        self.state.last = Some(tail);
        self.listed.push(entry);
    }

    /// Cuts the rows held, then writes the new bodies and one directory chunk listing
    /// the pages cut since the last save (bodies first): what a save of the run's
    /// progress counts.
    pub async fn flush<S: ItemStore + ?Sized>(
        &mut self,
        store: &S,
        id: &str,
        needed: Option<i64>,
        fresh: Option<i64>,
    ) -> Result<(), ServiceError> {
        self.cut_page(needed, fresh);
        let Some(head) = self.listed.first() else {
            return Ok(());
        };
        let sk = chunk_sk(&head.key);
        let first_number = self.state.pages_written - self.listed.len() as u32;
        if !self.bodies.is_empty() {
            store.put_items(&std::mem::take(&mut self.bodies), fresh).await?;
        }
        let chunk = encode_chunk(first_number, &self.listed);
        store
            .put_items(
                &[(ItemKey::new(dir_pk(&self.board, id), sk.clone()), chunk)],
                needed,
            )
            .await?;
        let listed = std::mem::take(&mut self.listed);
        if first_number == 0 {
            self.first_chunk = Some(listed);
        }
        self.state.last_chunk = Some(sk);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn country_boards_split_back() {
        let base = BoardRef::new("mahjong-weekly", "2026-W49");
        let ro = country_board(&base, "RO");
        assert_eq!(ro.key(), "mahjong-weekly@2026-W49~RO");
        assert_eq!(split(&ro), (base.clone(), Some("RO")));
        assert_eq!(split(&base), (base.clone(), None));
    }
}
