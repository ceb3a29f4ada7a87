//! Newline-delimited framing over a caller-owned receive buffer.
//!
//! [`LineBuffer`] receives bytes (through [`LineBuffer::spare`] + [`LineBuffer::commit`], or
//! [`LineBuffer::push`]) and hands out complete lines as [`Frame`]s, which are byte ranges inside the
//! buffer. Nothing is allocated and nothing is copied except when compacting.
//!
//! # Limits
//!
//! The longest accepted line is `capacity()` bytes, not counting its `\n`. A `\r` before the `\n`
//! counts toward the limit. A longer line is reported once as [`FrameError::TooLong`] and skipped up
//! to and including its `\n`; decoding resumes with the next line.
//!
//! To decide whether a line of exactly `capacity()` bytes ends there, the decoder must see one more
//! byte while the buffer is full. For that one byte, [`LineBuffer::spare`] offers a one-byte slot
//! outside the buffer, so a reader is never stuck with an empty `spare()` on an unfinished line.
//!
//! # Example
//!
//! ```
//! use mcp_sansio::frame::{FrameError, LineBuffer};
//!
//! let mut storage = [0u8; 16];
//! let mut lines = LineBuffer::new(&mut storage);
//! let mut input: &[u8] = b"{\"id\":1}\r\n\n{\"id\":2}\n{\"partial";
//! let mut received = 0;
//! while !input.is_empty() {
//!     // A real reader calls `read(lines.spare())`; here we copy from `input`.
//!     let taken = lines.push(input);
//!     input = &input[taken..];
//!     while let Some(next) = lines.next_frame() {
//!         let frame = next.expect("no line is too long here");
//!         assert!(lines.frame(frame).starts_with(b"{\"id\":"));
//!         received += 1;
//!     }
//! }
//! assert_eq!(received, 2);
//! assert_eq!(lines.finish(), Some(FrameError::Truncated { len: 9 }));
//! ```

use core::fmt;

use crate::frame::intake::{self, Intake, RxWindow};
use crate::num::Decimal;
use crate::storage::Storage;

/// A complete line inside a [`LineBuffer`]: a byte range, without its `\n` and trailing `\r`.
///
/// Read its bytes with [`LineBuffer::frame`]. It stays valid until the next `&mut` call on the
/// `LineBuffer` that returned it; after that, [`LineBuffer::frame`] returns an empty slice for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Frame {
    start: usize,
    end: usize,
    /// Which `next_frame` call produced it, so a stale frame is never confused with a newer one that
    /// happens to cover the same range.
    generation: u32,
}

impl Frame {
    /// Length of the line in bytes (without its `\n` and trailing `\r`).
    #[must_use]
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// `true` for a zero-length line. [`LineBuffer::next_frame`] skips blank lines, so a frame it
    /// returns is never empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a line was dropped instead of returned as a [`Frame`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum FrameError {
    /// A line grew past the buffer capacity (`limit` bytes) without a newline. Its bytes were dropped
    /// and the decoder skips everything up to and including the next `\n`, then resynchronises.
    TooLong {
        /// The capacity of the buffer: the longest accepted line, in bytes.
        limit: usize,
    },
    /// The stream ended (see [`LineBuffer::finish`]) in the middle of a line of `len` bytes; those
    /// bytes were dropped.
    Truncated {
        /// How many bytes were dropped.
        len: usize,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::TooLong { limit } => write!(f, "line longer than the {}-byte limit", Decimal(*limit as u64)),
            FrameError::Truncated { len } => {
                write!(f, "stream ended inside a line ({} bytes dropped)", Decimal(*len as u64))
            }
        }
    }
}

impl core::error::Error for FrameError {}

/// A line decoder over a caller-owned receive buffer. The longest accepted line is `buf.len()` bytes
/// (excluding the `\n`).
///
/// Drive it with a loop like: read into [`spare`](Self::spare), [`commit`](Self::commit) the count,
/// then call [`next_frame`](Self::next_frame) until it returns `None`; at end of stream, drain and
/// call [`finish`](Self::finish). Every method does work bounded by the bytes buffered (or, for
/// [`push`](Self::push), by the input), and no byte is searched for a newline twice.
pub struct LineBuffer<'a> {
    /// The received bytes. `rx.scan` is the first byte not yet searched for `\n`; when
    /// `scan < end` after a search, `buf[scan]` is the `\n` that ends the line at `start`.
    rx: RxWindow<'a>,
    /// The byte right after a full buffer was `\n` (seen through the one-byte slot): the line
    /// `start..end` is complete.
    newline_after_buffer: bool,
    /// The only frame `frame` will serve bytes for.
    last_frame: Option<Frame>,
    /// Generation of the last frame handed out.
    generation: u32,
}

impl<'a> LineBuffer<'a> {
    /// A decoder over `buf`, which it uses as its receive buffer. Lines up to `buf.len()` bytes are
    /// accepted; an empty `buf` works but rejects every non-blank line.
    pub fn new(buf: &'a mut [u8]) -> Self {
        LineBuffer::with_storage(buf)
    }

    /// A decoder over `buf`, borrowed as in [`LineBuffer::new`] or, with `alloc`, owned (a
    /// `Box<[u8]>`; see [`Storage`]).
    pub fn with_storage(buf: impl Into<Storage<'a>>) -> Self {
        LineBuffer { rx: RxWindow::new(buf), newline_after_buffer: false, last_frame: None, generation: 0 }
    }

    /// The receive buffer, to reuse it (what it holds is dropped).
    #[must_use]
    pub fn into_storage(self) -> Storage<'a> {
        self.rx.buf
    }

    /// The size of the receive buffer, which is also the longest accepted line in bytes.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.rx.capacity()
    }

    /// Bytes received but not yet returned as frames (including a partial line).
    #[must_use]
    pub fn buffered(&self) -> usize {
        self.rx.buffered()
    }

    /// `true` while skipping the rest of an over-long line.
    #[must_use]
    pub fn is_discarding(&self) -> bool {
        self.rx.discarding
    }

    /// Free space to read new bytes into; call it before each read and pass the count read to
    /// [`commit`](Self::commit).
    ///
    /// Compacts (moves unconsumed bytes to the front) when that more than doubles the room, which
    /// includes whenever the tail is full and bytes were consumed. Empty only when the buffer
    /// is completely full of unconsumed bytes that include at least one complete line: the caller must
    /// take frames with [`next_frame`](Self::next_frame) before it can read more. When the buffer is
    /// full of a single unfinished line, the returned slice is a one-byte slot outside the buffer: the
    /// byte read into it decides whether the line ends there or is too long.
    pub fn spare(&mut self) -> &mut [u8] {
        self.last_frame = None;
        self.rx.begin_spare();
        self.rx.compact_if_useful();
        if self.rx.end == self.capacity() && !self.newline_after_buffer {
            // Full: only a scan can tell whether a line is complete, and it may drop bytes of a
            // discarded line, which makes room.
            let _ = self.find_line_end();
            self.rx.compact_if_useful();
        }
        self.debug_check_invariants();
        if self.rx.end < self.capacity() {
            return self.rx.tail();
        }
        if self.newline_after_buffer || self.rx.scan < self.rx.end {
            // A complete line is buffered (after a search, `scan < end` only at a found `\n`).
            return &mut [];
        }
        self.rx.lookahead_slot()
    }

    /// Marks the first `n` bytes of [`spare`](Self::spare) as received (`n` is clamped to the spare
    /// length). Call it after writing into the slice returned by the last `spare`, with no
    /// `spare`, `push` or `finish` call in between.
    pub fn commit(&mut self, n: usize) {
        self.last_frame = None;
        if let Some(byte) = self.rx.commit(n) {
            self.take_lookahead_byte(byte);
        }
        self.debug_check_invariants();
    }

    /// Copies as much of `data` as fits (compacting first if needed) and returns how many bytes it
    /// took. Bytes of an over-long line are dropped as they come, so they always "fit". Takes less
    /// than `data.len()` only when the buffer is full and holds a complete line: take frames with
    /// [`next_frame`](Self::next_frame), then push the rest.
    #[must_use = "bytes beyond the returned count were not taken"]
    pub fn push(&mut self, data: &[u8]) -> usize {
        intake::push(self, data)
    }

    /// The next complete line, with its `\n` and one trailing `\r` removed.
    ///
    /// Lines that are empty or only JSON whitespace (space, tab, CR) are skipped silently. Returns
    /// `Some(Err(TooLong))` once for each line that overflowed, in stream order, then keeps discarding
    /// up to the next newline. `None` when no complete line is buffered: read more, or at end of
    /// stream call [`finish`](Self::finish). Work is bounded by the buffered bytes; bytes already
    /// searched for a newline are not searched again.
    #[must_use = "a frame or error that is not handled is lost"]
    pub fn next_frame(&mut self) -> Option<Result<Frame, FrameError>> {
        self.last_frame = None;
        if self.rx.overflows_to_report > 0 {
            // The overflowing line came before everything now buffered.
            self.rx.overflows_to_report -= 1;
            return Some(Err(FrameError::TooLong { limit: self.capacity() }));
        }
        while let Some(line_end) = self.find_line_end() {
            let line_start = self.rx.start;
            if line_end == self.rx.end {
                // The `\n` arrived through the one-byte slot, after a full buffer.
                self.newline_after_buffer = false;
                self.rx.start = self.rx.end;
            } else {
                self.rx.start = line_end.saturating_add(1);
            }
            self.rx.scan = self.rx.start;
            let line = self.rx.buf.get(line_start..line_end).unwrap_or_default();
            let content = line.strip_suffix(b"\r").unwrap_or(line);
            if content.iter().all(|&byte| is_json_whitespace(byte)) {
                continue;
            }
            self.generation = self.generation.wrapping_add(1);
            let frame =
                Frame { start: line_start, end: line_start.saturating_add(content.len()), generation: self.generation };
            self.last_frame = Some(frame);
            self.debug_check_invariants();
            return Some(Ok(frame));
        }
        self.debug_check_invariants();
        None
    }

    /// Puts the frame the last [`next_frame`](Self::next_frame) returned back, so that the next call
    /// returns it again (an endpoint that cannot serve a message yet keeps it). Does nothing if
    /// another `&mut` call happened since. Its newline is not searched for again.
    pub fn unread(&mut self) {
        let Some(frame) = self.last_frame.take() else { return };
        // The line ends right after the frame's content, or after the `\r` stripped from it: at a
        // `\n` in the buffer, or at `end` when the `\n` came through the one-byte slot.
        let line_end = frame.end + usize::from(self.rx.buf.get(frame.end) == Some(&b'\r'));
        let via_slot = line_end >= self.rx.end;
        self.rx.start = frame.start;
        self.rx.scan = if via_slot { self.rx.end } else { line_end };
        self.newline_after_buffer = via_slot;
        self.debug_check_invariants();
    }

    /// The bytes of a frame returned by the last [`next_frame`](Self::next_frame) call.
    ///
    /// Empty if `frame` is stale (another `&mut` call happened since) or came from another decoder;
    /// never panics.
    #[must_use]
    pub fn frame(&self, frame: Frame) -> &[u8] {
        if self.last_frame != Some(frame) {
            return &[];
        }
        self.rx.buf.get(frame.start..frame.end).unwrap_or_default()
    }

    /// Call at end of stream after draining [`next_frame`](Self::next_frame): drops a partial last
    /// line and reports it as `Truncated` (whitespace-only leftovers, and the rest of an over-long
    /// line already reported, are not). Resets the decoder so it can take a new stream.
    ///
    /// Anything not drained is dropped too: complete lines count toward `len`, and pending
    /// `TooLong` errors are lost.
    #[must_use = "a truncated last message should be reported"]
    pub fn finish(&mut self) -> Option<FrameError> {
        let leftover = self.rx.buf.get(self.rx.start..self.rx.end).unwrap_or_default();
        let blank = leftover.iter().all(|&byte| byte == b'\n' || is_json_whitespace(byte));
        let report = (!self.rx.discarding && !blank).then_some(FrameError::Truncated { len: leftover.len() });
        self.rx.reset();
        self.newline_after_buffer = false;
        self.last_frame = None;
        report
    }

    /// Searches the unsearched bytes for the `\n` ending the line at `start` and returns its index
    /// (`end` itself when the `\n` came through the one-byte slot). Drops the bytes of a discarded
    /// line as it passes them, and ends discarding at their `\n`.
    fn find_line_end(&mut self) -> Option<usize> {
        loop {
            let unsearched = self.rx.buf.get(self.rx.scan..self.rx.end).unwrap_or_default();
            let offset = crate::swar::newline_free_len(unsearched);
            let Some(offset) = (offset < unsearched.len()).then_some(offset) else {
                self.rx.scan = self.rx.end;
                if self.rx.discarding {
                    self.rx.start = self.rx.end;
                    return None;
                }
                return self.newline_after_buffer.then_some(self.rx.end);
            };
            let newline = self.rx.scan.saturating_add(offset);
            if !self.rx.discarding {
                self.rx.scan = newline;
                return Some(newline);
            }
            // The over-long line ends here; what follows is a new line.
            self.rx.discarding = false;
            self.rx.start = newline.saturating_add(1);
            self.rx.scan = self.rx.start;
        }
    }

    /// Handles a byte committed through the one-byte slot (the buffer is full, with no `\n` in it).
    fn take_lookahead_byte(&mut self, byte: u8) {
        match (byte == b'\n', self.rx.discarding) {
            (true, true) => self.rx.discarding = false,
            (true, false) => self.newline_after_buffer = true,
            (false, true) => {}
            (false, false) => self.rx.reject_overlong(),
        }
    }

    fn debug_check_invariants(&self) {
        self.rx.debug_check_invariants();
        debug_assert!(!(self.rx.discarding && self.newline_after_buffer));
    }
}

impl Intake for LineBuffer<'_> {
    fn spare(&mut self) -> &mut [u8] {
        LineBuffer::spare(self)
    }

    fn commit(&mut self, n: usize) {
        LineBuffer::commit(self, n)
    }
}

impl fmt::Debug for LineBuffer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineBuffer")
            .field("capacity", &self.capacity())
            .field("buffered", &self.buffered())
            .field("discarding", &self.rx.discarding)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for LineBuffer<'_> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "LineBuffer {{ capacity: {=usize}, buffered: {=usize}, discarding: {=bool} }}",
            self.capacity(),
            self.buffered(),
            self.rx.discarding
        );
    }
}

/// Whitespace JSON allows between tokens, minus `\n` (which ends the line).
fn is_json_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    #[derive(Debug, PartialEq, Eq)]
    enum Event {
        Line(Vec<u8>),
        Error(FrameError),
    }

    fn line(text: &str) -> Event {
        Event::Line(text.as_bytes().to_vec())
    }

    fn too_long(limit: usize) -> Event {
        Event::Error(FrameError::TooLong { limit })
    }

    /// Records one `next_frame` result, reading the frame's bytes right away.
    fn record(lines: &LineBuffer<'_>, next: Result<Frame, FrameError>, out: &mut Vec<Event>) {
        match next {
            Ok(frame) => {
                let bytes = lines.frame(frame);
                assert!(!frame.is_empty());
                assert_eq!(bytes.len(), frame.len());
                out.push(Event::Line(bytes.to_vec()));
            }
            Err(error) => out.push(Event::Error(error)),
        }
    }

    fn drain(lines: &mut LineBuffer<'_>, out: &mut Vec<Event>) {
        while let Some(next) = lines.next_frame() {
            record(lines, next, out);
        }
    }

    /// Pushes `input` whole (draining whenever the buffer is full), drains, and finishes.
    fn decode(capacity: usize, input: &[u8]) -> Vec<Event> {
        let mut storage = vec![0u8; capacity];
        let mut lines = LineBuffer::new(&mut storage);
        let mut out = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let taken = lines.push(rest);
            rest = &rest[taken..];
            drain(&mut lines, &mut out);
            assert!(taken > 0 || !lines.spare().is_empty(), "reader stalled");
        }
        drain(&mut lines, &mut out);
        if let Some(error) = lines.finish() {
            out.push(Event::Error(error));
        }
        out
    }

    /// Feeds `input` through `spare`/`commit`, reading at most `read_size` bytes per read.
    fn decode_by_reads(capacity: usize, input: &[u8], read_size: usize) -> Vec<Event> {
        let mut storage = vec![0u8; capacity];
        let mut lines = LineBuffer::new(&mut storage);
        let mut out = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let spare = lines.spare();
            assert!(!spare.is_empty(), "reader stalled after draining");
            let n = spare.len().min(read_size).min(rest.len());
            spare[..n].copy_from_slice(&rest[..n]);
            lines.commit(n);
            rest = &rest[n..];
            drain(&mut lines, &mut out);
        }
        if let Some(error) = lines.finish() {
            out.push(Event::Error(error));
        }
        out
    }

    #[test]
    fn an_unread_frame_comes_back_whole_and_then_the_next() {
        let mut buf = [0u8; 32];
        let mut lines = LineBuffer::new(&mut buf);
        assert_eq!(lines.push(b"\n{\"a\":1}\r\n{\"b\":2}\n"), 18);
        let first = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(first), b"{\"a\":1}");
        lines.unread();
        assert_eq!(lines.frame(first), b"", "the frame handed out is stale once put back");
        for _ in 0..2 {
            let again = lines.next_frame().unwrap().unwrap();
            assert_eq!(lines.frame(again), b"{\"a\":1}");
            lines.unread();
        }
        assert_eq!(lines.next_frame().map(|f| f.map(|f| lines.frame(f).to_vec())), Some(Ok(b"{\"a\":1}".to_vec())));
        let second = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(second), b"{\"b\":2}");
        lines.unread();
        lines.unread(); // a second call puts nothing back
        let second = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(second), b"{\"b\":2}");
        assert_eq!(lines.next_frame(), None);
        // A stale unread (after `spare`) changes nothing.
        let _ = lines.spare();
        lines.unread();
        assert_eq!(lines.next_frame(), None);
        assert_eq!(lines.buffered(), 0);
    }

    #[test]
    fn a_line_ended_through_the_one_byte_slot_is_put_back_too() {
        let mut buf = [0u8; 4];
        let mut lines = LineBuffer::new(&mut buf);
        assert_eq!(lines.push(b"abcd"), 4);
        let slot = lines.spare();
        assert_eq!(slot.len(), 1);
        slot[0] = b'\n';
        lines.commit(1);
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"abcd");
        lines.unread();
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"abcd");
        assert_eq!(lines.next_frame(), None);
        assert_eq!(lines.push(b"ef\n"), 3);
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"ef");
    }

    #[test]
    fn splits_lines_and_strips_line_endings() {
        let input = b"a\nbc\r\n{\"x\": 1}\n";
        let expected = vec![line("a"), line("bc"), line("{\"x\": 1}")];
        assert_eq!(decode(16, input), expected);
        assert_eq!(decode_by_reads(16, input, 1), expected);
        assert_eq!(decode_by_reads(16, input, 5), expected);
    }

    #[test]
    fn removes_only_one_trailing_cr_and_keeps_inner_whitespace() {
        assert_eq!(decode(16, b"a\r\r\n"), vec![line("a\r")]);
        assert_eq!(decode(16, b" {} \t\n"), vec![line(" {} \t")]);
        assert_eq!(decode(16, b"\ra\n"), vec![line("\ra")]);
    }

    #[test]
    fn skips_empty_and_whitespace_only_lines() {
        let input = b"\n\r\n \t\r\n\r\r\n\n x\n\n";
        assert_eq!(decode(8, input), vec![line(" x")]);
        assert_eq!(decode_by_reads(8, input, 3), vec![line(" x")]);
    }

    #[test]
    fn accepts_a_line_of_exactly_capacity_and_rejects_one_byte_more() {
        let input = b"12345678\n123456789\nok\n";
        let expected = vec![line("12345678"), too_long(8), line("ok")];
        assert_eq!(decode(8, input), expected);
        for read_size in [1, 2, 3, 8, 100] {
            assert_eq!(decode_by_reads(8, input, read_size), expected, "reads of {read_size}");
        }
    }

    #[test]
    fn cr_of_a_crlf_ending_counts_toward_the_limit() {
        let expected = vec![too_long(4), line("abc")];
        assert_eq!(decode(4, b"abcd\r\nabc\r\n"), expected);
        assert_eq!(decode_by_reads(4, b"abcd\r\nabc\r\n", 1), expected);
    }

    #[test]
    fn newline_right_after_the_overflow_point_in_the_same_chunk() {
        assert_eq!(decode(4, b"abcde\nxy\n"), vec![too_long(4), line("xy")]);

        let mut storage = [0u8; 4];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"abcd"), 4);
        assert_eq!(lines.next_frame(), None);
        // The buffer is full of one unfinished line: `spare` offers a one-byte slot.
        let slot = lines.spare();
        assert_eq!(slot.len(), 1);
        slot[0] = b'e';
        lines.commit(1);
        assert!(lines.is_discarding());
        assert_eq!(lines.buffered(), 0);
        assert_eq!(lines.push(b"\nxy\n"), 4);
        assert_eq!(lines.next_frame(), Some(Err(FrameError::TooLong { limit: 4 })));
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"xy");
        assert!(!lines.is_discarding());
        assert_eq!(lines.next_frame(), None);
    }

    #[test]
    fn a_full_buffer_never_stalls_a_reader_on_an_unfinished_line() {
        let mut storage = [0u8; 8];
        let mut lines = LineBuffer::new(&mut storage);
        let mut out = Vec::new();
        for _ in 0..1000 {
            let spare = lines.spare();
            assert!(!spare.is_empty());
            spare.fill(b'x');
            let n = spare.len();
            lines.commit(n);
            drain(&mut lines, &mut out);
        }
        assert_eq!(out, vec![too_long(8)]);
        assert!(lines.is_discarding());
        assert_eq!(lines.push(b"x\n{}\n"), 5);
        drain(&mut lines, &mut out);
        assert_eq!(out, vec![too_long(8), line("{}")]);
    }

    #[test]
    fn spare_is_empty_only_when_a_complete_line_fills_the_buffer() {
        let mut storage = [0u8; 4];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"ab\ncdef"), 4);
        assert!(lines.spare().is_empty());
        assert_eq!(lines.push(b"def"), 0);
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"ab");
        assert_eq!(lines.buffered(), 1);
        // Compaction moves "c" to the front.
        assert_eq!(lines.spare().len(), 3);
        assert_eq!(lines.push(b"def"), 3);
        // Full with "cdef" and no newline: only the one-byte slot.
        assert_eq!(lines.spare().len(), 1);
        assert_eq!(lines.push(b"\n"), 1);
        assert!(lines.spare().is_empty());
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"cdef");
        assert_eq!(lines.buffered(), 0);
        assert_eq!(lines.spare().len(), 4);
    }

    #[test]
    fn a_16_mib_line_in_4_kib_chunks_through_a_1_kib_buffer_is_reported_once() {
        const LINE_LEN: usize = 16 << 20;
        let chunk = [b'x'; 4096];
        let next_line = b"{\"ok\":true}\n";

        let mut storage = [0u8; 1024];
        let mut lines = LineBuffer::new(&mut storage);
        let mut out = Vec::new();
        for _ in 0..LINE_LEN / chunk.len() {
            assert_eq!(lines.push(&chunk), chunk.len());
            drain(&mut lines, &mut out);
            assert!(lines.buffered() <= 1024);
        }
        assert_eq!(lines.push(b"\n"), 1);
        assert_eq!(lines.push(next_line), next_line.len());
        drain(&mut lines, &mut out);
        assert_eq!(lines.finish(), None);
        assert_eq!(out, vec![too_long(1024), line("{\"ok\":true}")]);

        // The same through spare/commit, one 4 KiB "read" at a time.
        let mut storage = [0u8; 1024];
        let mut lines = LineBuffer::new(&mut storage);
        let mut out = Vec::new();
        for _ in 0..LINE_LEN / chunk.len() {
            let mut pending = &chunk[..];
            while !pending.is_empty() {
                let spare = lines.spare();
                let n = spare.len().min(pending.len());
                assert!(n > 0);
                spare[..n].copy_from_slice(&pending[..n]);
                lines.commit(n);
                pending = &pending[n..];
                drain(&mut lines, &mut out);
            }
        }
        assert_eq!(lines.push(b"\n"), 1);
        assert_eq!(lines.push(next_line), next_line.len());
        drain(&mut lines, &mut out);
        assert_eq!(out, vec![too_long(1024), line("{\"ok\":true}")]);
    }

    #[test]
    fn consecutive_over_long_lines_are_each_reported_in_order() {
        let input = b"aaaaaa\nbbbbbbb\ncc\nddddd";
        let expected = vec![too_long(4), too_long(4), line("cc"), too_long(4)];
        assert_eq!(decode(4, input), expected);
        assert_eq!(decode_by_reads(4, input, 3), expected);
    }

    #[test]
    fn zero_capacity_buffer_rejects_every_non_blank_line_without_looping() {
        let input = b"abc\n\n\r\n{}\nx";
        let expected = vec![too_long(0), too_long(0), too_long(0), too_long(0)];
        assert_eq!(decode(0, input), expected);
        assert_eq!(decode_by_reads(0, input, 10), expected);

        let mut lines = LineBuffer::new(&mut []);
        assert_eq!(lines.capacity(), 0);
        lines.spare()[0] = b'\n';
        lines.commit(5);
        assert_eq!(lines.buffered(), 0);
        assert_eq!(lines.next_frame(), None);
        lines.spare()[0] = b'x';
        lines.commit(1);
        assert!(lines.is_discarding());
        assert_eq!(lines.next_frame(), Some(Err(FrameError::TooLong { limit: 0 })));
        assert_eq!(lines.finish(), None);
        assert!(!lines.is_discarding());
    }

    #[test]
    fn frames_stay_valid_until_the_next_mut_call() {
        let mut storage = [0u8; 16];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"one\ntwo\n"), 8);
        let one = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(one), b"one");
        assert_eq!(lines.buffered(), 4);
        assert_eq!(lines.frame(one), b"one");
        let two = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(one), b"");
        assert_eq!(lines.frame(two), b"two");
        let _ = lines.spare();
        assert_eq!(lines.frame(two), b"");

        // A stale frame covering the same range as the current one still reads as empty.
        let mut storage = [0u8; 4];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"ab\n"), 3);
        let first = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.push(b"cd\n"), 3);
        let second = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(second), b"cd");
        assert_eq!(lines.frame(first), b"");
    }

    #[test]
    fn finish_reports_a_partial_last_line_and_resets() {
        let mut storage = [0u8; 8];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"{}\n{\"a\""), 7);
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"{}");
        assert_eq!(lines.next_frame(), None);
        assert_eq!(lines.finish(), Some(FrameError::Truncated { len: 4 }));
        assert_eq!(lines.buffered(), 0);
        assert_eq!(lines.finish(), None);
        assert_eq!(lines.push(b"x\n"), 2);
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"x");

        assert_eq!(decode(8, b"{}\n \t\r"), vec![line("{}")]);
        assert_eq!(decode(8, b"12345678"), vec![Event::Error(FrameError::Truncated { len: 8 })]);
        // The rest of an over-long line was already reported.
        assert_eq!(decode(8, b"123456789"), vec![too_long(8)]);
        assert_eq!(decode(8, b"123456789\nab"), vec![too_long(8), Event::Error(FrameError::Truncated { len: 2 })]);
    }

    #[test]
    fn commit_clamps_to_the_spare_length() {
        let mut storage = [0u8; 4];
        let mut lines = LineBuffer::new(&mut storage);
        lines.spare().fill(b'a');
        lines.commit(100);
        assert_eq!(lines.buffered(), 4);
        lines.spare()[0] = b'\n';
        lines.commit(100);
        assert_eq!(lines.buffered(), 4);
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(lines.frame(frame), b"aaaa");
        // Committing without a fresh `spare` (which would compact) adds nothing past the buffer.
        lines.commit(100);
        assert_eq!(lines.buffered(), 0);
        assert_eq!(lines.spare().len(), 4);
    }

    #[test]
    fn scanning_resumes_where_it_stopped() {
        let mut storage = [0u8; 64];
        let mut lines = LineBuffer::new(&mut storage);
        for _ in 0..40 {
            assert_eq!(lines.push(b"y"), 1);
            assert_eq!(lines.next_frame(), None);
            assert_eq!(lines.rx.scan, lines.rx.end);
        }
        assert_eq!(lines.push(b"\n"), 1);
        let frame = lines.next_frame().unwrap().unwrap();
        assert_eq!(frame.len(), 40);

        // Compaction keeps the scan position of the partial line it moves.
        let mut storage = [0u8; 8];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"abcde\nfg"), 8);
        assert!(lines.next_frame().is_some());
        assert_eq!(lines.next_frame(), None);
        assert_eq!((lines.rx.start, lines.rx.scan, lines.rx.end), (6, 8, 8));
        assert_eq!(lines.push(b"h"), 1);
        assert_eq!((lines.rx.start, lines.rx.scan, lines.rx.end), (0, 2, 3));
    }

    #[test]
    fn finish_does_not_report_the_rest_of_an_over_long_line_even_undrained() {
        let mut storage = [0u8; 4];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"abcdefg"), 7);
        assert!(lines.is_discarding());
        assert_eq!(lines.buffered(), 2);
        assert_eq!(lines.finish(), None);
    }

    #[test]
    fn errors_display_their_cause() {
        assert_eq!(FrameError::TooLong { limit: 1024 }.to_string(), "line longer than the 1024-byte limit");
        assert_eq!(FrameError::Truncated { len: 3 }.to_string(), "stream ended inside a line (3 bytes dropped)");
    }

    #[test]
    fn spare_scans_only_a_full_buffer() {
        let mut storage = [0u8; 8];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"123456789"), 9);
        assert!(lines.is_discarding());
        let spare = lines.spare();
        spare[..7].copy_from_slice(b"xxxx\nab");
        lines.commit(7);
        // Not full: `spare` offers the free tail without searching it, so the rest of the over-long
        // line is still buffered and nothing moves.
        assert_eq!(lines.spare().len(), 1);
        assert_eq!(lines.buffered(), 7);
        assert!(lines.is_discarding());
        // `next_frame` searches: it drops `xxxx\n`, and the next `spare` compacts `ab` to the front.
        assert_eq!(lines.next_frame(), Some(Err(FrameError::TooLong { limit: 8 })));
        assert_eq!(lines.next_frame(), None);
        assert_eq!((lines.buffered(), lines.is_discarding()), (2, false));
        assert_eq!(lines.spare().len(), 6);
    }

    #[test]
    fn debug_shows_capacity_buffered_and_discarding() {
        let mut storage = [0u8; 8];
        let mut lines = LineBuffer::new(&mut storage);
        assert_eq!(lines.push(b"abc"), 3);
        assert_eq!(std::format!("{lines:?}"), "LineBuffer { capacity: 8, buffered: 3, discarding: false, .. }");
        assert_eq!(lines.push(b"defghi"), 6);
        assert_eq!(std::format!("{lines:?}"), "LineBuffer { capacity: 8, buffered: 0, discarding: true, .. }");
    }

    #[test]
    fn frame_len_and_is_empty_follow_the_range() {
        // `next_frame` never returns an empty frame, so the empty case is built by hand.
        let empty = Frame { start: 5, end: 5, generation: 1 };
        assert_eq!((empty.len(), empty.is_empty()), (0, true));
        let three = Frame { start: 2, end: 5, generation: 1 };
        assert_eq!((three.len(), three.is_empty()), (3, false));
    }

    use crate::test_rng::XorShift;

    const ALPHABET: &[u8] = b"{}[]\":,ab01 \t\r";

    fn random_line(rng: &mut XorShift, capacity: usize) -> Vec<u8> {
        match rng.below(8) {
            0 => Vec::new(),
            1 => {
                let len = rng.below(capacity + 3);
                rng.bytes_from(b" \t\r", len)
            }
            2..=4 => {
                let len = rng.below(capacity + 1);
                rng.bytes_from(ALPHABET, len)
            }
            5 => rng.bytes_from(ALPHABET, capacity),
            6 => rng.bytes_from(ALPHABET, capacity + 1),
            _ => {
                let len = capacity + 1 + rng.below(3 * capacity + 20);
                rng.bytes_from(ALPHABET, len)
            }
        }
    }

    fn is_blank(bytes: &[u8]) -> bool {
        bytes.iter().all(|&byte| matches!(byte, b' ' | b'\t' | b'\r'))
    }

    /// A random stream and the events it must decode to, computed line by line.
    fn random_stream(rng: &mut XorShift, capacity: usize) -> (Vec<u8>, Vec<Event>) {
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        for _ in 0..rng.below(25) {
            let mut raw = random_line(rng, capacity);
            if rng.below(3) == 0 {
                raw.push(b'\r');
            }
            stream.extend_from_slice(&raw);
            stream.push(b'\n');
            let content = raw.strip_suffix(b"\r").unwrap_or(&raw);
            if raw.len() > capacity {
                expected.push(too_long(capacity));
            } else if !is_blank(content) {
                expected.push(Event::Line(content.to_vec()));
            }
        }
        if rng.below(2) == 0 {
            let tail = random_line(rng, capacity);
            stream.extend_from_slice(&tail);
            if tail.len() > capacity {
                expected.push(too_long(capacity));
            } else if !is_blank(&tail) {
                expected.push(Event::Error(FrameError::Truncated { len: tail.len() }));
            }
        }
        (stream, expected)
    }

    /// Takes a random number of frames (possibly none, possibly all).
    fn drain_some(rng: &mut XorShift, lines: &mut LineBuffer<'_>, out: &mut Vec<Event>) {
        if rng.below(2) == 0 {
            drain(lines, out);
            return;
        }
        for _ in 0..rng.below(3) {
            match lines.next_frame() {
                Some(next) => record(lines, next, out),
                None => break,
            }
        }
    }

    fn random_push(rng: &mut XorShift, capacity: usize, stream: &[u8]) -> Vec<Event> {
        let mut storage = vec![0u8; capacity];
        let mut lines = LineBuffer::new(&mut storage);
        let mut out = Vec::new();
        let mut rest = stream;
        while !rest.is_empty() {
            let chunk = rest.len().min(1 + rng.below(2 * capacity + 8));
            let taken = lines.push(&rest[..chunk]);
            assert!(taken <= chunk);
            rest = &rest[taken..];
            if taken < chunk {
                assert_eq!(lines.buffered(), capacity, "push stopped with room left");
                drain(&mut lines, &mut out);
                assert!(!lines.spare().is_empty(), "reader stalled after draining");
            } else {
                drain_some(rng, &mut lines, &mut out);
            }
        }
        drain(&mut lines, &mut out);
        out.extend(lines.finish().map(Event::Error));
        out
    }

    fn random_reads(rng: &mut XorShift, capacity: usize, stream: &[u8]) -> Vec<Event> {
        let mut storage = vec![0u8; capacity];
        let mut lines = LineBuffer::new(&mut storage);
        let mut out = Vec::new();
        let mut rest = stream;
        while !rest.is_empty() {
            if rng.below(4) == 0 {
                let _ = lines.spare(); // calling it twice must not change anything
            }
            let spare = lines.spare();
            if spare.is_empty() {
                assert_eq!(lines.buffered(), capacity, "spare empty with room left");
                drain(&mut lines, &mut out);
                assert!(!lines.spare().is_empty(), "reader stalled after draining");
                continue;
            }
            let spare_len = spare.len();
            let n = spare_len.min(rest.len()).min(1 + rng.below(2 * capacity + 8));
            spare[..n].copy_from_slice(&rest[..n]);
            rest = &rest[n..];
            let committed = if n == spare_len { n + rng.below(10) } else { n };
            lines.commit(committed);
            drain_some(rng, &mut lines, &mut out);
        }
        drain(&mut lines, &mut out);
        out.extend(lines.finish().map(Event::Error));
        out
    }

    #[test]
    fn random_fragmentation_gives_the_same_events_as_line_by_line_decoding() {
        let (mut frames, mut too_long_lines, mut truncated) = (0, 0, 0);
        for seed in 0..500 {
            for capacity in [0, 1, 2, 3, 5, 8, 16, 64] {
                let mut rng = XorShift::new(seed);
                let (stream, expected) = random_stream(&mut rng, capacity);
                for event in &expected {
                    match event {
                        Event::Line(_) => frames += 1,
                        Event::Error(FrameError::TooLong { .. }) => too_long_lines += 1,
                        Event::Error(FrameError::Truncated { .. }) => truncated += 1,
                    }
                }
                assert_eq!(
                    random_push(&mut rng, capacity, &stream),
                    expected,
                    "push, seed {seed}, capacity {capacity}"
                );
                assert_eq!(
                    random_reads(&mut rng, capacity, &stream),
                    expected,
                    "spare/commit, seed {seed}, capacity {capacity}"
                );
            }
        }
        // The generator really mixes every outcome.
        assert!(frames > 10_000 && too_long_lines > 10_000 && truncated > 500);
    }
}
