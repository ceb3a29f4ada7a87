//! Time as the caller tells it.
//!
//! The core never reads a clock. Every method that can change state takes `now: Instant`, and every
//! deadline the core computes comes back as an [`Instant`] the caller should wake up at. The epoch is
//! arbitrary (boot, process start, a test's zero): only differences matter.

use core::fmt;
use core::ops::{Add, Sub};

/// A point in time, in milliseconds since an arbitrary epoch chosen by the caller.
///
/// Monotonic as long as the caller feeds monotonic values; arithmetic saturates instead of wrapping or
/// panicking, so a clock that steps backwards produces zero durations, never a panic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Instant {
    millis: u64,
}

/// A span of time in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Duration {
    millis: u64,
}

impl Instant {
    /// The epoch itself.
    pub const ZERO: Instant = Instant { millis: 0 };

    /// The instant `millis` milliseconds after the epoch.
    pub const fn from_millis(millis: u64) -> Self {
        Instant { millis }
    }

    /// Milliseconds since the epoch.
    pub const fn as_millis(self) -> u64 {
        self.millis
    }

    /// Time elapsed from `earlier` to `self`; zero if `earlier` is later.
    pub const fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration { millis: self.millis.saturating_sub(earlier.millis) }
    }
}

impl Duration {
    /// No time at all.
    pub const ZERO: Duration = Duration { millis: 0 };

    /// A duration of `millis` milliseconds.
    pub const fn from_millis(millis: u64) -> Self {
        Duration { millis }
    }

    /// A duration of `secs` seconds (saturating).
    pub const fn from_secs(secs: u64) -> Self {
        Duration { millis: secs.saturating_mul(1000) }
    }

    /// Length in milliseconds.
    pub const fn as_millis(self) -> u64 {
        self.millis
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        Instant { millis: self.millis.saturating_add(rhs.millis) }
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_duration_since(rhs)
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, rhs: Duration) -> Duration {
        Duration { millis: self.millis.saturating_add(rhs.millis) }
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}s", self.millis / 1000, self.millis % 1000)
    }
}

#[cfg(feature = "std")]
impl Instant {
    /// Converts a `std` instant, measured from `epoch`, into a core instant.
    pub fn from_std(epoch: std::time::Instant, now: std::time::Instant) -> Self {
        let millis = now.saturating_duration_since(epoch).as_millis();
        Instant { millis: u64::try_from(millis).unwrap_or(u64::MAX) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates_instead_of_panicking() {
        let a = Instant::from_millis(5);
        let b = Instant::from_millis(9);
        assert_eq!(b - a, Duration::from_millis(4));
        assert_eq!(a - b, Duration::ZERO);
        assert_eq!(Instant::from_millis(u64::MAX) + Duration::from_millis(1), Instant::from_millis(u64::MAX));
        assert_eq!(Duration::from_secs(u64::MAX).as_millis(), u64::MAX);
    }

    #[test]
    fn durations_add_saturating() {
        assert_eq!(Duration::from_millis(3) + Duration::from_millis(4), Duration::from_millis(7));
        assert_eq!(Duration::from_millis(u64::MAX) + Duration::from_millis(1), Duration::from_millis(u64::MAX));
    }

    #[cfg(feature = "std")]
    #[test]
    fn std_instants_count_from_their_epoch() {
        let epoch = std::time::Instant::now();
        let later = epoch + std::time::Duration::from_millis(1_500);
        assert_eq!(Instant::from_std(epoch, later), Instant::from_millis(1_500));
        assert_eq!(Instant::from_std(later, epoch), Instant::ZERO);
    }

    #[test]
    fn duration_displays_as_seconds() {
        extern crate std;
        use std::string::ToString;
        assert_eq!(Duration::from_millis(12_345).to_string(), "12.345s");
    }
}
