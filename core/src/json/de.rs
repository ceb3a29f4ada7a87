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
//!
//! A type gets the kind of value it asks for (`bool`, an integer, a string, `null` for `()`, an
//! array for a sequence or tuple, an object for a map or struct) or an error that names what was
//! found and what was expected (`invalid type: string "three", expected i32`). Numbers are read as
//! floats only for `f32`, `f64` and types that read any value (`deserialize_any`): a firmware whose
//! arguments have no float carries no float parser. Messages are written without float formatting
//! or string escape tables either ([`super::de_error`]).

use core::cell::RefCell;
use core::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

use super::de_error::{Message, Segment, Trail, Where, add};
use super::{DeError, JsonStr, Kind, Spans, Value};

/// Longest escaped string unescaped on the stack for a type that copies its text (without `alloc`).
pub const MAX_UNESCAPED_LEN: usize = 256;

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
        .map_err(|message| DeError::new(trail.into_inner(), message))
}

/// The serde deserializer of one [`Value`].
#[derive(Clone, Copy)]
struct Deserializer<'p, 'de> {
    value: Value<'de>,
    trail: Trail<'p, 'de>,
    /// The validator's record of the document, if kept.
    spans: Option<&'de Spans>,
}

/// What a type reads, as [`Deserializer`] dispatches it.
///
/// A type that asks for one kind of value gets it or an error that names what was found
/// ([`Message::invalid_type_of`]), without its visitor's other methods being part of the program.
/// Only [`deserialize_any`](de::Deserializer::deserialize_any), `f32` and `f64` read a number with a
/// fraction or an exponent, or beyond 64 bits, as an `f64`: only they make the float parser part of
/// the program. For any other type such a number is an error (`invalid type: floating point
/// \`1.5\`, expected u8`; `invalid value: integer \`99999999999999999999\`, expected u64`), as it
/// would be from the type's visitor.
impl<'de> Deserializer<'_, 'de> {
    /// Gives `visitor` the value as what it is; a number that is not a 64-bit integer as an `f64`
    /// if `FLOATS`, as an error otherwise.
    fn visit<const FLOATS: bool, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        match self.value.kind() {
            Kind::Null => visitor.visit_unit(),
            Kind::True => visitor.visit_bool(true),
            Kind::False => visitor.visit_bool(false),
            Kind::Number => self.visit_number::<FLOATS, V>(visitor),
            Kind::String => self.visit_string(visitor),
            Kind::Array => self.visit_elements(visitor),
            Kind::Object => self.visit_members(visitor),
        }
    }

    /// [`Self::visit`] without floats, for bytes and identifiers: their visitors take more than one
    /// kind (a field's identifier is its name or its index).
    fn visit_no_float<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        self.visit::<false, V>(visitor)
    }

    /// A number as `visit_i64`, else `visit_u64`, else (if `FLOATS`) `visit_f64`.
    fn visit_number<const FLOATS: bool, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        let value = self.value;
        if let Some(n) = value.as_i64() {
            visitor.visit_i64(n)
        } else if let Some(n) = value.as_u64() {
            visitor.visit_u64(n)
        } else if FLOATS {
            match value.as_f64() {
                Some(n) => visitor.visit_f64(n),
                None => Err(de::Error::custom("a number out of the range of f64")),
            }
        } else {
            Err(self.not_an_integer(&visitor))
        }
    }

    fn visit_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        match self.value.as_str() {
            Some(s) => visit_text(s, visitor),
            None => Err(self.invalid_type(&visitor)),
        }
    }

    fn visit_elements<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        let (trail, spans) = (self.trail, self.spans);
        visitor.visit_seq(Elements { elements: self.value.elements(), index: 0, trail, spans })
    }

    fn visit_members<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        let members = match self.spans {
            Some(spans) => self.value.members_spanned(spans),
            None => self.value.members(),
        };
        visitor.visit_map(Members { members, value: None, trail: self.trail, spans: self.spans })
    }

    /// `true` or `false` only.
    fn only_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        match self.value.as_bool() {
            Some(b) => visitor.visit_bool(b),
            None => Err(self.invalid_type(&visitor)),
        }
    }

    /// A 64-bit integer only.
    fn only_integer<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        match self.value.kind() {
            Kind::Number => self.visit_number::<false, V>(visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    /// A string only.
    fn only_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        match self.value.kind() {
            Kind::String => self.visit_string(visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    /// `null` only.
    fn only_null<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        match self.value.kind() {
            Kind::Null => visitor.visit_unit(),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    /// An array only.
    fn only_array<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        match self.value.kind() {
            Kind::Array => self.visit_elements(visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    /// An object only.
    fn only_object<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Message> {
        match self.value.kind() {
            Kind::Object => self.visit_members(visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    /// The value is not of a kind that `expected` reads.
    #[cold]
    fn invalid_type(&self, expected: &dyn de::Expected) -> Message {
        Message::invalid_type_of(self.value, expected)
    }

    /// A number that is not a 64-bit integer, for a type that takes no float: written as an integer,
    /// out of range (an invalid value); with a fraction or an exponent, a float (an invalid type).
    #[cold]
    fn not_an_integer(&self, expected: &dyn de::Expected) -> Message {
        let float = self.value.as_bytes().iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
        if float { self.invalid_type(expected) } else { Message::invalid_value_of(self.value, expected) }
    }
}

/// `deserialize_*` methods, their arguments but the visitor ignored, each calling one of the
/// dispatching methods of [`Deserializer`].
macro_rules! forward {
    ($($method:ident($($argument:ty),*) => $to:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, $(_: $argument,)* visitor: V) -> Result<V::Value, Self::Error> {
            self.$to(visitor)
        }
    )*};
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
            "a string with escapes longer than {} bytes: take it as a JsonStr",
            crate::num::Decimal(MAX_UNESCAPED_LEN as u64)
        )))
    }
}

impl<'de> de::Deserializer<'de> for Deserializer<'_, 'de> {
    type Error = Message;

    /// The value as what it is, a number that is not a 64-bit integer as an `f64`.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.visit::<true, V>(visitor)
    }

    // Any number, one written as an integer as `visit_i64` or `visit_u64` (the visitors of `f32`
    // and `f64` take them), as `deserialize_any` always gave them.
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.visit::<true, V>(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.visit::<true, V>(visitor)
    }

    forward! {
        deserialize_bool() => only_bool;
        deserialize_i8() => only_integer;
        deserialize_i16() => only_integer;
        deserialize_i32() => only_integer;
        deserialize_i64() => only_integer;
        deserialize_i128() => only_integer;
        deserialize_u8() => only_integer;
        deserialize_u16() => only_integer;
        deserialize_u32() => only_integer;
        deserialize_u64() => only_integer;
        deserialize_u128() => only_integer;
        deserialize_char() => only_string;
        deserialize_str() => only_string;
        deserialize_string() => only_string;
        deserialize_unit() => only_null;
        deserialize_unit_struct(&'static str) => only_null;
        deserialize_seq() => only_array;
        deserialize_tuple(usize) => only_array;
        deserialize_tuple_struct(&'static str, usize) => only_array;
        deserialize_map() => only_object;
        // From an object only: serde_json also reads a struct from an array of its fields, but a
        // tool's arguments are objects (their schemas say so), and taking arrays would cost each
        // struct its visitor's `visit_seq` (about 200 B of flash each on a Cortex-M3).
        deserialize_struct(&'static str, &'static [&'static str]) => only_object;
        deserialize_bytes() => visit_no_float;
        deserialize_byte_buf() => visit_no_float;
        deserialize_identifier() => visit_no_float;
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
                None => Err(self.invalid_type(&visitor)),
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
                None => Err(self.invalid_type(&visitor)),
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
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
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
    use crate::json::{MAX_MESSAGE_LEN, parse};

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
        // `MAX_PATH_DEPTH` segments are shown whole, one more is cut.
        type AtBound = [[[[[[[[u8; 1]; 1]; 1]; 1]; 1]; 1]; 1]; 1];
        type PastBound = [AtBound; 1];
        assert_eq!(crate::json::MAX_PATH_DEPTH, 8);
        let e = read::<AtBound>("[[[[[[[[true]]]]]]]]").unwrap_err();
        assert_eq!(e.to_string(), "[0][0][0][0][0][0][0][0]: invalid type: boolean `true`, expected u8");
        let e = read::<PastBound>("[[[[[[[[[true]]]]]]]]]").unwrap_err();
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

    /// Every kind of field a tool's arguments have, read by its own `deserialize_*` (no float).
    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Arguments<'a> {
        on: bool,
        times: u8,
        offset: i64,
        big: u128,
        name: &'a str,
        label: heapless::String<8>,
        initial: char,
        #[serde(default)]
        limit: Option<u32>,
        mode: Mode,
        steps: heapless::Vec<i16, 4>,
        pair: (u8, bool),
        inner: Inner,
        point: Point,
        nothing: (),
        marker: Marker,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Slow,
        Fast { level: u8 },
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        flag: Option<bool>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Point(i8, i8);

    #[derive(Debug, Deserialize, PartialEq)]
    struct Marker;

    const ARGUMENTS: &str = r#"{"on":true,"times":3,"offset":-9223372036854775808,"big":18446744073709551615,
        "name":"n","label":"caf\u00e9","initial":"\u00e9","limit":null,"mode":{"fast":{"level":2}},
        "steps":[1,-2],"pair":[7,false],"inner":{"flag":false},"point":[-1,1],"nothing":null,"marker":null}"#;

    /// `ARGUMENTS` with `"member": json` in place of the member's value.
    fn with(member: &str, json: &str) -> std::string::String {
        let value = parse(ARGUMENTS.as_bytes(), 16).unwrap();
        let mut out = std::string::String::from("{");
        for (name, v) in value.members() {
            let v = if name.eq_str(member) { json } else { core::str::from_utf8(v.as_bytes()).unwrap() };
            if out.len() > 1 {
                out.push(',');
            }
            out.push_str(&std::format!("\"{name}\":{v}"));
        }
        out + "}"
    }

    #[test]
    fn each_kind_of_field_is_read_by_its_type() {
        let a: Arguments<'_> = read(ARGUMENTS).unwrap();
        let expected = Arguments {
            on: true,
            times: 3,
            offset: i64::MIN,
            big: u128::from(u64::MAX),
            name: "n",
            label: "café".try_into().unwrap(),
            initial: 'é',
            limit: None,
            mode: Mode::Fast { level: 2 },
            steps: heapless::Vec::from_slice(&[1, -2]).unwrap(),
            pair: (7, false),
            inner: Inner { flag: Some(false) },
            point: Point(-1, 1),
            nothing: (),
            marker: Marker,
        };
        assert_eq!(a, expected);
        assert_eq!(read::<Arguments<'_>>(&with("limit", "4294967295")).unwrap().limit, Some(u32::MAX));
        assert_eq!(read::<Arguments<'_>>(&with("mode", r#""slow""#)).unwrap().mode, Mode::Slow);
        // `-0` is an integer.
        assert_eq!(read::<Arguments<'_>>(&with("offset", "-0")).unwrap().offset, 0);
    }

    #[test]
    fn a_wrong_kind_names_the_field_what_was_found_and_what_was_expected() {
        let cases = [
            ("on", r#""yes""#, r#"on: invalid type: string "yes", expected a boolean"#),
            ("on", "1", "on: invalid type: integer `1`, expected a boolean"),
            ("on", "null", "on: invalid type: unit value, expected a boolean"),
            ("times", "true", "times: invalid type: boolean `true`, expected u8"),
            ("times", r#""3""#, r#"times: invalid type: string "3", expected u8"#),
            ("times", "[3]", "times: invalid type: sequence, expected u8"),
            ("times", "{}", "times: invalid type: map, expected u8"),
            ("times", "3.0", "times: invalid type: floating point `3.0`, expected u8"),
            ("times", "1e2", "times: invalid type: floating point `1e2`, expected u8"),
            ("name", "5", "name: invalid type: integer `5`, expected a borrowed string"),
            ("name", "-0.5", "name: invalid type: floating point `-0.5`, expected a borrowed string"),
            ("label", "false", "label: invalid type: boolean `false`, expected a string no more than 8 bytes long"),
            ("label", r#""much too long""#, r#"label: invalid length 13, expected a string no more than 8 bytes long"#),
            ("initial", r#""ab""#, r#"initial: invalid value: string "ab", expected a character"#),
            ("limit", r#""many""#, r#"limit: invalid type: string "many", expected u32"#),
            ("mode", "2", "mode: invalid type: integer `2`, expected enum Mode"),
            ("mode", r#""turbo""#, "mode: unknown variant `turbo`, expected `slow` or `fast`"),
            ("mode", r#"{"fast":{"level":"max"}}"#, r#"mode.fast.level: invalid type: string "max", expected u8"#),
            ("steps", "{}", "steps: invalid type: map, expected a sequence"),
            ("steps", "[1,2.5]", "steps[1]: invalid type: floating point `2.5`, expected i16"),
            ("steps", "[1,2,3,4,5]", "steps: invalid length 5, expected a sequence"),
            ("pair", r#"{"0":1}"#, "pair: invalid type: map, expected a tuple of size 2"),
            ("pair", "[1]", "pair: invalid length 1, expected a tuple of size 2"),
            ("inner", "[true]", "inner: invalid type: sequence, expected struct Inner"),
            ("inner", r#"{"flag":"no"}"#, r#"inner.flag: invalid type: string "no", expected a boolean"#),
            ("point", r#"{"x":1}"#, "point: invalid type: map, expected tuple struct Point"),
            ("nothing", "0", "nothing: invalid type: integer `0`, expected unit"),
            ("marker", "{}", "marker: invalid type: map, expected unit struct Marker"),
        ];
        for (member, json, message) in cases {
            let arguments = with(member, json);
            assert_eq!(error::<Arguments<'_>>(&arguments), message, "{arguments}");
        }
        // A string found is shown as `{:?}` shows it.
        let arguments = with("times", r#""a\"b\\c\u0007\n""#);
        assert_eq!(error::<Arguments<'_>>(&arguments), r#"times: invalid type: string "a\"b\\c\u{7}\n", expected u8"#);
    }

    #[test]
    fn integers_out_of_range_are_invalid_values() {
        assert_eq!(error::<u8>("256"), "invalid value: integer `256`, expected u8");
        assert_eq!(error::<i8>("-129"), "invalid value: integer `-129`, expected i8");
        assert_eq!(error::<u32>("-1"), "invalid value: integer `-1`, expected u32");
        assert_eq!(error::<i64>("9223372036854775808"), "invalid value: integer `9223372036854775808`, expected i64");
        assert_eq!(error::<u64>("18446744073709551616"), "invalid value: integer `18446744073709551616`, expected u64");
        assert_eq!(
            error::<i128>("-9223372036854775809"),
            "invalid value: integer `-9223372036854775809`, expected i128"
        );
        assert_eq!(error::<u16>("-1e3"), "invalid type: floating point `-1e3`, expected u16");
        assert_eq!((read::<u64>("18446744073709551615").unwrap(), read::<i8>("-128").unwrap()), (u64::MAX, i8::MIN));
        assert_eq!(read::<u128>("0").unwrap(), 0);
    }

    #[test]
    fn floats_are_read_when_the_type_asks_for_one() {
        #[derive(Debug, Deserialize, PartialEq)]
        struct Reading {
            celsius: f32,
            scale: f64,
            offset: Option<f64>,
        }
        let r: Reading = read(r#"{"celsius":21.5,"scale":3,"offset":-1.25e-2}"#).unwrap();
        assert_eq!(r, Reading { celsius: 21.5, scale: 3.0, offset: Some(-0.0125) });
        let r: Reading = read(r#"{"celsius":-0,"scale":18446744073709551616,"offset":null}"#).unwrap();
        assert_eq!((r.celsius, r.scale, r.offset), (0.0, 18446744073709551616.0, None));
        assert_eq!(error::<Reading>(r#"{"celsius":1e400,"scale":1}"#), "celsius: a number out of the range of f64");
        assert_eq!(
            error::<Reading>(r#"{"celsius":"warm","scale":1}"#),
            r#"celsius: invalid type: string "warm", expected f32"#
        );
        assert_eq!(error::<f64>("[1.5]"), "invalid type: sequence, expected f64");
    }

    /// A type that reads any value (`deserialize_any`) still gets floats; one of its visitor's
    /// refusals names a float without its value (no float formatting).
    #[test]
    fn a_type_that_reads_anything_gets_floats() {
        #[derive(Debug, PartialEq)]
        enum Number {
            Integer(i64),
            Float(f64),
        }
        struct Numbers(bool);
        impl<'de> Visitor<'de> for Numbers {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(if self.0 { "a number" } else { "an integer" })
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Number, E> {
                Ok(Number::Integer(n))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Number, E> {
                i64::try_from(n).map(Number::Integer).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(n), &self))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Number, E> {
                if self.0 { Ok(Number::Float(n)) } else { Err(E::invalid_type(de::Unexpected::Float(n), &self)) }
            }
        }
        #[derive(Debug)]
        struct AnyNumber(Number);
        impl<'de> Deserialize<'de> for AnyNumber {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(Numbers(true)).map(AnyNumber)
            }
        }
        #[derive(Debug)]
        struct AnyInteger(#[allow(dead_code, reason = "read by the visitor only")] Number);
        impl<'de> Deserialize<'de> for AnyInteger {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(Numbers(false)).map(AnyInteger)
            }
        }
        assert_eq!(read::<AnyNumber>("-2").unwrap().0, Number::Integer(-2));
        assert_eq!(read::<AnyNumber>("2.5").unwrap().0, Number::Float(2.5));
        assert_eq!(read::<AnyNumber>("18446744073709551616").unwrap().0, Number::Float(18446744073709551616.0));
        assert_eq!(
            error::<AnyNumber>("18446744073709551615"),
            "invalid value: integer `18446744073709551615`, expected a number"
        );
        assert_eq!(error::<AnyInteger>("2.5"), "invalid type: floating point, expected an integer");
        assert_eq!(error::<AnyNumber>("true"), "invalid type: boolean `true`, expected a number");
    }
}
