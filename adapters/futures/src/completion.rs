//! Finishing deferred work from other tasks.
//!
//! The connection is owned by the task that drives it, so other tasks cannot touch it directly.
//! Instead they send a job through a [`Completer`]; the driving loop runs it against the connection
//! and then writes whatever it produced. The adapter does not know what the job does (typically:
//! answer a request the application deferred). A job that finds the transmit buffer full returns
//! [`Job::Retry`] and is run again once output was written: see the driver's
//! [completions](mcp_sansio_driver#completions).

use std::fmt;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::Poll;

use futures_core::Stream;

use mcp_sansio::time::Instant;
use mcp_sansio_driver::Job;

/// Work to run on the driving task: receives the connection and the current time, and reports
/// whether it is [done](Job::Done) or must be [retried](Job::Retry) after the next drain.
pub type Completion<C> = Box<dyn FnMut(&mut C, Instant) -> Job + Send>;

/// Creates a linked pair: give the [`Completions`] to
/// [`run_with_completions`](crate::run_with_completions) (or
/// [`serve_stdio_with_completions`](crate::serve_stdio_with_completions)) and clone the
/// [`Completer`] into every task that may finish work later.
///
/// The queue is an unbounded [`async_channel`]: each pending job is one allocation, and the
/// application decides how many jobs it defers. It works under any executor and from any thread.
pub fn completion_channel<C>() -> (Completer<C>, Completions<C>) {
    let (sender, receiver) = async_channel::unbounded();
    (Completer { sender }, Completions { receiver: Box::pin(receiver), next: None })
}

/// A cloneable, `Send + Sync` handle that queues jobs to run against the connection on the task
/// that drives it.
pub struct Completer<C> {
    sender: async_channel::Sender<Completion<C>>,
}

impl<C> Completer<C> {
    /// Queues `job`, which always finishes: the driving loop runs it once, with the connection and
    /// the current time, then writes what it produced. Jobs run in the order they were queued.
    /// Never blocks, so it can be called from synchronous code too.
    ///
    /// Fails with [`DriverStopped`] when the driving loop has returned (the connection finished or
    /// hit an IO error); `job` is then dropped without running.
    pub fn complete<F>(&self, job: F) -> Result<(), DriverStopped>
    where
        F: FnOnce(&mut C, Instant) + Send + 'static,
    {
        let mut job = Some(job);
        self.submit(move |conn: &mut C, now| {
            if let Some(job) = job.take() {
                job(conn, now);
            }
            Job::Done
        })
    }

    /// Queues `job`, which may return [`Job::Retry`] when it cannot run yet; it then runs again as
    /// the driver's [completion contract](mcp_sansio_driver#completions) says. Otherwise like
    /// [`Completer::complete`].
    pub fn submit<F>(&self, job: F) -> Result<(), DriverStopped>
    where
        F: FnMut(&mut C, Instant) -> Job + Send + 'static,
    {
        // Unbounded: fails only once the receiver is gone.
        self.sender.try_send(Box::new(job)).map_err(|_| DriverStopped)
    }

    /// `true` once the driving loop has returned: further jobs would be dropped.
    pub fn is_stopped(&self) -> bool {
        self.sender.is_closed()
    }
}

impl<C> Clone for Completer<C> {
    fn clone(&self) -> Self {
        Completer { sender: self.sender.clone() }
    }
}

impl<C> fmt::Debug for Completer<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Completer").field("stopped", &self.is_stopped()).finish()
    }
}

/// The receiving end of [`completion_channel`], consumed by the driving loop.
///
/// It is the loop's [`mcp_sansio_driver::Completions`] source. Jobs still queued when the loop
/// returns are dropped without running (including one waiting to be retried).
pub struct Completions<C> {
    /// Pinned once: the receiver is `!Unpin`, and `poll_next` keeps its listener between polls.
    receiver: Pin<Box<async_channel::Receiver<Completion<C>>>>,
    /// The job `ready` received, or the one that asked to be retried: run first.
    next: Option<Completion<C>>,
}

impl<C> mcp_sansio_driver::Completions<C> for Completions<C> {
    async fn ready(&mut self) {
        poll_fn(|cx| {
            if self.next.is_some() {
                return Poll::Ready(());
            }
            match self.receiver.as_mut().poll_next(cx) {
                // Kept in the same poll that received it: dropping this future loses nothing.
                Poll::Ready(Some(job)) => {
                    self.next = Some(job);
                    Poll::Ready(())
                }
                // Every `Completer` is gone: nothing more can arrive.
                Poll::Ready(None) | Poll::Pending => Poll::Pending,
            }
        })
        .await
    }

    fn run(&mut self, conn: &mut C, now: Instant) -> Job {
        let Some(mut job) = self.next.take() else {
            return Job::Done;
        };
        let status = job(conn, now);
        if status == Job::Retry {
            self.next = Some(job);
        }
        status
    }
}

impl<C> fmt::Debug for Completions<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Completions")
            .field("queued", &(self.receiver.len() + usize::from(self.next.is_some())))
            .finish()
    }
}

/// Returned by [`Completer::complete`] when the driving loop has already returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverStopped;

impl fmt::Display for DriverStopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the connection's driving loop has stopped")
    }
}

impl std::error::Error for DriverStopped {}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_sansio_driver::Completions as _;

    fn assert_send_sync_clone<T: Send + Sync + Clone>() {}

    #[test]
    fn completer_is_send_sync_and_clone_for_any_connection_type() {
        // `*const u8` is neither `Send` nor `Sync`: the handle must not depend on the connection's.
        assert_send_sync_clone::<Completer<*const u8>>();
    }

    #[test]
    fn complete_fails_once_the_receiver_is_gone() {
        let (completer, completions) = completion_channel::<u32>();
        assert!(!completer.is_stopped());
        completer.complete(|value, _| *value += 1).unwrap();
        drop(completions);
        assert!(completer.is_stopped());
        assert_eq!(completer.complete(|value, _| *value += 1), Err(DriverStopped));
    }

    #[test]
    fn a_retried_job_stays_first_in_line_until_it_is_done() {
        smol::block_on(retried_job_stays_first());
    }

    async fn retried_job_stays_first() {
        let (completer, mut completions) = completion_channel::<Vec<&'static str>>();
        let mut attempts = 0;
        completer
            .submit(move |log: &mut Vec<&'static str>, _| {
                attempts += 1;
                log.push("first");
                if attempts < 3 { Job::Retry } else { Job::Done }
            })
            .unwrap();
        completer.complete(|log, _| log.push("second")).unwrap();
        let mut log = Vec::new();
        let mut statuses = Vec::new();
        for _ in 0..4 {
            completions.ready().await;
            statuses.push(completions.run(&mut log, Instant::ZERO));
        }
        assert_eq!(log, ["first", "first", "first", "second"]);
        assert_eq!(statuses, [Job::Retry, Job::Retry, Job::Done, Job::Done]);
        assert_eq!(completions.run(&mut log, Instant::ZERO), Job::Done, "nothing left: nothing runs");
        assert_eq!(log.len(), 4);
    }
}
