//! Compact forms of what a run keeps about every player of a board while it lists it
//! (memory that grows with the board: at 10^6 players every byte an entry is a MB).
//!
//! - [`IdKey`]: a player id as 128 bits of SipHash-1-3 under fixed keys (16 bytes
//!   instead of a `String`'s 24 and its heap block). Two ids of one board share a key
//!   with a probability of about n² / 2¹²⁹ (10⁻¹⁴ at 10^7 players): never, in practice.
//! - [`CompactCard`]: a card (PF-5) in one heap block, its fields joined by U+001F (a
//!   control character no name, avatar or country holds, PF-1).

use podium_rules::profile::Card;
use siphasher::sip128::{Hasher128, SipHasher13};

/// A player id's 128-bit key, as two words (so a map entry aligns on 8 bytes).
pub type IdKey = (u64, u64);

/// The key of `player_id`.
pub fn id_key(player_id: &str) -> IdKey {
    let mut h = SipHasher13::new_with_keys(0x706f_6469_756d_2d69, 0x642d_6b65_792d_7631);
    std::hash::Hasher::write(&mut h, player_id.as_bytes());
    let v = h.finish128();
    (v.h1, v.h2)
}

const SEP: char = '\u{1F}';

/// A card in one allocation; `None` for the empty card.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompactCard(Option<Box<str>>);

impl CompactCard {
    /// `card`, compacted.
    pub fn new(card: &Card) -> Self {
        if card.is_empty() {
            return CompactCard(None);
        }
        let field = |f: &Option<String>| f.clone().unwrap_or_default();
        let joined = [field(&card.name), field(&card.avatar), field(&card.country)].join(&SEP.to_string());
        CompactCard(Some(joined.into_boxed_str()))
    }

    /// Its text (empty for the empty card).
    pub fn text(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }

    /// The card whose [`CompactCard::text`] is `text`.
    pub fn from_text(text: &str) -> Self {
        CompactCard((!text.is_empty()).then(|| text.into()))
    }

    /// The card again.
    pub fn card(&self) -> Card {
        let Some(joined) = &self.0 else {
            return Card::default();
        };
        let mut parts = joined.split(SEP);
        let mut next = || parts.next().filter(|p| !p.is_empty()).map(str::to_string);
        Card {
            name: next(),
            avatar: next(),
            country: next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_round_trip() {
        for card in [
            Card::default(),
            Card {
                name: Some("Ionela".into()),
                avatar: Some("a07".into()),
                country: Some("RO".into()),
            },
            Card {
                name: None,
                avatar: Some("a01".into()),
                country: None,
            },
            Card {
                name: Some("🦊 Fox".into()),
                avatar: None,
                country: Some("FR".into()),
            },
        ] {
            assert_eq!(CompactCard::new(&card).card(), card);
            let text = CompactCard::new(&card).text().to_string();
            assert_eq!(CompactCard::from_text(&text).card(), card);
        }
    }

    #[test]
    fn ids_have_distinct_keys() {
        let keys: std::collections::HashSet<IdKey> =
            (0..100_000).map(|i| id_key(&format!("p-{i:05}"))).collect();
        assert_eq!(keys.len(), 100_000);
        assert_eq!(id_key("alice"), id_key("alice"));
    }
}
