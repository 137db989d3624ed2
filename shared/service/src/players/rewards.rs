//! Daily rewards (SG-10, MJ-18, MJ-19): rewarded-ad callbacks verified and paid
//! once a day, and Mahjong Rivals' daily bonus claimed once a day, each a settlement
//! through the one commit path ([`crate::engine::settle`]).
//!
//! An ad callback's source is keyed by network and transaction id (a repeat gets the
//! first result); its date-keyed claim (player, game, reward, local day) makes the
//! reward once a day, in the same transaction as the balance, the ledger entry and
//! the board credits. A bonus claim's source is keyed by player and local day.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use p256::ecdsa::VerifyingKey;
use podium_ads::catalogue::Catalogue;
use podium_ads::keys::KeySet;
use podium_ads::{admob, unity, AdError};
use podium_rules::mahjong::daily_bonus::{self, BonusResult, BonusState, Jokers, Streak};
use podium_rules::reward::{self, AdPolicy, AdResult, AdReward, AdState, AdView};
use podium_rules::settlement::Planned;
use podium_store::{SettleStore, SourceKey};
use serde::Serialize;

use crate::engine::names::hex_sha256;
use crate::engine::settle::{settle, settle_as};
use crate::engine::source::{ReadState, Reads, Settled, Source};
use crate::engine::state::state_body;
use crate::error::ServiceError;

/// The source kind of ad rewards.
pub const AD: &str = "ad";

/// The source kind of daily-bonus claims.
pub const BONUS: &str = "bonus";

/// Where AdMob's verifier keys come from.
#[async_trait]
pub trait AdmobKeys: Send + Sync {
    /// The verifying key with `key_id`, if there is one. A source that fetches keys
    /// may fetch them again for an unknown id; its failure to fetch is transient
    /// ([`ServiceError::Store`] with [`podium_store::StoreError::Unavailable`]).
    async fn key(&self, key_id: u64) -> Result<Option<VerifyingKey>, ServiceError>;
}

/// A fixed key set (a key file: locally and in tests).
pub struct StaticKeys(pub KeySet);

#[async_trait]
impl AdmobKeys for StaticKeys {
    async fn key(&self, key_id: u64) -> Result<Option<VerifyingKey>, ServiceError> {
        Ok(self.0.get(key_id).copied())
    }
}

/// What answering ad callbacks needs (configuration).
#[derive(Clone)]
pub struct Ads {
    pub admob_keys: Arc<dyn AdmobKeys>,
    pub catalogue: Catalogue,
    pub policy: AdPolicy,
    /// Unity Ads' S2S secret, when Unity callbacks are accepted.
    pub unity_secret: Option<Arc<[u8]>>,
}

/// A refused callback: its authentication failed (403: no, a bad or an unreadable
/// signature, an unknown key, anything after `key_id`, a query that cannot be read,
/// an ad unit not podium's), or its verified content breaks a rule (400).
fn refused(e: AdError) -> ServiceError {
    match e {
        AdError::Malformed { field, message } if !matches!(field, "query" | "key_id") => {
            ServiceError::BadRequest { field, message }
        }
        other => ServiceError::Forbidden(other.to_string()),
    }
}

/// An ad view whose callback verified, with the reward its unit pays.
struct AdGrant {
    view: AdView,
    reward: AdReward,
    policy: AdPolicy,
    now: DateTime<Utc>,
}

impl Source for AdGrant {
    type Result = AdResult;

    fn key(&self) -> SourceKey {
        SourceKey::new(
            AD,
            format!("{}:{}", self.view.network.id(), self.view.transaction_id),
        )
    }

    fn content_hash(&self) -> String {
        let v = &self.view;
        hex_sha256(&format!(
            "{}|{}|{}|{}|{}",
            v.network.id(),
            v.ad_unit,
            v.transaction_id,
            v.player_id,
            v.viewed_at.timestamp_millis()
        ))
    }

    fn reads(&self) -> Reads {
        let game = self.reward.game();
        let day = self.view.day(game).to_string();
        let player = self.view.player_id.clone();
        let mut reads = Reads {
            balances: vec![(game, player.clone(), true)],
            claims: vec![(player.clone(), game, self.reward.claim_kind().to_string(), day)],
            ..Reads::default()
        };
        if let AdReward::BonusDoubling { .. } = self.reward {
            reads.sources.push(bonus_key(&player, self.view.day(game)));
        }
        reads
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<AdResult>, ServiceError> {
        // Checked here, after a repeat was answered: a retry of a paid callback gets
        // its first result even once it is stale.
        self.view.check(self.now, &self.policy)?;
        let game = self.reward.game();
        let day = self.view.day(game);
        let balance = read.balance(game, &self.view.player_id);
        let bonus_claimed = read
            .source(&bonus_key(&self.view.player_id, day))
            .and_then(|s| serde_json::from_str::<BonusResult>(&s.result).ok())
            .map(|b| b.points);
        let state = AdState {
            balance: (balance.version > 0).then_some(balance.points),
            claimed: read
                .claim(
                    &self.view.player_id,
                    game,
                    self.reward.claim_kind(),
                    &day.to_string(),
                )
                .is_some(),
            bonus_claimed,
        };
        Ok(reward::plan(&self.view, &self.reward, &state, self.now)?)
    }

    fn id_field(&self) -> &'static str {
        "transaction_id"
    }

    fn repeats_are_common(&self) -> bool {
        true
    }
}

/// The `operation` of the [`podium_store::StoreError::Unavailable`] a failed fetch
/// of AdMob's published verifier keys is reported as (answered 503, saying so).
pub const VERIFIER_KEYS: &str = "verifier keys";

/// The answer to an ad callback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct AdAnswer {
    #[serde(flatten)]
    pub result: AdResult,
    /// True when this callback's payment was answered before (a retry or a
    /// duplicate): also on the ad network's retry of a callback whose paying answer
    /// was lost (a 5xx), since the transaction id is the callback's only key. A
    /// callback that pays nothing (`already_granted_today`, `nothing_to_double`)
    /// writes nothing, so its repeats are answered alike but also with `false`.
    pub duplicate: bool,
}

/// Pays a verified ad view what its unit pays, once (GM-3, SG-10, MJ-19).
async fn grant<S: SettleStore + ?Sized>(
    store: &S,
    ads: &Ads,
    view: AdView,
    now: DateTime<Utc>,
) -> Result<AdAnswer, ServiceError> {
    let reward = ads
        .catalogue
        .reward(view.network, &view.ad_unit)
        .map_err(refused)?;
    let source = AdGrant {
        view,
        reward,
        policy: ads.policy,
        now,
    };
    let settled = settle(store, &source, now).await?;
    let duplicate = matches!(settled, Settled::Duplicate(_));
    Ok(AdAnswer {
        result: settled.into_result(),
        duplicate,
    })
}

/// Answers an AdMob SSV callback: `raw_query` is the request's raw query string
/// (API Gateway's `rawQueryString`). 403 for a missing or bad signature, an unknown
/// key or a foreign ad unit; 400 for a verified callback that breaks a rule.
pub async fn admob_callback<S: SettleStore + ?Sized>(
    store: &S,
    ads: &Ads,
    raw_query: &str,
    now: DateTime<Utc>,
) -> Result<AdAnswer, ServiceError> {
    let callback = admob::split(raw_query).map_err(refused)?;
    let key = ads
        .admob_keys
        .key(callback.key_id)
        .await?
        .ok_or_else(|| refused(AdError::UnknownKey(callback.key_id)))?;
    admob::verify_with(&callback, &key).map_err(refused)?;
    let view = admob::view(&callback).map_err(refused)?;
    grant(store, ads, view, now).await
}

/// Answers a Unity Ads S2S callback (HMAC-MD5 with the configured secret).
pub async fn unity_callback<S: SettleStore + ?Sized>(
    store: &S,
    ads: &Ads,
    raw_query: &str,
    now: DateTime<Utc>,
) -> Result<AdAnswer, ServiceError> {
    let secret = ads
        .unity_secret
        .as_ref()
        .ok_or_else(|| ServiceError::NotFound("Unity Ads callbacks are not configured".into()))?;
    let view = unity::verify(raw_query, secret, now).map_err(refused)?;
    grant(store, ads, view, now).await
}

/// The source key of `player`'s daily-bonus claim on `day`.
fn bonus_key(player: &str, day: chrono::NaiveDate) -> SourceKey {
    SourceKey::new(BONUS, daily_bonus::claim_id(player, day))
}

/// A daily-bonus claim by `player` at `now` (MJ-18).
struct BonusClaim<'a> {
    player: &'a str,
    now: DateTime<Utc>,
}

impl Source for BonusClaim<'_> {
    type Result = BonusResult;

    fn key(&self) -> SourceKey {
        bonus_key(self.player, daily_bonus::GAME.local_date(self.now))
    }

    fn content_hash(&self) -> String {
        hex_sha256(&self.key().id)
    }

    fn reads(&self) -> Reads {
        Reads {
            balances: vec![(daily_bonus::GAME, self.player.to_string(), false)],
            states: vec![
                (self.player.to_string(), daily_bonus::STREAK_STATE.to_string()),
                (self.player.to_string(), daily_bonus::JOKERS_STATE.to_string()),
            ],
            ..Reads::default()
        }
    }

    fn plan(&self, read: &ReadState) -> Result<Planned<BonusResult>, ServiceError> {
        let streak: Streak = state_body(read, self.player, daily_bonus::STREAK_STATE)?;
        let jokers: Jokers = state_body(read, self.player, daily_bonus::JOKERS_STATE)?;
        let state = BonusState {
            streak,
            jokers,
            balance: read.balance(daily_bonus::GAME, self.player).points,
        };
        Ok(daily_bonus::plan(self.player, self.now, &state))
    }

    fn id_field(&self) -> &'static str {
        "day"
    }

    fn repeats_are_common(&self) -> bool {
        true
    }
}

/// The answer to a daily-bonus claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct BonusAnswer {
    #[serde(flatten)]
    pub result: BonusResult,
    /// False when today's bonus was claimed before (this answer is that claim's).
    pub claimed_now: bool,
}

/// Claims `player`'s daily bonus for today (Europe/Bucharest) at `now`, once (MJ-18).
/// `idempotency_key`: the app's id of this claim, the same on each of its retries, so
/// that a retry after a lost answer on the same Bucharest day is answered as the
/// claim it repeats (`claimed_now` true when that claim paid); a retry after midnight
/// claims the new day. Without one, every call is a claim of its own.
pub async fn claim_daily_bonus<S: SettleStore + ?Sized>(
    store: &S,
    player: &str,
    now: DateTime<Utc>,
    idempotency_key: Option<&str>,
) -> Result<BonusAnswer, ServiceError> {
    let claim = BonusClaim { player, now };
    let settled = match idempotency_key {
        Some(key) => settle_as(store, &claim, &format!("app:{key}"), now).await?,
        None => settle(store, &claim, now).await?,
    };
    let claimed_now = matches!(settled, Settled::Applied(_));
    Ok(BonusAnswer {
        result: settled.into_result(),
        claimed_now,
    })
}

/// The caller's Mahjong Rivals profile (`GET /v1/me/mahjong-rivals`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct MahjongProfile {
    pub player_id: String,
    /// Mahjong Rivals account points (MJ-21).
    pub points: i64,
    pub points_shown: String,
    /// Jokers held (MJ-6).
    pub jokers: u32,
    /// Their place on `mahjong-amr`, `mahjong-weekly` and `mahjong-daily` now (MJ-20).
    pub boards: Vec<crate::boards::live::BoardPlace>,
    /// Tournaments won, each with its cup or, for the Champions Tournament, its
    /// replica trophy (MJ-17).
    #[schema(value_type = Vec<Object>)]
    pub trophies: Vec<podium_rules::mahjong::tournament_play::TrophyWon>,
}

/// The caller's Mahjong Rivals points, Jokers, trophies and `places` (3 reads besides them).
pub async fn mahjong_profile<S: SettleStore + ?Sized>(
    store: &S,
    player_id: &str,
    places: Vec<crate::boards::live::BoardPlace>,
) -> Result<MahjongProfile, ServiceError> {
    let balance = store.get_balances(daily_bonus::GAME, &[player_id]).await?;
    let points = balance.first().map_or(0, |b| b.points);
    // GM-6: a deleted player has no balance; their profile is gone.
    if balance.first().is_none_or(|b| b.version == 0) && store.is_deleted(player_id).await? {
        return Err(crate::engine::names::deleted_player());
    }
    let jokers = match store.get_state(player_id, daily_bonus::JOKERS_STATE).await? {
        None => 0,
        Some(state) => {
            serde_json::from_str::<Jokers>(&state.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(player_id, e)))?
                .count
        }
    };
    use podium_rules::mahjong::tournament_play::{Trophies, TROPHIES_STATE};
    let trophies = match store.get_state(player_id, TROPHIES_STATE).await? {
        None => Vec::new(),
        Some(state) => {
            serde_json::from_str::<Trophies>(&state.body)
                .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(player_id, e)))?
                .trophies
        }
    };
    Ok(MahjongProfile {
        player_id: player_id.to_string(),
        points,
        points_shown: podium_rules::display::format_points(points),
        jokers,
        boards: places,
        trophies,
    })
}
