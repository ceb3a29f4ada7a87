//! A deterministic driver: the example device behind a [`Server`], a simulated board, and a clock
//! that only moves when the driver says so.
//!
//! The driver plays the adapter's part of the run loop (see the `mcp_sansio` crate docs): it offers
//! received bytes, drains `poll_transmit` after every call, and reports end of input. Everything the
//! server writes is checked for framing on the way: output comes in whole lines, each ending in `\n`.

use mcp_example_device::{Board, Centidegrees, Device, INSTRUCTIONS, SERVER_NAME, Sensor};
use mcp_sansio::connection::Connection;
use mcp_sansio::server::{Buffers, CacheHints, CacheScope, Config, Limits, Server};
use mcp_sansio::time::Instant;

/// `serverInfo.version` of the server under test. Fixed, so transcripts do not change with the crate
/// version.
pub const SERVER_VERSION: &str = "0.1.0";
/// `serverInfo.title` (2025-06-18 and later).
pub const SERVER_TITLE: &str = "Example MCP device";
/// Receive buffer: the longest message the server accepts.
pub const RX_BYTES: usize = 1024;
/// Transmit buffer. The largest answer is a quarter of it, as in the `mcp-device` binary.
pub const TX_BYTES: usize = 16 * 1024;
/// `ttlMs` of `server/discover` and list results (2026-07-28).
pub const LIST_TTL_MS: u64 = 60_000;
/// The clock at the first input line, in milliseconds since "boot".
pub const CLOCK_START_MS: u64 = 1_000;
/// How far the clock moves for each further input line.
pub const CLOCK_STEP_MS: u64 = 250;

/// Board temperature reported by [`SimBoard`] (21.50 °C).
pub const BOARD_CELSIUS: Centidegrees = Centidegrees(2150);
/// CPU temperature reported by [`SimBoard`] (47.25 °C).
pub const CPU_CELSIUS: Centidegrees = Centidegrees(4725);
/// Calibration table of [`SimBoard`].
pub const CALIBRATION: [u8; 8] = [0x4d, 0x43, 0x50, 0x01, 0x00, 0x10, 0xff, 0x7f];

/// A simulated board: fixed temperatures, an LED, a fixed calibration table.
#[derive(Debug, Default)]
pub struct SimBoard {
    led: bool,
}

impl Board for SimBoard {
    fn temperature(&mut self, sensor: Sensor, _now: Instant) -> Option<Centidegrees> {
        Some(match sensor {
            Sensor::Board => BOARD_CELSIUS,
            Sensor::Cpu => CPU_CELSIUS,
        })
    }

    fn set_led(&mut self, on: bool) {
        self.led = on;
    }

    fn led(&self) -> bool {
        self.led
    }

    fn calibration(&self) -> &[u8] {
        &CALIBRATION
    }
}

/// The server under test.
pub type DeviceServer<'a> = Server<'a, Device<SimBoard>>;

/// The server's configuration: the `mcp-device` binary's, with a fixed version.
pub fn config() -> Config<'static> {
    Config::new(SERVER_NAME, SERVER_VERSION)
        .with_title(SERVER_TITLE)
        .with_instructions(INSTRUCTIONS)
        .with_limits(Limits { max_response: TX_BYTES / 4, ..Limits::default() })
        .with_list_cache(CacheHints::new(LIST_TTL_MS, CacheScope::Public))
}

/// The memory a [`Driver`] borrows: the server's receive and transmit buffers, and the buffer
/// for legacy requests waiting for the client's input.
pub struct Memory {
    rx: Vec<u8>,
    tx: Vec<u8>,
    input: Vec<u8>,
}

impl Memory {
    /// Buffers of [`RX_BYTES`] and [`TX_BYTES`], and an input buffer as large as the receive buffer.
    pub fn new() -> Self {
        Memory { rx: vec![0; RX_BYTES], tx: vec![0; TX_BYTES], input: vec![0; RX_BYTES] }
    }
}

impl Default for Memory {
    fn default() -> Self {
        Self::new()
    }
}

/// Where the clock stands for each input line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time of the first line, in milliseconds.
    pub start_ms: u64,
    /// Added for each further line (0: a frozen clock).
    pub step_ms: u64,
}

impl Clock {
    /// The clock the golden transcripts are written with.
    pub const DEFAULT: Clock = Clock { start_ms: CLOCK_START_MS, step_ms: CLOCK_STEP_MS };

    /// A clock that never moves.
    pub const fn frozen(at_ms: u64) -> Clock {
        Clock { start_ms: at_ms, step_ms: 0 }
    }

    /// The time of input line `index` (0-based).
    pub fn at(self, index: usize) -> Instant {
        let index = u64::try_from(index).unwrap_or(u64::MAX);
        Instant::from_millis(self.start_ms.saturating_add(self.step_ms.saturating_mul(index)))
    }
}

/// Drives a [`DeviceServer`] over a [`Memory`].
pub struct Driver<'a> {
    server: DeviceServer<'a>,
    clock: Clock,
    lines: usize,
}

impl<'a> Driver<'a> {
    /// A fresh server (no session, LED off) over `memory`.
    pub fn new(memory: &'a mut Memory, clock: Clock) -> Self {
        let mut server =
            Server::new(Device::new(SimBoard::default()), config(), Buffers { rx: &mut memory.rx, tx: &mut memory.tx });
        server.parts_mut().0.set_input_buffer(&mut memory.input);
        Driver { server, clock, lines: 0 }
    }

    /// The server, for inspection.
    pub fn server(&self) -> &DeviceServer<'a> {
        &self.server
    }

    /// The time given with input line `index`.
    pub fn time_of_line(&self, index: usize) -> Instant {
        self.clock.at(index)
    }

    /// Offers `bytes` at time `now` as an adapter would: whatever the server holds back is offered
    /// again after its output was transmitted. Returns every byte the server wrote meanwhile.
    pub fn feed(&mut self, now: Instant, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = bytes;
        loop {
            let taken = self.server.handle_input(now, rest);
            rest = &rest[taken..];
            let flushed = self.flush(now, &mut out);
            if rest.is_empty() {
                return out;
            }
            assert!(taken > 0 || flushed > 0, "the server neither took input nor wrote output");
        }
    }

    /// Transmits everything pending, appending it to `out`; returns the number of bytes.
    fn flush(&mut self, now: Instant, out: &mut Vec<u8>) -> usize {
        let mut total = 0;
        while let Some(bytes) = self.server.poll_transmit() {
            out.extend_from_slice(bytes);
            let n = bytes.len();
            total += n;
            self.server.transmit_done(now, n);
        }
        total
    }

    /// Sends one input line (`line` must hold its own line ending, if any) at the clock's time for
    /// the next line, and returns the server's output lines.
    pub fn send(&mut self, line: &[u8]) -> Vec<Vec<u8>> {
        let now = self.clock.at(self.lines);
        self.lines += 1;
        split_lines(&self.feed(now, line))
    }

    /// Sends one input line in pieces, all at that line's time (as a reader that gets the line in
    /// several reads would); returns the raw output.
    pub fn send_chunks(&mut self, chunks: &[&[u8]]) -> Vec<u8> {
        let now = self.clock.at(self.lines);
        self.lines += 1;
        chunks.iter().flat_map(|chunk| self.feed(now, chunk)).collect()
    }

    /// Sends `text` followed by `\n`; returns the output lines.
    pub fn send_line(&mut self, text: &str) -> Vec<Vec<u8>> {
        let mut line = text.as_bytes().to_vec();
        line.push(b'\n');
        self.send(&line)
    }

    /// Sends `text` followed by `\n` and expects exactly one answer, returned as JSON.
    pub fn request(&mut self, text: &str) -> serde_json::Value {
        let mut out = self.send_line(text);
        assert_eq!(out.len(), 1, "expected one answer to {text}, got {}", show_lines(&out));
        parse_json_line(&out.remove(0))
    }

    /// Ends the input at the time of the last line; returns what the server still wrote, and checks
    /// that it is finished then.
    pub fn finish(&mut self) -> Vec<u8> {
        let now = self.clock.at(self.lines.saturating_sub(1));
        self.server.handle_eof(now);
        let mut out = Vec::new();
        self.flush(now, &mut out);
        assert!(self.server.is_finished(), "the server is not finished after end of input");
        out
    }
}

/// Runs `inputs` (each one input line with its line ending) through a fresh server with the default
/// clock, then ends the input. Returns the output lines written in answer to each input; what end of
/// input produces is counted with the last one.
pub fn run(inputs: &[Vec<u8>]) -> Vec<Vec<Vec<u8>>> {
    let mut memory = Memory::new();
    let mut driver = Driver::new(&mut memory, Clock::DEFAULT);
    let mut outputs: Vec<Vec<Vec<u8>>> = inputs.iter().map(|line| driver.send(line)).collect();
    let tail = split_lines(&driver.finish());
    match outputs.last_mut() {
        Some(last) => last.extend(tail),
        None => assert!(tail.is_empty(), "output without input: {}", show_lines(&tail)),
    }
    outputs
}

/// Splits server output into lines without their `\n`, checking that it ends with a complete line.
pub fn split_lines(output: &[u8]) -> Vec<Vec<u8>> {
    if output.is_empty() {
        return Vec::new();
    }
    assert_eq!(output.last(), Some(&b'\n'), "output ends inside a message: {}", String::from_utf8_lossy(output));
    output[..output.len() - 1].split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

/// Parses one output line, failing with the line when it is not JSON.
pub fn parse_json_line(line: &[u8]) -> serde_json::Value {
    serde_json::from_slice(line)
        .unwrap_or_else(|e| panic!("the server wrote invalid JSON ({e}): {}", String::from_utf8_lossy(line)))
}

/// Output lines for a failure message.
pub fn show_lines(lines: &[Vec<u8>]) -> String {
    lines.iter().map(|l| format!("\n  {}", String::from_utf8_lossy(l))).collect()
}
