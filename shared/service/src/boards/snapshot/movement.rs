//! Movement (PF-5, LB-2): each entry's rank in the board's previous snapshot and in
//! its previous period's final snapshot, recorded by the run that lists it.
//!
//! A run reads both earlier snapshots whole at the start of each call (their
//! directories, then their page bodies in batches of 100: `2 × entries ÷ page size`
//! bodies, eventually consistent) into sorted arrays of player → rank (and, for the
//! previous snapshot, card), in compact form ([`Listed`], [`super::compact`]), and writes with each
//! directory chunk its movement items, one per 16 of its pages
//! ([`super::layout::moves_pk`], [`super::layout::move_sk`]), listing every entry's
//! two earlier ranks (as differences: about a byte an entry that kept its place,
//! [`super::codec::encode_moves`]). Page bodies stay as they were, so they are still
//! shared between snapshots; every refresh writes every movement item again (about 2
//! write units a block at 10^6 entries). A reader needs one more read per block of
//! pages it shows entries of. Country boards carry no movement.

use podium_rules::board::{board_def, BoardRef};
use podium_rules::period::{Period, PeriodKind};
use podium_rules::profile::Card;
use podium_store::ItemStore;

use super::codec::{decode_moves, Earlier};
use super::compact::{id_key, CompactCard, IdKey};
use super::layout::*;
use super::read::{each_entry, pointer};
use crate::error::ServiceError;

/// Every player's rank (and, for the previous snapshot, card) in one snapshot,
/// compact: one array sorted by the key of their id of (key, rank, where their card
/// starts in one shared text, each card ended by U+001E), looked up by binary search:
/// 24 bytes a player and their card's text (10^6 players with cards in about 45 MB,
/// without cards 24 MB).
#[derive(Debug, Default)]
pub(crate) struct Listed {
    entries: Vec<(IdKey, u32, u32)>,
    cards: String,
}

/// Ends each card's text in [`Listed::cards`] (a control character no name, avatar or
/// country holds, PF-1).
const CARD_END: char = '\u{1E}';

/// [`Listed`]'s card start for a player whose card is not kept.
const NO_CARD: u32 = u32::MAX;

impl Listed {
    fn with_capacity(n: usize) -> Self {
        Listed {
            entries: Vec::with_capacity(n),
            cards: String::new(),
        }
    }

    pub(super) fn push(&mut self, player_id: &str, rank: u64, card: Option<&Card>) {
        let start = match card {
            Some(card) => {
                let start = u32::try_from(self.cards.len()).unwrap_or(NO_CARD);
                self.cards.push_str(CompactCard::new(card).text());
                self.cards.push(CARD_END);
                start
            }
            None => NO_CARD,
        };
        self.entries
            .push((id_key(player_id), u32::try_from(rank).unwrap_or(u32::MAX), start));
    }

    /// Sorted by key, for lookups.
    pub(super) fn sealed(mut self) -> Self {
        self.entries.sort_unstable_by_key(|e| e.0);
        self.entries.shrink_to_fit();
        self.cards.shrink_to_fit();
        self
    }

    /// Where `key` is in the array ([`Listed::len`] entries), if listed.
    pub(crate) fn index(&self, key: &IdKey) -> Option<usize> {
        self.entries.binary_search_by_key(key, |e| e.0).ok()
    }

    /// How many players it lists.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    fn rank(&self, player_id: &str) -> Option<u64> {
        self.index(&id_key(player_id))
            .map(|i| u64::from(self.entries[i].1))
    }

    fn card(&self, player_id: &str) -> Option<Card> {
        let start = self.entries[self.index(&id_key(player_id))?].2;
        if start == NO_CARD {
            return None;
        }
        let text = self.cards.get(start as usize..)?.split(CARD_END).next()?;
        Some(CompactCard::from_text(text).card())
    }
}

/// The earlier snapshots a run compares with, and every player's rank in each.
#[derive(Debug, Default)]
pub(crate) struct EarlierRanks {
    /// The previous snapshot's id, and its ranks and cards.
    pub previous: Option<(String, Listed)>,
    /// When the previous snapshot started reading the board (server clock, ms).
    pub previous_read_from_ms: i64,
    /// The previous period's id, and its final ranks (and cards).
    pub last_final: Option<(String, Listed)>,
}

impl EarlierRanks {
    /// Whether there is anything to compare with.
    pub fn any(&self) -> bool {
        self.previous.is_some() || self.last_final.is_some()
    }

    /// `player_id`'s earlier ranks.
    pub fn of(&self, player_id: &str) -> Earlier {
        Earlier {
            previous: self.previous.as_ref().and_then(|(_, m)| m.rank(player_id)),
            last_final: self.last_final.as_ref().and_then(|(_, m)| m.rank(player_id)),
        }
    }

    /// `player_id`'s card as the previous snapshot holds it.
    pub fn previous_card(&self, player_id: &str) -> Option<Card> {
        self.previous.as_ref().and_then(|(_, m)| m.card(player_id))
    }
}

/// Every player's rank in snapshot `id` of `board` (pages whose body is gone are
/// left out), read page by page ([`each_entry`]), with their cards when `with_cards`;
/// `entries`, how many it lists, sizes the array once.
async fn ranks_of<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    with_cards: bool,
    entries: u64,
) -> Result<Listed, ServiceError> {
    let mut out = Listed::with_capacity(usize::try_from(entries).unwrap_or(0));
    each_entry(store, board, id, false, |entry| {
        out.push(&entry.player_id, entry.rank, with_cards.then_some(&entry.card));
    })
    .await?;
    Ok(out.sealed())
}

/// `listed`, the ranks of snapshot `p`, as `p`'s readers show them now (OP-4, GM-6):
/// everyone ranked below a player hidden from it one place higher. A movement is
/// against the rank a player was shown, so a climb that a suspension above them
/// gave is not counted again by the next snapshot.
fn as_shown(p: &Published, mut listed: Listed) -> Listed {
    // Sorted once: a board of 10^6 entries closes up in O(n log h), not O(n h).
    let hidden = p.hidden_ranks(&p.id);
    if hidden.count() > 0 {
        for e in &mut listed.entries {
            let rank = u64::from(e.1);
            e.1 = u32::try_from(rank - hidden.closed_up(rank)).unwrap_or(e.1);
        }
    }
    listed
}

/// What run `id` of `board` compares with: the board's current snapshot (unless it
/// is this one) and, on a daily or weekly board, the previous period's final, each
/// with the ranks its readers show ([`as_shown`]).
pub(crate) async fn earlier<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
) -> Result<EarlierRanks, ServiceError> {
    let mut out = EarlierRanks::default();
    if crate::boards::snapshot::country::split(board).1.is_some() {
        return Ok(out);
    }
    if let Some(p) = pointer(store, board, true).await? {
        if p.id != id && p.entries > 0 {
            out.previous = Some((
                p.id.clone(),
                as_shown(&p, ranks_of(store, board, &p.id, true, p.entries).await?),
            ));
            out.previous_read_from_ms = p.read_from_ms;
        }
    }
    let def = board_def(&board.board).filter(|d| d.window_days.is_none() && d.period != PeriodKind::AllTime);
    if let Some(def) = def {
        if let Ok(period) = Period::parse(def.period, def.zone, &board.period) {
            let before = BoardRef::new(board.board.clone(), period.previous().id);
            if let Some(p) = pointer(store, &before, false).await? {
                if p.id == FINAL && p.entries > 0 {
                    let ranks = as_shown(&p, ranks_of(store, &before, FINAL, false, p.entries).await?);
                    out.last_final = Some((before.period.clone(), ranks));
                }
            }
        }
    }
    Ok(out)
}

/// The movement item that holds the page `offset` pages into the chunk starting at
/// `first_key`: its pages' entries' earlier ranks, the block's first page first.
pub async fn block<S: ItemStore + ?Sized>(
    store: &S,
    board: &BoardRef,
    id: &str,
    first_key: &str,
    offset: u32,
) -> Result<Option<Vec<Vec<Earlier>>>, ServiceError> {
    let key = block_key(board, id, first_key, offset);
    match store.get_item(&key, false).await? {
        Some(item) => Ok(Some(decode_moves(&key.pk, &item.body)?)),
        None => Ok(None),
    }
}
