//! What the live feed pushes (LIVE-3), from the table's change stream
//! ([`podium_store::stream`]): deployed, the `events` function hands it each stream
//! record; locally, `podium serve` reads the embedded store's stream. Both call
//! [`on_change`], so what is pushed is decided in one place.
//!
//! - A change of a player's inbox: each message it added, to each of the player's
//!   open connections, as `GET /v1/me/inbox` serves it (`{"type": "message",
//!   "message": {…}}`), oldest first by arrival (`seq`).
//! - A player's guard written (suspended, OP-4, or deleted, GM-6): their connections
//!   closed (LIVE-1).
//! - A change of a board's current snapshot pointer whose pages changed: a
//!   `board_changed` notice to each connection watching that board in a view the
//!   pointer serves (the board itself: the global and friends views; a country board:
//!   that country's view) and period (the one named, or the current one: any
//!   refresh, never a period's frozen `final`).

use chrono::{DateTime, Utc};
use futures::stream::{self, StreamExt};
use podium_rules::inbox::Inbox;
use podium_rules::push::{ServerMessage, View};
use podium_store::stream::{Change, ItemImages, StateImages};
use podium_store::{ItemStore, SettleStore};

use super::connections::{self, Connection};
use super::gateway::{Delivery, Pushed, Pusher};
use super::watchers;
use crate::boards::snapshot::country;
use crate::boards::snapshot::layout::{Published, FINAL};
use crate::error::ServiceError;

/// Pushes in flight at once (the management API answers each in tens of ms: 200 in
/// flight post about 10,000 a second, more than a paced pusher lets through).
const IN_FLIGHT: usize = 200;

/// `items` in a random order (Fisher–Yates).
fn shuffle<T>(items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = (rand::random::<u64>() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// What one change pushed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sent {
    /// Frames handed to connections.
    pub sent: usize,
    /// Dropped past a rate cap (LIVE-4) or by a failing gateway.
    pub dropped: usize,
    /// Connections found gone (and deleted).
    pub gone: usize,
}

impl Sent {
    fn add(&mut self, p: Pushed) {
        match p {
            Pushed::Sent => self.sent += 1,
            Pushed::Dropped => self.dropped += 1,
            Pushed::Gone => self.gone += 1,
        }
    }
}

/// Pushes what `change` means to the connections concerned, at `now`. Changes of
/// anything else push nothing. Errors: the store's (reading connections, an inbox's
/// players, or deleting a gone connection); a change that cannot be read is logged
/// and skipped (it never becomes readable).
pub async fn on_change<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    pusher: &Pusher,
    change: &Change,
    now: DateTime<Utc>,
) -> Result<Sent, ServiceError> {
    on_change_until(store, pusher, change, now, None).await
}

/// [`on_change`] with the pushes a paced pusher cannot make before `deadline` dropped
/// (the `events` function's: its invocation's end, less a margin). A board's watchers
/// are told in a random order, so that the same ones are not the dropped ones at
/// every refresh.
pub async fn on_change_until<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    pusher: &Pusher,
    change: &Change,
    now: DateTime<Utc>,
    deadline: Option<tokio::time::Instant>,
) -> Result<Sent, ServiceError> {
    match change {
        Change::State(state) if state.name == podium_rules::inbox::STATE => {
            inbox_changed(store, pusher, state, now, deadline).await
        }
        Change::State(_) => Ok(Sent::default()),
        Change::Item(item) if item.pk.starts_with("DELETED#") => {
            account_changed(store, pusher, item, now).await
        }
        Change::Item(item) => pointer_changed(store, pusher, item, now, deadline).await,
    }
}

/// A player's guard written (OP-4 suspension, GM-6 deletion): their open connections
/// are closed and forgotten (LIVE-1). A guard removed (a restore) closes nothing.
async fn account_changed<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    pusher: &Pusher,
    item: &ItemImages,
    now: DateTime<Utc>,
) -> Result<Sent, ServiceError> {
    let Some(player) = item.pk.strip_prefix("DELETED#") else {
        return Ok(Sent::default());
    };
    let account = podium_store::Account::of_guard(item.new_body.as_deref().map(str::as_bytes));
    if account == podium_store::Account::Active {
        return Ok(Sent::default());
    }
    let mut sent = Sent::default();
    for c in connections::connections_of(store, player, now).await? {
        match pusher.gateway().close(&c.connection_id).await {
            // Another local server's: it closes it when it reads the same change.
            Ok(Delivery::Elsewhere) => continue,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, "closing a suspended or deleted player's connection failed; its item is deleted");
            }
        }
        pusher.forget(&c.connection_id);
        connections::disconnect(store, player, &c.connection_id).await?;
        sent.gone += 1;
    }
    Ok(sent)
}

async fn inbox_changed<S: ItemStore + SettleStore + ?Sized>(
    store: &S,
    pusher: &Pusher,
    state: &StateImages,
    now: DateTime<Utc>,
    deadline: Option<tokio::time::Instant>,
) -> Result<Sent, ServiceError> {
    let player = &state.player_id;
    let old = crate::operators::events::inbox(state.old_body.as_deref(), player).unwrap_or_default();
    let new = match crate::operators::events::inbox(state.new_body.as_deref(), player) {
        Ok(new) => new,
        Err(e) => {
            tracing::error!(error = %e, "an inbox in the stream could not be read; nothing pushed for it");
            return Ok(Sent::default());
        }
    };
    let added: Vec<_> = Inbox::added_since(&new, &old).into_iter().cloned().collect();
    if added.is_empty() {
        return Ok(Sent::default());
    }
    let open = connections::connections_of(store, player, now).await?;
    if open.is_empty() {
        return Ok(Sent::default());
    }
    // As the inbox serves them: cards filled, suspended and deleted players hidden.
    let shown = crate::players::inbox::shown(store, player, added).await?;
    let mut frames: Vec<ServerMessage> = Vec::new();
    let mut messages = shown.messages;
    messages.sort_by_key(|m| m.seq);
    for m in messages {
        frames.push(ServerMessage::Message { message: Box::new(m) });
    }
    let mut sent = Sent::default();
    for c in &open {
        for f in &frames {
            let p = pusher.push_until(store, c, f, now, deadline).await?;
            sent.add(p);
            if p == Pushed::Gone {
                break;
            }
        }
    }
    Ok(sent)
}

/// Whether a refresh changed what a board's pages show: its entries, its pages (the
/// first chunk of its directory: each page's content id), or what it leaves out
/// (GM-6, OP-4: its revision).
fn changed(old: Option<&Published>, new: &Published) -> bool {
    let Some(old) = old else {
        return true;
    };
    let pages = |p: &Published| p.directory.iter().map(|d| d.page.clone()).collect::<Vec<_>>();
    old.entries != new.entries
        || old.pages != new.pages
        || old.revision != new.revision
        || pages(old) != pages(new)
}

/// The board (and period) and the new pointer of a change of a snapshot pointer
/// (`SNAP#{board}@{period}` / `CURRENT`); `None` for any other item, or a body that is
/// no pointer.
pub fn pointer(item: &ItemImages) -> Option<(podium_rules::board::BoardRef, Published)> {
    let (board, period) = item.pk.strip_prefix("SNAP#")?.split_once('@')?;
    let published = serde_json::from_str::<Published>(item.new_body.as_deref()?).ok()?;
    Some((
        podium_rules::board::BoardRef::new(board.to_string(), period.to_string()),
        published,
    ))
}

async fn pointer_changed<S: ItemStore + ?Sized>(
    store: &S,
    pusher: &Pusher,
    item: &ItemImages,
    now: DateTime<Utc>,
    deadline: Option<tokio::time::Instant>,
) -> Result<Sent, ServiceError> {
    let Some((board_ref, new)) = pointer(item) else {
        return Ok(Sent::default());
    };
    let old = item
        .old_body
        .as_deref()
        .and_then(|b| serde_json::from_str::<Published>(b).ok());
    if !changed(old.as_ref(), &new) {
        return Ok(Sent::default());
    }
    let board = board_ref.board.as_str();
    let (base, country) = country::split(&board_ref);
    let now_ms = now.timestamp_millis();
    let watchers = watchers::of_board(store, board, now_ms).await?;
    let mut pushes: Vec<(Connection, ServerMessage)> = Vec::new();
    for w in watchers {
        let connection = w.connection();
        // One notice per view and country a connection watches this board in (a
        // watch of the current period and one naming it are one).
        let mut told: Vec<(View, Option<String>)> = Vec::new();
        for watched in &w.watching {
            if told.contains(&(watched.view, watched.country.clone())) {
                continue;
            }
            let in_view = match (watched.view, country) {
                (View::Global | View::Friends, None) => true,
                (View::Country, Some(c)) => watched.country.as_deref() == Some(c),
                _ => false,
            };
            let in_period = match &watched.period {
                Some(p) => *p == base.period,
                None => new.id != FINAL,
            };
            if in_view && in_period {
                told.push((watched.view, watched.country.clone()));
                pushes.push((
                    connection.clone(),
                    ServerMessage::BoardChanged {
                        board: board.to_string(),
                        period: base.period.clone(),
                        view: watched.view,
                        country: watched.country.clone(),
                        snapshot: new.render_key(),
                    },
                ));
            }
        }
    }
    shuffle(&mut pushes);
    let results: Vec<Result<Pushed, ServiceError>> = stream::iter(pushes)
        .map(|(c, m)| async move { pusher.push_until(store, &c, &m, now, deadline).await })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    let mut sent = Sent::default();
    for r in results {
        sent.add(r?);
    }
    Ok(sent)
}
