//! Scoring a finished match exactly once (GM-3, GM-4, SG-7).
//!
//! 1. Validate the record (GM-5) and score it (SG-1 … SG-6).
//! 2. If a result is stored for the match id: the same content hash returns it (a
//!    retry or duplicate delivery); another hash is a conflict.
//! 3. Read both balances (strongly consistent), apply the floor (SG-7), and commit
//!    the result, both balances (conditional on their versions) and both ledger
//!    entries in one atomic write.
//! 4. If the commit finds the match already stored, go to 2; if a balance moved
//!    (another match of the same player), wait a little and go to 2 again.
//!
//! A commit whose reply is lost (a timeout after DynamoDB applied it) is sent again
//! unchanged: DynamoDB recognises the repeat by its ClientRequestToken and answers
//! success. Each call writes its own attempt id with the result, so a call that finds
//! its own write (the resend came too late) still reports the match as applied by it,
//! and a duplicate delivery never does.

use std::time::Duration;

use chrono::{DateTime, Utc};

use podium_rules::record::{MatchRecord, RecordPolicy, ValidMatch};
use podium_rules::result::{settle, MatchResult};
use podium_rules::seega::{score, Scoring};
use podium_store::{BalanceWrite, CommitOutcome, MatchCommit, ScoreStore, StoredMatch};
use rand::Rng;

use crate::error::ServiceError;

/// How often a commit is retried while other matches move the same balances.
pub const MAX_ATTEMPTS: u32 = 25;

/// How often one commit is sent while its outcome is unknown (store unavailable).
pub const MAX_SENDS: u32 = 3;

/// How scoring a record ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scored {
    /// This call applied the match.
    Applied(MatchResult),
    /// The match was already applied with the same content; this is its first result.
    Duplicate(MatchResult),
}

impl Scored {
    /// The match result, however it came.
    pub fn result(&self) -> &MatchResult {
        match self {
            Scored::Applied(r) | Scored::Duplicate(r) => r,
        }
    }
}

/// Validates (against the server clock `now`, under `policy`), scores and applies
/// one record exactly once.
///
/// Errors: [`ServiceError::Invalid`] (names field and rule; nothing written),
/// [`ServiceError::Conflict`] (same id, other content; nothing written), and the
/// transient [`ServiceError::Store`] / [`ServiceError::Contended`].
pub async fn score_match<S: ScoreStore + ?Sized>(
    store: &S,
    record: &MatchRecord,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Result<Scored, ServiceError> {
    let m = record.validate_with(now, policy)?;
    let scoring = score(&m);
    let attempt = format!("{:016x}", rand::random::<u64>());
    for n in 0..MAX_ATTEMPTS {
        if let Some(stored) = store.get_match(&m.match_id).await? {
            return same_or_conflict(stored, &m, &attempt);
        }
        let commit = plan(store, &m, &scoring, &attempt).await?;
        match send(store, &commit).await? {
            CommitOutcome::Committed => return Ok(Scored::Applied(commit.result)),
            CommitOutcome::MatchExists => continue,
            CommitOutcome::Contended => backoff(n).await,
        }
    }
    Err(ServiceError::Contended {
        attempts: MAX_ATTEMPTS,
    })
}

/// Sends `commit`, and sends it again unchanged while its outcome is unknown.
async fn send<S: ScoreStore + ?Sized>(
    store: &S,
    commit: &MatchCommit,
) -> Result<CommitOutcome, ServiceError> {
    let mut sent = 0;
    loop {
        sent += 1;
        match store.commit_match(commit).await {
            Ok(outcome) => return Ok(outcome),
            Err(e) if e.is_transient() && sent < MAX_SENDS => {
                tracing::warn!(error = %e, "commit outcome unknown; sending it again");
                backoff(sent).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Dry run: the result a record would have against the given balances (points, in
/// the record's player order), without touching any store.
pub fn preview(
    record: &MatchRecord,
    balances: [i64; 2],
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Result<MatchResult, ServiceError> {
    let m = record.validate_with(now, policy)?;
    Ok(settle(&m, &score(&m), balances).result)
}

fn same_or_conflict(stored: StoredMatch, m: &ValidMatch, attempt: &str) -> Result<Scored, ServiceError> {
    if stored.content_hash != m.content_hash {
        return Err(ServiceError::Conflict {
            match_id: m.match_id.clone(),
        });
    }
    if stored.attempt.as_deref() == Some(attempt) {
        // This call's own write, whose reply was lost.
        Ok(Scored::Applied(stored.result))
    } else {
        Ok(Scored::Duplicate(stored.result))
    }
}

async fn plan<S: ScoreStore + ?Sized>(
    store: &S,
    m: &ValidMatch,
    scoring: &Scoring,
    attempt: &str,
) -> Result<MatchCommit, ServiceError> {
    if let Scoring::Void(_) = scoring {
        let s = settle(m, scoring, [0, 0]);
        return Ok(MatchCommit {
            content_hash: m.content_hash.clone(),
            attempt: attempt.to_string(),
            result: s.result,
            balances: Vec::new(),
            ledger: Vec::new(),
        });
    }
    let ids = [m.players[0].player_id.as_str(), m.players[1].player_id.as_str()];
    let current = store.get_balances(m.game, &ids).await?;
    let before = [current[0].points, current[1].points];
    let s = settle(m, scoring, before);
    let ended_ms = m.ended_at.timestamp_millis();
    let clock_ms = Utc::now().timestamp_millis();
    let balances = s
        .balances
        .iter()
        .zip(&current)
        .map(|(change, cur)| {
            // LB-2: the value was reached when it changed; an unchanged value keeps its instant.
            let reached_at_ms = if cur.version > 0 && change.after == cur.points {
                cur.reached_at_ms
            } else {
                ended_ms
            };
            BalanceWrite {
                player_id: change.player_id.clone(),
                expected_version: cur.version,
                points: change.after,
                reached_at_ms,
                history: cur.history_after(change.after, reached_at_ms, clock_ms),
            }
        })
        .collect();
    Ok(MatchCommit {
        content_hash: m.content_hash.clone(),
        attempt: attempt.to_string(),
        result: s.result,
        balances,
        ledger: s.ledger,
    })
}

/// Full jitter, growing with the attempt: 0 … min(5 ms × 2^attempt, 200 ms).
async fn backoff(attempt: u32) {
    let cap_ms = (5u64 << attempt.min(6)).min(200);
    let ms = rand::rng().random_range(0..=cap_ms);
    tokio::time::sleep(Duration::from_millis(ms)).await;
}
