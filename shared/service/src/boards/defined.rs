//! Defined boards as the board machinery reads them (BD-6, BD-12): a board id that no
//! built-in board has (LB-1) is looked up among the definitions, its period named and
//! clocked by the definition's schedule, and its stored values (the value folded with
//! its tie-breaks, BD-5) shown as the value. Pages, cursors, around-me and standing
//! then run as on any board.
//!
//! The process keeps what it read of each definition (its versions) for up to
//! [`KEPT_FOR`], so a hot board's pages cost no read of its definition; the values a
//! page shows are read from that copy ([`shape`]). What it keeps per period cannot go
//! stale: what a period's values mean is fixed once it began (BD-10).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use podium_rules::board::definition::{DefinedPeriod, Prize, Schedule};
use podium_rules::board::feed::Fold;
use podium_rules::board::{BoardRef, Unit};
use podium_rules::period::PeriodClock;
use podium_store::ItemStore;

use super::definitions::{self, Head, Version};
use crate::error::ServiceError;

/// How long a process keeps a definition it read before reading it again.
pub const KEPT_FOR: Duration = Duration::from_secs(10);

/// A defined board as read: its head and every version, oldest first.
#[derive(Debug)]
pub struct Known {
    pub head: Head,
    pub versions: Vec<Version>,
    read_at: Instant,
}

/// The definitions this process read, by store ([`ItemStore::scope`]) and id.
type KnownByStore = HashMap<(u64, String), Arc<Known>>;
static KNOWN: LazyLock<RwLock<KnownByStore>> = LazyLock::new(Default::default);

/// The definition of each id this process read last, whichever store it came from: how
/// its values read back ([`shape`]; a deployed process opens one store).
static LAST_READ: LazyLock<RwLock<HashMap<String, Arc<Known>>>> = LazyLock::new(Default::default);

/// How a defined board's stored values read back: its fold (BD-5) and unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub fold: Fold,
    pub unit: Unit,
}

impl Known {
    /// The version in force at `at` (BD-10): the newest effective by then, else the
    /// first (a board's first version holds for every earlier instant).
    pub(crate) fn in_force_at(&self, at: DateTime<Utc>) -> &Version {
        self.versions
            .iter()
            .rev()
            .find(|v| v.effective_from <= at)
            .unwrap_or(&self.versions[0])
    }

    /// The period named `id` and the version it keeps: a period of the schedule of the
    /// version in force when it began (an ended period of an older schedule too).
    fn named(&self, id: &str) -> Result<(DefinedPeriod, &Version), podium_rules::RuleError> {
        let mut refusal = None;
        for v in self.versions.iter().rev() {
            match v.definition.schedule.period_named(id) {
                Ok(p) if self.feeds(&p, v) => return Ok((p, v)),
                Ok(_) => {}
                Err(e) => {
                    refusal.get_or_insert(e);
                }
            }
        }
        Err(refusal.unwrap_or_else(|| {
            podium_rules::RuleError::new(
                "period",
                "BD-6",
                format!("no period of this board is named `{id}`"),
            )
        }))
    }

    /// Whether the board has (or had, by an older schedule) a period named `id`; the
    /// refusal names `period` (BD-6).
    pub fn names_period(&self, id: &str) -> Result<(), podium_rules::RuleError> {
        self.named(id).map(|_| ())
    }

    /// Whether `v`'s schedule made period `p` and results still meet it in `p`: `v`
    /// is in force at the period's first instant it could count (its start, or `v`'s
    /// own start when the period began under an older schedule, BD-10: the first period
    /// of a changed schedule is fed from the change on, and named by its start).
    fn feeds(&self, p: &DefinedPeriod, v: &Version) -> bool {
        let from = p.start.map_or(v.effective_from, |s| s.max(v.effective_from));
        std::ptr::eq(self.in_force_at(from), v) && p.end.is_none_or(|end| from < end)
    }

    /// 404 for an ended period older than the board keeps readable (BD-6: the
    /// `keep_periods` of the version in force now, counted back period by period, each
    /// by the schedule in force then).
    fn kept(&self, period: &DefinedPeriod, now: DateTime<Utc>) -> Result<(), ServiceError> {
        let Some(start) = period.start else {
            return Ok(());
        };
        let keep = self.in_force_at(now).definition.keep_periods;
        let at = |t: DateTime<Utc>| {
            self.in_force_at(t)
                .definition
                .schedule
                .period_at(t)
                .ok()
                .flatten()
        };
        let mut current = at(now);
        for _ in 0..=keep {
            let Some(p) = current else {
                return Ok(());
            };
            if p.start.is_none_or(|s| s <= start) {
                return Ok(());
            }
            current = p.start.and_then(|s| at(s - chrono::Duration::milliseconds(1)));
        }
        Err(ServiceError::NotFound(format!(
            "period `{}` is no longer kept (the board keeps its last {keep} ended periods, BD-6)",
            period.id
        )))
    }

    /// The period named `id` (the current one by default; a window's only one) with its
    /// LB-6 clock at `now`, by the schedule in force then. 400 naming `period` (BD-6)
    /// for a name it has no period of.
    pub fn period(
        &self,
        id: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(DefinedPeriod, PeriodClock), ServiceError> {
        // 400 naming `period` and the rule (BD-6), as a built-in board's period is.
        let bad = |e: podium_rules::RuleError| {
            ServiceError::Invalid(podium_rules::RuleError::new("period", e.rule, e.message))
        };
        let (period, version) = match id {
            Some(id) => {
                let named = self.named(id).map_err(bad)?;
                self.kept(&named.0, now)?;
                named
            }
            None => {
                let v = self.in_force_at(now);
                let schedule = &v.definition.schedule;
                let p = match schedule {
                    Schedule::Window { .. } => schedule.period_named("window").map_err(bad)?,
                    _ => schedule
                        .period_at(now)
                        .map_err(bad)?
                        .ok_or_else(|| ServiceError::NotFound("no current period".into()))?,
                };
                (p, v)
            }
        };
        let mut clock = version.definition.schedule.clock(&period, now);
        // The board's next reset is the schedule's in force now, also when `period`
        // is a past one of an earlier schedule (BD-10).
        clock.next_reset = self
            .in_force_at(now)
            .definition
            .schedule
            .clock(&period, now)
            .next_reset;
        Ok((period, clock))
    }
}

impl Known {
    /// Whether the board was retired before `period` ended, cancelling its prizes
    /// (BD-9: such a period is closed by no one).
    pub fn retired_before_end(&self, period: &DefinedPeriod) -> bool {
        match (self.head.retired_at, period.end) {
            (Some(r), Some(end)) => r < end,
            _ => false,
        }
    }

    /// The prize table `period` pays at its end (BD-9): the one of the version in
    /// force when it ended (prizes apply at once, BD-10, unless written with a change
    /// still to come: then with that one; an edit after the end changes nothing of
    /// it). Empty: none.
    /// How a team board's prizes of period `period_id` are split (TM-6): as the version
    /// in force when it ended says (an edit after the end changes nothing of it), as
    /// its prize table is ([`Known::prizes_at_end`]). `None`: no such period, or a
    /// board of players.
    pub fn split_at_end(&self, period_id: &str) -> Option<podium_rules::team::Split> {
        let (period, _) = self.named(period_id).ok()?;
        let end = period.end?;
        self.in_force_at(end - chrono::Duration::milliseconds(1))
            .definition
            .teams
            .map(|t| t.split)
    }

    /// The prize table `period` pays at its end (BD-9): the one of the version in
    /// force when it ended (prizes apply at once, BD-10, unless written with a change
    /// still to come: then with that one; an edit after the end changes nothing of
    /// it). Empty: none.
    pub fn prizes_at_end(&self, period: &DefinedPeriod) -> &[Prize] {
        let Some(end) = period.end else {
            return &[];
        };
        self.in_force_at(end - chrono::Duration::milliseconds(1))
            .definition
            .prizes
            .as_slice()
    }
}

/// The definition named `id`, if one exists (retired ones too: their archives stay
/// readable): from this process's copy when it is younger than [`KEPT_FOR`], else one
/// Query of its items.
pub async fn resolve<S: ItemStore + ?Sized>(store: &S, id: &str) -> Result<Option<Arc<Known>>, ServiceError> {
    resolve_kept(store, id, true).await
}

/// The definition named `id` as the store holds it now (one Query, whatever this
/// process kept; the copy it keeps is renewed): what a period's close pays and checks
/// (BD-9), so that a change written just before the end counts.
pub async fn resolve_fresh<S: ItemStore + ?Sized>(
    store: &S,
    id: &str,
) -> Result<Option<Arc<Known>>, ServiceError> {
    resolve_kept(store, id, false).await
}

async fn resolve_kept<S: ItemStore + ?Sized>(
    store: &S,
    id: &str,
    kept: bool,
) -> Result<Option<Arc<Known>>, ServiceError> {
    if !podium_rules::board::definition::well_formed_id(id) {
        return Ok(None);
    }
    let key = (store.scope(), id.to_string());
    if let Some(k) = KNOWN.read().ok().and_then(|m| m.get(&key).cloned()) {
        if kept && k.read_at.elapsed() < KEPT_FOR {
            return Ok(Some(k));
        }
    }
    let read_at = Instant::now();
    let Some((head, _)) = definitions::read(store, id).await? else {
        return Ok(None);
    };
    let versions = definitions::versions(store, id).await?;
    if versions.is_empty() {
        return Ok(None);
    }
    let known = Arc::new(Known {
        head,
        versions,
        read_at,
    });
    if let Ok(mut m) = KNOWN.write() {
        m.insert(key, known.clone());
    }
    if let Ok(mut m) = LAST_READ.write() {
        m.insert(id.to_string(), known.clone());
    }
    Ok(Some(known))
}

/// How `board`'s stored values read back, if it is a defined board this process has
/// resolved ([`resolve`]): the version its period keeps.
pub fn shape(board: &BoardRef) -> Option<Shape> {
    let known = LAST_READ.read().ok()?.get(&board.board).cloned()?;
    let (_, version) = known.named(&board.period).ok()?;
    let def = &version.definition;
    Some(Shape {
        fold: def.fold(),
        unit: def.unit(),
    })
}

impl Shape {
    /// The order of the board's value alone (BD-4), as LB-2's machinery reads values.
    pub fn order(&self) -> podium_rules::board::Order {
        use podium_rules::board::definition::Direction;
        match self.fold.order {
            Direction::HigherFirst => podium_rules::board::Order::HigherFirst,
            Direction::LowerFirst => podium_rules::board::Order::LowerFirst {
                ceiling: self.fold.value_ceiling(),
            },
        }
    }

    /// The value a stored value holds (its tie-breaks set aside).
    pub fn value(&self, stored: i64) -> i64 {
        self.fold.columns(stored).value
    }

    /// `stored` with its tie-breaks set aside, stored in [`Shape::order`]: what a
    /// standing's gaps are counted in (LB-4).
    pub fn value_stored(&self, stored: i64) -> i64 {
        self.order().stored(self.value(stored))
    }
}
