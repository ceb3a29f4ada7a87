//! [`EventId`]: the SSE event id a server stamps on its events, and reads back from `Last-Event-ID`.

use crate::num::Decimal;
use core::fmt;

/// An SSE event id: a stream number and a sequence number, rendered as `<stream>-<sequence>` in
/// decimal ASCII (for example `3-42`). An engine numbers the events of all its streams from one
/// counter, so the sequences of one stream grow but need not be consecutive.
///
/// Streamable HTTP (2025-03-26 to 2025-11-25) lets a server number its events so that a client can
/// resume a broken stream with `GET` and a `Last-Event-ID` header; the id must say which stream it
/// belongs to, because the server replays only that stream. The rendering contains only digits and
/// `-` (no `:`, space, CR, LF or NUL), so it is a valid SSE `id` field and a valid header value, and
/// [`EventId::parse`] reads back exactly what [`EventId::encode`] and [`Display`](fmt::Display) write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventId {
    stream: u32,
    sequence: u64,
}

/// Why a `Last-Event-ID` value is not an [`EventId`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EventIdError {
    /// Not `<digits>-<digits>` in canonical decimal (no sign, no leading zero, nothing else).
    Malformed,
    /// A number does not fit (the stream in a `u32`, the sequence in a `u64`).
    OutOfRange,
}

impl fmt::Display for EventIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EventIdError::Malformed => "event id is not `<stream>-<sequence>` in decimal",
            EventIdError::OutOfRange => "event id number out of range",
        })
    }
}

impl core::error::Error for EventIdError {}

impl EventId {
    /// The longest rendering: `4294967295-18446744073709551615`.
    pub const MAX_LEN: usize = 10 + 1 + 20;

    /// The id of event `sequence` on stream `stream`.
    #[must_use]
    pub const fn new(stream: u32, sequence: u64) -> Self {
        EventId { stream, sequence }
    }

    /// The stream number.
    #[must_use]
    pub const fn stream(&self) -> u32 {
        self.stream
    }

    /// The sequence number within the stream.
    #[must_use]
    pub const fn sequence(&self) -> u64 {
        self.sequence
    }

    /// The id of the next event on the same stream (the sequence saturates at `u64::MAX`).
    #[must_use]
    pub const fn next(&self) -> Self {
        EventId { stream: self.stream, sequence: self.sequence.saturating_add(1) }
    }

    /// Parses a `Last-Event-ID` header value (or an `id` field the decoder returned). Spaces and tabs
    /// around the value (HTTP optional whitespace) are ignored; otherwise only the canonical
    /// rendering is accepted, so `parse` and [`encode`](Self::encode) are inverses.
    pub fn parse(value: &[u8]) -> Result<Self, EventIdError> {
        let value = trim_ows(value);
        let dash = value.iter().position(|&byte| byte == b'-').ok_or(EventIdError::Malformed)?;
        let (stream, sequence) = (value.get(..dash).unwrap_or_default(), value.get(dash + 1..).unwrap_or_default());
        let stream = parse_decimal(stream)?;
        let sequence = parse_decimal(sequence)?;
        Ok(EventId { stream: u32::try_from(stream).map_err(|_| EventIdError::OutOfRange)?, sequence })
    }

    /// The rendering's length in bytes.
    #[must_use]
    pub fn encoded_len(&self) -> usize {
        decimal_len(u64::from(self.stream)) + 1 + decimal_len(self.sequence)
    }

    /// Writes the rendering into `out` and returns its length; `None` (and `out` untouched) if it
    /// does not fit. [`MAX_LEN`](Self::MAX_LEN) bytes always suffice.
    #[must_use = "the id is written only if it fits"]
    pub fn encode(&self, out: &mut [u8]) -> Option<usize> {
        let len = self.encoded_len();
        let out = out.get_mut(..len)?;
        let stream_len = write_decimal(u64::from(self.stream), out);
        let rest = out.get_mut(stream_len..)?;
        let (dash, digits) = rest.split_first_mut()?;
        *dash = b'-';
        write_decimal(self.sequence, digits);
        Some(len)
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", Decimal(u64::from(self.stream)), Decimal(self.sequence))
    }
}

/// `value` without leading and trailing spaces and tabs.
fn trim_ows(value: &[u8]) -> &[u8] {
    let is_ows = |byte: &u8| matches!(byte, b' ' | b'\t');
    let start = value.iter().position(|byte| !is_ows(byte)).unwrap_or(value.len());
    let end = value.iter().rposition(|byte| !is_ows(byte)).map_or(start, |last| last + 1);
    value.get(start..end).unwrap_or_default()
}

/// A canonical decimal number: one or more digits, no leading zero unless it is `0`.
fn parse_decimal(digits: &[u8]) -> Result<u64, EventIdError> {
    if digits.is_empty()
        || !digits.iter().all(u8::is_ascii_digit)
        || (digits.len() > 1 && digits.first() == Some(&b'0'))
    {
        return Err(EventIdError::Malformed);
    }
    digits.iter().try_fold(0u64, |value, &digit| {
        value
            .checked_mul(10)
            .and_then(|value| value.checked_add(u64::from(digit - b'0')))
            .ok_or(EventIdError::OutOfRange)
    })
}

/// Number of decimal digits of `value`.
pub(super) fn decimal_len(value: u64) -> usize {
    let mut text = [0u8; crate::num::U64_DIGITS];
    text.len() - crate::num::digits(value, &mut text)
}

/// Writes `value` in decimal at the start of `out` (which must hold [`decimal_len`] bytes; digits
/// that do not fit are dropped) and returns the length written.
pub(super) fn write_decimal(value: u64, out: &mut [u8]) -> usize {
    let mut text = [0u8; crate::num::U64_DIGITS];
    let start = crate::num::digits(value, &mut text);
    let digits = text.get(start..).unwrap_or_default();
    let len = digits.len().min(out.len());
    out.iter_mut().zip(digits).for_each(|(slot, &digit)| *slot = digit);
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    fn render(id: EventId) -> std::vec::Vec<u8> {
        let mut out = [0u8; EventId::MAX_LEN];
        let len = id.encode(&mut out).expect("MAX_LEN suffices");
        out[..len].to_vec()
    }

    #[test]
    fn renders_and_parses_back() {
        for id in [
            EventId::new(0, 0),
            EventId::new(3, 42),
            EventId::new(10, 9),
            EventId::new(u32::MAX, u64::MAX),
            EventId::new(1, 10_000_000_000),
        ] {
            let text = render(id);
            assert_eq!(text.len(), id.encoded_len());
            assert_eq!(text, id.to_string().as_bytes());
            assert!(text.iter().all(|&b| b.is_ascii_digit() || b == b'-'));
            assert_eq!(EventId::parse(&text), Ok(id));
        }
        assert_eq!(render(EventId::new(u32::MAX, u64::MAX)).len(), EventId::MAX_LEN);
        assert_eq!(render(EventId::new(3, 42)), b"3-42");
        assert_eq!(EventId::new(3, 42).next(), EventId::new(3, 43));
        assert_eq!(EventId::new(3, u64::MAX).next(), EventId::new(3, u64::MAX));
    }

    #[test]
    fn parses_a_header_value_with_optional_whitespace_only() {
        assert_eq!(EventId::parse(b" \t7-8 "), Ok(EventId::new(7, 8)));
        for bad in
            [&b""[..], b"-", b"7", b"7-", b"-8", b"07-8", b"7-08", b"+7-8", b"7--8", b"7-8-9", b"7 -8", b"a-1", b"7:8"]
        {
            assert_eq!(EventId::parse(bad), Err(EventIdError::Malformed), "{bad:?}");
        }
        assert_eq!(EventId::parse(b"4294967296-0"), Err(EventIdError::OutOfRange));
        assert_eq!(EventId::parse(b"0-18446744073709551616"), Err(EventIdError::OutOfRange));
        assert_eq!(EventId::parse(b"4294967295-18446744073709551615"), Ok(EventId::new(u32::MAX, u64::MAX)));
    }

    #[test]
    fn encode_is_all_or_nothing() {
        let mut out = [b'x'; 3];
        assert_eq!(EventId::new(3, 42).encode(&mut out), None);
        assert_eq!(&out, b"xxx");
        let mut out = [b'x'; 5];
        assert_eq!(EventId::new(3, 42).encode(&mut out), Some(4));
        assert_eq!(&out, b"3-42x");
    }

    #[test]
    fn accessors_return_the_parts() {
        let id = EventId::new(3, 42);
        assert_eq!((id.stream(), id.sequence()), (3, 42));
        let parsed = EventId::parse(b"7-1").expect("valid");
        assert_eq!((parsed.stream(), parsed.sequence()), (7, 1));
        assert_eq!(EventId::new(0, u64::MAX).sequence(), u64::MAX);
    }

    #[test]
    fn errors_display_their_cause() {
        assert_eq!(EventIdError::Malformed.to_string(), "event id is not `<stream>-<sequence>` in decimal");
        assert_eq!(EventIdError::OutOfRange.to_string(), "event id number out of range");
    }
}
