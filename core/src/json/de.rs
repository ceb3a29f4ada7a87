//! Typed reading of a validated [`Value`] with serde, without an allocator: [`from_value`].
//!
//! Strings are borrowed from the document: `&'de str` when the string has no escape, and
//! [`JsonStr<'de>`] always (escapes included, unescaped when read; mark such a field
//! `#[serde(borrow)]`). An escaped string into a type
//! that takes its text by copy (`heapless::String<N>`, and `String` with `alloc`) is unescaped on
//! the stack, up to [`MAX_UNESCAPED_LEN`] bytes (longer ones into a `String` with `alloc`, the only
//! allocation); into `&'de str` it is an
//! error that says to take a [`JsonStr`]. An error names where it happened
//! ([`DeError::path`]: `location.city`, `items[2]`), so that a model can correct its arguments.

use core::cell::RefCell;
use core::fmt::{self, Write as _};

use serde::de::{self, DeserializeSeed, Visitor};

use super::{JsonStr, Kind, Spans, Value};

/// Longest escaped string unescaped on the stack for a type that copies its text (without `alloc`).
pub const MAX_UNESCAPED_LEN: usize = 256;
/// Path segments an error keeps (the outermost ones are dropped past it, shown as `…`).
pub const MAX_PATH_DEPTH: usize = 8;
/// Longest message an error keeps (truncated past it).
pub const MAX_MESSAGE_LEN: usize = 112;

/// The name of the newtype through which [`JsonStr`] asks this deserializer for the raw text.
const JSON_STR: &str = "$mcp_sansio::json::JsonStr";

/// Reads `value` as a `T`.
///
/// Strings are borrowed from the document: `&'de str` when the string has no escape, and
/// [`JsonStr<'de>`] always (escapes included; mark such a field `#[serde(borrow)]`). An escaped
/// string into a type that copies its text (`heapless::String<N>`, `String`) is unescaped on the
/// stack up to [`MAX_UNESCAPED_LEN`] bytes (longer ones into a `String` with `alloc`, the only
/// allocation); into `&'de str` it is an error. An error names where it happened
/// ([`DeError::path`]), so that a model can correct its arguments.
///
/// ```
/// use mcp_sansio::json::{self, JsonStr, from_value};
///
/// #[derive(serde::Deserialize)]
/// struct Move<'a> {
///     axis: &'a str,
///     steps: i32,
///     #[serde(borrow)] // as serde does by itself for `&str`
///     note: Option<JsonStr<'a>>,
/// }
///
/// let value = json::parse(br#"{"axis":"x","steps":-3,"note":"caf\u00e9"}"#, 8).unwrap();
/// let m: Move<'_> = from_value(value).unwrap();
/// assert_eq!((m.axis, m.steps), ("x", -3));
/// assert!(m.note.unwrap().eq_str("café"));
///
/// let value = json::parse(br#"{"axis":"x","steps":"three"}"#, 8).unwrap();
/// let error = from_value::<Move<'_>>(value).err().unwrap();
/// assert_eq!(error.to_string(), "steps: invalid type: string \"three\", expected i32");
/// ```
#[allow(clippy::result_large_err, reason = "returned once: the recursion inside carries a `Message`")]
pub fn from_value<'de, T: de::Deserialize<'de>>(value: Value<'de>) -> Result<T, DeError<'de>> {
    from_value_in(value, None)
}

/// [`from_value`] of a value of a document the validator recorded (`spans`): objects are walked
/// from the record instead of scanned.
#[allow(clippy::result_large_err, reason = "as `from_value`")]
pub(crate) fn from_value_in<'de, T: de::Deserialize<'de>>(
    value: Value<'de>,
    spans: Option<&'de Spans>,
) -> Result<T, DeError<'de>> {
    let trail = RefCell::new(Where::default());
    T::deserialize(Deserializer { value, trail: &trail, spans })
        .map_err(|message| DeError { at: trail.into_inner(), message: message.0 })
}

/// One step of a path: a member name or an array index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Segment<'de> {
    Key(JsonStr<'de>),
    Index(usize),
}

/// Where an error happened: the path, innermost first (segments are added as it goes up).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Where<'de> {
    path: heapless::Vec<Segment<'de>, MAX_PATH_DEPTH>,
    /// Segments dropped because the path was deeper than [`MAX_PATH_DEPTH`].
    truncated: bool,
}

/// The path of the error going up, shared by the deserializers of one [`from_value`].
type Trail<'p, 'de> = &'p RefCell<Where<'de>>;

fn add<'de>(trail: Trail<'_, 'de>, segment: Segment<'de>) {
    let mut at = trail.borrow_mut();
    if at.path.push(segment).is_err() {
        at.truncated = true;
    }
}

/// Why a value could not be read as the type asked for, and where ([`from_value`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeError<'de> {
    at: Where<'de>,
    message: heapless::String<MAX_MESSAGE_LEN>,
}

impl DeError<'_> {
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
                Segment::Index(index) => write!(f, "[{index}]")?,
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
struct Message(heapless::String<MAX_MESSAGE_LEN>);

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::error::Error for Message {}

impl de::Error for Message {
    fn custom<T: fmt::Display>(message: T) -> Self {
        let mut text = Truncating(heapless::String::new());
        let _ = write!(text, "{message}");
        Message(text.0)
    }
}

/// Writes what fits, then ends with `…`.
struct Truncating(heapless::String<MAX_MESSAGE_LEN>);

impl fmt::Write for Truncating {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if self.0.len() + c.len_utf8() > MAX_MESSAGE_LEN - '…'.len_utf8() {
                if !self.0.ends_with('…') {
                    let _ = self.0.push('…');
                }
                return Ok(());
            }
            let _ = self.0.push(c);
        }
        Ok(())
    }
}

/// The serde deserializer of one [`Value`].
#[derive(Clone, Copy)]
struct Deserializer<'p, 'de> {
    value: Value<'de>,
    trail: Trail<'p, 'de>,
    /// The validator's record of the document, if kept.
    spans: Option<&'de Spans>,
}

impl<'de> Deserializer<'_, 'de> {
    fn unexpected(&self) -> de::Unexpected<'de> {
        match self.value.kind() {
            Kind::Object => de::Unexpected::Map,
            Kind::Array => de::Unexpected::Seq,
            Kind::String => de::Unexpected::Other("string"),
            Kind::Number => de::Unexpected::Other("number"),
            Kind::True => de::Unexpected::Bool(true),
            Kind::False => de::Unexpected::Bool(false),
            Kind::Null => de::Unexpected::Unit,
        }
    }
}

/// Gives `visitor` the text of `s`: borrowed without escapes, unescaped otherwise.
fn visit_text<'de, V: Visitor<'de>>(s: JsonStr<'de>, visitor: V) -> Result<V::Value, Message> {
    if let Some(plain) = s.as_plain() {
        return visitor.visit_borrowed_str(plain);
    }
    let mut buf = [0u8; MAX_UNESCAPED_LEN];
    if let Some(text) = s.unescape_into(&mut buf) {
        return visitor.visit_str(text);
    }
    #[cfg(feature = "alloc")]
    {
        visitor.visit_string(s.chars().collect::<alloc::string::String>())
    }
    #[cfg(not(feature = "alloc"))]
    {
        Err(de::Error::custom(format_args!(
            "a string with escapes longer than {MAX_UNESCAPED_LEN} bytes: take it as a JsonStr"
        )))
    }
}

impl<'de> de::Deserializer<'de> for Deserializer<'_, 'de> {
    type Error = Message;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let value = self.value;
        match value.kind() {
            Kind::Null => visitor.visit_unit(),
            Kind::True => visitor.visit_bool(true),
            Kind::False => visitor.visit_bool(false),
            Kind::Number => {
                if let Some(n) = value.as_i64() {
                    visitor.visit_i64(n)
                } else if let Some(n) = value.as_u64() {
                    visitor.visit_u64(n)
                } else {
                    match value.as_f64() {
                        Some(n) => visitor.visit_f64(n),
                        None => Err(de::Error::custom("a number out of the range of f64")),
                    }
                }
            }
            Kind::String => match value.as_str() {
                Some(s) => visit_text(s, visitor),
                None => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
            },
            Kind::Array => visitor.visit_seq(Elements {
                elements: value.elements(),
                index: 0,
                trail: self.trail,
                spans: self.spans,
            }),
            Kind::Object => {
                let members = match self.spans {
                    Some(spans) => value.members_spanned(spans),
                    None => value.members(),
                };
                visitor.visit_map(Members { members, value: None, trail: self.trail, spans: self.spans })
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if self.value.is_null() { visitor.visit_none() } else { visitor.visit_some(self) }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if name == JSON_STR {
            return match self.value.as_str() {
                Some(s) => visitor.visit_borrowed_bytes(s.raw()),
                None => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
            };
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value.kind() {
            // A unit variant: its name.
            Kind::String => match self.value.as_str() {
                Some(variant) => {
                    visitor.visit_enum(Enum { variant, value: None, trail: self.trail, spans: self.spans })
                }
                None => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
            },
            // `{"variant": value}`.
            Kind::Object => {
                let mut members = self.value.members();
                match (members.next(), members.next()) {
                    (Some((variant, value)), None) => {
                        visitor.visit_enum(Enum { variant, value: Some(value), trail: self.trail, spans: self.spans })
                    }
                    _ => Err(de::Error::custom("an enum as an object of exactly one member")),
                }
            }
            _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// The elements of an array, each error naming its index.
struct Elements<'p, 'de> {
    elements: super::Elements<'de>,
    index: usize,
    trail: Trail<'p, 'de>,
    spans: Option<&'de Spans>,
}

impl<'de> de::SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Message;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Self::Error> {
        let Some(value) = self.elements.next() else { return Ok(None) };
        let index = self.index;
        self.index += 1;
        let (trail, spans) = (self.trail, self.spans);
        seed.deserialize(Deserializer { value, trail, spans })
            .map(Some)
            .inspect_err(|_| add(trail, Segment::Index(index)))
    }
}

/// The members of an object, each error naming its member.
struct Members<'p, 'de> {
    members: super::Members<'de>,
    value: Option<(JsonStr<'de>, Value<'de>)>,
    trail: Trail<'p, 'de>,
    spans: Option<&'de Spans>,
}

impl<'de> de::MapAccess<'de> for Members<'_, 'de> {
    type Error = Message;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        let Some((name, value)) = self.members.next() else { return Ok(None) };
        self.value = Some((name, value));
        seed.deserialize(Key(name)).map(Some).inspect_err(|_| add(self.trail, Segment::Key(name)))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        let Some((name, value)) = self.value.take() else {
            return Err(de::Error::custom("a value asked for before its key"));
        };
        let (trail, spans) = (self.trail, self.spans);
        seed.deserialize(Deserializer { value, trail, spans }).inspect_err(|_| add(trail, Segment::Key(name)))
    }
}

/// A member name: a string, whatever type it is read as (field names, map keys).
struct Key<'de>(JsonStr<'de>);

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Message;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visit_text(self.0, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if name == JSON_STR {
            return visitor.visit_borrowed_bytes(self.0.raw());
        }
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// An enum: its variant's name, and its value for a newtype, tuple or struct variant.
struct Enum<'p, 'de> {
    variant: JsonStr<'de>,
    value: Option<Value<'de>>,
    trail: Trail<'p, 'de>,
    spans: Option<&'de Spans>,
}

impl<'p, 'de> de::EnumAccess<'de> for Enum<'p, 'de> {
    type Error = Message;
    type Variant = Variant<'p, 'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant), Self::Error> {
        let name = self.variant;
        let variant = seed.deserialize(Key(name))?;
        Ok((variant, Variant { name, value: self.value, trail: self.trail, spans: self.spans }))
    }
}

struct Variant<'p, 'de> {
    name: JsonStr<'de>,
    value: Option<Value<'de>>,
    trail: Trail<'p, 'de>,
    spans: Option<&'de Spans>,
}

impl<'p, 'de> Variant<'p, 'de> {
    fn value(&self) -> Result<Deserializer<'p, 'de>, Message> {
        match self.value {
            Some(value) => Ok(Deserializer { value, trail: self.trail, spans: self.spans }),
            None => Err(de::Error::invalid_type(de::Unexpected::UnitVariant, &"a variant with a value")),
        }
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Message;

    fn unit_variant(self) -> Result<(), Self::Error> {
        match self.value {
            None => Ok(()),
            Some(_) => Err(de::Error::invalid_type(de::Unexpected::NewtypeVariant, &"a unit variant")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Self::Error> {
        let (at, trail) = (Segment::Key(self.name), self.trail);
        seed.deserialize(self.value()?).inspect_err(|_| add(trail, at))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        let (at, trail) = (Segment::Key(self.name), self.trail);
        de::Deserializer::deserialize_seq(self.value()?, visitor).inspect_err(|_| add(trail, at))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let (at, trail) = (Segment::Key(self.name), self.trail);
        de::Deserializer::deserialize_map(self.value()?, visitor).inspect_err(|_| add(trail, at))
    }
}

impl<'de: 'a, 'a> de::Deserialize<'de> for JsonStr<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Raw<'a>(core::marker::PhantomData<JsonStr<'a>>);

        impl<'de: 'a, 'a> Visitor<'de> for Raw<'a> {
            type Value = JsonStr<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            // From this module's deserializer: the validated text between the quotes.
            fn visit_borrowed_bytes<E: de::Error>(self, raw: &'de [u8]) -> Result<JsonStr<'a>, E> {
                Ok(JsonStr::from_raw(raw))
            }

            // From another deserializer: text without anything that JSON would escape.
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<JsonStr<'a>, E> {
                if text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
                    return Err(E::custom("a string that needs escapes, from another deserializer"));
                }
                Ok(JsonStr::from_raw(text.as_bytes()))
            }

            fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<JsonStr<'a>, D::Error> {
                d.deserialize_str(self)
            }
        }

        deserializer.deserialize_newtype_struct(JSON_STR, Raw(core::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::string::ToString;

    use serde::Deserialize;

    use super::*;
    use crate::json::parse;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Weather<'a> {
        city: &'a str,
        #[serde(default)]
        days: u8,
        units: Units,
        #[serde(borrow)]
        note: Option<JsonStr<'a>>,
        at: Option<Place>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Units {
        Metric,
        Imperial,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Place {
        lat: f64,
        lon: f64,
        tags: heapless::Vec<heapless::String<16>, 4>,
    }

    #[allow(clippy::result_large_err, reason = "as `from_value`")]
    fn read<'de, T: Deserialize<'de>>(json: &'de str) -> Result<T, DeError<'de>> {
        from_value(parse(json.as_bytes(), 16).unwrap())
    }

    fn error<'de, T: Deserialize<'de> + fmt::Debug>(json: &'de str) -> std::string::String {
        read::<T>(json).unwrap_err().to_string()
    }

    #[test]
    fn structs_enums_options_and_sequences_are_read() {
        let w: Weather<'_> =
            read(r#"{"city":"Oslo","units":"metric","at":{"lat":59.9,"lon":10.75,"tags":["a","b\u0021"]}}"#).unwrap();
        assert_eq!((w.city, w.days, w.note), ("Oslo", 0, None));
        assert_eq!(w.units, Units::Metric);
        let at = w.at.unwrap();
        assert_eq!((at.lat, at.lon), (59.9, 10.75));
        assert_eq!(at.tags.iter().map(|t| t.as_str()).collect::<std::vec::Vec<_>>(), ["a", "b!"]);
        let w: Weather<'_> =
            read(r#"{"city":"x","days":7,"units":"imperial","note":"caf\u00e9 \"ok\"","at":null}"#).unwrap();
        assert!(w.note.unwrap().eq_str("café \"ok\""));
        assert_eq!((w.days, w.units, w.at), (7, Units::Imperial, None));
        // Integers of every width and sign, and tuples.
        let t: (i8, u64, i64, f32, bool, ()) =
            read("[-128, 18446744073709551615, -9223372036854775808, 1.5, true, null]").unwrap();
        assert_eq!(t, (-128, u64::MAX, i64::MIN, 1.5, true, ()));
    }

    #[test]
    fn errors_name_the_member_or_element() {
        assert_eq!(error::<Weather<'_>>(r#"{"units":"metric"}"#), "missing field `city`");
        assert_eq!(
            error::<Weather<'_>>(r#"{"city":1,"units":"metric"}"#),
            "city: invalid type: integer `1`, expected a borrowed string"
        );
        assert_eq!(
            error::<Weather<'_>>(r#"{"city":"x","units":"kelvin"}"#),
            "units: unknown variant `kelvin`, expected `metric` or `imperial`"
        );
        assert_eq!(
            error::<Weather<'_>>(r#"{"city":"x","units":"metric","days":300}"#),
            "days: invalid value: integer `300`, expected u8"
        );
        assert_eq!(
            error::<Weather<'_>>(r#"{"city":"x","units":"metric","at":{"lat":1,"lon":2,"tags":["ok",5]}}"#),
            "at.tags[1]: invalid type: integer `5`, expected a string no more than 16 bytes long"
        );
        assert_eq!(
            error::<Weather<'_>>(r#"{"city":"x","units":"metric","at":{"lat":1,"tags":[]}}"#),
            "at: missing field `lon`"
        );
        assert_eq!(
            error::<Weather<'_>>(r#"{"city":"x","units":"metric","extra":1}"#),
            "extra: unknown field `extra`, expected one of `city`, `days`, `units`, `note`, `at`"
        );
        assert_eq!(error::<Weather<'_>>("true"), "invalid type: boolean `true`, expected struct Weather");
        assert_eq!(error::<u8>("1.5"), "invalid type: floating point `1.5`, expected u8");
        // The text of an escaped string cannot be borrowed: the error says what to take instead.
        let escaped = error::<Weather<'_>>(r#"{"city":"a\"b","units":"metric"}"#);
        assert!(escaped.starts_with("city: invalid type: string \"a\\\"b\""), "{escaped}");
    }

    #[test]
    fn deep_paths_and_long_messages_are_bounded() {
        type Deep = [[[[[[[[[[u8; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1];
        let e = read::<Deep>("[[[[[[[[[[true]]]]]]]]]]").unwrap_err();
        assert_eq!(e.to_string(), "…[0][0][0][0][0][0][0][0]: invalid type: boolean `true`, expected u8");
        let long = std::format!(r#"{{"city":"x","units":"{}"}}"#, "k".repeat(400));
        let e = read::<Weather<'_>>(&long).unwrap_err();
        assert_eq!(e.message().chars().count(), e.message().len() - '…'.len_utf8() + 1);
        assert!(e.message().ends_with('…') && e.message().len() <= MAX_MESSAGE_LEN, "{e}");
        // A long escaped string into a copying type: unescaped on the stack up to the bound
        // (with `alloc`, into a `String`: any length).
        let long = std::format!(r#"["{}\n"]"#, "x".repeat(MAX_UNESCAPED_LEN));
        let read_long = read::<heapless::Vec<heapless::String<512>, 1>>(&long);
        #[cfg(not(feature = "alloc"))]
        assert!(read_long.unwrap_err().to_string().contains("take it as a JsonStr"));
        #[cfg(feature = "alloc")]
        assert_eq!(read_long.unwrap()[0].len(), MAX_UNESCAPED_LEN + 1);
        let fits = std::format!(r#"["{}\n"]"#, "x".repeat(MAX_UNESCAPED_LEN - 1));
        assert!(read::<heapless::Vec<heapless::String<512>, 1>>(&fits).is_ok());
    }

    #[test]
    fn enums_of_every_shape() {
        #[derive(Debug, Deserialize, PartialEq)]
        enum Shape {
            Dot,
            Circle(f64),
            Rect(u32, u32),
            Named { name: heapless::String<8> },
        }
        assert_eq!(read::<Shape>(r#""Dot""#).unwrap(), Shape::Dot);
        assert_eq!(read::<Shape>(r#"{"Circle":2.5}"#).unwrap(), Shape::Circle(2.5));
        assert_eq!(read::<Shape>(r#"{"Rect":[1,2]}"#).unwrap(), Shape::Rect(1, 2));
        assert_eq!(read::<Shape>(r#"{"Named":{"name":"n"}}"#).unwrap(), Shape::Named { name: "n".try_into().unwrap() });
        assert_eq!(error::<Shape>(r#"{"Rect":[1,"x"]}"#), "Rect[1]: invalid type: string \"x\", expected u32");
        assert_eq!(error::<Shape>(r#"{"Dot":1,"Circle":2}"#), "an enum as an object of exactly one member");
        assert!(error::<Shape>(r#"{"Circle":null}"#).starts_with("Circle: invalid type"));
        assert!(error::<Shape>(r#""Circle""#).contains("expected"));
    }
}
