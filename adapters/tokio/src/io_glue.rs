//! The glue between tokio and the driver: streams and the clock.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::Poll;

use mcp_sansio::time::Instant;
use mcp_sansio_driver::Clock;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// An [`embedded_io_async`] stream over a tokio [`AsyncRead`] and/or [`AsyncWrite`], for the
/// driver.
///
/// Each `read` or `write` is one `poll_read` or `poll_write` until it is ready, so dropping a
/// pending one loses nothing (both are cancel-safe, as the driver's
/// [`Options::interruptible_writes`](mcp_sansio_driver::Options::interruptible_writes) needs).
/// `Interrupted` errors are retried.
#[derive(Debug)]
pub struct TokioIo<T> {
    inner: T,
}

impl<T> TokioIo<T> {
    /// Wraps `inner`.
    pub const fn new(inner: T) -> Self {
        TokioIo { inner }
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

impl<T> embedded_io_async::ErrorType for TokioIo<T> {
    type Error = io::Error;
}

impl<T: AsyncRead + Unpin> embedded_io_async::Read for TokioIo<T> {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| {
            loop {
                let mut read = ReadBuf::new(buf);
                match Pin::new(&mut self.inner).poll_read(cx, &mut read) {
                    Poll::Ready(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
                    Poll::Ready(result) => return Poll::Ready(result.map(|()| read.filled().len())),
                    Poll::Pending => return Poll::Pending,
                }
            }
        })
        .await
    }
}

impl<T: AsyncWrite + Unpin> embedded_io_async::Write for TokioIo<T> {
    async fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        poll_fn(|cx| {
            loop {
                match Pin::new(&mut self.inner).poll_write(cx, buf) {
                    Poll::Ready(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
                    other => return other,
                }
            }
        })
        .await
    }

    async fn flush(&mut self) -> io::Result<()> {
        poll_fn(|cx| Pin::new(&mut self.inner).poll_flush(cx)).await
    }
}

/// The driver's [`Clock`] on tokio: milliseconds since the clock was started.
///
/// Reads `tokio::time::Instant`, which is `std::time::Instant` unless a test paused tokio's clock
/// (`tokio::time::pause`), so paused tests run on virtual time. Waiting needs a runtime with time
/// enabled.
#[derive(Clone, Copy, Debug)]
pub struct TokioClock {
    epoch: tokio::time::Instant,
}

impl TokioClock {
    /// A clock whose epoch is now.
    pub fn start() -> Self {
        TokioClock { epoch: tokio::time::Instant::now() }
    }

    /// The tokio instant of the core's `at`, or `None` if it is too far away to represent (never).
    fn to_tokio(self, at: Instant) -> Option<tokio::time::Instant> {
        self.epoch.checked_add(std::time::Duration::from_millis(at.as_millis()))
    }
}

impl Default for TokioClock {
    fn default() -> Self {
        Self::start()
    }
}

impl Clock for TokioClock {
    fn now(&self) -> Instant {
        Instant::from_std(self.epoch.into_std(), tokio::time::Instant::now().into_std())
    }

    async fn wait_until(&mut self, deadline: Instant) {
        let Some(wake_at) = self.to_tokio(deadline) else {
            return std::future::pending().await;
        };
        // tokio caps one sleep at about two years: sleep again if it woke early.
        while self.now() < deadline {
            tokio::time::sleep_until(wake_at).await;
        }
    }
}

/// Turns the driver's error into the `io::Error` the tokio entry points return.
pub(crate) fn into_io_error(error: mcp_sansio_driver::Error<io::Error, io::Error>) -> io::Error {
    match error {
        mcp_sansio_driver::Error::Read(error) | mcp_sansio_driver::Error::Write(error) => error,
        mcp_sansio_driver::Error::WriteZero => io::ErrorKind::WriteZero.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn clock_counts_milliseconds_from_the_start() {
        let mut clock = TokioClock::start();
        assert_eq!(clock.now(), Instant::ZERO);
        tokio::time::advance(std::time::Duration::from_millis(1234)).await;
        assert_eq!(clock.now(), Instant::from_millis(1234));
        clock.wait_until(Instant::from_millis(1500)).await;
        assert_eq!(clock.now(), Instant::from_millis(1500));
        assert_eq!(tokio::time::Instant::now() - clock.epoch, std::time::Duration::from_millis(1500));
        clock.wait_until(Instant::from_millis(1000)).await;
        assert_eq!(clock.now(), Instant::from_millis(1500), "a past deadline does not wait");
    }
}
