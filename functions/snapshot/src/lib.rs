//! `snapshot`: runs the scheduled snapshot jobs (LB-5) on EventBridge Scheduler
//! ticks; the jobs themselves live in [`podium_service::jobs`].

pub use podium_service::budget::Budget;
pub use podium_service::jobs::{
    handle, handle_within, BoardRun, Job, ScheduledRun, TickReport, TickSettings,
};
