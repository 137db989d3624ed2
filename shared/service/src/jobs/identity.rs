//! Each refresh's identity (LB-5): a snapshot id of its own, whatever the clock shows.
//!
//! A refresh is named [`refresh_id`]`(at, n)`: its instant, for people, and a number
//! the store issues (`REFRESH#SEQ` / `NEXT`: the last number issued, raised by a
//! conditional write), which makes the id unique: two refreshes in one second, or at
//! one instant of a test clock that stands still, never share a run, so the later one
//! is never answered "already complete" by the earlier's snapshot. The number also
//! orders refreshes of one instant: the pointer moves to the later one
//! ([`crate::boards::snapshot::layout::Published::order`]).
//!
//! Who asks decides what a repeated request means ([`Invocation`]):
//! - the schedule (the `snapshot` function): its scheduled time names the invocation;
//!   the first call of a scheduled time records the number it took
//!   (`REFRESH#TICK` / the scheduled time to the nanosecond, written only if absent),
//!   and a retry of the same scheduled time reads it back and resumes the same runs
//!   (finished ones are not redone). Only that exact instant is the same invocation;
//! - a new request (`podium snapshot`, the test clock's moves): a number of its own,
//!   so a new refresh every time.
//!
//! Costs: two reads and one or two conditional writes a tick (not per board).

use chrono::{DateTime, SecondsFormat, Utc};
use podium_store::{ItemKey, ItemStore, StoreError};
use serde::{Deserialize, Serialize};

use crate::boards::snapshot::layout::refresh_id;
use crate::error::ServiceError;

/// Who asks for a tick, which decides whether an earlier tick's refresh is resumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invocation {
    /// The schedule: a tick of the same scheduled time (a retry) resumes its refresh.
    Scheduled,
    /// A new request (the CLI, a test clock's move): always a refresh of its own.
    Request,
}

/// A refresh's identity: its snapshot id and its number in the store's sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefreshId {
    /// The snapshot id every board of the refresh is written under.
    pub id: String,
    /// The number the store issued it ([`crate::boards::snapshot::layout::RunState::seq`]).
    pub seq: u64,
}

/// The last number issued (the counter's body).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Issued {
    last: u64,
}

fn counter_key() -> ItemKey {
    ItemKey::new("REFRESH#SEQ", "NEXT")
}

/// The record of a scheduled invocation's refresh: by its scheduled time, to the
/// nanosecond (so only a retry of that exact time meets it).
fn tick_key(scheduled: DateTime<Utc>) -> ItemKey {
    ItemKey::new(
        "REFRESH#TICK",
        scheduled.to_rfc3339_opts(SecondsFormat::Nanos, true),
    )
}

fn corrupt(key: &ItemKey, e: serde_json::Error) -> ServiceError {
    ServiceError::Store(StoreError::corrupt(&key.pk, e))
}

/// The identity of the refresh a tick at `at` runs, as `invocation` asks: the one a
/// scheduled invocation of `at` took before (a retry), or a new one. Errors: the
/// store's; [`ServiceError::Contended`] when ten attempts at the counter all met
/// other ticks' writes.
pub async fn refresh<S: ItemStore + ?Sized>(
    store: &S,
    at: DateTime<Utc>,
    invocation: Invocation,
) -> Result<RefreshId, ServiceError> {
    if invocation == Invocation::Request {
        let seq = issue(store).await?;
        return Ok(RefreshId {
            id: refresh_id(at, seq),
            seq,
        });
    }
    let key = tick_key(at);
    if let Some(item) = store.get_item(&key, true).await? {
        return serde_json::from_slice(&item.body).map_err(|e| corrupt(&key, e));
    }
    let seq = issue(store).await?;
    let mine = RefreshId {
        id: refresh_id(at, seq),
        seq,
    };
    let body = serde_json::to_vec(&mine).unwrap_or_default();
    if store.put_item_if(&key, &body, 0).await? {
        return Ok(mine);
    }
    // Another call of the same scheduled time recorded its refresh first: resume it.
    match store.get_item(&key, true).await? {
        Some(item) => serde_json::from_slice(&item.body).map_err(|e| corrupt(&key, e)),
        None => Err(ServiceError::Contended { attempts: 1 }),
    }
}

/// A number no refresh had: the counter raised by one (conditional on its version).
async fn issue<S: ItemStore + ?Sized>(store: &S) -> Result<u64, ServiceError> {
    let key = counter_key();
    for _ in 0..10 {
        let (issued, version) = match store.get_item(&key, true).await? {
            Some(item) => (
                serde_json::from_slice::<Issued>(&item.body).map_err(|e| corrupt(&key, e))?,
                item.version,
            ),
            None => (Issued::default(), 0),
        };
        let next = Issued {
            last: issued.last.saturating_add(1),
        };
        let body = serde_json::to_vec(&next).unwrap_or_default();
        if store.put_item_if(&key, &body, version).await? {
            return Ok(next.last);
        }
    }
    Err(ServiceError::Contended { attempts: 10 })
}
