//! Work from outside the byte stream: deferred answers, application signals.

use core::future::pending;

use mcp_sansio::time::Instant;

/// A source of work that needs the connection, run by the driver between reads.
///
/// This is how an application answers a deferred request on a single-threaded executor: another
/// task signals (an `embassy_sync::signal::Signal`, a channel, an interrupt flag) that an answer is
/// ready; [`Completions::ready`] completes, and the driver calls [`Completions::run`] with the
/// connection, whose output it then writes.
#[allow(async_fn_in_trait)] // Single-threaded executors are the target; no `Send` bound wanted.
pub trait Completions<C: ?Sized> {
    /// Completes when [`Completions::run`] has work to do. Must be cancel-safe: the driver drops it
    /// whenever input or a deadline comes first, and calls it again later.
    async fn ready(&mut self);

    /// Does the work against the connection (for example `Server::reply_tool`). Called once after
    /// each completed [`Completions::ready`].
    fn run(&mut self, conn: &mut C, now: Instant);
}

impl<C: ?Sized, J: Completions<C> + ?Sized> Completions<C> for &mut J {
    async fn ready(&mut self) {
        (**self).ready().await
    }

    fn run(&mut self, conn: &mut C, now: Instant) {
        (**self).run(conn, now)
    }
}

/// No completions: [`Completions::ready`] never completes.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCompletions;

impl<C: ?Sized> Completions<C> for NoCompletions {
    async fn ready(&mut self) {
        pending().await
    }

    fn run(&mut self, _conn: &mut C, _now: Instant) {}
}
