//! The replayed two-player games settled exactly once through the one commit path
//! ([`crate::engine::settle`]): Dots and Boxes (DB-1 … DB-6) and the Minesweeper duel
//! (MS-1 … MS-8). The rules replay each record and check its claimed result; then
//! both players' Elo ratings are written at the versions read, with their ledger
//! entries, in one commit. The ratings are the game's balances, listed on the
//! `dots-and-boxes` and `minesweeper` boards.

use chrono::{DateTime, Utc};
use podium_rules::board::feed::Fact;
use podium_rules::dots_and_boxes::record::{self as dots, DotsMatch, DotsResult};
use podium_rules::game::Game;
use podium_rules::minesweeper::record::{self as duel, Duel, DuelResult};
use podium_rules::settlement::Planned;
use podium_store::{SettleStore, SourceKey};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::engine::names::hex_sha256;
use crate::engine::settle::settle_as;
use crate::engine::source::{ReadState, Reads, Settled, Source};
use crate::error::ServiceError;

/// A checked two-player match of `game`: its record (hashed as it is), its players,
/// and its plan from both players' stored ratings.
struct RatedSource<'a, M, R> {
    game: Game,
    match_id: &'a str,
    players: [&'a str; 2],
    record: &'a M,
    plan: Box<dyn Fn([Option<i64>; 2]) -> Planned<R> + Send + Sync + 'a>,
    /// What a result says for defined boards (BD-12).
    facts: fn(&R, DateTime<Utc>) -> Vec<Fact>,
    ended_at: DateTime<Utc>,
}

/// A replayed record's content hash (GM-3): SHA-256 of its canonical JSON.
fn record_hash<M: Serialize>(record: &M) -> String {
    hex_sha256(&serde_json::to_string(record).unwrap_or_default())
}

impl<M: Serialize, R: Serialize + DeserializeOwned> Source for RatedSource<'_, M, R> {
    type Result = R;

    fn facts(&self, result: &R) -> Vec<Fact> {
        (self.facts)(result, self.ended_at)
    }

    fn key(&self) -> SourceKey {
        SourceKey::new(self.game.id(), self.match_id)
    }

    /// SHA-256 of the record's canonical JSON (its fields in declaration order).
    fn content_hash(&self) -> String {
        record_hash(self.record)
    }

    fn record(&self) -> Option<String> {
        serde_json::to_string(self.record).ok()
    }

    fn reads(&self) -> Reads {
        Reads {
            balances: self
                .players
                .iter()
                .map(|p| (self.game, p.to_string(), false))
                .collect(),
            ..Reads::default()
        }
    }

    fn named_players(&self) -> Vec<String> {
        self.players.iter().map(|p| p.to_string()).collect()
    }

    fn player_field(&self, player_id: &str) -> String {
        let i = self.players.iter().position(|p| *p == player_id);
        format!("players[{}].player_id", i.unwrap_or(0))
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<R>, ServiceError> {
        let rating = |p: &str| {
            let b = read.balance(self.game, p);
            (b.version > 0).then_some(b.points)
        };
        Ok((self.plan)([rating(self.players[0]), rating(self.players[1])]))
    }

    fn id_field(&self) -> &'static str {
        "match_id"
    }
}

/// Checks a Dots and Boxes match by replay (refused naming the first offending field
/// or move, GM-5) and settles it exactly once. Errors: [`ServiceError::Invalid`],
/// [`ServiceError::Conflict`] (same match id, other content), and the transient ones.
pub async fn settle_match<S: SettleStore + ?Sized>(
    store: &S,
    m: &DotsMatch,
    now: DateTime<Utc>,
    max_skew_ms: i64,
    delivery: &str,
) -> Result<Settled<DotsResult>, ServiceError> {
    let (boxes, outcome) = m.check(now, max_skew_ms)?;
    let source = RatedSource {
        game: dots::GAME,
        match_id: &m.match_id,
        players: [&m.players[0].player_id, &m.players[1].player_id],
        record: m,
        plan: Box::new(move |ratings| dots::plan(m, boxes, outcome, ratings)),
        facts: DotsResult::facts,
        ended_at: m.ended_at,
    };
    settle_as(store, &source, delivery, now).await
}

/// Checks a Minesweeper duel by replay (MS-8) and settles it exactly once. Errors as
/// [`settle_match`]'s.
pub async fn settle_duel<S: SettleStore + ?Sized>(
    store: &S,
    d: &Duel,
    now: DateTime<Utc>,
    max_skew_ms: i64,
    delivery: &str,
) -> Result<Settled<DuelResult>, ServiceError> {
    let checked = match d.check(now, max_skew_ms) {
        Ok(checked) => checked,
        // MS-5 was looser before (an end up to the 5 minutes): a duel settled then and
        // delivered again is answered as the duplicate it is, not refused.
        Err(e) if e.rule == "MS-5" && e.field == "ended_at" => {
            let key = SourceKey::new(duel::GAME.id(), d.match_id.clone());
            return match store.get_source(&key).await? {
                Some(stored) if stored.content_hash == record_hash(d) => {
                    crate::engine::settle::decoded(&key, &stored).map(Settled::Duplicate)
                }
                _ => Err(e.into()),
            };
        }
        Err(e) => return Err(e.into()),
    };
    let ended_at = checked.ended_at(d);
    let source = RatedSource {
        game: duel::GAME,
        match_id: &d.match_id,
        players: [&d.players[0].player_id, &d.players[1].player_id],
        record: d,
        plan: Box::new(move |ratings| duel::plan(d, &checked, ratings)),
        facts: DuelResult::facts,
        ended_at,
    };
    settle_as(store, &source, delivery, now).await
}
