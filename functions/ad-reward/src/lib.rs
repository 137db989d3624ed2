//! `ad-reward`: answers the ad networks' rewarded-ad callbacks on the HTTP API
//! (`GET /v1/ad-callbacks/admob`, `GET /v1/ad-callbacks/unity-ads`), with no JWT
//! authorizer: each callback's signature authenticates it. A verified callback of an
//! ad unit in the catalogue is paid once a day (SG-10, MJ-19).

pub mod error;
pub mod keys;
