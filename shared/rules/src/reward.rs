//! Rewarded ads (GM-2, GM-3, SG-10, MJ-19): what a verified ad-network callback
//! says, when it is fresh enough to pay, and which reward an ad unit pays.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{quoted, RuleError};
use crate::game::Game;
use crate::record::ids::is_valid_id;

/// The ad networks podium verifies callbacks of.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdNetwork {
    /// Google AdMob server-side verification (ECDSA P-256).
    Admob,
    /// Unity Ads server-to-server redeem callbacks (HMAC-MD5).
    UnityAds,
}

impl AdNetwork {
    /// The id used in keys and ledger entries: `admob`, `unity-ads`.
    pub fn id(self) -> &'static str {
        match self {
            AdNetwork::Admob => "admob",
            AdNetwork::UnityAds => "unity-ads",
        }
    }
}

/// An ad view, as a callback whose signature was verified reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdView {
    pub network: AdNetwork,
    /// The ad unit shown (the catalogue says what it pays).
    pub ad_unit: String,
    /// The network's id of this reward: the idempotency key (GM-3).
    pub transaction_id: String,
    /// The player the app named when it showed the ad.
    pub player_id: String,
    /// When the ad was watched: the callback's signed timestamp (UTC), or its
    /// arrival when the network signs none.
    pub viewed_at: DateTime<Utc>,
}

/// What an ad unit pays (the catalogue maps ad units to these).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reward", rename_all = "snake_case")]
pub enum AdReward {
    /// A fixed number of points once per player and day (SG-10: Seega, 40).
    DailyPoints { game: Game, points: i64 },
    /// The day's claimed daily bonus once more, once per player and day (MJ-19).
    BonusDoubling { game: Game },
}

impl AdReward {
    /// Checks the reward against the rules: SG-10 pays 40 Seega points; MJ-19 doubles
    /// Mahjong Rivals' daily bonus. Anything else is a configuration error.
    pub fn check(&self) -> Result<(), String> {
        match *self {
            AdReward::DailyPoints {
                game: Game::Seega,
                points: crate::seega::daily_ad::DAILY_AD_POINTS,
            } => Ok(()),
            AdReward::DailyPoints {
                game: Game::Seega,
                points,
            } => Err(format!(
                "the Seega daily ad reward is {} points (SG-10), not {points}",
                crate::seega::daily_ad::DAILY_AD_POINTS
            )),
            AdReward::BonusDoubling {
                game: Game::MahjongRivals,
            } => Ok(()),
            other => Err(format!("no rule pays {other:?}")),
        }
    }

    /// The game paid.
    pub fn game(&self) -> Game {
        match *self {
            AdReward::DailyPoints { game, .. } | AdReward::BonusDoubling { game } => game,
        }
    }

    /// The kind of its once-a-day claim.
    pub fn claim_kind(&self) -> &'static str {
        match self {
            AdReward::DailyPoints { .. } => crate::seega::daily_ad::CLAIM_KIND,
            AdReward::BonusDoubling { .. } => crate::mahjong::daily_bonus::DOUBLING_KIND,
        }
    }
}

/// How old or how far ahead of the server's clock an ad view may be (configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdPolicy {
    /// The oldest view paid, in seconds (SG-10: "a stale one is refused").
    pub max_age_secs: i64,
    /// How far after the server's clock a signed timestamp may lie, in seconds.
    pub max_ahead_secs: i64,
}

impl Default for AdPolicy {
    /// A day old at most, five minutes ahead at most.
    fn default() -> Self {
        AdPolicy {
            max_age_secs: 24 * 3600,
            max_ahead_secs: 300,
        }
    }
}

impl AdView {
    /// Checks the view against `policy` at the server clock `now` (GM-5, SG-10):
    /// well-formed ids, a timestamp neither stale nor in the future.
    pub fn check(&self, now: DateTime<Utc>, policy: &AdPolicy) -> Result<(), RuleError> {
        if !is_valid_id(&self.transaction_id) {
            return Err(RuleError::new(
                "transaction_id",
                "GM-5",
                format!(
                    "not a transaction id podium accepts: {}",
                    quoted(&self.transaction_id)
                ),
            ));
        }
        if crate::record::ids::player_id_form(&self.player_id) == crate::record::ids::PlayerIdForm::Malformed
        {
            return Err(RuleError::new(
                "user_id",
                "GM-5",
                format!("not a player id: {}", quoted(&self.player_id)),
            ));
        }
        // The reserved forms (an internal owner, a deleted player's pseudonym), by name.
        crate::record::ids::check_player_id("user_id", &self.player_id)?;
        if self.viewed_at < now - chrono::Duration::seconds(policy.max_age_secs) {
            return Err(RuleError::new(
                "timestamp",
                "SG-10",
                format!("the ad was watched more than {} s ago", policy.max_age_secs),
            ));
        }
        if self.viewed_at > now + chrono::Duration::seconds(policy.max_ahead_secs) {
            return Err(RuleError::new(
                "timestamp",
                "SG-10",
                "the ad was watched after the server's clock",
            ));
        }
        Ok(())
    }

    /// The local date of the view in `game`'s zone (GM-2): the day it pays for.
    pub fn day(&self, game: Game) -> NaiveDate {
        game.local_date(self.viewed_at)
    }
}

/// How a rewarded ad ended, as the ad network (and the logs) see it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdStatus {
    /// The reward was paid by this callback.
    Granted,
    /// The player's reward of that day was paid before, by another callback.
    AlreadyGrantedToday,
    /// A doubling before the day's bonus was claimed: nothing to double (MJ-19).
    NothingToDouble,
}

/// The answer to a rewarded-ad callback, stored with the first one (GM-3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdResult {
    pub status: AdStatus,
    pub network: AdNetwork,
    pub transaction_id: String,
    pub player_id: String,
    pub game: Game,
    /// The local day paid for (GM-2).
    pub day: NaiveDate,
    /// Points paid (0 unless granted).
    pub points: i64,
    /// The balance after (points), when granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_after: Option<i64>,
}

/// What an ad grant plans from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdState {
    /// The player's balance on the game (points), if the player has one.
    pub balance: Option<i64>,
    /// Whether this reward was claimed on the view's day already.
    pub claimed: bool,
    /// For a doubling: the points of the daily bonus claimed that day, if any.
    pub bonus_claimed: Option<i64>,
}

/// Plans the reward of a checked ad view (SG-10, MJ-19): the settlement, or the
/// answer when nothing is paid. The player must already have a balance on the game
/// (a player podium knows), else the view is refused naming `user_id`.
pub fn plan(
    view: &AdView,
    reward: &AdReward,
    state: &AdState,
    now: DateTime<Utc>,
) -> Result<crate::settlement::Planned<AdResult>, RuleError> {
    use crate::settlement::{balance_change, ClaimMark, LedgerSource, Planned, Settlement};
    let game = reward.game();
    let day = view.day(game);
    let answer = |status, points, balance_after| AdResult {
        status,
        network: view.network,
        transaction_id: view.transaction_id.clone(),
        player_id: view.player_id.clone(),
        game,
        day,
        points,
        balance_after,
    };
    if state.claimed {
        return Ok(Planned::Nothing(answer(AdStatus::AlreadyGrantedToday, 0, None)));
    }
    let points = match *reward {
        AdReward::DailyPoints { points, .. } => points,
        AdReward::BonusDoubling { .. } => match state.bonus_claimed {
            Some(p) => p,
            None => return Ok(Planned::Nothing(answer(AdStatus::NothingToDouble, 0, None))),
        },
    };
    let Some(before) = state.balance else {
        return Err(RuleError::new(
            "user_id",
            "SG-10",
            format!("{} has no {} account yet", quoted(&view.player_id), game.id()),
        ));
    };
    let (change, entry) = balance_change(
        &view.player_id,
        game,
        before,
        points,
        LedgerSource {
            kind: "ad",
            id: &format!("{}:{}", view.network.id(), view.transaction_id),
            rule: match *reward {
                AdReward::DailyPoints { .. } => "SG-10",
                AdReward::BonusDoubling { .. } => "MJ-19",
            },
        },
        view.viewed_at,
    );
    let result = answer(AdStatus::Granted, points, Some(change.after));
    // SG-12: the ad's points may reach a higher rank.
    let messages = match game {
        Game::Seega => {
            crate::message::Message::rank_up("ad", &entry.source_id, before, change.after, view.viewed_at)
                .map(|msg| vec![(view.player_id.clone(), msg)])
                .unwrap_or_default()
        }
        _ => Vec::new(),
    };
    Ok(Planned::Write(Settlement {
        balances: vec![change],
        ledger: vec![entry],
        credits: crate::settlement::credits_for(game, &view.player_id, points, view.viewed_at, now),
        claims: vec![ClaimMark {
            player_id: view.player_id.clone(),
            game,
            kind: reward.claim_kind(),
            day,
            body: serde_json::json!({
                "network": view.network.id(),
                "transaction_id": view.transaction_id,
                "points": points,
            }),
        }],
        states: Vec::new(),
        messages,
        placements: Vec::new(),
        result,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settlement::Planned;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn view(at: &str) -> AdView {
        AdView {
            network: AdNetwork::Admob,
            ad_unit: "1234567890".into(),
            transaction_id: "txn-1".into(),
            player_id: "p-1".into(),
            viewed_at: t(at),
        }
    }

    const SEEGA_AD: AdReward = AdReward::DailyPoints {
        game: Game::Seega,
        points: 40,
    };

    /// SG-10: +40 on the day of the signed timestamp, whatever the network says.
    #[test]
    fn sg10_pays_40_on_the_views_day() {
        let v = view("2027-05-10T22:30:00Z");
        let state = AdState {
            balance: Some(10),
            claimed: false,
            bonus_claimed: None,
        };
        let Planned::Write(s) = plan(&v, &SEEGA_AD, &state, t("2027-05-10T22:31:00Z")).unwrap() else {
            panic!("granted");
        };
        assert_eq!(s.result.day.to_string(), "2027-05-10");
        assert_eq!((s.balances[0].before, s.balances[0].after), (10, 50));
        assert_eq!(s.claims[0].day.to_string(), "2027-05-10");
        assert!(s.credits.is_empty(), "Seega's board is the balance");
        let claimed = AdState {
            claimed: true,
            ..state
        };
        assert!(matches!(
            plan(&v, &SEEGA_AD, &claimed, t("2027-05-10T22:31:00Z")).unwrap(),
            Planned::Nothing(AdResult {
                status: AdStatus::AlreadyGrantedToday,
                ..
            })
        ));
        let unknown = AdState {
            balance: None,
            ..state
        };
        assert_eq!(
            plan(&v, &SEEGA_AD, &unknown, t("2027-05-10T22:31:00Z"))
                .unwrap_err()
                .field,
            "user_id"
        );
    }

    /// MJ-19: the doubling pays the day's bonus again, on Bucharest's day, and only
    /// after the bonus was claimed.
    #[test]
    fn mj19_doubles_the_days_bonus() {
        let v = view("2027-05-10T22:30:00Z");
        let doubling = AdReward::BonusDoubling {
            game: Game::MahjongRivals,
        };
        let before = AdState {
            balance: Some(100),
            claimed: false,
            bonus_claimed: None,
        };
        let now = t("2027-05-10T22:31:00Z");
        assert!(matches!(
            plan(&v, &doubling, &before, now).unwrap(),
            Planned::Nothing(AdResult {
                status: AdStatus::NothingToDouble,
                ..
            })
        ));
        let after = AdState {
            bonus_claimed: Some(30),
            ..before
        };
        let Planned::Write(s) = plan(&v, &doubling, &after, now).unwrap() else {
            panic!("doubled");
        };
        assert_eq!(s.result.day.to_string(), "2027-05-11");
        assert_eq!(s.result.points, 30);
        let periods: Vec<_> = s.credits.iter().map(|c| c.period.as_str()).collect();
        assert_eq!(periods, ["all", "2027-W19", "2027-05-11"]);
    }

    /// SG-10: stale and future views are refused naming `timestamp`.
    #[test]
    fn freshness() {
        let p = AdPolicy::default();
        let now = t("2027-05-11T12:00:00Z");
        assert!(view("2027-05-10T12:00:01Z").check(now, &p).is_ok());
        assert_eq!(
            view("2027-05-10T11:59:59Z").check(now, &p).unwrap_err().field,
            "timestamp"
        );
        assert_eq!(
            view("2027-05-11T12:05:01Z").check(now, &p).unwrap_err().field,
            "timestamp"
        );
        let mut v = view("2027-05-11T12:00:00Z");
        v.player_id = "a@b".into();
        assert_eq!(v.check(now, &p).unwrap_err().field, "user_id");
    }

    #[test]
    fn rewards_are_the_rules() {
        assert!(SEEGA_AD.check().is_ok());
        assert!(AdReward::DailyPoints {
            game: Game::Seega,
            points: 41
        }
        .check()
        .is_err());
        assert!(AdReward::BonusDoubling { game: Game::Seega }.check().is_err());
        assert!(AdReward::BonusDoubling {
            game: Game::MahjongRivals
        }
        .check()
        .is_ok());
    }
}
