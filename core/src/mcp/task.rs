//! The vocabulary of tasks: the 2026-07-28 extension `io.modelcontextprotocol/tasks` (SEP-2663).
//!
//! A tool call that takes long can be answered with a *task* (`resultType: "task"`) instead of its
//! result; the client then polls `tasks/get`, answers the task's questions with `tasks/update` and
//! may `tasks/cancel` it. The server machinery is `server::tasks` (feature `tasks`).

use core::fmt;

/// The extension's identifier, under `capabilities.extensions` of both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether a tool runs as a task: a server-side property of the tool (the 2026-07-28 wire does not
/// carry it; 2025-11-25 lists it as `execution.taskSupport`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client declared the extension, a plain call otherwise.
    Optional,
    /// Only as a task: a client that did not declare the extension gets `-32021` before the
    /// handler runs.
    Required,
}

impl TaskSupport {
    /// The 2025-11-25 wire name (`execution.taskSupport`).
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// A task's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client's answers (`inputRequests`, answered with `tasks/update`).
    InputRequired,
    /// Done, with a result (a tool result with `isError: true` included).
    Completed,
    /// Ended by a JSON-RPC error.
    Failed,
    /// Cancelled by the client.
    Cancelled,
}

impl TaskStatus {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// The status a wire name names; `None` for any other string.
    pub fn from_wire(name: &str) -> Option<Self> {
        [
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ]
        .into_iter()
        .find(|status| status.as_str() == name)
    }

    /// Completed, failed or cancelled: the status never changes again.
    pub const fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Writes the `data` of a `-32021` for the tasks extension:
/// `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`.
#[cfg(feature = "tasks")]
pub(crate) fn write_requires_tasks(w: &mut crate::json::JsonWriter<'_>) {
    w.raw(b"{\"requiredCapabilities\":{\"extensions\":{\"");
    w.raw(TASKS_EXTENSION.as_bytes());
    w.raw(b"\":{}}}}");
}

/// Writes `unix_ms` (milliseconds since 1970-01-01 UTC) as an ISO 8601 / RFC 3339 timestamp,
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 bytes).
pub fn write_timestamp(unix_ms: u64, out: &mut [u8; 24]) {
    let secs = unix_ms / 1000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = (yoe + era * 400 + u64::from(month <= 2)) % 10_000;
    let fields: [(u64, usize, usize); 7] = [
        (year, 0, 4),
        (month, 5, 2),
        (day, 8, 2),
        (rem / 3600, 11, 2),
        (rem % 3600 / 60, 14, 2),
        (rem % 60, 17, 2),
        (unix_ms % 1000, 20, 3),
    ];
    *out = *b"0000-00-00T00:00:00.000Z";
    for (mut value, at, len) in fields {
        for i in (at..at + len).rev() {
            out[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(ms: u64) -> std::string::String {
        let mut out = [0u8; 24];
        write_timestamp(ms, &mut out);
        std::string::String::from_utf8(out.to_vec()).unwrap()
    }

    #[test]
    fn timestamps_are_rfc_3339_in_utc() {
        assert_eq!(stamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(stamp(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(stamp(1_796_301_296_789), "2026-12-03T12:34:56.789Z");
        assert_eq!(stamp(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
    }

    #[test]
    fn statuses_and_support_have_their_wire_names() {
        assert!(TaskStatus::Cancelled.is_terminal() && !TaskStatus::InputRequired.is_terminal());
        assert_eq!(TaskStatus::InputRequired.as_str(), "input_required");
        assert_eq!(TaskStatus::from_wire("input_required"), Some(TaskStatus::InputRequired));
        assert_eq!(TaskStatus::from_wire("Working"), None);
        assert_eq!(TaskSupport::default(), TaskSupport::Forbidden);
        assert_eq!(TaskSupport::Required.as_str(), "required");
    }
}
