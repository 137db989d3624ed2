//! `POST /v1/dev/clock` and `GET /v1/dev/clock`: the test clock of `podium serve
//! --test-clock START`, moved on purpose (as Stripe's test clocks are).
//!
//! `{"advance": "PT25H"}` (an ISO 8601 duration of weeks, days, hours, minutes and
//! seconds, or the same in words, `25 hours`; a day is 24 hours) or `{"set": "2027-03-28T00:30:00+02:00"}` (RFC 3339)
//! moves the clock forward and runs, in order, the scheduled jobs that would have run
//! in between ([`podium_service::jobs::schedule::run_between`]): period freezes and
//! closes with their rewards (LB-5), AMR window days (MJ-20), league weeks, tournament
//! steps, then the catch-up and refresh at the new instant. Every request answered
//! after the move reads the new instant; moves run one at a time.
//!
//! Development identity only (`Authorization: Dev <player-id>` or `Operator <name>`).
//! Without `--test-clock` the route does not exist (404), and no Lambda function has
//! it: only this binary's router merges it.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json};
use chrono::{DateTime, Duration, Utc};
use podium_service::api::{ApiError, Identity};
use podium_service::error::ServiceError;
use podium_service::jobs::{schedule, TickSettings};
use podium_store::Store;
use serde::{Deserialize, Serialize};

use crate::clock::{check_in_years, TestClock};

/// The route's path.
pub const PATH: &str = "/v1/dev/clock";

#[derive(Clone)]
struct DevClock {
    store: Arc<dyn Store>,
    /// The API's snapshot pointers, forgotten after a move: reads then follow the
    /// snapshots the move's ticks published, not the pointers cached before it.
    snapshots: Arc<podium_service::boards::pages::SnapshotCache>,
    clock: Arc<TestClock>,
    settings: Arc<TickSettings>,
    /// The refresh schedule's interval (`PODIUM_SNAPSHOT_REFRESH_MINUTES`).
    refresh: std::time::Duration,
}

/// The routes of the test clock, for `podium serve --test-clock` only.
pub fn routes(
    store: Arc<dyn Store>,
    snapshots: Arc<podium_service::boards::pages::SnapshotCache>,
    clock: Arc<TestClock>,
    settings: TickSettings,
    refresh: std::time::Duration,
) -> axum::Router {
    let state = DevClock {
        store,
        snapshots,
        clock,
        settings: Arc::new(settings),
        refresh,
    };
    axum::Router::new()
        .route(PATH, get(show).post(move_clock))
        .with_state(state)
}

/// A move: exactly one of `advance` and `set`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Move {
    /// An ISO 8601 duration (`PT25H`, `P1D`, `P2W`, `P1DT30M`): weeks, days (24 h),
    /// hours, minutes, seconds; no years or months (their length varies).
    advance: Option<String>,
    /// An RFC 3339 instant after the clock's.
    set: Option<String>,
}

/// What a move did.
#[derive(Debug, Serialize)]
struct Moved {
    /// The instant the clock showed before the move (UTC).
    from: DateTime<Utc>,
    /// The instant it shows now (UTC).
    now: DateTime<Utc>,
    /// Scheduled ticks run, in order.
    ticks: usize,
    /// Periods frozen and closed, oldest first: `board@period`.
    periods_closed: Vec<String>,
    /// `period_result` messages the closes sent.
    period_results_sent: usize,
    /// League weeks closed.
    league_weeks_closed: usize,
    /// Tournament steps taken, as `tournament: step`.
    tournament_steps: Vec<String>,
    /// AMR window moves (MJ-20): `board through day`.
    windows_moved: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Shown {
    now: DateTime<Utc>,
}

fn caller(identity: Option<Extension<Identity>>) -> Result<(), ApiError> {
    match identity {
        Some(Extension(id)) if id.player.is_some() || id.operator.is_some() => Ok(()),
        _ => Err(ServiceError::Unauthenticated.into()),
    }
}

fn bad(field: &'static str, message: impl Into<String>) -> ApiError {
    ServiceError::BadRequest {
        field,
        message: message.into(),
    }
    .into()
}

async fn show(
    State(s): State<DevClock>,
    identity: Option<Extension<Identity>>,
) -> Result<Response, ApiError> {
    caller(identity)?;
    Ok(Json(Shown { now: s.clock.now() }).into_response())
}

/// `advance` as an exact duration (a day is 24 hours), positive.
fn parse_advance(raw: &str) -> Result<Duration, ApiError> {
    let span: jiff::Span = raw.trim().parse().map_err(|_| {
        bad(
            "advance",
            "an ISO 8601 duration such as PT25H, P1D or P2W (or the same in words: 25 hours)",
        )
    })?;
    if span.get_years() != 0 || span.get_months() != 0 {
        return Err(bad(
            "advance",
            "years and months vary in length: give weeks, days (24 h), hours, minutes or seconds",
        ));
    }
    let ms = i64::from(span.get_weeks()) * 7 * 86_400_000
        + i64::from(span.get_days()) * 86_400_000
        + i64::from(span.get_hours()) * 3_600_000
        + span.get_minutes() * 60_000
        + span.get_seconds() * 1_000
        + span.get_milliseconds()
        + span.get_microseconds() / 1_000
        + span.get_nanoseconds() / 1_000_000;
    if ms < 1_000 {
        return Err(bad(
            "advance",
            "the clock moves forward only, by whole seconds: give a duration of at least a second",
        ));
    }
    Ok(Duration::milliseconds(ms))
}

/// Where `m` moves a clock that shows `from`, and the field that said so: forward,
/// to a whole second, with a week to spare before the end of the years periods
/// may name (a period must be able to end and close).
fn destination(m: &Move, from: DateTime<Utc>) -> Result<(&'static str, DateTime<Utc>), ApiError> {
    let (field, to) = match (m.advance.as_deref(), m.set.as_deref()) {
        (Some(a), None) => (
            "advance",
            from.checked_add_signed(parse_advance(a)?)
                .ok_or_else(|| bad("advance", "too far"))?,
        ),
        (None, Some(t)) => (
            "set",
            DateTime::parse_from_rfc3339(t.trim())
                .map_err(|e| {
                    bad(
                        "set",
                        format!("an RFC 3339 instant such as 2027-03-28T00:30:00+02:00 ({e})"),
                    )
                })?
                .to_utc(),
        ),
        _ => return Err(bad("body", "give exactly one of \"advance\" and \"set\"")),
    };
    // Whole seconds, as the schedules' instants are (a refresh's identity does not
    // depend on it: two refreshes in one second are two snapshots, LB-5).
    let to = DateTime::from_timestamp(to.timestamp(), 0).unwrap_or(to);
    check_in_years(to).map_err(|e| bad(field, e))?;
    if check_in_years(to + Duration::days(8)).is_err() {
        return Err(bad(
            field,
            "at least 8 days before the end of 2099: a period must be able to end and close",
        ));
    }
    if to <= from {
        return Err(bad(
            field,
            format!(
                "the clock moves forward only (it shows {}; jobs already run cannot be undone)",
                rfc3339(from)
            ),
        ));
    }
    Ok((field, to))
}

/// Where a move stands: the instant whose ticks are running and the last one whose
/// ticks all ran. Dropped before [`Progress::finish`] (a failed or panicking tick), it
/// sets the clock back to the latter; no request read the instants after it (the move
/// holds the gate alone).
struct Progress<'a> {
    clock: &'a TestClock,
    running: DateTime<Utc>,
    done: DateTime<Utc>,
    finished: bool,
}

impl<'a> Progress<'a> {
    fn new(state: &'a DevClock, from: DateTime<Utc>) -> Self {
        Progress {
            clock: &state.clock,
            running: from,
            done: from,
            finished: false,
        }
    }

    /// The ticks at `at` start: those before it all ran.
    fn start(&mut self, at: DateTime<Utc>) {
        if at != self.running {
            self.done = self.running;
            self.running = at;
        }
        self.clock.move_to(at);
    }

    fn finish(&mut self, to: DateTime<Utc>) {
        self.clock.move_to(to);
        self.finished = true;
    }

    /// The answer to a move whose ticks at [`Progress::running`] failed with `e`.
    fn failed(&mut self, e: ServiceError, to: DateTime<Utc>) -> MoveError {
        let (status, kind, what) = if e.is_unavailable() {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                e.kind(),
                "the store is not answering",
            )
        } else {
            (StatusCode::INTERNAL_SERVER_ERROR, e.kind(), "the store failed")
        };
        tracing::warn!(error = %e, at = %self.running, "a test clock move failed");
        self.clock.rewind_to(self.done);
        MoveError::Stopped {
            now: self.done,
            reason: format!(
                "the scheduled jobs at {} did not finish ({what}): the clock stands at {}, the last instant whose jobs all ran; move it again (to {}) to go on",
                rfc3339(self.running),
                rfc3339(self.done),
                rfc3339(to)
            ),
            status,
            kind,
        }
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.clock.rewind_to(self.done);
        }
    }
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// A move's refusal (the caller's mistake, nothing ran) or its stop part way.
enum MoveError {
    Refused(ApiError),
    /// Ticks failed: `{"error", "message", "now"}` with the instant the clock shows.
    Stopped {
        now: DateTime<Utc>,
        reason: String,
        status: StatusCode,
        kind: &'static str,
    },
}

impl From<ApiError> for MoveError {
    fn from(e: ApiError) -> Self {
        MoveError::Refused(e)
    }
}

impl IntoResponse for MoveError {
    fn into_response(self) -> Response {
        match self {
            MoveError::Refused(e) => e.into_response(),
            MoveError::Stopped {
                now,
                reason,
                status,
                kind,
            } => (
                status,
                Json(serde_json::json!({"error": kind, "message": reason, "now": now})),
            )
                .into_response(),
        }
    }
}

async fn move_clock(
    State(s): State<DevClock>,
    identity: Option<Extension<Identity>>,
    uri: axum::http::Uri,
    body: axum::body::Bytes,
) -> Result<Response, MoveError> {
    caller(identity)?;
    // GM-5: a parameter the route does not take is refused, as on every other route.
    if uri.query().is_some_and(|q| !q.is_empty()) {
        return Err(bad("query", "this route takes no query parameters").into());
    }
    const SHAPE: &str =
        "a JSON object with \"advance\" (an ISO 8601 duration) or \"set\" (an RFC 3339 instant)";
    // An object only: serde would read the struct from an array of its fields too.
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(bad("body", format!("{SHAPE} (`{{…}}`)")).into());
    }
    let m: Move = serde_json::from_slice(&body).map_err(|e| bad("body", format!("{SHAPE}: {e}")))?;
    // The whole move runs on a blocking thread of its own (the jobs' futures are not
    // `Send` over a `dyn Store`), holding the clock's move lock from reading where the
    // clock stands to its last tick: one move at a time, each from where the last one
    // ended, and a move the client stopped waiting for still finishes before the next.
    let runtime = tokio::runtime::Handle::current();
    let state = s.clone();
    let (from, to, ticks) = tokio::task::spawn_blocking(move || {
        let _moving = state
            .clock
            .moving
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let from = state.clock.now();
        let (field, to) = destination(&m, from).map_err(MoveError::from)?;
        // Other requests wait until the move is done (they hold the gate shared).
        let _alone = state.clock.gate.blocking_write();
        // Until the move is done, a failed (or panicking) tick sets the clock back to
        // the last instant whose ticks all ran; the next move runs the failed ones
        // again (jobs are idempotent) at their own instants.
        let mut progress = Progress::new(&state, from);
        let result = runtime.block_on(schedule::run_between(
            state.store.as_ref(),
            from,
            to,
            &state.settings,
            state.refresh,
            |at| progress.start(at),
        ));
        // Reads follow the snapshots the ticks published, not pointers cached before
        // (ticks before a failure may have published some too).
        state.snapshots.forget();
        match result {
            Ok(ticks) => {
                progress.finish(to);
                Ok((from, to, ticks))
            }
            // Refused before anything ran.
            Err(ServiceError::BadRequest { message, .. }) => Err(bad(field, message).into()),
            Err(e) => Err(progress.failed(e, to)),
        }
    })
    .await
    .map_err(|e| {
        tracing::error!(error = %e, "a test clock move stopped");
        MoveError::Stopped {
            now: s.clock.now(),
            reason: "the scheduled jobs stopped".into(),
            status: StatusCode::INTERNAL_SERVER_ERROR,
            kind: "store",
        }
    })??;
    let mut moved = Moved {
        from,
        now: to,
        ticks: ticks.len(),
        periods_closed: Vec::new(),
        period_results_sent: 0,
        league_weeks_closed: 0,
        tournament_steps: Vec::new(),
        windows_moved: Vec::new(),
    };
    for t in &ticks {
        let r = &t.report;
        for c in &r.closed {
            moved.periods_closed.push(format!("{}@{}", c.board, c.period));
            moved.period_results_sent += c.results.as_ref().map_or(0, |x| x.sent);
        }
        moved.league_weeks_closed += r.league_weeks.len();
        for tr in &r.tournaments {
            for step in &tr.steps {
                moved
                    .tournament_steps
                    .push(format!("{}: {step}", tr.tournament_id));
            }
        }
        for w in &r.windows {
            moved
                .windows_moved
                .push(format!("{} through {}", w.board, w.through));
        }
    }
    tracing::info!(from = %from, now = %to, ticks = moved.ticks, "test clock moved");
    Ok((StatusCode::OK, Json(moved)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advances_are_exact_durations() {
        assert_eq!(parse_advance("PT25H").ok(), Some(Duration::hours(25)));
        assert_eq!(parse_advance("P1D").ok(), Some(Duration::days(1)));
        assert_eq!(parse_advance("P2W").ok(), Some(Duration::days(14)));
        assert_eq!(parse_advance("P400D").ok(), Some(Duration::days(400)));
        assert_eq!(
            parse_advance("P1DT30M").ok(),
            Some(Duration::minutes(24 * 60 + 30))
        );
        assert!(parse_advance("P1M").is_err());
        assert!(parse_advance("PT0S").is_err());
        assert!(parse_advance("-PT1H").is_err());
        // jiff's friendly form is taken too.
        assert_eq!(parse_advance("25 hours").ok(), Some(Duration::hours(25)));
        assert!(parse_advance("soon").is_err());
        assert!(parse_advance("PT0.5S").is_err(), "under a second");
    }

    fn set(to: &str) -> Move {
        Move {
            advance: None,
            set: Some(to.into()),
        }
    }

    #[test]
    fn a_destination_is_forward_in_the_years_with_a_week_to_spare() {
        let from = DateTime::parse_from_rfc3339("2099-12-01T00:00:00Z")
            .unwrap()
            .to_utc();
        assert!(destination(&set("2099-12-20T00:00:00Z"), from).is_ok());
        assert!(
            destination(&set("2099-12-31T22:30:00Z"), from).is_err(),
            "its Bucharest day is in 2100"
        );
        assert!(
            destination(&set("2099-11-30T00:00:00Z"), from).is_err(),
            "backwards"
        );
        let (_, to) = destination(&set("2099-12-02T00:00:00.123456789Z"), from).unwrap();
        assert_eq!(to.timestamp_subsec_nanos(), 0, "kept to the second");
    }
}
