//! The live feed (LIVE-1 … LIVE-4, docs/rules/live.md): who is connected and what each
//! connection watches. The protocol and its limits are pure rules
//! ([`podium_rules::push`]); this room keeps the connections in the store. It uses the
//! boards room (a watched board must exist) and the store; the HTTP and WebSocket
//! entry points and the jobs that push use it.

pub mod connections;
