//! The rules crate's one error type.

use thiserror::Error;

/// The longest message a [`RuleError`] carries, in characters: a refusal stays a
/// short sentence however large the offending input was (GM-5).
pub const MAX_MESSAGE_CHARS: usize = 300;

/// The longest piece of input a message quotes, in characters (see [`quoted`]).
pub const MAX_QUOTED_CHARS: usize = 40;

/// A record or value that breaks a rule (GM-5): names the field and the rule.
///
/// `field` is a JSON path into the input made only of names the schema knows
/// (`players[1].stones_in_hand`, never an unknown key the caller sent), `rule` the
/// rule id (`SG-1`, see `docs/rules/`), `message` one sentence for the caller, at most
/// [`MAX_MESSAGE_CHARS`] characters, quoting input only through [`quoted`]. It
/// displays as `field (rule): message`, so a reason cut short keeps field and rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{field} ({rule}): {message}")]
pub struct RuleError {
    pub field: String,
    pub rule: &'static str,
    pub message: String,
}

impl RuleError {
    /// A refusal of `field` under `rule`; `message` is cut to [`MAX_MESSAGE_CHARS`].
    pub fn new(field: impl Into<String>, rule: &'static str, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            rule,
            message: cut(&message.into(), MAX_MESSAGE_CHARS),
        }
    }
}

/// `value` between backticks for a message, cut to [`MAX_QUOTED_CHARS`] characters
/// (an ellipsis marks the cut): `` `p-1` ``, `` `aaaaaaaa…` ``.
pub fn quoted(value: &str) -> String {
    format!("`{}`", cut(value, MAX_QUOTED_CHARS))
}

/// `s` cut to at most `max` characters, with `…` in place of what was cut; control,
/// format and separator characters (escape sequences, NUL, newlines, bidirectional
/// overrides) escaped as `\u{1b}`, so quoted input can neither forge a line nor move a
/// terminal nor break a queue's message attribute.
pub fn cut(s: &str, max: usize) -> String {
    let escaped = |c: char| -> String {
        let invisible = c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}');
        if invisible {
            c.escape_unicode().to_string()
        } else {
            c.to_string()
        }
    };
    match s.char_indices().nth(max) {
        None => s.chars().map(escaped).collect(),
        Some(_) => {
            let keep: String = s.chars().take(max.saturating_sub(1)).map(escaped).collect();
            format!("{keep}…")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GM-5: field and rule come first, and no message grows with its input.
    #[test]
    fn reasons_stay_short_and_lead_with_field_and_rule() {
        let e = RuleError::new(
            "game",
            "GM-5",
            format!("unknown game {}", quoted(&"x".repeat(5_000))),
        );
        let shown = e.to_string();
        assert!(shown.starts_with("game (GM-5): unknown game `xxx"), "{shown}");
        assert!(shown.chars().count() < 100, "{shown}");
        let long = RuleError::new("record", "GM-5", "é".repeat(10_000));
        assert_eq!(long.message.chars().count(), MAX_MESSAGE_CHARS);
        assert_eq!(quoted("p-1"), "`p-1`");
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "ab…");
    }
}
