//! [`Context`]: what a tool function can do besides returning its output — report progress and
//! log about its request, each written ahead of the answer on the request's stream.

use std::fmt;
use std::sync::Arc;

use mcp_sansio::endpoint::SendError;
use mcp_sansio::mcp::LoggingLevel;
use mcp_sansio::server::Deferred;
use mcp_sansio_driver::{JobSender, JobStatus};

use crate::RouterServer;

/// The request a tool function serves: its progress and log messages. Cheap to clone; the
/// messages go through the driver's job queue, in order, before the answer.
#[derive(Clone)]
pub struct Context {
    deferred: Arc<Deferred>,
    jobs: JobSender<RouterServer>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context").field("request", &self.deferred.key()).finish_non_exhaustive()
    }
}

impl Context {
    pub(crate) fn new(deferred: Arc<Deferred>, jobs: JobSender<RouterServer>) -> Self {
        Context { deferred, jobs }
    }

    /// Sends `notifications/progress` for the request if the client asked for progress (a
    /// `progressToken`); otherwise nothing. `progress` must grow from one report to the next (a
    /// report that does not is dropped, as the spec requires).
    pub fn progress(&self, progress: u64, total: Option<u64>, message: Option<&str>) {
        let message = message.map(str::to_owned);
        self.note(move |server, deferred| server.progress(deferred, progress, total, message.as_deref()));
    }

    /// Sends `notifications/message` about the request at `level`, if the client's log level (the
    /// legacy session's `logging/setLevel`, or the request's own in 2026-07-28) lets it through.
    pub fn log(&self, level: LoggingLevel, message: impl fmt::Display) {
        let message = message.to_string();
        self.note(move |server, deferred| server.log_for(deferred, level, None, format_args!("{message}")).map(drop));
    }

    /// Writes a notification about the request from the job queue: again once output was written
    /// while the transmit buffer is full; dropped when the request is over or the note refused.
    fn note(&self, mut write: impl FnMut(&mut RouterServer, &Deferred) -> Result<(), SendError> + Send + 'static) {
        let deferred = self.deferred.clone();
        let _ = self.jobs.submit(move |server: &mut RouterServer, _now| match write(server, &deferred) {
            Err(SendError::Full) => JobStatus::Retry,
            _ => JobStatus::Done,
        });
    }
}
