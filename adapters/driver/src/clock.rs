//! The timer abstraction: what time it is, and waiting for a deadline.

use mcp_sansio::time::Instant;

/// A monotonic clock that can wait: the only source of time the driver uses.
///
/// The epoch is the implementation's choice (boot, the start of the run); the core only compares
/// instants. Instants must not go backwards.
pub trait Clock {
    /// The current time.
    fn now(&self) -> Instant;

    /// Completes once [`Clock::now`] has reached `deadline` (at once if it has already).
    ///
    /// Must be cancel-safe: the driver drops this future whenever input, output or a completion
    /// comes first.
    #[allow(async_fn_in_trait)] // Single-threaded executors are the target; no `Send` bound wanted.
    async fn wait_until(&mut self, deadline: Instant);
}

impl<K: Clock + ?Sized> Clock for &mut K {
    fn now(&self) -> Instant {
        (**self).now()
    }

    async fn wait_until(&mut self, deadline: Instant) {
        (**self).wait_until(deadline).await
    }
}
