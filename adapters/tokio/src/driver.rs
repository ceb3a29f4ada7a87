//! The run loop: one `poll` function that moves bytes between a [`Connection`] and a tokio stream.
//!
//! Written against `poll_*` methods rather than `select!` so that a read can fill
//! [`Connection::rx_spare`] directly while the same poll also owns the connection for timeouts and
//! completions, without borrowing conflicts, extra buffers or extra tasks.

use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_sansio::connection::Connection;
use mcp_sansio::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

use crate::completion::Completions;

/// Loop rounds (a read, a timeout or a batch of completions, each followed by a full drain) per
/// poll before yielding to the runtime, so a peer that never stops sending cannot starve the other
/// tasks of a `current_thread` runtime (including the ones that send completions).
const ROUNDS_PER_POLL: u32 = 32;

/// Completions run per round; the rest wait for the next round.
const COMPLETIONS_PER_ROUND: usize = 16;

/// Drives `conn` until it is finished. Shared body of every public entry point.
pub(crate) async fn drive<C, R, W>(
    conn: &mut C,
    mut reader: R,
    mut writer: W,
    completions: Option<Completions<C>>,
) -> io::Result<()>
where
    C: Connection,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut driver = Driver::new(completions);
    poll_fn(|cx| driver.poll_run(cx, conn, &mut reader, &mut writer)).await
}

/// Converts between tokio's clock and the core's milliseconds since the start of the run.
///
/// Reads `tokio::time::Instant`, which is `std::time::Instant` unless a test paused tokio's clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    epoch: tokio::time::Instant,
}

impl Clock {
    /// A clock whose epoch is now.
    pub(crate) fn start() -> Self {
        Clock { epoch: tokio::time::Instant::now() }
    }

    /// The current time for the core.
    pub(crate) fn now(&self) -> Instant {
        Instant::from_std(self.epoch.into_std(), tokio::time::Instant::now().into_std())
    }

    /// The tokio instant of the core's `at`, or `None` if it is too far away to represent (never).
    pub(crate) fn to_tokio(self, at: Instant) -> Option<tokio::time::Instant> {
        self.epoch.checked_add(std::time::Duration::from_millis(at.as_millis()))
    }
}

/// State of one run, kept between polls.
struct Driver<C> {
    clock: Clock,
    completions: Option<Completions<C>>,
    /// Created on the first timeout request, then re-armed in place.
    timer: Option<Pin<Box<Sleep>>>,
    /// The core deadline the timer is currently armed for.
    armed_for: Option<Instant>,
    input_ended: bool,
    /// Bytes were written since the last flush.
    unflushed: bool,
}

/// Outcome of draining the transmit side.
enum Drained {
    /// `poll_transmit` returned `None`.
    Everything,
    /// The writer is not ready; it will wake the task.
    WriterBlocked,
}

impl<C: Connection> Driver<C> {
    fn new(completions: Option<Completions<C>>) -> Self {
        Driver {
            clock: Clock::start(),
            completions,
            timer: None,
            armed_for: None,
            input_ended: false,
            unflushed: false,
        }
    }

    /// Runs rounds until the connection is finished (`Ready(Ok)`), an IO error occurs
    /// (`Ready(Err)`), or nothing can progress without a wake-up (`Pending`, every waker armed).
    fn poll_run<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        conn: &mut C,
        reader: &mut R,
        writer: &mut W,
    ) -> Poll<io::Result<()>>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        for _ in 0..ROUNDS_PER_POLL {
            let now = self.clock.now();
            let mut progressed = false;

            if let Some(deadline) = conn.poll_timeout()
                && deadline <= now
            {
                conn.handle_timeout(now);
            }
            progressed |= self.run_ready_completions(cx, conn, now);

            let drained = match self.write_pending(cx, conn, writer, now) {
                Poll::Ready(Ok(())) => Drained::Everything,
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => Drained::WriterBlocked,
            };

            if let Drained::Everything = drained {
                if conn.is_finished() {
                    return self.poll_flush(cx, writer);
                }
                // Read only once the output is drained; an empty `rx_spare` is back-pressure.
                if !self.input_ended {
                    match read_into_connection(cx, conn, reader, now) {
                        Poll::Ready(Ok(ReadOutcome::Bytes | ReadOutcome::Interrupted)) => {
                            progressed = true;
                        }
                        Poll::Ready(Ok(ReadOutcome::EndOfStream)) => {
                            self.input_ended = true;
                            conn.handle_eof(now);
                            progressed = true;
                        }
                        Poll::Ready(Ok(ReadOutcome::NoRoom)) | Poll::Pending => {}
                        Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                    }
                }
                if progressed {
                    continue;
                }
                // The input is drained for now: flush what was written before sleeping.
                if let Poll::Ready(Err(error)) = self.poll_flush(cx, writer) {
                    return Poll::Ready(Err(error));
                }
            }

            if progressed || self.poll_timer(cx, conn) {
                continue;
            }
            return Poll::Pending;
        }
        // Out of rounds with work left: let other tasks run, then come straight back.
        cx.waker().wake_by_ref();
        Poll::Pending
    }

    /// Runs queued completions against the connection. Returns `true` if the batch limit was hit
    /// (more may be waiting and no waker was armed).
    fn run_ready_completions(&mut self, cx: &mut Context<'_>, conn: &mut C, now: Instant) -> bool {
        let Some(completions) = self.completions.as_mut() else {
            return false;
        };
        for _ in 0..COMPLETIONS_PER_ROUND {
            match completions.poll_next(cx) {
                Poll::Ready(Some(job)) => job(conn, now),
                Poll::Ready(None) => {
                    // Every `Completer` is gone: nothing more can arrive.
                    self.completions = None;
                    return false;
                }
                Poll::Pending => return false,
            }
        }
        true
    }

    /// Writes until `poll_transmit` returns `None` (`Ready(Ok)`) or the writer blocks (`Pending`).
    fn write_pending<W: AsyncWrite + Unpin>(
        &mut self,
        cx: &mut Context<'_>,
        conn: &mut C,
        writer: &mut W,
        now: Instant,
    ) -> Poll<io::Result<()>> {
        loop {
            let Some(bytes) = conn.poll_transmit() else {
                return Poll::Ready(Ok(()));
            };
            if bytes.is_empty() {
                // Nothing to write after all; treat like `None` rather than spin.
                return Poll::Ready(Ok(()));
            }
            let offered = bytes.len();
            match Pin::new(&mut *writer).poll_write(cx, bytes) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(written)) => {
                    self.unflushed = true;
                    conn.transmit_done(now, written.min(offered));
                }
                Poll::Ready(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Flushes the writer if anything was written since the last flush.
    fn poll_flush<W: AsyncWrite + Unpin>(&mut self, cx: &mut Context<'_>, writer: &mut W) -> Poll<io::Result<()>> {
        if !self.unflushed {
            return Poll::Ready(Ok(()));
        }
        let flushed = Pin::new(&mut *writer).poll_flush(cx);
        if let Poll::Ready(Ok(())) = flushed {
            self.unflushed = false;
        }
        flushed
    }

    /// Arms the timer for the connection's deadline, if any. Returns `true` if it has already
    /// passed (the next round handles it); otherwise the timer will wake the task.
    fn poll_timer(&mut self, cx: &mut Context<'_>, conn: &C) -> bool {
        let Some(deadline) = conn.poll_timeout() else {
            return false;
        };
        let Some(wake_at) = self.clock.to_tokio(deadline) else {
            return false;
        };
        let timer = match &mut self.timer {
            Some(timer) => {
                if self.armed_for != Some(deadline) {
                    timer.as_mut().reset(wake_at);
                }
                timer
            }
            None => self.timer.insert(Box::pin(tokio::time::sleep_until(wake_at))),
        };
        self.armed_for = Some(deadline);
        if timer.as_mut().poll(cx).is_pending() {
            return false;
        }
        if self.clock.now() >= deadline {
            return true;
        }
        // Woke early (tokio caps one sleep at about two years): sleep again.
        timer.as_mut().reset(wake_at);
        timer.as_mut().poll(cx).is_ready()
    }
}

/// What one read attempt did.
enum ReadOutcome {
    /// Bytes were committed to the connection.
    Bytes,
    /// The reader reported end of stream (not yet reported to the connection).
    EndOfStream,
    /// `rx_spare` is empty (back-pressure): nothing was read.
    NoRoom,
    /// A signal interrupted the read; try again.
    Interrupted,
}

/// Reads what is available straight into `rx_spare` and commits it.
fn read_into_connection<C: Connection, R: AsyncRead + Unpin>(
    cx: &mut Context<'_>,
    conn: &mut C,
    reader: &mut R,
    now: Instant,
) -> Poll<io::Result<ReadOutcome>> {
    let spare = conn.rx_spare();
    if spare.is_empty() {
        return Poll::Ready(Ok(ReadOutcome::NoRoom));
    }
    let mut buf = ReadBuf::new(spare);
    match Pin::new(&mut *reader).poll_read(cx, &mut buf) {
        Poll::Ready(Ok(())) => {
            let filled = buf.filled().len();
            if filled == 0 {
                return Poll::Ready(Ok(ReadOutcome::EndOfStream));
            }
            conn.rx_commit(now, filled);
            Poll::Ready(Ok(ReadOutcome::Bytes))
        }
        Poll::Ready(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {
            Poll::Ready(Ok(ReadOutcome::Interrupted))
        }
        Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
        Poll::Pending => Poll::Pending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn clock_counts_milliseconds_from_the_start() {
        let clock = Clock::start();
        assert_eq!(clock.now(), Instant::ZERO);
        tokio::time::advance(std::time::Duration::from_millis(1234)).await;
        assert_eq!(clock.now(), Instant::from_millis(1234));
        let wake_at = clock.to_tokio(Instant::from_millis(1500)).unwrap();
        assert_eq!(wake_at - clock.epoch, std::time::Duration::from_millis(1500));
    }
}
