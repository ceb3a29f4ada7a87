//! Target `sse`: the SSE decoder ([`SseDecoder`]) under arbitrary bytes and arbitrary chunking, and
//! the SSE encoder read back by the decoder.
//!
//! Input: a mode byte. Even: `capacity byte, schedule length byte, schedule bytes…, stream…`: the
//! stream is fed through `push` or `spare`/`commit` in chunks chosen by the schedule, with events
//! taken at arbitrary moments, and what the decoder reports must equal a model that reads the whole
//! stream at once with the WHATWG rules; the reader never stalls and the buffer never holds more
//! than its capacity; the decoder is reused after `finish` with the stream pushed whole. Odd:
//! an event (id, retry, type, data) and a buffer size: every write is all-or-nothing with the right
//! size, and what fits decodes back to the same data (line ends as LF), id, type and retry; `prefix`
//! + payload + `SUFFIX` equals `write_event` for a one-line payload; comments decode to nothing.

use mcp_sansio::frame::sse::{
    EventId, ReceivedEvent, SUFFIX, SseDecoder, SseError, SseEvent, SseWriteError, prefix, write_comment, write_event,
    write_priming,
};

use crate::chunked::{self, Decoder, capacity_of};
use crate::input::{Encoder, Input};

/// What the decoder reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A dispatched event.
    Event {
        /// Data lines joined with LF.
        data: Vec<u8>,
        /// At least one data line.
        has_data: bool,
        /// The event type (`message` by default).
        event_type: Vec<u8>,
        /// The last valid id field.
        id: Option<Vec<u8>>,
        /// The last valid retry field.
        retry: Option<u64>,
    },
    /// Dropped bytes.
    Error(SseError),
}

impl Event {
    fn of(event: &ReceivedEvent<'_>) -> Event {
        Event::Event {
            data: event.data().to_vec(),
            has_data: event.has_data(),
            event_type: event.event_type().to_vec(),
            id: event.id().map(<[u8]>::to_vec),
            retry: event.retry(),
        }
    }
}

/// A decoder seed: `stream` through a `capacity_byte` decoder with the given schedule.
pub fn encode(capacity_byte: u8, schedule: &[u8], stream: &[u8]) -> Vec<u8> {
    let mut out = Encoder::new();
    out.byte(0).byte(capacity_byte).byte(schedule.len() as u8);
    for &step in schedule {
        out.byte(step);
    }
    out.bytes(stream).finish()
}

/// An encoder seed.
pub fn encode_writer(
    buffer: u16,
    id: Option<(u32, u64)>,
    retry: Option<u64>,
    event_type: &[u8],
    data: &[u8],
) -> Vec<u8> {
    let mut out = Encoder::new();
    out.byte(1).u16(buffer);
    let (stream, sequence) = id.unwrap_or((0, 0));
    out.byte(u8::from(id.is_some()) | u8::from(retry.is_some()) << 1);
    out.u64(u64::from(stream)).u64(sequence).u64(retry.unwrap_or(0));
    out.chunk(event_type).chunk(data).finish()
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The lines of `stream`: (start, end, start of the next line); the last one may have no line end.
fn lines(stream: &[u8]) -> Vec<(usize, usize, usize)> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < stream.len() {
        match stream[start..].iter().position(|&b| b == b'\r' || b == b'\n') {
            None => {
                lines.push((start, stream.len(), stream.len()));
                break;
            }
            Some(offset) => {
                let end = start + offset;
                let next = if stream[end..].starts_with(b"\r\n") { end + 2 } else { end + 1 };
                lines.push((start, end, next));
                start = next;
            }
        }
    }
    lines
}

/// The event the field lines of one event make, if it has any effect.
fn interpret(lines: &[&[u8]]) -> Option<Event> {
    let (mut data, mut has_data, mut event_type, mut id, mut retry) = (Vec::new(), false, Vec::new(), None, None);
    for line in lines {
        if line.first() == Some(&b':') {
            continue;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (*line, &b""[..]),
        };
        match name {
            b"data" => {
                if has_data {
                    data.push(b'\n');
                }
                has_data = true;
                data.extend_from_slice(value);
            }
            b"event" => event_type = value.to_vec(),
            b"id" if !value.contains(&0) => id = Some(value.to_vec()),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                retry = Some(value.iter().fold(0u64, |n, &d| n.saturating_mul(10).saturating_add(u64::from(d - b'0'))));
            }
            _ => {}
        }
    }
    if !has_data && id.is_none() && retry.is_none() {
        return None;
    }
    if event_type.is_empty() {
        event_type = b"message".to_vec();
    }
    Some(Event::Event { data, has_data, event_type, id, retry })
}

/// Bytes of an event region that count toward the limit: not the LF of a final CRLF.
fn counted(region: &[u8]) -> usize {
    if region.ends_with(b"\r\n") { region.len() - 1 } else { region.len() }
}

/// The events a correct decoder of `capacity` reports for `stream`, read whole.
pub fn model(capacity: usize, stream: &[u8]) -> Vec<Event> {
    let mut events = Vec::new();
    let mut event_start = 0;
    let mut fields: Vec<&[u8]> = Vec::new();
    for (index, &(start, end, next)) in lines(stream).iter().enumerate() {
        let complete = end < stream.len();
        // The first line of the stream loses a leading BOM, which still counts toward the limit.
        let start = if index == 0 && stream[start..end].starts_with(BOM) { start + BOM.len() } else { start };
        if !complete {
            break;
        }
        if start < end {
            fields.push(&stream[start..end]);
            continue;
        }
        // A blank line: the event is everything from its start to here.
        if counted(&stream[event_start..start]) > capacity {
            events.push(Event::Error(SseError::TooLong { limit: capacity }));
        } else {
            events.extend(interpret(&fields));
        }
        fields.clear();
        event_start = next;
    }
    let rest = &stream[event_start.min(stream.len())..];
    if counted(rest) > capacity {
        events.push(Event::Error(SseError::TooLong { limit: capacity }));
    } else if !rest.is_empty() {
        events.push(Event::Error(SseError::Truncated { len: rest.len().min(capacity) }));
    }
    events
}

/// The decoder under the schedule ([`chunked`](crate::chunked)).
struct Events<'b, 'a> {
    events: &'b mut SseDecoder<'a>,
    capacity: usize,
}

impl Decoder for Events<'_, '_> {
    type Event = Event;

    fn push(&mut self, data: &[u8]) -> usize {
        self.events.push(data)
    }

    fn spare(&mut self) -> &mut [u8] {
        self.events.spare()
    }

    fn commit(&mut self, n: usize) {
        self.events.commit(n)
    }

    fn buffered(&self) -> usize {
        self.events.buffered()
    }

    fn is_discarding(&self) -> bool {
        self.events.is_discarding()
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn take(&mut self, out: &mut Vec<Event>) -> bool {
        let Some(next) = self.events.next_event() else {
            self.check();
            return false;
        };
        match next {
            Ok(event) => {
                assert_eq!(event.is_message(), !event.data().is_empty());
                assert!(!event.event_type().is_empty());
                assert!(event.data().len() <= self.capacity, "data longer than the buffer");
                out.push(Event::of(&event));
            }
            Err(error) => {
                if let SseError::TooLong { limit } = error {
                    assert_eq!(limit, self.capacity);
                }
                out.push(Event::Error(error));
            }
        }
        self.check();
        true
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        out.extend(self.events.finish().map(Event::Error));
    }

    fn check(&mut self) {
        assert!(self.events.buffered() <= self.capacity, "buffered more than the capacity");
        assert_eq!(self.events.capacity(), self.capacity);
    }
}

fn run_decoder(input: &mut Input<'_>) {
    let capacity = capacity_of(input.byte());
    let (schedule, stream) = chunked::schedule_and_stream(input);
    let expected = model(capacity, stream);
    let mut storage = vec![0u8; capacity];
    let mut events = SseDecoder::new(&mut storage);
    chunked::run(Events { events: &mut events, capacity }, &schedule, stream, &expected, "whole-stream model");
}

/// Decodes `wire` whole with a buffer of `capacity` bytes.
fn decode(capacity: usize, wire: &[u8]) -> Vec<Event> {
    let mut storage = vec![0u8; capacity];
    let mut events = SseDecoder::new(&mut storage);
    assert_eq!(events.push(wire), wire.len(), "an encoded event fits a buffer of its size");
    let mut out = Vec::new();
    while let Some(next) = events.next_event() {
        out.push(next.map_or_else(Event::Error, |event| Event::of(&event)));
    }
    out.extend(events.finish().map(Event::Error));
    out
}

fn run_writer(input: &mut Input<'_>) {
    let buffer = usize::from(input.u16() % 4096);
    let flags = input.byte();
    let (stream, sequence, retry) = (input.u64() as u32, input.u64(), input.u64());
    let type_bytes = input.chunk();
    let data = input.chunk();
    let mut event = SseEvent::new();
    let id = EventId::new(stream, sequence);
    if flags & 1 != 0 {
        event = event.with_id(id);
    }
    if flags & 2 != 0 {
        event = event.with_retry(retry);
    }
    let type_text = core::str::from_utf8(type_bytes).ok().filter(|_| flags & 4 == 0);
    if let Some(text) = type_text {
        event = event.with_type(text);
    }
    let invalid_type = type_text.is_some_and(|text| text.contains(['\r', '\n']));

    let mut out = vec![0xA5u8; buffer];
    let result = write_event(&event, data, &mut out);
    let written = match result {
        Err(SseWriteError::InvalidEventType) => {
            assert!(invalid_type);
            assert!(out.iter().all(|&b| b == 0xA5), "a failed write touched the buffer");
            return;
        }
        Err(SseWriteError::BufferTooSmall { needed }) => {
            assert!(!invalid_type && needed > buffer);
            assert!(out.iter().all(|&b| b == 0xA5), "a failed write touched the buffer");
            let mut roomy = vec![0u8; needed];
            assert_eq!(write_event(&event, data, &mut roomy), Ok(needed), "the reported size does not fit");
            roomy
        }
        Err(other) => panic!("unexpected error {other:?}"),
        Ok(len) => {
            assert!(!invalid_type && len <= buffer);
            out.truncate(len);
            out
        }
    };
    assert!(written.ends_with(b"\n\n"));

    // What was written decodes back, in a buffer of exactly its size.
    let mut expected_data = Vec::new();
    let mut rest = data;
    while let Some(at) = rest.iter().position(|&b| b == b'\r' || b == b'\n') {
        expected_data.extend_from_slice(&rest[..at]);
        expected_data.push(b'\n');
        rest = if rest[at..].starts_with(b"\r\n") { &rest[at + 2..] } else { &rest[at + 1..] };
    }
    expected_data.extend_from_slice(rest);
    let event_type = match type_text {
        Some(text) if !text.is_empty() => text.as_bytes().to_vec(),
        _ => b"message".to_vec(),
    };
    let id_text = (flags & 1 != 0).then(|| id.to_string().into_bytes());
    let expected = Event::Event {
        data: expected_data,
        has_data: true,
        event_type,
        id: id_text.clone(),
        retry: (flags & 2 != 0).then_some(retry),
    };
    assert_eq!(decode(written.len(), &written), vec![expected], "the encoder's output decodes differently");
    if let Some(text) = &id_text {
        assert_eq!(EventId::parse(text), Ok(id));
    }

    // A one-line payload framed by `prefix` and `SUFFIX` is the same event (an empty one is written
    // `data:` by `write_event` and `data: ` by `prefix`, which decode the same).
    if !data.is_empty() && !data.contains(&b'\r') && !data.contains(&b'\n') {
        let mut framed = vec![0u8; event.prefix_len()];
        assert_eq!(prefix(&event, &mut framed), Ok(event.prefix_len()));
        framed.extend_from_slice(data);
        framed.extend_from_slice(SUFFIX);
        assert_eq!(framed.len(), event.framing_len() + data.len());
        assert_eq!(framed, written, "prefix + payload + SUFFIX differs from write_event");
    }

    // Comments and priming events.
    let mut roomy = vec![0u8; 2 * data.len() + 64];
    let len = write_comment(data, &mut roomy).expect("a comment fits");
    assert_eq!(decode(len, &roomy[..len]), vec![], "a comment decoded to something");
    let len = write_priming(id, None, &mut roomy).expect("a priming event fits");
    let priming = decode(len, &roomy[..len]);
    let expected = Event::Event {
        data: Vec::new(),
        has_data: true,
        event_type: b"message".to_vec(),
        id: Some(id.to_string().into_bytes()),
        retry: None,
    };
    assert_eq!(priming, vec![expected]);
}

/// Runs one input. Panics on any violated invariant.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    if input.byte() & 1 == 0 {
        run_decoder(&mut input);
    } else {
        run_writer(&mut input);
    }
}
