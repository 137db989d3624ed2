//! Mahjong Rivals sources of points settled exactly once through the one commit path
//! ([`crate::settle`]): a Quick Match (MJ-7, MJ-8), its winner's points credited to
//! the AMR, weekly and daily boards in the same settlement (MJ-20, MJ-21).

use chrono::{DateTime, Utc};
use podium_rules::mahjong::quick_match::{self, QuickMatch, QuickMatchResult};
use podium_rules::settlement::Planned;
use podium_store::{SettleStore, SourceKey};

use crate::error::ServiceError;
use crate::period_boards::hex_sha256;
use crate::settle::{settle_as, ReadState, Reads, Settled, Source};

/// A Quick Match as a source of points, planned at the server clock `now`.
struct QuickMatchSource<'a> {
    m: &'a QuickMatch,
    now: DateTime<Utc>,
}

impl Source for QuickMatchSource<'_> {
    type Result = QuickMatchResult;

    fn key(&self) -> SourceKey {
        SourceKey::new(quick_match::KIND, self.m.match_id.clone())
    }

    /// SHA-256 of the record's canonical JSON (its fields in declaration order).
    fn content_hash(&self) -> String {
        hex_sha256(&serde_json::to_string(self.m).unwrap_or_default())
    }

    fn reads(&self) -> Reads {
        Reads {
            balances: self
                .m
                .players
                .iter()
                .map(|p| (quick_match::GAME, p.player_id.clone(), false))
                .collect(),
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<QuickMatchResult>, ServiceError> {
        let balances: Vec<i64> = self
            .m
            .players
            .iter()
            .map(|p| read.balance(quick_match::GAME, &p.player_id).points)
            .collect();
        Ok(quick_match::plan(self.m, &balances, self.now)?)
    }

    fn id_field(&self) -> &'static str {
        "match_id"
    }
}

/// Settles a parsed Quick Match exactly once as delivery `delivery` (an SQS message
/// id, a replayed line) at server clock `now`. Errors: [`ServiceError::Invalid`]
/// (MJ-7), [`ServiceError::Conflict`] (same match id, other content), and the
/// transient [`ServiceError::Store`] / [`ServiceError::Contended`].
pub async fn settle_quick_match<S: SettleStore + ?Sized>(
    store: &S,
    m: &QuickMatch,
    now: DateTime<Utc>,
    delivery: &str,
) -> Result<Settled<QuickMatchResult>, ServiceError> {
    settle_as(store, &QuickMatchSource { m, now }, delivery).await
}
