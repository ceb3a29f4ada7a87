//! Fakes shared by the integration tests: a `block_on` that detects stalls, scripted readers and
//! writers, a virtual clock, and the example device as a real server.
#![allow(dead_code)] // Each test file uses a different part.

use std::cell::Cell;
use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use embedded_io_async::{ErrorKind, ErrorType, Read, Write};
use mcp_example_device::{Board, Centidegrees, Device, Sensor};
use mcp_sansio::server::{Buffers, Config, Server};
use mcp_sansio::time::Instant;
use mcp_sansio_driver::Clock;

struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// What [`block_on`] saw.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    /// The future completed.
    Done(T),
    /// The future returned `Pending` without arranging a wake-up: it would sleep forever.
    Stalled,
}

impl<T: std::fmt::Debug> Outcome<T> {
    pub fn unwrap(self) -> T {
        match self {
            Outcome::Done(value) => value,
            Outcome::Stalled => panic!("the future stalled"),
        }
    }
}

/// Polls `future` on this thread until it completes, or until it returns `Pending` with nobody
/// left to wake it (every fake here wakes before returning `Pending`, unless it models "nothing
/// will ever happen"). Also counts the `Pending`s in `yields`.
pub fn block_on_counting<F: Future>(future: F, yields: &mut usize) -> Outcome<F::Output> {
    let flag = Arc::new(Flag(AtomicBool::new(false)));
    let waker = Waker::from(flag.clone());
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        flag.0.store(false, Ordering::SeqCst);
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => return Outcome::Done(value),
            Poll::Pending if flag.0.load(Ordering::SeqCst) => *yields += 1,
            Poll::Pending => return Outcome::Stalled,
        }
    }
}

pub fn block_on<F: Future>(future: F) -> Outcome<F::Output> {
    block_on_counting(future, &mut 0)
}

/// One step of a [`ScriptedReader`].
#[derive(Clone, Debug)]
pub enum In {
    /// These bytes are available (handed out as far as the read buffer allows).
    Bytes(Vec<u8>),
    /// Nothing yet: the read returns `Pending` once (and wakes itself, as if data arrived later).
    Later,
    /// The read fails.
    Fail(ErrorKind),
}

/// A reader that plays a script, then reports end of stream (or, with `then_idle`, stays silent
/// forever like a serial line). Cancel-safe: a step is consumed only by the poll that completes.
pub struct ScriptedReader {
    pub script: VecDeque<In>,
    pub then_idle: bool,
    /// At most this many bytes per read.
    pub max_read: usize,
    pub reads_completed: usize,
    /// `read` calls that returned `Pending` and were dropped before completing.
    pub reads_started: usize,
}

impl ScriptedReader {
    pub fn new(script: impl IntoIterator<Item = In>) -> Self {
        ScriptedReader {
            script: script.into_iter().collect(),
            then_idle: false,
            max_read: usize::MAX,
            reads_completed: 0,
            reads_started: 0,
        }
    }

    /// `input` delivered `chunk` bytes at a time, with a `Later` between chunks when `pauses`.
    pub fn chunked(input: &[u8], chunk: usize, pauses: bool) -> Self {
        let mut script = Vec::new();
        for piece in input.chunks(chunk.max(1)) {
            script.push(In::Bytes(piece.to_vec()));
            if pauses {
                script.push(In::Later);
            }
        }
        Self::new(script)
    }

    pub fn idle_at_end(mut self) -> Self {
        self.then_idle = true;
        self
    }
}

impl ErrorType for ScriptedReader {
    type Error = ErrorKind;
}

impl Read for ScriptedReader {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ErrorKind> {
        self.reads_started += 1;
        poll_fn(|cx| {
            let result = match self.script.front_mut() {
                None if self.then_idle => return Poll::Pending,
                None => Ok(0),
                Some(In::Later) => {
                    self.script.pop_front();
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Some(In::Fail(kind)) => {
                    let kind = *kind;
                    self.script.pop_front();
                    Err(kind)
                }
                Some(In::Bytes(bytes)) => {
                    let n = bytes.len().min(buf.len()).min(self.max_read);
                    buf[..n].copy_from_slice(&bytes[..n]);
                    bytes.drain(..n);
                    if bytes.is_empty() {
                        self.script.pop_front();
                    }
                    Ok(n)
                }
            };
            self.reads_completed += 1;
            Poll::Ready(result)
        })
        .await
    }
}

/// A writer that takes at most `pattern[i % len]` bytes per call, returns `Pending` (waking
/// itself) every `pending_every` calls, and records everything.
pub struct RecordingWriter {
    pub output: Vec<u8>,
    pub pattern: Vec<usize>,
    pub pending_every: usize,
    pub calls: usize,
    pub flushes: usize,
    /// Output length at each flush.
    pub flushed_at: Vec<usize>,
    /// After this many bytes, writes fail with `BrokenPipe` (once) then work again.
    pub fail_after: Option<usize>,
    /// Writes accept zero bytes.
    pub closed: bool,
}

impl RecordingWriter {
    pub fn new() -> Self {
        RecordingWriter {
            output: Vec::new(),
            pattern: vec![usize::MAX],
            pending_every: 0,
            calls: 0,
            flushes: 0,
            flushed_at: Vec::new(),
            fail_after: None,
            closed: false,
        }
    }

    pub fn with_pattern(pattern: &[usize], pending_every: usize) -> Self {
        RecordingWriter { pattern: pattern.to_vec(), pending_every, ..Self::new() }
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.output.clone()).expect("output is UTF-8")
    }

    /// The output as JSON values, one per line; panics on a partial or invalid line.
    pub fn messages(&self) -> Vec<serde_json::Value> {
        messages(&self.output)
    }
}

pub fn messages(output: &[u8]) -> Vec<serde_json::Value> {
    let text = std::str::from_utf8(output).expect("output is UTF-8");
    assert!(text.is_empty() || text.ends_with('\n'), "output ends inside a line: {text:?}");
    text.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))).collect()
}

impl ErrorType for RecordingWriter {
    type Error = ErrorKind;
}

impl Write for RecordingWriter {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, ErrorKind> {
        let call = self.calls;
        self.calls += 1;
        if self.pending_every != 0 && call % self.pending_every == self.pending_every - 1 {
            let mut pended = false;
            poll_fn(|cx| {
                if pended {
                    return Poll::Ready(());
                }
                pended = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            })
            .await;
        }
        if self.closed {
            return Ok(0);
        }
        if let Some(limit) = self.fail_after
            && self.output.len() >= limit
        {
            self.fail_after = None;
            return Err(ErrorKind::BrokenPipe);
        }
        let n = buf.len().min(self.pattern[call % self.pattern.len()]).max(1).min(buf.len());
        self.output.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    async fn flush(&mut self) -> Result<(), ErrorKind> {
        self.flushes += 1;
        self.flushed_at.push(self.output.len());
        Ok(())
    }
}

/// A virtual clock: `wait_until` jumps straight to the deadline.
#[derive(Default)]
pub struct VirtualClock {
    pub now_ms: Cell<u64>,
    pub waits: Vec<u64>,
}

impl Clock for VirtualClock {
    fn now(&self) -> Instant {
        Instant::from_millis(self.now_ms.get())
    }

    async fn wait_until(&mut self, deadline: Instant) {
        self.waits.push(deadline.as_millis());
        if deadline.as_millis() > self.now_ms.get() {
            self.now_ms.set(deadline.as_millis());
        }
    }
}

/// A clock that stands still and never reaches any deadline.
#[derive(Default)]
pub struct FrozenClock;

impl Clock for FrozenClock {
    fn now(&self) -> Instant {
        Instant::ZERO
    }

    async fn wait_until(&mut self, _deadline: Instant) {
        std::future::pending().await
    }
}

/// The example board, simulated.
pub struct FakeBoard {
    pub led: bool,
}

impl Board for FakeBoard {
    fn temperature(&mut self, sensor: Sensor, _now: Instant) -> Option<Centidegrees> {
        Some(match sensor {
            Sensor::Board => Centidegrees(2150),
            Sensor::Cpu => Centidegrees(4025),
        })
    }
    fn set_led(&mut self, on: bool) {
        self.led = on;
    }
    fn led(&self) -> bool {
        self.led
    }
    fn calibration(&self) -> &[u8] {
        &[1, 2, 3, 4]
    }
}

pub type DeviceServer<'a> = Server<'a, Device<FakeBoard>>;

/// Runs `body` with the example device served over `rx`/`tx` bytes of buffer.
pub fn with_device<T>(rx: usize, tx: usize, body: impl FnOnce(&mut DeviceServer<'_>) -> T) -> T {
    let mut rx = vec![0u8; rx];
    let mut tx = vec![0u8; tx];
    let mut server = Server::new(
        Device::new(FakeBoard { led: false }),
        Config::new("mcp-device", "0.1.0"),
        Buffers { rx: &mut rx, tx: &mut tx },
    );
    body(&mut server)
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A legacy-era tools/call of `echo`.
pub fn echo(id: u32, message: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":{}}}}}}}"#,
        serde_json::Value::from(message)
    )
}

pub fn lines(messages: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for message in messages {
        out.extend_from_slice(message.as_bytes());
        out.push(b'\n');
    }
    out
}

/// A tiny deterministic PRNG (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }
}
