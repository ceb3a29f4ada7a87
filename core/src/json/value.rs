//! Zero-copy access to JSON values that [`parse`](super::parse) validated: [`Value`], its iterators
//! [`Members`] and [`Elements`], and [`JsonStr`] for strings, which unescapes without allocating.
//!
//! Everything here is re-exported by [`json`](super) and [`json::scan`](super::scan); this module is private.

use core::fmt;
use core::str;

use super::scan::is_whitespace;
use super::spans::{Recorded, Spans};
pub use super::string::{JsonStr, UnescapedChars};

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
        let special = crate::swar::unquoted_len(bytes.get(index..)?);
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
            _ => {
                // Skip to the next quote or bracket.
                index = index.checked_add(crate::swar::structureless_len(bytes.get(index..)?).max(1))?;
                continue;
            }
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
    split_value_in(bytes, None)
}

/// [`split_value`], finding the end of a container `spans` recorded by lookup.
fn split_value_in<'a>(bytes: &'a [u8], spans: Option<&Spans>) -> Option<(Value<'a>, &'a [u8])> {
    let recorded = match (bytes.first(), spans) {
        (Some(b'{' | b'['), Some(spans)) => spans.container_len(bytes),
        _ => None,
    };
    let len = match recorded {
        Some(len) => len,
        None => value_len(bytes)?,
    };
    let (value, rest) = bytes.split_at_checked(len)?;
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

/// A validated JSON value: the exact bytes of the value, without surrounding whitespace. Only [`parse`](super::parse) and
/// the accessors below create one, so every `Value` is valid JSON.
///
/// Equality compares the bytes: `1.0` and `1`, or `"a"` and `"\u0061"`, are different values.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Value<'a> {
    bytes: &'a [u8],
}

impl<'a> Value<'a> {
    /// Wraps bytes that [`parse`](super::parse) (or a walk of a parsed value) found to be one valid value.
    pub(super) const fn from_validated(bytes: &'a [u8]) -> Self {
        Value { bytes }
    }

    /// This value, a part of `whole` reached through a shorter borrow (a walk of the validator's
    /// record), as a part of `whole` itself: found by its address, taken with a bounds-checked
    /// `get` (a value that is no part of `whole` would come out empty, read as a number).
    pub(crate) fn within<'w>(self, whole: Value<'w>) -> Value<'w> {
        let start = (self.bytes.as_ptr() as usize).wrapping_sub(whole.bytes.as_ptr() as usize);
        let bytes = whole.bytes.get(start..start.wrapping_add(self.bytes.len())).unwrap_or_default();
        Value { bytes }
    }

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
        self.members().find_key(key)
    }

    /// For each of `keys`, what [`get`](Self::get) returns for it, found in one walk of the object
    /// instead of one walk per key (all `None` for non-objects).
    pub fn get_all<const N: usize>(&self, keys: [&str; N]) -> [Option<Value<'a>>; N] {
        self.members().find_all(keys)
    }

    /// The members of an object in document order, duplicates included; empty for non-objects.
    pub fn members(&self) -> Members<'a> {
        let rest = match self.kind() {
            Kind::Object => self.bytes.get(1..).unwrap_or(&[]),
            _ => &[],
        };
        Members { rest, spans: None, recorded: None }
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
        Some(JsonStr::from_raw(raw))
    }

    /// The number as an `i64` if it is written as an integer (no fraction, no exponent) within range.
    /// `-0` gives `Some(0)`.
    pub fn as_i64(&self) -> Option<i64> {
        // Accumulated on the side of the sign, so that `i64::MIN` fits.
        let (negative, digits) = self.integer_digits()?;
        digits.iter().try_fold(0i64, |n, &digit| {
            let n = n.checked_mul(10)?;
            let digit = i64::from(digit - b'0');
            if negative { n.checked_sub(digit) } else { n.checked_add(digit) }
        })
    }

    /// The number as a `u64` if it is written as a non-negative integer (no fraction, no exponent, no
    /// minus sign) within range.
    pub fn as_u64(&self) -> Option<u64> {
        match self.integer_digits()? {
            (false, digits) => {
                digits.iter().try_fold(0u64, |n, &digit| n.checked_mul(10)?.checked_add(u64::from(digit - b'0')))
            }
            (true, _) => None,
        }
    }

    /// Any number as the nearest `f64` (correctly rounded); `None` for non-numbers and for numbers whose
    /// magnitude is too large for `f64` (they round to infinity). Tiny numbers round to zero.
    pub fn as_f64(&self) -> Option<f64> {
        let value: f64 = self.number_text()?.parse().ok()?;
        value.is_finite().then_some(value)
    }

    /// `Some(true)` / `Some(false)` for the literals, `None` otherwise.
    #[inline(never)] // Read in many places: one copy of it (about 100 B of Thumb-2 each).
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

    /// A number written as an integer: whether it has a minus sign, and its digits.
    fn integer_digits(&self) -> Option<(bool, &'a [u8])> {
        if self.kind() != Kind::Number {
            return None;
        }
        let (negative, digits) = match self.bytes.strip_prefix(b"-") {
            Some(digits) => (true, digits),
            None => (false, self.bytes),
        };
        (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit)).then_some((negative, digits))
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
    /// Container lengths the validator recorded, to skip values without rescanning them.
    spans: Option<&'a Spans>,
    /// The members the validator recorded, when it recorded all of them: then the walk reads
    /// them from the record instead of `rest`.
    recorded: Option<Recorded<'a>>,
}

impl<'a> Members<'a> {
    /// Reads the members of `object` (the object walked, exactly its bytes) from `spans` if it
    /// recorded all of them, and otherwise skips the containers `spans` recorded by lookup.
    pub(crate) fn with_spans(self, spans: &'a Spans, object: &'a [u8]) -> Self {
        let recorded = if self.rest.is_empty() { None } else { spans.recorded_members(object) };
        Members { spans: Some(spans), recorded, ..self }
    }

    /// For each of `keys`, the value of the first remaining member of that name, in one walk.
    pub(crate) fn find_all<const N: usize>(self, keys: [&str; N]) -> [Option<Value<'a>>; N] {
        let mut found = [None; N];
        self.find_into(&keys, &mut found);
        found
    }

    /// [`find_all`](Self::find_all) into `found` (one copy of the code for every number of keys).
    pub(crate) fn find_into(mut self, keys: &[&str], found: &mut [Option<Value<'a>>]) {
        let mut missing = found.len().min(keys.len());
        while let Some((name, value, plain)) = self.next_entry() {
            for (slot, key) in found.iter_mut().zip(keys.iter().copied()) {
                if slot.is_none() && name.is(plain, key) {
                    *slot = Some(value);
                    missing = missing.saturating_sub(1);
                }
            }
            if missing == 0 {
                break;
            }
        }
    }

    /// The value of the first remaining member named `key` (unescaped).
    pub(crate) fn find_key(mut self, key: &str) -> Option<Value<'a>> {
        while let Some((name, value, plain)) = self.next_entry() {
            if name.is(plain, key) {
                return Some(value);
            }
        }
        None
    }

    /// The next member, and whether its name is known to have no escape (then its raw bytes are
    /// its text; `false` means it may have one).
    #[inline]
    pub(crate) fn next_entry(&mut self) -> Option<(JsonStr<'a>, Value<'a>, bool)> {
        let Some(recorded) = &mut self.recorded else {
            return self.next_scanned().map(|(name, value)| (name, value, false));
        };
        let next = recorded.next_member();
        if next.is_none() {
            self.rest = &[];
        }
        next.map(|(name, value, plain)| (JsonStr::from_raw(name), Value { bytes: value }, plain))
    }

    /// The next member, found by scanning `rest`.
    fn next_scanned(&mut self) -> Option<(JsonStr<'a>, Value<'a>)> {
        let Some((name, value, rest)) = next_member(self.rest, self.spans) else {
            self.rest = &[];
            return None;
        };
        self.rest = rest;
        Some((name, value))
    }
}

impl Members<'_> {
    /// Whether the walk reads the validator's record (tests).
    #[cfg(all(test, feature = "walk-index"))]
    pub(crate) fn reads_record(&self) -> bool {
        self.recorded.is_some()
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (JsonStr<'a>, Value<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.next_entry().map(|(name, value, _)| (name, value))
    }
}

impl core::iter::FusedIterator for Members<'_> {}

fn next_member<'a>(bytes: &'a [u8], spans: Option<&Spans>) -> Option<(JsonStr<'a>, Value<'a>, &'a [u8])> {
    let bytes = trim_start(bytes);
    let name_len = string_len(bytes)?;
    let name = JsonStr::from_raw(bytes.get(1..name_len.checked_sub(1)?)?);
    let after_name = trim_start(bytes.get(name_len..)?).strip_prefix(b":")?;
    let (value, rest) = split_value_in(trim_start(after_name), spans)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use std::format;
    use std::string::{String, ToString};
    use std::vec;
    use std::vec::Vec;

    #[cfg(feature = "walk-index")] // the record
    #[test]
    fn a_value_found_through_the_record_is_the_same_part_of_the_document() {
        let doc = br#"{"id":7,"params":{"name":"echo","arguments":{"a":[1,2]}}}"#;
        let mut spans = crate::json::Spans::default();
        let value = crate::json::parse_spanned(doc, 8, &mut spans).expect("valid");
        let walk = value.members_spanned(&spans);
        assert!(walk.reads_record());
        let params = walk.map(|(_, v)| v).nth(1).expect("params");
        let within = params.within(value);
        assert_eq!(within.as_bytes(), params.as_bytes());
        assert_eq!(within.as_bytes().as_ptr(), params.as_bytes().as_ptr());
        // A value of another document is no part of this one.
        let other = parse(br#"{"x":1}"#, 4).expect("valid");
        assert_eq!(other.within(value).as_bytes(), b"");
        assert_eq!(value.within(other).as_bytes(), b"");
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
    fn get_all_finds_what_get_finds_for_each_key_in_one_walk() {
        let object = parse(br#"{"a":1,"b":{"a":2},"\u0063":3,"a":4,"d":null}"#, 8).expect("valid");
        let keys = ["a", "b", "c", "d", "e", "a", ""];
        let all = object.get_all(keys);
        for (key, found) in keys.iter().zip(all) {
            assert_eq!(found, object.get(key), "{key}");
        }
        let bytes = all.map(|v| v.map(|v| v.as_bytes()));
        assert_eq!(bytes[..4], [Some(&b"1"[..]), Some(br#"{"a":2}"#), Some(b"3"), Some(b"null")]);
        assert_eq!((bytes[4], bytes[5]), (None, Some(&b"1"[..])));
        let array = parse(br#"[{"a":1}]"#, 8).expect("valid");
        assert_eq!(array.get_all(["a"]), [None]);
        assert_eq!(object.get_all([]), []);
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
        // The integer readers agree with `str::parse` at and around every power of ten and both ends.
        let mut texts = std::vec!["-9223372036854775809".into(), "18446744073709551617".into(), "0".into()];
        for power in 0..20u32 {
            let n = 10u64.pow(power);
            for m in [n - 1, n, n + 1, n.saturating_mul(9).saturating_add(8)] {
                texts.push(std::format!("{m}"));
                texts.push(std::format!("-{m}"));
            }
        }
        for text in &texts {
            let value = number(text);
            assert_eq!(value.as_i64(), text.parse::<i64>().ok(), "{text}");
            assert_eq!(value.as_u64(), text.parse::<u64>().ok().filter(|_| !text.starts_with('-')), "{text}");
        }
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
    }
}
