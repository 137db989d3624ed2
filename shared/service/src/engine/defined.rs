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

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

use chrono::{DateTime, Utc};
use podium_rules::board::definition::Definition;
use podium_rules::board::definition::{entrants_counter, join_state, Entrants, Joined};
use podium_rules::board::feed::{Contribution, Fact};
use podium_rules::board::BoardRef;
use podium_store::{Balance, EntryWrite, ItemKey, SettleStore, StateWrite};
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// The partition key of the games' active definitions (sort key: the game's id).
pub const ACTIVE_PK: &str = "BOARDDEFS#ACTIVE";

/// How many versions of a definition the active list keeps, so a result arriving
/// late still meets the version in force when it happened (BD-10): versions that change
/// what results mean take effect at period boundaries, so these cover at least this
/// many periods back.
pub const VERSIONS_IN_FORCE: usize = 8;

/// How late a result may arrive and still meet the version in force at its instant:
/// longer than any record may be late (GM-5: at most 364 days).
pub const LATEST_RESULT_DAYS: i64 = 400;

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
    /// Adds `v`, written at `now` (BD-10): a version effective when the newest is
    /// replaces it; one that means the same history as the newest (a new title) updates
    /// it in place, keeping when it took effect; versions no result can meet any more
    /// (superseded more than [`LATEST_RESULT_DAYS`] ago) are dropped, and at most
    /// [`VERSIONS_IN_FORCE`] kept.
    pub fn add(&mut self, v: Effective, now: DateTime<Utc>) {
        match self.versions.last_mut() {
            Some(last) if last.effective_from >= v.effective_from => {
                *last = Effective {
                    effective_from: last.effective_from.max(v.effective_from),
                    ..v
                }
            }
            Some(last) if last.definition.same_history(&v.definition) => {
                *last = Effective {
                    effective_from: last.effective_from,
                    ..v
                }
            }
            _ => self.versions.push(v),
        }
        let horizon = now - chrono::Duration::days(LATEST_RESULT_DAYS);
        while self.versions.len() > 1 && self.versions[1].effective_from <= horizon {
            self.versions.remove(0);
        }
        let over = self.versions.len().saturating_sub(VERSIONS_IN_FORCE);
        self.versions.drain(..over);
    }

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

tokio::task_local! {
    /// Set while an operator's approval settles a held record (OP-3): its values count
    /// wherever a score range would hold them (BD-7).
    static APPROVED: bool;
}

/// Runs `settling` as an operator's approval of a held record (OP-3): a value outside
/// a defined board's score range counts instead of holding the record (BD-7).
pub async fn approved<F: std::future::Future>(settling: F) -> F::Output {
    APPROVED.scope(true, settling).await
}

fn is_approved() -> bool {
    APPROVED.try_with(|a| *a).unwrap_or(false)
}

#[derive(Deserialize)]
struct Active {
    #[serde(default)]
    boards: Vec<Feeding>,
}

/// The active definitions `game` feeds (BD-12), as settlements read them. The list
/// decoded last is kept per game, with the bytes it was decoded from: a settlement that
/// reads the same bytes (the item unchanged) decodes nothing (up to 20 definitions of 8
/// versions each are a few hundred kilobytes of JSON).
pub async fn in_force<S: SettleStore + ?Sized>(
    store: &S,
    game: &str,
) -> Result<Arc<Vec<Feeding>>, ServiceError> {
    let Some(item) = store.settle_item(&ItemKey::new(ACTIVE_PK, game)).await? else {
        return Ok(Arc::default());
    };
    if let Some((bytes, decoded)) = DECODED.read().ok().and_then(|m| m.get(game).cloned()) {
        if *bytes == item.body {
            return Ok(decoded);
        }
    }
    let decoded = Arc::new(
        serde_json::from_slice::<Active>(&item.body)
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("active definitions", e)))?
            .boards,
    );
    if let Ok(mut m) = DECODED.write() {
        m.insert(game.to_string(), (Arc::new(item.body), decoded.clone()));
    }
    Ok(decoded)
}

/// Each game's active definitions as last decoded, with the bytes they came from.
type Decoded = HashMap<String, (Arc<Vec<u8>>, Arc<Vec<Feeding>>)>;
static DECODED: LazyLock<RwLock<Decoded>> = LazyLock::new(Default::default);

/// One game's definitions as the ticks read them.
#[derive(Debug, Clone)]
pub struct GameBoards {
    /// The game's id.
    pub game: String,
    /// Its active definitions (BD-12).
    pub active: Vec<Feeding>,
    /// Its retired boards with periods, whose periods that ended before the
    /// retirement may still be closing (LB-5, BD-9): fed by nothing.
    pub closing: Vec<Feeding>,
}

/// Every game's active definitions (BD-12) and retired boards still closing (BD-9),
/// as the ticks read them: one eventually consistent Query of the games' lists.
pub async fn all_in_force<S: podium_store::ItemStore + ?Sized>(
    store: &S,
) -> Result<Vec<GameBoards>, ServiceError> {
    #[derive(Deserialize)]
    struct Listed {
        #[serde(default)]
        boards: Vec<Feeding>,
        #[serde(default)]
        closing: Vec<Feeding>,
    }
    let items = store
        .query_items(ACTIVE_PK, &podium_store::SortKeyRange::All, true, 100, false)
        .await?;
    items
        .into_iter()
        .map(|(game, item)| {
            let listed = serde_json::from_slice::<Listed>(&item.body).map_err(|e| {
                ServiceError::Store(podium_store::StoreError::corrupt("active definitions", e))
            })?;
            Ok(GameBoards {
                game,
                active: listed.boards,
                closing: listed.closing,
            })
        })
        .collect()
}

/// Adds to `commit` the entries `facts` make on defined boards (BD-12) and, for each
/// board, one change mark that has the refresh job snapshot it (LB-5): the mark of the
/// first player written there, so that concurrent matches spread over the board's
/// few mark items rather than race on one.
pub(crate) async fn feed<S: SettleStore + ?Sized>(
    store: &S,
    facts: &[Fact],
    commit: &mut podium_store::Commit,
    clock_ms: i64,
) -> Result<(), ServiceError> {
    let mut marked: Vec<BoardRef> = Vec::new();
    let (entries, counters, refs) = entry_writes(store, facts, clock_ms).await?;
    commit.states.extend(counters);
    for r in refs {
        if !commit.refs.contains(&r) {
            commit.refs.push(r);
        }
    }
    for e in entries {
        if !marked.contains(&e.board) {
            commit
                .marks
                .push(super::changes::mark_of(&e.board, &e.player_id, clock_ms));
            marked.push(e.board.clone());
        }
        commit.entries.push(e);
    }
    Ok(())
}

/// The entry writes `facts` make on defined boards (BD-12), each at the version of
/// the entry read (strongly consistent), stamped with the server clock `clock_ms`.
/// [`ServiceError::OutOfRange`] when a value is outside a board's score range (BD-7)
/// and the settlement is no approval ([`approved`]): nothing is written.
/// One read of each game's definitions in force (kept a few seconds on DynamoDB), and
/// one BatchGetItem of each board a fact feeds, for all its players; nothing more
/// when no definition takes a fact. Entry rules (BD-8): on a board players enter by
/// joining, a fact of a player who had not joined by its instant feeds nothing (one
/// read of each such player's joining); on a board with `max_entrants`, a player's
/// first value takes a place while places are left (one read of the period's
/// counter, written at the version read with the entries: the state writes
/// returned), and feeds nothing once they are taken.
///
/// Team boards (TM-7): a fact with a positive value (TM-4: a loss takes nothing from
/// a team) feeds the entry of the team the player was a member of at the fact's
/// instant (one read of each player's memberships, only when the game has a team
/// board the fact feeds), and adds to the team's contributions in that period (one
/// read, written at the version read with the entry: a state write returned), with a
/// reference (GM-6) for a member new there. A player in no team feeds no team board
/// and writes nothing more.
async fn entry_writes<S: SettleStore + ?Sized>(
    store: &S,
    facts: &[Fact],
    clock_ms: i64,
) -> Result<(Vec<EntryWrite>, Vec<StateWrite>, Vec<podium_store::Reference>), ServiceError> {
    let mut games: Vec<&str> = Vec::new();
    for f in facts {
        if !games.contains(&f.game.id()) {
            games.push(f.game.id());
        }
    }
    let mut lists: Vec<Arc<Vec<Feeding>>> = Vec::new();
    for game in games {
        lists.push(in_force(store, game).await?);
    }
    let boards: Vec<&Feeding> = lists.iter().flat_map(|l| l.iter()).collect();
    if boards.is_empty() {
        return Ok((Vec::new(), Vec::new(), Vec::new()));
    }
    // What each fact brings, in the facts' order.
    struct Fed<'a> {
        board: BoardRef,
        fact: &'a Fact,
        /// Whose entry it feeds: the player's, or on a team board their team's key.
        entrant: String,
        fold: podium_rules::board::feed::Fold,
        value: i64,
        tie_breaks: Vec<i64>,
        max_entrants: Option<u32>,
    }
    // BD-8: the joinings read, by (board, player).
    let mut joined: Vec<(String, String, Option<DateTime<Utc>>)> = Vec::new();
    // TM-4: the memberships read, by player.
    let mut memberships: Vec<(String, podium_rules::team::Memberships)> = Vec::new();
    let mut fed: Vec<Fed<'_>> = Vec::new();
    for fact in facts {
        for &feeding in &boards {
            let Some(def) = feeding.at(fact.at) else {
                continue;
            };
            let Some(contribution) = def.contribution(fact) else {
                continue;
            };
            // A stored definition was checked whole (BD-6): its schedule answers. A
            // result outside every period feeds nothing (and holds nothing).
            let Ok(Some(period)) = def.schedule.period_at(fact.at) else {
                continue;
            };
            if def.entry.requires_join() {
                let at = match joined
                    .iter()
                    .find(|(b, p, _)| *b == def.id && *p == fact.player_id)
                {
                    Some((_, _, at)) => *at,
                    None => {
                        let at = joined_at(store, &def.id, &fact.player_id).await?;
                        joined.push((def.id.clone(), fact.player_id.clone(), at));
                        at
                    }
                };
                // BD-8: not joined by the result's instant: the board does not take it.
                if at.is_none_or(|at| fact.at < at) {
                    continue;
                }
            }
            let (value, tie_breaks) = match contribution {
                Contribution::Feed { value, tie_breaks } => (value, tie_breaks),
                // BD-7: held for review, unless an operator approved it (OP-3).
                Contribution::Held {
                    value,
                    range,
                    tie_breaks,
                } => {
                    if !is_approved() {
                        return Err(ServiceError::OutOfRange {
                            board: def.id.clone(),
                            value,
                            range,
                        });
                    }
                    (value, tie_breaks)
                }
            };
            let entrant = if def.teams.is_some() {
                // TM-4: only what a result earned counts for a team.
                if value <= 0 {
                    continue;
                }
                let i = match memberships.iter().position(|(p, _)| *p == fact.player_id) {
                    Some(i) => i,
                    None => {
                        let m = memberships_of(store, &fact.player_id).await?;
                        memberships.push((fact.player_id.clone(), m));
                        memberships.len() - 1
                    }
                };
                // TM-4: by the result's instant; one dated after its scoring (a
                // game server's clock ahead, GM-5) as of its scoring.
                match memberships[i].1.team_at(fact.at.timestamp_millis().min(clock_ms)) {
                    Some(team) => podium_rules::team::team_key(team),
                    None => continue,
                }
            } else {
                fact.player_id.clone()
            };
            fed.push(Fed {
                board: BoardRef::new(def.id.clone(), period.id),
                fact,
                entrant,
                fold: def.fold(),
                value,
                tie_breaks,
                max_entrants: def.entry.max_entrants,
            });
        }
    }
    // TM-4, TM-7: each team's contributions on each board it is fed on, read once and
    // written below at the version read; a member new to a list that holds
    // MAX_CONTRIBUTORS brings the team nothing (their own boards count it as usual).
    // (board, team key, contributions, version read, whether this commit adds to them)
    let mut contributions: Vec<(BoardRef, String, podium_rules::team::Contributions, u64, bool)> = Vec::new();
    let mut refs = Vec::new();
    let mut kept: Vec<Fed<'_>> = Vec::with_capacity(fed.len());
    for f in fed {
        if podium_rules::team::team_of_key(&f.entrant).is_none() {
            kept.push(f);
            continue;
        }
        let name = podium_rules::team::contributions_state(&f.board.key());
        let i = match contributions
            .iter()
            .position(|(b, t, ..)| *b == f.board && *t == f.entrant)
        {
            Some(i) => i,
            None => {
                let (held, version) = contributions_of(store, &f.entrant, &name).await?;
                contributions.push((f.board.clone(), f.entrant.clone(), held, version, false));
                contributions.len() - 1
            }
        };
        let held = &mut contributions[i].2;
        if !held.admits(&f.fact.player_id) {
            continue;
        }
        if !held.members.iter().any(|(p, _)| *p == f.fact.player_id) {
            // GM-6: the member's deletion finds the list that names them.
            refs.push(podium_store::Reference {
                player_id: f.fact.player_id.clone(),
                named: podium_store::Named::State {
                    owner: f.entrant.clone(),
                    name,
                },
            });
        }
        held.add(&f.fact.player_id, f.value);
        contributions[i].4 = true;
        kept.push(f);
    }
    let fed = kept;
    // The entries read: one BatchGetItem a board for all its players.
    let mut read: Vec<(&BoardRef, Balance)> = Vec::new();
    for f in &fed {
        if read.iter().any(|(b, _)| **b == f.board) {
            continue;
        }
        let mut players: Vec<&str> = Vec::new();
        for g in fed.iter().filter(|g| g.board == f.board) {
            if !players.contains(&g.entrant.as_str()) {
                players.push(&g.entrant);
            }
        }
        let found = store.get_entries(&f.board, &players).await?;
        for (player, entry) in players.iter().zip(found) {
            read.push((
                &f.board,
                entry.unwrap_or_else(|| Balance::absent(f.fact.game, player)),
            ));
        }
    }
    // (write, the entry as read): a board fed twice by one commit combines twice.
    let mut out: Vec<(EntryWrite, &Balance)> = Vec::new();
    // BD-8: the entrants counters of boards with `max_entrants`: (board, count, version read).
    let mut counters: Vec<(BoardRef, Entrants, u64)> = Vec::new();
    for f in &fed {
        let at_ms = f.fact.at.timestamp_millis();
        let player = f.entrant.as_str();
        if let Some((w, was)) = out
            .iter_mut()
            .find(|(w, _)| w.board == f.board && w.player_id == player)
        {
            let value = f.fold.combine(Some(w.value), f.value, &f.tie_breaks);
            if value != w.value {
                w.value = value;
                w.reached_at_ms = at_ms;
            }
            w.history = was.history_after(w.value, w.reached_at_ms, clock_ms);
            continue;
        }
        let Some((_, was)) = read.iter().find(|(b, e)| **b == f.board && e.player_id == player) else {
            continue;
        };
        if let (Some(max), 0) = (f.max_entrants, was.version) {
            // BD-8: a first value takes one of the period's places, while any is left.
            let i = match counters.iter().position(|(b, _, _)| *b == f.board) {
                Some(i) => i,
                None => {
                    let (owner, name) = entrants_counter(&f.board.board, &f.board.period);
                    let state = store.get_state(&owner, &name).await?;
                    let (count, version) = match state {
                        Some(st) => (
                            serde_json::from_str::<Entrants>(&st.body)
                                .map_err(|e| {
                                    ServiceError::Store(podium_store::StoreError::corrupt(&owner, e))
                                })?
                                .count,
                            st.version,
                        ),
                        None => (0, 0),
                    };
                    counters.push((f.board.clone(), Entrants { count }, version));
                    counters.len() - 1
                }
            };
            if counters[i].1.count >= max {
                continue;
            }
            counters[i].1.count += 1;
        }
        let current = (was.version > 0).then_some(was.points);
        let value = f.fold.combine(current, f.value, &f.tie_breaks);
        let reached_at_ms = if current == Some(value) {
            was.reached_at_ms
        } else {
            at_ms
        };
        out.push((
            EntryWrite {
                board: f.board.clone(),
                player_id: player.to_string(),
                expected_version: was.version,
                value,
                reached_at_ms,
                history: was.history_after(value, reached_at_ms, clock_ms),
            },
            was,
        ));
    }
    let mut states = Vec::new();
    for (board, team, held, version, _) in contributions.into_iter().filter(|c| c.4) {
        states.push(StateWrite {
            player_id: team,
            name: podium_rules::team::contributions_state(&board.key()),
            expected_version: version,
            body: serde_json::to_string(&held).unwrap_or_default(),
        });
    }
    for (board, entrants, version) in counters {
        let (owner, name) = entrants_counter(&board.board, &board.period);
        states.push(StateWrite {
            player_id: owner,
            name,
            expected_version: version,
            body: serde_json::to_string(&entrants).unwrap_or_default(),
        });
    }
    Ok((out.into_iter().map(|(w, _)| w).collect(), states, refs))
}

/// A team's contributions on one team board in one period (TM-7): its state `name`
/// ([`podium_rules::team::contributions_state`]) under the team's key, and the version
/// read (strongly consistent); none and 0 when it has none there.
pub(crate) async fn contributions_of<S: SettleStore + ?Sized>(
    store: &S,
    team_key: &str,
    name: &str,
) -> Result<(podium_rules::team::Contributions, u64), ServiceError> {
    match store.get_state(team_key, name).await? {
        Some(st) => Ok((
            serde_json::from_str(&st.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(team_key, e)))?,
            st.version,
        )),
        None => Ok((Default::default(), 0)),
    }
}

/// `player`'s memberships (TM-4), as their state holds them; none when they never
/// joined a team.
pub(crate) async fn memberships_of<S: SettleStore + ?Sized>(
    store: &S,
    player: &str,
) -> Result<podium_rules::team::Memberships, ServiceError> {
    Ok(memberships_of_all(store, &[player])
        .await?
        .pop()
        .unwrap_or_default())
}

/// The memberships of each of `players` (TM-4), in the order asked: one
/// BatchGetItem per 100 players.
pub(crate) async fn memberships_of_all<S: SettleStore + ?Sized>(
    store: &S,
    players: &[&str],
) -> Result<Vec<podium_rules::team::Memberships>, ServiceError> {
    let keys: Vec<(&str, &str)> = players
        .iter()
        .map(|p| (*p, podium_rules::team::MEMBERSHIPS_STATE))
        .collect();
    let found = store.get_states(&keys).await?;
    players
        .iter()
        .zip(found)
        .map(|(player, st)| match st {
            Some(st) => serde_json::from_str(&st.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(*player, e))),
            None => Ok(Default::default()),
        })
        .collect()
}

/// When `player` joined defined board `board` (BD-8), if they did.
async fn joined_at<S: SettleStore + ?Sized>(
    store: &S,
    board: &str,
    player: &str,
) -> Result<Option<DateTime<Utc>>, ServiceError> {
    let Some(state) = store.get_state(player, &join_state(board)).await? else {
        return Ok(None);
    };
    let joined: Joined = serde_json::from_str(&state.body)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(player, e)))?;
    Ok(Some(joined.joined_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn version(n: u32, from: DateTime<Utc>, title: &str, operator: &str) -> Effective {
        Effective {
            version: n,
            effective_from: from,
            definition: serde_json::from_value(serde_json::json!({
                "id": "wk", "title": title, "game": "seega", "source": {"kind": "points"},
                "operator": operator, "order": "higher_first",
                "schedule": {"kind": "cron", "cron": "0 0 * * SAT", "zone": "UTC"},
            }))
            .unwrap(),
        }
    }

    /// BD-10: a title change updates the newest version in place (the instant it took
    /// effect kept, so late results still meet it); a history change is added; one
    /// effective with a change still to come replaces it; versions superseded more than
    /// 400 days ago go, and at most VERSIONS_IN_FORCE stay.
    #[test]
    fn the_feeding_list_keeps_what_late_results_meet() {
        let now = t("2026-12-06T12:00:00Z");
        let mut f = Feeding {
            id: "wk".into(),
            versions: vec![version(1, DateTime::<Utc>::MIN_UTC, "A", "sum")],
        };
        f.add(version(2, now, "B", "sum"), now);
        assert_eq!(f.versions.len(), 1);
        assert_eq!(
            (f.versions[0].version, f.versions[0].effective_from),
            (2, DateTime::<Utc>::MIN_UTC)
        );
        let saturday = t("2026-12-12T00:00:00Z");
        f.add(version(3, saturday, "B", "best"), now);
        f.add(version(4, saturday, "C", "best"), now);
        assert_eq!(f.versions.iter().map(|v| v.version).collect::<Vec<_>>(), [2, 4]);
        assert_eq!(
            f.at(t("2026-12-01T00:00:00Z")).map(|d| d.title.as_str()),
            Some("B")
        );
        assert_eq!(f.at(saturday).map(|d| d.title.as_str()), Some("C"));
        // Years of weekly history changes: what no late result can meet goes.
        let mut week = saturday;
        for n in 5..40 {
            week += chrono::Duration::days(7);
            let op = if n % 2 == 0 { "sum" } else { "best" };
            f.add(version(n, week, "C", op), week);
        }
        assert_eq!(f.versions.len(), VERSIONS_IN_FORCE);
        let long_after = week + chrono::Duration::days(LATEST_RESULT_DAYS + 1);
        f.add(version(40, long_after, "D", "max"), long_after);
        assert_eq!(f.versions.iter().map(|v| v.version).collect::<Vec<_>>(), [39, 40]);
    }
}
