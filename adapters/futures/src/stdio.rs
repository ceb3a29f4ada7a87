//! Serving a connection on the process's standard input and output.

use std::io;
use std::os::fd::AsFd;

use mcp_sansio::connection::Connection;
use mcp_sansio_driver::NoJobs;

use crate::drive;
use crate::fd::{FdReader, FdWriter};
use mcp_sansio_driver::JobQueue;

/// Serves `conn` on standard input (fd 0) and standard output (fd 1) until it is finished.
///
/// Call once per process, under any executor (`smol::block_on`, `async_std::task::block_on`).
/// Both descriptors go through [`FdReader`] / [`FdWriter`]: pipes, sockets and terminals are made
/// non-blocking and read or written on readiness (async-io's reactor), one syscall per transfer, on
/// this thread; regular files and `/dev/null` (for example `server < requests.jsonl > out.jsonl`)
/// use plain blocking calls. The original descriptor flags are restored when this returns,
/// including on error.
///
/// Only protocol bytes go to stdout: the application must log to stderr, and must not read stdin
/// or write stdout through `std` (or the runtime's `stdin()`/`stdout()`) meanwhile: their buffers
/// would steal or interleave bytes. If stderr shares its open file description with stdout (the
/// same terminal, or `2>&1`), it is non-blocking too while this runs, and a log write may fail with
/// `WouldBlock`.
///
/// Returns `Ok` once the connection reports it is finished (after stdin ended and every answer was
/// written), or the first IO error: a closed stdout gives `BrokenPipe`.
pub async fn serve_stdio<C: Connection>(conn: &mut C) -> io::Result<()> {
    serve(conn, &mut NoJobs).await
}

/// [`serve_stdio`], also running the jobs sent through the [`JobSender`](crate::JobSender)s of
/// `jobs` (see [`run_with_jobs`](crate::run_with_jobs)).
///
/// The tasks that hold the senders can run on the same executor or on other threads:
/// [`JobSender::complete`](crate::JobSender::complete) never blocks.
pub async fn serve_stdio_with_jobs<C: Connection>(conn: &mut C, mut jobs: JobQueue<C>) -> io::Result<()> {
    serve(conn, &mut jobs).await
}

async fn serve<C, J>(conn: &mut C, jobs: &mut J) -> io::Result<()>
where
    C: Connection,
    J: mcp_sansio_driver::Jobs<C>,
{
    let reader = FdReader::new(io::stdin().as_fd())?;
    let writer = FdWriter::new(io::stdout().as_fd())?;
    drive(conn, reader, writer, jobs).await
}
