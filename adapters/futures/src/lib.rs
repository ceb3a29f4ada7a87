#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
//! Runs mcp-sansio endpoints on async-std, smol, or any executor whose streams implement
//! [`futures_io`]'s traits.
//!
//! Any [`Connection`] (a server, later a client) can be driven over any [`AsyncRead`] and
//! [`AsyncWrite`] with [`run`], over one duplex stream (a TCP or Unix socket) with [`serve_tcp`],
//! or over the process's stdin and stdout with [`serve_stdio`]. The adapter holds no protocol
//! logic: it moves bytes, tells the time and wakes up when asked to.
//!
//! # The loop
//!
//! The loop is [`mcp_sansio_driver`]'s, the same one the tokio and embedded adapters run: its
//! [crate docs](mcp_sansio_driver#the-loop) describe it once (back-pressure, one flush per burst of
//! input, fairness, [jobs](mcp_sansio_driver#jobs) and their retries). This crate
//! provides the futures side:
//!
//! - the streams: [`FdReader`]/[`FdWriter`] (non-blocking descriptors registered with async-io's
//!   reactor, one syscall per transfer) and [`FuturesIo`] around any [`AsyncRead`]/[`AsyncWrite`];
//! - the clock: [`AsyncIoClock`], milliseconds since [`run`] started, waiting on
//!   [`async_io::Timer`];
//! - the job queue: [`job_queue`], the driver's (re-exported), runtime-neutral.
//!
//! Writes are [interruptible](mcp_sansio_driver::Options::interruptible_writes) (poll-based writes
//! are cancel-safe): while the peer is not reading, deadlines still fire, jobs still run and input is still read.
//! IO errors end the loop and are returned; nothing panics on them. A peer that closed its end
//! shows up as a `BrokenPipe` write error.
//!
//! # Runtimes
//!
//! async-std and smol both run on [`async_io`]'s reactor, which this crate uses for stdio and
//! timers: the same code serves both (async-std is discontinued upstream in favour of smol). One
//! connection is driven by one future, spawn-free; nothing is handed to other threads per message.
//!
//! ```no_run
//! use mcp_sansio::connection::Connection;
//!
//! fn serve_on_smol<C: Connection>(server: &mut C) -> std::io::Result<()> {
//!     smol::block_on(mcp_sansio_futures::serve_stdio(server))
//! }
//!
//! fn serve_on_async_std<C: Connection>(server: &mut C) -> std::io::Result<()> {
//!     async_std::task::block_on(mcp_sansio_futures::serve_stdio(server))
//! }
//! ```
//!
//! Over TCP, each accepted stream carries one connection, framed as newline-delimited JSON:
//!
//! ```no_run
//! use mcp_sansio::connection::Connection;
//!
//! async fn serve_one<C: Connection>(server: &mut C) -> std::io::Result<()> {
//!     let listener = smol::net::TcpListener::bind("127.0.0.1:7000").await?;
//!     let (stream, _peer) = listener.accept().await?;
//!     mcp_sansio_futures::serve_tcp(server, stream).await
//! }
//! ```
//!
//! # Answering later
//!
//! Application code that deferred a request finishes it from another task or thread through a
//! [`JobSender`]: it queues a closure that the loop runs against the connection.
//! [`JobSender::complete`] takes a job that always finishes; [`JobSender::submit`] one that may
//! return [`JobStatus::Retry`] (the contract is the driver's: see
//! [`mcp_sansio_driver`'s jobs](mcp_sansio_driver#jobs)).
//!
//! ```no_run
//! use mcp_sansio::connection::Connection;
//! use mcp_sansio_futures::{job_queue, serve_stdio_with_jobs};
//!
//! fn serve<C: Connection + 'static>(mut server: C) -> std::io::Result<()> {
//!     let (sender, jobs) = job_queue::<C>();
//!     // Give `sender` (it is `Clone + Send + Sync`) to whatever defers work, e.g.:
//!     smol::spawn(async move {
//!         // ... slow work ...
//!         let _ = sender.complete(|server: &mut C, now| {
//!             // Call the engine's own "answer the deferred request" method here.
//!             let _ = (server, now);
//!         });
//!     })
//!     .detach();
//!     smol::block_on(serve_stdio_with_jobs(&mut server, jobs))
//! }
//! ```
//!
//! [`AsyncRead`]: futures_io::AsyncRead
//! [`AsyncWrite`]: futures_io::AsyncWrite

use std::io;

use futures_io::{AsyncRead, AsyncWrite};
use mcp_sansio::connection::Connection;
use mcp_sansio_driver::{NoJobs, Options};

#[cfg(unix)]
pub mod child;
#[cfg(unix)]
mod fd;
mod io_glue;
#[cfg(unix)]
mod stdio;

#[cfg(unix)]
pub use fd::{FdMode, FdReader, FdWriter};
pub use io_glue::{AsyncIoClock, FuturesIo};
pub use mcp_sansio_driver::host;
pub use mcp_sansio_driver::{BoxedJob, DriverStopped, JobQueue, JobSender, JobStatus, job_queue};
#[cfg(unix)]
pub use stdio::{serve_stdio, serve_stdio_with_jobs};

/// Drives `conn` over `reader` and `writer` until [`Connection::is_finished`] (see the crate docs
/// for the loop).
///
/// Returns `Ok` once the connection is finished and the writer flushed, or the first read, write or
/// flush error (the connection is left as it was; `reader` and `writer` are dropped either way).
/// The writer is flushed but not closed.
pub async fn run<C, R, W>(conn: &mut C, reader: R, writer: W) -> io::Result<()>
where
    C: Connection,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    drive(conn, FuturesIo::new(reader), FuturesIo::new(writer), &mut NoJobs).await
}

/// [`run`], also running each job sent through a [`JobSender`] of `jobs`, in order, in this
/// future, then writing what it produced.
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
    drive(conn, FuturesIo::new(reader), FuturesIo::new(writer), &mut jobs).await
}

/// Serves `conn` on one duplex byte stream, typically an accepted TCP connection
/// (`smol::net::TcpStream`, `async_std::net::TcpStream`, `async_io::Async<std::net::TcpStream>`)
/// or a Unix socket, framed as newline-delimited JSON.
///
/// Like [`run`] with the stream as both reader and writer. Once the connection is finished the
/// stream is closed ([`AsyncWrite::poll_close`]) and dropped: the peer sees the end of the stream
/// unless clones of it live on (smol's `TcpStream` shuts down its sending side on close; async-std's
/// and `Async<TcpStream>`'s only flush, so a clone kept elsewhere keeps the connection open).
pub async fn serve_tcp<C, S>(conn: &mut C, stream: S) -> io::Result<()>
where
    C: Connection,
    S: AsyncRead + AsyncWrite + Unpin,
{
    serve_duplex(conn, stream, &mut NoJobs).await
}

/// [`serve_tcp`], also running the jobs sent through the [`JobSender`]s of `jobs` (see
/// [`run_with_jobs`]).
pub async fn serve_tcp_with_jobs<C, S>(conn: &mut C, stream: S, mut jobs: JobQueue<C>) -> io::Result<()>
where
    C: Connection,
    S: AsyncRead + AsyncWrite + Unpin,
{
    serve_duplex(conn, stream, &mut jobs).await
}

async fn serve_duplex<C, S, J>(conn: &mut C, stream: S, jobs: &mut J) -> io::Result<()>
where
    C: Connection,
    S: AsyncRead + AsyncWrite + Unpin,
    J: mcp_sansio_driver::Jobs<C>,
{
    let stream = io_glue::Duplex::new(stream);
    drive(conn, FuturesIo::new(stream.half()), FuturesIo::new(stream.half()), jobs).await?;
    stream.close().await
}

/// The driver's loop with async-io's clock and interruptible writes. Shared body of every entry
/// point.
async fn drive<C, R, W, J>(conn: &mut C, mut reader: R, mut writer: W, jobs: &mut J) -> io::Result<()>
where
    C: Connection,
    R: embedded_io_async::Read<Error = io::Error>,
    W: embedded_io_async::Write<Error = io::Error>,
    J: mcp_sansio_driver::Jobs<C>,
{
    let mut clock = AsyncIoClock::start();
    let options = Options::new().interruptible_writes(true);
    mcp_sansio_driver::run_with_options(conn, &mut reader, &mut writer, &mut clock, jobs, options)
        .await
        .map_err(io_glue::into_io_error)
}
