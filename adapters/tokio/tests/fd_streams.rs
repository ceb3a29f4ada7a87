//! `FdReader`/`FdWriter` driving the fake connection over real descriptors: pipes, socketpairs,
//! regular files and `/dev/null`, as `serve_stdio` does with fds 0 and 1.

mod support;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::thread;

use mcp_sansio_tokio::{FdMode, FdReader, FdWriter, run};
use support::{Rng, UpperLines, random_lines, upper};

fn is_nonblocking(fd: BorrowedFd<'_>) -> bool {
    // SAFETY: F_GETFL only reads the flags of an open descriptor.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    assert_ne!(flags, -1);
    flags & libc::O_NONBLOCK != 0
}

/// Serves the fake connection on `input`/`output` with a `current_thread` runtime, as a binary
/// would, and returns the modes that were chosen.
fn serve(input: BorrowedFd<'_>, output: BorrowedFd<'_>) -> (FdMode, FdMode) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let reader = FdReader::new(input).unwrap();
        let writer = FdWriter::new(output).unwrap();
        let modes = (reader.mode(), writer.mode());
        let mut conn = UpperLines::new();
        run(&mut conn, reader, writer).await.unwrap();
        modes
    })
}

/// A file path unique to this test process and `name`, removed on drop.
struct TempPath(PathBuf);

impl TempPath {
    fn new(name: &str) -> Self {
        let file = format!("mcp-sansio-tokio-{}-{name}", std::process::id());
        TempPath(std::env::temp_dir().join(file))
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn pipes_use_readiness_and_get_their_flags_back() {
    let input = random_lines(&mut Rng::new(21), 3000); // Larger than a pipe buffer (64 KiB).
    let (server_in, mut client_in) = std::io::pipe().unwrap();
    let (mut client_out, server_out) = std::io::pipe().unwrap();

    let writer = thread::spawn({
        let input = input.clone();
        move || client_in.write_all(&input).unwrap()
    });
    let reader = thread::spawn(move || {
        let mut output = Vec::new();
        client_out.read_to_end(&mut output).unwrap();
        output
    });
    let modes = serve(server_in.as_fd(), server_out.as_fd());
    assert!(!is_nonblocking(server_in.as_fd()) && !is_nonblocking(server_out.as_fd()));
    drop(server_out); // Lets the reader see EOF.
    writer.join().unwrap();

    assert_eq!(modes, (FdMode::Readiness, FdMode::Readiness));
    assert_eq!(reader.join().unwrap(), upper(&input));
}

#[test]
fn a_socketpair_shared_by_input_and_output_works_like_node_stdio() {
    let input = random_lines(&mut Rng::new(22), 3000);
    let (server, mut client) = UnixStream::pair().unwrap();
    // Like fds 0 and 1 inherited from one socket: two descriptors, one open file description.
    let server_dup = server.try_clone().unwrap();

    let client_thread = thread::spawn({
        let input = input.clone();
        move || {
            let mut sender = client.try_clone().unwrap();
            let writer = thread::spawn(move || {
                sender.write_all(&input).unwrap();
                sender.shutdown(std::net::Shutdown::Write).unwrap();
            });
            let mut output = Vec::new();
            client.read_to_end(&mut output).unwrap();
            writer.join().unwrap();
            output
        }
    });
    let modes = serve(server.as_fd(), server_dup.as_fd());
    assert!(!is_nonblocking(server.as_fd()), "O_NONBLOCK left on the shared description");
    server.shutdown(std::net::Shutdown::Write).unwrap();

    assert_eq!(modes, (FdMode::Readiness, FdMode::Readiness));
    assert_eq!(client_thread.join().unwrap(), upper(&input));
}

#[test]
fn regular_files_fall_back_to_blocking_calls() {
    let input = random_lines(&mut Rng::new(23), 2000);
    let input_path = TempPath::new("requests.jsonl");
    let output_path = TempPath::new("out.jsonl");
    std::fs::write(&input_path.0, &input).unwrap();
    let input_file = File::open(&input_path.0).unwrap();
    let output_file = File::create(&output_path.0).unwrap();

    let modes = serve(input_file.as_fd(), output_file.as_fd());
    assert!(!is_nonblocking(input_file.as_fd()) && !is_nonblocking(output_file.as_fd()));
    drop(output_file);

    assert_eq!(modes, (FdMode::Blocking, FdMode::Blocking));
    assert_eq!(std::fs::read(&output_path.0).unwrap(), upper(&input));
}

#[test]
fn dev_null_input_ends_at_once_and_dev_null_output_swallows() {
    let null_in = File::open("/dev/null").unwrap();
    let null_out = File::options().write(true).open("/dev/null").unwrap();
    assert_eq!(serve(null_in.as_fd(), null_out.as_fd()), (FdMode::Blocking, FdMode::Blocking));

    // File in, /dev/null out: everything is answered into the void and the loop still finishes.
    let input_path = TempPath::new("to-null.jsonl");
    std::fs::write(&input_path.0, random_lines(&mut Rng::new(24), 500)).unwrap();
    let input_file = File::open(&input_path.0).unwrap();
    assert_eq!(serve(input_file.as_fd(), null_out.as_fd()), (FdMode::Blocking, FdMode::Blocking));
}

#[test]
fn a_file_as_input_and_a_pipe_as_output_mix_modes() {
    let input = random_lines(&mut Rng::new(25), 3000);
    let input_path = TempPath::new("mixed.jsonl");
    std::fs::write(&input_path.0, &input).unwrap();
    let input_file = File::open(&input_path.0).unwrap();
    let (mut client_out, server_out) = std::io::pipe().unwrap();
    let reader = thread::spawn(move || {
        let mut output = Vec::new();
        client_out.read_to_end(&mut output).unwrap();
        output
    });

    let modes = serve(input_file.as_fd(), server_out.as_fd());
    drop(server_out);
    assert_eq!(modes, (FdMode::Blocking, FdMode::Readiness));
    assert_eq!(reader.join().unwrap(), upper(&input));
}

#[test]
fn a_closed_pipe_reader_gives_broken_pipe() {
    let (server_in, mut client_in) = std::io::pipe().unwrap();
    let (client_out, server_out) = std::io::pipe().unwrap();
    drop(client_out);
    client_in.write_all(b"hello?\n").unwrap();
    drop(client_in);

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let error = runtime.block_on(async {
        let reader = FdReader::new(server_in.as_fd()).unwrap();
        let writer = FdWriter::new(server_out.as_fd()).unwrap();
        run(&mut UpperLines::new(), reader, writer).await.unwrap_err()
    });
    assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe);
    assert!(!is_nonblocking(server_out.as_fd()), "flags not restored after an error");
}

#[test]
fn a_spinning_reader_reads_what_arrives_during_and_after_its_spin() {
    // Spin 300 us; the client pauses for nothing, 50 us (caught by the spin) or 3 ms (the reader
    // gives up spinning and waits on the reactor) between chunks of lines.
    let input = random_lines(&mut Rng::new(27), 400);
    let (server_in, mut client_in) = std::io::pipe().unwrap();
    let (mut client_out, server_out) = std::io::pipe().unwrap();
    let writer = thread::spawn({
        let input = input.clone();
        move || {
            let pauses = [0, 50, 3000];
            for (i, chunk) in input.chunks(97).enumerate() {
                client_in.write_all(chunk).unwrap();
                thread::sleep(std::time::Duration::from_micros(pauses[i % pauses.len()]));
            }
        }
    });
    let reader = thread::spawn(move || {
        let mut output = Vec::new();
        client_out.read_to_end(&mut output).unwrap();
        output
    });
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let reader = FdReader::new(server_in.as_fd()).unwrap().spin_before_wait(std::time::Duration::from_micros(300));
        let writer = FdWriter::new(server_out.as_fd()).unwrap();
        assert_eq!(reader.mode(), FdMode::Readiness);
        let mut conn = UpperLines::new();
        run(&mut conn, reader, writer).await.unwrap();
    });
    drop(server_out);
    writer.join().unwrap();
    assert_eq!(reader.join().unwrap(), upper(&input));
}
