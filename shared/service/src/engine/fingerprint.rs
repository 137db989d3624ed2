//! What a conflict says (GM-3): a record sent again under a settled id with other
//! content is refused naming the first field that differs and when the settled record
//! was settled. The store keeps no copy of the record (a Minesweeper duel is tens of
//! kilobytes), only this short text with the result: the settlement instant and a
//! 24-bit fingerprint of each top-level field and of each element of a top-level
//! array of at most [`MAX_ELEMENTS`] (the players), in the record's field order,
//! `{settled_at_ms}:{6 hex digits per field}` (a Seega match: 68 bytes). A
//! fingerprint names a field only; whether the record conflicts is decided by the
//! full content hash.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The longest top-level array whose elements are fingerprinted one by one.
pub const MAX_ELEMENTS: usize = 4;

/// A JSON object's top-level fields in the order they are written (serde_json's own
/// map sorts its keys).
struct Ordered(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Fields)
    }
}

/// The fields of `record` (JSON) as a conflict names them, with a fingerprint each,
/// in the record's order.
fn fields(record: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(Ordered(map)) = serde_json::from_str::<Ordered>(record) else {
        return out;
    };
    for (name, value) in &map {
        out.push((name.clone(), digest(name, value)));
        if let Value::Array(items) = value {
            if items.len() <= MAX_ELEMENTS {
                for (i, item) in items.iter().enumerate() {
                    let element = format!("{name}[{i}]");
                    let d = digest(&element, item);
                    out.push((element, d));
                }
            }
        }
    }
    out
}

fn digest(name: &str, value: &Value) -> String {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update(b"=");
    h.update(value.to_string().as_bytes());
    hex::encode(&h.finalize()[..3])
}

/// The text stored with a settled `record` (see the module notes), settled at
/// `settled_at_ms` (milliseconds since the Unix epoch, UTC).
pub fn of(record: &str, settled_at_ms: i64) -> String {
    let mut out = format!("{settled_at_ms}:");
    for (_, d) in fields(record) {
        out.push_str(&d);
    }
    out
}

/// What a conflict of `record` with the settled record whose stored text is `stored`
/// says: when that was settled (RFC 3339, UTC), and the first field that differs
/// (`players[1]` rather than `players` when an element is fingerprinted; "its fields"
/// when only the set of fields does). Both `None` when `stored` is absent or
/// unreadable (a record settled before the text was kept).
pub fn difference(record: Option<&str>, stored: Option<&str>) -> (Option<String>, Option<String>) {
    let Some((at, digests)) = stored.and_then(|s| s.split_once(':')) else {
        return (None, None);
    };
    let Some(at) = at
        .parse::<i64>()
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
    else {
        return (None, None);
    };
    let when = Some(podium_rules::record::policy::shown(at));
    let Some(record) = record else {
        return (when, None);
    };
    let new = fields(record);
    let old: Vec<&str> = (0..digests.len() / 6)
        .map(|i| &digests[i * 6..i * 6 + 6])
        .collect();
    let differs = |i: usize, d: &str| old.get(i) != Some(&d);
    let Some(i) = (0..new.len()).find(|&i| differs(i, &new[i].1)) else {
        return if old.len() == new.len() {
            (when, None)
        } else {
            (when, Some("its fields".to_string()))
        };
    };
    // An array that differs: its first element that differs names it better.
    let prefix = format!("{}[", new[i].0);
    let name = (i + 1..new.len())
        .take_while(|&j| new[j].0.starts_with(&prefix))
        .find(|&j| differs(j, &new[j].1))
        .map_or(&new[i].0, |j| &new[j].0);
    (when, Some(format!("`{name}`")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn seega() -> Value {
        json!({"match_id": "m-1", "game": "seega", "started_at": "2026-11-29T10:00:00Z",
               "players": [{"player_id": "a", "moves": 20}, {"player_id": "b", "moves": 20}],
               "stones_placed": 48, "outcome": {"result": "win", "winner": "a"}})
    }

    /// GM-3: the conflict names the first field that differs, an element of the
    /// players rather than the array, and when the settled record was settled.
    #[test]
    fn gm_3_names_the_first_differing_field() {
        let text = |v: &Value| {
            // In the record's field order, as a record serialises.
            let order = [
                "match_id",
                "game",
                "started_at",
                "players",
                "stones_placed",
                "outcome",
            ];
            let fields: Vec<String> = order.iter().map(|k| format!("{:?}:{}", k, v[*k])).collect();
            format!("{{{}}}", fields.join(","))
        };
        let stored = of(&text(&seega()), 1_795_946_772_000);
        assert!(stored.len() < 80, "{stored}");
        let mut other = seega();
        other["players"][1]["moves"] = json!(21);
        let at = Some("2026-11-29T10:06:12Z".to_string());
        assert_eq!(
            difference(Some(&text(&other)), Some(&stored)),
            (at.clone(), Some("`players[1]`".into()))
        );
        let mut other = seega();
        other["stones_placed"] = json!(47);
        assert_eq!(
            difference(Some(&text(&other)), Some(&stored)),
            (at.clone(), Some("`stones_placed`".into()))
        );
        let mut other = seega();
        other["players"] = json!([{"player_id": "a", "moves": 20}]);
        assert_eq!(
            difference(Some(&text(&other)), Some(&stored)),
            (at.clone(), Some("`players`".into()))
        );
        assert_eq!(difference(Some(&text(&seega())), None), (None, None));
        assert_eq!(difference(None, Some(&stored)), (at, None));
        assert_eq!(difference(Some(&text(&seega())), Some("garbage")), (None, None));
    }
}
