//! The record's canonical form for its content hash (GM-3): the bytes
//! `serde_json::to_vec(record)` gives (keys in schema order, no spaces, absent
//! options left out), laid out directly. Keys are constants, strings are copied
//! as they are unless they need JSON escapes (then serde_json escapes them), numbers
//! go through `itoa`. Tests hold it byte for byte to serde_json's output.

use super::record::{EndReason, MatchRecord, ResultKind};
use crate::record::instant::Utc3339;

use sha2::{Digest, Sha256};

impl MatchRecord {
    /// SHA-256 (hex) of the record's canonical JSON: equal for two deliveries of the
    /// same content however it was formatted, different when any field differs (GM-3).
    pub fn content_hash(&self) -> String {
        let mut canonical = Vec::with_capacity(512);
        write(self, &mut canonical);
        hex::encode(Sha256::digest(&canonical))
    }
}

/// Appends `record`'s canonical JSON to `out`.
pub(super) fn write(record: &MatchRecord, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"match_id\":");
    string(out, &record.match_id);
    out.extend_from_slice(b",\"game\":");
    string(out, &record.game);
    out.extend_from_slice(b",\"started_at\":");
    instant(out, &Utc3339::of(&record.started_at));
    out.extend_from_slice(b",\"ended_at\":");
    instant(out, &Utc3339::of(&record.ended_at));
    out.extend_from_slice(b",\"players\":[");
    for (i, p) in record.players.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"player_id\":");
        string(out, &p.player_id);
        out.extend_from_slice(b",\"moves\":");
        number(out, p.moves);
        out.extend_from_slice(b",\"stones_on_board\":");
        number(out, p.stones_on_board);
        out.extend_from_slice(b",\"stones_in_hand\":");
        number(out, p.stones_in_hand);
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"stones_placed\":");
    number(out, record.stones_placed);
    out.extend_from_slice(match record.outcome.result {
        ResultKind::Win => b",\"outcome\":{\"result\":\"win\"",
        ResultKind::Draw => b",\"outcome\":{\"result\":\"draw\"",
    });
    if let Some(winner) = &record.outcome.winner {
        out.extend_from_slice(b",\"winner\":");
        string(out, winner);
    }
    if let Some(reason) = record.outcome.reason {
        out.extend_from_slice(match reason {
            EndReason::Completed => b",\"reason\":\"completed\"".as_slice(),
            EndReason::Resigned => b",\"reason\":\"resigned\"",
            EndReason::TurnTimeout => b",\"reason\":\"turn_timeout\"",
        });
    }
    out.extend_from_slice(b"}}");
}

/// A JSON string: copied when nothing in it needs an escape (`"`, `\`, controls).
fn string(out: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        // Writing a `str` into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    } else {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

fn instant(out: &mut Vec<u8>, t: &Utc3339) {
    out.push(b'"');
    out.extend_from_slice(t.as_str().as_bytes());
    out.push(b'"');
}

fn number(out: &mut Vec<u8>, n: u32) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seega::record::{Outcome, PlayerRecord};
    use chrono::DateTime;
    use proptest::prelude::*;

    fn canonical(r: &MatchRecord) -> Vec<u8> {
        let mut out = Vec::new();
        write(r, &mut out);
        out
    }

    fn record(
        ids: [String; 4],
        secs: [i64; 2],
        nanos: [u32; 2],
        counts: [u32; 7],
        outcome: Outcome,
    ) -> MatchRecord {
        let [match_id, game, a, b] = ids;
        let t = |i: usize| DateTime::from_timestamp(secs[i], nanos[i]).unwrap_or_default();
        MatchRecord {
            match_id,
            game,
            started_at: t(0),
            ended_at: t(1),
            players: vec![
                PlayerRecord {
                    player_id: a,
                    moves: counts[0],
                    stones_on_board: counts[1],
                    stones_in_hand: counts[2],
                },
                PlayerRecord {
                    player_id: b,
                    moves: counts[3],
                    stones_on_board: counts[4],
                    stones_in_hand: counts[5],
                },
            ],
            stones_placed: counts[6],
            outcome,
        }
    }

    fn outcomes() -> impl Strategy<Value = Outcome> {
        let reason = prop_oneof![
            Just(None),
            Just(Some(EndReason::Completed)),
            Just(Some(EndReason::Resigned)),
            Just(Some(EndReason::TurnTimeout)),
        ];
        (any::<bool>(), proptest::option::of(".{0,12}"), reason).prop_map(|(win, winner, reason)| Outcome {
            result: if win { ResultKind::Win } else { ResultKind::Draw },
            winner,
            reason,
        })
    }

    /// GM-3: the canonical bytes are serde_json's, for any content: escapes, non-ASCII,
    /// controls, empty strings, any instant, draws with or without a winner.
    #[test]
    fn gm3_canonical_form_is_serde_jsons_for_a_plain_record() {
        let r = record(
            ["m-1".into(), "seega".into(), "p-1".into(), "p-2".into()],
            [1_764_000_000, 1_764_000_300],
            [0, 250_000_000],
            [20, 24, 0, 20, 0, 0, 48],
            Outcome::win("p-1", EndReason::Completed),
        );
        assert_eq!(canonical(&r), serde_json::to_vec(&r).unwrap());
        let mut one = r.clone();
        one.players.truncate(1);
        assert_eq!(canonical(&one), serde_json::to_vec(&one).unwrap());
        one.players.clear();
        assert_eq!(canonical(&one), serde_json::to_vec(&one).unwrap());
    }

    proptest! {
        #[test]
        fn gm3_canonical_form_is_serde_jsons(
            ids in [".{0,20}", "\\PC{0,8}", "[\"\\\\\\x00-\\x1f\\x7f a-z]{0,10}", ".*"],
            secs in [-70_000_000_000i64..300_000_000_000, 0i64..4_000_000_000],
            nanos in (0u32..2_000_000_000, prop_oneof![Just(0u32), (0u32..1000).prop_map(|m| m * 1_000_000)]),
            counts in any::<[u32; 7]>(),
            outcome in outcomes(),
        ) {
            let r = record(ids, secs, [nanos.0, nanos.1], counts, outcome);
            prop_assert_eq!(canonical(&r), serde_json::to_vec(&r).unwrap());
        }
    }
}
