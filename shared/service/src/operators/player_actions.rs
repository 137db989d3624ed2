//! Operators' actions on one player that may outgrow a request (OP-4 suspension and
//! restore, GM-6 deletion): a player on hundreds of boards (a year of daily Mahjong
//! boards) is hidden, shown again or erased board by board.
//!
//! The operator route records the action first (partition key `ACTION#PLAYER`, sort
//! key `{action}:{player}`: one of each kind per player; a tick drops one that can no
//! longer go on, as a suspension a restore lifted or a deletion took over), so that a
//! request killed mid-step is still carried on, then takes about a second of steps
//! ([`crate::budget::StepLimit`]) and answers: 200 when done (the record removed), 202
//! when work is left. The next ticks carry every recorded action on
//! within their budget ([`carry_on`]); each step is the action's own resumable call, so
//! a repeat of the request, a tick and a retry after a kill all go on from the progress
//! the guard or tombstone holds, and a done action's record is removed (a deleted
//! player's id is kept nowhere).

use chrono::{DateTime, Utc};
use podium_rules::record::policy::RecordPolicy;
use podium_store::{ItemKey, ItemStore, Store};
use serde::{Deserialize, Serialize};

use crate::budget::Budget;
use crate::error::ServiceError;

const PK: &str = "ACTION#PLAYER";

/// What an operator asked of a player.
pub mod kind {
    pub const SUSPEND: &str = "suspend";
    pub const RESTORE: &str = "restore";
    pub const DELETE: &str = "delete";
}

/// An operator's action on a player not finished yet, as its record holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayerAction {
    /// `suspend`, `restore` or `delete`.
    pub action: String,
    pub player_id: String,
    /// The operator who asked and why (the audit entry holds the same, OP-5).
    pub operator: String,
    pub reason: String,
    /// When it was asked (UTC); for a suspension, its instant as this request saw it
    /// (a concurrent request's may be the guard's).
    pub requested_at: DateTime<Utc>,
    /// When a step last moved it (UTC), and how many calls stepped it.
    pub updated_at: DateTime<Utc>,
    pub calls: u32,
    /// A deletion of an id nothing is stored under (GM-6).
    #[serde(default)]
    pub even_if_unknown: bool,
}

fn key(player_id: &str, kind: &str) -> ItemKey {
    ItemKey::new(PK, format!("{kind}:{player_id}"))
}

fn body(a: &PlayerAction) -> Vec<u8> {
    serde_json::to_vec(a).unwrap_or_default()
}

/// Records `action`, so the ticks carry it on; a repeat joins the player's record of
/// its kind (the first request's operator, reason and instant stand; one call more).
/// Errors: the store's.
async fn record<S: ItemStore + ?Sized>(store: &S, action: &PlayerAction) -> Result<(), ServiceError> {
    let k = key(&action.player_id, &action.action);
    for _ in 0..5 {
        // A repeat joins the action under way: the first request stands, one call more.
        let (joined, version) = match store.get_item(&k, true).await? {
            Some(item) => match serde_json::from_slice::<PlayerAction>(&item.body) {
                Ok(mut first) => {
                    first.calls += 1;
                    first.updated_at = action.updated_at;
                    (first, item.version)
                }
                Err(_) => (action.clone(), item.version),
            },
            None => (action.clone(), 0),
        };
        if store.put_item_if(&k, &body(&joined), version).await? {
            return Ok(());
        }
    }
    Err(ServiceError::Contended { attempts: 5 })
}

/// Removes `player_id`'s record of an action of `kind` (done by a request); their
/// actions of other kinds stay. Errors: the store's.
async fn finish<S: ItemStore + ?Sized>(store: &S, player_id: &str, kind: &str) -> Result<(), ServiceError> {
    store.delete_items(&[key(player_id, kind)]).await?;
    Ok(())
}

/// Carries out an operator's request as an action: recorded first (so a request
/// killed or failing mid-step is carried on by the ticks), then `steps`; the record is
/// removed when they are done, or when they fail for good (nothing to carry on: a
/// refusal, a player not found); a transient failure leaves it to the ticks.
async fn as_action<S, T, F>(
    store: &S,
    action: PlayerAction,
    steps: F,
    done: impl Fn(&T) -> bool,
) -> Result<T, ServiceError>
where
    S: ItemStore + ?Sized,
    F: std::future::Future<Output = Result<T, ServiceError>>,
{
    record(store, &action).await?;
    match steps.await {
        Ok(answer) => {
            if done(&answer) {
                finish(store, &action.player_id, &action.action).await?;
            }
            Ok(answer)
        }
        Err(e @ (ServiceError::Store(_) | ServiceError::Contended { .. })) => Err(e),
        Err(e) => {
            finish(store, &action.player_id, &action.action).await?;
            Err(e)
        }
    }
}

/// Tries an operator's request on a player makes while it loses a race before it
/// joins the action under way.
const JOIN_TRIES: u32 = 4;

/// `attempt`, tried again while it loses a race: concurrent requests on one player (a
/// double click, a client's retries) contend on the player's guard or tombstone,
/// and the one that loses tries again, up to [`JOIN_TRIES`] times 20 to 80 ms apart;
/// still losing while the action (`kind` on `player_id`) is recorded under way, it
/// joins it: `under_way` is its answer (HTTP 202, the ticks and the other request
/// carry it on). When the action finished meanwhile (no record), one more try finds
/// it done. A 503 only when that too loses.
async fn joining<S, T, Fut>(
    store: &S,
    (kind, player_id): (&str, &str),
    mut attempt: impl FnMut() -> Fut,
    under_way: impl FnOnce() -> T,
) -> Result<T, ServiceError>
where
    S: ItemStore + ?Sized,
    Fut: std::future::Future<Output = Result<T, ServiceError>>,
{
    let mut tries = 1;
    loop {
        match attempt().await {
            Err(ServiceError::Contended { .. }) if tries < JOIN_TRIES => {
                tries += 1;
                let ms = 20 + rand::random::<u64>() % 60;
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            }
            Err(e @ ServiceError::Contended { .. }) => {
                return match store.get_item(&key(player_id, kind), true).await? {
                    Some(_) => Ok(under_way()),
                    // Finished meanwhile (its record removed): once more finds it done.
                    None => match attempt().await {
                        Err(ServiceError::Contended { .. }) => Err(e),
                        other => other,
                    },
                };
            }
            other => return other,
        }
    }
}

fn asked(kind: &str, player_id: &str, (operator, reason): (&str, &str), at: DateTime<Utc>) -> PlayerAction {
    PlayerAction {
        action: kind.to_string(),
        player_id: player_id.to_string(),
        operator: operator.to_string(),
        reason: reason.to_string(),
        requested_at: at,
        updated_at: at,
        calls: 1,
        even_if_unknown: false,
    }
}

/// An operator's suspension (OP-4) within `budget`
/// ([`crate::moderation::suspensions::suspend_within`]), carried on by the ticks when
/// work is left. Errors as that function's, and the store's.
pub async fn suspend<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    who: (&str, &str),
    restore_days: i64,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<crate::moderation::suspensions::SuspensionAnswer, ServiceError> {
    use crate::moderation::suspensions;
    let under_way = || suspensions::SuspensionAnswer {
        state: "suspended".into(),
        suspension: None,
        released: None,
        unchanged: true,
        done: false,
    };
    joining(
        store,
        (kind::SUSPEND, player_id),
        || async {
            // The suspension's instant: the one standing (a repeat joins it), or this one.
            let since = match suspensions::of_player(store, player_id).await {
                Ok(Some(s)) => s.since,
                _ => now,
            };
            as_action(
                store,
                asked(kind::SUSPEND, player_id, who, since),
                suspensions::suspend_within(store, player_id, who, restore_days, now, budget),
                |a| a.done,
            )
            .await
        },
        under_way,
    )
    .await
}

/// An operator's restore (OP-4) within `budget`
/// ([`crate::moderation::suspensions::restore_within`]), carried on by the ticks when
/// work is left. Errors as that function's, and the store's.
pub async fn restore<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    who: (&str, &str),
    now: DateTime<Utc>,
    policy: &RecordPolicy,
    budget: Budget,
) -> Result<crate::moderation::suspensions::SuspensionAnswer, ServiceError> {
    let under_way = || crate::moderation::suspensions::SuspensionAnswer {
        state: "restoring".into(),
        suspension: None,
        released: None,
        unchanged: true,
        done: false,
    };
    joining(
        store,
        (kind::RESTORE, player_id),
        || {
            as_action(
                store,
                asked(kind::RESTORE, player_id, who, now),
                crate::moderation::suspensions::restore_within(store, player_id, who, now, policy, budget),
                |a| a.done,
            )
        },
        under_way,
    )
    .await
}

/// An operator's deletion (GM-6) within `budget`
/// ([`crate::operators::deletion::delete_by_operator_within`]: audited first),
/// carried on by the ticks when work is left. Errors as that function's.
pub async fn delete<S: Store + ?Sized>(
    store: &S,
    player_id: &str,
    who: (&str, &str),
    now: DateTime<Utc>,
    even_if_unknown: bool,
    budget: Budget,
) -> Result<crate::operators::deletion::DeletionReport, ServiceError> {
    let under_way = || crate::operators::deletion::DeletionReport {
        pseudonym: crate::engine::names::pseudonym(player_id),
        resumed: true,
        ..Default::default()
    };
    joining(
        store,
        (kind::DELETE, player_id),
        || {
            let mut action = asked(kind::DELETE, player_id, who, now);
            action.even_if_unknown = even_if_unknown;
            as_action(
                store,
                action,
                crate::operators::deletion::delete_by_operator_within(
                    store,
                    player_id,
                    who,
                    now,
                    even_if_unknown,
                    budget,
                ),
                |r| r.done,
            )
        },
        under_way,
    )
    .await
}

/// Every player action under way (Queries of 100).
pub async fn list<S: ItemStore + ?Sized>(store: &S) -> Result<Vec<PlayerAction>, ServiceError> {
    crate::engine::listing::all(store, PK).await
}

/// The outcome of one step of an action.
enum Stepped {
    Done,
    Left,
}

/// One step of `a` within `budget` (the action's own resumable call). A suspension is
/// only ever carried on, never begun: when the player's guard no longer holds a
/// suspension (restored, deleted, or a restore under way) it is over.
async fn step<S: Store + ?Sized>(
    store: &S,
    a: &PlayerAction,
    policy: &RecordPolicy,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<Stepped, ServiceError> {
    use crate::moderation::suspensions;
    let done = match a.action.as_str() {
        kind::SUSPEND => {
            match suspensions::carry_on(store, &a.player_id, now, budget).await? {
                Some(ans) => ans.done,
                // No suspension any more (restored, deleted, or a restore under way,
                // which owns the player): over.
                None => true,
            }
        }
        kind::RESTORE => {
            suspensions::restore_within(store, &a.player_id, (&a.operator, &a.reason), now, policy, budget)
                .await?
                .done
        }
        kind::DELETE => {
            crate::operators::deletion::delete_player_within(store, &a.player_id, now, budget)
                .await?
                .done
        }
        _ => true,
    };
    Ok(if done { Stepped::Done } else { Stepped::Left })
}

/// Carries every recorded player action one step on within `budget` (the ticks call
/// it), with `policy` for the records a restore releases; answers how many it moved.
/// An action that can no longer go on (not found, a conflict: a restore past its
/// window, a suspension a restore lifted) is over: logged and its record removed.
/// Errors: the first transient one (store, contention), after every other action was
/// carried on (the failed one is left to the next tick).
pub async fn carry_on<S: Store + ?Sized>(
    store: &S,
    policy: &RecordPolicy,
    now: DateTime<Utc>,
    budget: Budget,
) -> Result<usize, ServiceError> {
    let mut moved = 0;
    let mut failed: Option<ServiceError> = None;
    let under_way: Vec<(PlayerAction, u64)> = crate::engine::listing::with_versions(store, PK).await?;
    for (mut a, version) in under_way {
        if moved > 0 && budget.expired() {
            break;
        }
        moved += 1;
        let k = key(&a.player_id, &a.action);
        match step(store, &a, policy, now, budget).await {
            Ok(Stepped::Done) => {
                store.delete_item_if(&k, version).await?;
            }
            Ok(Stepped::Left) => {
                a.updated_at = now;
                a.calls += 1;
                // Lost to a newer request: its record stands.
                store.put_item_if(&k, &body(&a), version).await?;
            }
            // Transient: this one is left to the next tick; the others go on.
            Err(e @ (ServiceError::Store(_) | ServiceError::Contended { .. })) => {
                tracing::warn!(action = %a.action, error = %e, "an operator's action on a player failed this tick");
                failed.get_or_insert(e);
            }
            Err(e) => {
                tracing::warn!(action = %a.action, error = %e, "an operator's action on a player cannot go on; it is dropped");
                store.delete_item_if(&k, version).await?;
            }
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(moved),
    }
}
