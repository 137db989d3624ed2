//! `delete-player`: deletes a player (GM-6, account removal) when an operator invokes
//! it with IAM (it has no events). Input `{"player_id": "..."}`; answer the
//! [`DeletionReport`] as JSON (`already_deleted: true` when run again). The deletion
//! itself lives in [`podium_service::operators::deletion`]; an invocation that fails or times out
//! is finished by invoking it again.

pub use podium_service::operators::deletion::DeletionReport;
use podium_service::ServiceError;
use podium_store::{ErasureStore, ItemStore, SettleStore};
use serde::Deserialize;

/// The function's input.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteRequest {
    /// The player's id (the JWT `sub` the API knows them by).
    pub player_id: String,
    /// Delete (block) the id even when nothing is stored under it; by default such an
    /// id is refused as not found, nothing written (a mistyped id stays usable).
    #[serde(default)]
    pub even_if_unknown: bool,
}

/// Deletes `request.player_id` now. Errors: [`ServiceError::BadRequest`] for an id
/// that is not a player id; [`ServiceError::NotFound`] for an id with nothing stored
/// (unless `even_if_unknown`); store failures (invoke again: it resumes).
pub async fn handle<S: SettleStore + ItemStore + ErasureStore + ?Sized>(
    store: &S,
    request: DeleteRequest,
) -> Result<DeletionReport, ServiceError> {
    podium_service::operators::deletion::delete_known_player(
        store,
        &request.player_id,
        chrono::Utc::now(),
        request.even_if_unknown,
    )
    .await
}
