//! Header values: reading them from any header map, the `=?base64?…?=` form, and the comparison
//! rules of the 2026-07-28 standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).

use core::fmt;

use crate::json::{Kind, Value};

/// Read access to a request's header fields, by name. Implement it for the header map of any HTTP
/// server (hyper's `HeaderMap`, a parser's fixed array); [`HeaderList`] serves a slice of pairs.
pub trait Headers {
    /// The value of the first field named `name`, compared ASCII-case-insensitively (`name` is
    /// given in lower case), as received (OWS not yet trimmed).
    fn get(&self, name: &str) -> Option<&[u8]>;
    /// How many fields are named `name` (a repeated standard header is a mismatch).
    fn count(&self, name: &str) -> usize {
        usize::from(self.get(name).is_some())
    }
    /// The value of the only field named `name` (`Ok(None)` if there is none), or `Err` with how
    /// many there are if there are several: [`Headers::get`] and [`Headers::count`] in one lookup,
    /// for maps that can do both at once.
    fn get_unique(&self, name: &str) -> Result<Option<&[u8]>, usize> {
        match self.count(name) {
            n if n > 1 => Err(n),
            _ => Ok(self.get(name)),
        }
    }
}

/// [`Headers`] over a slice of `(name, value)` pairs, for servers that parse into arrays.
#[derive(Clone, Copy, Debug)]
pub struct HeaderList<'a>(pub &'a [(&'a str, &'a [u8])]);

impl Headers for HeaderList<'_> {
    fn get(&self, name: &str) -> Option<&[u8]> {
        self.0.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }

    fn count(&self, name: &str) -> usize {
        self.0.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).count()
    }
}

/// Header names this module reads, in lower case.
pub mod name {
    /// The protocol version of the request (every POST after `initialize`, and every 2026-07-28 POST).
    pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    /// The JSON-RPC method (2026-07-28).
    pub const METHOD: &str = "mcp-method";
    /// `params.name` of `tools/call` and `prompts/get`, `params.uri` of `resources/read` (2026-07-28).
    pub const NAME: &str = "mcp-name";
    /// The legacy session.
    pub const SESSION_ID: &str = "mcp-session-id";
    /// The last SSE event a resuming client received.
    pub const LAST_EVENT_ID: &str = "last-event-id";
    /// The origin of a browser request.
    pub const ORIGIN: &str = "origin";
    /// The authority the client addressed.
    pub const HOST: &str = "host";
    /// Accepted media types.
    pub const ACCEPT: &str = "accept";
    /// The body's media type.
    pub const CONTENT_TYPE: &str = "content-type";
    /// The body's length.
    pub const CONTENT_LENGTH: &str = "content-length";
    /// The body's transfer coding.
    pub const TRANSFER_ENCODING: &str = "transfer-encoding";
}

/// The longest decoded value of an `Mcp-*` header compared here (longer values do not match).
pub const MAX_HEADER_VALUE_LEN: usize = 512;

/// Why a header value could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum HeaderValueError {
    /// A byte outside visible ASCII and space (a plain value must be encoded instead).
    InvalidCharacter,
    /// `=?base64?…?=` whose payload is not base64, or not UTF-8 once decoded.
    InvalidEncoding,
    /// Longer than the output buffer ([`MAX_HEADER_VALUE_LEN`] for the standard headers).
    TooLong,
}

impl fmt::Display for HeaderValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HeaderValueError::InvalidCharacter => "header value holds a character that must be base64-encoded",
            HeaderValueError::InvalidEncoding => "header value is not valid =?base64?...?= UTF-8",
            HeaderValueError::TooLong => "header value too long",
        })
    }
}

impl core::error::Error for HeaderValueError {}

/// Trims optional whitespace (spaces and tabs) around a field value.
pub fn trim_ows(value: &[u8]) -> &[u8] {
    let start = value.iter().position(|b| !matches!(b, b' ' | b'\t')).unwrap_or(value.len());
    let end = value.iter().rposition(|b| !matches!(b, b' ' | b'\t')).map_or(start, |i| i + 1);
    value.get(start..end).unwrap_or(&[])
}

/// Decodes an `Mcp-*` header value into `out`: trims OWS, then either decodes the
/// `=?base64?<payload>?=` form (the prefix is matched case-insensitively) or checks that the plain
/// value is visible ASCII and spaces. Returns the decoded UTF-8 text.
pub fn decode_value<'o>(value: &[u8], out: &'o mut [u8]) -> Result<&'o str, HeaderValueError> {
    let value = trim_ows(value);
    let len = match encoded_payload(value) {
        Some(payload) => base64_decode(payload, out)?,
        None => {
            if value.iter().any(|&b| !(b == b' ' || b.is_ascii_graphic())) {
                return Err(HeaderValueError::InvalidCharacter);
            }
            let dst = out.get_mut(..value.len()).ok_or(HeaderValueError::TooLong)?;
            dst.copy_from_slice(value);
            value.len()
        }
    };
    let decoded = out.get(..len).unwrap_or(&[]);
    core::str::from_utf8(decoded).map_err(|_| HeaderValueError::InvalidEncoding)
}

/// Encodes `text` as an `Mcp-*` header value into `out`, as a client sends it (the inverse of
/// [`decode_value`]): as it is when it is visible ASCII and spaces with no leading or trailing
/// whitespace, else as `=?base64?<base64 of its UTF-8>?=`, as is a plain text that would read as
/// that form. [`HeaderValueError::TooLong`] when `out` is too small.
pub fn encode_value<'o>(text: &str, out: &'o mut [u8]) -> Result<&'o [u8], HeaderValueError> {
    let bytes = text.as_bytes();
    let plain = bytes.iter().all(|&b| b == b' ' || b.is_ascii_graphic())
        && trim_ows(bytes).len() == bytes.len()
        && encoded_payload(bytes).is_none();
    if plain {
        let dst = out.get_mut(..bytes.len()).ok_or(HeaderValueError::TooLong)?;
        dst.copy_from_slice(bytes);
        return Ok(dst);
    }
    const PREFIX: &[u8] = b"=?base64?";
    let len = PREFIX.len() + bytes.len().div_ceil(3) * 4 + 2;
    let dst = out.get_mut(..len).ok_or(HeaderValueError::TooLong)?;
    let (head, rest) = dst.split_at_mut(PREFIX.len());
    head.copy_from_slice(PREFIX);
    let (body, tail) = rest.split_at_mut(rest.len() - 2);
    for (input, output) in bytes.chunks(3).zip(body.chunks_exact_mut(4)) {
        output.copy_from_slice(&crate::json::encode_base64_chunk(input));
    }
    tail.copy_from_slice(b"?=");
    Ok(dst)
}

/// Room for one decoded `=?base64?…?=` value: zeroed only when such a value is decoded.
pub(crate) type Scratch = Option<[u8; MAX_HEADER_VALUE_LEN]>;

/// [`decode_value`] with a buffer of [`MAX_HEADER_VALUE_LEN`] bytes, as bytes: a plain value is
/// checked and borrowed (visible ASCII is UTF-8 as it is), and only the `=?base64?…?=` form, which
/// starts with `=?`, is decoded (into `scratch`) and checked to be UTF-8.
pub(crate) fn decode_bytes<'v>(value: &'v [u8], scratch: &'v mut Scratch) -> Result<&'v [u8], HeaderValueError> {
    let value = trim_ows(value);
    if value.starts_with(b"=?")
        && let Some(payload) = encoded_payload(value)
    {
        let out = scratch.insert([0; MAX_HEADER_VALUE_LEN]);
        let len = base64_decode(payload, out)?;
        let decoded = out.get(..len).unwrap_or(&[]);
        return match core::str::from_utf8(decoded) {
            Ok(_) => Ok(decoded),
            Err(_) => Err(HeaderValueError::InvalidEncoding),
        };
    }
    // Visible ASCII and spaces, checked without a branch per byte.
    if !value.iter().fold(true, |ok, &b| ok & (b.wrapping_sub(b' ') < 0x5f)) {
        return Err(HeaderValueError::InvalidCharacter);
    }
    if value.len() > MAX_HEADER_VALUE_LEN {
        return Err(HeaderValueError::TooLong);
    }
    Ok(value)
}

/// The payload of `=?base64?<payload>?=`, if `value` has that form.
fn encoded_payload(value: &[u8]) -> Option<&[u8]> {
    const PREFIX: &[u8] = b"=?base64?";
    let head = value.get(..PREFIX.len())?;
    if !head.eq_ignore_ascii_case(PREFIX) || !value.ends_with(b"?=") || value.len() < PREFIX.len() + 2 {
        return None;
    }
    value.get(PREFIX.len()..value.len() - 2)
}

fn base64_digit(b: u8) -> Option<u32> {
    Some(u32::from(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    }))
}

/// Standard base64 with its padding (RFC 4648 §4; SEP-2243 refuses unpadded values) into `out`;
/// returns the decoded length.
fn base64_decode(input: &[u8], out: &mut [u8]) -> Result<usize, HeaderValueError> {
    if !input.len().is_multiple_of(4) {
        return Err(HeaderValueError::InvalidEncoding);
    }
    let data = match input.iter().position(|&b| b == b'=') {
        Some(pad) => {
            let padding = input.get(pad..).unwrap_or(&[]);
            if padding.len() > 2 || padding.iter().any(|&b| b != b'=') {
                return Err(HeaderValueError::InvalidEncoding);
            }
            input.get(..pad).unwrap_or(&[])
        }
        None => input,
    };
    let mut written = 0;
    for chunk in data.chunks(4) {
        let mut acc = 0u32;
        for &b in chunk {
            acc = (acc << 6) | base64_digit(b).ok_or(HeaderValueError::InvalidEncoding)?;
        }
        let bytes = chunk.len() * 6 / 8;
        acc <<= 6 * (4 - chunk.len() as u32);
        let all = acc.to_be_bytes();
        let dst = out.get_mut(written..written + bytes).ok_or(HeaderValueError::TooLong)?;
        dst.copy_from_slice(all.get(1..1 + bytes).unwrap_or(&[]));
        written += bytes;
    }
    Ok(written)
}

/// Whether the decoded header text `header` stands for the JSON value `value`: strings compare
/// exactly (case-sensitively), integers numerically (`"042"` is 42), booleans as `true`/`false`.
/// Other kinds (null, numbers with fractions, objects, arrays) never match: the header must be
/// omitted for them.
pub fn matches_value(header: &str, value: Value<'_>) -> bool {
    matches_bytes(header.as_bytes(), value)
}

/// [`matches_value`] of decoded header text given as bytes (bytes that are not UTF-8 never match).
pub(crate) fn matches_bytes(header: &[u8], value: Value<'_>) -> bool {
    match value.kind() {
        Kind::String => value.as_str().is_some_and(|s| s.eq_bytes(header)),
        Kind::True | Kind::False => value.as_bool().is_some_and(|b| header == if b { &b"true"[..] } else { b"false" }),
        Kind::Number => match (value.as_i64(), parse_integer(header)) {
            (Some(expected), Some(got)) => expected == got,
            _ => false,
        },
        _ => false,
    }
}

/// A decimal integer with an optional sign.
fn parse_integer(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.first()? {
        b'-' => (true, text.get(1..)?),
        b'+' => (false, text.get(1..)?),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.iter().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut n: i64 = 0;
    for &b in digits {
        n = n.checked_mul(10)?.checked_sub(i64::from(b - b'0'))?;
    }
    if negative { Some(n) } else { n.checked_neg() }
}

#[cfg(test)]
mod tests {
    #[test]
    fn encoded_values_decode_to_what_was_encoded() {
        let mut out = [0u8; 128];
        let mut back = [0u8; 128];
        for (text, plain) in [
            ("tools/call", true),
            ("a b", true),
            ("", true),
            (" leading", false),
            ("trailing\t", false),
            ("héllo", false),
            ("line\nbreak", false),
            ("=?base64?aGk=?=", false),
            ("=?BASE64?x?=", false),
        ] {
            let encoded = encode_value(text, &mut out).unwrap().to_vec();
            assert_eq!(encoded == text.as_bytes(), plain, "{text:?} -> {:?}", core::str::from_utf8(&encoded));
            assert_eq!(decode_value(&encoded, &mut back), Ok(text), "{text:?}");
        }
        assert_eq!(encode_value("héllo", &mut out[..10]), Err(HeaderValueError::TooLong));
        assert_eq!(encode_value("plain", &mut out[..4]), Err(HeaderValueError::TooLong));
    }

    use super::*;

    fn decode(value: &str) -> Result<std::string::String, HeaderValueError> {
        let mut out = [0u8; 64];
        decode_value(value.as_bytes(), &mut out).map(std::string::String::from)
    }

    #[test]
    fn plain_values_are_trimmed_and_must_be_visible_ascii() {
        assert_eq!(decode("  tools/call\t").unwrap(), "tools/call");
        assert_eq!(decode("a b").unwrap(), "a b");
        assert_eq!(decode("caf\u{e9}"), Err(HeaderValueError::InvalidCharacter));
        assert_eq!(decode("a\u{7f}"), Err(HeaderValueError::InvalidCharacter));
        assert_eq!(decode(&"x".repeat(65)), Err(HeaderValueError::TooLong));
    }

    #[test]
    fn base64_values_decode_to_utf8() {
        // "café" and " lead" (leading whitespace must be encoded).
        assert_eq!(decode("=?base64?Y2Fmw6k=?=").unwrap(), "caf\u{e9}");
        assert_eq!(decode("=?BASE64?IGxlYWQ=?=").unwrap(), " lead");
        assert_eq!(decode("=?base64?SGVsbG8?="), Err(HeaderValueError::InvalidEncoding), "padding is required");
        assert_eq!(decode("=?base64??=").unwrap(), "");
        assert_eq!(decode("=?base64?!!!!?="), Err(HeaderValueError::InvalidEncoding));
        assert_eq!(decode("=?base64?YQ=a?="), Err(HeaderValueError::InvalidEncoding));
        assert_eq!(decode("=?base64?/w==?="), Err(HeaderValueError::InvalidEncoding), "0xff is not UTF-8");
        assert_eq!(decode("=?base64?Y?="), Err(HeaderValueError::InvalidEncoding));
        // Not the encoded form: taken as plain text.
        assert_eq!(decode("=?base64?").unwrap(), "=?base64?");
    }

    #[test]
    fn values_compare_by_their_json_kind() {
        let parse = |s: &'static str| crate::json::parse(s.as_bytes(), 8).unwrap();
        assert!(matches_value("Tool", parse("\"Tool\"")));
        assert!(!matches_value("tool", parse("\"Tool\"")));
        assert!(matches_value("042", parse("42")));
        assert!(matches_value("-7", parse("-7")));
        assert!(!matches_value("4.0", parse("4")));
        assert!(!matches_value("1.5", parse("1.5")));
        assert!(matches_value("true", parse("true")));
        assert!(!matches_value("True", parse("true")));
        assert!(!matches_value("null", parse("null")));
        assert!(matches_value("+42", parse("42")) && matches_value("-42", parse("-42")));
        assert!(!matches_value("99999999999999999999", parse("1")));
    }

    #[test]
    fn a_header_list_is_case_insensitive_and_counts_repeats() {
        let pairs: [(&str, &[u8]); 3] = [("Mcp-Method", b"a"), ("MCP-METHOD", b"b"), ("Host", b"h")];
        let list = HeaderList(&pairs);
        assert_eq!(list.get(name::METHOD), Some(&b"a"[..]));
        assert_eq!(list.count(name::METHOD), 2);
        assert_eq!(list.count(name::NAME), 0);
        assert_eq!(list.get_unique(name::METHOD), Err(2));
        assert_eq!(list.get_unique(name::HOST), Ok(Some(&b"h"[..])));
        assert_eq!(list.get_unique(name::NAME), Ok(None));
    }

    #[test]
    fn a_map_without_its_own_count_counts_what_get_finds() {
        struct One;
        impl Headers for One {
            fn get(&self, name: &str) -> Option<&[u8]> {
                (name == name::HOST).then_some(&b"h"[..])
            }
        }
        assert_eq!(One.count(name::HOST), 1);
        assert_eq!(One.count(name::METHOD), 0);
    }

    #[test]
    fn only_the_whole_encoded_form_is_decoded() {
        // The prefix without the suffix, and the suffix without the prefix, are plain values.
        assert_eq!(decode("=?base64?abc").unwrap(), "=?base64?abc");
        assert_eq!(decode("abcdefghij?=").unwrap(), "abcdefghij?=");
        assert_eq!(decode("=?base64?=").unwrap(), "=?base64?=");
        assert_eq!(decode("=?BASE64?aGk=?=").unwrap(), "hi");
        // The two digits beyond letters and numbers.
        assert_eq!(decode("=?base64?fn5+Pz8/?=").unwrap(), "~~~???");
    }

    #[test]
    fn decoding_to_bytes_is_decoding() {
        let long = |n: usize| "x".repeat(n);
        let encoded = |n: usize| std::format!("=?base64?{}?=", "eHh4".repeat(n));
        for value in [
            "  tools/call\t",
            "a b",
            "caf\u{e9}",
            "a\u{7f}",
            "=?base64?Y2Fmw6k=?=",
            "=?BASE64?IGxlYWQ=?=",
            "=?base64?SGVsbG8?=",
            "=?base64??=",
            "=?base64?!!!!?=",
            "=?base64?/w==?=",
            "=?base64?",
            "=?base64?abc",
            "abcdefghij?=",
            "=?base64?=",
            "=?x",
            "",
            " ",
            "\x1f",
            "~",
        ]
        .iter()
        .map(|v| std::string::String::from(*v))
        .chain([long(512), long(513), encoded(170), encoded(171)])
        {
            let mut out = [0u8; MAX_HEADER_VALUE_LEN];
            let expected = decode_value(value.as_bytes(), &mut out).map(|s| s.as_bytes().to_vec());
            let mut scratch = None;
            assert_eq!(decode_bytes(value.as_bytes(), &mut scratch).map(<[u8]>::to_vec), expected, "{value:?}");
        }
    }

    #[test]
    fn header_value_errors_display() {
        use std::string::ToString;
        assert_eq!(HeaderValueError::TooLong.to_string(), "header value too long");
        assert!(HeaderValueError::InvalidCharacter.to_string().contains("base64-encoded"));
        assert!(HeaderValueError::InvalidEncoding.to_string().contains("=?base64?...?="));
    }
}
