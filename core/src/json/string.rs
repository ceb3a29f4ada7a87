//! [`JsonStr`]: a validated JSON string as it appears on the wire, compared and unescaped without
//! allocating ([`UnescapedChars`], [`JsonStr::unescape_into`]).
//!
//! Re-exported by [`json`](super) and [`json::scan`](super::scan); this module is private.

use core::fmt;
use core::str;

use super::scan::{UNICODE_ESCAPE_LEN, hex_code_unit, is_high_surrogate, is_low_surrogate};

/// A JSON string's content as it appears on the wire (still escaped, without the quotes).
///
/// Equality compares the escaped bytes (`a` and `\u0061` differ); use [`JsonStr::eq_str`] to compare text.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct JsonStr<'a> {
    raw: &'a [u8],
}

impl<'a> JsonStr<'a> {
    /// Wraps the content (between the quotes) of a string that was validated.
    pub(super) const fn from_raw(raw: &'a [u8]) -> Self {
        JsonStr { raw }
    }

    /// The escaped bytes without the quotes (valid UTF-8, no raw control characters).
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The text without copying, when the string contains no backslash escape; `None` otherwise
    /// (then use [`chars`](Self::chars), [`unescape_into`](Self::unescape_into) or `Display`).
    pub fn as_plain(&self) -> Option<&'a str> {
        if self.has_escape() {
            return None;
        }
        str::from_utf8(self.raw).ok()
    }

    /// Whether the string has a backslash escape. The search stops at the first `\` or `"` (its
    /// validated bytes hold no bare `"`), with the crate's own run search instead of `core`'s
    /// `memchr` (smaller code in a firmware; see docs/firmware.md, "Flash").
    pub(crate) fn has_escape(&self) -> bool {
        crate::swar::unquoted_len(self.raw) < self.raw.len()
    }

    /// [`eq_str`](Self::eq_str); `plain`: the string is known to have no escape.
    #[inline]
    pub(crate) fn is(&self, plain: bool, s: &str) -> bool {
        if plain { self.raw == s.as_bytes() } else { self.eq_str(s) }
    }

    /// Whether the unescaped text equals `s`. No allocation, O(length).
    pub fn eq_str(&self, s: &str) -> bool {
        self.eq_bytes(s.as_bytes())
    }

    /// [`JsonStr::eq_str`] of UTF-8 text given as bytes (bytes that are not UTF-8 never match).
    pub(crate) fn eq_bytes(&self, s: &[u8]) -> bool {
        // Without escapes the text is the raw bytes (the common case: member names, methods).
        if !self.has_escape() {
            return self.raw == s;
        }
        let mut expected = s;
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
