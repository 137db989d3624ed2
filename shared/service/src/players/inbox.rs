//! The caller's inbox (`GET /v1/me/inbox`) and claiming a reward from it
//! (`POST /v1/me/inbox/{id}/claim`).
//!
//! A claim is a settlement (source `inbox-claim`, idempotency key `{player}/{message
//! id}`): it credits the reward to the game's balance with its ledger entry (source
//! `period-reward`, rule LB-5) and marks the message claimed, in one commit. A retry,
//! a double tap or a concurrent claim gets the first claim's answer and pays nothing
//! more (GM-3).

use chrono::{DateTime, Utc};
use podium_rules::game::Game;
use podium_rules::inbox::{self, Inbox};
use podium_rules::message::Message;
use podium_rules::settlement::{Planned, Settlement, StateChange};
use podium_store::{SettleStore, SourceKey};
use serde::{Deserialize, Serialize};

use crate::boards::reward::{pay, reward_reads};
use crate::boards::visibility::Hidden;
use crate::engine::names::hex_sha256;
use crate::engine::settle::settle;
use crate::engine::source::{ReadState, Reads, Source};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// The source kind of a claim.
pub const KIND: &str = "inbox-claim";

/// The ledger source of a claimed period reward.
pub use podium_rules::period_reward::LEDGER_SOURCE;

/// The caller's inbox, newest message first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct InboxView {
    pub player_id: String,
    pub messages: Vec<Message>,
    /// Messages holding a reward not claimed yet (in the whole inbox, with `since`
    /// too).
    pub unclaimed: usize,
    /// With `since`: whether that message is still in the inbox. `false`: it left the
    /// inbox (the oldest go first), so every message is listed and the client may
    /// have missed some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since_found: Option<bool>,
}

/// The caller's inbox as [`view`] answers it, with only the messages the inbox
/// received after message `since` (LIVE-3: what a client that reconnects missed),
/// by arrival order (`seq`), not by `at`: a message received later about an earlier
/// event is listed. Every message, and `since_found: false`, when `since` is no longer
/// in the inbox. Still newest first by `at`; `unclaimed` counts the whole inbox.
pub async fn view_since<S: SettleStore + podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    since: Option<&str>,
) -> Result<InboxView, ServiceError> {
    let inbox = read(store, player_id).await?;
    let mut v = shown(store, player_id, inbox.messages.clone()).await?;
    if let Some(id) = since {
        match inbox.after(id) {
            Some(after) => {
                let after: Vec<&str> = after.iter().map(|m| m.id.as_str()).collect();
                v.messages.retain(|m| after.contains(&m.id.as_str()));
                v.since_found = Some(true);
            }
            None => v.since_found = Some(false),
        }
    }
    Ok(v)
}

async fn read<S: SettleStore + ?Sized>(store: &S, player_id: &str) -> Result<Inbox, ServiceError> {
    match store.get_state(player_id, inbox::STATE).await? {
        Some(s) => serde_json::from_str(&s.body)
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("inbox", e))),
        None => Ok(Inbox::default()),
    }
}

/// The caller's inbox: one read of their inbox state, and when `overtaken` messages
/// name other players, their guards (one BatchGetItem per 100 players named). The players a message names (`by`) are those shown: a
/// suspended player is left out while suspended (OP-4, [`Hidden`]), as if they had
/// not passed (`passed_by` one fewer for each; a message left naming nobody is not
/// shown); a deleted one is left out of `by` for good (GM-6; still counted).
pub async fn view<S: SettleStore + podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
) -> Result<InboxView, ServiceError> {
    view_since(store, player_id, None).await
}

/// `messages` as the app is shown them (see [`view`]).
pub(crate) async fn shown<S: SettleStore + podium_store::ItemStore + ?Sized>(
    store: &S,
    player_id: &str,
    mut messages: Vec<Message>,
) -> Result<InboxView, ServiceError> {
    let mut named: Vec<String> = Vec::new();
    for m in &messages {
        for p in m.overtaken.iter().flat_map(|o| &o.by) {
            if !named.contains(&p.player_id) {
                named.push(p.player_id.clone());
            }
        }
    }
    if !named.is_empty() {
        // OP-4 and GM-6: who is suspended now and who was deleted, from their guards
        // (one BatchGetItem per 100).
        let ids: Vec<&str> = named.iter().map(String::as_str).collect();
        let accounts = crate::boards::suspended::accounts(store, &ids).await?;
        let deleted: Vec<String> = named
            .iter()
            .zip(&accounts)
            .filter(|(_, a)| **a == podium_store::Account::Deleted)
            .map(|(p, _)| p.clone())
            .collect();
        let hidden = Hidden::of(
            named
                .iter()
                .zip(&accounts)
                .filter(|(_, a)| **a == podium_store::Account::Suspended)
                .map(|(p, _)| p.clone()),
        );
        messages.retain_mut(|m| {
            let Some(o) = &mut m.overtaken else {
                return true;
            };
            let before = o.by.len();
            o.by.retain(|p| !hidden.hides(&p.player_id));
            let suspended = before - o.by.len();
            o.passed_by = o.passed_by.saturating_sub(suspended as u64);
            o.by.retain(|p| !deleted.contains(&p.player_id));
            suspended == 0 || !o.by.is_empty()
        });
    }
    messages.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| b.id.cmp(&a.id)));
    // PF-5: the cards of the players named, one batch read.
    crate::profiles::cards::fill(
        store,
        messages
            .iter_mut()
            .filter_map(|m| m.overtaken.as_mut())
            .flat_map(|o| o.by.iter_mut())
            .map(|p| (p.player_id.as_str(), &mut p.card)),
    )
    .await?;
    Ok(InboxView {
        player_id: player_id.to_string(),
        unclaimed: messages.iter().filter(|m| m.unclaimed()).count(),
        messages,
        since_found: None,
    })
}

/// The answer to a claim: the same for every repeat of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClaimAnswer {
    pub player_id: String,
    pub message_id: String,
    /// The reward credited (points) and the balance after it.
    pub points: i64,
    #[schema(value_type = String, example = "mahjong-rivals")]
    pub game: podium_rules::game::Game,
    pub balance_after: i64,
    /// Jokers added to the account's inventory (MJ-6; a defined board's prize, BD-9):
    /// 0 when the reward held none.
    #[serde(default)]
    pub jokers: u64,
    /// The inventory after, when the reward held Jokers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jokers_after: Option<u32>,
    /// When the claim was paid (UTC).
    pub claimed_at: DateTime<Utc>,
}

struct Claim<'a> {
    player: &'a str,
    message_id: &'a str,
    now: DateTime<Utc>,
    /// The reward's game, and whether it holds Jokers, as the inbox read before
    /// showed it (a message's reward never changes): what the claim reads.
    game: Game,
    jokers: bool,
}

impl Source for Claim<'_> {
    type Result = ClaimAnswer;

    fn key(&self) -> SourceKey {
        // `/` is in no player id nor message id: the key names one (player, message).
        SourceKey::new(KIND, format!("{}/{}", self.player, self.message_id))
    }

    fn content_hash(&self) -> String {
        hex_sha256(&self.key().id)
    }

    fn reads(&self) -> Reads {
        // The reward's game's balance (a defined board of any game pays, BD-9), and
        // the Jokers when the reward holds some.
        let mut reads = reward_reads(self.player, self.game, self.jokers);
        reads
            .states
            .push((self.player.to_string(), inbox::STATE.to_string()));
        reads
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<ClaimAnswer>, ServiceError> {
        let inbox: Inbox = state_body(read, self.player, inbox::STATE)?;
        let not_found = || ServiceError::NotFound("no reward to claim in that message of yours".to_string());
        let (inbox, reward) = inbox.claimed(self.message_id, self.now).ok_or_else(not_found)?;
        if reward.game != self.game || (reward.jokers > 0 && !self.jokers) {
            // Read for another reward than the message holds: never so, as a message's
            // reward does not change; refused rather than paid from a balance not read.
            return Err(ServiceError::Store(podium_store::StoreError::corrupt(
                "inbox",
                "a message's reward changed between two reads",
            )));
        }
        let mut s = Settlement::result_only(ClaimAnswer {
            player_id: self.player.to_string(),
            message_id: self.message_id.to_string(),
            points: 0,
            game: reward.game,
            balance_after: read.balance(reward.game, self.player).points,
            jokers: 0,
            jokers_after: None,
            claimed_at: self.now,
        });
        let paid = pay(read, self.player, &reward, self.message_id, self.now, &mut s)?;
        s.result.points = paid.points;
        s.result.balance_after = paid.balance_after;
        s.result.jokers = reward.jokers;
        s.result.jokers_after = paid.jokers_after;
        s.states.push(StateChange {
            player_id: self.player.to_string(),
            name: inbox::STATE.to_string(),
            body: serde_json::to_value(inbox)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("inbox", e)))?,
        });
        Ok(Planned::Write(s))
    }

    fn id_field(&self) -> &'static str {
        "id"
    }

    fn repeats_are_common(&self) -> bool {
        true
    }
}

/// Claims the reward of the caller's message `message_id`, exactly once (GM-3): every
/// repeat answers as the first claim. Errors: [`ServiceError::NotFound`] when the
/// caller has no such message or it holds no reward.
pub async fn claim<S: SettleStore + ?Sized>(
    store: &S,
    player_id: &str,
    message_id: &str,
    now: DateTime<Utc>,
) -> Result<ClaimAnswer, ServiceError> {
    // A record id's characters, and `+` (a cron period's id may carry its offset, BD-6).
    if !podium_rules::record::ids::is_valid_id(&message_id.replace('+', "-")) {
        return Err(ServiceError::NotFound(
            "no reward to claim in that message of yours".to_string(),
        ));
    }
    // What the claim reads depends on the reward: its game's balance, and the Jokers
    // when it holds some (one read of the inbox first).
    let held: Inbox = match store.get_state(player_id, inbox::STATE).await? {
        Some(state) => serde_json::from_str(&state.body)
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt("inbox", e)))?,
        None => Inbox::default(),
    };
    let (game, jokers) = held
        .get(message_id)
        .and_then(|m| m.reward.as_ref())
        .map_or((Game::MahjongRivals, false), |r| (r.game, r.jokers > 0));
    let source = Claim {
        player: player_id,
        message_id,
        now,
        game,
        jokers,
    };
    Ok(settle(store, &source, now).await?.result().clone())
}
