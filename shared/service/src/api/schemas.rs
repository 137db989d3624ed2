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
