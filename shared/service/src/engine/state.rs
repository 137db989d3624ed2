//! Players' stored state bodies (JSON), read with a default when absent.

use crate::engine::source::ReadState;
use crate::error::ServiceError;

/// A state item's body read for a settlement, or its default when there is none.
pub(crate) fn state_body<T: Default + serde::de::DeserializeOwned>(
    read: &ReadState,
    player: &str,
    name: &str,
) -> Result<T, ServiceError> {
    match read.state(player, name) {
        None => Ok(T::default()),
        Some(s) => serde_json::from_str(&s.body)
            .map_err(|e| ServiceError::Store(podium_store::StoreError::corrupt(format!("state {name}"), e))),
    }
}
