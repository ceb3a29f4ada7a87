//! Reading SSE events from a byte stream, for the client role: [`SseDecoder`].

use crate::num::Decimal;
use core::fmt;

use super::parse::parse_event;
use crate::frame::intake::{self, Intake, RxWindow};
use crate::storage::Storage;

const BOM: &[u8; 3] = b"\xEF\xBB\xBF";
const DEFAULT_TYPE: &[u8] = b"message";

/// One event, dispatched by a blank line. Borrowed from the [`SseDecoder`] until its next `&mut` call.
///
/// Returned when the event had at least one `data` field, a valid `id` or a valid `retry`; an event
/// of only comments, `event` fields or unknown fields has no effect and is not returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ReceivedEvent<'a> {
    data: &'a [u8],
    has_data: bool,
    event_type: &'a [u8],
    id: Option<&'a [u8]>,
    retry: Option<u64>,
}

impl<'a> ReceivedEvent<'a> {
    /// The `data` fields joined with LF (one JSON-RPC message for MCP). Empty if there was none.
    #[must_use]
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// `true` when the data is not empty: the event carries a message. An event with an empty
    /// `data` field (the 2025-11-25 priming event) or none is not a message, but its
    /// [`id`](Self::id) still updates the last event id and its [`retry`](Self::retry) the
    /// reconnection delay.
    #[must_use]
    pub const fn is_message(&self) -> bool {
        !self.data.is_empty()
    }

    /// `true` when the event had at least one `data` field (possibly empty): a browser's
    /// `EventSource` would dispatch it.
    #[must_use]
    pub const fn has_data(&self) -> bool {
        self.has_data
    }

    /// The last `event` field, or `message` when there was none or it was empty.
    #[must_use]
    pub const fn event_type(&self) -> &'a [u8] {
        self.event_type
    }

    /// The last `id` field without NUL: the new last event id, to send back as `Last-Event-ID`
    /// when reconnecting. `Some(b"")` resets it; `None` leaves it as it was.
    #[must_use]
    pub const fn id(&self) -> Option<&'a [u8]> {
        self.id
    }

    /// The last `retry` field of only ASCII digits: the new reconnection delay in milliseconds
    /// (saturating at `u64::MAX`).
    #[must_use]
    pub const fn retry(&self) -> Option<u64> {
        self.retry
    }
}

/// Why bytes were dropped instead of returned as an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SseError {
    /// An event grew past the buffer capacity (`limit` bytes). It was dropped and the decoder
    /// skipped to its blank line, then resynchronised.
    TooLong {
        /// The capacity of the buffer: the longest accepted event, in bytes.
        limit: usize,
    },
    /// The stream ended (see [`SseDecoder::finish`]) before the blank line of an event of `len`
    /// bytes; the event was not dispatched.
    Truncated {
        /// How many bytes were dropped.
        len: usize,
    },
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseError::TooLong { limit } => write!(f, "SSE event longer than the {}-byte limit", Decimal(*limit as u64)),
            SseError::Truncated { len } => {
                write!(f, "stream ended inside an SSE event ({} bytes dropped)", Decimal(*len as u64))
            }
        }
    }
}

impl core::error::Error for SseError {}

/// What one byte did to the line structure.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Part of a line.
    Content,
    /// The LF of a CRLF: part of the line end before it.
    SecondOfCrlf,
    /// Ended a non-empty line.
    LineEnd,
    /// Ended an empty line: the event before it is complete.
    Blank,
}

/// An incremental `text/event-stream` decoder over a caller-owned buffer, following the WHATWG
/// HTML "event stream interpretation" rules.
///
/// - Lines end in CRLF, LF or CR; a CR at the end of one chunk and an LF at the start of the next
///   are one line end. A UTF-8 byte order mark at the very start of the stream is skipped.
/// - A line starting with `:` is a comment. Otherwise the field name is everything before the first
///   `:` (the whole line if there is none) and the value everything after it, minus one leading
///   space. `data` values are joined with LF; `id` is ignored if it contains NUL; `retry` is
///   ignored unless it is only ASCII digits; other fields are ignored. A blank line dispatches the
///   event. Bytes are not checked for UTF-8 (the JSON scanner does that to the data).
///
/// # Limits
///
/// The longest accepted event is `capacity()` bytes, counted from its first byte through the CR or
/// LF that ends its last line (comments and ignored fields included; the LF of a final CRLF and the
/// blank line are not counted; a byte order mark counts toward the first event). A longer event is
/// reported once as [`SseError::TooLong`], in stream order, and skipped to its blank line. Like
/// [`LineBuffer`](crate::frame::LineBuffer), when the buffer is full of one unfinished event
/// [`spare`](Self::spare) offers a one-byte slot outside the buffer to decide whether it ends there.
///
/// Every method does work bounded by the bytes buffered (or pushed): each byte is scanned once for
/// line ends and, when its event is dispatched, parsed and moved a constant number of times.
///
/// # Example
///
/// ```
/// use mcp_sansio::frame::sse::SseDecoder;
///
/// let mut storage = [0u8; 256];
/// let mut events = SseDecoder::new(&mut storage);
/// let mut input: &[u8] = b"id: 1-0\nretry: 5000\ndata:\n\nevent: message\r\nid: 1-1\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata:\"id\":1}\r\n\r\n";
/// let mut messages = 0;
/// while !input.is_empty() {
///     let taken = events.push(input); // a real reader calls `read(events.spare())` and `commit`
///     input = &input[taken..];
///     while let Some(next) = events.next_event() {
///         let event = next.expect("no event is too long here");
///         if event.is_message() {
///             assert_eq!(event.data(), b"{\"jsonrpc\":\"2.0\",\n\"id\":1}");
///             assert_eq!(event.id(), Some(&b"1-1"[..]));
///             messages += 1;
///         } else {
///             assert_eq!((event.id(), event.retry()), (Some(&b"1-0"[..]), Some(5000))); // priming
///         }
///     }
/// }
/// assert_eq!(messages, 1);
/// assert_eq!(events.finish(), None);
/// ```
pub struct SseDecoder<'a> {
    /// The received bytes; `rx.scan` is the first byte not yet scanned for line ends. Invariant
    /// beyond the window's: `ready <= scan`.
    rx: RxWindow<'a>,
    /// A blank line was found: the event is `start..ready`, and the blank line ends at `scan`.
    ready: Option<usize>,
    /// The last line ended in CR: an LF right after it belongs to that line end.
    after_cr: bool,
    /// The line being scanned has a byte other than a leading byte order mark.
    line_has_content: bool,
    /// Still in the first line of the stream, where a byte order mark is skipped.
    first_line: bool,
    /// Bytes of a byte order mark matched at the start of the first line.
    bom_matched: u8,
    /// The first event begins with a byte order mark to drop when it is dispatched.
    strip_bom: bool,
}

impl<'a> SseDecoder<'a> {
    /// A decoder over `buf`, which it uses as its receive buffer: events up to `buf.len()` bytes are
    /// accepted. An empty `buf` works but rejects every event.
    pub fn new(buf: &'a mut [u8]) -> Self {
        SseDecoder::with_storage(buf)
    }

    /// A decoder over `buf`, borrowed as in [`SseDecoder::new`] or, with `alloc`, owned (a
    /// `Box<[u8]>`; see [`Storage`]).
    pub fn with_storage(buf: impl Into<Storage<'a>>) -> Self {
        SseDecoder {
            rx: RxWindow::new(buf),
            ready: None,
            after_cr: false,
            line_has_content: false,
            first_line: true,
            bom_matched: 0,
            strip_bom: false,
        }
    }

    /// The size of the receive buffer, which is also the longest accepted event in bytes.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.rx.capacity()
    }

    /// Bytes received but not yet dispatched or dropped (including a partial event).
    #[must_use]
    pub fn buffered(&self) -> usize {
        self.rx.buffered()
    }

    /// `true` while skipping the rest of an over-long event.
    #[must_use]
    pub fn is_discarding(&self) -> bool {
        self.rx.discarding
    }

    /// Free space to read new bytes into; pass the count read to [`commit`](Self::commit).
    ///
    /// Compacts when that more than doubles the room. Empty only when the buffer is full and holds a
    /// complete event: take it with [`next_event`](Self::next_event) first. When the buffer is full
    /// of one unfinished event, the slice is a one-byte slot outside the buffer.
    pub fn spare(&mut self) -> &mut [u8] {
        self.rx.begin_spare();
        self.compact_if_useful();
        if self.rx.end == self.capacity() && self.ready.is_none() {
            let _ = self.find_event_end();
            self.compact_if_useful();
        }
        self.debug_check_invariants();
        if self.rx.end < self.capacity() {
            return self.rx.tail();
        }
        if self.ready.is_some() {
            return &mut [];
        }
        self.rx.lookahead_slot()
    }

    /// Marks the first `n` bytes of [`spare`](Self::spare) as received (clamped to its length). Call
    /// it after writing into the slice the last `spare` returned, with no other call in between.
    pub fn commit(&mut self, n: usize) {
        if let Some(byte) = self.rx.commit(n) {
            self.take_lookahead_byte(byte);
        }
        self.debug_check_invariants();
    }

    /// Copies as much of `data` as fits and returns how many bytes it took. Bytes of an over-long
    /// event are dropped as they come, so they always "fit". Takes less than `data.len()` only when
    /// the buffer is full and holds a complete event: take it with [`next_event`](Self::next_event),
    /// then push the rest.
    #[must_use = "bytes beyond the returned count were not taken"]
    pub fn push(&mut self, data: &[u8]) -> usize {
        intake::push(self, data)
    }

    /// The next dispatched event, its data compacted in place in the buffer.
    ///
    /// Returns `Some(Err(TooLong))` once per over-long event, in stream order. `None` when no complete
    /// event is buffered: read more, or at end of stream call [`finish`](Self::finish).
    #[must_use = "an event or error that is not handled is lost"]
    pub fn next_event(&mut self) -> Option<Result<ReceivedEvent<'_>, SseError>> {
        if self.rx.overflows_to_report > 0 {
            self.rx.overflows_to_report -= 1;
            return Some(Err(SseError::TooLong { limit: self.capacity() }));
        }
        loop {
            let event_end = self.find_event_end()?;
            let mut event_start = self.rx.start;
            if core::mem::take(&mut self.strip_bom)
                && self.rx.buf.get(event_start..event_start.saturating_add(BOM.len())) == Some(&BOM[..])
            {
                event_start += BOM.len();
            }
            self.ready = None;
            self.rx.start = self.rx.scan;
            self.debug_check_invariants();
            let Some(event) = self.rx.buf.get_mut(event_start..event_end).and_then(parse_event) else {
                continue;
            };
            let bytes = self.rx.buf.get(event_start..event_end).unwrap_or_default();
            let slice = |range: (usize, usize)| bytes.get(range.0..range.1).unwrap_or_default();
            let event_type = slice(event.event_type);
            return Some(Ok(ReceivedEvent {
                data: slice(event.data),
                has_data: event.has_data,
                event_type: if event_type.is_empty() { DEFAULT_TYPE } else { event_type },
                id: event.id.map(slice),
                retry: event.retry,
            }));
        }
    }

    /// Call at end of stream after draining [`next_event`](Self::next_event): drops an event whose
    /// blank line never came and reports it as `Truncated` (not the rest of an over-long event
    /// already reported). Resets the decoder so it can take a new stream, which may start with a
    /// byte order mark again. Anything not drained is dropped too.
    #[must_use = "a truncated last event should be reported"]
    pub fn finish(&mut self) -> Option<SseError> {
        // Scanning drops the LF of a blank line's CRLF, and the rest of a discarded event.
        let _ = self.find_event_end();
        let len = self.buffered();
        let report = (!self.rx.discarding && len > 0).then_some(SseError::Truncated { len });
        let buf = core::mem::take(&mut self.rx.buf);
        *self = SseDecoder::with_storage(buf);
        report
    }

    /// Scans unscanned bytes until a blank line completes an event (kept in `ready`, and returned)
    /// or the bytes run out. Drops the bytes of a discarded event as it passes them.
    fn find_event_end(&mut self) -> Option<usize> {
        if self.ready.is_some() {
            return self.ready;
        }
        while self.rx.scan < self.rx.end {
            let Some(&byte) = self.rx.buf.get(self.rx.scan) else { break };
            let at = self.rx.scan;
            self.rx.scan += 1;
            match self.step(byte) {
                Step::Content | Step::LineEnd => {}
                // The line end of a blank line that dispatched an event: not part of the next one.
                Step::SecondOfCrlf if self.rx.start == at => self.rx.start = self.rx.scan,
                Step::SecondOfCrlf => {}
                Step::Blank if self.rx.discarding => {
                    self.rx.discarding = false;
                    self.rx.start = self.rx.scan;
                }
                Step::Blank => {
                    self.ready = Some(at);
                    return self.ready;
                }
            }
        }
        if self.rx.discarding {
            self.rx.start = self.rx.scan;
        }
        None
    }

    /// Advances the line state over one byte.
    fn step(&mut self, byte: u8) -> Step {
        if core::mem::take(&mut self.after_cr) && byte == b'\n' {
            return Step::SecondOfCrlf;
        }
        if byte == b'\r' || byte == b'\n' {
            self.after_cr = byte == b'\r';
            let bom_whole_or_absent = self.bom_matched == 0 || usize::from(self.bom_matched) == BOM.len();
            let blank = !self.line_has_content && (!self.first_line || bom_whole_or_absent);
            if core::mem::take(&mut self.first_line) {
                self.strip_bom = !blank && !self.rx.discarding && usize::from(self.bom_matched) == BOM.len();
            }
            self.line_has_content = false;
            return if blank { Step::Blank } else { Step::LineEnd };
        }
        let bom_byte = BOM.get(usize::from(self.bom_matched));
        if self.first_line && !self.line_has_content && bom_byte == Some(&byte) {
            self.bom_matched += 1;
        } else {
            self.line_has_content = true;
        }
        Step::Content
    }

    /// Handles a byte committed through the one-byte slot: the buffer is full of one unfinished
    /// event (all scanned), or has no room at all.
    fn take_lookahead_byte(&mut self, byte: u8) {
        let step = self.step(byte);
        if self.rx.discarding {
            self.rx.discarding = step != Step::Blank;
            return;
        }
        match step {
            // Not stored and not counted.
            Step::SecondOfCrlf => {}
            Step::Blank => {
                self.ready = Some(self.rx.end);
                self.rx.scan = self.rx.end;
            }
            // The event goes on past the buffer: drop it and skip to its blank line.
            Step::Content | Step::LineEnd => {
                self.strip_bom = false;
                self.rx.reject_overlong();
            }
        }
    }

    /// Compacts the window (see [`RxWindow::compact_if_useful`]), keeping `ready` in step.
    fn compact_if_useful(&mut self) {
        let shift = self.rx.compact_if_useful();
        self.ready = self.ready.map(|ready| ready.saturating_sub(shift));
    }

    fn debug_check_invariants(&self) {
        self.rx.debug_check_invariants();
        debug_assert!(self.ready.is_none_or(|ready| self.rx.start <= ready && ready <= self.rx.scan));
        debug_assert!(!(self.rx.discarding && self.ready.is_some()));
    }
}

impl fmt::Debug for SseDecoder<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SseDecoder")
            .field("capacity", &self.capacity())
            .field("buffered", &self.buffered())
            .field("discarding", &self.rx.discarding)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for SseDecoder<'_> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "SseDecoder {{ capacity: {=usize}, buffered: {=usize}, discarding: {=bool} }}",
            self.capacity(),
            self.buffered(),
            self.rx.discarding
        );
    }
}

impl Intake for SseDecoder<'_> {
    fn spare(&mut self) -> &mut [u8] {
        SseDecoder::spare(self)
    }

    fn commit(&mut self, n: usize) {
        SseDecoder::commit(self, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::sse::{EventId, SseEvent, write_event, write_priming};
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Out {
        Event { data: Vec<u8>, has_data: bool, event_type: Vec<u8>, id: Option<Vec<u8>>, retry: Option<u64> },
        Error(SseError),
    }

    fn message(data: &str) -> Out {
        Out::Event { data: data.into(), has_data: true, event_type: b"message".to_vec(), id: None, retry: None }
    }

    fn with_id(out: Out, new_id: &str) -> Out {
        match out {
            Out::Event { data, has_data, event_type, retry, .. } => {
                Out::Event { data, has_data, event_type, id: Some(new_id.into()), retry }
            }
            error => error,
        }
    }

    fn with_type(out: Out, new_type: &str) -> Out {
        match out {
            Out::Event { data, has_data, id, retry, .. } => {
                Out::Event { data, has_data, event_type: new_type.into(), id, retry }
            }
            error => error,
        }
    }

    fn too_long(limit: usize) -> Out {
        Out::Error(SseError::TooLong { limit })
    }

    fn record(next: Result<ReceivedEvent<'_>, SseError>, out: &mut Vec<Out>) {
        out.push(match next {
            Ok(event) => {
                assert_eq!(event.is_message(), !event.data().is_empty());
                Out::Event {
                    data: event.data().to_vec(),
                    has_data: event.has_data(),
                    event_type: event.event_type().to_vec(),
                    id: event.id().map(<[u8]>::to_vec),
                    retry: event.retry(),
                }
            }
            Err(error) => Out::Error(error),
        });
    }

    fn drain(events: &mut SseDecoder<'_>, out: &mut Vec<Out>) {
        while let Some(next) = events.next_event() {
            record(next, out);
        }
    }

    /// Pushes `input` whole, drains, finishes.
    fn decode(capacity: usize, input: &[u8]) -> Vec<Out> {
        decode_by_reads(capacity, input, usize::MAX)
    }

    /// Feeds `input` in reads of at most `chunk` bytes through `spare`/`commit`.
    fn decode_by_reads(capacity: usize, input: &[u8], chunk: usize) -> Vec<Out> {
        let mut storage = vec![0u8; capacity];
        let mut events = SseDecoder::new(&mut storage);
        let mut out = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let spare = events.spare();
            if spare.is_empty() {
                drain(&mut events, &mut out);
                continue;
            }
            let n = spare.len().min(rest.len()).min(chunk);
            spare[..n].copy_from_slice(&rest[..n]);
            events.commit(n);
            rest = &rest[n..];
            drain(&mut events, &mut out);
        }
        drain(&mut events, &mut out);
        out.extend(events.finish().map(Out::Error));
        out
    }

    /// Every way of feeding `input`: whole, one byte at a time, in threes.
    fn decode_all_ways(capacity: usize, input: &[u8]) -> Vec<Out> {
        let whole = decode(capacity, input);
        for chunk in [1, 2, 3, 7] {
            assert_eq!(decode_by_reads(capacity, input, chunk), whole, "reads of {chunk}");
        }
        whole
    }

    #[test]
    fn whatwg_examples() {
        let stream = b"data: This is the first message.\n\ndata: This is the second message, it\ndata: has two lines.\n\ndata: This is the third message.\n\n";
        assert_eq!(
            decode_all_ways(64, stream),
            vec![
                message("This is the first message."),
                message("This is the second message, it\nhas two lines."),
                message("This is the third message.")
            ]
        );

        let stream = b"event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n";
        assert_eq!(
            decode_all_ways(64, stream),
            vec![
                with_type(message("73857293"), "add"),
                with_type(message("2153"), "remove"),
                with_type(message("113411"), "add")
            ]
        );

        // `id` alone resets the last event id; the third event leaves it as it is.
        let stream = b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n";
        assert_eq!(
            decode_all_ways(64, stream),
            vec![with_id(message("first event"), "1"), with_id(message("second event"), ""), message(" third event")]
        );

        // `data` without a colon is an empty data line; the last event never ends.
        let stream = b"data\n\ndata\ndata\n\ndata:";
        assert_eq!(
            decode_all_ways(64, stream),
            vec![message(""), message("\n"), Out::Error(SseError::Truncated { len: 5 })]
        );

        let stream = b"data:test\n\ndata: test\n\n";
        assert_eq!(decode_all_ways(64, stream), vec![message("test"), message("test")]);
    }

    #[test]
    fn every_line_ending_form() {
        let expected = vec![with_type(with_id(message("a\nb"), "7"), "t"), message("c")];
        for ending in [&b"\n"[..], b"\r\n", b"\r"] {
            let stream: Vec<u8> = [&b"id: 7"[..], b"event: t", b"data: a", b"data: b", b"", b"data: c", b"", b""]
                .iter()
                .flat_map(|line| [*line, ending].concat())
                .collect();
            assert_eq!(decode_all_ways(34, &stream), expected, "{ending:?}");
            assert_eq!(
                decode_all_ways(33, &stream)[0],
                if ending == b"\r\n" { too_long(33) } else { expected[0].clone() }
            );
        }
        // Mixed, and a CR ending one read with the LF starting the next.
        let stream = b"data: a\r\ndata: b\rid: 7\nevent: t\r\r\ndata: c\n\r";
        assert_eq!(decode_all_ways(32, stream), expected);
        let mut storage = [0u8; 32];
        let mut events = SseDecoder::new(&mut storage);
        assert_eq!(events.push(b"data: x\r"), 8);
        assert!(events.next_event().is_none());
        assert_eq!(events.push(b"\n"), 1);
        assert!(events.next_event().is_none(), "the LF of a CRLF is not a blank line");
        assert_eq!(events.push(b"\r"), 1);
        assert_eq!(events.next_event().unwrap().unwrap().data(), b"x");
        assert_eq!(events.push(b"\n"), 1);
        assert!(events.next_event().is_none());
        assert_eq!(events.buffered(), 0, "the LF of the blank line's CRLF is not kept");
        assert_eq!(events.finish(), None);
    }

    #[test]
    fn fields_follow_the_parsing_rules() {
        // NUL in `id` ignores the field; `retry` needs digits only; unknown fields and comments are ignored.
        let stream = b"id: 1\nid: a\0b\nretry: 12x\nretry:\nretry: 300\nfoo: bar\n:comment\ndata:  x \n\n";
        let expected = Out::Event {
            data: b" x ".to_vec(),
            has_data: true,
            event_type: b"message".to_vec(),
            id: Some(b"1".to_vec()),
            retry: Some(300),
        };
        assert_eq!(decode_all_ways(128, stream), vec![expected]);
        // Only the first colon separates, one space is stripped, the field name is case-sensitive.
        let stream = b"data:a: b\nData: no\ndata:: c\n\n";
        assert_eq!(decode_all_ways(64, stream), vec![message("a: b\n: c")]);
        // A huge retry saturates; an event of only `retry` or `id` is returned but is no message.
        let stream = b"retry: 99999999999999999999999\n\nid: 5\n\nevent: e\n\n:x\n\n";
        let retry_only = Out::Event {
            data: vec![],
            has_data: false,
            event_type: b"message".to_vec(),
            id: None,
            retry: Some(u64::MAX),
        };
        let id_only = Out::Event {
            data: vec![],
            has_data: false,
            event_type: b"message".to_vec(),
            id: Some(b"5".to_vec()),
            retry: None,
        };
        assert_eq!(decode_all_ways(64, stream), vec![retry_only, id_only]);
        // Empty `event` means `message`; the last `event` and `id` win, wherever they are.
        let stream =
            b"event: a\nid: 1\ndata: x\nevent:\nid: 2\ndata: y\nid: 3\n\nid: 4\nevent: b\ndata: z\nevent: c\n\n";
        assert_eq!(
            decode_all_ways(64, stream),
            vec![with_id(message("x\ny"), "3"), with_type(with_id(message("z"), "4"), "c")]
        );
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped_once() {
        let bom = "\u{FEFF}";
        let stream = std::format!("{bom}data: x\n\n{bom}data: y\n\ndata: z\n\n");
        assert_eq!(decode_all_ways(32, stream.as_bytes()), vec![message("x"), message("z")]);
        // A BOM alone on the first line is a blank line; a partial BOM is not a BOM.
        let stream = std::format!("{bom}\ndata: x\n\n");
        assert_eq!(decode_all_ways(32, stream.as_bytes()), vec![message("x")]);
        assert_eq!(decode_all_ways(32, b"\xEF\xBB\ndata: x\n\n"), vec![message("x")]);
        assert_eq!(decode_all_ways(32, b"\xEF\xBBdata: x\n\ndata: y\n\n"), vec![message("y")]);
        assert_eq!(decode_all_ways(32, b"\xEF\xBB\xBF:c\nid: 1\n\n")[0], with_id(message(""), "1").without_data());
        // `finish` starts a new stream, which may have its own BOM.
        let mut storage = [0u8; 32];
        let mut events = SseDecoder::new(&mut storage);
        for _ in 0..2 {
            assert_eq!(events.push(b"\xEF\xBB\xBFdata: x\n\n"), 12);
            assert_eq!(events.next_event().unwrap().unwrap().data(), b"x");
            assert_eq!(events.finish(), None);
        }
        // The BOM counts toward the first event's length.
        assert_eq!(decode_all_ways(10, b"\xEF\xBB\xBFdata: x\n\n"), vec![too_long(10)]);
        assert_eq!(decode_all_ways(11, b"\xEF\xBB\xBFdata: x\n\n"), vec![message("x")]);
    }

    #[test]
    fn byte_order_mark_bytes_are_content_except_at_the_start_of_the_stream() {
        // A partial BOM is content: its line belongs to the event after it, and counts toward its length.
        assert_eq!(decode_all_ways(10, b"\xEF\xBB\ndata: x\n\n"), vec![too_long(10)]);
        assert_eq!(decode_all_ways(11, b"\xEF\xBB\ndata: x\n\n"), vec![message("x")]);
        // After the first line, the BOM's bytes are an ignored field, not a blank line.
        let stream = "data: x\n\u{FEFF}\ndata: y\n\n";
        assert_eq!(decode_all_ways(32, stream.as_bytes()), vec![message("x\ny")]);
        let stream = "data: x\n\n\u{FEFF}\ndata: y\n\n";
        assert_eq!(decode_all_ways(32, stream.as_bytes()), vec![message("x"), message("y")]);
        // Only the stream's own BOM is stripped, not one starting the event after an over-long first
        // event (whether or not that one began with a BOM): there it makes the field `\u{FEFF}data`.
        for first in ["\u{FEFF}data: 123456789012345\n\n", "data: 123456789012345\n\n"] {
            let stream = std::format!("{first}\u{FEFF}data: y\n\ndata: z\n\n");
            assert_eq!(decode_all_ways(12, stream.as_bytes()), vec![too_long(12), message("z")], "{first:?}");
        }
    }

    #[test]
    fn debug_shows_capacity_buffered_and_discarding() {
        let mut storage = [0u8; 8];
        let mut events = SseDecoder::new(&mut storage);
        assert_eq!(events.push(b"data"), 4);
        assert_eq!(std::format!("{events:?}"), "SseDecoder { capacity: 8, buffered: 4, discarding: false, .. }");
        assert_eq!(events.push(b": 12345"), 7);
        assert_eq!(std::format!("{events:?}"), "SseDecoder { capacity: 8, buffered: 2, discarding: true, .. }");
    }

    impl Out {
        fn without_data(self) -> Out {
            match self {
                Out::Event { event_type, id, retry, .. } => {
                    Out::Event { data: vec![], has_data: false, event_type, id, retry }
                }
                error => error,
            }
        }
    }

    #[test]
    fn over_long_events_are_reported_once_and_skipped() {
        // "data: 0123456789\n" is 17 bytes: it fits 17, not 16.
        let stream = b"data: 0123456789\n\ndata: ok\n\n";
        assert_eq!(decode_all_ways(17, stream), vec![message("0123456789"), message("ok")]);
        assert_eq!(decode_all_ways(16, stream), vec![too_long(16), message("ok")]);
        // The LF of a final CRLF is not counted; a middle one is.
        assert_eq!(
            decode_all_ways(17, b"data: 0123456789\r\n\r\ndata: ok\n\n"),
            vec![message("0123456789"), message("ok")]
        );
        assert_eq!(decode_all_ways(17, b"data: 012345678\r\nid\n\n"), vec![too_long(17)]);
        assert_eq!(decode_all_ways(18, b"data: 012345678\r\nid\n\n"), vec![too_long(18)], "18 + 3 bytes do not fit 18");
        assert_eq!(decode_all_ways(20, b"data: 012345678\r\nid\n\n"), vec![with_id(message("012345678"), "")]);
        // Several in a row, blank lines in every form, and one at the end of the stream.
        let stream = b"data: aaaaaaaaaa\ndata: b\r\n\r\ndata: cccccccccccc\r\rdata: d\n\ndata: eeeeeeeeeeee";
        assert_eq!(decode_all_ways(12, stream), vec![too_long(12), too_long(12), message("d"), too_long(12)]);
        // Lines of an over-long event that look like blank lines in CRLF are not.
        assert_eq!(decode_all_ways(4, b"data: x\r\ndata: y\r\n\r\n: z\n\n"), vec![too_long(4)]);
        assert_eq!(decode_all_ways(0, b"data: x\n\n\n\r\n\rdata: y\n\n"), vec![too_long(0), too_long(0)]);
    }

    #[test]
    fn a_16_mib_event_in_4_kib_chunks_through_a_1_kib_buffer_is_reported_once() {
        let mut storage = [0u8; 1024];
        let mut events = SseDecoder::new(&mut storage);
        let mut out = Vec::new();
        assert_eq!(events.push(b"data: "), 6);
        let chunk = [b'x'; 4096];
        for i in 0..(16 << 20) / chunk.len() {
            assert_eq!(events.push(&chunk), chunk.len());
            if i % 64 == 0 {
                assert_eq!(events.push(b"\r\ndata: "), 8);
            }
            drain(&mut events, &mut out);
            assert!(events.buffered() <= 1024);
        }
        assert_eq!(events.push(b"\r\n\r\ndata: ok\r\n\r\n"), 16);
        drain(&mut events, &mut out);
        assert_eq!(events.finish(), None);
        assert_eq!(out, vec![too_long(1024), message("ok")]);
    }

    #[test]
    fn spare_is_empty_only_when_a_complete_event_fills_the_buffer() {
        let mut storage = [0u8; 8];
        let mut events = SseDecoder::new(&mut storage);
        assert_eq!(events.push(b"data:a\n\ndata:b"), 8);
        assert!(events.spare().is_empty());
        assert_eq!(events.next_event().unwrap().unwrap().data(), b"a");
        assert_eq!(events.spare().len(), 8, "compacted: nothing left");
        // Full of one unfinished event: the one-byte slot decides.
        assert_eq!(events.push(b"data:bc\n"), 8);
        assert_eq!(events.spare().len(), 1);
        assert_eq!(events.push(b"\n"), 1);
        assert!(events.spare().is_empty());
        assert_eq!(events.next_event().unwrap().unwrap().data(), b"bc");
        assert_eq!(events.buffered(), 0);
        assert_eq!(events.spare().len(), 8);
    }

    #[test]
    fn commit_clamps_to_the_spare_length() {
        let mut storage = [0u8; 8];
        let mut events = SseDecoder::new(&mut storage);
        events.spare().copy_from_slice(b"data:ab\n");
        events.commit(100);
        assert_eq!(events.buffered(), 8);
        events.spare()[0] = b'\n';
        events.commit(100);
        assert_eq!(events.buffered(), 8);
        assert_eq!(events.next_event().unwrap().unwrap().data(), b"ab");
        events.commit(100);
        assert_eq!(events.buffered(), 0);
    }

    #[test]
    fn spare_scans_only_a_full_buffer_and_discarding_shows() {
        let mut storage = [0u8; 8];
        let mut events = SseDecoder::new(&mut storage);
        assert!(!events.is_discarding());
        assert_eq!(events.push(b"data:1234"), 9);
        assert!(events.is_discarding());
        let spare = events.spare();
        spare[..6].copy_from_slice(b"xx\n\nda");
        events.commit(6);
        // Not full: `spare` offers the free tail without scanning it, so the rest of the over-long
        // event (up to its blank line) is still buffered and nothing moves.
        assert_eq!(events.spare().len(), 2);
        assert_eq!(events.buffered(), 6);
        assert!(events.is_discarding());
        // `next_event` scans: it drops `xx\n\n`, and the next `spare` compacts `da` to the front.
        assert_eq!(events.next_event(), Some(Err(SseError::TooLong { limit: 8 })));
        assert_eq!(events.next_event(), None);
        assert_eq!((events.buffered(), events.is_discarding()), (2, false));
        assert_eq!(events.spare().len(), 6);
    }

    #[test]
    fn finish_reports_an_unfinished_event_and_resets() {
        assert_eq!(decode(16, b"data: x\n\ndata: y\n"), vec![message("x"), Out::Error(SseError::Truncated { len: 8 })]);
        assert_eq!(decode(16, b"data: x\n\n\n\n"), vec![message("x")]);
        assert_eq!(decode(4, b"data: x"), vec![too_long(4)]);
        let mut storage = [0u8; 16];
        let mut events = SseDecoder::new(&mut storage);
        assert_eq!(events.push(b"data: x\n"), 8);
        assert_eq!(events.finish(), Some(SseError::Truncated { len: 8 }));
        assert_eq!(events.finish(), None);
        // The LF of a blank line's CRLF, pushed but not scanned yet, is no unfinished event.
        assert_eq!(events.push(b"data: x\r\n\r"), 10);
        assert_eq!(events.next_event().unwrap().unwrap().data(), b"x");
        assert_eq!(events.push(b"\n"), 1);
        assert_eq!(events.finish(), None);
        assert!(!events.is_discarding());
    }

    #[test]
    fn encoder_output_decodes_back() {
        let mut wire = [0u8; 512];
        let mut len = write_priming(EventId::new(4, 0), Some(2500), &mut wire).unwrap();
        let payloads: [&[u8]; 5] = [br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, b"a\nb", b"", b"x\r\n", b"  spaced"];
        for (sequence, payload) in payloads.iter().enumerate() {
            let event = SseEvent::new().with_id(EventId::new(4, sequence as u64 + 1)).with_type("message");
            len += write_event(&event, payload, &mut wire[len..]).unwrap();
        }
        len += crate::frame::sse::write_comment(b"keep-alive", &mut wire[len..]).unwrap();
        let mut expected = vec![Out::Event {
            data: vec![],
            has_data: true,
            event_type: b"message".to_vec(),
            id: Some(b"4-0".to_vec()),
            retry: Some(2500),
        }];
        for (sequence, data) in
            [&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"[..], b"a\nb", b"", b"x\n", b"  spaced"].iter().enumerate()
        {
            let id = EventId::new(4, sequence as u64 + 1).to_string();
            expected.push(Out::Event {
                data: data.to_vec(),
                has_data: true,
                event_type: b"message".to_vec(),
                id: Some(id.into_bytes()),
                retry: None,
            });
        }
        assert_eq!(decode_all_ways(64 + 16, &wire[..len]), expected);
    }

    use crate::test_rng::XorShift;

    const VALUE: &[u8] = b"{}\":, ab01\0";

    /// A random line ending; after a CR, a following line end must not start with LF.
    fn line_end(rng: &mut XorShift, after_cr: bool) -> &'static [u8] {
        match rng.below(3) {
            0 if !after_cr => b"\n",
            0 | 1 => b"\r\n",
            _ => b"\r",
        }
    }

    /// A random stream and the outputs it must decode to, computed event by event while generating.
    fn random_stream(rng: &mut XorShift, capacity: usize) -> (Vec<u8>, Vec<Out>) {
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        let mut after_cr = false;
        for event_index in 0..=rng.below(12) {
            let last = event_index > 0 && rng.below(4) == 0;
            let start = stream.len();
            let mut counted = 0;
            let (mut data, mut has_data, mut event_type, mut id, mut retry) =
                (Vec::new(), false, Vec::new(), None, None);
            for _ in 0..rng.below(6) {
                let value_len = rng.below(capacity / 5 + 2);
                let value = rng.bytes_from(VALUE, value_len);
                // One leading space is stripped, so a value starting with a space needs one more.
                let space = if rng.below(2) == 0 || value.first() == Some(&b' ') { &b" "[..] } else { b"" };
                let line: Vec<u8> = match rng.below(8) {
                    0 | 1 => {
                        if has_data {
                            data.push(b'\n');
                        }
                        has_data = true;
                        data.extend_from_slice(&value);
                        [b"data:", space, &value].concat()
                    }
                    2 => {
                        if !value.contains(&0) {
                            id = Some(value.clone());
                        }
                        [b"id:", space, &value].concat()
                    }
                    3 => {
                        event_type = value.clone();
                        [b"event:", space, &value].concat()
                    }
                    4 => {
                        let millis = rng.below(100_000) as u64;
                        retry = Some(millis);
                        [b"retry:", space, millis.to_string().as_bytes()].concat()
                    }
                    5 => [b"retry:", space, b"1x"].concat(),
                    6 => [b":", &value[..]].concat(),
                    _ => match rng.below(3) {
                        0 => {
                            if has_data {
                                data.push(b'\n');
                            }
                            has_data = true;
                            b"data".to_vec()
                        }
                        1 => {
                            id = Some(Vec::new());
                            b"id".to_vec()
                        }
                        _ => [b"other:", &value[..]].concat(),
                    },
                };
                stream.extend_from_slice(&line);
                let end = line_end(rng, after_cr);
                after_cr = end == b"\r";
                counted = stream.len() - start + 1;
                stream.extend_from_slice(end);
            }
            if last {
                // An unfinished event at the end of the stream (its line ends are all stored).
                // The LF of a final CRLF is not counted, and not kept if the buffer is full.
                let len = stream.len() - start;
                let counted = if stream[start..].ends_with(b"\r\n") { len - 1 } else { len };
                if counted > capacity {
                    expected.push(too_long(capacity));
                } else if len > 0 {
                    expected.push(Out::Error(SseError::Truncated { len: len.min(capacity) }));
                }
                break;
            }
            let blank = line_end(rng, after_cr);
            after_cr = blank == b"\r";
            stream.extend_from_slice(blank);
            if counted > capacity {
                expected.push(too_long(capacity));
            } else if has_data || id.is_some() || retry.is_some() {
                let event_type = if event_type.is_empty() { b"message".to_vec() } else { event_type };
                expected.push(Out::Event { data, has_data, event_type, id, retry });
            }
        }
        (stream, expected)
    }

    fn random_feed(rng: &mut XorShift, capacity: usize, stream: &[u8]) -> Vec<Out> {
        let mut storage = vec![0u8; capacity];
        let mut events = SseDecoder::new(&mut storage);
        let mut out = Vec::new();
        let mut rest = stream;
        while !rest.is_empty() {
            let chunk = rest.len().min(1 + rng.below(2 * capacity + 8));
            if rng.below(2) == 0 {
                let taken = events.push(&rest[..chunk]);
                rest = &rest[taken..];
                if taken < chunk {
                    assert_eq!(events.buffered(), capacity, "push stopped with room left");
                }
            } else {
                let spare = events.spare();
                let n = spare.len().min(chunk);
                spare[..n].copy_from_slice(&rest[..n]);
                rest = &rest[n..];
                let overcommit = if n == spare.len() { rng.below(3) } else { 0 };
                events.commit(n + overcommit);
            }
            assert!(events.buffered() <= capacity);
            if rng.below(3) > 0 {
                drain(&mut events, &mut out);
            } else if let Some(next) = events.next_event() {
                record(next, &mut out);
            }
        }
        drain(&mut events, &mut out);
        out.extend(events.finish().map(Out::Error));
        out
    }

    #[test]
    fn random_fragmentation_gives_the_events_of_the_generator() {
        let (mut events, mut too_long_events, mut truncated) = (0, 0, 0);
        for seed in 0..400 {
            for capacity in [0, 1, 3, 8, 16, 40, 128] {
                let mut rng = XorShift::new(seed);
                let (stream, expected) = random_stream(&mut rng, capacity);
                for out in &expected {
                    match out {
                        Out::Event { .. } => events += 1,
                        Out::Error(SseError::TooLong { .. }) => too_long_events += 1,
                        Out::Error(_) => truncated += 1,
                    }
                }
                assert_eq!(decode(capacity, &stream), expected, "whole, seed {seed}, capacity {capacity}");
                for round in 0..3 {
                    assert_eq!(
                        random_feed(&mut rng, capacity, &stream),
                        expected,
                        "seed {seed}, capacity {capacity}, round {round}"
                    );
                }
            }
        }
        assert!(events > 1_500 && too_long_events > 3_000 && truncated > 300, "{events} {too_long_events} {truncated}");
    }

    #[test]
    fn errors_display_their_cause() {
        assert_eq!(SseError::TooLong { limit: 9 }.to_string(), "SSE event longer than the 9-byte limit");
        assert_eq!(SseError::Truncated { len: 3 }.to_string(), "stream ended inside an SSE event (3 bytes dropped)");
    }
}
