//! How points are shown to players (DISP-1 … DISP-4).
//!
//! Integer arithmetic only; the shown value never exceeds the true one in
//! magnitude (truncation toward zero, never rounding up).

/// Formats a non-negative or negative point value by DISP-1 … DISP-3, without a
/// `+` sign (a negative value gets the Unicode minus `−`, as DISP-4 prints it).
///
/// `999 → "999"`, `12,345 → "12.3K"`, `3,479,999 → "3.47M"`, `1,234,560,000 → "1234.56M"`.
pub fn format_points(points: i64) -> String {
    let mut out = String::with_capacity(12);
    if points < 0 {
        out.push('\u{2212}');
    }
    magnitude(&mut out, points.unsigned_abs());
    out
}

/// Formats a signed delta by DISP-4: always signed (`+311`, `−123`, `+1.2K`, `−1.2K`);
/// A balance of `game` as the app shows it: a Dots and Boxes or Minesweeper balance is
/// the player's rating, shown whole as its boards show it (`1469`, DB-6, MS-8); any
/// other in points (DISP-1 … DISP-3: `1.4K`).
pub fn format_balance(game: crate::game::Game, value: i64) -> String {
    if game.keeps_rating() {
        value.to_string()
    } else {
        format_points(value)
    }
}

/// zero shows as `0`.
pub fn format_delta(delta: i64) -> String {
    let mut out = String::with_capacity(12);
    match delta {
        0 => out.push('0'),
        d => {
            out.push(if d > 0 { '+' } else { '\u{2212}' });
            magnitude(&mut out, d.unsigned_abs());
        }
    }
    out
}

/// DISP-1 … DISP-3 on a magnitude, appended to `out` (one buffer: this runs for
/// every entry a page shows).
fn magnitude(out: &mut String, n: u64) {
    if n < 1_000 {
        // DISP-1
        push_int(out, n);
    } else if n < 1_000_000 {
        // DISP-2: one decimal, truncated; trailing ".0" dropped.
        let tenths = n / 100;
        with_decimals(out, tenths / 10, tenths % 10, 1);
        out.push('K');
    } else {
        // DISP-3: two decimals, truncated; trailing zeros dropped; stays in M above a billion.
        let hundredths = n / 10_000;
        with_decimals(out, hundredths / 100, hundredths % 100, 2);
        out.push('M');
    }
}

/// `whole`, then `.` and the `digits` decimals of `fraction` (`fraction` < 10^digits)
/// with trailing zeros dropped, appended to `out`.
fn with_decimals(out: &mut String, whole: u64, fraction: u64, digits: u32) {
    push_int(out, whole);
    let (mut fraction, mut digits) = (fraction, digits);
    while digits > 0 && fraction % 10 == 0 {
        fraction /= 10;
        digits -= 1;
    }
    if digits > 0 {
        out.push('.');
        let text = fraction.to_string();
        for _ in text.len()..digits as usize {
            out.push('0');
        }
        out.push_str(&text);
    }
}

/// `n` in decimal, appended to `out`.
fn push_int(out: &mut String, n: u64) {
    use std::fmt::Write as _;
    let _ = write!(out, "{n}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The operator's table (DISP-1 … DISP-3) and the extra examples of docs/rules/README.md.
    /// DB-6, MS-8: a rating game's balance is its rating, shown whole as on its boards.
    #[test]
    fn ratings_are_shown_whole() {
        use crate::game::Game;
        assert_eq!(format_balance(Game::DotsAndBoxes, 1469), "1469");
        assert_eq!(format_balance(Game::Minesweeper, 1516), "1516");
        assert_eq!(format_balance(Game::Seega, 1469), format_points(1469));
    }

    #[test]
    fn seed_table() {
        for (points, shown) in [
            (0, "0"),
            (999, "999"),
            (1_000, "1K"),
            (12_345, "12.3K"),
            (347_512, "347.5K"),
            (999_999, "999.9K"),
            (1_000_000, "1M"),
            (3_479_999, "3.47M"),
            (3_480_000, "3.48M"),
            (3_400_000, "3.4M"),
            (8_200_000, "8.2M"),
            (1_234_560_000, "1234.56M"),
        ] {
            assert_eq!(format_points(points), shown, "{points}");
        }
    }

    /// DISP-4: signed deltas.
    #[test]
    fn deltas() {
        assert_eq!(format_delta(311), "+311");
        assert_eq!(format_delta(-123), "\u{2212}123");
        assert_eq!(format_delta(1_299), "+1.2K");
        assert_eq!(format_delta(-1_299), "\u{2212}1.2K");
        assert_eq!(format_delta(0), "0");
        assert_eq!(format_delta(i64::MIN), "\u{2212}9223372036854.77M");
    }

    /// Parses a shown value back to the smallest number it can stand for.
    fn shown_floor(s: &str) -> u64 {
        let (num, scale) = if let Some(k) = s.strip_suffix('K') {
            (k, 1_000)
        } else if let Some(m) = s.strip_suffix('M') {
            (m, 1_000_000)
        } else {
            (s, 1)
        };
        let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
        let mut value: u64 = whole.parse::<u64>().unwrap() * scale;
        let mut unit = scale;
        for d in frac.chars() {
            unit /= 10;
            value += u64::from(d.to_digit(10).unwrap()) * unit;
        }
        value
    }

    fn magnitude(n: u64) -> String {
        let mut out = String::new();
        super::magnitude(&mut out, n);
        out
    }

    proptest! {
        /// DISP-2/DISP-3: the shown value never exceeds the true one (never rounds up),
        /// and is within one display step of it.
        #[test]
        fn never_rounds_up(n in 0u64..=10_000_000_000) {
            let shown = magnitude(n);
            let floor = shown_floor(&shown);
            prop_assert!(floor <= n, "{n} shown as {shown}");
            let step = if n < 1_000 { 1 } else if n < 1_000_000 { 100 } else { 10_000 };
            prop_assert!(n - floor < step, "{n} shown as {shown}");
        }

        /// The shown value is monotone: more points never show as less.
        #[test]
        fn monotone(a in 0u64..=10_000_000_000, b in 0u64..=10_000_000_000) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(shown_floor(&magnitude(lo)) <= shown_floor(&magnitude(hi)));
        }
    }
}

/// A duration in milliseconds as shown on a level's time ranking: `m:ss.mmm`
/// (`1:01.000`; hours, when any, as `h:mm:ss.mmm`).
pub fn format_time_ms(ms: u64) -> String {
    let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1_000 % 60, ms % 1_000);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}.{milli:03}")
    } else {
        format!("{m}:{s:02}.{milli:03}")
    }
}

#[cfg(test)]
mod time_tests {
    use super::format_time_ms;

    #[test]
    fn times_show_as_minutes_seconds_and_milliseconds() {
        assert_eq!(format_time_ms(61_000), "1:01.000");
        assert_eq!(format_time_ms(999), "0:00.999");
        assert_eq!(format_time_ms(3_723_004), "1:02:03.004");
    }
}
