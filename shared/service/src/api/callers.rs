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
//! remembered for good; at most [`MAX_REMEMBERED`] callers.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use podium_store::SettleStore;

use crate::error::ServiceError;

/// How long a read remembers that its caller was not deleted.
pub const NOT_DELETED_TTL: Duration = Duration::from_secs(30);

/// Callers remembered at most; when full, the answers not kept for good are forgotten.
pub const MAX_REMEMBERED: usize = 100_000;

/// What the process remembers of its callers.
#[derive(Debug, Default)]
pub struct Callers {
    known: Mutex<HashMap<String, Known>>,
}

#[derive(Debug, Clone, Copy)]
enum Known {
    Deleted,
    NotDeletedAt(Instant),
}

use crate::engine::names::deleted_player as deleted_caller;

impl Callers {
    fn known(&self) -> std::sync::MutexGuard<'_, HashMap<String, Known>> {
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Refuses `player` if their account was deleted, or if the id is of the form
    /// reserved for deleted players' pseudonyms (GM-6). `fresh`: read the tombstone
    /// whatever is remembered (the routes of the caller's own data).
    pub async fn check<S: SettleStore + ?Sized>(
        &self,
        store: &S,
        player: &str,
        fresh: bool,
    ) -> Result<(), ServiceError> {
        if podium_rules::record::ids::is_reserved_id(player) {
            return Err(deleted_caller());
        }
        match self.known().get(player) {
            Some(Known::Deleted) => return Err(deleted_caller()),
            Some(Known::NotDeletedAt(at)) if !fresh && at.elapsed() < NOT_DELETED_TTL => return Ok(()),
            _ => {}
        }
        let account = store.account(player).await?;
        if account == podium_store::Account::Suspended {
            // OP-4: refused while suspended; not remembered (a restore lifts it).
            return Err(ServiceError::Suspended {
                player: player.to_string(),
            });
        }
        let deleted = account == podium_store::Account::Deleted;
        let mut known = self.known();
        if known.len() >= MAX_REMEMBERED {
            known.retain(|_, k| matches!(k, Known::Deleted));
            if known.len() >= MAX_REMEMBERED {
                known.clear();
            }
        }
        if deleted {
            known.insert(player.to_string(), Known::Deleted);
            Err(deleted_caller())
        } else {
            known.insert(player.to_string(), Known::NotDeletedAt(Instant::now()));
            Ok(())
        }
    }
}
