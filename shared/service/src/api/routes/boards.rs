//! Board pages and around-me (LB-2 … LB-7).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::IntoResponse;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use podium_rules::board::BoardRef;
use podium_rules::period::{Period, PeriodClock};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use crate::api::error::ErrorBody;
use crate::api::extract::{int_param, Authenticated, Caller, Params, PathId};
use crate::api::state::AppState;
use crate::api::validators::{RequestTag, Validators};
use crate::boards::cursor::Cursor;
use crate::boards::live::{self, DEFAULT_NEIGHBOURS, DEFAULT_PAGE, MAX_NEIGHBOURS, MAX_PAGE};
use crate::boards::pages;
use crate::boards::snapshot::country::country_board;
use crate::boards::snapshot::layout::Published;
use crate::boards::snapshot::rendered::{KeptPage, RenderedPages};
use crate::error::ServiceError;

use super::respond::*;

/// The query of a board page (LB-3, LB-5).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Entries per page, 1 … 100 (default 50).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100, example = 10)]
    limit: Option<String>,
    /// The `next_cursor` of the previous page: opaque and signed; a cursor of another
    /// board, period or server key is refused.
    #[param(value_type = Option<String>)]
    cursor: Option<String>,
    /// A period id of the board's kind (`all`, `2026-11-30`, `2026-W49`); the current
    /// period by default. A past period is read from its frozen snapshot (LB-5).
    #[param(value_type = Option<String>, example = "all")]
    period: Option<String>,
    /// An ISO 3166-1 alpha-2 code: that country's players only, ranked among
    /// themselves (PF-3), from the same snapshots (`RO`).
    #[param(value_type = Option<String>)]
    country: Option<String>,
}

/// The query of an around-me read (LB-4).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AroundQuery {
    /// Entries each side of the caller, 0 … 25 (default 5).
    #[param(value_type = Option<u32>, minimum = 0, maximum = 25, example = 2)]
    neighbours: Option<String>,
    /// A period id of the board's kind; the current period by default.
    #[param(value_type = Option<String>, example = "all")]
    period: Option<String>,
    /// An ISO 3166-1 alpha-2 code: the caller among their country's players (PF-3);
    /// it must be the caller's profile's country (`RO`).
    #[param(value_type = Option<String>)]
    country: Option<String>,
}

/// A board response with its LB-6 period clock as `period`: `body`'s JSON object
/// with one more field, written after its own. (Serde's `flatten` would write every
/// field of the body through a map serialiser instead: slower on the hottest reads.)
fn clocked<T: Serialize>(body: &T, period: &PeriodClock) -> Bytes {
    let mut out = serde_json::to_vec(body).unwrap_or_default();
    if out.first() == Some(&b'{') && out.last() == Some(&b'}') {
        out.pop();
        if out.len() > 1 {
            out.push(b',');
        }
        out.extend_from_slice(b"\"period\":");
        if serde_json::to_writer(&mut out, period).is_ok() {
            out.push(b'}');
            return Bytes::from(out);
        }
    }
    // Every board body is an object: this is never reached, but stays well-formed.
    let mut v = serde_json::to_value(body).unwrap_or_default();
    if let (Some(o), Ok(p)) = (v.as_object_mut(), serde_json::to_value(period)) {
        o.insert("period".to_string(), p);
    }
    json_bytes(&v)
}

/// The board named in the path, in `period` (LB-5; the current period by default),
/// with its LB-6 clock: a board of LB-1 or of a family, or a defined board (BD-6,
/// BD-12: its definition read, or this process's copy of it).
async fn board_in_period(
    state: &AppState,
    board: &str,
    period: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(BoardRef, PeriodClock), ServiceError> {
    if podium_rules::board::board_def(board).is_none() {
        if let Some(known) = crate::boards::defined::resolve(state.store.as_ref(), board).await? {
            let (period, clock) = known.period(period, now)?;
            return Ok((BoardRef::new(board, period.id), clock));
        }
    }
    let def = live::board_named(board)?;
    let period = match period {
        Some(id) => Period::parse(def.period, def.zone, id).map_err(|e| ServiceError::BadRequest {
            field: "period",
            message: e.message,
        })?,
        None => def.period_at(now),
    };
    // The requested name: a family's board (a level's time ranking) is named by it.
    Ok((BoardRef::new(board, period.id.clone()), def.clock(&period, now)))
}

/// 404 naming `board` when it names no board that exists: a tournament's standings
/// (`mahjong-tournament-{id}`) exist once the tournament is configured (MJ-16; one
/// read of its state, made only where the board has no snapshot, since a snapshot
/// proves it; the pointer is the process's cached one). Every other board
/// [`board_in_period`] accepts exists by its definition (a level's time ranking for
/// each level of MJ-1, empty until someone completes it). `has_snapshot`: what the
/// caller already read of the board's pointer (`None`: not read yet).
async fn board_exists(
    state: &AppState,
    board: &BoardRef,
    has_snapshot: Option<bool>,
) -> Result<(), ServiceError> {
    let (base, _) = crate::boards::snapshot::country::split(board);
    let Some(id) = base.board.strip_prefix("mahjong-tournament-") else {
        return Ok(());
    };
    let store = state.store.as_ref();
    let has_snapshot = match has_snapshot {
        Some(known) => known,
        None => state.ctx.cache.current(store, board).await?.is_some(),
    };
    if has_snapshot || crate::games::tournaments::exists(store, id).await? {
        Ok(())
    } else {
        Err(ServiceError::NotFound(format!(
            "board {}: no such tournament",
            podium_rules::error::quoted(&base.board)
        )))
    }
}

/// `board`, or its board of `country`'s players (PF-3); 400 naming `country` for a
/// code that is no ISO 3166-1 alpha-2 code.
fn in_country(board: BoardRef, country: Option<&str>) -> Result<(BoardRef, Option<String>), ServiceError> {
    match country {
        None => Ok((board, None)),
        Some(raw) => {
            let cc = podium_rules::profile::check_country(raw)?;
            Ok((country_board(&board, &cc), Some(cc)))
        }
    }
}

/// A ranked page of a board (LB-3): from the current snapshot when the board has one
/// (its top pages rendered once per snapshot), the snapshot a cursor pins, or the
/// live board before the first snapshot.
#[utoipa::path(
    get,
    path = "/v1/leaderboards/{board}",
    tag = "leaderboards",
    params(
        ("board" = String, Path, description = "A board of LB-1 (`seega`, `dots-and-boxes`, `minesweeper`, `mahjong-amr`, `mahjong-weekly`, `mahjong-daily`) or of a family (`mahjong-level-N`, `mahjong-tournament-{id}`)", example = "seega"),
        PageQuery,
        ("If-None-Match" = Option<String>, Header, description = "The ETag of a copy kept: answered 304 while it holds, before any page is read"),
    ),
    responses(
        (status = 200, description = "A page of the board, best first, with the period clock (LB-3, LB-6)", body = crate::api::schemas::LeaderboardPage,
            headers(
                ("ETag" = String, description = "Names the snapshot (and its revision) and the request; absent on the live board"),
                ("Cache-Control" = String, description = "`public, max-age=N`: N seconds until the board's next scheduled refresh and 30 s more, while a process may still answer from this snapshot (a day for a frozen period)"),
            ),
            example = json!({"board": "seega", "as_of": "2026-11-30T17:18:03.477Z", "snapshot": "20261130T171803Z",
                "entries": [{"rank": 1, "player_id": "p-00007", "value": 2161, "value_shown": "2.1K", "rank_id": "member", "badge": "1 star"},
                            {"rank": 2, "player_id": "p-00002", "value": 1550, "value_shown": "1.5K", "rank_id": "member", "badge": "1 star"}],
                "next_cursor": "eyJiIjoic2VlZ2FAYWxsIi…",
                "period": {"period": "all", "kind": "all_time", "zone": "UTC", "start": null, "end": null, "next_reset": null}})),
        (status = 304, description = "Not modified: the `If-None-Match` still holds (no body)",
            headers(
                ("ETag" = String, description = "The same tag"),
                ("Cache-Control" = String, description = "`public, max-age=N` again"),
            )),
        (status = 404, description = "No such board", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: board \"chess\""})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn board_page(
    State(state): State<AppState>,
    _: Authenticated,
    PathId(board): PathId,
    Params(q): Params<PageQuery>,
    headers: HeaderMap,
) -> Answer {
    let ask = PageAsk::new(&state, &board, &q).await?;
    let current = ask.current(&state).await?;
    let Some(p) = current.clone() else {
        // The live board, before its first snapshot: no validators.
        board_exists(&state, &ask.board, Some(false)).await?;
        return Ok(JsonBytes(ask.body(&state, None, None).await?).into_response());
    };
    // The validators and the body come from the same pointer read; a kept page
    // answers with the entity tag kept with it (nothing hashed).
    let (v, kept) = match ask.prepare(&state, &p) {
        Prepared::Kept { body, etag } => (
            Validators::with_etag(&p, etag, false, state.ctx.refresh, ask.now),
            Ok(body),
        ),
        Prepared::Build { validators, keep } => (validators, Err(keep)),
    };
    if v.not_modified(&headers) {
        return Ok(v.not_modified_response());
    }
    let body = match kept {
        Ok(body) => body,
        Err(keep) => ask.body(&state, current, keep).await?,
    };
    let mut response = JsonBytes(body).into_response();
    v.apply(&mut response);
    Ok(response)
}

/// The around-me request `board_me` answers, for its validators: the caller, their
/// live entry, the neighbours asked and the period clock.
fn around_request(
    board: &BoardRef,
    clock: &PeriodClock,
    player: &str,
    n: usize,
    live_key: (i64, i64),
) -> RequestTag {
    RequestTag::new("me", board, clock)
        .with(player)
        .with_int(n as i64)
        .with_int(live_key.0)
        .with_int(live_key.1)
}

/// The JSON body of a page of `board` (players' and operators' routes alike).
pub(crate) async fn page_body(state: &AppState, board: &str, q: &PageQuery) -> Result<Bytes, ServiceError> {
    let ask = PageAsk::new(state, board, q).await?;
    let current = ask.current(state).await?;
    let Some(p) = current.clone() else {
        board_exists(state, &ask.board, Some(false)).await?;
        return ask.body(state, None, None).await;
    };
    match ask.prepare(state, &p) {
        Prepared::Kept { body, .. } => Ok(body),
        Prepared::Build { keep, .. } => ask.body(state, current, keep).await,
    }
}

/// How a page built from a snapshot is answered ([`PageAsk::prepare`]).
enum Prepared {
    /// From the page kept under its key, with the entity tag it was answered with.
    Kept { body: Bytes, etag: HeaderValue },
    /// Built, with these validators; kept under `keep`'s key with its tag when given.
    Build {
        validators: Validators,
        keep: Option<(String, Bytes)>,
    },
}

/// A page request, parsed and checked once: the board in its period with its clock
/// (LB-5, LB-6), the country view (PF-3), the page size (LB-3) and the cursor,
/// opened (its integrity checked).
struct PageAsk<'q> {
    now: DateTime<Utc>,
    board: BoardRef,
    clock: PeriodClock,
    country: Option<String>,
    limit: usize,
    token: Option<&'q str>,
    cursor: Option<Cursor>,
    /// The key that signs the page's cursors ([`crate::boards::cursor::CursorKey::fingerprint`]).
    signer: [u8; 8],
}

impl<'q> PageAsk<'q> {
    /// 400 naming `period`, `country`, `limit` or `cursor` when one is bad; 404 for an unknown board.
    async fn new(state: &AppState, board: &str, q: &'q PageQuery) -> Result<Self, ServiceError> {
        let now = (state.clock)();
        let (board, clock) = board_in_period(state, board, q.period.as_deref(), now).await?;
        let (board, country) = in_country(board, q.country.as_deref())?;
        let limit = int_param(q.limit.as_deref(), "limit", DEFAULT_PAGE, 1, MAX_PAGE)?;
        let token = q.cursor.as_deref();
        let cursor = match token {
            Some(c) => Some(state.ctx.cursors.open(&board, c)?),
            None => None,
        };
        Ok(PageAsk {
            now,
            board,
            clock,
            country,
            limit,
            token,
            cursor,
            signer: state.ctx.cursors.fingerprint(),
        })
    }

    /// The board's current snapshot (its pointer, cached per process), unless a live
    /// cursor walks the live board.
    async fn current(&self, state: &AppState) -> Result<Option<Arc<Published>>, ServiceError> {
        match &self.cursor {
            Some(Cursor::Live { .. }) => Ok(None),
            _ => state.ctx.cache.current(state.store.as_ref(), &self.board).await,
        }
    }

    /// How this page built from snapshot `p` is answered: the page kept under its
    /// key (one cache lookup), else its validators and, past the window in which what
    /// a page is built from (a cursor walk's pages, the movement items) may not be
    /// visible yet to eventually consistent reads, the key to keep it under with its
    /// tag (a short page or one without movement must not be kept).
    fn prepare(&self, state: &AppState, p: &Published) -> Prepared {
        let key = self.kept_key(p);
        // (A kept tag was a header value when it was kept; were it not, it is built.)
        let kept = key.as_ref().and_then(|k| state.ctx.pages.get(k, &self.clock));
        if let Some((body, etag)) =
            kept.and_then(|k| Some((k.body, HeaderValue::from_maybe_shared(k.etag).ok()?)))
        {
            return Prepared::Kept { body, etag };
        }
        let validators = self.validators(p, state.ctx.refresh);
        let keep = key
            .filter(|_| !p.fresh(self.now.timestamp_millis()))
            .map(|k| (k, Bytes::copy_from_slice(validators.etag.as_bytes())));
        Prepared::Build { validators, keep }
    }

    /// The cache validators of this page built from snapshot `p` (LB-5).
    fn validators(&self, p: &Published, refresh: std::time::Duration) -> Validators {
        // The body carries a cursor signed by this process's key: the tag names it.
        let request = RequestTag::new("page", &self.board, &self.clock)
            .with_int(self.limit as i64)
            .with(self.token.unwrap_or_default())
            .with(self.signer);
        Validators::new(p, request, false, refresh, self.now)
    }

    /// The key this page is kept under when built from `p`: the top page and every
    /// page a cursor reaches in the current snapshot are kept, once per snapshot and
    /// revision (LB-5; a deletion raises the revision, GM-6).
    fn kept_key(&self, p: &Published) -> Option<String> {
        let in_current = match &self.cursor {
            None => true,
            Some(Cursor::Snapshot { snapshot, .. }) => p.id == *snapshot,
            Some(_) => false,
        };
        in_current.then(|| RenderedPages::key(&self.board, &p.render_key(), self.limit, self.token))
    }

    /// The page's JSON body, built from `current` (what [`PageAsk::current`] read),
    /// rendered from the pointer its key names (read once); kept under `keep`'s key
    /// with its entity tag when it is `current`'s page.
    async fn body(
        self,
        state: &AppState,
        current: Option<Arc<Published>>,
        keep: Option<(String, Bytes)>,
    ) -> Result<Bytes, ServiceError> {
        let PageAsk {
            now,
            board,
            clock,
            country,
            limit,
            token: _,
            cursor,
            signer: _,
        } = self;
        let (store, ctx) = (state.store.as_ref(), &state.ctx);
        // The current snapshot when there is one, or the snapshot a cursor pins; the live
        // board before the first snapshot.
        if !matches!(cursor, Some(Cursor::Live { .. })) {
            let snapshot_id = current.as_ref().map(|p| p.id.clone());
            if let Some(page) = pages::top_page_of(
                store,
                &ctx.cache,
                &ctx.cursors,
                &board,
                limit,
                cursor.clone(),
                now,
                current,
            )
            .await?
            {
                let body = clocked(&page, &clock);
                if page.snapshot.is_some() && page.snapshot == snapshot_id {
                    if let Some((key, etag)) = keep {
                        ctx.pages.put(
                            key,
                            &clock,
                            &KeptPage {
                                body: body.clone(),
                                etag,
                            },
                        );
                    }
                }
                return Ok(body);
            }
        }
        if country.is_some() {
            // A country's board exists from its board's next snapshot on: nobody yet.
            let nobody = live::Page {
                board: board.board.clone(),
                as_of: now,
                snapshot: None,
                entries: Vec::new(),
                next_cursor: None,
            };
            return Ok(clocked(&nobody, &clock));
        }
        let page = live::top_page(store, &ctx.cursors, &board, limit, cursor, now).await?;
        Ok(clocked(&page, &clock))
    }
}

/// The caller's own entry with neighbours (LB-4).
#[utoipa::path(
    get,
    path = "/v1/leaderboards/{board}/me",
    tag = "leaderboards",
    params(
        ("board" = String, Path, description = "A board of LB-1 or of a family", example = "seega"),
        AroundQuery,
        ("If-None-Match" = Option<String>, Header, description = "The ETag of a copy kept: answered 304 while it holds (the caller's live entry read, no page)"),
    ),
    responses(
        (status = 200, description = "The caller's entry and up to N entries each side (LB-4)", body = crate::api::schemas::LeaderboardAroundMe,
            headers(
                ("ETag" = String, description = "Names the snapshot, the caller's live entry and the request; absent on the live board"),
                ("Cache-Control" = String, description = "`private, max-age=N`: until the board's next scheduled refresh and 30 s more"),
            ),
            example = json!({"board": "seega", "as_of": "2026-11-30T17:18:03.477Z", "snapshot": "20261130T171803Z",
                "me": {"rank": 9, "player_id": "p-00003", "value": 253, "value_shown": "253", "rank_id": "member", "badge": "1 star"},
                "entries": [{"rank": 8, "player_id": "p-00001", "value": 676, "value_shown": "676", "rank_id": "member", "badge": "1 star"},
                            {"rank": 9, "player_id": "p-00003", "value": 253, "value_shown": "253", "rank_id": "member", "badge": "1 star"},
                            {"rank": 10, "player_id": "p-00009", "value": 252, "value_shown": "252", "rank_id": "member", "badge": "1 star"}],
                "standing": {"rank": 9, "of": 1000, "top_percent": 1,
                    "next_better": {"value": 676, "value_shown": "676", "gap": 423},
                    "top_cutoff": {"top": 100, "value": 212, "value_shown": "212", "gap": 0}},
                "period": {"period": "all", "kind": "all_time", "zone": "UTC", "start": null, "end": null, "next_reset": null}})),
        (status = 304, description = "Not modified: the `If-None-Match` still holds (no body)",
            headers(
                ("ETag" = String, description = "The same tag"),
                ("Cache-Control" = String, description = "`private, max-age=N` again"),
            )),
        (status = 404, description = "No such board, or the caller has no entry on it (or, with `country`, is not of that country)", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: no entry of yours on this board"})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn board_me(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(board): PathId,
    Params(q): Params<AroundQuery>,
    headers: HeaderMap,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let (board, clock) = board_in_period(&state, &board, q.period.as_deref(), now).await?;
    // TM-7: on a team board the caller stands as their team.
    let player = crate::teams::view::subject(store, &board.board, &player).await?;
    let (board, country) = in_country(board, q.country.as_deref())?;
    board_exists(&state, &board, None).await?;
    let n = int_param(
        q.neighbours.as_deref(),
        "neighbours",
        DEFAULT_NEIGHBOURS,
        0,
        MAX_NEIGHBOURS,
    )?;
    let mut my_card = None;
    if let Some(cc) = &country {
        // PF-3: a caller stands among their own country's players only.
        let mine = crate::profiles::cards::card(store, &player).await?;
        if mine.country.as_deref() != Some(cc.as_str()) {
            // On a team board (TM-7) the entry and its country are the team's.
            let whose = match podium_rules::team::team_of_key(&player) {
                Some(_) => "your team's country",
                None => "your profile's country",
            };
            return Err(ServiceError::NotFound(format!(
                "no entry of yours among {cc}'s entries: {whose} is {}",
                mine.country.as_deref().unwrap_or("not set")
            ))
            .into());
        }
        my_card = Some(mine);
    }
    // A revalidation (`If-None-Match`): the pointer (cached) and the caller's live
    // entry decide it, before any page is read.
    if headers.contains_key(axum::http::header::IF_NONE_MATCH) {
        if let Some(p) = ctx.cache.current(store, &board).await? {
            if let Ok(live) = live::board_value(store, &board, &player).await {
                let request = around_request(&board, &clock, &player, n, (live.points, live.reached_at_ms));
                let v = Validators::new(&p, request, true, ctx.refresh, now);
                if v.not_modified(&headers) {
                    return Ok(v.not_modified_response());
                }
            }
        }
    }
    let me = match pages::around_me(store, &ctx.cache, &board, &player, n, now).await? {
        Some(me) => me,
        None if country.is_some() => {
            // No entry on the board at all, or no snapshot of the country yet.
            live::board_value(store, &board, &player).await?;
            return Err(ServiceError::NotFound("no snapshot of this country's players yet".into()).into());
        }
        None => live::around_me(store, &board, &player, n, now).await?,
    };
    let mut me = me;
    if let Some(card) = my_card {
        // The card just read: the caller's own, even when new to this country's snapshot.
        for e in std::iter::once(&mut me.me).chain(me.entries.iter_mut().filter(|e| e.player_id == player)) {
            e.card = card.clone();
        }
    }
    let mut response = JsonBytes(clocked(&me, &clock)).into_response();
    // The validators name the pointer the answer was built from (read once with it).
    if let Some(p) = &me.pointer {
        let request = around_request(&board, &clock, &player, n, me.live_key);
        Validators::new(p, request, true, ctx.refresh, now).apply(&mut response);
    }
    Ok(response)
}

/// The query of a friends view (PF-4).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FriendsQuery {
    /// A period id of the board's kind; the current period by default.
    #[param(value_type = Option<String>, example = "2026-W49")]
    period: Option<String>,
}

/// The caller and their friends (`PUT /v1/me/friends`) on a board, ranked among
/// themselves (LB-2), each with their global rank as of the current snapshot.
#[utoipa::path(
    get,
    path = "/v1/leaderboards/{board}/friends",
    tag = "leaderboards",
    params(
        ("board" = String, Path, description = "A board of LB-1 or of a family", example = "mahjong-weekly"),
        FriendsQuery
    ),
    responses(
        (status = 200, description = "The caller and every friend with an entry, ranked among themselves (PF-4, LB-2; a friend suspended now left out, OP-4)", body = crate::api::schemas::FriendsBoard,
            example = json!({"board": "mahjong-weekly", "as_of": "2026-12-02T10:05:00Z", "snapshot": "20261202T100500Z",
                "me": {"rank": 2, "player_id": "p-00003", "value": 24, "value_shown": "24", "name": "Ionela", "country": "RO", "global_rank": 41},
                "entries": [{"rank": 1, "player_id": "p-00007", "value": 31, "value_shown": "31", "name": "Vlad", "avatar": "a02", "global_rank": 17},
                            {"rank": 2, "player_id": "p-00003", "value": 24, "value_shown": "24", "name": "Ionela", "country": "RO", "global_rank": 41}],
                "period": {"period": "2026-W49", "kind": "weekly", "zone": "Europe/Bucharest", "start": "2026-11-29T22:00:00Z", "end": "2026-12-06T22:00:00Z", "next_reset": "2026-12-06T22:00:00Z"}})),
        (status = 404, description = "No such board", body = ErrorBody,
            example = json!({"error": "not_found", "message": "not found: board \"chess\""})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn board_friends(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(board): PathId,
    Params(q): Params<FriendsQuery>,
) -> Answer {
    let now = (state.clock)();
    let (store, ctx) = (state.store.as_ref(), &state.ctx);
    let (board, clock) = board_in_period(&state, &board, q.period.as_deref(), now).await?;
    board_exists(&state, &board, None).await?;
    if crate::teams::view::is_team_board(store, &board.board).await? {
        return Err(ServiceError::Invalid(podium_rules::RuleError::new(
            "board",
            "TM-7",
            "a team board ranks teams: it has no view of a player's friends (GET /v1/teams/{team_id}/boards/{board} lists a team's members)",
        ))
        .into());
    }
    let view = crate::boards::friends::view(store, &ctx.cache, &board, &player, now).await?;
    Ok(JsonBytes(clocked(&view, &clock)).into_response())
}

/// The boards the app can show now (LB-1, LB-6, BD-12): the built-in boards, then the
/// defined boards and events live now or coming, each with its current period and next
/// reset, and the caller's value there.
#[utoipa::path(
    get,
    path = "/v1/boards",
    tag = "leaderboards",
    responses(
        (status = 200, description = "Built-in boards first, then defined ones by game and id: live, coming (a window not begun) or ended (a window that ended in the last 7 days); a retired board is not listed (its pages stay readable by id)",
            body = crate::boards::catalogue::Catalogue,
            example = json!({"as_of": "2026-12-05T10:00:00Z", "boards": [
                {"board": "seega", "title": "Seega", "game": "seega", "defined": false, "teams": false, "state": "live",
                 "period": {"period": "all", "kind": "all_time", "zone": "UTC", "start": null, "end": null, "next_reset": null},
                 "me": {"value": 1550, "value_shown": "1.5K"}},
                {"board": "weekend-seega-wins", "title": "Weekend Seega wins", "game": "seega", "defined": true, "teams": false, "state": "live",
                 "period": {"period": "window", "kind": "window", "zone": "UTC", "start": "2026-12-04T22:00:00Z", "end": "2026-12-06T22:00:00Z", "next_reset": "2026-12-06T22:00:00Z"},
                 "me": {"value": 2, "value_shown": "2"}}]})),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn board_list(State(state): State<AppState>, Caller(player): Caller) -> Answer {
    let now = (state.clock)();
    let listed = crate::boards::catalogue::list(state.store.as_ref(), &player, now).await?;
    Ok(JsonBytes(json_bytes(&listed)).into_response())
}

/// The caller joins a defined board whose entry rules ask for it (BD-8): their
/// results count on it from now on. Exactly once (GM-3): every repeat answers as the
/// first.
#[utoipa::path(
    post,
    path = "/v1/boards/{board}/join",
    tag = "leaderboards",
    params(("board" = String, Path, description = "A defined board's id (BD-1)", example = "weekend-seega-wins")),
    responses(
        (status = 200, description = "Joined: from when the caller's results count; the same answer for every repeat",
            body = crate::players::joins::JoinAnswer,
            example = json!({"board": "weekend-seega-wins", "player_id": "s-00001", "joined_at": "2026-12-05T09:12:00Z"})),
        (status = 404, description = "No defined board of that id", body = ErrorBody),
        (status = 409, description = "Not joinable (BD-8): a built-in board or a defined one every player is on, a retired board, an event that has ended (a player who joined before gets their first answer), or a board whose countries do not include the caller's profile's (`country`)", body = ErrorBody),
    ),
    security(("jwt" = []))
)]
pub(crate) async fn board_join(
    State(state): State<AppState>,
    Caller(player): Caller,
    PathId(board): PathId,
) -> Answer {
    let now = (state.clock)();
    let joined = crate::players::joins::join(state.store.as_ref(), &player, &board, now).await?;
    Ok(JsonBytes(json_bytes(&joined)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `clocked` must write: the body's fields, then `period` (LB-6), as serde's
    /// `flatten` writes them.
    #[derive(Serialize)]
    struct Flattened<'a, T: Serialize> {
        #[serde(flatten)]
        body: &'a T,
        period: &'a PeriodClock,
    }

    #[test]
    fn lb6_a_clocked_body_is_the_body_with_its_period_last() {
        let now = "2026-12-03T10:00:00Z".parse::<DateTime<Utc>>().unwrap();
        let def = live::board_named("mahjong-weekly").unwrap();
        let clock = def.clock(&def.period_at(now), now);
        let page = live::Page {
            board: "mahjong-weekly".into(),
            as_of: now,
            snapshot: Some("20261203T100000Z".into()),
            entries: Vec::new(),
            next_cursor: None,
        };
        let bytes = clocked(&page, &clock);
        let expected = serde_json::to_vec(&Flattened {
            body: &page,
            period: &clock,
        })
        .unwrap();
        assert_eq!(bytes.as_ref(), expected.as_slice());
        #[derive(Serialize)]
        struct Empty {}
        let empty = clocked(&Empty {}, &clock);
        let v: serde_json::Value = serde_json::from_slice(&empty).unwrap();
        assert_eq!(
            v,
            serde_json::json!({ "period": serde_json::to_value(&clock).unwrap() })
        );
    }
}
