//! A player's ledger: every entry of a game, pages newest first (GM-4).

use async_trait::async_trait;
use podium_rules::game::Game;
use podium_rules::settlement::LedgerEntry;
use redb::ReadableDatabase;

use crate::error::StoreError;
use crate::model::LedgerPosition;
use crate::traits::LedgerStore;

use super::keys::*;
use super::store::EmbeddedStore;

#[async_trait]
impl LedgerStore for EmbeddedStore {
    async fn ledger_entries(&self, game: Game, player_id: &str) -> Result<Vec<LedgerEntry>, StoreError> {
        let prefix = ledger_prefix(game, player_id);
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let items = txn.open_table(ITEMS)?;
            let end = prefix_end(&prefix);
            let mut out = Vec::new();
            for entry in items.range::<&str>(prefix.as_str()..end.as_str())? {
                let (k, v) = entry?;
                out.push(decode(k.value(), v.value())?);
            }
            Ok(out)
        })
        .await
    }

    async fn ledger_page(
        &self,
        game: Game,
        player_id: &str,
        after: Option<&LedgerPosition>,
        limit: usize,
    ) -> Result<Vec<LedgerEntry>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let own = owned(player_id, Owned::Time);
        let start = format!("{own}{}#", game.id());
        let end = match after {
            Some(at) => format!("{own}{}", at.index_key(game)),
            None => format!("{own}{}$", game.id()),
        };
        self.blocking(move |db| {
            let txn = db.begin_read()?;
            let items = txn.open_table(ITEMS)?;
            let mut out = Vec::new();
            for entry in items
                .range::<&str>(start.as_str()..end.as_str())?
                .rev()
                .take(limit)
            {
                let (k, v) = entry?;
                out.push(decode(k.value(), v.value())?);
            }
            Ok(out)
        })
        .await
    }
}
