//! A history checker for scoring runs (GM-3, GM-4, GM-5, SG-7): every delivery's
//! outcome and every balance read are recorded while a run goes on (faults, retries,
//! concurrent batches), then the final state and every read are checked against a
//! sequential model built from the rules crate alone.
//!
//! What is checked ([`check`]):
//! 1. every delivery ended (applied, duplicate or refused); none is still retrying;
//! 2. a line the rules refuse (GM-5) was refused with the rules' own reason, naming
//!    field and rule, and nothing is stored under its match id (unless a valid line
//!    has the same id);
//! 3. per match id, the stored content is one the file sent; the deliveries of that
//!    content are one `applied` and the rest `duplicate` (GM-3); deliveries of other
//!    content under the same id were refused as conflicts (GM-3);
//! 4. each stored result is exactly what the rules compute for that match from the
//!    balances it says it started from (SG-1 … SG-7), so a result built on a stale
//!    balance or scored twice differs from the model;
//! 5. per player, the balance changes of the stored results form one chain from 0 to
//!    the stored balance, each used once (a lost update leaves two changes from the
//!    same balance, a doubled one an extra change: either breaks the chain, unless
//!    their changes happen to cancel out); the
//!    ledger holds exactly one entry per scored match of the player, equal to the
//!    result's line, and sums to the balance (GM-4);
//! 6. every balance read during the run is a balance the player's chain passes through.
//!
//! What it does not prove: that one order of all matches fits every player's chain
//! at once (each player's chain is checked alone; the commit's conditions on both
//! balances are what make the matches serial); a lost update whose changes cancel out
//! (the final state then equals a serial one: nothing observable is wrong); the order
//! of one reader's reads; a repeat of a void match or of one that applied 0 points on
//! the same delivery (the source record's conditional write is what prevents it).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use podium_rules::game::Game;
use podium_rules::record::policy::RecordPolicy;
use podium_rules::seega::record::ValidMatch;
use podium_rules::seega::result::{settle, MatchResult, MatchStatus};
use podium_rules::seega::score;
use podium_service::games::incoming::Incoming;
use podium_service::games::seega::MATCH;
use podium_service::ServiceError;
use podium_store::{SourceKey, Store};

/// The longest refusal reason a dead letter carries (score-match's limit).
const MAX_REASON_CHARS: usize = 1_000;

/// What the model says of one line of the file.
#[derive(Debug, Clone)]
pub enum LineModel {
    /// The rules refuse it, with this reason (`field (rule): message`); the match id
    /// it names, if it names one.
    Refused(String, Option<String>),
    /// A valid Seega match.
    Valid(Box<ValidMatch>),
}

/// The model of a file: each line's fate under the rules, at the server clock `now`.
pub fn model(lines: &[String], now: DateTime<Utc>, policy: &RecordPolicy) -> Vec<LineModel> {
    lines
        .iter()
        .map(|line| {
            let id = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("match_id").and_then(|m| m.as_str()).map(str::to_string));
            let refused = |e: podium_rules::RuleError| {
                LineModel::Refused(
                    podium_rules::error::cut(&ServiceError::Invalid(e).to_string(), MAX_REASON_CHARS),
                    id.clone(),
                )
            };
            match Incoming::from_json(line.as_bytes(), now, policy) {
                Err(e) => refused(e),
                Ok(Incoming::Seega(record)) => match record.validate_with(now, policy) {
                    Ok(m) => LineModel::Valid(Box::new(m)),
                    Err(e) => refused(e),
                },
                Ok(other) => LineModel::Refused(format!("not a Seega record: {}", other.kind()), id.clone()),
            }
        })
        .collect()
}

/// How one delivery attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivered {
    Applied,
    Duplicate,
    /// Refused for good, with this reason.
    Refused(String),
    /// Left for redelivery.
    Retry,
}

/// The recorded history of a run: each line's delivery attempts, and balance reads.
#[derive(Debug, Default)]
pub struct History {
    attempts: Mutex<Vec<Vec<Delivered>>>,
    reads: Mutex<Vec<(String, i64)>>,
}

impl History {
    /// A history for a file of `lines` lines.
    pub fn new(lines: usize) -> Self {
        History {
            attempts: Mutex::new(vec![Vec::new(); lines]),
            reads: Mutex::default(),
        }
    }

    /// Line `line`'s delivery ended `outcome`.
    pub fn delivered(&self, line: usize, outcome: Delivered) {
        let mut a = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = a.get_mut(line) {
            v.push(outcome);
        }
    }

    /// A read saw `player`'s Seega balance at `points` (0: no balance yet).
    pub fn read(&self, player: &str, points: i64) {
        self.reads
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((player.to_string(), points));
    }

    /// Delivery attempts of line `line` so far.
    pub fn attempts_of(&self, line: usize) -> usize {
        self.attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(line)
            .map_or(0, Vec::len)
    }

    /// Delivery attempts in all.
    pub fn deliveries(&self) -> usize {
        self.attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(Vec::len)
            .sum()
    }
}

/// What a passing check counted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    pub lines: usize,
    pub deliveries: usize,
    pub applied: usize,
    pub duplicates: usize,
    pub refused: usize,
    pub conflicts: usize,
    pub void: usize,
    pub scored: usize,
    pub players: usize,
    pub ledger_entries: usize,
    pub reads: usize,
}

/// Checks `history` of a run of `lines` (modelled by [`model`]) against the final
/// state of `store`. Errors: every violation found, one line each.
pub async fn check<S: Store + ?Sized>(
    store: &S,
    models: &[LineModel],
    history: &History,
) -> Result<Report, Vec<String>> {
    let mut bad = Vec::new();
    let attempts = history.attempts.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut report = Report {
        lines: models.len(),
        deliveries: attempts.iter().map(Vec::len).sum(),
        ..Report::default()
    };
    let finals: Vec<Option<&Delivered>> = attempts.iter().map(|a| a.last()).collect();

    // 1, 2: every delivery ended; refusals are the rules' own.
    let mut by_id: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, m) in models.iter().enumerate() {
        match (m, finals[i]) {
            (_, None | Some(Delivered::Retry)) => bad.push(format!(
                "line {i}: lost, still retrying after {} attempts",
                attempts[i].len()
            )),
            (LineModel::Refused(reason, _), Some(Delivered::Refused(got))) => {
                report.refused += 1;
                if got != reason {
                    bad.push(format!("line {i}: refused as `{got}`, the rules say `{reason}`"));
                }
            }
            (LineModel::Refused(reason, _), Some(other)) => bad.push(format!(
                "line {i}: the rules refuse it (`{reason}`) but it ended {other:?}"
            )),
            (LineModel::Valid(v), _) => by_id.entry(v.match_id.as_str()).or_default().push(i),
        }
    }

    // 2: a refused line under an id no valid line has: nothing stored under it.
    for (i, m) in models.iter().enumerate() {
        if let LineModel::Refused(_, Some(id)) = m {
            if by_id.contains_key(id.as_str()) {
                continue;
            }
            match store.get_source(&SourceKey::new(MATCH, id.as_str())).await {
                Ok(None) => {}
                Ok(Some(_)) => bad.push(format!("line {i}: refused, yet match {id} is stored")),
                Err(e) => bad.push(format!("line {i}: read failed: {e}")),
            }
        }
    }

    // 3, 4: per match id, one applied delivery of the stored content; the result is the model's.
    let mut changes: HashMap<String, Vec<(i64, i64, String)>> = HashMap::new();
    let mut scored_lines: HashMap<String, BTreeMap<String, (i64, i64, i64)>> = HashMap::new();
    for (id, lines) in &by_id {
        let stored = match store.get_source(&SourceKey::new(MATCH, *id)).await {
            Ok(Some(s)) => s,
            Ok(None) => {
                bad.push(format!(
                    "match {id}: lines {lines:?} were valid but nothing is stored"
                ));
                continue;
            }
            Err(e) => {
                bad.push(format!("match {id}: read failed: {e}"));
                continue;
            }
        };
        let valid = |i: usize| match &models[i] {
            LineModel::Valid(v) => Some(v.as_ref()),
            LineModel::Refused(..) => None,
        };
        let Some(committed) = lines
            .iter()
            .filter_map(|i| valid(*i))
            .find(|v| v.content_hash == stored.content_hash)
        else {
            bad.push(format!(
                "match {id}: stored content {} is none the file sent",
                stored.content_hash
            ));
            continue;
        };
        let mut applied = 0;
        for &i in lines {
            let same = valid(i).is_some_and(|v| v.content_hash == stored.content_hash);
            match (same, finals[i]) {
                (true, Some(Delivered::Applied)) => applied += 1,
                (true, Some(Delivered::Duplicate)) => report.duplicates += 1,
                (false, Some(Delivered::Refused(reason))) if reason.contains("(GM-3): conflict") => {
                    report.conflicts += 1
                }
                (_, Some(Delivered::Retry) | None) => {} // reported above
                (same, Some(other)) => bad.push(format!(
                    "match {id}, line {i} ({} content): ended {other:?}",
                    if same { "the stored" } else { "other" }
                )),
            }
        }
        if applied != 1 {
            bad.push(format!(
                "match {id}: applied {applied} times (GM-3: exactly once)"
            ));
        }
        report.applied += applied;
        let result: MatchResult = match serde_json::from_str(&stored.result) {
            Ok(r) => r,
            Err(e) => {
                bad.push(format!("match {id}: stored result unreadable: {e}"));
                continue;
            }
        };
        let before: Vec<i64> = result
            .players
            .iter()
            .map(|p| p.balance_after.unwrap_or(0) - p.applied)
            .collect();
        let [a, b] = [
            before.first().copied().unwrap_or(0),
            before.get(1).copied().unwrap_or(0),
        ];
        let model = settle(committed, &score(committed), [a, b]).result;
        if model != result {
            bad.push(format!("match {id}: stored result differs from the rules' from balances {before:?}:\n  stored {result:?}\n  model  {model:?}"));
        }
        match result.status {
            MatchStatus::Void => report.void += 1,
            MatchStatus::Scored => {
                report.scored += 1;
                for (p, from) in result.players.iter().zip(&before) {
                    let after = p.balance_after.unwrap_or(0);
                    changes
                        .entry(p.player_id.clone())
                        .or_default()
                        .push((*from, after, id.to_string()));
                    scored_lines
                        .entry(p.player_id.clone())
                        .or_default()
                        .insert(id.to_string(), (p.points, p.applied, after));
                }
            }
        }
    }

    // 5: per player, one chain of balance changes; ledger and balance agree with it.
    let mut players: BTreeSet<String> = changes.keys().cloned().collect();
    let reads = history.reads.lock().unwrap_or_else(|e| e.into_inner()).clone();
    players.extend(reads.iter().map(|(p, _)| p.clone()));
    report.players = changes.len();
    for player in &players {
        let edges = changes.get(player).cloned().unwrap_or_default();
        let balance = match store.get_balance(Game::Seega, player).await {
            Ok(b) => b.map_or(0, |b| b.points),
            Err(e) => {
                bad.push(format!("{player}: balance read failed: {e}"));
                continue;
            }
        };
        if let Err(e) = one_chain(&edges, balance) {
            bad.push(format!("{player}: {e}"));
        }
        let ledger = match store.ledger_entries(Game::Seega, player).await {
            Ok(l) => l,
            Err(e) => {
                bad.push(format!("{player}: ledger read failed: {e}"));
                continue;
            }
        };
        report.ledger_entries += ledger.len();
        let expected = scored_lines.get(player).cloned().unwrap_or_default();
        let mut seen = HashSet::new();
        for e in &ledger {
            if e.source != MATCH || !seen.insert(e.source_id.clone()) {
                bad.push(format!(
                    "{player}: ledger entry {} {} twice or foreign",
                    e.source, e.source_id
                ));
                continue;
            }
            match expected.get(&e.source_id) {
                Some(&(nominal, applied, after))
                    if (e.nominal, e.applied, e.balance_after) == (nominal, applied, after) => {}
                Some(line) => bad.push(format!(
                    "{player}: ledger entry {} is {:?}, its result says {line:?}",
                    e.source_id,
                    (e.nominal, e.applied, e.balance_after)
                )),
                None => bad.push(format!(
                    "{player}: ledger entry {} has no scored result",
                    e.source_id
                )),
            }
        }
        for id in expected.keys() {
            if !seen.contains(id) {
                bad.push(format!("{player}: no ledger entry for scored match {id}"));
            }
        }
        let sum: i64 = ledger.iter().map(|e| e.applied).sum();
        if sum != balance {
            bad.push(format!(
                "{player}: ledger sums to {sum}, balance is {balance} (GM-4)"
            ));
        }
    }

    // 6: every read is a balance the player's chain passes through.
    let mut states: HashMap<&str, HashSet<i64>> = HashMap::new();
    for (player, edges) in &changes {
        let s = states.entry(player.as_str()).or_default();
        s.insert(0);
        s.extend(edges.iter().map(|(_, to, _)| *to));
    }
    for (player, points) in &reads {
        let known = states.get(player.as_str()).is_some_and(|s| s.contains(points)) || *points == 0;
        if !known {
            bad.push(format!(
                "{player}: a read saw {points} points, a balance the player never had"
            ));
        }
    }
    report.reads = reads.len();

    if bad.is_empty() {
        Ok(report)
    } else {
        Err(bad)
    }
}

/// Whether `edges` (balance before → after, match id) form one path from 0 that uses
/// each edge once and ends at `end`: an Eulerian path, by degrees and reachability.
pub fn one_chain(edges: &[(i64, i64, String)], end: i64) -> Result<(), String> {
    if edges.is_empty() {
        return if end == 0 {
            Ok(())
        } else {
            Err(format!("balance {end} without any scored match"))
        };
    }
    let mut net: HashMap<i64, i64> = HashMap::new();
    for (from, to, _) in edges {
        *net.entry(*from).or_default() += 1;
        *net.entry(*to).or_default() -= 1;
    }
    for (node, d) in &net {
        let want = i64::from(*node == 0 && end != 0) - i64::from(*node == end && end != 0);
        if *d != want {
            let from: Vec<&str> = edges
                .iter()
                .filter(|e| e.0 == *node)
                .map(|e| e.2.as_str())
                .collect();
            return Err(format!(
                "balance changes do not form one chain from 0 to {end}: at {node} points, {d:+} more changes leave than arrive (matches leaving it: {from:?}); a lost or doubled update"
            ));
        }
    }
    let mut next: HashMap<i64, Vec<i64>> = HashMap::new();
    for (from, to, _) in edges {
        next.entry(*from).or_default().push(*to);
    }
    let mut seen = HashSet::from([0i64]);
    let mut todo = vec![0i64];
    while let Some(n) = todo.pop() {
        for m in next.get(&n).into_iter().flatten() {
            if seen.insert(*m) {
                todo.push(*m);
            }
        }
    }
    match edges.iter().find(|(from, _, _)| !seen.contains(from)) {
        Some((from, _, id)) => Err(format!(
            "match {id} starts from {from} points, a balance never reached from 0"
        )),
        None => Ok(()),
    }
}
