//! The serde serializer behind [`JsonWriter::serialize`] and
//! [`JsonWriter::serialize_as_string`], which document what each type becomes. It writes straight
//! into the writer, integers through the core's digit writer (no `core::fmt`), floats through ryu,
//! and returns an error instead of panicking on anything it cannot write.

use core::fmt;

use serde::ser::{self, Serialize};

use super::JsonWriter;

mod key;
#[cfg(test)]
mod tests;

use key::KeySerializer;

/// Why a value was not serialized. Only its kind is kept: the writer reports every failure as an
/// overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SerError {
    /// The writer's buffer is full.
    Full,
    /// A map key that is not a string, a `char`, an integer, a boolean or a finite float.
    Key,
    /// A `Serialize` implementation failed (`ser::Error::custom`).
    Custom,
}

impl fmt::Display for SerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SerError::Full => "the value does not fit",
            SerError::Key => "a map key must be a string, a char, an integer, a boolean or a finite float",
            SerError::Custom => "the value failed to serialize",
        })
    }
}

impl core::error::Error for SerError {}

impl ser::Error for SerError {
    fn custom<T: fmt::Display>(_: T) -> Self {
        SerError::Custom
    }
}

pub(super) type Result<T = ()> = core::result::Result<T, SerError>;

/// Serializes into `out` (which it leaves partly written on an error).
pub(crate) fn to_writer<T: Serialize + ?Sized>(out: &mut JsonWriter<'_>, value: &T) -> Result {
    value.serialize(Serializer { out })
}

/// The serializer of one value.
pub(crate) struct Serializer<'w, 'b> {
    pub(super) out: &'w mut JsonWriter<'b>,
}

impl<'w, 'b> Serializer<'w, 'b> {
    /// The writer's state as a result: `Err(Full)` once it overflowed.
    pub(super) fn done(&self) -> Result {
        if self.out.is_overflowed() { Err(SerError::Full) } else { Ok(()) }
    }

    fn raw(self, bytes: &[u8]) -> Result {
        self.out.raw(bytes);
        self.done()
    }

    fn u128(self, v: u128) -> Result {
        write_u128(self.out, v);
        self.done()
    }

    fn i128(self, v: i128) -> Result {
        write_i128(self.out, v);
        self.done()
    }

    /// A float, `null` when it is not finite.
    fn float<F: ryu::Float>(self, v: F, finite: bool) -> Result {
        if !finite {
            return self.raw(b"null");
        }
        write_float(self.out, v);
        self.done()
    }

    /// Opens a container after `{"variant":` when `variant` is given; `close` is what ends it.
    fn open(self, variant: Option<&str>, bracket: &[u8]) -> Result<Compound<'w, 'b>> {
        let Serializer { out } = self;
        if let Some(variant) = variant {
            out.byte(b'{');
            out.string(variant);
            out.byte(b':');
        }
        out.raw(bracket);
        let close: &'static [u8] = match (bracket, variant.is_some()) {
            (b"[", false) => b"]",
            (b"[", true) => b"]}",
            (_, false) => b"}",
            (_, true) => b"}}",
        };
        if out.is_overflowed() {
            return Err(SerError::Full);
        }
        Ok(Compound { out, first: true, close })
    }
}

/// Writes a finite float as ryu's shortest round-trip text (an `f32` as the shortest `f32`).
pub(super) fn write_float<F: ryu::Float>(out: &mut JsonWriter<'_>, v: F) {
    out.raw(ryu::Buffer::new().format_finite(v).as_bytes());
}

/// Writes `v` in decimal: through `u64` when it fits (a 128-bit division only for larger values).
pub(super) fn write_u128(out: &mut JsonWriter<'_>, v: u128) {
    if let Ok(small) = u64::try_from(v) {
        out.u64(small);
        return;
    }
    // `u128::MAX` has 39 digits.
    let mut text = [0u8; 39];
    let mut at = text.len();
    let mut rest = v;
    while rest > 0 {
        let Some(next) = at.checked_sub(1) else { break };
        at = next;
        if let Some(digit) = text.get_mut(at) {
            *digit = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
    }
    out.raw(text.get(at..).unwrap_or_default());
}

/// Writes `v` in decimal, with its sign.
pub(super) fn write_i128(out: &mut JsonWriter<'_>, v: i128) {
    if let Ok(small) = i64::try_from(v) {
        out.i64(small);
        return;
    }
    if v < 0 {
        out.byte(b'-');
    }
    write_u128(out, v.unsigned_abs());
}

impl<'w, 'b> ser::Serializer for Serializer<'w, 'b> {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = Compound<'w, 'b>;
    type SerializeTuple = Compound<'w, 'b>;
    type SerializeTupleStruct = Compound<'w, 'b>;
    type SerializeTupleVariant = Compound<'w, 'b>;
    type SerializeMap = Compound<'w, 'b>;
    type SerializeStruct = Compound<'w, 'b>;
    type SerializeStructVariant = Compound<'w, 'b>;

    fn serialize_bool(self, v: bool) -> Result {
        self.raw(if v { b"true" } else { b"false" })
    }

    fn serialize_i8(self, v: i8) -> Result {
        self.serialize_i64(v.into())
    }

    fn serialize_i16(self, v: i16) -> Result {
        self.serialize_i64(v.into())
    }

    fn serialize_i32(self, v: i32) -> Result {
        self.serialize_i64(v.into())
    }

    fn serialize_i64(self, v: i64) -> Result {
        self.out.i64(v);
        self.done()
    }

    fn serialize_i128(self, v: i128) -> Result {
        self.i128(v)
    }

    fn serialize_u8(self, v: u8) -> Result {
        self.serialize_u64(v.into())
    }

    fn serialize_u16(self, v: u16) -> Result {
        self.serialize_u64(v.into())
    }

    fn serialize_u32(self, v: u32) -> Result {
        self.serialize_u64(v.into())
    }

    fn serialize_u64(self, v: u64) -> Result {
        self.out.u64(v);
        self.done()
    }

    fn serialize_u128(self, v: u128) -> Result {
        self.u128(v)
    }

    fn serialize_f32(self, v: f32) -> Result {
        self.float(v, v.is_finite())
    }

    fn serialize_f64(self, v: f64) -> Result {
        self.float(v, v.is_finite())
    }

    fn serialize_char(self, v: char) -> Result {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result {
        self.out.string(v);
        self.done()
    }

    fn serialize_bytes(self, v: &[u8]) -> Result {
        self.raw(v)
    }

    fn serialize_none(self) -> Result {
        self.raw(b"null")
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result {
        self.raw(b"null")
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result {
        self.raw(b"null")
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        let out = self.out;
        out.byte(b'{');
        out.string(variant);
        out.byte(b':');
        value.serialize(Serializer { out: &mut *out })?;
        out.byte(b'}');
        Serializer { out }.done()
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'w, 'b>> {
        self.open(None, b"[")
    }

    fn serialize_tuple(self, _: usize) -> Result<Compound<'w, 'b>> {
        self.open(None, b"[")
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'w, 'b>> {
        self.open(None, b"[")
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'w, 'b>> {
        self.open(Some(variant), b"[")
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'w, 'b>> {
        self.open(None, b"{")
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'w, 'b>> {
        self.open(None, b"{")
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'w, 'b>> {
        self.open(Some(variant), b"{")
    }

    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result {
        self.out.string_fmt(format_args!("{value}"));
        self.done()
    }
}

/// An array or object being written: its elements or members, separated by commas, then `close`.
pub(crate) struct Compound<'w, 'b> {
    out: &'w mut JsonWriter<'b>,
    first: bool,
    close: &'static [u8],
}

impl<'b> Compound<'_, 'b> {
    /// The comma before every element but the first.
    fn separate(&mut self) {
        if !core::mem::take(&mut self.first) {
            self.out.byte(b',');
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.separate();
        value.serialize(Serializer { out: &mut *self.out })
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        self.separate();
        self.out.string(key);
        self.out.byte(b':');
        value.serialize(Serializer { out: &mut *self.out })
    }

    fn end(self) -> Result {
        self.out.raw(self.close);
        Serializer { out: self.out }.done()
    }
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }

    fn end(self) -> Result {
        Compound::end(self)
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }

    fn end(self) -> Result {
        Compound::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }

    fn end(self) -> Result {
        Compound::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }

    fn end(self) -> Result {
        Compound::end(self)
    }
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.separate();
        key.serialize(KeySerializer { out: &mut *self.out })?;
        self.out.byte(b':');
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        value.serialize(Serializer { out: &mut *self.out })
    }

    fn end(self) -> Result {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        self.member(key, value)
    }

    fn end(self) -> Result {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        self.member(key, value)
    }

    fn end(self) -> Result {
        Compound::end(self)
    }
}
