//! Target `line`: the NDJSON line decoder ([`LineBuffer`]) under arbitrary bytes and arbitrary chunking.
//!
//! Input: `capacity byte, schedule length byte, schedule bytes…, stream…` (see [`run`]). The stream is
//! fed through `push` or `spare`/`commit` in chunks chosen by the schedule, with frames taken at
//! arbitrary moments, and the events must equal a line-by-line model computed from the whole stream:
//! every line is returned once, in order, or reported once as too long; a partial last line is
//! reported as truncated; the reader never stalls; the buffer never holds more than its capacity.
//! The decoder is then reused (after `finish`) for the same stream pushed whole: same events.

use mcp_sansio::frame::{Frame, FrameError, LineBuffer};

use crate::input::{Encoder, Input};

/// What the decoder reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A complete line, without `\n` and one trailing `\r`.
    Line(Vec<u8>),
    /// A dropped line.
    Error(FrameError),
}

/// The capacity encoded by `byte`: 0–127 exactly, or multiples of 16 up to 2032.
pub fn capacity_of(byte: u8) -> usize {
    if byte & 0x80 == 0 { usize::from(byte) } else { usize::from(byte & 0x7f) * 16 }
}

/// A seed: `stream` through a `capacity_byte` decoder with the given schedule.
pub fn encode(capacity_byte: u8, schedule: &[u8], stream: &[u8]) -> Vec<u8> {
    let mut out = Encoder::new();
    out.byte(capacity_byte).byte(schedule.len() as u8);
    for &step in schedule {
        out.byte(step);
    }
    out.bytes(stream).finish()
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|&byte| matches!(byte, b' ' | b'\t' | b'\r'))
}

/// The events a correct decoder of `capacity` produces for `stream`, computed line by line.
pub fn model(capacity: usize, stream: &[u8]) -> Vec<Event> {
    let mut events = Vec::new();
    let mut lines = stream.split(|&byte| byte == b'\n').peekable();
    while let Some(raw) = lines.next() {
        let complete = lines.peek().is_some();
        if raw.len() > capacity {
            events.push(Event::Error(FrameError::TooLong { limit: capacity }));
        } else if complete {
            let content = raw.strip_suffix(b"\r").unwrap_or(raw);
            if !is_blank(content) {
                events.push(Event::Line(content.to_vec()));
            }
        } else if !is_blank(raw) {
            events.push(Event::Error(FrameError::Truncated { len: raw.len() }));
        }
    }
    events
}

/// Drives one decoder and records what it reports, checking invariants after every call.
struct Driver<'b, 'a> {
    lines: &'b mut LineBuffer<'a>,
    capacity: usize,
    events: Vec<Event>,
    /// The last frame handed out: it must read as empty after the next `&mut` call.
    stale: Option<Frame>,
    /// Length of the whole stream.
    stream_len: usize,
}

impl Driver<'_, '_> {
    fn check(&mut self) {
        assert!(self.lines.buffered() <= self.capacity, "buffered more than the capacity");
        assert_eq!(self.lines.capacity(), self.capacity);
        if let Some(stale) = self.stale.take() {
            assert!(self.lines.frame(stale).is_empty(), "a stale frame still reads bytes");
        }
    }

    /// Takes at most `limit` frames.
    fn drain(&mut self, limit: usize) {
        for _ in 0..limit {
            let next = self.lines.next_frame();
            self.check();
            match next {
                None => return,
                Some(Ok(frame)) => {
                    let bytes = self.lines.frame(frame);
                    assert_eq!(bytes.len(), frame.len());
                    assert!(!frame.is_empty(), "an empty frame");
                    assert!(!bytes.contains(&b'\n'), "a frame holds a newline");
                    assert_eq!(self.lines.frame(frame), bytes, "reading a frame twice changed it");
                    self.events.push(Event::Line(bytes.to_vec()));
                    self.stale = Some(frame);
                }
                Some(Err(error)) => {
                    if let FrameError::TooLong { limit } = error {
                        assert_eq!(limit, self.capacity);
                    }
                    self.events.push(Event::Error(error));
                }
            }
        }
    }

    fn drain_all(&mut self) {
        // Every frame and every error stands for at least one byte of the stream, so a correct
        // decoder never reaches this bound.
        let bound = self.stream_len + 1;
        self.drain(bound);
        assert!(self.lines.next_frame().is_none(), "frames left after draining");
        self.stale = None;
    }

    /// The decoder is full of complete lines: draining must make room again.
    fn unstall(&mut self) {
        assert_eq!(self.lines.buffered(), self.capacity, "no room although the buffer is not full");
        self.drain_all();
        assert!(!self.lines.spare().is_empty(), "the reader is stuck after draining");
        self.check();
    }

    /// Feeds up to `len` bytes with `push`; returns how many were taken.
    fn push(&mut self, data: &[u8]) -> usize {
        let taken = self.lines.push(data);
        self.check();
        assert!(taken <= data.len());
        if taken < data.len() {
            self.unstall();
        }
        taken
    }

    /// Feeds up to `len` bytes with one `spare`/`commit` round; returns how many were taken.
    fn read(&mut self, data: &[u8], overcommit: usize, spare_twice: bool) -> usize {
        if spare_twice {
            let _ = self.lines.spare();
        }
        let spare = self.lines.spare();
        let room = spare.len();
        assert!(room <= self.capacity.max(1), "spare larger than the buffer");
        if room == 0 {
            self.unstall();
            return 0;
        }
        let n = room.min(data.len());
        spare[..n].copy_from_slice(&data[..n]);
        // Committing more than `spare` offered is clamped to it; only try when it was filled.
        let committed = if n == room { n + overcommit } else { n };
        self.lines.commit(committed);
        self.check();
        n
    }
}

/// Runs one input. Panics on any violated invariant.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let capacity = capacity_of(input.byte());
    let schedule_len = input.below(17);
    let schedule = input.bytes(schedule_len).to_vec();
    let stream = input.rest();
    let expected = model(capacity, stream);

    let mut storage = vec![0u8; capacity];
    let mut lines = LineBuffer::new(&mut storage);
    let mut driver = Driver { lines: &mut lines, capacity, events: Vec::new(), stale: None, stream_len: stream.len() };
    let mut rest = stream;
    let mut step = 0usize;
    let mut idle_steps = 0usize;
    while !rest.is_empty() {
        let op = schedule.get(step % schedule.len().max(1)).copied().unwrap_or(0);
        step += 1;
        let len = usize::from(op & 0x1f) + 1;
        let taken = match op >> 5 {
            0 => driver.push(&rest[..len.min(rest.len())]),
            1 => driver.push(&rest[..(len * 64).min(rest.len())]),
            2 => driver.read(rest, 0, false),
            3 => driver.read(&rest[..len.min(rest.len())], usize::from(op & 3), op & 4 != 0),
            4 => driver.read(&rest[..1], 0, false),
            5 => {
                driver.drain(usize::from(op & 3));
                0
            }
            6 => {
                driver.drain_all();
                0
            }
            _ => driver.push(rest),
        };
        rest = &rest[taken..];
        // A schedule that only drains (or keeps hitting a full buffer) falls back to pushing.
        idle_steps = if taken == 0 { idle_steps + 1 } else { 0 };
        if idle_steps > schedule.len() + 1 {
            let taken = driver.push(rest);
            rest = &rest[taken..];
        }
        if op & 0x10 != 0 {
            driver.drain_all();
        }
    }
    driver.drain_all();
    let finished = driver.lines.finish();
    driver.check();
    driver.events.extend(finished.map(Event::Error));
    assert_eq!(driver.events, expected, "events differ from the line-by-line model");
    assert_eq!(driver.lines.buffered(), 0, "finish leaves bytes behind");
    assert!(!driver.lines.is_discarding());

    // The decoder is reusable after `finish`: the same stream pushed whole gives the same events.
    driver.events.clear();
    let mut rest = stream;
    while !rest.is_empty() {
        let taken = driver.push(rest);
        rest = &rest[taken..];
        driver.drain_all();
    }
    let finished = driver.lines.finish();
    driver.events.extend(finished.map(Event::Error));
    assert_eq!(driver.events, expected, "a reused decoder disagrees");
}
