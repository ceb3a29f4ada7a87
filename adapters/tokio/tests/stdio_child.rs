//! `serve_stdio` on a real process's fds 0 and 1.
//!
//! Built without the test harness (it would print to stdout): run normally, this binary spawns
//! itself as a child that serves the fake connection on its stdio, with stdin and stdout set to
//! pipes, socketpairs (as Node spawns children), one shared socket, regular files, or a pipe whose
//! reader is gone, and checks what comes out and the exit status. The child checks that its
//! descriptors' flags were restored.

mod support;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;

use support::{Rng, UpperLines, random_lines, upper};

/// Set in the child's environment to make it serve instead of testing.
const CHILD_ENV: &str = "MCP_SANSIO_TOKIO_STDIO_CHILD";
/// Child exit code for a `BrokenPipe` error from `serve_stdio`.
const EXIT_BROKEN_PIPE: i32 = 3;
/// Child exit code when fd 0 or 1 is still non-blocking after `serve_stdio` returned.
const EXIT_FLAGS_NOT_RESTORED: i32 = 4;

fn main() {
    if std::env::var_os(CHILD_ENV).is_some() {
        serve_as_child();
    }
    let cases: [(&str, fn()); 5] = [
        ("pipes", pipes),
        ("socketpairs", socketpairs),
        ("one socket for stdin and stdout", one_shared_socket),
        ("regular files", regular_files),
        ("closed stdout reader", closed_stdout_reader),
    ];
    let mut failed = 0;
    for (name, case) in cases {
        match std::panic::catch_unwind(case) {
            Ok(()) => println!("test stdio child: {name} ... ok"),
            Err(_) => {
                println!("test stdio child: {name} ... FAILED");
                failed += 1;
            }
        }
    }
    println!("{} passed, {failed} failed", cases.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}

/// The child: what a server binary's `main` does, then a check that fds 0 and 1 are blocking
/// again (the parent hands them over blocking).
fn serve_as_child() -> ! {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut conn = UpperLines::new();
    let served = runtime.block_on(mcp_sansio_tokio::serve_stdio(&mut conn));
    if is_nonblocking(std::io::stdin().as_fd()) || is_nonblocking(std::io::stdout().as_fd()) {
        eprintln!("serve_stdio left O_NONBLOCK on stdin or stdout");
        std::process::exit(EXIT_FLAGS_NOT_RESTORED);
    }
    match served {
        Ok(()) => std::process::exit(0),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(EXIT_BROKEN_PIPE),
        Err(error) => {
            eprintln!("serve_stdio failed: {error}");
            std::process::exit(1)
        }
    }
}

fn child(stdin: impl Into<Stdio>, stdout: impl Into<Stdio>) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(CHILD_ENV, "1").stdin(stdin).stdout(stdout).stderr(Stdio::inherit());
    command
}

fn is_nonblocking(fd: BorrowedFd<'_>) -> bool {
    // SAFETY: F_GETFL only reads the flags of an open descriptor.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    assert_ne!(flags, -1);
    flags & libc::O_NONBLOCK != 0
}

/// Writes `input` through `feed` (then drops it: end of input) while reading `drain` to the end,
/// then waits for the child. The caller must have dropped its copies of the child's ends.
fn exchange(
    mut process: Child,
    input: &[u8],
    mut feed: impl Write + Send + 'static,
    mut drain: impl Read,
) -> (ExitStatus, Vec<u8>) {
    let input = input.to_vec();
    let writer = thread::spawn(move || feed.write_all(&input).unwrap());
    let mut output = Vec::new();
    drain.read_to_end(&mut output).unwrap();
    writer.join().unwrap();
    (process.wait().unwrap(), output)
}

fn pipes() {
    let input = random_lines(&mut Rng::new(31), 3000);
    let (child_in, parent_in) = std::io::pipe().unwrap();
    let (parent_out, child_out) = std::io::pipe().unwrap();

    // The temporary `Command` drops the parent's copies of the child's ends.
    let process = child(child_in, child_out).spawn().unwrap();
    let (status, output) = exchange(process, &input, parent_in, parent_out);
    assert!(status.success(), "{status}");
    assert_eq!(output, upper(&input));
}

fn socketpairs() {
    let input = random_lines(&mut Rng::new(32), 3000);
    let (parent_in, child_in) = UnixStream::pair().unwrap();
    let (parent_out, child_out) = UnixStream::pair().unwrap();

    let process = child(OwnedFd::from(child_in), OwnedFd::from(child_out)).spawn().unwrap();
    let (status, output) = exchange(process, &input, ShutdownOnDrop(parent_in), parent_out);
    assert!(status.success(), "{status}");
    assert_eq!(output, upper(&input));
}

fn one_shared_socket() {
    let input = random_lines(&mut Rng::new(33), 3000);
    let (parent, child_end) = UnixStream::pair().unwrap();
    let child_stdout = child_end.try_clone().unwrap();

    let process = child(OwnedFd::from(child_end), OwnedFd::from(child_stdout)).spawn().unwrap();
    let feed = ShutdownOnDrop(parent.try_clone().unwrap());
    let (status, output) = exchange(process, &input, feed, parent);
    assert!(status.success(), "{status}");
    assert_eq!(output, upper(&input));
}

fn regular_files() {
    let input = random_lines(&mut Rng::new(34), 3000);
    let dir = std::env::temp_dir();
    let input_path = dir.join(format!("mcp-sansio-tokio-child-{}-in", std::process::id()));
    let output_path = dir.join(format!("mcp-sansio-tokio-child-{}-out", std::process::id()));
    std::fs::write(&input_path, &input).unwrap();

    let status = child(File::open(&input_path).unwrap(), File::create(&output_path).unwrap()).status().unwrap();
    let output = std::fs::read(&output_path).unwrap();
    let _ = std::fs::remove_file(&input_path);
    let _ = std::fs::remove_file(&output_path);
    assert!(status.success(), "{status}");
    assert_eq!(output, upper(&input));
}

fn closed_stdout_reader() {
    let (child_in, mut parent_in) = std::io::pipe().unwrap();
    let (parent_out, child_out) = std::io::pipe().unwrap();
    drop(parent_out);
    parent_in.write_all(b"is anyone reading?\n").unwrap();
    drop(parent_in);

    let status = child(child_in, child_out).status().unwrap();
    assert_eq!(status.code(), Some(EXIT_BROKEN_PIPE), "{status}");
}

/// Shuts the write half of a socket down when dropped, so the child sees end of input.
struct ShutdownOnDrop(UnixStream);

impl Write for ShutdownOnDrop {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl Drop for ShutdownOnDrop {
    fn drop(&mut self) {
        let _ = self.0.shutdown(std::net::Shutdown::Write);
    }
}
