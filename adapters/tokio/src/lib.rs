//! Runs mcp-sansio endpoints on tokio.
//!
//! Any [`Connection`] (a server, later a client) can be driven over any tokio byte stream with
//! [`run`], or over the process's stdin and stdout with [`serve_stdio`]. The adapter holds no
//! protocol logic: it moves bytes, tells the time and wakes up when asked to.
//!
//! # The loop
//!
//! Each round, on the task that called [`run`]:
//!
//! 1. If [`Connection::poll_timeout`] has passed, call [`Connection::handle_timeout`]. Run the
//!    queued [completions](Completer), if any.
//! 2. Drain: write [`Connection::poll_transmit`] and report [`Connection::transmit_done`] until it
//!    returns `None` (writing can release held-back input, which can produce more output) or the
//!    writer is not ready.
//! 3. Once drained, return if [`Connection::is_finished`] (after a final flush). Otherwise read what
//!    is available straight into [`Connection::rx_spare`] and [`Connection::rx_commit`] it, or call
//!    [`Connection::handle_eof`] at end of stream, and start the next round. No read happens while
//!    output is pending, nor while `rx_spare` is empty (back-pressure: only writing can help).
//! 4. When no step can progress: flush the writer (once per burst of input, not per message),
//!    arm a timer for [`Connection::poll_timeout`] and sleep until the reader, the writer, the
//!    timer or the completion queue wakes the task.
//!
//! Time is milliseconds since [`run`] started (`tokio::time::Instant`, so `tokio::time::pause`
//! works in tests). IO errors end the loop and are returned; nothing panics on them. A peer that
//! closed its end shows up as a `BrokenPipe` write error.
//!
//! After a few rounds without sleeping the loop yields to the runtime, so a peer that never stops
//! sending cannot starve other tasks.
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
//! [`Completer`]: it queues a closure that the loop runs against the connection.
//!
//! ```no_run
//! use mcp_sansio::connection::Connection;
//! use mcp_sansio_tokio::{completion_channel, serve_stdio_with_completions};
//!
//! fn serve<C: Connection + 'static>(mut server: C) -> std::io::Result<()> {
//!     let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//!     let (completer, completions) = completion_channel::<C>();
//!     // Give `completer` (it is `Clone + Send`) to whatever defers work, e.g.:
//!     runtime.spawn(async move {
//!         // ... slow work ...
//!         let _ = completer.complete(|server: &mut C, now| {
//!             // Call the engine's own "answer the deferred request" method here.
//!             let _ = (server, now);
//!         });
//!     });
//!     runtime.block_on(serve_stdio_with_completions(&mut server, completions))
//! }
//! ```

use std::io;

use mcp_sansio::connection::Connection;
use tokio::io::{AsyncRead, AsyncWrite};

mod completion;
mod driver;
#[cfg(unix)]
mod fd;
#[cfg(unix)]
mod stdio;

pub use completion::{Completer, Completion, Completions, DriverStopped, completion_channel};
#[cfg(unix)]
pub use fd::{FdMode, FdReader, FdWriter};
#[cfg(unix)]
pub use stdio::{serve_stdio, serve_stdio_with_completions};

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
    driver::drive(conn, reader, writer, None).await
}

/// [`run`], also running each job sent through a [`Completer`] of `completions`, in order, on this
/// task, then writing what it produced.
///
/// Jobs keep running after the input ended, as long as the connection is not finished (it decides
/// whether deferred work keeps it open). Jobs still queued when this returns are dropped, and
/// [`Completer::complete`] fails from then on.
pub async fn run_with_completions<C, R, W>(
    conn: &mut C,
    reader: R,
    writer: W,
    completions: Completions<C>,
) -> io::Result<()>
where
    C: Connection,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    driver::drive(conn, reader, writer, Some(completions)).await
}
