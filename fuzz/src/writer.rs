//! Target `writer`: the envelope writer ([`JsonWriter`] and the JSON-RPC id writers) must write what
//! the scanner reads back identically.
//!
//! Input: a buffer size, an envelope (result or error, with an integer or string id) and a tree of
//! values decoded from the input (strings written whole, in fragments, formatted or pre-escaped;
//! integers, floats, base64 blobs, copied documents, serde output). Every writer call must
//! be all-or-nothing; a message that overflows rolls back to the bytes before it; a message that fits
//! contains no raw newline, parses, classifies as the same JSON-RPC envelope and holds the same values.

use std::fmt;

use mcp_sansio::json::{JsonStr, JsonWriter, Kind, MAX_DEPTH_LIMIT, Value, parse};
use mcp_sansio::jsonrpc::{Id, Message, OwnedId, classify};

use crate::input::{Encoder, Input};

/// Deepest nesting of decoded containers.
const MAX_NODE_DEPTH: usize = 8;
/// Depth limit for documents copied with [`JsonWriter::value`].
const COPY_DEPTH: usize = 32;

/// How a string is written.
#[derive(Clone, Copy, Debug)]
enum Style {
    Whole,
    Fragments,
    Formatted,
    PreEscaped,
}

/// What is written through serde ([`JsonWriter::serialize`]): integers (128-bit ones too), a
/// string, a `char`, a boolean, an option, a float.
type Record = (i32, String, bool, Option<u32>, f32, char, i128);

#[derive(Clone, Debug)]
enum Node {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(String, Style),
    Base64(Vec<u8>),
    /// A document validated by the scanner, copied with `value` (or `null` if invalid).
    Copy(Vec<u8>),
    Serialized(Record),
    SerializedString(Record),
    /// `string_fmt` with a `Display` that fails: the message must be discarded.
    FailingDisplay,
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

fn text(input: &mut Input<'_>) -> String {
    String::from_utf8_lossy(input.chunk()).into_owned()
}

fn record(input: &mut Input<'_>) -> Record {
    let number = input.u64();
    let flags = input.byte();
    let float = f32::from_bits(input.u64() as u32);
    let letter = char::from_u32(input.u64() as u32).unwrap_or('\u{fffd}');
    let wide = (i128::from(input.u64()) << 64 | i128::from(input.u64())).rotate_left(u32::from(flags));
    let option = (flags & 2 != 0).then_some((number >> 32) as u32);
    ((number as i32), text(input), flags & 1 != 0, option, float, letter, wide)
}

fn decode(input: &mut Input<'_>, depth: usize) -> Node {
    let container_allowed = depth < MAX_NODE_DEPTH;
    match input.byte() % 16 {
        0 => Node::Null,
        1 => Node::Bool(input.byte() & 1 != 0),
        2 => Node::I64(input.u64() as i64),
        3 => Node::U64(input.u64()),
        4 => Node::F64(f64::from_bits(input.u64())),
        5 => Node::Str(text(input), Style::Whole),
        6 => Node::Str(text(input), Style::Fragments),
        7 => Node::Str(text(input), Style::Formatted),
        8 => Node::Str(text(input), Style::PreEscaped),
        9 => Node::Base64(input.chunk().to_vec()),
        10 => Node::Copy(input.chunk().to_vec()),
        11 => Node::Serialized(record(input)),
        12 => Node::SerializedString(record(input)),
        13 if input.byte() == 0xff => Node::FailingDisplay,
        14 if container_allowed => {
            let len = input.below(6);
            Node::Array((0..len).map(|_| decode(input, depth + 1)).collect())
        }
        15 if container_allowed => {
            let len = input.below(6);
            Node::Object((0..len).map(|_| (text(input), decode(input, depth + 1))).collect())
        }
        _ => Node::Null,
    }
}

struct FailingDisplay;

impl fmt::Display for FailingDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("partial")?;
        Err(fmt::Error)
    }
}

/// A writer whose every call is checked to be all-or-nothing.
struct Checked<'w, 'a> {
    w: &'w mut JsonWriter<'a>,
}

impl Checked<'_, '_> {
    fn call(&mut self, write: impl FnOnce(&mut JsonWriter<'_>)) {
        let (before, was_overflowed) = (self.w.len(), self.w.is_overflowed());
        write(self.w);
        let after = self.w.len();
        assert!(after <= self.w.capacity());
        assert_eq!(self.w.remaining(), self.w.capacity() - after);
        if was_overflowed {
            assert!(self.w.is_overflowed(), "the overflow flag was cleared by a write");
            assert_eq!(after, before, "a write after overflow wrote something");
        } else if self.w.is_overflowed() {
            assert_eq!(after, before, "a write that did not fit wrote part of itself");
        } else {
            assert!(after > before, "a write that fit wrote nothing");
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.call(|w| w.raw(bytes));
    }

    fn string(&mut self, s: &str, style: Style) {
        match style {
            Style::Whole => self.call(|w| w.string(s)),
            Style::Fragments => {
                let split = (0..=s.len() / 2).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                let (head, tail) = s.split_at(split);
                self.raw(b"\"");
                if !head.is_empty() {
                    self.call(|w| w.string_fragment(head));
                }
                if !tail.is_empty() {
                    self.call(|w| w.string_fragment(tail));
                }
                self.raw(b"\"");
            }
            Style::Formatted => {
                let split = (0..=s.len() / 2).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                let (head, tail) = s.split_at(split);
                self.call(|w| w.string_fmt(format_args!("{head}{tail}")));
            }
            Style::PreEscaped => {
                let escaped = serde_json::to_string(s).expect("strings serialize");
                let value = parse(escaped.as_bytes(), 0).expect("serde_json writes valid strings");
                let json_str = value.as_str().expect("a string");
                self.call(|w| w.json_str(json_str));
            }
        }
    }

    fn node(&mut self, node: &Node) {
        match node {
            Node::Null => self.call(|w| w.null()),
            Node::Bool(b) => self.call(|w| w.bool(*b)),
            Node::I64(n) => self.call(|w| w.i64(*n)),
            Node::U64(n) => self.call(|w| w.u64(*n)),
            Node::F64(v) => self.call(|w| w.f64(*v)),
            Node::Str(s, style) => self.string(s, *style),
            Node::Base64(bytes) => self.call(|w| w.base64_string(bytes)),
            Node::Copy(doc) => match parse(doc, COPY_DEPTH) {
                Ok(value) => self.call(|w| w.value(value)),
                Err(_) => self.call(|w| w.null()),
            },
            Node::Serialized(record) => self.call(|w| w.serialize(record)),
            Node::SerializedString(record) => self.call(|w| w.serialize_as_string(record)),
            Node::FailingDisplay => {
                let before = self.w.len();
                self.w.string_fmt(format_args!("{}", FailingDisplay));
                assert!(self.w.is_overflowed(), "a failing Display was not reported");
                assert_eq!(self.w.len(), before, "a failing Display left bytes behind");
            }
            Node::Array(items) => {
                self.raw(b"[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.raw(b",");
                    }
                    self.node(item);
                }
                self.raw(b"]");
            }
            Node::Object(members) => {
                self.raw(b"{");
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        self.raw(b",");
                    }
                    self.call(|w| w.string(key));
                    self.raw(b":");
                    self.node(value);
                }
                self.raw(b"}");
            }
        }
    }
}

fn contains_failing_display(node: &Node) -> bool {
    match node {
        Node::FailingDisplay => true,
        Node::Array(items) => items.iter().any(contains_failing_display),
        Node::Object(members) => members.iter().any(|(_, v)| contains_failing_display(v)),
        _ => false,
    }
}

fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::new();
    for quad in bytes.chunks(4) {
        let padding = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if padding > 2 {
            return None;
        }
        let mut bits = 0u32;
        for &c in &quad[..4 - padding] {
            bits = (bits << 6) | sextet(c)?;
        }
        bits <<= 6 * padding as u32;
        let decoded = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        out.extend_from_slice(&decoded[..3 - padding]);
    }
    Some(out)
}

fn unescaped(value: Value<'_>) -> String {
    value.as_str().expect("a string").chars().collect()
}

fn check_record(value: Value<'_>, record: &Record) {
    let elements: Vec<Value<'_>> = value.elements().collect();
    assert_eq!(elements.len(), 7, "{value:?}");
    assert_eq!(elements[0].as_i64(), Some(i64::from(record.0)));
    assert_eq!(unescaped(elements[1]), record.1);
    assert_eq!(elements[2].as_bool(), Some(record.2));
    match record.3 {
        Some(n) => assert_eq!(elements[3].as_u64(), Some(u64::from(n))),
        None => assert!(elements[3].is_null()),
    }
    if record.4.is_finite() {
        let text = std::str::from_utf8(elements[4].as_bytes()).expect("ASCII");
        let read: f32 = text.parse().expect("a number");
        assert_eq!(read.to_bits(), record.4.to_bits(), "f32 {text}");
    } else {
        assert!(elements[4].is_null());
    }
    assert_eq!(unescaped(elements[5]), record.5.to_string());
    let wide = std::str::from_utf8(elements[6].as_bytes()).expect("ASCII");
    assert_eq!(wide.parse::<i128>().ok(), Some(record.6), "i128 {wide}");
}

/// Asserts that `value`, read back by the scanner, is what `node` wrote.
fn check_node(value: Value<'_>, node: &Node) {
    match node {
        Node::Null | Node::FailingDisplay => assert!(value.is_null()),
        Node::Bool(b) => assert_eq!(value.as_bool(), Some(*b)),
        Node::I64(n) => assert_eq!(value.as_i64(), Some(*n)),
        Node::U64(n) => assert_eq!(value.as_u64(), Some(*n)),
        Node::F64(v) if v.is_finite() => {
            assert_eq!(value.kind(), Kind::Number);
            assert_eq!(value.as_f64().map(f64::to_bits), Some(v.to_bits()), "{v:?} written as {value}");
        }
        Node::F64(_) => assert!(value.is_null()),
        Node::Str(s, _) => assert_eq!(&unescaped(value), s),
        Node::Base64(bytes) => assert_eq!(decode_base64(&unescaped(value)).as_deref(), Some(&bytes[..])),
        Node::Copy(doc) => match parse(doc, COPY_DEPTH) {
            Ok(original) => {
                let (copied, original) = (value.as_bytes(), original.as_bytes());
                assert_eq!(copied.len(), original.len());
                for (&c, &o) in copied.iter().zip(original) {
                    assert!(c == o || (c == b' ' && matches!(o, b'\n' | b'\r')), "copy differs");
                }
            }
            Err(_) => assert!(value.is_null()),
        },
        Node::Serialized(record) => check_record(value, record),
        Node::SerializedString(record) => {
            let inner = unescaped(value);
            let inner = parse(inner.as_bytes(), 4).expect("serialized text is JSON");
            check_record(inner, record);
        }
        Node::Array(items) => {
            let elements: Vec<Value<'_>> = value.elements().collect();
            assert_eq!(elements.len(), items.len());
            for (element, item) in elements.into_iter().zip(items) {
                check_node(element, item);
            }
        }
        Node::Object(members) => {
            let ours: Vec<(JsonStr<'_>, Value<'_>)> = value.members().collect();
            assert_eq!(ours.len(), members.len());
            for ((key, value), (expected_key, expected)) in ours.into_iter().zip(members) {
                assert!(key.eq_str(expected_key));
                check_node(value, expected);
            }
        }
    }
}

/// The envelope's id.
enum IdForm {
    Number(i64),
    /// Written as received (still escaped), like an immediate answer.
    Borrowed(String),
    /// Copied and written unescaped, like a deferred answer.
    Owned(String),
}

/// A seed: an envelope in a buffer of `buffer` bytes with an integer id, holding `tree` (encoded for
/// [`decode`]): a result, or an error with `message` if there is one.
pub fn encode(buffer: u16, id: i64, tree: &[u8], message: Option<&str>) -> Vec<u8> {
    let mut out = Encoder::new();
    out.u16(buffer).byte(u8::from(message.is_some())).byte(0).u64(id as u64).u64(-32000i64 as u64).bytes(tree);
    if let Some(message) = message {
        out.chunk(message.as_bytes());
    }
    out.finish()
}

/// Runs one input. Panics on any violated invariant.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let capacity = usize::from(input.u16()) % 8193;
    let is_error = input.byte() & 1 != 0;
    let id = match input.byte() % 3 {
        0 => IdForm::Number(input.u64() as i64),
        1 => IdForm::Borrowed(text(&mut input)),
        _ => IdForm::Owned(text(&mut input)),
    };
    let code = input.u64() as i64;
    let node = decode(&mut input, 0);
    let message = if is_error { text(&mut input) } else { String::new() };

    let mut buf = vec![0u8; capacity];
    let mut w = JsonWriter::new(&mut buf);
    assert_eq!(w.capacity(), capacity);
    // A message already waiting in the buffer, which a failed message must leave alone.
    let prefix: &[u8] = if capacity >= 8 { b"[true]\n" } else { b"" };
    w.raw(prefix);
    let start = w.len();
    assert_eq!(w.written(), prefix);

    let escaped_id = match &id {
        IdForm::Number(_) => String::new(),
        IdForm::Borrowed(s) | IdForm::Owned(s) => serde_json::to_string(s).expect("strings serialize"),
    };
    let id_value = (!escaped_id.is_empty()).then(|| parse(escaped_id.as_bytes(), 0).expect("a valid string"));
    let wire_id = match (&id, id_value) {
        (IdForm::Number(n), _) => Id::Number(*n),
        (_, Some(value)) => Id::from_value(value).expect("a string id"),
        (_, None) => unreachable!("string ids are parsed above"),
    };
    {
        let mut out = Checked { w: &mut w };
        out.raw(b"{\"jsonrpc\":\"2.0\",\"id\":");
        match (&id, OwnedId::from_id(wire_id)) {
            (IdForm::Owned(_), Some(owned)) => {
                assert!(owned.matches(wire_id), "a copied id does not match its original");
                out.call(|w| owned.write(w));
            }
            _ => out.call(|w| wire_id.write(w)),
        }
        if is_error {
            out.raw(b",\"error\":{\"code\":");
            out.call(|w| w.i64(code));
            out.raw(b",\"message\":");
            out.call(|w| w.string_fmt(format_args!("{message}")));
            out.raw(b",\"data\":");
            out.node(&node);
            out.raw(b"}}");
        } else {
            out.raw(b",\"result\":");
            out.node(&node);
            out.raw(b"}");
        }
    }

    if w.is_overflowed() {
        w.truncate(start);
        assert!(!w.is_overflowed(), "truncate keeps the overflow flag");
        assert_eq!(w.written(), prefix, "a failed message changed the bytes before it");
        // The buffer is usable again.
        if w.remaining() >= 4 {
            w.null();
            assert_eq!(&w.written()[start..], b"null");
        }
        return;
    }
    assert!(!contains_failing_display(&node), "a failing Display did not overflow the message");
    let written = w.into_written();
    assert_eq!(&written[..start], prefix);
    let message_bytes = &written[start..];
    assert!(!message_bytes.iter().any(|&b| b == b'\n' || b == b'\r'), "a raw newline in a message");
    let value = match parse(message_bytes, MAX_DEPTH_LIMIT) {
        Ok(value) => value,
        Err(error) => panic!("unreadable message {:?}: {error}", String::from_utf8_lossy(message_bytes)),
    };
    assert_eq!(value.as_bytes(), message_bytes);
    let (read_id, payload) = match classify(value) {
        Ok(Message::Response { id, result }) if !is_error => (id, result),
        Ok(Message::Error { id: Some(id), error }) if is_error => {
            assert_eq!(error.get("code").and_then(|c| c.as_i64()), Some(code));
            assert_eq!(unescaped(error.get("message").expect("a message")), message);
            (id, error.get("data").expect("data"))
        }
        other => panic!("not the envelope written: {other:?}"),
    };
    match (&id, read_id) {
        (IdForm::Number(n), Id::Number(read)) => assert_eq!(read, *n),
        (IdForm::Borrowed(s) | IdForm::Owned(s), Id::String(read)) => assert!(read.eq_str(s)),
        _ => panic!("the id changed type"),
    }
    check_node(payload, &node);
    // serde_json reads it too, unless a copied document holds a number beyond f64.
    if let Err(error) = serde_json::from_slice::<serde_json::Value>(message_bytes) {
        assert!(error.to_string().starts_with("number out of range"), "serde_json: {error}");
    }
}
