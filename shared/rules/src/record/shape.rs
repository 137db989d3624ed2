//! A record's shape errors (GM-5): the field a JSON error is about, named the way
//! the record names it, and JSON objects only where the record has objects.

use crate::error::{quoted, RuleError};

/// The JSON path of `segments` as a field name (`players[1].moves`; `record` for the
/// top), or `None` when a segment is not a plain name of the schema.
pub(crate) fn field_of(segments: &[serde_path_to_error::Segment]) -> Option<String> {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for s in segments {
        match s {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } if key.bytes().all(|c| c.is_ascii_lowercase() || c == b'_') => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            _ => return None,
        }
    }
    Some(if out.is_empty() { "record".to_string() } else { out })
}

/// The refusal for a JSON shape error at the path `segments`. The field named is always
/// one the schema knows: an unknown key is reported at its parent, its name only quoted
/// (cut) in the message, so it never reaches a log as a field name; input quoted in
/// serde's message is cut too (GM-5).
pub(crate) fn shape_error(segments: &[serde_path_to_error::Segment], message: &str) -> RuleError {
    let named = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('`').next())
            .map(str::to_string)
    };
    if let Some(name) = named("missing field `") {
        // A missing field is reported at its parent; name the field itself.
        let field = match field_of(segments).as_deref() {
            None => "record".to_string(),
            Some("record") => name,
            Some(parent) => format!("{parent}.{name}"),
        };
        return RuleError::new(field, "GM-5", "missing field");
    }
    if message.starts_with("unknown field `") {
        // serde_path_to_error puts the unknown key on the path: its parent is the field.
        let parent = &segments[..segments.len().saturating_sub(1)];
        let field = field_of(parent).unwrap_or_else(|| "record".to_string());
        let (name, known) = unknown_field(message);
        let message = match known {
            Some(known) => format!("unknown field {}; {field} takes {known}", quoted(&name)),
            None => format!("unknown field {}", quoted(&name)),
        };
        return RuleError::new(field, "GM-5", message);
    }
    let field = field_of(segments).unwrap_or_else(|| "record".to_string());
    RuleError::new(field, "GM-5", plain_words(message))
}

/// serde's "unknown field `KEY`, expected one of `a`, `b`" (position dropped) as the
/// key and the fields the object takes. The key is the sender's and may hold anything,
/// `, expected` and backticks included: the list is what follows the *last*
/// ", expected", and only when it is a list of plain names.
fn unknown_field(message: &str) -> (String, Option<String>) {
    let message = match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => &message[..i],
        _ => message,
    };
    let rest = message.strip_prefix("unknown field `").unwrap_or(message);
    let plain = |list: &str| {
        list.split(", ").flat_map(|p| p.split(" or ")).all(|n| {
            n.len() > 2
                && n.starts_with('`')
                && n.ends_with('`')
                && n[1..n.len() - 1]
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c == b'_')
        })
    };
    for sep in [", expected one of ", ", expected "] {
        if let Some((name, list)) = rest.rsplit_once(sep) {
            if plain(list) {
                return (
                    name.strip_suffix('`').unwrap_or(name).to_string(),
                    Some(list.to_string()),
                );
            }
        }
    }
    let name = rest.strip_suffix(", there are no fields").unwrap_or(rest);
    (name.strip_suffix('`').unwrap_or(name).to_string(), None)
}

/// serde's message about a JSON body or record in the project's words (GM-5): its
/// position ("at line 1 column 87") dropped, a wrong type as what was found and what
/// the field takes (`` `900.5` is not a whole number ``), an unknown field with the
/// fields its object takes. For the API's request bodies, whose fields are the
/// routes' own.
pub fn plain_words(message: &str) -> String {
    let message = match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => &message[..i],
        _ => message,
    };
    if message.starts_with("unknown field `") {
        let (name, known) = unknown_field(message);
        return match known {
            Some(known) => format!("unknown field {}; the fields here are {known}", quoted(&name)),
            None => format!("unknown field {}", quoted(&name)),
        };
    }
    cut_quotes(&in_plain_words(message).unwrap_or_else(|| message.to_string()))
}

/// The refusal of a line that is not one JSON value (GM-5): serde's reason and where
/// (`expected value at column 1`), in the words of a one-line record.
pub(crate) fn not_json(e: &serde_json::Error) -> RuleError {
    let message = e.to_string();
    let reason = match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => &message,
    };
    let at = if e.line() <= 1 {
        format!("column {}", e.column())
    } else {
        format!("line {}, column {}", e.line(), e.column())
    };
    // serde's reason, and the mistake that usually causes it.
    let reason = if reason.starts_with("EOF while parsing") {
        "the line ends inside the JSON (a `}`, `]` or `\"` missing, or a record spread over lines)"
            .to_string()
    } else if reason == "trailing characters" {
        "more follows the JSON object (one record a line)".to_string()
    } else if reason == "key must be a string" {
        "a key is not a string in double quotes (a comma before `}`?)".to_string()
    } else if reason == "expected value" || reason == "expected ident" {
        "not a JSON value (strings in double quotes; true, false and null in lower case; no comma before `]` or `}`)".to_string()
    } else if reason.starts_with("expected `,` or") || reason.starts_with("expected `:`") {
        format!("{reason} (a comma or colon missing?)")
    } else {
        reason.to_string()
    };
    RuleError::new(
        "record",
        "GM-5",
        format!("not JSON at {at}: {reason}; a record is one JSON object, `{{…}}`, on one line"),
    )
}

/// serde's "invalid type: floating point `900.5`, expected i64" in the project's words:
/// the value found and what the field takes (`` `900.5` is not a whole number ``);
/// `None` for any other message.
fn in_plain_words(message: &str) -> Option<String> {
    // "unknown variant `WIN`, expected `win` or `draw`": one of the names the field takes.
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        let (found, allowed) = rest
            .split_once(", expected one of ")
            .or_else(|| rest.split_once(", expected "))?;
        return Some(format!("{found} is not one of {}", allowed.replace(" or ", ", ")));
    }
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    let found = if let Some(v) = found.strip_prefix("floating point ") {
        v.to_string()
    } else if let Some(v) = found.strip_prefix("integer ") {
        v.to_string()
    } else if let Some(v) = found.strip_prefix("string ") {
        format!("the string {v}")
    } else if let Some(v) = found.strip_prefix("boolean ") {
        v.to_string()
    } else {
        match found {
            "map" => "an object".to_string(),
            "sequence" => "an array".to_string(),
            "null" | "unit value" => "null".to_string(),
            other => other.to_string(),
        }
    };
    // The type's range only when the value found is a whole number outside it; the
    // field's own bounds (`moves`: 0 … 10,000) are checked, and named, after parsing.
    let integer_found = found.trim_matches('`').parse::<i128>().ok();
    let range = |min: i128, max: i128| {
        if integer_found.is_some_and(|n| n < min) && min == 0 {
            "a whole number, 0 or more".to_string()
        } else if integer_found.is_some() {
            format!("a whole number from {min} to {max}")
        } else if min == 0 {
            "a whole number, 0 or more".to_string()
        } else {
            "a whole number".to_string()
        }
    };
    let numeric = matches!(
        expected,
        "u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" | "isize"
    );
    let wanted = match expected {
        "u8" => range(0, u8::MAX.into()),
        "u16" => range(0, u16::MAX.into()),
        "u32" => range(0, u32::MAX.into()),
        "u64" | "usize" => range(0, u64::MAX.into()),
        "i32" => range(i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => range(i64::MIN.into(), i64::MAX.into()),
        "a boolean" => "true or false".to_string(),
        "a sequence" => "an array".to_string(),
        "a map" => "an object".to_string(),
        other if other.starts_with("struct ") => "an object".to_string(),
        other => other.to_string(),
    };
    // A whole number written with a decimal point or an exponent (`53.0`, `5.3e1`).
    if let Some(n) = found
        .trim_matches('`')
        .parse::<f64>()
        .ok()
        .filter(|n| numeric && n.fract() == 0.0 && n.abs() < 1e15)
    {
        return Some(format!(
            "{found} is not {wanted}: write it without a decimal point or exponent ({n:.0})"
        ));
    }
    if let Some(text) = found.strip_prefix("the string ") {
        let inner = text.trim_matches('"');
        if numeric && inner.parse::<f64>().is_ok() {
            return Some(format!("{found} is not {wanted}: send numbers without quotes"));
        }
    }
    if expected == "a string" {
        return Some(format!(
            "{found} is not a string: ids, names and instants are JSON strings, in double quotes"
        ));
    }
    Some(format!("{found} is not {wanted}"))
}

/// `message` with every span between `"…"` or `` `…` `` cut like [`quoted`] cuts input.
pub(crate) fn cut_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(400));
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let q = rest.as_bytes()[open] as char;
        out.push_str(&rest[..=open]);
        let after = &rest[open + 1..];
        match after.find(q) {
            Some(close) => {
                out.push_str(&crate::error::cut(
                    &after[..close],
                    crate::error::MAX_QUOTED_CHARS,
                ));
                out.push(q);
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&crate::error::cut(after, crate::error::MAX_QUOTED_CHARS));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// JSON objects only where the record has objects (GM-5): serde would otherwise
/// take a struct from an array of its fields' values.
pub(crate) mod objects {
    use serde::de::value::MapAccessDeserializer;
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use std::marker::PhantomData;

    /// A `T` read from a JSON object only.
    pub struct Object<T>(pub T);

    struct ObjectVisitor<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(MapAccessDeserializer::new(map))
        }
    }

    impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(ObjectVisitor(PhantomData)).map(Object)
        }
    }

    /// A field holding an object.
    pub fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
        Object::<T>::deserialize(d).map(|o| o.0)
    }

    struct SeqVisitor<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for SeqVisitor<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON array of objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(2).min(16));
            while let Some(Object(x)) = seq.next_element::<Object<T>>()? {
                out.push(x);
            }
            Ok(out)
        }
    }

    /// A field holding an array of objects.
    pub fn seq_of_objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(SeqVisitor(PhantomData))
    }
}

#[cfg(test)]
mod plain_words_tests {
    use super::plain_words;

    /// GM-5 (issue 47): a request body's refusal speaks the project's words, not serde's.
    #[test]
    fn serde_messages_in_plain_words() {
        assert_eq!(
            plain_words("unknown field `id`, expected one of `reason`, `definition` at line 1 column 5"),
            "unknown field `id`; the fields here are `reason`, `definition`"
        );
        assert_eq!(
            plain_words("invalid type: string \"4\", expected u32 at line 1 column 9"),
            "the string \"4\" is not a whole number, 0 or more: send numbers without quotes"
        );
        assert_eq!(
            plain_words("invalid type: floating point `1.5`, expected i64"),
            "`1.5` is not a whole number"
        );
        assert_eq!(plain_words("missing field `reason`"), "missing field `reason`");
        assert_eq!(
            plain_words("invalid type: floating point `53.0`, expected u32"),
            "`53.0` is not a whole number, 0 or more: write it without a decimal point or exponent (53)"
        );
    }
}
