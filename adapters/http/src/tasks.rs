//! The engines' task tables ([`HttpConfig::tasks`](crate::HttpConfig::tasks)): the stateless
//! engine's, and each legacy session engine's ([`TaskLimits::session_tasks`](crate::TaskLimits)).

use mcp_sansio::server::tasks::TaskTable;
use mcp_sansio::time::{Duration, Instant};

/// The stateless engine's task table, its wall clock started now (`Instant` zero).
pub(crate) fn task_table(limits: crate::TaskLimits) -> TaskTable<'static> {
    table(limits, limits.max_tasks, Instant::from_millis(0))
}

/// A legacy session engine's task table, made at `now`; `None` when sessions have no tasks.
pub(crate) fn session_task_table(limits: crate::TaskLimits, now: Instant) -> Option<TaskTable<'static>> {
    (limits.session_tasks > 0).then(|| table(limits, limits.session_tasks, now))
}

fn table(limits: crate::TaskLimits, tasks: usize, now: Instant) -> TaskTable<'static> {
    let millis = |d: std::time::Duration| Duration::from_millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    mcp_sansio_driver::task_table(tasks, limits.task_bytes, millis(limits.ttl), millis(limits.poll_interval), now)
}
