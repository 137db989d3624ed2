//! Results feeding defined boards (BD-12), inside the settlement's own commit: each
//! fact of the result (one per player, [`podium_rules::board::feed::Fact`]) meets the
//! version of every active definition of its game in force at the fact's instant; a
//! board whose source takes it gets the player's entry in the fact's period, combined
//! by the definition's operators at the version read (BD-3, BD-5), written with the
//! balances in the one transaction. A retry or a duplicate delivery writes nothing
//! again (the source's record decides, GM-3).
//!
//! The definitions in force are one item per game, `BOARDDEFS#ACTIVE` / `{game}`
//! (written by `boards::definitions` in the same transaction as each change), read
//! through [`SettleStore::settle_item`]: on DynamoDB a process keeps it up to
//! [`podium_store::SETTLE_ITEM_MAX_AGE`], so a scored match costs no read of it while
//! warm, and a change of definitions reaches every scoring process within that time.

use chrono::{DateTime, Utc};
use podium_rules::board::definition::Definition;
use podium_rules::board::feed::{Contribution, Fact};
use podium_rules::board::BoardRef;
use podium_store::{Balance, EntryWrite, ItemKey, SettleStore};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// The partition key of the games' active definitions (sort key: the game's id).
pub const ACTIVE_PK: &str = "BOARDDEFS#ACTIVE";

/// How many versions of a definition the active list keeps, so a result arriving
/// late still meets the version in force when it happened (BD-10).
pub const VERSIONS_IN_FORCE: usize = 4;

/// One version of a definition as results meet it: from when it applies (UTC).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effective {
    pub version: u32,
    pub effective_from: DateTime<Utc>,
    pub definition: Definition,
}

/// The versions of one active definition that feed results, oldest first (at most
/// [`VERSIONS_IN_FORCE`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Feeding {
    pub id: String,
    pub versions: Vec<Effective>,
}

impl Feeding {
    /// The version in force at `at` (BD-10): the newest effective by then; `None`
    /// before the board was defined.
    pub fn at(&self, at: DateTime<Utc>) -> Option<&Definition> {
        self.versions
            .iter()
            .rev()
            .find(|v| v.effective_from <= at)
            .map(|v| &v.definition)
    }
}

#[derive(Deserialize)]
struct Active {
    #[serde(default)]
    boards: Vec<Feeding>,
}

/// The active definitions `game` feeds (BD-12), as settlements read them.
pub async fn in_force<S: SettleStore + ?Sized>(store: &S, game: &str) -> Result<Vec<Feeding>, ServiceError> {
    Ok(match store.settle_item(&ItemKey::new(ACTIVE_PK, game)).await? {
        Some(item) => {
            serde_json::from_slice::<Active>(&item.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("active definitions", e)))?
                .boards
        }
        None => Vec::new(),
    })
}

/// The entry writes `facts` make on defined boards (BD-12), each at the version of
/// the entry read (strongly consistent), stamped with the server clock `clock_ms`.
/// One read of each game's definitions in force, and one of
/// each entry a fact feeds; nothing when no definition takes a fact.
pub(crate) async fn entry_writes<S: SettleStore + ?Sized>(
    store: &S,
    facts: &[Fact],
    clock_ms: i64,
) -> Result<Vec<EntryWrite>, ServiceError> {
    let mut games: Vec<&str> = Vec::new();
    for f in facts {
        if !games.contains(&f.game.id()) {
            games.push(f.game.id());
        }
    }
    let mut boards: Vec<Feeding> = Vec::new();
    for game in games {
        boards.extend(in_force(store, game).await?);
    }
    if boards.is_empty() {
        return Ok(Vec::new());
    }
    // (write, the entry as read): a board fed twice by one commit combines twice.
    let mut out: Vec<(EntryWrite, Balance)> = Vec::new();
    for fact in facts {
        for feeding in &boards {
            let Some(def) = feeding.at(fact.at) else {
                continue;
            };
            let Some(Contribution::Feed { value, tie_breaks }) = def.contribution(fact) else {
                continue;
            };
            // A stored definition was checked whole (BD-6): its schedule answers.
            let Ok(Some(period)) = def.schedule.period_at(fact.at) else {
                continue;
            };
            let board = BoardRef::new(def.id.clone(), period.id);
            let at_ms = fact.at.timestamp_millis();
            let fold = def.fold();
            match out
                .iter_mut()
                .find(|(w, _)| w.board == board && w.player_id == fact.player_id)
            {
                Some((w, read)) => {
                    let value = fold.combine(Some(w.value), value, &tie_breaks);
                    if value != w.value {
                        w.value = value;
                        w.reached_at_ms = at_ms;
                    }
                    w.history = read.history_after(w.value, w.reached_at_ms, clock_ms);
                }
                None => {
                    let read = store
                        .get_entry(&board, &fact.player_id)
                        .await?
                        .unwrap_or_else(|| Balance::absent(fact.game, &fact.player_id));
                    let current = (read.version > 0).then_some(read.points);
                    let value = fold.combine(current, value, &tie_breaks);
                    let reached_at_ms = if current == Some(value) {
                        read.reached_at_ms
                    } else {
                        at_ms
                    };
                    let write = EntryWrite {
                        board,
                        player_id: fact.player_id.clone(),
                        expected_version: read.version,
                        value,
                        reached_at_ms,
                        history: read.history_after(value, reached_at_ms, clock_ms),
                    };
                    out.push((write, read));
                }
            }
        }
    }
    Ok(out.into_iter().map(|(w, _)| w).collect())
}
