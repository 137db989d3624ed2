//! The one commit of a settlement as a `TransactWriteItems` (GM-3), and the reads a
//! settlement takes first (sources, balances, entries, states, claims).

use async_trait::async_trait;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, KeysAndAttributes, Put, ReturnConsumedCapacity, TransactWriteItem, Update,
};
use futures::future::try_join_all;
use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::settlement::LedgerEntry;

use super::store::*;
use super::{errors, items};

use super::items::{
    balance_sk, carried_attributes, claim_sk, decode_entry, entry_item, get_n, get_s, ledger_at, ledger_sk,
    n, period_sk, player_pk, ref_sk, s, source_pk, state_sk, EntryValues,
};
use crate::commit::{outcome_of_cancellation, Claim, Commit, CommitOutcome, State};
use crate::error::StoreError;
use crate::model::{balance_board, board_game, check_key, tombstone_key, Balance, LedgerPosition};
use crate::traits::{PeriodStore, SettleStore};

impl DynamoStore {
    /// Sends `commit`'s items as one transaction with `token` as its
    /// ClientRequestToken; cancellations are classified by their per-item reasons
    /// ([`outcome_of_cancellation`]), a token DynamoDB saw with other items is
    /// [`CommitOutcome::Contended`] (nothing written by this request), other errors by
    /// their code ([`errors::classify`]).
    pub(crate) async fn transact(
        &self,
        commit: &Commit,
        items: Vec<TransactWriteItem>,
        token: &str,
    ) -> Result<CommitOutcome, StoreError> {
        let price = super::pricing::price(commit, &items, carried(commit).is_some());
        let out = self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .client_request_token(token)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match out {
            Ok(out) => {
                self.usage.record_write(out.consumed_capacity());
                self.usage.record_price(price);
                Ok(CommitOutcome::Committed)
            }
            Err(SdkError::ServiceError(e)) => match e.err() {
                TransactWriteItemsError::TransactionCanceledException(t) => {
                    self.usage.record_write(None);
                    let mut codes: Vec<&str> = t
                        .cancellation_reasons()
                        .iter()
                        .map(|r| r.code().unwrap_or("None"))
                        .collect();
                    if carried(commit).is_some() {
                        // The ledger entries rode on the source record: no item of
                        // their own had a reason; the commit's order has them.
                        let at = commit.ledger_start().min(codes.len());
                        codes.splice(at..at, std::iter::repeat_n("None", commit.ledger.len()));
                    }
                    outcome_of_cancellation(commit, &codes).map_err(|message| StoreError::Rejected {
                        operation: "TransactWriteItems",
                        message,
                    })
                }
                // The token was used within DynamoDB's 10 minutes by a request with other
                // items. The tokens are digests of the items (and plan), so this is no
                // earlier send of this commit, nor a sign the source was settled: whatever
                // that request did, this one wrote nothing. Read again and plan anew (a
                // new plan is a new token; a settled source is found by its record).
                TransactWriteItemsError::IdempotentParameterMismatchException(_) => {
                    self.usage.record_write(None);
                    Ok(CommitOutcome::Contended)
                }
                _ => Err(self.fail("TransactWriteItems", SdkError::ServiceError(e))),
            },
            Err(e) => Err(self.fail("TransactWriteItems", e)),
        }
    }

    /// The source record of `c`, with the ledger entries it carries ([`carried`]).
    pub(crate) fn source_item(&self, c: &Commit) -> Result<items::Item, StoreError> {
        let mut item = items::Item::from([
            ("pk".to_string(), s(source_pk(&c.source))),
            ("sk".to_string(), s("RESULT")),
            ("content_hash".to_string(), s(&c.content_hash)),
            ("attempt".to_string(), s(&c.attempt)),
            ("result".to_string(), s(&c.result)),
        ]);
        if let Some(fields) = &c.fields {
            item.insert("fields".to_string(), s(fields));
        }
        if let Some(entries) = carried(c) {
            for (slot, e) in CARRIED_LEDGER.iter().zip(entries) {
                let (pk, at, entry) = carried_attributes(e)?;
                item.insert(slot.pk.to_string(), s(pk));
                item.insert(slot.at.to_string(), s(at));
                item.insert(slot.entry.to_string(), s(entry));
            }
        }
        Ok(item)
    }

    /// The transaction items of `c`, in the commit's order.
    pub(crate) fn commit_items(&self, c: &Commit) -> Result<Vec<TransactWriteItem>, StoreError> {
        let build = |e| errors::build("TransactWriteItems", e);
        let put = |p: Put| TransactWriteItem::builder().put(p).build();
        let create_only = |item: items::Item| {
            Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(pk)")
                .build()
                .map_err(build)
        };
        let mut out = vec![put(create_only(self.source_item(c)?)?)];
        for claim in &c.claims {
            let sk = claim_sk(claim.game, &claim.kind, &claim.day);
            check_key(&player_pk(&claim.player_id), &sk)?;
            out.push(put(create_only(items::Item::from([
                ("pk".to_string(), s(player_pk(&claim.player_id))),
                ("sk".to_string(), s(sk)),
                ("body".to_string(), s(&claim.body)),
            ]))?));
        }
        for w in &c.balances {
            let item = entry_item(
                balance_sk(w.game),
                balance_board(w.game).as_ref(),
                &w.player_id,
                EntryValues {
                    value: w.points,
                    version: w.expected_version + 1,
                    reached_at_ms: w.reached_at_ms,
                    history: &w.history,
                },
            );
            out.push(put(self.entry_put(item, w.expected_version, w.must_exist)?));
        }
        for w in &c.entries {
            let item = entry_item(
                period_sk(&w.board),
                Some(&w.board),
                &w.player_id,
                EntryValues {
                    value: w.value,
                    version: w.expected_version + 1,
                    reached_at_ms: w.reached_at_ms,
                    history: &w.history,
                },
            );
            out.push(put(self.entry_put(item, w.expected_version, false)?));
        }
        for w in &c.states {
            let sk = state_sk(&w.name);
            check_key(&player_pk(&w.player_id), &sk)?;
            let item = items::Item::from([
                ("pk".to_string(), s(player_pk(&w.player_id))),
                ("sk".to_string(), s(sk)),
                ("body".to_string(), s(&w.body)),
                ("version".to_string(), n(w.expected_version + 1)),
            ]);
            out.push(put(self.entry_put(item, w.expected_version, false)?));
        }
        if carried(c).is_none() {
            for e in &c.ledger {
                out.push(put(self.ledger_put(e)?));
            }
        }
        for m in &c.marks {
            check_key(&m.key.pk, &m.key.sk)?;
            let update = Update::builder()
                .table_name(&self.table)
                .key("pk", s(&m.key.pk))
                .key("sk", s(&m.key.sk))
                .update_expression("SET body = :b, version = if_not_exists(version, :zero) + :one")
                .expression_attribute_values(":b", AttributeValue::B(m.body.clone().into()))
                .expression_attribute_values(":zero", n(0))
                .expression_attribute_values(":one", n(1))
                .build()
                .map_err(build)?;
            out.push(TransactWriteItem::builder().update(update).build());
        }
        for r in &c.refs {
            let sk = ref_sk(&r.named);
            check_key(&player_pk(&r.player_id), &sk)?;
            let body = serde_json::to_string(&r.named).map_err(|e| StoreError::corrupt("reference", e))?;
            let item = Put::builder()
                .table_name(&self.table)
                .item("pk", s(player_pk(&r.player_id)))
                .item("sk", s(sk))
                .item("body", s(body))
                .build()
                .map_err(build)?;
            out.push(put(item));
        }
        // GM-6: no write for a player whose deletion has begun.
        for player in c.players() {
            let key = tombstone_key(player);
            check_key(&key.pk, &key.sk)?;
            let check = ConditionCheck::builder()
                .table_name(&self.table)
                .key("pk", s(key.pk))
                .key("sk", s(key.sk))
                .condition_expression("attribute_not_exists(pk)")
                .build()
                .map_err(build)?;
            out.push(TransactWriteItem::builder().condition_check(check).build());
        }
        Ok(out)
    }

    /// The Put of a versioned item at `expected_version + 1`, if the stored version is
    /// still `expected_version` (0: no item yet; with `must_exist`, 0 always fails).
    pub(crate) fn entry_put(
        &self,
        item: items::Item,
        expected_version: u64,
        must_exist: bool,
    ) -> Result<Put, StoreError> {
        let builder = Put::builder().table_name(&self.table).set_item(Some(item));
        let builder = if expected_version == 0 && must_exist {
            // A balance that must exist was read absent: let the transaction fail on it.
            builder.condition_expression("attribute_exists(pk) AND attribute_not_exists(pk)")
        } else if expected_version == 0 {
            builder.condition_expression("attribute_not_exists(pk)")
        } else {
            builder
                .condition_expression("version = :v")
                .expression_attribute_values(":v", n(expected_version))
        };
        builder
            .build()
            .map_err(|e| errors::build("TransactWriteItems", e))
    }

    pub(crate) fn ledger_put(&self, e: &LedgerEntry) -> Result<Put, StoreError> {
        let entry = serde_json::to_string(e).map_err(|err| StoreError::corrupt("entry", err))?;
        let at = ledger_at(e.game, &LedgerPosition::of(e));
        check_key(&player_pk(&e.player_id), &at)?;
        Put::builder()
            .table_name(&self.table)
            .item("pk", s(player_pk(&e.player_id)))
            .item("sk", s(ledger_sk(e)))
            .item("ledger_at", s(at))
            .item("entry", s(entry))
            .item("at_ms", n(e.at.timestamp_millis()))
            .item("applied", n(e.applied))
            .condition_expression("attribute_not_exists(pk)")
            .build()
            .map_err(|err| errors::build("TransactWriteItems", err))
    }
}

/// The ledger entries `c`'s source record carries instead of ledger items of their own
/// ([`CARRIED_LEDGER`]): exactly two, when the source's id names neither player (so a
/// deletion never moves the record to a renamed key, only rewrites it in place).
pub(crate) fn carried(c: &Commit) -> Option<&[LedgerEntry]> {
    let [a, b] = c.ledger.as_slice() else {
        return None;
    };
    let named = |e: &LedgerEntry| c.source.id.contains(e.player_id.as_str());
    (!named(a) && !named(b)).then_some(c.ledger.as_slice())
}

impl DynamoStore {
    /// The items of `players` (at most [`BATCH_GET_MAX`]) under sort key `sk` (a
    /// balance's or a period entry's), by player, in BatchGetItem requests (strongly
    /// consistent; unprocessed keys retried with backoff).
    pub(crate) async fn batch_entries(
        &self,
        sk: &str,
        game: Game,
        players: &[&str],
    ) -> Result<std::collections::HashMap<String, Balance>, StoreError> {
        let mut keys = Vec::with_capacity(players.len());
        for p in players {
            let pk = player_pk(p);
            check_key(&pk, sk)?;
            let key = items::Item::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(sk.to_string()))]);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        let mut found: std::collections::HashMap<String, Balance> = std::collections::HashMap::new();
        for item in self.batch_get_raw(keys, true).await? {
            let pk = get_s(&item, "pk")?;
            let player = pk.strip_prefix("PLAYER#").unwrap_or(pk).to_string();
            let balance = decode_entry(&item, &player, game)?;
            found.insert(player, balance);
        }
        Ok(found)
    }

    /// The items of `keys` (distinct; any number), in BatchGetItem requests of
    /// [`BATCH_GET_MAX`], up to [`BATCH_GETS_IN_FLIGHT`] at once, unprocessed keys sent
    /// again with a growing pause; in no particular order, absent ones left out.
    pub(crate) async fn batch_get_raw(
        &self,
        keys: Vec<items::Item>,
        consistent: bool,
    ) -> Result<Vec<items::Item>, StoreError> {
        use futures::StreamExt;
        let chunks: Vec<Vec<items::Item>> = keys.chunks(BATCH_GET_MAX).map(<[_]>::to_vec).collect();
        let batches: Vec<Vec<items::Item>> = futures::stream::iter(chunks)
            .map(|chunk| self.batch_get_one(chunk, consistent))
            .buffer_unordered(BATCH_GETS_IN_FLIGHT)
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .collect::<Result<_, _>>()?;
        Ok(batches.into_iter().flatten().collect())
    }

    /// One BatchGetItem of at most [`BATCH_GET_MAX`] keys, and its unprocessed keys again.
    async fn batch_get_one(
        &self,
        keys: Vec<items::Item>,
        consistent: bool,
    ) -> Result<Vec<items::Item>, StoreError> {
        let mut found = Vec::with_capacity(keys.len());
        let mut pending = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(consistent)
            .build()
            .map_err(|e| errors::build("BatchGetItem", e))?;
        for attempt in 0u32.. {
            let out = self
                .client
                .batch_get_item()
                .request_items(&self.table, pending)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| self.fail("BatchGetItem", e))?;
            self.usage.record_read(out.consumed_capacity());
            found.extend(
                out.responses
                    .and_then(|mut r| r.remove(&self.table))
                    .unwrap_or_default(),
            );
            match out.unprocessed_keys.and_then(|mut m| m.remove(&self.table)) {
                Some(rest) if !rest.keys().is_empty() => pending = rest,
                _ => break,
            }
            if attempt >= 10 {
                return Err(StoreError::Unavailable {
                    operation: "BatchGetItem",
                    message: "keys still unprocessed after 10 attempts".into(),
                });
            }
            tokio::time::sleep(std::time::Duration::from_millis(20 << attempt.min(5))).await;
        }
        Ok(found)
    }
}

/// BatchGetItem requests one batch read sends at once.
pub(crate) const BATCH_GETS_IN_FLIGHT: usize = 8;

#[async_trait]
impl SettleStore for DynamoStore {
    /// One strongly consistent BatchGetItem for up to 100 players (one GetItem for
    /// one), sending unprocessed keys again with a growing pause.
    async fn get_balances(&self, game: Game, players: &[&str]) -> Result<Vec<Balance>, StoreError> {
        if players.len() <= 1 || players.len() > BATCH_GET_MAX {
            let reads = players.iter().map(|p| async move {
                Ok::<_, StoreError>(
                    self.balance(game, p, true)
                        .await?
                        .unwrap_or_else(|| Balance::absent(game, p)),
                )
            });
            return try_join_all(reads).await;
        }
        let found = self.batch_entries(&balance_sk(game), game, players).await?;
        Ok(players
            .iter()
            .map(|p| found.get(*p).cloned().unwrap_or_else(|| Balance::absent(game, p)))
            .collect())
    }

    async fn get_entry(&self, board: &BoardRef, player_id: &str) -> Result<Option<Balance>, StoreError> {
        self.period_entry(board, player_id).await
    }

    async fn get_entries(
        &self,
        board: &BoardRef,
        players: &[&str],
    ) -> Result<Vec<Option<Balance>>, StoreError> {
        if players.len() <= 1 || players.len() > BATCH_GET_MAX {
            return try_join_all(players.iter().map(|p| self.period_entry(board, p))).await;
        }
        let found = self
            .batch_entries(&period_sk(board), board_game(board), players)
            .await?;
        Ok(players.iter().map(|p| found.get(*p).cloned()).collect())
    }

    async fn get_state(&self, player_id: &str, name: &str) -> Result<Option<State>, StoreError> {
        let Some(item) = self.get_raw(player_pk(player_id), state_sk(name), true).await? else {
            return Ok(None);
        };
        Ok(Some(State {
            body: get_s(&item, "body")?.to_string(),
            version: get_n(&item, "version")?,
        }))
    }

    async fn get_states(&self, keys: &[(&str, &str)]) -> Result<Vec<Option<State>>, StoreError> {
        if keys.len() <= 1 {
            return try_join_all(keys.iter().map(|(p, n)| self.get_state(p, n))).await;
        }
        let mut raw = Vec::with_capacity(keys.len());
        for (player, name) in keys {
            let (pk, sk) = (player_pk(player), state_sk(name));
            check_key(&pk, &sk)?;
            let key = items::Item::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(sk))]);
            if !raw.contains(&key) {
                raw.push(key);
            }
        }
        let mut found = std::collections::HashMap::new();
        for item in self.batch_get_raw(raw, true).await? {
            let at = (get_s(&item, "pk")?.to_string(), get_s(&item, "sk")?.to_string());
            let state = State {
                body: get_s(&item, "body")?.to_string(),
                version: get_n(&item, "version")?,
            };
            found.insert(at, state);
        }
        Ok(keys
            .iter()
            .map(|(p, n)| found.get(&(player_pk(p), state_sk(n))).cloned())
            .collect())
    }

    async fn get_claim(
        &self,
        player_id: &str,
        game: Game,
        kind: &str,
        day: &str,
    ) -> Result<Option<Claim>, StoreError> {
        let item = self
            .get_raw(player_pk(player_id), claim_sk(game, kind, day), true)
            .await?;
        item.map(|item| {
            Ok(Claim {
                body: get_s(&item, "body")?.to_string(),
            })
        })
        .transpose()
    }

    async fn settle_item(&self, key: &crate::ItemKey) -> Result<Option<crate::Item>, StoreError> {
        if let Some(kept) = self.kept.fresh(key) {
            return Ok(kept);
        }
        let read_at = std::time::Instant::now();
        let item = crate::ItemStore::get_item(self, key, true).await?;
        self.kept.keep(key, read_at, item.clone());
        Ok(item)
    }

    async fn account(&self, player_id: &str) -> Result<crate::model::Account, StoreError> {
        let key = tombstone_key(player_id);
        let item = self.get_raw(key.pk, key.sk, true).await?;
        let body = item.as_ref().map(|i| {
            super::items::get_b(i, "body")
                .map(|b| b.to_vec())
                .unwrap_or_default()
        });
        Ok(crate::model::Account::of_guard(body.as_deref()))
    }

    async fn commit(&self, c: &Commit) -> Result<CommitOutcome, StoreError> {
        check_key(&source_pk(&c.source), "RESULT")?;
        if c.items() > MAX_TRANSACTION_ITEMS {
            return Err(StoreError::OutOfLimits(format!(
                "{} items in one transaction (at most {MAX_TRANSACTION_ITEMS})",
                c.items()
            )));
        }
        if c.items() == 1 {
            // The source record alone (a void match): one conditional write.
            let out = self
                .client
                .put_item()
                .table_name(&self.table)
                .set_item(Some(self.source_item(c)?))
                .condition_expression("attribute_not_exists(pk)")
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            let written = self.conditional(
                "PutItem",
                out,
                |o| o.consumed_capacity(),
                |e| matches!(e, PutItemError::ConditionalCheckFailedException(_)),
            )?;
            return Ok(if written {
                CommitOutcome::Committed
            } else {
                CommitOutcome::SourceExists
            });
        }
        let items = self.commit_items(c)?;
        // GM-3: a digest of the items and the plan number, so that only a resend of this
        // very commit carries this token (see [`super::token`]).
        let token = super::token::transaction_token(c.plan, &items);
        self.transact(c, items, &token).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::SourceKey;
    use crate::dynamo::items::{carried_attributes, carried_entry};

    fn entry(player: &str, source_id: &str) -> LedgerEntry {
        LedgerEntry {
            player_id: player.into(),
            game: Game::Seega,
            source: "match".into(),
            source_id: source_id.into(),
            at: chrono::DateTime::UNIX_EPOCH,
            nominal: -19,
            applied: -7,
            balance_after: 0,
            rule: "SG-3".into(),
            seq: 12,
            settled_at: Some(chrono::DateTime::UNIX_EPOCH),
            note: Some("a reason".into()),
        }
    }

    fn commit(id: &str, players: &[&str]) -> Commit {
        Commit {
            source: SourceKey::new("match", id),
            content_hash: "h".into(),
            attempt: "a".into(),
            plan: 0,
            result: "{}".into(),
            fields: None,
            claims: Vec::new(),
            balances: Vec::new(),
            entries: Vec::new(),
            states: Vec::new(),
            ledger: players.iter().map(|p| entry(p, id)).collect(),
            marks: Vec::new(),
            refs: Vec::new(),
            named: Vec::new(),
        }
    }

    /// GM-4: the record carries exactly two entries, and only when its id names
    /// neither player (a deletion never moves it to a renamed key).
    #[test]
    fn a_record_carries_two_entries_when_its_id_names_neither_player() {
        assert!(carried(&commit("sg-42", &["alice", "bob"])).is_some());
        assert!(carried(&commit("sg-42", &["alice"])).is_none());
        assert!(carried(&commit("sg-42", &["alice", "bob", "carol"])).is_none());
        assert!(carried(&commit("bob:2027-05-10", &["alice", "bob"])).is_none());
    }

    /// A carried entry reads back as written, a source id with `#` in it included.
    #[test]
    fn a_carried_entry_reads_back_whole() {
        let e = entry("alice", "sg#42#x");
        let (pk, at, rest) = carried_attributes(&e).expect("attributes");
        assert_eq!(carried_entry(&pk, &at, &rest).expect("entry"), e);
        assert!(carried_entry("alice", &at, &rest).is_err(), "not a player key");
        assert!(carried_entry(&pk, "seega#12", &rest).is_err(), "not a position");
    }
}
