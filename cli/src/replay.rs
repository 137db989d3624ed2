//! `podium replay FILE` and `podium score`: match records through the same core
//! and store as the score-match function.

use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};
use podium_rules::record::{MatchRecord, RecordPolicy};
use podium_rules::seega::result::MatchStatus;
use podium_service::score::{preview, score_delivery, Scored};
use podium_service::ServiceError;
use podium_store::Store;
use serde_json::json;

use crate::error::CliError;

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
    /// Refused records by reason (field and rule), with how many.
    pub refused: BTreeMap<String, u64>,
    pub failed: u64,
}

impl Summary {
    fn refused_total(&self) -> u64 {
        self.refused.values().sum()
    }
}

/// Scores every line of `file` in order and prints a summary. Stops at the first line
/// the store cannot take while it does not answer (after retries): what was scored
/// stays scored, and replaying the file again finishes the rest.
pub async fn replay(store: &dyn Store, file: &Path, policy: &RecordPolicy) -> Result<(), CliError> {
    let open = || {
        std::fs::File::open(file).map_err(|source| CliError::File {
            path: file.display().to_string(),
            source,
        })
    };
    // Lines as bytes: a line that is not UTF-8 is a refused record, not the end of the replay.
    let total = std::io::BufReader::new(open()?).split(b'\n').count() as u64;
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} {per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let mut summary = Summary::default();
    for (n, line) in std::io::BufReader::new(open()?).split(b'\n').enumerate() {
        let mut line = line?;
        if n == 0 && line.starts_with(b"\xEF\xBB\xBF") {
            line.drain(..3); // a UTF-8 byte order mark
        }
        bar.inc(1);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        summary.lines += 1;
        match score_line(store, &line, policy).await {
            Err(e) if e.is_unavailable() => {
                bar.finish_and_clear();
                print_summary(&summary, file, started.elapsed());
                eprintln!(
                    "podium: stopped at line {}: the store is not answering; nothing of that line was \
                     counted, and replaying the file again finishes it",
                    n + 1
                );
                return Err(CliError::Service(e));
            }
            outcome => tally(&mut summary, outcome),
        }
    }
    bar.finish_and_clear();
    print_summary(&summary, file, started.elapsed());
    Ok(())
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
    println!("  refused     {}", summary.refused_total());
    for (reason, n) in &summary.refused {
        println!("    {n:>5}  {reason}");
    }
    if summary.failed > 0 {
        println!(
            "  FAILED      {} (store errors; replay again to finish them)",
            summary.failed
        );
    }
}

/// Scores one line, retrying while other writers contend; a store that does not
/// answer ends it at once (the store's own timeouts and retries already ran). Every
/// retry is the same delivery, so a write whose reply was lost counts as scored.
async fn score_line(store: &dyn Store, line: &[u8], policy: &RecordPolicy) -> Result<Scored, ServiceError> {
    let record = MatchRecord::from_json(line)?;
    let delivery = format!("replay:{:016x}", rand::random::<u64>());
    let mut attempt = 1;
    loop {
        match score_delivery(store, &record, chrono::Utc::now(), policy, &delivery).await {
            Err(ServiceError::Contended { .. }) if attempt < TRANSIENT_ATTEMPTS => attempt += 1,
            other => return other,
        }
    }
}

fn tally(summary: &mut Summary, outcome: Result<Scored, ServiceError>) {
    match outcome {
        Ok(Scored::Applied(r)) if r.status == MatchStatus::Void => summary.void += 1,
        Ok(Scored::Applied(_)) => summary.scored += 1,
        Ok(Scored::Duplicate(_)) => summary.duplicates += 1,
        Err(ServiceError::Conflict { .. }) => summary.conflicts += 1,
        Err(ServiceError::Invalid(e)) => {
            *summary
                .refused
                .entry(format!("{} ({})", e.field, e.rule))
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
pub async fn dry_run(store: &dyn Store, policy: &RecordPolicy) -> Result<(), CliError> {
    let mut input = Vec::new();
    std::io::stdin().lock().read_to_end(&mut input)?;
    let record = MatchRecord::from_json(&input).map_err(|e| CliError::Refused(e.into()))?;
    let now = chrono::Utc::now();
    let valid = record
        .validate_with(now, policy)
        .map_err(|e| CliError::Refused(e.into()))?;
    if let Some((content_hash, result)) = podium_service::score::stored_match(store, &valid.match_id).await? {
        if content_hash != valid.content_hash {
            return Err(CliError::Refused(ServiceError::Conflict {
                field: "match_id",
                id: valid.match_id,
            }));
        }
        let out = json!({"dry_run": true, "already_scored": true, "result": result});
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(());
    }
    let ids = [
        valid.players[0].player_id.as_str(),
        valid.players[1].player_id.as_str(),
    ];
    let balances = store.get_balances(valid.game, &ids).await?;
    let result =
        preview(&record, [balances[0].points, balances[1].points], now, policy).map_err(CliError::Refused)?;
    let out = json!({"dry_run": true, "already_scored": false, "result": result});
    println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    Ok(())
}
