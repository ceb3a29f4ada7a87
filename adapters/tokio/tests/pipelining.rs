//! A peer that pipelines a mebibyte of requests and reads nothing until it has written them all,
//! against the example device served on small pipes as `serve_stdio` serves fds 0 and 1: the loop
//! keeps reading while its answers wait for the full pipe, so neither side waits forever.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::thread;
use std::time::Duration;

use mcp_example_device::Device;
use mcp_sansio::server::{Buffers, Config, Limits, Server};
use mcp_sansio_tokio::{FdReader, FdWriter, run};

mod support;
use support::FixedBoard;

/// 256 pings of 4 KiB each (a long ignored parameter): 1 MiB of requests.
const PINGS: usize = 256;
const PING_BYTES: usize = 4096;
/// The smallest pipe Linux makes.
const PIPE: usize = 4096;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;

fn set_pipe_size(fd: BorrowedFd<'_>, size: usize) {
    // SAFETY: F_SETPIPE_SZ only resizes the buffer of an open pipe.
    let set = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, size as libc::c_int) };
    assert_eq!(set, size as libc::c_int, "F_SETPIPE_SZ");
}

/// A ping padded to [`PING_BYTES`] with its newline.
fn padded_ping(id: usize) -> String {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"padding":""#);
    let tail = "\"}}\n";
    format!("{head}{}{tail}", "x".repeat(PING_BYTES - head.len() - tail.len()))
}

#[test]
fn a_peer_that_writes_a_mebibyte_before_reading_is_answered_in_full() {
    let (server_in, mut client_in) = std::io::pipe().unwrap();
    let (client_out, server_out) = std::io::pipe().unwrap();
    set_pipe_size(server_in.as_fd(), PIPE);
    set_pipe_size(server_out.as_fd(), PIPE);

    // Everything is written before anything is read: the server must keep reading while its
    // answers wait for the full pipe, or both sides wait to write forever.
    let client = thread::spawn(move || {
        let requests: String = (2..PINGS + 2).map(padded_ping).collect();
        assert_eq!(requests.len(), PINGS * PING_BYTES);
        client_in.write_all(format!("{INITIALIZE}\n").as_bytes()).unwrap();
        client_in.write_all(requests.as_bytes()).unwrap();
        drop(client_in);
        BufReader::new(client_out).lines().map(|line| serde_json::from_str(&line.unwrap()).unwrap()).collect()
    });

    // `mcp-device`'s configuration (the largest answer a quarter of the transmit buffer), with
    // buffers that hold four requests and, beside the 4 KiB pipe, about 12 KiB of answers:
    // together less than the 1 MiB of requests, more than their answers (about 9 KiB).
    let (mut rx, mut tx) = (vec![0u8; 16 * 1024], vec![0u8; 16 * 1024]);
    let mut config = Config::new("mcp-device", "0.1.0");
    config.limits = Limits { max_response: tx.len() / 4, ..Limits::default() };
    let mut server: Server<'_, _> = Server::new(Device::new(FixedBoard), config, Buffers { rx: &mut rx, tx: &mut tx });
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let reader = FdReader::new(server_in.as_fd()).unwrap();
        let writer = FdWriter::new(server_out.as_fd()).unwrap();
        let served = tokio::time::timeout(Duration::from_secs(20), run(&mut server, reader, writer)).await;
        served
            .expect("no answer to the whole pipelined burst within 20 s: the server and its peer deadlocked")
            .unwrap();
    });
    drop(server_out); // Lets the client see the end of the answers.

    let answers: Vec<serde_json::Value> = client.join().unwrap();
    let ids: Vec<u64> = answers.iter().map(|answer| answer["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, (1..PINGS as u64 + 2).collect::<Vec<_>>(), "every request answered once, in order");
    assert!(answers[1..].iter().all(|answer| answer["result"] == serde_json::json!({})), "{}", answers[1]);
    let answered: usize = answers.iter().map(|answer| answer.to_string().len() + 1).sum();
    assert!(answered > 2 * PIPE, "{answered} bytes of answers do not overflow the pipe: the test proves nothing");
}
