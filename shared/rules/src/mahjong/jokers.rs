//! Jokers (MJ-6): an account's inventory, spent in rounds and never returned.
//!
//! Each use spends one Joker of the account (Single Player, Duel, Arena, Tournament);
//! at most 2 per round; used Jokers are never returned, also not on a restart. They
//! are earned by the daily bonus (MJ-18) and are not account points (MJ-21).

use serde::{Deserialize, Serialize};

use crate::error::RuleError;

/// The state item holding an account's Joker inventory.
pub const JOKERS_STATE: &str = "mahjong-rivals/jokers";

/// Jokers one round may use (MJ-6).
pub const MAX_PER_ROUND: u32 = 2;

/// An account's Joker inventory (MJ-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Jokers {
    pub count: u32,
}

impl Jokers {
    /// The inventory after a round used `used` Jokers, reported in `field`. Refuses
    /// more than [`MAX_PER_ROUND`] in one round, or more than the account holds
    /// (MJ-6); nothing is spent then.
    pub fn spend(self, field: &str, used: u32) -> Result<Jokers, RuleError> {
        if used > MAX_PER_ROUND {
            return Err(RuleError::new(
                field,
                "MJ-6",
                format!("a round (a level, an Arena round, a table) uses at most {MAX_PER_ROUND} Jokers, not {used}"),
            ));
        }
        let count = self.count.checked_sub(used).ok_or_else(|| {
            RuleError::new(
                field,
                "MJ-6",
                format!(
                    "{used} Jokers used, {} held (Jokers come from the daily bonus, MJ-18)",
                    self.count
                ),
            )
        })?;
        Ok(Jokers { count })
    }

    /// The inventory with `earned` more (the daily bonus, MJ-18).
    pub fn earn(self, earned: u32) -> Jokers {
        Jokers {
            count: self.count.saturating_add(earned),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mj_6_at_most_two_jokers_a_round() {
        let held = Jokers { count: 5 };
        assert_eq!(held.spend("jokers_used", 2), Ok(Jokers { count: 3 }));
        let e = held.spend("jokers_used", 3).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("jokers_used", "MJ-6"));
    }

    #[test]
    fn mj_6_no_spending_more_than_held_and_nothing_returned() {
        let held = Jokers { count: 1 };
        let e = held.spend("jokers_used", 2).unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("jokers_used", "MJ-6"));
        // A restart reports its Jokers again: they are spent again, never refunded.
        let after_round = held.spend("jokers_used", 1).expect("spent");
        assert_eq!(after_round, Jokers { count: 0 });
        assert!(after_round.spend("jokers_used", 1).is_err());
        assert_eq!(after_round.earn(1), Jokers { count: 1 });
    }
}
