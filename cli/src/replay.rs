//! `podium replay FILE` and `podium score`: match records through the same core
//! and store as the score-match function.

use std::collections::BTreeMap;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};
use podium_rules::error::RuleError;
use podium_rules::record::policy::RecordPolicy;
use podium_rules::seega::record::MatchRecord;
use podium_service::engine::keyed::run_keyed;
use podium_service::games::incoming::{settle_incoming, Incoming, Outcome};
use podium_service::games::seega::preview;
use podium_service::ServiceError;
use podium_store::embedded::EmbeddedStore;
use podium_store::{SettleStore, Store};
use serde_json::json;

use crate::clock::Clock;
use crate::error::CliError;
use crate::lines::{self as bounded_lines, MAX_LINE_BYTES};

/// Contention (other writers on the same balances) is retried this often before a line counts as failed.
const TRANSIENT_ATTEMPTS: u32 = 5;

/// What a replay did, line by line.
#[derive(Debug, Default)]
pub struct Summary {
    pub lines: u64,
    pub scored: u64,
    pub void: u64,
    pub duplicates: u64,
    pub conflicts: u64,
    /// Refused records by reason (field pattern, indexes as `*`, and rule), with how many.
    pub refused: BTreeMap<String, u64>,
    pub failed: u64,
    /// Lines held for review: they broke a plausibility check (OP-2).
    pub held: u64,
    /// Every refused or conflicting line (`--refused FILE`): its number, kind, full
    /// reason and text; `None` when not asked for.
    pub refused_lines: Option<Vec<RefusedLine>>,
}

/// One line `--refused FILE` writes.
#[derive(Debug)]
pub struct RefusedLine {
    pub line: usize,
    /// `refused` (a rule refused it) or `conflict` (its id was used for other content).
    pub kind: &'static str,
    pub reason: String,
    /// The line as read; `None` for a line too long to be held.
    pub text: Option<Vec<u8>>,
}

/// `field` with every index in brackets replaced by `*`:
/// `players[0].actions[12]` → `players[*].actions[*]`.
pub fn field_pattern(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(open) = rest.find('[') {
        let (head, tail) = rest.split_at(open);
        out.push_str(head);
        match tail[1..].find(']') {
            Some(close) if close > 0 && tail[1..=close].bytes().all(|b| b.is_ascii_digit()) => {
                out.push_str("[*]");
                rest = &tail[close + 2..];
            }
            _ => {
                out.push('[');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

impl Summary {
    fn refused_total(&self) -> u64 {
        self.refused.values().sum()
    }
}

/// Records settled at once on DynamoDB: enough to keep it busy.
pub const IN_FLIGHT: u16 = 64;

/// Records the embedded store settles in one write transaction (one sync to disk).
pub const BATCH: usize = 1000;

/// Where a replay writes, and how.
pub enum Target<'a> {
    /// Up to `in_flight` records settled at once, each committed on its own (DynamoDB).
    Concurrent { store: &'a dyn Store, in_flight: usize },
    /// Records settled one after another in file order, [`BATCH`] to a write
    /// transaction (the embedded store's group commit).
    Batched(&'a EmbeddedStore),
}

/// One non-blank line: its number (from 1), its ordering keys, the parsed record, and
/// its text when refused lines are kept (`--refused`).
type Line = (usize, Vec<String>, Result<Incoming, RuleError>, Option<Vec<u8>>);

/// Scores every line of `file` and prints a summary; the outcome is the one of a
/// line-by-line replay in file order:
/// - [`Target::Concurrent`]: records that share a player or a match id are settled
///   one after the other in file order, others at the same time;
/// - [`Target::Batched`]: in file order, [`BATCH`] records to a write transaction,
///   each reported only once its transaction is durable.
///
/// Stops at the first line that cannot be settled (the store not answering after
/// retries, or failing): what was reported scored stays scored, no later line of the
/// same players was settled before it, and replaying the file again finishes the rest.
/// A replay that finished with lines refused or conflicting ends in
/// [`CliError::LinesRefused`] (exit status 3), the summary printed first.
pub async fn replay(
    target: Target<'_>,
    file: &Path,
    policy: &RecordPolicy,
    clock: &Clock,
    refused: Option<&Path>,
) -> Result<(), CliError> {
    // The refused lines' file is opened before anything is replayed: a path that cannot
    // be written, or that is the input itself, is refused with nothing done.
    let out = refused.map(|path| open_refused(path, file)).transpose()?;
    let (summary, elapsed, outcome) =
        replay_quiet(target, file, policy, clock, refused.is_some(), true).await;
    print_summary(&summary, file, elapsed);
    if let (Some(path), Some(out)) = (refused, out) {
        write_refused(path, out, summary.refused_lines.as_deref().unwrap_or_default())?;
        println!(
            "  every refused or conflicting line, with its number and full reason: {}",
            path.display()
        );
    }
    outcome?;
    let refused = summary.refused_total();
    if refused + summary.conflicts > 0 {
        return Err(CliError::LinesRefused {
            refused,
            conflicts: summary.conflicts,
        });
    }
    Ok(())
}

/// `--refused FILE` created (emptied) for writing, unless it is the `input` being
/// replayed (which would be lost).
fn open_refused(path: &Path, input: &Path) -> Result<std::fs::File, CliError> {
    let file_error = |source| CliError::File {
        path: path.display().to_string(),
        source,
    };
    if same_file::is_same_file(path, input).unwrap_or(false) {
        return Err(file_error(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "--refused names the file being replayed; choose another file",
        )));
    }
    std::fs::File::create(path).map_err(file_error)
}

/// Writes `lines` to `out` (the file `path`), one JSON object a line, in line order.
fn write_refused(path: &Path, out: std::fs::File, lines: &[RefusedLine]) -> Result<(), CliError> {
    use std::io::Write;
    let file_error = |source| CliError::File {
        path: path.display().to_string(),
        source,
    };
    let mut out = std::io::BufWriter::new(out);
    for l in lines {
        // The line as it was sent when it is JSON (one line, its keys in their order),
        // else as a string.
        let record = match &l.text {
            Some(text) if serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok() => {
                String::from_utf8_lossy(text.trim_ascii()).into_owned()
            }
            Some(text) => json!(String::from_utf8_lossy(text)).to_string(),
            None => "null".into(),
        };
        writeln!(
            out,
            "{{\"line\":{},\"kind\":{},\"reason\":{},\"record\":{record}}}",
            l.line,
            json!(l.kind),
            json!(l.reason)
        )
        .map_err(file_error)?;
    }
    out.flush().map_err(file_error)
}

/// [`replay`] without printing: the summary, the time it took, and how it ended;
/// `keep_refused` keeps every refused line (`--refused`), `progress` draws the bar.
pub async fn replay_quiet(
    target: Target<'_>,
    file: &Path,
    policy: &RecordPolicy,
    clock: &Clock,
    keep_refused: bool,
    progress: bool,
) -> (Summary, std::time::Duration, Result<(), CliError>) {
    let started = std::time::Instant::now();
    let mut summary = Summary {
        refused_lines: keep_refused.then(Vec::new),
        ..Summary::default()
    };
    let outcome = replay_into(target, file, policy, clock, progress, &mut summary).await;
    if let Some(lines) = summary.refused_lines.as_mut() {
        lines.sort_by_key(|l| l.line);
    }
    (summary, started.elapsed(), outcome)
}

async fn replay_into(
    target: Target<'_>,
    file: &Path,
    policy: &RecordPolicy,
    clock: &Clock,
    progress: bool,
    summary: &mut Summary,
) -> Result<(), CliError> {
    let open = || {
        std::fs::File::open(file).map_err(|source| CliError::File {
            path: file.display().to_string(),
            source,
        })
    };
    // Lines as bytes: a line that is not UTF-8 is a refused record, not the end of the replay.
    // The length is counted in a first pass only over a regular file (a pipe is read once).
    let regular = std::fs::metadata(file).map(|m| m.is_file()).unwrap_or(false);
    let total = if regular {
        Some(crate::lines::bounded(std::io::BufReader::new(open()?), MAX_LINE_BYTES).count() as u64)
    } else {
        None
    };
    let draw = if progress {
        indicatif::ProgressDrawTarget::stderr()
    } else {
        indicatif::ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(total, draw).with_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} {per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut read_error = None;
    // Lines held for review (OP-2) or because a player they name is suspended (OP-4).
    let held: HeldLines = Default::default();
    let lines = crate::lines::bounded(std::io::BufReader::new(open()?), MAX_LINE_BYTES)
        .enumerate()
        .map_while(|(n, line)| match line {
            Ok(line) => Some((n, line)),
            Err(e) => {
                read_error = Some(e);
                None
            }
        })
        .filter_map(|(n, line)| {
            let mut line = match line {
                bounded_lines::Line::Text(line) => line,
                // GM-5: refused whole, never held in memory.
                bounded_lines::Line::TooLong(bytes) => {
                    let refused = RuleError::new(
                        "record",
                        "GM-5",
                        format!("a line of {bytes} bytes, longer than the {MAX_LINE_BYTES}-byte limit"),
                    );
                    return Some((n + 1, Vec::new(), Err(refused), None));
                }
            };
            if n == 0 && line.starts_with(b"\xEF\xBB\xBF") {
                line.drain(..3); // a UTF-8 byte order mark
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                bar.inc(1);
                return None;
            }
            let record = Incoming::from_json(&line, clock.now(), policy);
            // OP-2: a line breaking a plausibility check is held, after the others.
            if let Ok(r) = &record {
                if !policy.plausibility.is_empty()
                    && policy.plausibility.check(&r.facts(clock.now(), policy)).is_some()
                {
                    held.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((n + 1, line));
                    bar.inc(1);
                    return None;
                }
            }
            let keys = record.as_ref().map(Incoming::ordering_keys).unwrap_or_default();
            // The text travels with the line: a refused line may be kept, and a line
            // naming a suspended player (OP-4) is held after the others.
            Some((n + 1, keys, record, Some(line)))
        });
    let holder: &dyn Store = match &target {
        Target::Concurrent { store, .. } => *store,
        Target::Batched(store) => *store,
    };
    let stopped = match target {
        Target::Concurrent { store, in_flight } => {
            replay_concurrent(store, lines, in_flight, policy, clock, summary, &bar, &held).await
        }
        Target::Batched(store) => replay_batched(store, lines, policy, clock, summary, &bar, &held).await,
    };
    let stopped = match stopped {
        None => {
            let mut held =
                std::mem::take(&mut *held.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
            held.sort_by_key(|(n, _)| *n);
            hold_lines(holder, held, policy, clock, summary).await
        }
        stopped => stopped,
    };
    bar.finish_and_clear();
    if let Some((line, e)) = stopped {
        let why = if e.is_unavailable() {
            "the store is not answering".to_string()
        } else {
            format!("it could not be settled ({e})")
        };
        eprintln!(
            "podium: stopped at line {line}: {why}; nothing of that line was counted, and \
             replaying the file again finishes it and any line after it"
        );
        return Err(CliError::Service(e));
    }
    if let Some(e) = read_error {
        return Err(e.into());
    }
    Ok(())
}

/// Lines to hold after the others: (line number, text).
type HeldLines = std::sync::Mutex<Vec<(usize, Vec<u8>)>>;

/// The first line (by number) the store could not take, and why.
type Stopped = Option<(usize, ServiceError)>;

/// Holds the lines that broke a plausibility check (OP-2) for review, each once.
async fn hold_lines(
    store: &dyn Store,
    held: Vec<(usize, Vec<u8>)>,
    policy: &RecordPolicy,
    clock: &Clock,
    summary: &mut Summary,
) -> Stopped {
    for (n, line) in held {
        let Ok(record) = Incoming::from_json(&line, clock.now(), policy) else {
            continue;
        };
        let delivery = format!("replay:{:016x}", rand::random::<u64>());
        summary.lines += 1;
        match podium_service::moderation::review::accept(
            store,
            &line,
            &record,
            clock.now(),
            policy,
            &delivery,
        )
        .await
        {
            Ok(podium_service::moderation::review::Intake::Held { .. }) => summary.held += 1,
            Ok(podium_service::moderation::review::Intake::Settled(o)) => tally(summary, n, Ok(o), None),
            Err(e) if e.is_permanent() => tally(summary, n, Err(e), None),
            Err(e) => return Some((n, e)),
        }
    }
    None
}

#[allow(clippy::too_many_arguments)]
async fn replay_concurrent(
    store: &dyn Store,
    lines: impl Iterator<Item = Line>,
    in_flight: usize,
    policy: &RecordPolicy,
    clock: &Clock,
    summary: &mut Summary,
    bar: &ProgressBar,
    suspended: &HeldLines,
) -> Stopped {
    let mut stopped: Stopped = None;
    run_keyed(
        lines.map(|(n, keys, record, text)| (keys, (n, record, text))),
        in_flight,
        |(n, record, text)| async move { (n, score_line(store, record, policy, clock).await, text) },
        |_, (n, outcome, text)| match outcome {
            // OP-4: held (after the others), not lost; so is a value outside a
            // defined board's score range (BD-7), held for review.
            Err(ServiceError::Suspended { .. } | ServiceError::OutOfRange { .. }) => {
                bar.inc(1);
                if let Some(line) = text {
                    suspended
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((n, line));
                }
                ControlFlow::Continue(())
            }
            // A line that could not be settled stops the replay: later lines of its
            // players must not be settled before it.
            Err(e) if !e.is_permanent() => {
                if stopped.as_ref().is_none_or(|(at, _)| n < *at) {
                    stopped = Some((n, e));
                }
                ControlFlow::Break(())
            }
            outcome => {
                bar.inc(1);
                summary.lines += 1;
                tally(summary, n, outcome, text);
                ControlFlow::Continue(())
            }
        },
    )
    .await;
    stopped
}

async fn replay_batched(
    store: &EmbeddedStore,
    mut lines: impl Iterator<Item = Line>,
    policy: &RecordPolicy,
    clock: &Clock,
    summary: &mut Summary,
    bar: &ProgressBar,
    suspended: &HeldLines,
) -> Stopped {
    loop {
        let chunk: Vec<Line> = lines.by_ref().take(BATCH).collect();
        let first = match chunk.first() {
            Some((n, _, _, _)) => *n,
            None => return None, // the whole file went through
        };
        let batch = match store.begin_batch() {
            Ok(batch) => batch,
            Err(e) => return Some((first, e.into())),
        };
        let mut outcomes = Vec::with_capacity(chunk.len());
        for (n, _, record, text) in chunk {
            match score_line(&batch, record, policy, clock).await {
                // OP-4, BD-7: nothing of it was written; held after the others.
                Err(ServiceError::Suspended { .. } | ServiceError::OutOfRange { .. }) => {
                    if let Some(line) = text {
                        suspended
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .push((n, line));
                    }
                    bar.inc(1);
                }
                // The transaction may hold part of this line: drop the whole batch.
                Err(e) if !e.is_permanent() => return Some((first.min(n), e)),
                outcome => outcomes.push((n, outcome, text)),
            }
        }
        if let Err(e) = batch.finish() {
            return Some((first, e.into()));
        }
        bar.inc(outcomes.len() as u64);
        for (n, outcome, text) in outcomes {
            summary.lines += 1;
            tally(summary, n, outcome, text);
        }
    }
}

fn print_summary(summary: &Summary, file: &Path, elapsed: std::time::Duration) {
    println!(
        "replayed {} records from {} in {:.2?}",
        summary.lines,
        file.display(),
        elapsed
    );
    println!("  scored      {}", summary.scored);
    println!("  void        {}", summary.void);
    println!("  duplicates  {}", summary.duplicates);
    println!("  conflicts   {}", summary.conflicts);
    if summary.held > 0 {
        println!(
            "  held        {} (a plausibility check, OP-2, or a score range, BD-7, in the review queue; or a suspended player, OP-4, until restored)",
            summary.held
        );
    }
    println!("  refused     {}", summary.refused_total());
    for (reason, n) in &summary.refused {
        println!("    {n:>5}  {reason}");
    }
    if summary.refused_total() + summary.conflicts > 0 && summary.refused_lines.is_none() {
        println!("  (--refused FILE writes each refused line with its number and full reason)");
    }
    if summary.failed > 0 {
        println!(
            "  FAILED      {} (store errors; replay again to finish them)",
            summary.failed
        );
    }
}

/// Scores one record, retrying while other writers contend; a store that does not
/// answer ends it at once (the store's own timeouts and retries already ran). Every
/// retry is the same delivery, so a write whose reply was lost counts as scored.
async fn score_line<S: SettleStore + ?Sized>(
    store: &S,
    record: Result<Incoming, RuleError>,
    policy: &RecordPolicy,
    clock: &Clock,
) -> Result<Outcome, ServiceError> {
    let record = record?;
    let delivery = format!("replay:{:016x}", rand::random::<u64>());
    let mut attempt = 1;
    loop {
        match settle_incoming(store, &record, clock.now(), policy, &delivery).await {
            Err(ServiceError::Contended { .. }) if attempt < TRANSIENT_ATTEMPTS => attempt += 1,
            other => return other,
        }
    }
}

/// Counts line `n`'s outcome; keeps the line (`text`) when it was refused and
/// refused lines are kept.
fn tally(summary: &mut Summary, n: usize, outcome: Result<Outcome, ServiceError>, text: Option<Vec<u8>>) {
    let keep = |kind: &'static str, reason: String| {
        if let Some(lines) = summary.refused_lines.as_mut() {
            lines.push(RefusedLine {
                line: n,
                kind,
                reason,
                text,
            });
        }
    };
    match outcome {
        Ok(Outcome::Void) => summary.void += 1,
        Ok(Outcome::Applied) => summary.scored += 1,
        Ok(Outcome::Duplicate) => summary.duplicates += 1,
        Err(e @ ServiceError::Conflict { .. }) => {
            keep("conflict", e.to_string());
            summary.conflicts += 1
        }
        Err(ServiceError::Invalid(e)) => {
            keep("refused", e.to_string());
            *summary
                .refused
                .entry(format!("{} ({})", field_pattern(&e.field), e.rule))
                .or_default() += 1
        }
        Err(e) => {
            tracing::error!(error = %e, "record failed");
            summary.failed += 1;
        }
    }
}

/// `podium score`: one record from stdin, scored against the store's current
/// balances, printed as JSON; nothing is written.
pub async fn dry_run(store: &dyn Store, policy: &RecordPolicy, clock: &Clock) -> Result<(), CliError> {
    let mut input = Vec::new();
    // At most one byte past the limit is read: a longer record is refused, not held.
    std::io::stdin()
        .lock()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_to_end(&mut input)?;
    if input.len() > MAX_LINE_BYTES {
        return Err(CliError::Refused(
            RuleError::new(
                "record",
                "GM-5",
                format!("longer than the {MAX_LINE_BYTES}-byte limit"),
            )
            .into(),
        ));
    }
    let record = MatchRecord::from_json(&input).map_err(|e| CliError::Refused(e.into()))?;
    let now = clock.now();
    let valid = record
        .validate_with(now, policy)
        .map_err(|e| CliError::Refused(e.into()))?;
    let settled = podium_service::games::seega::settled_before(store, &valid)
        .await
        .map_err(|e| match e {
            e @ ServiceError::Conflict { .. } => CliError::Refused(e),
            e => e.into(),
        })?;
    if let Some(result) = settled {
        let out = json!({"dry_run": true, "already_scored": true, "result": result});
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(());
    }
    let ids = [
        valid.players[0].player_id.as_str(),
        valid.players[1].player_id.as_str(),
    ];
    // A deleted player's records are refused, as scoring would (GM-6).
    for (i, id) in ids.iter().enumerate() {
        if podium_service::operators::deletion::is_deleted(store, id).await? {
            return Err(CliError::Refused(
                podium_service::engine::source::deleted_player_refusal(format!("players[{i}].player_id")),
            ));
        }
    }
    let balances = store.get_balances(valid.game, &ids).await?;
    let result =
        preview(&record, [balances[0].points, balances[1].points], now, policy).map_err(CliError::Refused)?;
    let out = json!({"dry_run": true, "already_scored": false, "result": result});
    println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    Ok(())
}
