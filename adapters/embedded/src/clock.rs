//! [`EmbassyClock`]: the driver's [`Clock`] on `embassy_time`.

use mcp_sansio::time::Instant;
use mcp_sansio_driver::Clock;

/// A [`Clock`] on `embassy_time`: milliseconds since the clock was created.
///
/// The application links an embassy-time driver (its HAL's `time-driver-*` feature).
#[derive(Clone, Copy, Debug)]
pub struct EmbassyClock {
    epoch: embassy_time::Instant,
}

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

impl Default for EmbassyClock {
    fn default() -> Self {
        Self::new()
    }
}

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
