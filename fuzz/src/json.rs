//! Target `json`: the JSON scanner, differential against serde_json.
//!
//! Input: one document, as raw bytes. With serde_json's own depth limit ([`SERDE_DEPTH`]),
//! [`parse`] must make the same accept/reject decision as `serde_json::from_slice::<Value>`, except
//! for the one documented difference (numbers beyond `f64`, which serde_json rejects and the scanner
//! accepts), and build the same tree: same strings, numbers, array elements, and object members (the
//! last duplicate for serde_json, the first for [`Value::get`]). Smaller depth limits must agree with
//! larger ones, every accessor must be total, and [`JsonWriter::value`] must copy a value so that it
//! reads back identically.

use std::collections::BTreeMap;

use mcp_sansio::json::{JsonStr, JsonWriter, Kind, MAX_DEPTH_LIMIT, ScanErrorKind, Value, parse};

/// The deepest nesting serde_json accepts with its default recursion limit (it rejects 128).
pub const SERDE_DEPTH: usize = 127;

fn is_json_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

fn trim_json_whitespace(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| !is_json_whitespace(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|&b| !is_json_whitespace(b)).map_or(start, |i| i + 1);
    &bytes[start..end.max(start)]
}

/// serde_json's float parser (without `float_roundtrip`) may be a few ULPs off; ours is correctly
/// rounded by `str::parse`.
fn floats_agree(ours: f64, theirs: f64) -> bool {
    ours.to_bits() == theirs.to_bits()
        || (ours - theirs).abs() <= 1e-14 * ours.abs().max(theirs.abs())
        || (ours.abs() < 1e-300 && theirs.abs() < 1e-300)
}

fn check_number(ours: Value<'_>, theirs: &serde_json::Number) {
    assert_eq!(ours.kind(), Kind::Number);
    let text = std::str::from_utf8(ours.as_bytes()).expect("numbers are ASCII");
    if let Some(unsigned) = theirs.as_u64() {
        assert_eq!(ours.as_u64(), Some(unsigned), "{text}");
    } else if let Some(signed) = theirs.as_i64() {
        assert_eq!(ours.as_i64(), Some(signed), "{text}");
    }
    if let Some(unsigned) = ours.as_u64() {
        assert_eq!(theirs.as_u64(), Some(unsigned), "{text}");
    }
    if let Some(signed) = ours.as_i64() {
        // serde_json reads `-0` (and only that integer) as the float -0.0.
        let minus_zero = text == "-0";
        assert!(theirs.as_i64() == Some(signed) || minus_zero, "{text}");
    }
    let expected = theirs.as_f64().expect("serde_json numbers are finite");
    match ours.as_f64() {
        Some(actual) => assert!(floats_agree(actual, expected), "{text}: {actual:?} vs {expected:?}"),
        // Rounds to infinity here but stayed finite in serde_json's less precise conversion.
        None => assert!(expected.abs() > 1e307, "{text}"),
    }
    assert_eq!(ours.as_f64(), text.parse::<f64>().ok().filter(|v| v.is_finite()));
}

fn check_string(ours: JsonStr<'_>, theirs: &str) {
    assert_eq!(ours.chars().collect::<String>(), theirs);
    assert_eq!(ours.to_string(), theirs);
    assert_eq!(ours.unescaped_len(), theirs.len());
    assert!(ours.eq_str(theirs));
    assert!(!ours.eq_str(&format!("{theirs}\u{0}")));
    if let Some(shorter) = theirs.char_indices().last().map(|(i, _)| &theirs[..i]) {
        assert!(!ours.eq_str(shorter));
    }
    let mut buf = vec![0u8; theirs.len() + 1];
    assert_eq!(ours.unescape_into(&mut buf), Some(theirs));
    assert_eq!(ours.unescape_into(&mut buf[..theirs.len()]), Some(theirs));
    if !theirs.is_empty() {
        assert_eq!(ours.unescape_into(&mut buf[..theirs.len() - 1]), None);
    }
    let plain = if ours.raw().contains(&b'\\') { None } else { Some(theirs) };
    assert_eq!(ours.as_plain(), plain);
}

/// Walks both trees side by side (without recursion) and asserts that they hold the same data.
pub fn check_same_tree(root: Value<'_>, theirs: &serde_json::Value) {
    let mut pending = vec![(root, theirs)];
    while let Some((ours, theirs)) = pending.pop() {
        // Accessors of the wrong kind answer `None` or nothing.
        if ours.kind() != Kind::Object {
            assert_eq!(ours.members().count(), 0);
            assert!(ours.get("").is_none());
        }
        if ours.kind() != Kind::Array {
            assert_eq!(ours.elements().count(), 0);
        }
        if ours.kind() != Kind::String {
            assert!(ours.as_str().is_none());
        }
        if ours.kind() != Kind::Number {
            assert_eq!((ours.as_i64(), ours.as_u64(), ours.as_f64()), (None, None, None));
        }
        assert_eq!(ours.to_string().as_bytes(), ours.as_bytes());
        match theirs {
            serde_json::Value::Null => assert!(ours.is_null() && ours.kind() == Kind::Null),
            serde_json::Value::Bool(b) => {
                assert_eq!(ours.as_bool(), Some(*b));
                assert_eq!(ours.kind(), if *b { Kind::True } else { Kind::False });
            }
            serde_json::Value::Number(n) => check_number(ours, n),
            serde_json::Value::String(s) => {
                assert_eq!(ours.kind(), Kind::String);
                check_string(ours.as_str().expect("a string"), s)
            }
            serde_json::Value::Array(items) => {
                assert_eq!(ours.kind(), Kind::Array);
                let our_items: Vec<Value<'_>> = ours.elements().collect();
                assert_eq!(our_items.len(), items.len(), "{ours:?}");
                pending.extend(our_items.into_iter().zip(items));
            }
            serde_json::Value::Object(map) => {
                assert_eq!(ours.kind(), Kind::Object);
                let mut first = BTreeMap::new();
                let mut last = BTreeMap::new();
                for (key, value) in ours.members() {
                    let key: String = key.chars().collect();
                    first.entry(key.clone()).or_insert(value);
                    last.insert(key, value);
                }
                assert!(last.keys().eq(map.keys()), "{ours:?}");
                for (key, value) in &first {
                    assert_eq!(ours.get(key), Some(*value), "get({key:?}) is not the first member");
                }
                pending.extend(last.into_values().zip(map.values()));
            }
        }
    }
}

/// Whether some number in `root` is out of `f64` range (the documented difference).
fn has_out_of_range_number(root: Value<'_>) -> bool {
    let mut pending = vec![root];
    while let Some(value) = pending.pop() {
        match value.kind() {
            Kind::Number if value.as_f64().is_none() => return true,
            Kind::Array => pending.extend(value.elements()),
            Kind::Object => pending.extend(value.members().map(|(_, v)| v)),
            _ => {}
        }
    }
    false
}

/// Copies `value` with [`JsonWriter::value`] and checks that it reads back as the same tree.
fn check_copy(value: Value<'_>, doc_len: usize, theirs: &serde_json::Value) {
    let mut buf = vec![0u8; doc_len + 2];
    let mut w = JsonWriter::new(&mut buf);
    w.raw(b"[");
    w.value(value);
    w.raw(b"]");
    assert!(!w.is_overflowed());
    let written = w.written().to_vec();
    assert!(!written.contains(&b'\n') && !written.contains(&b'\r'), "a raw newline was copied");
    let copy = parse(&written, SERDE_DEPTH + 1).expect("a copied value is valid JSON");
    let inner = copy.elements().next().expect("one element");
    check_same_tree(inner, theirs);
    // The copy differs only where a newline or carriage return was whitespace.
    let original = value.as_bytes();
    assert_eq!(inner.as_bytes().len(), original.len());
    for (&copied, &byte) in inner.as_bytes().iter().zip(original) {
        assert!(copied == byte || (copied == b' ' && matches!(byte, b'\n' | b'\r')));
    }
    // A buffer one byte too short takes nothing.
    let mut short = vec![0u8; original.len() - 1];
    let mut w = JsonWriter::new(&mut short);
    w.value(value);
    assert!(w.is_overflowed() && w.is_empty());
}

/// Runs one input. Panics on any disagreement.
pub fn run(doc: &[u8]) {
    let ours = parse(doc, SERDE_DEPTH);
    let theirs = serde_json::from_slice::<serde_json::Value>(doc);

    // Depth limits above the hard limit are clamped; smaller limits only add `TooDeep`.
    let deepest = parse(doc, MAX_DEPTH_LIMIT);
    assert_eq!(parse(doc, usize::MAX), deepest);
    let shallow = parse(doc, doc.len() % 9);
    match (&shallow, &ours) {
        (Ok(value), reference) => assert_eq!(reference, &Ok(*value), "a deeper limit rejects"),
        (Err(error), reference) if error.kind != ScanErrorKind::TooDeep => {
            assert_eq!(reference, &Err(*error), "the depth limit changed another error")
        }
        _ => {}
    }
    match (&ours, &deepest) {
        (Ok(value), deeper) => assert_eq!(deeper, &Ok(*value)),
        (Err(error), deeper) if error.kind != ScanErrorKind::TooDeep => assert_eq!(deeper, &Err(*error)),
        _ => {}
    }

    // Walks that read the validator's record of shallow objects yield what scanning yields.
    #[cfg(fuzzing)]
    assert_eq!(mcp_sansio::json::recorded_walks_agree(doc), deepest.is_ok().then_some(true));

    match (ours, theirs) {
        (Ok(value), Ok(tree)) => {
            assert_eq!(value.as_bytes(), trim_json_whitespace(doc));
            check_same_tree(value, &tree);
            check_copy(value, doc.len(), &tree);
        }
        (Err(error), Err(_)) => {
            assert!(error.offset <= doc.len());
            if matches!(error.kind, ScanErrorKind::UnexpectedEnd | ScanErrorKind::Empty) {
                assert_eq!(error.offset, doc.len(), "{error:?}");
            }
            assert!(!error.to_string().is_empty());
        }
        // The documented difference: numbers beyond f64's range are accepted.
        (Ok(value), Err(error)) if error.to_string().starts_with("number out of range") => {
            assert!(has_out_of_range_number(value), "serde_json saw an out-of-range number that we did not");
        }
        (ours, theirs) => panic!(
            "decision differs on {:?}: ours {ours:?}, serde_json {:?}",
            String::from_utf8_lossy(doc),
            theirs.map(|_| ())
        ),
    }
}
