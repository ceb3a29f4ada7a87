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
    /// Must be cancel-safe: the driver drops this future whenever input or a completion arrives
    /// first.
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

/// A [`Clock`] on `embassy_time`: milliseconds since the clock was created.
///
/// The application links an embassy-time driver (its HAL's `time-driver-*` feature).
#[cfg(feature = "embassy-time")]
#[derive(Clone, Copy, Debug)]
pub struct EmbassyClock {
    epoch: embassy_time::Instant,
}

#[cfg(feature = "embassy-time")]
impl EmbassyClock {
    /// A clock whose epoch is now.
    pub fn new() -> Self {
        EmbassyClock { epoch: embassy_time::Instant::now() }
    }

    /// A clock whose epoch is `epoch` (for example `Instant::from_ticks(0)`: boot).
    pub const fn with_epoch(epoch: embassy_time::Instant) -> Self {
        EmbassyClock { epoch }
    }
}

#[cfg(feature = "embassy-time")]
impl Default for EmbassyClock {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "embassy-time")]
impl Clock for EmbassyClock {
    fn now(&self) -> Instant {
        Instant::from_millis(embassy_time::Instant::now().saturating_duration_since(self.epoch).as_millis())
    }

    async fn wait_until(&mut self, deadline: Instant) {
        // Round up so that `now()` (which floors to milliseconds) has reached `deadline` on wake-up.
        let wake_at = embassy_time::Duration::try_from_millis(deadline.as_millis())
            .and_then(|since_epoch| self.epoch.checked_add(since_epoch));
        match wake_at {
            Some(at) => embassy_time::Timer::at(at).await,
            // Beyond what embassy-time can represent: never.
            None => core::future::pending().await,
        }
    }
}
