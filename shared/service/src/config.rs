//! Configuration, read once at start-up from the environment, failing fast.
//!
//! | variable | used by | meaning | default |
//! |---|---|---|---|
//! | `PODIUM_TABLE` | Lambda functions; `podium` with DynamoDB | the DynamoDB table name | (required; `podium`: `podium`) |
//! | `PODIUM_CURSOR_KEY` | HTTP functions; `podium serve` | the secret (≥ 32 characters) that signs page cursors (LB-3) | (required; `podium`: a random key per process) |
//! | `PODIUM_MAX_CLOCK_SKEW_SECS` | score-match; `podium` | how far after podium's clock a record's instant may lie (game servers' clock skew; GM-5) | 300 |
//! | `PODIUM_MAX_RECORD_AGE_DAYS` | score-match; `podium` | how old a Mahjong Rivals record's instant may be when it arrives (1 … 364; older records are refused for good, GM-5) | 30 |
//! | `PODIUM_DYNAMODB_CONNECT_TIMEOUT_MS` | everything on DynamoDB | connecting to DynamoDB | 1000 |
//! | `PODIUM_DYNAMODB_ATTEMPT_TIMEOUT_MS` | everything on DynamoDB | one attempt of a request | 1500 |
//! | `PODIUM_DYNAMODB_OPERATION_TIMEOUT_MS` | everything on DynamoDB | a request with its retries | 4000 |
//! | `PODIUM_DYNAMODB_MAX_ATTEMPTS` | everything on DynamoDB | attempts per request | 3 |
//! | `AWS_ENDPOINT_URL_DYNAMODB` | `podium` | when set, `podium` uses DynamoDB there instead of the embedded store (the SDK reads it too) | unset |
//! | `PODIUM_DATA` | `podium` | the embedded store's file | `podium-data/podium.redb` |
//! | `DEAD_LETTER_QUEUE_URL` | `score-match` | where records that can never succeed go, with their reason | (required) |
//! | `PODIUM_AD_CATALOGUE` | `ad-reward`; `podium serve` | the ad units podium pays for (JSON, or `@file`; see `podium_ads::catalogue`) | (required by `ad-reward`; `podium serve` answers no ad callbacks without it) |
//! | `PODIUM_AD_MAX_AGE_SECS` | `ad-reward`; `podium serve` | the oldest ad view paid (SG-10) | 86400 |
//! | `PODIUM_AD_MAX_AHEAD_SECS` | `ad-reward`; `podium serve` | how far after podium's clock an ad view's timestamp may lie | 300 |
//! | `PODIUM_ADMOB_KEYS_URL` | `ad-reward` | where AdMob's verifier keys are published | `https://www.gstatic.com/admob/reward/verifier-keys.json` |
//! | `PODIUM_ADMOB_KEYS_FILE` | `podium serve` (and `ad-reward`, instead of the URL) | a verifier-keys JSON file | unset |
//! | `PODIUM_UNITY_ADS_SECRET` | `ad-reward`; `podium serve` | Unity Ads' S2S secret; unset: Unity callbacks are not answered | unset |
//! | `PODIUM_SNAPSHOT_REFRESH_MINUTES` | HTTP functions; `podium serve` | how often the snapshot schedule refreshes live boards (template: `SnapshotRefreshMinutes`): how long answers built from a snapshot may be cached | 5 |
//! | `PODIUM_NAME_BLOCKLIST` | HTTP functions; `podium serve` | terms no display name may contain (PF-1): comma-separated, or `@file` with one per line | none |
//! | `PODIUM_AVATARS` | HTTP functions; `podium serve` | the avatar ids the app ships (PF-2), comma-separated | `a01` … `a24` |
//! | `PODIUM_COUNTRY_CHANGE_DAYS` | HTTP functions; `podium serve` | the least days between two changes of a player's country (PF-3), 0 … 365 | 30 |
//! | `PODIUM_PLAUSIBILITY` | score-match; `podium` | the plausibility checks (OP-2) a record must pass to be counted, else it is held for review (JSON, or `@file`; see `podium_rules::plausibility`) | unset: none |
//! | `PODIUM_RESTORE_DAYS` | operator function; `podium serve` | how long a suspended player can be restored (OP-4), 1 … 365 days | 30 |
//! | `PODIUM_MAX_BOARD_DEFINITIONS` | operator function; `podium serve` | how many active board definitions one game may feed (BD-11), 1 … 100: each adds 4 to 5 write units per player to every scored match of its game | 20 |
//! | `PODIUM_PERIOD_REWARDS` | `snapshot`; `podium snapshot`, `podium serve` | reward tables of period boards, paid when a period closes (JSON by board id, or `@file`; see `podium_rules::period_reward`) | unset: no board sends period results |

use std::path::PathBuf;
use std::time::Duration;

use podium_ads::catalogue::Catalogue;
use podium_ads::keys::KeySet;
use podium_rules::period_reward::RewardTables;
use podium_rules::profile::ProfilePolicy;
use podium_rules::record::policy::RecordPolicy;
use podium_rules::reward::AdPolicy;
use podium_store::dynamo::Timeouts;
use thiserror::Error;

use crate::boards::cursor::CursorKey;

/// A setting that is missing or malformed.
#[derive(Debug, Error)]
#[error("configuration: {name} {problem}")]
pub struct ConfigError {
    pub name: &'static str,
    pub problem: String,
}

fn var(name: &'static str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn required(name: &'static str) -> Result<String, ConfigError> {
    var(name).ok_or(ConfigError {
        name,
        problem: "is not set".into(),
    })
}

fn number(
    name: &'static str,
    default: u64,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, ConfigError> {
    let Some(raw) = var(name) else {
        return Ok(default);
    };
    match raw.trim().parse::<u64>() {
        Ok(v) if range.contains(&v) => Ok(v),
        _ => Err(ConfigError {
            name,
            problem: format!("must be a whole number from {} to {}", range.start(), range.end()),
        }),
    }
}

/// The Lambda function's name (`AWS_LAMBDA_FUNCTION_NAME`, set by Lambda): the
/// `Function` dimension of its metrics; `podium` elsewhere.
pub fn function_name() -> String {
    std::env::var("AWS_LAMBDA_FUNCTION_NAME").unwrap_or_else(|_| "podium".to_string())
}

/// The DynamoDB table name (`PODIUM_TABLE`), checked against DynamoDB's naming rule.
pub fn table_name() -> Result<String, ConfigError> {
    let name = required("PODIUM_TABLE")?;
    check_table_name(&name)?;
    Ok(name)
}

/// DynamoDB's rule for a table name: 3 to 255 characters of `a–z A–Z 0–9 _ - .`;
/// a name outside it is refused here, naming `PODIUM_TABLE`, instead of by DynamoDB.
pub fn check_table_name(name: &str) -> Result<(), ConfigError> {
    let ok = (3..=255).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            name: "PODIUM_TABLE",
            problem: "must be a DynamoDB table name: 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'"
                .into(),
        })
    }
}

/// The dead-letter queue's URL (`DEAD_LETTER_QUEUE_URL`).
pub fn dead_letter_queue_url() -> Result<String, ConfigError> {
    required("DEAD_LETTER_QUEUE_URL")
}

/// Timeouts of every DynamoDB request (`PODIUM_DYNAMODB_*`; defaults: [`Timeouts::default`]).
pub fn dynamodb_timeouts() -> Result<Timeouts, ConfigError> {
    let d = Timeouts::default();
    let ms = |name, default: Duration| {
        number(name, default.as_millis() as u64, 1..=120_000).map(Duration::from_millis)
    };
    Ok(Timeouts {
        connect: ms("PODIUM_DYNAMODB_CONNECT_TIMEOUT_MS", d.connect)?,
        attempt: ms("PODIUM_DYNAMODB_ATTEMPT_TIMEOUT_MS", d.attempt)?,
        operation: ms("PODIUM_DYNAMODB_OPERATION_TIMEOUT_MS", d.operation)?,
        max_attempts: number("PODIUM_DYNAMODB_MAX_ATTEMPTS", u64::from(d.max_attempts), 1..=10)? as u32,
    })
}

/// The EventBridge bus inbox messages are published to (`PODIUM_EVENT_BUS`, a name
/// or ARN): the `events` function's.
pub fn event_bus() -> Result<String, ConfigError> {
    required("PODIUM_EVENT_BUS")
}

/// The management endpoint of the live feed's WebSocket API
/// (`PODIUM_LIVE_ENDPOINT`, `https://{api id}.execute-api.{region}.amazonaws.com/{stage}`):
/// where the `live` and `events` functions post pushes (LIVE-3).
pub fn live_endpoint() -> Result<String, ConfigError> {
    required("PODIUM_LIVE_ENDPOINT")
}

/// The most pushes a second one process posts to the live feed's connections
/// (`PODIUM_LIVE_POSTS_PER_SECOND`, default 2,000, 1 to 10,000): API Gateway's
/// account throttle bounds the management API's calls (docs/deploy.md).
pub fn live_posts_per_second() -> Result<u32, ConfigError> {
    Ok(number("PODIUM_LIVE_POSTS_PER_SECOND", 2_000, 1..=10_000)? as u32)
}

/// What record validation allows (`PODIUM_MAX_CLOCK_SKEW_SECS`, default 300 s;
/// `PODIUM_MAX_RECORD_AGE_DAYS`, default 30 days, at most 364).
pub fn record_policy() -> Result<RecordPolicy, ConfigError> {
    let d = RecordPolicy::default();
    let secs = number(
        "PODIUM_MAX_CLOCK_SKEW_SECS",
        (d.max_clock_skew_ms / 1000) as u64,
        0..=86_400,
    )?;
    let days = number(
        "PODIUM_MAX_RECORD_AGE_DAYS",
        d.max_record_age_days as u64,
        1..=podium_rules::record::policy::MAX_RECORD_AGE_DAYS_LIMIT as u64,
    )?;
    Ok(RecordPolicy {
        max_clock_skew_ms: secs as i64 * 1000,
        max_record_age_days: days as i64,
        plausibility: std::sync::Arc::new(plausibility()?),
    })
}

/// The plausibility checks (OP-2; `PODIUM_PLAUSIBILITY`, JSON or `@file`): unset, none.
pub fn plausibility() -> Result<podium_rules::plausibility::Plausibility, ConfigError> {
    let Some(raw) = var("PODIUM_PLAUSIBILITY") else {
        return Ok(Default::default());
    };
    let text = text_or_file("PODIUM_PLAUSIBILITY", raw)?;
    podium_rules::plausibility::Plausibility::from_json(&text).map_err(|problem| ConfigError {
        name: "PODIUM_PLAUSIBILITY",
        problem,
    })
}

/// The key that signs page cursors (`PODIUM_CURSOR_KEY`, at least 32 characters):
/// required where several processes must accept each other's cursors (the HTTP
/// functions).
pub fn cursor_key() -> Result<CursorKey, ConfigError> {
    let raw = std::env::var("PODIUM_CURSOR_KEY").map_err(|_| ConfigError {
        name: "PODIUM_CURSOR_KEY",
        problem: "is not set".into(),
    })?;
    CursorKey::new(raw.trim().as_bytes()).ok_or(ConfigError {
        name: "PODIUM_CURSOR_KEY",
        problem: format!(
            "must be at least {} bytes (spaces around it not counted)",
            CursorKey::MIN_LEN
        ),
    })
}

/// The cursor key for one local process: `PODIUM_CURSOR_KEY` when set (even to
/// something unusable, which fails), else a random key (cursors then last as long as
/// the process).
pub fn local_cursor_key() -> Result<CursorKey, ConfigError> {
    match std::env::var_os("PODIUM_CURSOR_KEY") {
        Some(_) => cursor_key(),
        None => Ok(CursorKey::random()),
    }
}

/// Where AdMob publishes its verifier keys.
pub const ADMOB_KEYS_URL: &str = "https://www.gstatic.com/admob/reward/verifier-keys.json";

/// Reads a setting's text, or the file it names with a leading `@`.
fn text_or_file(name: &'static str, value: String) -> Result<String, ConfigError> {
    match value.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path.trim()).map_err(|e| ConfigError {
            name,
            problem: format!("names a file that cannot be read: {e}"),
        }),
        None => Ok(value),
    }
}

/// The ad units podium pays for (`PODIUM_AD_CATALOGUE`), `None` when unset.
pub fn ad_catalogue() -> Result<Option<Catalogue>, ConfigError> {
    let Some(raw) = var("PODIUM_AD_CATALOGUE") else {
        return Ok(None);
    };
    let text = text_or_file("PODIUM_AD_CATALOGUE", raw)?;
    Catalogue::from_json(&text)
        .map(Some)
        .map_err(|problem| ConfigError {
            name: "PODIUM_AD_CATALOGUE",
            problem,
        })
}

/// The snapshot refresh interval when `PODIUM_SNAPSHOT_REFRESH_MINUTES` is unset.
pub const DEFAULT_REFRESH: Duration = Duration::from_secs(5 * 60);

/// How long a suspension can be restored (`PODIUM_RESTORE_DAYS`, 1 … 365 days;
/// default 30; OP-4).
pub fn restore_days() -> Result<i64, ConfigError> {
    Ok(number(
        "PODIUM_RESTORE_DAYS",
        crate::moderation::suspensions::DEFAULT_RESTORE_DAYS as u64,
        1..=365,
    )? as i64)
}

/// How many active board definitions one game may feed (`PODIUM_MAX_BOARD_DEFINITIONS`,
/// 1 … 100; default 20; BD-11).
pub fn max_board_definitions() -> Result<u32, ConfigError> {
    Ok(number(
        "PODIUM_MAX_BOARD_DEFINITIONS",
        u64::from(crate::boards::definitions::DEFAULT_MAX_ACTIVE_PER_GAME),
        1..=100,
    )? as u32)
}

/// The teams' limits (TM-2, TM-3): `PODIUM_TEAM_MEMBER_CAP` (members a team holds,
/// 2 … 1,000; default 50) and `PODIUM_TEAM_COOLDOWN_DAYS` (days after leaving a team
/// before joining another, 0 … 90; default 7).
pub fn team_policy() -> Result<podium_rules::team::TeamPolicy, ConfigError> {
    let d = podium_rules::team::TeamPolicy::default();
    let cap = number("PODIUM_TEAM_MEMBER_CAP", u64::from(d.member_cap), 2..=1_000)? as u32;
    let days = number(
        "PODIUM_TEAM_COOLDOWN_DAYS",
        podium_rules::team::DEFAULT_COOLDOWN_DAYS as u64,
        0..=90,
    )? as i64;
    Ok(podium_rules::team::TeamPolicy {
        member_cap: cap,
        cooldown_ms: days * 86_400_000,
    })
}

/// How many decoded snapshot page entries a process keeps between requests
/// (`PODIUM_READ_CACHE_ENTRIES`, 1,000 … 100,000,000; `default` when unset): about
/// 270 bytes of memory each when full, directory and movement included
/// ([`crate::boards::snapshot::read::Memo`]).
pub fn read_cache_entries(default: u64) -> Result<u64, ConfigError> {
    number("PODIUM_READ_CACHE_ENTRIES", default, 1_000..=100_000_000)
}

/// The default of [`read_cache_entries`] for `podium serve`: a whole 10^6-player
/// board's pages and more (about 540 MB when full).
pub const SERVE_READ_CACHE_ENTRIES: u64 = 2_000_000;

/// How often the snapshot schedule refreshes live boards
/// (`PODIUM_SNAPSHOT_REFRESH_MINUTES`, 1 … 60; default 5).
pub fn snapshot_refresh() -> Result<Duration, ConfigError> {
    let minutes = number(
        "PODIUM_SNAPSHOT_REFRESH_MINUTES",
        DEFAULT_REFRESH.as_secs() / 60,
        1..=60,
    )?;
    Ok(Duration::from_secs(minutes * 60))
}

/// What profiles are checked against (PF-1 … PF-3): `PODIUM_NAME_BLOCKLIST`
/// (comma-separated, or `@file` with a term per line), `PODIUM_AVATARS`
/// (comma-separated ids) and `PODIUM_COUNTRY_CHANGE_DAYS`; defaults:
/// [`ProfilePolicy::default`].
pub fn profile_policy() -> Result<ProfilePolicy, ConfigError> {
    let d = ProfilePolicy::default();
    let blocked: Vec<String> = match var("PODIUM_NAME_BLOCKLIST") {
        Some(raw) => text_or_file("PODIUM_NAME_BLOCKLIST", raw)?
            .split([',', '\n'])
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
        None => Vec::new(),
    };
    let avatars: Vec<String> = match var("PODIUM_AVATARS") {
        Some(raw) => raw
            .split(',')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
        None => d.avatars.clone(),
    };
    if avatars.iter().any(|a| !podium_rules::record::ids::is_valid_id(a)) {
        return Err(ConfigError {
            name: "PODIUM_AVATARS",
            problem: "must be ids of A-Z, a-z, 0-9, '.', '_', ':', '-', separated by commas".into(),
        });
    }
    let days = number(
        "PODIUM_COUNTRY_CHANGE_DAYS",
        u64::from(podium_rules::profile::DEFAULT_COUNTRY_CHANGE_DAYS),
        0..=365,
    )? as u32;
    let refs: Vec<&str> = blocked.iter().map(String::as_str).collect();
    Ok(ProfilePolicy::new(&refs, avatars, days))
}

/// The period boards' reward tables (`PODIUM_PERIOD_REWARDS`: JSON, or `@file`),
/// each checked ([`podium_rules::period_reward::RewardTable::check`]); none when unset.
pub fn period_rewards() -> Result<RewardTables, ConfigError> {
    let Some(raw) = var("PODIUM_PERIOD_REWARDS") else {
        return Ok(RewardTables::new());
    };
    let text = text_or_file("PODIUM_PERIOD_REWARDS", raw)?;
    parse_period_rewards(&text).map_err(|problem| ConfigError {
        name: "PODIUM_PERIOD_REWARDS",
        problem,
    })
}

/// What the scheduled ticks take from configuration: the period boards' reward tables
/// ([`period_rewards`]) and the record age ([`record_policy`]), which bounds how far
/// back the first catch-up of periods looks.
pub fn tick_settings() -> Result<crate::jobs::TickSettings, ConfigError> {
    Ok(crate::jobs::TickSettings {
        rewards: period_rewards()?,
        records: record_policy()?,
    })
}

/// Reward tables from JSON (`{"mahjong-weekly": {"bands": […]}, …}`), each checked.
pub fn parse_period_rewards(text: &str) -> Result<RewardTables, String> {
    podium_rules::period_reward::parse_tables(text)
}

/// How old or how far ahead an ad view may be (`PODIUM_AD_MAX_AGE_SECS`,
/// `PODIUM_AD_MAX_AHEAD_SECS`).
pub fn ad_policy() -> Result<AdPolicy, ConfigError> {
    let d = AdPolicy::default();
    Ok(AdPolicy {
        max_age_secs: number("PODIUM_AD_MAX_AGE_SECS", d.max_age_secs as u64, 60..=7 * 86_400)? as i64,
        max_ahead_secs: number("PODIUM_AD_MAX_AHEAD_SECS", d.max_ahead_secs as u64, 0..=3_600)? as i64,
    })
}

/// AdMob's verifier keys from the file `PODIUM_ADMOB_KEYS_FILE` names, if set.
pub fn admob_keys_file() -> Result<Option<KeySet>, ConfigError> {
    let Some(path) = var("PODIUM_ADMOB_KEYS_FILE") else {
        return Ok(None);
    };
    let bytes = std::fs::read(path.trim()).map_err(|e| ConfigError {
        name: "PODIUM_ADMOB_KEYS_FILE",
        problem: format!("cannot be read: {e}"),
    })?;
    KeySet::from_json(&bytes).map(Some).map_err(|e| ConfigError {
        name: "PODIUM_ADMOB_KEYS_FILE",
        problem: e.to_string(),
    })
}

/// Where to fetch AdMob's verifier keys (`PODIUM_ADMOB_KEYS_URL`).
pub fn admob_keys_url() -> String {
    var("PODIUM_ADMOB_KEYS_URL").unwrap_or_else(|| ADMOB_KEYS_URL.to_string())
}

/// Unity Ads' S2S secret (`PODIUM_UNITY_ADS_SECRET`), if set.
pub fn unity_ads_secret() -> Option<std::sync::Arc<[u8]>> {
    var("PODIUM_UNITY_ADS_SECRET").map(|s| s.trim().as_bytes().into())
}

/// What `podium serve` needs to answer ad callbacks: `None` without a catalogue; with
/// one, AdMob's keys come from `PODIUM_ADMOB_KEYS_FILE` (required then).
pub fn local_ads() -> Result<Option<crate::players::rewards::Ads>, ConfigError> {
    let Some(catalogue) = ad_catalogue()? else {
        return Ok(None);
    };
    let keys = admob_keys_file()?.ok_or(ConfigError {
        name: "PODIUM_ADMOB_KEYS_FILE",
        problem: "is not set (PODIUM_AD_CATALOGUE is: name a verifier-keys file)".into(),
    })?;
    Ok(Some(crate::players::rewards::Ads {
        admob_keys: std::sync::Arc::new(crate::players::rewards::StaticKeys(keys)),
        catalogue,
        policy: ad_policy()?,
        unity_secret: unity_ads_secret(),
    }))
}

/// Which store the local binary uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalStore {
    /// The embedded store in this file.
    Embedded(PathBuf),
    /// DynamoDB at `endpoint` (DynamoDB Local, typically), table `table`.
    Dynamo { endpoint: String, table: String },
}

/// The local binary's store: DynamoDB when `AWS_ENDPOINT_URL_DYNAMODB` is set
/// (table `PODIUM_TABLE`, default `podium`; check it with [`check_table_name`]), else
/// the embedded store at `PODIUM_DATA` (default `podium-data/podium.redb`).
pub fn local_store() -> LocalStore {
    match var("AWS_ENDPOINT_URL_DYNAMODB") {
        Some(endpoint) => LocalStore::Dynamo {
            endpoint,
            table: var("PODIUM_TABLE").map_or_else(|| "podium".to_string(), |t| t.trim().to_string()),
        },
        None => LocalStore::Embedded(
            std::env::var_os("PODIUM_DATA")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("podium-data/podium.redb")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DynamoDB's table naming rule, checked before any request names the table.
    #[test]
    fn table_names_follow_dynamodbs_rule() {
        for ok in ["podium", "abc", "my-table_1.prod", &"x".repeat(255)] {
            assert!(check_table_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "ab", "my table", "tab/le", "t\u{e9}ble", &"x".repeat(256)] {
            let e = check_table_name(bad).unwrap_err();
            assert_eq!(e.name, "PODIUM_TABLE", "{bad}");
        }
    }
}
