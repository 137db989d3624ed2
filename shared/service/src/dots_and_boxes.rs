//! Dots and Boxes matches settled exactly once through the one commit path
//! ([`crate::settle`]): replayed and checked by the rules (DB-1 … DB-4), then both
//! players' Elo ratings written at the versions read, with their ledger entries, in
//! one commit (DB-6). The ratings are the game's balances, listed on the
//! `dots-and-boxes` board.

use chrono::{DateTime, Utc};
use podium_rules::dots_and_boxes::record::{self, DotsMatch, DotsResult};
use podium_rules::dots_and_boxes::replay::Outcome;
use podium_rules::settlement::Planned;
use podium_store::{SettleStore, SourceKey};

use crate::error::ServiceError;
use crate::period_boards::hex_sha256;
use crate::settle::{settle_as, ReadState, Reads, Settled, Source};

/// A checked match: its record, and what the replay found.
struct DotsSource<'a> {
    m: &'a DotsMatch,
    boxes: [u32; 2],
    outcome: Outcome,
}

impl Source for DotsSource<'_> {
    type Result = DotsResult;

    fn key(&self) -> SourceKey {
        SourceKey::new("match", self.m.match_id.clone())
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
                .map(|s| (record::GAME, s.player_id.clone(), false))
                .collect(),
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<DotsResult>, ServiceError> {
        let rating = |i: usize| {
            let b = read.balance(record::GAME, &self.m.players[i].player_id);
            (b.version > 0).then_some(b.points)
        };
        Ok(record::plan(
            self.m,
            self.boxes,
            self.outcome,
            [rating(0), rating(1)],
        ))
    }

    fn id_field(&self) -> &'static str {
        "match_id"
    }
}

/// Checks a match by replay (refused with the first offending field or move, GM-5)
/// and settles it exactly once as delivery `delivery` at server clock `now`. Errors:
/// [`ServiceError::Invalid`], [`ServiceError::Conflict`] (same match id, other
/// content), and the transient [`ServiceError::Store`] / [`ServiceError::Contended`].
pub async fn settle_match<S: SettleStore + ?Sized>(
    store: &S,
    m: &DotsMatch,
    now: DateTime<Utc>,
    max_skew_ms: i64,
    delivery: &str,
) -> Result<Settled<DotsResult>, ServiceError> {
    let (boxes, outcome) = m.check(now, max_skew_ms)?;
    settle_as(store, &DotsSource { m, boxes, outcome }, delivery).await
}
