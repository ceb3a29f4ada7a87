//! A client of an MCP server run as a child process over its stdin and stdout (the stdio
//! transport), on the driver's loop and the [host API](mcp_sansio_driver::host).
//!
//! The child's stderr is drained into a bounded tail (the last [`STDERR_TAIL`](host::STDERR_TAIL) bytes), so the
//! child never blocks on it and its last words can go into an error message. [`ChildClient::close`]
//! ends the child as the spec says: stdin closed, then `SIGTERM` after [`CLOSE_GRACE`], then
//! `SIGKILL` after as long again.
//!
//! ```no_run
//! use mcp_sansio::client::Config;
//! use mcp_sansio_tokio::{child, host::Host};
//!
//! # async fn host() -> Result<(), Box<dyn std::error::Error>> {
//! let server = tokio::process::Command::new("mcp-device");
//! let client = child::spawn(server, Config::new("my-host", "1.0.0"), Host::new())?;
//! let connected = client.connect().await?; // server/discover, or initialize for an older server
//! println!("{:?} speaks {}", connected.server_name, connected.version.as_str());
//! for tool in client.list_tools().await? {
//!     println!("{}", String::from_utf8_lossy(&tool));
//! }
//! let result = client.call_tool("echo", r#"{"message":"hello"}"#).await?;
//! println!("{}", String::from_utf8_lossy(&result));
//! client.close().await?;
//! # Ok(())
//! # }
//! ```

use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use mcp_sansio::client;
use mcp_sansio_driver::host::{self, ClientHandle, Host, StderrTail};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

/// How long [`ChildClient::close`] waits after closing stdin, and again after `SIGTERM`.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// The client's receive and transmit buffers: the longest message either way.
pub const BUFFER: usize = 1 << 20;

/// An MCP server running as a child process, and the handle to call it. Derefs to its
/// [`ClientHandle`].
#[derive(Debug)]
pub struct ChildClient {
    handle: ClientHandle,
    driver: JoinHandle<io::Result<()>>,
    child: Child,
    stderr: StderrTail,
}

/// Spawns `command` with piped stdio and drives a client engine over it on a tokio task (call it
/// from a tokio runtime with IO and time enabled). Call [`ClientHandle::connect`] next.
pub fn spawn(mut command: Command, config: client::Config<'static>, host: Host) -> io::Result<ChildClient> {
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let mut child = command.spawn()?;
    let (Some(stdin), Some(stdout), Some(mut stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(io::Error::other("the child's stdio is not piped"));
    };
    let (handle, mut conn, jobs) = host::connection(config, host, BUFFER, BUFFER);
    let driver = tokio::spawn(async move { crate::run_with_jobs(&mut conn, stdout, stdin, jobs).await });
    let tail = StderrTail::new();
    let sink = tail.clone();
    tokio::spawn(async move {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stderr.read(&mut buf).await {
            sink.push(&buf[..n]);
        }
    });
    Ok(ChildClient { handle, driver, child, stderr: tail })
}

impl ChildClient {
    /// The last [`STDERR_TAIL`](host::STDERR_TAIL) bytes the child wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// The child's process id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Whether the child exited (its status), without waiting.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    /// Ends the connection and the child: what the handles queued is written first (a
    /// cancellation of a request given up: [`ClientHandle::end`]), for [`CLOSE_GRACE`] at most,
    /// then stdin is closed (the driver stops; requests still waiting get
    /// [`RequestError::Closed`](host::RequestError::Closed)), then `SIGTERM` if the child has not
    /// exited within [`CLOSE_GRACE`], then `SIGKILL` after as long again.
    pub async fn close(mut self) -> io::Result<ExitStatus> {
        if self.handle.end().is_err() || tokio::time::timeout(CLOSE_GRACE, &mut self.driver).await.is_err() {
            self.driver.abort();
            let _ = (&mut self.driver).await;
        }
        if let Ok(status) = tokio::time::timeout(CLOSE_GRACE, self.child.wait()).await {
            return status;
        }
        #[cfg(unix)]
        if let Some(pid) = self.child.id().and_then(|pid| i32::try_from(pid).ok()) {
            // SAFETY: `kill` takes no pointers; the pid is this process's child, not yet reaped
            // (`wait` has not returned), so it names no other process.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            if let Ok(status) = tokio::time::timeout(CLOSE_GRACE, self.child.wait()).await {
                return status;
            }
        }
        self.child.kill().await?;
        self.child.wait().await
    }
}

impl std::ops::Deref for ChildClient {
    type Target = ClientHandle;

    fn deref(&self) -> &ClientHandle {
        &self.handle
    }
}
