//! What operators may change (OP-*): corrections of a balance (OP-1) and the reasons
//! every operator action carries (OP-5). Pure: the service reads and commits.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::RuleError;
use crate::game::Game;
use crate::record::ids::{check_id, check_player_id};
use crate::settlement::{balance_change, credits_for, LedgerSource, Settlement};

/// The ledger source of corrections (OP-1).
pub const CORRECTION: &str = "correction";

/// The largest correction, either sign (points; OP-1).
pub const MAX_CORRECTION_POINTS: i64 = 1_000_000;

/// The shortest and longest reason an operator gives (characters, trimmed; OP-5).
pub const MIN_REASON_CHARS: usize = 3;
pub const MAX_REASON_CHARS: usize = 500;

/// A reason (OP-5): trimmed, 3 … 500 characters, no control characters. Errors name
/// `field` and OP-5.
pub fn check_reason(field: &str, reason: &str) -> Result<String, RuleError> {
    let r = reason.trim();
    let n = r.chars().count();
    if !(MIN_REASON_CHARS..=MAX_REASON_CHARS).contains(&n) {
        return Err(RuleError::new(
            field,
            "OP-5",
            format!("a reason is {MIN_REASON_CHARS}–{MAX_REASON_CHARS} characters ({n} given)"),
        ));
    }
    use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
    // Control and format characters (zero-width, bidirectional overrides) hide or
    // reorder what a reader sees: refused; line breaks are allowed.
    if r.chars()
        .any(|c| c != '\n' && c.general_category_group() == GeneralCategoryGroup::Other)
    {
        return Err(RuleError::new(
            field,
            "OP-5",
            "a reason has no control, format or unassigned characters",
        ));
    }
    if !r.chars().any(char::is_alphanumeric) {
        return Err(RuleError::new(
            field,
            "OP-5",
            "a reason says something (letters or digits)",
        ));
    }
    Ok(r.to_string())
}

/// An operator's correction of one balance (OP-1), as the console sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Correction {
    /// The idempotency key the console chose (GM-5 id form): the same key with the
    /// same content applies once; with other content it is a conflict.
    pub correction_id: String,
    pub player_id: String,
    pub game: Game,
    /// The signed change (points), not 0, at most [`MAX_CORRECTION_POINTS`] either way.
    pub points: i64,
    /// Why (OP-5): shown to the player in their point history.
    pub reason: String,
}

impl Correction {
    /// Checks the correction (OP-1, OP-5); the reason comes back trimmed. Errors name
    /// the field: `correction_id`, `player_id` (GM-5, GM-6), `points` (OP-1), `reason`.
    pub fn checked(mut self) -> Result<Correction, RuleError> {
        check_id("correction_id", &self.correction_id)?;
        check_player_id("player_id", &self.player_id)?;
        if self.points == 0 || self.points.unsigned_abs() > MAX_CORRECTION_POINTS as u64 {
            return Err(RuleError::new(
                "points",
                "OP-1",
                format!(
                    "a correction is a whole number of points from −{MAX_CORRECTION_POINTS} to \
                     {MAX_CORRECTION_POINTS} other than 0, not {}",
                    self.points
                ),
            ));
        }
        self.reason = check_reason("reason", &self.reason)?;
        Ok(self)
    }
}

/// What a correction did (OP-1): the result every repeat of it gets back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CorrectionResult {
    pub correction_id: String,
    pub player_id: String,
    pub game: Game,
    /// The change asked for (points).
    pub nominal: i64,
    /// The change applied after the SG-7 floor (points).
    pub applied: i64,
    /// The balance after it (points).
    pub balance_after: i64,
    pub reason: String,
    /// The operator who made it (their verified identity).
    pub operator: String,
    /// When it was made (UTC): the instant whose periods its board credits go to.
    pub at: DateTime<Utc>,
}

/// Plans a correction (OP-1) of a balance of `before` points, made by `operator` at
/// `at`: the balance moves by the floored delta (SG-7), the ledger entry names
/// source `correction`, the key and OP-1 and carries the reason, and the game's
/// period boards are credited with the applied delta in the periods of `at`.
pub fn plan_correction(
    c: &Correction,
    operator: &str,
    before: i64,
    at: DateTime<Utc>,
) -> Settlement<CorrectionResult> {
    let (change, mut entry) = balance_change(
        &c.player_id,
        c.game,
        before,
        c.points,
        LedgerSource {
            kind: CORRECTION,
            id: &c.correction_id,
            rule: "OP-1",
        },
        at,
    );
    entry.note = Some(c.reason.clone());
    let mut s = Settlement::result_only(CorrectionResult {
        correction_id: c.correction_id.clone(),
        player_id: c.player_id.clone(),
        game: c.game,
        nominal: entry.nominal,
        applied: entry.applied,
        balance_after: entry.balance_after,
        reason: c.reason.clone(),
        operator: operator.to_string(),
        at,
    });
    if entry.applied != 0 {
        s.credits = credits_for(c.game, &c.player_id, entry.applied, at, at);
    }
    s.balances.push(change);
    s.ledger.push(entry);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(points: i64) -> Correction {
        Correction {
            correction_id: "c-1".into(),
            player_id: "p".into(),
            game: Game::Seega,
            points,
            reason: "  refund after a server fault ".into(),
        }
    }

    /// OP-1 with SG-7: −500 on 300 applies −300; the entry carries the reason.
    #[test]
    fn op_1_a_correction_follows_the_floor() {
        let checked = c(-500).checked().unwrap();
        assert_eq!(checked.reason, "refund after a server fault");
        let s = plan_correction(&checked, "op", 300, DateTime::UNIX_EPOCH);
        assert_eq!(
            (s.result.nominal, s.result.applied, s.result.balance_after),
            (-500, -300, 0)
        );
        assert_eq!(s.ledger[0].rule, "OP-1");
        assert_eq!(s.ledger[0].note.as_deref(), Some("refund after a server fault"));
        assert!(s.credits.is_empty(), "Seega's board is its balance");
    }

    /// OP-1, OP-5: zero, too large, no reason are refused naming the field.
    #[test]
    fn op_1_refusals_name_the_field() {
        assert_eq!(c(0).checked().unwrap_err().field, "points");
        assert_eq!(
            c(MAX_CORRECTION_POINTS + 1).checked().unwrap_err().field,
            "points"
        );
        let mut short = c(5);
        short.reason = " x ".into();
        let e = short.checked().unwrap_err();
        assert_eq!((e.field.as_str(), e.rule), ("reason", "OP-5"));
        let mut bad = c(5);
        bad.correction_id = "a#b".into();
        assert_eq!(bad.checked().unwrap_err().field, "correction_id");
        for hidden in [
            "a\u{200b}bc",
            "abc\u{202e}",
            "\u{200b}\u{200b}\u{200b}",
            "...",
            "a\u{1b}bc",
        ] {
            assert!(check_reason("reason", hidden).is_err(), "{hidden:?}");
        }
        assert!(check_reason("reason", "two\nlines").is_ok());
    }

    /// OP-1: a Mahjong correction credits the period boards of its instant.
    #[test]
    fn op_1_mahjong_corrections_credit_the_periods_of_their_instant() {
        let mut m = c(40);
        m.game = Game::MahjongRivals;
        let at = DateTime::parse_from_rfc3339("2027-05-10T22:30:00Z")
            .unwrap()
            .to_utc();
        let s = plan_correction(&m.checked().unwrap(), "op", 0, at);
        let periods: Vec<_> = s
            .credits
            .iter()
            .map(|c| (c.board.as_str(), c.period.as_str(), c.points))
            .collect();
        assert!(
            periods.contains(&("mahjong-weekly", "2027-W19", 40)),
            "{periods:?}"
        );
    }
}
