//! Players' profiles and friend lists (PF-1 … PF-5): the name, avatar and country
//! every entry the app reads carries, read in batches for any view.
//!
//! May use: [`crate::engine`] (its backoff), the store, the rules. Knows no board,
//! game or player feature; every view above reads cards through [`cards`].
//!
//! - [`cards`]: the items, and the cards of many players in one batch read.
//! - [`edit`]: the caller's profile read and changed (conditional on its version).
//! - [`friends`]: the caller's friend list.
//!
//! | item | partition key | sort key | body |
//! |---|---|---|---|
//! | profile | `PROFILE#{player id}` | `P` | [`podium_rules::profile::Profile`] (JSON) |
//! | friend list | `FRIENDS#{player id}` | `F` | the ids (JSON array) |

pub mod cards;
pub mod edit;
pub mod friends;

/// Attempts of a conditional write on one player's item before answering 503
/// `contended` (each after a jittered pause: concurrent writes of one player's own
/// item are rare, and none is lost).
pub(crate) const WRITE_ATTEMPTS: u32 = 12;

use podium_store::ItemKey;

/// The item of `player_id`'s profile.
pub fn profile_key(player_id: &str) -> ItemKey {
    ItemKey::new(format!("PROFILE#{player_id}"), "P")
}

/// The item of `player_id`'s friend list.
pub fn friends_key(player_id: &str) -> ItemKey {
    ItemKey::new(format!("FRIENDS#{player_id}"), "F")
}

/// Every item this room keeps under `player_id`: what a deletion removes (GM-6).
pub fn keys_of(player_id: &str) -> Vec<ItemKey> {
    vec![profile_key(player_id), friends_key(player_id)]
}
