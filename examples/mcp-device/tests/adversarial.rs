//! Adversarial tests against the stdio server `mcp-device`: hostile input, floods, a peer that stops
//! reading, byte-at-a-time input and disconnects in the middle of a frame. Each test spawns the real
//! binary with piped stdin/stdout/stderr, bounds every wait with a deadline (a hang fails the test
//! instead of blocking CI), and checks that the process neither panics nor grows: its peak resident
//! memory (Linux `VmHWM`) stays within a fixed bound and is printed (`--nocapture` shows it).
//!
//! Every test runs against each `--runtime` (tokio, async-std, smol): `on_every_runtime!` at the end
//! turns each `fn test(runtime: &str)` into `tokio::test`, `async_std::test` and `smol::test`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Longest any single wait may take before the test fails (debug builds on a loaded machine).
const DEADLINE: Duration = Duration::from_secs(120);
/// Peak resident memory the server may reach in any test. Its buffers are 1 MiB each (the defaults);
/// everything else it holds is fixed-size, so a server that buffered a 16 MiB line or queued answers
/// for a peer that stopped reading would blow well past this. The debug binary with its HTTP, Redis
/// and other runtimes' code is most of it: about 9.8 MiB resident at rest, and 10.5 to 12.5 MiB at
/// the peak of a flood depending on the machine's load (12 MiB was too close).
const PEAK_MEMORY_LIMIT_KIB: u64 = 16 * 1024;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"adversary","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn ping(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)
}

fn echo(id: u64, message: &str) -> String {
    let message = serde_json::to_string(message).unwrap();
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":{message}}}}}}}"#
    )
}

fn modern_uptime(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_uptime","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

/// A running `mcp-device` with its pipes.
struct Device {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    lines: Option<Receiver<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_thread: Option<JoinHandle<()>>,
}

impl Device {
    /// Starts the server on `runtime`; stdout is read by a background thread unless `read_later`.
    fn spawn(runtime: &str, read_later: bool) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-device"))
            .args(["--runtime", runtime])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-device starts");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = Arc::clone(&stderr);
        let stderr_thread = thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let mut device = Device {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            lines: None,
            stderr,
            stderr_thread: Some(stderr_thread),
        };
        if !read_later {
            device.start_reading();
        }
        device
    }

    /// Starts reading stdout, line by line, in a background thread.
    fn start_reading(&mut self) {
        let stdout = self.stdout.take().expect("not reading yet");
        let (sender, receiver) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        self.lines = Some(receiver);
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the server reads its input");
        stdin.flush().unwrap();
    }

    fn send_line(&mut self, line: &str) {
        self.send(format!("{line}\n").as_bytes());
    }

    /// Hands stdin to a thread that writes `bytes` in pieces (blocking as long as the server does
    /// not read). The thread gives stdin back if everything was written, and closes it otherwise.
    fn write_in_background(&mut self, bytes: Vec<u8>) -> JoinHandle<Option<ChildStdin>> {
        let mut stdin = self.stdin.take().expect("stdin is open");
        thread::spawn(move || bytes.chunks(64 * 1024).all(|chunk| stdin.write_all(chunk).is_ok()).then_some(stdin))
    }

    /// Waits for a [`write_in_background`](Self::write_in_background) that must write everything.
    fn join_writer(&mut self, writer: JoinHandle<Option<ChildStdin>>) {
        let stdin = writer.join().unwrap();
        assert!(stdin.is_some(), "the server stopped reading; stderr: {}", self.stderr());
        self.stdin = stdin;
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next output line, parsed; `None` at end of output. Fails after [`DEADLINE`].
    fn next_line(&self) -> Option<Value> {
        let lines = self.lines.as_ref().expect("reading stdout");
        match lines.recv_timeout(DEADLINE) {
            Ok(mut line) => {
                assert_eq!(line.pop(), Some(b'\n'), "the output ends inside a line: {line:?}");
                Some(
                    serde_json::from_slice(&line).unwrap_or_else(|error| {
                        panic!("invalid JSON line {:?}: {error}", String::from_utf8_lossy(&line))
                    }),
                )
            }
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("no answer within {DEADLINE:?}; stderr: {}", self.stderr()),
        }
    }

    fn answer(&self) -> Value {
        self.next_line().expect("an answer before the end of output")
    }

    /// Asserts that no line arrives within `wait`.
    fn assert_silent(&self, wait: Duration) {
        let lines = self.lines.as_ref().expect("reading stdout");
        match lines.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => {}
            other => panic!("unexpected output: {other:?}"),
        }
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Peak resident memory of the server so far, in KiB (Linux only).
    fn peak_memory_kib(&self) -> Option<u64> {
        memory_field(self.child.id(), "VmHWM:")
    }

    /// Current resident memory of the server, in KiB (Linux only).
    fn memory_kib(&self) -> Option<u64> {
        memory_field(self.child.id(), "VmRSS:")
    }

    /// Checks and reports the peak memory. Call while the process is alive.
    fn check_peak_memory(&self, test: &str) -> Option<u64> {
        let peak = self.peak_memory_kib()?;
        eprintln!("mcp-device peak resident memory in {test}: {peak} KiB");
        assert!(peak < PEAK_MEMORY_LIMIT_KIB, "{test}: peak memory {peak} KiB over {PEAK_MEMORY_LIMIT_KIB} KiB");
        Some(peak)
    }

    /// Waits for the process to exit; fails after [`DEADLINE`].
    fn wait(&mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                if let Some(thread) = self.stderr_thread.take() {
                    thread.join().unwrap();
                }
                let stderr = self.stderr();
                assert!(!stderr.contains("panicked"), "the server panicked: {stderr}");
                return status;
            }
            assert!(start.elapsed() < DEADLINE, "the server did not exit; stderr: {}", self.stderr());
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Closes stdin, reads the output to its end, and checks a clean exit.
    fn finish(&mut self) -> Vec<Value> {
        self.close_stdin();
        let mut rest = Vec::new();
        while let Some(line) = self.next_line() {
            rest.push(line);
        }
        let status = self.wait();
        assert!(status.success(), "exit status {status}; stderr: {}", self.stderr());
        rest
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn memory_field(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {answer}"))
}

fn a_16_mib_line_is_rejected_without_buffering_it(runtime: &str) {
    let mut device = Device::spawn(runtime, false);
    device.send_line(&ping(1));
    assert_eq!(device.answer(), json!({"jsonrpc":"2.0","id":1,"result":{}}));
    let mut flood = vec![b'x'; 16 << 20];
    flood.push(b'\n');
    // The same line again, as a would-be request whose id must not be answered.
    flood.extend_from_slice(br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":""#);
    flood.extend(std::iter::repeat_n(b'y', 16 << 20));
    flood.extend_from_slice(b"\"}}\n");
    flood.extend_from_slice(format!("{}\n", ping(3)).as_bytes());
    let writer = device.write_in_background(flood);
    for _ in 0..2 {
        let rejected = device.answer();
        assert_eq!(error_code(&rejected), -32600, "{rejected}");
        assert!(rejected["error"]["message"].as_str().unwrap().contains("limit"), "{rejected}");
        assert!(rejected.get("id").is_none(), "{rejected}");
    }
    assert_eq!(device.answer(), json!({"jsonrpc":"2.0","id":3,"result":{}}));
    device.join_writer(writer);
    device.check_peak_memory("a 16 MiB line");
    assert!(device.finish().is_empty());
}

fn json_nested_100000_levels_deep_is_rejected_and_the_stream_goes_on(runtime: &str) {
    let mut device = Device::spawn(runtime, false);
    let depth = 100_000;
    let arrays = ["[".repeat(depth), "]".repeat(depth)].concat();
    device.send_line(&arrays);
    let too_deep = device.answer();
    assert_eq!(error_code(&too_deep), -32600, "{too_deep}");
    assert!(too_deep["error"]["message"].as_str().unwrap().contains("deeper"), "{too_deep}");
    // Deep nesting inside a real request, and unclosed nesting: never a stack overflow.
    let nested_argument = echo(1, "x").replace(r#""message":"x""#, &format!(r#""message":{arrays}"#));
    device.send_line(&nested_argument);
    assert_eq!(error_code(&device.answer()), -32600);
    device.send_line(&"{\"a\":".repeat(depth));
    assert_eq!(error_code(&device.answer()), -32600);
    device.send_line(&ping(2));
    assert_eq!(device.answer()["id"], 2);
    device.check_peak_memory("100,000 levels of nesting");
    assert!(device.finish().is_empty());
}

fn invalid_utf8_and_nul_bytes_are_parse_errors(runtime: &str) {
    let mut device = Device::spawn(runtime, false);
    let hostile: [&[u8]; 7] = [
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\x28\"}}\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"x\":\"\xed\xa0\x80\"}}\n",
        b"\xff\xfe\xfd\n",
        b"\x00\x00\x00\x00\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"x\":\"a\x00b\"}}\n",
        b"{\"jsonrpc\":\"2.0\",\x00\"id\":5,\"method\":\"ping\"}\n",
    ];
    for bytes in hostile {
        device.send(bytes);
        let answer = device.answer();
        assert_eq!(error_code(&answer), -32700, "{answer} for {bytes:?}");
        assert!(answer.get("id").is_none(), "{answer}");
    }
    // Escaped NUL and valid multi-byte text are fine, and answered with the text unchanged.
    device.send_line(INITIALIZE);
    assert_eq!(device.answer()["id"], "init");
    device.send_line(INITIALIZED);
    device.send_line(&echo(6, "nul \u{0} é € 😀"));
    let answer = device.answer();
    assert_eq!(answer["result"]["content"][0]["text"], "nul \u{0} é € 😀", "{answer}");
    device.check_peak_memory("invalid UTF-8 and NUL bytes");
    assert!(device.finish().is_empty());
}

fn a_flood_of_100000_requests_is_answered_exactly_once_each(runtime: &str) {
    const REQUESTS: u64 = 100_000;
    let mut device = Device::spawn(runtime, false);
    device.send_line(INITIALIZE);
    device.send_line(INITIALIZED);
    assert_eq!(device.answer()["id"], "init");
    let baseline = device.peak_memory_kib();
    let mut flood = Vec::new();
    for id in 0..REQUESTS {
        let line = match id % 4 {
            0 => ping(id),
            1 => echo(id, &format!("flood {id}")),
            2 => modern_uptime(id),
            _ => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"device://status"}}}}"#
            ),
        };
        flood.extend_from_slice(line.as_bytes());
        flood.push(b'\n');
    }
    let started = Instant::now();
    // All of it is written without waiting for a single answer.
    let writer = device.write_in_background(flood);
    let mut seen = vec![false; REQUESTS as usize];
    for _ in 0..REQUESTS {
        let answer = device.answer();
        assert!(answer.get("result").is_some(), "{answer}");
        let id = answer["id"].as_u64().unwrap_or_else(|| panic!("an answer without a numeric id: {answer}"));
        assert!(!std::mem::replace(&mut seen[id as usize], true), "id {id} answered twice");
    }
    let elapsed = started.elapsed();
    device.join_writer(writer);
    assert!(seen.iter().all(|&answered| answered));
    let peak = device.check_peak_memory("a flood of 100,000 requests");
    if let (Some(baseline), Some(peak)) = (baseline, peak) {
        eprintln!(
            "flood: {REQUESTS} requests answered in {:.2} s; peak memory {baseline} KiB before, {peak} KiB after",
            elapsed.as_secs_f64()
        );
    }
    assert!(device.finish().is_empty(), "answers beyond one per request");
}

fn a_peer_that_stops_reading_holds_the_server_back_without_growth_or_deadlock(runtime: &str) {
    const REQUESTS: u64 = 20_000;
    let mut device = Device::spawn(runtime, true);
    let message = "m".repeat(1000);
    let mut input = Vec::new();
    input.extend_from_slice(format!("{INITIALIZE}\n{INITIALIZED}\n").as_bytes());
    for id in 0..REQUESTS {
        input.extend_from_slice(format!("{}\n", echo(id, &message)).as_bytes());
    }
    let writer = device.write_in_background(input);
    // Nobody reads: the output pipe fills, the server stops reading, the input pipe fills.
    let mut samples = Vec::new();
    for _ in 0..20 {
        thread::sleep(Duration::from_millis(100));
        samples.extend(device.memory_kib());
    }
    assert!(!writer.is_finished(), "the server kept reading although nobody reads its answers");
    assert!(matches!(device.child.try_wait(), Ok(None)), "the server exited");
    // Over the second half (the buffers are warm by then), resident memory stays flat.
    if let (Some(middle), Some(last)) = (samples.get(samples.len() / 2), samples.last()) {
        eprintln!("stalled peer: resident memory {samples:?} KiB, sampled every 100 ms");
        assert!(last.saturating_sub(*middle) < 512, "memory grows while the peer does not read: {samples:?}");
    }
    device.check_peak_memory("a peer that stops reading");
    // The peer reads again: everything is answered, nothing was lost or duplicated.
    device.start_reading();
    assert_eq!(device.answer()["id"], "init");
    for id in 0..REQUESTS {
        let answer = device.answer();
        assert_eq!(answer["id"], id, "answers out of order or lost");
        assert_eq!(answer["result"]["content"][0]["text"].as_str().map(str::len), Some(1000));
    }
    device.join_writer(writer);
    assert!(device.finish().is_empty());
}

fn a_peer_that_closes_its_end_without_reading_stops_the_server(runtime: &str) {
    let mut device = Device::spawn(runtime, true);
    let mut input = Vec::new();
    for id in 0..20_000 {
        input.extend_from_slice(format!("{}\n", echo(id, &"c".repeat(500))).as_bytes());
    }
    let writer = device.write_in_background(input);
    thread::sleep(Duration::from_millis(300));
    drop(device.stdout.take()); // the peer goes away without reading anything
    let status = device.wait();
    assert!(status.success(), "a closed stdout is a normal end: {status}; stderr: {}", device.stderr());
    // The writer sees the server gone instead of blocking forever.
    assert!(writer.join().unwrap().is_none(), "all input was taken although the server stopped");
}

fn byte_at_a_time_input_gives_the_same_answers(runtime: &str) {
    let mut device = Device::spawn(runtime, false);
    let requests = [
        INITIALIZE.to_string(),
        INITIALIZED.to_string(),
        echo(1, "one byte at a time, é"),
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"device://calibration"}}"#.to_string(),
        modern_uptime(3),
    ];
    for (index, request) in requests.iter().enumerate() {
        let bytes = format!("{request}\r\n").into_bytes();
        let (body, last) = bytes.split_at(bytes.len() - 1);
        for &byte in body {
            device.send(&[byte]);
        }
        // Nothing is answered before the newline arrives.
        device.assert_silent(Duration::from_millis(50));
        device.send(last);
        if index == 1 {
            continue; // a notification
        }
        let answer = device.answer();
        assert!(answer.get("result").is_some(), "{answer}");
        match index {
            0 => assert_eq!(answer["result"]["protocolVersion"], "2025-11-25"),
            2 => assert_eq!(answer["result"]["content"][0]["text"], "one byte at a time, é"),
            3 => assert_eq!(answer["result"]["contents"][0]["blob"], "TUNQAQAQ/38Cmg=="),
            _ => assert_eq!(answer["result"]["resultType"], "complete"),
        }
    }
    device.check_peak_memory("byte-at-a-time input");
    assert!(device.finish().is_empty());
}

fn disconnecting_mid_frame_ends_the_session_cleanly(runtime: &str) {
    // Input ends in the middle of a request: complete ones are answered, the partial one is
    // reported on stderr and dropped, and the server exits successfully.
    let mut device = Device::spawn(runtime, false);
    device.send(format!("{}\n{}", ping(1), &ping(2)[..20]).as_bytes());
    assert_eq!(device.answer()["id"], 1);
    assert!(device.finish().is_empty(), "the partial request was answered");
    assert!(device.stderr().contains("Truncated"), "stderr: {}", device.stderr());

    // The same in the middle of a 100 KiB line and of a multi-byte character.
    let mut device = Device::spawn(runtime, false);
    let mut partial = echo(3, &"z".repeat(100 << 10)).into_bytes();
    partial.truncate(60 << 10);
    device.send(&partial);
    assert!(device.finish().is_empty());
    let mut device = Device::spawn(runtime, false);
    let request = echo(4, "é");
    let inside_the_character = request.find('é').unwrap() + 1;
    device.send(&request.as_bytes()[..inside_the_character]);
    assert!(device.finish().is_empty());

    // Both pipes closed at once mid-frame, with answers pending: the server neither hangs nor panics.
    // (Small enough to fit in the pipes, so the writes do not wait for the server.)
    let mut device = Device::spawn(runtime, true);
    let mut input = Vec::new();
    for id in 0..100 {
        input.extend_from_slice(format!("{}\n", echo(id, "bye")).as_bytes());
    }
    input.extend_from_slice(&ping(5).as_bytes()[..10]);
    device.send(&input);
    drop(device.stdout.take());
    device.close_stdin();
    device.wait();
}

/// Runs each test against every runtime `mcp-device --runtime` offers, as `RUNTIME::TEST`.
macro_rules! on_every_runtime {
    ($($test:ident),* $(,)?) => {
        mod tokio {
            $(#[test]
            fn $test() {
                super::$test("tokio");
            })*
        }
        mod async_std {
            $(#[test]
            fn $test() {
                super::$test("async-std");
            })*
        }
        mod smol {
            $(#[test]
            fn $test() {
                super::$test("smol");
            })*
        }
    };
}

on_every_runtime!(
    a_16_mib_line_is_rejected_without_buffering_it,
    json_nested_100000_levels_deep_is_rejected_and_the_stream_goes_on,
    invalid_utf8_and_nul_bytes_are_parse_errors,
    a_flood_of_100000_requests_is_answered_exactly_once_each,
    a_peer_that_stops_reading_holds_the_server_back_without_growth_or_deadlock,
    a_peer_that_closes_its_end_without_reading_stops_the_server,
    byte_at_a_time_input_gives_the_same_answers,
    disconnecting_mid_frame_ends_the_session_cleanly,
);
