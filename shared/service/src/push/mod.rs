//! The live feed (LIVE-1 … LIVE-4, docs/rules/live.md): who is connected and what each
//! connection watches ([`connections`], [`watchers`]), what a connected client may
//! send ([`session`]), and what is pushed to it from the table's change stream
//! ([`feed`]) through a [`gateway::Gateway`] within each connection's rate cap
//! ([`gateway::Pusher`]). The protocol and its limits are pure rules
//! ([`podium_rules::push`]). It uses the boards room (a watched board must exist, a
//! snapshot pointer's pages) and the players room (an inbox message as it is shown);
//! the WebSocket entry points (`podium serve`'s `/v1/live`, the `live` function) and
//! the stream's readers use it.

pub mod connection;
pub mod connections;
pub mod feed;
pub mod gateway;
pub mod session;
pub mod watchers;
