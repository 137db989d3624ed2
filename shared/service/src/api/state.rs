//! What every request shares: the store, the per-process context, the clock.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use podium_store::Store;

use crate::boards::cursor::CursorKey;
use crate::boards::pages::SnapshotCache;
use crate::boards::snapshot::rendered::RenderedPages;
use crate::players::rewards::Ads;

/// What every request of one process shares: the snapshot pointer cache, the top
/// pages rendered from the current snapshots, what it knows of its callers' deletions
/// (GM-6), the key that signs and checks page cursors, and (where ad callbacks are
/// answered) the verifier keys and the ad-unit catalogue. Cloning shares them.
#[derive(Clone)]
pub struct ApiContext {
    pub cache: Arc<SnapshotCache>,
    /// Top pages and pages reached by a cursor of the current snapshots, rendered
    /// once (bounded in bytes).
    pub pages: Arc<RenderedPages>,
    pub callers: Arc<crate::api::callers::Callers>,
    pub cursors: CursorKey,
    pub ads: Option<Arc<Ads>>,
    /// What names, avatars and countries are checked against (PF-1 … PF-3).
    pub profiles: Arc<podium_rules::profile::ProfilePolicy>,
    /// How often the snapshot job refreshes live boards: how long an answer built
    /// from a snapshot stays fresh ([`crate::api::validators`]).
    pub refresh: std::time::Duration,
    /// How records are validated, and the plausibility checks (GM-5, OP-2): what an
    /// approval of a held record settles it under.
    pub records: Arc<podium_rules::record::policy::RecordPolicy>,
    /// How long a suspension can be restored (days; OP-4).
    pub restore_days: i64,
    /// How many active board definitions one game may feed (BD-11).
    pub max_board_definitions: u32,
    /// The period boards' reward tables: what a period close an operator runs sends.
    pub rewards: Arc<podium_rules::period_reward::RewardTables>,
    /// How much of an operator's close a request does before it answers (the next
    /// ticks carry the rest on).
    pub operator_steps: crate::budget::StepLimit,
    /// The teams' member cap and cooldown (TM-2, TM-3).
    pub teams: podium_rules::team::TeamPolicy,
}

impl ApiContext {
    pub fn new(cursors: CursorKey) -> Self {
        ApiContext {
            cache: Arc::default(),
            pages: Arc::default(),
            callers: Arc::default(),
            cursors,
            ads: None,
            profiles: Arc::default(),
            refresh: crate::config::DEFAULT_REFRESH,
            records: Arc::default(),
            restore_days: crate::moderation::suspensions::DEFAULT_RESTORE_DAYS,
            max_board_definitions: crate::boards::definitions::DEFAULT_MAX_ACTIVE_PER_GAME,
            rewards: Arc::default(),
            operator_steps: Default::default(),
            teams: Default::default(),
        }
    }

    /// This context, with the teams' limits `policy` (TM-2, TM-3).
    pub fn with_teams(mut self, policy: podium_rules::team::TeamPolicy) -> Self {
        self.teams = policy;
        self
    }

    /// This context, letting an operator's request do at most `limit` of an action
    /// before it answers.
    pub fn with_operator_steps(mut self, limit: crate::budget::StepLimit) -> Self {
        self.operator_steps = limit;
        self
    }

    /// This context, keeping at most `entries` decoded snapshot page entries between
    /// requests ([`crate::boards::snapshot::read::Memo`]; [`crate::config::read_cache_entries`]).
    pub fn with_read_cache(mut self, entries: u64) -> Self {
        self.cache = Arc::new(SnapshotCache::with_memo_entries(entries));
        self
    }

    /// This context, closing periods with `tables`' rewards.
    pub fn with_rewards(mut self, tables: podium_rules::period_reward::RewardTables) -> Self {
        self.rewards = Arc::new(tables);
        self
    }

    /// This context, letting suspensions be restored for `days` (OP-4).
    pub fn with_restore_days(mut self, days: i64) -> Self {
        self.restore_days = days;
        self
    }

    /// This context, letting one game feed at most `cap` active board definitions (BD-11).
    pub fn with_max_board_definitions(mut self, cap: u32) -> Self {
        self.max_board_definitions = cap;
        self
    }

    /// This context, validating records under `policy` (GM-5, OP-2).
    pub fn with_records(mut self, policy: podium_rules::record::policy::RecordPolicy) -> Self {
        self.records = Arc::new(policy);
        self
    }

    /// This context, with snapshots refreshed every `refresh`.
    pub fn with_refresh(mut self, refresh: std::time::Duration) -> Self {
        self.refresh = refresh;
        self
    }

    /// This context, checking profiles against `policy` (PF-1 … PF-3).
    pub fn with_profiles(mut self, policy: podium_rules::profile::ProfilePolicy) -> Self {
        self.profiles = Arc::new(policy);
        self
    }

    /// This context, answering ad callbacks with `ads`.
    pub fn with_ads(mut self, ads: Ads) -> Self {
        self.ads = Some(Arc::new(ads));
        self
    }
}

/// The server clock: the instant (UTC) a request is answered at.
pub type Clock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// The router's state: the store, the shared [`ApiContext`] and the clock. The
/// router clones it for every request: three reference counts, not one per cache.
#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub ctx: Arc<ApiContext>,
    pub clock: Clock,
}

impl AppState {
    /// A state reading the system clock.
    pub fn new(store: Arc<dyn Store>, ctx: ApiContext) -> Self {
        AppState {
            store,
            ctx: Arc::new(ctx),
            clock: Arc::new(Utc::now),
        }
    }

    /// This state with its clock fixed at `now` (tests, replays).
    pub fn at(mut self, now: DateTime<Utc>) -> Self {
        self.clock = Arc::new(move || now);
        self
    }
}
