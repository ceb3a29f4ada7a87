//! A server's task table on a host: ids from the operating system's randomness, times from the
//! system's wall clock (the core's [`TaskTable`] takes both from its caller).

use mcp_sansio::server::tasks::TaskTable;
use mcp_sansio::time::{Duration, Instant};

/// A table of `max_tasks` tasks of up to `task_bytes` bytes each ([`TaskTable::owned`]), ids from
/// [`random_task_id`], kept `ttl` and polled every `poll_interval`; its wall clock is the
/// system's now at `now` (the engine's time: a driver's clock starts at zero when it starts
/// serving).
pub fn task_table(
    max_tasks: usize,
    task_bytes: usize,
    ttl: Duration,
    poll_interval: Duration,
    now: Instant,
) -> TaskTable<'static> {
    let unix_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
    TaskTable::owned(max_tasks, task_bytes, random_task_id)
        .with_wall_clock(now, u64::try_from(unix_ms).unwrap_or(u64::MAX))
        .with_ttl(ttl)
        .with_poll_interval(poll_interval)
}

/// A task id: 128 random bits from the operating system (a task id is all a client needs to read
/// or cancel a task). Without randomness, a counter and the time: unique, but guessable (and a
/// warning on stderr, once).
pub fn random_task_id(id: &mut [u8; 16]) {
    if getrandom::fill(id).is_err() {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        id[..8].copy_from_slice(&n.to_le_bytes());
        id[8..].copy_from_slice(&u64::try_from(nanos % u128::from(u64::MAX)).unwrap_or(0).to_le_bytes());
        if n == 0 {
            std::eprintln!("mcp-sansio: no random bytes for task ids: they are guessable");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_differ_and_the_table_starts_empty() {
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        random_task_id(&mut a);
        random_task_id(&mut b);
        assert_ne!(a, b);
        let mut table = task_table(4, 1024, Duration::from_secs(60), Duration::from_secs(1), Instant::from_millis(0));
        assert!(table.is_empty());
    }
}
