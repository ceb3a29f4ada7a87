//! A client of an MCP server run as a child process over its stdin and stdout, on async-std,
//! smol or any executor with async-io's reactor, through the driver's
//! [host API](mcp_sansio_driver::host). The tokio twin is `mcp_sansio_tokio::child`.
//!
//! This crate spawns no task: [`spawn`] returns the client and the [`Driver`] future, which the
//! caller runs on its executor (`smol::spawn(driver).detach()`,
//! `async_std::task::spawn(driver)`). The child's stderr is drained by a thread into a bounded
//! tail (the last [`STDERR_TAIL`](host::STDERR_TAIL) bytes). [`ChildClient::close`] ends the connection (the driver
//! returns and closes the child's stdin), then sends `SIGTERM` if the child has not exited within
//! [`CLOSE_GRACE`], then kills it after as long again.

use std::future::Future;
use std::io::{self, Read};
use std::pin::Pin;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::task::{Context, Poll};
use std::time::Duration;

use async_io::{Async, Timer};
use mcp_sansio::client;
use mcp_sansio_driver::JobQueue;
use mcp_sansio_driver::host::{self, ClientHandle, Host, HostConnection, StderrTail};

/// How long [`ChildClient::close`] waits for the child to exit after closing its stdin, and again
/// after `SIGTERM`.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// The client's receive and transmit buffers: the longest message either way.
pub const BUFFER: usize = 1 << 20;

/// An MCP server running as a child process, and the handle to call it. Derefs to its
/// [`ClientHandle`].
#[derive(Debug)]
pub struct ChildClient {
    handle: ClientHandle,
    child: Child,
    stderr: StderrTail,
}

/// The loop that moves the child's bytes: run it on the executor (it completes when the
/// connection ends: closed, the child's output ended, or an IO error).
#[must_use = "the client does nothing until its driver runs"]
pub struct Driver {
    future: Pin<Box<dyn Future<Output = io::Result<()>> + Send>>,
}

impl Future for Driver {
    type Output = io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.future.as_mut().poll(cx)
    }
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Driver")
    }
}

/// Spawns `command` with piped stdio; returns the client and the [`Driver`] to run. Call
/// [`ClientHandle::connect`] next (with the driver running).
pub fn spawn(mut command: Command, config: client::Config<'static>, host: Host) -> io::Result<(ChildClient, Driver)> {
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn()?;
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(io::Error::other("the child's stdio is not piped"));
    };
    let (stdin, stdout) = (Async::new(stdin)?, Async::new(stdout)?);
    let (handle, conn, jobs) = host::connection(config, host, BUFFER, BUFFER);
    let tail = StderrTail::new();
    drain_stderr(stderr, tail.clone())?;
    let driver = Driver { future: Box::pin(drive(conn, stdout, stdin, jobs)) };
    Ok((ChildClient { handle, child, stderr: tail }, driver))
}

async fn drive(
    mut conn: HostConnection,
    stdout: Async<ChildStdout>,
    stdin: Async<ChildStdin>,
    jobs: JobQueue<HostConnection>,
) -> io::Result<()> {
    crate::run_with_jobs(&mut conn, stdout, stdin, jobs).await
}

/// Keeps the last [`STDERR_TAIL`](host::STDERR_TAIL) bytes of `stderr`, read on a thread of its own.
fn drain_stderr(mut stderr: std::process::ChildStderr, tail: StderrTail) -> io::Result<()> {
    std::thread::Builder::new().name(String::from("mcp-child-stderr")).spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stderr.read(&mut buf) {
            tail.push(&buf[..n]);
        }
    })?;
    Ok(())
}

impl ChildClient {
    /// The last [`STDERR_TAIL`](host::STDERR_TAIL) bytes the child wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// The child's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Whether the child exited (its status), without waiting.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    /// Ends the connection (the driver returns and closes the child's stdin; requests still
    /// waiting get [`RequestError::Closed`](host::RequestError::Closed)), then `SIGTERM` if the
    /// child has not exited within [`CLOSE_GRACE`], then kills it after as long again.
    pub async fn close(mut self) -> io::Result<ExitStatus> {
        // The input ends: the engine finishes and the driver returns, dropping the child's stdin.
        let _ = self.handle.end();
        if let Some(status) = self.wait_for(CLOSE_GRACE).await? {
            return Ok(status);
        }
        // The pid is this process's child, not yet reaped (`try_wait` has not returned its
        // status), so it names no other process.
        #[cfg(unix)]
        if let Some(pid) = i32::try_from(self.child.id()).ok().and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            if let Some(status) = self.wait_for(CLOSE_GRACE).await? {
                return Ok(status);
            }
        }
        self.child.kill()?;
        self.child.wait()
    }

    async fn wait_for(&mut self, grace: Duration) -> io::Result<Option<ExitStatus>> {
        let deadline = std::time::Instant::now() + grace;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(Some(status));
            }
            if std::time::Instant::now() >= deadline {
                return Ok(None);
            }
            Timer::after(Duration::from_millis(10)).await;
        }
    }
}

impl std::ops::Deref for ChildClient {
    type Target = ClientHandle;

    fn deref(&self) -> &ClientHandle {
        &self.handle
    }
}
