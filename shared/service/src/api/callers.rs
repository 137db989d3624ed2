//! Whether a caller's account was deleted (GM-6) or is suspended (OP-4, 403): every
//! route refuses a deleted caller, and any caller whose id is of the form reserved for deleted players'
//! pseudonyms, with 400 naming `caller` and GM-6, before it reads or writes anything.
//!
//! Every route that reads or writes the caller's own data reads their tombstone each
//! time, strongly consistent: a deleted player's repeated claim is refused like the
//! first, and so is their read right after the deletion. Routes that show a caller
//! nothing of their own (a board's page, a cohort, a tournament) remember, per
//! process, that a caller was not deleted for [`NOT_DELETED_TTL`] (a deletion reaches
//! them within it, as it reaches cached snapshot pointers). A deleted caller is
//! remembered until evicted; at most [`MAX_REMEMBERED`] callers, the least used evicted
//! first (an evicted caller's tombstone is read again: nothing is answered wrongly).

use std::time::{Duration, Instant};

use podium_store::SettleStore;

use crate::error::ServiceError;

/// How long a read remembers that its caller was not deleted.
pub const NOT_DELETED_TTL: Duration = Duration::from_secs(30);

/// Callers remembered at most (about 100 bytes each); when full, the least used are
/// evicted one by one, so a crowd of new callers never empties the memo at once.
pub const MAX_REMEMBERED: usize = 100_000;

/// What the process remembers of its callers.
pub struct Callers {
    known: quick_cache::sync::Cache<String, Known>,
}

impl Default for Callers {
    fn default() -> Self {
        Callers::with_capacity(MAX_REMEMBERED)
    }
}

impl std::fmt::Debug for Callers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callers")
            .field("remembered", &self.known.len())
            .finish()
    }
}

#[derive(Debug, Clone, Copy)]
enum Known {
    Deleted,
    NotDeletedAt(Instant),
}

use crate::engine::names::deleted_player as deleted_caller;

impl Callers {
    /// A memo of at most `callers` callers.
    pub fn with_capacity(callers: usize) -> Self {
        Callers {
            known: quick_cache::sync::Cache::new(callers.max(1)),
        }
    }

    /// Refuses `player` if their account was deleted, or if the id is of the form
    /// reserved for deleted players' pseudonyms (GM-6), or is no account at all (an
    /// internal owner or a malformed id: a 400 naming `caller`, GM-5). `fresh`: read the tombstone
    /// whatever is remembered (the routes of the caller's own data).
    pub async fn check<S: SettleStore + ?Sized>(
        &self,
        store: &S,
        player: &str,
        fresh: bool,
    ) -> Result<(), ServiceError> {
        use podium_rules::record::ids::{check_player_id, player_id_form, PlayerIdForm};
        match player_id_form(player) {
            PlayerIdForm::Account => {}
            PlayerIdForm::DeletedPseudonym => return Err(deleted_caller()),
            PlayerIdForm::Internal | PlayerIdForm::Malformed => check_player_id("caller", player)?,
        }
        match self.known.get(player) {
            Some(Known::Deleted) => return Err(deleted_caller()),
            Some(Known::NotDeletedAt(at)) if !fresh && at.elapsed() < NOT_DELETED_TTL => return Ok(()),
            _ => {}
        }
        let account = store.account(player).await?;
        if account == podium_store::Account::Suspended {
            // OP-4: refused while suspended; not remembered (a restore lifts it).
            self.known.remove(player);
            return Err(ServiceError::Suspended {
                player: player.to_string(),
            });
        }
        if account == podium_store::Account::Deleted {
            self.known.insert(player.to_string(), Known::Deleted);
            Err(deleted_caller())
        } else {
            self.known
                .insert(player.to_string(), Known::NotDeletedAt(Instant::now()));
            Ok(())
        }
    }

    /// How many callers are remembered.
    pub fn remembered(&self) -> usize {
        self.known.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_store::embedded::EmbeddedStore;

    #[tokio::test]
    async fn a_crowd_of_new_callers_evicts_the_least_used_not_everyone() {
        let store = EmbeddedStore::in_memory().unwrap();
        let callers = Callers::with_capacity(1_000);
        for i in 0..5_000 {
            callers.check(&store, &format!("p-{i:05}"), false).await.unwrap();
            // One regular caller, seen between every newcomer.
            callers.check(&store, "p-regular", false).await.unwrap();
        }
        assert!(callers.remembered() <= 1_000, "{}", callers.remembered());
        assert!(
            callers.remembered() >= 500,
            "the memo was emptied: {}",
            callers.remembered()
        );
        assert!(
            matches!(callers.known.get("p-regular"), Some(Known::NotDeletedAt(_))),
            "a caller in constant use stays remembered"
        );
    }

    #[tokio::test]
    async fn gm6_a_reserved_id_is_refused_before_any_read() {
        let store = EmbeddedStore::in_memory().unwrap();
        let callers = Callers::default();
        let reserved = format!("{}abc", podium_rules::record::ids::RESERVED_PREFIX);
        assert!(callers.check(&store, &reserved, false).await.is_err());
        assert_eq!(callers.remembered(), 0);
    }
}
