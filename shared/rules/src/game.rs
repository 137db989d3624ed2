//! The games podium knows (LB-1) and their configured zones (GM-2).

use serde::{Deserialize, Serialize};

/// A game of the platform.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Game {
    Seega,
    DotsAndBoxes,
    Minesweeper,
    MahjongRivals,
}

impl Game {
    /// Every game, in this order.
    pub const ALL: [Game; 4] = [
        Game::Seega,
        Game::DotsAndBoxes,
        Game::Minesweeper,
        Game::MahjongRivals,
    ];

    /// The wire and key id: `seega`, `dots-and-boxes`, `minesweeper`, `mahjong-rivals`.
    pub fn id(self) -> &'static str {
        match self {
            Game::Seega => "seega",
            Game::DotsAndBoxes => "dots-and-boxes",
            Game::Minesweeper => "minesweeper",
            Game::MahjongRivals => "mahjong-rivals",
        }
    }

    /// The IANA zone whose local days and weeks the game counts in (GM-2): Mahjong
    /// Rivals on Romanian time, the others on UTC.
    pub fn zone(self) -> chrono_tz::Tz {
        match self {
            Game::MahjongRivals => chrono_tz::Tz::Europe__Bucharest,
            Game::Seega | Game::DotsAndBoxes | Game::Minesweeper => chrono_tz::Tz::UTC,
        }
    }

    /// Whether the game's balance is an Elo rating (Dots and Boxes DB-6, the
    /// Minesweeper duel MS-8) rather than points: nothing but its matches moves it.
    pub fn keeps_rating(self) -> bool {
        matches!(self, Game::DotsAndBoxes | Game::Minesweeper)
    }

    /// The game's local date of an instant (GM-2).
    pub fn local_date(self, instant: chrono::DateTime<chrono::Utc>) -> chrono::NaiveDate {
        crate::period::local_date(self.zone(), instant)
    }

    /// The game for a wire id, if known.
    pub fn from_id(id: &str) -> Option<Game> {
        [
            Game::Seega,
            Game::DotsAndBoxes,
            Game::Minesweeper,
            Game::MahjongRivals,
        ]
        .into_iter()
        .find(|g| g.id() == id)
    }
}

/// The refusal of a record's `game` that names no game podium scores (GM-5), listing
/// those it does; `found` is the value as the refusal shows it (already quoted).
pub fn not_scored(found: &str) -> crate::error::RuleError {
    crate::error::RuleError::new(
        "game",
        "GM-5",
        format!(
            "{found} is not a game podium scores: one of {}",
            Game::ALL.map(|g| format!("`{}`", g.id())).join(", ")
        ),
    )
}
