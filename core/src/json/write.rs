//! Writing JSON into a caller-owned buffer, all-or-nothing per call, never emitting a raw newline.

use core::fmt;

use super::scan::{JsonStr, Value, is_json_number};

/// Longest text `i64`/`u64` formatting can produce (`-9223372036854775808` is 20 bytes).
const INTEGER_TEXT_CAPACITY: usize = crate::num::U64_DIGITS;
/// Longest text `{:?}` produces for a finite `f64` (`-2.2250738585072014e-308` is 24 bytes), with margin.
const FLOAT_TEXT_CAPACITY: usize = 32;

/// Writes JSON into a caller-owned buffer. A write that does not fit writes nothing and sets a sticky
/// overflow flag; every later write is then a no-op. The caller records `len()` before a message and
/// `truncate`s back to it on overflow, so a failed message leaves the buffer unchanged.
///
/// "Writes nothing" means `len()` and [`written`](Self::written) are unchanged; bytes of the buffer past
/// `len()` may have been scribbled on and are unspecified.
///
/// Every method except [`raw`](Self::raw) and [`serialize`](Self::serialize) (whose input the caller
/// vouches for) produces valid UTF-8 that contains no raw `\n` or `\r`, so a finished message can be
/// framed as one NDJSON line. The writer does not check that method calls compose into valid JSON
/// (commas, colons, brackets): the caller writes those with [`raw`](Self::raw).
///
/// ```
/// use mcp_sansio::json::JsonWriter;
/// let mut buf = [0u8; 64];
/// let mut out = JsonWriter::new(&mut buf);
/// let start = out.len();
/// out.raw(b"{\"id\":");
/// out.i64(7);
/// out.raw(b",\"note\":");
/// out.string("two\nlines");
/// out.byte(b'}');
/// if out.is_overflowed() {
///     out.truncate(start);
/// }
/// assert_eq!(out.written(), br#"{"id":7,"note":"two\nlines"}"#);
/// ```
pub struct JsonWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
    overflowed: bool,
}

impl<'a> JsonWriter<'a> {
    /// A writer that fills `buf` from its start.
    pub fn new(buf: &'a mut [u8]) -> Self {
        JsonWriter { buf, len: 0, overflowed: false }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size of the whole buffer.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Bytes still free.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.len)
    }

    /// Whether a write did not fit since the writer was created or last truncated. While set, every write
    /// is a no-op.
    pub fn is_overflowed(&self) -> bool {
        self.overflowed
    }

    /// The bytes written so far.
    pub fn written(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Ends writing and returns the written prefix of the buffer.
    pub fn into_written(self) -> &'a mut [u8] {
        let JsonWriter { buf, len, .. } = self;
        buf.get_mut(..len).unwrap_or_default()
    }

    /// The whole buffer back, written or not.
    /// Discards what is being written as if it did not fit: a later `truncate` undoes it.
    pub(crate) fn set_overflowed(&mut self) {
        self.overflowed = true;
    }

    pub(crate) fn into_buffer(self) -> &'a mut [u8] {
        self.buf
    }

    /// Rolls back to an earlier length (as returned by [`len`](Self::len)) and clears the overflow flag.
    /// A `len` beyond the current length keeps the current length.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
        self.overflowed = false;
    }

    /// Appends `bytes` verbatim. The caller guarantees they are valid UTF-8, a valid JSON fragment in
    /// context, and contain no raw newline.
    pub fn raw(&mut self, bytes: &[u8]) {
        self.push_bytes(bytes);
    }

    /// Appends one byte verbatim, as [`raw`](Self::raw) would `&[byte]`: an ASCII byte that is a
    /// valid JSON fragment in context (`{`, `,`, `"`, …). Smaller code than `raw` of a one-byte
    /// literal, whose address and length each call loads (see docs/firmware.md, "Flash").
    #[inline(never)]
    pub fn byte(&mut self, byte: u8) {
        debug_assert!(byte.is_ascii() && byte != b'\n' && byte != b'\r');
        if let Some([destination]) = self.reserve(1) {
            *destination = byte;
        }
    }

    /// Writes `"name":`, the start of an object member whose name needs no escapes (one of the
    /// protocol's own). The name's text is then kept once in the build, however many places write
    /// or read it: a literal `,"uri":` was a copy of its own (see docs/firmware.md, "Flash").
    #[inline(never)]
    pub(crate) fn key(&mut self, name: &str) {
        debug_assert!(name.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\'));
        // One claim for the whole name where flash is not counted (64-bit targets); three writes,
        // less code, elsewhere.
        if cfg!(target_pointer_width = "64") {
            let name = name.as_bytes();
            if let Some([open, rest @ ..]) = self.reserve(name.len() + 3)
                && let Some((text, [close, colon])) = rest.split_last_chunk_mut::<2>()
            {
                *open = b'"';
                copy(text, name);
                (*close, *colon) = (b'"', b':');
            }
        } else {
            self.byte(b'"');
            self.push_bytes(name.as_bytes());
            self.push_bytes(b"\":");
        }
    }

    /// Writes `,"name":`: [`key`](Self::key) after a comma, for a member that follows another.
    #[inline(never)]
    pub(crate) fn member(&mut self, name: &str) {
        self.byte(b',');
        self.key(name);
    }

    /// Writes the comma between two elements of an array or members of an object, unless this is
    /// the first (`*first`, which it clears).
    #[inline(never)]
    pub(crate) fn comma(&mut self, first: &mut bool) {
        if !core::mem::take(first) {
            self.byte(b',');
        }
    }

    /// [`comma`](Self::comma), then [`key`](Self::key): the name of an object's next member.
    #[inline(never)]
    pub(crate) fn next_key(&mut self, first: &mut bool, name: &str) {
        self.comma(first);
        self.key(name);
    }

    /// Copies a validated value, replacing its (insignificant) `\n`/`\r` whitespace by spaces so the output
    /// never contains a raw newline. (Inside a valid JSON string those bytes cannot appear raw, so every
    /// `\n`/`\r` byte of a [`Value`] is whitespace.)
    pub fn value(&mut self, value: Value<'_>) {
        let bytes = value.as_bytes();
        let Some(destination) = self.reserve(bytes.len()) else {
            return;
        };
        for (out, &byte) in destination.iter_mut().zip(bytes) {
            *out = if matches!(byte, b'\n' | b'\r') { b' ' } else { byte };
        }
    }

    /// Writes `s` as a quoted JSON string, escaping `"`, `\` and every control character below 0x20.
    pub fn string(&mut self, s: &str) {
        self.all_or_nothing(|out| {
            out.byte(b'"');
            out.escape(s);
            out.byte(b'"');
        });
    }

    /// Writes `s` escaped as by [`string`](Self::string) but without quotes, to build one string from
    /// several parts between two `byte(b'"')` calls.
    pub fn string_fragment(&mut self, s: &str) {
        self.all_or_nothing(|out| out.escape(s));
    }

    /// Writes a string that is already escaped (for example a key taken from the input), with quotes.
    pub fn json_str(&mut self, s: JsonStr<'_>) {
        self.all_or_nothing(|out| {
            out.byte(b'"');
            out.push_bytes(s.raw());
            out.byte(b'"');
        });
    }

    /// Writes formatted text as a quoted JSON string, escaping it on the fly without a temporary buffer:
    /// `out.string_fmt(format_args!("tool {name} failed: {code}"))`.
    ///
    /// If a `Display` implementation returns an error, nothing is written and the overflow flag is set,
    /// so the message is discarded like one that did not fit.
    pub fn string_fmt(&mut self, args: fmt::Arguments<'_>) {
        self.all_or_nothing(|out| {
            out.byte(b'"');
            if fmt::write(&mut FmtWriter { out: &mut *out, escape: true }, args).is_err() {
                out.overflowed = true;
            }
            out.byte(b'"');
        });
    }

    /// Writes formatted text verbatim as JSON, if it is one JSON value (as strict as [`parse`](super::parse)), and an
    /// object when `object_only`; its line breaks (whitespace in valid JSON) become spaces. Returns
    /// `false`, with nothing written and no overflow, for any other text. JSON without serde:
    /// `out.json_fmt(format_args!(r#"{{"on":{on}}}"#), false)`.
    ///
    /// The text is written in place, then checked. A text that does not fit overflows as for the
    /// other writes (and returns `true`); a `Display` error makes the text invalid.
    pub fn json_fmt(&mut self, args: fmt::Arguments<'_>, object_only: bool) -> bool {
        if self.overflowed {
            return true;
        }
        let start = self.len;
        let mut formatted = false;
        self.all_or_nothing(|out| formatted = fmt::write(&mut FmtWriter { out, escape: false }, args).is_ok());
        if self.overflowed {
            return true;
        }
        let text = self.buf.get_mut(start..self.len).unwrap_or_default();
        let valid = formatted
            && match super::parse(text, super::MAX_DEPTH_LIMIT) {
                Ok(value) => !object_only || value.kind() == super::Kind::Object,
                Err(_) => false,
            };
        if !valid {
            self.len = start;
            return false;
        }
        for byte in text.iter_mut().filter(|b| matches!(b, b'\n' | b'\r')) {
            *byte = b' ';
        }
        true
    }

    /// Writes `bytes` as a quoted standard base64 string with padding (RFC 4648 §4), for example for
    /// MCP `blob` and image `data` fields.
    pub fn base64_string(&mut self, bytes: &[u8]) {
        let encoded_len = bytes.len().div_ceil(3).checked_mul(4).and_then(|len| len.checked_add(2));
        let Some(destination) = encoded_len.and_then(|len| self.reserve(len)) else {
            self.overflowed = true;
            return;
        };
        let Some((open, rest)) = destination.split_first_mut() else {
            return;
        };
        *open = b'"';
        let mut outputs = rest.chunks_exact_mut(4);
        for (input, output) in bytes.chunks(3).zip(&mut outputs) {
            output.copy_from_slice(&encode_base64_chunk(input));
        }
        outputs.into_remainder().fill(b'"');
    }

    /// Writes an integer.
    pub fn i64(&mut self, v: i64) {
        let mut text = [0u8; INTEGER_TEXT_CAPACITY];
        let mut start = crate::num::digits(v.unsigned_abs(), &mut text);
        if v < 0
            && let Some(index) = start.checked_sub(1)
            && let Some(sign) = text.get_mut(index)
        {
            *sign = b'-';
            start = index;
        }
        self.push_bytes(text.get(start..).unwrap_or_default());
    }

    /// Writes an unsigned integer.
    pub fn u64(&mut self, v: u64) {
        let mut text = [0u8; INTEGER_TEXT_CAPACITY];
        let start = crate::num::digits(v, &mut text);
        self.push_bytes(text.get(start..).unwrap_or_default());
    }

    /// Writes a float as the shortest text that parses back to exactly `v` (`0.1`, `1.0`, `1e16`,
    /// `-0.0`, `5e-324`), always a valid JSON number. NaN and infinities, which JSON cannot represent,
    /// are written as `null` (as serde_json does).
    pub fn f64(&mut self, v: f64) {
        if !v.is_finite() {
            self.null();
            return;
        }
        let mut text = StackText::<FLOAT_TEXT_CAPACITY>::new();
        // `{:?}` is Rust's shortest round-trip form; it only prints `inf`/`NaN` for non-finite values.
        // The grammar check guards against a future change of that format: never emit a bad number.
        if fmt::write(&mut text, format_args!("{v:?}")).is_ok() && is_json_number(text.as_bytes()) {
            self.push_bytes(text.as_bytes());
        } else {
            self.overflowed = true;
        }
    }

    /// Writes `true` or `false`.
    pub fn bool(&mut self, v: bool) {
        self.push_bytes(if v { b"true" } else { b"false" });
    }

    /// Writes `null`.
    pub fn null(&mut self) {
        self.push_bytes(b"null");
    }

    /// Serializes `v` compactly, as serde_json writes it, into the remaining space. Every type serde
    /// describes is written, without a panic:
    /// - integers of every width (`i128` and `u128` too); floats as ryu's shortest round-trip text
    ///   (`0.1`, `1e300`, where serde_json writes `1e+300`), NaN and infinities as `null`;
    /// - strings and `char`s escaped as [`string`](Self::string) escapes them; `collect_str`
    ///   through `Display`, escaped as it is written;
    /// - `None`, `()` and unit structs as `null`; a unit variant as its name; a newtype variant as
    ///   `{"variant":value}`, a tuple variant as `{"variant":[…]}`, a struct variant as
    ///   `{"variant":{…}}`;
    /// - map keys that are strings, `char`s, integers, booleans or finite floats, as strings
    ///   (`{"1":2}`);
    /// - bytes (`serialize_bytes`) copied verbatim, which lets a newtype splice JSON rendered before:
    ///   such bytes are the caller's to make valid JSON without a raw newline.
    ///
    /// A value that does not fit, a map key of another kind (an array, `None`, a NaN) and a custom
    /// error of a `Serialize` implementation write nothing and set the overflow flag.
    pub fn serialize<T: serde::Serialize + ?Sized>(&mut self, v: &T) {
        if self.overflowed {
            return;
        }
        self.all_or_nothing(|out| {
            if super::ser::to_writer(out, v).is_err() {
                out.overflowed = true;
            }
        });
    }

    /// Serializes `v` like [`serialize`](Self::serialize) and writes the resulting JSON text as one quoted,
    /// escaped JSON string, for example MCP text content that mirrors `structuredContent`.
    ///
    /// Needs no buffer beyond the remaining space: the text is serialized in place, then escaped from the
    /// back to the front (escaping only grows text, so no unread byte is overwritten). The output never
    /// contains a raw newline, even if a `serialize_bytes` splice did. Same panicking paths as
    /// [`serialize`](Self::serialize).
    pub fn serialize_as_string<T: serde::Serialize + ?Sized>(&mut self, v: &T) {
        if !self.overflowed && self.try_serialize_as_string(v).is_none() {
            self.overflowed = true;
        }
    }

    /// [`serialize_as_string`](Self::serialize_as_string); `None` if it does not fit (nothing written).
    fn try_serialize_as_string<T: serde::Serialize + ?Sized>(&mut self, v: &T) -> Option<()> {
        let open_quote = self.len;
        self.byte(b'"');
        let serialized = super::ser::to_writer(self, v).is_ok() && !self.overflowed;
        let text_len = self.len.saturating_sub(open_quote).saturating_sub(1);
        self.len = open_quote;
        if !serialized {
            return None;
        }
        self.quote_in_place(open_quote, text_len)
    }

    /// Quotes and escapes, in place, the `text_len` bytes serialized after `open_quote`. Not generic:
    /// one copy in flash, whatever the types serialized.
    fn quote_in_place(&mut self, open_quote: usize, text_len: usize) -> Option<()> {
        let text_start = open_quote.checked_add(1)?;
        let text = self.buf.get(text_start..text_start.checked_add(text_len)?)?;
        let escaped_len = text.iter().try_fold(0usize, |len, &byte| len.checked_add(escape_sequence(byte).1))?;
        let text_end = text_start.checked_add(escaped_len)?;
        let end = text_end.checked_add(1)?;
        if end > self.buf.len() {
            return None;
        }
        // Expand in place from the back: `write >= read` always holds, so unread text stays intact.
        let region = self.buf.get_mut(text_start..text_end)?;
        let (mut read, mut write) = (text_len, escaped_len);
        while let Some(previous) = read.checked_sub(1) {
            read = previous;
            let (sequence, sequence_len) = escape_sequence(*region.get(read)?);
            write = write.checked_sub(sequence_len)?;
            region.get_mut(write..write.checked_add(sequence_len)?)?.copy_from_slice(sequence.get(..sequence_len)?);
        }
        *self.buf.get_mut(open_quote)? = b'"';
        *self.buf.get_mut(text_end)? = b'"';
        self.len = end;
        Some(())
    }

    /// Claims `count` bytes after the written part and returns them, or sets the overflow flag and
    /// returns `None`.
    fn reserve(&mut self, count: usize) -> Option<&mut [u8]> {
        if self.overflowed {
            return None;
        }
        let start = self.len;
        let Some(end) = start.checked_add(count).filter(|&end| end <= self.buf.len()) else {
            self.overflowed = true;
            return None;
        };
        self.len = end;
        self.buf.get_mut(start..end)
    }

    fn push_bytes(&mut self, bytes: &[u8]) {
        if let Some(destination) = self.reserve(bytes.len()) {
            copy(destination, bytes);
        }
    }

    /// Runs a multi-part write; if any part overflows, rolls `len` back to where it started.
    fn all_or_nothing(&mut self, write: impl FnOnce(&mut Self)) {
        let start = self.len;
        write(self);
        if self.overflowed {
            self.len = self.len.min(start);
        }
    }

    /// Writes `s` with JSON string escaping, copying unescaped runs in one piece.
    fn escape(&mut self, s: &str) {
        let mut rest = s.as_bytes();
        while !rest.is_empty() && !self.overflowed {
            let plain = crate::swar::unescaped_len(rest);
            let (run, tail) = rest.split_at_checked(plain).unwrap_or((rest, &[]));
            self.push_bytes(run);
            let Some((&byte, tail)) = tail.split_first() else {
                break;
            };
            let (sequence, sequence_len) = escape_sequence(byte);
            self.push_bytes(sequence.get(..sequence_len).unwrap_or(&[]));
            rest = tail;
        }
    }
}

/// `destination.copy_from_slice(source)` (same lengths), with the short copies most writes are
/// done in fixed-size moves instead of a call to `memcpy` (on 64-bit targets; elsewhere, as on a
/// microcontroller with a small `memcpy`, the code would cost more flash than the calls).
#[cfg(not(target_pointer_width = "64"))]
#[inline]
fn copy(destination: &mut [u8], source: &[u8]) {
    destination.copy_from_slice(source);
}

/// See the other `copy`.
#[cfg(target_pointer_width = "64")]
#[inline]
fn copy(destination: &mut [u8], source: &[u8]) {
    /// Copies the first and the last `N` bytes (overlapping when the length is below `2 * N`).
    fn ends<const N: usize>(destination: &mut [u8], source: &[u8]) {
        let len = source.len();
        if let (Some(d), Some(s)) = (destination.first_chunk_mut::<N>(), source.first_chunk::<N>()) {
            *d = *s;
        }
        if let (Some(d), Some(s)) =
            (destination.get_mut(len - N..).and_then(|d| d.first_chunk_mut::<N>()), source.last_chunk::<N>())
        {
            *d = *s;
        }
    }
    match source.len() {
        0 => {}
        len @ 1..=3 => {
            for at in [0, len / 2, len - 1] {
                if let (Some(d), Some(&s)) = (destination.get_mut(at), source.get(at)) {
                    *d = s;
                }
            }
        }
        4..=7 => ends::<4>(destination, source),
        8..=16 => ends::<8>(destination, source),
        _ => destination.copy_from_slice(source),
    }
}

impl fmt::Debug for JsonWriter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonWriter")
            .field("len", &self.len)
            .field("capacity", &self.buf.len())
            .field("overflowed", &self.overflowed)
            .finish()
    }
}

/// Longest escape sequence (`\u001F`).
const MAX_ESCAPE_LEN: usize = 6;

/// Whether `byte` must be escaped inside a JSON string.
const fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// How `byte` appears inside a JSON string, and the length of that: itself (length 1) unless it
/// [`needs_escape`].
fn escape_sequence(byte: u8) -> ([u8; MAX_ESCAPE_LEN], usize) {
    if !needs_escape(byte) {
        return ([byte, 0, 0, 0, 0, 0], 1);
    }
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0C => b'f',
        _ => {
            let hex = |nibble: u8| if nibble < 10 { b'0' + nibble } else { b'a' + (nibble - 10) };
            return ([b'\\', b'u', b'0', b'0', hex(byte >> 4), hex(byte & 0x0F)], MAX_ESCAPE_LEN);
        }
    };
    ([b'\\', short, 0, 0, 0, 0], 2)
}

/// Base64 of one to three input bytes, padded with `=`.
pub(crate) fn encode_base64_chunk(input: &[u8]) -> [u8; 4] {
    let byte = |index: usize| input.get(index).copied();
    let group =
        u32::from(byte(0).unwrap_or(0)) << 16 | u32::from(byte(1).unwrap_or(0)) << 8 | u32::from(byte(2).unwrap_or(0));
    let digit = |shift: u32| base64_digit((group >> shift) & 0x3F);
    [
        digit(18),
        digit(12),
        if byte(1).is_some() { digit(6) } else { b'=' },
        if byte(2).is_some() { digit(0) } else { b'=' },
    ]
}

/// The standard base64 alphabet (RFC 4648 Table 1); `sextet` is below 64.
fn base64_digit(sextet: u32) -> u8 {
    let sextet = (sextet & 0x3F) as u8;
    match sextet {
        0..=25 => b'A' + sextet,
        26..=51 => b'a' + (sextet - 26),
        52..=61 => b'0' + (sextet - 52),
        62 => b'+',
        _ => b'/',
    }
}

/// Formatted text straight into the writer: escaped as a JSON string's contents (`escape`), or
/// verbatim. One type for both, so that a firmware holds one `fmt::Write` vtable for them.
struct FmtWriter<'w, 'a> {
    out: &'w mut JsonWriter<'a>,
    escape: bool,
}

impl fmt::Write for FmtWriter<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.escape {
            self.out.escape(s);
        } else {
            self.out.push_bytes(s.as_bytes());
        }
        if self.out.overflowed { Err(fmt::Error) } else { Ok(()) }
    }
}

/// A small text buffer on the stack for number formatting; formatting fails if the text exceeds `N`.
struct StackText<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> StackText<N> {
    const fn new() -> Self {
        StackText { bytes: [0; N], len: 0 }
    }

    fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

impl<const N: usize> fmt::Write for StackText<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// What `write` writes, as a string (tests only; at most 256 bytes).
#[cfg(test)]
pub(crate) fn written_by(write: impl FnOnce(&mut JsonWriter<'_>)) -> std::string::String {
    let mut buf = [0u8; 256];
    let mut w = JsonWriter::new(&mut buf);
    write(&mut w);
    std::string::String::from_utf8(w.written().to_vec()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::scan::parse;
    use std::boxed::Box;
    use std::string::{String, ToString};
    use std::vec;
    use std::vec::Vec;

    /// Parses writer output as one JSON string and returns its unescaped text.
    fn parsed_string(bytes: &[u8]) -> String {
        assert!(!bytes.contains(&b'\n') && !bytes.contains(&b'\r'), "raw newline in {bytes:?}");
        let value = parse(bytes, 0).unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(bytes)));
        value.as_str().expect("a string").chars().collect()
    }

    fn with_writer(capacity: usize, write: impl FnOnce(&mut JsonWriter<'_>)) -> (Vec<u8>, bool) {
        let mut buf = vec![0u8; capacity];
        let mut out = JsonWriter::new(&mut buf);
        write(&mut out);
        (out.written().to_vec(), out.is_overflowed())
    }

    #[test]
    fn is_empty_and_debug_report_the_writer() {
        let mut buf = [0u8; 4];
        let mut out = JsonWriter::new(&mut buf);
        assert!(out.is_empty());
        out.raw(b"[]");
        assert!(!out.is_empty());
        assert_eq!(std::format!("{out:?}"), "JsonWriter { len: 2, capacity: 4, overflowed: false }");
        out.raw(b"xyz");
        assert_eq!(std::format!("{out:?}"), "JsonWriter { len: 2, capacity: 4, overflowed: true }");
    }

    #[test]
    fn string_escapes_quotes_backslashes_and_control_characters() {
        let (written, overflowed) =
            with_writer(128, |out| out.string("a\"b\\c/\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}é😀\u{2028}"));
        assert!(!overflowed);
        assert_eq!(written, "\"a\\\"b\\\\c/\\n\\r\\t\\b\\f\\u0000\\u001f\u{7f}é😀\u{2028}\"".as_bytes());
    }

    #[test]
    fn every_character_class_round_trips_through_parse() {
        let mut text = String::new();
        for code in (0..0x100).chain([0x7FF, 0x800, 0xFFFD, 0xFFFF, 0x1_0000, 0x10_FFFF]) {
            let c = char::from_u32(code).expect("not a surrogate");
            text.push(c);
            let (written, _) = with_writer(64, |out| out.string(c.encode_utf8(&mut [0; 4])));
            assert_eq!(parsed_string(&written), c.to_string());
        }
        let (written, overflowed) = with_writer(4096, |out| out.string(&text));
        assert!(!overflowed);
        assert_eq!(parsed_string(&written), text);
    }

    #[test]
    fn random_strings_round_trip_through_parse() {
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2_000 {
            let len = (next() % 24) as usize;
            let text: String = (0..len)
                .map(|_| {
                    let code = match next() % 4 {
                        0 => next() % 0x20,
                        1 => next() % 0x80,
                        2 => next() % 0x800,
                        _ => next() % 0x11_0000,
                    };
                    char::from_u32(code as u32).unwrap_or('\u{FFFD}')
                })
                .collect();
            let (written, overflowed) = with_writer(256, |out| out.string(&text));
            assert!(!overflowed);
            assert_eq!(parsed_string(&written), text);
            let (fragment, _) = with_writer(256, |out| {
                out.byte(b'"');
                out.string_fragment(&text);
                out.string_fragment("|");
                out.byte(b'"');
            });
            assert_eq!(parsed_string(&fragment), std::format!("{text}|"));
        }
    }

    #[test]
    fn json_str_copies_escaped_text() {
        let input = br#"{"k\n\u00e9":1}"#;
        let key = parse(input, 1).expect("valid").members().next().expect("a member").0;
        let (written, _) = with_writer(32, |out| out.json_str(key));
        assert_eq!(written, br#""k\n\u00e9""#);
        assert_eq!(parsed_string(&written), "k\né");
    }

    #[test]
    fn members_and_elements_are_separated_once() {
        let (written, overflowed) = with_writer(64, |out| {
            out.byte(b'{');
            let mut first = true;
            out.next_key(&mut first, "a");
            out.u64(1);
            out.next_key(&mut first, "io.example/b");
            out.byte(b'[');
            let mut first_element = true;
            for n in [1, 2, 3] {
                out.comma(&mut first_element);
                out.u64(n);
            }
            out.byte(b']');
            out.member("c");
            out.bool(true);
            out.byte(b'}');
        });
        assert!(!overflowed);
        assert_eq!(written, br#"{"a":1,"io.example/b":[1,2,3],"c":true}"#);
        // A name that does not fit overflows the writer, as any other write.
        let (_, overflowed) = with_writer(8, |out| out.member("longer_than_eight"));
        assert!(overflowed);
    }

    #[test]
    fn string_fmt_escapes_formatted_text() {
        let (written, overflowed) =
            with_writer(64, |out| out.string_fmt(format_args!("{}: {:?} {}", "tool\n\"x\"", "q", -3)));
        assert!(!overflowed);
        assert_eq!(parsed_string(&written), "tool\n\"x\": \"q\" -3");
    }

    /// A `Display` that writes a valid JSON text, then fails.
    struct Failing;

    impl fmt::Display for Failing {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("{}")?;
            Err(fmt::Error)
        }
    }

    #[test]
    fn string_fmt_with_a_failing_display_writes_nothing_and_overflows() {
        let (written, overflowed) = with_writer(64, |out| {
            out.byte(b'[');
            out.string_fmt(format_args!("{Failing}"));
        });
        assert_eq!((written.as_slice(), overflowed), (&b"["[..], true));
    }

    #[test]
    fn integers_are_written_as_core_fmt_writes_them() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut values: Vec<u64> = (0..20).map(|digits| 10u64.saturating_pow(digits)).collect();
        values.extend((0..20).map(|digits| 10u64.saturating_pow(digits).wrapping_sub(1)));
        values.extend([u64::MAX, u64::from(u32::MAX), u64::from(u32::MAX) + 1, i64::MAX as u64]);
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            values.push(state >> (state % 64));
        }
        for v in values {
            assert_eq!(with_writer(20, |out| out.u64(v)), (v.to_string().into_bytes(), false), "{v}");
            let signed = v as i64;
            assert_eq!(with_writer(20, |out| out.i64(signed)), (signed.to_string().into_bytes(), false), "{signed}");
        }
        assert_eq!(with_writer(20, |out| out.i64(i64::MIN)).0, b"-9223372036854775808");
        assert_eq!(with_writer(19, |out| out.u64(u64::MAX)), (Vec::new(), true));
    }

    #[test]
    fn base64_matches_rfc4648_test_vectors() {
        let vectors: &[(&[u8], &str)] = &[
            (b"", "\"\""),
            (b"f", "\"Zg==\""),
            (b"fo", "\"Zm8=\""),
            (b"foo", "\"Zm9v\""),
            (b"foob", "\"Zm9vYg==\""),
            (b"fooba", "\"Zm9vYmE=\""),
            (b"foobar", "\"Zm9vYmFy\""),
            (&[0xFB, 0xFF], "\"+/8=\""),
        ];
        for &(input, expected) in vectors {
            let (written, overflowed) = with_writer(16, |out| out.base64_string(input));
            assert!(!overflowed);
            assert_eq!(String::from_utf8_lossy(&written), expected);
        }
        // The 64 sextets 0..=63 in order spell the whole alphabet.
        let packed: Vec<u8> = (0u8..64)
            .collect::<Vec<_>>()
            .chunks(4)
            .flat_map(|s| [s[0] << 2 | s[1] >> 4, s[1] << 4 | s[2] >> 2, s[2] << 6 | s[3]])
            .collect();
        let (written, _) = with_writer(70, |out| out.base64_string(&packed));
        assert_eq!(written, b"\"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/\"");
    }

    #[test]
    fn integers() {
        let (written, _) = with_writer(64, |out| {
            out.i64(i64::MIN);
            out.byte(b',');
            out.i64(i64::MAX);
            out.byte(b',');
            out.i64(0);
            out.byte(b',');
            out.u64(u64::MAX);
        });
        assert_eq!(written, b"-9223372036854775808,9223372036854775807,0,18446744073709551615");
    }

    #[test]
    fn f64_edge_cases() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e16"),
            (1e-7, "1e-7"),
            (123.456, "123.456"),
            (f64::MAX, "1.7976931348623157e308"),
            (f64::MIN, "-1.7976931348623157e308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
            (f64::NEG_INFINITY, "null"),
        ];
        for &(v, expected) in cases {
            let (written, overflowed) = with_writer(32, |out| out.f64(v));
            assert!(!overflowed);
            assert_eq!(String::from_utf8_lossy(&written), expected, "{v:?}");
        }
    }

    #[test]
    fn f64_round_trips_exactly_for_random_bit_patterns() {
        let mut state: u64 = 0xDEAD_BEEF_CAFE_F00D;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v = f64::from_bits(state);
            let (written, overflowed) = with_writer(32, |out| out.f64(v));
            assert!(!overflowed);
            let value = parse(&written, 0).expect("valid JSON");
            if v.is_finite() {
                assert_eq!(value.as_f64().map(f64::to_bits), Some(v.to_bits()), "{v:?}");
            } else {
                assert!(value.is_null());
            }
        }
    }

    #[test]
    fn value_replaces_newlines_and_keeps_meaning() {
        let input = b"{\r\n  \"a\": [1,\n2],\r\n  \"b\": \"x\\ny\",\t\"c\" :\r{ }\n}";
        let value = parse(input, 4).expect("valid");
        let (written, overflowed) = with_writer(64, |out| out.value(value));
        assert!(!overflowed);
        assert!(!written.contains(&b'\n') && !written.contains(&b'\r'));
        assert_eq!(written.len(), value.as_bytes().len());
        let original: serde_json::Value = serde_json::from_slice(input).expect("valid");
        let copied: serde_json::Value = serde_json::from_slice(&written).expect("valid");
        assert_eq!(original, copied);
    }

    #[test]
    fn json_fmt_writes_only_json_and_no_line_break() {
        let write = |object_only: bool, args: fmt::Arguments<'_>| {
            let mut buf = [0u8; 64];
            let mut out = JsonWriter::new(&mut buf);
            out.byte(b'[');
            let valid = out.json_fmt(args, object_only);
            assert!(!out.is_overflowed());
            (valid, String::from_utf8(out.written().to_vec()).unwrap())
        };
        assert_eq!(write(true, format_args!("{{\"on\":{}}}", true)), (true, r#"[{"on":true}"#.into()));
        assert_eq!(write(false, format_args!("[1,\r\n{}]", 2)), (true, "[[1,  2]".into()));
        assert_eq!(write(false, format_args!("{}", 7)), (true, "[7".into()));
        assert_eq!(write(true, format_args!("{}", 7)), (false, "[".into()), "not an object");
        assert_eq!(write(false, format_args!("{{\"on\":}}")), (false, "[".into()), "not JSON");
        assert_eq!(write(false, format_args!("{{}} {{}}")), (false, "[".into()), "two values");
        assert_eq!(write(false, format_args!("\"a\nb\"")), (false, "[".into()), "a raw line break in a string");
        assert_eq!(write(false, format_args!("{}", Failing)), (false, "[".into()), "a Display error");
        // Overflow: nothing written, reported as for every write (not as invalid).
        let mut buf = [0u8; 4];
        let mut out = JsonWriter::new(&mut buf);
        assert!(out.json_fmt(format_args!("[1,2,3]"), false));
        assert!(out.is_overflowed());
        assert!(out.written().is_empty());
    }

    #[test]
    fn overflow_is_sticky_and_truncate_restores() {
        let mut buf = [0u8; 8];
        let mut out = JsonWriter::new(&mut buf);
        out.raw(b"[1,");
        let mark = out.len();
        out.string("too long");
        assert!(out.is_overflowed());
        assert_eq!(out.written(), b"[1,");
        out.byte(b'2');
        assert_eq!(out.written(), b"[1,", "writes after an overflow are no-ops");
        out.truncate(mark);
        assert!(!out.is_overflowed());
        out.raw(b"2]");
        assert_eq!((out.written(), out.remaining(), out.capacity()), (&b"[1,2]"[..], 3, 8));
        out.truncate(100);
        assert_eq!(out.len(), 5);
        out.truncate(0);
        assert!(out.is_empty());
        out.null();
        assert_eq!(out.into_written(), b"null");

        // One byte takes the last free byte, and the next one overflows.
        let mut buf = [0u8; 2];
        let mut out = JsonWriter::new(&mut buf);
        out.byte(b'[');
        out.byte(b']');
        assert!(!out.is_overflowed());
        out.byte(b',');
        assert!(out.is_overflowed());
        assert_eq!(out.written(), b"[]");
    }

    /// One writer call under test.
    type WriteCall<'c> = Box<dyn Fn(&mut JsonWriter<'_>) + 'c>;

    #[test]
    fn every_write_fits_entirely_or_leaves_the_written_bytes_unchanged() {
        #[derive(serde::Serialize)]
        struct Item<'a> {
            name: &'a str,
            size: u32,
        }
        let value_input = b"{ \"a\" :\n[true, null] }";
        let key_input = br#"{"k\"ey":0}"#;
        let key = parse(key_input, 1).expect("valid").members().next().expect("a member").0;
        let item = Item { name: "a\nb", size: 3 };
        let writes: Vec<(&str, WriteCall<'_>)> = vec![
            ("raw", Box::new(|out: &mut JsonWriter<'_>| out.raw(b"{\"k\":1}"))),
            ("value", Box::new(|out: &mut JsonWriter<'_>| out.value(parse(value_input, 2).expect("valid")))),
            ("string", Box::new(|out: &mut JsonWriter<'_>| out.string("q\"\n\u{1}é"))),
            ("string_fragment", Box::new(|out: &mut JsonWriter<'_>| out.string_fragment("q\"\n\u{1}é"))),
            ("json_str", Box::new(|out: &mut JsonWriter<'_>| out.json_str(key))),
            ("string_fmt", Box::new(|out: &mut JsonWriter<'_>| out.string_fmt(format_args!("{}-{}", "x\n", 42)))),
            ("base64_string", Box::new(|out: &mut JsonWriter<'_>| out.base64_string(b"hello"))),
            ("i64", Box::new(|out: &mut JsonWriter<'_>| out.i64(-1234))),
            ("u64", Box::new(|out: &mut JsonWriter<'_>| out.u64(98765))),
            ("f64", Box::new(|out: &mut JsonWriter<'_>| out.f64(-0.125))),
            ("bool", Box::new(|out: &mut JsonWriter<'_>| out.bool(false))),
            ("null", Box::new(|out: &mut JsonWriter<'_>| out.null())),
            ("serialize", Box::new(|out: &mut JsonWriter<'_>| out.serialize(&item))),
            ("serialize_as_string", Box::new(|out: &mut JsonWriter<'_>| out.serialize_as_string(&item))),
            (
                "json_fmt",
                Box::new(|out: &mut JsonWriter<'_>| assert!(out.json_fmt(format_args!("{{\"n\":{}}}", 42), true))),
            ),
        ];
        for (name, write) in writes {
            let (full, _) = with_writer(256, |out| write(out));
            for capacity in 1..full.len() + 2 {
                let mut buf = vec![0xAA; capacity + 1];
                let mut out = JsonWriter::new(&mut buf[..capacity]);
                out.byte(b'[');
                write(&mut out);
                if capacity > full.len() {
                    assert!(!out.is_overflowed(), "{name} at capacity {capacity}");
                    assert_eq!(&out.written()[1..], full.as_slice(), "{name}");
                } else {
                    assert!(out.is_overflowed(), "{name} at capacity {capacity}");
                    assert_eq!(out.written(), b"[", "{name} at capacity {capacity}");
                }
                assert_eq!(buf[capacity], 0xAA, "{name} wrote past the end");
            }
        }
    }

    #[test]
    fn serialize_writes_compact_json() {
        #[derive(serde::Serialize)]
        struct Tool<'a> {
            name: &'a str,
            count: u32,
            ratio: f64,
            tags: [&'a str; 2],
            note: Option<&'a str>,
        }
        let tool = Tool { name: "echo\n", count: 2, ratio: 0.5, tags: ["a", "b\"c"], note: None };
        let (written, overflowed) = with_writer(128, |out| {
            out.raw(b"{\"tool\":");
            out.serialize(&tool);
            out.byte(b'}');
        });
        assert!(!overflowed);
        assert_eq!(
            String::from_utf8_lossy(&written),
            r#"{"tool":{"name":"echo\n","count":2,"ratio":0.5,"tags":["a","b\"c"],"note":null}}"#
        );
    }

    #[test]
    fn serialize_as_string_embeds_the_json_text_as_a_string() {
        #[derive(serde::Serialize)]
        struct Weather<'a> {
            temperature: f64,
            conditions: &'a str,
        }
        let weather = Weather { temperature: 22.5, conditions: "Partly\ncloudy \\o/" };
        let (plain, _) = with_writer(128, |out| out.serialize(&weather));
        let (written, overflowed) = with_writer(128, |out| out.serialize_as_string(&weather));
        assert!(!overflowed);
        assert_eq!(parsed_string(&written), String::from_utf8_lossy(&plain));
        assert_eq!(
            String::from_utf8_lossy(&written),
            r#""{\"temperature\":22.5,\"conditions\":\"Partly\\ncloudy \\\\o/\"}""#
        );
    }
}
