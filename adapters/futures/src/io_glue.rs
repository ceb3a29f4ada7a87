//! The glue between `futures-io`/`async-io` and the driver: streams and the clock.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use async_io::Timer;
use futures_io::{AsyncRead, AsyncWrite};
use mcp_sansio::time::Instant;
use mcp_sansio_driver::Clock;

/// An [`embedded_io_async`] stream over a [`futures_io`] [`AsyncRead`] and/or [`AsyncWrite`], for
/// the driver.
///
/// Each `read` or `write` is one `poll_read` or `poll_write` until it is ready, so dropping a
/// pending one loses nothing (both are cancel-safe, as the driver's
/// [`Options::interruptible_writes`](mcp_sansio_driver::Options::interruptible_writes) needs).
/// `Interrupted` errors are retried.
#[derive(Debug)]
pub struct FuturesIo<T> {
    inner: T,
}

impl<T> FuturesIo<T> {
    /// Wraps `inner`.
    pub const fn new(inner: T) -> Self {
        FuturesIo { inner }
    }

    /// The wrapped stream.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// Unwraps the stream.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<T> embedded_io_async::ErrorType for FuturesIo<T> {
    type Error = io::Error;
}

/// Polls `io` until it is ready with something other than `Interrupted`.
fn retry_interrupted<T>(mut io: impl FnMut() -> Poll<io::Result<T>>) -> Poll<io::Result<T>> {
    loop {
        match io() {
            Poll::Ready(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

impl<T: AsyncRead + Unpin> embedded_io_async::Read for FuturesIo<T> {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| retry_interrupted(|| Pin::new(&mut self.inner).poll_read(cx, buf))).await
    }
}

impl<T: AsyncWrite + Unpin> embedded_io_async::Write for FuturesIo<T> {
    async fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        poll_fn(|cx| retry_interrupted(|| Pin::new(&mut self.inner).poll_write(cx, buf))).await
    }

    async fn flush(&mut self) -> io::Result<()> {
        poll_fn(|cx| retry_interrupted(|| Pin::new(&mut self.inner).poll_flush(cx))).await
    }
}

/// One duplex stream shared by the driver's reader and writer.
///
/// The driver borrows its reader and its writer at the same time, but only ever polls one of them
/// at a time (from one task): each poll takes the lock for its duration, so it is never contended
/// (a `Mutex` rather than a `RefCell` keeps the serving future `Send`).
pub(crate) struct Duplex<S> {
    stream: Mutex<S>,
}

impl<S: Unpin> Duplex<S> {
    pub(crate) fn new(stream: S) -> Self {
        Duplex { stream: Mutex::new(stream) }
    }

    /// A handle that reads or writes the stream.
    pub(crate) fn half(&self) -> Half<'_, S> {
        Half { duplex: self }
    }

    fn lock(&self) -> MutexGuard<'_, S> {
        self.stream.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Closes the stream (`poll_close`).
    pub(crate) async fn close(&self) -> io::Result<()>
    where
        S: AsyncWrite,
    {
        poll_fn(|cx| Pin::new(&mut *self.lock()).poll_close(cx)).await
    }
}

/// One side of a [`Duplex`].
pub(crate) struct Half<'a, S> {
    duplex: &'a Duplex<S>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Half<'_, S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.duplex.lock()).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Half<'_, S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.duplex.lock()).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.duplex.lock()).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.duplex.lock()).poll_close(cx)
    }
}

/// The driver's [`Clock`] on async-io: milliseconds since the clock was started, read from
/// `std::time::Instant`, waiting on an [`async_io::Timer`] (the timers of async-std and smol).
///
/// Works under any executor: async-io runs its reactor on the thread that blocks in
/// `async_io::block_on` (`smol::block_on`, `async_std::task::block_on`), or on its own thread.
#[derive(Clone, Copy, Debug)]
pub struct AsyncIoClock {
    epoch: std::time::Instant,
}

impl AsyncIoClock {
    /// A clock whose epoch is now.
    pub fn start() -> Self {
        AsyncIoClock { epoch: std::time::Instant::now() }
    }
}

impl Default for AsyncIoClock {
    fn default() -> Self {
        Self::start()
    }
}

impl Clock for AsyncIoClock {
    fn now(&self) -> Instant {
        Instant::from_std(self.epoch, std::time::Instant::now())
    }

    async fn wait_until(&mut self, deadline: Instant) {
        let Some(wake_at) = self.epoch.checked_add(Duration::from_millis(deadline.as_millis())) else {
            // Too far away to represent: never.
            return std::future::pending().await;
        };
        while self.now() < deadline {
            Timer::at(wake_at).await;
        }
    }
}

/// Turns the driver's error into the `io::Error` the entry points return.
pub(crate) fn into_io_error(error: mcp_sansio_driver::Error<io::Error, io::Error>) -> io::Error {
    match error {
        mcp_sansio_driver::Error::Read(error) | mcp_sansio_driver::Error::Write(error) => error,
        mcp_sansio_driver::Error::WriteZero => io::ErrorKind::WriteZero.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_waits_until_the_deadline_and_not_for_past_ones() {
        smol::block_on(async {
            // Margins wide enough for a loaded machine: a past deadline waited as a relative time
            // would take 200 ms, four times the bound below.
            let mut clock = AsyncIoClock::start();
            assert!(clock.now() < Instant::from_millis(300));
            clock.wait_until(Instant::from_millis(300)).await;
            let woke = clock.now();
            assert!(woke >= Instant::from_millis(300), "woke early, at {woke:?}");
            assert!(clock.epoch.elapsed() >= Duration::from_millis(300));
            let before = std::time::Instant::now();
            clock.wait_until(Instant::from_millis(200)).await;
            assert!(before.elapsed() < Duration::from_millis(50), "a past deadline does not wait");
        });
    }

    #[test]
    fn an_unrepresentable_deadline_never_completes() {
        let mut clock = AsyncIoClock::start();
        let mut wait = std::pin::pin!(clock.wait_until(Instant::from_millis(u64::MAX)));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        assert!(wait.as_mut().poll(&mut cx).is_pending());
    }
}
