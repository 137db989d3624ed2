//! The compact binary encodings of snapshot page bodies and directory chunks:
//! each entry's player id,
//! value and reached-at instant with no field names, numbers as LEB128 varints, the
//! value and instant as zigzag deltas from the entry before; ranks are not stored
//! but derived from the page's first rank, which the directory holds (LB-2: equal
//! values share a rank, the next value's rank is its position + 1).
//!
//! A body starts with a format byte ([`PAGE_FORMAT`]); anything else, or a body cut
//! short, decodes to [`StoreError::Corrupt`] naming the item.

use podium_rules::leaderboard::Standing;
use podium_rules::profile::Card;
use podium_rules::snapshot::SnapshotEntry;
use podium_store::StoreError;

use crate::boards::snapshot::layout::DirEntry;

/// The format byte of a page body whose entries carry no card.
pub const PAGE_FORMAT: u8 = 1;

/// The format byte of a page body with each entry's card (PF-5).
pub const PAGE_FORMAT_CARDS: u8 = 2;

/// The largest entry count a page body may claim (a corrupt count must not make the
/// decoder reserve gigabytes).
const MAX_ENTRIES: u64 = 1 << 20;

/// Appends `n` as an unsigned LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// `n` mapped so small magnitudes of either sign are small: 0, -1, 1, -2 … → 0, 1, 2, 3 ….
fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// The inverse of [`zigzag`].
fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// Appends `n` zigzag-encoded (small magnitudes of either sign stay short).
pub fn put_zigzag(out: &mut Vec<u8>, n: i64) {
    put_varint(out, zigzag(n));
}

/// Appends a length-prefixed byte string.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Reads what the `put_*` functions wrote, refusing truncated or malformed input.
pub struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
    /// The item being read, for errors.
    what: &'a str,
}

impl<'a> Reader<'a> {
    pub fn new(what: &'a str, buf: &'a [u8]) -> Self {
        Reader { buf, at: 0, what }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.at)
    }

    /// A corrupt-item error for this item.
    pub fn corrupt(&self, message: impl std::fmt::Display) -> StoreError {
        StoreError::corrupt(self.what, format!("{message} (at byte {})", self.at))
    }

    pub fn byte(&mut self) -> Result<u8, StoreError> {
        let b = *self.buf.get(self.at).ok_or_else(|| self.corrupt("cut short"))?;
        self.at += 1;
        Ok(b)
    }

    pub fn varint(&mut self) -> Result<u64, StoreError> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(self.corrupt("varint longer than 64 bits"))
    }

    pub fn zigzag(&mut self) -> Result<i64, StoreError> {
        Ok(unzigzag(self.varint()?))
    }

    pub fn bytes(&mut self, len: usize) -> Result<&'a [u8], StoreError> {
        let end = self.at.checked_add(len).filter(|e| *e <= self.buf.len());
        let end = end.ok_or_else(|| self.corrupt("cut short"))?;
        let b = &self.buf[self.at..end];
        self.at = end;
        Ok(b)
    }

    pub fn string(&mut self) -> Result<String, StoreError> {
        let len = self.varint()?;
        let len = usize::try_from(len).map_err(|_| self.corrupt("string too long"))?;
        let b = self.bytes(len)?;
        String::from_utf8(b.to_vec()).map_err(|e| self.corrupt(e))
    }

    /// Fails unless every byte was read.
    pub fn end(&self) -> Result<(), StoreError> {
        if self.at == self.buf.len() {
            Ok(())
        } else {
            Err(self.corrupt("trailing bytes"))
        }
    }
}

/// Appends standings in listing order: a count, then each entry's player id, value
/// delta and reached-at delta (from the entry before; the first from 0).
pub fn put_standings<'a>(out: &mut Vec<u8>, entries: impl ExactSizeIterator<Item = (&'a str, i64, i64)>) {
    put_varint(out, entries.len() as u64);
    let (mut value, mut at) = (0i64, 0i64);
    for (player, v, t) in entries {
        put_bytes(out, player.as_bytes());
        put_zigzag(out, v.wrapping_sub(value));
        put_zigzag(out, t.wrapping_sub(at));
        (value, at) = (v, t);
    }
}

/// Reads what [`put_standings`] wrote.
pub fn read_standings(r: &mut Reader<'_>) -> Result<Vec<Standing>, StoreError> {
    let n = r.varint()?;
    if n > MAX_ENTRIES {
        return Err(r.corrupt(format!("{n} entries")));
    }
    // A corrupt count must not reserve more than the rest could hold (≥ 3 bytes an entry).
    let mut out = Vec::with_capacity((n as usize).min(r.remaining() / 3));
    let (mut value, mut at) = (0i64, 0i64);
    for _ in 0..n {
        let player_id = r.string()?;
        value = value.wrapping_add(r.zigzag()?);
        at = at.wrapping_add(r.zigzag()?);
        out.push(Standing {
            player_id,
            value,
            reached_at_ms: at,
        });
    }
    Ok(out)
}

/// Ranks `entries` (listing order, each with its card) that follow `first_position`
/// entries, the first of them ranked `first_rank` (LB-2).
pub fn ranked(first_position: u64, first_rank: u64, entries: Vec<(Standing, Card)>) -> Vec<SnapshotEntry> {
    let mut prev: Option<(i64, u64)> = None;
    entries
        .into_iter()
        .enumerate()
        .map(|(i, (s, card))| {
            let rank = match prev {
                None => first_rank,
                Some((v, r)) if v == s.value => r,
                Some(_) => first_position + i as u64 + 1,
            };
            prev = Some((s.value, rank));
            SnapshotEntry {
                rank,
                player_id: s.player_id,
                value: s.value,
                reached_at_ms: s.reached_at_ms,
                card,
            }
        })
        .collect()
}

/// Appends an optional string: 0 when absent, else its length + 1 and its bytes.
fn put_opt(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => put_varint(out, 0),
        Some(s) => {
            put_varint(out, s.len() as u64 + 1);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

fn read_opt(r: &mut Reader<'_>) -> Result<Option<String>, StoreError> {
    let n = r.varint()?;
    if n == 0 {
        return Ok(None);
    }
    let len = usize::try_from(n - 1).map_err(|_| r.corrupt("string too long"))?;
    let b = r.bytes(len)?;
    String::from_utf8(b.to_vec()).map(Some).map_err(|e| r.corrupt(e))
}

/// The body of a page shared between snapshots: the format byte, then its entries
/// ([`put_standings`]); no rank or position, which the directory holds. When any
/// entry has a card (PF-5; `cards` in the entries' order, or empty), the format is
/// [`PAGE_FORMAT_CARDS`] and each entry's name, avatar and country follow; else
/// [`PAGE_FORMAT`], so a page whose players have no profile keeps its id.
pub fn encode_body(entries: &[Standing], cards: &[Card]) -> Vec<u8> {
    let with_cards = cards.iter().any(|c| !c.is_empty());
    let mut out = Vec::with_capacity(8 + entries.len() * 20);
    out.push(if with_cards {
        PAGE_FORMAT_CARDS
    } else {
        PAGE_FORMAT
    });
    put_standings(
        &mut out,
        entries
            .iter()
            .map(|e| (e.player_id.as_str(), e.value, e.reached_at_ms)),
    );
    if with_cards {
        for i in 0..entries.len() {
            let c = cards.get(i).cloned().unwrap_or_default();
            put_opt(&mut out, c.name.as_deref());
            put_opt(&mut out, c.avatar.as_deref());
            put_opt(&mut out, c.country.as_deref());
        }
    }
    out
}

/// The entries [`encode_body`] wrote, each with its card (empty in a body without
/// cards); `what` names the item in errors.
pub fn decode_body(what: &str, body: &[u8]) -> Result<Vec<(Standing, Card)>, StoreError> {
    let mut r = Reader::new(what, body);
    let format = r.byte()?;
    if format != PAGE_FORMAT && format != PAGE_FORMAT_CARDS {
        return Err(r.corrupt(format!("unknown page format {format}")));
    }
    let entries = read_standings(&mut r)?;
    let mut out = Vec::with_capacity(entries.len());
    for s in entries {
        let card = if format == PAGE_FORMAT_CARDS {
            Card {
                name: read_opt(&mut r)?,
                avatar: read_opt(&mut r)?,
                country: read_opt(&mut r)?,
            }
        } else {
            Card::default()
        };
        out.push((s, card));
    }
    r.end()?;
    Ok(out)
}

/// A page body's id: the first 16 bytes of its SHA-256, as 32 hex digits.
pub fn page_id(body: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(body)[..16])
}

/// A directory chunk as stored: the format byte, its first page's number, the count,
/// then per page its first key, its id (16 bytes), the entries before it (as a delta
/// from the page before's), how far its first rank lies below its position + 1, its
/// length and its body's expiry (0: never, else seconds + 1).
pub fn encode_chunk(first_number: u32, entries: &[DirEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + entries.len() * 64);
    out.push(PAGE_FORMAT);
    put_varint(&mut out, u64::from(first_number));
    put_varint(&mut out, entries.len() as u64);
    let mut position = 0u64;
    for e in entries {
        put_bytes(&mut out, e.key.as_bytes());
        let mut id = [0u8; 16];
        // Ids this code made are 32 hex digits; anything else is stored as zeros and
        // then never matches a body.
        let _ = hex::decode_to_slice(&e.page, &mut id);
        out.extend_from_slice(&id);
        put_varint(&mut out, e.position.wrapping_sub(position));
        put_varint(&mut out, (e.position + 1).saturating_sub(e.rank));
        put_varint(&mut out, u64::from(e.len));
        put_varint(&mut out, e.expires_at.map_or(0, |t| (t.max(0) as u64) + 1));
        position = e.position;
    }
    out
}

/// The first page number and entries [`encode_chunk`] wrote; `what` names the item.
pub fn decode_chunk(what: &str, body: &[u8]) -> Result<(u32, Vec<DirEntry>), StoreError> {
    let mut r = Reader::new(what, body);
    let format = r.byte()?;
    if format != PAGE_FORMAT {
        return Err(r.corrupt(format!("unknown directory format {format}")));
    }
    let first = u32::try_from(r.varint()?).map_err(|_| r.corrupt("page number"))?;
    let n = r.varint()?;
    if n > MAX_ENTRIES {
        return Err(r.corrupt(format!("{n} pages")));
    }
    // A corrupt count must not reserve more than the body could hold (≥ 20 bytes an entry).
    let mut out = Vec::with_capacity((n as usize).min(body.len() / 20));
    let mut position = 0u64;
    for _ in 0..n {
        let key = r.string()?;
        let page = hex::encode(r.bytes(16)?);
        position = position
            .checked_add(r.varint()?)
            .ok_or_else(|| r.corrupt("position"))?;
        let below = r.varint()?;
        let rank = position
            .checked_add(1)
            .and_then(|p| p.checked_sub(below))
            .filter(|r| *r >= 1)
            .ok_or_else(|| r.corrupt("rank"))?;
        let len = u32::try_from(r.varint()?).map_err(|_| r.corrupt("page length"))?;
        let expires_at = match r.varint()? {
            0 => None,
            t => Some(i64::try_from(t - 1).map_err(|_| r.corrupt("expiry"))?),
        };
        out.push(DirEntry {
            key,
            page,
            position,
            rank,
            len,
            expires_at,
        });
    }
    r.end()?;
    Ok((first, out))
}

/// The format byte of a movement item: 2 writes each page's earlier ranks as
/// differences ([`encode_moves`]); 1 (absolute ranks, 0 for none) is still read, for
/// items written before.
pub const MOVES_FORMAT: u8 = 2;
const MOVES_FORMAT_ABSOLUTE: u8 = 1;

/// Entries one movement item lists at most: 16 pages of at most 400 entries are
/// written; four times that is read, and nothing larger is allocated for.
const MAX_MOVE_ENTRIES: u64 = 4 * 16 * 400;

/// A page's flags in a movement item: which of its two rank sequences follow (an
/// absent one is `None` for every entry: a board without a period's final, a page of
/// players new since the previous snapshot).
const HAS_PREVIOUS: u8 = 1;
const HAS_LAST_FINAL: u8 = 2;

/// One entry's earlier ranks (LB-2): in the board's previous snapshot and in its
/// previous period's final snapshot; `None` where it had no entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Earlier {
    pub previous: Option<u64>,
    pub last_final: Option<u64>,
}

/// A sequence of earlier ranks in listing order, each as a varint: 0 for `None`,
/// else 1 + the zigzag of (rank − the sequence's last rank − 1). An entry one place
/// below the one before it in the earlier snapshot too (most of them) is one byte.
/// (Ranks are below 2^63, so the code never wraps to 0.)
fn put_ranks(out: &mut Vec<u8>, ranks: impl Iterator<Item = Option<u64>>) {
    let mut last = 0u64;
    for rank in ranks {
        match rank {
            None => put_varint(out, 0),
            // Ranks start at 1; a 0 is "none", as format 1 read it.
            Some(0) => put_varint(out, 0),
            Some(r) => {
                let d = r.wrapping_sub(last).wrapping_sub(1) as i64;
                put_varint(out, zigzag(d).wrapping_add(1));
                last = r;
            }
        }
    }
}

/// What [`put_ranks`] wrote, into `set(i, rank)` for each of `n` entries.
fn read_ranks(
    r: &mut Reader<'_>,
    n: usize,
    mut set: impl FnMut(usize, Option<u64>),
) -> Result<(), StoreError> {
    let mut last = 0u64;
    for i in 0..n {
        match r.varint()? {
            0 => set(i, None),
            code => {
                let d = unzigzag(code - 1);
                let rank = last.wrapping_add(1).wrapping_add(d as u64);
                if rank == 0 {
                    return Err(r.corrupt("rank 0"));
                }
                set(i, Some(rank));
                last = rank;
            }
        }
    }
    Ok(())
}

/// A movement item: for each page a directory chunk lists, its entries' [`Earlier`]
/// ranks: the entry count, a flags byte, then the earlier ranks in the previous
/// snapshot and in the previous period's final, each sequence as [`put_ranks`]
/// writes it and left out when every entry's is `None`. About one byte an entry for a
/// board without finals, where absolute ranks took three at 10^6 entries.
pub fn encode_moves(pages: &[Vec<Earlier>]) -> Vec<u8> {
    let mut out = vec![MOVES_FORMAT];
    put_varint(&mut out, pages.len() as u64);
    for page in pages {
        put_varint(&mut out, page.len() as u64);
        let mut flags = 0;
        if page.iter().any(|e| e.previous.is_some()) {
            flags |= HAS_PREVIOUS;
        }
        if page.iter().any(|e| e.last_final.is_some()) {
            flags |= HAS_LAST_FINAL;
        }
        out.push(flags);
        if flags & HAS_PREVIOUS != 0 {
            put_ranks(&mut out, page.iter().map(|e| e.previous));
        }
        if flags & HAS_LAST_FINAL != 0 {
            put_ranks(&mut out, page.iter().map(|e| e.last_final));
        }
    }
    out
}

/// What [`encode_moves`] wrote (or format 1 wrote); `what` names the item in errors.
pub fn decode_moves(what: &str, body: &[u8]) -> Result<Vec<Vec<Earlier>>, StoreError> {
    let mut r = Reader::new(what, body);
    let format = r.byte()?;
    if format != MOVES_FORMAT && format != MOVES_FORMAT_ABSOLUTE {
        return Err(r.corrupt(format!("unknown movement format {format}")));
    }
    let pages = r.varint()?;
    if pages > MAX_ENTRIES {
        return Err(r.corrupt(format!("{pages} pages")));
    }
    let mut out = Vec::with_capacity((pages as usize).min(r.remaining()));
    // Entries of every page together: a format-2 page without ranks takes no bytes,
    // so its count alone must not size what is allocated.
    let mut total = 0u64;
    for _ in 0..pages {
        let n = r.varint()?;
        total = total.saturating_add(n);
        if total > MAX_MOVE_ENTRIES {
            return Err(r.corrupt(format!("{total} entries")));
        }
        let page = if format == MOVES_FORMAT_ABSOLUTE {
            let mut page = Vec::with_capacity((n as usize).min(r.remaining() / 2));
            for _ in 0..n {
                let previous = Some(r.varint()?).filter(|&v| v > 0);
                let last_final = Some(r.varint()?).filter(|&v| v > 0);
                page.push(Earlier { previous, last_final });
            }
            page
        } else {
            let flags = r.byte()?;
            if flags & !(HAS_PREVIOUS | HAS_LAST_FINAL) != 0 {
                return Err(r.corrupt(format!("unknown page flags {flags}")));
            }
            let mut page = vec![Earlier::default(); n as usize];
            if flags & HAS_PREVIOUS != 0 {
                read_ranks(&mut r, page.len(), |i, v| page[i].previous = v)?;
            }
            if flags & HAS_LAST_FINAL != 0 {
                read_ranks(&mut r, page.len(), |i, v| page[i].last_final = v)?;
            }
            page
        };
        out.push(page);
    }
    r.end()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_rules::leaderboard::{listing_order, RankCounter};
    use proptest::prelude::*;

    fn standings(values: &[(i64, i64)]) -> Vec<Standing> {
        let mut board: Vec<Standing> = values
            .iter()
            .enumerate()
            .map(|(i, (v, t))| Standing {
                player_id: format!("p-{i}é"),
                value: *v,
                reached_at_ms: *t,
            })
            .collect();
        board.sort_by(listing_order);
        board
    }

    proptest! {
        /// A page body decodes to its entries, whatever their values.
        #[test]
        fn bodies_round_trip(
            values in proptest::collection::vec((any::<i64>(), any::<i64>()), 0..60),
            names in proptest::collection::vec(proptest::option::of("\\PC{0,24}"), 0..60),
        ) {
            let entries = standings(&values);
            let cards: Vec<Card> = names.iter().map(|n| Card { name: n.clone(), avatar: None, country: n.as_ref().map(|_| "RO".to_string()) }).collect();
            let cards: Vec<Card> = (0..entries.len()).map(|i| cards.get(i).cloned().unwrap_or_default()).collect();
            let expected: Vec<(Standing, Card)> = entries.iter().cloned().zip(cards.iter().cloned()).collect();
            prop_assert_eq!(decode_body("p", &encode_body(&entries, &cards)).expect("decodes"), expected);
            // PF-5: a page of players without profiles keeps the body it had before cards.
            let plain = encode_body(&entries, &[]);
            prop_assert_eq!(plain[0], PAGE_FORMAT);
        }

        /// LB-2: ranks derived from the first rank equal a rank counter's over the board.
        #[test]
        fn derived_ranks_are_lb2(
            values in proptest::collection::vec((0i64..6, 0i64..3), 1..60),
            cut in any::<prop::sample::Index>(),
        ) {
            let board = standings(&values);
            let mut counter = RankCounter::top();
            let ranks: Vec<u64> = board.iter().map(|s| counter.next(s.value)).collect();
            let at = cut.index(board.len());
            let rows = board[at..].iter().cloned().map(|s| (s, Card::default())).collect();
            let got = ranked(at as u64, ranks[at], rows);
            prop_assert_eq!(got.iter().map(|e| e.rank).collect::<Vec<_>>(), ranks[at..].to_vec());
        }

        /// A directory chunk decodes to itself.
        #[test]
        fn chunks_round_trip(
            pages in proptest::collection::vec((1u32..400, 0u64..3, proptest::option::of(0i64..4_000_000_000)), 0..40),
            first in 0u32..1_000,
        ) {
            let mut position = 0;
            let entries: Vec<DirEntry> = pages.iter().enumerate().map(|(i, (len, tie, x))| {
                let e = DirEntry {
                    key: format!("{i:019}#000000000000001#p-{i}"),
                    page: page_id(&[i as u8]),
                    position,
                    rank: (position + 1).saturating_sub(*tie).max(1),
                    len: *len,
                    expires_at: *x,
                };
                position += u64::from(*len);
                e
            }).collect();
            prop_assert_eq!(decode_chunk("d", &encode_chunk(first, &entries)).expect("decodes"), (first, entries));
        }

        /// A movement item decodes to itself.
        #[test]
        fn moves_round_trip(pages in proptest::collection::vec(proptest::collection::vec((proptest::option::of(1u64..1_000_000), proptest::option::of(1u64..1_000_000)), 0..30), 0..20)) {
            let pages: Vec<Vec<Earlier>> = pages.into_iter().map(|p| p.into_iter().map(|(previous, last_final)| Earlier { previous, last_final }).collect()).collect();
            prop_assert_eq!(decode_moves("m", &encode_moves(&pages)).expect("decodes"), pages);
        }

        /// A movement item of ranks as a board has them (runs of consecutive ranks,
        /// ties, gaps, players new since: `None`) decodes to itself, and so does an
        /// item written in format 1 (absolute ranks) before.
        #[test]
        fn moves_as_boards_have_them_round_trip(pages in proptest::collection::vec(
            (1u64..2_000_000, proptest::collection::vec((0u8..4, 0u64..3, proptest::option::of(1u64..u64::MAX / 2)), 0..50)), 0..16)) {
            let pages: Vec<Vec<Earlier>> = pages.into_iter().map(|(start, steps)| {
                let mut rank = start;
                steps.into_iter().map(|(kind, step, last_final)| {
                    rank += step;
                    let previous = match kind { 0 => None, 1 => Some(rank.saturating_mul(3)), _ => Some(rank) };
                    Earlier { previous, last_final }
                }).collect()
            }).collect();
            prop_assert_eq!(decode_moves("m", &encode_moves(&pages)).expect("decodes"), pages.clone());
            prop_assert_eq!(decode_moves("m", &encode_moves_absolute(&pages)).expect("decodes"), pages);
        }

        /// Corrupt bodies and chunks are refused with an error, never a panic.
        #[test]
        fn corrupt_items_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = decode_body("p", &bytes);
            let _ = decode_chunk("d", &bytes);
            let _ = decode_moves("m", &bytes);
        }
    }

    /// Format 1 of a movement item, as it was written before format 2.
    fn encode_moves_absolute(pages: &[Vec<Earlier>]) -> Vec<u8> {
        let mut out = vec![MOVES_FORMAT_ABSOLUTE];
        put_varint(&mut out, pages.len() as u64);
        for page in pages {
            put_varint(&mut out, page.len() as u64);
            for e in page {
                put_varint(&mut out, e.previous.unwrap_or(0));
                put_varint(&mut out, e.last_final.unwrap_or(0));
            }
        }
        out
    }

    /// PF-5: a page of 100 entries ranked as in the previous snapshot, deep in a board
    /// of 10^6 and without a period's final, takes about a byte an entry (three and
    /// one more for the final's 0 in format 1): what a refresh rewrites every time.
    #[test]
    fn pf5_unmoved_entries_take_a_byte_each() {
        let page: Vec<Earlier> = (900_001..900_101)
            .map(|r| Earlier {
                previous: Some(r),
                last_final: None,
            })
            .collect();
        let pages = vec![page; 16];
        let bytes = encode_moves(&pages);
        assert!(bytes.len() <= 16 * (100 + 6) + 3, "{} bytes", bytes.len());
        assert!(
            encode_moves_absolute(&pages).len() >= 16 * 400,
            "format 1 took four bytes an entry"
        );
        assert_eq!(decode_moves("m", &bytes).expect("decodes"), pages);
    }

    /// A body cut short or of another format names the item.
    #[test]
    fn truncated_and_foreign_bodies_are_corrupt() {
        let body = encode_body(&standings(&[(5, 1), (4, 2)]), &[]);
        for bad in [&body[..body.len() - 1], b"{\"number\":0}".as_slice(), &[]] {
            let err = decode_body("SNAP#x", bad).expect_err("refused");
            assert!(
                matches!(&err, StoreError::Corrupt { key, .. } if key == "SNAP#x"),
                "{err}"
            );
        }
    }
}
