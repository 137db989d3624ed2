//! SG-10: the daily ad reward. Watching one rewarded ad grants +40 Seega points, at
//! most once per player per day of the ad view's signed timestamp (UTC, GM-2); the
//! amount is podium's whatever the network's callback names. The grant itself is
//! planned by [`crate::reward::plan`].

/// Points of the daily ad reward (SG-10).
pub const DAILY_AD_POINTS: i64 = 40;

/// The kind of its once-a-day claim.
pub const CLAIM_KIND: &str = "daily-ad";
