//! A tiny fake `Connection` and helpers shared by the integration tests.
#![allow(dead_code)] // Each test file uses a different part.

use std::collections::VecDeque;

use mcp_sansio::connection::Connection;
use mcp_sansio::time::Instant;

/// Receive buffer size of [`UpperLines`]: lines must be shorter.
pub const RX_CAPACITY: usize = 96;
/// Transmit buffer size of [`UpperLines`]: a line is answered only when its answer fits.
pub const TX_CAPACITY: usize = 64;
/// Longest line (without the newline) the tests send.
pub const MAX_LINE: usize = 60;

/// Upper-cases each received line into its own fixed transmit buffer.
///
/// - A line is answered only if the whole answer fits in the transmit buffer; otherwise it waits
///   in the receive buffer (back-pressure: `rx_spare` shrinks to empty).
/// - `hold_input` stops processing altogether until [`UpperLines::release_input`].
/// - The line `DEFER` is not answered: it is counted in `deferred` until
///   [`UpperLines::answer_deferred`] (called from a job) writes the answer.
/// - Deadlines from `timeouts` are returned by `poll_timeout`; each one handled writes `TICK`.
/// - At end of input a partial last line is dropped; the connection is finished once the input
///   ended, everything was written and nothing is deferred.
pub struct UpperLines {
    rx: [u8; RX_CAPACITY],
    rx_len: usize,
    tx: [u8; TX_CAPACITY],
    tx_start: usize,
    tx_end: usize,
    pub hold_input: bool,
    pub input_ended: bool,
    pub deferred: usize,
    pub timeouts: VecDeque<Instant>,
    /// `(deadline, now)` of every `handle_timeout` that found a deadline due.
    pub timeouts_fired: Vec<(Instant, Instant)>,
    /// Calls to `rx_spare`, to detect busy loops.
    pub rx_spare_calls: usize,

    pub eof_calls: usize,
}

impl Default for UpperLines {
    fn default() -> Self {
        Self::new()
    }
}

impl UpperLines {
    pub fn new() -> Self {
        UpperLines {
            rx: [0; RX_CAPACITY],
            rx_len: 0,
            tx: [0; TX_CAPACITY],
            tx_start: 0,
            tx_end: 0,
            hold_input: false,
            input_ended: false,
            deferred: 0,
            timeouts: VecDeque::new(),
            timeouts_fired: Vec::new(),
            rx_spare_calls: 0,
            eof_calls: 0,
        }
    }

    /// Resumes processing input held back by `hold_input`.
    pub fn release_input(&mut self) {
        self.hold_input = false;
        self.process();
    }

    /// Answers one deferred `DEFER` line with `answer`. Returns `false` if it does not fit now.
    pub fn answer_deferred(&mut self, answer: &[u8]) -> bool {
        assert!(self.deferred > 0, "nothing deferred");
        if !self.push_tx(answer) {
            return false;
        }
        self.deferred -= 1;
        true
    }

    fn tx_free(&self) -> usize {
        TX_CAPACITY - (self.tx_end - self.tx_start)
    }

    fn push_tx(&mut self, bytes: &[u8]) -> bool {
        if bytes.len() > self.tx_free() {
            return false;
        }
        if TX_CAPACITY - self.tx_end < bytes.len() {
            self.tx.copy_within(self.tx_start..self.tx_end, 0);
            self.tx_end -= self.tx_start;
            self.tx_start = 0;
        }
        self.tx[self.tx_end..self.tx_end + bytes.len()].copy_from_slice(bytes);
        self.tx_end += bytes.len();
        true
    }

    fn process(&mut self) {
        while !self.hold_input {
            let Some(newline) = self.rx[..self.rx_len].iter().position(|&b| b == b'\n') else {
                assert!(self.rx_len < RX_CAPACITY, "test line longer than the receive buffer");
                break;
            };
            let line_len = newline + 1;
            if &self.rx[..newline] == b"DEFER" {
                self.deferred += 1;
            } else {
                if line_len > self.tx_free() {
                    break;
                }
                let mut answer = [0u8; RX_CAPACITY];
                answer[..line_len].copy_from_slice(&self.rx[..line_len]);
                answer[..line_len].make_ascii_uppercase();
                assert!(self.push_tx(&answer[..line_len]));
            }
            self.rx.copy_within(line_len..self.rx_len, 0);
            self.rx_len -= line_len;
        }
        let has_complete_line = self.rx[..self.rx_len].contains(&b'\n');
        if self.input_ended && !self.hold_input && !has_complete_line {
            self.rx_len = 0; // The partial last line is dropped.
        }
    }
}

impl Connection for UpperLines {
    fn rx_spare(&mut self) -> &mut [u8] {
        self.rx_spare_calls += 1;
        &mut self.rx[self.rx_len..]
    }

    fn rx_commit(&mut self, _now: Instant, n: usize) {
        assert!(!self.input_ended, "bytes committed after EOF");
        self.rx_len += n;
        assert!(self.rx_len <= RX_CAPACITY);
        self.process();
    }

    fn handle_eof(&mut self, _now: Instant) {
        self.eof_calls += 1;
        self.input_ended = true;
        self.process();
    }

    fn poll_transmit(&self) -> Option<&[u8]> {
        (self.tx_start < self.tx_end).then(|| &self.tx[self.tx_start..self.tx_end])
    }

    fn transmit_done(&mut self, _now: Instant, n: usize) {
        self.tx_start += n;
        assert!(self.tx_start <= self.tx_end);
        if self.tx_start == self.tx_end {
            self.tx_start = 0;
            self.tx_end = 0;
        }
        self.process();
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.timeouts.front().copied()
    }

    fn handle_timeout(&mut self, now: Instant) {
        while let Some(&deadline) = self.timeouts.front() {
            if deadline > now || !self.push_tx(b"TICK\n") {
                break;
            }
            self.timeouts.pop_front();
            self.timeouts_fired.push((deadline, now));
        }
    }

    fn is_finished(&self) -> bool {
        self.input_ended && self.rx_len == 0 && self.tx_start == self.tx_end && self.deferred == 0
    }
}

/// Deterministic xorshift64 generator: random enough for chunk sizes and line contents.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// A value in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        low + (self.0 % (high - low + 1) as u64) as usize
    }
}

/// `count` newline-terminated lines of random lower-case text, each at most [`MAX_LINE`] long.
pub fn random_lines(rng: &mut Rng, count: usize) -> Vec<u8> {
    let mut text = Vec::new();
    for _ in 0..count {
        for _ in 0..rng.between(0, MAX_LINE) {
            text.push(b"abcdefghijklmnopqrstuvwxyz ,.{}"[rng.between(0, 30)]);
        }
        text.push(b'\n');
    }
    text
}

/// What [`UpperLines`] answers to `input` (no `DEFER` lines, all complete).
pub fn upper(input: &[u8]) -> Vec<u8> {
    input.to_ascii_uppercase()
}

/// The example device's board with fixed readings.
#[allow(unused_imports)] // Only some test files serve the device.
pub use mcp_example_device::FixedBoard;
