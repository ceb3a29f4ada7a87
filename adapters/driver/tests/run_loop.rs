//! The run loop with scripted streams, a virtual clock and the example device as the server.

mod support;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use embedded_io_async::ErrorKind;
use mcp_sansio::connection::Connection;
use mcp_sansio::server::{Buffers, Config, Deferred, Handler, Server, Tool, ToolCall, ToolReply};
use mcp_sansio::server::{DEFAULT_WRITE_THRESHOLD, Limits, MIN_RESPONSE_WINDOW, ReplyError};
use mcp_sansio::time::Instant;
use mcp_sansio_driver::{Error, JobStatus, Jobs, Options, ROUNDS_BEFORE_YIELD, run, run_with_jobs, run_with_options};
use serde_json::{Value, json};
use support::*;

/// A legacy session: handshake, list, a few calls and a ping.
fn session_input(calls: usize) -> Vec<u8> {
    let mut messages = vec![INITIALIZE.to_string(), INITIALIZED.to_string()];
    messages.push(r#"{"jsonrpc":"2.0","id":"list","method":"tools/list"}"#.into());
    for i in 0..calls {
        messages.push(echo(100 + i as u32, &format!("message {i} \u{2713} \"quoted\"")));
    }
    messages.push(r#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#.into());
    lines(&messages.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Runs the device over `reader`/`writer` to the end of input and returns the answers.
fn serve(reader: &mut ScriptedReader, writer: &mut RecordingWriter) -> Vec<Value> {
    with_device(1024, 2048, |server| {
        block_on(run(server, reader, writer, &mut FrozenClock)).unwrap().unwrap();
    });
    writer.messages()
}

fn ids(messages: &[Value]) -> Vec<Value> {
    messages.iter().map(|m| m["id"].clone()).collect()
}

#[test]
fn answers_are_whole_and_in_order_however_input_and_output_are_split() {
    let input = session_input(12);
    let reference = serve(&mut ScriptedReader::chunked(&input, input.len(), false), &mut RecordingWriter::new());
    assert_eq!(reference.len(), 15, "initialize, tools/list, 12 calls, ping");
    assert_eq!(reference[0]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(reference[1]["result"]["tools"].as_array().unwrap().len(), 4);
    assert_eq!(reference[2]["result"]["content"][0]["text"], "message 0 \u{2713} \"quoted\"");
    assert_eq!(reference[14], json!({"jsonrpc": "2.0", "id": "last", "result": {}}));

    // Byte at a time, in both directions.
    let mut writer = RecordingWriter::with_pattern(&[1], 0);
    assert_eq!(serve(&mut ScriptedReader::chunked(&input, 1, false), &mut writer), reference);
    assert!(writer.calls > writer.output.len() - 1, "one byte per write");

    // Random splits and pauses on both sides.
    for seed in 1..=25u64 {
        let mut rng = Rng::new(seed);
        let mut script = Vec::new();
        let mut rest = &input[..];
        while !rest.is_empty() {
            let n = rng.between(1, 200).min(rest.len());
            script.push(In::Bytes(rest[..n].to_vec()));
            if rng.between(0, 2) == 0 {
                script.push(In::Later);
            }
            rest = &rest[n..];
        }
        let mut reader = ScriptedReader::new(script);
        reader.max_read = rng.between(1, 300);
        let pattern: Vec<usize> = (0..7).map(|_| rng.between(1, 90)).collect();
        let mut writer = RecordingWriter::with_pattern(&pattern, rng.between(0, 4));
        assert_eq!(serve(&mut reader, &mut writer), reference, "seed {seed}");
    }
}

#[test]
fn a_burst_is_answered_then_flushed_once() {
    let input = session_input(5);
    let mut writer = RecordingWriter::with_pattern(&[64], 0);
    let answers = serve(&mut ScriptedReader::chunked(&input, input.len(), false), &mut writer);
    assert_eq!(answers.len(), 8);
    assert_eq!(writer.flushed_at, vec![writer.output.len()], "one flush, after the last answer");
}

#[test]
fn a_burst_is_written_as_its_answers_reach_the_write_threshold_and_flushed_once() {
    let input = session_input(30);
    let serve_with = |write_threshold: usize| {
        let (mut rx, mut tx) = (vec![0u8; 16 * 1024], vec![0u8; 64 * 1024]);
        let mut config = Config::new("mcp-device", "0.1.0");
        // Room for many answers at once, so that only the threshold splits the burst.
        config.limits = Limits { max_response: 4096, write_threshold, ..Limits::default() };
        let device = mcp_example_device::Device::new(FakeBoard { led: false });
        let mut server: DeviceServer<'_> = Server::new(device, config, Buffers { rx: &mut rx, tx: &mut tx });
        let mut reader = ScriptedReader::chunked(&input, input.len(), false);
        let mut writer = RecordingWriter::new();
        block_on(run(&mut server, &mut reader, &mut writer, &mut FrozenClock)).unwrap().unwrap();
        writer
    };
    let whole = serve_with(usize::MAX);
    let pieces = serve_with(DEFAULT_WRITE_THRESHOLD);
    assert_eq!(whole.messages().len(), 33, "initialize, tools/list, 30 calls, ping");
    assert_eq!(pieces.messages(), whole.messages());
    assert_eq!(whole.calls, 1, "every answer of the burst in one write");
    let most = pieces.output.len().div_ceil(DEFAULT_WRITE_THRESHOLD);
    assert!(pieces.calls > 3 && pieces.calls <= most, "{} writes of {} bytes", pieces.calls, pieces.output.len());
    for writer in [&whole, &pieces] {
        assert_eq!(writer.flushed_at, vec![writer.output.len()], "one flush, after the last answer");
    }
}

#[test]
fn a_serial_line_never_ends_yet_every_answer_is_written_and_flushed_before_sleeping() {
    let input = lines(&[INITIALIZE, &echo(2, "still there")]);
    let mut reader = ScriptedReader::chunked(&input, 7, true).idle_at_end();
    let mut writer = RecordingWriter::new();
    with_device(512, 1024, |server| {
        assert!(matches!(block_on(run(server, &mut reader, &mut writer, &mut FrozenClock)), Outcome::Stalled));
    });
    assert_eq!(ids(&writer.messages()), vec![json!(1), json!(2)]);
    assert_eq!(writer.flushed_at.last(), Some(&writer.output.len()));
}

/// Checks, whenever the driver asks for receive space, that nothing is waiting to be written.
struct NoReadWhilePending<'c, C>(&'c mut C);

impl<C: Connection> Connection for NoReadWhilePending<'_, C> {
    fn rx_spare(&mut self) -> &mut [u8] {
        assert!(self.0.poll_transmit().is_none(), "the driver reads while output is pending");
        self.0.rx_spare()
    }
    fn rx_commit(&mut self, now: Instant, n: usize) {
        self.0.rx_commit(now, n)
    }
    fn handle_eof(&mut self, now: Instant) {
        self.0.handle_eof(now)
    }
    fn poll_transmit(&self) -> Option<&[u8]> {
        self.0.poll_transmit()
    }
    fn transmit_done(&mut self, now: Instant, n: usize) {
        self.0.transmit_done(now, n)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.0.poll_timeout()
    }
    fn handle_timeout(&mut self, now: Instant) {
        self.0.handle_timeout(now)
    }
    fn is_finished(&self) -> bool {
        self.0.is_finished()
    }
}

#[test]
fn nothing_is_read_while_output_is_pending() {
    let input = session_input(6);
    let mut reader = ScriptedReader::chunked(&input, 33, true);
    let mut writer = RecordingWriter::with_pattern(&[5, 17, 1], 2);
    with_device(1024, 2048, |server| {
        let mut checked = NoReadWhilePending(server);
        block_on(run(&mut checked, &mut reader, &mut writer, &mut FrozenClock)).unwrap().unwrap();
    });
    assert_eq!(writer.messages().len(), 9);
}

#[test]
fn over_long_and_malformed_lines_are_answered_and_serving_continues() {
    let long = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(2000));
    let input = lines(&[INITIALIZE, &long, "{not json", r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#]);
    let mut writer = RecordingWriter::new();
    with_device(512, 1024, |server| {
        let mut reader = ScriptedReader::chunked(&input, 100, true);
        block_on(run(server, &mut reader, &mut writer, &mut FrozenClock)).unwrap().unwrap();
    });
    let answers = writer.messages();
    assert_eq!(answers.len(), 4, "{answers:?}");
    assert_eq!(answers[1]["error"]["code"], -32600, "too long: {}", answers[1]);
    assert_eq!(answers[1]["id"], Value::Null);
    assert_eq!(answers[2]["error"]["code"], -32700, "parse error: {}", answers[2]);
    assert_eq!(answers[3], json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
}

#[test]
fn a_read_error_stops_the_run_and_running_again_resumes_the_session() {
    let mut reader = ScriptedReader::new([
        In::Bytes(lines(&[INITIALIZE])),
        In::Later,
        In::Fail(ErrorKind::InvalidData),
        In::Bytes(lines(&[INITIALIZED, &echo(2, "after the error")])),
    ]);
    let mut writer = RecordingWriter::new();
    with_device(512, 1024, |server| {
        let first = block_on(run(&mut *server, &mut reader, &mut writer, &mut FrozenClock)).unwrap();
        assert_eq!(first, Err(Error::Read(ErrorKind::InvalidData)));
        assert!(server.session_version().is_some());
        block_on(run(&mut *server, &mut reader, &mut writer, &mut FrozenClock)).unwrap().unwrap();
    });
    let answers = writer.messages();
    assert_eq!(ids(&answers), vec![json!(1), json!(2)]);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "after the error");
}

#[test]
fn write_errors_stop_the_run_without_losing_or_repeating_bytes() {
    let input = session_input(3);
    let reference = serve(&mut ScriptedReader::chunked(&input, input.len(), false), &mut RecordingWriter::new());

    let mut reader = ScriptedReader::chunked(&input, 50, false);
    let mut writer = RecordingWriter::with_pattern(&[40], 0);
    writer.fail_after = Some(300);
    with_device(1024, 2048, |server| {
        let first = block_on(run(&mut *server, &mut reader, &mut writer, &mut FrozenClock)).unwrap();
        assert_eq!(first, Err(Error::Write(ErrorKind::BrokenPipe)));
        block_on(run(&mut *server, &mut reader, &mut writer, &mut FrozenClock)).unwrap().unwrap();
    });
    assert_eq!(writer.messages(), reference);

    let mut writer = RecordingWriter::new();
    writer.closed = true;
    with_device(1024, 2048, |server| {
        let mut reader = ScriptedReader::chunked(&input, 50, false);
        assert_eq!(block_on(run(server, &mut reader, &mut writer, &mut FrozenClock)).unwrap(), Err(Error::WriteZero));
    });
}

/// Asks for a wake-up at each of `deadlines` in turn and writes `TICK <now>` for each one; finished
/// once the input ended and every deadline passed.
struct Ticker {
    deadlines: VecDeque<u64>,
    out: Vec<u8>,
    sent: usize,
    eof: bool,
    fired: Vec<(u64, u64)>,
}

impl Connection for Ticker {
    fn rx_spare(&mut self) -> &mut [u8] {
        &mut []
    }
    fn rx_commit(&mut self, _now: Instant, _n: usize) {}
    fn handle_eof(&mut self, _now: Instant) {
        self.eof = true;
    }
    fn poll_transmit(&self) -> Option<&[u8]> {
        Some(&self.out[self.sent..]).filter(|rest| !rest.is_empty())
    }
    fn transmit_done(&mut self, _now: Instant, n: usize) {
        self.sent += n;
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.deadlines.front().copied().map(Instant::from_millis)
    }
    fn handle_timeout(&mut self, now: Instant) {
        while let Some(&deadline) = self.deadlines.front() {
            if deadline > now.as_millis() {
                break;
            }
            self.deadlines.pop_front();
            self.fired.push((deadline, now.as_millis()));
            self.out.extend_from_slice(format!("TICK {}\n", now.as_millis()).as_bytes());
        }
    }
    fn is_finished(&self) -> bool {
        self.deadlines.is_empty() && self.sent == self.out.len()
    }
}

#[test]
fn deadlines_are_kept_through_the_clock_and_race_an_idle_line() {
    let mut ticker =
        Ticker { deadlines: [10, 25, 25, 40].into(), out: Vec::new(), sent: 0, eof: false, fired: Vec::new() };
    let mut clock = VirtualClock::default();
    let mut writer = RecordingWriter::new();
    let mut reader = ScriptedReader::new([]).idle_at_end();
    block_on(run(&mut ticker, &mut reader, &mut writer, &mut clock)).unwrap().unwrap();
    assert_eq!(writer.text(), "TICK 10\nTICK 25\nTICK 25\nTICK 40\n");
    assert_eq!(ticker.fired, vec![(10, 10), (25, 25), (25, 25), (40, 40)]);
    assert_eq!(clock.waits, vec![10, 25, 40]);
}

/// Defers every `slow` call; the deferred handles go to a queue shared with [`Answerer`].
struct Deferring {
    queue: Rc<RefCell<VecDeque<Deferred>>>,
}

static SLOW: [Tool<'static>; 1] = [Tool::new("slow", "Answers later", r#"{"type":"object"}"#)];

impl Handler for Deferring {
    /// A dynamic table: its capabilities are declared.
    fn capabilities(&self) -> mcp_sansio::mcp::ServerCapabilities {
        mcp_sansio::mcp::ServerCapabilities::NONE.with_tools(Default::default())
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        SLOW.get(index).copied()
    }
    fn call_tool(&mut self, _call: ToolCall<'_>, reply: ToolReply<'_>) {
        let deferred = reply.defer().expect("a free slot");
        self.queue.borrow_mut().push_back(deferred);
    }
}

/// Answers the deferred calls, one per `run`.
struct Answerer {
    queue: Rc<RefCell<VecDeque<Deferred>>>,
    answered: usize,
}

impl<'a> Jobs<Server<'a, Deferring>> for Answerer {
    async fn ready(&mut self) {
        std::future::poll_fn(|_| {
            if self.queue.borrow().is_empty() { std::task::Poll::Pending } else { std::task::Poll::Ready(()) }
        })
        .await
    }

    fn run(&mut self, server: &mut Server<'a, Deferring>, _now: Instant) -> JobStatus {
        let deferred = self.queue.borrow_mut().pop_front().expect("ready only when queued");
        self.answered += 1;
        server.reply_tool(&deferred).expect("room to answer").text(&format!("answer {}", self.answered)).finish();
        JobStatus::Done
    }
}

#[test]
fn jobs_answer_deferred_requests_between_reads() {
    let queue = Rc::new(RefCell::new(VecDeque::new()));
    let call = |id: u32| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","arguments":{{}}}}}}"#)
    };
    // Both calls arrive in one read; the first answer goes out before the second call is read
    // only if jobs run between reads.
    let input = lines(&[INITIALIZE, INITIALIZED, &call(2), &call(3)]);
    let mut reader = ScriptedReader::new([In::Bytes(input)]);
    let mut writer = RecordingWriter::new();
    let mut answerer = Answerer { queue: queue.clone(), answered: 0 };
    let (mut rx, mut tx) = ([0u8; 1024], [0u8; 1024]);
    let mut server: Server<'_, Deferring> =
        Server::new(Deferring { queue }, Config::new("slow", "1"), Buffers { rx: &mut rx, tx: &mut tx });
    block_on(run_with_jobs(&mut server, &mut reader, &mut writer, &mut FrozenClock, &mut answerer)).unwrap().unwrap();
    let answers = writer.messages();
    assert_eq!(ids(&answers), vec![json!(1), json!(2), json!(3)]);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "answer 1");
    assert_eq!(answers[2]["result"]["content"][0]["text"], "answer 2");
    assert_eq!(answerer.answered, 2);
}

#[test]
fn a_flood_of_ready_input_still_yields_to_the_executor() {
    let input = session_input(200);
    let mut reader = ScriptedReader::chunked(&input, 16, false);
    let mut writer = RecordingWriter::new();
    let mut yields = 0;
    with_device(1024, 2048, |server| {
        block_on_counting(run(server, &mut reader, &mut writer, &mut FrozenClock), &mut yields).unwrap().unwrap();
    });
    assert_eq!(writer.messages().len(), 203);
    let rounds = reader.reads_completed;
    assert!(rounds > 1000, "{rounds} reads");
    let expected = rounds / ROUNDS_BEFORE_YIELD as usize;
    assert!(yields >= expected - 1 && yields <= expected + 1, "{yields} yields for {rounds} rounds");
}

#[test]
fn the_writer_is_flushed_only_when_the_next_read_would_block() {
    // Two reads back to back, then a pause, then one more read and the end of input.
    let mut reader = ScriptedReader::new([
        In::Bytes(lines(&[INITIALIZE, INITIALIZED])),
        In::Bytes(lines(&[&echo(2, "same burst")])),
        In::Later,
        In::Bytes(lines(&[&echo(3, "next burst")])),
    ]);
    let mut writer = RecordingWriter::with_pattern(&[10], 0);
    with_device(1024, 2048, |server| {
        block_on(run(server, &mut reader, &mut writer, &mut FrozenClock)).unwrap().unwrap();
    });
    assert_eq!(ids(&writer.messages()), vec![json!(1), json!(2), json!(3)]);
    assert_eq!(writer.flushed_at.len(), 2, "at the pause and at the end: {:?}", writer.flushed_at);
    assert_eq!(ids(&support::messages(&writer.output[..writer.flushed_at[0]])), vec![json!(1), json!(2)]);
    assert_eq!(writer.flushed_at[1], writer.output.len());
    assert!(writer.calls > 20, "many writes, two flushes");
}

/// Answers the deferred calls in order, asking to be retried while the transmit buffer is full.
struct RetryingAnswerer {
    queue: Rc<RefCell<VecDeque<Deferred>>>,
    attempts: usize,
    busy: usize,
}

impl<'a> Jobs<Server<'a, Deferring>> for RetryingAnswerer {
    async fn ready(&mut self) {
        std::future::poll_fn(|_| {
            if self.queue.borrow().is_empty() { std::task::Poll::Pending } else { std::task::Poll::Ready(()) }
        })
        .await
    }

    fn run(&mut self, server: &mut Server<'a, Deferring>, _now: Instant) -> JobStatus {
        self.attempts += 1;
        let mut queue = self.queue.borrow_mut();
        let deferred = queue.front().expect("run only when ready or retried");
        match server.reply_tool(deferred) {
            Ok(reply) => {
                reply.text(&format!("answer {}", self.attempts - self.busy)).finish();
                queue.pop_front();
                JobStatus::Done
            }
            Err(ReplyError::Busy) => {
                self.busy += 1;
                JobStatus::Retry
            }
            Err(error) => panic!("{error:?}"),
        }
    }
}

#[test]
fn a_job_that_meets_a_full_transmit_buffer_is_retried_after_the_drain_in_order() {
    let queue = Rc::new(RefCell::new(VecDeque::new()));
    let call = |id: u32| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","arguments":{{}}}}}}"#)
    };
    let ping = r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#;
    let input = lines(&[INITIALIZE, INITIALIZED, &call(2), &call(3), ping]);
    let mut reader = ScriptedReader::new([In::Bytes(input)]);
    // 8 bytes per write and every other write waits: the jobs get in while output is
    // pending, which fills the smallest transmit buffer there is.
    let mut writer = RecordingWriter::with_pattern(&[8], 2);
    let mut answerer = RetryingAnswerer { queue: queue.clone(), attempts: 0, busy: 0 };
    let (mut rx, mut tx) = ([0u8; 1024], [0u8; MIN_RESPONSE_WINDOW]);
    let mut server: Server<'_, Deferring> =
        Server::new(Deferring { queue: queue.clone() }, Config::new("slow", "1"), Buffers { rx: &mut rx, tx: &mut tx });
    let options = Options::new().interruptible_writes(true);
    block_on(run_with_options(&mut server, &mut reader, &mut writer, &mut FrozenClock, &mut answerer, options))
        .unwrap()
        .unwrap();

    let answers = writer.messages();
    assert_eq!(ids(&answers), vec![json!(1), json!(4), json!(2), json!(3)], "each answer once");
    assert_eq!(answers[2]["result"]["content"][0]["text"], "answer 1");
    assert_eq!(answers[3]["result"]["content"][0]["text"], "answer 2");
    assert!(answerer.busy >= 1, "a job ran while output was pending and found no room");
    assert_eq!(answerer.attempts, 2 + answerer.busy);
    // No spinning: a retry needs written output, and each write took at most 8 bytes.
    assert!(answerer.busy <= writer.calls, "{} retries for {} writes", answerer.busy, writer.calls);
    assert_eq!(server.in_flight(), 0);
}
