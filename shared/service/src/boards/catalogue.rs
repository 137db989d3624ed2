//! The boards the app can show now (LB-1, LB-6, BD-12): the built-in boards, and the
//! defined boards live now, coming (a window not begun) or just ended (a window that
//! ended in the last [`ENDED_LISTED`]), each with its current period's clock and the
//! caller's value there. A retired board, and a window ended longer ago, are not listed
//! (their pages stay readable by id).
//!
//! Reads: each game's definitions in force ([`crate::engine::defined::in_force`]; kept a
//! few seconds on DynamoDB), then the caller's entry on each board listed, and their
//! joining of each board players enter by joining (BD-8), at once.

use chrono::{DateTime, Utc};
use futures::future::try_join_all;
use podium_rules::board::definition::{Definition, Schedule};
use podium_rules::board::{BoardRef, Unit, BOARDS};
use podium_rules::game::Game;
use podium_rules::period::PeriodClock;
use podium_store::Store;
use serde::Serialize;

use crate::error::ServiceError;

/// What `GET /v1/boards` answers.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Catalogue {
    /// The server clock the list was made at (UTC).
    pub as_of: DateTime<Utc>,
    /// Built-in boards first (LB-1's order), then defined ones by game and id.
    pub boards: Vec<Listed>,
}

/// One board the app can show.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Listed {
    /// The id to read it by (`GET /v1/leaderboards/{board}`).
    pub board: String,
    pub title: String,
    /// The game that feeds it (`seega`, `dots-and-boxes`, `minesweeper`, `mahjong-rivals`).
    pub game: String,
    /// True for a board a live-ops team defined (BD-1), false for a built-in one.
    pub defined: bool,
    /// True for a team board (TM-7): its entries are teams, and `me` is the caller's
    /// team's value.
    pub teams: bool,
    /// `live` (its current period runs), `coming` (a window not begun) or `ended` (a
    /// window that ended in the last 7 days: its final standings).
    #[schema(example = "live")]
    pub state: &'static str,
    /// The current period (a coming window: the window) and the next reset (LB-6).
    pub period: PeriodClock,
    /// The caller's value in that period, if they have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub me: Option<Mine>,
    /// A defined board's entry rules (BD-8), when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<EntryView>,
    /// A defined board's prize table in force now (BD-9: paid when the period ends),
    /// best ranks first; absent when it pays none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prizes: Vec<PrizeView>,
}

/// One band of a listed board's prize table (BD-9): ranks `from` to `to` each paid
/// `points` (into the game's balance) and `jokers` (MJ-6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PrizeView {
    pub from: u32,
    pub to: u32,
    pub points: u64,
    pub jokers: u64,
}

/// A listed board's entry rules (BD-8), as the app shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct EntryView {
    /// Whether players enter by joining (`POST /v1/boards/{board}/join`).
    pub join_required: bool,
    /// Whether the caller joined (always false when no joining is asked for).
    pub joined: bool,
    /// The first this many players to get a value enter; absent: everyone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_entrants: Option<u32>,
    /// The countries whose players may join (ISO 3166-1 alpha-2); empty: every one.
    pub countries: Vec<String>,
}

/// The caller's value on a listed board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Mine {
    /// Points, a count, a rating, or a time in milliseconds (the board's unit).
    pub value: i64,
    pub value_shown: String,
}

/// How a listed board's stored value reads back.
enum Reading {
    BuiltIn(podium_rules::board::Order, Unit),
    Defined(podium_rules::board::feed::Fold, Unit),
}

impl Reading {
    fn mine(&self, stored: i64) -> Mine {
        let (value, unit) = match self {
            Reading::BuiltIn(order, unit) => (order.value_of(stored), *unit),
            Reading::Defined(fold, unit) => (fold.columns(stored).value, *unit),
        };
        Mine {
            value,
            value_shown: unit.show(value),
        }
    }
}

/// How long a window that ended stays listed (`state: ended`), so the app can show
/// its final standings.
pub const ENDED_LISTED: chrono::Duration = chrono::Duration::days(7);

/// The title of a built-in board.
fn built_in_title(id: &str) -> &'static str {
    match id {
        "seega" => "Seega",
        "dots-and-boxes" => "Dots and Boxes rating",
        "minesweeper" => "Minesweeper duel rating",
        "mahjong-amr" => "Mahjong Rivals AMR",
        "mahjong-weekly" => "Mahjong Rivals this week",
        "mahjong-daily" => "Mahjong Rivals today",
        _ => "",
    }
}

/// The unit a definition's values are in.
pub fn unit_of(definition: &Definition) -> Unit {
    definition.unit()
}

/// The boards `player` can see at `now`, with their value on each.
pub async fn list<S: Store + ?Sized>(
    store: &S,
    player: &str,
    now: DateTime<Utc>,
) -> Result<Catalogue, ServiceError> {
    let mut listed: Vec<(Listed, BoardRef, Reading)> = Vec::new();
    for def in &BOARDS {
        let period = def.period_at(now);
        listed.push((
            Listed {
                board: def.id.to_string(),
                title: built_in_title(def.id).to_string(),
                game: def.game.id().to_string(),
                defined: false,
                teams: false,
                state: "live",
                period: def.clock(&period, now),
                me: None,
                entry: None,
                prizes: Vec::new(),
            },
            def.in_period(&period),
            Reading::BuiltIn(def.order, def.unit),
        ));
    }
    for game in Game::ALL {
        let list = crate::engine::defined::in_force(store, game.id()).await?;
        let mut defined: Vec<&crate::engine::defined::Feeding> = list.iter().collect();
        defined.sort_by(|a, b| a.id.cmp(&b.id));
        for feeding in defined {
            // The version in force now (a change still to come waits for its period).
            let Some(d) = feeding.at(now) else {
                continue;
            };
            let (period, state) = match (&d.schedule, d.schedule.period_at(now)?) {
                (_, Some(p)) => (p, "live"),
                (Schedule::Window { start, .. }, None) if *start > now => {
                    (d.schedule.period_named("window")?, "coming")
                }
                // Its final standings stay listed for a while after it ended.
                (Schedule::Window { end, .. }, None) if now - *end < ENDED_LISTED => {
                    (d.schedule.period_named("window")?, "ended")
                }
                _ => continue,
            };
            // What the current period's values mean: the version in force when it began.
            let meaning = period
                .start
                .and_then(|s| feeding.at(s))
                .or_else(|| feeding.versions.first().map(|v| &v.definition))
                .unwrap_or(d);
            listed.push((
                Listed {
                    board: d.id.clone(),
                    title: d.title.clone(),
                    game: d.game.clone(),
                    defined: true,
                    teams: d.teams.is_some(),
                    state,
                    period: d.schedule.clock(&period, now),
                    me: None,
                    entry: (d.entry != Default::default()).then(|| EntryView {
                        join_required: d.entry.requires_join(),
                        joined: false,
                        max_entrants: d.entry.max_entrants,
                        countries: d.entry.countries.clone(),
                    }),
                    // The table in force now; an ended window's, the one it paid.
                    prizes: period
                        .end
                        .filter(|end| *end <= now)
                        .and_then(|end| feeding.at(end - chrono::Duration::milliseconds(1)))
                        .unwrap_or(d)
                        .prizes
                        .iter()
                        .map(|p| PrizeView {
                            from: p.from,
                            to: p.to,
                            points: p.points,
                            jokers: p.jokers,
                        })
                        .collect(),
                },
                BoardRef::new(d.id.clone(), period.id.clone()),
                Reading::Defined(meaning.fold(), unit_of(meaning)),
            ));
        }
    }
    // TM-7: on a team board the caller stands as their team now (one read of their
    // memberships, only when a team board is listed).
    let team = if listed.iter().any(|(l, _, _)| l.teams) {
        crate::engine::defined::memberships_of(store, player)
            .await?
            .current()
            .map(|m| podium_rules::team::team_key(&m.team_id))
    } else {
        None
    };
    let values = try_join_all(listed.iter().map(|(l, board, _)| {
        let who = if l.teams { team.as_deref() } else { Some(player) };
        async move {
            match who {
                Some(who) => crate::boards::entries::entries_of(store, board, &[who]).await,
                None => Ok(Vec::new()),
            }
        }
    }))
    .await?;
    // BD-8: whether the caller joined each board players enter by joining.
    let joined = try_join_all(listed.iter().map(|(l, _, _)| async move {
        match &l.entry {
            Some(e) if e.join_required => Ok::<_, ServiceError>(
                store
                    .get_state(player, &podium_rules::board::definition::join_state(&l.board))
                    .await?
                    .is_some(),
            ),
            _ => Ok(false),
        }
    }))
    .await?;
    let boards = listed
        .into_iter()
        .zip(values)
        .zip(joined)
        .map(|(((mut l, _, reading), found), joined)| {
            l.me = found.into_iter().flatten().next().map(|b| reading.mine(b.points));
            if let Some(e) = &mut l.entry {
                e.joined = joined;
            }
            l
        })
        .collect();
    Ok(Catalogue { as_of: now, boards })
}
