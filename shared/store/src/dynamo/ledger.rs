//! A player's ledger (GM-4): every entry of a game, and pages newest first. An entry
//! lives in one of three places: a ledger item in the player's partition (GSI
//! `ledger`), or one of the two a two-player source record carries (GSIs `ledger_a`,
//! `ledger_b`; [`CARRIED_LEDGER`]). Reads merge the three.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use podium_rules::game::Game;
use podium_rules::settlement::LedgerEntry;

use super::store::*;

use super::items::carried_entry;
use super::items::{get_s, ledger_at, ledger_sk, player_pk, s, Item};
use crate::error::StoreError;
use crate::model::{check_key, LedgerPosition};
use crate::traits::LedgerStore;

/// One of the three GSIs a player's ledger entries are listed in: its name, its
/// partition and sort key attributes, the projected entry attribute.
#[derive(Clone, Copy)]
struct Listing {
    index: &'static str,
    pk: &'static str,
    at: &'static str,
    entry: &'static str,
    /// Whether the entry is carried by a source record ([`carried_entry`]).
    carried: bool,
}

/// The three listings: ledger items first, then the two carried places.
fn listings() -> [Listing; 3] {
    let [a, b] = CARRIED_LEDGER;
    [
        Listing {
            index: LEDGER_INDEX,
            pk: "pk",
            at: "ledger_at",
            entry: "entry",
            carried: false,
        },
        Listing {
            index: a.index,
            pk: a.pk,
            at: a.at,
            entry: a.entry,
            carried: true,
        },
        Listing {
            index: b.index,
            pk: b.pk,
            at: b.at,
            entry: b.entry,
            carried: true,
        },
    ]
}

impl DynamoStore {
    /// The items a carried listing (`ledger_a` or `ledger_b`) holds for the player,
    /// of `game` (every game: `None`), paged to the end: base table keys and the
    /// projected entry.
    pub(crate) async fn carried_items(
        &self,
        slot: &CarriedLedger,
        player_id: &str,
        game: Option<Game>,
    ) -> Result<Vec<Item>, StoreError> {
        let pk = player_pk(player_id);
        check_key(&pk, "-")?;
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(slot.index)
            .expression_attribute_names("#p", slot.pk)
            .expression_attribute_values(":p", s(pk));
        let query = match game {
            Some(g) => query
                .key_condition_expression("#p = :p AND begins_with(#a, :g)")
                .expression_attribute_names("#a", slot.at)
                .expression_attribute_values(":g", s(format!("{}#", g.id()))),
            None => query.key_condition_expression("#p = :p"),
        };
        self.query_to_end(query).await
    }

    /// Up to `limit` of the player's entries of `game` in one listing, newest first,
    /// strictly older than `after` when given.
    async fn listing_page(
        &self,
        listing: Listing,
        pk: &str,
        game: Game,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, LedgerEntry)>, StoreError> {
        let low = format!("{}#", game.id());
        // Every position of the game sorts below `{game}#~` (digits, then ids).
        let high = after.map_or_else(|| format!("{}#~", game.id()), str::to_string);
        let page = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(listing.index)
            .key_condition_expression("#p = :p AND #a BETWEEN :lo AND :hi")
            .expression_attribute_names("#p", listing.pk)
            .expression_attribute_names("#a", listing.at)
            .expression_attribute_values(":p", s(pk))
            .expression_attribute_values(":lo", s(low))
            .expression_attribute_values(":hi", s(high))
            .scan_index_forward(false)
            // One more than asked: `after` itself is in the range when it is here.
            .limit((limit + 1).min(QUERY_LIMIT_MAX) as i32)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(|e| self.fail("Query", e))?;
        self.usage.record_read(page.consumed_capacity());
        let mut out = Vec::with_capacity(page.items().len());
        for item in page.items() {
            let at = get_s(item, listing.at)?;
            if Some(at) == after {
                continue;
            }
            let raw = get_s(item, listing.entry)?;
            let e = if listing.carried {
                carried_entry(pk, at, raw)?
            } else {
                serde_json::from_str(raw).map_err(|err| StoreError::corrupt(pk.to_string(), err))?
            };
            out.push((at.to_string(), e));
        }
        Ok(out)
    }
}

#[async_trait]
impl LedgerStore for DynamoStore {
    /// The ledger items (strongly consistent) and the carried entries (the `ledger_a`
    /// and `ledger_b` GSIs), ordered by ledger item sort key as the embedded store
    /// orders them.
    async fn ledger_entries(&self, game: Game, player_id: &str) -> Result<Vec<LedgerEntry>, StoreError> {
        check_key(&player_pk(player_id), "LEDGER#")?;
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :p AND begins_with(sk, :l)")
            .expression_attribute_values(":p", s(player_pk(player_id)))
            .expression_attribute_values(":l", s(format!("LEDGER#{}#", game.id())))
            .consistent_read(true);
        let mut out = Vec::new();
        for item in self.query_to_end(query).await? {
            let raw = get_s(&item, "entry")?;
            out.push(serde_json::from_str(raw).map_err(|e| StoreError::corrupt(player_pk(player_id), e))?);
        }
        for slot in &CARRIED_LEDGER {
            for item in self.carried_items(slot, player_id, Some(game)).await? {
                out.push(slot.decode(&item)?);
            }
        }
        out.sort_by_cached_key(ledger_sk);
        Ok(out)
    }

    /// One Query of each listing (at once), merged newest first.
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
        let pk = player_pk(player_id);
        check_key(&pk, "LEDGER#")?;
        let after = after.map(|at| ledger_at(game, at));
        if let Some(at) = &after {
            check_key(&pk, at)?;
        }
        let [first, second, third] = listings();
        let (a, b, c) = futures::try_join!(
            self.listing_page(first, &pk, game, after.as_deref(), limit),
            self.listing_page(second, &pk, game, after.as_deref(), limit),
            self.listing_page(third, &pk, game, after.as_deref(), limit),
        )?;
        let mut merged: Vec<(String, LedgerEntry)> = a.into_iter().chain(b).chain(c).collect();
        merged.sort_by(|x, y| y.0.cmp(&x.0));
        merged.truncate(limit);
        Ok(merged.into_iter().map(|(_, e)| e).collect())
    }
}
