//! Serving a connection on the process's standard input and output.

use std::io;
use std::os::fd::AsFd;
use std::time::Duration;

use mcp_sansio::connection::Connection;

use mcp_sansio_driver::NoJobs;

use crate::drive;
use crate::fd::{FdReader, FdWriter};
use mcp_sansio_driver::JobQueue;

/// Serves `conn` on standard input (fd 0) and standard output (fd 1) until it is finished.
///
/// Call once per process, from a tokio runtime with IO and time enabled; a `current_thread` runtime
/// is the intended one (see the crate docs). Both descriptors go through [`FdReader`] /
/// [`FdWriter`]: pipes, sockets and terminals are made non-blocking and read or written on
/// readiness, one syscall per transfer, on this thread; regular files and `/dev/null` (for example
/// `server < requests.jsonl > out.jsonl`) use plain blocking calls. The original descriptor flags
/// are restored when this returns, including on error.
///
/// Only protocol bytes go to stdout: the application must log to stderr, and must not read stdin
/// or write stdout through `std` meanwhile (their buffers would steal or interleave bytes). If
/// stderr shares its open file description with stdout (the same terminal, or `2>&1`), it is
/// non-blocking too while this runs, and a log write may fail with `WouldBlock`.
///
/// Returns `Ok` once the connection reports it is finished (after stdin ended and every answer was
/// written), or the first IO error: a closed stdout gives `BrokenPipe`.
pub async fn serve_stdio<C: Connection>(conn: &mut C) -> io::Result<()> {
    serve(conn, &mut NoJobs).await
}

/// [`serve_stdio`], also running the jobs sent through the [`JobSender`](crate::JobSender)s of
/// `jobs` (see [`run_with_jobs`](crate::run_with_jobs)).
///
/// Spawn the tasks that hold the senders on the same runtime (`tokio::task::spawn_local` or
/// `spawn` on a `current_thread` runtime), or send from other threads: [`JobSender::complete`]
/// never blocks.
///
/// [`JobSender::complete`]: crate::JobSender::complete
pub async fn serve_stdio_with_jobs<C: Connection>(conn: &mut C, mut jobs: JobQueue<C>) -> io::Result<()> {
    serve(conn, &mut jobs).await
}

/// [`serve_stdio`], with stdin read through [`FdReader::spin_before_wait`]: when no request is
/// waiting, stdin is polled in a busy loop for up to `spin` before the task sleeps. Opt-in, for
/// request/response traffic on an idle machine (it trades up to `spin` of CPU per wait for the
/// wake-up latency of a sleeping process; see there for the costs).
pub async fn serve_stdio_spinning<C: Connection>(conn: &mut C, spin: Duration) -> io::Result<()> {
    serve_with_spin(conn, &mut NoJobs, spin).await
}

async fn serve<C, J>(conn: &mut C, jobs: &mut J) -> io::Result<()>
where
    C: Connection,
    J: mcp_sansio_driver::Jobs<C>,
{
    serve_with_spin(conn, jobs, Duration::ZERO).await
}

async fn serve_with_spin<C, J>(conn: &mut C, jobs: &mut J, spin: Duration) -> io::Result<()>
where
    C: Connection,
    J: mcp_sansio_driver::Jobs<C>,
{
    let stdin = io::stdin();
    let stdout = io::stdout();
    let reader = FdReader::new(stdin.as_fd())?.spin_before_wait(spin);
    let writer = FdWriter::new(stdout.as_fd())?;
    drive(conn, reader, writer, jobs).await
}
