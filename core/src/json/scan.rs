//! Strict, iterative JSON validation and zero-copy access to validated values.
//!
//! [`parse`] checks that a byte slice is exactly one JSON value (RFC 8259) and returns it as a [`Value`]:
//! a borrowed span of the input that is known to be valid. The accessors on [`Value`] walk that span lazily
//! and never copy or allocate.
//!
//! # Strictness
//!
//! Within the depth limit, [`parse`] accepts exactly what `serde_json::from_slice::<serde_json::Value>`
//! accepts, with one documented difference:
//!
//! - **Numbers are checked against the grammar, not against the range of `f64`.** serde_json rejects a
//!   number whose value rounds to infinity (`1e400`, `-1e309`, a 400-digit integer); RFC 8259 §6 lets an
//!   implementation choose, and this scanner accepts them so that an out-of-range number in `params`
//!   is an application error, not a parse error of the whole message. [`Value::as_f64`] returns `None`
//!   for such numbers.
//!
//! Everything else matches: UTF-8 is validated as strictly as [`core::str::from_utf8`] (inside strings;
//! outside strings only ASCII is allowed), raw control characters (< 0x20) are rejected inside strings,
//! the only escapes are `\" \\ \/ \b \f \n \r \t \uXXXX`, a `\uD800`–`\uDBFF` escape must be followed by a
//! `\uDC00`–`\uDFFF` escape, and a lone surrogate escape of either kind is rejected (serde_json does the
//! same when it produces a `String`). Numbers follow `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
//! literals are exactly `true`, `false`, `null`; no comments, trailing commas, `NaN` or byte order mark.
//!
//! Duplicate object keys are accepted. [`Value::get`] returns the **first** member with the key, whereas
//! serde_json keeps the last one.
//!
//! # Cost
//!
//! [`parse`] runs in O(n) time with a fixed, small amount of stack (the largest part is a 32-byte bit stack
//! for [`MAX_DEPTH_LIMIT`] levels) and no recursion, whatever the input. Accessors take O(size of the value) per call; iterating all
//! members or elements of a container is O(size of the container) in total.

use core::fmt;
use core::str;

use super::spans::Spans;
pub use super::value::{Elements, JsonStr, Kind, Members, UnescapedChars, Value};

/// Hard upper bound for any depth limit (the validator keeps a fixed bit stack of this many levels).
///
/// A `max_depth` passed to [`parse`] above this value is clamped to it.
pub const MAX_DEPTH_LIMIT: usize = 256;

/// Bits per word of the container bit stack.
const DEPTH_WORD_BITS: usize = usize::BITS as usize;
/// Words in the container bit stack.
const DEPTH_WORDS: usize = MAX_DEPTH_LIMIT / DEPTH_WORD_BITS;
const _: () = assert!(MAX_DEPTH_LIMIT.is_multiple_of(DEPTH_WORD_BITS));

/// Why [`parse`] rejected its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ScanErrorKind {
    /// The input ended inside a value (unterminated string, container, literal, number or escape).
    UnexpectedEnd,
    /// A byte that cannot appear here: a missing `,` `:` or quote, a trailing comma, a misspelt
    /// literal, a closing bracket of the wrong type, a non-ASCII byte outside a string.
    Syntax,
    /// A string contains bytes that are not well-formed UTF-8.
    InvalidUtf8,
    /// An unknown escape, a malformed `\u` escape, or an unpaired surrogate escape.
    InvalidEscape,
    /// A string contains a raw byte below 0x20.
    ControlCharacter,
    /// A number does not follow the JSON number grammar (leading zero, missing digits).
    InvalidNumber,
    /// Containers are nested deeper than the depth limit.
    TooDeep,
    /// Something other than whitespace follows the value.
    TrailingCharacters,
    /// The input is empty or only whitespace.
    Empty,
}

impl ScanErrorKind {
    /// A short, lowercase description of the error.
    pub const fn description(self) -> &'static str {
        match self {
            ScanErrorKind::UnexpectedEnd => "unexpected end of input",
            ScanErrorKind::Syntax => "syntax error",
            ScanErrorKind::InvalidUtf8 => "invalid UTF-8 in string",
            ScanErrorKind::InvalidEscape => "invalid escape in string",
            ScanErrorKind::ControlCharacter => "control character in string",
            ScanErrorKind::InvalidNumber => "invalid number",
            ScanErrorKind::TooDeep => "nesting too deep",
            ScanErrorKind::TrailingCharacters => "trailing characters after the value",
            ScanErrorKind::Empty => "empty input",
        }
    }
}

impl fmt::Display for ScanErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// A rejected input: what is wrong and where.
///
/// `offset` is the byte offset in the input of the first byte that makes the document invalid:
/// the offending byte (for [`ScanErrorKind::InvalidUtf8`] the first byte of the ill-formed sequence,
/// for [`ScanErrorKind::InvalidEscape`] the backslash that starts the escape, for
/// [`ScanErrorKind::TooDeep`] the bracket one level too deep). For [`ScanErrorKind::UnexpectedEnd`] and
/// [`ScanErrorKind::Empty`] it is the input length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ScanError {
    /// What is wrong.
    pub kind: ScanErrorKind,
    /// Where, in bytes from the start of the input.
    pub offset: usize,
}

impl ScanError {
    const fn new(kind: ScanErrorKind, offset: usize) -> Self {
        ScanError { kind, offset }
    }
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON: {} at byte {}", self.kind, crate::num::Decimal(self.offset as u64))
    }
}

impl core::error::Error for ScanError {}

/// Validates that `input` is exactly one JSON value (RFC 8259), optionally surrounded by JSON whitespace,
/// nested at most `max_depth` levels (a scalar is depth 0, `[]` and `{}` are depth 1; `max_depth` is
/// clamped to [`MAX_DEPTH_LIMIT`]), and returns it. Iterative, O(n) time, O(1) memory, never panics.
///
/// Call it once on every untrusted document before looking inside it; the returned [`Value`] borrows
/// `input` and its accessors rely on this validation. See the [module docs](self) for the exact
/// strictness rules and the one difference from serde_json.
pub fn parse(input: &[u8], max_depth: usize) -> Result<Value<'_>, ScanError> {
    scan(input, max_depth, recorder(&mut NoSpans))
}

/// [`parse`], recording in `spans` where the document's first shallow containers end (see
/// [`Spans`]), for walks that skip them without rescanning.
pub(crate) fn parse_spanned<'a>(input: &'a [u8], max_depth: usize, spans: &mut Spans) -> Result<Value<'a>, ScanError> {
    spans.begin(input);
    scan(input, max_depth, recorder(spans))
}

/// How [`scan`] is handed its [`Record`]: on 64-bit targets, statically (two validators, the plain
/// one without any recording); elsewhere (firmware) as a trait object, so that one copy of the
/// validator serves both (380 B of flash less, for an indirect call per container and member).
#[cfg(target_pointer_width = "64")]
fn recorder<R: Record>(record: &mut R) -> &mut R {
    record
}
#[cfg(not(target_pointer_width = "64"))]
fn recorder<R: Record>(record: &mut R) -> &mut dyn Record {
    record
}

/// What the validator tells about each container it opens and closes (`depth` counts it, the root
/// container is 1; offsets into the input).
pub(super) trait Record {
    fn open(&mut self, depth: usize, offset: usize);
    fn close(&mut self, depth: usize, end: usize);
    /// A member of the object at `depth`: its name from `name` to `name_end` (quotes included),
    /// its value starting at `value`; `plain`: the name has no escape.
    fn member(&mut self, depth: usize, name: usize, name_end: usize, value: usize, plain: bool);
    /// The latest value in the container at `depth` ended at `end`.
    fn value_end(&mut self, depth: usize, end: usize);
}

/// Records nothing: [`parse`] compiles to the plain validator.
struct NoSpans;

impl Record for NoSpans {
    #[inline(always)]
    fn open(&mut self, _: usize, _: usize) {}
    #[inline(always)]
    fn close(&mut self, _: usize, _: usize) {}
    #[inline(always)]
    fn member(&mut self, _: usize, _: usize, _: usize, _: usize, _: bool) {}
    #[inline(always)]
    fn value_end(&mut self, _: usize, _: usize) {}
}

/// The validator of [`parse`] and [`parse_spanned`].
fn scan<'a, R: Record + ?Sized>(input: &'a [u8], max_depth: usize, spans: &mut R) -> Result<Value<'a>, ScanError> {
    let depth_limit = max_depth.min(MAX_DEPTH_LIMIT);
    let mut scanner = Scanner { input, pos: 0 };
    let mut containers = ContainerStack::new();

    scanner.skip_whitespace();
    let start = scanner.pos;
    if scanner.peek().is_none() {
        return Err(ScanError::new(ScanErrorKind::Empty, input.len()));
    }

    let end = 'document: loop {
        // A value starts at `scanner.pos`; whitespace before it is already skipped.
        match scanner.peek() {
            None => return Err(scanner.unexpected_end()),
            Some(open @ (b'{' | b'[')) => {
                let container = if open == b'{' { Container::Object } else { Container::Array };
                if !containers.push(container, depth_limit) {
                    return Err(scanner.error_here(ScanErrorKind::TooDeep));
                }
                spans.open(containers.depth, scanner.pos);
                scanner.advance(1);
                scanner.skip_whitespace();
                let close = if open == b'{' { b'}' } else { b']' };
                if scanner.peek() == Some(close) {
                    scanner.advance(1);
                    spans.close(containers.depth, scanner.pos);
                    containers.pop();
                } else {
                    if container == Container::Object {
                        let name = scanner.pos;
                        let (name_end, plain) = scanner.scan_member_name()?;
                        spans.member(containers.depth, name, name_end, scanner.pos, plain);
                    }
                    continue 'document;
                }
            }
            Some(b'"') => {
                scanner.scan_string()?;
            }
            Some(b'-' | b'0'..=b'9') => scanner.scan_number()?,
            Some(b't') => scanner.scan_literal(b"true")?,
            Some(b'f') => scanner.scan_literal(b"false")?,
            Some(b'n') => scanner.scan_literal(b"null")?,
            Some(_) => return Err(scanner.error_here(ScanErrorKind::Syntax)),
        }

        // A value just ended: close finished containers, or move on to the next sibling.
        loop {
            let value_end = scanner.pos;
            scanner.skip_whitespace();
            let Some(container) = containers.top() else {
                break 'document value_end;
            };
            spans.value_end(containers.depth, value_end);
            match (scanner.peek(), container) {
                (None, _) => return Err(scanner.unexpected_end()),
                (Some(b','), _) => {
                    scanner.advance(1);
                    scanner.skip_whitespace();
                    if container == Container::Object {
                        let name = scanner.pos;
                        let (name_end, plain) = scanner.scan_member_name()?;
                        spans.member(containers.depth, name, name_end, scanner.pos, plain);
                    }
                    continue 'document;
                }
                (Some(b'}'), Container::Object) | (Some(b']'), Container::Array) => {
                    scanner.advance(1);
                    spans.close(containers.depth, scanner.pos);
                    containers.pop();
                }
                (Some(_), _) => return Err(scanner.error_here(ScanErrorKind::Syntax)),
            }
        }
    };

    if scanner.peek().is_some() {
        return Err(scanner.error_here(ScanErrorKind::TrailingCharacters));
    }
    match input.get(start..end) {
        Some(bytes) if !bytes.is_empty() => Ok(Value::from_validated(bytes)),
        // Unreachable: a value was scanned between `start` and `end`.
        _ => Err(ScanError::new(ScanErrorKind::Syntax, start)),
    }
}

/// Whether `bytes` is exactly one JSON number. Used by the writer to double-check formatted floats.
pub(crate) fn is_json_number(bytes: &[u8]) -> bool {
    let mut scanner = Scanner { input: bytes, pos: 0 };
    matches!(scanner.peek(), Some(b'-' | b'0'..=b'9')) && scanner.scan_number().is_ok() && scanner.pos == bytes.len()
}

/// The two container types, as stored in [`ContainerStack`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

/// One bit per open container (1 = object), so any depth up to [`MAX_DEPTH_LIMIT`] fits in 32 bytes.
struct ContainerStack {
    bits: [usize; DEPTH_WORDS],
    depth: usize,
}

impl ContainerStack {
    const fn new() -> Self {
        ContainerStack { bits: [0; DEPTH_WORDS], depth: 0 }
    }

    /// Opens a container; `false` (and no change) if that would exceed `depth_limit`.
    fn push(&mut self, container: Container, depth_limit: usize) -> bool {
        if self.depth >= depth_limit {
            return false;
        }
        let mask = 1usize << (self.depth % DEPTH_WORD_BITS);
        let Some(word) = self.bits.get_mut(self.depth / DEPTH_WORD_BITS) else {
            return false;
        };
        match container {
            Container::Object => *word |= mask,
            Container::Array => *word &= !mask,
        }
        self.depth += 1;
        true
    }

    /// The innermost open container, or `None` at the top level.
    fn top(&self) -> Option<Container> {
        let index = self.depth.checked_sub(1)?;
        let word = self.bits.get(index / DEPTH_WORD_BITS)?;
        if word & (1usize << (index % DEPTH_WORD_BITS)) != 0 { Some(Container::Object) } else { Some(Container::Array) }
    }

    /// Closes the innermost container (no-op at the top level).
    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// A cursor over the input. `pos` never exceeds `input.len()`.
struct Scanner<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    /// The byte `ahead` positions after the cursor.
    fn byte_at(&self, ahead: usize) -> Option<u8> {
        self.input.get(self.pos.checked_add(ahead)?).copied()
    }

    fn rest(&self) -> &'a [u8] {
        self.input.get(self.pos..).unwrap_or(&[])
    }

    /// Moves forward by `count` bytes, stopping at the end of the input.
    fn advance(&mut self, count: usize) {
        self.pos = self.pos.saturating_add(count).min(self.input.len());
    }

    #[inline]
    fn skip_whitespace(&mut self) {
        // Compact JSON has none: every whitespace byte is below `!`.
        if self.peek().is_some_and(|byte| byte > b' ') {
            return;
        }
        let rest = self.rest();
        let count = rest.iter().position(|&byte| !is_whitespace(byte)).unwrap_or(rest.len());
        self.advance(count);
    }

    fn skip_digits(&mut self) {
        let rest = self.rest();
        let count = rest.iter().position(|byte| !byte.is_ascii_digit()).unwrap_or(rest.len());
        self.advance(count);
    }

    fn error_here(&self, kind: ScanErrorKind) -> ScanError {
        ScanError::new(kind, self.pos)
    }

    fn unexpected_end(&self) -> ScanError {
        ScanError::new(ScanErrorKind::UnexpectedEnd, self.input.len())
    }

    /// `UnexpectedEnd` at the end of the input, otherwise `kind` at the cursor.
    fn end_or(&self, kind: ScanErrorKind) -> ScanError {
        if self.pos >= self.input.len() { self.unexpected_end() } else { self.error_here(kind) }
    }

    /// Scans `"name"` `:` and the whitespace after it, leaving the cursor at the member's value;
    /// returns the offset just after the name's closing quote, and whether the name is plain
    /// ([`scan_string`](Self::scan_string)).
    fn scan_member_name(&mut self) -> Result<(usize, bool), ScanError> {
        if self.peek() != Some(b'"') {
            return Err(self.end_or(ScanErrorKind::Syntax));
        }
        let plain = self.scan_string()?;
        let name_end = self.pos;
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(self.end_or(ScanErrorKind::Syntax));
        }
        self.advance(1);
        self.skip_whitespace();
        Ok((name_end, plain))
    }

    /// Scans a string; the cursor is at its opening quote. `Ok(true)`: the string is printable
    /// ASCII without escapes (so its raw bytes are its text); `Ok(false)`: it may have escapes.
    #[inline(always)]
    fn scan_string(&mut self) -> Result<bool, ScanError> {
        // The common case inline: nothing but plain ASCII up to the closing quote.
        let start = self.pos.saturating_add(1);
        let rest = self.input.get(start..).unwrap_or(&[]);
        let plain = crate::swar::plain_string_len(rest);
        if rest.get(plain) == Some(&b'"') {
            self.pos = start + plain + 1;
            return Ok(true);
        }
        self.pos = start;
        self.scan_string_rest().map(|()| false)
    }

    /// [`scan_string`](Self::scan_string) from inside the string.
    #[inline(never)]
    fn scan_string_rest(&mut self) -> Result<(), ScanError> {
        loop {
            let rest = self.rest();
            let plain = crate::swar::plain_string_len(rest);
            self.advance(plain);
            match self.peek() {
                None => return Err(self.unexpected_end()),
                Some(b'"') => {
                    self.advance(1);
                    return Ok(());
                }
                Some(b'\\') => self.scan_escape()?,
                Some(0x00..=0x1F) => return Err(self.error_here(ScanErrorKind::ControlCharacter)),
                Some(_) => self.scan_utf8_sequence()?,
            }
        }
    }

    /// Scans one escape; the cursor is at its backslash.
    fn scan_escape(&mut self) -> Result<(), ScanError> {
        let escape_start = self.pos;
        let invalid = ScanError::new(ScanErrorKind::InvalidEscape, escape_start);
        match self.byte_at(1) {
            None => Err(self.unexpected_end()),
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.advance(2);
                Ok(())
            }
            Some(b'u') => {
                let unit = self.scan_unicode_escape()?;
                if is_low_surrogate(unit) {
                    return Err(invalid);
                }
                if is_high_surrogate(unit) {
                    match (self.byte_at(0), self.byte_at(1)) {
                        (Some(b'\\'), Some(b'u')) => {}
                        (None, _) | (Some(b'\\'), None) => return Err(self.unexpected_end()),
                        _ => return Err(invalid),
                    }
                    if !is_low_surrogate(self.scan_unicode_escape()?) {
                        return Err(invalid);
                    }
                }
                Ok(())
            }
            Some(_) => Err(invalid),
        }
    }

    /// Scans `\uXXXX` (the cursor is at the backslash, `u` already checked) and returns the code unit.
    fn scan_unicode_escape(&mut self) -> Result<u16, ScanError> {
        let invalid = self.error_here(ScanErrorKind::InvalidEscape);
        let mut unit: u16 = 0;
        for ahead in 2..UNICODE_ESCAPE_LEN {
            let Some(byte) = self.byte_at(ahead) else {
                return Err(self.unexpected_end());
            };
            let digit = hex_digit_value(byte).ok_or(invalid)?;
            unit = (unit << 4) | digit;
        }
        self.advance(UNICODE_ESCAPE_LEN);
        Ok(unit)
    }

    /// Scans a run of multi-byte UTF-8 sequences (the bytes up to the next ASCII one); the cursor
    /// is at its first lead byte (>= 0x80). `core::str::from_utf8` checks the whole run (well-formed
    /// per Unicode Table 3-7: no overlong form, no surrogate, nothing above U+10FFFF): one check
    /// shared with the rest of the crate instead of a second copy of it here, and one call for a
    /// run of non-ASCII text rather than one a character.
    fn scan_utf8_sequence(&mut self) -> Result<(), ScanError> {
        let rest = self.rest();
        let run = rest.iter().position(|&byte| byte < 0x80).unwrap_or(rest.len());
        match core::str::from_utf8(rest.get(..run).unwrap_or(rest)) {
            Ok(_) => {
                self.advance(run);
                Ok(())
            }
            // Well-formed so far, but the input ends within the last sequence.
            Err(e) if e.error_len().is_none() && run == rest.len() => Err(self.unexpected_end()),
            // At the sequence that is not UTF-8 (or that an ASCII byte cuts short).
            Err(e) => Err(ScanError::new(ScanErrorKind::InvalidUtf8, self.pos + e.valid_up_to())),
        }
    }

    /// Scans a number; the cursor is at `-` or a digit.
    fn scan_number(&mut self) -> Result<(), ScanError> {
        if self.peek() == Some(b'-') {
            self.advance(1);
        }
        match self.peek() {
            Some(b'0') => {
                self.advance(1);
                if self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
                    return Err(self.error_here(ScanErrorKind::InvalidNumber));
                }
            }
            Some(b'1'..=b'9') => self.skip_digits(),
            _ => return Err(self.end_or(ScanErrorKind::InvalidNumber)),
        }
        if self.peek() == Some(b'.') {
            self.advance(1);
            self.scan_required_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.advance(1);
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.advance(1);
            }
            self.scan_required_digits()?;
        }
        Ok(())
    }

    /// Scans one or more digits.
    fn scan_required_digits(&mut self) -> Result<(), ScanError> {
        if !self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
            return Err(self.end_or(ScanErrorKind::InvalidNumber));
        }
        self.skip_digits();
        Ok(())
    }

    /// Scans exactly `literal`; the cursor is at its first byte.
    fn scan_literal(&mut self, literal: &[u8]) -> Result<(), ScanError> {
        for (ahead, &expected) in literal.iter().enumerate() {
            match self.byte_at(ahead) {
                None => return Err(self.unexpected_end()),
                Some(byte) if byte == expected => {}
                Some(_) => {
                    return Err(ScanError::new(ScanErrorKind::Syntax, self.pos.saturating_add(ahead)));
                }
            }
        }
        self.advance(literal.len());
        Ok(())
    }
}

/// Length of `\uXXXX`.
pub(super) const UNICODE_ESCAPE_LEN: usize = 6;

/// JSON insignificant whitespace (RFC 8259 §2).
pub(super) const fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

pub(super) const fn is_high_surrogate(unit: u16) -> bool {
    matches!(unit, 0xD800..=0xDBFF)
}

pub(super) const fn is_low_surrogate(unit: u16) -> bool {
    matches!(unit, 0xDC00..=0xDFFF)
}

const fn hex_digit_value(byte: u8) -> Option<u16> {
    match byte {
        b'0'..=b'9' => Some((byte - b'0') as u16),
        b'a'..=b'f' => Some((byte - b'a' + 10) as u16),
        b'A'..=b'F' => Some((byte - b'A' + 10) as u16),
        _ => None,
    }
}

/// The code unit of four hex digits, or `None` unless `digits` is exactly four hex digits.
pub(super) fn hex_code_unit(digits: &[u8]) -> Option<u16> {
    if digits.len() != 4 {
        return None;
    }
    digits.iter().try_fold(0u16, |unit, &byte| Some((unit << 4) | hex_digit_value(byte)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;
    use std::collections::BTreeMap;
    use std::format;
    use std::string::{String, ToString};
    use std::vec;
    use std::vec::Vec;

    /// Depth limit for the serde_json comparisons: below serde_json's own recursion limit of 128.
    const DIFFERENTIAL_DEPTH: usize = 100;

    fn error_of(input: &[u8], max_depth: usize) -> ScanError {
        match parse(input, max_depth) {
            Ok(value) => panic!("accepted {:?} as {value:?}", String::from_utf8_lossy(input)),
            Err(error) => error,
        }
    }

    fn nested_arrays(depth: usize) -> Vec<u8> {
        let mut doc = vec![b'['; depth];
        doc.extend(std::iter::repeat_n(b']', depth));
        doc
    }

    #[test]
    fn accepts_valid_documents_and_returns_the_trimmed_value() {
        let valid: &[(&[u8], &[u8])] = &[
            (b"0", b"0"),
            (b"-0", b"-0"),
            (b"-0.0e-0", b"-0.0e-0"),
            (b"1E+2", b"1E+2"),
            (b"123456789012345678901234567890", b"123456789012345678901234567890"),
            (b" \t\n\r[ ]\r\n", b"[ ]"),
            (b"{}", b"{}"),
            (b"\"\"", b"\"\""),
            (b"true", b"true"),
            (b" false ", b"false"),
            (b"null", b"null"),
            (br#""\u0000\"\\\/\b\f\n\r\t""#, br#""\u0000\"\\\/\b\f\n\r\t""#),
            (br#""\uD83D\uDE00\udbff\udfff""#, br#""\uD83D\uDE00\udbff\udfff""#),
            ("\"é€😀\u{7f}\u{ffff}\"".as_bytes(), "\"é€😀\u{7f}\u{ffff}\"".as_bytes()),
            (br#"{"a":[1,{"b":null}],"c":true,"a":-2.5e-3}"#, br#"{"a":[1,{"b":null}],"c":true,"a":-2.5e-3}"#),
            (b"[ 1 , [ ] , { } , \"x\" ]", b"[ 1 , [ ] , { } , \"x\" ]"),
        ];
        for &(input, expected) in valid {
            let value = parse(input, 8).unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(input)));
            assert_eq!(value.as_bytes(), expected);
            assert!(serde_json::from_slice::<serde_json::Value>(input).is_ok(), "serde_json disagrees");
        }
    }

    #[test]
    fn rejects_invalid_documents_with_kind_and_offset() {
        use ScanErrorKind::*;
        let invalid: &[(&[u8], ScanErrorKind, usize)] = &[
            (b"", Empty, 0),
            (b" \r\n\t", Empty, 4),
            (b"[", UnexpectedEnd, 1),
            (b"[1,", UnexpectedEnd, 3),
            (b"{\"a\"", UnexpectedEnd, 4),
            (b"{\"a\":", UnexpectedEnd, 5),
            (b"\"abc", UnexpectedEnd, 4),
            (b"tru", UnexpectedEnd, 3),
            (b"-", UnexpectedEnd, 1),
            (b"1.", UnexpectedEnd, 2),
            (b"1e+", UnexpectedEnd, 3),
            (b"\"\\", UnexpectedEnd, 2),
            (b"\"\\u12", UnexpectedEnd, 5),
            (b"\"\\ud800", UnexpectedEnd, 7),
            (b"\"\\ud800\\", UnexpectedEnd, 8),
            (b"\"\xe2\x82", UnexpectedEnd, 3),
            (b"\"\xf0\x9f\x98", UnexpectedEnd, 4),
            (b"\"\xc3", UnexpectedEnd, 2),
            // Cut short, but already not UTF-8: the sequence is invalid, not unfinished.
            (b"\"\xe0\x80", InvalidUtf8, 1),
            (b"\"\xed\xa0", InvalidUtf8, 1),
            (b"\"\xf4\x90", InvalidUtf8, 1),
            (b"\"\xc0", InvalidUtf8, 1),
            (b"\"\xf5", InvalidUtf8, 1),
            (b"\"\xc3\x41\"", InvalidUtf8, 1),
            // After valid non-ASCII text: the offset is the bad sequence's own.
            (b"\"\xc3\xa9\xff\"", InvalidUtf8, 3),
            (b"\"\xc3\xa9\xe2\x82a\"", InvalidUtf8, 3),
            (b"\"\xe6\x96\x87\xed\xa0\x80\"", InvalidUtf8, 4),
            (b"\"\xc3\xa9\xe2\x82", UnexpectedEnd, 5),
            (b"]", Syntax, 0),
            (b"[1 2]", Syntax, 3),
            (b"[1,]", Syntax, 3),
            (b"[,1]", Syntax, 1),
            (b"{\"a\":1,}", Syntax, 7),
            (b"{\"a\" 1}", Syntax, 5),
            (b"{\"a\":}", Syntax, 5),
            (b"{1:2}", Syntax, 1),
            (b"{,}", Syntax, 1),
            (b"[}", Syntax, 1),
            (b"{]", Syntax, 1),
            (b"[1}", Syntax, 2),
            (b"trux", Syntax, 3),
            (b"nul1", Syntax, 3),
            (b"NaN", Syntax, 0),
            (b"Infinity", Syntax, 0),
            (b"+1", Syntax, 0),
            (b".5", Syntax, 0),
            (b"'a'", Syntax, 0),
            (b"/* c */ 1", Syntax, 0),
            (b"\xef\xbb\xbf{}", Syntax, 0),
            (b"\"\x80\"", InvalidUtf8, 1),
            (b"\"\xc0\xaf\"", InvalidUtf8, 1),
            (b"\"\xe0\x80\x80\"", InvalidUtf8, 1),
            (b"\"\xed\xa0\x80\"", InvalidUtf8, 1),
            (b"\"\xf4\x90\x80\x80\"", InvalidUtf8, 1),
            (b"\"\xf5\x80\x80\x80\"", InvalidUtf8, 1),
            (b"\"a\xe2\x28\xa1\"", InvalidUtf8, 2),
            (b"\"\\x\"", InvalidEscape, 1),
            (b"\"\\'\"", InvalidEscape, 1),
            (b"\"\\U0041\"", InvalidEscape, 1),
            (b"\"\\u12g4\"", InvalidEscape, 1),
            (b"\"\\udc00\"", InvalidEscape, 1),
            (b"\"\\ud800\"", InvalidEscape, 1),
            (b"\"\\ud800\\u0041\"", InvalidEscape, 1),
            (b"\"\\ud800\\n\"", InvalidEscape, 1),
            (b"\"a\\ud800\\ud800\"", InvalidEscape, 2),
            (b"\"a\nb\"", ControlCharacter, 2),
            (b"\"\t\"", ControlCharacter, 1),
            (b"\"\x00\"", ControlCharacter, 1),
            (b"\"\x1f\"", ControlCharacter, 1),
            (b"01", InvalidNumber, 1),
            (b"00", InvalidNumber, 1),
            (b"-01", InvalidNumber, 2),
            (b"-a", InvalidNumber, 1),
            (b"[-]", InvalidNumber, 2),
            (b"1.a", InvalidNumber, 2),
            (b"1.e5", InvalidNumber, 2),
            (b"1ea", InvalidNumber, 2),
            (b"1e+a", InvalidNumber, 3),
            (b"1 2", TrailingCharacters, 2),
            (b"{} {}", TrailingCharacters, 3),
            (b"null x", TrailingCharacters, 5),
            (b"\"a\"\"b\"", TrailingCharacters, 3),
            (b"[1]]", TrailingCharacters, 3),
            (b"1\n,", TrailingCharacters, 2),
        ];
        for &(input, kind, offset) in invalid {
            let shown = String::from_utf8_lossy(input);
            assert_eq!(error_of(input, 8), ScanError { kind, offset }, "{shown:?}");
            assert!(serde_json::from_slice::<serde_json::Value>(input).is_err(), "serde_json accepts {shown:?}");
        }
    }

    #[test]
    fn string_utf8_validation_matches_core_str() {
        // Every lead and second byte, with interesting third and fourth bytes (no `"`, `\\` or controls).
        const TAIL: &[u8] = &[0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF];
        let mut doc = [b'"'; 6];
        for lead in 0x80..=0xFFu8 {
            for second in 0x20..=0xFFu8 {
                for &third in TAIL {
                    for &fourth in TAIL {
                        if second == b'"' || second == b'\\' {
                            continue;
                        }
                        let sequence = [lead, second, third, fourth];
                        doc[1..5].copy_from_slice(&sequence);
                        let expected = str::from_utf8(&sequence).is_ok();
                        assert_eq!(parse(&doc, 0).is_ok(), expected, "{sequence:x?}");
                    }
                }
            }
        }
    }

    #[test]
    fn depth_limit_is_exact() {
        for depth in [1, 2, 5, 100, MAX_DEPTH_LIMIT] {
            let doc = nested_arrays(depth);
            assert!(parse(&doc, depth).is_ok(), "depth {depth} at limit {depth}");
            let error = error_of(&doc, depth - 1);
            assert_eq!(error, ScanError { kind: ScanErrorKind::TooDeep, offset: depth - 1 });
        }
        assert!(parse(b"1", 0).is_ok());
        assert_eq!(error_of(b"[]", 0), ScanError { kind: ScanErrorKind::TooDeep, offset: 0 });

        let mixed = br#"{"a":[{"b":[]}]}"#;
        assert!(parse(mixed, 4).is_ok());
        assert_eq!(error_of(mixed, 3), ScanError { kind: ScanErrorKind::TooDeep, offset: 11 });
        assert_eq!(error_of(br#"{"a":{"b":{}}}"#, 2), ScanError { kind: ScanErrorKind::TooDeep, offset: 10 });
        // Siblings do not add up: depth is nesting, not count.
        assert!(parse(b"[[],[[]],{},[[]]]", 3).is_ok());
    }

    #[test]
    fn depth_limit_is_clamped() {
        assert!(parse(&nested_arrays(MAX_DEPTH_LIMIT), usize::MAX).is_ok());
        let error = error_of(&nested_arrays(MAX_DEPTH_LIMIT + 1), usize::MAX);
        assert_eq!(error, ScanError { kind: ScanErrorKind::TooDeep, offset: MAX_DEPTH_LIMIT });
    }

    #[test]
    fn hundred_thousand_open_brackets_fail_fast_on_a_small_stack() {
        // A 64 KiB stack would overflow long before 100,000 levels if anything recursed.
        let handle = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let only_open = vec![b'['; 100_000];
                let balanced = nested_arrays(100_000);
                let mixed: Vec<u8> = b"{\"a\":".iter().copied().cycle().take(500_000).collect();
                (error_of(&only_open, usize::MAX), error_of(&balanced, 128), error_of(&mixed, 64))
            })
            .expect("spawn");
        let (only_open, balanced, mixed) = handle.join().expect("no stack overflow");
        assert_eq!(only_open, ScanError { kind: ScanErrorKind::TooDeep, offset: MAX_DEPTH_LIMIT });
        assert_eq!(balanced, ScanError { kind: ScanErrorKind::TooDeep, offset: 128 });
        assert_eq!(mixed, ScanError { kind: ScanErrorKind::TooDeep, offset: 64 * 5 });
    }

    #[test]
    fn walking_the_deepest_allowed_value_needs_no_recursion() {
        let handle = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let mut doc = nested_arrays(MAX_DEPTH_LIMIT);
                doc.splice(MAX_DEPTH_LIMIT..MAX_DEPTH_LIMIT, b"7".iter().copied());
                let mut value = parse(&doc, MAX_DEPTH_LIMIT).expect("valid");
                let mut levels = 0;
                while let Some(inner) = value.elements().next() {
                    levels += 1;
                    value = inner;
                }
                (levels, value.as_i64())
            })
            .expect("spawn");
        assert_eq!(handle.join().expect("no stack overflow"), (MAX_DEPTH_LIMIT, Some(7)));
    }

    #[test]
    fn errors_display_their_cause() {
        let error = error_of(b"[[]]", 1);
        assert_eq!(error.to_string(), "invalid JSON: nesting too deep at byte 1");
    }

    // ----- Differential testing against serde_json ------------------------------------------------------

    const GENERATED_MAX_DEPTH: usize = 6;

    fn generate_whitespace(rng: &mut XorShift, out: &mut Vec<u8>) {
        if rng.below(4) == 0 {
            for _ in 0..rng.below(3) + 1 {
                out.push(*rng.pick(b" \t\n\r"));
            }
        }
    }

    fn generate_number(rng: &mut XorShift, out: &mut Vec<u8>) {
        const SPECIAL: &[&str] = &[
            "0",
            "-0",
            "-0.0",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "123456789012345678901234567890",
            "0.1",
            "1e308",
            "1.7976931348623157e308",
            "5e-324",
            "1e-400",
            "0e999999999999999999999",
            "1e400",
            "-1E+400",
        ];
        match rng.below(4) {
            0 => out.extend_from_slice(rng.pick(SPECIAL).as_bytes()),
            1 => out.extend_from_slice((rng.below(2001) as i64 - 1000).to_string().as_bytes()),
            _ => {
                if rng.below(3) == 0 {
                    out.push(b'-');
                }
                out.extend_from_slice(rng.below(100_000).to_string().as_bytes());
                if rng.below(2) == 0 {
                    out.push(b'.');
                    out.extend_from_slice(
                        format!("{:0width$}", rng.below(10_000), width = rng.below(4) + 1).as_bytes(),
                    );
                }
                if rng.below(2) == 0 {
                    out.push(*rng.pick(b"eE"));
                    out.extend_from_slice(rng.pick(&["", "+", "-"]).as_bytes());
                    out.extend_from_slice(rng.below(40).to_string().as_bytes());
                }
            }
        }
    }

    fn generate_string(rng: &mut XorShift, out: &mut Vec<u8>) {
        const PIECES: &[&str] = &[
            "a",
            "Z",
            " ",
            "key",
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\n",
            "\\r",
            "\\t",
            "\\u0041",
            "\\u00e9",
            "\\u0000",
            "\\uFFFF",
            "\\uD83D\\uDE00",
            "\\udbff\\udfff",
            "é",
            "€",
            "😀",
            "\u{7f}",
            "\u{ffff}",
        ];
        out.push(b'"');
        for _ in 0..rng.below(5) {
            out.extend_from_slice(rng.pick(PIECES).as_bytes());
        }
        out.push(b'"');
    }

    fn generate_value(rng: &mut XorShift, depth: usize, out: &mut Vec<u8>) {
        const KEYS: &[&str] = &["\"a\"", "\"b\"", "\"\\u0061\"", "\"\"", "\"id\"", "\"\\n\""];
        let choice = if depth >= GENERATED_MAX_DEPTH { rng.below(6) } else { rng.below(9) };
        match choice {
            0 => out.extend_from_slice(b"null"),
            1 => out.extend_from_slice(rng.pick(&["true", "false"]).as_bytes()),
            2 | 3 => generate_number(rng, out),
            4 | 5 => generate_string(rng, out),
            6 | 7 => {
                out.push(b'[');
                for index in 0..rng.below(5) {
                    generate_whitespace(rng, out);
                    if index > 0 {
                        out.push(b',');
                        generate_whitespace(rng, out);
                    }
                    generate_value(rng, depth + 1, out);
                }
                generate_whitespace(rng, out);
                out.push(b']');
            }
            _ => {
                out.push(b'{');
                for index in 0..rng.below(5) {
                    generate_whitespace(rng, out);
                    if index > 0 {
                        out.push(b',');
                        generate_whitespace(rng, out);
                    }
                    if rng.below(2) == 0 {
                        out.extend_from_slice(rng.pick(KEYS).as_bytes());
                    } else {
                        generate_string(rng, out);
                    }
                    generate_whitespace(rng, out);
                    out.push(b':');
                    generate_whitespace(rng, out);
                    generate_value(rng, depth + 1, out);
                }
                generate_whitespace(rng, out);
                out.push(b'}');
            }
        }
    }

    fn floats_agree(ours: f64, theirs: f64) -> bool {
        // serde_json's default float parser may be a few ULPs off; ours is correctly rounded.
        ours == theirs
            || (ours - theirs).abs() <= 1e-12 * ours.abs().max(theirs.abs())
            || (ours.abs() < 1e-300 && theirs.abs() < 1e-300)
    }

    fn assert_same_number(ours: Value<'_>, theirs: &serde_json::Number) {
        assert_eq!(ours.kind(), Kind::Number);
        if let Some(unsigned) = theirs.as_u64() {
            assert_eq!(ours.as_u64(), Some(unsigned));
        } else if let Some(signed) = theirs.as_i64() {
            assert_eq!(ours.as_i64(), Some(signed));
        }
        let expected = theirs.as_f64().expect("serde_json numbers are finite");
        match ours.as_f64() {
            Some(actual) => assert!(floats_agree(actual, expected), "{ours:?}: {actual} vs {expected}"),
            // Rounds to infinity for us, stayed finite in serde_json's less precise conversion.
            None => assert!(expected.abs() > 1e307, "{ours:?}"),
        }
        if let Some(unsigned) = ours.as_u64() {
            assert_eq!(theirs.as_u64(), Some(unsigned), "{ours:?}");
        }
        if let Some(signed) = ours.as_i64() {
            // serde_json reads `-0` as the float -0.0.
            assert!(theirs.as_i64() == Some(signed) || ours.as_bytes() == b"-0", "{ours:?}");
        }
    }

    fn assert_same_string(ours: JsonStr<'_>, theirs: &str) {
        assert_eq!(ours.chars().collect::<String>(), theirs);
        assert_eq!(ours.to_string(), theirs);
        assert_eq!(ours.unescaped_len(), theirs.len());
        assert!(ours.eq_str(theirs));
        assert!(!ours.eq_str(&format!("{theirs}x")));
        let mut buf = vec![0u8; theirs.len()];
        assert_eq!(ours.unescape_into(&mut buf), Some(theirs));
        if !theirs.is_empty() {
            assert_eq!(ours.unescape_into(&mut buf[1..]), None);
        }
        let expected_plain = if ours.raw().contains(&b'\\') { None } else { Some(theirs) };
        assert_eq!(ours.as_plain(), expected_plain);
    }

    /// Walks both trees side by side (iteratively) and asserts they are the same.
    fn assert_same_tree(root: Value<'_>, theirs: &serde_json::Value) {
        let mut pending = vec![(root, theirs)];
        while let Some((ours, theirs)) = pending.pop() {
            match theirs {
                serde_json::Value::Null => assert!(ours.is_null() && ours.kind() == Kind::Null),
                serde_json::Value::Bool(b) => assert_eq!(ours.as_bool(), Some(*b)),
                serde_json::Value::Number(n) => assert_same_number(ours, n),
                serde_json::Value::String(s) => assert_same_string(ours.as_str().expect("a string"), s),
                serde_json::Value::Array(items) => {
                    let our_items: Vec<Value<'_>> = ours.elements().collect();
                    assert_eq!(our_items.len(), items.len(), "{ours:?}");
                    pending.extend(our_items.into_iter().zip(items));
                }
                serde_json::Value::Object(map) => {
                    let mut first = BTreeMap::new();
                    let mut last = BTreeMap::new();
                    for (key, value) in ours.members() {
                        let key: String = key.chars().collect();
                        first.entry(key.clone()).or_insert(value);
                        last.insert(key, value);
                    }
                    assert!(last.keys().eq(map.keys()), "{ours:?}");
                    for (key, value) in &first {
                        assert_eq!(ours.get(key), Some(*value));
                    }
                    pending.extend(last.into_values().zip(map.values()));
                }
            }
        }
    }

    #[derive(Default, Debug)]
    struct Tally {
        accepted: usize,
        rejected: usize,
        out_of_range: usize,
    }

    /// Asserts that `parse` and serde_json make the same decision on `doc`, and build the same tree.
    fn check_against_serde_json(doc: &[u8], tally: &mut Tally) {
        let ours = parse(doc, DIFFERENTIAL_DEPTH);
        let theirs = serde_json::from_slice::<serde_json::Value>(doc);
        match (ours, theirs) {
            (Ok(value), Ok(tree)) => {
                let trimmed = doc.trim_ascii();
                assert_eq!(value.as_bytes(), trimmed);
                assert_same_tree(value, &tree);
                tally.accepted += 1;
            }
            (Err(error), Err(_)) => {
                assert_ne!(error.kind, ScanErrorKind::TooDeep);
                assert!(error.offset <= doc.len());
                tally.rejected += 1;
            }
            // The one documented difference: we accept numbers beyond f64's range.
            (Ok(_), Err(error)) if error.to_string().starts_with("number out of range") => {
                tally.out_of_range += 1;
            }
            (ours, theirs) => panic!(
                "decision differs on {:?} ({doc:?}): ours {ours:?}, serde_json {theirs:?}",
                String::from_utf8_lossy(doc)
            ),
        }
    }

    #[test]
    fn matches_serde_json_on_random_documents_and_mutations() {
        const DOCUMENTS: usize = 20_000;
        const MUTANTS_PER_DOCUMENT: usize = 4;
        let mut rng = XorShift::new(1);
        let mut tally = Tally::default();
        let mut doc = Vec::new();
        for _ in 0..DOCUMENTS {
            doc.clear();
            generate_whitespace(&mut rng, &mut doc);
            generate_value(&mut rng, 0, &mut doc);
            generate_whitespace(&mut rng, &mut doc);
            check_against_serde_json(&doc, &mut tally);
            for _ in 0..MUTANTS_PER_DOCUMENT {
                let mut mutant = doc.clone();
                for _ in 0..rng.below(3) + 1 {
                    rng.mutate(&mut mutant);
                }
                check_against_serde_json(&mutant, &mut tally);
            }
        }
        // The generator must exercise every outcome, or the test proves little.
        assert!(tally.accepted > DOCUMENTS, "{tally:?}");
        assert!(tally.rejected > DOCUMENTS, "{tally:?}");
        assert!(tally.out_of_range > 0, "{tally:?}");
    }

    #[test]
    fn matches_serde_json_on_every_short_document() {
        const ALPHABET: &[u8] = b"[]{}\",:01-.e t\\\x80";
        const MAX_LEN: u32 = 4;
        let mut tally = Tally::default();
        let mut doc = Vec::new();
        for len in 0..=MAX_LEN {
            for mut index in 0..ALPHABET.len().pow(len) {
                doc.clear();
                for _ in 0..len {
                    doc.push(ALPHABET[index % ALPHABET.len()]);
                    index /= ALPHABET.len();
                }
                check_against_serde_json(&doc, &mut tally);
            }
        }
        assert!(tally.accepted > 100 && tally.rejected > 10_000, "{tally:?}");
    }

    // ----- MCP examples -----------------------------------------------------------------------------

    /// Representative messages from the MCP 2026-07-28 examples, embedded so a fresh clone can run them.
    const MCP_EXAMPLES: &[&str] = &[
        r#"{
  "jsonrpc": "2.0",
  "id": "call-tool-example",
  "method": "tools/call",
  "params": {
    "_meta": {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": {
        "name": "ExampleClient",
        "version": "1.0.0"
      },
      "io.modelcontextprotocol/clientCapabilities": {}
    },
    "name": "get_weather",
    "arguments": {
      "location": "New York"
    }
  }
}"#,
        r#"{
  "jsonrpc": "2.0",
  "id": "read-resource-with-ttl-example",
  "result": {
    "resultType": "complete",
    "contents": [
      {
        "uri": "file:///project/src/main.rs",
        "mimeType": "text/x-rust",
        "text": "fn main() {\n    println!(\"Hello world!\");\n}"
      }
    ],
    "ttlMs": 60000,
    "cacheScope": "private"
  }
}"#,
        r#"{
  "resultType": "complete",
  "content": [
    {
      "type": "text",
      "text": "{\"temperature\": 22.5, \"conditions\": \"Partly cloudy\", \"humidity\": 65}"
    }
  ],
  "structuredContent": {
    "temperature": 22.5,
    "conditions": "Partly cloudy",
    "humidity": 65
  }
}"#,
        "{\n  \"type\": \"text\",\n  \"text\": \"Current weather in New York:\\nTemperature: 72°F\\nConditions: Partly cloudy\"\n}",
        r#"{
  "code": -32603,
  "message": "Internal error"
}"#,
    ];

    fn check_example(bytes: &[u8], name: &str) {
        let value = parse(bytes, DIFFERENTIAL_DEPTH).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(value.kind(), Kind::Object, "{name}");
        let tree: serde_json::Value = serde_json::from_slice(bytes).expect("serde_json parses the example");
        assert_same_tree(value, &tree);
    }

    #[test]
    fn embedded_mcp_examples_parse() {
        for (index, example) in MCP_EXAMPLES.iter().enumerate() {
            check_example(example.as_bytes(), &format!("example {index}"));
        }
        let request = parse(MCP_EXAMPLES[0].as_bytes(), 16).expect("valid");
        assert_eq!(request.get("jsonrpc").and_then(|v| v.as_str()).and_then(|s| s.as_plain()), Some("2.0"));
        assert!(request.get("method").and_then(|v| v.as_str()).is_some_and(|s| s.eq_str("tools/call")));
        let location = request.get("params").and_then(|p| p.get("arguments")).and_then(|a| a.get("location"));
        assert!(location.and_then(|v| v.as_str()).is_some_and(|s| s.eq_str("New York")));
        let ttl = parse(MCP_EXAMPLES[1].as_bytes(), 16).expect("valid").get("result").and_then(|r| r.get("ttlMs"));
        assert_eq!(ttl.and_then(|v| v.as_u64()), Some(60_000));
        let error = parse(MCP_EXAMPLES[4].as_bytes(), 16).expect("valid");
        assert_eq!(error.get("code").and_then(|v| v.as_i64()), Some(-32603));
    }

    /// Also parses every example of the shared spec checkout when it sits beside the repository.
    #[test]
    fn shared_spec_examples_parse_when_present() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/2026-07-28/examples");
        let Ok(schemas) = std::fs::read_dir(&root) else {
            return; // Not checked out here; the embedded examples above still run.
        };
        let mut checked = 0;
        for schema in schemas {
            let schema = schema.expect("readable directory").path();
            let Ok(files) = std::fs::read_dir(&schema) else { continue };
            for file in files {
                let path = file.expect("readable directory").path();
                if path.extension().is_some_and(|ext| ext == "json") {
                    let bytes = std::fs::read(&path).expect("readable example");
                    check_example(&bytes, &path.display().to_string());
                    checked += 1;
                }
            }
        }
        assert!(checked > 0, "no examples found under {}", root.display());
    }
}
