//! Places with ties, and what tied players share (MJ-11, MJ-15): players with equal
//! results occupy a run of places together and split the prizes (or TP) of those
//! places equally, rounded down.

/// For results already ordered best first, where `tied(a, b)` says two adjacent
/// results are equal: each player's share of `prizes` (the prize of place 1, 2, …;
/// places past the list get 0). Players tied over places `i … j` each get
/// ⌊(`prizes[i]` + … + `prizes[j]`) ÷ (j − i + 1)⌋ (MJ-11's Decision, MJ-15). Integer
/// points; the rounding never pays more than the places' total.
pub fn shares<T>(ordered: &[T], tied: impl Fn(&T, &T) -> bool, prizes: &[i64]) -> Vec<i64> {
    let mut out = Vec::with_capacity(ordered.len());
    let mut start = 0;
    while start < ordered.len() {
        let mut end = start + 1;
        while end < ordered.len() && tied(&ordered[end - 1], &ordered[end]) {
            end += 1;
        }
        let total: i64 = (start..end).map(|p| prizes.get(p).copied().unwrap_or(0)).sum();
        let each = total.div_euclid((end - start) as i64);
        out.extend(std::iter::repeat_n(each, end - start));
        start = end;
    }
    out
}

/// The 1-based place of each result already ordered best first: tied results share
/// the best place of their run (`[1, 2, 2, 4]`).
pub fn places<T>(ordered: &[T], tied: impl Fn(&T, &T) -> bool) -> Vec<u32> {
    let mut out = Vec::with_capacity(ordered.len());
    for i in 0..ordered.len() {
        if i > 0 && tied(&ordered[i - 1], &ordered[i]) {
            out.push(out[i - 1]);
        } else {
            out.push(i as u32 + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARENA: [i64; 4] = [80, 40, 20, 0];

    /// MJ-11: the worked examples: 80 / 30 / 30 / 0; three tied first 46 each; two
    /// tied third 10 each.
    #[test]
    fn mj_11_tied_players_share_their_places_rounded_down() {
        let eq = |a: &i64, b: &i64| a == b;
        assert_eq!(shares(&[2400, 1900, 1900, 700], eq, &ARENA), [80, 30, 30, 0]);
        assert_eq!(shares(&[500, 500, 300, 100], eq, &ARENA), [60, 60, 20, 0]);
        assert_eq!(shares(&[400, 400, 400, 100], eq, &ARENA), [46, 46, 46, 0]);
        assert_eq!(shares(&[500, 400, 200, 200], eq, &ARENA), [80, 40, 10, 10]);
        assert_eq!(shares(&[7, 7, 7, 7], eq, &ARENA), [35, 35, 35, 35]);
        assert_eq!(places(&[500, 400, 200, 200], eq), [1, 2, 3, 3]);
        assert_eq!(places(&[400, 400, 400, 100], eq), [1, 1, 1, 4]);
    }

    /// MJ-15: shares never pay more than the places are worth, for any ties.
    #[test]
    fn mj_15_shares_never_exceed_the_places() {
        for mask in 0u32..8 {
            let ordered: Vec<u32> = (0..4)
                .scan(0, |g, i| {
                    if i > 0 && mask & (1 << (i - 1)) == 0 {
                        *g += 1;
                    }
                    Some(*g)
                })
                .collect();
            let s = shares(&ordered, |a, b| a == b, &ARENA);
            assert!(
                s.iter().sum::<i64>() <= ARENA.iter().sum::<i64>(),
                "{ordered:?} {s:?}"
            );
            assert!(s.windows(2).all(|w| w[0] >= w[1]), "{s:?}");
        }
    }
}
