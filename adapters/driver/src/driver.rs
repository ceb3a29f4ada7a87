//! The run loop (see the crate docs).

use core::fmt;
use core::future::Future;
use core::pin::pin;

use embedded_io_async::{Read, Write};
use mcp_sansio::connection::Connection;

use crate::clock::Clock;
use crate::jobs::{JobStatus, Jobs, NoJobs};
use crate::select::{Drain, IoOrder, Woken, race, race_write, yield_now};

/// Rounds (a read, a deadline or a job, each followed by a full drain) that the loop goes
/// through without waiting before it yields to the executor once.
pub const ROUNDS_BEFORE_YIELD: u32 = 32;

/// Why the loop stopped before the connection finished. The connection is left consistent: calling
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

/// How the loop may treat the streams; [`Options::new`] is what [`run`] uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    interruptible_writes: bool,
}

impl Options {
    /// Writes run to completion: a write the writer is not ready for holds up deadlines and
    /// jobs until it returns (the only safe choice for writers whose `write` is not
    /// cancel-safe, such as a USB endpoint).
    pub const fn new() -> Self {
        Options { interruptible_writes: false }
    }

    /// With `true`, a write that waits for the writer is raced against the deadline, the jobs and
    /// a read, and dropped when one of them comes first (see the [crate docs](crate#the-loop) and
    /// [cancellation](crate#cancellation)). Only for writers whose `write` is cancel-safe (a
    /// dropped write took no bytes) and readers whose `read` is. Poll-based streams (tokio's
    /// `AsyncWrite`, a socket buffer, a ring buffer) are.
    pub const fn interruptible_writes(mut self, interruptible: bool) -> Self {
        self.interruptible_writes = interruptible;
        self
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
    drive::<_, _, _, _, _, false>(conn, reader, writer, clock, &mut NoJobs).await
}

/// [`run`], also running the [jobs](crate#jobs) of `jobs` against the connection whenever one is
/// ready, then writing what it produced.
///
/// Jobs keep running after the input ended, as long as the connection is not finished (it
/// decides whether deferred work keeps it open).
pub async fn run_with_jobs<C, R, W, K, J>(
    conn: &mut C,
    reader: &mut R,
    writer: &mut W,
    clock: &mut K,
    jobs: &mut J,
) -> Result<(), Error<R::Error, W::Error>>
where
    C: Connection + ?Sized,
    R: Read + ?Sized,
    W: Write + ?Sized,
    K: Clock + ?Sized,
    J: Jobs<C> + ?Sized,
{
    drive::<_, _, _, _, _, false>(conn, reader, writer, clock, jobs).await
}

/// A job that asked to be retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Retry {
    /// No job is waiting.
    None,
    /// A job asked to be retried and no output was written since.
    AfterOutput,
    /// Output was written since: run it again after the drain.
    Due,
}

/// [`run_with_jobs`] with `options`.
pub async fn run_with_options<C, R, W, K, J>(
    conn: &mut C,
    reader: &mut R,
    writer: &mut W,
    clock: &mut K,
    jobs: &mut J,
    options: Options,
) -> Result<(), Error<R::Error, W::Error>>
where
    C: Connection + ?Sized,
    R: Read + ?Sized,
    W: Write + ?Sized,
    K: Clock + ?Sized,
    J: Jobs<C> + ?Sized,
{
    if options.interruptible_writes {
        drive::<_, _, _, _, _, true>(conn, reader, writer, clock, jobs).await
    } else {
        drive::<_, _, _, _, _, false>(conn, reader, writer, clock, jobs).await
    }
}

/// The loop; `INTERRUPTIBLE_WRITES` is [`Options::interruptible_writes`], a constant so that a
/// firmware that never sets it does not carry the code.
///
/// An `async move` block rather than an `async fn`: an `async fn` moves its arguments into locals of
/// its body, and its future keeps both (five pointers more on a firmware's stack).
#[allow(clippy::manual_async_fn)] // On purpose: see above.
fn drive<C, R, W, K, J, const INTERRUPTIBLE_WRITES: bool>(
    conn: &mut C,
    reader: &mut R,
    writer: &mut W,
    clock: &mut K,
    jobs: &mut J,
) -> impl Future<Output = Result<(), Error<R::Error, W::Error>>>
where
    C: Connection + ?Sized,
    R: Read + ?Sized,
    W: Write + ?Sized,
    K: Clock + ?Sized,
    J: Jobs<C> + ?Sized,
{
    async move {
        let mut input_ended = false;
        let mut unflushed = false;
        let mut retry = Retry::None;
        let mut rounds_without_waiting = 0u32;
        loop {
            handle_due_timeout(conn, clock);

            // Drain. Each `write` may take part of what is offered; the rest is offered again. With
            // interruptible writes, a write that is not ready at once is raced against the deadline,
            // the jobs and (once the connection made room for it, `transmit_blocked`) a read.
            let mut write_blocked = false;
            loop {
                let deadline = conn.poll_timeout();
                let (bytes, spare) = if INTERRUPTIBLE_WRITES && write_blocked && !input_ended {
                    conn.transmit_blocked(clock.now())
                } else {
                    (conn.poll_transmit(), &mut [][..])
                };
                let Some(bytes) = bytes.filter(|bytes| !bytes.is_empty()) else { break };
                let (offered, spare_len) = (bytes.len(), spare.len());
                let (drained, waited) = if INTERRUPTIBLE_WRITES {
                    // Pinned here, in this loop's state, once each (see `race`); dropped with this block.
                    let timer = pin!(deadline.map(|deadline| clock.wait_until(deadline)));
                    let job = pin!((retry == Retry::None).then(|| jobs.ready()));
                    let read = pin!((!spare.is_empty()).then(|| reader.read(spare)));
                    let write = pin!(writer.write(bytes));
                    race_write(write, read, timer, job, !write_blocked).await
                } else {
                    (Drain::Written(writer.write(bytes).await), true)
                };
                match drained {
                    Drain::Written(Ok(0)) => return Err(Error::WriteZero),
                    Drain::Written(Ok(written)) => {
                        unflushed = true;
                        write_blocked = false;
                        if retry == Retry::AfterOutput {
                            retry = Retry::Due;
                        }
                        conn.transmit_done(clock.now(), written.min(offered));
                        continue;
                    }
                    Drain::Written(Err(error)) => return Err(Error::Write(error)),
                    // The dropped write took nothing; offered again with receive room beside it.
                    Drain::Blocked => {
                        write_blocked = true;
                        continue;
                    }
                    Drain::Timer => handle_due_timeout(conn, clock),
                    Drain::Job => retry = run_job(jobs, conn, clock),
                    // Only interruptible writes read while writing: the guards drop these calls from
                    // the other loop, so a firmware's `rx_commit` keeps its single, inlined call site.
                    Drain::Read(Ok(0)) if INTERRUPTIBLE_WRITES => {
                        input_ended = true;
                        conn.handle_eof(clock.now());
                    }
                    Drain::Read(Ok(n)) if INTERRUPTIBLE_WRITES => conn.rx_commit(clock.now(), n.min(spare_len)),
                    Drain::Read(Ok(_)) => {}
                    Drain::Read(Err(error)) => return Err(Error::Read(error)),
                }
                pace(&mut rounds_without_waiting, waited).await;
            }
            if retry == Retry::Due {
                retry = run_job(jobs, conn, clock);
                continue;
            }
            if conn.is_finished() {
                if unflushed {
                    writer.flush().await.map_err(Error::Write)?;
                }
                return Ok(());
            }

            // Wait for input, the deadline or a job; flush only if none is there at once. An
            // empty `rx_spare` after a full drain means the connection holds input back for its own
            // reasons: only a deadline or a job can help then.
            let mut spare_len = 0;
            let raced = {
                // Pinned here, in this loop's state, once each (see `race`); dropped with this block.
                let timer = pin!(conn.poll_timeout().map(|deadline| clock.wait_until(deadline)));
                let job = pin!((retry == Retry::None).then(|| jobs.ready()));
                let flush = pin!(unflushed.then(|| writer.flush()));
                let read = pin!(if input_ended {
                    None
                } else {
                    let spare = conn.rx_spare();
                    spare_len = spare.len();
                    Some(spare).filter(|spare| !spare.is_empty()).map(|spare| reader.read(spare))
                });
                race(read, IoOrder::Last, timer, job, flush).await
            };
            if raced.flushed {
                unflushed = false;
            }
            match raced.woken {
                Woken::Io(Ok(0)) => {
                    input_ended = true;
                    conn.handle_eof(clock.now());
                }
                Woken::Io(Ok(n)) => conn.rx_commit(clock.now(), n.min(spare_len)),
                Woken::Io(Err(error)) => return Err(Error::Read(error)),
                Woken::FlushFailed(error) => return Err(Error::Write(error)),
                // Handled at the top of the next round.
                Woken::Timer => {}
                Woken::Job => retry = run_job(jobs, conn, clock),
            }
            pace(&mut rounds_without_waiting, raced.waited).await;
        }
    }
}

/// Calls [`Connection::handle_timeout`] if the connection's deadline has passed.
fn handle_due_timeout<C: Connection + ?Sized, K: Clock + ?Sized>(conn: &mut C, clock: &K) {
    let now = clock.now();
    if conn.poll_timeout().is_some_and(|deadline| deadline <= now) {
        conn.handle_timeout(now);
    }
}

/// Runs the next job of `jobs`; what to do about it next.
fn run_job<C, J, K>(jobs: &mut J, conn: &mut C, clock: &K) -> Retry
where
    C: Connection + ?Sized,
    J: Jobs<C> + ?Sized,
    K: Clock + ?Sized,
{
    match jobs.run(conn, clock.now()) {
        JobStatus::Done => Retry::None,
        JobStatus::Retry => Retry::AfterOutput,
    }
}

/// Counts a round; yields to the executor after [`ROUNDS_BEFORE_YIELD`] rounds without waiting.
async fn pace(rounds_without_waiting: &mut u32, waited: bool) {
    if waited {
        *rounds_without_waiting = 0;
        return;
    }
    *rounds_without_waiting += 1;
    if *rounds_without_waiting >= ROUNDS_BEFORE_YIELD {
        *rounds_without_waiting = 0;
        yield_now().await;
    }
}
