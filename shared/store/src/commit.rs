//! The one atomic write every source of points ends in (GM-3, GM-4): a *commit* of
//! a settlement. Matches, ad rewards, daily bonuses and period-board credits all
//! commit through it; a store writes a commit whole (one DynamoDB
//! `TransactWriteItems`, one redb write transaction) or not at all.
//!
//! A commit holds, in this order (the order of the transaction's items):
//! 1. the source record: the idempotency key (source kind and id), the content hash,
//!    the attempt and the result document, written only if none exists;
//! 2. claims: date-keyed once-a-day markers, written only if none exists;
//! 3. balances: each written only at the version read (and, when `must_exist`, only
//!    over an existing balance);
//! 4. board entries (period boards), each at the version read;
//! 5. state items (a streak, an inventory), each at the version read;
//! 6. ledger entries (GM-4), one per balance change;
//! 7. change marks: items written whatever they hold, their version raised by one
//!    (a board changed since its last snapshot: the refresh job reads them, and deletes
//!    each at the version it read);
//! 8. references (GM-6): for each player that an item this commit writes names outside
//!    the player's own partition (a result that pays them nothing, a league's member
//!    list, a tournament's winners, another player's inbox), an item in the player's
//!    partition naming that item, so the player's deletion finds every item to
//!    anonymise ([`Reference`]);
//! 9. guards (GM-6): for each player the commit writes anything of
//!    ([`Commit::players`]), the condition that the player's deletion tombstone
//!    ([`crate::tombstone_key`]) does not exist. A commit that races a deletion either
//!    lands before the tombstone (and the deletion, which reads the player's items
//!    after writing it, removes what it wrote) or fails with
//!    [`CommitOutcome::PlayerDeleted`].

use podium_rules::board::BoardRef;
use podium_rules::game::Game;
use podium_rules::history::KeyHistory;
use podium_rules::settlement::LedgerEntry;

/// The idempotency key of a settlement: what kind of source, and its id
/// (`match`/`m-123`, `admob`/`{transaction id}`, `bonus`/`{player}:{day}`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceKey {
    pub kind: String,
    pub id: String,
}

impl SourceKey {
    pub fn new(kind: impl Into<String>, id: impl Into<String>) -> Self {
        SourceKey {
            kind: kind.into(),
            id: id.into(),
        }
    }
}

/// A settled source as stored: what the first commit wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSource {
    pub content_hash: String,
    /// The attempt that wrote it (see [`Commit::attempt`]); `None` when unknown.
    pub attempt: Option<String>,
    /// The result document (JSON).
    pub result: String,
    /// What the service stored to explain a later conflict (GM-3: when the source was
    /// settled and a fingerprint of each of its fields; see [`Commit::fields`]);
    /// `None` for a record stored before it was kept.
    pub fields: Option<String>,
}

/// A page of stored source records ([`crate::SourceStore::scan_sources`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourcePage {
    pub records: Vec<(SourceKey, StoredSource)>,
    /// Where the next page starts; `None`: this was the last.
    pub next: Option<String>,
}

/// One balance write: set `points` if the stored version is still `expected_version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceWrite {
    pub player_id: String,
    pub game: Game,
    /// The version read before computing `points` (0: no balance yet).
    pub expected_version: u64,
    /// The new balance (points, ≥ 0).
    pub points: i64,
    /// When it was reached (ms since the Unix epoch, UTC; LB-2).
    pub reached_at_ms: i64,
    /// The entry's history after this write ([`crate::Balance::history_after`]).
    pub history: KeyHistory,
    /// Only over an existing balance (a known player): otherwise the commit fails on it.
    pub must_exist: bool,
}

/// One board-entry write on a period board (MJ-20): set `value` if the stored
/// version is still `expected_version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryWrite {
    pub board: BoardRef,
    pub player_id: String,
    pub expected_version: u64,
    /// The new value (points, ≥ 0).
    pub value: i64,
    pub reached_at_ms: i64,
    pub history: KeyHistory,
}

/// A date-keyed once-a-day marker: `kind` of `game` claimed by `player_id` on `day`
/// (`YYYY-MM-DD`, the game's local date, GM-2). Written only if none exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimWrite {
    pub player_id: String,
    pub game: Game,
    pub kind: String,
    pub day: String,
    /// What the claim holds (JSON): the source and what it granted.
    pub body: String,
}

/// A stored claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub body: String,
}

/// A player's state item (a streak, an inventory), written at the version read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateWrite {
    pub player_id: String,
    /// Which state: `mahjong-rivals/bonus-streak`, `mahjong-rivals/jokers`.
    pub name: String,
    pub expected_version: u64,
    /// The new body (JSON).
    pub body: String,
}

/// A stored state item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub body: String,
    pub version: u64,
}

/// A stored item that names a player outside the player's own partition (GM-6).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum Named {
    /// A source record's result document.
    Source { kind: String, id: String },
    /// A state item of another owner (a league's member list, a tournament's
    /// winners, another player's inbox).
    State { owner: String, name: String },
}

impl Named {
    /// The named item's identity as a short stable string (the reference's key part):
    /// the first 32 hex digits of SHA-256 of its kind and key.
    pub fn key(&self) -> String {
        use sha2::Digest;
        let text = match self {
            Named::Source { kind, id } => format!("S\u{0}{kind}\u{0}{id}"),
            Named::State { owner, name } => format!("T\u{0}{owner}\u{0}{name}"),
        };
        let mut h = hex::encode(sha2::Sha256::digest(text.as_bytes()));
        h.truncate(32);
        h
    }
}

/// A reference from `player_id` to an item that names them (GM-6): written in the
/// player's partition in the same commit as the item, so that their deletion finds it
/// (and anonymises it) whatever else they hold. Written whatever it held before (the
/// same reference twice is one item).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    pub player_id: String,
    pub named: Named,
}

/// A change mark: an [`crate::ItemStore`] item set to `body` whatever it held, its
/// version raised by one, so that whoever read it can delete it only if no commit
/// marked it again since ([`crate::ItemStore::delete_item_if`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkWrite {
    pub key: crate::ItemKey,
    pub body: Vec<u8>,
}

/// Everything one settlement writes, atomically (see the module notes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub source: SourceKey,
    /// SHA-256 (hex) of the source's canonical content (GM-3).
    pub content_hash: String,
    /// Who is writing: a random id per settling call, stored with the result, so a
    /// call whose reply was lost recognises its own write and a duplicate delivery
    /// never mistakes another call's write for its own.
    pub attempt: String,
    /// Distinguishes the commits one call sends after re-reading (0, 1, …): the same
    /// commit sent again keeps it, so the store recognises the repeat.
    pub plan: u32,
    /// The result document (JSON), returned to every repeat.
    pub result: String,
    /// A short text stored with the result for the service alone (at most a few
    /// dozen bytes: when it was settled and a fingerprint of each field), read back on
    /// a conflict to name what differs (GM-3); `None` to store nothing.
    pub fields: Option<String>,
    pub claims: Vec<ClaimWrite>,
    pub balances: Vec<BalanceWrite>,
    pub entries: Vec<EntryWrite>,
    pub states: Vec<StateWrite>,
    pub ledger: Vec<LedgerEntry>,
    pub marks: Vec<MarkWrite>,
    /// References to items this commit writes that name players outside their own
    /// partition (GM-6); each referenced player is guarded too.
    pub refs: Vec<Reference>,
    /// Players the source names though the commit writes nothing of theirs (a void
    /// match): guarded like the players it writes (GM-6, [`Commit::players`]).
    pub named: Vec<String>,
}

impl Commit {
    /// A commit of the source record alone (`result` JSON, no fingerprints), writing
    /// nothing else: the start a commit that also writes balances, entries or states
    /// fills in (`Commit { balances, ..Commit::source_only(…) }`).
    pub fn source_only(source: SourceKey, content_hash: String, attempt: String, result: String) -> Self {
        Commit {
            source,
            content_hash,
            attempt,
            plan: 0,
            result,
            fields: None,
            claims: Vec::new(),
            balances: Vec::new(),
            entries: Vec::new(),
            states: Vec::new(),
            ledger: Vec::new(),
            marks: Vec::new(),
            refs: Vec::new(),
            named: Vec::new(),
        }
    }

    /// Items this commit writes or checks (DynamoDB takes at most 100 in one
    /// transaction), guards included.
    pub fn items(&self) -> usize {
        1 + self.claims.len()
            + self.balances.len()
            + self.entries.len()
            + self.states.len()
            + self.ledger.len()
            + self.marks.len()
            + self.refs.len()
            + self.players().len()
    }

    /// The players this commit writes anything of (claims, balances, entries, states,
    /// ledger entries, references), then those it only names ([`Commit::named`]), each
    /// once, in order of first appearance: the players whose deletion tombstone it
    /// checks is absent (GM-6, a guard each). podium's internal owners (`@…`: a
    /// league's filling cohorts and member lists, a tournament) are not players: no
    /// deletion or suspension can name one, so they carry no guard (a guard on a
    /// filling cohort would be read by every placement into it: a hot partition at
    /// Monday 00:00, LB-7).
    pub fn players(&self) -> Vec<&str> {
        let named = self
            .claims
            .iter()
            .map(|c| c.player_id.as_str())
            .chain(self.balances.iter().map(|b| b.player_id.as_str()))
            .chain(self.entries.iter().map(|e| e.player_id.as_str()))
            .chain(self.states.iter().map(|s| s.player_id.as_str()))
            .chain(self.ledger.iter().map(|l| l.player_id.as_str()))
            .chain(self.refs.iter().map(|r| r.player_id.as_str()))
            .chain(self.named.iter().map(String::as_str));
        let mut out: Vec<&str> = Vec::new();
        for p in named {
            if !p.starts_with(podium_rules::record::ids::INTERNAL_PREFIX) && !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// Where the ledger entries start in the commit's order (after the source record,
    /// claims, balances, period entries and states).
    pub fn ledger_start(&self) -> usize {
        1 + self.claims.len() + self.balances.len() + self.entries.len() + self.states.len()
    }

    /// What the item at `index` of the commit's order is.
    pub fn role(&self, index: usize) -> Role {
        let bounds = [
            (1, Role::Source),
            (self.claims.len(), Role::Claim),
            (self.balances.len(), Role::Balance),
            (self.entries.len(), Role::Entry),
            (self.states.len(), Role::State),
            (self.ledger.len(), Role::Ledger),
            (self.marks.len(), Role::Mark),
            (self.refs.len(), Role::Reference),
        ];
        let mut start = 0;
        for (len, role) in bounds {
            if index < start + len {
                return role;
            }
            start += len;
        }
        Role::Guard(index - start)
    }
}

/// What one item of a commit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Source,
    Claim,
    Balance,
    Entry,
    State,
    Ledger,
    Mark,
    Reference,
    /// The guard of the n-th of [`Commit::players`] (GM-6).
    Guard(usize),
}

/// How a [`Commit`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitOutcome {
    /// Everything was written.
    Committed,
    /// A source record with this key exists: nothing was written (read it).
    SourceExists,
    /// This claim (index into `claims`) was taken before: nothing was written.
    ClaimTaken(usize),
    /// A balance, entry or state moved since it was read (or a balance that must
    /// exist does not), another transaction held an item, the transaction was
    /// throttled, or DynamoDB had seen its request token with other items: nothing was
    /// written. Read again and retry.
    Contended,
    /// This player (one of [`Commit::players`]) was deleted (GM-6): their tombstone
    /// exists. Nothing was written; the source must be refused.
    PlayerDeleted(String),
}

/// Cancellation reasons of a transaction, one per item in the commit's order, as
/// DynamoDB reports them (`None`, `ConditionalCheckFailed`, `TransactionConflict`,
/// `ThrottlingError`, …): the outcome they mean, `Err` with the reasons when they
/// mean a defect (validation, item size). Never decided by message text.
pub fn outcome_of_cancellation(commit: &Commit, reasons: &[&str]) -> Result<CommitOutcome, String> {
    // The source record and the claims decide first: a repeat, or a claim taken.
    for (i, code) in reasons.iter().enumerate() {
        match (*code, commit.role(i)) {
            ("ConditionalCheckFailed", Role::Source | Role::Ledger) => {
                return Ok(CommitOutcome::SourceExists)
            }
            ("ConditionalCheckFailed", Role::Claim) => return Ok(CommitOutcome::ClaimTaken(i - 1)),
            ("ConditionalCheckFailed", Role::Guard(n)) => {
                let player = commit.players().get(n).map(|p| p.to_string());
                return player
                    .map(CommitOutcome::PlayerDeleted)
                    .ok_or_else(|| format!("cancelled: {reasons:?}"));
            }
            (
                "None"
                | "ConditionalCheckFailed"
                | "TransactionConflict"
                | "ThrottlingError"
                | "ProvisionedThroughputExceeded",
                _,
            ) => {}
            _ => return Err(format!("cancelled: {reasons:?}")),
        }
    }
    // A balance, entry or state moved, or another transaction held an item.
    Ok(CommitOutcome::Contended)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(claims: usize, balances: usize, ledger: usize) -> Commit {
        Commit {
            source: SourceKey::new("admob", "t-1"),
            content_hash: "h".into(),
            attempt: "a".into(),
            plan: 0,
            result: "{}".into(),
            fields: None,
            claims: (0..claims)
                .map(|_| ClaimWrite {
                    player_id: "p".into(),
                    game: Game::Seega,
                    kind: "daily-ad".into(),
                    day: "2027-05-10".into(),
                    body: "{}".into(),
                })
                .collect(),
            balances: (0..balances)
                .map(|_| BalanceWrite {
                    player_id: "p".into(),
                    game: Game::Seega,
                    expected_version: 1,
                    points: 50,
                    reached_at_ms: 0,
                    history: KeyHistory::default(),
                    must_exist: true,
                })
                .collect(),
            entries: Vec::new(),
            states: Vec::new(),
            ledger: (0..ledger)
                .map(|_| LedgerEntry {
                    player_id: "p".into(),
                    game: Game::Seega,
                    source: "admob".into(),
                    source_id: "t-1".into(),
                    at: chrono::DateTime::UNIX_EPOCH,
                    nominal: 40,
                    applied: 40,
                    balance_after: 50,
                    rule: "SG-10".into(),
                    seq: 2,
                    settled_at: None,
                    note: None,
                })
                .collect(),
            marks: Vec::new(),
            refs: Vec::new(),
            named: Vec::new(),
        }
    }

    /// SG-10 / GM-3: cancellations are read by their per-item reasons.
    #[test]
    fn cancellation_reasons_by_item() {
        let c = commit(1, 1, 1);
        assert_eq!(c.players(), ["p"]);
        assert_eq!(c.items(), 5);
        assert_eq!(
            [0, 1, 2, 3, 4].map(|i| c.role(i)),
            [
                Role::Source,
                Role::Claim,
                Role::Balance,
                Role::Ledger,
                Role::Guard(0)
            ]
        );
        let outcome = |r: &[&str]| outcome_of_cancellation(&c, r);
        // A retry of a commit that went through: the source record is there.
        assert_eq!(
            outcome(&[
                "ConditionalCheckFailed",
                "ConditionalCheckFailed",
                "ConditionalCheckFailed",
                "None"
            ]),
            Ok(CommitOutcome::SourceExists)
        );
        // Another callback already took today's claim.
        assert_eq!(
            outcome(&["None", "ConditionalCheckFailed", "None", "None"]),
            Ok(CommitOutcome::ClaimTaken(0))
        );
        // The balance moved, or the player is unknown: read again.
        assert_eq!(
            outcome(&["None", "None", "ConditionalCheckFailed", "None"]),
            Ok(CommitOutcome::Contended)
        );
        assert_eq!(
            outcome(&["None", "TransactionConflict", "None", "None"]),
            Ok(CommitOutcome::Contended)
        );
        assert!(outcome(&["None", "ValidationError", "None", "None"]).is_err());
        // GM-6: the player's tombstone exists (the balance check fails with it).
        assert_eq!(
            outcome(&[
                "None",
                "None",
                "ConditionalCheckFailed",
                "None",
                "ConditionalCheckFailed"
            ]),
            Ok(CommitOutcome::PlayerDeleted("p".into()))
        );
        // Without a separate source item the claim leads (the order of the review case).
        let c = Commit {
            claims: Vec::new(),
            ..commit(0, 1, 1)
        };
        assert_eq!(
            outcome_of_cancellation(&c, &["ConditionalCheckFailed", "None", "None"]),
            Ok(CommitOutcome::SourceExists)
        );
    }
}
