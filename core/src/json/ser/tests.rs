//! The serializer against serde_json: every kind of value, the limits of every integer width,
//! floats, what cannot be written, and all-or-nothing at every capacity.

use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec;
use std::vec::Vec;

use serde::Serialize;

use crate::json::JsonWriter;

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
        out.byte(b'[');
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
            out.byte(b'[');
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
