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

/// Hard upper bound for any depth limit (the validator keeps a fixed bit stack of this many levels).
///
/// A `max_depth` passed to [`parse`] above this value is clamped to it.
pub const MAX_DEPTH_LIMIT: usize = 256;

/// Bits per word of the container bit stack.
const DEPTH_WORD_BITS: usize = 64;
/// Words in the container bit stack.
const DEPTH_WORDS: usize = MAX_DEPTH_LIMIT / DEPTH_WORD_BITS;
const _: () = assert!(MAX_DEPTH_LIMIT.is_multiple_of(DEPTH_WORD_BITS));

/// The type of a JSON value, read from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Kind {
    /// `{ ... }`
    Object,
    /// `[ ... ]`
    Array,
    /// `"..."`
    String,
    /// Any number, integer or not.
    Number,
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
}

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
        write!(f, "invalid JSON: {} at byte {}", self.kind, self.offset)
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
                scanner.advance(1);
                scanner.skip_whitespace();
                let close = if open == b'{' { b'}' } else { b']' };
                if scanner.peek() == Some(close) {
                    scanner.advance(1);
                    containers.pop();
                } else {
                    if container == Container::Object {
                        scanner.scan_member_name()?;
                    }
                    continue 'document;
                }
            }
            Some(b'"') => scanner.scan_string()?,
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
            match (scanner.peek(), container) {
                (None, _) => return Err(scanner.unexpected_end()),
                (Some(b','), _) => {
                    scanner.advance(1);
                    scanner.skip_whitespace();
                    if container == Container::Object {
                        scanner.scan_member_name()?;
                    }
                    continue 'document;
                }
                (Some(b'}'), Container::Object) | (Some(b']'), Container::Array) => {
                    scanner.advance(1);
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
        Some(bytes) if !bytes.is_empty() => Ok(Value { bytes }),
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
    bits: [u64; DEPTH_WORDS],
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
        let mask = 1u64 << (self.depth % DEPTH_WORD_BITS);
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
        if word & (1u64 << (index % DEPTH_WORD_BITS)) != 0 { Some(Container::Object) } else { Some(Container::Array) }
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

    fn skip_whitespace(&mut self) {
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

    /// Scans `"name"` `:` and the whitespace after it, leaving the cursor at the member's value.
    fn scan_member_name(&mut self) -> Result<(), ScanError> {
        if self.peek() != Some(b'"') {
            return Err(self.end_or(ScanErrorKind::Syntax));
        }
        self.scan_string()?;
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(self.end_or(ScanErrorKind::Syntax));
        }
        self.advance(1);
        self.skip_whitespace();
        Ok(())
    }

    /// Scans a string; the cursor is at its opening quote.
    fn scan_string(&mut self) -> Result<(), ScanError> {
        self.advance(1);
        loop {
            let rest = self.rest();
            let plain = rest.iter().position(|&byte| !is_plain_string_byte(byte)).unwrap_or(rest.len());
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

    /// Scans one multi-byte UTF-8 sequence; the cursor is at its lead byte (>= 0x80).
    fn scan_utf8_sequence(&mut self) -> Result<(), ScanError> {
        let invalid = self.error_here(ScanErrorKind::InvalidUtf8);
        let Some(lead) = self.peek() else {
            return Err(self.unexpected_end());
        };
        // Well-formed sequences per Unicode Table 3-7: width and allowed range of the second byte.
        let (width, second_min, second_max) = match lead {
            0xC2..=0xDF => (2, 0x80, 0xBF),
            0xE0 => (3, 0xA0, 0xBF),
            0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
            0xED => (3, 0x80, 0x9F),
            0xF0 => (4, 0x90, 0xBF),
            0xF1..=0xF3 => (4, 0x80, 0xBF),
            0xF4 => (4, 0x80, 0x8F),
            _ => return Err(invalid),
        };
        for ahead in 1..width {
            let (min, max) = if ahead == 1 { (second_min, second_max) } else { (0x80, 0xBF) };
            match self.byte_at(ahead) {
                None => return Err(self.unexpected_end()),
                Some(byte) if (min..=max).contains(&byte) => {}
                Some(_) => return Err(invalid),
            }
        }
        self.advance(width);
        Ok(())
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
const UNICODE_ESCAPE_LEN: usize = 6;

/// JSON insignificant whitespace (RFC 8259 §2).
const fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// A string byte that needs no further checking: printable ASCII other than `"` and `\`.
const fn is_plain_string_byte(byte: u8) -> bool {
    byte >= 0x20 && byte < 0x80 && byte != b'"' && byte != b'\\'
}

const fn is_high_surrogate(unit: u16) -> bool {
    matches!(unit, 0xD800..=0xDBFF)
}

const fn is_low_surrogate(unit: u16) -> bool {
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
fn hex_code_unit(digits: &[u8]) -> Option<u16> {
    if digits.len() != 4 {
        return None;
    }
    digits.iter().try_fold(0u16, |unit, &byte| Some((unit << 4) | hex_digit_value(byte)?))
}

/// `bytes` without leading JSON whitespace.
fn trim_start(bytes: &[u8]) -> &[u8] {
    let count = bytes.iter().position(|&byte| !is_whitespace(byte)).unwrap_or(bytes.len());
    bytes.get(count..).unwrap_or(&[])
}

// ---------------------------------------------------------------------------------------------------------
// Walking a validated value. These helpers assume validity for speed but stay panic-free and terminate on
// any input: every failure ends the walk (`None`).

/// Length of the string starting at `bytes[0] == '"'`, both quotes included.
fn string_len(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut index: usize = 1;
    loop {
        let special = bytes.get(index..)?.iter().position(|&byte| byte == b'"' || byte == b'\\')?;
        index = index.checked_add(special)?;
        if bytes.get(index)? == &b'"' {
            return index.checked_add(1);
        }
        // Skip the backslash and the byte it escapes (`\uXXXX` digits are plain bytes).
        index = index.checked_add(2)?;
    }
}

/// Length of the object or array starting at `bytes[0]`, brackets included.
fn container_len(bytes: &[u8]) -> Option<usize> {
    let mut depth: usize = 0;
    let mut index: usize = 0;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'"' => {
                index = index.checked_add(string_len(bytes.get(index..)?)?)?;
                continue;
            }
            b'{' | b'[' => depth = depth.checked_add(1)?,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return index.checked_add(1);
                }
            }
            _ => {}
        }
        index = index.checked_add(1)?;
    }
    None
}

/// Length of the value starting at `bytes[0]`.
fn value_len(bytes: &[u8]) -> Option<usize> {
    match bytes.first()? {
        b'"' => string_len(bytes),
        b'{' | b'[' => container_len(bytes),
        // Numbers and literals end at a delimiter or whitespace.
        _ => Some(
            bytes
                .iter()
                .position(|&byte| matches!(byte, b',' | b']' | b'}') || is_whitespace(byte))
                .unwrap_or(bytes.len()),
        ),
    }
}

/// Splits the value at the start of `bytes` from what follows it.
fn split_value(bytes: &[u8]) -> Option<(Value<'_>, &[u8])> {
    let (value, rest) = bytes.split_at_checked(value_len(bytes)?)?;
    if value.is_empty() {
        return None;
    }
    Some((Value { bytes: value }, rest))
}

/// Skips whitespace and one `,` after a member or element.
fn skip_separator(bytes: &[u8]) -> &[u8] {
    let bytes = trim_start(bytes);
    bytes.strip_prefix(b",").unwrap_or(bytes)
}

/// A validated JSON value: the exact bytes of the value, without surrounding whitespace. Only [`parse`] and
/// the accessors below create one, so every `Value` is valid JSON.
///
/// Equality compares the bytes: `1.0` and `1`, or `"a"` and `"\u0061"`, are different values.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Value<'a> {
    bytes: &'a [u8],
}

impl<'a> Value<'a> {
    /// The type of the value.
    pub fn kind(&self) -> Kind {
        match self.bytes.first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't') => Kind::True,
            Some(b'f') => Kind::False,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }

    /// The exact JSON text of the value, as it appears in the input (valid UTF-8; may contain `\n`, `\r`
    /// or `\t` as insignificant whitespace inside containers).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// First member of an object whose (unescaped) key equals `key`; `None` for non-objects.
    ///
    /// With duplicate keys this returns the **first** one (serde_json keeps the last). O(size of the object).
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.members().find(|(name, _)| name.eq_str(key)).map(|(_, value)| value)
    }

    /// The members of an object in document order, duplicates included; empty for non-objects.
    pub fn members(&self) -> Members<'a> {
        let rest = match self.kind() {
            Kind::Object => self.bytes.get(1..).unwrap_or(&[]),
            _ => &[],
        };
        Members { rest }
    }

    /// The elements of an array in order; empty for non-arrays.
    pub fn elements(&self) -> Elements<'a> {
        let rest = match self.kind() {
            Kind::Array => self.bytes.get(1..).unwrap_or(&[]),
            _ => &[],
        };
        Elements { rest }
    }

    /// The content of a string (still escaped); `None` for non-strings.
    pub fn as_str(&self) -> Option<JsonStr<'a>> {
        if self.kind() != Kind::String {
            return None;
        }
        let raw = self.bytes.get(1..self.bytes.len().checked_sub(1)?)?;
        Some(JsonStr { raw })
    }

    /// The number as an `i64` if it is written as an integer (no fraction, no exponent) within range.
    /// `-0` gives `Some(0)`.
    pub fn as_i64(&self) -> Option<i64> {
        self.number_text()?.parse().ok()
    }

    /// The number as a `u64` if it is written as a non-negative integer (no fraction, no exponent, no
    /// minus sign) within range.
    pub fn as_u64(&self) -> Option<u64> {
        self.number_text()?.parse().ok()
    }

    /// Any number as the nearest `f64` (correctly rounded); `None` for non-numbers and for numbers whose
    /// magnitude is too large for `f64` (they round to infinity). Tiny numbers round to zero.
    pub fn as_f64(&self) -> Option<f64> {
        let value: f64 = self.number_text()?.parse().ok()?;
        value.is_finite().then_some(value)
    }

    /// `Some(true)` / `Some(false)` for the literals, `None` otherwise.
    pub fn as_bool(&self) -> Option<bool> {
        match self.bytes {
            b"true" => Some(true),
            b"false" => Some(false),
            _ => None,
        }
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        self.bytes == b"null"
    }

    fn number_text(&self) -> Option<&'a str> {
        if self.kind() != Kind::Number {
            return None;
        }
        str::from_utf8(self.bytes).ok()
    }
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match str::from_utf8(self.bytes) {
            Ok(text) => f.debug_tuple("Value").field(&text).finish(),
            Err(_) => f.debug_tuple("Value").field(&self.bytes).finish(),
        }
    }
}

/// Writes the JSON text exactly as it appears in the input.
impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(str::from_utf8(self.bytes).map_err(|_| fmt::Error)?)
    }
}

/// The members of an object: `(key, value)` pairs in document order. Created by [`Value::members`].
#[derive(Clone, Debug)]
pub struct Members<'a> {
    /// The unread part of the object, after `{` or after the last member's `,`.
    rest: &'a [u8],
}

impl<'a> Iterator for Members<'a> {
    type Item = (JsonStr<'a>, Value<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let Some((name, value, rest)) = next_member(self.rest) else {
            self.rest = &[];
            return None;
        };
        self.rest = rest;
        Some((name, value))
    }
}

impl core::iter::FusedIterator for Members<'_> {}

fn next_member(bytes: &[u8]) -> Option<(JsonStr<'_>, Value<'_>, &[u8])> {
    let bytes = trim_start(bytes);
    let name_len = string_len(bytes)?;
    let name = JsonStr { raw: bytes.get(1..name_len.checked_sub(1)?)? };
    let after_name = trim_start(bytes.get(name_len..)?).strip_prefix(b":")?;
    let (value, rest) = split_value(trim_start(after_name))?;
    Some((name, value, skip_separator(rest)))
}

/// The elements of an array in order. Created by [`Value::elements`].
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    /// The unread part of the array, after `[` or after the last element's `,`.
    rest: &'a [u8],
}

impl<'a> Iterator for Elements<'a> {
    type Item = Value<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = trim_start(self.rest);
        let next = match bytes.first() {
            None | Some(b']') => None,
            Some(_) => split_value(bytes),
        };
        let Some((value, rest)) = next else {
            self.rest = &[];
            return None;
        };
        self.rest = skip_separator(rest);
        Some(value)
    }
}

impl core::iter::FusedIterator for Elements<'_> {}

/// A JSON string's content as it appears on the wire (still escaped, without the quotes).
///
/// Equality compares the escaped bytes (`a` and `\u0061` differ); use [`JsonStr::eq_str`] to compare text.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct JsonStr<'a> {
    raw: &'a [u8],
}

impl<'a> JsonStr<'a> {
    /// The escaped bytes without the quotes (valid UTF-8, no raw control characters).
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The text without copying, when the string contains no backslash escape; `None` otherwise
    /// (then use [`chars`](Self::chars), [`unescape_into`](Self::unescape_into) or `Display`).
    pub fn as_plain(&self) -> Option<&'a str> {
        if self.raw.contains(&b'\\') {
            return None;
        }
        str::from_utf8(self.raw).ok()
    }

    /// Whether the unescaped text equals `s`. No allocation, O(length).
    pub fn eq_str(&self, s: &str) -> bool {
        let mut expected = s.as_bytes();
        for piece in self.pieces() {
            let mut encoded = [0u8; 4];
            let bytes = match piece {
                Piece::Text(text) => text.as_bytes(),
                Piece::Char(c) => c.encode_utf8(&mut encoded).as_bytes(),
            };
            match expected.strip_prefix(bytes) {
                Some(rest) => expected = rest,
                None => return false,
            }
        }
        expected.is_empty()
    }

    /// The unescaped characters; a `\uD83D\uDE00` surrogate pair yields one `char`.
    pub fn chars(&self) -> UnescapedChars<'a> {
        UnescapedChars { pieces: self.pieces(), text: "".chars() }
    }

    /// Length of the unescaped text in UTF-8 bytes: the buffer size [`unescape_into`](Self::unescape_into)
    /// needs. Never more than `raw().len()`.
    pub fn unescaped_len(&self) -> usize {
        self.pieces().fold(0usize, |len, piece| {
            let piece_len = match piece {
                Piece::Text(text) => text.len(),
                Piece::Char(c) => c.len_utf8(),
            };
            len.saturating_add(piece_len)
        })
    }

    /// Writes the unescaped text to the start of `buf` and returns it; `None` (with `buf` partly
    /// overwritten) if `buf` is shorter than [`unescaped_len`](Self::unescaped_len).
    pub fn unescape_into<'b>(&self, buf: &'b mut [u8]) -> Option<&'b str> {
        let mut len: usize = 0;
        for piece in self.pieces() {
            let mut encoded = [0u8; 4];
            let bytes = match piece {
                Piece::Text(text) => text.as_bytes(),
                Piece::Char(c) => c.encode_utf8(&mut encoded).as_bytes(),
            };
            let end = len.checked_add(bytes.len())?;
            buf.get_mut(len..end)?.copy_from_slice(bytes);
            len = end;
        }
        let buf: &'b [u8] = buf;
        str::from_utf8(buf.get(..len)?).ok()
    }

    fn pieces(&self) -> Pieces<'a> {
        Pieces { rest: self.raw }
    }
}

impl fmt::Debug for JsonStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match str::from_utf8(self.raw) {
            Ok(text) => f.debug_tuple("JsonStr").field(&text).finish(),
            Err(_) => f.debug_tuple("JsonStr").field(&self.raw).finish(),
        }
    }
}

/// Writes the unescaped text.
impl fmt::Display for JsonStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        for piece in self.pieces() {
            match piece {
                Piece::Text(text) => f.write_str(text)?,
                Piece::Char(c) => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// The unescaped characters of a [`JsonStr`]. Created by [`JsonStr::chars`].
#[derive(Clone, Debug)]
pub struct UnescapedChars<'a> {
    pieces: Pieces<'a>,
    /// The rest of the current run of unescaped text.
    text: str::Chars<'a>,
}

impl Iterator for UnescapedChars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        loop {
            if let Some(c) = self.text.next() {
                return Some(c);
            }
            match self.pieces.next()? {
                Piece::Text(text) => self.text = text.chars(),
                Piece::Char(c) => return Some(c),
            }
        }
    }
}

impl core::iter::FusedIterator for UnescapedChars<'_> {}

/// A run of text without escapes, or the character of one escape.
enum Piece<'a> {
    Text(&'a str),
    Char(char),
}

/// Splits escaped string content into [`Piece`]s. Each step consumes at least one byte.
#[derive(Clone, Debug)]
struct Pieces<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        match self.rest.first()? {
            b'\\' => {
                let (c, used) = decode_escape(self.rest);
                self.rest = self.rest.get(used..).unwrap_or(&[]);
                Some(Piece::Char(c))
            }
            _ => {
                let run = self.rest.iter().position(|&byte| byte == b'\\').unwrap_or(self.rest.len());
                let (text, rest) = self.rest.split_at_checked(run)?;
                self.rest = rest;
                // A backslash is ASCII, so runs of valid UTF-8 split at one stay valid.
                Some(match str::from_utf8(text) {
                    Ok(text) => Piece::Text(text),
                    Err(_) => Piece::Char(char::REPLACEMENT_CHARACTER),
                })
            }
        }
    }
}

/// Decodes the escape at the start of `bytes` (which starts with `\`): the character and the bytes used.
/// A malformed escape (impossible after validation) gives U+FFFD and uses one byte.
fn decode_escape(bytes: &[u8]) -> (char, usize) {
    const MALFORMED: (char, usize) = (char::REPLACEMENT_CHARACTER, 1);
    let c = match bytes.get(1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => return decode_unicode_escape(bytes).unwrap_or(MALFORMED),
        _ => return MALFORMED,
    };
    (c, 2)
}

/// Decodes `\uXXXX`, or `\uD8XX\uDCXX` as one character.
fn decode_unicode_escape(bytes: &[u8]) -> Option<(char, usize)> {
    let unit = hex_code_unit(bytes.get(2..UNICODE_ESCAPE_LEN)?)?;
    if !is_high_surrogate(unit) {
        // A lone low surrogate is not a `char`, so it is rejected here.
        return Some((char::from_u32(u32::from(unit))?, UNICODE_ESCAPE_LEN));
    }
    let pair = bytes.get(UNICODE_ESCAPE_LEN..2 * UNICODE_ESCAPE_LEN)?;
    if !pair.starts_with(b"\\u") {
        return None;
    }
    let low = hex_code_unit(pair.get(2..)?)?;
    if !is_low_surrogate(low) {
        return None;
    }
    let scalar = 0x1_0000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
    Some((char::from_u32(scalar)?, 2 * UNICODE_ESCAPE_LEN))
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn get_returns_the_first_of_duplicate_keys() {
        let value = parse(br#" {"a":1, "b" : "x", "a":2, "\u0061":3} "#, 4).expect("valid");
        assert_eq!(value.kind(), Kind::Object);
        assert_eq!(value.get("a").and_then(|v| v.as_i64()), Some(1));
        assert_eq!(value.get("b").and_then(|v| v.as_str()).and_then(|s| s.as_plain()), Some("x"));
        assert_eq!(value.get("c"), None);
        assert_eq!(value.members().count(), 4);
        let keys: Vec<&[u8]> = value.members().map(|(key, _)| key.raw()).collect();
        assert_eq!(keys, [&b"a"[..], b"b", b"a", b"\\u0061"]);
        // serde_json keeps the last duplicate instead.
        let theirs: serde_json::Value = serde_json::from_slice(value.as_bytes()).expect("valid");
        assert_eq!(theirs["a"], 3);

        let escaped_only = parse(br#"{"\u0061\n":true}"#, 4).expect("valid");
        assert_eq!(escaped_only.get("a\n").and_then(|v| v.as_bool()), Some(true));
        assert_eq!(escaped_only.get("a"), None);
    }

    #[test]
    fn members_and_elements_yield_exact_spans_and_are_empty_for_other_kinds() {
        let array = parse(b"[ 1 ,\"two\" ,[3, [ ]] , {\"four\" : { } } , -5e1,true,null ]", 8).expect("valid");
        let spans: Vec<&[u8]> = array.elements().map(|v| v.as_bytes()).collect();
        assert_eq!(spans, [&b"1"[..], b"\"two\"", b"[3, [ ]]", b"{\"four\" : { } }", b"-5e1", b"true", b"null"]);
        let kinds: Vec<Kind> = array.elements().map(|v| v.kind()).collect();
        assert_eq!(
            kinds,
            [Kind::Number, Kind::String, Kind::Array, Kind::Object, Kind::Number, Kind::True, Kind::Null]
        );
        assert_eq!(array.members().count(), 0);
        assert_eq!(array.get("four"), None);

        let object = parse(br#"{ "k" : [ "]}\"" , "\\" ] , "e" : { } }"#, 8).expect("valid");
        let members: Vec<(&[u8], &[u8])> = object.members().map(|(k, v)| (k.raw(), v.as_bytes())).collect();
        assert_eq!(members, [(&b"k"[..], &br#"[ "]}\"" , "\\" ]"#[..]), (b"e", b"{ }")]);
        assert_eq!(object.elements().count(), 0);

        let empty = parse(b"[]", 1).expect("valid");
        assert_eq!(empty.elements().next(), None);
        let number = parse(b"5", 0).expect("valid");
        assert_eq!((number.members().count(), number.elements().count()), (0, 0));
    }

    #[test]
    fn number_accessors() {
        fn number(text: &str) -> Value<'_> {
            parse(text.as_bytes(), 0).expect("valid number")
        }
        assert_eq!(number("9223372036854775807").as_i64(), Some(i64::MAX));
        assert_eq!(number("-9223372036854775808").as_i64(), Some(i64::MIN));
        assert_eq!(number("9223372036854775808").as_i64(), None);
        assert_eq!(number("9223372036854775808").as_u64(), Some(9_223_372_036_854_775_808));
        assert_eq!(number("18446744073709551615").as_u64(), Some(u64::MAX));
        assert_eq!(number("18446744073709551616").as_u64(), None);
        assert_eq!(number("18446744073709551616").as_f64(), Some(18446744073709551616.0));
        assert_eq!(number("-1").as_u64(), None);
        assert_eq!(number("-0").as_i64(), Some(0));
        assert_eq!(number("-0").as_u64(), None);
        assert_eq!(number("1.0").as_i64(), None);
        assert_eq!(number("1.0").as_f64(), Some(1.0));
        assert_eq!(number("1e2").as_u64(), None);
        assert_eq!(number("1e2").as_f64(), Some(100.0));
        assert_eq!(number("-2.5E-3").as_f64(), Some(-0.0025));
        assert_eq!(number("0.1").as_f64(), Some(0.1));
        // Accepted although out of f64 range (serde_json rejects these): `as_f64` says `None`.
        assert_eq!(number("1e400").as_f64(), None);
        assert_eq!(number("-1e400").as_f64(), None);
        assert!(serde_json::from_str::<serde_json::Value>("1e400").is_err());
        assert_eq!(number("1e-400").as_f64(), Some(0.0));
        let string = parse(b"\"1\"", 0).expect("valid");
        assert_eq!((string.as_i64(), string.as_u64(), string.as_f64()), (None, None, None));
    }

    #[test]
    fn scalar_accessors_check_the_kind() {
        let t = parse(b"true", 0).expect("valid");
        let f = parse(b"false", 0).expect("valid");
        let n = parse(b"null", 0).expect("valid");
        let s = parse(b"\"null\"", 0).expect("valid");
        assert_eq!((t.kind(), t.as_bool(), t.is_null()), (Kind::True, Some(true), false));
        assert_eq!((f.kind(), f.as_bool(), f.is_null()), (Kind::False, Some(false), false));
        assert_eq!((n.kind(), n.as_bool(), n.is_null()), (Kind::Null, None, true));
        assert_eq!((s.kind(), s.as_bool(), s.is_null()), (Kind::String, None, false));
        assert_eq!(t.as_str(), None);
        assert_eq!(s.as_str().map(|s| s.raw()), Some(&b"null"[..]));
    }

    #[test]
    fn json_str_unescapes_without_allocating() {
        let value = parse(br#""a\"b\\c\/d\b\f\n\r\t\u00e9\uD83D\uDE00 \u20AC""#, 0).expect("valid");
        let s = value.as_str().expect("string");
        let expected = "a\"b\\c/d\u{8}\u{c}\n\r\té😀 €";
        assert_eq!(s.chars().collect::<String>(), expected);
        assert_eq!(s.to_string(), expected);
        assert_eq!(s.unescaped_len(), expected.len());
        assert!(s.eq_str(expected));
        assert!(!s.eq_str("a\"b\\c/d"));
        assert!(!s.eq_str(&format!("{expected}!")));
        assert_eq!(s.as_plain(), None);

        let mut exact = vec![0u8; expected.len()];
        assert_eq!(s.unescape_into(&mut exact), Some(expected));
        let mut short = vec![0u8; expected.len() - 1];
        assert_eq!(s.unescape_into(&mut short), None);

        let plain = parse("\"plain é\"".as_bytes(), 0).expect("valid").as_str().expect("string");
        assert_eq!(plain.as_plain(), Some("plain é"));
        assert!(plain.eq_str("plain é"));
        assert!(!plain.eq_str("plain e"));
        let empty = parse(b"\"\"", 0).expect("valid").as_str().expect("string");
        assert_eq!((empty.as_plain(), empty.unescaped_len(), empty.chars().next()), (Some(""), 0, None));
        assert!(empty.eq_str(""));
        assert_eq!(empty.unescape_into(&mut []), Some(""));
    }

    #[test]
    fn debug_and_display_show_text() {
        let value = parse(b" [\"\\n\", 1] ", 1).expect("valid");
        assert_eq!(format!("{value}"), "[\"\\n\", 1]");
        assert_eq!(format!("{value:?}"), r#"Value("[\"\\n\", 1]")"#);
        let s = value.elements().next().and_then(|v| v.as_str()).expect("string");
        assert_eq!(format!("{s:?}"), r#"JsonStr("\\n")"#);
        let error = error_of(b"[[]]", 1);
        assert_eq!(error.to_string(), "invalid JSON: nesting too deep at byte 1");
    }

    // ----- Differential testing against serde_json ------------------------------------------------------

    /// xorshift64: a tiny deterministic PRNG, good enough to pick test cases.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound as u64) as usize
        }

        fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
            &items[self.below(items.len())]
        }
    }

    const GENERATED_MAX_DEPTH: usize = 6;

    fn generate_whitespace(rng: &mut Rng, out: &mut Vec<u8>) {
        if rng.below(4) == 0 {
            for _ in 0..rng.below(3) + 1 {
                out.push(*rng.pick(b" \t\n\r"));
            }
        }
    }

    fn generate_number(rng: &mut Rng, out: &mut Vec<u8>) {
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

    fn generate_string(rng: &mut Rng, out: &mut Vec<u8>) {
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

    fn generate_value(rng: &mut Rng, depth: usize, out: &mut Vec<u8>) {
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

    fn mutate(rng: &mut Rng, doc: &mut Vec<u8>) {
        const INTERESTING: &[u8] = b"{}[],:\"\\ \t\n0123456789-+.eEtrufalsn/bu\
            D8dcF\x00\x01\x1f\x7f\x80\xbf\xc0\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff";
        let byte = if rng.below(5) == 0 { rng.next() as u8 } else { *rng.pick(INTERESTING) };
        let position = rng.below(doc.len() + 1);
        match rng.below(10) {
            0..=3 if position < doc.len() => doc[position] = byte,
            4..=5 => doc.insert(position, byte),
            6..=7 if position < doc.len() => {
                doc.remove(position);
            }
            8 => doc.truncate(position),
            _ => {
                let end = (position + rng.below(8)).min(doc.len());
                let copy = doc[position..end].to_vec();
                let at = rng.below(doc.len() + 1);
                doc.splice(at..at, copy);
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
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
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
                    mutate(&mut rng, &mut mutant);
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
