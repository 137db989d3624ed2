//! The catalogue of the ad units podium pays for (configuration): each accepted
//! `{network}:{ad unit}` maps to a reward the rules define (SG-10, MJ-19). The
//! networks' signing keys are shared by every publisher, so a valid signature proves
//! nothing about the app: only a unit in the catalogue pays. AdMob's console test
//! unit is accepted only when `allow_test_units` is set.
//!
//! ```json
//! {"allow_test_units": false,
//!  "units": {"admob:5224354917": {"reward": "daily_points", "game": "seega", "points": 40},
//!            "admob:6300978111": {"reward": "bonus_doubling", "game": "mahjong-rivals"},
//!            "unity-ads:1234": {"reward": "daily_points", "game": "seega", "points": 40}}}
//! ```

use std::collections::HashMap;

use podium_rules::reward::{AdNetwork, AdReward};
use serde::Deserialize;

use crate::error::AdError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    #[serde(default)]
    allow_test_units: bool,
    units: HashMap<String, AdReward>,
}

/// The ad units podium pays for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalogue {
    units: HashMap<String, AdReward>,
}

impl Catalogue {
    /// Parses and checks a catalogue: every reward as the rules define it, the test
    /// unit only with `allow_test_units`. Errors say what to fix.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let wire: Wire = serde_json::from_str(text).map_err(|e| format!("not an ad catalogue: {e}"))?;
        for (unit, reward) in &wire.units {
            let (network, id) = unit
                .split_once(':')
                .ok_or_else(|| format!("`{unit}`: units are named `network:ad unit`"))?;
            if !matches!(network, "admob" | "unity-ads") {
                return Err(format!("`{unit}`: unknown network `{network}`"));
            }
            if network == "admob" && id == crate::admob::TEST_AD_UNIT && !wire.allow_test_units {
                return Err(format!(
                    "`{unit}` is AdMob's test unit: set allow_test_units to accept it"
                ));
            }
            reward.check().map_err(|e| format!("`{unit}`: {e}"))?;
        }
        Ok(Catalogue { units: wire.units })
    }

    /// What `ad_unit` of `network` pays, or [`AdError::ForeignAdUnit`].
    pub fn reward(&self, network: AdNetwork, ad_unit: &str) -> Result<AdReward, AdError> {
        self.units
            .get(&format!("{}:{ad_unit}", network.id()))
            .copied()
            .ok_or(AdError::ForeignAdUnit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podium_rules::game::Game;

    #[test]
    fn only_listed_units_pay_what_the_rules_say() {
        let c = Catalogue::from_json(
            r#"{"units": {"admob:1": {"reward": "daily_points", "game": "seega", "points": 40},
                          "admob:2": {"reward": "bonus_doubling", "game": "mahjong-rivals"}}}"#,
        )
        .unwrap();
        assert_eq!(
            c.reward(AdNetwork::Admob, "1"),
            Ok(AdReward::DailyPoints {
                game: Game::Seega,
                points: 40
            })
        );
        assert_eq!(c.reward(AdNetwork::Admob, "3"), Err(AdError::ForeignAdUnit));
        assert_eq!(c.reward(AdNetwork::UnityAds, "1"), Err(AdError::ForeignAdUnit));
        let test_unit =
            r#"{"units": {"admob:1234567890": {"reward": "daily_points", "game": "seega", "points": 40}}}"#;
        assert!(Catalogue::from_json(test_unit)
            .unwrap_err()
            .contains("allow_test_units"));
        let allowed = test_unit.replace("{\"units\"", "{\"allow_test_units\": true, \"units\"");
        assert!(Catalogue::from_json(&allowed).is_ok());
        let greedy = r#"{"units": {"admob:1": {"reward": "daily_points", "game": "seega", "points": 400}}}"#;
        assert!(Catalogue::from_json(greedy).unwrap_err().contains("SG-10"));
        assert!(Catalogue::from_json(
            r#"{"units": {"1": {"reward": "bonus_doubling", "game": "mahjong-rivals"}}}"#
        )
        .is_err());
        assert!(Catalogue::from_json("[]").is_err());
    }
}
