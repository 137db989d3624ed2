//! A settlement's commit inside one redb write transaction (GM-3): conditions
//! checked, then every write; and the reads inside a transaction.

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use redb::{ReadableTable, WriteTransaction};

use crate::commit::{Claim, Commit, CommitOutcome, SourceKey, State, StoredSource};
use crate::error::StoreError;
use crate::model::{balance_board, board_game, check_key, tombstone_key, Balance, BoardKey};

use super::keys::*;
use crate::stream::{Change, StateImages, STREAMED_STATES};

pub(crate) fn read_balance(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    game: Game,
    player: &str,
) -> Result<Option<Balance>, StoreError> {
    read_entry(table, &balance_key(game, player), player, game)
}

/// A board entry (a balance, or a value on a period board) stored under `key`.
pub(crate) fn read_entry(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
    player: &str,
    game: Game,
) -> Result<Option<Balance>, StoreError> {
    let Some(v) = table.get(key)? else {
        return Ok(None);
    };
    let item = decode_entry(key, v.value())?;
    Ok(Some(Balance {
        player_id: player.to_string(),
        game,
        points: item.points,
        version: item.version,
        reached_at_ms: item.reached_at_ms,
        history: item.history,
    }))
}

/// Replaces the board entry `old` (if any) of `board` by `new` in the board table.
pub(crate) fn move_entry(
    board_table: &mut redb::Table<'_, &'static str, ()>,
    board: &BoardRef,
    old: Option<BoardKey>,
    new: BoardKey,
) -> Result<(), StoreError> {
    if let Some(old) = old {
        board_table.remove(board_entry(board, &old).as_str())?;
    }
    board_table.insert(board_entry(board, &new).as_str(), ())?;
    Ok(())
}

/// Checks every condition of `c`, then writes it whole; on any other outcome it has
/// written nothing, so the transaction may go on with other commits.
pub(crate) fn commit_in(txn: &WriteTransaction, c: &Commit) -> Result<CommitOutcome, StoreError> {
    let mut items = txn.open_table(ITEMS)?;
    let skey = source_key(&c.source);
    if items.get(skey.as_str())?.is_some() {
        return Ok(CommitOutcome::SourceExists);
    }
    for (i, claim) in c.claims.iter().enumerate() {
        let key = claim_key(&claim.player_id, claim.game, &claim.kind, &claim.day);
        if items.get(key.as_str())?.is_some() {
            return Ok(CommitOutcome::ClaimTaken(i));
        }
    }
    // GM-6: no write for a player whose deletion has begun (DynamoDB's guards).
    let players = c.players();
    if !players.is_empty() {
        let blobs = txn.open_table(BLOBS)?;
        for player in players {
            if blobs.get(blob_key(&tombstone_key(player)).as_str())?.is_some() {
                return Ok(CommitOutcome::PlayerDeleted(player.to_string()));
            }
        }
    }
    let mut old_balances = Vec::new();
    for w in &c.balances {
        let current = read_balance(&items, w.game, &w.player_id)?;
        let version = current.as_ref().map_or(0, |b| b.version);
        if version != w.expected_version || (w.must_exist && current.is_none()) {
            return Ok(CommitOutcome::Contended);
        }
        old_balances.push(current.map(|b| b.board_key()));
    }
    let mut old_entries = Vec::new();
    for w in &c.entries {
        let current = read_period(&items, &w.board, &w.player_id)?;
        if current.as_ref().map_or(0, |b| b.version) != w.expected_version {
            return Ok(CommitOutcome::Contended);
        }
        old_entries.push(current.map(|b| b.board_key()));
    }
    // The old bodies of streamed states ([`crate::stream`]), for the stream record.
    let mut streamed_old: Vec<Option<String>> = Vec::new();
    for w in &c.states {
        let key = state_key(&w.player_id, &w.name);
        let (version, body) = match items.get(key.as_str())? {
            Some(v) => {
                let item = decode::<StateItem>(&key, v.value())?;
                (item.version, Some(item.body))
            }
            None => (0, None),
        };
        if version != w.expected_version {
            return Ok(CommitOutcome::Contended);
        }
        if STREAMED_STATES.contains(&w.name.as_str()) {
            streamed_old.push(body);
        }
    }
    for e in &c.ledger {
        if items.get(ledger_key(e).as_str())?.is_some() {
            return Ok(CommitOutcome::SourceExists);
        }
    }
    // Every condition holds: write it all.
    let stored = SourceItem {
        content_hash: c.content_hash.clone(),
        attempt: Some(c.attempt.clone()),
        result: c.result.clone(),
        fields: c.fields.clone(),
    };
    items.insert(skey.as_str(), encode(&stored).as_slice())?;
    for claim in &c.claims {
        let key = claim_key(&claim.player_id, claim.game, &claim.kind, &claim.day);
        items.insert(key.as_str(), claim.body.as_bytes())?;
    }
    let mut board_table = txn.open_table(BOARD)?;
    for (w, old) in c.balances.iter().zip(old_balances) {
        let item = BalanceItem {
            points: w.points,
            version: w.expected_version + 1,
            reached_at_ms: w.reached_at_ms,
            history: w.history.clone(),
        };
        let key = balance_key(w.game, &w.player_id);
        items.insert(key.as_str(), encode_entry(&key, &item)?.as_slice())?;
        if let Some(board) = balance_board(w.game) {
            let new = BoardKey {
                value: w.points,
                reached_at_ms: w.reached_at_ms,
                player_id: w.player_id.clone(),
            };
            move_entry(&mut board_table, &board, old, new)?;
        }
    }
    for (w, old) in c.entries.iter().zip(old_entries) {
        let item = BalanceItem {
            points: w.value,
            version: w.expected_version + 1,
            reached_at_ms: w.reached_at_ms,
            history: w.history.clone(),
        };
        let key = period_key(&w.board, &w.player_id);
        items.insert(key.as_str(), encode_entry(&key, &item)?.as_slice())?;
        let new = BoardKey {
            value: w.value,
            reached_at_ms: w.reached_at_ms,
            player_id: w.player_id.clone(),
        };
        move_entry(&mut board_table, &w.board, old, new)?;
    }
    let mut streamed_old = streamed_old.into_iter();
    for w in &c.states {
        let item = StateItem {
            version: w.expected_version + 1,
            body: w.body.clone(),
        };
        items.insert(
            state_key(&w.player_id, &w.name).as_str(),
            encode(&item).as_slice(),
        )?;
        if STREAMED_STATES.contains(&w.name.as_str()) {
            let change = Change::State(StateImages {
                player_id: w.player_id.clone(),
                name: w.name.clone(),
                old_body: streamed_old.next().flatten(),
                new_body: Some(w.body.clone()),
            });
            super::stream::append(txn, change)?;
        }
    }
    for e in &c.ledger {
        let body = encode(e);
        items.insert(ledger_key(e).as_str(), body.as_slice())?;
        items.insert(ledger_time_key(e).as_str(), body.as_slice())?;
    }
    for r in &c.refs {
        let body = serde_json::to_vec(&r.named).map_err(|e| StoreError::corrupt("reference", e))?;
        items.insert(ref_key(&r.player_id, &r.named).as_str(), body.as_slice())?;
    }
    if !c.marks.is_empty() {
        let mut blobs = txn.open_table(BLOBS)?;
        for m in &c.marks {
            check_key(&m.key.pk, &m.key.sk)?;
            let key = blob_key(&m.key);
            let version = blobs
                .get(key.as_str())?
                .map_or(0, |v| read_blob(v.value()).version);
            blobs.insert(key.as_str(), blob(version + 1, &m.body).as_slice())?;
        }
    }
    Ok(CommitOutcome::Committed)
}

pub(crate) fn read_source(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &SourceKey,
) -> Result<Option<StoredSource>, StoreError> {
    let key = source_key(key);
    let Some(v) = table.get(key.as_str())? else {
        return Ok(None);
    };
    let item: SourceItem = decode(&key, v.value())?;
    Ok(Some(StoredSource {
        content_hash: item.content_hash,
        attempt: item.attempt,
        result: item.result,
        fields: item.fields,
    }))
}

/// One page of the source records of `kinds` after `cursor` (the last key a page
/// returned), at most `limit` of them: by kind, then id.
pub(crate) fn scan_sources_in(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    kinds: &[&str],
    cursor: Option<&str>,
    limit: u32,
) -> Result<crate::commit::SourcePage, StoreError> {
    if let Some(c) = cursor {
        if !c.starts_with("source/") {
            return Err(StoreError::OutOfLimits("a source cursor of another store".into()));
        }
    }
    let mut kinds = kinds.to_vec();
    kinds.sort_unstable();
    kinds.dedup();
    let limit = limit.clamp(1, 1_000) as usize;
    let mut page = crate::commit::SourcePage::default();
    for kind in kinds {
        let prefix = format!("source/{kind}/");
        // '0' follows '/': every key of the kind lies below it.
        let end = format!("source/{kind}0");
        let range = match cursor {
            Some(c) if c >= end.as_str() => continue,
            Some(c) if c >= prefix.as_str() => table.range::<&str>((
                std::ops::Bound::Excluded(c),
                std::ops::Bound::Excluded(end.as_str()),
            ))?,
            _ => table.range::<&str>(prefix.as_str()..end.as_str())?,
        };
        for row in range {
            let (k, v) = row?;
            let key = k.value();
            let item: SourceItem = decode(key, v.value())?;
            page.records.push((
                SourceKey::new(kind, &key[prefix.len()..]),
                StoredSource {
                    content_hash: item.content_hash,
                    attempt: item.attempt,
                    result: item.result,
                    fields: item.fields,
                },
            ));
            if page.records.len() == limit {
                page.next = Some(key.to_string());
                return Ok(page);
            }
        }
    }
    Ok(page)
}

pub(crate) fn read_balances(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    game: Game,
    players: &[&str],
) -> Result<Vec<Balance>, StoreError> {
    players
        .iter()
        .map(|p| Ok(read_balance(table, game, p)?.unwrap_or_else(|| Balance::absent(game, p))))
        .collect()
}

pub(crate) fn read_state(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    player_id: &str,
    name: &str,
) -> Result<Option<State>, StoreError> {
    let key = state_key(player_id, name);
    let Some(v) = table.get(key.as_str())? else {
        return Ok(None);
    };
    let item: StateItem = decode(&key, v.value())?;
    Ok(Some(State {
        body: item.body,
        version: item.version,
    }))
}

pub(crate) fn read_claim(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    player_id: &str,
    game: Game,
    kind: &str,
    day: &str,
) -> Result<Option<Claim>, StoreError> {
    let key = claim_key(player_id, game, kind, day);
    Ok(table.get(key.as_str())?.map(|v| Claim {
        body: String::from_utf8_lossy(v.value()).into_owned(),
    }))
}

pub(crate) fn read_period(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    board: &BoardRef,
    player: &str,
) -> Result<Option<Balance>, StoreError> {
    read_entry(table, &period_key(board, player), player, board_game(board))
}
