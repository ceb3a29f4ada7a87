//! `FdReader`/`FdWriter` over pipes, under async-std and under smol: deferred answers that meet a
//! full pipe (the transmit buffer stays full, the job is retried and each answer sent once), a peer
//! that writes a mebibyte of requests before it reads (no deadlock), and a reader that went away.
#![cfg(target_os = "linux")]

#[macro_use]
mod support;

use std::collections::HashMap;
use std::os::fd::AsFd;
use std::sync::atomic::Ordering;
use std::time::Duration;

use async_io::Async;
use mcp_sansio_futures::{FdMode, FdReader, FdWriter, run, run_with_jobs};
use smol::io::{AsyncWriteExt, BufReader};
use support::slow::{request, slow_server};
use support::{INITIALIZE, Runtime, device_server, device_server_with, next_line};

on_both_runtimes!(
    answers_that_meet_a_full_pipe_are_retried_and_each_sent_once,
    a_peer_that_writes_a_mebibyte_before_reading_is_answered_in_full,
    a_closed_pipe_reader_ends_the_loop_with_broken_pipe
);

/// The server's ends of two pipes as its streams, and the client's ends.
fn pipes() -> ((FdReader, FdWriter), (Async<std::io::PipeReader>, Async<std::io::PipeWriter>)) {
    let (server_in, client_out) = std::io::pipe().unwrap();
    let (client_in, server_out) = std::io::pipe().unwrap();
    // The smallest pipe Linux makes: a few answers fill it.
    rustix::pipe::fcntl_setpipe_size(&server_out, 4096).unwrap();
    rustix::pipe::fcntl_setpipe_size(&server_in, 4096).unwrap();
    // The streams work on duplicates: the originals are closed here, so each end closes with them.
    let server = (FdReader::new(server_in.as_fd()).unwrap(), FdWriter::new(server_out.as_fd()).unwrap());
    assert_eq!((server.0.mode(), server.1.mode()), (FdMode::Readiness, FdMode::Readiness));
    (server, (Async::new(client_in).unwrap(), Async::new(client_out).unwrap()))
}

async fn answers_that_meet_a_full_pipe_are_retried_and_each_sent_once(runtime: Runtime) {
    const REQUESTS: u64 = 30;
    // The smallest transmit buffer: one answer fills it, so an answer is refused
    // (`ReplyError::Busy`) while the previous one waits for room in the pipe.
    let (mut server, jobs, busy) = slow_server(runtime, mcp_sansio::server::MIN_RESPONSE_WINDOW);
    let ((reader, writer), (client_in, mut client_out)) = pipes();
    let client_side = async move {
        let requests: String = (1..=REQUESTS as u32).map(|id| request(id, 0)).collect();
        client_out.write_all(requests.as_bytes()).await.unwrap();
        // Nobody reads for a while: the pipe fills and the server's writes wait.
        runtime.sleep(Duration::from_millis(300)).await;
        let mut lines = BufReader::new(client_in);
        let mut answers = HashMap::new();
        while answers.len() < REQUESTS as usize {
            let answer = next_line(&mut lines).await.expect("an answer before the end");
            let id = answer["id"].as_u64().unwrap();
            assert!(answers.insert(id, answer).is_none(), "id {id} answered twice");
        }
        drop(client_out);
        assert_eq!(next_line(&mut lines).await, None, "nothing after the expected answers");
        answers
    };
    let (served, answers) = smol::future::zip(run_with_jobs(&mut server, reader, writer, jobs), client_side).await;
    served.unwrap();
    for id in 1..=REQUESTS {
        assert_eq!(answers[&id]["result"]["content"][0]["text"], "slept 0 ms", "{}", answers[&id]);
    }
    assert!(busy.load(Ordering::SeqCst) >= 1, "no answer met a full transmit buffer: the test proves nothing");
    assert_eq!(server.in_flight(), 0);
}

/// Requests of the pipelining test: 256 pings of 4 KiB (a long ignored parameter), 1 MiB in all.
const PINGS: usize = 256;
const PING_BYTES: usize = 4096;

/// A ping padded to [`PING_BYTES`] with its newline.
fn padded_ping(id: usize) -> String {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"padding":""#);
    let tail = "\"}}\n";
    format!("{head}{}{tail}", "x".repeat(PING_BYTES - head.len() - tail.len()))
}

async fn a_peer_that_writes_a_mebibyte_before_reading_is_answered_in_full(runtime: Runtime) {
    // Configured as `mcp-device` is (the largest answer a quarter of the transmit buffer), with
    // buffers that hold four requests and, beside the 4 KiB pipe, about 12 KiB of answers:
    // together less than the 1 MiB of requests, more than their answers (about 9 KiB).
    let mut server = device_server_with(16 * 1024, 16 * 1024, |config| config.limits.max_response = 4 * 1024);
    let ((reader, writer), (client_in, mut client_out)) = pipes();
    let client_side = async move {
        client_out.write_all(format!("{INITIALIZE}\n").as_bytes()).await.unwrap();
        let requests: String = (2..PINGS + 2).map(padded_ping).collect();
        assert_eq!(requests.len(), PINGS * PING_BYTES);
        // Everything is written before anything is read: the server must keep reading while its
        // answers wait for the full pipe, or both sides wait to write forever.
        client_out.write_all(requests.as_bytes()).await.unwrap();
        drop(client_out);
        let mut lines = BufReader::new(client_in);
        let mut answers = Vec::new();
        while let Some(answer) = next_line(&mut lines).await {
            answers.push(answer);
        }
        answers
    };
    let served = run(&mut server, reader, writer);
    let deadlock = async {
        runtime.sleep(Duration::from_secs(20)).await;
        panic!("no answer to the whole pipelined burst within 20 s: the server and its peer deadlocked");
    };
    let (served, answers) = smol::future::or(smol::future::zip(served, client_side), deadlock).await;
    served.unwrap();
    let ids: Vec<u64> = answers.iter().map(|answer| answer["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, (1..PINGS as u64 + 2).collect::<Vec<_>>(), "every request answered once, in order");
    assert!(answers[1..].iter().all(|answer| answer["result"] == serde_json::json!({})), "{}", answers[1]);
    let answered: usize = answers.iter().map(|answer| answer.to_string().len() + 1).sum();
    assert!(answered > 2 * 4096, "{answered} bytes of answers do not overflow the pipe: the test proves nothing");
}

async fn a_closed_pipe_reader_ends_the_loop_with_broken_pipe(runtime: Runtime) {
    let mut server = device_server(|_| {});
    let ((reader, writer), (client_in, mut client_out)) = pipes();
    drop(client_in);
    client_out.write_all(format!("{INITIALIZE}\n").as_bytes()).await.unwrap();
    let served = run(&mut server, reader, writer).await;
    assert_eq!(served.unwrap_err().kind(), std::io::ErrorKind::BrokenPipe, "on {runtime:?}");
}
