//! Map keys: what can be a JSON object's member name.

use core::fmt;

use serde::ser::{self, Serialize};

use super::{JsonWriter, Result, SerError, Serializer, write_float, write_i128, write_u128};

/// A map key: a string, a `char`, an integer, a boolean or a finite float, written as a JSON
/// string (as serde_json writes them); anything else is [`SerError::Key`].
pub(super) struct KeySerializer<'w, 'b> {
    pub(super) out: &'w mut JsonWriter<'b>,
}

impl KeySerializer<'_, '_> {
    /// `text` between quotes (it needs no escaping: digits, a sign, a point, an exponent, `true`,
    /// `false`).
    fn quoted(self, write: impl FnOnce(&mut JsonWriter<'_>)) -> Result {
        self.out.byte(b'"');
        write(self.out);
        self.out.byte(b'"');
        Serializer { out: self.out }.done()
    }

    /// A finite float's text between quotes; NaN and infinities cannot be keys.
    fn float<F: ryu::Float>(self, v: F, finite: bool) -> Result {
        if !finite {
            return Err(SerError::Key);
        }
        self.quoted(|out| write_float(out, v))
    }
}

impl ser::Serializer for KeySerializer<'_, '_> {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = ser::Impossible<(), SerError>;
    type SerializeTuple = ser::Impossible<(), SerError>;
    type SerializeTupleStruct = ser::Impossible<(), SerError>;
    type SerializeTupleVariant = ser::Impossible<(), SerError>;
    type SerializeMap = ser::Impossible<(), SerError>;
    type SerializeStruct = ser::Impossible<(), SerError>;
    type SerializeStructVariant = ser::Impossible<(), SerError>;

    fn serialize_bool(self, v: bool) -> Result {
        self.quoted(|out| out.bool(v))
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
        self.quoted(|out| out.i64(v))
    }

    fn serialize_i128(self, v: i128) -> Result {
        self.quoted(|out| write_i128(out, v))
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
        self.quoted(|out| out.u64(v))
    }

    fn serialize_u128(self, v: u128) -> Result {
        self.quoted(|out| write_u128(out, v))
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
        Serializer { out: self.out }.done()
    }

    fn serialize_bytes(self, _: &[u8]) -> Result {
        Err(SerError::Key)
    }

    fn serialize_none(self) -> Result {
        Err(SerError::Key)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result {
        Err(SerError::Key)
    }

    fn serialize_unit(self) -> Result {
        Err(SerError::Key)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result {
        Err(SerError::Key)
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
        _: &'static str,
        _: &T,
    ) -> Result {
        Err(SerError::Key)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(SerError::Key)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(SerError::Key)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct> {
        Err(SerError::Key)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(SerError::Key)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(SerError::Key)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(SerError::Key)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(SerError::Key)
    }

    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result {
        self.out.string_fmt(format_args!("{value}"));
        Serializer { out: self.out }.done()
    }
}
