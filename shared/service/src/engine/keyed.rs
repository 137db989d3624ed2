//! Running many jobs at once while jobs that share a key keep their order: a replay
//! or a queue batch scores several matches concurrently, but two matches of the same
//! player (or two deliveries of the same match id) are settled one after the other,
//! in the order given, so the result is the one a one-at-a-time run would produce.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::ops::ControlFlow;

use futures::stream::{FuturesUnordered, StreamExt};
use futures::FutureExt;

/// The ordering keys of a record: its id (a repeat after its first delivery) and
/// each player (balances move in the order records are given).
pub fn record_keys<'a>(id: &str, players: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut keys = vec![format!("match\u{0}{id}")];
    keys.extend(players.into_iter().map(|p| format!("player\u{0}{p}")));
    keys
}

/// How many jobs may wait, per running one, for their keys to be free.
const LOOKAHEAD: usize = 4;

/// Runs `run` on every job of `jobs` (its keys, its input), at most `window` at a
/// time (at least 1), and calls `done(index, output)` as each finishes (`index`: the
/// job's position in `jobs`). A job starts only when no running job holds any of its
/// keys and no earlier job still waiting shares one: jobs with a common key run in
/// `jobs`' order, one at a time; jobs without keys run as soon as there is room.
///
/// When `done` answers [`ControlFlow::Break`], no further job starts; the running ones
/// finish and are reported. Returns how many jobs were started.
pub async fn run_keyed<I, T, R, Fut>(
    jobs: I,
    window: usize,
    mut run: impl FnMut(T) -> Fut,
    mut done: impl FnMut(usize, R) -> ControlFlow<()>,
) -> usize
where
    I: IntoIterator<Item = (Vec<String>, T)>,
    Fut: Future<Output = R>,
{
    let window = window.max(1);
    let mut jobs = jobs.into_iter().enumerate();
    let mut more = true;
    let mut waiting: VecDeque<(usize, Vec<String>, T)> = VecDeque::new();
    let mut busy: HashSet<String> = HashSet::new();
    let mut running = FuturesUnordered::new();
    let mut started = 0;
    let mut stopped = false;
    loop {
        if !stopped {
            while more && waiting.len() < window * LOOKAHEAD {
                match jobs.next() {
                    Some((i, (keys, input))) => waiting.push_back((i, keys, input)),
                    None => more = false,
                }
            }
            // Start, in order, every waiting job whose keys are free of running jobs
            // and of earlier waiting ones (a job passed over claims its keys).
            let mut ready = Vec::new();
            {
                let mut claimed: HashSet<&str> = HashSet::new();
                for (i, (_, keys, _)) in waiting.iter().enumerate() {
                    if running.len() + ready.len() >= window {
                        break;
                    }
                    if keys
                        .iter()
                        .all(|k| !busy.contains(k.as_str()) && !claimed.contains(k.as_str()))
                    {
                        ready.push(i);
                    }
                    claimed.extend(keys.iter().map(String::as_str));
                }
            }
            for i in ready.into_iter().rev() {
                if let Some((index, keys, input)) = waiting.remove(i) {
                    busy.extend(keys.iter().cloned());
                    let job = run(input);
                    running.push(async move { (index, keys, job.await) });
                    started += 1;
                }
            }
        }
        match running.next().await {
            Some(first) => {
                // Everything already finished, then one scan of the waiting jobs.
                let mut finished = Some(first);
                while let Some((index, keys, output)) = finished {
                    for k in &keys {
                        busy.remove(k);
                    }
                    if done(index, output).is_break() {
                        stopped = true;
                    }
                    finished = running.next().now_or_never().flatten();
                }
            }
            None if stopped || (waiting.is_empty() && !more) => return started,
            // Nothing running: the first waiting job is always free; go round again.
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    fn job(keys: &[&str], n: u64) -> (Vec<String>, u64) {
        (keys.iter().map(|k| k.to_string()).collect(), n)
    }

    #[tokio::test]
    async fn jobs_sharing_a_key_run_in_order_one_at_a_time() {
        // Job n sleeps so that later jobs would finish first if they could overtake.
        let jobs = vec![
            job(&["a", "b"], 0),
            job(&["c"], 1),
            job(&["b"], 2),
            job(&["a", "c"], 3),
            job(&[], 4),
            job(&["a"], 5),
        ];
        let log = Arc::new(Mutex::new(Vec::new()));
        let running = Arc::new(Mutex::new(HashSet::<String>::new()));
        let keys: Vec<Vec<String>> = jobs.iter().map(|(k, _)| k.clone()).collect();
        let started = run_keyed(
            jobs.into_iter().map(|(k, n)| (k.clone(), (k, n))),
            8,
            |(k, n): (Vec<String>, u64)| {
                let log = Arc::clone(&log);
                let running = Arc::clone(&running);
                async move {
                    for key in &k {
                        assert!(
                            running.lock().unwrap().insert(key.clone()),
                            "{key} ran twice at once"
                        );
                    }
                    tokio::time::sleep(Duration::from_millis(30 - 5 * n)).await;
                    for key in &k {
                        running.lock().unwrap().remove(key);
                    }
                    log.lock().unwrap().push(n);
                    n
                }
            },
            |_, _| ControlFlow::Continue(()),
        )
        .await;
        assert_eq!(started, 6);
        let log = log.lock().unwrap().clone();
        let pos = |n: u64| log.iter().position(|x| *x == n).unwrap();
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate().skip(i + 1) {
                if a.iter().any(|k| b.contains(k)) {
                    assert!(pos(i as u64) < pos(j as u64), "job {i} before job {j}: {log:?}");
                }
            }
        }
        // Unrelated jobs overlapped: the key-less job 4 finished before job 0.
        assert!(pos(4) < pos(0), "{log:?}");
    }

    #[tokio::test]
    async fn a_break_starts_nothing_more_and_reports_the_running() {
        let jobs = (0..100u64).map(|n| (vec![format!("p{}", n % 3)], n));
        let mut seen = Vec::new();
        let started = run_keyed(
            jobs,
            4,
            |n| async move { n },
            |i, n| {
                seen.push((i, n));
                if n == 10 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        )
        .await;
        assert_eq!(started, seen.len());
        assert!((11..100).contains(&started), "{started}");
    }
}
