//! LB-7 under load: a fleet of game servers sending scored matches at a steady rate
//! into one store while the app reads and the snapshot job refreshes, then a check
//! that nothing was lost or doubled. Shared by the 10-minute load run
//! (`scripts/lb7-load`, the `lb7` example) and the partition-heat test (a short trace
//! on DynamoDB Local, every second's records settled before the next second's, so
//! that [`Heat`] labels each request with the second the fleet would send it in).
//!
//! The fleet (seeded, reproducible):
//! - players drawn from `players` ids by a Zipf distribution (exponent `exponent`),
//!   the same ids on every game, so every record lands on the same boards;
//! - outside the league spike 60 % Seega matches (SG-1 … SG-4, completed games) and
//!   40 % Mahjong Rivals records (70 % level completions, MJ-2 … MJ-5; 30 % Quick
//!   Matches of two, MJ-7); for the minute after Monday 00:00 Europe/Bucharest
//!   (`midnight_at`) 80 % Mahjong Rivals: each player's first points of the week place
//!   them in a league (LG-1) and `returning` of them played the week before;
//! - 3 % of the records delivered twice at once, 1 % delivered again 30 to 90 s later,
//!   1 % delivered for the first time 30 to 90 s after they ended (GM-3);
//! - a settlement that fails for a reason that may pass is retried as the queue
//!   retries it, at most [`RECEIVES`] receives; a record still failing then is a
//!   dead letter (counted; LB-7 wants none).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, TimeZone, Utc};
use futures::stream::{self, StreamExt};
use hdrhistogram::Histogram;
use podium_rules::game::Game;
use podium_rules::record::policy::RecordPolicy;
use podium_rules::seega::record::{EndReason, MatchRecord, Outcome as SeegaOutcome, PlayerRecord};
use podium_service::api::{read_back, router, ApiContext, AppState, Identity};
use podium_service::boards::cursor::CursorKey;
use podium_service::budget::Budget;
use podium_service::games::incoming::{settle_incoming, Incoming, Outcome};
use podium_service::jobs::{handle_within, Job, ScheduledRun, TickSettings};
use podium_store::dynamo::Heat;
use podium_store::Store;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Zipf};
use serde_json::json;
use tower::ServiceExt;

/// Receives of one record before the queue sends it to the dead-letter queue
/// (`maxReceiveCount` in template.yaml).
pub const RECEIVES: u32 = 5;

/// One run's settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Records a second (each delivered once; duplicates and late deliveries on top).
    pub rate: u64,
    /// Seconds the fleet sends for.
    pub seconds: u64,
    /// The app's reads a second.
    pub reads: u64,
    /// Player ids the fleet draws from.
    pub players: u64,
    /// The Zipf exponent of who plays.
    pub exponent: f64,
    /// A refresh tick every this many seconds (a freeze tick every 60).
    pub refresh_every: u64,
    /// The second of the run that is Monday 00:00 Europe/Bucharest (the league spike).
    pub midnight_at: u64,
    /// Players (the most active ids) who played Mahjong Rivals the week before.
    pub returning: u64,
    /// Settlements in flight at once.
    pub in_flight: usize,
    /// Paced: each second's records are sent through that second of the wall clock,
    /// and the refresh runs beside them. Not paced (a trace): each second's records
    /// are settled as fast as they go, then its reads, then its refresh, then the next
    /// second's (heat labelled by second).
    pub paced: bool,
    pub seed: u64,
    /// The end checks deliver every `check_every`-th record once more and read every
    /// `check_every`-th player's ledger (1: all of them).
    pub check_every: u64,
    /// The milliseconds of each second the fleet and the app send in, at their full
    /// rates (1,000: all of it): a shorter trace of the same load, whose partition heat
    /// is held against the limits scaled alike ([`over_half`]).
    pub sent_ms: u64,
}

impl Settings {
    /// Monday 2026-12-07 00:00 Europe/Bucharest (2026-12-06T22:00Z), the spike.
    pub fn midnight() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 6, 22, 0, 0)
            .single()
            .unwrap_or_default()
    }

    /// How many of `per_second` (records, reads) go in the milliseconds of a second
    /// that the trace sends in ([`Settings::sent_ms`]).
    pub fn sent(&self, per_second: u64) -> u64 {
        per_second * self.sent_ms.min(1_000) / 1_000
    }

    /// The instant second `k` of the run begins at.
    pub fn instant(&self, k: u64) -> DateTime<Utc> {
        Settings::midnight() + Duration::seconds(k as i64 - self.midnight_at as i64)
    }
}

/// One delivery of a record.
#[derive(Debug, Clone)]
struct Sent {
    /// The record's index among the fleet's records.
    record: u64,
    line: Arc<Vec<u8>>,
}

/// The fleet: who plays, what they send, what is held back to be sent late.
struct Fleet {
    rng: StdRng,
    zipf: Zipf<f64>,
    next: u64,
    /// (second, delivery) sent later.
    later: Vec<(u64, Sent)>,
    /// Every record's line, by index (the end checks deliver each once more).
    lines: Vec<Arc<Vec<u8>>>,
    /// (game, player) of every record.
    touched: HashSet<(Game, String)>,
    /// The players of this second's records.
    busy: HashSet<u64>,
}

fn player(i: u64) -> String {
    format!("p-{i:07}")
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Fleet {
    fn new(s: &Settings) -> Fleet {
        Fleet {
            rng: StdRng::seed_from_u64(s.seed),
            zipf: Zipf::new(s.players.max(2) as f64, s.exponent).expect("a Zipf distribution"),
            next: 0,
            later: Vec::new(),
            lines: Vec::new(),
            touched: HashSet::new(),
            busy: HashSet::new(),
        }
    }

    /// A player free this second: drawn by the Zipf distribution, drawn again while
    /// the one drawn already plays in this second (a human plays one match at a time;
    /// the fastest Mahjong Rivals level takes 30 s).
    fn draw(&mut self) -> u64 {
        for _ in 0..64 {
            let p = self.zipf.sample(&mut self.rng) as u64 - 1;
            if self.busy.insert(p) {
                return p;
            }
        }
        // The head is all busy: the next free id past it.
        let mut p = self.zipf.sample(&mut self.rng) as u64 - 1;
        while !self.busy.insert(p) {
            p += 1;
        }
        p
    }

    fn two(&mut self) -> (String, String) {
        (player(self.draw()), player(self.draw()))
    }

    fn seega(&mut self, id: u64, ended: DateTime<Utc>) -> Vec<u8> {
        let (w, l) = self.two();
        let l_captured = self.rng.random_range(0..22);
        let moves = |rng: &mut StdRng| rng.random_range(8..60);
        let winner = PlayerRecord {
            player_id: w.clone(),
            moves: moves(&mut self.rng),
            stones_on_board: 24 - l_captured,
            stones_in_hand: 0,
        };
        let loser = PlayerRecord {
            player_id: l.clone(),
            moves: moves(&mut self.rng),
            stones_on_board: 0,
            stones_in_hand: 0,
        };
        self.touched.insert((Game::Seega, w.clone()));
        self.touched.insert((Game::Seega, l));
        let minutes = self.rng.random_range(2..30);
        let record = MatchRecord {
            match_id: format!("lb7-sg-{id:09}"),
            game: "seega".into(),
            started_at: ended - Duration::minutes(minutes),
            ended_at: ended,
            players: vec![winner, loser],
            stones_placed: 48,
            outcome: SeegaOutcome::win(w, EndReason::Completed),
        };
        serde_json::to_vec(&record).unwrap_or_default()
    }

    fn mahjong(&mut self, id: u64, ended: DateTime<Utc>) -> Vec<u8> {
        let at = rfc3339(ended);
        let record = if self.rng.random_bool(0.7) {
            let p = player(self.draw());
            self.touched.insert((Game::MahjongRivals, p.clone()));
            json!({"completion_id": format!("lb7-lc-{id:09}"), "game": "mahjong-rivals",
                "kind": "level-completion", "player_id": p,
                "level": self.rng.random_range(1..=60u32),
                "time_ms": self.rng.random_range(30_000..300_000u64),
                "completed_at": at, "jokers_used": 0})
        } else {
            let (a, b) = self.two();
            self.touched.insert((Game::MahjongRivals, a.clone()));
            self.touched.insert((Game::MahjongRivals, b.clone()));
            let a_completes = self.rng.random_bool(0.6);
            json!({"match_id": format!("lb7-qm-{id:09}"), "game": "mahjong-rivals",
                "kind": "quick-match", "ended_at": at, "players": [
                    {"player_id": a, "completed": a_completes, "score": self.rng.random_range(0..20) * 100},
                    {"player_id": b, "completed": !a_completes, "score": self.rng.random_range(0..20) * 100}]})
        };
        serde_json::to_vec(&record).unwrap_or_default()
    }

    /// The deliveries of second `k`, in the order the fleet sends them.
    fn second(&mut self, s: &Settings, k: u64) -> Vec<Sent> {
        let start = s.instant(k);
        let spike = k >= s.midnight_at && k < s.midnight_at + 60;
        let mahjong_share = if spike { 0.8 } else { 0.4 };
        self.busy.clear();
        let mut out = Vec::with_capacity(s.rate as usize * 21 / 20);
        for j in 0..s.sent(s.rate) {
            let id = self.next;
            self.next += 1;
            // Ended in the last few seconds before it is sent.
            let ended = start + Duration::milliseconds((j * 1000 / s.rate.max(1)) as i64)
                - Duration::milliseconds(self.rng.random_range(200..5_000));
            let line = Arc::new(if self.rng.random_bool(mahjong_share) {
                self.mahjong(id, ended)
            } else {
                self.seega(id, ended)
            });
            self.lines.push(Arc::clone(&line));
            let sent = Sent { record: id, line };
            let roll: f64 = self.rng.random_range(0.0..1.0);
            let delay = self.rng.random_range(30..=90);
            if roll < 0.01 {
                // Delivered for the first time late.
                self.later.push((k + delay, sent));
                continue;
            }
            out.push(sent.clone());
            if roll < 0.04 {
                out.push(sent);
            } else if roll < 0.05 {
                self.later.push((k + delay, sent));
            }
        }
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.later)
            .into_iter()
            .partition(|(at, _)| *at <= k);
        self.later = later;
        out.extend(due.into_iter().map(|(_, sent)| sent));
        out
    }
}

/// Latencies and counts of one window of the run.
#[derive(Debug, Clone)]
pub struct Window {
    /// The window's first second.
    pub from: u64,
    pub seconds: u64,
    pub deliveries: u64,
    pub settle: Histogram<u64>,
    pub reads: u64,
    pub read: Histogram<u64>,
    pub read_errors: u64,
    /// A paced run: seconds of this window whose dispatch ended more than 50 ms
    /// behind the schedule.
    pub late_seconds: u64,
    /// A paced run: the most the dispatcher was behind the schedule at the end of one
    /// of its seconds (milliseconds): bounded while the store holds the rate, growing
    /// when it does not.
    pub lag_ms: u64,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 600_000_000, 3).expect("histogram bounds")
}

impl Window {
    fn new(from: u64) -> Window {
        Window {
            from,
            seconds: 0,
            deliveries: 0,
            settle: histogram(),
            reads: 0,
            read: histogram(),
            read_errors: 0,
            late_seconds: 0,
            lag_ms: 0,
        }
    }

    /// `| seconds | deliveries/s | settle p50 | p99 | max | reads/s | read p50 | p99 | errors |`
    pub fn row(&self) -> String {
        let per_s = |n: u64| n as f64 / self.seconds.max(1) as f64;
        let ms = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1000.0;
        format!(
            "| {}–{} | {:.0} | {:.2} | {:.2} | {:.1} | {:.0} | {:.2} | {:.2} | {} | {} | {} |",
            self.from,
            self.from + self.seconds,
            per_s(self.deliveries),
            ms(&self.settle, 0.5),
            ms(&self.settle, 0.99),
            self.settle.max() as f64 / 1000.0,
            per_s(self.reads),
            ms(&self.read, 0.5),
            ms(&self.read, 0.99),
            self.read_errors,
            self.late_seconds,
            self.lag_ms,
        )
    }

    /// The header of [`Window::row`].
    pub const HEADER: &'static str = "| seconds | deliveries/s | settle p50 ms | settle p99 ms | settle max ms | reads/s | read p50 ms | read p99 ms | read errors | seconds late | most behind, ms |\n|---|---|---|---|---|---|---|---|---|---|---|";
}

/// What a run did and what its end checks found.
#[derive(Debug)]
pub struct Report {
    pub windows: Vec<Window>,
    /// Deliveries settled (duplicates included) and the wall time of the sending.
    pub deliveries: u64,
    pub sending: StdDuration,
    pub applied: u64,
    pub duplicates: u64,
    /// Refused for good (none expected: the fleet sends valid records).
    pub refused: Vec<String>,
    /// Receives that failed and were retried.
    pub retries: u64,
    /// Records that failed [`RECEIVES`] times.
    pub dead_letters: Vec<String>,
    /// Refresh and freeze ticks run, with their longest wall time.
    pub ticks: u64,
    pub longest_tick: StdDuration,
    pub tick_errors: Vec<String>,
    /// End checks: records applied more than once, records never applied, players
    /// whose ledger does not sum to their balance (GM-4), players checked.
    pub doubled: Vec<u64>,
    pub lost: Vec<u64>,
    pub ledger_mismatches: Vec<String>,
    pub players_checked: usize,
}

impl Report {
    /// The run's totals and the end checks' findings (the first few of each), in words.
    pub fn summary(&self) -> String {
        let first = |v: &[String]| v.iter().take(5).cloned().collect::<Vec<_>>().join("; ");
        format!(
            "{} deliveries in {:.1} s ({:.0}/s): {} applied, {} duplicates, {} retried receives, \
             {} dead letters [{}], {} refused [{}]; {} ticks (longest {:.2} s), {} failed [{}]; \
             end checks: {} players' ledgers, {} mismatches [{}], {} records doubled {:?}, {} lost {:?}",
            self.deliveries,
            self.sending.as_secs_f64(),
            self.deliveries as f64 / self.sending.as_secs_f64().max(0.001),
            self.applied,
            self.duplicates,
            self.retries,
            self.dead_letters.len(),
            first(&self.dead_letters),
            self.refused.len(),
            first(&self.refused),
            self.ticks,
            self.longest_tick.as_secs_f64(),
            self.tick_errors.len(),
            first(&self.tick_errors),
            self.players_checked,
            self.ledger_mismatches.len(),
            first(&self.ledger_mismatches),
            self.doubled.len(),
            self.doubled.iter().take(5).collect::<Vec<_>>(),
            self.lost.len(),
            self.lost.iter().take(5).collect::<Vec<_>>(),
        )
    }

    /// Nothing lost, doubled, dead or refused; every ledger equals its balance.
    pub fn sound(&self) -> bool {
        self.doubled.is_empty()
            && self.lost.is_empty()
            && self.ledger_mismatches.is_empty()
            && self.dead_letters.is_empty()
            && self.refused.is_empty()
            && self.tick_errors.is_empty()
    }
}

/// The counters the settling tasks share.
#[derive(Default)]
struct Tally {
    applied: AtomicU64,
    duplicates: AtomicU64,
    retries: AtomicU64,
    refused: Mutex<Vec<String>>,
    dead: Mutex<Vec<String>>,
    /// Non-duplicate outcomes per record.
    outcomes: Mutex<HashMap<u64, u32>>,
}

/// Settles one delivery as the score-match function does, retried as the queue
/// retries (at most [`RECEIVES`] receives); its latency in microseconds.
async fn deliver<S: Store + ?Sized>(
    store: &S,
    sent: &Sent,
    now: DateTime<Utc>,
    policy: &RecordPolicy,
    tally: &Tally,
) -> u64 {
    let started = Instant::now();
    let incoming = match Incoming::from_json(&sent.line, now, policy) {
        Ok(i) => i,
        Err(e) => {
            tally
                .refused
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(e.to_string());
            return started.elapsed().as_micros() as u64;
        }
    };
    // Each delivery is a message of its own (its retries the same message again).
    static DELIVERIES: AtomicU64 = AtomicU64::new(0);
    let delivery = format!(
        "lb7-{}-{}",
        sent.record,
        DELIVERIES.fetch_add(1, Ordering::Relaxed)
    );
    for receive in 1..=RECEIVES {
        match settle_incoming(store, &incoming, now, policy, &delivery).await {
            Ok(Outcome::Duplicate) => {
                tally.duplicates.fetch_add(1, Ordering::Relaxed);
                break;
            }
            Ok(_) => {
                tally.applied.fetch_add(1, Ordering::Relaxed);
                *tally
                    .outcomes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .entry(sent.record)
                    .or_default() += 1;
                break;
            }
            Err(e) if e.is_permanent() => {
                tally
                    .refused
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(format!("record {}: {e}", sent.record));
                break;
            }
            Err(e) => {
                if receive == RECEIVES {
                    tally
                        .dead
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(format!("record {}: {e}", sent.record));
                } else {
                    tally.retries.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
    started.elapsed().as_micros() as u64
}

/// The app's reads: a mix of what a leaderboard screen asks.
struct Reader {
    app: axum::Router,
    cursor: Mutex<Option<String>>,
}

impl Reader {
    async fn read(&self, n: u64, who: String) -> (u64, bool) {
        let cursor = self.cursor.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (path, kind) = match n % 20 {
            0..=5 => ("/v1/leaderboards/seega?limit=50".to_string(), "top"),
            6 | 7 => ("/v1/leaderboards/mahjong-weekly?limit=50".to_string(), "page"),
            8..=10 => match cursor {
                Some(c) => (format!("/v1/leaderboards/seega?limit=50&cursor={c}"), "page"),
                None => ("/v1/leaderboards/seega?limit=50".to_string(), "top"),
            },
            11..=14 => ("/v1/leaderboards/seega/me?neighbours=5".to_string(), "page"),
            15..=17 => ("/v1/me/mahjong-rivals".to_string(), "page"),
            _ => ("/v1/leaderboards/seega/friends".to_string(), "page"),
        };
        let started = Instant::now();
        let Ok(mut req) = axum::http::Request::builder()
            .uri(path)
            .body(axum::body::Body::empty())
        else {
            return (0, false);
        };
        req.extensions_mut().insert(Identity {
            player: Some(who),
            operator: None,
        });
        let Ok(response) = self.app.clone().oneshot(req).await;
        let answer = read_back(response).await;
        let micros = started.elapsed().as_micros() as u64;
        if kind == "top" && answer.status == 200 {
            if let Some(c) = answer.body.get("next_cursor").and_then(|c| c.as_str()) {
                *self.cursor.lock().unwrap_or_else(|e| e.into_inner()) = Some(c.to_string());
            }
        }
        // A player with no entry yet is a 404 on around-me: an answer, not an error.
        (micros, matches!(answer.status, 200 | 404))
    }
}

/// A paced run's windows by number (second / 10), filled by its tasks as they end.
type Windows = Arc<Mutex<std::collections::BTreeMap<u64, Window>>>;

fn in_window(windows: &Windows, window: u64, f: impl FnOnce(&mut Window)) {
    let mut all = windows.lock().unwrap_or_else(|e| e.into_inner());
    f(all.entry(window).or_insert_with(|| Window::new(window * 10)));
}

/// What [`dispatch_second`] needs.
struct Dispatch<'a, S> {
    store: &'a S,
    batch: Vec<Sent>,
    who: Vec<String>,
    k: u64,
    due: tokio::time::Instant,
    now: DateTime<Utc>,
    policy: &'a RecordPolicy,
    tally: &'a Arc<Tally>,
    reader: &'a Arc<Reader>,
    windows: &'a Windows,
    settling: &'a Arc<tokio::sync::Semaphore>,
    reading: &'a Arc<tokio::sync::Semaphore>,
    tasks: &'a mut tokio::task::JoinSet<()>,
}

/// Sends second `k`'s deliveries and reads at their due instants through that second,
/// each a task of its own (settlements at most `in_flight` at once: a delivery waits
/// for a place, and the dispatch with it); the tasks record into their window. The
/// dispatcher's lag behind the schedule when the second's last one was sent.
async fn dispatch_second<S: Store + Clone + 'static>(d: Dispatch<'_, S>) -> StdDuration {
    let window = d.k / 10;
    // Deliveries and reads interleaved in time order.
    let n = d.batch.len().max(1) as u32;
    let m = d.who.len().max(1) as u32;
    let mut plan: Vec<(StdDuration, Result<Sent, String>)> = Vec::with_capacity(d.batch.len() + d.who.len());
    for (j, sent) in d.batch.into_iter().enumerate() {
        plan.push((StdDuration::from_secs(1) * j as u32 / n, Ok(sent)));
    }
    for (j, who) in d.who.into_iter().enumerate() {
        plan.push((StdDuration::from_secs(1) * j as u32 / m, Err(who)));
    }
    plan.sort_by_key(|(at, _)| *at);
    for (j, (at, item)) in plan.into_iter().enumerate() {
        tokio::time::sleep_until(d.due + at).await;
        let windows = Arc::clone(d.windows);
        match item {
            Ok(sent) => {
                let Ok(permit) = Arc::clone(d.settling).acquire_owned().await else {
                    continue;
                };
                let (store, tally, policy, now) =
                    (d.store.clone(), Arc::clone(d.tally), d.policy.clone(), d.now);
                d.tasks.spawn(async move {
                    let micros = deliver(&store, &sent, now, &policy, &tally).await;
                    drop(permit);
                    in_window(&windows, window, |w| {
                        w.deliveries += 1;
                        let _ = w.settle.record(micros.max(1));
                    });
                });
            }
            Err(who) => {
                let Ok(permit) = Arc::clone(d.reading).acquire_owned().await else {
                    continue;
                };
                let (reader, k) = (Arc::clone(d.reader), d.k);
                d.tasks.spawn(async move {
                    let (micros, ok) = reader.read(k * 10_000 + j as u64, who).await;
                    drop(permit);
                    in_window(&windows, window, |w| {
                        w.reads += 1;
                        let _ = w.read.record(micros.max(1));
                        if !ok {
                            w.read_errors += 1;
                        }
                    });
                });
            }
        }
        // Finished tasks are not kept.
        while d.tasks.try_join_next().is_some() {}
    }
    tokio::time::Instant::now().saturating_duration_since(d.due + StdDuration::from_secs(1))
}

/// One tick of the snapshot job at `now`.
async fn tick<S: Store + ?Sized>(store: &S, job: Job, now: DateTime<Utc>) -> Result<(), String> {
    let run = ScheduledRun {
        job,
        scheduled_time: now,
    };
    handle_within(
        store,
        run,
        &TickSettings::default(),
        Budget::lasting(StdDuration::from_secs(60)),
    )
    .await
    .map(|_| ())
    .map_err(|e| format!("{job:?} at {now}: {e}"))
}

/// Runs the fleet into `store` as `s` says, `heat` labelled by second, and checks the
/// result at the end.
pub async fn run<S: Store + Clone + 'static>(store: S, s: &Settings, heat: Option<Arc<Heat>>) -> Report {
    let policy = RecordPolicy::default();
    let mut fleet = Fleet::new(s);
    // The week before: the returning players' Mahjong Rivals points.
    let before = Settings::midnight() - Duration::hours(12);
    let warm: Vec<Sent> = (0..s.returning)
        .map(|i| {
            let id = fleet.next;
            fleet.next += 1;
            let p = player(i);
            fleet.touched.insert((Game::MahjongRivals, p.clone()));
            let line = Arc::new(
                serde_json::to_vec(&json!({"completion_id": format!("lb7-lc-{id:09}"),
                    "game": "mahjong-rivals", "kind": "level-completion", "player_id": p,
                    "level": 1 + i % 60, "time_ms": 60_000, "completed_at": rfc3339(before),
                    "jokers_used": 0}))
                .unwrap_or_default(),
            );
            fleet.lines.push(Arc::clone(&line));
            Sent { record: id, line }
        })
        .collect();
    let tally = Arc::new(Tally::default());
    stream::iter(warm)
        .for_each_concurrent(s.in_flight, |sent| {
            let (store, tally, policy) = (store.clone(), Arc::clone(&tally), policy.clone());
            async move {
                deliver(&store, &sent, before + Duration::seconds(1), &policy, &tally).await;
            }
        })
        .await;

    let clock = Arc::new(AtomicI64::new(s.instant(0).timestamp_millis()));
    let app = {
        let clock = Arc::clone(&clock);
        let state = AppState {
            store: Arc::new(store.clone()),
            ctx: Arc::new(ApiContext::new(CursorKey::random())),
            clock: Arc::new(move || {
                DateTime::from_timestamp_millis(clock.load(Ordering::Relaxed)).unwrap_or_default()
            }),
        };
        router(state)
    };
    let reader = Arc::new(Reader {
        app,
        cursor: Mutex::new(None),
    });
    let mut read_rng = StdRng::seed_from_u64(s.seed ^ 0x5eed);
    let read_zipf = Zipf::new(s.players.max(2) as f64, s.exponent).expect("a Zipf distribution");

    let ticks = Arc::new(Mutex::new((0u64, StdDuration::ZERO, Vec::<String>::new())));
    let run_tick = |store: S,
                    ticks: Arc<Mutex<(u64, StdDuration, Vec<String>)>>,
                    k: u64,
                    at: DateTime<Utc>| async move {
        let started = Instant::now();
        let mut result = tick(&store, Job::Refresh, at).await;
        if k.is_multiple_of(60) {
            result = result.and(tick(&store, Job::Freeze, at).await);
        }
        let took = started.elapsed();
        let mut t = ticks.lock().unwrap_or_else(|e| e.into_inner());
        t.0 += 1;
        t.1 = t.1.max(took);
        if let Err(e) = result {
            t.2.push(e);
        }
    };
    let mut background: Option<tokio::task::JoinHandle<()>> = None;

    let mut windows = Vec::new();
    let mut window = Window::new(0);
    let mut deliveries = 0u64;
    let sending = Instant::now();
    // The paced run's windows, filled by the tasks as they finish; its tasks.
    let live: Windows = Arc::default();
    let settling = Arc::new(tokio::sync::Semaphore::new(s.in_flight.max(1)));
    let reading = Arc::new(tokio::sync::Semaphore::new(64));
    let mut tasks = tokio::task::JoinSet::new();
    let paced_start = tokio::time::Instant::now();
    let extra = 90; // the last late deliveries
    for k in 0..s.seconds + extra {
        let now = s.instant(k);
        clock.store(now.timestamp_millis(), Ordering::Relaxed);
        if let Some(h) = &heat {
            h.set_second(k);
        }
        let batch = if k < s.seconds {
            fleet.second(s, k)
        } else {
            let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut fleet.later)
                .into_iter()
                .partition(|(at, _)| *at <= k);
            fleet.later = later;
            due.into_iter().map(|(_, sent)| sent).collect()
        };
        if k >= s.seconds && batch.is_empty() && fleet.later.is_empty() {
            break;
        }
        if s.paced {
            // Sent on schedule, not after the second before finished (a fleet does
            // not wait): the second's deliveries and reads at their due instants, at
            // most `in_flight` settling at once; the dispatcher's lag behind the
            // schedule says whether the store holds the rate.
            let due = paced_start + StdDuration::from_secs(k);
            if k < s.seconds
                && k.is_multiple_of(s.refresh_every.max(1))
                && background.as_ref().is_none_or(|b| b.is_finished())
            {
                let (store, ticks, runtime) = (
                    store.clone(),
                    Arc::clone(&ticks),
                    tokio::runtime::Handle::current(),
                );
                background = Some(tokio::task::spawn_blocking(move || {
                    runtime.block_on(run_tick(store, ticks, k, now));
                }));
            }
            let who: Vec<String> = (0..if k < s.seconds { s.sent(s.reads) } else { 0 })
                .map(|_| player(read_zipf.sample(&mut read_rng) as u64 - 1))
                .collect();
            let lag = dispatch_second(Dispatch {
                store: &store,
                batch,
                who,
                k,
                due,
                now,
                policy: &policy,
                tally: &tally,
                reader: &reader,
                windows: &live,
                settling: &settling,
                reading: &reading,
                tasks: &mut tasks,
            })
            .await;
            in_window(&live, k / 10, |w| {
                w.seconds += 1;
                w.lag_ms = w.lag_ms.max(lag.as_millis() as u64);
                if lag > StdDuration::from_millis(50) {
                    w.late_seconds += 1;
                }
                if k % 10 == 9 {
                    // As it goes (its last settlements may still be running).
                    eprintln!("{}", w.row());
                }
            });
            continue;
        }
        // A trace: this second's deliveries as fast as they settle, then its reads,
        // then its tick.
        let settle = stream::iter(batch)
            .map(|sent| {
                let (store, tally, policy) = (store.clone(), Arc::clone(&tally), policy.clone());
                // Each delivery a task of its own, as concurrent functions are: the
                // run's settlements use both cores.
                let task = tokio::spawn(async move { deliver(&store, &sent, now, &policy, &tally).await });
                async move { task.await.unwrap_or(0) }
            })
            .buffer_unordered(s.in_flight)
            .collect::<Vec<u64>>();
        let reads_n = if k < s.seconds { s.sent(s.reads) } else { 0 };
        let who: Vec<String> = (0..reads_n)
            .map(|_| player(read_zipf.sample(&mut read_rng) as u64 - 1))
            .collect();
        let reads = stream::iter(who.into_iter().enumerate())
            .map(|(j, who)| {
                let reader = Arc::clone(&reader);
                let task = tokio::spawn(async move { reader.read(k * 1_000 + j as u64, who).await });
                async move { task.await.unwrap_or((0, false)) }
            })
            .buffer_unordered(64)
            .collect::<Vec<(u64, bool)>>();
        let (settled, read) = {
            let t = Instant::now();
            let settled = settle.await;
            let settling = t.elapsed();
            let read = reads.await;
            let reading = t.elapsed() - settling;
            if k < s.seconds && k.is_multiple_of(s.refresh_every.max(1)) {
                run_tick(store.clone(), Arc::clone(&ticks), k, now).await;
            }
            if k < s.seconds {
                eprintln!(
                    "second {k}: {} deliveries settled in {:.1} s, {} reads in {:.1} s, then the tick: {:.1} s in all",
                    settled.len(),
                    settling.as_secs_f64(),
                    read.len(),
                    reading.as_secs_f64(),
                    t.elapsed().as_secs_f64()
                );
            }
            (settled, read)
        };
        deliveries += settled.len() as u64;
        window.deliveries += settled.len() as u64;
        for micros in settled {
            let _ = window.settle.record(micros.max(1));
        }
        for (micros, ok) in read {
            window.reads += 1;
            let _ = window.read.record(micros.max(1));
            if !ok {
                window.read_errors += 1;
            }
        }
        window.seconds += 1;
        if window.seconds == 10 {
            // As it goes (a long run shows where it stands).
            eprintln!("{}", window.row());
            windows.push(std::mem::replace(&mut window, Window::new(k + 1)));
        }
    }
    if window.seconds > 0 {
        windows.push(window);
    }
    while tasks.join_next().await.is_some() {}
    if s.paced {
        let all = std::mem::take(&mut *live.lock().unwrap_or_else(|e| e.into_inner()));
        deliveries = all.values().map(|w| w.deliveries).sum();
        windows = all.into_values().collect();
    }
    let sending = sending.elapsed();
    if let Some(b) = background {
        let _ = b.await;
    }

    eprintln!("sent; the end checks");
    // The end checks: each record applied once (GM-3), each delivered once more
    // answered as a duplicate (nothing lost), each ledger the sum of its balance (GM-4).
    let end = s.instant(s.seconds + extra) + Duration::seconds(1);
    let outcomes = std::mem::take(&mut *tally.outcomes.lock().unwrap_or_else(|e| e.into_inner()));
    let warm_records = s.returning;
    let doubled: Vec<u64> = outcomes
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(r, _)| *r)
        .collect();
    let again = Arc::new(Tally::default());
    let lines: Vec<Sent> = fleet
        .lines
        .iter()
        .enumerate()
        .map(|(i, line)| Sent {
            record: i as u64,
            line: Arc::clone(line),
        })
        .step_by(s.check_every.max(1) as usize)
        .collect();
    stream::iter(lines)
        .for_each_concurrent(s.in_flight, |sent| {
            let (store, again, policy) = (store.clone(), Arc::clone(&again), policy.clone());
            // The warm-up's records are of the week before.
            let now = if sent.record < warm_records {
                before + Duration::seconds(1)
            } else {
                end
            };
            async move {
                deliver(&store, &sent, now, &policy, &again).await;
            }
        })
        .await;
    let lost: Vec<u64> = again
        .outcomes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .keys()
        .copied()
        .collect();
    let mut touched: Vec<(Game, String)> = fleet.touched.iter().cloned().collect();
    touched.sort_by(|a, b| (a.0.id(), &a.1).cmp(&(b.0.id(), &b.1)));
    let touched: Vec<(Game, String)> = touched
        .into_iter()
        .step_by(s.check_every.max(1) as usize)
        .collect();
    let mismatches = Arc::new(Mutex::new(Vec::new()));
    stream::iter(touched.iter())
        .for_each_concurrent(32, |(game, p)| {
            let (store, mismatches) = (store.clone(), Arc::clone(&mismatches));
            async move {
                let sum: i64 = match store.ledger_entries(*game, p).await {
                    Ok(entries) => entries.iter().map(|e| e.applied).sum(),
                    Err(e) => {
                        mismatches
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(format!("{p}: {e}"));
                        return;
                    }
                };
                let balance = match store.get_balances(*game, &[p.as_str()]).await {
                    Ok(b) => b.first().map(|b| b.points).unwrap_or(0),
                    Err(e) => {
                        mismatches
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(format!("{p}: {e}"));
                        return;
                    }
                };
                if sum != balance {
                    mismatches
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(format!("{} {p}: ledger {sum}, balance {balance}", game.id()));
                }
            }
        })
        .await;
    let ledger_mismatches = std::mem::take(&mut *mismatches.lock().unwrap_or_else(|e| e.into_inner()));
    let (ticks_run, longest_tick, tick_errors) = {
        let t = ticks.lock().unwrap_or_else(|e| e.into_inner());
        (t.0, t.1, t.2.clone())
    };
    let mut refused = std::mem::take(&mut *tally.refused.lock().unwrap_or_else(|e| e.into_inner()));
    refused.extend(std::mem::take(
        &mut *again.refused.lock().unwrap_or_else(|e| e.into_inner()),
    ));
    let mut dead_letters = std::mem::take(&mut *tally.dead.lock().unwrap_or_else(|e| e.into_inner()));
    dead_letters.extend(std::mem::take(
        &mut *again.dead.lock().unwrap_or_else(|e| e.into_inner()),
    ));
    Report {
        windows,
        deliveries,
        sending,
        applied: tally.applied.load(Ordering::Relaxed),
        duplicates: tally.duplicates.load(Ordering::Relaxed),
        refused,
        retries: tally.retries.load(Ordering::Relaxed),
        dead_letters,
        ticks: ticks_run,
        longest_tick,
        tick_errors,
        doubled,
        lost,
        ledger_mismatches,
        players_checked: touched.len(),
    }
}

/// Per place ([`podium_store::dynamo::heat::TABLE`] and each GSI), the busiest
/// partition key of any second by write units and by read units, as a Markdown table
/// against LB-7's bound (half of DynamoDB's per-partition limits).
pub fn heat_table(heat: &Heat) -> String {
    use podium_store::dynamo::heat::{PARTITION_READ_UNITS, PARTITION_WRITE_UNITS};
    let mut out = String::from(
        "| table or GSI | busiest key by writes | write units in its busiest second | busiest key by reads | read units in its busiest second |\n|---|---|---|---|---|\n",
    );
    for (place, writes, reads) in heat.busiest(1) {
        let w = writes.first();
        let r = reads.first();
        out.push_str(&format!(
            "| {place} | {} | {:.1} (of {}) | {} | {:.1} (of {}) |\n",
            w.map(|h| format!("`{}` (s {})", h.key, h.second))
                .unwrap_or_default(),
            w.map(|h| h.write_milli as f64 / 1000.0).unwrap_or(0.0),
            PARTITION_WRITE_UNITS / 2,
            r.map(|h| format!("`{}` (s {})", h.key, h.second))
                .unwrap_or_default(),
            r.map(|h| h.read_milli as f64 / 1000.0).unwrap_or(0.0),
            PARTITION_READ_UNITS / 2,
        ));
    }
    out
}

/// The partition keys that passed LB-7's bound in some second of a run that sent in
/// `sent_ms` of each ([`Settings::sent_ms`]): more than half of DynamoDB's
/// per-partition write or read units, scaled by the share of the second sent.
pub fn over_half(heat: &Heat, sent_ms: u64) -> Vec<podium_store::dynamo::Hot> {
    use podium_store::dynamo::heat::{PARTITION_READ_UNITS, PARTITION_WRITE_UNITS};
    let share = sent_ms.min(1_000);
    heat.all()
        .into_iter()
        .filter(|h| {
            h.write_milli * 2 > PARTITION_WRITE_UNITS * share
                || h.read_milli * 2 > PARTITION_READ_UNITS * share
        })
        .collect()
}

/// LB-7 (case of the test command): a short trace of the fleet at 2,000 records a
/// second with 1,000 reads a second, the league spike in it, on DynamoDB Local with
/// its partition heat recorded: half a second of it (1,000 records, 500 reads), no
/// partition key past half of its limit's half (250 write units, 750 read units),
/// nothing lost or doubled, every ledger equals its balance. The whole second (the
/// load run, `scripts/lb7-load --heat`) holds the same at the full limits' half.
pub async fn lb_7_no_partition_key_passes_half_its_limit_at_2000_a_second(
    store: podium_store::dynamo::DynamoStore,
) {
    let heat = Heat::new();
    let store = store.recording_heat(Arc::clone(&heat));
    // Half a second of the fleet at midnight: every record of it ended in the week before
    // and reaches podium after midnight, the ended week's freeze marker read by each,
    // its players' first points of the week placing them. 4 in flight: DynamoDB Local
    // commits one transaction at a time, so more in flight only widens the window in
    // which transactions meet (each failed attempt counts in the heat too).
    let settings = Settings {
        rate: 2_000,
        seconds: 1,
        reads: 1_000,
        players: 1_000_000,
        exponent: 1.0,
        refresh_every: 1,
        midnight_at: 0,
        returning: 200,
        in_flight: 4,
        paced: false,
        seed: 7,
        // A quarter of the records and ledgers checked: the suite's DynamoDB Local is
        // shared by every test (the load run checks them all).
        check_every: 4,
        sent_ms: 500,
    };
    let report = run(store, &settings, Some(Arc::clone(&heat))).await;
    assert!(report.sound(), "LB-7 run not sound: {}", report.summary());
    let over = over_half(&heat, settings.sent_ms);
    assert!(
        over.is_empty(),
        "LB-7: partition keys over half their limit:\n{}\n{over:#?}",
        heat_table(&heat)
    );
}
