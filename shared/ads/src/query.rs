//! Query strings as the networks sign them: split on `&` and `=` in the raw text,
//! then each part percent-decoded strictly (`%XX` only; `+` stays `+`).

use crate::error::AdError;

/// The longest raw query accepted, in bytes (real callbacks are well under 2 KB).
pub const MAX_QUERY_BYTES: usize = 8_192;

/// `raw` with every `%XX` decoded; `+` is kept. Any other `%` is malformed.
pub fn percent_decode(raw: &str) -> Result<Vec<u8>, AdError> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .filter(|_| bytes[i + 1].is_ascii_hexdigit() && bytes[i + 2].is_ascii_hexdigit())
                .ok_or_else(|| AdError::malformed("query", "a % not followed by two hex digits"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// The parameters of a raw query, in order, keys and values decoded (UTF-8). A
/// name given twice is malformed: a verifier and a reader must agree on every value.
pub fn params(raw: &str) -> Result<Vec<(String, String)>, AdError> {
    if raw.len() > MAX_QUERY_BYTES {
        return Err(AdError::malformed("query", "too long"));
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for part in raw.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let text = |s: &str| {
            String::from_utf8(percent_decode(s)?).map_err(|_| AdError::malformed("query", "not UTF-8"))
        };
        let (k, v) = (text(k)?, text(v)?);
        if out.iter().any(|(seen, _)| *seen == k) {
            return Err(AdError::malformed(
                "query",
                format!("parameter `{}` given twice", cut(&k)),
            ));
        }
        out.push((k, v));
    }
    Ok(out)
}

/// The value of parameter `name`, if given.
pub fn get<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

pub(crate) fn cut(s: &str) -> String {
    podium_rules::error::cut(s, 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_decoding() {
        assert_eq!(percent_decode("a%20b+c%26").unwrap(), b"a b+c&");
        assert_eq!(percent_decode("%7B%22x%22%3A1%7D").unwrap(), b"{\"x\":1}");
        for bad in ["%", "%2", "%zz", "a%2gb", "%+1"] {
            assert!(percent_decode(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn params_split_on_raw_separators() {
        let p = params("a=1&custom_data=x%26y%3Dz&empty=&flag").unwrap();
        assert_eq!(get(&p, "custom_data"), Some("x&y=z"));
        assert_eq!(get(&p, "empty"), Some(""));
        assert_eq!(get(&p, "flag"), Some(""));
        assert!(params("a=1&a=2").is_err());
        assert!(params(&"a".repeat(MAX_QUERY_BYTES + 1)).is_err());
    }
}
