//! The run loop over in-memory streams (`tokio::io::duplex`), with the `UpperLines` fake.

mod support;

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_sansio::connection::Connection;
use mcp_sansio::time::Instant;
use mcp_sansio_tokio::{DriverStopped, job_queue, run, run_with_jobs};
use support::{Rng, UpperLines, random_lines, upper};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream, duplex};

/// Writes `input` in random chunks (sometimes pausing), then closes the stream.
async fn write_in_random_chunks(mut stream: DuplexStream, input: &[u8], seed: u64) {
    let mut rng = Rng::new(seed);
    let mut rest = input;
    while !rest.is_empty() {
        let chunk = rng.between(1, 37).min(rest.len());
        stream.write_all(&rest[..chunk]).await.unwrap();
        rest = &rest[chunk..];
        if rng.between(0, 3) == 0 {
            tokio::task::yield_now().await;
        }
    }
    stream.shutdown().await.unwrap();
}

/// Reads everything until EOF, `chunk` bytes at a time, sleeping `pause` between reads.
async fn read_slowly(mut stream: DuplexStream, chunk: usize, pause: Duration) -> Vec<u8> {
    let mut output = Vec::new();
    let mut buf = vec![0u8; chunk];
    loop {
        let n = stream.read(&mut buf).await.unwrap();
        if n == 0 {
            return output;
        }
        output.extend_from_slice(&buf[..n]);
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
}

#[tokio::test]
async fn echo_is_independent_of_how_input_is_chunked() {
    for seed in 1..=20u64 {
        let input = random_lines(&mut Rng::new(seed), 300);
        let (client_in, server_in) = duplex(64);
        let (server_out, client_out) = duplex(64);
        let mut conn = UpperLines::new();

        let (result, (), output) = tokio::join!(
            run(&mut conn, server_in, server_out),
            write_in_random_chunks(client_in, &input, seed * 7919),
            read_slowly(client_out, 1024, Duration::ZERO),
        );
        result.unwrap();
        assert_eq!(output, upper(&input), "seed {seed}");
        assert!(conn.is_finished());
    }
}

#[tokio::test(start_paused = true)]
async fn back_pressure_with_a_slow_reader_loses_nothing() {
    let input = random_lines(&mut Rng::new(42), 400);
    // The output stream holds 8 bytes and is read 3 bytes per millisecond: writes block, and the
    // fake connection gives no room to read meanwhile (`transmit_blocked`'s default), so the loop
    // stops reading, so the 16-byte input stream fills and blocks the writer in turn.
    let (client_in, server_in) = duplex(16);
    let (server_out, client_out) = duplex(8);
    let mut conn = UpperLines::new();

    let (result, (), output) = tokio::join!(
        run(&mut conn, server_in, server_out),
        write_in_random_chunks(client_in, &input, 3),
        read_slowly(client_out, 3, Duration::from_millis(1)),
    );
    result.unwrap();
    assert_eq!(output, upper(&input));
}

#[tokio::test(start_paused = true)]
async fn held_input_stops_reads_without_spinning_until_released() {
    let input = random_lines(&mut Rng::new(5), 200);
    let (client_in, server_in) = duplex(4096);
    let (server_out, client_out) = duplex(4096);
    let mut conn = UpperLines::new();
    conn.hold_input = true;
    let (sender, jobs) = job_queue::<UpperLines>();

    // Its own task, so that only the loop's own wake-ups poll it (`join!` polls every branch).
    let server = tokio::spawn(async move {
        let result = run_with_jobs(&mut conn, server_in, server_out, jobs).await;
        (result, conn)
    });
    let release = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        sender
            .complete(|conn: &mut UpperLines, _| {
                // The receive buffer filled and the loop stopped asking for room: a busy loop
                // would have made thousands of calls in 50 ms.
                assert!(conn.rx_spare_calls < 10, "{} rx_spare calls while held", conn.rx_spare_calls);
                conn.release_input();
            })
            .unwrap();
    };
    let ((), output, ()) = tokio::join!(
        write_in_random_chunks(client_in, &input, 11),
        read_slowly(client_out, 1024, Duration::ZERO),
        release,
    );
    let (result, _conn) = server.await.unwrap();
    result.unwrap();
    assert_eq!(output, upper(&input));
}

#[tokio::test]
async fn eof_ends_the_loop_after_everything_is_flushed() {
    let (mut client_in, server_in) = duplex(64);
    let (server_out, client_out) = duplex(8);
    client_in.write_all(b"first\nsecond\npartial").await.unwrap();
    drop(client_in);
    let mut conn = UpperLines::new();

    // Nobody reads until `run` returns: it must not return before the last byte is written, and
    // the 8-byte stream only takes it once the reader below drains it.
    let (result, output) = tokio::join!(run(&mut conn, server_in, server_out), async {
        tokio::task::yield_now().await;
        read_slowly(client_out, 2, Duration::ZERO).await
    });
    result.unwrap();
    assert_eq!(output, b"FIRST\nSECOND\n");
    assert_eq!(conn.eof_calls, 1);
}

#[tokio::test]
async fn flushes_once_per_burst_of_input_not_per_message() {
    let input = random_lines(&mut Rng::new(9), 100);
    let (mut client_in, server_in) = duplex(input.len());
    client_in.write_all(&input).await.unwrap();
    drop(client_in);
    let mut writer = CountingWriter::default();
    let mut conn = UpperLines::new();

    run(&mut conn, server_in, &mut writer).await.unwrap();
    assert_eq!(writer.bytes, upper(&input));
    assert!(writer.writes > 10, "expected many writes, got {}", writer.writes);
    assert_eq!(writer.flushes, 1, "the whole input was available: one flush at the end");
}

#[tokio::test(start_paused = true)]
async fn timeouts_fire_at_the_requested_instant() {
    let (mut client_in, server_in) = duplex(64);
    let (server_out, mut client_out) = duplex(64);
    let mut conn = UpperLines::new();
    conn.timeouts.extend([Instant::from_millis(1500), Instant::from_millis(4000)]);
    let started = tokio::time::Instant::now();

    let client = async {
        let mut tick = [0u8; 5];
        client_out.read_exact(&mut tick).await.unwrap();
        assert_eq!((&tick, started.elapsed()), (b"TICK\n", Duration::from_millis(1500)));
        client_out.read_exact(&mut tick).await.unwrap();
        assert_eq!((&tick, started.elapsed()), (b"TICK\n", Duration::from_millis(4000)));
        client_in.write_all(b"bye\n").await.unwrap();
        drop(client_in);
        let mut rest = Vec::new();
        client_out.read_to_end(&mut rest).await.unwrap();
        rest
    };
    let (result, rest) = tokio::join!(run(&mut conn, server_in, server_out), client);
    result.unwrap();
    assert_eq!(rest, b"BYE\n");
    assert_eq!(
        conn.timeouts_fired,
        [
            (Instant::from_millis(1500), Instant::from_millis(1500)),
            (Instant::from_millis(4000), Instant::from_millis(4000)),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn past_deadlines_are_handled_at_once() {
    let (client_in, server_in) = duplex(64);
    let (server_out, client_out) = duplex(64);
    let mut conn = UpperLines::new();
    conn.timeouts.extend([Instant::ZERO, Instant::ZERO]);
    drop(client_in);

    let (result, output) =
        tokio::join!(run(&mut conn, server_in, server_out), read_slowly(client_out, 64, Duration::ZERO));
    result.unwrap();
    assert_eq!(output, b"TICK\nTICK\n");
}

#[tokio::test(start_paused = true)]
async fn deferred_requests_are_finished_from_another_task() {
    let (mut client_in, server_in) = duplex(64);
    let (server_out, client_out) = duplex(64);
    let mut conn = UpperLines::new();
    let (sender, jobs) = job_queue::<UpperLines>();

    // The application task: answers two deferred requests later, from a spawned (`Send`) task.
    let worker = tokio::spawn({
        let sender = sender.clone();
        async move {
            for answer in [&b"LATER 1\n"[..], b"LATER 2\n"] {
                tokio::time::sleep(Duration::from_millis(100)).await;
                sender
                    .complete(move |conn: &mut UpperLines, now| {
                        assert!(now >= Instant::from_millis(100));
                        assert!(conn.answer_deferred(answer));
                    })
                    .unwrap();
            }
        }
    });
    client_in.write_all(b"DEFER\nnow\nDEFER\n").await.unwrap();
    // The input ends before the answers: the connection stays open while work is deferred.
    drop(client_in);

    let (result, output) = tokio::join!(
        run_with_jobs(&mut conn, server_in, server_out, jobs),
        read_slowly(client_out, 64, Duration::ZERO),
    );
    result.unwrap();
    worker.await.unwrap();
    assert_eq!(output, b"NOW\nLATER 1\nLATER 2\n");
    assert!(sender.is_stopped());
    assert_eq!(sender.complete(|_, _| {}), Err(DriverStopped));
}

#[tokio::test]
async fn dropped_senders_do_not_stop_the_loop() {
    let (mut client_in, server_in) = duplex(64);
    let (server_out, client_out) = duplex(64);
    let mut conn = UpperLines::new();
    let (sender, jobs) = job_queue::<UpperLines>();
    drop(sender);
    client_in.write_all(b"still\n").await.unwrap();
    drop(client_in);

    let (result, output) = tokio::join!(
        run_with_jobs(&mut conn, server_in, server_out, jobs),
        read_slowly(client_out, 64, Duration::ZERO),
    );
    result.unwrap();
    assert_eq!(output, b"STILL\n");
}

#[tokio::test]
async fn a_closed_peer_ends_the_loop_with_broken_pipe() {
    let (mut client_in, server_in) = duplex(64);
    let (server_out, client_out) = duplex(64);
    drop(client_out);
    client_in.write_all(b"anyone there?\n").await.unwrap();
    let mut conn = UpperLines::new();

    let error = run(&mut conn, server_in, server_out).await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
}

#[tokio::test]
async fn read_errors_are_returned() {
    let (server_out, _client_out) = duplex(64);
    let mut conn = UpperLines::new();
    let error = run(&mut conn, FailingReader, server_out).await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::ConnectionReset);
}

/// A writer that records bytes, writes (at most 7 bytes each) and flushes.
#[derive(Default)]
struct CountingWriter {
    bytes: Vec<u8>,
    writes: usize,
    flushes: usize,
}

impl AsyncWrite for CountingWriter {
    fn poll_write(mut self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let n = buf.len().min(7);
        self.bytes.extend_from_slice(&buf[..n]);
        self.writes += 1;
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.flushes += 1;
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

struct FailingReader;

impl AsyncRead for FailingReader {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        _buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Poll::Ready(Err(io::ErrorKind::ConnectionReset.into()))
    }
}
