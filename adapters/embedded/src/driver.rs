//! The run loop (see the crate docs).

use core::fmt;

use embedded_io_async::{Read, Write};
use mcp_sansio::connection::Connection;

use crate::clock::Clock;
use crate::completion::{Completions, NoCompletions};
use crate::select::{Woken, race, yield_now};

/// Rounds (a read, a deadline or a completion, each followed by a full drain) that [`run`] goes
/// through without waiting before it yields to the executor once.
pub const ROUNDS_BEFORE_YIELD: u32 = 32;

/// Why [`run`] stopped before the connection finished. The connection is left consistent: calling
/// [`run`] again resumes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error<R, W> {
    /// Reading failed (a UART framing or overrun error, a USB disconnect, a reset socket).
    Read(R),
    /// Writing or flushing failed.
    Write(W),
    /// The writer accepted zero bytes of a non-empty buffer (it is closed).
    WriteZero,
}

impl<R: fmt::Debug, W: fmt::Debug> fmt::Display for Error<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read(error) => write!(f, "read failed: {error:?}"),
            Error::Write(error) => write!(f, "write failed: {error:?}"),
            Error::WriteZero => f.write_str("the writer accepted no bytes"),
        }
    }
}

impl<R: fmt::Debug, W: fmt::Debug> core::error::Error for Error<R, W> {}

impl<R: embedded_io_async::Error, W: embedded_io_async::Error> embedded_io_async::Error for Error<R, W> {
    fn kind(&self) -> embedded_io_async::ErrorKind {
        match self {
            Error::Read(error) => error.kind(),
            Error::Write(error) => error.kind(),
            Error::WriteZero => embedded_io_async::ErrorKind::WriteZero,
        }
    }
}

/// Drives `conn` over `reader` and `writer` until [`Connection::is_finished`] (see the crate docs
/// for the loop), with `clock` for the connection's deadlines.
///
/// Returns `Ok` once the input ended and everything was written and flushed, or the first read,
/// write or flush error (call it again to carry on). A serial line has no end of input: there it
/// runs until an error.
pub async fn run<C, R, W, K>(
    conn: &mut C,
    reader: &mut R,
    writer: &mut W,
    clock: &mut K,
) -> Result<(), Error<R::Error, W::Error>>
where
    C: Connection + ?Sized,
    R: Read + ?Sized,
    W: Write + ?Sized,
    K: Clock + ?Sized,
{
    run_with_completions(conn, reader, writer, clock, &mut NoCompletions).await
}

/// [`run`], also running `completions` against the connection whenever it is ready, then writing
/// what that produced.
///
/// Completions keep running after the input ended, as long as the connection is not finished (it
/// decides whether deferred work keeps it open).
pub async fn run_with_completions<C, R, W, K, J>(
    conn: &mut C,
    reader: &mut R,
    writer: &mut W,
    clock: &mut K,
    completions: &mut J,
) -> Result<(), Error<R::Error, W::Error>>
where
    C: Connection + ?Sized,
    R: Read + ?Sized,
    W: Write + ?Sized,
    K: Clock + ?Sized,
    J: Completions<C> + ?Sized,
{
    let mut input_ended = false;
    let mut rounds_without_waiting = 0u32;
    loop {
        let now = clock.now();
        if conn.poll_timeout().is_some_and(|deadline| deadline <= now) {
            conn.handle_timeout(now);
        }

        // Drain. Each `write` may take part of what is offered; the rest is offered again.
        let mut wrote = false;
        while let Some(bytes) = conn.poll_transmit() {
            let offered = bytes.len();
            if offered == 0 {
                break;
            }
            let written = writer.write(bytes).await.map_err(Error::Write)?;
            if written == 0 {
                return Err(Error::WriteZero);
            }
            wrote = true;
            conn.transmit_done(clock.now(), written.min(offered));
        }
        if wrote {
            writer.flush().await.map_err(Error::Write)?;
        }
        if conn.is_finished() {
            return Ok(());
        }

        // Wait for input, the deadline or a completion. An empty `rx_spare` after a full drain
        // means the connection holds input back for its own reasons: only a deadline or a
        // completion can help then.
        let deadline = conn.poll_timeout();
        let mut spare_len = 0;
        let read = if input_ended {
            None
        } else {
            let spare = conn.rx_spare();
            spare_len = spare.len();
            Some(spare).filter(|spare| !spare.is_empty()).map(|spare| reader.read(spare))
        };
        let timer = deadline.map(|deadline| clock.wait_until(deadline));
        let (woken, waited) = race(read, timer, completions.ready()).await;
        match woken {
            Woken::Read(Ok(0)) => {
                input_ended = true;
                conn.handle_eof(clock.now());
            }
            Woken::Read(Ok(n)) => conn.rx_commit(clock.now(), n.min(spare_len)),
            Woken::Read(Err(error)) => return Err(Error::Read(error)),
            // Handled at the top of the next round.
            Woken::Timer => {}
            Woken::Completion => completions.run(conn, clock.now()),
        }

        if waited {
            rounds_without_waiting = 0;
        } else {
            rounds_without_waiting += 1;
            if rounds_without_waiting >= ROUNDS_BEFORE_YIELD {
                rounds_without_waiting = 0;
                yield_now().await;
            }
        }
    }
}
