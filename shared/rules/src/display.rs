//! How points are shown to players (DISP-1 … DISP-4).
//!
//! Integer arithmetic only; the shown value never exceeds the true one in
//! magnitude (truncation toward zero, never rounding up).

/// Formats a non-negative or negative point value by DISP-1 … DISP-3, without a
/// `+` sign (a negative value gets the Unicode minus `−`, as DISP-4 prints it).
///
/// `999 → "999"`, `12,345 → "12.3K"`, `3,479,999 → "3.47M"`, `1,234,560,000 → "1234.56M"`.
pub fn format_points(points: i64) -> String {
    let sign = if points < 0 { "\u{2212}" } else { "" };
    format!("{sign}{}", magnitude(points.unsigned_abs()))
}

/// Formats a signed delta by DISP-4: always signed (`+311`, `−123`, `+1.2K`, `−1.2K`);
/// zero shows as `0`.
pub fn format_delta(delta: i64) -> String {
    match delta {
        0 => "0".to_string(),
        d if d > 0 => format!("+{}", magnitude(d.unsigned_abs())),
        d => format!("\u{2212}{}", magnitude(d.unsigned_abs())),
    }
}

/// DISP-1 … DISP-3 on a magnitude.
fn magnitude(n: u64) -> String {
    if n < 1_000 {
        // DISP-1
        n.to_string()
    } else if n < 1_000_000 {
        // DISP-2: one decimal, truncated; trailing ".0" dropped.
        let tenths = n / 100;
        with_decimals(tenths / 10, tenths % 10, 1) + "K"
    } else {
        // DISP-3: two decimals, truncated; trailing zeros dropped; stays in M above a billion.
        let hundredths = n / 10_000;
        with_decimals(hundredths / 100, hundredths % 100, 2) + "M"
    }
}

fn with_decimals(whole: u64, fraction: u64, digits: usize) -> String {
    let fraction = format!("{fraction:0digits$}");
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        whole.to_string()
    } else {
        format!("{whole}.{fraction}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The operator's table (DISP-1 … DISP-3) and the extra examples of docs/rules/README.md.
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
