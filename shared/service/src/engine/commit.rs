//! A settlement as the store's one commit (GM-3, GM-4): claims, balances with their
//! ledger entries and board credits, period entries, states and inbox messages,
//! league placements, and the references that let a deletion find every item naming
//! a player (GM-6).

use chrono::DateTime;
use podium_rules::board::BoardRef;
use podium_rules::settlement::Settlement;
use podium_store::{
    Balance, BalanceWrite, ClaimWrite, Commit, EntryWrite, SettleStore, SourceKey, StateWrite,
};
use serde::Serialize;

use super::source::{ReadState, Reads};
use crate::error::ServiceError;

/// The store's commit for a planned settlement: every write at the version read,
/// stamped with the server clock `clock_ms` (milliseconds, UTC). `contended` counts
/// the earlier plans of this settlement whose commits answered `Contended`: a league
/// placement then goes to a spill cohort while its own cohort is racing
/// ([`crate::engine::placement::placements`]).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn to_commit<S: SettleStore + ?Sized, R: Serialize>(
    store: &S,
    key: &SourceKey,
    hash: &str,
    attempt: &str,
    plan_no: u32,
    contended: u32,
    read: &ReadState,
    reads: &Reads,
    s: Settlement<R>,
    clock_ms: i64,
) -> Result<(Commit, R), ServiceError> {
    let balances: Vec<BalanceWrite> = s
        .balances
        .iter()
        .map(|change| {
            let cur = read.balance(change.game, &change.player_id);
            // LB-2: the value was reached when it changed; an unchanged value keeps its instant.
            let reached_at_ms = if cur.version > 0 && change.after == cur.points {
                cur.reached_at_ms
            } else {
                change.at.timestamp_millis()
            };
            let must_exist = reads
                .balances
                .iter()
                .any(|(g, p, must)| *must && *g == change.game && *p == change.player_id);
            BalanceWrite {
                player_id: change.player_id.clone(),
                game: change.game,
                expected_version: cur.version,
                points: change.after,
                reached_at_ms,
                history: cur.history_after(change.after, reached_at_ms, clock_ms),
                must_exist,
            }
        })
        .collect();
    let mut entries = Vec::with_capacity(s.credits.len());
    // Players whose first points of a league's week these are, by board (leagues).
    let mut first_of_week: Vec<(BoardRef, Vec<String>)> = Vec::new();
    for c in &s.credits {
        let board = BoardRef::new(c.board.clone(), c.period.clone());
        let cur = store
            .get_entry(&board, &c.player_id)
            .await?
            .unwrap_or_else(|| Balance::absent(podium_store::board_game(&board), &c.player_id));
        if cur.version == 0 && podium_rules::league::league_of_board(&board.board).is_some() {
            match first_of_week.iter_mut().find(|(b, _)| *b == board) {
                Some((_, players)) => players.push(c.player_id.clone()),
                None => first_of_week.push((board.clone(), vec![c.player_id.clone()])),
            }
        }
        let value = cur.points.saturating_add(c.points).max(0);
        let reached_at_ms = if cur.version > 0 && value == cur.points {
            cur.reached_at_ms
        } else {
            c.at.timestamp_millis()
        };
        let history = cur.history_after(value, reached_at_ms, clock_ms);
        entries.push(EntryWrite {
            board,
            player_id: c.player_id.clone(),
            expected_version: cur.version,
            value,
            reached_at_ms,
            history,
        });
    }
    // LB-5: a board refreshed only when changed learns of it in the same transaction.
    let mut marks: Vec<podium_store::MarkWrite> = Vec::new();
    for e in &entries {
        if let Some(m) = crate::engine::changes::mark_for(&e.board, &e.player_id, clock_ms) {
            if !marks.iter().any(|x| x.key == m.key) {
                marks.push(m);
            }
        }
    }
    let claims = s
        .claims
        .iter()
        .map(|c| ClaimWrite {
            player_id: c.player_id.clone(),
            game: c.game,
            kind: c.kind.to_string(),
            day: c.day.to_string(),
            body: c.body.to_string(),
        })
        .collect();
    // GM-6: whom the items this commit writes name outside their own partitions.
    let mut refs = References::default();
    let mut states: Vec<StateWrite> = Vec::with_capacity(s.states.len());
    for st in &s.states {
        let before = read.state(&st.player_id, &st.name);
        refs.state_named(&st.player_id, &st.name, before.map(|b| b.body.as_str()), &st.body);
        states.push(StateWrite {
            player_id: st.player_id.clone(),
            name: st.name.clone(),
            expected_version: before.map_or(0, |x| x.version),
            body: st.body.to_string(),
        });
    }
    // Messages (a new SG-12 rank) join each addressee's inbox in this commit, at the
    // inbox's version read now: read only when the rules send one (rare).
    let mut addressees: Vec<&str> = Vec::new();
    for (player, _) in &s.messages {
        if !addressees.contains(&player.as_str()) {
            addressees.push(player);
        }
    }
    for player in addressees {
        let stored = store.get_state(player, podium_rules::inbox::STATE).await?;
        let mut inbox: podium_rules::inbox::Inbox = match &stored {
            Some(st) => serde_json::from_str(&st.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("inbox", e)))?,
            None => Default::default(),
        };
        let before = inbox.clone();
        for (_, m) in s.messages.iter().filter(|(p, _)| p == player) {
            inbox = inbox.with(m.clone());
        }
        if inbox == before {
            // Sent already, or over a cap (`Inbox::with`): nothing to write.
            continue;
        }
        let body = serde_json::to_value(&inbox)
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("inbox", e)))?;
        refs.state_named(
            player,
            podium_rules::inbox::STATE,
            stored.as_ref().map(|st| st.body.as_str()),
            &body,
        );
        states.push(StateWrite {
            player_id: player.to_string(),
            name: podium_rules::inbox::STATE.to_string(),
            expected_version: stored.map_or(0, |st| st.version),
            body: body.to_string(),
        });
    }
    // A player's first points of a league's week place them in a cohort, in this
    // commit; a week's close places the members it decided in their next week.
    let mut placing: Vec<(BoardRef, Vec<crate::engine::placement::Placing>)> = first_of_week
        .into_iter()
        .map(|(board, players)| {
            let players = players
                .into_iter()
                .map(crate::engine::placement::Placing::FirstPoints)
                .collect();
            (board, players)
        })
        .collect();
    for p in &s.placements {
        let board = BoardRef::new(p.board.clone(), p.week.clone());
        let name = podium_rules::league::league_of_board(&p.board).map(podium_rules::league::state_name);
        let version = name
            .and_then(|n| read.state(&p.player_id, &n).map(|x| x.version))
            .unwrap_or(0);
        let decided = crate::engine::placement::Placing::Decided {
            placement: p.clone(),
            version,
        };
        match placing.iter_mut().find(|(b, _)| *b == board) {
            Some((_, list)) => list.push(decided),
            None => placing.push((board, vec![decided])),
        }
    }
    for (board, list) in &placing {
        let placed = crate::engine::placement::placements(store, board, list, clock_ms, contended).await?;
        for (player, owner, name) in &placed.named {
            refs.add(
                player,
                podium_store::Named::State {
                    owner: owner.clone(),
                    name: name.clone(),
                },
            );
        }
        states.extend(placed.writes);
    }
    // GM-6: the players the result names without a ledger entry here (a place paid
    // nothing, a table's TP, a void match) are found through a reference.
    let result_doc = serde_json::to_value(&s.result)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("result", e)))?;
    // So are the players whose id the source's key holds (a registration, a period's
    // result message, a credit of theirs).
    let keyed = balances
        .iter()
        .map(|b| b.player_id.as_str())
        .chain(entries.iter().map(|e| e.player_id.as_str()))
        .chain(states.iter().map(|st| st.player_id.as_str()))
        .filter(|p| crate::engine::names::key_names(&key.id, p))
        .map(str::to_string);
    let named: Vec<String> = crate::engine::names::named_ids(&result_doc, false)
        .into_iter()
        .chain(keyed)
        .collect();
    for id in named {
        if !s.ledger.iter().any(|e| e.player_id == id) {
            refs.add(
                &id,
                podium_store::Named::Source {
                    kind: key.kind.clone(),
                    id: key.id.clone(),
                },
            );
        }
    }
    // GM-4: each entry's place in its balance's settlement order (the version this
    // commit writes) and the server clock it is settled at.
    let settled_at = DateTime::from_timestamp_millis(clock_ms);
    let mut ledger = s.ledger;
    for e in &mut ledger {
        e.seq = balances
            .iter()
            .find(|b| b.player_id == e.player_id && b.game == e.game)
            .map_or(0, |b| b.expected_version + 1);
        e.settled_at = settled_at;
    }
    let result = serde_json::to_string(&s.result)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("result", e)))?;
    Ok((
        Commit {
            source: key.clone(),
            content_hash: hash.to_string(),
            attempt: attempt.to_string(),
            plan: plan_no,
            result,
            fields: None,
            claims,
            balances,
            entries,
            states,
            ledger,
            marks,
            refs: refs.0,
            named: Vec::new(),
        },
        s.result,
    ))
}

/// The references (GM-6) a commit writes: each (player, item) once.
#[derive(Debug, Default)]
struct References(Vec<podium_store::Reference>);

impl References {
    fn add(&mut self, player: &str, named: podium_store::Named) {
        if !self.0.iter().any(|r| r.player_id == player && r.named == named) {
            self.0.push(podium_store::Reference {
                player_id: player.to_string(),
                named,
            });
        }
    }

    /// The players `owner`'s state item `name` names (as a deletion rewrites them)
    /// that it did not name `before` (its stored body): an item written again over
    /// and over (an inbox, a member list) references each player once.
    fn state_named(&mut self, owner: &str, name: &str, before: Option<&str>, body: &serde_json::Value) {
        let known: Vec<String> = before
            .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok())
            .map(|b| crate::engine::names::named_ids(&b, b.is_array()))
            .unwrap_or_default();
        for id in crate::engine::names::named_ids(body, body.is_array()) {
            if id != owner && !known.contains(&id) {
                self.add(
                    &id,
                    podium_store::Named::State {
                        owner: owner.to_string(),
                        name: name.to_string(),
                    },
                );
            }
        }
    }
}
