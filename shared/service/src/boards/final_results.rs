//! A frozen period's results streamed from its final snapshot (LB-2 ranks over the
//! final, with the reward table's points, [`podium_rules::period_reward::Ranker`]):
//! a close holds its directory, a batch of [`PAGES_AT_ONCE`] page bodies and one group
//! of tied entries, not the board, so its memory does not grow with the players.

use std::collections::{HashSet, VecDeque};

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::period_reward::{self, PeriodResult, Ranker, RewardTable};
use podium_store::{ItemKey, ItemStore, StoreError};

use crate::boards::snapshot::codec::decode_body;
use crate::boards::snapshot::layout::{body_key, DirEntry, FINAL};
use crate::boards::snapshot::read::all_chunks;
use crate::error::ServiceError;

/// Page bodies read at a time (one BatchGetItem on DynamoDB).
pub const PAGES_AT_ONCE: usize = 100;

/// The results of a frozen period, in listing order, read page by page.
pub struct FinalResults<'a> {
    board: &'a BoardRef,
    pages: std::vec::IntoIter<DirEntry>,
    left_out: HashSet<String>,
    ranker: Ranker<'a>,
    ready: VecDeque<PeriodResult>,
    ended: bool,
    /// A defined board's values as shown (BD-5: its tie-breaks set aside).
    shape: Option<crate::boards::defined::Shape>,
    /// The players ranked: the final's entries less those left out.
    pub of: usize,
}

impl<'a> FinalResults<'a> {
    /// The results of `board`'s final snapshot (of `game`, paid by `table`),
    /// without the players `left_out` (id hashes, [`crate::engine::names::id_hash`]:
    /// players the final lists and the close leaves out, OP-4; the ranks below them
    /// close up). Reads the final's directory (a Query per 100 chunks) and, when some
    /// are left out, every page once to count the players ranked (`of`: the ranks and
    /// percentiles need it before the first result).
    pub async fn open<S: ItemStore + ?Sized>(
        store: &S,
        game: Game,
        board: &'a BoardRef,
        table: Option<&'a RewardTable>,
        left_out: &[String],
    ) -> Result<Self, ServiceError> {
        let pages: Vec<DirEntry> = all_chunks(store, board, FINAL, true)
            .await?
            .into_iter()
            .flat_map(|(_, _, entries)| entries)
            .collect();
        let total = pages.last().map_or(0, |e| e.position + u64::from(e.len));
        let left_out: HashSet<String> = left_out.iter().cloned().collect();
        let mut results = FinalResults {
            board,
            pages: pages.clone().into_iter(),
            left_out,
            ranker: Ranker::new(table, period_reward::splits_ties(game), total),
            ready: VecDeque::new(),
            ended: false,
            shape: crate::boards::defined::shape(board),
            of: usize::try_from(total).unwrap_or(usize::MAX),
        };
        if !results.left_out.is_empty() {
            // Those left out may or may not be on the final (suspended before it was
            // taken, they are not): the players ranked are counted, a pass over the
            // pages (a BatchGetItem per 100).
            let mut of = 0u64;
            let mut batches = pages.chunks(PAGES_AT_ONCE);
            for batch in batches.by_ref() {
                of += results.kept_on(store, batch).await? as u64;
            }
            results.ranker = Ranker::new(table, period_reward::splits_ties(game), of);
            results.of = usize::try_from(of).unwrap_or(usize::MAX);
        }
        Ok(results)
    }

    /// How many entries of the pages `batch` lists are kept (not left out).
    async fn kept_on<S: ItemStore + ?Sized>(
        &self,
        store: &S,
        batch: &[DirEntry],
    ) -> Result<usize, ServiceError> {
        let mut kept = 0;
        for (key, body) in self.bodies(store, batch).await? {
            kept += decode_body(&key.pk, &body)?
                .iter()
                .filter(|(s, _)| self.kept(&s.player_id))
                .count();
        }
        Ok(kept)
    }

    /// Whether `player_id` is ranked (not left out).
    fn kept(&self, player_id: &str) -> bool {
        self.left_out.is_empty() || !self.left_out.contains(&crate::engine::names::id_hash(player_id))
    }

    /// The bodies of the pages `batch` lists, with their keys (one BatchGetItem).
    async fn bodies<S: ItemStore + ?Sized>(
        &self,
        store: &S,
        batch: &[DirEntry],
    ) -> Result<Vec<(ItemKey, Vec<u8>)>, ServiceError> {
        let keys: Vec<ItemKey> = batch.iter().map(|e| body_key(self.board, &e.page)).collect();
        let items = store.get_items(&keys, true).await?;
        keys.into_iter()
            .zip(items)
            .map(|(key, item)| match item {
                Some(item) => Ok((key, item.body)),
                None => Err(StoreError::corrupt(&key.pk, "a page of the final snapshot is missing").into()),
            })
            .collect()
    }

    /// Up to `n` next results (fewer only at the end: none once every one was given).
    /// Errors: the store's; a page the directory lists and the store does not hold.
    pub async fn next<S: ItemStore + ?Sized>(
        &mut self,
        store: &S,
        n: usize,
    ) -> Result<Vec<PeriodResult>, ServiceError> {
        while self.ready.len() < n && !self.ended {
            self.read_pages(store).await?;
        }
        let take = n.min(self.ready.len());
        let mut out: Vec<PeriodResult> = self.ready.drain(..take).collect();
        if let Some(shape) = &self.shape {
            for r in &mut out {
                r.value = shape.value(r.value);
            }
        }
        Ok(out)
    }

    /// Passes over the first `n` results (a close resumed where it stopped), holding
    /// a batch of pages at a time.
    pub async fn skip<S: ItemStore + ?Sized>(&mut self, store: &S, mut n: usize) -> Result<(), ServiceError> {
        while n > 0 {
            let passed = self.next(store, n.min(4_096)).await?.len();
            if passed == 0 {
                return Ok(());
            }
            n -= passed;
        }
        Ok(())
    }

    /// Whether every result was given.
    pub fn exhausted(&self) -> bool {
        self.ended && self.ready.is_empty()
    }

    async fn read_pages<S: ItemStore + ?Sized>(&mut self, store: &S) -> Result<(), ServiceError> {
        let batch: Vec<DirEntry> = self.pages.by_ref().take(PAGES_AT_ONCE).collect();
        let mut out = Vec::new();
        if batch.is_empty() {
            self.ranker.finish(&mut out);
            self.ended = true;
            self.ready.extend(out);
            return Ok(());
        }
        for (key, body) in self.bodies(store, &batch).await? {
            for (standing, _) in decode_body(&key.pk, &body)? {
                if self.kept(&standing.player_id) {
                    self.ranker.push(standing.player_id, standing.value, &mut out);
                }
            }
        }
        self.ready.extend(out);
        Ok(())
    }
}
