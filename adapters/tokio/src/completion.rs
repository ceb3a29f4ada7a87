//! Finishing deferred work from other tasks.
//!
//! The connection is owned by the task that drives it, so other tasks cannot touch it directly.
//! Instead they send a closure through a [`Completer`]; the driving loop runs it against the
//! connection at its next round and then writes whatever it produced. The adapter does not know
//! what the closure does (typically: answer a request the application deferred).

use std::fmt;
use std::task::{Context, Poll};

use mcp_sansio::time::Instant;
use tokio::sync::mpsc;

/// Work to run on the driving task: receives the connection and the current time.
pub type Completion<C> = Box<dyn FnOnce(&mut C, Instant) + Send>;

/// Creates a linked pair: give the [`Completions`] to
/// [`run_with_completions`](crate::run_with_completions) (or
/// [`serve_stdio_with_completions`](crate::serve_stdio_with_completions)) and clone the
/// [`Completer`] into every task that may finish work later.
///
/// The queue is unbounded: each pending job is one allocation, and the application decides how
/// many jobs it defers.
pub fn completion_channel<C>() -> (Completer<C>, Completions<C>) {
    let (sender, receiver) = mpsc::unbounded_channel();
    (Completer { sender }, Completions { receiver })
}

/// A cloneable, `Send` handle that queues closures to run against the connection on the task that
/// drives it.
pub struct Completer<C> {
    sender: mpsc::UnboundedSender<Completion<C>>,
}

impl<C> Completer<C> {
    /// Queues `job`; the driving loop runs it at its next round with the connection and the current
    /// time, then writes what it produced. Jobs run in the order they were queued. Never blocks, so
    /// it can be called from synchronous code too.
    ///
    /// Fails with [`DriverStopped`] when the driving loop has returned (the connection finished or
    /// hit an IO error); `job` is then dropped without running.
    pub fn complete<F>(&self, job: F) -> Result<(), DriverStopped>
    where
        F: FnOnce(&mut C, Instant) + Send + 'static,
    {
        self.sender.send(Box::new(job)).map_err(|_| DriverStopped)
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
/// Jobs still queued when the loop returns are dropped without running.
pub struct Completions<C> {
    receiver: mpsc::UnboundedReceiver<Completion<C>>,
}

impl<C> Completions<C> {
    /// The next queued job; `Ready(None)` once every [`Completer`] is gone.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Completion<C>>> {
        self.receiver.poll_recv(cx)
    }
}

impl<C> fmt::Debug for Completions<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Completions").field("queued", &self.receiver.len()).finish()
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

    fn assert_send_sync_clone<T: Send + Sync + Clone>() {}

    #[test]
    fn completer_is_send_and_clone_for_any_connection_type() {
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
}
