//! Schemas of answers that only the OpenAPI document names: a board page and an
//! around-me answer, each with its LB-6 period clock.

use serde::Serialize;
use utoipa::ToSchema;

use crate::boards::live::{AroundMe, Page};

/// A board page as answered: [`Page`] and its LB-6 period clock.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct LeaderboardPage {
    #[serde(flatten)]
    page: Page,
    period: podium_rules::period::PeriodClock,
}

/// An around-me answer: [`AroundMe`] and its LB-6 period clock.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct LeaderboardAroundMe {
    #[serde(flatten)]
    around: AroundMe,
    period: podium_rules::period::PeriodClock,
}

/// A friends view: [`crate::boards::friends::FriendsView`] and its LB-6 period clock.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct FriendsBoard {
    #[serde(flatten)]
    friends: crate::boards::friends::FriendsView,
    period: podium_rules::period::PeriodClock,
}

/// A tournament's state (`podium_rules::mahjong::tournament_play::TournamentState`) as
/// answered: its settings and where it stands, flat (one object, fields by status),
/// so that every generator reads it.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct TournamentState {
    tournament: podium_rules::mahjong::tournament::Tournament,
    status: TournamentStatus,
    /// With `running` and `cancelled`: the players registered at its start.
    #[serde(skip_serializing_if = "Option::is_none")]
    registered: Option<u64>,
    /// With `closing`: when it ended (milliseconds since the Unix epoch, UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    since_ms: Option<i64>,
    /// With `final`: the places that win a prize or the trophy (MJ-16, MJ-17).
    #[serde(skip_serializing_if = "Option::is_none")]
    winners: Option<Vec<podium_rules::mahjong::tournament_play::Winner>>,
}

/// Where a tournament stands (MJ-12 … MJ-16): taking registrations then table results
/// (`open`), started with enough players (`running`), fewer than its minimum at its
/// start (`cancelled`), ended with its final places read after a wait (`closing`),
/// its winners fixed and paid (`final`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub(crate) enum TournamentStatus {
    Open,
    Running,
    Cancelled,
    Closing,
    Final,
}
