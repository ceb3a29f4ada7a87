//! `serve_stdio` on a real process's fds 0 and 1, under async-std and under smol.
//!
//! Built without the test harness (it would print to stdout): run normally, this binary spawns
//! itself as a child that serves the example device on its stdio with the runtime named in
//! [`CHILD_ENV`], with stdin and stdout set to pipes, socketpairs (as Node spawns children), one
//! shared socket, regular files (the blocking fallback), or a pipe whose reader is gone, and checks
//! what comes out and the exit status. The child checks that its descriptors' flags were restored.
#![cfg(unix)]

mod support;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;

use support::{INITIALIZE, INITIALIZED, Runtime, device_server};

/// Set in the child's environment (to `async-std` or `smol`) to make it serve instead of testing.
const CHILD_ENV: &str = "MCP_SANSIO_FUTURES_STDIO_CHILD";
/// Child exit code for a `BrokenPipe` error from `serve_stdio`.
const EXIT_BROKEN_PIPE: i32 = 3;
/// Child exit code when fd 0 or 1 is still non-blocking after `serve_stdio` returned.
const EXIT_FLAGS_NOT_RESTORED: i32 = 4;
/// One test case, run with the child on the named runtime.
type Case = fn(&str);

/// Pings per exchange: enough to fill pipe and socket buffers several times over.
const PINGS: usize = 20_000;

fn main() {
    if let Some(runtime) = std::env::var_os(CHILD_ENV) {
        serve_as_child(runtime.to_str().unwrap());
    }
    let cases: [(&str, Case); 5] = [
        ("pipes", pipes),
        ("socketpairs", socketpairs),
        ("one socket for stdin and stdout", one_shared_socket),
        ("regular files", regular_files),
        ("closed stdout reader", closed_stdout_reader),
    ];
    let mut failed = 0;
    for runtime in ["async-std", "smol"] {
        for (name, case) in cases {
            match std::panic::catch_unwind(|| case(runtime)) {
                Ok(()) => println!("test stdio child on {runtime}: {name} ... ok"),
                Err(_) => {
                    println!("test stdio child on {runtime}: {name} ... FAILED");
                    failed += 1;
                }
            }
        }
    }
    println!("{} passed, {failed} failed", 2 * cases.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}

/// The child: what a server binary's `main` does, then a check that fds 0 and 1 are blocking
/// again (the parent hands them over blocking).
fn serve_as_child(runtime: &str) -> ! {
    let mut server = device_server(|_| {});
    let serve = mcp_sansio_futures::serve_stdio(&mut server);
    let served = match runtime {
        "async-std" => Runtime::AsyncStd.block_on(serve),
        "smol" => Runtime::Smol.block_on(serve),
        other => panic!("unknown runtime {other}"),
    };
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

fn child(runtime: &str, stdin: impl Into<Stdio>, stdout: impl Into<Stdio>) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(CHILD_ENV, runtime).stdin(stdin).stdout(stdout).stderr(Stdio::inherit());
    command
}

fn is_nonblocking(fd: BorrowedFd<'_>) -> bool {
    rustix::fs::fcntl_getfl(fd).unwrap().contains(rustix::fs::OFlags::NONBLOCK)
}

/// A session: initialize, then [`PINGS`] pings.
fn input() -> Vec<u8> {
    let mut input = format!("{INITIALIZE}\n{INITIALIZED}\n");
    for id in 0..PINGS {
        input.push_str(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"));
    }
    input.into_bytes()
}

/// Checks the answers to [`input`]: the initialize result, then each ping's, in order.
fn check_output(output: &[u8]) {
    let text = std::str::from_utf8(output).unwrap();
    let mut lines = text.lines();
    let initialized: serde_json::Value = serde_json::from_str(lines.next().expect("an answer")).unwrap();
    assert_eq!(initialized["id"], 1, "{initialized}");
    let pongs: Vec<&str> = lines.collect();
    assert_eq!(pongs.len(), PINGS, "one answer per ping");
    for (id, pong) in pongs.iter().enumerate() {
        assert_eq!(*pong, format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"));
    }
    assert!(text.ends_with('\n'));
}

/// Writes `input` through `feed` (then drops it: end of input) while reading `drain` to the end,
/// then waits for the child. The caller must have dropped its copies of the child's ends.
fn exchange(
    mut process: Child,
    input: Vec<u8>,
    mut feed: impl Write + Send + 'static,
    mut drain: impl Read,
) -> (ExitStatus, Vec<u8>) {
    let writer = thread::spawn(move || feed.write_all(&input).unwrap());
    let mut output = Vec::new();
    drain.read_to_end(&mut output).unwrap();
    writer.join().unwrap();
    (process.wait().unwrap(), output)
}

fn pipes(runtime: &str) {
    let (child_in, parent_in) = std::io::pipe().unwrap();
    let (parent_out, child_out) = std::io::pipe().unwrap();
    // The temporary `Command` drops the parent's copies of the child's ends.
    let process = child(runtime, child_in, child_out).spawn().unwrap();
    let (status, output) = exchange(process, input(), parent_in, parent_out);
    assert!(status.success(), "{status}");
    check_output(&output);
}

fn socketpairs(runtime: &str) {
    let (parent_in, child_in) = UnixStream::pair().unwrap();
    let (parent_out, child_out) = UnixStream::pair().unwrap();
    let process = child(runtime, OwnedFd::from(child_in), OwnedFd::from(child_out)).spawn().unwrap();
    let (status, output) = exchange(process, input(), ShutdownOnDrop(parent_in), parent_out);
    assert!(status.success(), "{status}");
    check_output(&output);
}

fn one_shared_socket(runtime: &str) {
    let (parent, child_end) = UnixStream::pair().unwrap();
    let child_stdout = child_end.try_clone().unwrap();
    let process = child(runtime, OwnedFd::from(child_end), OwnedFd::from(child_stdout)).spawn().unwrap();
    let feed = ShutdownOnDrop(parent.try_clone().unwrap());
    let (status, output) = exchange(process, input(), feed, parent);
    assert!(status.success(), "{status}");
    check_output(&output);
}

fn regular_files(runtime: &str) {
    let dir = std::env::temp_dir();
    let input_path = dir.join(format!("mcp-sansio-futures-child-{}-{runtime}-in", std::process::id()));
    let output_path = dir.join(format!("mcp-sansio-futures-child-{}-{runtime}-out", std::process::id()));
    std::fs::write(&input_path, input()).unwrap();
    let status =
        child(runtime, File::open(&input_path).unwrap(), File::create(&output_path).unwrap()).status().unwrap();
    let output = std::fs::read(&output_path).unwrap();
    let _ = std::fs::remove_file(&input_path);
    let _ = std::fs::remove_file(&output_path);
    assert!(status.success(), "{status}");
    check_output(&output);
}

fn closed_stdout_reader(runtime: &str) {
    let (child_in, mut parent_in) = std::io::pipe().unwrap();
    let (parent_out, child_out) = std::io::pipe().unwrap();
    drop(parent_out);
    parent_in.write_all(format!("{INITIALIZE}\n").as_bytes()).unwrap();
    drop(parent_in);
    let status = child(runtime, child_in, child_out).status().unwrap();
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
