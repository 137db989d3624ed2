//! Instants on the wire (GM-5): read as strict RFC 3339 (`2026-11-30T10:00:00Z`,
//! `…+02:00`; no leap seconds), written in UTC exactly as chrono's
//! `to_rfc3339_opts(SecondsFormat::AutoSi, true)` writes them: `2026-11-30T10:00:00Z`,
//! a fraction of 3, 6 or 9 digits only when there is one. The content hash depends on
//! these bytes (GM-3), so the fast path below is tested against chrono's own output.

use chrono::{DateTime, Datelike, SecondsFormat, Timelike, Utc};
use serde::{Deserializer, Serializer};

pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(Utc3339::of(t).as_str())
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    d.deserialize_str(Strict)
}

/// One instant formatted for the wire. The calendar fields come from chrono; years
/// 0000–9999 without a leap second are laid out in a stack buffer (no allocation, no
/// general formatter), any other instant is chrono's own string.
pub(crate) enum Utc3339 {
    Stack { buf: [u8; 30], len: usize },
    Chrono(String),
}

impl Utc3339 {
    pub(crate) fn of(t: &DateTime<Utc>) -> Self {
        let (year, nanos) = (t.year(), t.nanosecond());
        let Ok(year @ 0..=9999) = u32::try_from(year) else {
            return Utc3339::Chrono(t.to_rfc3339_opts(SecondsFormat::AutoSi, true));
        };
        if nanos >= 1_000_000_000 {
            return Utc3339::Chrono(t.to_rfc3339_opts(SecondsFormat::AutoSi, true));
        }
        let mut out = Utc3339::Stack { buf: [0; 30], len: 0 };
        out.digits(year, 4);
        out.byte(b'-');
        out.digits(t.month(), 2);
        out.byte(b'-');
        out.digits(t.day(), 2);
        out.byte(b'T');
        out.digits(t.hour(), 2);
        out.byte(b':');
        out.digits(t.minute(), 2);
        out.byte(b':');
        out.digits(t.second(), 2);
        if nanos != 0 {
            out.byte(b'.');
            if nanos % 1_000_000 == 0 {
                out.digits(nanos / 1_000_000, 3);
            } else if nanos % 1_000 == 0 {
                out.digits(nanos / 1_000, 6);
            } else {
                out.digits(nanos, 9);
            }
        }
        out.byte(b'Z');
        out
    }

    fn byte(&mut self, b: u8) {
        if let Utc3339::Stack { buf, len } = self {
            if let Some(slot) = buf.get_mut(*len) {
                *slot = b;
                *len += 1;
            }
        }
    }

    /// `value` in exactly `width` decimal digits, zero-padded (`value < 10^width`).
    fn digits(&mut self, value: u32, width: u32) {
        for i in (0..width).rev() {
            self.byte(b'0' + (value / 10u32.pow(i) % 10) as u8);
        }
    }

    /// The formatted instant (ASCII: digits, `-`, `+`, `:`, `.`, `T`, `Z`).
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Utc3339::Stack { buf, len } => std::str::from_utf8(&buf[..*len]).unwrap_or_default(),
            Utc3339::Chrono(s) => s,
        }
    }
}

/// What is most likely wrong with a timestamp refused as not RFC 3339 (empty when
/// nothing stands out).
fn hint(raw: &str) -> &'static str {
    let b = raw.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if raw.len() >= 19 && b[10] == b' ' {
        "; put a `T` between the date and the time"
    } else if raw.len() >= 19 && (b[10] == b't' || raw.ends_with('z')) {
        "; `T` and `Z` are upper case"
    } else if raw.len() >= 24 && matches!(b[raw.len() - 5], b'+' | b'-') && digits(raw.len() - 4..raw.len()) {
        "; the offset needs its colon (+02:00)"
    } else if raw.len() >= 19 && b[10] == b'T' && digits(raw.len() - 2..raw.len()) {
        "; add the zone: `Z` (UTC) or the offset (+02:00)"
    } else {
        ""
    }
}

/// Parses the string where it lies (no copy).
struct Strict;

impl serde::de::Visitor<'_> for Strict {
    type Value = DateTime<Utc>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(
            "an RFC 3339 timestamp with its offset, like 2026-11-30T10:00:00Z or 2026-11-30T12:00:00+02:00",
        )
    }

    fn visit_str<E: serde::de::Error>(self, raw: &str) -> Result<DateTime<Utc>, E> {
        let strict = raw.len() >= 20
            && raw.as_bytes()[10] == b'T'
            && (raw.ends_with('Z') || raw.as_bytes()[raw.len() - 3] == b':');
        let t = DateTime::parse_from_rfc3339(raw)
            .ok()
            .filter(|_| strict)
            .ok_or_else(|| {
                E::custom(format!(
                    "{} is not an RFC 3339 timestamp with its offset, like 2026-11-30T10:00:00Z or 2026-11-30T12:00:00+02:00{}",
                    crate::error::quoted(raw),
                    hint(raw)
                ))
            })?;
        if t.nanosecond() >= 1_000_000_000 {
            return Err(E::custom(format!(
                "{}: leap seconds are not accepted (send :59 or the next second)",
                crate::error::quoted(raw)
            )));
        }
        Ok(t.with_timezone(&Utc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chrono_form(t: &DateTime<Utc>) -> String {
        t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
    }

    #[test]
    fn edges_match_chrono() {
        for (secs, nanos) in [
            (0, 0),
            (1_577_836_800, 0),
            (1_577_836_800, 1_000_000),
            (1_577_836_800, 120_000),
            (1_577_836_800, 7),
            (1_577_836_800, 999_999_999),
            (-62_167_219_200, 0),           // 0000-01-01
            (253_402_300_799, 500_000_000), // 9999-12-31T23:59:59.5
            (253_402_300_800, 0),           // +10000-01-01
            (-62_167_219_201, 0),           // -0001-12-31
            (1_483_228_799, 1_500_000_000), // a leap second
        ] {
            let t = DateTime::from_timestamp(secs, nanos).unwrap();
            assert_eq!(Utc3339::of(&t).as_str(), chrono_form(&t), "{secs}.{nanos}");
        }
    }

    proptest! {
        #[test]
        fn any_instant_matches_chrono(secs in -100_000_000_000i64..300_000_000_000, nanos in 0u32..2_000_000_000) {
            if let Some(t) = DateTime::from_timestamp(secs, nanos) {
                prop_assert_eq!(Utc3339::of(&t).as_str().to_string(), chrono_form(&t));
            }
        }

        #[test]
        fn round_fractions_match_chrono(secs in 1_500_000_000i64..4_000_000_000, millis in 0u32..1000, micros in 0u32..1000) {
            for nanos in [millis * 1_000_000, millis * 1_000_000 + micros * 1_000] {
                let t = DateTime::from_timestamp(secs, nanos).unwrap();
                prop_assert_eq!(Utc3339::of(&t).as_str().to_string(), chrono_form(&t));
            }
        }
    }
}
