//! The service crate's one error type. Entry points map it to HTTP statuses,
//! dead letters or batch-item failures; its `Display` never carries internal detail
//! except for [`ServiceError::Store`], which is for logs only.

use podium_rules::RuleError;
use podium_store::StoreError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ServiceError {
    /// The input breaks a rule (GM-5): permanent; retrying cannot help. Displays as
    /// `field (rule): message`.
    #[error(transparent)]
    Invalid(#[from] RuleError),
    /// The same source id (match id, transaction id) was settled before with
    /// different content (GM-3): permanent. Displays when it was settled and the first
    /// field that differs, when known ([`crate::engine::fingerprint`]).
    #[error("{field} (GM-3): conflict: `{id}` was already settled{} with different content{}",
        .settled_at.as_ref().map(|t| format!(" at {t}")).unwrap_or_default(),
        .differs.as_ref().map(|f| format!(": {f} differs (a settled record is final: another match needs its own id)")).unwrap_or_default())]
    Conflict {
        field: &'static str,
        id: String,
        /// When the settled record was settled (RFC 3339, UTC), when known.
        settled_at: Option<String>,
        /// The first field that differs from the settled record (`` `players[1]` ``).
        differs: Option<String>,
    },
    /// The action conflicts with the state its target is in, under `rule` (a restore
    /// past its window, a suspension a restore lifted while it was applied; OP-4):
    /// HTTP 409. Displays as `field (rule): conflict: message`.
    #[error("{field} ({rule}): conflict: {message}")]
    StateConflict {
        field: &'static str,
        rule: &'static str,
        message: String,
    },
    /// A query parameter is malformed (HTTP 400).
    #[error("{field}: {message}")]
    BadRequest { field: &'static str, message: String },
    /// The request's own authentication failed: a signature that does not verify, an
    /// unknown key, an ad unit not podium's (HTTP 403).
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// No verified identity on the request (HTTP 401).
    #[error("unauthenticated: no verified player identity")]
    Unauthenticated,
    /// The route exists but not for this HTTP method (HTTP 405).
    #[error("method not allowed: this route takes {allowed}")]
    MethodNotAllowed { allowed: &'static str },
    /// A player the source writes or names is suspended (OP-4): nothing was written.
    /// A record from the game servers is held until the player is restored; a caller
    /// who is suspended is refused (HTTP 403). The id is not displayed.
    #[error("suspended (OP-4): a player this concerns is suspended")]
    Suspended { player: String },
    /// A result's value for a defined board is outside the board's score range (BD-7):
    /// nothing was written; a record from the game servers is held for review (OP-2)
    /// and counts once an operator approves it (OP-3). HTTP 409.
    #[error("held for review (BD-7): a value of {value} for board {board} is outside its score range [{}, {}]", range[0], range[1])]
    OutOfRange {
        board: String,
        value: i64,
        range: [i64; 2],
    },
    /// Nothing to show the caller (HTTP 404).
    #[error("not found: {0}")]
    NotFound(String),
    /// The request's `field` (its body) is larger than the route reads, `limit`
    /// bytes (HTTP 413); nothing was read or written.
    #[error("{field}: larger than {limit} bytes")]
    TooLarge { field: &'static str, limit: usize },
    /// Too many concurrent writers on the same balances; transient.
    #[error("contended: gave up after {attempts} attempts")]
    Contended { attempts: u32 },
    /// A push to a live connection (LIVE-3) could not be handed over: the gateway did
    /// not answer or refused; the push is dropped (at most once).
    #[error("push: {0}")]
    Push(String),
    /// The store failed; transient.
    #[error("store: {0}")]
    Store(#[from] StoreError),
}

impl ServiceError {
    /// For logs: the refusal without the record's values (field and rule, or the
    /// kind), so that no player data reaches the logs.
    pub fn log_reason(&self) -> String {
        match self {
            ServiceError::Invalid(e) => format!("{} ({})", e.field, e.rule),
            other => other.kind().to_string(),
        }
    }

    /// True when retrying the same input can never succeed (refused or conflicting record).
    pub fn is_permanent(&self) -> bool {
        matches!(self, ServiceError::Invalid(_) | ServiceError::Conflict { .. })
    }

    /// True when the store did not answer (timeouts, throttling, its own failures):
    /// retrying later may succeed.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, ServiceError::Store(e) if e.is_transient())
    }

    /// A stable machine-readable name, for responses and metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            ServiceError::Invalid(_) => "invalid",
            ServiceError::Conflict { .. } | ServiceError::StateConflict { .. } => "conflict",
            ServiceError::BadRequest { .. } => "bad_request",
            ServiceError::Unauthenticated => "unauthenticated",
            ServiceError::Forbidden(_) => "forbidden",
            ServiceError::MethodNotAllowed { .. } => "method_not_allowed",
            ServiceError::NotFound(_) => "not_found",
            ServiceError::TooLarge { .. } => "too_large",
            ServiceError::Suspended { .. } => "suspended",
            ServiceError::OutOfRange { .. } => "held",
            ServiceError::Contended { .. } => "contended",
            ServiceError::Push(_) => "push",
            ServiceError::Store(StoreError::Unavailable { .. }) => "unavailable",
            ServiceError::Store(StoreError::OutOfLimits(_)) => "bad_request",
            ServiceError::Store(_) => "store",
        }
    }
}
