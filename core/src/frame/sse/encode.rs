//! Writing SSE events into a caller buffer: [`SseEvent`], [`write_event`], [`prefix`] + [`SUFFIX`],
//! [`write_priming`] and [`write_comment`].

use core::fmt;

use super::id::{EventId, decimal_len, write_decimal};

/// Ends an event whose payload was written straight after [`prefix`]: the payload's line end and the
/// blank line that dispatches the event.
pub const SUFFIX: &[u8] = b"\n\n";

/// The fields written before an event's data: an optional `id`, `retry` and `event` type.
///
/// ```
/// use mcp_sansio::frame::sse::{EventId, SseEvent, write_event};
///
/// let event = SseEvent::new().with_id(EventId::new(1, 7)).with_retry(5000);
/// let mut out = [0u8; 64];
/// let len = write_event(&event, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, &mut out).unwrap();
/// assert_eq!(&out[..len], &b"id: 1-7\nretry: 5000\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"[..]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SseEvent<'a> {
    id: Option<EventId>,
    retry: Option<u64>,
    event_type: Option<&'a str>,
}

/// Why an event was not written. The output buffer is untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SseWriteError {
    /// The event needs `needed` bytes; the buffer is smaller.
    BufferTooSmall {
        /// Bytes the whole write needs.
        needed: usize,
    },
    /// The event type contains CR or LF, which would end its line early.
    InvalidEventType,
}

impl fmt::Display for SseWriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseWriteError::BufferTooSmall { needed } => write!(f, "SSE event needs {needed} bytes of buffer"),
            SseWriteError::InvalidEventType => f.write_str("SSE event type contains a line break"),
        }
    }
}

impl core::error::Error for SseWriteError {}

impl<'a> SseEvent<'a> {
    /// An event with no `id`, `retry` or `event` field.
    #[must_use]
    pub const fn new() -> Self {
        SseEvent { id: None, retry: None, event_type: None }
    }

    /// Adds an `id: <stream>-<sequence>` field, for `Last-Event-ID` resumption.
    #[must_use]
    pub const fn with_id(self, id: EventId) -> Self {
        SseEvent { id: Some(id), ..self }
    }

    /// Adds a `retry: <millis>` field: how long the client waits before reconnecting.
    #[must_use]
    pub const fn with_retry(self, millis: u64) -> Self {
        SseEvent { retry: Some(millis), ..self }
    }

    /// Adds an `event: <event_type>` field (clients default to `message`). It must not contain CR or
    /// LF; writing fails with [`SseWriteError::InvalidEventType`] otherwise.
    #[must_use]
    pub const fn with_type(self, event_type: &'a str) -> Self {
        SseEvent { event_type: Some(event_type), ..self }
    }

    /// The `id` field, if any.
    #[must_use]
    pub const fn id(&self) -> Option<EventId> {
        self.id
    }

    /// The `retry` field in milliseconds, if any.
    #[must_use]
    pub const fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// The `event` field, if any.
    #[must_use]
    pub const fn event_type(&self) -> Option<&'a str> {
        self.event_type
    }

    /// Length of what [`prefix`] writes: the fields and `data: `.
    #[must_use]
    pub fn prefix_len(&self) -> usize {
        self.fields_len().saturating_add(DATA_PREFIX.len())
    }

    /// Bytes [`prefix`] and [`SUFFIX`] add around a one-line payload.
    #[must_use]
    pub fn framing_len(&self) -> usize {
        self.prefix_len().saturating_add(SUFFIX.len())
    }

    fn fields_len(&self) -> usize {
        let id = self.id.map_or(0, |id| b"id: \n".len() + id.encoded_len());
        let retry = self.retry.map_or(0, |millis| b"retry: \n".len() + decimal_len(millis));
        let event_type = self.event_type.map_or(0, |name| b"event: \n".len().saturating_add(name.len()));
        id.saturating_add(retry).saturating_add(event_type)
    }

    fn check(&self) -> Result<(), SseWriteError> {
        match self.event_type {
            Some(name) if name.bytes().any(|byte| byte == b'\r' || byte == b'\n') => {
                Err(SseWriteError::InvalidEventType)
            }
            _ => Ok(()),
        }
    }

    /// Writes the fields (not `data`); `out` holds at least `fields_len()` bytes.
    fn write_fields(&self, out: &mut Cursor<'_>) {
        if let Some(id) = self.id {
            out.put(b"id: ");
            let mut text = [0u8; EventId::MAX_LEN];
            let len = id.encode(&mut text).unwrap_or(0);
            out.put(text.get(..len).unwrap_or_default());
            out.put(b"\n");
        }
        if let Some(millis) = self.retry {
            out.put(b"retry: ");
            out.put_decimal(millis);
            out.put(b"\n");
        }
        if let Some(name) = self.event_type {
            out.put(b"event: ");
            out.put(name.as_bytes());
            out.put(b"\n");
        }
    }
}

const DATA_PREFIX: &[u8] = b"data: ";

/// Writes an event's fields and `data: ` at the start of `out` and returns the length, so that a
/// message writer can put a one-line payload right after it and then [`SUFFIX`]: the engine frames
/// its JSON-RPC messages this way, with no copy. The payload must not contain CR or LF (the crate's
/// JSON writer never emits a raw newline); for a payload that may, use [`write_event`].
///
/// All-or-nothing: on error `out` is untouched.
///
/// ```
/// use mcp_sansio::frame::sse::{SUFFIX, SseEvent, prefix};
///
/// let mut out = [0u8; 32];
/// let event = SseEvent::new();
/// let start = prefix(&event, &mut out).unwrap();
/// let json = br#"{"id":1}"#; // a JSON writer would write here, into out[start..]
/// out[start..start + json.len()].copy_from_slice(json);
/// let end = start + json.len();
/// out[end..end + SUFFIX.len()].copy_from_slice(SUFFIX);
/// assert_eq!(&out[..end + SUFFIX.len()], b"data: {\"id\":1}\n\n");
/// ```
pub fn prefix(event: &SseEvent<'_>, out: &mut [u8]) -> Result<usize, SseWriteError> {
    event.check()?;
    let needed = event.prefix_len();
    let mut cursor = Cursor::reserve(out, needed)?;
    event.write_fields(&mut cursor);
    cursor.put(DATA_PREFIX);
    Ok(cursor.pos)
}

/// Writes one whole event around `data`: the fields, one `data:` line per line of `data` (lines end
/// at CRLF, LF or CR, as the SSE standard splits them; a decoder joins them back with LF), and the
/// blank line. Empty `data` is one empty `data:` line. Returns the length written; all-or-nothing.
pub fn write_event(event: &SseEvent<'_>, data: &[u8], out: &mut [u8]) -> Result<usize, SseWriteError> {
    event.check()?;
    let needed = event.fields_len().saturating_add(field_lines_len(b"data:", data)).saturating_add(1);
    let mut cursor = Cursor::reserve(out, needed)?;
    event.write_fields(&mut cursor);
    cursor.put_field_lines(b"data:", data);
    cursor.put(b"\n");
    Ok(cursor.pos)
}

/// Writes the priming event a 2025-11-25 server sends first on a resumable stream: an `id`, an
/// optional `retry`, and an empty `data` field (which a client does not treat as a message).
pub fn write_priming(id: EventId, retry: Option<u64>, out: &mut [u8]) -> Result<usize, SseWriteError> {
    let event = SseEvent { id: Some(id), retry, event_type: None };
    write_event(&event, b"", out)
}

/// Writes a comment, which clients ignore: a keep-alive. One `:` line per line of `text` (`:` alone
/// for empty text), then a blank line so that the comment is an event of its own and never counts
/// toward the next event's length. Returns the length written; all-or-nothing.
pub fn write_comment(text: &[u8], out: &mut [u8]) -> Result<usize, SseWriteError> {
    let needed = field_lines_len(b":", text).saturating_add(1);
    let mut cursor = Cursor::reserve(out, needed)?;
    cursor.put_field_lines(b":", text);
    cursor.put(b"\n");
    Ok(cursor.pos)
}

/// The lines of `text`, split at CRLF, LF or CR; an empty text is one empty line, and a text ending
/// in a line break ends with an empty line.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(text);
    core::iter::from_fn(move || {
        let current = rest?;
        match current.iter().position(|&byte| byte == b'\r' || byte == b'\n') {
            None => {
                rest = None;
                Some(current)
            }
            Some(at) => {
                let skip = if current.get(at..at + 2) == Some(b"\r\n") { 2 } else { 1 };
                rest = current.get(at + skip..);
                current.get(..at)
            }
        }
    })
}

/// Length of `name` lines (`name` alone for an empty line, `name` + space + line otherwise) for
/// every line of `text`, each with its LF.
fn field_lines_len(name: &[u8], text: &[u8]) -> usize {
    lines(text).fold(0usize, |total, line| {
        let space = usize::from(!line.is_empty());
        total.saturating_add(name.len() + space + 1).saturating_add(line.len())
    })
}

/// A write position in a buffer that was checked to be large enough for everything written.
struct Cursor<'b> {
    out: &'b mut [u8],
    pos: usize,
}

impl<'b> Cursor<'b> {
    /// A cursor over the first `needed` bytes of `out`, or the error if it is smaller.
    fn reserve(out: &'b mut [u8], needed: usize) -> Result<Self, SseWriteError> {
        match out.get_mut(..needed) {
            Some(out) => Ok(Cursor { out, pos: 0 }),
            None => Err(SseWriteError::BufferTooSmall { needed }),
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        let end = self.pos.saturating_add(bytes.len());
        if let Some(slot) = self.out.get_mut(self.pos..end) {
            slot.copy_from_slice(bytes);
            self.pos = end;
        }
    }

    fn put_decimal(&mut self, value: u64) {
        let mut text = [0u8; 20];
        let len = write_decimal(value, &mut text);
        self.put(text.get(..len).unwrap_or_default());
    }

    fn put_field_lines(&mut self, name: &[u8], text: &[u8]) {
        for line in lines(text) {
            self.put(name);
            if !line.is_empty() {
                self.put(b" ");
                self.put(line);
            }
            self.put(b"\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;
    use std::vec::Vec;

    fn written(result: Result<usize, SseWriteError>, out: &[u8]) -> Vec<u8> {
        out[..result.expect("fits")].to_vec()
    }

    #[test]
    fn accessors_return_what_the_builder_set() {
        let none = SseEvent::new();
        assert_eq!((none.id(), none.retry(), none.event_type()), (None, None, None));
        let event = SseEvent::new().with_id(EventId::new(2, 9)).with_retry(2500).with_type("note");
        assert_eq!(
            (event.id(), event.retry(), event.event_type()),
            (Some(EventId::new(2, 9)), Some(2500), Some("note"))
        );
    }

    #[test]
    fn writes_every_field_in_order() {
        let mut out = [0u8; 128];
        let event = SseEvent::new().with_id(EventId::new(2, 9)).with_retry(0).with_type("message");
        assert_eq!(
            written(write_event(&event, b"{}", &mut out), &out),
            b"id: 2-9\nretry: 0\nevent: message\ndata: {}\n\n"
        );
        assert_eq!(written(write_event(&SseEvent::new(), b"x", &mut out), &out), b"data: x\n\n");
    }

    #[test]
    fn splits_data_at_every_line_end() {
        let mut out = [0u8; 128];
        assert_eq!(
            written(write_event(&SseEvent::new(), b"a\nb\r\nc\rd", &mut out), &out),
            b"data: a\ndata: b\ndata: c\ndata: d\n\n"
        );
        assert_eq!(written(write_event(&SseEvent::new(), b"a\n", &mut out), &out), b"data: a\ndata:\n\n");
        assert_eq!(written(write_event(&SseEvent::new(), b"", &mut out), &out), b"data:\n\n");
        assert_eq!(written(write_event(&SseEvent::new(), b"\r\n\r", &mut out), &out), b"data:\ndata:\ndata:\n\n");
        assert_eq!(written(write_event(&SseEvent::new(), b" x", &mut out), &out), b"data:  x\n\n");
    }

    #[test]
    fn priming_and_comments() {
        let mut out = [0u8; 64];
        assert_eq!(
            written(write_priming(EventId::new(0, 0), Some(5000), &mut out), &out),
            b"id: 0-0\nretry: 5000\ndata:\n\n"
        );
        assert_eq!(written(write_priming(EventId::new(1, 2), None, &mut out), &out), b"id: 1-2\ndata:\n\n");
        assert_eq!(written(write_comment(b"", &mut out), &out), b":\n\n");
        assert_eq!(written(write_comment(b"keep-alive", &mut out), &out), b": keep-alive\n\n");
        assert_eq!(written(write_comment(b"a\nb", &mut out), &out), b": a\n: b\n\n");
    }

    #[test]
    fn prefix_and_suffix_frame_a_payload() {
        let mut out = [0u8; 64];
        let event = SseEvent::new().with_id(EventId::new(1, 1));
        let len = prefix(&event, &mut out).unwrap();
        assert_eq!(len, event.prefix_len());
        assert_eq!(&out[..len], b"id: 1-1\ndata: ");
        assert_eq!(event.framing_len(), len + SUFFIX.len());
    }

    #[test]
    fn every_write_is_all_or_nothing_and_reports_the_size() {
        let event = SseEvent::new().with_id(EventId::new(12, 345)).with_retry(1000).with_type("t");
        let data = b"line one\nline two";
        let mut roomy = [0u8; 128];
        let full = write_event(&event, data, &mut roomy).unwrap();
        let prefix_len = prefix(&event, &mut roomy).unwrap();
        let comment_len = write_comment(data, &mut roomy).unwrap();
        for size in 0..full {
            let mut out = std::vec![0xAAu8; size];
            assert_eq!(write_event(&event, data, &mut out), Err(SseWriteError::BufferTooSmall { needed: full }));
            if size < prefix_len {
                assert_eq!(prefix(&event, &mut out), Err(SseWriteError::BufferTooSmall { needed: prefix_len }));
            }
            if size < comment_len {
                assert_eq!(write_comment(data, &mut out), Err(SseWriteError::BufferTooSmall { needed: comment_len }));
            }
            assert!(out.iter().all(|&b| b == 0xAA), "a failed write touched the buffer");
        }
        let mut exact = std::vec![0u8; full];
        assert_eq!(write_event(&event, data, &mut exact), Ok(full));
    }

    #[test]
    fn rejects_an_event_type_with_a_line_break() {
        let mut out = [0u8; 64];
        for name in ["a\nb", "\r"] {
            let event = SseEvent::new().with_type(name);
            assert_eq!(write_event(&event, b"{}", &mut out), Err(SseWriteError::InvalidEventType));
            assert_eq!(prefix(&event, &mut out), Err(SseWriteError::InvalidEventType));
        }
        assert_eq!(SseWriteError::InvalidEventType.to_string(), "SSE event type contains a line break");
        assert_eq!(SseWriteError::BufferTooSmall { needed: 9 }.to_string(), "SSE event needs 9 bytes of buffer");
    }
}
