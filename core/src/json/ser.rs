//! The serde serializer behind [`JsonWriter::serialize`] and
//! [`JsonWriter::serialize_as_string`], which document what each type becomes. It writes straight
//! into the writer, integers through the core's digit writer (no `core::fmt`), floats through ryu,
//! and returns an error instead of panicking on anything it cannot write.

use core::fmt;

use serde::ser::{self, Serialize};

use super::JsonWriter;

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

type Result<T = ()> = core::result::Result<T, SerError>;

/// Serializes into `out` (which it leaves partly written on an error).
pub(crate) fn to_writer<T: Serialize + ?Sized>(out: &mut JsonWriter<'_>, value: &T) -> Result {
    value.serialize(Serializer { out })
}

/// The serializer of one value.
pub(crate) struct Serializer<'w, 'b> {
    out: &'w mut JsonWriter<'b>,
}

impl<'w, 'b> Serializer<'w, 'b> {
    /// The writer's state as a result: `Err(Full)` once it overflowed.
    fn done(&self) -> Result {
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

    fn float(self, finite: bool, text: impl FnOnce(&mut ryu::Buffer) -> &str) -> Result {
        if !finite {
            return self.raw(b"null");
        }
        let mut buffer = ryu::Buffer::new();
        let text = text(&mut buffer);
        self.raw(text.as_bytes())
    }

    /// Opens a container after `{"variant":` when `variant` is given; `close` is what ends it.
    fn open(self, variant: Option<&str>, bracket: &[u8]) -> Result<Compound<'w, 'b>> {
        let Serializer { out } = self;
        if let Some(variant) = variant {
            out.raw(b"{");
            out.string(variant);
            out.raw(b":");
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

/// Writes `v` in decimal: through `u64` when it fits (no 128-bit division on a microcontroller
/// unless a 128-bit value is that large).
fn write_u128(out: &mut JsonWriter<'_>, v: u128) {
    if let Ok(small) = u64::try_from(v) {
        out.u64(small);
        return;
    }
    let mut text = [0u8; 39];
    let mut at = text.len();
    let mut rest = v;
    while rest > 0 || at == text.len() {
        at -= 1;
        if let Some(digit) = text.get_mut(at) {
            *digit = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
    }
    out.raw(text.get(at..).unwrap_or_default());
}

/// Writes `v` in decimal, with its sign.
fn write_i128(out: &mut JsonWriter<'_>, v: i128) {
    if let Ok(small) = i64::try_from(v) {
        out.i64(small);
        return;
    }
    if v < 0 {
        out.raw(b"-");
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
        self.float(v.is_finite(), |buffer| buffer.format_finite(v))
    }

    fn serialize_f64(self, v: f64) -> Result {
        self.float(v.is_finite(), |buffer| buffer.format_finite(v))
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
        out.raw(b"{");
        out.string(variant);
        out.raw(b":");
        value.serialize(Serializer { out: &mut *out })?;
        out.raw(b"}");
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
            self.out.raw(b",");
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.separate();
        value.serialize(Serializer { out: &mut *self.out })
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        self.separate();
        self.out.string(key);
        self.out.raw(b":");
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
        self.out.raw(b":");
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

/// A map key: a string, a `char`, an integer, a boolean or a finite float, written as a JSON
/// string (as serde_json writes them); anything else is [`SerError::Key`].
struct KeySerializer<'w, 'b> {
    out: &'w mut JsonWriter<'b>,
}

impl KeySerializer<'_, '_> {
    /// `text` between quotes (it needs no escaping: digits, a sign, a point, an exponent, `true`,
    /// `false`).
    fn quoted(self, write: impl FnOnce(&mut JsonWriter<'_>)) -> Result {
        self.out.raw(b"\"");
        write(self.out);
        self.out.raw(b"\"");
        Serializer { out: self.out }.done()
    }

    /// A finite float's text between quotes; NaN and infinities cannot be keys.
    fn float(self, finite: bool, text: impl FnOnce(&mut ryu::Buffer) -> &str) -> Result {
        if !finite {
            return Err(SerError::Key);
        }
        let mut buffer = ryu::Buffer::new();
        let text = text(&mut buffer);
        self.quoted(|out| out.raw(text.as_bytes()))
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
        self.float(v.is_finite(), |buffer| buffer.format_finite(v))
    }

    fn serialize_f64(self, v: f64) -> Result {
        self.float(v.is_finite(), |buffer| buffer.format_finite(v))
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::string::{String, ToString};
    use std::vec;
    use std::vec::Vec;

    use serde::Serialize;

    use super::super::JsonWriter;

    #[derive(Serialize)]
    enum Shape {
        Point,
        Circle(f64),
        Line(i32, i32),
        Rect { width: u8, height: u8 },
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Wrapper(&'static str);

    #[derive(Serialize)]
    struct Pair(char, Option<i8>);

    #[derive(Serialize)]
    struct Everything {
        flag: bool,
        small: i8,
        wide: i128,
        huge: u128,
        single: f32,
        double: f64,
        nan: f64,
        letter: char,
        text: &'static str,
        none: Option<u8>,
        unit: (),
        unit_struct: Unit,
        wrapper: Wrapper,
        pair: Pair,
        shapes: Vec<Shape>,
        by_number: BTreeMap<i64, &'static str>,
        by_letter: BTreeMap<char, bool>,
        by_flag: BTreeMap<bool, u8>,
        by_huge: BTreeMap<u128, u8>,
        nested: Vec<Vec<u16>>,
        empty: Vec<u8>,
        empty_map: BTreeMap<String, u8>,
        tuple: (u8, &'static str),
    }

    fn everything() -> Everything {
        Everything {
            flag: true,
            small: -128,
            wide: i128::MIN,
            huge: u128::MAX,
            single: 0.1,
            double: -1.5e300,
            nan: f64::NAN,
            letter: '\u{1}',
            text: "quote \" backslash \\ newline \n tab \t form \u{c} nul \u{0} é 🦀",
            none: None,
            unit: (),
            unit_struct: Unit,
            wrapper: Wrapper("in"),
            pair: Pair('"', Some(-1)),
            shapes: vec![Shape::Point, Shape::Circle(2.0), Shape::Line(-1, 1), Shape::Rect { width: 3, height: 4 }],
            by_number: [(-3, "a"), (7, "b")].into_iter().collect(),
            by_letter: [('x', false)].into_iter().collect(),
            by_flag: [(true, 1)].into_iter().collect(),
            by_huge: [(u128::MAX, 0)].into_iter().collect(),
            nested: vec![vec![], vec![1, 65535]],
            empty: vec![],
            empty_map: BTreeMap::new(),
            tuple: (0, ""),
        }
    }

    fn serialized<T: Serialize + ?Sized>(capacity: usize, value: &T, as_string: bool) -> (Vec<u8>, bool) {
        let mut buf = vec![0u8; capacity];
        let mut out = JsonWriter::new(&mut buf);
        if as_string {
            out.serialize_as_string(value);
        } else {
            out.serialize(value);
        }
        (out.written().to_vec(), out.is_overflowed())
    }

    #[test]
    fn every_kind_of_value_is_written_as_serde_json_writes_it() {
        let value = everything();
        // serde_json writes an exponent's `+` (`-1.5e+300`), ryu does not.
        let expected = serde_json::to_string(&value).unwrap().replace("e+", "e");
        let (written, overflowed) = serialized(2048, &value, false);
        assert!(!overflowed);
        assert_eq!(String::from_utf8(written).unwrap(), expected);
        let (written, overflowed) = serialized(4096, &value, true);
        assert!(!overflowed);
        assert_eq!(String::from_utf8(written).unwrap(), serde_json::to_string(&expected).unwrap());
    }

    #[test]
    fn integers_of_every_width_at_their_limits() {
        let (i, u) = (
            [i128::MIN, i128::from(i64::MIN) - 1, i128::from(i64::MIN), -1, 0, i128::from(i64::MAX) + 1, i128::MAX],
            [0, u128::from(u64::MAX), u128::from(u64::MAX) + 1, u128::MAX],
        );
        for v in i {
            assert_eq!(serialized(64, &v, false).0, v.to_string().into_bytes());
        }
        for v in u {
            assert_eq!(serialized(64, &v, false).0, v.to_string().into_bytes());
        }
        let limits = (i8::MIN, i16::MIN, i32::MIN, i64::MIN, u8::MAX, u16::MAX, u32::MAX, u64::MAX);
        assert_eq!(serialized(128, &limits, false).0, serde_json::to_vec(&limits).unwrap());
    }

    #[test]
    fn what_cannot_be_written_writes_nothing_and_overflows() {
        struct Failing;
        impl Serialize for Failing {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("no"))
            }
        }
        #[derive(Serialize)]
        struct Outer {
            fine: u8,
            failing: Failing,
        }
        for as_string in [false, true] {
            let mut buf = [0u8; 256];
            let mut out = JsonWriter::new(&mut buf);
            out.raw(b"[");
            out.serialize_as_string_or_not(&Outer { fine: 1, failing: Failing }, as_string);
            assert!(out.is_overflowed());
            assert_eq!(out.written(), b"[");
        }
        // Map keys that cannot be strings (serde_json refuses them too); a finite float can.
        struct Keyed<K>(K);
        impl<K: Serialize> Serialize for Keyed<K> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(&self.0, &1u8)?;
                map.end()
            }
        }
        fn refused<K: Serialize>(key: K) {
            let (written, overflowed) = serialized(64, &Keyed(&key), false);
            assert!(overflowed && written.is_empty(), "{written:?}");
            assert!(serde_json::to_string(&Keyed(&key)).is_err());
        }
        refused(f64::NAN);
        refused([1, 2]);
        refused(Option::<u8>::None);
        refused(());
        assert_eq!(serialized(64, &Keyed(1.5f32), false).0, serde_json::to_vec(&Keyed(1.5f32)).unwrap());
    }

    #[test]
    fn a_value_that_does_not_fit_writes_nothing_at_every_capacity() {
        let value = everything();
        for as_string in [false, true] {
            let (full, _) = serialized(4096, &value, as_string);
            for capacity in 0..full.len() + 2 {
                let mut buf = vec![0xAA; capacity + 2];
                let mut out = JsonWriter::new(&mut buf[..capacity + 1]);
                out.raw(b"[");
                out.serialize_as_string_or_not(&value, as_string);
                if capacity >= full.len() {
                    assert!(!out.is_overflowed(), "capacity {capacity}");
                    assert_eq!(&out.written()[1..], full.as_slice());
                } else {
                    assert!(out.is_overflowed(), "capacity {capacity}");
                    assert_eq!(out.written(), b"[", "capacity {capacity}");
                }
                assert_eq!(buf[capacity + 1], 0xAA, "wrote past the end");
            }
        }
    }

    #[test]
    fn display_through_collect_str_is_escaped() {
        struct Shown;
        impl Serialize for Shown {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(&format_args!("{}\n{}", "a\"b", 42))
            }
        }
        assert_eq!(serialized(64, &Shown, false).0, serde_json::to_vec(&Shown).unwrap());
        let keyed: BTreeMap<&str, u8> = [("k\n", 1)].into_iter().collect();
        assert_eq!(serialized(64, &keyed, false).0, serde_json::to_vec(&keyed).unwrap());
    }

    impl JsonWriter<'_> {
        fn serialize_as_string_or_not<T: Serialize + ?Sized>(&mut self, value: &T, as_string: bool) {
            if as_string { self.serialize_as_string(value) } else { self.serialize(value) }
        }
    }

    #[test]
    fn bytes_are_spliced_verbatim() {
        struct Rendered;
        impl Serialize for Rendered {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(br#"{"pre":1}"#)
            }
        }
        assert_eq!(serialized(64, &[Rendered], false).0, br#"[{"pre":1}]"#);
    }

    #[test]
    fn floats_are_ryus_shortest_text_and_non_finite_ones_null() {
        let values = [0.0, -0.0, 1.0, 0.1, 1e16, 1e-7, 5e-324, f64::MAX, f64::INFINITY, f64::NEG_INFINITY];
        let written = serialized(256, &values, false).0;
        assert_eq!(
            String::from_utf8(written).unwrap(),
            "[0.0,-0.0,1.0,0.1,1e16,1e-7,5e-324,1.7976931348623157e308,null,null]"
        );
        let singles = [0.1f32, 16_777_216.0, f32::NAN, 1e-45];
        let written = serialized(256, &singles, false).0;
        assert_eq!(String::from_utf8(written).unwrap(), "[0.1,16777216.0,null,1e-45]");
    }
}
