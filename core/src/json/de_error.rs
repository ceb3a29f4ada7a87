//! The error of [`from_value`](super::from_value): [`DeError`], the path it names, and its message.
//!
//! A message says what was found and what was expected, in serde's words (`invalid type: string
//! "three", expected i32`), but is written without what serde's defaults pull into a firmware:
//! `Unexpected`'s `Display` formats floats (`{}` of an `f64`, about 10 KB on a Cortex-M3) and
//! escapes strings with `{:?}` (the Unicode printable tables, about 2 KB). [`Message`] overrides
//! `invalid_type` and `invalid_value`: integers go through [`Decimal`], strings through
//! [`write_quoted`] (quotes, backslashes and control characters escaped, as `{:?}` does them), and a
//! float a visitor refuses is named without its value. A float reaches a visitor only from a type
//! that asks for one or for anything (`deserialize_any`); a number the deserializer itself refuses
//! is shown by its text in the document ([`Found`]).

use core::cell::RefCell;
use core::fmt::{self, Write as _};

use serde::de::{self, Expected, Unexpected};

use super::{JsonStr, Kind, Value};
use crate::num::{Decimal, SignedDecimal};
use crate::text::Plain;

/// Path segments an error keeps (the outermost ones are dropped past it, shown as `…`).
pub const MAX_PATH_DEPTH: usize = 8;
/// Longest message an error keeps, in bytes: a longer one is cut, ending with `…`, within them.
pub const MAX_MESSAGE_LEN: usize = 112;

/// One step of a path: a member name or an array index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Segment<'de> {
    Key(JsonStr<'de>),
    Index(usize),
}

/// Where an error happened: the path, innermost first (segments are added as it goes up).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Where<'de> {
    path: heapless::Vec<Segment<'de>, MAX_PATH_DEPTH>,
    /// Segments dropped because the path was deeper than [`MAX_PATH_DEPTH`].
    truncated: bool,
}

/// The path of the error going up, shared by the deserializers of one [`from_value`](super::from_value).
pub(super) type Trail<'p, 'de> = &'p RefCell<Where<'de>>;

/// Adds `segment` to the path going up (past [`MAX_PATH_DEPTH`], marks it truncated).
pub(super) fn add<'de>(trail: Trail<'_, 'de>, segment: Segment<'de>) {
    let mut at = trail.borrow_mut();
    if at.path.push(segment).is_err() {
        at.truncated = true;
    }
}

/// Why a value could not be read as the type asked for, and where ([`from_value`](super::from_value)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeError<'de> {
    at: Where<'de>,
    message: heapless::String<MAX_MESSAGE_LEN>,
}

impl<'de> DeError<'de> {
    /// The error `message` found at `at`.
    pub(super) fn new(at: Where<'de>, message: Message) -> Self {
        DeError { at, message: message.0 }
    }

    /// An error of the value itself.
    pub(crate) fn of_value(message: &str) -> Self {
        DeError { at: Where::default(), message: <Message as de::Error>::custom(message).0 }
    }

    /// The serde message, without the path (`missing field \`city\``).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where it happened (`location.city`, `items[2]`; empty for the value itself).
    pub fn path(&self) -> impl fmt::Display + '_ {
        Path(&self.at)
    }
}

struct Path<'e, 'de>(&'e Where<'de>);

impl fmt::Display for Path<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.truncated {
            f.write_str("…")?;
        }
        for (i, segment) in self.0.path.iter().rev().enumerate() {
            match segment {
                Segment::Key(key) if i == 0 && !self.0.truncated => write!(f, "{key}")?,
                Segment::Key(key) => write!(f, ".{key}")?,
                Segment::Index(index) => write!(f, "[{}]", Decimal(*index as u64))?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for DeError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.at.path.is_empty() {
            write!(f, "{}: ", self.path())?;
        }
        f.write_str(&self.message)
    }
}

impl core::error::Error for DeError<'_> {}

/// The error inside the recursion: the message only, the path going to the [`Trail`] (a small
/// error keeps each level's return slot small on a firmware's stack).
#[derive(Debug)]
pub(super) struct Message(heapless::String<MAX_MESSAGE_LEN>);

impl Message {
    /// `invalid type: {found}, expected {expected}`: the value is not of a kind the type reads.
    pub(super) fn invalid_type_of(found: Value<'_>, expected: &dyn Expected) -> Self {
        de::Error::custom(format_args!("invalid type: {}, expected {}", Found(found), expected))
    }

    /// `invalid value: {found}, expected {expected}`: of the right kind, but not one the type holds.
    pub(super) fn invalid_value_of(found: Value<'_>, expected: &dyn Expected) -> Self {
        de::Error::custom(format_args!("invalid value: {}, expected {}", Found(found), expected))
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::error::Error for Message {}

impl de::Error for Message {
    fn custom<T: fmt::Display>(message: T) -> Self {
        let mut text = Truncating { text: heapless::String::new(), cut: false };
        let _ = write!(text, "{message}");
        Message(text.text)
    }

    // serde's words, without float formatting or string escape tables (see the module docs).
    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        Self::custom(format_args!("invalid type: {}, expected {}", Unexp(unexpected), expected))
    }

    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        Self::custom(format_args!("invalid value: {}, expected {}", Unexp(unexpected), expected))
    }

    fn missing_field(field: &'static str) -> Self {
        Self::custom(format_args!("missing field `{}`", Plain(field)))
    }

    fn duplicate_field(field: &'static str) -> Self {
        Self::custom(format_args!("duplicate field `{}`", Plain(field)))
    }

    fn invalid_length(len: usize, expected: &dyn Expected) -> Self {
        Self::custom(format_args!("invalid length {}, expected {}", Decimal(len as u64), expected))
    }
}

/// Writes a message whole if it fits [`MAX_MESSAGE_LEN`] bytes; a longer one is cut, ending with
/// `…`, within the same bytes.
struct Truncating {
    text: heapless::String<MAX_MESSAGE_LEN>,
    /// The message was longer: the rest of it is dropped.
    cut: bool,
}

impl fmt::Write for Truncating {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.cut {
            return Ok(());
        }
        for c in s.chars() {
            if self.text.push(c).is_err() {
                while self.text.len() + '…'.len_utf8() > MAX_MESSAGE_LEN {
                    self.text.pop();
                }
                let _ = self.text.push('…');
                self.cut = true;
                return Ok(());
            }
        }
        Ok(())
    }
}

/// serde's `Unexpected` in serde's words, but a float without its value (no float formatting) and
/// a string escaped by [`write_quoted`] (no Unicode tables).
struct Unexp<'a>(Unexpected<'a>);

impl fmt::Display for Unexp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Unexpected::Bool(b) => write!(f, "boolean `{}`", Plain::bool(b)),
            Unexpected::Unsigned(n) => write!(f, "integer `{}`", Decimal(n)),
            Unexpected::Signed(n) => write!(f, "integer `{}`", SignedDecimal(n)),
            Unexpected::Float(_) => f.write_str("floating point"),
            Unexpected::Char(c) => {
                f.write_str("character `")?;
                f.write_char(c)?;
                f.write_char('`')
            }
            Unexpected::Str(s) => {
                f.write_str("string ")?;
                write_quoted(f, &mut s.chars())
            }
            Unexpected::Bytes(_) => f.write_str("byte array"),
            Unexpected::Unit => f.write_str("unit value"),
            Unexpected::Option => f.write_str("Option value"),
            Unexpected::NewtypeStruct => f.write_str("newtype struct"),
            Unexpected::Seq => f.write_str("sequence"),
            Unexpected::Map => f.write_str("map"),
            Unexpected::Enum => f.write_str("enum"),
            Unexpected::UnitVariant => f.write_str("unit variant"),
            Unexpected::NewtypeVariant => f.write_str("newtype variant"),
            Unexpected::TupleVariant => f.write_str("tuple variant"),
            Unexpected::StructVariant => f.write_str("struct variant"),
            Unexpected::Other(other) => f.write_str(other),
        }
    }
}

/// A value of the document in the words of [`Unexp`], a number by its text (`integer \`300\``,
/// `floating point \`1e3\``: no float is parsed or formatted).
struct Found<'de>(Value<'de>);

impl fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.0;
        let unexpected = match value.kind() {
            Kind::Number => {
                // Validated JSON: ASCII.
                let text = core::str::from_utf8(value.as_bytes()).unwrap_or_default();
                let float = text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
                let kind = if float { "floating point" } else { "integer" };
                return write!(f, "{} `{}`", Plain(kind), Plain(text));
            }
            Kind::String => {
                f.write_str("string ")?;
                return match value.as_str() {
                    Some(s) => write_quoted(f, &mut s.chars()),
                    None => Ok(()),
                };
            }
            Kind::True => Unexpected::Bool(true),
            Kind::False => Unexpected::Bool(false),
            Kind::Null => Unexpected::Unit,
            Kind::Array => Unexpected::Seq,
            Kind::Object => Unexpected::Map,
        };
        Unexp(unexpected).fmt(f)
    }
}

/// Writes `chars` between double quotes, escaping as `{:?}` of a `str` does for quotes, backslashes
/// and control characters (`\"`, `\\`, `\n`, `\u{1b}`); every other character as it is.
fn write_quoted(f: &mut fmt::Formatter<'_>, chars: &mut dyn Iterator<Item = char>) -> fmt::Result {
    f.write_char('"')?;
    for c in chars {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\0' => f.write_str("\\0")?,
            c if c.is_control() => {
                // `\u{1f}`: lowercase hex digits without leading zeros.
                f.write_str("\\u{")?;
                let code = u32::from(c);
                let digits = (32 - code.leading_zeros()).div_ceil(4).max(1);
                for shift in (0..digits).rev() {
                    f.write_char(char::from_digit((code >> (shift * 4)) & 0xf, 16).unwrap_or('0'))?;
                }
                f.write_char('}')?
            }
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

#[cfg(test)]
mod tests {
    use std::string::ToString;
    use std::{format, vec};

    use super::*;

    /// The message of `invalid_type(unexpected, "x")`, and serde's own (`Unexpected`'s `Display`).
    fn both(unexpected: Unexpected<'_>) -> (std::string::String, std::string::String) {
        let ours = <Message as de::Error>::invalid_type(unexpected, &"x").to_string();
        (ours, format!("invalid type: {unexpected}, expected x"))
    }

    #[test]
    fn unexpected_values_are_shown_in_serdes_words() {
        let mut same = vec![
            Unexpected::Bool(true),
            Unexpected::Unsigned(u64::MAX),
            Unexpected::Signed(i64::MIN),
            Unexpected::Signed(-1),
            Unexpected::Signed(0),
            Unexpected::Signed(i64::MAX),
            Unexpected::Char('é'),
            Unexpected::Bytes(b"ab"),
            Unexpected::Unit,
            Unexpected::Option,
            Unexpected::NewtypeStruct,
            Unexpected::Seq,
            Unexpected::Map,
            Unexpected::Enum,
            Unexpected::UnitVariant,
            Unexpected::NewtypeVariant,
            Unexpected::TupleVariant,
            Unexpected::StructVariant,
            Unexpected::Other("a thing"),
        ];
        // Strings: escaped as `{:?}` escapes them, for everything but the Unicode tables' cases.
        for s in [
            "",
            "plain",
            "café ☕",
            "a\"b\\c",
            "tab\tnew\nret\r",
            "nul\0 esc\u{1b} del\u{7f} c1\u{85}",
            "\u{1}\u{1f}\u{9f}",
            "it's",
        ] {
            same.push(Unexpected::Str(s));
        }
        for unexpected in same {
            let (ours, theirs) = both(unexpected);
            assert_eq!(ours, theirs);
        }
        // A float without its value: no float formatting.
        assert_eq!(both(Unexpected::Float(1.5)).0, "invalid type: floating point, expected x");
        let value = <Message as de::Error>::invalid_value(Unexpected::Signed(-300), &"i8").to_string();
        assert_eq!(value, "invalid value: integer `-300`, expected i8");
        let length = <Message as de::Error>::invalid_length(70_000, &"a pair").to_string();
        assert_eq!(length, "invalid length 70000, expected a pair");
        let missing = <Message as de::Error>::missing_field("city").to_string();
        assert_eq!(missing, "missing field `city`");
        let duplicate = <Message as de::Error>::duplicate_field("city").to_string();
        assert_eq!(duplicate, "duplicate field `city`");
    }

    #[test]
    fn a_message_of_max_message_len_bytes_is_kept_whole_and_a_longer_one_cut() {
        let custom = |text: &str| <Message as de::Error>::custom(text).to_string();
        let at = "x".repeat(MAX_MESSAGE_LEN);
        assert_eq!(custom(&at), at);
        let cut = custom(&format!("{at}y"));
        assert_eq!(cut, format!("{}…", &at[..MAX_MESSAGE_LEN - '…'.len_utf8()]));
        // A character is never split.
        let wide = custom(&format!("{}éé", "x".repeat(MAX_MESSAGE_LEN - 3)));
        assert_eq!(wide, format!("{}…", "x".repeat(MAX_MESSAGE_LEN - 3)));
        assert!(wide.len() <= MAX_MESSAGE_LEN);
        // Written in pieces, as `format_args!` writes: the same.
        assert_eq!(<Message as de::Error>::custom(format_args!("{at}{}", "")).to_string(), at);
        assert_eq!(<Message as de::Error>::custom(format_args!("{at}{}", "z")).to_string(), cut);
    }

    #[test]
    fn values_of_the_document_are_shown_by_their_text() {
        let shown = |json: &str| {
            let value = crate::json::parse(json.as_bytes(), 4).unwrap();
            Message::invalid_type_of(value, &"x").to_string()
        };
        assert_eq!(shown("-12"), "invalid type: integer `-12`, expected x");
        assert_eq!(shown("1.50"), "invalid type: floating point `1.50`, expected x");
        assert_eq!(shown("2E-3"), "invalid type: floating point `2E-3`, expected x");
        assert_eq!(shown(r#""a\"b\u00e9\n""#), "invalid type: string \"a\\\"bé\\n\", expected x");
        assert_eq!(shown("true"), "invalid type: boolean `true`, expected x");
        assert_eq!(shown("false"), "invalid type: boolean `false`, expected x");
        assert_eq!(shown("null"), "invalid type: unit value, expected x");
        assert_eq!(shown("[1]"), "invalid type: sequence, expected x");
        assert_eq!(shown("{}"), "invalid type: map, expected x");
        let value = crate::json::parse(b"123456789012345678901234567890", 4).unwrap();
        assert_eq!(
            Message::invalid_value_of(value, &"u64").to_string(),
            "invalid value: integer `123456789012345678901234567890`, expected u64"
        );
    }
}
