//! Board definitions stored and versioned (BD-1 … BD-10, `docs/rules/boards.md`):
//! created, updated into a new version, listed, read and retired (each change also
//! as a dry run: checked and answered, nothing written), each change one
//! store transaction whose conditions make concurrent changes of one definition, and
//! concurrent creations past a game's cap, lose cleanly (HTTP 409) rather than
//! overwrite each other.
//!
//! Items (partition key / sort key):
//! - `BOARDDEF#{id}` / `HEAD`: the current version, the game, when it was retired;
//! - `BOARDDEF#{id}` / `V000001` …: every version, never rewritten;
//! - `BOARDDEFS` / `{id}`: the list of definitions (game, retired or not);
//! - `BOARDDEFS#ACTIVE` / `{game}`: how many of a game's definitions are active (BD-11's cap).

use chrono::{DateTime, Utc};
use podium_rules::board::definition::{well_formed_id, Definition, Schedule};
use podium_rules::error::RuleError;
use podium_store::{Item, ItemKey, ItemStore, SortKeyRange};
use serde::{Deserialize, Serialize};

use crate::engine::defined::{Effective, Feeding, ACTIVE_PK};
use crate::error::ServiceError;

/// The most active definitions one game may feed, by default (BD-11: each feeds every
/// scored match of its game, so each costs write units per match).
pub const DEFAULT_MAX_ACTIVE_PER_GAME: u32 = 20;

const LIST_PK: &str = "BOARDDEFS";
const HEAD_SK: &str = "HEAD";

fn def_pk(id: &str) -> String {
    format!("BOARDDEF#{id}")
}

fn version_sk(version: u32) -> String {
    format!("V{version:06}")
}

/// One version of a definition as stored (BD-10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Version {
    /// 1, 2, …
    pub version: u32,
    /// The definition as this version holds it.
    #[schema(value_type = Object)]
    pub definition: Definition,
    /// From when it applies (UTC): at once, or the start of the next period when it
    /// changes what the board's history means (BD-10).
    pub effective_from: DateTime<Utc>,
    /// When it was written (UTC) and by whom (the operator's verified identity).
    pub written_at: DateTime<Utc>,
    pub written_by: String,
}

/// A definition's current state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Head {
    pub id: String,
    pub game: String,
    /// The newest version.
    pub version: u32,
    /// Set once retired: nothing feeds it from then on; its archives stay readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<DateTime<Utc>>,
}

/// A game's active definitions (`BOARDDEFS#ACTIVE` / `{game}`): how many (BD-11's
/// cap) and the versions of each that results may still meet, which every settlement
/// of the game reads ([`crate::engine::defined::in_force`]; BD-12).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Active {
    count: u32,
    #[serde(default)]
    boards: Vec<Feeding>,
    /// Retired boards with periods whose ended periods the ticks may still have to
    /// freeze and close (LB-5, BD-9: a period that ended before the retirement pays;
    /// the minute of grace may not have passed): fed by nothing, dropped by the ticks once every
    /// such period is closed ([`closed_after_retirement`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    closing: Vec<Feeding>,
}

fn encode<T: Serialize>(what: &str, value: &T) -> Result<Vec<u8>, ServiceError> {
    serde_json::to_vec(value).map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(what, e)))
}

fn decode<T: for<'de> Deserialize<'de>>(what: &str, item: &Item) -> Result<T, ServiceError> {
    serde_json::from_slice(&item.body)
        .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(what, e)))
}

fn conflict(field: &'static str, rule: &'static str, message: impl Into<String>) -> ServiceError {
    ServiceError::StateConflict {
        field,
        rule,
        message: message.into(),
    }
}

/// What results meet of a board's first version (BD-12): every result of the board's
/// periods that arrives from its creation on, however late (a window created once it
/// began counts the window's late results; results settled before the creation are
/// not counted).
fn first_effective(v: &Version) -> Effective {
    Effective {
        effective_from: DateTime::<Utc>::MIN_UTC,
        ..effective(v)
    }
}

/// What results meet of `v` (BD-12).
fn effective(v: &Version) -> Effective {
    Effective {
        version: v.version,
        effective_from: v.effective_from,
        definition: v.definition.clone(),
    }
}

/// BD-10: whether `new` changes what `old`'s history means (source, operator, order,
/// tie-breaks, schedule), so that it may only apply from the next period.
pub fn changes_history(old: &Definition, new: &Definition) -> bool {
    !old.same_history(new)
}

/// BD-10: from when an update of `old` to `new` applies, at `now`: at once, or when
/// `old`'s current period ends if it changes the board's history. An all-time board's
/// history, and a started window's, cannot change (no next period): a conflict.
pub fn effective_from(
    old: &Definition,
    new: &Definition,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>, ServiceError> {
    if !changes_history(old, new) {
        return Ok(now);
    }
    match &old.schedule {
        Schedule::AllTime => Err(conflict(
            "definition",
            "BD-10",
            "an all-time board has no next period: its source, operator, order, tie-breaks, score range and schedule stay; define a new board",
        )),
        Schedule::Window { start, .. } if *start > now => Ok(now),
        Schedule::Window { end, .. } if *end <= now => Err(conflict(
            "definition",
            "BD-10",
            "the window has ended: its source, operator, order, tie-breaks, score range and schedule stay; define a new board",
        )),
        Schedule::Window { .. } => Err(conflict(
            "definition",
            "BD-10",
            "the window has begun: its source, operator, order, tie-breaks, score range and schedule stay until it ends",
        )),
        Schedule::Cron { .. } | Schedule::Daily { .. } | Schedule::Weekly { .. } => {
            let period = old.schedule.period_at(now)?;
            let from = period.and_then(|p| p.end).unwrap_or(now);
            // A period is named by its local start: the new schedule's first period,
            // when it begins before the change takes effect, must not take the name of
            // a period of the current schedule (their entries would be one board).
            if let Some(first) = new.schedule.period_at(from)? {
                let collides = first.start.is_some_and(|s| s < from)
                    && old.schedule.period_named(&first.id).is_ok();
                if collides {
                    return Err(conflict(
                        "definition.schedule",
                        "BD-10",
                        format!(
                            "the new schedule's first period would begin at {} (before the change takes effect at {}), the name of a period of the current schedule: write the change during the period that ends where the new schedule begins one, or define a new board",
                            first.id,
                            from.to_rfc3339()
                        ),
                    ));
                }
            }
            Ok(from)
        }
    }
}

async fn active_count<S: ItemStore + ?Sized>(store: &S, game: &str) -> Result<(Active, u64), ServiceError> {
    Ok(
        match store.get_item(&ItemKey::new(ACTIVE_PK, game), true).await? {
            Some(item) => (decode("active definitions", &item)?, item.version),
            None => (Active::default(), 0),
        },
    )
}

/// Creates `definition` as version 1, effective at once (BD-1 … BD-9 checked first).
/// Errors: [`ServiceError::Invalid`] (the broken rule, nothing written);
/// [`ServiceError::StateConflict`] when the id exists (BD-1) or the game already feeds
/// `max_active` active definitions (BD-11), or a concurrent creation won (retry).
pub async fn create<S: ItemStore + ?Sized>(
    store: &S,
    definition: Definition,
    operator: &str,
    now: DateTime<Utc>,
    max_active: u32,
    dry_run: bool,
) -> Result<(Head, Version), ServiceError> {
    definition.check()?;
    let definition = definition.normalized();
    if let Schedule::Window { end, .. } = &definition.schedule {
        if *end <= now {
            return Err(RuleError::new("schedule.end", "BD-6", "the window has ended already").into());
        }
    }
    let (active, active_version) = active_count(store, &definition.game).await?;
    if active.count >= max_active {
        return Err(conflict(
            "game",
            "BD-11",
            format!(
                "{} already feeds {max_active} active definitions (the configured cap)",
                definition.game
            ),
        ));
    }
    let head = Head {
        id: definition.id.clone(),
        game: definition.game.clone(),
        version: 1,
        retired_at: None,
    };
    let version = Version {
        version: 1,
        definition,
        effective_from: now,
        written_at: now,
        written_by: operator.to_string(),
    };
    let pk = def_pk(&head.id);
    let writes = vec![
        (
            ItemKey::new(pk.clone(), HEAD_SK),
            encode("definition head", &head)?,
            0,
        ),
        (
            ItemKey::new(pk, version_sk(1)),
            encode("definition version", &version)?,
            0,
        ),
        (
            ItemKey::new(LIST_PK, head.id.clone()),
            encode("definition list", &head)?,
            0,
        ),
        (
            ItemKey::new(ACTIVE_PK, head.game.clone()),
            encode("active definitions", &{
                let mut next = active.clone();
                next.count += 1;
                next.boards.push(Feeding {
                    id: head.id.clone(),
                    versions: vec![first_effective(&version)],
                });
                next
            })?,
            active_version,
        ),
    ];
    if dry_run {
        if read(store, &head.id).await?.is_some() {
            return Err(conflict("id", "BD-1", format!("a board `{}` exists", head.id)));
        }
        return Ok((head, version));
    }
    if !store.put_items_if(&writes).await? {
        return Err(match read(store, &head.id).await? {
            Some(_) => conflict("id", "BD-1", format!("a board `{}` exists", head.id)),
            None => conflict(
                "game",
                "BD-11",
                "another definition of this game was created meanwhile: try again",
            ),
        });
    }
    Ok((head, version))
}

/// The definition `id`: its head and current version, if it exists.
pub async fn read<S: ItemStore + ?Sized>(
    store: &S,
    id: &str,
) -> Result<Option<(Head, Version)>, ServiceError> {
    Ok(read_stored(store, id)
        .await?
        .map(|(head, _, version)| (head, version)))
}

/// [`read`], with the head item's stored version (what a change of it is conditioned on).
async fn read_stored<S: ItemStore + ?Sized>(
    store: &S,
    id: &str,
) -> Result<Option<(Head, u64, Version)>, ServiceError> {
    if !well_formed_id(id) {
        return Ok(None);
    }
    let pk = def_pk(id);
    let Some(item) = store.get_item(&ItemKey::new(pk.clone(), HEAD_SK), true).await? else {
        return Ok(None);
    };
    let head: Head = decode("definition head", &item)?;
    let Some(v) = store
        .get_item(&ItemKey::new(pk, version_sk(head.version)), true)
        .await?
    else {
        return Err(ServiceError::Store(podium_store::StoreError::corrupt(
            "definition version",
            format!("{id}: its head names version {} and none is stored", head.version),
        )));
    };
    Ok(Some((head, item.version, decode("definition version", &v)?)))
}

/// The head of `id` with its stored version and every version, oldest first, in one
/// Query of the definition's partition (`HEAD` sorts before `V…`): what an update
/// reads.
async fn read_all<S: ItemStore + ?Sized>(
    store: &S,
    id: &str,
) -> Result<Option<(Head, u64, Vec<Version>)>, ServiceError> {
    if !well_formed_id(id) {
        return Ok(None);
    }
    let items = store
        .query_items(&def_pk(id), &SortKeyRange::All, true, 1_001, true)
        .await?;
    let Some((_, head_item)) = items.iter().find(|(sk, _)| sk == HEAD_SK) else {
        return Ok(None);
    };
    let head: Head = decode("definition head", head_item)?;
    let versions = items
        .iter()
        .filter(|(sk, _)| sk.starts_with('V'))
        .map(|(_, item)| decode("definition version", item))
        .collect::<Result<Vec<Version>, _>>()?;
    if versions.last().map(|v| v.version) != Some(head.version) {
        return Err(ServiceError::Store(podium_store::StoreError::corrupt(
            "definition version",
            format!(
                "{id}: its head names version {} and the newest stored differs",
                head.version
            ),
        )));
    }
    Ok(Some((head, head_item.version, versions)))
}

/// Every version of `id`, oldest first (at most 1,000).
pub async fn versions<S: ItemStore + ?Sized>(store: &S, id: &str) -> Result<Vec<Version>, ServiceError> {
    if !well_formed_id(id) {
        return Ok(Vec::new());
    }
    let items = store
        .query_items(
            &def_pk(id),
            &SortKeyRange::AtOrAfter("V".into()),
            true,
            1_000,
            true,
        )
        .await?;
    items
        .iter()
        .filter(|(sk, _)| sk.starts_with('V'))
        .map(|(_, item)| decode("definition version", item))
        .collect()
}

/// Every definition, by id (at most 10,000), retired ones included.
pub async fn list<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<Head>, ServiceError> {
    let items = store
        .query_items(LIST_PK, &SortKeyRange::All, true, 10_000, true)
        .await?;
    items
        .iter()
        .map(|(_, item)| decode("definition list", item))
        .collect()
}

/// No definition `id` (quoted, cut short: a path may be long).
pub fn not_found(id: &str) -> ServiceError {
    let quoted = podium_rules::error::quoted(id);
    if podium_rules::board::board_def(id).is_some() {
        // BD-14: a built-in board is read-only; its definition is in the list.
        return ServiceError::NotFound(format!(
            "{quoted} is a built-in board, not an operator's definition: its definition is in `built_in` of GET /v1/operator/boards (BD-14), read-only"
        ));
    }
    ServiceError::NotFound(format!("no board definition {quoted}"))
}

/// BD-10: `head` may change from `expected_version`: not retired, and still at it.
fn changeable(head: &Head, expected_version: u32) -> Result<(), ServiceError> {
    let id = &head.id;
    if head.retired_at.is_some() {
        return Err(conflict("id", "BD-10", format!("`{id}` is retired")));
    }
    if head.version != expected_version {
        return Err(conflict(
            "version",
            "BD-10",
            format!("`{id}` is at version {}, not {expected_version}", head.version),
        ));
    }
    Ok(())
}

/// Writes `definition` as the next version of its board, if the newest is still
/// `expected_version` (BD-10): effective at once, or from the next period when it
/// changes the board's history ([`effective_from`]). Answers the versions before and
/// after. The id and game cannot change. Errors: [`ServiceError::Invalid`];
/// [`ServiceError::NotFound`]; [`ServiceError::StateConflict`] (retired, another
/// version written since `expected_version`, or a history change with no next period).
pub async fn update<S: ItemStore + ?Sized>(
    store: &S,
    definition: Definition,
    expected_version: u32,
    operator: &str,
    now: DateTime<Utc>,
    dry_run: bool,
) -> Result<(Version, Version), ServiceError> {
    definition.check()?;
    let definition = definition.normalized();
    let id = definition.id.clone();
    // One Query: the head (what the change is conditioned on) and every version.
    let (head, head_version, all) = read_all(store, &id).await?.ok_or_else(|| not_found(&id))?;
    let before = all[all.len() - 1].clone();
    changeable(&head, expected_version)?;
    if definition.game != head.game {
        return Err(RuleError::new("game", "BD-10", "a definition's game cannot change").into());
    }
    if definition.teams.is_some() != before.definition.teams.is_some() {
        return Err(RuleError::new(
            "teams",
            "TM-7",
            "a board ranks teams or players from its creation: `teams` cannot be added or removed (its split may change)",
        )
        .into());
    }
    // BD-10: what the change means is judged against the version in force now; and
    // it never applies before a change still to come (which it then replaces).
    let in_force = all
        .iter()
        .rev()
        .find(|v| v.effective_from <= now)
        .unwrap_or(&before);
    let from = effective_from(&in_force.definition, &definition, now)?.max(before.effective_from);
    let after = Version {
        version: head.version + 1,
        effective_from: from,
        definition,
        written_at: now,
        written_by: operator.to_string(),
    };
    let new_head = Head {
        version: after.version,
        ..head.clone()
    };
    if dry_run {
        return Ok((before, after));
    }
    let pk = def_pk(&id);
    let head_key = ItemKey::new(pk.clone(), HEAD_SK);
    let list_key = ItemKey::new(LIST_PK, &id);
    // The game's active list changes with any of its definitions: a change of another
    // one meanwhile is no conflict of this one's, so it is read again.
    for _ in 0..ACTIVE_ATTEMPTS {
        let list_version = store.get_item(&list_key, true).await?.map_or(0, |i| i.version);
        let (mut active, active_version) = active_count(store, &head.game).await?;
        match active.boards.iter_mut().find(|f| f.id == id) {
            Some(f) => f.add(effective(&after), now),
            None => {
                let mut f = Feeding {
                    id: id.clone(),
                    versions: vec![first_effective(&before)],
                };
                f.add(effective(&after), now);
                active.boards.push(f);
            }
        }
        let writes = vec![
            (
                head_key.clone(),
                encode("definition head", &new_head)?,
                head_version,
            ),
            (
                ItemKey::new(pk.clone(), version_sk(after.version)),
                encode("definition version", &after)?,
                0,
            ),
            // The list shows each definition's newest version.
            (
                list_key.clone(),
                encode("definition list", &new_head)?,
                list_version,
            ),
            (
                ItemKey::new(ACTIVE_PK, head.game.clone()),
                encode("active definitions", &active)?,
                active_version,
            ),
        ];
        if store.put_items_if(&writes).await? {
            return Ok((before, after));
        }
        let now_head = store.get_item(&head_key, true).await?.map(|i| i.version);
        if now_head != Some(head_version) {
            break;
        }
    }
    Err(conflict(
        "version",
        "BD-10",
        format!("`{id}` changed meanwhile: read it again"),
    ))
}

/// How often a change of a definition is tried while other definitions of its game
/// change the game's active list.
const ACTIVE_ATTEMPTS: u32 = 5;

/// Drops the retired board `id` from `game`'s boards still closing (BD-9), once the
/// ticks closed every period that ended before its retirement. Losing the race to a
/// change of the list leaves it for the next tick (which finds it done again).
pub(crate) async fn closed_after_retirement<S: ItemStore + ?Sized>(
    store: &S,
    game: &str,
    id: &str,
) -> Result<(), ServiceError> {
    let (mut active, version) = active_count(store, game).await?;
    if !active.closing.iter().any(|f| f.id == id) {
        return Ok(());
    }
    active.closing.retain(|f| f.id != id);
    let key = ItemKey::new(ACTIVE_PK, game);
    store
        .put_items_if(&[(key, encode("active definitions", &active)?, version)])
        .await?;
    Ok(())
}

/// Retires `id` at `now` if its newest version is still `expected_version`: nothing
/// feeds it from then on, its versions and archives stay. Errors as [`update`];
/// retiring a retired board is a conflict.
pub async fn retire<S: ItemStore + ?Sized>(
    store: &S,
    id: &str,
    expected_version: u32,
    now: DateTime<Utc>,
    dry_run: bool,
) -> Result<Head, ServiceError> {
    if !well_formed_id(id) {
        return Err(not_found(id));
    }
    let pk = def_pk(id);
    let head_key = ItemKey::new(pk, HEAD_SK);
    let item = store
        .get_item(&head_key, true)
        .await?
        .ok_or_else(|| not_found(id))?;
    let head: Head = decode("definition head", &item)?;
    changeable(&head, expected_version)?;
    let retired = Head {
        retired_at: Some(now),
        ..head
    };
    if dry_run {
        return Ok(retired);
    }
    let list_key = ItemKey::new(LIST_PK, id);
    // The game's active list changes with any of its definitions: a change of another
    // one meanwhile is no conflict of this one's, so it is read again.
    for _ in 0..ACTIVE_ATTEMPTS {
        let list_version = store.get_item(&list_key, true).await?.map_or(0, |i| i.version);
        let (mut active, active_version) = active_count(store, &retired.game).await?;
        active.count = active.count.saturating_sub(1);
        if let Some(at) = active.boards.iter().position(|f| f.id == id) {
            let feeding = active.boards.remove(at);
            if feeding
                .versions
                .iter()
                .any(|v| v.definition.schedule != Schedule::AllTime)
            {
                active.closing.retain(|f| f.id != id);
                active.closing.push(feeding);
            }
        }
        let writes = vec![
            (
                head_key.clone(),
                encode("definition head", &retired)?,
                item.version,
            ),
            (
                list_key.clone(),
                encode("definition list", &retired)?,
                list_version,
            ),
            (
                ItemKey::new(ACTIVE_PK, retired.game.clone()),
                encode("active definitions", &active)?,
                active_version,
            ),
        ];
        if store.put_items_if(&writes).await? {
            return Ok(retired);
        }
        if store.get_item(&head_key, true).await?.map(|i| i.version) != Some(item.version) {
            break;
        }
    }
    Err(conflict(
        "version",
        "BD-10",
        format!("`{id}` changed meanwhile: read it again"),
    ))
}
