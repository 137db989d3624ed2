//! `podium snapshot`'s summary: what the ticks did, in a few lines a person reads
//! (the tick's own logs go to stderr, at `RUST_LOG`'s level, warnings by default).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use podium_service::jobs::{self, TickReport};

use crate::error::CliError;
use crate::local_store;

/// Board names that `…-{number}` closes, grouped as one line (`mahjong-level-1 … 60`).
const LEVEL_PREFIX: &str = "mahjong-level-";

/// The summary of every tick one `podium snapshot` ran (the catch-up ticks, then the
/// refresh), at `at`.
pub fn summary(at: chrono::DateTime<chrono::Utc>, reports: &[TickReport]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "snapshot at {}",
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    let mut messages = 0usize;

    // Periods frozen and closed, per board (a board's periods close oldest first).
    let mut closed: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut results: BTreeMap<&str, (usize, usize, i64)> = BTreeMap::new();
    for c in reports.iter().flat_map(|r| &r.closed) {
        closed.entry(&c.board).or_default().push(&c.period);
        if let Some(r) = &c.results {
            let e = results.entry(&c.board).or_default();
            e.0 += r.sent;
            e.1 += r.rewarded;
            e.2 += r.reward_points;
        }
    }
    let frozen = reports
        .iter()
        .flat_map(|r| &r.runs)
        .filter(|r| r.snapshot == "final")
        .count();
    if closed.is_empty() {
        let _ = writeln!(out, "  periods      none to close ({frozen} frozen)");
    } else {
        let n: usize = closed.values().map(Vec::len).sum();
        let _ = writeln!(out, "  periods      {n} frozen and closed:");
        for (board, periods) in &closed {
            let span = span(periods);
            let sent = match results.get(board) {
                Some((sent, rewarded, points)) => {
                    messages += sent;
                    format!("; {sent} period_result messages, {rewarded} with a reward ({points} points)")
                }
                None => "; no reward table (PODIUM_PERIOD_REWARDS): no period_result messages".into(),
            };
            let _ = writeln!(out, "                 {board}: {span}{sent}");
        }
    }

    // League weeks closed, per league.
    let mut leagues: BTreeMap<&str, (Vec<&str>, usize, usize, usize, usize)> = BTreeMap::new();
    for w in reports.iter().flat_map(|r| &r.league_weeks) {
        let e = leagues.entry(&w.league).or_default();
        e.0.push(&w.week);
        e.1 += w.placed;
        e.2 += w.promoted;
        e.3 += w.relegated;
        e.4 += w.sent;
    }
    for (league, (weeks, placed, promoted, relegated, sent)) in &leagues {
        messages += sent;
        let _ = writeln!(
            out,
            "  league       {league}: {} closed: {placed} placed, {promoted} promoted, {relegated} relegated, \
             {sent} league_result messages",
            span(weeks)
        );
    }

    // Rolling windows.
    for w in reports.iter().flat_map(|r| &r.windows) {
        let _ = writeln!(
            out,
            "  window       {}: days through {} taken off, {} entries changed",
            w.board, w.through, w.changed
        );
    }

    // Tournaments.
    for t in reports.iter().flat_map(|r| &r.tournaments) {
        let _ = writeln!(
            out,
            "  tournament   {}: {}; {} prizes paid{}",
            t.tournament_id,
            if t.steps.is_empty() {
                "no step".to_string()
            } else {
                t.steps.join(", ")
            },
            t.prizes_paid,
            if t.done { "; done" } else { "" }
        );
    }

    // The refresh.
    let refreshed: Vec<_> = reports
        .iter()
        .flat_map(|r| &r.runs)
        .filter(|r| r.snapshot != "final")
        .collect();
    let (mut levels, mut boards) = (Vec::new(), Vec::new());
    for r in &refreshed {
        match r.board.strip_prefix(LEVEL_PREFIX) {
            Some(n) => levels.push(n.parse::<u32>().unwrap_or(0)),
            None if r.period == "all" => boards.push(r.board.clone()),
            None => boards.push(format!("{}@{}", r.board, r.period)),
        }
    }
    levels.sort_unstable();
    if !levels.is_empty() {
        boards.push(format!(
            "{} level rankings ({LEVEL_PREFIX}{} … {})",
            levels.len(),
            levels[0],
            levels[levels.len() - 1]
        ));
    }
    let pages: u64 = refreshed.iter().map(|r| u64::from(r.pages_total)).sum();
    let bodies: u64 = refreshed.iter().map(|r| u64::from(r.bodies_written)).sum();
    let partial = refreshed.iter().filter(|r| !r.complete).count();
    let _ = writeln!(
        out,
        "  refreshed    {} boards, {pages} pages ({bodies} page bodies written, the others shared){}: {}",
        refreshed.len(),
        if partial > 0 {
            format!(", {partial} partial (the next tick resumes them)")
        } else {
            String::new()
        },
        boards.join(", ")
    );

    // `overtaken` messages.
    let overtaken: Vec<String> = reports
        .iter()
        .flat_map(|r| &r.overtaken)
        .map(|o| {
            messages += o.top + o.neighbours;
            format!("{} {} (top) + {} (followers)", o.board, o.top, o.neighbours)
        })
        .collect();
    if !overtaken.is_empty() {
        let _ = writeln!(out, "  overtaken    {}", overtaken.join(", "));
    }
    let _ = writeln!(out, "  messages     {messages} sent to inboxes");

    // What is left for the next run.
    let behind: Vec<_> = reports
        .last()
        .map(|r| r.behind.iter().collect())
        .unwrap_or_default();
    for b in behind {
        let _ = writeln!(
            out,
            "  behind       {}: from {} on{}",
            b.board,
            b.next,
            if b.busy {
                "; another tick is at work on it"
            } else {
                "; run podium snapshot again to go on"
            }
        );
    }
    out
}

/// `a … b (n)` of a board's periods in the order closed, or the one period.
fn span(periods: &[&str]) -> String {
    match periods {
        [] => String::new(),
        [one] => (*one).to_string(),
        [first, .., last] => format!("{first} … {last} ({})", periods.len()),
    }
}

/// `podium snapshot`: catch-up ticks until no ended period is left (the deployed
/// schedule goes on at its next tick instead), then the refresh of the live boards;
/// what each tick did ([`jobs::schedule::catch_up_then_refresh`]).
pub(crate) async fn snapshot(
    store: &dyn local_store::Local,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<TickReport>, CliError> {
    let settings = podium_service::config::tick_settings()?;
    let ticks = jobs::schedule::catch_up_then_refresh(store, now, &settings, true).await?;
    Ok(ticks.into_iter().map(|t| t.report).collect())
}
