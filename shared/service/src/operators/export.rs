//! A player's data export (GDPR Art. 15 and 20): one JSON document of everything podium
//! stores about a player, for `podium export-player` and the operator route.
//!
//! It holds what concerns the player, not other players' data (GDPR Art. 15(4), 20(4)):
//! their own rows and numbers whole, every other player only as the role they played
//! in each document ("opponent", "passer", "cohort member"), never their id, balance,
//! moves or values ([`crate::operators::concerning`]). The friend list is the
//! player's own, as they entered it and read it back in the app (PF-4), and is kept.
//!
//! Read from: the player's partition (balances, period entries, ledger, claims, state
//! items such as the inbox, leagues and streaks, references), their profile and friend
//! list, their `overtaken` follows, the stored results their ledger and references name
//! (matches, Arenas, rewards), their held records and the audit entries about them.
//! Cost: one Query of the partition, one GetItem per result, per board followable, and
//! a Query each for held records and the audit trail.

use chrono::{DateTime, Utc};
use podium_rules::settlement::LedgerEntry;
use podium_store::{ErasureStore, ItemStore, SettleStore};
use serde::Serialize;

use crate::error::ServiceError;
use crate::moderation::audit::{self, AuditEntry, Trail};
use crate::moderation::review::{self, HeldRecord};
use crate::operators::concerning::Subject;

/// A balance in the export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ExportBalance {
    pub game: String,
    /// Points.
    pub points: i64,
    /// When the value was reached (milliseconds since the epoch, UTC).
    pub reached_at_ms: i64,
}

/// A period-board entry in the export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ExportEntry {
    pub board: String,
    pub period: String,
    /// The entry's value (points, or milliseconds on a level's time ranking).
    pub value: i64,
}

/// A stored item in the export: its key within the kind, and its body (JSON) as it
/// concerns the player: other players as their roles (`{"role": "opponent"}`), their
/// ids in the key as `another player`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ExportItem {
    pub key: String,
    /// Any JSON value (an object, a list, …).
    pub body: serde_json::Value,
}

/// Everything podium stores about one player, as it concerns them (GDPR Art. 15(4),
/// 20(4)): wherever another player stands, their role in that document instead.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PlayerExport {
    pub player_id: String,
    /// When the export was read (UTC).
    pub generated_at: DateTime<Utc>,
    /// The profile as stored (PF-1 … PF-3), if any (a JSON object, or null).
    pub profile: Option<serde_json::Value>,
    /// The friend list (PF-4).
    pub friends: Vec<String>,
    pub balances: Vec<ExportBalance>,
    /// Every ledger entry, all games, in settlement order per game (GM-4).
    #[schema(value_type = Vec<Object>)]
    pub ledger: Vec<LedgerEntry>,
    pub entries: Vec<ExportEntry>,
    /// Once-a-day claims (`{game}/{kind}/{day}`).
    pub claims: Vec<ExportItem>,
    /// State items by name: the inbox, league memberships, streaks, inventories.
    pub states: Vec<ExportItem>,
    /// Boards whose `overtaken` messages the player follows.
    pub follows: Vec<String>,
    /// The stored results of the sources the ledger and references name
    /// (`{kind}/{id}`): matches, Arenas, tables, cohorts, messages, rewards,
    /// corrections. In each, the player's own row whole; every other player's row or
    /// pair `{"role": R}` and their id `R` (`opponent`, `passer`, `cohort member`,
    /// numbered from 1 when the document names several); another player's item that
    /// names the player (an `overtaken` message to them) only its kind, board, period
    /// and instant and the player's own rows (`about_you`).
    pub results: Vec<ExportItem>,
    /// Items elsewhere that name the player (GM-6 references); another player's item
    /// by its kind only (`owner` and key parts: `another player`).
    #[schema(value_type = Vec<Object>)]
    pub references: Vec<podium_store::Named>,
    /// Records naming the player held for review (OP-2): the other players they name
    /// as their roles, in `players` and in the record as sent.
    pub held: Vec<HeldRecord>,
    /// Operator actions about the player (OP-5), newest first: the other players an
    /// entry concerns as their roles.
    pub audit: Vec<AuditEntry>,
    /// Their suspension (OP-4), while suspended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspension: Option<crate::moderation::suspensions::Suspension>,
}

impl PlayerExport {
    /// How many stored items of the player's own partition the export lists (each
    /// balance, period entry, ledger entry, claim, state item and reference once).
    pub fn partition_items(&self) -> usize {
        self.balances.len()
            + self.entries.len()
            + self.ledger.len()
            + self.claims.len()
            + self.states.len()
            + self.references.len()
    }
}

fn json_of(what: &str, text: &str) -> Result<serde_json::Value, ServiceError> {
    serde_json::from_str(text).map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(what, e)))
}

/// Reads everything stored about `player_id` at `now`. Errors: [`ServiceError::BadRequest`]
/// (not a player id), [`ServiceError::NotFound`] (nothing stored about them), the
/// transient store errors.
pub async fn export_player<S: SettleStore + ItemStore + ErasureStore + ?Sized>(
    store: &S,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<PlayerExport, ServiceError> {
    // GM-5, GM-6: internal owners and pseudonyms are no account to export.
    podium_rules::record::ids::check_player_id("player_id", player_id)?;
    let h = store.holdings(player_id).await?;
    // The balances and the board entries, all at once (the result items below are
    // read in the ledger's order: each read decides what the next one skips).
    let balances = futures::future::try_join_all(h.balances.iter().map(|game| async move {
        let found = store.get_balances(*game, &[player_id]).await?;
        Ok::<_, ServiceError>(found.into_iter().find(|b| b.version > 0).map(|b| ExportBalance {
            game: game.id().to_string(),
            points: b.points,
            reached_at_ms: b.reached_at_ms,
        }))
    }));
    let entries = futures::future::try_join_all(h.entries.iter().map(|board| async move {
        let found = store.get_entry(board, player_id).await?;
        Ok::<_, ServiceError>(found.map(|e| ExportEntry {
            board: board.board.clone(),
            period: board.period.clone(),
            value: e.points,
        }))
    }));
    let (balances, entries) = futures::try_join!(balances, entries)?;
    let balances: Vec<ExportBalance> = balances.into_iter().flatten().collect();
    let entries: Vec<ExportEntry> = entries.into_iter().flatten().collect();
    // The stored results, as stored: (kind, id, body).
    let mut results: Vec<(String, String, serde_json::Value)> = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for e in &h.ledger {
        for kind in crate::operators::deletion::candidate_kinds(e) {
            if seen.contains(&(kind.clone(), e.source_id.clone())) {
                continue;
            }
            if let Some((key, stored)) =
                crate::operators::deletion::find_source(store, &kind, &e.source_id, player_id).await?
            {
                seen.push((kind, e.source_id.clone()));
                let body = json_of(&key.id, &stored.result)?;
                results.push((key.kind, key.id, body));
                break;
            }
        }
    }
    for r in &h.refs {
        if let podium_store::Named::Source { kind, id } = r {
            if !seen.contains(&(kind.clone(), id.clone())) {
                if let Some(stored) = store.get_source(&podium_store::SourceKey::new(kind, id)).await? {
                    seen.push((kind.clone(), id.clone()));
                    results.push((kind.clone(), id.clone(), json_of(id, &stored.result)?));
                }
            }
        }
    }
    let items = |list: &[(String, String)]| -> Vec<ExportItem> {
        list.iter()
            .map(|(k, b)| ExportItem {
                key: k.clone(),
                body: json_of(k, b).unwrap_or_else(|_| serde_json::Value::String(b.clone())),
            })
            .collect()
    };
    let (mut claims, mut states) = (items(&h.claim_items), items(&h.state_items));
    let profile = store
        .get_item(&crate::profiles::profile_key(player_id), true)
        .await?
        .map(|i| serde_json::from_slice(&i.body).unwrap_or(serde_json::Value::Null));
    let friends = crate::profiles::friends::get(store, player_id).await?.friends;
    let follows = crate::players::overtaken::following(store, player_id)
        .await?
        .into_iter()
        .map(str::to_string)
        .collect();
    let held = review::of_player(store, player_id).await?;
    let mut audit: Vec<AuditEntry> = Vec::new();
    let mut before: Option<String> = None;
    loop {
        let (page, next) = audit::read(
            store,
            &Trail::Player(player_id.to_string()),
            before.as_deref(),
            audit::MAX_PAGE,
        )
        .await?;
        audit.extend(page);
        match next {
            Some(n) => before = Some(n),
            None => break,
        }
    }
    let suspension = match crate::moderation::suspensions::of_player(store, player_id).await {
        Ok(s) => s,
        Err(ServiceError::NotFound(_)) => None,
        Err(e) => return Err(e),
    };
    // GDPR Art. 15(4), 20(4): every other player the documents name, known first, so
    // that each document, key and text is rid of them.
    let mut subject = Subject::new(player_id);
    for (_, _, body) in &results {
        subject.learn(body, body.is_array());
    }
    for item in claims.iter().chain(&states) {
        subject.learn(&item.body, item.body.is_array());
    }
    for r in &h.refs {
        if let podium_store::Named::State { owner, .. } = r {
            subject.learn_id(owner);
        }
    }
    for hr in &held {
        hr.players.iter().for_each(|p| subject.learn_id(p));
        if let Ok(record) = serde_json::from_str::<serde_json::Value>(&hr.record) {
            subject.learn(&record, false);
        }
    }
    for e in &audit {
        e.concerned().into_iter().for_each(|p| subject.learn_id(p));
    }
    let results = results
        .into_iter()
        .map(|(kind, id, body)| {
            let (key, body) = subject.result(&kind, &id, body);
            ExportItem { key, body }
        })
        .collect();
    for item in claims.iter_mut().chain(states.iter_mut()) {
        subject.state(&mut item.body);
        item.key = subject.scrub(&item.key);
    }
    let export = PlayerExport {
        player_id: player_id.to_string(),
        generated_at: now,
        profile,
        friends,
        balances,
        ledger: h.ledger.iter().map(|e| subject.ledger_entry(e.clone())).collect(),
        entries,
        claims,
        states,
        follows,
        results,
        references: h.refs.iter().map(|r| subject.reference(r.clone())).collect(),
        held: held
            .into_iter()
            .map(|hr| {
                let own = hr.cause.cause != review::SUSPENDED || suspended_at(&audit, player_id, hr.held_at);
                subject.held(hr, own)
            })
            .collect(),
        audit: audit.into_iter().map(|e| subject.audit_entry(e)).collect(),
        suspension,
    };
    if export.partition_items() == 0
        && export.profile.is_none()
        && export.held.is_empty()
        && export.audit.is_empty()
    {
        return Err(ServiceError::NotFound(
            "nothing is stored about this player".into(),
        ));
    }
    Ok(export)
}

/// Whether `player_id` was suspended at `at`, by their own trail (`audit`, OP-5): the
/// last suspension or restore of theirs before `at` is a suspension. A record held
/// then was held for them; one held while only another player it names was
/// suspended tells of that player's moderation, not theirs.
fn suspended_at(audit: &[AuditEntry], player_id: &str, at: chrono::DateTime<chrono::Utc>) -> bool {
    use crate::moderation::audit::action;
    audit
        .iter()
        .filter(|e| e.at <= at && e.player_id.as_deref() == Some(player_id))
        .filter(|e| e.action == action::SUSPEND || e.action == action::RESTORE)
        .max_by_key(|e| e.at)
        .is_some_and(|e| e.action == action::SUSPEND)
}
