#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
//! Runs mcp-sansio endpoints on tokio.
//!
//! Any [`Connection`] (a server or a client) can be driven over any tokio byte stream with
//! [`run`], or over the process's stdin and stdout with [`serve_stdio`]; [`child::spawn`] runs an
//! MCP server as a child process and calls it through the driver's
//! [host API](mcp_sansio_driver::host). The adapter holds no
//! protocol logic: it moves bytes, tells the time and wakes up when asked to.
//!
//! # The loop
//!
//! The loop is [`mcp_sansio_driver`]'s, the same one the embedded adapter runs: its
//! [crate docs](mcp_sansio_driver#the-loop) describe it once (back-pressure, one flush per burst of
//! input, fairness, [jobs](mcp_sansio_driver#jobs) and their retries). This crate
//! provides the tokio side:
//!
//! - the streams: [`FdReader`]/[`FdWriter`] (non-blocking descriptors, one syscall per transfer)
//!   and [`TokioIo`] around any [`AsyncRead`]/[`AsyncWrite`];
//! - the clock: [`TokioClock`], milliseconds since [`run`] started on `tokio::time::Instant`, so
//!   `tokio::time::pause` works in tests;
//! - the job queue: [`job_queue`], the driver's (re-exported), runtime-neutral.
//!
//! Writes are [interruptible](mcp_sansio_driver::Options::interruptible_writes) (tokio writes are
//! cancel-safe): while the peer is not reading, deadlines still fire, jobs still run and input is still read.
//! The loop runs outside tokio's cooperative budget ([`tokio::task::unconstrained`]): it yields to
//! the runtime by itself, after [`ROUNDS_BEFORE_YIELD`](mcp_sansio_driver::ROUNDS_BEFORE_YIELD)
//! rounds without waiting.
//! IO errors end the loop and are returned; nothing panics on them. A peer that closed its end
//! shows up as a `BrokenPipe` write error.
//!
//! # Runtime
//!
//! The binaries use a `current_thread` runtime: one connection is driven by one task, the stdio
//! descriptors are served on that thread ([`FdReader`], [`FdWriter`]), and nothing is handed to
//! other threads per message. The runtime needs IO (for the stdio descriptors) and time (for
//! timeouts) enabled:
//!
//! ```no_run
//! use mcp_sansio::connection::Connection;
//!
//! fn serve<C: Connection>(mut server: C) -> std::io::Result<()> {
//!     let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//!     runtime.block_on(mcp_sansio_tokio::serve_stdio(&mut server))
//! }
//! ```
//!
//! # Answering later
//!
//! Application code that deferred a request finishes it from another task through a
//! [`JobSender`]: it queues a closure that the loop runs against the connection.
//! [`JobSender::complete`] takes a job that always finishes; [`JobSender::submit`] one that may
//! return [`JobStatus::Retry`] (the contract is the driver's: see
//! [`mcp_sansio_driver`'s jobs](mcp_sansio_driver#jobs)).
//!
//! ```no_run
//! use mcp_sansio::connection::Connection;
//! use mcp_sansio_tokio::{job_queue, serve_stdio_with_jobs};
//!
//! fn serve<C: Connection + 'static>(mut server: C) -> std::io::Result<()> {
//!     let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//!     let (sender, jobs) = job_queue::<C>();
//!     // Give `sender` (it is `Clone + Send + Sync`) to whatever defers work, e.g.:
//!     runtime.spawn(async move {
//!         // ... slow work ...
//!         let _ = sender.complete(|server: &mut C, now| {
//!             // Call the engine's own "answer the deferred request" method here.
//!             let _ = (server, now);
//!         });
//!     });
//!     runtime.block_on(serve_stdio_with_jobs(&mut server, jobs))
//! }
//! ```

use std::io;

use mcp_sansio::connection::Connection;
use mcp_sansio_driver::{NoJobs, Options};
use tokio::io::{AsyncRead, AsyncWrite};

pub mod child;
#[cfg(unix)]
mod fd;
mod io_glue;
#[cfg(unix)]
mod stdio;

#[cfg(unix)]
pub use fd::{FdMode, FdReader, FdWriter};
pub use io_glue::{TokioClock, TokioIo};
pub use mcp_sansio_driver::host;
pub use mcp_sansio_driver::{BoxedJob, DriverStopped, JobQueue, JobSender, JobStatus, job_queue};
#[cfg(unix)]
pub use stdio::{serve_stdio, serve_stdio_spinning, serve_stdio_with_jobs};

/// Drives `conn` over `reader` and `writer` until [`Connection::is_finished`] (see the crate docs
/// for the loop).
///
/// Call from a tokio runtime with time enabled if the connection asks for timeouts. Returns `Ok`
/// once the connection is finished and the writer flushed, or the first read, write or flush error
/// (the connection is left as it was; `reader` and `writer` are dropped either way). The writer is
/// flushed but not shut down.
pub async fn run<C, R, W>(conn: &mut C, reader: R, writer: W) -> io::Result<()>
where
    C: Connection,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    drive(conn, TokioIo::new(reader), TokioIo::new(writer), &mut NoJobs).await
}

/// [`run`], also running each job sent through a [`JobSender`] of `jobs`, in order, on this
/// task, then writing what it produced.
///
/// Jobs keep running after the input ended, as long as the connection is not finished (it decides
/// whether deferred work keeps it open). Jobs still queued when this returns are dropped, and
/// [`JobSender::complete`] fails from then on.
pub async fn run_with_jobs<C, R, W>(conn: &mut C, reader: R, writer: W, mut jobs: JobQueue<C>) -> io::Result<()>
where
    C: Connection,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    drive(conn, TokioIo::new(reader), TokioIo::new(writer), &mut jobs).await
}

/// The driver's loop with tokio's clock and interruptible writes. Shared body of every entry point.
async fn drive<C, R, W, J>(conn: &mut C, mut reader: R, mut writer: W, jobs: &mut J) -> io::Result<()>
where
    C: Connection,
    R: embedded_io_async::Read<Error = io::Error>,
    W: embedded_io_async::Write<Error = io::Error>,
    J: mcp_sansio_driver::Jobs<C>,
{
    let mut clock = TokioClock::start();
    let options = Options::new().interruptible_writes(true);
    // The loop yields by itself (the driver's fairness), so tokio's cooperative budget is not
    // applied on top: spent, it would turn a ready read or write into a yield (and, the first time,
    // allocate the runtime's list of deferred wakers).
    let run = mcp_sansio_driver::run_with_options(conn, &mut reader, &mut writer, &mut clock, jobs, options);
    tokio::task::unconstrained(run).await.map_err(io_glue::into_io_error)
}
