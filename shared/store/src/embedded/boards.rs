//! Board reads: entries in listing order per board and period, ranks by counting.

use async_trait::async_trait;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::leaderboard::Standing;
use redb::ReadableDatabase;

use crate::error::StoreError;
use crate::model::{Balance, BoardKey};
use crate::traits::{BoardStore, PeriodStore};

use super::keys::*;
use super::store::EmbeddedStore;
use super::txn::*;

#[async_trait]
impl BoardStore for EmbeddedStore {
    async fn get_balance(&self, game: Game, player_id: &str) -> Result<Option<Balance>, StoreError> {
        read_balance(&self.views.view(&self.db)?.items, game, player_id)
    }

    async fn board_after(
        &self,
        board: &BoardRef,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        let prefix = board_prefix(board);
        let after = after.map(|k| board_entry(board, k));
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let board = txn.open_table(BOARD)?;
            let end = format!("{}\u{10FFFF}", prefix);
            let range = match &after {
                Some(a) => board.range::<&str>((
                    std::ops::Bound::Excluded(a.as_str()),
                    std::ops::Bound::Excluded(end.as_str()),
                ))?,
                None => board.range::<&str>(prefix.as_str()..end.as_str())?,
            };
            collect(range, &prefix, limit)
        })
        .await
    }

    async fn board_before(
        &self,
        board: &BoardRef,
        before: &BoardKey,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        let prefix = board_prefix(board);
        let before = board_entry(board, before);
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let board = txn.open_table(BOARD)?;
            let range = board.range::<&str>(prefix.as_str()..before.as_str())?.rev();
            collect(range, &prefix, limit)
        })
        .await
    }

    fn board_shards(&self) -> u32 {
        1
    }

    async fn shard_after(
        &self,
        board: &BoardRef,
        _shard: u32,
        after: Option<&BoardKey>,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        self.board_after(board, after, limit).await
    }

    async fn count_before(&self, board: &BoardRef, key: &BoardKey) -> Result<u64, StoreError> {
        let prefix = board_prefix(board);
        let before = board_entry(board, key);
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let board = txn.open_table(BOARD)?;
            let mut n = 0u64;
            for entry in board.range::<&str>(prefix.as_str()..before.as_str())? {
                entry?;
                n += 1;
            }
            Ok(n)
        })
        .await
    }
}

#[async_trait]
impl PeriodStore for EmbeddedStore {
    async fn period_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        read_period(&self.views.view(&self.db)?.items, board, player_id)
    }

    /// A range read of the player's period entries whose board key starts with `prefix`.
    async fn entry_boards(&self, player_id: &str, prefix: &str) -> Result<Vec<BoardRef>, StoreError> {
        let view = self.views.view(&self.db)?;
        let own = owned(player_id, Owned::Period);
        let start = format!("{own}{prefix}");
        let mut out = Vec::new();
        for entry in view
            .items
            .range::<&str>(start.as_str()..prefix_end(&start).as_str())?
        {
            let (k, _) = entry?;
            let found = k
                .value()
                .strip_prefix(own.as_str())
                .and_then(|board| board.split_once('@'));
            if let Some((board, period)) = found {
                out.push(BoardRef::new(board, period));
            }
        }
        Ok(out)
    }
}

type BoardEntry = Result<
    (
        redb::AccessGuard<'static, &'static str>,
        redb::AccessGuard<'static, ()>,
    ),
    redb::StorageError,
>;

fn collect(
    entries: impl Iterator<Item = BoardEntry>,
    prefix: &str,
    limit: usize,
) -> Result<Vec<Standing>, StoreError> {
    let mut out = Vec::with_capacity(limit);
    for entry in entries.take(limit) {
        let (k, _) = entry?;
        let raw = k.value();
        let key = raw
            .strip_prefix(prefix)
            .and_then(BoardKey::decode)
            .ok_or_else(|| StoreError::corrupt(raw, "not a board key"))?;
        out.push(key.into_standing());
    }
    Ok(out)
}
