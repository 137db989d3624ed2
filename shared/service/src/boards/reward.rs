//! Paying a period reward (LB-5, BD-9), as a claim from the inbox or a close that finds
//! the inbox full does: its points into the game's balance with their ledger entry
//! (source `period-reward`), its Jokers into the account's Mahjong Rivals inventory
//! (MJ-6), in the caller's settlement.

use chrono::{DateTime, Utc};
use podium_rules::game::Game;
use podium_rules::mahjong::jokers::{Jokers, JOKERS_STATE};
use podium_rules::period_reward::{self, LEDGER_SOURCE};
use podium_rules::settlement::{balance_change, LedgerSource, Settlement, StateChange};

use crate::engine::source::{ReadState, Reads};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// What [`pay`] credited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paid {
    /// Points applied to the balance (LB-2: a balance never goes below 0).
    pub points: i64,
    pub balance_after: i64,
    /// The account's Jokers after (MJ-6), when the reward held some.
    pub jokers_after: Option<u32>,
}

/// What paying a reward of `game` to `player` reads: the game's balance, and the
/// account's Jokers (MJ-6) when the reward holds some.
pub fn reward_reads(player: &str, game: Game, jokers: bool) -> Reads {
    Reads {
        states: if jokers {
            vec![(player.to_string(), JOKERS_STATE.to_string())]
        } else {
            Vec::new()
        },
        balances: vec![(game, player.to_string(), false)],
        ..Reads::default()
    }
}

/// Pays `reward` of message `message_id` to `player` in `s` (LB-5, BD-9): its points
/// into the game's balance with their ledger entry (source `period-reward`), its
/// Jokers into the account's inventory (MJ-6). `read` holds [`reward_reads`] of the
/// reward's game and Jokers.
/// Errors: a state item that does not decode.
pub fn pay<R>(
    read: &ReadState,
    player: &str,
    reward: &podium_rules::message::Reward,
    message_id: &str,
    now: DateTime<Utc>,
    s: &mut Settlement<R>,
) -> Result<Paid, ServiceError> {
    let before = read.balance(reward.game, player).points;
    let mut paid = Paid {
        points: 0,
        balance_after: before,
        jokers_after: None,
    };
    if reward.points != 0 {
        let (change, entry) = balance_change(
            player,
            reward.game,
            before,
            reward.points,
            LedgerSource {
                kind: LEDGER_SOURCE,
                id: message_id,
                rule: period_reward::RULE,
            },
            now,
        );
        (paid.points, paid.balance_after) = (entry.applied, change.after);
        s.balances.push(change);
        s.ledger.push(entry);
    }
    if reward.jokers > 0 {
        let jokers: Jokers = state_body(read, player, JOKERS_STATE)?;
        let after = jokers.earn(u32::try_from(reward.jokers).unwrap_or(u32::MAX));
        paid.jokers_after = Some(after.count);
        s.states.push(StateChange {
            player_id: player.to_string(),
            name: JOKERS_STATE.to_string(),
            body: serde_json::to_value(after)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(player, e)))?,
        });
    }
    Ok(paid)
}
