//! A definition previewed against past play (BD-13,
//! `podium_service::operators::previews`), on both stores: the preview of an event over
//! last weekend equals, entry for entry, the board the same event produces when those
//! results are replayed into it; it writes nothing of the board; it resumes page by page
//! across calls; its window is checked.

use chrono::{DateTime, Duration, Utc};
use podium_rules::board::definition::Definition;
use podium_service::boards::definitions;
use podium_service::budget::Budget;
use podium_service::error::ServiceError;
use podium_service::operators::previews::{self, Preview};
use podium_store::Store;
use serde_json::json;

use crate::board_definitions::{instant, listed, seega};

/// "Weekend Seega wins" over `[start, end)`: wins, then fewest moves (BD-5), paying
/// 1st 500 points and a Joker, 2nd–3rd 200 points.
fn weekend(id: &str, start: &str, end: &str) -> Definition {
    serde_json::from_value(json!({
        "id": id, "title": "Weekend Seega wins", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "tie_breaks": [{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}],
        "schedule": {"kind": "window", "start": start, "end": end},
        "prizes": [{"from": 1, "to": 1, "points": 500, "jokers": 1}, {"from": 2, "to": 3, "points": 200}],
    }))
    .expect("a definition")
}

/// Last weekend's Seega (Saturday 28 November 00:00 to Monday 30 November 00:00,
/// Bucharest), in the order they happened: (match, winner, loser, winner's moves,
/// ended at). Two matches lie just outside the window.
const LAST_WEEKEND: &[(&str, &str, &str, u32, &str)] = &[
    ("before", "ana", "dan", 10, "2026-11-27T21:59:59.999Z"),
    ("w-1", "ana", "dan", 20, "2026-11-27T22:00:00Z"),
    ("w-2", "bob", "dan", 15, "2026-11-28T09:00:00Z"),
    ("w-3", "cy", "dan", 12, "2026-11-28T10:00:00Z"),
    ("w-4", "ana", "bob", 20, "2026-11-28T11:00:00Z"),
    ("w-5", "eve", "dan", 20, "2026-11-28T12:00:00Z"),
    ("w-6", "eve", "dan", 20, "2026-11-29T12:00:00Z"),
    ("w-7", "bob", "cy", 15, "2026-11-29T21:59:00Z"),
    ("after", "ana", "dan", 10, "2026-11-29T22:00:00Z"),
];

fn shifted(at: &str, by: Duration) -> String {
    (instant(at) + by).to_rfc3339()
}

/// Steps the preview of `def` over [from, to) at `now`, a page of `page` records a
/// call, until it is finished; how many calls it took.
async fn preview_to_the_end<S: Store + ?Sized>(
    store: &S,
    def: &Definition,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    now: DateTime<Utc>,
    page: u32,
) -> (Preview, usize) {
    for calls in 1..=10_000 {
        let p = previews::run(store, def.clone(), (from, to), now, Budget::steps(1), page)
            .await
            .expect("a preview");
        if p.finished_at.is_some() {
            return (p, calls);
        }
    }
    panic!("the preview never finished");
}

/// BD-13: the preview of "Weekend Seega wins" over last weekend, walked 3 records a
/// call, equals entry for entry (rank, player, wins, moves) the board the same event
/// produces when last weekend's results are replayed into it (a week later, in the
/// order they happened); its prize cost is the table's (1st 500 and a Joker, ana and
/// eve tied 2nd 200 each); it wrote nothing of the board, and a repeat answers it.
pub async fn the_preview_of_last_weekend_equals_its_replay<S: Store + ?Sized>(store: &S) {
    for (id, winner, loser, moves, at) in LAST_WEEKEND {
        seega(store, id, winner, loser, *moves, at).await;
    }
    let past = weekend(
        "weekend-seega-wins",
        "2026-11-27T22:00:00Z",
        "2026-11-29T22:00:00Z",
    );
    let window = (instant("2026-11-27T00:00:00Z"), instant("2026-11-30T00:00:00Z"));
    let now = instant("2026-12-01T12:00:00Z");
    let (preview, calls) = preview_to_the_end(store, &past, window, now, 3).await;
    assert!(calls > 1, "walked page by page across calls: {calls}");
    assert_eq!((preview.results_read, preview.counted, preview.held), (9, 7, 0));
    assert_eq!(preview.periods.len(), 1);
    let period = &preview.periods[0];
    assert_eq!(
        (period.period.as_str(), period.entries, period.left_out),
        ("window", 4, 0)
    );
    assert_eq!((period.prize_points, period.prize_jokers), (900, 1));
    assert!(!period.partial, "the window covers the whole event");
    let previewed: Vec<(u64, String, i64, Vec<i64>)> = period
        .top
        .iter()
        .map(|l| (l.rank, l.player_id.clone(), l.value, l.tie_breaks.clone()))
        .collect();
    assert_eq!(
        period.top.iter().map(|l| l.prize_points).collect::<Vec<_>>(),
        [500, 200, 200, 0]
    );
    // Nothing of the board was written: no definition, no entry.
    assert!(definitions::list(store).await.expect("a list").is_empty());
    assert!(listed(store, &past, "window").await.is_empty());
    // A repeat answers the same preview, walking nothing again.
    let again = previews::run(store, past.clone(), window, now, Budget::steps(1), 3)
        .await
        .expect("a preview");
    assert_eq!(again, preview);

    // The same event a week later, its results replayed into it in the order they
    // happened.
    let week = Duration::days(7);
    let live = weekend(
        "weekend-seega-wins",
        "2026-12-04T22:00:00Z",
        "2026-12-06T22:00:00Z",
    );
    definitions::create(store, live.clone(), "live-ops-1", now, 20, false)
        .await
        .expect("created");
    for (id, winner, loser, moves, at) in LAST_WEEKEND {
        seega(
            store,
            &format!("replay-{id}"),
            winner,
            loser,
            *moves,
            &shifted(at, week),
        )
        .await;
    }
    assert_eq!(listed(store, &live, "window").await, previewed);
    assert_eq!(previewed.len(), 4);
    // GM-6: a deleted player's previews go (a repeat runs it again).
    previews::forget_player(store, "eve").await.expect("forgotten");
    assert!(previews::read(store, &preview.id)
        .await
        .expect("a read")
        .is_none());
    assert!(previews::list(store).await.expect("a list").is_empty());
    // An id of no preview's shape is none, and reaches no store (a 5,000-byte sort key
    // would be refused by DynamoDB).
    for id in [
        "a".repeat(5_000),
        "😀".repeat(300),
        "ABCDEF0123456789abcd".into(),
        String::new(),
    ] {
        assert!(previews::read(store, &id).await.expect("a read").is_none());
    }
}

/// A definition of `game` over all time: `source` combined by `operator`, highest first,
/// with `tie_breaks`.
fn all_time(
    id: &str,
    game: &str,
    source: serde_json::Value,
    operator: &str,
    tie_breaks: serde_json::Value,
) -> Definition {
    serde_json::from_value(json!({
        "id": id, "title": id, "game": game, "source": source, "operator": operator,
        "order": "higher_first", "tie_breaks": tie_breaks, "schedule": {"kind": "all_time"},
    }))
    .expect("a definition")
}

/// BD-2, BD-13: every game's stored results read back as the facts they fed: boards of
/// Dots and Boxes wins, Minesweeper rating points and Mahjong Rivals points (level
/// completions, a Quick Match and an Arena; ties broken by completions) are previewed
/// over the results settled into them, and each preview equals its board.
pub async fn every_games_results_preview_as_they_fed_its_boards<S: Store + ?Sized>(store: &S) {
    use podium_rules::dots_and_boxes::board::Board;
    use podium_rules::dots_and_boxes::replay::{self, Outcome};
    let defs = [
        all_time(
            "prev-dots",
            "dots-and-boxes",
            json!({"kind": "wins"}),
            "count",
            json!([]),
        ),
        all_time(
            "prev-duel",
            "minesweeper",
            json!({"kind": "points"}),
            "sum",
            json!([]),
        ),
        all_time(
            "prev-duel-rating",
            "minesweeper",
            json!({"kind": "rating"}),
            "latest",
            json!([]),
        ),
        all_time(
            "prev-mahjong",
            "mahjong-rivals",
            json!({"kind": "points"}),
            "sum",
            json!([{"source": {"kind": "level_completions"}, "operator": "count", "order": "higher_first"}]),
        ),
    ];
    for def in &defs {
        definitions::create(
            store,
            def.clone(),
            "live-ops-1",
            instant("2026-12-01T00:00:00Z"),
            20,
            false,
        )
        .await
        .expect("created");
    }
    let board = Board { width: 3, height: 3 };
    let moves = crate::dots_and_boxes::full_game(&board);
    let r = replay::replay(&board, &moves).expect("legal");
    let winner = match replay::outcome(&r, None) {
        Some(Outcome::Win(0)) => "da",
        _ => "db",
    };
    let lines = [
        crate::dots_and_boxes::line("pv-dab", [("da", true), ("db", true)], &moves, Some(winner)),
        crate::dots_and_boxes::duel("pv-ms", "ma", "points"),
        crate::mahjong::completion("pv-c1", "mj-a", 7, 61_000, "2027-07-10T10:00:00Z", 0),
        crate::mahjong::completion("pv-c2", "mj-b", 8, 75_000, "2027-07-10T11:00:00Z", 0),
        crate::mahjong::quick_match(
            "pv-qm",
            "2027-07-11T10:00:00Z",
            &[("mj-a", true, 900), ("mj-c", false, 2000)],
        ),
        crate::mahjong::arena_line(
            "pv-ar",
            ["mj-a", "mj-b", "mj-c", "mj-d"],
            [[300, 300, 300], [200, 200, 200], [100, 100, 100], [0, 0, 0]],
            [0; 4],
        ),
    ];
    let now = instant("2027-07-19T00:00:00Z");
    for line in &lines {
        crate::mahjong::settle(store, line, now).await.expect("settled");
    }
    for def in &defs {
        let (preview, _) =
            preview_to_the_end(store, def, (instant("2026-12-01T00:00:00Z"), now), now, 50).await;
        assert_eq!(preview.undated, 0, "{}", def.id);
        assert!(
            preview.periods.iter().all(|p| p.partial),
            "all time is never covered whole"
        );
        let previewed: Vec<(u64, String, i64, Vec<i64>)> = preview
            .periods
            .iter()
            .flat_map(|p| p.top.iter())
            .map(|l| (l.rank, l.player_id.clone(), l.value, l.tie_breaks.clone()))
            .collect();
        let board = listed(store, def, "all").await;
        assert!(!board.is_empty(), "{} is fed", def.id);
        assert_eq!(previewed, board, "{}", def.id);
    }
}

/// Scores a Seega match `id` won by `winner` with `captured` stones, ended at `ended`,
/// at the server clock 2027-01-01; the refusal if it is held (BD-7).
async fn seega_capturing<S: Store + ?Sized>(
    store: &S,
    id: &str,
    (winner, loser): (&str, &str),
    captured: u32,
    ended: &str,
) -> Result<(), ServiceError> {
    let record = crate::fixtures::record(id, winner, loser, captured, 0, 300, 20, 20, instant(ended));
    podium_service::games::seega::score_match(
        store,
        &record,
        crate::fixtures::now(),
        &podium_rules::record::policy::RecordPolicy::default(),
    )
    .await
    .map(|_| ())
}

/// BD-7, BD-13: a value out of the score range holds its record whole: the preview of a
/// points board with a range places none of that match's values (the winner's too high,
/// the loser's inside the range alike) and counts it held once, as the board the same
/// event produces holds it when the results are replayed; results of one instant are
/// met in the order of their ids on both stores.
pub async fn a_held_record_counts_for_nobody_in_the_preview<S: Store + ?Sized>(store: &S) {
    let points = |id: &str, start: &str, end: &str| -> Definition {
        serde_json::from_value(json!({
            "id": id, "title": "Seega points", "game": "seega", "source": {"kind": "points"},
            "operator": "sum", "order": "higher_first", "score_range": [-400, 300],
            "schedule": {"kind": "window", "start": start, "end": end},
        }))
        .expect("a definition")
    };
    // h-2 and h-3 end at one instant, the same two players each winning once.
    let past: &[(&str, (&str, &str), u32, &str)] = &[
        ("h-1", ("ana", "bob"), 6, "2026-11-28T10:00:00Z"),
        ("h-2", ("bob", "ana"), 6, "2026-11-28T11:00:00Z"),
        ("h-3", ("ana", "bob"), 6, "2026-11-28T11:00:00Z"),
        ("h-4", ("cy", "bob"), 24, "2026-11-28T12:00:00Z"),
        ("h-5", ("cy", "ana"), 4, "2026-11-28T13:00:00Z"),
    ];
    for (id, players, captured, at) in past {
        seega_capturing(store, id, *players, *captured, at)
            .await
            .expect("scored");
    }
    let def = points("points-cup", "2026-11-28T00:00:00Z", "2026-11-29T00:00:00Z");
    let window = (instant("2026-11-28T00:00:00Z"), instant("2026-11-29T00:00:00Z"));
    let now = instant("2026-12-01T12:00:00Z");
    let (preview, _) = preview_to_the_end(store, &def, window, now, 2).await;
    assert_eq!(
        (preview.held, preview.counted),
        (1, 8),
        "h-4 held whole: none of its two values"
    );
    let live = points("points-cup", "2026-12-05T00:00:00Z", "2026-12-06T00:00:00Z");
    definitions::create(store, live.clone(), "live-ops-1", now, 20, false)
        .await
        .expect("created");
    let mut held = 0;
    for (id, players, captured, at) in past {
        let replayed = seega_capturing(
            store,
            &format!("r-{id}"),
            *players,
            *captured,
            &shifted(at, Duration::days(7)),
        )
        .await;
        if let Err(ServiceError::OutOfRange { .. }) = replayed {
            held += 1;
        }
    }
    assert_eq!(held, 1, "the replay holds h-4 too");
    let previewed: Vec<(u64, String, i64, Vec<i64>)> = preview.periods[0]
        .top
        .iter()
        .map(|l| (l.rank, l.player_id.clone(), l.value, l.tie_breaks.clone()))
        .collect();
    assert_eq!(listed(store, &live, "window").await, previewed);
    assert!(
        previewed.iter().any(|(_, p, _, _)| p == "bob"),
        "bob's values of other matches count"
    );
}

/// BD-13: a preview of many periods of players with long ids (128 characters, as GM-5
/// allows) lists the oldest periods its record holds and counts the others in
/// `periods_left_out`, instead of failing to save and stopping every tick.
pub async fn a_long_preview_lists_what_fits_and_says_what_it_left_out<S: Store + ?Sized>(store: &S) {
    use futures::StreamExt;
    let name = |n: usize| format!("{}{n:04}", "p".repeat(124));
    let mut settling = Vec::new();
    for hour in 0..80 {
        for m in 0..10 {
            let (w, l) = (name(2 * m), name(2 * m + 1));
            let at = (instant("2026-11-20T00:00:00Z") + Duration::hours(hour) + Duration::minutes(m as i64))
                .to_rfc3339();
            settling.push(async move {
                seega_capturing(store, &format!("l-{hour}-{m}"), (&w, &l), 6, &at)
                    .await
                    .expect("scored");
            });
        }
    }
    futures::stream::iter(settling)
        .buffer_unordered(16)
        .collect::<Vec<()>>()
        .await;
    let def: Definition = serde_json::from_value(json!({
        "id": "hourly-wins", "title": "Hourly wins", "game": "seega", "source": {"kind": "matches"},
        "operator": "count", "order": "higher_first",
        "tie_breaks": [{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}],
        "schedule": {"kind": "cron", "cron": "0 * * * *", "zone": "UTC"},
        "prizes": [{"from": 1, "to": 20, "points": 1000000, "jokers": 1000}],
    }))
    .expect("a definition");
    let window = (instant("2026-11-20T00:00:00Z"), instant("2026-11-24T00:00:00Z"));
    let (preview, _) = preview_to_the_end(store, &def, window, instant("2026-12-01T12:00:00Z"), 1_000).await;
    assert!(preview.stopped.is_none(), "{:?}", preview.stopped);
    let listed = preview.periods.len() as u64;
    assert_eq!(listed + preview.periods_left_out, 80);
    assert!(preview.periods_left_out > 0 && listed > 0, "{listed} listed");
    assert_eq!(preview.periods[0].period, "2026-11-20T00:00");
    assert_eq!(preview.periods[0].top.len(), 20);
}

/// BD-13, faults: a store that fails mid-write (the transactions of a page's values
/// and the preview's new position throttled three times, nothing written, as a call
/// killed between pages) leaves every page counted once: the calls that fail answer
/// the error, the next resume from the last position saved, and the preview ends as
/// the one the first case checks (bob 1st, ana and eve tied 2nd, cy 4th).
pub async fn a_preview_resumes_whole_after_failed_writes<S: Store + Clone + 'static>(store: &S) {
    for (id, winner, loser, moves, at) in LAST_WEEKEND {
        seega(store, id, winner, loser, *moves, at).await;
    }
    let faulty = crate::faults::Faulty::new(store.clone()).failing_item_writes("PREVIEW#", 3);
    let def = weekend(
        "weekend-seega-wins",
        "2026-11-27T22:00:00Z",
        "2026-11-29T22:00:00Z",
    );
    let window = (instant("2026-11-27T00:00:00Z"), instant("2026-11-30T00:00:00Z"));
    let now = instant("2026-12-01T12:00:00Z");
    let mut failed = 0;
    let mut finished = None;
    for _ in 0..1_000 {
        match previews::run(&faulty, def.clone(), window, now, Budget::steps(1), 2).await {
            Ok(p) if p.finished_at.is_some() => {
                finished = Some(p);
                break;
            }
            Ok(_) => {}
            Err(e) => {
                assert!(e.is_unavailable(), "{e}");
                failed += 1;
            }
        }
    }
    assert_eq!(failed, 3, "each injected failure answered once");
    let p = finished.expect("finished");
    assert_eq!((p.results_read, p.counted), (9, 7), "every page counted once");
    let top: Vec<(u64, &str, i64)> = p.periods[0]
        .top
        .iter()
        .map(|l| (l.rank, l.player_id.as_str(), l.value))
        .collect();
    assert_eq!(top, [(1, "bob", 2), (2, "ana", 2), (2, "eve", 2), (4, "cy", 1)]);
}

/// BD-13: a preview reads past play only: a window that ends after now, ends before it
/// starts or reaches back more than 400 days is refused naming the field, and a
/// definition that breaks a rule is refused naming its field; nothing is recorded.
pub async fn a_preview_window_is_checked<S: Store + ?Sized>(store: &S) {
    let def = weekend("weekend-check", "2026-11-27T22:00:00Z", "2026-11-29T22:00:00Z");
    let now = instant("2026-12-01T12:00:00Z");
    let refused = |r: Result<Preview, ServiceError>| match r {
        Err(ServiceError::Invalid(e)) => e.to_string(),
        other => panic!("not refused: {other:?}"),
    };
    let run = |def: Definition, from: &str, to: &str| {
        previews::run(
            store,
            def,
            (instant(from), instant(to)),
            now,
            Budget::steps(1),
            10,
        )
    };
    assert_eq!(
        refused(run(def.clone(), "2026-11-27T00:00:00Z", "2026-12-02T00:00:00Z").await),
        "to (BD-13): a preview reads past play: the window ends by now"
    );
    assert_eq!(
        refused(run(def.clone(), "2026-11-30T00:00:00Z", "2026-11-27T00:00:00Z").await),
        "to (BD-13): the window ends after it starts"
    );
    assert_eq!(
        refused(run(def.clone(), "2025-10-01T00:00:00Z", "2026-11-27T00:00:00Z").await),
        "from (BD-13): a preview reads at most the last 400 days"
    );
    // A window of play that meets none of the event's own window (its dates not moved
    // to the past) is refused rather than answered empty.
    for (from, to) in [
        ("2026-11-20T00:00:00Z", "2026-11-27T22:00:00Z"),
        ("2026-11-29T22:00:00Z", "2026-11-30T00:00:00Z"),
    ] {
        assert!(
            refused(run(def.clone(), from, to).await).starts_with(
                "from (BD-13): the window [from, to) meets none of the definition's: its window is [2026-11-27T22:00:00+00:00, 2026-11-29T22:00:00+00:00)"
            ),
            "{from} {to}"
        );
    }
    let mut bad = serde_json::to_value(&def).expect("json");
    bad["prizes"] = json!([{"from": 2, "to": 1, "points": 5}]);
    let bad: Definition = serde_json::from_value(bad).expect("a definition");
    assert_eq!(
        refused(run(bad, "2026-11-27T00:00:00Z", "2026-11-30T00:00:00Z").await),
        "definition.prizes[0].to (BD-9): a band is ranks from 1 to 10000, from at most to"
    );
    assert!(previews::list(store).await.expect("a list").is_empty());
}

#[macro_export]
macro_rules! previews_tests {
    ($make:path) => {
        $crate::previews_tests!(@cases $make;
            the_preview_of_last_weekend_equals_its_replay,
            every_games_results_preview_as_they_fed_its_boards,
            a_held_record_counts_for_nobody_in_the_preview,
            a_preview_resumes_whole_after_failed_writes,
            a_long_preview_lists_what_fits_and_says_what_it_left_out,
            a_preview_window_is_checked,
        );
    };
    (@cases $make:path; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::previews::$case(&$make().await).await;
            }
        )+
    };
}
