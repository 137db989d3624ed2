//! The DynamoDB store (production), on one table.
//!
//! | item | partition key `pk` | sort key `sk` | other attributes |
//! |---|---|---|---|
//! | source record | `SOURCE#{kind}#{id}` | `RESULT` | `content_hash`, `attempt`, `result` (JSON), `fields` (a record's settlement instant and field fingerprints, for conflicts); a two-player record's ledger entries: `la_pk`, `la_at`, `la_entry`, `lb_pk`, `lb_at`, `lb_entry` |
//! | balance | `PLAYER#{player id}` | `BALANCE#{game}` | `points`, `version`, `reached_at_ms`, `hist`; `board_shard`, `board_key` on a game with a balance board |
//! | period entry | `PLAYER#{player id}` | `BOARD#{board}@{period}` | as a balance, with `board_shard`, `board_key` |
//! | claim | `PLAYER#{player id}` | `CLAIM#{game}#{kind}#{day}` | `body` (JSON) |
//! | state | `PLAYER#{player id}` | `STATE#{name}` | `body` (JSON), `version` |
//! | ledger entry (a source of one player, or of three or more) | `PLAYER#{player id}` | `LEDGER#{game}#{source}#{source id}` | `entry` (JSON), `at_ms`, `applied`, `ledger_at` |
//! | reference (GM-6) | `PLAYER#{player id}` | `REF#{32 hex digits of the named item's hash}` | `body`: the item that names the player ([`Named`], JSON) |
//! | opaque item | any | any | `body` (binary), `version`, `expires_at` (TTL) |
//!
//! GSI `board`: partition key `board_shard` (`{board}@{period}#{00 … 31}`, e.g.
//! `seega@all#07`; [`BOARD_SHARDS`]), sort key `board_key` ([`BoardKey::encode`]),
//! keys only. A board page merges one Query a shard. GSI `ledger` ([`LEDGER_INDEX`]):
//! partition key `pk`, sort key `ledger_at` (`{game}#{instant ms, 15 digits}#{source}#{source id}`),
//! projecting `entry`: a player's point history, newest first. GSIs `ledger_a` and
//! `ledger_b` ([`CARRIED_LEDGER`]): the same for the two entries a source record of two
//! players carries (partition key `la_pk`/`lb_pk`, sort key `la_at`/`lb_at`, projecting
//! `la_entry`/`lb_entry`); a page of point history merges one Query of each of the three
//! GSIs. `hist` is the entry's recent
//! keys ([`KeyHistory::encode`](podium_rules::history::KeyHistory::encode)).
//!
//! Every request asks for `ReturnConsumedCapacity` and adds it to [`Usage`]. Every
//! argument is checked against DynamoDB's limits before a request is sent (a limit
//! of 0 reads nothing; keys over the size limits are [`StoreError::OutOfLimits`]),
//! so no input reaches DynamoDB's validation. Requests time out ([`Timeouts`]).

mod boards;
mod client;
mod erasure;
mod errors;
pub mod heat;
mod items;
mod kept;
mod ledger;
mod load;
mod opaque;
mod pricing;
mod store;
pub mod stream;
mod table;
mod token;
mod transactions;
mod usage;

pub use client::{client, Timeouts};
pub use heat::{Heat, Hot};
pub use pricing::{PricedWrite, Write};
pub use store::{CarriedLedger, DynamoStore, BOARD_INDEX, CARRIED_LEDGER, LEDGER_INDEX, TTL_ATTRIBUTE};
pub use usage::{Usage, UsageSnapshot};
