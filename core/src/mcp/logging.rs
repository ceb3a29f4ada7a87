//! Log levels (syslog severities, RFC 5424), as `logging/setLevel`, `notifications/message` and the
//! 2026-07-28 `io.modelcontextprotocol/logLevel` use them.

/// A log message's severity, least severe first (so levels compare as severities do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The wire name, e.g. `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }

    /// Parses a wire name.
    pub fn from_wire(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|level| level.as_str() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_round_trip_and_order_by_severity() {
        for level in LoggingLevel::ALL {
            assert_eq!(LoggingLevel::from_wire(level.as_str()), Some(level));
        }
        assert!(LoggingLevel::ALL.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(LoggingLevel::from_wire("WARNING"), None);
    }
}
