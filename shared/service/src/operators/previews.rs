//! A definition previewed against past play (BD-13): the board it would have produced
//! over a past window, computed from the results podium keeps (each stored result's
//! facts, [`crate::games::played`]) before anything of the board is written: for each
//! period met, its size, its top and what its prize table would have paid.
//!
//! The results are found by walking the stored source records of the definition's
//! game ([`podium_store::SourceStore::scan_sources`]: on DynamoDB a Scan of the table,
//! so a preview costs reads in proportion to the table, not to the window). The walk
//! outgrows a request, so a preview is carried out like a dry run of a close
//! ([`crate::operators::dry_runs`]): recorded (partition key `ACTION#PREVIEW`, sort key
//! its id), stepped for about a second by the request, then by every tick until done.
//! Each step reads one page of records and writes, in one transaction with the
//! record's new position, the facts the board takes from it (partition key
//! `PREVIEW#{id}`, one item a page): concurrent steps, a step cut short, a tick run
//! twice each leave every page counted once. When the walk is done, one step folds the
//! facts in the order they happened, by the definition's own operators
//! ([`podium_rules::board::feed::Fold`], the code that feeds a live board), ranks each
//! period as a board does (LB-2), leaves out suspended and deleted players, and pays
//! the prize table as a close would ([`podium_rules::period_reward::results`]): so a
//! preview equals, entry for entry, the board the same results produce when they are
//! replayed into the definition in the order they happened. The fold is one step: its
//! time and memory grow with the values counted (at most [`MAX_FACTS`]), not with the
//! table.
//!
//! On a team board (TM-7) each value goes to the team its player was a member of at
//! the result's instant, positive values only (TM-4), as scoring feeds it: the
//! memberships are read as they stand at the walk, so a team's preview is its board
//! as the teams' histories now say (a suspended member's values withheld, OP-4).
//!
//! What it cannot know is said, not guessed: who would have joined (BD-8: every
//! player who played counts, `joins_assumed`); results outside the score range are
//! counted as held (BD-7), not placed. A repeat of the same definition and window
//! joins the preview under way or answers one finished within [`FRESH_FOR_MINUTES`].
//! A preview is not audited (OP-5: it changes nothing); finished ones go after
//! [`KEPT_FOR_HOURS`].

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Duration, Utc};
use podium_rules::board::definition::Definition;
use podium_rules::board::feed::Contribution;
use podium_rules::game::Game;
use podium_rules::period_reward::{self, RewardTable};
use podium_rules::RuleError;
use podium_store::{Account, ItemKey, ItemStore, SettleStore, SortKeyRange, StoreError};
use serde::{Deserialize, Serialize};

use crate::budget::Budget;
use crate::engine::defined::LATEST_RESULT_DAYS;
use crate::engine::names::hex_sha256;
use crate::error::ServiceError;
use crate::games::played::{self, Played};

const PK: &str = "ACTION#PREVIEW";

/// Stored records examined a step (one page of the walk; DynamoDB's Scan stops a page
/// at 1 MB whatever the limit).
pub const PAGE: u32 = 1_000;

/// Values written in one item: at most about 200 bytes each (an id of 128 characters,
/// two tie-breaks), so an item stays under 300 KB.
const PART: usize = 1_500;

/// Lines listed per period.
pub const TOP: usize = 20;

/// How long a finished preview is answered to a repeat (minutes).
pub const FRESH_FOR_MINUTES: i64 = 10;

/// How long a finished preview stays readable (hours).
pub const KEPT_FOR_HOURS: i64 = 24;

/// The most values one preview folds (a bound on the fold's memory: about 200 bytes a
/// value measured, `examples/preview_scale`, so some 400 MB at the cap, inside the
/// snapshot function's 1,024 MB): a preview that meets more stops and says so.
pub const MAX_FACTS: u64 = 2_000_000;

/// The most values a request folds (about 40 MB, inside the operator function's
/// 512 MB): a larger preview is folded by the next tick.
pub const REQUEST_FOLD_MAX: u64 = 200_000;

/// The most periods one preview reports (the earliest).
pub const MAX_PERIODS: usize = 100;

/// One player's line of a previewed period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PreviewLine {
    /// LB-2 rank among the period's entries.
    pub rank: u64,
    pub player_id: String,
    /// The board's value (the source's unit: points, wins, milliseconds).
    pub value: i64,
    /// Each tie-break's value (BD-5), in the definition's order.
    pub tie_breaks: Vec<i64>,
    /// What the prize table pays this place (points, Jokers; BD-9).
    pub prize_points: i64,
    pub prize_jokers: u64,
}

/// One period of the previewed board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PreviewPeriod {
    /// The period's id (`window`, `all`, or a cron period's local start).
    pub period: String,
    /// When it starts and ends (UTC; none for all-time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<DateTime<Utc>>,
    /// Whether the preview's window covers only part of the period (so only part of
    /// its results were read).
    pub partial: bool,
    /// Players ranked (suspended and deleted players left out).
    pub entries: u64,
    /// Players left out: suspended or deleted now (OP-4, GM-6).
    pub left_out: u64,
    /// What the prize table would pay in all (points, Jokers; BD-9).
    pub prize_points: i64,
    pub prize_jokers: u64,
    /// The first [`TOP`] lines.
    pub top: Vec<PreviewLine>,
}

/// A preview, as it is answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Preview {
    /// Names this definition and window: a repeat joins it.
    pub id: String,
    #[schema(value_type = Object)]
    pub definition: Definition,
    /// The window of past play read: results whose own instant (a match's end, a
    /// completion's) lies in [from, to) (UTC), whenever they were settled.
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// When it was asked, last stepped and finished (UTC).
    pub requested_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<DateTime<Utc>>,
    /// Stored results of the game read so far: its whole history is walked to find
    /// the window's.
    pub results_read: u64,
    /// Values the board takes inside the window and one of its periods (before entry
    /// rules turn any away).
    pub counted: u64,
    /// Settled results with a value outside the definition's score range (BD-7): a
    /// live board would hold each record whole for review, so none of its values is
    /// placed here. Records waiting in the review queue are not settled: no preview
    /// counts them.
    pub held: u64,
    /// Results stored before their game kept the instant they ended: not placed.
    pub undated: u64,
    /// Whether the board requires joining (BD-8): a preview cannot know who would have
    /// joined, so every player who played is counted.
    pub joins_assumed: bool,
    /// Why it stopped short, if it did (more than [`MAX_FACTS`] values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Each period met, oldest first (the first [`MAX_PERIODS`], fewer if their lines
    /// outgrow the record); filled when finished.
    pub periods: Vec<PreviewPeriod>,
    /// Periods met but not listed (past [`MAX_PERIODS`], or past what the record holds).
    #[serde(default)]
    pub periods_left_out: u64,
}

/// A preview as its record holds it: the answer and the walk's position.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    preview: Preview,
    /// Where the walk resumes (`None` at the start).
    #[serde(default)]
    cursor: Option<String>,
    /// Whether the walk is done.
    #[serde(default)]
    walked: bool,
    /// Items of values written (`PREVIEW#{id}`, sort keys `F#00000000` …).
    #[serde(default)]
    pages: u32,
}

/// One value the board takes: (player, instant ms, the result's order among those of
/// its instant, value, tie-breaks), in the walk's order.
type Placed = (String, i64, u64, i64, Vec<i64>);

/// Where a result stands among those of one instant: the first 8 bytes of SHA-256 of
/// its key (kind, id), the same on every store and every build.
fn order_of(key: &podium_store::SourceKey) -> u64 {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{}\u{0}{}", key.kind, key.id).as_bytes());
    u64::from_be_bytes(digest[..8].try_into().unwrap_or_default())
}

/// The most bytes a preview's record holds (DynamoDB's item limit is 400 KB): the
/// periods that do not fit are counted in `periods_left_out`.
const MAX_RECORD_BYTES: usize = 350_000;

fn key(id: &str) -> ItemKey {
    ItemKey::new(PK, id)
}

fn facts_pk(id: &str) -> String {
    format!("PREVIEW#{id}")
}

fn page_key(id: &str, n: u32) -> ItemKey {
    ItemKey::new(facts_pk(id), format!("F#{n:08}"))
}

fn body(r: &Record) -> Vec<u8> {
    serde_json::to_vec(r).unwrap_or_default()
}

fn decode<T: serde::de::DeserializeOwned>(what: &str, bytes: &[u8]) -> Result<T, ServiceError> {
    serde_json::from_slice(bytes).map_err(|e| ServiceError::Store(StoreError::corrupt(what, e)))
}

/// Checks what a preview asks (BD-1 … BD-9 for the definition; the window within the
/// last [`LATEST_RESULT_DAYS`] days, ended by `now`), naming the field. Errors:
/// [`ServiceError::Invalid`].
pub fn check(
    definition: &Definition,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Game, ServiceError> {
    let game = definition
        .check()
        .map_err(|e| RuleError::new(format!("definition.{}", e.field), e.rule, e.message))?;
    if from >= to {
        return Err(RuleError::new("to", "BD-13", "the window ends after it starts").into());
    }
    let sources = std::iter::once(&definition.source).chain(definition.tie_breaks.iter().map(|t| &t.source));
    if let Some((i, _)) = sources.enumerate().find(|(_, s)| !s.of_results()) {
        let field = match i {
            0 => "definition.source".to_string(),
            i => format!("definition.tie_breaks[{}].source", i - 1),
        };
        return Err(RuleError::new(
            field,
            "BD-13",
            "a preview replays stored results; a balance or credits source also counts rewarded ads, bonuses, corrections and claims, which it does not read",
        )
        .into());
    }
    if to > now {
        return Err(
            RuleError::new("to", "BD-13", "a preview reads past play: the window ends by now").into(),
        );
    }
    if now - from > Duration::days(LATEST_RESULT_DAYS) {
        return Err(RuleError::new(
            "from",
            "BD-13",
            format!("a preview reads at most the last {LATEST_RESULT_DAYS} days"),
        )
        .into());
    }
    if let podium_rules::board::definition::Schedule::Window { start, end } = &definition.schedule {
        if to <= *start || from >= *end {
            return Err(RuleError::new(
                "from",
                "BD-13",
                format!(
                    "the window [from, to) meets none of the definition's: its window is [{}, {}); preview it over the past by giving the definition a window of past play",
                    start.to_rfc3339(),
                    end.to_rfc3339()
                ),
            )
            .into());
        }
    }
    Ok(game)
}

/// The id of a preview of `definition` over [from, to).
fn id_of(definition: &Definition, from: DateTime<Utc>, to: DateTime<Utc>) -> String {
    let text = format!(
        "{}\u{0}{}\u{0}{}",
        serde_json::to_string(definition).unwrap_or_default(),
        from.to_rfc3339(),
        to.to_rfc3339()
    );
    let mut h = hex_sha256(&text);
    h.truncate(20);
    h
}

/// The preview of `definition` over past play in [from, to), joined or begun at `now`,
/// stepped within `budget` (pages of `page` records examined a step), and saved.
/// Errors: [`check`]'s, and the store's.
pub async fn run<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    definition: Definition,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    now: DateTime<Utc>,
    budget: Budget,
    page: u32,
) -> Result<Preview, ServiceError> {
    let definition = definition.normalized();
    check(&definition, from, to, now)?;
    let id = id_of(&definition, from, to);
    let k = key(&id);
    let (record, version) = match store.get_item(&k, true).await? {
        Some(item) => {
            let r: Record = decode(&k.sk, &item.body)?;
            let stale = r
                .preview
                .finished_at
                .is_some_and(|f| now - f > Duration::minutes(FRESH_FOR_MINUTES));
            if stale {
                forget(store, &id, item.version).await?;
                (fresh(id.clone(), definition, from, to, now), 0)
            } else {
                (r, item.version)
            }
        }
        None => (fresh(id.clone(), definition, from, to, now), 0),
    };
    // Begun: recorded first, so a tick carries it if this request stops.
    if version == 0 && !store.put_item_if(&k, &body(&record), 0).await? {
        return read(store, &id).await?.ok_or_else(|| not_found(&id));
    }
    let version = version.max(1);
    if record.preview.finished_at.is_some() {
        return Ok(record.preview);
    }
    let stepped = step(store, record, version, now, budget, (page, REQUEST_FOLD_MAX)).await?;
    match stepped {
        Some(r) => Ok(r.preview),
        // Lost to a concurrent step: its record stands.
        None => read(store, &id).await?.ok_or_else(|| not_found(&id)),
    }
}

/// The refusal of a preview id that is not kept ([`ServiceError::NotFound`]).
pub fn not_found(id: &str) -> ServiceError {
    ServiceError::NotFound(format!("no preview {id}"))
}

fn fresh(
    id: String,
    definition: Definition,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Record {
    Record {
        preview: Preview {
            id,
            joins_assumed: definition.entry.requires_join(),
            definition,
            from,
            to,
            requested_at: now,
            updated_at: now,
            finished_at: None,
            results_read: 0,
            counted: 0,
            held: 0,
            undated: 0,
            stopped: None,
            periods: Vec::new(),
            periods_left_out: 0,
        },
        cursor: None,
        walked: false,
        pages: 0,
    }
}

/// The preview `id`, if it is kept. Errors: the store's.
pub async fn read<S: ItemStore + ?Sized>(store: &S, id: &str) -> Result<Option<Preview>, ServiceError> {
    // A preview's id is 20 hexadecimal digits ([`id_of`]): anything else is none, and
    // never reaches the store.
    if id.len() != 20
        || !id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Ok(None);
    }
    let k = key(id);
    match store.get_item(&k, true).await? {
        Some(item) => Ok(Some(decode::<Record>(&k.sk, &item.body)?.preview)),
        None => Ok(None),
    }
}

/// Every preview kept, under way or finished, newest asked first, without their
/// periods' lines.
pub async fn list<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<Preview>, ServiceError> {
    let mut all: Vec<Record> = crate::engine::listing::all(store, PK).await?;
    all.sort_by_key(|r| std::cmp::Reverse(r.preview.requested_at));
    Ok(all
        .into_iter()
        .map(|mut r| {
            for p in &mut r.preview.periods {
                p.top.clear();
            }
            r.preview
        })
        .collect())
}

/// Steps `record` (stored at `version`) within `budget`: pages of `page` records of the
/// walk, then the fold when it holds at most `fold_max` values (else the next tick's).
/// `None` when a concurrent step wrote the record first (nothing of this step counted).
async fn step<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    mut record: Record,
    mut version: u64,
    now: DateTime<Utc>,
    budget: Budget,
    (page, fold_max): (u32, u64),
) -> Result<Option<Record>, ServiceError> {
    let k = key(&record.preview.id);
    let Ok(game) = record.preview.definition.check() else {
        record.preview.finished_at = Some(now);
        record.preview.stopped = Some("the definition no longer passes its checks".into());
        return Ok(store
            .put_item_if(&k, &body(&record), version)
            .await?
            .then_some(record));
    };
    let kinds = played::kinds(game);
    let mut taken = 0;
    // Pages that placed nothing are saved with the next that does, or when the step
    // stops: a step cut short walks them again, counting nothing twice.
    let mut unsaved = false;
    while !record.walked {
        if budget.stops_after(taken) {
            if unsaved && !store.put_item_if(&k, &body(&record), version).await? {
                return Ok(None);
            }
            return Ok(Some(record));
        }
        taken += 1;
        let found = store.scan_sources(kinds, record.cursor.as_deref(), page).await?;
        let mut placed = place(&mut record.preview, &found.records);
        if record.preview.definition.teams.is_some() {
            placed = as_teams(store, placed).await?;
        }
        record.cursor = found.next;
        record.walked = record.cursor.is_none();
        record.preview.results_read += found.records.len() as u64;
        record.preview.updated_at = now;
        if record.preview.counted > MAX_FACTS {
            record.walked = true;
            record.preview.stopped = Some(format!(
                "the window holds more than {MAX_FACTS} values this board takes: preview a shorter one"
            ));
        }
        if placed.is_empty() && !record.walked {
            unsaved = true;
            continue;
        }
        let mut writes = Vec::new();
        if record.preview.stopped.is_none() {
            for part in placed.chunks(PART) {
                writes.push((
                    page_key(&record.preview.id, record.pages),
                    serde_json::to_vec(part).unwrap_or_default(),
                    0,
                ));
                record.pages += 1;
            }
        }
        writes.push((k.clone(), body(&record), version));
        if !store.put_items_if(&writes).await? {
            return Ok(None);
        }
        version += 1;
        unsaved = false;
    }
    if (taken > 0 && budget.expired()) || record.preview.counted > fold_max {
        return Ok(Some(record));
    }
    let facts = if record.preview.stopped.is_some() {
        Vec::new()
    } else {
        read_pages(store, &record).await?
    };
    let (periods, met) = fold(store, &record.preview, game, facts).await?;
    record.preview.periods = periods;
    record.preview.finished_at = Some(now);
    record.preview.updated_at = now;
    while body(&record).len() > MAX_RECORD_BYTES && record.preview.periods.pop().is_some() {}
    record.preview.periods_left_out = (met - record.preview.periods.len()) as u64;
    if !store.put_item_if(&k, &body(&record), version).await? {
        return Ok(None);
    }
    let pages: Vec<ItemKey> = (0..record.pages)
        .map(|n| page_key(&record.preview.id, n))
        .collect();
    store.delete_items(&pages).await?;
    Ok(Some(record))
}

/// The values the previewed board takes from `records` (counting those held and
/// undated on `preview`), in the records' order.
fn place(
    preview: &mut Preview,
    records: &[(podium_store::SourceKey, podium_store::StoredSource)],
) -> Vec<Placed> {
    let def = &preview.definition;
    let mut out = Vec::new();
    for (key, stored) in records {
        let facts = match played::facts_of(key, &stored.result) {
            Some(Played::Facts(f)) => f,
            Some(Played::Undated) => {
                preview.undated += 1;
                continue;
            }
            None => continue,
        };
        let order = order_of(key);
        let mut taken: Vec<Placed> = Vec::new();
        let mut held = false;
        for fact in facts {
            if fact.at < preview.from || fact.at >= preview.to {
                continue;
            }
            // GM-6: a deleted player's results name a pseudonym: never placed.
            if fact
                .player_id
                .starts_with(podium_rules::record::ids::RESERVED_PREFIX)
            {
                continue;
            }
            let Some(contribution) = def.contribution(&fact) else {
                continue;
            };
            if !matches!(def.schedule.period_at(fact.at), Ok(Some(_))) {
                continue;
            }
            match contribution {
                Contribution::Feed { value, tie_breaks } => taken.push((
                    fact.player_id,
                    fact.at.timestamp_millis(),
                    order,
                    value,
                    tie_breaks,
                )),
                Contribution::Held { .. } => held = true,
            }
        }
        // BD-7: one value out of range holds the whole record: none of it counts.
        if held {
            preview.held += 1;
        } else {
            preview.counted += taken.len() as u64;
            out.extend(taken);
        }
    }
    out
}

/// On a team board (TM-7), `placed` as the values of its teams: each value above zero
/// (TM-4: a loss takes nothing from a team) of a player who was a member of a team at
/// its instant, as that team's (`@team:{id}`), as a scored result feeds it
/// ([`crate::engine::defined`]); the values of players in no team then, and of players
/// suspended now (OP-4: withheld from their teams), are left out. Reads each player's
/// memberships and their accounts 100 at a time (one BatchGetItem each): a page's
/// players, not the table's. Errors: the store's.
async fn as_teams<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    placed: Vec<Placed>,
) -> Result<Vec<Placed>, ServiceError> {
    let mut players: Vec<&str> = placed.iter().filter(|p| p.3 > 0).map(|p| p.0.as_str()).collect();
    players.sort_unstable();
    players.dedup();
    let mut suspended = std::collections::HashSet::new();
    for group in players.chunks(IN_FLIGHT) {
        suspended.extend(crate::boards::suspended::among(store, group).await?);
    }
    let mut memberships = HashMap::new();
    for group in players.chunks(IN_FLIGHT) {
        let found = crate::engine::defined::memberships_of_all(store, group).await?;
        memberships.extend(group.iter().map(|p| p.to_string()).zip(found));
    }
    Ok(placed
        .into_iter()
        .filter_map(|(player, at_ms, order, value, tie_breaks)| {
            if value <= 0 || suspended.contains(&player) {
                return None;
            }
            let team = memberships.get(&player)?.team_at(at_ms)?;
            Some((
                podium_rules::team::team_key(team),
                at_ms,
                order,
                value,
                tie_breaks,
            ))
        })
        .collect())
}

/// Every page of values the walk wrote, in its order.
async fn read_pages<S: ItemStore + ?Sized>(store: &S, record: &Record) -> Result<Vec<Placed>, ServiceError> {
    let pages: Vec<Vec<Placed>> = crate::engine::listing::all(store, &facts_pk(&record.preview.id)).await?;
    Ok(pages.into_iter().flatten().collect())
}

/// One player's entry being folded: the stored value (BD-12) and when it was reached.
struct Folding {
    stored: i64,
    reached_at_ms: i64,
}

/// The periods `facts` make, each ranked and paid (BD-9, LB-2): the first
/// [`MAX_PERIODS`], and how many were met.
async fn fold<S: ItemStore + ?Sized>(
    store: &S,
    preview: &Preview,
    game: Game,
    mut facts: Vec<Placed>,
) -> Result<(Vec<PreviewPeriod>, usize), ServiceError> {
    let def = &preview.definition;
    let fold = def.fold();
    // In the order they happened; results of one instant in an order fixed by their
    // keys, so both stores agree (a stable sort keeps a result's players in its order).
    facts.sort_by_key(|f| (f.1, f.2));
    let mut periods: BTreeMap<
        String,
        (
            podium_rules::board::definition::DefinedPeriod,
            HashMap<String, Folding>,
        ),
    > = BTreeMap::new();
    for (player, at_ms, _, value, tie_breaks) in facts {
        let Some(at) = DateTime::<Utc>::from_timestamp_millis(at_ms) else {
            continue;
        };
        let Ok(Some(period)) = def.schedule.period_at(at) else {
            continue;
        };
        let (_, entries) = periods
            .entry(period.id.clone())
            .or_insert_with(|| (period, HashMap::new()));
        match entries.get_mut(&player) {
            Some(e) => {
                let stored = fold.combine(Some(e.stored), value, &tie_breaks);
                if stored != e.stored {
                    e.stored = stored;
                    e.reached_at_ms = at_ms;
                }
            }
            None => {
                // BD-8: first come, while places are left.
                if def
                    .entry
                    .max_entrants
                    .is_some_and(|max| entries.len() >= max as usize)
                {
                    continue;
                }
                let stored = fold.combine(None, value, &tie_breaks);
                entries.insert(
                    player,
                    Folding {
                        stored,
                        reached_at_ms: at_ms,
                    },
                );
            }
        }
    }
    let table = (!def.prizes.is_empty()).then(|| RewardTable::of_prizes(&def.prizes));
    let paid_places = def.prizes.iter().map(|b| b.to as usize).max().unwrap_or(0);
    let mut out = Vec::new();
    // Oldest first by their instants (a local id repeats an hour when clocks go back).
    let mut periods: Vec<_> = periods.into_values().collect();
    periods.sort_by(|(a, _), (b, _)| (a.start, &a.id).cmp(&(b.start, &b.id)));
    let met = periods.len();
    for (period, entries) in periods.into_iter().take(MAX_PERIODS) {
        let mut listed: Vec<(String, Folding)> = entries.into_iter().collect();
        listed.sort_by(|(a, ea), (b, eb)| {
            podium_rules::leaderboard::listing_key(ea.stored, ea.reached_at_ms, a).cmp(
                &podium_rules::leaderboard::listing_key(eb.stored, eb.reached_at_ms, b),
            )
        });
        let (kept, left_out) = visible(store, listed, TOP.max(paid_places)).await?;
        let ranked: Vec<(String, i64)> = kept.into_iter().map(|(p, e)| (p, e.stored)).collect();
        let results = period_reward::results(table.as_ref(), period_reward::splits_ties(game), &ranked);
        let partial =
            period.start.is_none_or(|s| s < preview.from) || period.end.is_none_or(|e| e > preview.to);
        out.push(PreviewPeriod {
            partial,
            period: period.id,
            start: period.start,
            end: period.end,
            entries: ranked.len() as u64,
            left_out,
            prize_points: results.iter().map(|r| r.reward).sum(),
            prize_jokers: results.iter().map(|r| r.jokers).sum(),
            top: results
                .iter()
                .take(TOP)
                .map(|r| {
                    let columns = fold.columns(r.value);
                    PreviewLine {
                        rank: r.rank,
                        player_id: r.player_id.clone(),
                        value: columns.value,
                        tie_breaks: columns.tie_breaks,
                        prize_points: r.reward,
                        prize_jokers: r.jokers,
                    }
                })
                .collect(),
        });
    }
    Ok((out, met))
}

/// Players whose accounts are read at a time (one BatchGetItem).
const IN_FLIGHT: usize = 100;

/// `listed` (in listing order) without the players suspended or deleted now (OP-4,
/// GM-6), and how many were left out: the accounts are read from the top, 100 at a
/// time ([`crate::boards::suspended::accounts`]), until `needed` remain (the lines
/// listed and the places a prize pays); those below are kept unread (a board's ranks
/// there are not shown and pay nothing).
async fn visible<S: ItemStore + ?Sized>(
    store: &S,
    listed: Vec<(String, Folding)>,
    needed: usize,
) -> Result<(Vec<(String, Folding)>, u64), ServiceError> {
    let mut kept = Vec::with_capacity(listed.len());
    let mut left_out = 0;
    let mut rest = listed.into_iter().peekable();
    while kept.len() < needed && rest.peek().is_some() {
        let group: Vec<(String, Folding)> = rest.by_ref().take(IN_FLIGHT).collect();
        let ids: Vec<&str> = group.iter().map(|(p, _)| p.as_str()).collect();
        let accounts = crate::boards::suspended::accounts(store, &ids).await?;
        for (entry, account) in group.into_iter().zip(accounts) {
            if account == Account::Active {
                kept.push(entry);
            } else {
                left_out += 1;
            }
        }
    }
    kept.extend(rest);
    Ok((kept, left_out))
}

/// Removes preview `id`'s record (at `version`) and its pages.
async fn forget<S: ItemStore + ?Sized>(store: &S, id: &str, version: u64) -> Result<(), ServiceError> {
    loop {
        let pages: Vec<ItemKey> = store
            .query_items(&facts_pk(id), &SortKeyRange::All, true, 100, true)
            .await?
            .into_iter()
            .map(|(sk, _)| ItemKey::new(facts_pk(id), sk))
            .collect();
        if pages.is_empty() {
            break;
        }
        store.delete_items(&pages).await?;
    }
    store.delete_item_if(&key(id), version).await?;
    Ok(())
}

/// Carries every preview under way one step on within `budget` (the ticks call it);
/// removes those finished more than [`KEPT_FOR_HOURS`] ago. How many it moved.
/// Errors: the store's.
pub async fn carry_on<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<usize, ServiceError> {
    let mut moved = 0;
    let all: Vec<(Record, u64)> = crate::engine::listing::with_versions(store, PK).await?;
    for (record, version) in all {
        if let Some(f) = record.preview.finished_at {
            if now - f > Duration::hours(KEPT_FOR_HOURS) {
                forget(store, &record.preview.id, version).await?;
            }
            continue;
        }
        if moved > 0 && budget.expired() {
            break;
        }
        let id = record.preview.id.clone();
        match step(store, record.clone(), version, now, budget, (PAGE, MAX_FACTS)).await {
            Ok(_) => {}
            Err(e) if e.is_unavailable() => return Err(e),
            // A preview that cannot go on (an item the store refuses, a corrupt page)
            // is finished as stopped, naming why, rather than stop every tick.
            Err(e) => {
                tracing::warn!(preview = %id, error = %e, "a preview stopped");
                let mut stopped = record;
                stopped.preview.finished_at = Some(now);
                stopped.preview.updated_at = now;
                stopped.preview.stopped = Some(format!("it could not go on: {e}"));
                store.put_item_if(&key(&id), &body(&stopped), version).await?;
            }
        }
        moved += 1;
    }
    Ok(moved)
}

/// GM-6: removes every preview that lists `player_id` or is under way (its pages may
/// name them); a repeat begins it again. Errors: the store's.
pub async fn forget_player<S: ItemStore + ?Sized>(store: &S, player_id: &str) -> Result<(), ServiceError> {
    let all: Vec<(Record, u64)> = crate::engine::listing::with_versions(store, PK).await?;
    for (record, version) in all {
        let lists = record
            .preview
            .periods
            .iter()
            .any(|p| p.top.iter().any(|l| l.player_id == player_id));
        if lists || record.preview.finished_at.is_none() {
            forget(store, &record.preview.id, version).await?;
        }
    }
    Ok(())
}
