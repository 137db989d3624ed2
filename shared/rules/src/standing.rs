//! Relative standing (LB-2, LB-4): where the caller stands against the whole board —
//! rank of N, the percentile ("top 5 %"), and how far the next better value and the
//! top-[`TOP_CUTOFF`] cut-off are. Computed from stored values (higher first, see
//! [`Order`]) and answered in the board's own units (points, milliseconds, rating).

use serde::Serialize;

use crate::board::{Order, Unit};

/// The cut-off the standing measures against: the board's top 100.
pub const TOP_CUTOFF: u64 = 100;

/// The caller's standing against the whole board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Relative {
    /// The caller's LB-2 rank (as `me.rank`).
    pub rank: u64,
    /// Entries ranked on the board: the snapshot's exact count, plus the caller when
    /// the snapshot holds no entry of theirs yet. Absent before the board's first
    /// snapshot (counting a live board would read all of it, LB-7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub of: Option<u64>,
    /// "Top X %": ⌈100 × rank ÷ of⌉, in integers (1 … 100): rank 1 of 1,000 is top
    /// 1 %, rank 50 of 1,000 top 5 %, rank 51 top 6 %, the last top 100 %. Absent with `of`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_percent: Option<u32>,
    /// The nearest value strictly better than the caller's, another player's (the
    /// caller's own older snapshot entry counts for nobody, LB-4); absent for the leaders.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_better: Option<Gap>,
    /// The value that places in the top [`TOP_CUTOFF`] among the other players shown
    /// (the 100th of them: the caller's own older snapshot entry and players hidden
    /// since are not counted, LB-4); absent when the board ranks no more than 100
    /// entries, before its first snapshot, or when more such entries stand above the
    /// cut-off than the snapshot's pointer keeps after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_cutoff: Option<Cutoff>,
}

/// A value to reach, and how far it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Gap {
    /// The value, in the board's units (points; milliseconds on a time ranking).
    pub value: i64,
    /// `value` as shown (DISP; `m:ss.mmm` for times).
    pub value_shown: String,
    /// How far it is from the caller's value, in the same units (≥ 0): the points to
    /// gain, or the milliseconds to cut, to equal it; one more passes it (LB-2: among
    /// equals, who reached the value first lists first).
    pub gap: i64,
}

/// The top-N cut-off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Cutoff {
    /// N ([`TOP_CUTOFF`]).
    pub top: u64,
    #[serde(flatten)]
    pub gap: Gap,
}

/// ⌈100 × `rank` ÷ `of`⌉, clamped to 1 … 100 (integers only; `of` 0 counts as 1).
pub fn top_percent(rank: u64, of: u64) -> u32 {
    let of = of.max(1);
    let rank = rank.clamp(1, of);
    let pct = (u128::from(rank) * 100).div_ceil(u128::from(of));
    pct.clamp(1, 100) as u32
}

/// The gap from the caller's stored value `mine` to the stored value `target` (which
/// is at least as good), in the board's units.
pub fn gap(order: Order, unit: Unit, mine: i64, target: i64) -> Gap {
    let value = order.value_of(target);
    Gap {
        value,
        value_shown: unit.show(value),
        gap: target.saturating_sub(mine).max(0),
    }
}

/// The caller's relative standing: `rank` (LB-2) among `of` entries (when known),
/// their stored value `mine`, the nearest strictly better stored value (if any), and
/// the stored value listed at position [`TOP_CUTOFF`] (when the board has more).
pub fn relative(
    order: Order,
    unit: Unit,
    rank: u64,
    of: Option<u64>,
    mine: i64,
    next_better: Option<i64>,
    cutoff: Option<i64>,
) -> Relative {
    Relative {
        rank,
        of,
        top_percent: of.map(|of| top_percent(rank, of)),
        next_better: next_better
            .filter(|&v| v > mine)
            .map(|v| gap(order, unit, mine, v)),
        top_cutoff: cutoff.map(|v| Cutoff {
            top: TOP_CUTOFF,
            gap: gap(order, unit, mine, v),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented rounding: up, so that "top 5 %" is never a promise the rank does not keep.
    #[test]
    fn top_percent_rounds_up_in_integers() {
        assert_eq!(top_percent(1, 1_000), 1);
        assert_eq!(top_percent(50, 1_000), 5);
        assert_eq!(top_percent(51, 1_000), 6);
        assert_eq!(top_percent(1_000, 1_000), 100);
        assert_eq!(top_percent(1, 1), 100);
        assert_eq!(top_percent(1, 3), 34);
        assert_eq!(top_percent(1, 10_000_000), 1);
        assert_eq!(top_percent(0, 0), 100);
        assert_eq!(top_percent(u64::MAX, u64::MAX), 100);
    }

    /// LB-2 on a time ranking (MJ-3): stored values are `ceiling − ms`, the gap is in
    /// milliseconds to cut, and the value is the time itself.
    #[test]
    fn gaps_are_in_the_boards_units() {
        let order = Order::LowerFirst { ceiling: 600_000 };
        let g = gap(
            order,
            Unit::Milliseconds,
            order.stored(61_000),
            order.stored(59_500),
        );
        assert_eq!((g.value, g.gap), (59_500, 1_500));
        let g = gap(Order::HigherFirst, Unit::Points, 253, 676);
        assert_eq!((g.value, g.value_shown.as_str(), g.gap), (676, "676", 423));
        let r = relative(
            Order::HigherFirst,
            Unit::Points,
            1,
            Some(10),
            900,
            Some(900),
            None,
        );
        assert_eq!(r.next_better, None, "an equal value is not better");
        assert_eq!(r.top_percent, Some(10));
    }
}
