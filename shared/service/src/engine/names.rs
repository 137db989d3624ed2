//! How stored items name players (GM-6): which ids a result or a state body names,
//! the reference a commit writes for each, and the pseudonym a deletion puts in
//! their place; content hashes of sources.

use crate::error::ServiceError;

/// The first 16 hex digits of SHA-256 of a player id: what stands for a deleted
/// player in snapshots ([`crate::boards::snapshot::write::Erased`]) and in [`pseudonym`].
pub fn id_hash(player_id: &str) -> String {
    let mut h = crate::engine::names::hex_sha256(player_id);
    h.truncate(16);
    h
}

/// The stable pseudonym that replaces a deleted player's id in their ledger and in
/// others' match results: `deleted-{first 16 hex digits of SHA-256(id)}`, of the form
/// reserved for it ([`podium_rules::record::ids::is_reserved_id`]): no caller and no record
/// may use it.
pub fn pseudonym(player_id: &str) -> String {
    format!(
        "{}{}",
        podium_rules::record::ids::RESERVED_PREFIX,
        id_hash(player_id)
    )
}

/// Keys whose string value is a player id in a stored result.
pub(crate) const ID_KEYS: &[&str] = &["player_id", "winner", "resigned", "player", "user_id", "owner"];

/// Keys whose array holds player ids, alone or first in a pair (`[id, value]`).
pub(crate) const ID_LIST_KEYS: &[&str] = &[
    "players",
    "times",
    "tp",
    "registered",
    "order",
    "members",
    "invites",
    "withheld",
];

/// Whether `key` names an id that may hold a player id as a `:`-separated part
/// (`{player}:{day}`): `*_id` keys and `claim`, `source`, `id`. Timestamps, statuses
/// and other values are never touched, whatever they hold.
fn composite_key(key: &str) -> bool {
    (key.ends_with("_id") && !ID_KEYS.contains(&key)) || matches!(key, "claim" | "source" | "id")
}

/// Replaces `from` by `to` where a stored result names a player: the values of
/// [`ID_KEYS`], the elements (or pairs' first elements) of [`ID_LIST_KEYS`], and
/// `:`-separated parts of [`composite_key`] values. Answers whether anything changed.
pub(crate) fn replace_id(v: &mut serde_json::Value, from: &str, to: &str) -> bool {
    replace_in(v, None, from, to)
}

fn replace_in(v: &mut serde_json::Value, key: Option<&str>, from: &str, to: &str) -> bool {
    use serde_json::Value;
    match v {
        Value::String(s) => match key {
            Some(k) if ID_KEYS.contains(&k) && s == from => {
                *s = to.to_string();
                true
            }
            Some(k) if composite_key(k) && s.split(':').any(|part| part == from) => {
                *s = s
                    .split(':')
                    .map(|part| if part == from { to } else { part })
                    .collect::<Vec<_>>()
                    .join(":");
                true
            }
            _ => false,
        },
        Value::Array(a) => {
            let list = key.is_some_and(|k| ID_LIST_KEYS.contains(&k));
            // Every element is visited (no short circuit): each mention is replaced.
            a.iter_mut()
                .map(|x| match x {
                    Value::String(s) if list && s == from => {
                        *s = to.to_string();
                        true
                    }
                    Value::Array(pair) if list => match pair.first_mut() {
                        Some(Value::String(s)) if s == from => {
                            *s = to.to_string();
                            true
                        }
                        _ => false,
                    },
                    other => replace_in(other, None, from, to),
                })
                .filter(|changed| *changed)
                .count()
                > 0
        }
        Value::Object(o) => {
            o.iter_mut()
                .map(|(k, x)| replace_in(x, Some(k.as_str()), from, to))
                .filter(|changed| *changed)
                .count()
                > 0
        }
        _ => false,
    }
}

/// Whether `key` (a source's id) names `player` as one of its `:`- or `/`-separated
/// parts (a registration's `{tournament}/{player}`, a period result's
/// `{board}@{period}:{player}`): the parts [`rename_in_key`] renames.
pub(crate) fn key_names(key: &str, player: &str) -> bool {
    key.split([':', '/']).any(|part| part == player)
}

/// `key` (a source's id) with each `:`- or `/`-separated part that is `from` replaced
/// by `to`.
pub(crate) fn rename_in_key(key: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut part = String::new();
    for c in key.chars() {
        if c == ':' || c == '/' {
            out.push_str(if part == from { to } else { &part });
            out.push(c);
            part.clear();
        } else {
            part.push(c);
        }
    }
    out.push_str(if part == from { to } else { &part });
    out
}

/// Replaces `from` by `to` in a state item's body: as [`replace_id`], and, in a body
/// that is a list (a league cohort's members), each element that is the id.
pub(crate) fn replace_id_in_state(v: &mut serde_json::Value, from: &str, to: &str) -> bool {
    replace_in(v, v.is_array().then_some("members"), from, to)
}

/// Every player id `v` names where [`replace_id`] replaces one (the values of
/// [`ID_KEYS`], the elements or pairs' first elements of [`ID_LIST_KEYS`]; with
/// `list`, the elements of `v` itself, a state item that is a list), each once and a
/// valid id: what the commit path references for GM-6 ([`podium_store::Reference`]).
/// Parts of composite ids (`{player}:{day}`) are not listed: they are keyed by the
/// player whose own items hold them.
pub(crate) fn named_ids(v: &serde_json::Value, list: bool) -> Vec<String> {
    let mut out = Vec::new();
    collect_ids(v, list.then_some("members"), &mut out);
    out
}

fn collect_ids(v: &serde_json::Value, key: Option<&str>, out: &mut Vec<String>) {
    use serde_json::Value;
    fn push(out: &mut Vec<String>, s: &str) {
        if podium_rules::record::ids::is_valid_id(s) && !out.iter().any(|x| x == s) {
            out.push(s.to_string());
        }
    }
    match v {
        Value::String(s) if key.is_some_and(|k| ID_KEYS.contains(&k)) => push(out, s),
        Value::Array(a) => {
            let list = key.is_some_and(|k| ID_LIST_KEYS.contains(&k));
            for x in a {
                match x {
                    Value::String(s) if list => push(out, s),
                    Value::Array(pair) if list => {
                        if let Some(Value::String(s)) = pair.first() {
                            push(out, s);
                        }
                    }
                    other => collect_ids(other, None, out),
                }
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                collect_ids(x, Some(k.as_str()), out);
            }
        }
        _ => {}
    }
}

/// SHA-256 (hex) of `s`.
pub(crate) fn hex_sha256(s: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(s.as_bytes()))
}

/// What every route answers a deleted caller, or a caller whose id is of the form
/// reserved for deleted players' pseudonyms (GM-6): 400 naming `caller`.
pub fn deleted_player() -> ServiceError {
    ServiceError::Invalid(podium_rules::RuleError::new(
        "caller",
        "GM-6",
        "this account was deleted (or the id is reserved for deleted accounts): nothing is served or recorded for it",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GM-6: the pseudonym is stable and carries no part of the id.
    #[test]
    fn pseudonyms_are_stable_hashes() {
        assert_eq!(pseudonym("p-1"), pseudonym("p-1"));
        assert_ne!(pseudonym("p-1"), pseudonym("p-2"));
        assert!(pseudonym("p-1").starts_with("deleted-"));
        assert_eq!(pseudonym("p-1").len(), "deleted-".len() + 16);
        assert!(podium_rules::record::ids::is_valid_id(&pseudonym("p-1")));
    }

    /// GM-6: a source key's parts that are the id are renamed, nothing else.
    #[test]
    fn keys_naming_the_player_are_renamed() {
        assert_eq!(rename_in_key("cup-1/p-1", "p-1", "deleted-x"), "cup-1/deleted-x");
        assert_eq!(
            rename_in_key("p-1:2027-05-10", "p-1", "deleted-x"),
            "deleted-x:2027-05-10"
        );
        assert_eq!(
            rename_in_key("p-10:2027-05-10", "p-1", "deleted-x"),
            "p-10:2027-05-10"
        );
        assert_eq!(rename_in_key("m-1", "p-1", "deleted-x"), "m-1");
    }

    /// GM-6: the ids a commit references are those a deletion would replace: member
    /// lists, `player_id`s, pairs' first elements; not composite ids or other words.
    #[test]
    fn named_ids_are_what_replace_id_replaces() {
        let v = serde_json::json!({
            "claim": "p-1:2027-05-10", "status": "final",
            "winners": [{"place": 1, "player_id": "w-1"}], "tp": [["t-1", 30]],
            "members": ["c-1", "c-2"], "by": [{"player_id": "b-1", "value": 3}],
        });
        assert_eq!(named_ids(&v, false), ["b-1", "c-1", "c-2", "t-1", "w-1"]);
        assert_eq!(named_ids(&serde_json::json!(["a", "b"]), true), ["a", "b"]);
        let mut list = serde_json::json!(["a", "b"]);
        assert!(replace_id_in_state(&mut list, "b", "deleted-x"));
        assert_eq!(list, serde_json::json!(["a", "deleted-x"]));
    }

    /// GM-6: results keep their shape; the id is replaced wherever it stands.
    #[test]
    fn ids_are_replaced_in_results() {
        let mut v = serde_json::json!({
            "match_id": "m-1",
            "players": [{"player_id": "p-1", "points": 3}, {"player_id": "p-10"}],
            "claim": "p-1:2027-05-10",
        });
        assert!(replace_id(&mut v, "p-1", "deleted-x"));
        assert_eq!(v["players"][0]["player_id"], "deleted-x");
        assert_eq!(v["players"][1]["player_id"], "p-10");
        assert_eq!(v["claim"], "deleted-x:2027-05-10");
        assert_eq!(v["match_id"], "m-1");
        assert!(!replace_id(&mut v, "p-1", "deleted-x"));
    }

    /// GM-6: an id that is also a word or a number of the result (`scored`, `win`,
    /// `seega`, `00`) is replaced only where a player id stands: statuses, sides, games
    /// and timestamps keep their values, so the result still reads back.
    #[test]
    fn only_player_id_fields_are_replaced() {
        for id in ["scored", "win", "seega", "00"] {
            let mut v = serde_json::json!({
                "match_id": "sg-77", "game": "seega", "status": "scored",
                "ended_at": "2026-11-30T10:00:00Z",
                "outcome": {"result": "win", "winner": id},
                "players": [{"player_id": id, "side": "win"}, {"player_id": "p-2", "side": "loss"}],
                "tp": [[id, 90], ["p-2", 21]],
            });
            assert!(replace_id(&mut v, id, "deleted-x"), "{id}");
            assert_eq!(v["players"][0]["player_id"], "deleted-x");
            assert_eq!(v["outcome"]["winner"], "deleted-x");
            assert_eq!(v["tp"][0][0], "deleted-x");
            assert_eq!(
                (&v["game"], &v["status"], &v["ended_at"], &v["players"][0]["side"]),
                (
                    &serde_json::json!("seega"),
                    &serde_json::json!("scored"),
                    &serde_json::json!("2026-11-30T10:00:00Z"),
                    &serde_json::json!("win")
                ),
                "{id}"
            );
            assert_eq!(v["outcome"]["result"], "win");
        }
    }
}
