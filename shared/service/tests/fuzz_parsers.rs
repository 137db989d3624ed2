//! Property-based fuzzing (issue 13) of the two parsers that take untrusted text: the
//! match-record parser (`Incoming::from_json`, then `MatchRecord::validate_with` for a
//! Seega match) and the page-cursor decoder (`CursorKey::open`).
//!
//! Inputs: arbitrary bytes, arbitrary JSON values, and mutations of valid records
//! from the generators (fields replaced, deleted, duplicated or added, with arbitrary
//! JSON, huge or out-of-range numbers, long strings, unicode); arbitrary strings and
//! issued cursors with bits flipped, characters changed, truncated, extended, or
//! opened on another board or with another key.
//!
//! Properties: nothing panics; every refused record is a `RuleError` whose `field` is
//! a short path of schema names (never the caller's own keys or values), whose `rule`
//! is a rule id (`GM-5`, `SG-4`, …), whose message is bounded, and which displays as
//! `field (rule): message`; a cursor opens only when it is byte-identical to the
//! token issued for that board, anything else being `ServiceError::BadRequest` naming
//! `cursor`.
//!
//! The test command runs a smoke run (a few thousand cases per target, seconds in a
//! debug build). The long run: `PROPTEST_CASES=1000000 cargo test --release -p
//! podium-service --test fuzz_parsers -- --nocapture`, or `scripts/fuzz-long`.

use std::sync::OnceLock;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, TimeZone, Utc};
use podium_generate::replayed::Replayed;
use podium_rules::board::BoardRef;
use podium_rules::error::{RuleError, MAX_MESSAGE_CHARS};
use podium_rules::record::policy::RecordPolicy;
use podium_service::boards::cursor::{Cursor, CursorKey};
use podium_service::error::ServiceError;
use podium_service::games::incoming::Incoming;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{TestCaseError, TestRunner};
use serde_json::{Map, Value};

#[path = "../../testing/fuzz.rs"]
mod fuzz;
use fuzz::fuzz;

// ---------------------------------------------------------------------------------
// The match-record parser
// ---------------------------------------------------------------------------------

/// The server clock of every parse: after every generated record.
fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0)
        .single()
        .expect("instant")
}

/// Valid lines of every record kind, from the generators (their few malformed lines
/// included: they are inputs too).
fn valid_lines() -> &'static [String] {
    static LINES: OnceLock<Vec<String>> = OnceLock::new();
    LINES.get_or_init(|| {
        let end = Utc
            .with_ymd_and_hms(2026, 11, 30, 0, 0, 0)
            .single()
            .expect("instant");
        let mut out = Vec::new();
        podium_generate::seega::generate(300, 40, 13, &mut out).expect("seega");
        podium_generate::mahjong::generate(300, 40, 13, end, &mut out).expect("mahjong");
        podium_generate::mahjong::tournament(12, 13, end, &mut out).expect("tournament");
        podium_generate::replayed::generate(Replayed::DotsAndBoxes, 40, 10, 13, end, &mut out).expect("dots");
        podium_generate::replayed::generate(Replayed::Minesweeper, 40, 10, 13, end, &mut out)
            .expect("minesweeper");
        let lines: Vec<String> = String::from_utf8(out)
            .expect("utf-8")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        let accepted = lines.iter().filter(|l| parse(l.as_bytes()).is_ok()).count();
        assert!(
            accepted * 10 >= lines.len() * 8,
            "{accepted} of {} accepted",
            lines.len()
        );
        lines
    })
}

/// The whole parse the score-match function does: `from_json`, then for a Seega
/// match its validation.
fn parse(bytes: &[u8]) -> Result<Incoming, RuleError> {
    let incoming = Incoming::from_json(bytes, now(), &RecordPolicy::default())?;
    if let Incoming::Seega(record) = &incoming {
        record.validate_with(now(), &RecordPolicy::default())?;
    }
    Ok(incoming)
}

/// Keys the fuzzer adds: the schema's own names, or names that could never be one
/// (each has a character no schema name has), so a field naming one is caught.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "match_id",
            "game",
            "kind",
            "players",
            "player_id",
            "outcome",
            "winner",
            "reason",
            "started_at",
            "ended_at",
            "stones_placed",
            "moves",
            "stones_on_board",
            "stones_in_hand",
            "completion_id",
            "level",
            "time_ms",
            "completed_at",
            "jokers_used",
            "arena_id",
            "tournament_id",
            "table_id",
            "round",
            "points",
            "mines",
            "grid",
        ])
        .prop_map(str::to_string),
        "[A-Z][a-zA-Z0-9_]{0,12}",
        "[a-z]{1,8}[ -/:-@\\[-`{-~][a-z]{0,8}",
        "\\PC{1,10}".prop_map(|s| format!("Ω{s}")),
        "[a-z]{200,400}".prop_map(|s| format!("{s}!")),
    ]
}

/// Literal JSON number and string texts no `serde_json::Value` holds.
const RAW_LITERALS: &[&str] = &[
    "1e999999",
    "-1e999999",
    "123456789012345678901234567890",
    "-123456789012345678901234567890",
    "18446744073709551616",
    "-9223372036854775809",
    "4294967296",
    "-0",
    "0.0000001e-400",
    "1.5",
    "1E2",
    "\"\\ud800\"",
    "\"\\udfff\\ud800\"",
    "\"\\u0000\"",
    "\"2026-11-30T12:00:00+14:00\"",
    "\"2026-02-30T00:00:00Z\"",
    "\"+275760-09-13T00:00:00Z\"",
    "\"9999-12-31T23:59:59.999999999Z\"",
    "\"1970-01-01T00:00:00Z\"",
    "\"2026-11-29T12:00:00\"",
];

/// A JSON leaf: small and huge numbers, long and unicode strings, dates.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-5i64..60).prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            f64::MAX,
            f64::MIN,
            1e300,
            -1e-300,
            0.5,
            u64::MAX as f64 * 4.0
        ])
        .prop_map(Value::from),
        "\\PC{0,20}".prop_map(Value::from),
        "[a-z0-9:._|-]{0,80}".prop_map(Value::from),
        (1usize..100_000).prop_map(|n| Value::from("é".repeat(n))),
        "20[0-9]{2}-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9](\\.[0-9]{1,12})?(Z|[+-][0-9]{2}:[0-9]{2})?"
            .prop_map(Value::from),
        prop::sample::select(vec![
            "seega",
            "mahjong-rivals",
            "dots-and-boxes",
            "minesweeper",
            "quick-match",
            "level-completion",
            "arena",
            "tournament-registration",
            "tournament-table",
            "completed",
            "resigned",
            "turn_timeout",
            "draw",
        ])
        .prop_map(Value::from),
    ]
}

/// Any JSON value, nested a few levels.
fn json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// One change to a valid record.
#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the value at a path with another.
    Replace(prop::sample::Index, Value),
    /// Replace the value at a path with a literal text (huge numbers, lone surrogates).
    Raw(prop::sample::Index, prop::sample::Index),
    /// Delete the value at a path (a key, or an array element).
    Delete(prop::sample::Index),
    /// Add a key to an object, or an element to an array.
    Add(prop::sample::Index, String, Value),
    /// Give a key of an object a second time (in the text), with another value.
    Duplicate(prop::sample::Index, Value),
    /// Cut the text at a byte.
    Truncate(prop::sample::Index),
    /// Put bytes into the text at a byte.
    Splice(prop::sample::Index, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<prop::sample::Index>;
    prop_oneof![
        4 => (at(), json()).prop_map(|(i, v)| Mutation::Replace(i, v)),
        2 => (at(), at()).prop_map(|(i, r)| Mutation::Raw(i, r)),
        2 => at().prop_map(Mutation::Delete),
        2 => (at(), key(), json()).prop_map(|(i, k, v)| Mutation::Add(i, k, v)),
        1 => (at(), json()).prop_map(|(i, v)| Mutation::Duplicate(i, v)),
        1 => at().prop_map(Mutation::Truncate),
        1 => (at(), prop::collection::vec(any::<u8>(), 1..8)).prop_map(|(i, b)| Mutation::Splice(i, b)),
    ]
}

/// A step into a JSON value.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    At(usize),
}

/// Every path into `v` (the root included).
fn paths(v: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(prefix.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                prefix.push(Step::Key(k.clone()));
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(Step::At(i));
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'a>(v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, step| match step {
        Step::Key(k) => v.get_mut(k.as_str()),
        Step::At(i) => v.get_mut(*i),
    })
}

const RAW_MARK: &str = "\u{1}raw\u{1}";

/// `line` with `mutations` applied, as bytes.
fn mutate(line: &str, mutations: &[Mutation]) -> Vec<u8> {
    let Ok(mut v) = serde_json::from_str::<Value>(line) else {
        return line.as_bytes().to_vec();
    };
    let mut raw: Vec<&str> = Vec::new();
    let mut duplicates: Vec<(String, Value)> = Vec::new();
    let mut text_edits: Vec<&Mutation> = Vec::new();
    for m in mutations {
        let mut all = Vec::new();
        paths(&v, &mut Vec::new(), &mut all);
        match m {
            Mutation::Replace(i, value) => {
                if let Some(slot) = at_path(&mut v, i.get::<Vec<Step>>(&all)) {
                    *slot = value.clone();
                }
            }
            Mutation::Raw(i, r) => {
                if let Some(slot) = at_path(&mut v, i.get::<Vec<Step>>(&all)) {
                    *slot = Value::from(format!("{RAW_MARK}{}", raw.len()));
                    raw.push(*r.get(RAW_LITERALS));
                }
            }
            Mutation::Delete(i) => {
                let path = i.get::<Vec<Step>>(&all);
                if let Some((last, parent)) = path.split_last() {
                    match (at_path(&mut v, parent), last) {
                        (Some(Value::Object(m)), Step::Key(k)) => {
                            m.remove(k);
                        }
                        (Some(Value::Array(a)), Step::At(j)) if *j < a.len() => {
                            a.remove(*j);
                        }
                        _ => {}
                    }
                }
            }
            Mutation::Add(i, k, value) => match at_path(&mut v, i.get::<Vec<Step>>(&all)) {
                Some(Value::Object(m)) => {
                    m.insert(k.clone(), value.clone());
                }
                Some(Value::Array(a)) => a.push(value.clone()),
                _ => {}
            },
            Mutation::Duplicate(i, value) => {
                if let Value::Object(m) = &v {
                    if !m.is_empty() {
                        let keys: Vec<&String> = m.keys().collect();
                        duplicates.push(((*i.get(&keys)).clone(), value.clone()));
                    }
                }
            }
            Mutation::Truncate(_) | Mutation::Splice(..) => text_edits.push(m),
        }
    }
    let mut text = v.to_string();
    for (n, literal) in raw.iter().enumerate() {
        text = text.replace(&format!("\"\\u0001raw\\u0001{n}\""), literal);
    }
    if text.starts_with('{') && !duplicates.is_empty() {
        let extra: String = duplicates
            .iter()
            .map(|(k, value)| format!("{}:{value},", Value::from(k.as_str())))
            .collect();
        let rest = &text[1..];
        text = if rest == "}" {
            format!("{{{}}}", extra.trim_end_matches(','))
        } else {
            format!("{{{extra}{rest}")
        };
    }
    let mut bytes = text.into_bytes();
    for m in text_edits {
        match m {
            Mutation::Truncate(i) if !bytes.is_empty() => {
                let at = i.index(bytes.len());
                bytes.truncate(at);
            }
            Mutation::Splice(i, b) => {
                let at = i.index(bytes.len() + 1);
                bytes.splice(at..at, b.iter().copied());
            }
            _ => {}
        }
    }
    bytes
}

/// The grammar of a field path: schema names (`snake_case`), each optionally indexed,
/// joined by `.`: `players[1].stones_in_hand`.
fn is_schema_path(field: &str) -> bool {
    !field.is_empty()
        && field.len() <= 64
        && field.split('.').all(|part| {
            let (name, indexes) = part.split_at(part.find('[').unwrap_or(part.len()));
            let name_ok = name.bytes().next().is_some_and(|c| c.is_ascii_lowercase())
                && name.len() <= 32
                && name
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_');
            let indexes_ok = indexes.is_empty()
                || (indexes.starts_with('[')
                    && indexes.ends_with(']')
                    && indexes[1..indexes.len() - 1]
                        .split("][")
                        .all(|n| !n.is_empty() && n.len() <= 6 && n.bytes().all(|c| c.is_ascii_digit())));
            name_ok && indexes_ok
        })
}

/// A rule id: `GM-5`, `SG-12`, `MJ-18`, `DB-1`, `MS-8`, `LB-5`.
fn is_rule_id(rule: &str) -> bool {
    rule.split_once('-').is_some_and(|(area, n)| {
        (2..=4).contains(&area.len())
            && area.bytes().all(|c| c.is_ascii_uppercase())
            && (1..=3).contains(&n.len())
            && n.bytes().all(|c| c.is_ascii_digit())
    })
}

/// The refusal property: a named schema path, a rule id, a bounded message, and the
/// `field (rule): message` display.
fn check_refusal(e: &RuleError, input: &[u8]) -> Result<(), TestCaseError> {
    let shown = e.to_string();
    let context = || {
        format!(
            "{shown:?} for {:?}",
            String::from_utf8_lossy(&input[..input.len().min(400)])
        )
    };
    prop_assert!(is_schema_path(&e.field), "field is no schema path: {}", context());
    prop_assert!(is_rule_id(e.rule), "rule is no rule id: {}", context());
    prop_assert!(e.message.chars().count() <= MAX_MESSAGE_CHARS, "{}", context());
    prop_assert_eq!(&shown, &format!("{} ({}): {}", e.field, e.rule, e.message));
    Ok(())
}

fn record_strategy() -> impl Strategy<Value = Vec<u8>> {
    let line = any::<prop::sample::Index>().prop_map(|i| i.get(valid_lines()).clone());
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..600),
        1 => json().prop_map(|v| v.to_string().into_bytes()),
        1 => line.clone().prop_map(String::into_bytes),
        6 => (line, prop::collection::vec(mutation(), 1..5)).prop_map(|(l, m)| mutate(&l, &m)),
    ]
}

/// GM-5: whatever a game server sends, the parser answers (never panics), and every
/// refusal names a schema field and a rule, with a bounded message.
#[test]
fn match_record_parser_never_panics_and_names_the_field() {
    fuzz("match-record parser", 2_000, record_strategy(), |bytes| {
        if let Err(e) = parse(&bytes) {
            check_refusal(&e, &bytes)?;
        }
        Ok(())
    });
}

/// Regression (found by the long run): a Mahjong, Dots and Boxes or Minesweeper
/// record given as a JSON array was read by position (serde takes a struct from an
/// array of its values), and its refusal named a position (`[1]`), not a field. Each
/// kind's record is a JSON object only; an array is refused naming `record`.
#[test]
fn typed_record_given_as_an_array_is_refused_naming_record() {
    let e = parse(br#"["dots-and-boxes",null]"#).expect_err("an array");
    assert_eq!((e.field.as_str(), e.rule), ("record", "GM-5"), "{e}");
    let mut kinds = std::collections::BTreeSet::new();
    for line in valid_lines() {
        let Ok(incoming) = parse(line.as_bytes()) else {
            continue;
        };
        let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let array = Value::Array(fields.into_iter().map(|(_, v)| v).collect()).to_string();
        match parse(array.as_bytes()) {
            Ok(read) => panic!("{} read from an array: {read:?}", incoming.kind()),
            Err(e) => {
                assert!(
                    is_schema_path(&e.field) && !e.field.starts_with('['),
                    "{e} for {array}"
                );
                kinds.insert(incoming.kind());
            }
        }
    }
    assert!(kinds.len() >= 5, "{kinds:?}");
}

/// The mutations reach the rules: the generators' valid lines are mostly accepted,
/// and one change to a valid record is refused under many different fields, so the
/// fuzzer tests the record's rules, not only the JSON reader.
#[test]
fn mutated_records_reach_the_rules() {
    let mut runner = TestRunner::deterministic();
    let mut by_field = std::collections::BTreeMap::<String, usize>::new();
    let strategy = (
        any::<prop::sample::Index>(),
        prop::collection::vec(mutation(), 1..2),
    );
    for _ in 0..2_000 {
        let (i, m) = strategy.new_tree(&mut runner).expect("input").current();
        if let Err(e) = parse(&mutate(i.get::<String>(valid_lines()), &m)) {
            *by_field.entry(e.field).or_default() += 1;
        }
    }
    assert!(by_field.len() >= 20, "{by_field:?}");
}

// ---------------------------------------------------------------------------------
// The cursor decoder
// ---------------------------------------------------------------------------------

fn cursor_key() -> &'static CursorKey {
    static KEY: OnceLock<CursorKey> = OnceLock::new();
    KEY.get_or_init(|| CursorKey::new(b"fuzzing key: thirty-two bytes or more").expect("key"))
}

fn board() -> impl Strategy<Value = BoardRef> {
    (
        prop_oneof![
            prop::sample::select(vec!["seega", "mahjong-weekly", "mahjong-amr", "mahjong-level-7"])
                .prop_map(str::to_string),
            "[a-z@#-]{0,12}",
            "\\PC{0,6}",
        ],
        prop_oneof![
            prop::sample::select(vec!["all", "2026-W48", "2026-W49", "2026-11", "2026-11-30"])
                .prop_map(str::to_string),
            "[0-9a-zA-Z@-]{0,10}",
        ],
    )
        .prop_map(|(b, p)| BoardRef::new(b, p))
}

fn cursor() -> impl Strategy<Value = Cursor> {
    prop_oneof![
        (
            "\\PC{0,30}",
            "\\PC{0,40}",
            any::<u64>(),
            any::<u64>(),
            any::<u64>(),
            any::<u64>(),
            any::<i64>()
        )
            .prop_map(
                |(snapshot, page, offset, position, page_size, entries, as_of_ms)| Cursor::Snapshot {
                    snapshot,
                    page,
                    offset,
                    position,
                    page_size,
                    entries,
                    as_of_ms
                }
            ),
        ("\\PC{0,40}", any::<u64>(), any::<i64>(), any::<u64>()).prop_map(
            |(after, position, value, rank)| {
                Cursor::Live {
                    after,
                    position,
                    value,
                    rank,
                }
            }
        ),
    ]
}

/// One way to alter an issued token.
#[derive(Debug, Clone)]
enum TokenEdit {
    /// Flip one bit of the decoded bytes (payload or tag) and encode again.
    FlipBit(prop::sample::Index, u8),
    /// Change one character of the token.
    Char(prop::sample::Index, char),
    /// Cut the token short.
    Truncate(prop::sample::Index),
    /// Append text.
    Extend(String),
    /// Insert a character.
    Insert(prop::sample::Index, char),
    /// Open it on another board (or period).
    OtherBoard(BoardRef),
    /// Open it with another key.
    OtherKey,
    /// Append bytes to the decoded token and encode again.
    ExtendRaw(Vec<u8>),
}

fn token_edit() -> impl Strategy<Value = TokenEdit> {
    let at = any::<prop::sample::Index>;
    let token_char = prop_oneof![
        4 => prop::sample::select(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".chars().collect::<Vec<_>>()
        ),
        1 => any::<char>(),
    ];
    prop_oneof![
        3 => (at(), 0u8..8).prop_map(|(i, b)| TokenEdit::FlipBit(i, b)),
        3 => (at(), token_char.clone()).prop_map(|(i, c)| TokenEdit::Char(i, c)),
        1 => at().prop_map(TokenEdit::Truncate),
        1 => prop_oneof!["[A-Za-z0-9_=+/-]{1,8}", "\\PC{1,4}", "A{1000,1100}"].prop_map(TokenEdit::Extend),
        1 => (at(), token_char).prop_map(|(i, c)| TokenEdit::Insert(i, c)),
        1 => board().prop_map(TokenEdit::OtherBoard),
        1 => Just(TokenEdit::OtherKey),
        1 => prop::collection::vec(any::<u8>(), 1..20).prop_map(TokenEdit::ExtendRaw),
    ]
}

fn other_key() -> &'static CursorKey {
    static KEY: OnceLock<CursorKey> = OnceLock::new();
    KEY.get_or_init(CursorKey::random)
}

/// LB-3: the refusal is a 400 naming `cursor`, with a bounded message.
fn check_cursor_refusal(e: &ServiceError, token: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        matches!(e, ServiceError::BadRequest { field: "cursor", message } if message.len() < 200),
        "{e:?} for {:?}",
        &token[..token.floor_char_boundary(200)]
    );
    prop_assert!(e.to_string().starts_with("cursor: "), "{e}");
    Ok(())
}

/// LB-3: an arbitrary string is never a cursor; the decoder refuses it naming
/// `cursor` and never panics.
#[test]
fn cursor_decoder_refuses_arbitrary_strings_naming_cursor() {
    let token = prop_oneof![
        "\\PC{0,64}",
        "[A-Za-z0-9_-]{0,400}",
        "[A-Za-z0-9_=+/-]{0,1100}",
        prop::collection::vec(any::<u8>(), 0..300).prop_map(|b| URL_SAFE_NO_PAD.encode(b)),
        prop::collection::vec(any::<u8>(), 0..300)
            .prop_map(|b| base64::engine::general_purpose::STANDARD.encode(b)),
        "\\{[\"a-z:,0-9{}]{0,60}\\}".prop_map(|json| {
            // JSON payloads with a tag of zeroes: unsigned.
            let mut raw = json.into_bytes();
            raw.extend([0u8; 16]);
            URL_SAFE_NO_PAD.encode(raw)
        }),
    ];
    fuzz(
        "cursor decoder, arbitrary strings",
        3_000,
        (board(), token),
        |(board, token)| {
            if let Err(e) = cursor_key().open(&board, &token) {
                check_cursor_refusal(&e, &token)?;
            } else {
                prop_assert!(false, "opened an unissued cursor {token:?}");
            }
            Ok(())
        },
    );
}

/// LB-3: an issued cursor opens on its board with its key, and any alteration of it
/// (a flipped bit, a changed, missing or extra character, another board, another key)
/// is refused naming `cursor`, unless the altered token is byte-identical to the
/// issued one.
#[test]
fn cursor_decoder_opens_only_issued_tokens_unaltered() {
    let strategy = (board(), cursor(), prop::collection::vec(token_edit(), 1..3));
    fuzz(
        "cursor decoder, altered tokens",
        3_000,
        strategy,
        |(board, cursor, edits)| {
            let issued = cursor_key().issue(&board, cursor.clone());
            prop_assert_eq!(cursor_key().open(&board, &issued).ok(), Some(cursor.clone()));
            let mut token = issued.clone();
            let mut on = board.clone();
            let mut key = cursor_key();
            for edit in &edits {
                match edit {
                    TokenEdit::FlipBit(i, bit) => {
                        if let Ok(mut raw) = URL_SAFE_NO_PAD.decode(&token) {
                            if !raw.is_empty() {
                                let at = i.index(raw.len());
                                raw[at] ^= 1 << bit;
                                token = URL_SAFE_NO_PAD.encode(raw);
                            }
                        }
                    }
                    TokenEdit::Char(i, c) => {
                        let mut chars: Vec<char> = token.chars().collect();
                        if !chars.is_empty() {
                            let at = i.index(chars.len());
                            chars[at] = *c;
                            token = chars.into_iter().collect();
                        }
                    }
                    TokenEdit::Truncate(i) => {
                        let at = token.floor_char_boundary(i.index(token.len().max(1)));
                        token.truncate(at);
                    }
                    TokenEdit::Extend(s) => token.push_str(s),
                    TokenEdit::Insert(i, c) => {
                        let at = token.floor_char_boundary(i.index(token.len() + 1));
                        token.insert(at, *c);
                    }
                    TokenEdit::OtherBoard(b) => on = b.clone(),
                    TokenEdit::OtherKey => key = other_key(),
                    TokenEdit::ExtendRaw(extra) => {
                        if let Ok(mut raw) = URL_SAFE_NO_PAD.decode(&token) {
                            raw.extend(extra);
                            token = URL_SAFE_NO_PAD.encode(raw);
                        }
                    }
                }
            }
            match key.open(&on, &token) {
                Ok(opened) => {
                    prop_assert_eq!(&token, &issued, "an altered token opened");
                    prop_assert_eq!(on.key(), board.key());
                    prop_assert_eq!(opened, cursor);
                }
                Err(e) => {
                    check_cursor_refusal(&e, &token)?;
                    prop_assert!(
                        token != issued || on.key() != board.key() || !std::ptr::eq(key, cursor_key()),
                        "the issued token was refused: {e}"
                    );
                }
            }
            Ok(())
        },
    );
}
