//! Rewarded-ad callbacks from the ad networks, verified before anything is paid
//! (SG-10, MJ-19): AdMob server-side verification ([`admob`]), Unity Ads
//! server-to-server callbacks ([`unity`]), the published verifier keys ([`keys`]),
//! and the catalogue of the ad units podium pays for ([`catalogue`]). Pure: the
//! keys are fetched and the clock read by the caller.

pub mod admob;
pub mod catalogue;
pub mod error;
pub mod keys;
pub mod query;
pub mod unity;

pub use error::AdError;
