//! Scoring a finished match exactly once (GM-3, GM-4, SG-7): the record is
//! validated (GM-5) and scored (SG-1 … SG-6), then settled against both players'
//! balances through the one commit path ([`crate::engine::settle`]): the result, both
//! balances and both ledger entries in one atomic write, keyed by the match id.

use chrono::{DateTime, Utc};

use podium_rules::record::policy::RecordPolicy;
use podium_rules::seega::record::{MatchRecord, ValidMatch};
use podium_rules::seega::result::{settle as settle_match, MatchResult};
use podium_rules::seega::{score, Scoring};
use podium_rules::settlement::Planned;
use podium_store::{SettleStore, SourceKey, SourceStore};

use crate::engine::settle::settle_as;
use crate::engine::source::{ReadState, Reads, Settled, Source};
use crate::error::ServiceError;

/// The source kind of matches.
pub const MATCH: &str = "match";

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

/// A validated, scored match as a source of points.
struct MatchSource {
    m: ValidMatch,
    scoring: Scoring,
}

impl Source for MatchSource {
    type Result = MatchResult;

    fn facts(&self, result: &MatchResult) -> Vec<podium_rules::board::feed::Fact> {
        result.facts()
    }

    fn key(&self) -> SourceKey {
        SourceKey::new(MATCH, self.m.match_id.clone())
    }

    fn content_hash(&self) -> String {
        self.m.content_hash.clone()
    }

    fn record(&self) -> Option<String> {
        serde_json::to_string(&self.m.as_record()).ok()
    }

    fn reads(&self) -> Reads {
        let balances = match self.scoring {
            Scoring::Void(_) => Vec::new(),
            Scoring::Decided(_) => self
                .m
                .players
                .iter()
                .map(|p| (self.m.game, p.player_id.clone(), false))
                .collect(),
        };
        Reads {
            balances,
            ..Reads::default()
        }
    }

    /// A void match writes no balance but names both players (GM-6).
    fn named_players(&self) -> Vec<String> {
        self.m.players.iter().map(|p| p.player_id.clone()).collect()
    }

    fn player_field(&self, player_id: &str) -> String {
        let i = self.m.players.iter().position(|p| p.player_id == player_id);
        format!("players[{}].player_id", i.unwrap_or(0))
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<MatchResult>, ServiceError> {
        let before = [0, 1].map(|i| read.balance(self.m.game, &self.m.players[i].player_id).points);
        Ok(Planned::Write(settle_match(&self.m, &self.scoring, before)))
    }

    fn id_field(&self) -> &'static str {
        "match_id"
    }
}

/// Validates (against the server clock `now`, under `policy`), scores and applies
/// one record exactly once.
///
/// Errors: [`ServiceError::Invalid`] (names field and rule; nothing written),
/// [`ServiceError::Conflict`] (same id, other content; nothing written), and the
/// transient [`ServiceError::Store`] / [`ServiceError::Contended`].
pub async fn score_match<S: SettleStore + ?Sized>(
    store: &S,
    record: &MatchRecord,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
) -> Result<Scored, ServiceError> {
    let delivery = format!("{:016x}", rand::random::<u64>());
    score_delivery(store, record, now, policy, &delivery).await
}

/// [`score_match`] for one delivery of the record, identified by `delivery` (an SQS
/// message id, a replayed line): every retry of the same delivery passes the same id,
/// so a retry that finds the delivery's own write (its reply lost) reports the match
/// as applied, not as a duplicate.
pub async fn score_delivery<S: SettleStore + ?Sized>(
    store: &S,
    record: &MatchRecord,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
    delivery: &str,
) -> Result<Scored, ServiceError> {
    let m = record.validate_with(now, policy)?;
    let scoring = score(&m);
    match settle_as(store, &MatchSource { m, scoring }, delivery, now).await? {
        Settled::Applied(r) | Settled::Nothing(r) => Ok(Scored::Applied(r)),
        Settled::Duplicate(r) => Ok(Scored::Duplicate(r)),
    }
}

/// The keys that order a record's settlement against others' in
/// [`run_keyed`](crate::engine::keyed::run_keyed): its match id (a repeat after its first
/// delivery) and each player (balances move in the order the matches are given).
pub fn ordering_keys(record: &MatchRecord) -> Vec<String> {
    crate::engine::keyed::record_keys(
        &record.match_id,
        record.players.iter().map(|p| p.player_id.as_str()),
    )
}

/// The stored result of match `match_id`, if it was scored.
/// The result of the match `valid` names when it was settled before with the same
/// content; a conflict naming when it was settled and the first field that differs
/// when with other content (GM-3); `None` when it was never settled.
pub async fn settled_before<S: SourceStore + ?Sized>(
    store: &S,
    valid: &ValidMatch,
) -> Result<Option<MatchResult>, ServiceError> {
    let key = SourceKey::new(MATCH, valid.match_id.clone());
    let Some(stored) = store.get_source(&key).await? else {
        return Ok(None);
    };
    if stored.content_hash != valid.content_hash {
        let record = serde_json::to_string(&valid.as_record()).ok();
        return Err(crate::engine::settle::conflict(
            "match_id",
            &key,
            record.as_deref(),
            &stored,
        ));
    }
    crate::engine::settle::decoded(&key, &stored).map(Some)
}

pub async fn stored_match<S: SourceStore + ?Sized>(
    store: &S,
    match_id: &str,
) -> Result<Option<(String, MatchResult)>, ServiceError> {
    let Some(stored) = store.get_source(&SourceKey::new(MATCH, match_id)).await? else {
        return Ok(None);
    };
    let result = serde_json::from_str(&stored.result).map_err(|e| {
        ServiceError::Store(podium_store::StoreError::corrupt(format!("match {match_id}"), e))
    })?;
    Ok(Some((stored.content_hash, result)))
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
    Ok(settle_match(&m, &score(&m), balances).result)
}
