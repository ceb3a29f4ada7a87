//! `FdReader`/`FdWriter` over pipes, under async-std and under smol: deferred answers that meet a
//! full pipe (the transmit buffer stays full, the job is retried and each answer sent once), and a
//! reader that went away.
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
use support::{INITIALIZE, Runtime, device_server, next_line};

on_both_runtimes!(
    answers_that_meet_a_full_pipe_are_retried_and_each_sent_once,
    a_closed_pipe_reader_ends_the_loop_with_broken_pipe
);

/// The server's ends of two pipes as its streams, and the client's ends.
fn pipes() -> ((FdReader, FdWriter), (Async<std::io::PipeReader>, Async<std::io::PipeWriter>)) {
    let (server_in, client_out) = std::io::pipe().unwrap();
    let (client_in, server_out) = std::io::pipe().unwrap();
    // The smallest pipe Linux makes: a few answers fill it.
    rustix::pipe::fcntl_setpipe_size(&server_out, 4096).unwrap();
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

async fn a_closed_pipe_reader_ends_the_loop_with_broken_pipe(runtime: Runtime) {
    let mut server = device_server(|_| {});
    let ((reader, writer), (client_in, mut client_out)) = pipes();
    drop(client_in);
    client_out.write_all(format!("{INITIALIZE}\n").as_bytes()).await.unwrap();
    let served = run(&mut server, reader, writer).await;
    assert_eq!(served.unwrap_err().kind(), std::io::ErrorKind::BrokenPipe, "on {runtime:?}");
}
