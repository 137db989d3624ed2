//! Conditional requests on answers built from a snapshot (LB-5): an `ETag` naming the
//! snapshot (and its revision, GM-6) and the request, `Cache-Control` up to the
//! board's next scheduled refresh, and `304 Not Modified` for an `If-None-Match`
//! that still holds, answered before any page is read.
//!
//! A snapshot's pages never change, so an answer built from one is fresh until the
//! next refresh replaces it: `max-age` is the time left until then (`as_of` + the
//! refresh interval), and the 30 s a process may go on answering from it after the
//! refresh (its copy of the pointer), 0 when the refresh is late (the cache then revalidates, and a
//! 304 costs no page read). A period's frozen `final` snapshot never changes: a day.
//! Pages are the same for every caller (`public`); around-me is the caller's own
//! (`private`). See `docs/api.md` ("Caching") for CloudFront and the app's HTTP cache.

use std::time::Duration;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};

use podium_rules::board::BoardRef;
use podium_rules::period::PeriodClock;
use sha2::{Digest, Sha256};

use crate::boards::pages::CACHE_TTL;
use crate::boards::snapshot::layout::{Published, FINAL};

/// How long a frozen period's answers may be kept, in seconds.
pub const FINAL_MAX_AGE_SECS: i64 = 86_400;

/// What an answer depends on besides its snapshot, hashed part by part for its ETag
/// (each part length-prefixed, so no two requests hash alike): the route, the board,
/// its period clock (LB-6), then the route's own inputs.
pub struct RequestTag(Sha256);

impl RequestTag {
    /// The request of `route` (`page`, `me`) on `board` under `clock`.
    pub fn new(route: &str, board: &BoardRef, clock: &PeriodClock) -> Self {
        let instant = |t: Option<DateTime<Utc>>| t.map_or(i64::MIN, |t| t.timestamp_millis());
        RequestTag(Sha256::new())
            .with(route)
            .with(&board.board)
            .with(&board.period)
            .with(&clock.period)
            .with(&clock.zone)
            .with_int(clock.kind as i64)
            .with_int(instant(clock.start))
            .with_int(instant(clock.end))
            .with_int(instant(clock.next_reset))
            .with_int(clock.window_days.map_or(-1, i64::from))
    }

    /// This request with one more input.
    pub fn with(mut self, part: impl AsRef<[u8]>) -> Self {
        let part = part.as_ref();
        self.0.update((part.len() as u64).to_le_bytes());
        self.0.update(part);
        self
    }

    /// This request with one more integer input.
    pub fn with_int(self, n: i64) -> Self {
        self.with(n.to_le_bytes())
    }
}

/// The validators of one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validators {
    /// A strong entity tag, quoted: `"{snapshot}.{16 hex digits of the request}"`
    /// ([`Validators::etag_of`]).
    pub etag: HeaderValue,
    pub cache_control: HeaderValue,
}

impl Validators {
    /// The validators of an answer to `request` (every input of the answer besides the
    /// snapshot) built from snapshot `p` at `now`, with snapshots
    /// refreshed every `refresh`; `private` for an answer about the caller.
    pub fn new(
        p: &Published,
        request: RequestTag,
        private: bool,
        refresh: Duration,
        now: DateTime<Utc>,
    ) -> Self {
        Self::with_etag(p, Self::etag_of(p, request), private, refresh, now)
    }

    /// The entity tag of an answer to `request` built from snapshot `p`:
    /// `"{snapshot}.{16 hex digits of the request}"`, quoted.
    pub fn etag_of(p: &Published, request: RequestTag) -> HeaderValue {
        let digest = request.0.finalize();
        let mut etag = String::with_capacity(p.id.len() + 24);
        etag.push('"');
        etag.push_str(&p.render_key());
        etag.push('.');
        etag.push_str(&hex::encode(&digest[..8]));
        etag.push('"');
        // A snapshot id and hex digits: always a valid header value.
        HeaderValue::from_maybe_shared(bytes::Bytes::from(etag)).unwrap_or(HeaderValue::from_static("\"\""))
    }

    /// The validators of an answer built from snapshot `p` whose entity tag is `etag`
    /// (one [`Validators::etag_of`] made when the answer was kept).
    pub fn with_etag(
        p: &Published,
        etag: HeaderValue,
        private: bool,
        refresh: Duration,
        now: DateTime<Utc>,
    ) -> Self {
        let max_age = if p.id == FINAL {
            FINAL_MAX_AGE_SECS
        } else if p.fresh(now.timestamp_millis()) {
            // Within its fresh window a snapshot's pages and movement items may not be
            // visible yet to eventually consistent reads: an answer built then is not
            // to be kept (the server does not keep it either).
            0
        } else {
            // Until the next refresh, and the time a process may go on answering from
            // this snapshot after it (its copy of the pointer, [`CACHE_TTL`]): a cache
            // that revalidated sooner would only be told 304 by such a process.
            let refresh_ms = i64::try_from(refresh.as_millis()).unwrap_or(i64::MAX);
            let kept_ms = i64::try_from(CACHE_TTL.as_millis()).unwrap_or(0);
            let window = refresh_ms.saturating_add(kept_ms);
            let next = p.as_of.timestamp_millis().saturating_add(window);
            (next - now.timestamp_millis()).clamp(0, window) / 1000
        };
        let scope = if private { "private" } else { "public" };
        let cache_control = format!("{scope}, max-age={max_age}");
        Validators {
            etag,
            cache_control: HeaderValue::from_maybe_shared(bytes::Bytes::from(cache_control))
                .unwrap_or(HeaderValue::from_static("no-cache")),
        }
    }

    /// Whether `headers` carry an `If-None-Match` this ETag satisfies (`*` included).
    pub fn not_modified(&self, headers: &HeaderMap) -> bool {
        headers
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == "*" || t.as_bytes() == self.etag.as_bytes())
    }

    /// A 304 with these validators and no body.
    pub fn not_modified_response(&self) -> Response {
        let mut r = StatusCode::NOT_MODIFIED.into_response();
        self.apply(&mut r);
        r
    }

    /// Puts the `ETag` and `Cache-Control` headers on `response`.
    pub fn apply(&self, response: &mut Response) {
        let h = response.headers_mut();
        h.insert(header::ETAG, self.etag.clone());
        h.insert(header::CACHE_CONTROL, self.cache_control.clone());
    }
}
