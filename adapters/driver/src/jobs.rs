//! Work from outside the byte stream: deferred answers, application signals.

use core::future::pending;

use mcp_sansio::time::Instant;

/// What a job reports after running against the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum JobStatus {
    /// The job is finished (answered, or found nothing to do).
    Done,
    /// The job could not run yet, typically because the transmit buffer is full
    /// (`Server::reply_tool` returned `ReplyError::Busy`). The source keeps it, first in line, and
    /// the driver runs it again once output has been written (see the [crate docs](crate#jobs)).
    Retry,
}

/// A source of jobs that need the connection, run by the driver between reads and while a write
/// waits for the writer (see the [crate docs](crate#jobs)).
///
/// This is how an application answers a deferred request: another task signals (an
/// `embassy_sync::signal::Signal`, a channel, an interrupt flag) that an answer is ready;
/// [`Jobs::ready`] completes, and the driver calls [`Jobs::run`] with the connection, whose output
/// it then writes. With the `std` feature, `JobQueue` is a ready-made source fed
/// from any task or thread.
#[allow(async_fn_in_trait)] // Single-threaded executors are the target; no `Send` bound wanted.
pub trait Jobs<C: ?Sized> {
    /// Completes when [`Jobs::run`] has work to do. Must be cancel-safe: the driver drops it
    /// whenever input, output or a deadline comes first, and calls it again later. Not polled while
    /// a job waits to be retried.
    async fn ready(&mut self);

    /// Runs the next job against the connection (for example `Server::reply_tool`). Called once
    /// after each completed [`Jobs::ready`], and again without `ready` after it returned
    /// [`JobStatus::Retry`], once output has made progress. On [`JobStatus::Retry`] the
    /// implementation must keep the job and run it first on the next call, so jobs finish in order.
    fn run(&mut self, conn: &mut C, now: Instant) -> JobStatus;
}

impl<C: ?Sized, J: Jobs<C> + ?Sized> Jobs<C> for &mut J {
    async fn ready(&mut self) {
        (**self).ready().await
    }

    fn run(&mut self, conn: &mut C, now: Instant) -> JobStatus {
        (**self).run(conn, now)
    }
}

/// No jobs: [`Jobs::ready`] never completes.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoJobs;

impl<C: ?Sized> Jobs<C> for NoJobs {
    async fn ready(&mut self) {
        pending().await
    }

    fn run(&mut self, _conn: &mut C, _now: Instant) -> JobStatus {
        JobStatus::Done
    }
}
