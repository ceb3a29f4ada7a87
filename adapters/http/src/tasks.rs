//! The stateless engine's task table ([`HttpConfig::tasks`](crate::HttpConfig::tasks)).

use mcp_sansio::time::{Duration, Instant};

/// The stateless engine's task table, its wall clock started now (`Instant` zero).
pub(crate) fn task_table(limits: crate::TaskLimits) -> mcp_sansio::server::tasks::TaskTable<'static> {
    let millis = |d: std::time::Duration| Duration::from_millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    mcp_sansio_driver::task_table(
        limits.max_tasks,
        limits.task_bytes,
        millis(limits.ttl),
        millis(limits.poll_interval),
        Instant::from_millis(0),
    )
}
