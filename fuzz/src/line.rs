//! Target `line`: the NDJSON line decoder ([`LineBuffer`]) under arbitrary bytes and arbitrary chunking.
//!
//! Input: `capacity byte, schedule length byte, schedule bytes…, stream…` (see [`run`]). The stream is
//! fed through `push` or `spare`/`commit` in chunks chosen by the schedule, with frames taken at
//! arbitrary moments, and the events must equal a line-by-line model computed from the whole stream:
//! every line is returned once, in order, or reported once as too long; a partial last line is
//! reported as truncated; the reader never stalls; the buffer never holds more than its capacity.
//! The decoder is then reused (after `finish`) for the same stream pushed whole: same events.

use mcp_sansio::frame::{Frame, FrameError, LineBuffer};

use crate::chunked::{self, Decoder};
use crate::input::{Encoder, Input};

/// What the decoder reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A complete line, without `\n` and one trailing `\r`.
    Line(Vec<u8>),
    /// A dropped line.
    Error(FrameError),
}

pub use crate::chunked::capacity_of;

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

/// The decoder under the schedule ([`chunked`](crate::chunked)), with the last frame it handed out.
struct Lines<'b, 'a> {
    lines: &'b mut LineBuffer<'a>,
    capacity: usize,
    /// The last frame handed out: it must read as empty after the next `&mut` call.
    stale: Option<Frame>,
}

impl Decoder for Lines<'_, '_> {
    type Event = Event;

    fn push(&mut self, data: &[u8]) -> usize {
        self.lines.push(data)
    }

    fn spare(&mut self) -> &mut [u8] {
        self.lines.spare()
    }

    fn commit(&mut self, n: usize) {
        self.lines.commit(n)
    }

    fn buffered(&self) -> usize {
        self.lines.buffered()
    }

    fn is_discarding(&self) -> bool {
        self.lines.is_discarding()
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn take(&mut self, out: &mut Vec<Event>) -> bool {
        let next = self.lines.next_frame();
        self.check();
        match next {
            None => return false,
            Some(Ok(frame)) => {
                let bytes = self.lines.frame(frame);
                assert_eq!(bytes.len(), frame.len());
                assert!(!frame.is_empty(), "an empty frame");
                assert!(!bytes.contains(&b'\n'), "a frame holds a newline");
                assert_eq!(self.lines.frame(frame), bytes, "reading a frame twice changed it");
                out.push(Event::Line(bytes.to_vec()));
                self.stale = Some(frame);
            }
            Some(Err(error)) => {
                if let FrameError::TooLong { limit } = error {
                    assert_eq!(limit, self.capacity);
                }
                out.push(Event::Error(error));
            }
        }
        true
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        out.extend(self.lines.finish().map(Event::Error));
    }

    fn check(&mut self) {
        assert_eq!(self.lines.capacity(), self.capacity);
        if let Some(stale) = self.stale.take() {
            assert!(self.lines.frame(stale).is_empty(), "a stale frame still reads bytes");
        }
    }
}

/// Runs one input. Panics on any violated invariant.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let capacity = capacity_of(input.byte());
    let (schedule, stream) = chunked::schedule_and_stream(&mut input);
    let expected = model(capacity, stream);
    let mut storage = vec![0u8; capacity];
    let mut lines = LineBuffer::new(&mut storage);
    let decoder = Lines { lines: &mut lines, capacity, stale: None };
    chunked::run(decoder, &schedule, stream, &expected, "line-by-line model");
}
