//! Cross-crate test support: record builders, a DynamoDB Local fixture, and the
//! store contract suite that both stores must pass ([`contract`]).

pub mod billing;
pub mod caching;
pub mod card_changes;
pub mod catch_up;
pub mod commit_items;
pub mod contract;
pub mod counting;
pub mod deletion;
pub mod dots_and_boxes;
pub mod dynamodb_faults;
pub mod export_scope;
pub mod faults;
pub mod fixtures;
pub mod hidden_views;
pub mod history;
pub mod job_steps;
pub mod leagues;
pub mod mahjong;
pub mod messages;
pub mod moderation;
pub mod moderation_messages;
pub mod operator;
pub mod overtaken;
pub mod performance;
pub mod period_close;
pub mod point_history;
pub mod profiles;
pub mod publication;
pub mod redelivery;
pub mod reserved_ids;
pub mod review;
pub mod rewards;
pub mod standing;
pub mod tournaments;
pub mod unknown_boards;
