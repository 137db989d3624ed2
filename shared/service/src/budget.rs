//! How much one call of a job may do: a deadline (the instant by which it saves its
//! progress and stops, so that the next call resumes it) and, for tests and the CLI,
//! a bound on the steps each job takes per call (a snapshot run's pages, a close's
//! chunks of results).
//!
//! On Lambda the deadline is the invocation's own (`Context::deadline`) less
//! [`Budget::MARGIN`], the time kept back to save and publish; locally a call has no
//! deadline unless one is configured. Jobs check it between bounded steps (a chunk of
//! a snapshot's pages, a chunk of a close's results, a board, a period): a step
//! begun before the deadline ends, so a step's size bounds the overrun.

use std::time::{Duration, Instant};

/// The wall clock now (milliseconds since the Unix epoch, UTC; 0 before it).
pub fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .unwrap_or(0)
}

/// One call's budget. `Default`: no bound (the call runs to the end).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    /// The most steps each job takes in this call (`None`: no bound): pages a snapshot
    /// run lists, chunks of results a period close sends.
    pub steps: Option<u32>,
    /// The monotonic instant by which the call stops (`None`: no deadline).
    pub deadline: Option<Instant>,
}

impl Budget {
    /// Time kept back before an invocation's deadline: enough to save a step's
    /// progress and publish a pointer (seconds of DynamoDB calls at their timeouts).
    pub const MARGIN: Duration = Duration::from_secs(20);

    /// No bound: the call runs to the end.
    pub fn unbounded() -> Self {
        Budget::default()
    }

    /// At most `steps` steps per job in this call.
    pub fn steps(steps: u32) -> Self {
        Budget {
            steps: Some(steps),
            deadline: None,
        }
    }

    /// Whether a job that has taken `taken` steps in this call stops before the next:
    /// its steps are spent, or the deadline has passed (the first step is always
    /// taken, so every call makes progress).
    pub fn stops_after(&self, taken: u32) -> bool {
        taken > 0 && (self.steps.is_some_and(|n| taken >= n) || self.expired())
    }

    /// A call that may work for `time` from now.
    pub fn lasting(time: Duration) -> Self {
        Budget {
            steps: None,
            deadline: Some(Instant::now() + time),
        }
    }

    /// A Lambda invocation whose deadline is `deadline_ms` (milliseconds since the
    /// Unix epoch, as the runtime's context gives it), less [`Budget::MARGIN`]: at
    /// least one second, so a call always takes a step.
    pub fn invocation(deadline_ms: u64, now: std::time::SystemTime) -> Self {
        let now_ms = now
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or_default();
        let left =
            Duration::from_millis(u64::try_from(u128::from(deadline_ms).saturating_sub(now_ms)).unwrap_or(0));
        Budget::lasting(left.saturating_sub(Self::MARGIN).max(Duration::from_secs(1)))
    }

    /// Whether the deadline has passed: no new step begins.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The deadline on the wall clock (milliseconds since the Unix epoch, UTC; `None`:
    /// no deadline): what a lease records so that a call retried after this one was
    /// killed can tell it is over, whatever instant the caller's clock says.
    pub fn deadline_wall_ms(&self) -> Option<i64> {
        let left = i64::try_from(self.left()?.as_millis()).unwrap_or(i64::MAX);
        Some(wall_ms().saturating_add(left))
    }

    /// Time left before the deadline (`None`: no deadline).
    pub fn left(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// This budget, its deadline brought forward to `share` of the time left (for one
    /// of several pieces of work that share a call): `1/n` of it, for the first of n.
    pub fn share(&self, n: u32) -> Self {
        match self.left() {
            Some(left) => Budget {
                deadline: Some(Instant::now() + left / n.max(1)),
                ..*self
            },
            None => *self,
        }
    }
}

/// How much of an operator's request an action that may outgrow it does before
/// answering (the rest is carried on by the next ticks): a time, and for tests a
/// number of steps. Default: [`StepLimit::REQUEST`], no step bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepLimit {
    pub time: Duration,
    pub steps: Option<u32>,
}

impl StepLimit {
    /// The time an operator's request works before it answers: well inside API
    /// Gateway's 30 s and the operator function's timeout, so the answer comes in
    /// about a second.
    pub const REQUEST: Duration = Duration::from_millis(800);

    /// The budget of one request, from now.
    pub fn budget(&self) -> Budget {
        Budget {
            steps: self.steps,
            ..Budget::lasting(self.time)
        }
    }
}

impl Default for StepLimit {
    fn default() -> Self {
        StepLimit {
            time: Self::REQUEST,
            steps: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invocation_keeps_its_margin_and_always_takes_a_step() {
        let now = std::time::SystemTime::now();
        let now_ms = now.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
        let b = Budget::invocation(now_ms + 300_000, now);
        let left = b.left().unwrap();
        assert!(
            left <= Duration::from_secs(280) && left > Duration::from_secs(270),
            "{left:?}"
        );
        let late = Budget::invocation(now_ms.saturating_sub(5_000), now);
        assert!(late.left().unwrap() > Duration::from_millis(900));
        assert!(!Budget::unbounded().expired());
    }

    #[test]
    fn a_share_is_a_part_of_what_is_left() {
        let b = Budget::lasting(Duration::from_secs(100));
        let third = b.share(3).left().unwrap();
        assert!(
            third <= Duration::from_secs(34) && third > Duration::from_secs(32),
            "{third:?}"
        );
        assert_eq!(Budget::steps(3).share(4), Budget::steps(3));
        assert!(!Budget::steps(2).stops_after(1) && Budget::steps(2).stops_after(2));
        let spent = Budget::lasting(Duration::ZERO);
        assert!(!spent.stops_after(0) && spent.stops_after(1));
    }
}
