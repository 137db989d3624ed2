//! What of a stored document concerns one player, for their export (GDPR Art. 15(4)
//! and 20(4): a copy of a player's data must not carry other people's). The player's
//! own rows and numbers are kept whole; every other player stands only as the role
//! they played in that document, never as their id, balance, moves or other numbers.
//!
//! Where a document names a player is where a deletion rewrites one (GM-6,
//! [`crate::engine::names`]): the values of `player_id`, `winner`, `resigned`,
//! `player`, `user_id`, and the elements (or pairs' first elements) of the `players`,
//! `times`, `tp`, `registered`, `order` and `members` lists. Each document (one stored
//! result, one state item, one inbox message, one held record, one audit entry) is
//! reduced on its own ([`Subject::document`]):
//!
//! - a row about another player (an object in a list, or under a key, whose
//!   `player_id` is theirs: a match's other player, an Arena standing, an `overtaken`
//!   message's passer, a cohort's member) becomes `{"role": R}`, and so does a pair
//!   (`[id, tp]`); an id standing alone (`winner`, `resigned`, an element of a list of
//!   ids) becomes `R`;
//! - R is the role word of where they stand ([`role_word`]: `passer` in an
//!   `overtaken` message's `by`, `cohort member` in a cohort's members, `opponent`
//!   anywhere else), numbered from 1 in the order the document first names them when
//!   it names more than one other player of that role: within one document the same
//!   role is the same player; across documents roles say nothing;
//! - a root `balance_after` and `points` beside a `winner` who is another player (a
//!   Quick Match's: the winner's balance and what the win gave them) become `null`, as
//!   the app shows them to the winner only;
//! - a held record's `content_hash` (of the record as sent, which names the others and
//!   their numbers: a guess about them could be confirmed against it) is left empty;
//! - an item that belongs to another player and names this one (another player's
//!   `overtaken` message listing them as a passer: its key names that player) keeps
//!   only its kind, board, period, game and instant, and this player's own rows in it
//!   (`about_you`) ([`Subject::mention`]).
//!
//! Every other player the export's documents name is also known by id
//! ([`Subject::learn`]), and any text of the export (keys, composite ids, reasons,
//! records as sent) is scrubbed of those ids ([`Subject::scrub`]): where one stands
//! alone or between separators (`:`, `/`, `#`, `@`, spaces, punctuation) it becomes
//! [`ANOTHER_PLAYER`].

use std::collections::BTreeSet;

use podium_rules::record::ids::{is_reserved_id, is_valid_id};
use podium_rules::settlement::LedgerEntry;
use podium_store::Named;
use serde_json::{json, Value};

use crate::engine::names::{key_names, named_ids, ID_KEYS, ID_LIST_KEYS};
use crate::moderation::audit::AuditEntry;
use crate::moderation::review::HeldRecord;

/// What stands for another player where no role fits (a key, a reference's owner, a
/// free text).
pub const ANOTHER_PLAYER: &str = "another player";

/// The root keys an item of another player keeps ([`Subject::mention`]): what it is,
/// where and when, none of that player's numbers.
const CONTEXT_KEYS: &[&str] = &["kind", "board", "period", "game", "at", "id"];

/// The role word of another player who stands under `key` (the list or field that
/// holds them): `passer` in an `overtaken` message's `by` list, `cohort member` in a
/// league cohort's members, `opponent` anywhere else (a match, a Quick Match, an
/// Arena's standings, a tournament table's TP, a tournament's winners, a held record).
pub fn role_word(key: Option<&str>) -> &'static str {
    match key {
        Some("by") => "passer",
        Some("members") => "cohort member",
        _ => "opponent",
    }
}

/// The player an export is for, and the other players its documents name.
#[derive(Debug, Clone)]
pub struct Subject {
    id: String,
    others: BTreeSet<String>,
    /// `others`, longest first, sorted once for every [`Subject::scrub`] after the
    /// learning ([`Subject::learn_id`] forgets it).
    longest_first: std::sync::OnceLock<Vec<String>>,
}

impl Subject {
    /// The export of `player_id`, knowing no other player yet.
    pub fn new(player_id: &str) -> Subject {
        Subject {
            id: player_id.to_string(),
            others: BTreeSet::new(),
            longest_first: std::sync::OnceLock::new(),
        }
    }

    /// The player the export is for.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether `id`, standing where a player id stands, is another player: a player id
    /// (an account, or a deleted player's pseudonym, GM-6) that is not the subject's.
    /// Internal owners (`@…`) are outside the id alphabet and no player.
    pub fn is_other(&self, id: &str) -> bool {
        id != self.id && is_valid_id(id)
    }

    /// Learns the other players `doc` names (`list`: a state item that is a list of
    /// ids, a cohort's members), so that [`Subject::scrub`] finds them in any text.
    pub fn learn(&mut self, doc: &Value, list: bool) {
        for id in named_ids(doc, list) {
            self.learn_id(&id);
        }
    }

    /// Learns one id that stands for a player (a held record's player, a reference's
    /// owner); the subject's own and non-ids are ignored.
    pub fn learn_id(&mut self, id: &str) {
        if self.is_other(id) && self.others.insert(id.to_string()) {
            self.longest_first = std::sync::OnceLock::new();
        }
    }

    /// Whether a source's key (`{kind}/{id}`'s id) names another player as one of its
    /// `:`, `/`, `#` or `@`-separated parts: the item is theirs (a message to them), and
    /// names the subject only as one of its rows.
    pub fn names_other(&self, key: &str) -> bool {
        key.split([':', '/', '#', '@'])
            .any(|part| self.others.contains(part) || (is_reserved_id(part) && part != self.id))
    }

    /// `text` with every other player it names, standing alone or between
    /// separators (anything but letters, digits, `_`, `-`, `|`), replaced by
    /// [`ANOTHER_PLAYER`], as is any deleted player's pseudonym (`deleted-…`) other than
    /// the subject's. The subject's own id is kept.
    pub fn scrub(&self, text: &str) -> String {
        // Longer ids first, so that an id inside a longer one is not cut out of it.
        let ids = self.longest_first.get_or_init(|| {
            let mut ids: Vec<String> = self.others.iter().cloned().collect();
            ids.sort_by_key(|s| std::cmp::Reverse(s.len()));
            ids
        });
        let mut out = std::borrow::Cow::Borrowed(text);
        for id in ids {
            if let Some(replaced) = replace_bounded(&out, id, |_| Some(0)) {
                out = std::borrow::Cow::Owned(replaced);
            }
        }
        let pseudonyms = replace_bounded(&out, podium_rules::record::ids::RESERVED_PREFIX, |rest| {
            // A pseudonym: the prefix and its hex digits.
            let hex = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
            (hex > 0).then_some(hex)
        });
        pseudonyms.unwrap_or_else(|| out.into_owned())
    }

    /// Reduces `doc` (one stored document) in place to what concerns the subject: other
    /// players' rows and ids to their roles (see the module notes), then every string
    /// scrubbed ([`Subject::scrub`]). A document whose root is a row of another player
    /// is left to [`Subject::mention`].
    pub fn document(&self, doc: &mut Value) {
        let winner_is_other = doc
            .get("winner")
            .and_then(Value::as_str)
            .is_some_and(|w| self.is_other(w));
        let root_key = doc.is_array().then_some("members");
        // First pass: who the document names, in order; second: their roles.
        let mut named: Vec<(String, &'static str)> = Vec::new();
        visit(doc, root_key, true, &self.id, &mut |id, word| {
            if !named.iter().any(|(n, _)| n == id) {
                named.push((id.to_string(), word));
            }
            None
        });
        let label = |id: &str| -> Option<String> {
            let (_, word) = named.iter().find(|(n, _)| n == id)?;
            let same: Vec<&String> = named.iter().filter(|(_, w)| w == word).map(|(n, _)| n).collect();
            if same.len() == 1 {
                return Some(word.to_string());
            }
            let i = same.iter().position(|n| n.as_str() == id)? + 1;
            Some(format!("{word} {i}"))
        };
        visit(doc, root_key, true, &self.id, &mut |id, _| label(id));
        if winner_is_other {
            // The winner's own numbers: their balance, and the points the win gave them
            // (which tell whether they completed the game).
            for key in ["balance_after", "points"] {
                if let Some(v) = doc.get_mut(key) {
                    *v = Value::Null;
                }
            }
        }
        self.scrub_strings(doc);
    }

    /// What of another player's item (`doc`, whose key names them) concerns the
    /// subject: its kind, board, period, game and instant, and the subject's own rows
    /// in it (`about_you`: the objects whose `player_id` is the subject's), none of that
    /// player's numbers.
    pub fn mention(&self, doc: &Value) -> Value {
        let mut out = serde_json::Map::new();
        if let Value::Object(o) = doc {
            for k in CONTEXT_KEYS {
                if let Some(Value::String(s)) = o.get(*k) {
                    out.insert((*k).to_string(), Value::String(self.scrub(s)));
                }
            }
        }
        out.insert("owner".into(), Value::String(ANOTHER_PLAYER.into()));
        let mut rows = Vec::new();
        own_rows(doc, &self.id, &mut rows);
        out.insert("about_you".into(), Value::Array(rows));
        Value::Object(out)
    }

    /// The stored result `{kind}/{id}` as it concerns the subject: its key scrubbed,
    /// and its body reduced ([`Subject::document`]), or, when the key names another
    /// player and not the subject (an item of theirs), that item's [`Subject::mention`].
    pub fn result(&self, kind: &str, id: &str, mut body: Value) -> (String, Value) {
        if !key_names(id, &self.id) && self.names_other(id) {
            body = self.mention(&body);
        } else {
            self.document(&mut body);
        }
        (self.scrub(&[kind, "/", id].concat()), body)
    }

    /// A state item or claim of the subject (`body`) as it concerns them: an inbox's
    /// messages each reduced on its own (a role in one message says nothing of
    /// another's), then the whole item.
    pub fn state(&self, body: &mut Value) {
        if let Some(Value::Array(messages)) = body.get_mut("messages") {
            messages.iter_mut().for_each(|m| self.document(m));
        }
        self.document(body);
    }

    /// A ledger entry of the subject: its source id and note scrubbed (a source keyed
    /// by another player names them only as [`ANOTHER_PLAYER`]).
    pub fn ledger_entry(&self, mut e: LedgerEntry) -> LedgerEntry {
        e.source_id = self.scrub(&e.source_id);
        e.note = e.note.map(|n| self.scrub(&n));
        e
    }

    /// A reference (GM-6) of the subject: a source's id scrubbed, another player's
    /// state item by its name only (its owner [`ANOTHER_PLAYER`]).
    pub fn reference(&self, r: Named) -> Named {
        match r {
            Named::Source { kind, id } => Named::Source {
                id: self.scrub(&id),
                kind,
            },
            Named::State { owner, name } => Named::State {
                owner: if self.is_other(&owner) {
                    ANOTHER_PLAYER.to_string()
                } else {
                    owner
                },
                name,
            },
        }
    }

    /// A held record naming the subject (OP-2): the other players it names as their
    /// roles, in `players` and in the record as sent (one document, so a role is the
    /// same player in both); its texts scrubbed. A record that is not JSON is scrubbed
    /// as text.
    /// `own`: the hold is about this player (a plausibility check of their record, or
    /// their own suspension); when it is not (another player it names was suspended),
    /// its cause reads only that it was held, and the decision that released it keeps
    /// its instant and outcome, not the operator's reason (which is about that player).
    pub fn held(&self, mut h: HeldRecord, own: bool) -> HeldRecord {
        if !own {
            h.cause.cause = "held".into();
            h.cause.check = String::new();
            h.cause.message = "held before it was scored".into();
            if let Some(d) = h.decision.as_mut() {
                d.reason = String::new();
            }
        }
        let record = serde_json::from_str::<Value>(&h.record).unwrap_or(Value::String(h.record.clone()));
        let mut doc = json!({ "players": h.players, "record": record });
        self.document(&mut doc);
        h.players = strings(&doc["players"]);
        h.record = match &doc["record"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        h.id = self.scrub(&h.id);
        h.content_hash = String::new();
        h.cause.message = self.scrub(&h.cause.message);
        if let Some(d) = h.decision.as_mut() {
            d.reason = self.scrub(&d.reason);
            d.outcome = d.outcome.as_ref().map(|o| self.scrub(o));
        }
        h
    }

    /// An audit entry about the subject (OP-5): the other players it concerns as their
    /// roles (`player_id` and `players`, one document), its id, target and reason
    /// scrubbed, its changes reduced.
    pub fn audit_entry(&self, mut e: AuditEntry) -> AuditEntry {
        let mut doc = json!({ "player_id": e.player_id, "players": e.players, "changes": e.changes });
        self.document(&mut doc);
        e.player_id = doc["player_id"].as_str().map(str::to_string);
        e.players = strings(&doc["players"]);
        e.changes = doc["changes"].take();
        e.id = self.scrub(&e.id);
        e.target = self.scrub(&e.target);
        e.reason = self.scrub(&e.reason);
        e
    }

    fn scrub_strings(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                let clean = self.scrub(s);
                if clean != *s {
                    *s = clean;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.scrub_strings(x)),
            Value::Object(o) => o.values_mut().for_each(|x| self.scrub_strings(x)),
            _ => {}
        }
    }
}

/// Walks `v` (under `key`; `root`: the document itself) and calls `name(id, role
/// word)` for each other player where one stands: a row (an object, not the root, whose
/// `player_id` is another player's) or a pair is replaced by `{"role": R}`, an id by
/// `R`, when `name` answers `Some(R)`.
fn visit(
    v: &mut Value,
    key: Option<&str>,
    root: bool,
    subject: &str,
    name: &mut dyn FnMut(&str, &'static str) -> Option<String>,
) {
    let other = |id: &str| id != subject && is_valid_id(id);
    match v {
        Value::Object(o) => {
            if !root {
                if let Some(Value::String(p)) = o.get("player_id") {
                    if other(p) {
                        if let Some(role) = name(p, role_word(key)) {
                            *v = json!({ "role": role });
                        }
                        return;
                    }
                }
            }
            for (k, x) in o.iter_mut() {
                visit(x, Some(k.as_str()), false, subject, name);
            }
        }
        Value::Array(a) => {
            let list = key.is_some_and(|k| ID_LIST_KEYS.contains(&k));
            for x in a.iter_mut() {
                match x {
                    Value::String(s) if list && other(s) => {
                        if let Some(role) = name(s, role_word(key)) {
                            *x = Value::String(role);
                        }
                    }
                    Value::Array(pair) if list => {
                        let first = match pair.first() {
                            Some(Value::String(s)) if other(s) => Some(s.clone()),
                            _ => None,
                        };
                        if let Some(id) = first {
                            if let Some(role) = name(&id, role_word(key)) {
                                *x = json!({ "role": role });
                            }
                        }
                    }
                    // Rows of a list take the list's role word.
                    row => visit(row, key, false, subject, name),
                }
            }
        }
        Value::String(s) if key.is_some_and(|k| ID_KEYS.contains(&k)) && other(s) => {
            if let Some(role) = name(s, role_word(key)) {
                *s = role;
            }
        }
        _ => {}
    }
}

/// The objects in `v` whose `player_id` is `subject`'s (their rows), each once.
fn own_rows(v: &Value, subject: &str, out: &mut Vec<Value>) {
    match v {
        Value::Object(o) => {
            if o.get("player_id").and_then(Value::as_str) == Some(subject) {
                out.push(v.clone());
                return;
            }
            o.values().for_each(|x| own_rows(x, subject, out));
        }
        Value::Array(a) => a.iter().for_each(|x| own_rows(x, subject, out)),
        _ => {}
    }
}

/// The strings of a JSON list (ids and roles).
fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect()
}

/// Whether `c` may continue an id (a bound is anything else).
fn id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|')
}

/// `text` with each bounded occurrence of `needle` replaced by [`ANOTHER_PLAYER`]: the
/// character before it (if any) is a bound, and `tail(rest)` (the text after it)
/// answers how many more characters it spans, after which a bound (or the end) follows.
/// `None` when `needle` does not occur in `text` (nothing copied).
fn replace_bounded(text: &str, needle: &str, tail: impl Fn(&str) -> Option<usize>) -> Option<String> {
    if needle.is_empty() || !text.contains(needle) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(found) = text[i..].find(needle) {
        let start = i + found;
        let before_ok = text[..start].chars().next_back().is_none_or(|c| !id_char(c));
        let after = start + needle.len();
        let end = tail(&text[after..]).map(|n| after + n);
        let bounded = end.filter(|&e| text[e..].chars().next().is_none_or(|c| !id_char(c)));
        match (before_ok, bounded) {
            (true, Some(e)) => {
                out.push_str(&text[i..start]);
                out.push_str(ANOTHER_PLAYER);
                i = e;
            }
            _ => {
                // Not an id here: keep its first character and look on.
                let step = text[start..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..start + step]);
                i = start + step;
            }
        }
    }
    out.push_str(&text[i..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(others: &[&str]) -> Subject {
        let mut s = Subject::new("p-1");
        for o in others {
            s.learn_id(o);
        }
        s
    }

    /// GDPR Art. 15(4): a Seega match keeps the subject's row whole and the other
    /// player as `{"role": "opponent"}`: no id, balance or moves of theirs.
    #[test]
    fn a_match_keeps_the_subjects_row_and_the_opponents_role() {
        let mut doc = json!({"match_id": "sg-1", "game": "seega", "status": "scored",
            "players": [
                {"player_id": "p-2", "side": "win", "balance_after": 900, "moves": 40},
                {"player_id": "p-1", "side": "loss", "balance_after": 80, "moves": 31}]});
        subject(&["p-2"]).document(&mut doc);
        assert_eq!(doc["players"][0], json!({"role": "opponent"}));
        assert_eq!(doc["players"][1]["balance_after"], 80);
        assert_eq!(doc["match_id"], "sg-1");
    }

    /// Several others are numbered in first-mention order, the winner field with them;
    /// a Quick Match's winner's balance is not the subject's.
    #[test]
    fn others_are_numbered_and_a_winners_balance_is_dropped() {
        let mut doc = json!({"match_id": "qm-1", "winner": "p-3", "points": 20, "balance_after": 140,
            "players": [{"player_id": "p-2", "score": 5}, {"player_id": "p-1", "score": 9},
                        {"player_id": "p-3", "score": 12}]});
        subject(&[]).document(&mut doc);
        assert_eq!(doc["players"][0], json!({"role": "opponent 1"}));
        assert_eq!(doc["players"][2], json!({"role": "opponent 2"}));
        assert_eq!(doc["winner"], "opponent 2");
        assert_eq!(doc["balance_after"], Value::Null);
        assert_eq!(doc["points"], Value::Null, "the winner's points are theirs");
        assert_eq!(doc["players"][1]["score"], 9);
    }

    /// Pairs, id lists, cohort rows and passers get their own roles.
    #[test]
    fn pairs_lists_cohorts_and_passers() {
        let mut table = json!({"table_id": "t-1", "tp": [["p-1", 20], ["p-5", 80]]});
        subject(&[]).document(&mut table);
        assert_eq!(table["tp"], json!([["p-1", 20], {"role": "opponent"}]));
        let mut cohort = json!([{"player_id": "p-7", "rank": 1, "value": 90},
                                {"player_id": "p-1", "rank": 2, "value": 80},
                                {"player_id": "p-8", "rank": 3, "value": 70}]);
        subject(&[]).document(&mut cohort);
        assert_eq!(cohort[0], json!({"role": "cohort member 1"}));
        assert_eq!(cohort[2], json!({"role": "cohort member 2"}));
        let mut message = json!({"kind": "overtaken", "rank": 9, "value": 70,
            "overtaken": {"passed_by": 1, "by": [{"player_id": "p-9", "rank": 8, "value": 75}]}});
        subject(&[]).document(&mut message);
        assert_eq!(message["overtaken"]["by"], json!([{"role": "passer"}]));
        assert_eq!(message["value"], 70);
    }

    /// Another player's item keeps only its context and the subject's own rows.
    #[test]
    fn another_players_item_keeps_only_the_subjects_rows() {
        let s = subject(&["p-4"]);
        assert!(s.names_other("seega@all#20270719T100000Z/p-4"));
        assert!(!s.names_other("seega@all#20270719T100000Z/p-1"));
        let doc = json!({"kind": "overtaken", "board": "seega", "rank": 12, "value": 300,
            "overtaken": {"by": [{"player_id": "p-1", "rank": 11, "value": 310},
                                 {"player_id": "p-6", "rank": 10, "value": 320}]}});
        let m = s.mention(&doc);
        assert_eq!(
            m["about_you"],
            json!([{"player_id": "p-1", "rank": 11, "value": 310}])
        );
        assert!(m.get("rank").is_none() && m.get("value").is_none(), "{m}");
        assert!(!m.to_string().contains("p-6"), "{m}");
    }

    /// Texts lose others' ids where they stand alone or between separators, and keep
    /// the subject's and any longer id that merely contains one.
    #[test]
    fn texts_are_scrubbed_of_others_ids() {
        let s = subject(&["p-2", "p-20"]);
        assert_eq!(s.scrub("seega@all#x/p-2"), "seega@all#x/another player");
        assert_eq!(s.scrub("p-2:2027-05-10"), "another player:2027-05-10");
        assert_eq!(s.scrub("colluded with p-20."), "colluded with another player.");
        assert_eq!(s.scrub("p-200 and p-1"), "p-200 and p-1");
        assert_eq!(s.scrub("x/deleted-0123456789abcdef"), "x/another player");
        assert_eq!(s.scrub("deleted-"), "deleted-");
    }
}
