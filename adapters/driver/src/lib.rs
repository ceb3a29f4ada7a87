#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
//! # mcp-sansio-driver
//!
//! The one run loop of [mcp-sansio](mcp_sansio): drives a [`Connection`] over any
//! [`embedded_io_async`] byte stream, with a [`Clock`] for its deadlines and an optional
//! [`Jobs`] source for work from outside the stream (deferred answers). No allocator (but for the
//! optional [`job_queue`], feature `std`), no executor, no protocol logic. The adapters only provide
//! the streams and the clock: `mcp-sansio-embedded` (UART, USB CDC-ACM, TCP on embassy),
//! `mcp-sansio-tokio` (stdio, any tokio stream) and `mcp-sansio-futures` (async-std, smol) all run
//! this loop.
//!
//! ```no_run
//! # async fn example<R, W, K, C>(reader: &mut R, writer: &mut W, clock: &mut K, server: &mut C)
//! # where R: embedded_io_async::Read, W: embedded_io_async::Write, K: mcp_sansio_driver::Clock,
//! #       C: mcp_sansio::connection::Connection {
//! // `server` is an `mcp_sansio::server::Server`; `reader`/`writer` a UART, `clock` a timer.
//! loop {
//!     match mcp_sansio_driver::run(server, reader, writer, clock).await {
//!         Ok(()) => break, // the input ended and everything was answered
//!         // A UART overrun or a USB disconnect: the connection is intact, carry on.
//!         Err(_error) => continue,
//!     }
//! }
//! # }
//! ```
//!
//! # The loop
//!
//! Each round of [`run`] (and [`run_with_jobs`], [`run_with_options`]):
//!
//! 1. If [`Connection::poll_timeout`] has passed, call [`Connection::handle_timeout`].
//! 2. **Drain**: write [`Connection::poll_transmit`] and report [`Connection::transmit_done`] until
//!    it returns `None` (writing can release held-back input, which can produce more output). A
//!    write may take fewer bytes than offered (a USB packet, a UART FIFO, a pipe); the rest is
//!    offered again, so every message goes out whole and messages are never interleaved. With
//!    [`Options::interruptible_writes`], a write the writer is not ready for is dropped (it took
//!    nothing), [`Connection::transmit_blocked`] is called, and the write is raced against the
//!    deadline, the [jobs](#jobs) and a read into the receive room `transmit_blocked` returned, in
//!    that order after the write: deadlines, jobs and input are served while the output waits
//!    (read bytes go to [`Connection::rx_commit`], and the drain goes on).
//! 3. If a [job asked to be retried](#jobs) and output was written since, run it
//!    again and start the next round.
//! 4. Return if [`Connection::is_finished`], after flushing the writer.
//! 5. **Wait** for the first of: the [`Connection::poll_timeout`] deadline on the [`Clock`], the
//!    [`Jobs`] source having work (then [`Jobs::run`]), or bytes read straight into
//!    [`Connection::rx_spare`] (then [`Connection::rx_commit`]; end of stream calls
//!    [`Connection::handle_eof`]). They are checked in that order, so a peer that floods the line
//!    cannot starve deadlines or deferred answers. Start the next round.
//!
//! Properties:
//!
//! - **Back-pressure.** Nothing is read while `rx_spare` is empty (the engine holds input back
//!   until it can answer it), so the receive buffer never holds more than the engine can answer,
//!   and a client that does not read its answers eventually stops being read from once the
//!   connection's transmit buffer is full too.
//! - **No deadlock with a pipelining peer** (interruptible writes). While a write waits for the
//!   writer, input is still read, as far as [`Connection::transmit_blocked`] gives room: the server
//!   then answers past its `Limits::write_threshold`, up to its transmit buffer. A peer that writes
//!   many requests before it reads any answer is thus read from as long as the answers it has not
//!   read fit in the pipe (or socket) and the transmit buffer; memory stays bounded by the buffers.
//!   Without interruptible writes a write runs to completion and nothing is read while output is
//!   pending: such a peer must read its answers (or send less than the buffers between the two
//!   hold).
//! - **One flush per burst.** The writer is [flushed](embedded_io_async::Write::flush) only when
//!   none of the awaited events is ready at once, that is when the loop is about to sleep (and
//!   before returning). A burst of pipelined requests is answered with many writes and one flush.
//!   When an event arrives while the flush is still waiting, the flush is dropped and done again
//!   before the next sleep: `flush` must be cancel-safe in that sense.
//! - **Fairness.** After [`ROUNDS_BEFORE_YIELD`] rounds without sleeping the loop yields to the
//!   executor, so a peer that never stops sending cannot starve the other tasks (including the ones
//!   that feed the jobs).
//!
//! # Jobs
//!
//! A [`Jobs`] source hands the loop work that needs the connection, typically answering a request
//! the application deferred. Each job's [`Jobs::run`] returns a [`JobStatus`]:
//!
//! - [`JobStatus::Done`]: finished; the loop writes what it produced.
//! - [`JobStatus::Retry`]: it could not run yet, usually because the transmit buffer is full
//!   (`Server::reply_tool` returned `ReplyError::Busy`). The source keeps the job first in line;
//!   the loop stops asking for new jobs (so order is kept) and calls [`Jobs::run`] again once
//!   output has been written and drained, never before (no spinning). An answer is never lost to a
//!   full transmit buffer.
//!
//! Jobs are the driver's own mechanism, unrelated to MCP's `completion/complete` (argument
//! completion), which is a request like any other.
//!
//! With the `std` feature, [`job_queue`] makes a [`JobQueue`] (the source the loop runs) and
//! [`JobSender`]s (`Clone + Send + Sync`, for any task or thread, under any executor): the tokio and
//! futures adapters re-export them. Firmware implements [`Jobs`] over its executor's `Signal` or
//! channel.
//!
//! # Cancellation
//!
//! - **Reads are raced** against the timer and the job source and dropped when one of those
//!   wins. The loop itself loses nothing then: bytes are committed in the same poll in which the
//!   read returns them. The reader must be *cancel-safe* too (a dropped `read` future loses no data)
//!   when a timer deadline or a job source is in play. embassy's `BufferedUart`,
//!   embassy-usb's `BufferedReceiver`, embassy-net's `TcpSocket` and tokio streams are; a reader
//!   that is not can be used with [`NoJobs`] and a connection without timeouts, where the
//!   read is never dropped.
//! - **Writes** run to completion unless [`Options::interruptible_writes`] is set; then the writer
//!   must be cancel-safe (a dropped `write` took no bytes), and so must the reader: a read raced
//!   against a waiting write is dropped when the write goes through first.
//! - **Dropping the loop's future** is safe between messages; dropped during a write, the bytes that
//!   write took were never reported, so they are sent again by the next [`run`] (a duplicated
//!   fragment). Stop a server through its input or a job instead.
//! - **Errors** end the loop and leave the connection as it was, so calling [`run`] again resumes
//!   the same session: after a UART framing error, a USB host that went away and came back, a
//!   reconnected socket. A job waiting to be retried stays with its source.
//!
//! [`Connection`]: mcp_sansio::connection::Connection
//! [`Connection::poll_timeout`]: mcp_sansio::connection::Connection::poll_timeout
//! [`Connection::handle_timeout`]: mcp_sansio::connection::Connection::handle_timeout
//! [`Connection::poll_transmit`]: mcp_sansio::connection::Connection::poll_transmit
//! [`Connection::transmit_done`]: mcp_sansio::connection::Connection::transmit_done
//! [`Connection::is_finished`]: mcp_sansio::connection::Connection::is_finished
//! [`Connection::rx_spare`]: mcp_sansio::connection::Connection::rx_spare
//! [`Connection::rx_commit`]: mcp_sansio::connection::Connection::rx_commit
//! [`Connection::handle_eof`]: mcp_sansio::connection::Connection::handle_eof
//! [`Connection::transmit_blocked`]: mcp_sansio::connection::Connection::transmit_blocked
#![cfg_attr(
    not(feature = "std"),
    doc = "[`job_queue`]: #jobs \"feature std\"\n[`JobQueue`]: #jobs \"feature std\"\n[`JobSender`]: #jobs \"feature std\""
)]

#[cfg(feature = "std")]
extern crate std;

mod clock;
mod driver;
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod host;
mod jobs;
#[cfg(feature = "std")]
mod queue;
mod select;
#[cfg(feature = "tasks")]
mod tasks;

pub use clock::Clock;
pub use driver::{Error, Options, ROUNDS_BEFORE_YIELD, run, run_with_jobs, run_with_options};
pub use jobs::{JobStatus, Jobs, NoJobs};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use queue::{BoxedJob, DriverStopped, JobQueue, JobSender, job_queue};
#[cfg(feature = "tasks")]
#[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
pub use tasks::{random_task_id, task_table};
